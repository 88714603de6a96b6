"""Plots of a trainer's state and of measured results: the pair index and heap during one
merge, sliding windows over a stream, trainer times, the price of a vocabulary.

* ``merge_state_figure``: the incremental trainer's pair index (counts before and
  after one merge, the words each pair lists) beside its heap, stale entries marked;
* ``windows_figure``: windows of ``T + 1`` ids over a stream, for several strides,
  input and target spans drawn, ids that are never a target shaded;
* ``side_by_side``: two listings in two columns (the Python and the compiled step);
* ``trainer_times_figure``: wall time per trainer and vocabulary size, grouped bars;
* ``vocabulary_price_figure``: compression against vocabulary size, and the embedding;
* ``ladder_figure``: held-out bits per byte of models trained at equal compute on each
  vocabulary size, one line per budget, beside what token frequencies alone give;
* ``extension_figure``: held-out bits per byte while a model trains on after its
  vocabulary was extended, one curve per way to start the new rows.

Each function returns a matplotlib ``Figure`` (or an HTML string) and draws what it
is given; what this module does not do is compute the state it draws (``trace.py``
and the package do), or draw a mechanism step by step by hand (``figures``).
"""

from __future__ import annotations

import html

import numpy as np

from .._internal.optional import optional_import
from .viz import style_axes

__all__ = ["index_rows", "merge_state_figure", "windows_figure", "side_by_side",
           "trainer_times_figure", "vocabulary_price_figure", "ladder_figure",
           "extension_figure"]

plt = optional_import("matplotlib.pyplot", "bpe_lesson.teaching.plots")
from matplotlib.patches import FancyBboxPatch, Rectangle  # noqa: E402  (once matplotlib is known to be there)

MERGED, CHANGED, NEW, STALE = "#ffb570", "#a0c4ff", "#b9f6a8", "#ff8a8a"


def _label(vocab, pair):
    return " ".join(vocab[t].decode("utf-8", "replace") for t in pair)


def index_rows(state):
    """The rows the index panel shows: ``(pair, before, after, words, kind)``, by count before.

    kind is "merged" (the pair merged), "new" (holds the new id), "changed" or "".

    >>> from bpe_lesson.teaching.trace import merge_state
    >>> rows = index_rows(merge_state({b"hug": 10, b"pug": 5}, 1))
    >>> [(r[1], r[2], r[4]) for r in rows][:2]
    [(15, 0, 'merged'), (10, 0, 'changed')]
    """
    b, a = state["before"]["counts"], state["after"]["counts"]
    rows = []
    for p in sorted(set(b) | set(a), key=lambda p: (-b.get(p, 0), -a.get(p, 0), p)):
        kind = ("merged" if p == state["pair"] else "new" if state["new_id"] in p
                else "changed" if b.get(p, 0) != a.get(p, 0) else "")
        words = state["after"]["where"].get(p, state["before"]["where"].get(p, set()))
        rows.append((p, b.get(p, 0), a.get(p, 0), sorted(words), kind))
    return rows


def merge_state_figure(state, names=None, figsize=(7, 3.6)):
    """The pair index and the heap just after one merge (``trace.merge_state`` gives ``state``).

    Left: every pair with its count before -> after the merge and the words (by index,
    or by ``names``) the index lists for it. Right: the heap after the merge as a
    binary tree, each node ``count`` and pair as stored; a node whose stored count is
    no longer the pair's count is stale (red), a pair with the new id is new (green).
    """
    vocab, after = state["vocab"], state["after"]["counts"]
    fig, (left, right) = plt.subplots(1, 2, figsize=figsize, width_ratios=[1.15, 1])
    rows = index_rows(state)
    colour = {"merged": MERGED, "new": NEW, "changed": CHANGED, "": "white"}
    left.set_axis_off()
    left.set_xlim(0, 1)
    left.set_ylim(len(rows) - 0.4, -1.6)
    for x, head in ((0.0, "pair"), (0.28, "count"), (0.62, "words listed")):
        left.text(x, -1.0, head, weight="bold", fontsize=9, va="center")
    for y, (p, b, a, words, kind) in enumerate(rows):
        left.add_patch(Rectangle((-0.02, y - 0.45), 1.02, 0.9, color=colour[kind], alpha=0.8, lw=0))
        left.text(0.0, y, _label(vocab, p), family="monospace", fontsize=9, va="center")
        count = f"{b} → {a}" if b != a else f"{b}"
        left.text(0.28, y, count, fontsize=9, va="center")
        shown = [names[i] if names else str(i) for i in words]
        left.text(0.62, y, ", ".join(shown), fontsize=9, va="center")
    left.set_title(f"pair index: counts before → after merging {_label(vocab, state['pair'])!r}", fontsize=10)
    _heap_tree(right, state["after"]["heap"], after, vocab, state["new_id"])
    handles = [Rectangle((0, 0), 1, 1, color=c) for c in (MERGED, CHANGED, NEW, STALE)]
    fig.legend(handles, ["merged pair", "count changed", "new pair (new id)", "stale heap entry"],
               loc="lower center", ncol=4, fontsize=9, frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def _heap_tree(ax, heap, counts, vocab, new_id, levels=4):
    ax.set_axis_off()
    shown = heap[: 2 ** levels - 1]
    depth = max(1, len(shown).bit_length())
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(depth - 0.4, -0.6)
    pos = {}
    for i in range(len(shown)):
        level = (i + 1).bit_length() - 1
        k = i + 1 - 2 ** level
        pos[i] = ((k + 0.5) / 2 ** level, level)
    for i, (x, y) in pos.items():
        if i:
            px, py = pos[(i - 1) // 2]
            ax.plot([px, x], [py, y], color="0.6", lw=0.8, zorder=1)
    for i, (neg, a, b) in enumerate(shown):
        stale = counts.get((a, b), 0) != -neg
        fill = STALE if stale else NEW if new_id in (a, b) else "white"
        x, y = pos[i]
        ax.add_patch(FancyBboxPatch((x - 0.07, y - 0.28), 0.14, 0.56, boxstyle="round,pad=0.01",
                                    fc=fill, ec="0.3", lw=0.8, zorder=2))
        ax.text(x, y - 0.08, str(-neg), ha="center", va="center", fontsize=9, zorder=3)
        ax.text(x, y + 0.14, _label(vocab, (a, b)), ha="center", va="center", fontsize=9,
                family="monospace", zorder=3)
    more = len(heap) - len(shown)
    title = "heap after the merge (stored count, pair)"
    ax.set_title(title + (f"; {more} more below" if more > 0 else ""), fontsize=10)


def windows_figure(n_tokens, context_length, strides, figsize=(7, 4.2)):
    """Sliding windows over a stream of ``n_tokens`` ids, one panel per stride.

    Window ``i`` holds ids ``iS .. iS + T``: the input ``x`` is the first ``T``
    (drawn as a bar), the target ``y`` the last ``T`` (a bar below it, shifted by one).
    Ids that no window predicts are shaded. Returns the figure.

    >>> fig = windows_figure(12, 4, [2, 4, 5]); len(fig.axes)
    3
    """
    T = context_length
    fig, axes = plt.subplots(len(strides), 1, figsize=figsize, sharex=True)
    axes = list(axes) if len(strides) > 1 else [axes]
    for ax, S in zip(axes, strides):
        starts = list(range(0, n_tokens - T, S))  # window i fits when iS + T <= N - 1
        targets = {s + t for s in starts for t in range(1, T + 1)}
        for j in range(n_tokens):
            ax.add_patch(Rectangle((j, 0), 1, 1, fc="white" if j in targets else "0.8", ec="0.4", lw=0.6))
            ax.text(j + 0.5, 0.5, str(j), ha="center", va="center", fontsize=9)
        for k, s in enumerate(starts):
            y = -1.0 - 1.3 * (k % 3)
            ax.add_patch(Rectangle((s, y + 0.35), T, 0.4, fc=f"C{k % 10}", alpha=0.8))
            ax.add_patch(Rectangle((s + 1, y - 0.15), T, 0.4, fc=f"C{k % 10}", alpha=0.35, hatch="//"))
            ax.text(s - 0.15, y + 0.55, f"x{k}", ha="right", va="center", fontsize=9)
        relation = "<" if S < T else "=" if S == T else ">"
        never = n_tokens - len(targets)
        ax.set_title(f"stride S = {S} {relation} T = {T}: {len(starts)} windows, "
                     f"{never} ids never a target (grey)", fontsize=9)
        ax.set_ylim(-1.0 - 1.3 * 2 - 0.4, 1.2)
        ax.set_yticks([])
        ax.set_xlim(-1.2, n_tokens + 0.2)
        ax.set_xticks([])
        for side in ("left", "right", "top", "bottom"):
            ax.spines[side].set_visible(False)
    axes[-1].set_xlabel("the stream, one box per id (its position); solid bar = input x, hatched = target y")
    fig.tight_layout()
    return fig


def side_by_side(left, right, titles=("Python", "Cython")):
    """Two listings in two columns, as an HTML string (``IPython.display.HTML`` shows it).

    >>> "<td" in side_by_side("a = 1", "cdef int a = 1")
    True
    """
    cells = "".join(
        f'<td style="vertical-align:top;padding:0 0.5em;width:50%">'
        f'<b>{html.escape(t)}</b><pre style="font-size:0.68em;overflow-x:auto">{html.escape(src)}</pre></td>'
        for t, src in zip(titles, (left, right)))
    return f"<table><tr>{cells}</tr></table>"


def trainer_times_figure(seconds, names, sizes, title, figsize=(7, 4.2)):
    """Grouped bars of wall time per trainer, one bar per vocabulary size, log scale.

    ``seconds[name, size]`` is a measured time; a pair missing from it is drawn as a
    "not run" note above the trainer's first bar. Returns the figure.
    """
    xs = np.arange(len(names))
    width = 0.8 / len(sizes)
    fig, ax = plt.subplots(figsize=figsize)
    for k, v in enumerate(sizes):
        at = xs + (k - (len(sizes) - 1) / 2) * width
        ys = [seconds.get((n, v), np.nan) for n in names]
        ax.bar(at, ys, width=width, label=f"vocabulary {v:,} ({v - 256:,} merges)")
        for xb, n, yb in zip(at, names, ys):
            if (n, v) in seconds:
                ax.text(xb, yb * 1.1, f"{yb:.2f} s", ha="center", va="bottom", fontsize=9)
            else:
                ax.text(xb, seconds[n, sizes[0]], "not run", ha="center", va="bottom",
                        fontsize=9, rotation=90)
    ax.set_xticks(xs, [n.replace(" (", "\n(") for n in names])
    ax.set_yscale("log")
    ax.set_ylim(min(seconds.values()) / 3, max(seconds.values()) * 4)
    low, high = ax.get_ylim()
    ticks = [t for t in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500)
             if low <= t <= high]
    ax.set_yticks(ticks, [f"{t:g}" for t in ticks])
    ax.minorticks_off()
    style_axes(ax, title, "trainer", "wall time (seconds, log scale)")
    ax.legend(loc="upper right")
    fig.tight_layout()
    return fig


def vocabulary_price_figure(rows, d, sizes, figsize=(7, 6.5)):
    """Bytes per token against vocabulary size (top) and the embedding's size (bottom).

    ``rows`` are dicts with ``V`` and ``"prose held"``, ``"prose train"``,
    ``"code held"``, ``"code train"`` (bytes per token); ``d`` is the model width;
    ``sizes`` the powers of two to label (a last ``V`` outside them gets a note).
    """
    vs = [r["V"] for r in rows]
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=figsize,
                                      height_ratios=[3, 2])
    for name, color, marker in (("prose", "tab:blue", "o"), ("code", "tab:orange", "s")):
        top.plot(vs, [r[f"{name} held"] for r in rows], marker + "-", color=color,
                 label=f"{name}, held out")
        top.plot(vs, [r[f"{name} train"] for r in rows], marker + "--", color=color,
                 alpha=0.5, label=f"{name}, training text")
    style_axes(top, "Compression bought by a bigger vocabulary, and its price",
               "", "bytes per token (higher = shorter)")
    top.legend()
    bottom.plot(vs, [v * d / 1e6 for v in vs], "o-", color="tab:red",
                label=f"tied: V·d (d = {d})")
    bottom.plot(vs, [2 * v * d / 1e6 for v in vs], "o--", color="tab:red", alpha=0.5,
                label="untied: 2·V·d")
    style_axes(bottom, "", "vocabulary size V (tokens, log scale)",
               "embedding parameters (millions)")
    bottom.legend()
    bottom.set_xscale("log", base=2)
    ticks = [v for v in sizes if v <= vs[-1]]
    bottom.set_xticks(ticks)
    bottom.set_xticklabels([f"{v:,}" for v in ticks])
    bottom.minorticks_off()
    if vs[-1] not in sizes:
        bottom.annotate(f"V = {vs[-1]:,}\n(training stopped)", (vs[-1], vs[-1] * d / 1e6),
                        xytext=(-95, 10), textcoords="offset points",
                        arrowprops={"arrowstyle": "->"})
    fig.tight_layout()
    return fig


def ladder_figure(rows, unigram, held=("prose", "code"), figsize=(7, 3.6)):
    """Bits per byte against vocabulary size, one panel per held-out set.

    ``rows`` are ``lm.ladder.run`` rows (``V``, ``budget``, ``tied`` and one key per held-out
    set); ``unigram`` maps a held-out set to ``{V: bits per byte}`` of a model that knows
    only the training text's token frequencies (drawn dashed).
    """
    budgets = sorted({r["budget"] for r in rows})
    fig, axes = plt.subplots(1, len(held), figsize=figsize, sharey=True)
    for ax, name in zip(np.atleast_1d(axes), held):
        for k, budget in enumerate(budgets):
            for tied in (True, False):
                pts = sorted((r["V"], r[name]) for r in rows if r["budget"] == budget and r["tied"] == tied)
                if pts:
                    style = "o-" if tied else "s:"
                    ax.plot(*zip(*pts), style, color=f"C{k}", mfc=None if tied else "white",
                            label=f"{budget:.3g} FLOPs" + ("" if tied else ", untied"))
        vs = sorted(unigram[name])
        ax.plot(vs, [unigram[name][v] for v in vs], "--", color="0.5", label="frequencies only")
        ax.set_xscale("log", base=2)
        ax.set_xticks(vs)
        ax.set_xticklabels([f"{v:,}" for v in vs])
        ax.minorticks_off()
        style_axes(ax, f"held-out {name}", "vocabulary size V", "bits per byte" if ax is np.atleast_1d(axes)[0] else "")
    np.atleast_1d(axes)[0].legend(fontsize=9)
    fig.tight_layout()
    return fig


def extension_figure(curves, figsize=(7, 3.4)):
    """Held-out bits per byte against training steps: ``curves`` maps a label to ``{step: bpb}``."""
    fig, ax = plt.subplots(figsize=figsize)
    for k, (label, curve) in enumerate(curves.items()):
        steps = sorted(curve)
        ax.plot(steps, [curve[s] for s in steps], "o-", color=f"C{k}", label=label)
    style_axes(ax, "Training on after the vocabulary grew", "steps of continued training",
               "held-out bits per byte")
    ax.legend()
    fig.tight_layout()
    return fig
