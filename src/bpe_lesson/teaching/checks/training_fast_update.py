"""Check of the third exercise of *Training fast* (``ex-fast-update``): the update of the
pair counts, the index and the heap after a merge.

The reference is ``incremental.apply_merge`` (through ``training_fast.package_update``,
which takes the exercise's arguments), run on the trainer's own state after a few
merges (``training_fast.State``, the same generated chunk sets as the other two checks);
the check also trains whole vocabularies with the reader's update and compares the merges.

What this module does not do: time anything.
"""

from __future__ import annotations

from collections import Counter

from . import check, compare
from .training_fast import (State, TOY, _merges, _shrink_chunks, chunk_set, n_merges, package_update,
                            prose_counts)

__all__ = ["UPDATE_CASES", "check_update"]


# ---------------------------------------------------------------- ex-fast-update

def _summary(s, before):
    """What a merge changed: the words rewritten, the counts' changes, new listings, unlisted holders, heap pushes.

    ``before`` is (words, pair_counts, heap) as they were. The index may keep stale entries (the
    trainer skips them), so only what must be there is compared: each word under each new pair
    it holds, and every pair a word holds listed with it ("unlisted" says where not). Pushes of
    pairs without new_id are left out: their counts only fell, so any entry of theirs is harmless.
    """
    words, counts, heap = before
    holders = {}  # (int, int) -> words that hold the pair
    for i, w in enumerate(s.words):
        for q in zip(w, w[1:]):
            holders.setdefault(q, set()).add(i)
    new_id = s.next_id - 1
    after, old = Counter(s.heap), Counter(heap)
    return {"words": {i: w for i, w in enumerate(s.words) if w != words[i]},
            "counts": {q: s.pair_counts.get(q, 0) - counts.get(q, 0)
                       for q in sorted(counts.keys() | s.pair_counts.keys())
                       if s.pair_counts.get(q, 0) != counts.get(q, 0)},
            "where": {q: sorted(held & set(s.where.get(q, ()))) for q, held in sorted(holders.items())
                      if new_id in q},
            "unlisted": {q: sorted(held - set(s.where.get(q, ()))) for q, held in sorted(holders.items())
                         if held - set(s.where.get(q, ()))},
            "pushed": sorted(e for e in (after - old).elements() if new_id in e[1:]),
            "popped": sorted((old - after).elements())}


def _update_in_training(step):
    """Run ``step`` as the merge after ``before`` merges of ``chunks``: the trainer's next pair, or ``pick``."""
    def run(chunks, before, pick):
        s = State(chunks, before)
        if pick is None:
            best = s.pop()
            if best is None:
                raise ValueError("training is over")
            pick = best[0]
        elif s.pair_counts.get(pick, 0) <= 0:
            raise ValueError(f"no word holds {pick}")
        before = ([list(w) for w in s.words], dict(s.pair_counts), list(s.heap))
        s.apply(step, pick)
        return _summary(s, before)
    run.__name__ = getattr(step, "__name__", "update_counts")
    return run


def _train_with(step):
    """Train ``n`` merges with the package's pop_best and ``step`` for the update; return the merges."""
    def run(chunks, n):
        s = State(chunks, 0)
        merges = []
        while len(merges) < n:
            best = s.pop()
            if best is None:
                break
            merges.append((best[0], s.apply(step, best[0])))
        return merges
    run.__name__ = getattr(step, "__name__", "update_counts")
    return run


UPDATE_CASES = [({b"aaaa": 1}, 0, None), ({b"aaabaaa": 2}, 0, None), ({b"abab": 3, b"ab": 1}, 0, (98, 97)),
                ({b"aaaaa": 3, b"aaab": 2, b"abab": 1}, 1, None), (TOY, 1, None)]


def _update_case(rng):
    """(chunks, merges before, the pair to merge or None for the best); None: no such state, draw again."""
    chunks = chunk_set(rng)
    n = n_merges(chunks)
    before = rng.randint(0, max(0, n - 1))
    pick = None
    if rng.random() < 0.35:  # another pair the words hold, not the best one
        s = State(chunks, before)
        held = sorted(q for q, c in s.pair_counts.items() if c > 0)
        if not held:
            return None
        pick = rng.choice(held)
    elif before >= n:
        return None
    return chunks, before, pick


def _update_hint(args, want, got):
    for key in ("words", "counts", "where", "unlisted"):
        if got[key] == want[key]:
            continue
        q = min(k for k in want[key].keys() | got[key].keys() if want[key].get(k) != got[key].get(k))
        w, g = want[key].get(q), got[key].get(q)
        if key == "words":
            return f"word {q} becomes {w}, not {g}"
        if key == "counts":
            return f"the count of {q} changes by {w or 0}, not {g or 0}"
        if key == "where":
            return f"where[{q}] lists words {w or []}, not {g or []}"
        return f"word(s) {g} hold {q}, but where[{q}] does not list them"
    if got["popped"]:
        return "leave the old entries on the heap: pop_best finds them stale"
    return "push each pair with new_id once, after all the words, with its final count"


def _show_update(args):
    """How a failing case reads: the chunks, which merge, after how many.

    >>> _show_update(({b"aaaa": 2}, 1, None))
    "{b'aaaa': 2}, the next merge after 1 merge"
    """
    chunks, before, pick = args
    which = "the next merge" if pick is None else f"merging {pick}"
    return f"{chunks}, {which} after {_merges(before)}"


@check("ex-fast-update")
def check_update(update_counts):
    compare(_update_in_training(update_counts), _update_in_training(package_update),
            UPDATE_CASES, generate=_update_case, kind=dict, shrink=_shrink_chunks, show=_show_update,
            hint=_update_hint)
    compare(_train_with(update_counts), _train_with(package_update),
            [(TOY, 10), ({b"aaaaa": 3, b"aaab": 2, b"abab": 1}, 20), (prose_counts(6), 50)],
            kind=list, shrink=lambda args: iter(()),
            show=lambda a: f"{_merges(a[1])} of {len(a[0]):,} chunks ({list(a[0])[:3]}...)",
            hint=lambda args, want, got: "your updates lead the trainer to other merges")
