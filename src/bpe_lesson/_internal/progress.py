"""Progress bars for long runs (training, the YAML trainer, ``pack``), on stderr only.

One option everywhere, ``progress``:
  None   (the default) a bar on a terminal only: shown when stderr is a TTY and the
         run takes more than a moment (``delay``), so a log file, a pipe or a
         notebook's stored outputs never hold one;
  True   a bar wherever stderr goes, at once: in a notebook, a terminal or a log;
  False  no bar.
In a Jupyter kernel with ``ipywidgets`` installed the bar is tqdm's notebook
widget (``tqdm.auto``); without it, tqdm's plain text bar, which a notebook
shows in the cell's stderr (``tqdm.auto`` would warn there instead).

What this module does not do: count anything (the caller updates the bar), or
write to stdout (a command's stdout is its result; a bar never mixes into it).
"""

from __future__ import annotations

import importlib.util
import sys


def _in_kernel() -> bool:
    """Whether this process is a Jupyter kernel (an IPython shell with a kernel attached)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    return shell is not None and getattr(shell, "kernel", None) is not None


def check_progress(progress, where: str = "progress"):
    """``progress`` if it is None, True or False; else a ``ValueError`` naming it."""
    if progress is not None and not isinstance(progress, bool):
        raise ValueError(f"{where} {progress!r} should be true, false, or none (a bar on a terminal only)")
    return progress


def progress_bar(progress=None, delay: float = 1.0, **options):
    """A tqdm bar on stderr as ``progress`` says (see the module docstring); ``options``
    go to tqdm (``total``, ``desc``, ``unit``, ...).

    >>> with progress_bar(False, total=3) as bar:
    ...     bar.update(3)
    """
    check_progress(progress)
    from tqdm import tqdm  # here, not at the top: `import bpe_lesson` stays light

    if progress is True:
        if _in_kernel() and importlib.util.find_spec("ipywidgets") is not None:
            from tqdm.notebook import tqdm  # a widget in the notebook
        return tqdm(file=sys.stderr, delay=0, **options)
    # None: disable=None is tqdm's "off unless stderr is a TTY"
    return tqdm(file=sys.stderr, delay=delay, disable=None if progress is None else True, **options)
