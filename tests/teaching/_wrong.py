"""The one harness of the test_checks_<chapter>.py files: right solutions pass, wrong ones fail well.

Each chapter's test file defines ``RIGHT`` (label -> a list of right solutions: the
notebook's and at least one written differently) and ``WRONG`` (label -> at least
three wrong solutions of different kinds), then::

    from _wrong import graded

    test_right_solution_passes, test_wrong_solution_fails = graded(RIGHT, WRONG)

(a file that needs more of a failure, or a fixture, writes the two tests itself with
``right_cases``/``run_right`` and ``wrong_cases``/``run_wrong``).

A solution that takes extra keyword arguments in the notebook's ``grade`` call is
given as ``With(fn, key=value)``. Both runners go through ``grade``, as the chapter
does: the time limit applies, a failure must be one short ``ExerciseFailed`` that
starts with the label, and a right solution must have been compared on at least
200 generated cases.
"""

import contextlib
import io

import pytest

from bpe_lesson.teaching.checks import ExerciseFailed, grade
from bpe_lesson.teaching.checks._calls import MIN_GENERATED, STATS

MAX_LINES = 6  # a failure a learner reads: the label and input, expected, got, maybe a hint


class With:
    """A solution plus the keyword arguments the chapter's grade call passes with it."""

    def __init__(self, solution, *more, **kwargs):
        self.args = (solution, *more)
        self.kwargs = kwargs
        self.__name__ = getattr(solution, "__name__", type(solution).__name__)


def _args(solution):
    return (solution.args, solution.kwargs) if isinstance(solution, With) else ((solution,), {})


def run_right(label, solution, min_generated=MIN_GENERATED):
    args, kwargs = _args(solution)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        grade(label, *args, **kwargs)
    assert out.getvalue().splitlines()[-1:] == ["ok"], f"{label}: grade printed {out.getvalue()!r}"
    assert STATS.get(label, 0) >= min_generated, (
        f"{label}: the check compared {STATS.get(label, 0)} generated cases, fewer than {min_generated}")


def run_wrong(label, solution):
    args, kwargs = _args(solution)
    with contextlib.redirect_stdout(io.StringIO()):
        with pytest.raises(ExerciseFailed) as info:
            grade(label, *args, **kwargs)
    message = str(info.value)
    assert message.startswith(label + ":"), f"the failure does not name {label}: {message!r}"
    assert len(message.splitlines()) <= MAX_LINES, f"{label}: a failure of {len(message.splitlines())} lines"
    assert info.value.__cause__ is None and info.value.__suppress_context__, "the failure chains the grader's"
    return message


def right_cases(right):
    """pytest parameters: one (label, right solution) per entry."""
    return [pytest.param(label, fn, id=f"{label}-{getattr(fn, '__name__', k)}")
            for label, fns in right.items() for k, fn in enumerate(fns if isinstance(fns, list) else [fns])]


def wrong_cases(wrong):
    """pytest parameters: one (label, wrong solution) per entry, named after the wrong solution."""
    return [pytest.param(label, fn, id=f"{label}-{getattr(fn, '__name__', k)}")
            for label, fns in wrong.items() for k, fn in enumerate(fns)]


def graded(right, wrong):
    """The two tests of a chapter's test file: each right solution passes, each wrong one fails well."""
    @pytest.mark.parametrize("label, solution", right_cases(right))
    def test_right_solution_passes(label, solution):
        run_right(label, solution)

    @pytest.mark.parametrize("label, solution", wrong_cases(wrong))
    def test_wrong_solution_fails(label, solution):
        run_wrong(label, solution)

    return test_right_solution_passes, test_wrong_solution_fails


cases = wrong_cases  # the name the older test files use
