"""The graders of the book's exercises: one check per exercise, named by its label.

A chapter's check cell is one line, ``grade("ex-merge-pairs", merge_pairs)``: it
runs the check registered under that label on the reader's solution and prints
``ok``, or fails with a message that says what is wrong. The checks compare the
reader's code with the package (the same merges, the same ids, the same bytes) on
text the chapter loads, and with cases a reader can verify by hand.

Each chapter has a module here (``the_merge_rule.py``, ...) whose functions are
registered with ``@check("ex-...")``; every module in this folder is imported
when this package is, so a new chapter needs no edit here. A chapter's module imports
the harness, never another chapter's module: ``_calls`` (``compare``, which draws and
seeds the generated cases; ``call``; ``Shown``/``Table``; ``alarm``), ``_gen`` (the
generators' building blocks) and ``_reference`` (GPT-4's and GPT-4o's vocabularies,
loaded once). ``tests/teaching/`` feeds each check plausible wrong solutions and expects
them to fail.

What this module does not do: hold the solutions (the notebooks do, folded away).
"""

from __future__ import annotations

import importlib
import pkgutil
import warnings

from ..._internal.optional import optional_import
from ...trainer import StoppedShort
from . import _calls
from ._calls import Generated, ReaderError, Shown, Table, TooSlow, alarm, call, compare, draw, merges_shown, shorter  # noqa: F401,E501  (the chapters' modules use them)
from ._gen import by_size  # noqa: F401  (the chapters' modules use it)

CHECKS = {}  # exercise label -> function(solution, ...) that raises AssertionError when it is wrong


def check(label: str):
    """Register the decorated function as the grader of exercise ``label``.

    >>> @check("ex-doctest-demo")
    ... def _demo(f):
    ...     assert f(2) == 4, "f(2) should be 4"
    >>> grade("ex-doctest-demo", lambda x: x * x)
    ok
    >>> del CHECKS["ex-doctest-demo"]
    """
    def register(fn):
        if label in CHECKS:
            raise ValueError(f"two checks are registered for {label!r}")
        CHECKS[label] = fn
        return fn
    return register


class ExerciseFailed(AssertionError):
    """An exercise's check failed: a few lines that name the exercise, the input, expected and got.

    In a notebook IPython prints only these lines (``_render_traceback_``): no frame of the
    grader's source, which would tell the reader nothing about their own code.
    """

    def _render_traceback_(self):
        return [f"{type(self).__name__}: {self}"]


TIME_LIMIT = 10.0  # seconds a check may take; grade(..., time_limit=...) changes it for one call


def grade(label: str, *solution, time_limit: float | None = None, **kwargs) -> None:
    """Run the check of exercise ``label`` on the reader's solution; print ``ok`` when it passes.

    A failure is one ``ExerciseFailed`` whose message starts with the label; nothing of the
    grader's own source shows in the notebook (``ExerciseFailed._render_traceback_``) or
    under pytest (``__tracebackhide__``). Past ``time_limit`` seconds (default ``TIME_LIMIT``) the check fails
    and says it was too slow.
    """
    __tracebackhide__ = True
    if label not in CHECKS:
        raise KeyError(f"no check is registered for exercise {label!r}; known: {sorted(CHECKS)}")
    limit = TIME_LIMIT if time_limit is None else time_limit
    _calls._CURRENT.append(label)
    _calls.STATS[label] = 0
    message = None
    try:
        with alarm(limit, TooSlow), warnings.catch_warnings():
            # the cases ask the package's trainer for more ids than short texts give, on purpose
            warnings.simplefilter("ignore", StoppedShort)
            CHECKS[label](*solution, **kwargs)
    except TooSlow:
        message = (f"{label}: too slow: no answer within {limit:g} s "
                   f"(a recursion without a memo? a loop that never ends?)")
    except AssertionError as e:
        text = str(e) or "the check failed"
        if not isinstance(e, ReaderError) and _raised_in(e, solution):
            # subtle: the reader's own assert is their code failing, not this check's verdict
            text = f"your code raised AssertionError: {text if str(e) else '(no message)'}{_where(e)}"
        message = text if text.startswith(label + ":") else f"{label}: {text}"
    finally:
        _calls._CURRENT.pop()
    if message is not None:
        raise ExerciseFailed(message).with_traceback(None) from None
    print("ok")


def _codes(solution) -> set:
    """The code objects of the reader's functions: plain, bound, or a class's methods."""
    codes = set()
    for obj in solution:
        members = vars(obj).values() if isinstance(obj, type) else [obj]
        for m in members:
            m = getattr(m, "__func__", m)  # a bound or static method: its function
            if hasattr(m, "__code__"):
                codes.add(m.__code__)
    return codes


def _innermost(e: BaseException):
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb


def _raised_in(e: BaseException, solution) -> bool:
    """Whether ``e`` went through one of the reader's functions (so their code raised it, or
    code they called), rather than being a check's own assert."""
    codes = _codes(solution)
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code in codes:
            return True
        tb = tb.tb_next
    return False


def _where(e: BaseException) -> str:
    tb = _innermost(e)
    return "" if tb is None else f" (in {tb.tb_frame.f_code.co_name}, line {tb.tb_lineno})"


# the graders compare with tiktoken, and the fine-tuning ones with torch: both come with the
# book's extra, and a missing one is named here, once, before any chapter's module needs it
for _needed in ("tiktoken", "torch"):
    optional_import(_needed, "bpe_lesson.teaching.checks (the book's exercise graders)", extra="book")
for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
