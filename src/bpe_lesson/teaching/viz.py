"""Pictures for the book: tokens as coloured spans, and the recurring plot style.

What this module does not do: compute anything a chapter measures; it only draws.
"""

from __future__ import annotations

import html

# light, distinguishable backgrounds; neighbouring tokens always differ in colour
PALETTE = ["#ffd6a5", "#caffbf", "#9bf6ff", "#bdb2ff", "#ffc6ff", "#fdffb6", "#a0c4ff", "#ffadad"]


def token_spans_html(tokenizer, text: str, allowed_special="all") -> str:
    """HTML with one coloured span per token (hover shows the id).

    A token that ends inside a multi-byte character cannot be shown on its own; its
    bytes are joined with the next token's until they decode.
    """
    ids = tokenizer.encode(text, allowed_special=allowed_special)
    parts, pending, pending_ids = [], b"", []
    for i in ids:
        pending += tokenizer.decode_bytes([i])
        pending_ids.append(i)
        try:
            s = pending.decode("utf-8")
        except UnicodeDecodeError:
            continue
        color = PALETTE[len(parts) % len(PALETTE)]
        title = " ".join(map(str, pending_ids))
        shown = html.escape(s).replace(" ", "&nbsp;").replace("\n", "\u21b5<br>")
        parts.append(f'<span title="{title}" style="background:{color};border-radius:3px;'
                     f'padding:1px 0;margin:0 1px;font-family:monospace">{shown}</span>')
        pending, pending_ids = b"", []
    if pending:
        parts.append(html.escape(pending.decode("utf-8", errors="replace")))
    return '<div style="line-height:2.0">' + "".join(parts) + "</div>"


def show_tokens(tokenizer, text: str, allowed_special="all"):
    """Display ``text`` as coloured token spans in a notebook; returns the ids.

    Also prints ``N tokens`` so the text output (what nbval compares) is stable.
    """
    from IPython.display import HTML, display

    ids = tokenizer.encode(text, allowed_special=allowed_special)
    display(HTML(token_spans_html(tokenizer, text, allowed_special)))
    print(f"{len(ids)} tokens for {len(text.encode('utf-8'))} bytes")
    return ids


def style_axes(ax, title: str, xlabel: str, ylabel: str):
    """The book's plot style: a title, labelled axes (with units), a light grid."""
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    return ax
