"""Every exercise in the book has a registered check, and a test that feeds it a wrong solution.

The wrong solutions live in ``tests/teaching/test_checks_*.py``, one file per chapter,
each with a ``WRONG`` dict (label -> list of wrong solutions) that its own tests run;
here we only check that no exercise is left without one.
"""

import ast
import glob
import json
import os
import re

from bpe_lesson.teaching.checks import CHECKS

ROOT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
LABEL = re.compile(r"```\{exercise(?:-start)?\}[^\n]*\n(?:[^\n]*\n)*?:label:\s*(\S+)")


def exercise_labels():
    labels = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "book", "*.ipynb"))):
        nb = json.load(open(path, encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "markdown":
                for label in LABEL.findall("".join(cell["source"])):
                    labels[label] = os.path.basename(path)
    return labels


def wrong_solution_labels():
    found = set()
    for path in glob.glob(os.path.join(os.path.dirname(__file__), "test_checks_*.py")):
        tree = ast.parse(open(path, encoding="utf-8").read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "WRONG" for t in node.targets):
                found |= {k.value for k in node.value.keys if isinstance(k, ast.Constant)}
    return found


def test_every_exercise_has_a_check():
    missing = {label: nb for label, nb in exercise_labels().items() if label not in CHECKS}
    assert not missing, f"exercises with no registered check: {missing}"


def test_every_check_is_fed_a_wrong_solution():
    missing = sorted(set(CHECKS) - wrong_solution_labels())
    assert not missing, f"checks that no test feeds a wrong solution: {missing}"
