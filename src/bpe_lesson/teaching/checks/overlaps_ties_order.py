"""Checks of the exercises in "Overlaps, ties and order": the gain of a merge, the whole rule,
the reader's trainer with the skip, and whether a merge list is realised.

Each check is differential (``compare``): the reader's function against the package's
(``textbook.train_merges``) or against a reference written here, small and anchored by
the chapter's hand-checked cases (``rule_pick`` is the rule inside
``textbook.train_merges``; ``realised`` is the definition, replayed). The generated
cases aim where wrong answers differ: counts at 1, 2 and 3, ties in a random dict
order, pairs whose bytes already are a token, merge lists written by hand (bc, ab,
ab + c) that are not realised, and runs such as ``aaaa``.

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import functools

from ... import textbook
from ...chunks import count_chunks, to_byte_counts
from ...patterns import GPT4_PATTERN
from ...ranks import vocab_from_merges
from ...trainer import train as full_train
from .. import samples
from . import _calls, _gen, check, compare, merges_shown

__all__ = ["HAND", "THE", "TOPICS", "count_and_gain", "rule_pick", "reference_train",
           "realised"]

HAND = [((98, 99), 256), ((97, 98), 257), ((257, 99), 258)]  # bc, ab, then abc = ab + c
SP, T, H, E = (ord(ch) for ch in " the")
THE = [((SP, T), 256), ((H, E), 257), ((T, 257), 258), ((SP, 258), 259)]  # " t", "he", "the", " the"
TOPICS = ("if", "while", "for", "try", "assignment")


@functools.lru_cache(maxsize=1)
def _prose():
    return "\n".join(samples.prose_topics()[t] for t in TOPICS)


@functools.lru_cache(maxsize=1)
def _prose_chunks():
    """The prose's GPT-4 chunks: bytes -> count."""
    return to_byte_counts(count_chunks([_prose()], GPT4_PATTERN))


@functools.lru_cache(maxsize=1)
def _prose_merges():
    """80 merges the package trains on the prose."""
    return full_train(_prose(), vocab_size=256 + 80, pattern="gpt4").merges


def _short(value, width: int = 34) -> str:
    r = repr(value)
    return r if len(r) <= width else r[:width - 4] + " ..."


def _random_merges(rng, letters=b"abc", n_max=5):
    """A merge list written as by hand: each merge joins two tokens made before it."""
    ids, made, merges = list(letters), set(), []
    vocab = vocab_from_merges()
    for _ in range(rng.randint(0, n_max)):
        pair = (rng.choice(ids), rng.choice(ids))
        b = vocab[pair[0]] + vocab[pair[1]]
        if b in made or len(b) > 5:
            continue
        new_id = 256 + len(merges)
        merges.append((pair, new_id))
        vocab[new_id] = b
        made.add(b)
        ids.append(new_id)
    return merges


def _chunk(rng, letters="abc", n_max=7) -> bytes:
    """A short chunk over a few letters: runs and repeats come often."""
    pieces = list(letters) + ["ab", "bc", "abc", "aa", "aaa"]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(1, n_max))).encode()


# ---------------------------------------------------------------- ex-overlaps-gain

def count_and_gain(words, pair) -> tuple[int, int]:
    """(f, g): the count of ``pair`` in ``words`` (tuple of ids -> count), overlaps counted, and the
    tokens its merge removes.

    >>> count_and_gain({(97, 97, 97, 97): 2}, (97, 97)), count_and_gain({(97, 98, 97, 98): 3}, (97, 98))
    ((6, 4), (6, 6))
    """
    f = textbook.count_pairs(words).get(tuple(pair), 0)
    g = sum(c * (len(w) - len(textbook.merge(list(w), tuple(pair), 256))) for w, c in words.items())
    return f, g


def _gain_cases():
    a, b = ord("a"), ord("b")
    yield from [({(a, a): 1}, (a, a)), ({(a, a, a): 1}, (a, a)), ({(a, a, a, a): 2}, (a, a)),
                ({(a, a, a, a, a): 1}, (a, a)), ({(a, b, a, b): 3, (99, a, b): 2}, (a, b)),
                ({(a, a, b, a, a): 2}, (a, a)), ({(a, a, a): 3, (b, a, a, a, b): 2}, (a, a)),
                ({}, (a, a)), ({(a,): 5}, (a, a)), ({(b, b, b): 4}, (a, a)), ({(a,): 1, (a, b): 1}, (a, a))]


def _gain_case(rng):
    words = {}
    for _ in range(rng.randint(0, 4)):
        w = tuple(_gen.ids(rng, 12 if rng.random() > 0.05 else 40, alphabet=rng.choice([1, 2, 3])))
        words[w] = rng.choice([1, 1, 2, 3, 5])
    pair = rng.choice([(97, 97), (97, 97), (97, 98), (98, 97), (98, 98)])
    return words, pair


def _words_shown(args) -> str:
    words, pair = args
    shown = {bytes(w).decode("latin-1"): c for w, c in words.items()}
    return f"{_short(shown, 46)}, {pair}"


def _gain_hint(args, want, got):
    if isinstance(got, tuple) and len(got) == 2 and got[0] != want[0]:
        return "count overlapping occurrences too, times the word's count"
    if args[1][0] == args[1][1]:
        return "a run of l copies holds l - 1 pairs and gains l // 2"
    return "two different tokens: every occurrence is replaced"


@check("ex-overlaps-gain")
def _gain(f_and_g):
    compare(f_and_g, count_and_gain, _gain_cases(), generate=_gain_case, kind=tuple, show=_words_shown,
            hint=_gain_hint)


# ---------------------------------------------------------------- ex-overlaps-rule

def rule_pick(counts, vocab):
    """The pair ``textbook.train_merges`` merges next, or None: the highest count, ties to the
    smallest pair, pairs whose bytes already are a token skipped, and a stop below 2.

    >>> rule_pick({(99, 98): 8, (98, 98): 8, (98, 99): 4}, vocab_from_merges())
    (98, 98)
    >>> rule_pick({(97, 256): 5, (120, 121): 3}, vocab_from_merges(HAND))   # a + bc spells abc
    (120, 121)
    """
    known = set(vocab.values())
    candidates = {p: c for p, c in counts.items() if vocab[p[0]] + vocab[p[1]] not in known}
    if not candidates or max(candidates.values()) < 2:
        return None
    top = max(candidates.values())
    return min(p for p, c in candidates.items() if c == top)


def _rule_cases():
    base, hand = vocab_from_merges(), vocab_from_merges(HAND)
    words = {tuple(w): c for w, c in _prose_chunks().items()}
    yield from [({(99, 98): 8, (98, 98): 8, (98, 99): 4}, base), ({(98, 98): 8, (99, 98): 8}, base),
                ({(97, 98): 1}, base), ({}, base), ({(97, 98): 2}, base), ({(97, 98): 3, (98, 97): 3}, base),
                ({(97, 256): 5, (120, 121): 3}, hand), ({(97, 256): 5, (120, 121): 1}, hand),
                ({(257, 99): 4, (97, 256): 4, (256, 97): 2}, hand), (dict(textbook.count_pairs(words)), base)]


def _rule_case(rng):
    merges = _random_merges(rng)
    vocab = vocab_from_merges(merges)
    ids = [97, 98, 99] + [i for _, i in merges]
    counts = {}
    for _ in range(rng.randint(0, 6)):
        counts[(rng.choice(ids), rng.choice(ids))] = rng.choice([1, 1, 2, 2, 2, 3, 3, 4])
    return counts, vocab


def _shrink_counts(args):
    counts, vocab = args
    for p in counts:
        yield {q: c for q, c in counts.items() if q != p}, vocab


def _counts_shown(args) -> str:
    counts, vocab = args
    made = {i: vocab[i] for i in vocab if i >= 256}
    named = ", ".join(f"{i}={b.decode('latin-1')}" for i, b in made.items())
    return f"{_short(counts, 34)}, vocab{' ' + named[:24] if named else ''}"


@check("ex-overlaps-rule")
def _pick(pick):
    compare(pick, rule_pick, _rule_cases(), generate=_rule_case, kind=(tuple, type(None)),
            shrink=_shrink_counts, show=_counts_shown,
            hint=lambda args, want, got: "skip pairs that spell a token; stop below 2; "
                                         "ties: the smallest pair")


# ---------------------------------------------------------------- ex-overlaps-train

def reference_train(text, vocab_size, base_merges=()):
    """The package's new merges: ``textbook.train_merges`` on GPT-4's chunks of ``text``."""
    counts = to_byte_counts(count_chunks([text], GPT4_PATTERN))
    return textbook.train_merges(counts, vocab_size - 256 - len(base_merges), base_merges=list(base_merges))


def _as_merges(result):
    """The reader's merges as tuples, whatever sequences they came in.

    >>> _as_merges([[[97, 98], 256]])
    [((97, 98), 256)]
    """
    return [(tuple(pair), int(new_id)) for pair, new_id in result]


def _same_merges(want, got) -> bool:
    return _as_merges(got) == want


def _train_text(rng) -> str:
    """Text where the skip, the ties and the stop at 2 all come up."""
    if rng.random() < 0.3:
        return _gen.text(rng, 40)
    pool = ["abc", " abc", "ab", "bc", "xy", " the", " then", "the", " t", "he", "aaaa", "abab", " ", "\n", "é"]
    return "".join(rng.choice(pool) for _ in range(rng.randint(0, 10)))


def _train_cases():
    yield from [("abc abc abc", 262), ("abc abc xy xy xy", 262, HAND), ("aaabdaaabac", 259), ("", 300),
                ("ab ab", 256), ("ab ab", 257), (" the the then", 266, THE), ("abcabc abcabc", 270, HAND),
                ("the cat sat", 300, ())]


def _train_case(rng):
    text = _train_text(rng)
    r = rng.random()
    if r < 0.25:
        base = ()
    elif r < 0.5:  # merges trained on text like this one: merges of merges that fire here
        base = reference_train(text[: rng.randint(0, len(text))] + _train_text(rng), 256 + rng.randint(1, 6))
    else:
        base = HAND if r < 0.7 else THE if r < 0.8 else _random_merges(rng, b"abc ")
    return text, 256 + len(base) + rng.randint(0, 10), base


def _prose_last():
    """Last: five topics of real prose, from bytes and after the " the" merges."""
    prose = _prose()
    return [(prose, 256 + 20), (prose, 256 + len(THE) + 15, THE)]


def _shrink_train(args):
    text, size, *base = args
    for smaller in _calls._smaller(text):
        yield (smaller, size, *base)
    if base and base[0]:
        yield text, size - 1, list(base[0])[:-1]


def _train_shown(args) -> str:
    text, size, *base = args
    more = f", {merges_shown(base[0])}" if base else ""
    return f"{_short(text)}, {size}{more}"


@check("ex-overlaps-train")
def _train(train):
    compare(train, reference_train, _train_cases(), generate=_train_case, then=_prose_last(), kind=list, equal=_same_merges,
            shrink=_shrink_train, show=_train_shown,
            hint=lambda args, want, got: "apply the base merges first; new ids follow "
                                         "theirs; then pick's rule")


# ---------------------------------------------------------------- ex-overlaps-realised

def realised(merges, chunks) -> bool:
    """Is the merge list realised on ``chunks`` (a list of bytes)? Replay it on them, merge after
    merge; every merge must replace at least one occurrence.

    >>> realised(HAND, [b"abc"]), realised([((97, 98), 256), ((256, 99), 257)], [b"abc"])
    (False, True)
    """
    words = [list(c) for c in chunks]
    for pair, new_id in merges:
        merged = [textbook.merge(w, tuple(pair), new_id) for w in words]
        if all(len(m) == len(w) for m, w in zip(merged, words)):
            return False
        words = merged
    return True


def _realised_cases():
    yield from [([((97, 97), 256)], [b"aaa"]), ([((97, 97), 256), ((256, 97), 257)], [b"aaa"]),
                (HAND, [b"abc"]), (HAND, [b"abc", b"ab", b"bc"]), (HAND, [b"bcx", b"abd", b"abc"]),
                ([((97, 98), 256), ((256, 99), 257)], [b"abc"]), ([((97, 98), 256), ((98, 99), 257)], [b"abc"]),
                ([], []), ([], [b"abc"]), ([((97, 98), 256)], []), ([((97, 97), 256), ((256, 256), 257)], [b"aaa"])]


def _realised_case(rng):
    chunks_ = [_chunk(rng) for _ in range(rng.randint(1, 4))]
    r = rng.random()
    if r < 0.45:  # trained on these chunks (realised), sometimes one merge more by hand
        counts = {}
        for c in chunks_:
            counts[c] = counts.get(c, 0) + rng.choice([1, 2])
        m = textbook.train_merges(counts, rng.randint(1, 6))
        if r < 0.15:
            m = m + _random_merges(rng)[:1]
            m[-1] = (m[-1][0], 256 + len(m) - 1)
    elif r < 0.65:  # trained on other chunks
        m = textbook.train_merges({_chunk(rng): 2 for _ in range(3)}, rng.randint(1, 5))
    else:
        m = _random_merges(rng, n_max=4)
    return m, chunks_


def _prose_merges_last():
    """Last: 80 merges the package trained on real prose, and its chunks."""
    merges, chunks = _prose_merges(), list(_prose_chunks())
    return [(merges, chunks), (merges, chunks[:50])]


def _realised_shown(args) -> str:
    merges, chunks = args
    return f"{merges_shown(merges, 36)}, {_short(chunks, 30)}"


def _shrink_realised(args):
    merges, chunks = args
    for smaller in _calls._smaller(chunks):
        yield merges, smaller
    if merges:
        yield merges[:-1], chunks


@check("ex-overlaps-realised")
def _realised(is_realised):
    compare(is_realised, realised, _realised_cases(), generate=_realised_case, then=_prose_merges_last(),
            kind=bool,
            shrink=_shrink_realised, show=_realised_shown,
            hint=lambda args, want, got: "replay in order; each merge must replace "
                                         "something, somewhere")
