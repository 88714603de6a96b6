"""Pictures for the book: tokens as coloured spans, and the recurring plot style.

A token row is one ``<div>``: its label, then one coloured span per token. The spans keep
the text's spaces (``white-space: pre-wrap``) so a long row wraps at the column's edge
instead of running off it.

What this module does not do: compute anything a chapter measures; it only draws.
"""

from __future__ import annotations

import html

from .._internal.optional import optional_import

__all__ = ["PALETTE", "ROW_STYLE", "LABEL_STYLE", "SPAN_STYLE", "token_spans_html",
           "show_tokens", "style_axes", "FIGURE_RC", "SMALLEST_TEXT_PT",
           "book_figures"]

# light, distinguishable backgrounds; neighbouring tokens always differ in colour
PALETTE = ["#ffd6a5", "#caffbf", "#9bf6ff", "#bdb2ff", "#ffc6ff", "#fdffb6", "#a0c4ff", "#ffadad"]

ROW_STYLE = "line-height:2.0;margin:0.2em 0;overflow-wrap:anywhere"
LABEL_STYLE = "font-weight:600;margin-right:0.6em"
SPAN_STYLE = "border-radius:3px;padding:1px 0;margin:0 1px;font-family:monospace;white-space:pre-wrap"


def token_spans_html(tokenizer, text: str, allowed_special="all", label: str | None = None) -> str:
    """HTML for one token row: ``label`` (if given), then one coloured span per token
    (hover shows the id).

    A token that ends inside a multi-byte character cannot be shown on its own; its
    bytes are joined with the next token's until they decode. Text and label are
    HTML-escaped; a newline shows as ``↵`` and breaks the row.

    With the 256 byte tokens and one merge ``h i -> 256``, "hi é" is three tokens and
    four ids: "é" is the two bytes 195 169, drawn as one span.

    >>> from bpe_lesson.tokenizer import Tokenizer
    >>> tok = Tokenizer([((104, 105), 256)], pattern=None)
    >>> row = token_spans_html(tok, "hi é", label="a <toy>")
    >>> import re; re.findall(r'title="([^"]*)"', row)
    ['256', '32', '195 169']
    >>> re.findall(r'>([^<]*)</span>', row)
    ['a &lt;toy&gt;', 'hi', ' ', 'é']
    """
    ids = tokenizer.encode(text, allowed_special=allowed_special)
    parts, pending, pending_ids = [], b"", []  # pending: bytes of a character not yet complete
    for i in ids:
        pending += tokenizer.decode_bytes([i])
        pending_ids.append(i)
        try:
            s = pending.decode("utf-8")
        except UnicodeDecodeError:
            continue  # subtle: half a character; wait for the next token's bytes
        color = PALETTE[len(parts) % len(PALETTE)]
        title = " ".join(map(str, pending_ids))
        shown = html.escape(s).replace("\n", "\u21b5\n")
        parts.append(f'<span title="{title}" style="background:{color};{SPAN_STYLE}">{shown}</span>')
        pending, pending_ids = b"", []
    if pending:
        parts.append(html.escape(pending.decode("utf-8", errors="replace")))
    head = f'<span class="token-row-label" style="{LABEL_STYLE}">{html.escape(label)}</span>' if label else ""
    return f'<div class="token-row" style="{ROW_STYLE}">' + head + "".join(parts) + "</div>"


def show_tokens(tokenizer, text: str, allowed_special="all", label: str | None = None):
    """Display ``text`` as a labelled row of coloured token spans in a notebook; returns the ids.

    Also prints ``N tokens for M bytes`` so the text output (what nbval compares) is stable.
    """
    ipd = optional_import("IPython.display", "showing tokens in a notebook")
    HTML, display = ipd.HTML, ipd.display

    ids = tokenizer.encode(text, allowed_special=allowed_special)
    display(HTML(token_spans_html(tokenizer, text, allowed_special, label=label)))
    print(f"{len(ids)} tokens for {len(text.encode('utf-8'))} bytes")
    return ids


def style_axes(ax, title: str, xlabel: str, ylabel: str):
    """The book's plot style: a title, labelled axes (with units), a light grid."""
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    return ax


# Sizes for a figure at most 6.9 inches wide shown at 100 px per inch, the column's width
# at 1280 px (692 px): 10 pt is 14 px. No figure text is set below SMALLEST_TEXT_PT
# (tests/teaching/test_viz.py reads every size the book sets): 9 pt is 12.5 px, at least
# 3/4 of the body text's 16 px at 1280 px; the browser check measures how wide each
# figure is drawn and holds its smallest text to that, and to 9 px on a phone.
SMALLEST_TEXT_PT = 9
FIGURE_RC = {
    "figure.dpi": 100,
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.fontsize": 10,
    "svg.hashsalt": "bpe-lesson",   # deterministic ids, should a reader save an SVG
    "svg.fonttype": "path",          # an SVG looks the same without the plot's fonts installed
}


def book_figures() -> None:
    """Make every figure a chapter shows or glues sharp: PNG at twice its pixels, shown at its size.

    Sets the font sizes of ``FIGURE_RC`` and, in a notebook, the inline backend's
    ``retina`` format: a 7-inch figure is stored 1,400 px wide with ``width: 700`` in
    its output's metadata, which myst-nb and JupyterLab honour. nbval skips PNGs, so
    the stored outputs stay comparable on any CPU. ``bpe_lesson.teaching`` calls this
    once, on import; outside IPython only the sizes change.
    """
    matplotlib = optional_import("matplotlib", "bpe_lesson.teaching")
    matplotlib.rcParams.update(FIGURE_RC)
    try:
        from IPython import get_ipython
    except ImportError:
        return
    if get_ipython() is None:
        return
    from matplotlib_inline.backend_inline import set_matplotlib_formats
    from matplotlib_inline.config import InlineBackend

    InlineBackend.instance().figure_formats = {"retina"}  # kept when pyplot loads the backend later
    set_matplotlib_formats("retina")                       # and applied now, if it already has
