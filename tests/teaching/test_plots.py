"""The mechanism figures draw what they are given: checked against brute force and hand counts."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from bpe_lesson.lm.windows import window_count  # noqa: E402
from bpe_lesson.teaching import plots, trace  # noqa: E402

TOY = {b"hug": 10, b"pug": 5, b"pun": 12, b"bun": 4, b"hugs": 5}


def test_index_rows_by_hand():
    rows = plots.index_rows(trace.merge_state(TOY, 1))
    by_pair = {tuple(chr(t) if t < 256 else "ug" for t in p): (b, a, kind) for p, b, a, _, kind in rows}
    assert by_pair["u", "g"] == (20, 0, "merged")
    assert by_pair["p", "u"] == (17, 12, "changed")  # five pugs became p ug
    assert by_pair["u", "n"] == (16, 16, "")
    assert by_pair["h", "ug"] == (0, 15, "new")
    assert [r[1] for r in rows] == sorted((r[1] for r in rows), reverse=True)


def test_merge_state_figure_marks_stale_entries():
    s = trace.merge_state(TOY, 1)
    fig = plots.merge_state_figure(s, names=[w.decode() for w in TOY])
    width, height = fig.get_size_inches()
    assert width <= 7 and len(fig.axes) == 2
    stale = [p for p in fig.axes[1].patches if p.get_facecolor()[:3] == matplotlib.colors.to_rgb(plots.STALE)]
    expected = sum(s["after"]["counts"].get((a, b), 0) != -neg for neg, a, b in s["after"]["heap"][:15])
    assert len(stale) == expected == 3  # (p, u) 17, (h, u) 15, (g, s) 5
    plt.close(fig)


@pytest.mark.parametrize("n,t", [(20, 4), (13, 3), (3, 4)])
def test_windows_figure_counts_against_brute_force(n, t):
    strides = [max(1, t - 1), t, t + 2]
    fig = plots.windows_figure(n, t, strides)
    for ax, s in zip(fig.axes, strides):
        w = window_count(n, t, s)
        targets = {i * s + k for i in range(w) for k in range(1, t + 1)}
        assert ax.get_title().startswith(f"stride S = {s}")
        assert f": {w} windows, {n - len(targets)} ids never a target" in ax.get_title()
    assert fig.get_size_inches()[0] <= 7
    plt.close(fig)


def test_side_by_side_escapes_code():
    html = plots.side_by_side("if a < b:", "cdef int* p", titles=("Python", "Cython <pyx>"))
    assert "a &lt; b" in html and "Cython &lt;pyx&gt;" in html and html.count("<td") == 2
