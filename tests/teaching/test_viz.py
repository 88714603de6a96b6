"""The token rows the book draws: read back with the standard library's HTML parser.

Each case is small enough to check by hand: the 256 byte tokens plus a merge or two,
on both backends.
"""

import doctest
from html.parser import HTMLParser

import pytest

from bpe_lesson.teaching import viz
from bpe_lesson.tokenizer import Tokenizer


class Row(HTMLParser):
    """Collects a token row's label and its spans as (title, text, style)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.label, self.spans, self.stack, self.outside = None, [], [], []

    def handle_starttag(self, tag, attrs):
        self.stack.append((tag, dict(attrs)))
        if tag == "span" and "title" in dict(attrs):
            self.spans.append([dict(attrs)["title"], "", dict(attrs).get("style", "")])

    def handle_endtag(self, tag):
        self.stack.pop()

    def handle_data(self, data):
        tag, attrs = self.stack[-1] if self.stack else (None, {})
        if attrs.get("class") == "token-row-label":
            self.label = (self.label or "") + data
        elif tag == "span" and "title" in attrs:
            self.spans[-1][1] += data
        else:
            self.outside.append(data)


def parse(html):
    row = Row()
    row.feed(html)
    row.close()
    assert not row.stack, f"unclosed tags in {html!r}"
    return row


def test_label_comes_first_and_is_escaped(backend):
    tok = Tokenizer([((104, 105), 256)], pattern=None, backend=backend)
    html = viz.token_spans_html(tok, "hi", label='GPT <4> & "friends"')
    assert html.index("token-row-label") < html.index("title=")
    assert "&lt;4&gt; &amp;" in html and "<4>" not in html
    assert parse(html).label == 'GPT <4> & "friends"'


def test_no_label_no_label_span(backend):
    tok = Tokenizer([], pattern=None, backend=backend)
    html = viz.token_spans_html(tok, "ab")
    assert "token-row-label" not in html
    assert parse(html).label is None


def test_text_is_escaped_and_spans_give_it_back(backend):
    text = '<script>alert("x")</script> & done'
    tok = Tokenizer([], pattern=None, backend=backend)
    html = viz.token_spans_html(tok, text)
    assert "<script>" not in html
    row = parse(html)
    assert "".join(t for _, t, _ in row.spans) == text
    assert len(row.spans) == len(text)  # no merges: one byte token per ASCII character


def test_multi_byte_character_is_one_span(backend):
    # "é" is the bytes 195 169 and "👍" the bytes 240 159 145 141; with no merges each
    # byte is a token, and half a character cannot be drawn on its own
    tok = Tokenizer([], pattern=None, backend=backend)
    row = parse(viz.token_spans_html(tok, "é👍a"))
    assert [(title, text) for title, text, _ in row.spans] == [
        ("195 169", "é"), ("240 159 145 141", "👍"), ("97", "a")]


def test_token_that_ends_past_a_character_boundary(backend):
    # merge (169, 32) -> 256: "é x" = bytes 195 169 32 120 = ids [195, 256, 120];
    # 195 alone is half of "é", so 195 and 256 are drawn together as "é "
    tok = Tokenizer([((169, 32), 256)], pattern=None, backend=backend)
    assert tok.encode("é x") == [195, 256, 120]
    row = parse(viz.token_spans_html(tok, "é x"))
    assert [(title, text) for title, text, _ in row.spans] == [("195 256", "é "), ("120", "x")]


def test_rows_wrap_and_keep_spaces(backend):
    tok = Tokenizer([], pattern=None, backend=backend)
    html = viz.token_spans_html(tok, "a  b\nc", label="x")
    assert "&nbsp;" not in html  # spaces stay spaces, so the row can break at them
    row = parse(html)
    assert all("white-space:pre-wrap" in style for _, _, style in row.spans)
    assert [t for _, t, _ in row.spans] == ["a", " ", " ", "b", "\u21b5\n", "c"]


def test_neighbouring_tokens_differ_in_colour(backend):
    tok = Tokenizer([], pattern=None, backend=backend)
    styles = [s for _, _, s in parse(viz.token_spans_html(tok, "abcdefghijk")).spans]
    assert all(a != b for a, b in zip(styles, styles[1:]))


def test_show_tokens_prints_the_count(backend, capsys):
    pytest.importorskip("IPython")
    tok = Tokenizer([((104, 105), 256)], pattern=None, backend=backend)
    ids = viz.show_tokens(tok, "hi é", label="toy")
    assert ids == [256, 32, 195, 169]
    assert capsys.readouterr().out.splitlines()[-1] == "4 tokens for 5 bytes"


def test_worked_example():
    result = doctest.testmod(viz, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_book_figures_store_png_at_twice_the_size_they_show():
    # the PNG's own header (read by Pillow) against the width the output asks to be shown at
    import base64
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from IPython.core.formatters import format_display_data
    from IPython.core.interactiveshell import InteractiveShell
    from PIL import Image

    InteractiveShell.instance()
    viz.book_figures()
    fig, ax = plt.subplots(figsize=(7, 3))
    ax.plot([0, 1], [0, 1])
    ax.set_xlabel("x")
    data, meta = format_display_data(fig)
    plt.close(fig)
    png = data["image/png"]
    image = Image.open(io.BytesIO(png if isinstance(png, bytes) else base64.b64decode(png)))
    shown = meta["image/png"]["width"]
    assert 550 <= shown <= 720 and abs(image.size[0] - 2 * shown) <= 1  # the half is rounded down
    assert matplotlib.rcParams["xtick.labelsize"] >= 9


def test_no_figure_text_is_set_below_the_smallest_size():
    # every size the book's figures set, read from the sources: the package's drawing code
    # and every chapter's code cells. The browser check holds the smallest one, drawn, to
    # 12 px at 1280 px and 9 px on a phone; a size it cannot read (a variable, "small",
    # a dpi of its own) is a failure here, not a pass.
    import json
    import pathlib
    import re

    import matplotlib

    root = pathlib.Path(__file__).resolve().parents[2]
    sources = {p: p.read_text() for p in sorted((root / "src" / "bpe_lesson").rglob("*.py"))}
    for nb in sorted((root / "book").glob("*.ipynb")):
        cells = json.loads(nb.read_text())["cells"]
        sources[nb] = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    size = re.compile(r"\b(?:fontsize|labelsize|titlesize|size)\s*=\s*([^,)\s]+)")
    seen = []
    for path, text in sources.items():
        for line in text.splitlines():
            if "fontsize" not in line and "labelsize" not in line and "ax.text(" not in line \
                    and ".legend(" not in line and "set_title(" not in line:
                continue
            for value in size.findall(line):
                where = f"{path.relative_to(root)}: {line.strip()}"
                assert re.fullmatch(r"\d+(\.\d+)?", value), f"a size the test cannot read: {where}"
                assert float(value) >= viz.SMALLEST_TEXT_PT, f"text below {viz.SMALLEST_TEXT_PT} pt: {where}"
                seen.append(float(value))
            assert not re.search(r"\bdpi\s*=", line), f"a figure with a dpi of its own: {line.strip()}"
    assert len(seen) >= 30 and min(seen) == viz.SMALLEST_TEXT_PT  # the scan found the sizes
    for key in ("font.size", "axes.titlesize", "axes.labelsize", "xtick.labelsize",
                "ytick.labelsize", "legend.fontsize"):
        assert viz.FIGURE_RC[key] >= viz.SMALLEST_TEXT_PT, key
    viz.book_figures()
    assert matplotlib.rcParams["figure.dpi"] == viz.FIGURE_RC["figure.dpi"] == 100
