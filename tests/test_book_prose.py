"""The chapters' prose against their own cells: figures glued or set, lines that fit, one shape.

A figure in a chapter's markdown (a count, a ratio, a percentage, a size) must be
one of:
  * glued: written as ``{glue:text}`name:fmt``` so it is what a cell computed;
  * set by the code: the same number appears in some code cell's source (an input
    such as a vocabulary size the chapter chooses);
  * worked out by hand in the text (ids of a hand example, the digits of "1234567"):
    listed in the notebook's metadata, ``"bpe_lesson": {"hand_figures": [...]}``,
    so a reader of the JSON sees which figures no cell backs;
  * in an exercise's text, a number the graders set (how many cases a check generates,
    the sizes it tries): it appears in the source of ``bpe_lesson/teaching/checks/``;
  * a constant: small integers (up to 12), powers of two, years, and the few below.
Everything else is a figure typed into the prose that a rerun could leave behind.

Each chapter also opens with what the reader will learn, ends with a Summary and
Exercises, and keeps its code lines within 90 characters.

What this file does not do: read the figures' meaning (a glued figure can still be
described wrongly); the browser test checks the rendered pages.
"""

import glob
import json
import os
import re

import pytest

BOOK = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "book")
CHAPTERS = sorted(glob.glob(os.path.join(BOOK, "*.ipynb")))
CONSTANTS = {"255", "127", "65535", "1112064", "1114112", "100", "1000", "16", "32", "64", "1024"}
MAX_CODE_LINE = 90

# a figure: 1,234 or 1234 or 12.5 (optionally a % or a unit after it); a LaTeX thin space
# (65\,536) is a thousands separator too
FIGURE = re.compile(r"(?<![\w.+/\\-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w])")


def _is_constant(number: str) -> bool:
    """Small integers, powers of two, years and a few standard values need no cell.

    >>> [_is_constant(x) for x in ("7", "65,536", "2024", "1.24", "100,277")]
    [True, True, True, False, False]
    """
    v = number.replace(",", "")
    if "." in v:
        return False
    n = int(v)
    return n <= 12 or (n & (n - 1)) == 0 or 1950 <= n <= 2030 or v in CONSTANTS


def _prose(md: str) -> str:
    """The markdown a reader reads as prose: code, glue, roles, options, links and names cut out."""
    md = re.sub(r"(\d)\\,(\d)", r"\1,\2", md)                      # 65\,536 -> 65,536
    md = re.sub(r"```.*?```", " ", md, flags=re.S) if md.lstrip().startswith("```{code") else md
    md = re.sub(r"^\s*(```|~~~).*$", " ", md, flags=re.M)          # fence lines of directives
    md = re.sub(r"\{glue:[a-z]+\}`[^`]*`", " ", md)               # glued figures
    md = re.sub(r"`[^`]*`", " ", md)                               # inline code and roles' targets
    md = re.sub(r"\{[a-z:-]+\}", " ", md)                          # role names
    md = re.sub(r"^\s*:[a-z-]+:.*$", " ", md, flags=re.M)          # directive options (:label:, :width:)
    md = re.sub(r"\]\([^)]*\)", "]", md)                           # link targets
    md = re.sub(r"https?://\S+", " ", md)
    md = re.sub(r"\b[A-Za-z_]+\d+\w*", " ", md)                    # cl100k, o200k, uint16, gpt2, Llama3
    md = re.sub(r"U\+[0-9A-Fa-f]+", " ", md)                       # code points
    md = re.sub(r"\b\d+\.\d+\.\d+\b", " ", md)                     # versions 1.2.3
    return md


def _numbers_in_code(nb) -> set:
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    return {m.replace(",", "").replace("_", "").rstrip(".") for m in re.findall(r"\d[\d_,.]*", code)}


def _numbers_in_graders() -> set:
    checks = os.path.join(os.path.dirname(BOOK), "src", "bpe_lesson", "teaching", "checks")
    text = "\n".join(open(p, encoding="utf-8").read() for p in glob.glob(os.path.join(checks, "*.py")))
    return {m.replace(",", "").replace("_", "").rstrip(".") for m in re.findall(r"\d[\d_,.]*", text)}


def unbacked_figures(nb, graders=frozenset()) -> list:
    """The figures of a notebook's markdown that no cell sets, no glue carries and no list names
    (in an exercise's text, ``graders``: the numbers the checks' source sets, count too)."""
    hand = {str(x).replace(",", "") for x in nb.get("metadata", {}).get("bpe_lesson", {}).get("hand_figures", [])}
    in_code = _numbers_in_code(nb)
    out = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"])
        exercise = "{exercise}" in source
        for m in FIGURE.finditer(_prose(source)):
            n = m.group(1)
            plain = n.replace(",", "")
            if not (_is_constant(n) or plain in in_code or plain in hand or (exercise and plain in graders)):
                out.append(n)
    return out


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.parametrize("path", CHAPTERS, ids=os.path.basename)
def test_every_figure_in_the_prose_is_glued_or_set(path):
    bad = unbacked_figures(load(path), _numbers_in_graders())
    assert not bad, (f"{os.path.basename(path)}: figures in the prose that no cell computes or sets "
                     f"(glue them, or list hand-worked ones in metadata bpe_lesson.hand_figures): {bad}")


@pytest.mark.parametrize("path", CHAPTERS, ids=os.path.basename)
def test_code_lines_fit(path):
    long = [line for c in load(path)["cells"] if c["cell_type"] == "code"
            for line in "".join(c["source"]).splitlines() if len(line) > MAX_CODE_LINE]
    assert not long, f"{os.path.basename(path)}: {len(long)} code lines over {MAX_CODE_LINE} characters: {long[:3]}"


@pytest.mark.parametrize("path", CHAPTERS, ids=os.path.basename)
def test_every_chapter_opens_with_goals_and_ends_with_summary_and_exercises(path):
    md = ["".join(c["source"]) for c in load(path)["cells"] if c["cell_type"] == "markdown"]
    text = "\n".join(md)
    assert re.search(r"```\{admonition\} What you will learn", "\n".join(md[:3])), \
        f"{os.path.basename(path)}: no 'What you will learn' box in its first cells"
    assert len(re.findall(r"^## Summary\s*$", text, re.M)) == 1, f"{os.path.basename(path)}: not one '## Summary'"
    assert re.search(r"^## Exercises\s*$", text, re.M), f"{os.path.basename(path)}: no '## Exercises' section"


def test_the_figure_finder_on_a_hand_made_cell():
    nb = {"metadata": {"bpe_lesson": {"hand_figures": [258]}},
          "cells": [{"cell_type": "code", "source": ["vocab_size = 4_096\n"]},
                    {"cell_type": "markdown", "source": [
                        "With 4,096 ids we measured 1.24 bytes per token and {glue:text}`ratio:.2f` "
                        "times fewer; `id 999` is code; ids [258, 100]; cl100k has 100,277 rows and "
                        "65\\,536 is a power of two.\n", ":width: 640px\n"]}]}
    assert unbacked_figures(nb) == ["1.24", "100,277"]


GLUE_FIGURE = re.compile(r"```\{glue:figure\} (\w+)\n((?::[\w-]+:[^\n]*\n)*)\n(\S.*?)\n```", re.S)


def uncaptioned_figures(nb) -> list:
    """Images a chapter shows without a numbered caption: an image output that is not
    glued, or a glued image that no ``{glue:figure}`` with a ``:name:`` and a caption
    places. Returns ``(cell index, what)`` for each."""
    md = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    placed = {m.group(1) for m in GLUE_FIGURE.finditer(md) if re.search(r"^:name: ", m.group(2), re.M)}
    out = []
    for i, c in enumerate(nb["cells"]):
        for o in c.get("outputs", []):
            data = o.get("data", {})
            glued = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if any(k.startswith("image/") for k in data):
                out.append((i, "an image shown directly (glue it and place it with {glue:figure})"))
            elif glued and any(k.endswith("image/png") for k in data) and glued not in placed:
                out.append((i, f"glued image {glued!r} has no {{glue:figure}} with :name: and caption"))
    return out


@pytest.mark.parametrize("path", CHAPTERS, ids=os.path.basename)
def test_every_figure_has_a_numbered_caption(path):
    bad = uncaptioned_figures(load(path))
    assert not bad, f"{os.path.basename(path)}: {bad}"


def test_the_caption_finder_on_hand_made_cells():
    image = {"output_type": "display_data", "data": {"image/png": "iVBO", "text/plain": "<Figure>"}}
    glued = {"output_type": "display_data", "metadata": {"scrapbook": {"name": "f"}},
             "data": {"application/papermill.record/image/png": "iVBO"}}
    def nb(outputs, md):
        return {"cells": [{"cell_type": "code", "source": [], "outputs": outputs},
                          {"cell_type": "markdown", "source": [md]}]}
    good = "```{glue:figure} f\n:name: fig-f\n\nThe caption.\n```"
    assert uncaptioned_figures(nb([glued], good)) == []
    assert uncaptioned_figures(nb([glued], "```{glue:figure} f\n:name: fig-f\n```")) != []  # no caption
    assert uncaptioned_figures(nb([glued], "```{glue:figure} f\n\nThe caption.\n```")) != []  # no name
    assert uncaptioned_figures(nb([glued], good.replace("} f", "} g"))) != []  # another figure
    assert uncaptioned_figures(nb([image], good)) != []  # shown, not glued


MAX_CELL_LINES = 25


def long_cells(nb) -> list:
    """Code cells over ``MAX_CELL_LINES`` lines, outside a ``{solution-start}`` ..
    ``{solution-end}`` span (a solution stays whole). Returns ``(index, lines)``."""
    out, solution = [], False
    for i, c in enumerate(nb["cells"]):
        text = "".join(c["source"])
        if c["cell_type"] == "markdown":
            if "{solution-start}" in text:
                solution = True
            if "{solution-end}" in text:
                solution = False
        elif not solution and len(text.splitlines()) > MAX_CELL_LINES:
            out.append((i, len(text.splitlines())))
    return out


@pytest.mark.parametrize("path", CHAPTERS, ids=os.path.basename)
def test_code_cells_are_a_few_lines(path):
    bad = long_cells(load(path))
    assert not bad, f"{os.path.basename(path)}: code cells over {MAX_CELL_LINES} lines (index, lines): {bad}"


def test_the_long_cell_finder_on_hand_made_cells():
    code = lambda n: {"cell_type": "code", "source": ["x = 1\n"] * n}
    md = lambda s: {"cell_type": "markdown", "source": [s]}
    assert long_cells({"cells": [code(25), code(26)]}) == [(1, 26)]
    solved = [md("```{solution-start} ex-a\n```"), code(40), md("```{solution-end}\n```"), code(30)]
    assert long_cells({"cells": solved}) == [(3, 30)]
