"""The student version of the book: ``python -m bpe_lesson.teaching.exercises strip SRC DST``.

Both directions on a tiny notebook built here that follows the convention (see
``bpe_lesson/teaching/exercises.py``): stripped, ``pytest --nbval`` fails on exactly the
unsolved exercises' cells; with the solutions typed back in, it passes. Then the
convention itself is checked on every chapter that exists in ``book/``.

nbval runs in a subprocess (a kernel per run), so these tests take a few seconds.
"""

import ast
import glob
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import nbformat
import pytest

from bpe_lesson.teaching.exercises import CHECK_TAG, EXAMPLE_TAG, IGNORE_TAG, LISTING_TAG, SOLUTION_TAG

BOOK = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "book")


# ---------------------------------------------------------------- a tiny notebook

def _md(text):
    return nbformat.v4.new_markdown_cell(text)


def _code(source, tags=(), prints=None):
    cell = nbformat.v4.new_code_cell(source)
    if tags:
        cell.metadata["tags"] = list(tags)
    if prints is not None:
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=prints)]
    return cell


def toy_notebook():
    """A normal cell, then two exercises: one asks for a function, one for a number."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        _md("# A toy chapter"),
        _code("base = 21\nprint(base * 2)", prints="42\n"),
        _md("```{exercise} Double\n:label: ex-toy-double\nWrite `double(n)`.\n```"),
        _md("```{solution-start} ex-toy-double\n:class: dropdown\n```"),
        _code("def double(n):\n    return 2 * n", tags=[SOLUTION_TAG]),
        _md("```{solution-end}\n```"),
        _code("assert double(base) == 42\nprint('ok')", tags=[CHECK_TAG], prints="ok\n"),
        _code("print(double(base + 1))", tags=[EXAMPLE_TAG], prints="44\n"),
        _md("```{exercise} A number\n:label: ex-toy-answer\nSet `answer` to six times seven.\n```"),
        _md("```{solution-start} ex-toy-answer\n:class: dropdown\n```"),
        _code("answer = 6 * 7", tags=[SOLUTION_TAG]),
        _md("```{solution-end}\n```"),
        _code("assert answer == 42\nprint('ok')", tags=[CHECK_TAG], prints="ok\n"),
        _code("print(base + 1)", prints="22\n"),
    ]
    # as if run top to bottom (nbval treats a cell without an execution count as never run)
    for n, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        cell.execution_count = n + 1
    return nb


def code_cell_names(nb, wanted):
    """nbval's item names ("Cell N", N counting code cells only) of the cells at notebook indices ``wanted``."""
    names, n = {}, 0
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            names[i] = f"Cell {n}"
            n += 1
    return {names[i] for i in wanted}


def tagged(nb, tag):
    return [i for i, c in enumerate(nb.cells) if tag in c.metadata.get("tags", [])]


def strip_cli(src, dst):
    p = subprocess.run([sys.executable, "-m", "bpe_lesson.teaching.exercises", "strip", str(src), str(dst)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def run_nbval(paths, tmp_path):
    """Run ``pytest --nbval`` on notebooks in one fresh process: (exit code, {notebook stem: failed item names}).

    One pytest process for all of them (nbval still gives each notebook its own kernel),
    with plugin autoloading off, so the run costs little more than the kernels.
    """
    report = tmp_path / "nbval-report.xml"
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "nbval", "--nbval", "--nbval-current-env",
                        "-p", "no:cacheprovider", "-q", f"--junitxml={report}", *map(str, paths)],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    failed = {path.stem: set() for path in paths}
    for case in ET.parse(report).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            stem = case.get("classname").split(".")[-2]  # "student.unsolved.ipynb" for student/unsolved.ipynb
            failed[stem].add(case.get("name"))
    return p.returncode, failed, p.stdout


@pytest.fixture
def toy(tmp_path):
    """(original notebook, stripped notebook path) with the CLI run on a folder holding the toy chapter."""
    src, dst = tmp_path / "book", tmp_path / "student"
    src.mkdir()
    nb = toy_notebook()
    nbformat.write(nb, src / "toy.ipynb")
    out = strip_cli(src, dst)
    assert "toy.ipynb: 2 exercise(s) stripped (ex-toy-double, ex-toy-answer)" in out
    return nb, dst / "toy.ipynb"


def test_stripped_solution_cells_are_stubs_without_outputs(toy):
    original, path = toy
    stripped = nbformat.read(path, as_version=4)
    assert len(stripped.cells) == len(original.cells)
    solutions = tagged(original, SOLUTION_TAG)
    checks = tagged(original, CHECK_TAG)
    examples = tagged(original, EXAMPLE_TAG)
    assert examples
    for i, (a, b) in enumerate(zip(original.cells, stripped.cells)):
        if i in solutions:
            assert "raise NotImplementedError" in b.source
            assert b.outputs == [] and b.execution_count is None
            assert b.metadata["tags"] == [SOLUTION_TAG, IGNORE_TAG]
        elif i in checks:  # the check keeps its code, not the output the answer printed
            assert b.source == a.source and a.outputs and b.outputs == []
            assert b.metadata["tags"] == [CHECK_TAG, IGNORE_TAG]
        elif i in examples:  # the worked example too: its output is what the answer prints
            assert b.source == a.source and a.outputs and b.outputs == []
            assert b.metadata["tags"] == [EXAMPLE_TAG, IGNORE_TAG]
        else:
            assert b.source == a.source, f"cell {i} is not a solution cell but was changed"
    # the function stub keeps the signature, so a student knows what to write
    assert "def double(n):" in stripped.cells[solutions[0]].source
    # the stub raises when its exercise is used
    namespace = {}
    exec(stripped.cells[solutions[0]].source, namespace)
    with pytest.raises(NotImplementedError, match="ex-toy-double"):
        namespace["double"](1)
    with pytest.raises(NotImplementedError, match="ex-toy-answer"):
        exec(stripped.cells[solutions[1]].source, {})


def test_nbval_fails_on_exactly_the_unsolved_exercises_then_passes(toy, tmp_path):
    original, path = toy
    sol_double, sol_answer = tagged(original, SOLUTION_TAG)
    check_double, check_answer = tagged(original, CHECK_TAG)
    (example_double,) = tagged(original, EXAMPLE_TAG)
    stripped = nbformat.read(path, as_version=4)

    # three students' copies: nothing solved, the first exercise solved, both solved
    copies = {"unsolved": [], "half": [sol_double], "solved": [sol_double, sol_answer]}
    paths = []
    for stem, solved in copies.items():
        nb = nbformat.from_dict(stripped)
        for i in solved:
            nb.cells[i].source = original.cells[i].source  # the student types the solution in
        paths.append(path.parent / f"{stem}.ipynb")
        nbformat.write(nb, paths[-1])
    code, failed, out = run_nbval(paths, tmp_path)
    assert code != 0, out

    # (b) nothing solved: every check fails, and so does the stub that raises on its own;
    #     the normal cells before, between and after the exercises still pass
    assert failed["unsolved"] == code_cell_names(original, [check_double, example_double, sol_answer,
                                                            check_answer]), out
    # only the second exercise unsolved: only its cells fail
    assert failed["half"] == code_cell_names(original, [sol_answer, check_answer]), out
    # (c) both solutions back in: nothing fails
    assert failed["solved"] == set(), out
    assert "passed" in out


# ---------------------------------------------------------------- the real book

CHAPTERS = sorted(glob.glob(os.path.join(BOOK, "*.ipynb")))


def _names(tree, ctx):
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


def _bound(tree):
    """Top-level names a cell binds: assignments, defs, classes, imports."""
    out = _names(tree, ast.Store)
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in n.names)
    return out


def _parse(source):
    """The cell as Python, IPython magics dropped; None if it still does not parse."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


@pytest.mark.parametrize("chapter", CHAPTERS or [None], ids=lambda p: os.path.basename(p) if p else "no-chapters")
def test_book_chapters_follow_the_exercise_convention(chapter, tmp_path):
    if chapter is None:
        pytest.skip("book/ holds no notebook yet")
    name = os.path.basename(chapter)
    src = tmp_path / "book"
    src.mkdir()
    shutil.copy(chapter, src / name)
    strip_cli(src, tmp_path / "student")
    original = nbformat.read(chapter, as_version=4)
    stripped = nbformat.read(tmp_path / "student" / name, as_version=4)

    # the strip keeps every cell and stubs exactly the solution cells
    assert len(stripped.cells) == len(original.cells)
    solutions = tagged(original, SOLUTION_TAG)
    checks = tagged(original, CHECK_TAG)
    assert len(solutions) >= 2, f"{name}: {len(solutions)} exercise(s); every chapter has at least two"
    changed = [i for i, (a, b) in enumerate(zip(original.cells, stripped.cells)) if a.source != b.source]
    listings = tagged(original, LISTING_TAG)
    assert changed == sorted(solutions + listings), (
        f"{name}: cells {changed} were stubbed, but the solution and answer-listing cells are "
        f"{sorted(solutions + listings)}")
    for i in listings:  # the student copy shows no line of the package's answer
        assert stripped.cells[i].outputs == [] and "def " not in stripped.cells[i].source
    examples = tagged(original, EXAMPLE_TAG)
    for i in checks + examples:  # no check or example cell in the student copy shows what the answer printed
        assert stripped.cells[i].outputs == [], f"{name}: check or example cell {i} keeps its outputs"
    for i in checks:  # a check grades and prints nothing of its own: no answer shows in the book
        tree = _parse(original.cells[i].source)
        prints = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "print"]
        assert not prints, (f"{name}: check cell {i} calls print; a check only grades (put a worked "
                            "example in an example cell after it)")
        printed = "".join(o.get("text", "") for o in original.cells[i].outputs if o.output_type == "stream")
        assert printed.endswith("ok\n"), f"{name}: check cell {i} does not end in ok: {printed[-200:]!r}"
    for i in examples:  # an example follows its check (or another example)
        before = original.cells[i - 1].metadata.get("tags", [])
        assert CHECK_TAG in before or EXAMPLE_TAG in before, f"{name}: example cell {i} follows no check cell"
    for i in solutions:
        assert "raise NotImplementedError" in stripped.cells[i].source
        assert stripped.cells[i].outputs == []
        # a solution prints nothing: the student's copy stores no output, so a solved exercise must print none
        assert original.cells[i].outputs == [], f"{name}: solution cell {i} has outputs; solutions print nothing"
        assert original.cells[i].cell_type == "code"

    # every solution cell has its own check cell after it (before the next solution)
    for k, i in enumerate(solutions):
        end = solutions[k + 1] if k + 1 < len(solutions) else len(original.cells)
        assert any(i < c < end for c in checks), f"{name}: solution cell {i} has no check cell after it"

    # no other cell uses what a solution cell defines (so an unsolved exercise fails only its own cells):
    # a name bound by a solution and read later by a cell that is neither a check nor rebinds it
    owner = {}  # name -> index of the solution cell that defined it last
    for i, cell in enumerate(original.cells):
        if cell.cell_type != "code":
            continue
        tree = _parse(cell.source)
        if tree is None:
            continue
        bound = _bound(tree)
        if i in solutions or i in listings:  # a listing's names are gone from the student copy too
            owner.update((n, i) for n in bound)
            continue
        if i not in checks and i not in examples:
            used = {n for n in _names(tree, ast.Load) if n in owner and n not in bound}
            assert not used, (f"{name}: cell {i} uses {sorted(used)}, defined by solution cell(s) "
                              f"{sorted({owner[n] for n in used})}; only check and example cells may")
        for n in bound:
            owner.pop(n, None)


def test_every_stub_of_the_student_copy_parses(tmp_path):
    """The whole book stripped at once, as ``make student`` does: each stub is Python that
    defines every function its solution defines (a signature over several lines kept whole)."""
    if not CHAPTERS:
        pytest.skip("book/ holds no notebook yet")
    strip_cli(BOOK, tmp_path / "student")
    stubs = 0
    for chapter in CHAPTERS:
        name = os.path.basename(chapter)
        original = nbformat.read(chapter, as_version=4)
        stripped = nbformat.read(tmp_path / "student" / name, as_version=4)
        for i in tagged(original, SOLUTION_TAG):
            stub = stripped.cells[i].source
            try:
                tree = ast.parse(stub)
            except SyntaxError as e:
                pytest.fail(f"{name}: the stub of solution cell {i} does not parse ({e.msg}):\n{stub}")
            solution = _parse(original.cells[i].source)
            defined = {n.name for n in solution.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            stubbed = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            assert set(stubbed) == defined, f"{name}: cell {i} stubs {sorted(stubbed)}, solves {sorted(defined)}"
            for n in solution.body:  # the same parameters, defaults included
                if n.__class__ in (ast.FunctionDef, ast.AsyncFunctionDef):
                    assert ast.dump(n.args) == ast.dump(stubbed[n.name].args), f"{name}: cell {i} {n.name}"
            stubs += 1
    assert stubs >= 2 * len(CHAPTERS)
