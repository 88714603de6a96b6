"""Which implementation serves: the compiled extensions or the readable Python.

Decided once, here, when the package is imported (msgpack's way): ``BACKEND`` is
"cython" when the compiled extension (``_compiled._native``: the encoder and the
trainer) is built and ``BPE_LESSON_PUREPYTHON`` is unset (or "0"); otherwise
"python". With ``BPE_LESSON_PUREPYTHON=1`` the extension is not even imported.
Every other module asks ``compiled(backend)`` (or ``resolve_backend``) and passes
the caller's ``backend=`` down explicitly; nothing else looks at the environment
or imports the extension.

The extension imports no module of the package: this module hands it, once, the
values of the Python core it uses (``configure``: the named patterns, the splitter
of any other regex, the scanners' class table, the trainer's vocabulary and verbose
line), so the imports run one way: this module -> the core's bottom modules.

Also here, so there is one of each: the number of cores, the input size from
which worker processes (or threads) pay for themselves, and how many ``workers=``
asks for (``resolve_workers``).

What this module does not do: choose an algorithm (``trainer.get_trainer``).
"""

from __future__ import annotations

import os
import warnings

from .._internal import char_classes
from ..patterns import PATTERNS, compile_pattern
from ..ranks import vocab_from_merges
from ..textbook import format_merge

PUREPYTHON = os.environ.get("BPE_LESSON_PUREPYTHON", "") not in ("", "0")

native = None  # the compiled extension, when it serves
if not PUREPYTHON:
    try:
        from . import _native as native
    except ImportError:  # not built: `pip install -e .` compiles it
        native = None
if native is not None:  # what it takes from the Python core, handed in once (it imports none of it)
    native.configure(patterns=PATTERNS, compile_pattern=compile_pattern, class_tables=char_classes.class_tables,
                     class_bits={name: getattr(char_classes, name) for name in ("F_L", "F_N", "F_S", "F_U", "F_W", "F_P")},
                     vocab_from_merges=vocab_from_merges, format_merge=format_merge)

BACKEND = "cython" if native is not None else "python"
BACKENDS = ("python", "cython")

try:
    CORES = len(os.sched_getaffinity(0))  # the cores this process may use
except AttributeError:  # not on Linux
    CORES = os.cpu_count() or 1
# below this much input (bytes of text, or characters), starting workers costs more than it saves
PARALLEL_MIN_BYTES = 4 << 20


def resolve_backend(backend: str | None) -> str:
    """``None`` -> ``BACKEND``; a name is checked (and "cython" must be built and allowed).

    >>> resolve_backend("python")
    'python'
    >>> resolve_backend("fortran")
    Traceback (most recent call last):
    ValueError: unknown backend 'fortran'; use 'python', 'cython' or None (bpe_lesson.BACKEND)
    """
    if backend is None:
        return BACKEND
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; use 'python', 'cython' or None (bpe_lesson.BACKEND)")
    if backend == "cython" and BACKEND != "cython":
        why = ("BPE_LESSON_PUREPYTHON is set" if PUREPYTHON else
               "it is not built; run `pip install -e .` (needs Cython and a C++ compiler)")
        raise RuntimeError(f"the Cython backend is not available: {why}")
    return backend


def compiled(backend: str | None):
    """The compiled extension when ``backend`` (resolved: None is ``BACKEND``) is "cython",
    else None: what every fast path asks, with its caller's ``backend=``.

    >>> compiled("python") is None
    True
    """
    return extension(resolve_backend(backend))


def extension(backend: str):
    """The compiled extension when ``backend``, already resolved ("python" or "cython"), is
    "cython", else None: what a caller that resolved its backend once asks, step after step.

    >>> extension("python") is None
    True
    """
    return native if backend == "cython" else None


MAX_WORKERS = 1024  # above this a workers value is a typo, not a machine


def resolve_workers(requested: int | None, size: int, remote: bool = False, what: str = "workers") -> int:
    """How many workers to use (a ``workers=`` argument): ``requested`` if given (-1:
    every core), else every core for inputs of at least ``PARALLEL_MIN_BYTES``, one below.

    One rule bounds it everywhere (pack, the YAML trainer, chunk counting): more than
    ``MAX_WORKERS`` is refused as a typo; more than the cores this process may use is
    cut to ``CORES`` with a warning (more would only take turns), unless the workers
    are a ``remote`` cluster's.

    >>> resolve_workers(3, 10) == min(3, CORES), resolve_workers(None, 10), resolve_workers(-1, 10) == CORES
    (True, 1, True)
    >>> resolve_workers(250_000, 10)
    Traceback (most recent call last):
    ValueError: workers: 250,000 worker processes is absurd (at most 1,024); ...
    """
    if requested is None:
        return CORES if size >= PARALLEL_MIN_BYTES else 1
    if requested == -1 and not isinstance(requested, bool):
        return CORES
    if isinstance(requested, bool) or not isinstance(requested, int) or requested < 1:
        raise ValueError(f"{what} must be a positive int, -1 (every core) or None (by input size), got {requested!r}")
    if requested > MAX_WORKERS:
        raise ValueError(f"{what}: {requested:,} worker processes is absurd (at most {MAX_WORKERS:,}); this "
                         f"machine has {CORES} cores: use -1 for all of them")
    if requested > CORES and not remote:
        warnings.warn(f"{what}: {requested} is more than the {CORES} cores this process may use; running "
                      f"{CORES} worker processes (more would only take turns)", stacklevel=3)
        return CORES
    return requested
