"""What the checks share: calling the reader's code so that a crash reads as a failed check.

What this module does not do: register any check (the chapter modules do).
"""

from __future__ import annotations


def call(fn, *args):
    """Call the reader's ``fn``; an exception it raises becomes a failed check that names it.

    >>> call(len, "abc")
    3
    >>> call(int, "x")
    Traceback (most recent call last):
    AssertionError: int('x') raised ValueError: invalid literal for int() with base 10: 'x'
    """
    try:
        return fn(*args)
    except AssertionError:
        raise
    except Exception as e:  # the reader's code failed: say where, as a failed check
        shown = ", ".join(_short(a) for a in args)
        raise AssertionError(f"{getattr(fn, '__name__', 'the solution')}({shown}) raised "
                             f"{type(e).__name__}: {e}") from e


def _short(value) -> str:
    r = repr(value)
    return r if len(r) <= 40 else r[:37] + "..."
