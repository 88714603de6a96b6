"""The graders of the book's exercises: one check per exercise, named by its label.

A chapter's check cell is one line, ``grade("ex-merge-pairs", merge_pairs)``: it
runs the check registered under that label on the reader's solution and prints
``ok``, or fails with a message that says what is wrong. The checks compare the
reader's code with the package (the same merges, the same ids, the same bytes) on
text the chapter loads, and with cases a reader can verify by hand.

Each chapter has a module here (``merge_rule.py``, ...) whose functions are
registered with ``@check("ex-...")``; every module in this folder is imported
when this package is, so a new chapter needs no edit here. ``tests/teaching/``
feeds each check a plausible wrong solution and expects it to fail.

What this module does not do: hold the solutions (the notebooks do, folded away).
"""

from __future__ import annotations

import importlib
import pkgutil

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


def grade(label: str, *solution, **kwargs) -> None:
    """Run the check of exercise ``label`` on the reader's solution; print ``ok`` when it passes."""
    if label not in CHECKS:
        raise KeyError(f"no check is registered for exercise {label!r}; known: {sorted(CHECKS)}")
    CHECKS[label](*solution, **kwargs)
    print("ok")


for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
