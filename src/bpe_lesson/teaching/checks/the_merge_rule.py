"""Checks of the exercises in "The merge rule, derived": count pairs, merge, the saving of a
merge, the reader's own trainer, and the smallest text where count and saving disagree.

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import itertools

from ... import textbook
from ...trainer import train as package_train
from .. import samples
from . import check
from ._calls import call

TOPICS = ("if", "while", "for", "try")  # the prose the trainer exercise is graded on
TOY = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)


@check("ex-merge-pairs")
def _pairs(pair_counts):
    assert call(pair_counts, [1, 2, 3, 1, 2]) == {(1, 2): 2, (2, 3): 1, (3, 1): 1}
    got = call(pair_counts, [97, 97, 97])
    assert got == {(97, 97): 2}, f"pair_counts([97, 97, 97]) = {got}: overlapping occurrences count, so 2"
    assert call(pair_counts, []) == {} and call(pair_counts, [5]) == {}, "no pair in fewer than 2 ids"
    doc = list(samples.prose_topics()["if"].encode())
    assert dict(call(pair_counts, doc)) == dict(textbook.count_pairs({tuple(doc): 1})), \
        "the counts differ from textbook.count_pairs on the 'if' topic"


@check("ex-merge-merge")
def _merge(merge_pair):
    assert call(merge_pair, [1, 2, 3, 1, 2], (1, 2), 4) == [4, 3, 4]
    got = call(merge_pair, [97, 97, 97], (97, 97), 256)
    assert got == [256, 97], f"merging (a, a) in 'aaa' gave {got}: the scan goes left to right, so [256, 97]"
    ids = [5, 6]
    call(merge_pair, ids, (5, 6), 7)
    assert ids == [5, 6], "merge_pair changed its input list; return a new one"
    ids = list(b"aaabdaaabac")
    for idx in (256, 257, 258):
        pairs = textbook.count_pairs({tuple(ids): 1})
        top = max(pairs.values())
        ids = call(merge_pair, ids, min(p for p, f in pairs.items() if f == top), idx)
    assert ids == [258, 100, 258, 97, 99], f"three merges of 'aaabdaaabac' gave {ids}"


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
