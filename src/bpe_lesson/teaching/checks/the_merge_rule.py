"""Checks of the exercises in "The merge rule, derived": count pairs, merge, the saving of a
merge, the reader's own trainer, and the smallest text where count and saving disagree.

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import itertools

from ... import textbook
from ...trainer import train as package_train
from .. import samples
from . import Generated, _gen, call, check, compare

TOPICS = ("if", "while", "for", "try")  # the prose the trainer exercise is graded on
TOY = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)


def _pair_cases(label):
    """Hand-picked id lists, then 200 generated ones (runs, ties, overlaps, empty)."""
    yield from [([1, 2, 3, 1, 2],), ([97, 97, 97],), ([97, 97, 97, 97],), ([],), ([5],),
                (list(b"abab"),), (list(samples.prose_topics()["if"].encode()),)]
    rng = _gen.rng_for(label)
    for _ in range(200):
        yield Generated(_gen.ids(rng))


@check("ex-merge-pairs")
def _pairs(pair_counts):
    compare(pair_counts, lambda ids: dict(textbook.count_pairs({tuple(ids): 1})), _pair_cases("ex-merge-pairs"),
            kind=dict, equal=lambda want, got: dict(got) == want,
            hint=lambda args, want, got: "overlapping occurrences count: [97, 97, 97] holds (97, 97) twice"
            if any(a == b for a, b in want) else None)


def _merge_cases(label):
    yield from [([1, 2, 3, 1, 2], (1, 2), 4), ([97, 97, 97], (97, 97), 256), ([97, 97, 97, 97], (97, 97), 256),
                ([], (1, 2), 256), ([1], (1, 2), 256), ([5, 6], (6, 5), 7)]
    rng = _gen.rng_for(label)
    for _ in range(200):
        ids = _gen.ids(rng)
        pairs = list(zip(ids, ids[1:])) or [(97, 98)]
        pair = rng.choice(pairs) if rng.random() < 0.9 else (97, 97)
        yield Generated(ids, pair, rng.choice([256, 257, 300, 65_535, 65_536]))


@check("ex-merge-merge")
def _merge(merge_pair):
    compare(merge_pair, textbook.merge, _merge_cases("ex-merge-merge"), kind=list,
            hint=lambda args, want, got: "scan left to right; a merged pair uses up both ids")
    ids = list(b"aaabdaaabac")  # minbpe's hand-checked case, with the chapter's rule picking each pair
    for idx in (256, 257, 258):
        ids = call(merge_pair, ids, count_pick(ids), idx)
    assert ids == [258, 100, 258, 97, 99], f"three merges of 'aaabdaaabac' gave {ids}, not [258, 100, 258, 97, 99]"


@check("ex-merge-saving")
def _saving(merge_saving):
    for text, pair, want in [(b"aaaa", b"aa", 2), (b"aaa", b"aa", 1), (b"aaabdaaabac", b"ab", 2), (b"", b"ab", 0)]:
        got = call(merge_saving, list(text), tuple(pair))
        assert got == want, f"merge_saving({text!r}, {pair!r}) = {got}, should be {want}"
    doc = list(samples.prose_topics()["if"].encode())
    for pair in textbook.count_pairs({tuple(doc): 1}):
        want = len(doc) - len(textbook.merge(doc, pair, 256))
        assert call(merge_saving, doc, pair) == want, f"the saving of {bytes(pair)!r} on the 'if' topic is {want}"


def _as_merges(result):
    return [(tuple(pair), int(new_id)) for pair, new_id in result]


@check("ex-merge-train")
def _train(train):
    for text, size in [(TOY, 256 + 5), (TOY, 256 + 40), ("the cat sat", 300),
                       ("\n".join(samples.prose_topics()[t] for t in TOPICS), 256 + 60)]:
        want = package_train(text, vocab_size=size, pattern="gpt4", algorithm="textbook").merges
        got = _as_merges(call(train, text, size))
        assert len(got) == len(want), (f"train(..., {size}) made {len(got)} merges, the package {len(want)} "
                                       f"(stop at the vocabulary size, or when no pair occurs twice)")
        for k, (g, w) in enumerate(zip(got, want), 1):
            assert g == w, f"merge {k} is {g}, the package's is {w} (highest count, ties to the smallest pair)"


def count_pick(ids):
    """The pair the count rule merges first: highest count, then the smallest pair."""
    counts = textbook.count_pairs({tuple(ids): 1})
    top = max(counts.values())
    return min(p for p, c in counts.items() if c == top)


def gains(ids):
    """pair -> the tokens its merge removes from ``ids``."""
    return {p: len(ids) - len(textbook.merge(ids, p, 256)) for p in textbook.count_pairs({tuple(ids): 1})}


def disagree(text: str) -> bool:
    """True when the count rule's pick removes fewer tokens than some other pair's merge would.

    In "aaabab", (a, a) and (a, b) both occur twice; the tie goes to (a, a), which
    removes one token, while (a, b) would remove two. In "aaab" (a, a) wins outright.

    >>> disagree("aaabab"), disagree("aaab")
    (True, False)
    """
    ids = list(text.encode("utf-8"))
    if len(ids) < 2:
        return False
    g = gains(ids)
    return g[count_pick(ids)] < max(g.values())


@check("ex-merge-smallest")
def _smallest(text):
    assert isinstance(text, str), f"give the text as a str, not a {type(text).__name__}"
    assert disagree(text), (f"on {text!r} the count rule's pick {bytes(count_pick(list(text.encode())))!r} "
                            f"removes as many tokens as any pair: the rules agree")
    n = len(text.encode("utf-8"))
    for k in range(2, n):  # every shorter text over as many letters as it has bytes
        for letters in itertools.product("abcdefgh"[:k], repeat=k):
            shorter = "".join(letters)
            assert not disagree(shorter), f"{shorter!r} is shorter ({k} bytes) and the rules disagree on it"
