"""Reading a stored chapter: the helpers every file of ``tests/book`` reads a notebook with.

A chapter is read as the JSON ``book/NAME.ipynb`` holds (nbformat 4): its markdown,
the text its cells printed, and the values myst-nb's ``glue`` stored. Nothing is
executed and nothing is written.

What this module does not do: run a notebook (``pytest --nbval`` does), render
markdown, or parse a chapter's own tables (each test file parses the tables of
its chapter, because their columns differ).

The functions take the notebook as a dict, so a worked example fits in a line:

>>> nb = {"cells": [
...     {"cell_type": "markdown", "id": "m1", "metadata": {},
...      "source": ["## Summary\\n", "It has {glue:text}`n:,` ids."]},
...     {"cell_type": "code", "id": "c1", "metadata": {"tags": ["nbval-ignore-output"]},
...      "source": ["glue('n', 4096, display=False)\\n", "print(n)"], "outputs": [
...          {"output_type": "display_data", "metadata": {"scrapbook": {"name": "n"}},
...           "data": {"application/papermill.record/text/plain": "4096"}},
...          {"output_type": "stream", "name": "stdout", "text": ["4096\\n"]},
...          {"output_type": "stream", "name": "stderr", "text": ["slow\\n"]}]}]}
>>> glued_text(nb), glued_values(nb), glued_tags(nb)
({'n': '4096'}, {'n': 4096}, {'n': ['nbval-ignore-output']})
>>> printed(code_cell(nb, "print(n)")), stdout(cell(nb, "c1"))
('4096\\nslow\\n', '4096\\n')
>>> glue_refs(markdown(nb))
['n']
"""

import ast
import json
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BOOK = os.path.join(ROOT, "book")
GLUE_TEXT = "application/papermill.record/text/plain"   # where myst-nb's glue stores a value's repr
GLUE_ROLE = re.compile(r"\{glue:[a-z]+\}`([^`:]+)(?::[^`]*)?`")  # the role {glue:text}`name:fmt`; its name
GLUED_EVAL = re.compile(r'\{eval\}`glued\("([^"`]*)"\)`')  # {eval}`glued("name:fmt")`, the same number
GLUE_DIRECTIVE = re.compile(r"^```\{glue(?::[a-z]+)?\} +([^\s`]+)", re.M)  # ```{glue:figure} name


# ---------------------------------------------------------------- the notebook and its cells

def load(chapter: str) -> dict:
    """The stored notebook ``book/<chapter>.ipynb`` as a dict: "the_merge_rule" -> {"cells": ...}."""
    with open(os.path.join(BOOK, chapter + ".ipynb"), encoding="utf-8") as f:
        return json.load(f)


def chapter(name: str):
    """A module-scoped fixture ``nb`` that reads ``book/<name>.ipynb`` once for a test file.

    In a test file: ``nb = chapter("unicode_versions")``, then ``def test_x(nb): ...``.
    """
    @pytest.fixture(scope="module", name="nb")
    def nb():
        return load(name)
    return nb


def source(c: dict) -> str:
    """A cell's source as one string: {"source": ["a = 1\\n", "a"]} -> "a = 1\\na".

    In a markdown cell an {eval}`glued("n:,")` role reads as {glue:text}`n:,` (``as_glue_roles``).
    """
    text = "".join(c["source"])
    return as_glue_roles(text) if c.get("cell_type") == "markdown" else text


def cell(nb: dict, cell_id: str) -> dict:
    """The cell whose id is ``cell_id`` (nbformat 4.5 ids): cell(nb, "c021") -> {...}."""
    for c in nb["cells"]:
        if c.get("id") == cell_id:
            return c
    raise AssertionError(f"no cell has the id {cell_id!r}")


def code_cell(nb: dict, needle: str) -> dict:
    """The one code cell whose source holds ``needle``: code_cell(nb, "def measure(") -> {...}."""
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and needle in source(c)]
    assert len(cells) == 1, f"{len(cells)} cells hold {needle!r}"
    return cells[0]


def code_cell_starting(nb: dict, starts: str) -> dict:
    """The one code cell whose source starts with ``starts``: "small = b" -> the cell `small = b"..."`."""
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and source(c).startswith(starts)]
    assert len(cells) == 1, f"one code cell should start with {starts!r}, found {len(cells)}"
    return cells[0]


def cell_above(nb: dict, c: dict) -> dict:
    """The cell right above ``c``: for a code cell, the markdown that introduces it."""
    k = nb["cells"].index(c)
    assert k > 0, "the first cell has no cell above it"
    return nb["cells"][k - 1]


# ---------------------------------------------------------------- what a cell printed

def printed(c: dict) -> str:
    """All a cell printed, stdout and stderr in order: streams "4096\\n", "slow\\n" -> "4096\\nslow\\n"."""
    return "".join("".join(o["text"]) for o in c.get("outputs", []) if o["output_type"] == "stream")


def stdout(c: dict) -> str:
    """What a cell printed to stdout only: streams "4096\\n" (stdout), "slow\\n" (stderr) -> "4096\\n"."""
    return "".join("".join(o["text"]) for o in c.get("outputs", [])
                   if o["output_type"] == "stream" and o.get("name") == "stdout")


def displayed_tables(c: dict) -> list:
    """The markdown tables a cell displayed, each as (title, rows).

    The title is the bold text the output opens with (None if it has none); the rows
    start with the header, leave out the alignment rule, and hold each cell's text,
    stripped: an output "**Ids**\\n\\n| name | ids |\\n| :--- | ---: |\\n| `gpt2` | 50,257 |"
    -> [("Ids", [["name", "ids"], ["`gpt2`", "50,257"]])].
    The cell must mark its markdown GitHub-flavoured: myst-nb's default, CommonMark,
    has no tables and would print the pipes as text.
    """
    assert c["metadata"].get("mystnb", {}).get("markdown_format") == "gfm", \
        "the cell's markdown is not GitHub-flavoured (metadata mystnb.markdown_format: gfm)"
    tables = []
    for o in c.get("outputs", []):
        text = "".join(o.get("data", {}).get("text/markdown", ""))
        # cells split at each | that is not escaped (a cell's own | is written \|)
        rows = [[x.strip().replace("\\|", "|") for x in re.split(r"(?<!\\)\|", line.strip()[1:-1])]
                for line in text.splitlines() if line.startswith("|")]
        if rows:
            title = re.match(r"\*\*(.+?)\*\*", text)
            tables.append((title.group(1) if title else None, [rows[0]] + rows[2:]))
    return tables


# ---------------------------------------------------------------- the markdown

def fold(text: str) -> str:
    """Line breaks and runs of spaces made one space: "a\\n  b" -> "a b"."""
    return " ".join(text.split())


def as_glue_roles(text: str) -> str:
    """{eval}`glued("KEY:FMT")` written as the {glue:text}`KEY:FMT` it renders as (_ext/glued_eval.py).

    A chapter quotes a glued number either way; the tests name it one way.
    '{eval}`glued("n:,")` ids' -> '{glue:text}`n:,` ids'
    """
    return GLUED_EVAL.sub(r"{glue:text}`\1`", text)


def markdown_cells(nb: dict) -> list:
    """Each markdown cell's text, in order: ["# Title\\n...", "## Summary\\n..."]."""
    return [source(c) for c in nb["cells"] if c["cell_type"] == "markdown"]


def markdown(nb: dict) -> str:
    """All the markdown as one text, a line break between cells: ["a", "b"] -> "a\\nb"."""
    return "\n".join(markdown_cells(nb))


def markdown_cells_folded(nb: dict) -> list:
    """Each markdown cell's text folded to one line: ["a\\nb", "c  d"] -> ["a b", "c d"]."""
    return [fold(m) for m in markdown_cells(nb)]


def markdown_folded(nb: dict) -> str:
    """All the markdown on one line, cells folded and joined by a space: ["a\\nb", "c"] -> "a b c"."""
    return " ".join(markdown_cells_folded(nb))


def section(nb: dict, heading: str) -> str:
    """The markdown from the first ``heading`` (e.g. "## Summary") up to the next line opening "## ".

    The heading is included; a "### " heading inside does not end it; the last
    section runs to the end: "## A\\nx\\n### B\\ny\\n## C" with "## A" -> "## A\\nx\\n### B\\ny\\n".
    """
    md = markdown(nb)
    start = md.index(heading)
    nxt = re.search(r"^## ", md[start + len(heading):], re.M)
    return md[start:start + len(heading) + nxt.start()] if nxt else md[start:]


def summary_cell(nb: dict) -> str:
    """The one markdown cell with a line "## Summary" (it may hold "## Exercises" too)."""
    cells = [m for m in markdown_cells(nb) if re.search(r"^## Summary\s*$", m, re.M)]
    assert len(cells) == 1, f"{len(cells)} markdown cells have a line '## Summary'"
    return cells[0]


# ---------------------------------------------------------------- glued values

def _glue_outputs(nb: dict):
    """(name, stored text, cell) for every output a ``glue(name, value)`` call left."""
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                yield name, o["data"][GLUE_TEXT], c


def glued_text(nb: dict) -> dict:
    """name -> the text myst-nb stored for the glued value, its repr: glue("n", 4096) -> {"n": "4096"}."""
    return {name: text for name, text, _ in _glue_outputs(nb)}


def glued_values(nb: dict) -> dict:
    """name -> the glued value, as myst-nb reads it back (``ast.literal_eval`` of its text).

    glue("n", 4096) -> {"n": 4096}; a value with no literal repr (a figure's
    "<Figure size 700x400 with 1 Axes>") is kept as that text.
    """
    out = {}
    for name, text, _ in _glue_outputs(nb):
        try:
            out[name] = ast.literal_eval(text)
        except (SyntaxError, ValueError):
            out[name] = text
    return out


def glued_tags(nb: dict) -> dict:
    """name -> the tags of the cell that glued it: {"task_s": ["nbval-ignore-output"], ...}."""
    return {name: c["metadata"].get("tags", []) for name, _, c in _glue_outputs(nb)}


def glue_refs(text: str) -> list:
    """The names the glue roles of ``text`` paste, in order, repeats kept.

    "{glue:text}`n:,` and {glue:text}`share:.1%`" -> ["n", "share"]
    """
    return GLUE_ROLE.findall(text)


def glue_directives(text: str) -> list:
    """The names the glue directives of ``text`` show: "```{glue:figure} fig_tree\\n..." -> ["fig_tree"]."""
    return GLUE_DIRECTIVE.findall(text)
