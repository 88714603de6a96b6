"""The grading harness itself: time limit, labelled short failures, shrinking, crashes as failures.

Every chapter's check goes through ``grade`` and ``compare``; these tests feed them
solutions whose fault is known by hand (an endless loop, an exception, a wrong
type, a mistake on inputs of three elements or more) and read the failure.
"""

import contextlib
import io
import os
import shutil
import subprocess
import sys

import nbformat
import pytest

from bpe_lesson.teaching.checks import CHECKS, ExerciseFailed, Generated, check, compare, grade
from bpe_lesson.teaching.checks._calls import STATS


@pytest.fixture
def demo():
    """A check registered for the test: a reader's sort against sorted(), on 250 generated lists."""
    import random

    @check("ex-harness-demo")
    def _demo(fn):
        rng = random.Random(7)
        cases = [([3, 1, 2],), ([],)] + [Generated([rng.randrange(9) for _ in range(rng.randrange(12))])
                                         for _ in range(250)]
        compare(fn, sorted, cases, kind=list)
    yield "ex-harness-demo"
    del CHECKS["ex-harness-demo"]


def failure(label, fn, **kwargs):
    with contextlib.redirect_stdout(io.StringIO()):
        with pytest.raises(ExerciseFailed) as info:
            grade(label, fn, **kwargs)
    return str(info.value)


def test_a_right_solution_prints_ok_and_counts_its_generated_cases(demo):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        grade(demo, lambda xs: sorted(xs))
    assert out.getvalue() == "ok\n"
    assert STATS[demo] == 250


def test_a_failure_is_shrunk_to_the_smallest_input_and_told_in_three_lines(demo):
    def sort_small(xs):  # right on fewer than 3 elements, wrong from 3 on
        return sorted(xs) if len(xs) < 3 else list(xs)
    msg = failure(demo, sort_small)
    lines = msg.splitlines()
    assert lines[0].startswith("ex-harness-demo: sort_small(") and lines[0].endswith("is wrong")
    shown = lines[0][len("ex-harness-demo: sort_small("):-len(") is wrong")]
    assert len(eval(shown)) == 3, msg  # shrunk: no smaller list fails
    assert lines[1].startswith("  expected: ") and lines[2].startswith("  got:      ")


def test_an_endless_loop_fails_in_time_and_says_so(demo):
    def spin(xs):
        while True:
            try:
                pass
            except Exception:  # subtle: a broad except must not swallow the timer
                pass
    msg = failure(demo, spin, time_limit=0.3)
    assert msg.startswith("ex-harness-demo: too slow") and "0.3 s" in msg


def test_a_timer_signal_that_is_lost_once_fires_again(demo):
    # a TooSlow raised inside a finalizer is printed and dropped by Python; here the
    # reader's code drops the first one itself, and the repeated signal must stop it
    def swallow_once(xs):
        dropped = 0
        while True:
            try:
                while True:
                    pass
            except BaseException:
                dropped += 1
                if dropped > 1:
                    raise
    msg = failure(demo, swallow_once, time_limit=0.3)
    assert msg.startswith("ex-harness-demo: too slow"), msg


def test_an_exception_and_a_wrong_type_are_failures_not_crashes(demo):
    assert "raised ZeroDivisionError" in failure(demo, lambda xs: 1 / 0)
    assert "returned a tuple, not a list" in failure(demo, lambda xs: tuple(sorted(xs)))

    def deep(xs):
        return deep(xs)
    assert "RecursionError" in failure(demo, deep)


def test_changing_the_input_is_a_failure(demo):
    def sort_in_place(xs):
        xs.sort()
        return xs
    assert "changed its input" in failure(demo, sort_in_place)


def test_in_a_notebook_the_failure_shows_no_grader_frame():
    err = ExerciseFailed("ex-x: f([1]) is wrong\n  expected: 1\n  got:      2")
    assert err._render_traceback_() == ["ExerciseFailed: ex-x: f([1]) is wrong\n  expected: 1\n  got:      2"]


def test_nbval_names_the_failing_exercise(tmp_path):
    """The repository's conftest.py reports an exercise's cells with its label."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    shutil.copy(os.path.join(root, "conftest.py"), tmp_path / "conftest.py")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    solution = nbformat.v4.new_code_cell("def double(n):\n    return n + 2")
    solution.metadata["tags"] = ["solution"]
    checked = nbformat.v4.new_code_cell("assert double(3) == 6, 'ex-toy-double: double(3) should be 6'")
    checked.metadata["tags"] = ["check"]
    nb.cells = [nbformat.v4.new_markdown_cell("```{solution-start} ex-toy-double\n```"), solution, checked]
    for n, cell in enumerate(nb.cells[1:]):
        cell.execution_count = n + 1
    nbformat.write(nb, tmp_path / "toy.ipynb")
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "nbval", "--nbval", "--nbval-current-env",
                        "-p", "no:cacheprovider", "-q", "toy.ipynb"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300, env=dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"))
    assert p.returncode == 1, p.stdout
    assert "FAILED toy.ipynb::Cell 1 [ex-toy-double]" in p.stdout, p.stdout


def test_a_base_exception_in_the_readers_code_is_a_failure(demo):
    class Panic(BaseException):  # as pyo3 raises when Rust code panics
        pass

    def panics(xs):
        raise Panic("index out of bounds")
    assert "raised Panic: index out of bounds" in failure(demo, panics)


def test_the_readers_own_assert_is_reported_as_theirs(demo):
    def sort_checked(xs):  # the reader's assert fires on every input
        assert xs == [], "only the empty list"
        return xs
    msg = failure(demo, sort_checked)
    assert msg.startswith("ex-harness-demo: sort_checked(") and "raised AssertionError: only the empty list" in msg

    @check("ex-harness-direct")
    def _direct(fn):  # a check that calls the reader's function itself, no call()/compare()
        assert fn([2, 1]) == [1, 2], "fn([2, 1]) should be [1, 2]"
    try:
        msg = failure("ex-harness-direct", sort_checked)
        assert msg.startswith("ex-harness-direct: your code raised AssertionError: only the empty list")
        assert "sort_checked" in msg  # where: the reader's function
        # the check's own assert is still its verdict
        assert failure("ex-harness-direct", lambda xs: xs).startswith("ex-harness-direct: fn([2, 1]) should be")
    finally:
        del CHECKS["ex-harness-direct"]


def test_long_values_are_cut_around_their_first_difference():
    @check("ex-harness-long")
    def _long(fn):  # a long list whose 70th element is wrong: printed whole, both lines would look alike
        compare(fn, lambda n: list(range(n)), [(100,)], shrink=lambda args: iter(()))
    try:
        msg = failure("ex-harness-long", lambda n: [k if k != 70 else -1 for k in range(n)])
    finally:
        del CHECKS["ex-harness-long"]
    lines = msg.splitlines()
    assert "69, 70, 71" in lines[1] and "69, -1, 71" in lines[2], msg
    assert lines[3] == "  first difference at index 70 (of 100 expected, 100 got)", msg


def test_dicts_that_differ_say_which_keys():
    @check("ex-harness-dict")
    def _dict(fn):
        compare(fn, lambda n: {(k, k + 1): k for k in range(n)}, [(40,)], shrink=lambda args: iter(()))
    try:
        msg = failure("ex-harness-dict", lambda n: {(k, k + 1): k for k in range(n) if k != 33})
    finally:
        del CHECKS["ex-harness-dict"]
    assert "1 key(s) missing, e.g. (33, 34)" in msg, msg
