"""Diagrams of one mechanism, worked as by hand: one merge step on a chunk, the merge tree of
a token, and the parts of a tokenizer the capstone chapter has the reader write.

Each figure has a pure layout function that computes what is drawn (which
occurrences a merge replaces, where each node of a tree sits), tested on cases a
reader can check by hand, and a drawing function that turns the layout into a
matplotlib figure at most 7 inches wide.

What this module does not do: choose merges or encode text (the caller passes the
ids and the merge list), draw token rows of a whole text (``viz.show_tokens``), or plot a
trainer's state or a measurement (``plots``).
"""

from __future__ import annotations

from .._internal.optional import optional_import
from ..textbook import merge

__all__ = ["MARK", "PLAIN", "token_label", "merge_step_layout", "draw_merge_step",
           "merge_tree_layout", "draw_merge_tree", "PARTS", "FLOWS",
           "tokenizer_parts_layout", "draw_tokenizer_parts"]

MARK = "#ffb703"  # the merged pair, before and after
PLAIN = "#e9ecef"  # every other token


def token_label(b: bytes) -> str:
    """A token's bytes as a short printable label: a space is "␣", a newline "↵".

    >>> token_label(b" the"), token_label(b"\\n"), token_label(b"\\xf0\\x9f")
    ('␣the', '↵', '\\\\xf0\\\\x9f')
    """
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError:
        return "".join(f"\\x{x:02x}" for x in b)  # half a character: show the bytes
    return s.replace(" ", "\u2423").replace("\n", "\u21b5").replace("\t", "\u21e5")


def merge_step_layout(ids, pair, new_id):
    """What merging ``pair`` does to one chunk: (after, replaced, skipped).

    ``replaced``: the positions in ``ids`` where the scan replaces an occurrence;
    ``skipped``: occurrences it cannot take because they overlap the one it just took.

    >>> merge_step_layout([97, 97, 97, 98, 97, 97], (97, 97), 256)
    ([256, 97, 98, 256], [0, 4], [1])
    """
    replaced, skipped, i = [], [], 0
    while i + 1 < len(ids):
        if (ids[i], ids[i + 1]) == pair:
            replaced.append(i)
            if i + 2 < len(ids) and (ids[i + 1], ids[i + 2]) == pair:
                skipped.append(i + 1)
            i += 2
        else:
            i += 1
    after = merge(list(ids), pair, new_id)
    return after, replaced, skipped


def _boxes(ax, labels, y, colors, widths):
    """One row of token boxes; returns the centre x of each box."""
    FancyBboxPatch = optional_import("matplotlib.patches", "drawing a figure").FancyBboxPatch

    xs, x = [], 0.0
    for label, color, w in zip(labels, colors, widths):
        ax.add_patch(FancyBboxPatch((x + 0.05, y - 0.3), w - 0.1, 0.6, boxstyle="round,pad=0.02",
                                    facecolor=color, edgecolor="#495057", linewidth=0.8))
        ax.text(x + w / 2, y, label, ha="center", va="center", fontsize=12, family="monospace")
        xs.append(x + w / 2)
        x += w
    return xs


def draw_merge_step(ids, pair, new_id, vocab, title=None):
    """Draw one chunk before and after merging ``pair`` into ``new_id``; returns the figure.

    Before: the tokens of each replaced occurrence are marked, and a bracket under the
    row spans every occurrence of the pair: solid for those the scan replaces, dashed
    for those it must leave because they overlap the one just taken. After: each new
    token spans the two it replaced.
    """
    plt = optional_import("matplotlib.pyplot", "drawing a figure")

    vocab = dict(vocab)
    vocab.setdefault(new_id, vocab[pair[0]] + vocab[pair[1]])
    after, replaced, skipped = merge_step_layout(ids, pair, new_id)
    width = [max(1.0, 0.28 * len(token_label(vocab[i])) + 0.4) for i in ids]
    before_colors = [PLAIN] * len(ids)
    for i in replaced:
        before_colors[i] = before_colors[i + 1] = MARK
    # after: a new token is as wide as the two boxes it replaced, so the rows line up
    after_widths, after_colors, k = [], [], 0
    for t in after:
        if k in replaced:
            after_widths.append(width[k] + width[k + 1]); after_colors.append(MARK); k += 2
        else:
            after_widths.append(width[k]); after_colors.append(PLAIN); k += 1
    total = sum(width)
    fig, ax = plt.subplots(figsize=(min(7.0, 1.2 + 0.42 * total), 2.6))
    xs = _boxes(ax, [token_label(vocab[i]) for i in ids], 1.2, before_colors, width)
    _boxes(ax, [token_label(vocab[i]) for i in after], 0.0, after_colors, after_widths)
    for i, style, color, y in [(i, "-", "#fb8500", 0.78) for i in replaced] + \
                              [(i, "--", "#219ebc", 0.68) for i in skipped]:
        ax.plot([xs[i], xs[i], xs[i + 1], xs[i + 1]], [y + 0.08, y, y, y + 0.08], ls=style, color=color, lw=1.5)
    ax.text(-0.15, 1.2, f"before ({len(ids)})", ha="right", va="center", fontsize=10)
    ax.text(-0.15, 0.0, f"after ({len(after)})", ha="right", va="center", fontsize=10)
    ax.set_xlim(-2.6, total + 0.1)
    ax.set_ylim(-0.45, 1.6)
    ax.axis("off")
    pair_label = f"{token_label(vocab[pair[0]])} + {token_label(vocab[pair[1]])}"
    counted = len(replaced) + len(skipped)
    ax.set_title(title or f"merge ({pair_label}) -> id {new_id}: {counted} occurrence(s), "
                 f"{len(replaced)} replaced", fontsize=10)
    fig.tight_layout()
    return fig


def merge_tree_layout(token, merges):
    """Where each node of ``token``'s merge tree sits: a list of (id, x, depth, children).

    The leaves are the token's bytes, left to right at x = 0, 1, 2, ..., all on the
    bottom row; a merged node sits midway between its two children, one level below
    its parent (depth 0 is the token itself). ``children`` are the indices of the
    node's two children in the list (``()`` for a byte). ``merges`` is the list
    ``[((left, right), id), ...]``.

    >>> for node in merge_tree_layout(257, [((97, 98), 256), ((256, 99), 257)]): print(node)
    (257, 1.25, 0, (1, 4))
    (256, 0.5, 1, (2, 3))
    (97, 0.0, 2, ())
    (98, 1.0, 2, ())
    (99, 2.0, 2, ())
    """
    parts = {new_id: pair for pair, new_id in merges}  # id -> (left, right)
    nodes, next_leaf = [], [0]

    def place(t, depth):  # returns the node's index
        at = len(nodes)
        if t not in parts:  # a byte: the next leaf
            nodes.append((t, float(next_leaf[0]), depth, ()))
            next_leaf[0] += 1
            return at
        nodes.append(None)  # keep the parent before its children (pre-order)
        left, right = place(parts[t][0], depth + 1), place(parts[t][1], depth + 1)
        nodes[at] = (t, (nodes[left][1] + nodes[right][1]) / 2, depth, (left, right))
        return at

    place(token, 0)
    bottom = max(d for _, _, d, _ in nodes)
    return [(t, x, d if ch else bottom, ch) for t, x, d, ch in nodes]


def draw_merge_tree(token, merges, vocab, title=None):
    """Draw the merge tree of ``token``: its bytes at the bottom, each merge a node above.

    Each merged node shows its bytes and its id; returns the figure.
    """
    plt = optional_import("matplotlib.pyplot", "drawing a figure")

    nodes = merge_tree_layout(token, merges)
    leaves = sum(1 for n in nodes if not n[3])
    depth = max(d for _, _, d, _ in nodes)
    fig, ax = plt.subplots(figsize=(min(7.0, 1.0 + 0.55 * leaves), 0.9 + 0.6 * depth))
    for t, x, d, children in nodes:
        for c in children:
            ax.plot([x, nodes[c][1]], [-d, -nodes[c][2]], color="#adb5bd", lw=1, zorder=1)
        label = f"{token_label(vocab[t])}\n{t}" if children else token_label(vocab[t])
        ax.text(x, -d, label, ha="center", va="center", fontsize=9, family="monospace", zorder=2,
                bbox=dict(boxstyle="round,pad=0.25", facecolor=MARK if children else PLAIN,
                          edgecolor="#495057"))
    ax.set_xlim(-0.8, leaves - 0.2)
    ax.set_ylim(-depth - 0.6, 0.6)
    ax.axis("off")
    ax.set_title(title or f"merge tree of {token_label(vocab[token])!r} (id {token}): "
                 f"{leaves} bytes, {len(nodes) - leaves} merges", fontsize=10)
    fig.tight_layout()
    return fig


# ---- the capstone's map: which function the reader writes for which part ----------------------

# (name shown, exercise label, x of the centre, y of the centre), in units of the drawing
# (10 wide, 6 high). Three bands: training makes the ranks, the file carries them, and
# MyTokenizer encodes (top row), streams (middle) and decodes (bottom) with them.
PARTS = [
    ("index_pairs\nmerge", "ex-own-index", 1.1, 5.2),
    ("merge_update", "ex-own-update", 3.4, 5.2),
    ("train", "ex-own-train", 5.6, 5.2),
    ("save_ranks\nload_ranks", "ex-own-files", 8.4, 5.2),
    ("cut_specials", "ex-own-specials", 2.2, 3.1),
    ("split", "ex-own-split", 4.6, 3.1),
    ("rank_encode", "ex-own-rank", 7.0, 3.1),
    ("encode_lines", "ex-own-stream", 4.6, 1.75),
    ("decode_bytes\ndecode", "ex-own-decode", 4.6, 0.55),
]
# (from, to, what flows): names as in PARTS, or "text"/"ids"/"lines" at a row's ends
FLOWS = [
    ("index_pairs\nmerge", "merge_update", ""), ("merge_update", "train", ""),
    ("train", "save_ranks\nload_ranks", "ranks"),
    ("cut_specials", "split", ""), ("split", "rank_encode", ""),
]


def tokenizer_parts_layout():
    """The capstone's map as data: (parts, flows, wrappers).

    ``parts``: ``PARTS``, one box per function the reader writes, with its exercise;
    ``flows``: ``FLOWS``; ``wrappers``: the exercises that join other parts rather than
    add one: ``ex-own-encode`` (the top row as one function) and ``ex-own-tokenizer``
    (the class around every row).

    >>> parts, flows, wrappers = tokenizer_parts_layout()
    >>> len(parts), sorted(wrappers)
    (9, ['ex-own-encode', 'ex-own-tokenizer'])
    """
    wrappers = {"ex-own-encode": ["cut_specials", "split", "rank_encode"],
                "ex-own-tokenizer": [name for name, *_ in PARTS[4:]]}
    return list(PARTS), list(FLOWS), wrappers


def draw_tokenizer_parts():
    """Draw the capstone's map: each part the reader writes, its exercise, what joins them."""
    plt = optional_import("matplotlib.pyplot", "drawing a figure")
    FancyBboxPatch = optional_import("matplotlib.patches", "drawing a figure").FancyBboxPatch

    parts, flows, wrappers = tokenizer_parts_layout()
    where = {name: (x, y) for name, _, x, y in parts}
    fig, ax = plt.subplots(figsize=(7.0, 4.4))
    w, h = 1.9, 0.85

    def frame(x0, y0, x1, y1, label, color):
        ax.add_patch(FancyBboxPatch((x0, y0), x1 - x0, y1 - y0, boxstyle="round,pad=0.05",
                                    facecolor=color, edgecolor="#868e96", linewidth=0.8, zorder=0))
        ax.text(x0 + 0.08, y1 - 0.06, label, ha="left", va="top", fontsize=10, color="#495057")

    frame(0.0, 4.55, 9.6, 5.95, "training", "#f1f3f5")
    frame(0.0, 0.0, 9.6, 4.3, "MyTokenizer(ranks, pattern, specials): ex-own-tokenizer", "#fff8e6")
    frame(1.05, 2.55, 8.1, 3.95, "encode: ex-own-encode", "#ffe8a3")
    for name, label, x, y in parts:
        ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.03",
                                    facecolor="white", edgecolor="#495057", linewidth=1.0, zorder=2))
        ax.text(x, y + 0.1, name, ha="center", va="center", fontsize=10, family="monospace",
                zorder=3, linespacing=0.95)
        ax.text(x, y - h / 2 + 0.02, label, ha="center", va="bottom", fontsize=9, color="#6c757d",
                zorder=3)
    arrow = dict(arrowstyle="-|>", color="#495057", lw=1.0)
    for a, b, what in flows:
        (xa, ya), (xb, yb) = where[a], where[b]
        ax.annotate("", (xb - w / 2, yb), (xa + w / 2, ya), arrowprops=arrow, zorder=1)
        if what:
            ax.text((xa + xb) / 2, ya + 0.12, what, ha="center", va="bottom", fontsize=9)
    # the ranks go down from the file into the class; each row's ends say what goes in and out
    x_file = where["save_ranks\nload_ranks"][0]
    ax.annotate("", (x_file, 4.3), (x_file, 5.2 - h / 2), arrowprops=arrow)
    ax.text(x_file + 0.1, 4.45, "ranks", ha="left", va="center", fontsize=9)
    for y, left, right in [(3.1, "text", "ids"), (1.75, "lines", "ids"), (0.55, "ids", "text")]:
        x_first = min(x for _, _, x, yy in parts if yy == y) - w / 2
        x_last = max(x for _, _, x, yy in parts if yy == y) + w / 2
        x_in = 0.45
        ax.text(x_in, y, left, ha="center", va="center", fontsize=10, family="monospace")
        ax.annotate("", (x_first, y), (x_in + 0.35, y), arrowprops=arrow)
        ax.text(9.1, y, right, ha="center", va="center", fontsize=10, family="monospace")
        ax.annotate("", (8.75, y), (x_last, y), arrowprops=arrow)
    x_stream = where["encode_lines"][0] + w / 2 + 0.15
    ax.text(x_stream, 1.82, "cuts where no id can change,\nencodes each piece",
            ha="left", va="bottom", fontsize=9, color="#6c757d")
    ax.set_xlim(-0.05, 9.65)
    ax.set_ylim(-0.05, 6.0)
    ax.axis("off")
    fig.tight_layout()
    return fig
