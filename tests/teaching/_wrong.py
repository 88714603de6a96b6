"""Shared by the test_checks_<chapter>.py files: run a chapter's RIGHT and WRONG solutions."""

import pytest

from bpe_lesson.teaching.checks import CHECKS


def run_right(label, solution):
    CHECKS[label](solution)


def run_wrong(label, solution):
    with pytest.raises(AssertionError):
        CHECKS[label](solution)


def cases(wrong):
    """pytest parameters: one (label, wrong solution) per entry, named after the wrong solution."""
    return [pytest.param(label, fn, id=f"{label}-{getattr(fn, '__name__', k)}")
            for label, fns in wrong.items() for k, fn in enumerate(fns)]
