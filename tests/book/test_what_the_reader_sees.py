"""What a chapter's markdown and cell tags show the reader, read from the stored notebooks.

Each markdown cell is parsed with MyST's own markdown-it parser (the one Jupyter Book
builds with, with the book's extensions), so a directive fence that would not parse is
caught here, not in a screenshot: a backtick in the title of a backtick fence (CommonMark
forbids it, and the whole directive becomes a paragraph of source text), a fence nested
inside one with as many backticks (it closes the outer directive early and leaves an
empty code box). Titled callouts and hidden glue-only cells are checked the same way.

What this file does not do: build the book or look at its HTML (tests/browser does),
or run a cell.
"""

import ast
import re

import pytest
from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser

from _notebook import load, source
from test_every_chapter import CHAPTERS

# the extensions _config.yml enables (parse.myst_enable_extensions)
PARSER = create_md_parser(MdParserConfig(enable_extensions={
    "amsmath", "dollarmath", "colon_fence", "deflist", "substitution"}), RendererHTML)
OPENER = re.compile(r"(`{3,}|:{3,})\{[\w:-]+\}")   # ```{warning} or :::{admonition}
CALLOUTS = ("note", "tip", "warning", "important")  # a title given to these joins the body


def directive_problems(text: str) -> list:
    """What in a markdown text would not render as the directives it spells, as short strings.

    A backtick in a backtick fence's title turns the directive into prose:
    "```{warning} `len` counts\\nbody\\n```" -> ["directive shown as text: ```{warning} `len` counts"];
    nested fences with equal backticks close early and leave an empty code box.
    Directive bodies are parsed again (their option lines dropped), as MyST does.
    """
    problems = []
    for token in PARSER.parse(text):
        if token.type == "inline" and OPENER.search(token.content):
            problems.append("directive shown as text: " + token.content.splitlines()[0])
        if token.type in ("fence", "colon_fence"):
            if token.type == "fence" and not token.info.strip() and not token.content.strip():
                problems.append("an empty code box (a fence closed by a nested one?)")
            if token.info.startswith("{"):
                body = re.sub(r"^:[\w-]+:.*\n", "", token.content, flags=re.M)
                problems += directive_problems(body)
    return problems


def titled_callouts(text: str) -> list:
    """The {tip}/{warning}/{note}/{important} fences that carry a title: the title runs into the text.

    "```{tip} End a prompt\\nThe space ..." -> ["```{tip} End a prompt"]; "```{tip}\\nbody" -> [].
    """
    kinds = "|".join(CALLOUTS)
    return re.findall(r"^(?:`{3,}|:{3,})\{(?:" + kinds + r")\}[ \t]*\S.*$", text, re.M)


def glue_only(code: str) -> bool:
    """True when every statement of a cell is a ``glue(...)`` call or an import of glue.

    "from myst_nb import glue\\nglue('n', 3, display=False)" -> True; "n = 3\\nglue('n', n)" -> False.
    """
    lines = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!")))
    body = ast.parse(lines).body

    def is_glue(s):
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            return all(a.name == "glue" for a in s.names)
        return (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                and isinstance(s.value.func, ast.Name) and s.value.func.id == "glue")
    return bool(body) and all(is_glue(s) for s in body)


# ---------------------------------------------------------------- the checks on hand cases

def test_the_checks_catch_the_leaks_the_book_had():
    # the two leaks of issue 47, as they were written, and a nested fence with equal backticks
    assert directive_problems("```{warning} `len` counts characters, not bytes\nbody\n```")
    assert directive_problems("```{warning} Size an embedding by `n_vocab`\nA table.\n```")
    assert directive_problems("```{exercise} A\nText.\n```python\nx = 1\n```\n```")
    assert directive_problems("```{exercise} A\n:label: a\n:::{tip}\n```{note} `x`\n```\n:::\n```")
    # the fixed forms parse
    assert directive_problems(":::{admonition} `len` counts\n:class: warning\nbody\n:::") == []
    assert directive_problems("````{exercise} A\nText.\n```python\nx = 1\n```\n````") == []
    assert titled_callouts("```{tip} End a prompt\nbody\n```") == ["```{tip} End a prompt"]
    assert titled_callouts("```{tip}\nbody\n```\n```{admonition} T\n:class: tip\nb\n```") == []
    assert glue_only("from myst_nb import glue\nglue('n', 3, display=False)")
    assert not glue_only("n = 3\nglue('n', n, display=False)")


# ---------------------------------------------------------------- every chapter

@pytest.mark.parametrize("name", CHAPTERS)
def test_no_directive_shows_as_source(name):
    nb = load(name)
    problems = [(c.get("id"), p) for c in nb["cells"] if c["cell_type"] == "markdown"
                for p in directive_problems(source(c))]
    assert not problems, f"{name}: markdown that renders as MyST source: {problems}"


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_callout_carries_its_own_title(name):
    nb = load(name)
    titled = [t for c in nb["cells"] if c["cell_type"] == "markdown" for t in titled_callouts(source(c))]
    assert not titled, (f"{name}: callouts whose title runs into their text (write "
                        f"```{{admonition}} Title with :class: tip): {titled}")


@pytest.mark.parametrize("name", CHAPTERS)
def test_glue_only_cells_are_hidden(name):
    nb = load(name)
    shown = [c.get("id") for c in nb["cells"] if c["cell_type"] == "code" and glue_only(source(c))
             and "remove-cell" not in c["metadata"].get("tags", [])]
    assert not shown, f"{name}: cells that only glue, not tagged remove-cell: {shown}"


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_figure_says_what_it_shows(name):
    # without :alt: the image's alt text is its file name (a hash) or the glue name
    figures = re.findall(r"^(?:`{3,}|:{3,})\{(?:glue:figure|figure)\} *(\S*)\n((?::[\w-]+:.*\n)*)",
                         "\n".join(source(c) for c in load(name)["cells"] if c["cell_type"] == "markdown"), re.M)
    bare = [fig for fig, options in figures
            if len(re.findall(r"\w+", (re.search(r"^:alt: *(.*)$", options, re.M) or [None, ""])[1])) < 6]
    assert not bare, f"{name}: figures without an :alt: that says what they show: {bare}"
