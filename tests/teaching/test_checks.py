"""Every exercise in the book has a registered check, fed 3 wrong solutions and 2 right ones.

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


def _solutions_in(name):
    """label -> number of entries in the RIGHT or WRONG dicts of every test_checks_*.py file."""
    found = {}
    for path in glob.glob(os.path.join(os.path.dirname(__file__), "test_checks_*.py")):
        tree = ast.parse(open(path, encoding="utf-8").read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets) \
                    and isinstance(node.value, ast.Dict):
                for k, v in zip(node.value.keys, node.value.values):
                    if isinstance(k, ast.Constant):
                        found[k.value] = found.get(k.value, 0) + (len(v.elts) if isinstance(v, (ast.List, ast.Tuple)) else 1)
    return found


def test_every_check_is_fed_three_wrong_solutions_and_two_right_ones():
    wrong, right = _solutions_in("WRONG"), _solutions_in("RIGHT")
    few_wrong = {label: wrong.get(label, 0) for label in CHECKS if wrong.get(label, 0) < 3}
    few_right = {label: right.get(label, 0) for label in CHECKS if right.get(label, 0) < 2}
    assert not few_wrong, f"checks fed fewer than 3 wrong solutions: {few_wrong}"
    assert not few_right, f"checks with fewer than 2 right solutions (the notebook's and another): {few_right}"


def test_parts_one_to_three_have_three_exercises_a_chapter():
    import yaml
    toc = yaml.safe_load(open(os.path.join(ROOT, "_toc.yml"), encoding="utf-8"))
    per_chapter = {}
    for label, nb in exercise_labels().items():
        per_chapter[nb] = per_chapter.get(nb, 0) + 1
    short = {}
    for part in toc["parts"][:3]:
        for chapter in part["chapters"]:
            nb = os.path.basename(chapter["file"]) + ".ipynb"
            if os.path.exists(os.path.join(ROOT, "book", nb)) and per_chapter.get(nb, 0) < 3:
                short[nb] = per_chapter.get(nb, 0)
    assert not short, f"chapters of Parts I-III with fewer than 3 exercises: {short}"
