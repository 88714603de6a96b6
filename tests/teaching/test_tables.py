"""``teaching.tables``: the markdown form parsed by markdown-it (the parser myst-nb uses)
gives back the cells; the text form is the hand-checked layout; IPython shows both."""

import html
import re

import pytest
from markdown_it import MarkdownIt

from bpe_lesson.teaching.tables import Table

HEADER = ["V", "head", "bits | byte"]
ROWS = [[512, "tied", "3.017"], [4096, "untied", "2.550"], ["1,024", "", "-0.5"]]


def parsed(markdown):
    """The header and body cells of the one table markdown-it finds, as text."""
    out = MarkdownIt("commonmark").enable("table").render(markdown)
    assert out.count("<table>") == 1
    cells = lambda tag, part: [[html.unescape(c) for c in re.findall(rf"<{tag}[^>]*>(.*?)</{tag}>", row)]
                               for row in re.findall(r"<tr>(.*?)</tr>", part, re.S)]
    head, body = out.split("</thead>")
    return cells("th", head)[0], cells("td", body), re.findall(r'style="text-align:(\w+)"', head)


def test_markdown_parses_back_to_the_cells():
    header, body, align = parsed(Table(HEADER, ROWS, title="Held out")._repr_markdown_())
    assert header == HEADER
    assert body == [[str(c) for c in row] for row in ROWS]  # the | inside a cell kept
    assert align == ["right", "right", "right"]


def test_a_names_column_goes_left():
    _, _, align = parsed(Table(["text", "tokens"], [["prose", 3], ["code", 4]])._repr_markdown_())
    assert align == ["left", "right"]
    _, _, align = parsed(Table(["a", "b"], [[1, 2]], align="lr")._repr_markdown_())
    assert align == ["left", "right"]


def test_text_form_by_hand():
    t = Table(["text", "tokens"], [["prose", 3], ["code", 1234]], title="Counts")
    assert repr(t) == "Counts\ntext   tokens\nprose       3\ncode     1234"


def test_ipython_shows_both_forms():
    from IPython.core.interactiveshell import InteractiveShell

    data, _ = InteractiveShell.instance().display_formatter.format(Table(HEADER, ROWS))
    assert set(data) == {"text/plain", "text/markdown"}
    assert data["text/plain"].splitlines()[0].split() == ["V", "head", "bits", "|", "byte"]


@pytest.mark.parametrize("kwargs, message", [
    ({"header": ["a", "b"], "rows": [[1]]}, "row 0 has 1 cells; the header has 2"),
    ({"header": ["a", "b"], "rows": [], "align": "l"}, "align='l': one 'l' or 'r' per column"),
    ({"header": ["a"], "rows": [], "align": "c"}, "align='c'"),
])
def test_a_bad_table_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Table(**kwargs)
