"""Checks of the exercises in "The merge rule, derived": count pairs, merge, the saving of a
merge, the reader's own trainer, and the pair the saving rule would merge.

Every check is differential (``compare``), hand-picked cases first, then generated ones:

* ``ex-merge-pairs``, ``ex-merge-merge``: against ``textbook.count_pairs`` and
  ``textbook.merge`` on id lists with runs (``aaaa``), alternations and ties.
* ``ex-merge-saving``: against the length ``textbook.merge`` takes off, on runs of
  every parity broken and rejoined, and on pairs that do not occur.
* ``ex-merge-train``: against ``bpe_lesson.train(..., algorithm="textbook")`` on small
  texts of repeated words, runs, multi-byte characters and blank lines, with vocabulary
  sizes at, one below and one above the point where the package stops (so the last
  merge's count and the stop at a best count of 1 are both reached), and with ties.
* ``ex-merge-smallest``: against the saving rule of ``teaching.replay``, on small
  corpora of weighted chunks where the count winner (a, a) saves less than another pair.

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import functools

from ... import textbook
from ...trainer import train as package_train
from .. import samples
from ..replay import replay
from . import _calls, _forbidden, _gen, by_size, call, check, compare
from ._calls import _shrink_args

__all__ = ["TOY", "BASES", "MIXED", "train_reference", "count_pick", "saving_winner"]

TOY = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)
BASES = [97, 97, 97, 254, 65_534]  # the smallest id of a generated list: letters, or ids around 256, 65,536
# ids whose digits end in one another's (1 and 11, 2 and 112): a solution that works on the ids
# written out as text ("1,2," is found inside "11,2,") fails on them
MIXED = [1, 2, 11, 12, 21, 112, 256, 1256]


def _ids(rng, n=16):
    """A generated id list: from a small alphabet at one of BASES, or (one time in six) from MIXED."""
    if rng.random() < 1 / 6:
        return [rng.choice(MIXED[:rng.randint(2, len(MIXED))]) for _ in range(rng.randint(0, n))]
    return _gen.ids(rng, n, alphabet=rng.choice([1, 2, 3]), base=rng.choice(BASES))


def _pair_cases():
    """Hand-picked id lists (generated: runs, ties, overlaps, empty; ids past 255 and 65,535)."""
    yield from [([1, 2, 3, 1, 2],), ([97, 97, 97],), ([97, 97, 97, 97],), ([],), ([5],),
                (list(b"abab"),), (list(samples.prose_topics()["if"].encode()),)]


@check("ex-merge-pairs")
def _pairs(pair_counts):
    compare(pair_counts, lambda ids: dict(textbook.count_pairs({tuple(ids): 1})), _pair_cases(),
            generate=lambda rng: (_ids(rng, 24),), order=by_size, kind=dict, equal=lambda want, got: dict(got) == want,
            hint=lambda args, want, got: "overlapping occurrences count: [97, 97, 97] holds (97, 97) twice"
            if isinstance(got, dict) and any(a == b for a, b in want) else None)


def _merge_cases():
    yield from [([1, 2, 3, 1, 2], (1, 2), 4), ([97, 97, 97], (97, 97), 256), ([97, 97, 97, 97], (97, 97), 256),
                ([], (1, 2), 256), ([1], (1, 2), 256), ([5, 6], (6, 5), 7)]
    yield from _gen.DIGIT_MERGES  # ids whose digits run into each other ("1,12" inside "11,12")


def _merge_case(rng):
    ids = _gen.ids(rng) if rng.random() < 0.75 else _gen.digit_ids(rng)
    pairs = list(zip(ids, ids[1:])) or [(97, 98)]
    pair = rng.choice(pairs) if rng.random() < 0.9 else (97, 97)
    return ids, pair, rng.choice([256, 257, 300, 65_535, 65_536])


@check("ex-merge-merge")
def _merge(merge_pair):
    compare(merge_pair, textbook.merge, _merge_cases(), generate=_merge_case, order=by_size, kind=list,
            hint=_gen.merge_hint)
    ids = list(b"aaabdaaabac")  # minbpe's hand-checked case, with the chapter's rule picking each pair
    for idx in (256, 257, 258):
        ids = call(merge_pair, ids, count_pick(ids), idx)
    assert ids == [258, 100, 258, 97, 99], f"three merges of 'aaabdaaabac' gave {ids}, not [258, 100, 258, 97, 99]"


def _saving_cases():
    """Runs of (a, a) of every length, broken and rejoined; pairs that occur once or not at all."""
    doc = list(samples.prose_topics()["if"].encode())
    hand = [(b"aaaa", b"aa"), (b"aaa", b"aa"), (b"aaabdaaabac", b"ab"), (b"", b"ab"), (b"a", b"aa"),
            (b"abab", b"ab"), (b"abab", b"ba"), (b"aabaa", b"aa"), (b"aaaaa", b"aa"), (b"abc", b"cd")]
    yield from ((list(t), tuple(p)) for t, p in hand)
    yield from ((doc, p) for p in [(32, 32), (101, 32), (10, 10)])


def _saving_case(rng):
    ids = _ids(rng)
    pairs = list(zip(ids, ids[1:]))
    r = rng.random()
    if r < 0.5 and ids:  # a token with itself: the pair that can overlap
        t = rng.choice(ids)
        pair = (t, t)
    elif r < 0.9 and pairs:
        pair = rng.choice(pairs)
    else:  # a pair that may not occur at all
        pair = (97 + rng.randrange(3), 97 + rng.randrange(3))
    return ids, pair


def _saving_hint(args, want, got):
    ids, pair = args
    if not isinstance(got, int):
        return None
    if got == sum(p == tuple(pair) for p in zip(ids, ids[1:])) != want:
        return "that is the count: overlapping occurrences share a token"
    return "scan from the left; after a match skip both ids of the pair"


@check("ex-merge-saving")
def _saving(merge_saving):
    compare(merge_saving, lambda ids, pair: len(ids) - len(textbook.merge(ids, pair, -1)),
            _saving_cases(), generate=_saving_case, order=by_size, kind=int, hint=_saving_hint)
    # the text asks for one scan *without* the merged list: run it once more with every merge
    # function it could reach (the reader's own, the package's) made to fail when called
    called = _forbidden.called_while(merge_saving, (list(b"aaabdaaabac"), (97, 97)), "merge")
    assert called is None, (
        f"{_calls._name(merge_saving)}([97, 97, 97, 98, ...], (97, 97)) gives the right number by calling "
        f"{called}, which builds the merged list\n  the exercise asks for one scan without it\n"
        "  hint: walk i along ids; on a match add 1 and step 2, else step 1")


@functools.lru_cache(maxsize=4096)
def _all_merges(text: str) -> tuple:
    """Every merge the package's textbook trainer makes on ``text`` before it stops by itself.

    Each merge shortens the text by at least one token, so ``len(bytes)`` merges are
    more than it can make: the run ends where no pair occurs twice.
    """
    size = 257 + len(text.encode("utf-8"))
    # backend="python": the same merges (the textbook trainer has one implementation); the
    # Tokenizer it returns skips building a compiled encoder, a few ms per call we never use
    return tuple(package_train(text, vocab_size=size, pattern="gpt4", algorithm="textbook",
                               backend="python").merges)


def train_reference(text: str, vocab_size: int) -> list:
    """The package's merges for ``vocab_size`` ids: the first ``vocab_size - 256`` of its run.

    (Training with a smaller budget makes the same merges and stops sooner: the
    textbook loop picks each merge from the corpus as the merges before left it.)

    >>> train_reference("abab abab", 300) == package_train("abab abab", 300, algorithm="textbook").merges
    True
    """
    return list(_all_merges(text)[:max(0, vocab_size - 256)])


def _train_text(rng) -> str:
    """A small text: a few words repeated (counts of 1, 2, 3 and ties), or runs, or lines."""
    r = rng.random()
    if r < 0.45:
        pool = [_gen.text(rng, 5, long=0).strip() or "ab" for _ in range(rng.randint(1, 4))]
        return " ".join(rng.choice(pool) for _ in range(rng.randint(1, 9)))
    if r < 0.7:
        return _gen.text(rng, 40, long=0.02)
    if r < 0.85:
        return _gen.lines(rng, 5)
    return " ".join(rng.choice("ab") * rng.randint(1, 7) for _ in range(rng.randint(1, 6)))


def _train_cases():
    """Hand-picked texts (generated: budgets around the package's stop)."""
    topic = samples.prose_topics()["if"]
    yield from [(TOY, 256 + 5), (TOY, 256 + 40), ("the cat sat", 300), ("", 300), ("aaabdaaabac", 259),
                ("abab", 256), ("abab", 257), ("abab", 258), ("aaaa aaaa", 260), ("ab ab ab", 270),
                (topic, 256 + 30)]


def _train_case(rng):
    text = _train_text(rng)
    made = len(_all_merges(text))  # the merges the package makes before it stops
    extra = rng.choice([0, 1, made - 1, made, made, made + 1, made + 1, made + 4, rng.randint(0, made + 1)])
    return text, 256 + max(0, extra)


def _as_merges(result):
    return [(tuple(pair), int(new_id)) for pair, new_id in result]


def _train_shrink(args):
    """A shorter text with the same budget, then the same text with a smaller budget."""
    text, size = args
    for smaller in _shrink_args((text,)):
        yield smaller[0], size
    for k in range(256, size):
        yield text, k


def _merges(n: int) -> str:
    return f"{n} merge" + ("" if n == 1 else "s")


def _train_hint(args, want, got):
    if not isinstance(got, list):
        return None
    try:
        got = _as_merges(got)
    except (TypeError, ValueError):
        return "return a list of ((left, right), new_id)"
    for k, (w, g) in enumerate(zip(want, got), 1):
        if w != g:
            return f"merge {k} differs: the highest count wins, ties to the smallest pair"
    if len(got) < len(want):
        return f"you stop after {_merges(len(got))}: go on while a pair occurs at least twice"
    return f"stop at vocab_size, or when no pair occurs twice: {_merges(len(want))} here"


@check("ex-merge-train")
def _train(train):
    compare(train, train_reference, _train_cases(), generate=_train_case, order=by_size, kind=list,
            equal=lambda want, got: _as_merges(got) == want, shrink=_train_shrink, hint=_train_hint)


def count_pick(ids):
    """The pair the count rule merges first: highest count, then the smallest pair."""
    counts = textbook.count_pairs({tuple(ids): 1})
    top = max(counts.values())
    return min(p for p, c in counts.items() if c == top)


def saving_winner(words):
    """The pair the saving rule merges first in ``words`` (chunk as ids -> count), or None.

    The pair whose merge removes the most tokens, the smallest pair on a tie, as
    ``replay`` records it beside the count rule's merge. In "aaabab" (a, a) and (a, b)
    both occur twice; merging (a, a) removes one token, (a, b) two.

    >>> saving_winner({tuple(b"aaabab"): 1}), saving_winner({tuple(b"aaab"): 2, tuple(b"ab"): 1})
    ((97, 98), (97, 98))
    >>> saving_winner({tuple(b"aaaa"): 1}), saving_winner({(97,): 3})
    ((97, 97), None)
    """
    counts = textbook.count_pairs(words)
    if not counts:
        return None
    top = max(counts.values())
    first = min(p for p, c in counts.items() if c == top)  # the count rule's merge, for replay
    steps, _, _ = replay({bytes(w): c for w, c in words.items()}, [(first, 256)])
    return steps[0].saving_pair


def _chunk(rng, alphabet: int) -> tuple:
    """Ids over a few letters, or runs (aaaa) beside alternations (abab): where the rules part."""
    if rng.random() < 0.5:
        return tuple(_gen.ids(rng, 10, alphabet=alphabet))
    pieces = [rng.choice("ab") * rng.randint(2, 5), "ab" * rng.randint(1, 3), "ba", "c"]
    return tuple("".join(rng.choice(pieces) for _ in range(rng.randint(1, 3))).encode())


def _parting(rng) -> dict:
    """A run of n x's (count n - 1, saving n // 2) against a pair y z seen about as often."""
    x, y, z = (ord(c) for c in rng.sample("abcd", 3))
    n = rng.randint(3, 8)
    k = rng.randint(n // 2, n)  # y z's count: at, below or above the run's saving and count
    words = {(x,) * n: 1}
    if rng.random() < 0.4:  # or two runs in one chunk: its saving is not half its count
        words = {(x,) * n + (y,) + (x,) * rng.randint(2, 5): 1}
    split = rng.randint(0, k)  # part of them in one chunk, the rest in a chunk counted k - split times
    if split:
        words[(y, z) * split] = 1
    if k - split:
        words[(y, z)] = k - split
    return words


def _corpus(rng) -> dict:
    """1 to 4 distinct chunks, each with a count of 1 to 3; a third of them built to part the rules."""
    if rng.random() < 0.35:
        return _parting(rng)
    words = {}
    alphabet = rng.choice([2, 2, 3])
    for _ in range(rng.randint(1, 4)):
        w = _chunk(rng, alphabet)
        words[w] = words.get(w, 0) + rng.choice([1, 1, 2, 3])
    return words


def _smallest_cases():
    hand = [{b"aaabab": 1}, {b"aaab": 2, b"ab": 1}, {}, {b"a": 3}, {b"aaaa": 1}, {b"aaa": 1},
            {b"abab": 1}, {b"aa": 1, b"bb": 1}, {b"aaaab": 1, b"ab": 1}, {b"aaa": 1, b"bc": 2},
            {TOY.encode(): 1}]
    yield from (({tuple(w): c for w, c in h.items()},) for h in hand)


def _smallest_show(args):
    (words,) = args
    return "{" + ", ".join(f"{bytes(w)!r}: {c}" for w, c in words.items()) + "}"


def _corpus_shrink(args):
    """Smaller corpora: a chunk fewer, a chunk one id shorter, a count one lower."""
    (words,) = args
    for w in words:
        yield {v: c for v, c in words.items() if v != w},
    for w, c in words.items():
        for i in range(len(w)):
            smaller = {v: n for v, n in words.items() if v != w}
            v = w[:i] + w[i + 1:]
            smaller[v] = smaller.get(v, 0) + c
            yield smaller,
    for w, c in words.items():
        if c > 1:
            yield {**words, w: c - 1},


def _smallest_hint(args, want, got):
    (words,) = args
    counts = textbook.count_pairs(words)
    if not isinstance(got, (tuple, type(None))):
        return None
    if counts and got == min(p for p, c in counts.items() if c == max(counts.values())):
        return "that is the count rule's pick: rank by the tokens a merge removes"
    return "tokens removed, times each chunk's count; ties to the smallest pair"


@check("ex-merge-smallest")
def _smallest(saving_pick):
    compare(saving_pick, saving_winner, _smallest_cases(), generate=lambda rng: (_corpus(rng),), order=by_size,
            kind=(tuple, type(None)), show=_smallest_show, shrink=_corpus_shrink, hint=_smallest_hint)
