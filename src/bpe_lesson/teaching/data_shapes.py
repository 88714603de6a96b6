"""The figure of four training shapes side by side: a pretraining window, a chat with its loss
mask, a preference pair, an RL prompt.

``shape_panels`` computes what is drawn from real ids (each token's label and its
role: read only, learned, padding, ...), tested by hand-checkable cases;
``four_shapes_figure`` draws the panels, one column each, in the column at 1280 px (692 px).

What this module does not do: make the ids (the chapter does, with ``lm.chat``,
``lm.preference`` and ``lm.rl``), or draw anything but these four panels.
"""

from __future__ import annotations

from .._internal.optional import optional_import
from .figures import token_label

__all__ = ["COLORS", "NAMES", "token_row", "shape_panels", "four_shapes_figure"]

plt = optional_import("matplotlib.pyplot", "bpe_lesson.teaching.data_shapes")
from matplotlib.patches import Patch, Rectangle  # noqa: E402  (once matplotlib is known to be there)

COLORS = {"given": "#e9ecef", "learned": "#ffb703", "pad": "#ffffff", "gold": "#8ecae6"}
NAMES = {"given": "read, not a target", "learned": "a target (loss counts it)", "pad": "padding",
         "gold": "not ids: a gold answer"}


def token_row(tokenizer, ids, kinds, limit: int = 9):
    """``[(label, kind)]`` for the ids (the last ``limit`` of them, after an "…" when cut).

    >>> import bpe_lesson
    >>> tok = bpe_lesson.train(["ab"], 256)
    >>> token_row(tok, [97, 98], ["given", "learned"])
    [('a', 'given'), ('b', 'learned')]
    """
    row = [(token_label(tokenizer.decode_bytes([i])), k) for i, k in zip(ids, kinds)]
    return row if len(row) <= limit else [("…", row[-limit][1])] + row[-limit + 1:]


def shape_panels(tokenizer, window, chat, pair, rl, limit: int = 9):
    """Four ``(title, rows)`` panels; ``rows``: ``[(row name, [(label, kind)])]``.

    ``window``: ``(x, y)`` ids; ``chat``: ``(ids, loss_mask)``; ``pair``: ``(chosen_ids,
    rejected_ids, chosen_length, rejected_length, prompt_length)`` padded to one length;
    ``rl``: ``(prompt_ids, gold)``.
    """
    x, y = window
    ids, mask = chat
    chosen, rejected, n_c, n_r, n_p = pair
    prompt, gold = rl

    def side(seq, n):
        return token_row(tokenizer, seq, ["given" if k < n_p else "learned" if k < n else "pad"
                                          for k in range(len(seq))], limit)

    return [("pretraining window", [("x", token_row(tokenizer, x, ["given"] * len(x), limit)),
                                    ("y", token_row(tokenizer, y, ["learned"] * len(y), limit))]),
            ("SFT: chat + loss mask", [("ids", token_row(tokenizer, ids, ["learned" if m else "given"
                                                                          for m in mask], limit))]),
            ("preference pair", [("chosen", side(chosen, n_c)), ("rejected", side(rejected, n_r))]),
            ("RL prompt", [("prompt", token_row(tokenizer, prompt, ["given"] * len(prompt), limit)),
                           ("gold", [(gold, "gold")])])]


def _fit(label: str, width: int = 8) -> str:
    """A token's label cut to fit its box, with "…" where it was cut, never silently.

    >>> _fit("<|start_header_id|>"), _fit("hello")
    ('<|start…', 'hello')
    """
    return label if len(label) <= width else label[: width - 1] + "…"


def four_shapes_figure(panels, figsize=(6.8, 4.8)):
    """One column per panel; each row a column of token boxes (read top to bottom), coloured by kind."""
    fig, axes = plt.subplots(1, len(panels), figsize=figsize)
    for ax, (title, rows) in zip(axes, panels):
        height = max(len(r) for _, r in rows)
        for c, (name, row) in enumerate(rows):
            ax.text(c + 0.5, 0.3, name, ha="center", va="bottom", fontsize=10, style="italic")
            for k, (label, kind) in enumerate(row):
                ax.add_patch(Rectangle((c + 0.05, -k - 1), 0.9, 0.9, fc=COLORS[kind], ec="0.4", lw=0.6))
                ax.text(c + 0.5, -k - 0.55, _fit(label), ha="center", va="center", fontsize=9)
        ax.set_xlim(0, max(2, len(rows)))
        ax.set_ylim(-height - 0.3, 1.0)
        ax.set_title(title, fontsize=10)
        ax.axis("off")
    fig.legend(handles=[Patch(fc=COLORS[k], ec="0.4", label=NAMES[k]) for k in COLORS],
               loc="lower center", ncol=2, fontsize=10, frameon=False)  # 4 in a row: 7.5 in
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    return fig
