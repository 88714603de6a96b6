"""The ``bpe-lesson`` command's front door: Ctrl-C is quiet from the first instant.

The console script ``bpe-lesson`` calls ``main`` here. Importing ``bpe_lesson``
(numpy, regex, the compiled extension) takes a moment, and ``bpe_lesson.__main__``
catches Ctrl-C only once its ``main`` runs: a Ctrl-C before that printed a traceback
through numpy's import. This module imports the standard library only, so it can
set Ctrl-C to print ``bpe-lesson: interrupted`` and exit with status 130 (what the
command does later) before the package is imported; the command's ``main`` then
takes Ctrl-C back (``end_of_start_up``). ``python -m bpe_lesson`` imports the
package before its ``__main__`` too: ``bpe_lesson/__init__.py`` calls
``quiet_start_up`` first when Python runs it that way (``run_by_python_m``).

What this module does not do: parse arguments or run anything (``bpe_lesson.__main__``
does), or touch Ctrl-C in a program that imports bpe_lesson; a SIGINT ignored from
the start (a background job's) stays ignored.
"""

import signal
import sys


def _interrupted(signum, frame):
    # subtle: SystemExit, not KeyboardInterrupt: Python prints no traceback for it,
    # whatever import it cuts short
    print("bpe-lesson: interrupted", file=sys.stderr)
    raise SystemExit(130)


def quiet_start_up():
    """Until ``end_of_start_up()``, Ctrl-C exits quietly with status 130."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not if ignored or taken
        signal.signal(signal.SIGINT, _interrupted)


def end_of_start_up():
    """Ctrl-C raises KeyboardInterrupt again, for the command to catch (a no-op if not started here)."""
    if signal.getsignal(signal.SIGINT) is _interrupted:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def run_by_python_m(argv=None):
    """The module ``python -m NAME`` is locating, or "" when Python is not doing that.

    Python's docs: while ``-m`` locates its module, ``sys.argv[0]`` is ``"-m"``; the
    name is in ``sys.orig_argv``. ``["python", "-B", "-m", "bpe_lesson", "pack"]`` ->
    ``"bpe_lesson"`` (and ``-mbpe_lesson``, ``-Bm bpe_lesson`` alike).
    """
    if argv is None:
        if sys.argv[:1] != ["-m"]:
            return ""
        argv = sys.orig_argv
    rest = iter(argv[1:])
    for a in rest:
        if a in ("-X", "-W"):  # an option and its value
            next(rest, "")
        elif not a.startswith("-") or a.startswith(("-c", "--")):  # a script, -c CODE, or no -m
            return ""
        elif "m" in a:  # -m NAME, -mNAME, -Bm NAME
            return a[a.index("m") + 1:] or next(rest, "")
    return ""


def main():
    """The ``bpe-lesson`` console script: the command, its import included."""
    quiet_start_up()
    from bpe_lesson.__main__ import main as run  # subtle: here, after Ctrl-C is quiet

    return run()
