"""Checks for the chapter "Is BPE optimal?" (``book/is_bpe_optimal.ipynb``).

Each compares the reader's function with ``teaching.optimal`` on hand-picked cases and
at least 200 generated ones: short texts over two to four letters with runs, ties and
repeats (the brute force), pieces and small random vocabularies with tokens longer than
any fixed look-back a reader might guess, and runs long enough that a recursion without
a memo runs out of time (the fewest tokens), and short pieces with tokens that tie in
rank and probabilities from 0 to 1 (BPE-dropout). Some cases use GPT-4's vocabulary
(cl100k_base, loaded offline).

What this module does not do: hold the solutions (the chapter does, folded away).

>>> Ranks({b"ab": 256})
bytes + {b'ab': 256}
"""

from __future__ import annotations

import functools

from .. import optimal
from . import Table, _reference, check, compare

__all__ = ["BYTES", "Ranks", "ALPHABETS", "check_shortest", "PRUNING_TRAPS",
           "ORDER_TRAPS", "check_brute", "check_dropout"]

BYTES = {bytes([i]): i for i in range(256)}  # the 256 single bytes, ranked by value


class Ranks(Table):
    """A vocabulary (token bytes -> rank) the reader's code may read but not change.

    Every single byte is in it. Printed short: the tokens beyond the single bytes (or
    the vocabulary's name). A ``Table``: never copied, so a case on GPT-4's 100,256 tokens
    costs nothing to pass around.
    """

    def __init__(self, extra=(), name=None):
        super().__init__({**BYTES, **dict(extra)}, name)

    def __repr__(self):
        if self.name:
            return self.name
        extra = {t: r for t, r in self.items() if len(t) > 1}
        return f"bytes + {dict(sorted(extra.items(), key=lambda kv: kv[1]))}"

    def __reduce__(self):
        return (Ranks, ({t: r for t, r in self.items() if len(t) > 1}, self.name))

    def _read_only(self, *args, **kwargs):
        raise TypeError("the ranks are the grader's: read them, or copy them (dict(ranks)) to change them")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = __ior__ = _read_only


@functools.lru_cache(maxsize=1)
def _gpt4_ranks() -> Ranks:
    tok = _reference.tokenizer("cl100k_base")
    return Ranks({b: i for i, b in tok.vocab.items()}, name="GPT-4's ranks")


# the letters of the generated pieces: one-byte letters, and a two-byte one (é) that stays whole
ALPHABETS = [[b"a", b"b"], [b"a", b"b", b"c"], [b"a", b"b", b"c", b"d"], [b"a", "\u00e9".encode()]]


def _random_vocabulary(rng, alphabet: list[bytes], long: bool = True) -> Ranks:
    """The 256 bytes and a few tokens of 2 to 12 letters of ``alphabet``, in a random rank order."""
    tokens = set()
    for _ in range(rng.randint(1, 8)):
        n = rng.choice([2, 2, 2, 3, 3, 4] + ([5, 6, 8, 12] if long else []))
        tokens.add(b"".join(rng.choice(alphabet) for _ in range(n)))
    order = list(tokens)
    rng.shuffle(order)
    return Ranks({t: 256 + k for k, t in enumerate(order)})


def _piece(rng, ranks: Ranks, alphabet: list[bytes], max_len: int) -> bytes:
    """A piece that mixes whole tokens of ``ranks`` with single letters, at most ``max_len`` bytes."""
    tokens = [t for t in ranks if len(t) > 1]
    out, target = b"", rng.randint(0, max_len)
    while len(out) < target:
        out += rng.choice(tokens) if tokens and rng.random() < 0.5 else rng.choice(alphabet)
    return out[:max_len]


def _shrink_piece(args):
    """Smaller inputs: a shorter piece, or (for a small vocabulary) one token fewer; the rest stays."""
    piece, ranks, *rest = args
    n = len(piece)
    for smaller in ([piece[n // 2:], piece[:n // 2]] if n >= 2 else []) + [piece[:i] + piece[i + 1:] for i in range(n)]:
        yield (smaller, ranks, *rest)
    if not ranks.name:
        for t in [t for t in ranks if len(t) > 1]:
            yield (piece, Ranks({u: r for u, r in ranks.items() if len(u) > 1 and u != t}), *rest)


# ---- ex-opt-shortest ----------------------------------------------------------------

class _Spelling(list):
    """The package's answer, with the piece and vocabulary it answers, for ``_spells``."""

    def __init__(self, parts, piece, ranks):
        super().__init__(parts)
        self.piece, self.ranks = piece, ranks


def _fewest(piece, ranks):
    return _Spelling(optimal.shortest_encoding(piece, ranks), piece, ranks)


def _spells(want, got) -> bool:
    """``got`` is a list of tokens of the vocabulary that spells the piece in as few as ``want``."""
    return (all(isinstance(t, bytes) for t in got) and b"".join(got) == want.piece
            and all(t in want.ranks for t in got) and len(got) == len(want))


def _shortest_hint(args, want, got):
    if not isinstance(got, list):
        return None
    if not all(isinstance(t, bytes) for t in got):
        return "return the tokens' bytes (b'ab'), not their ranks or str"
    if b"".join(got) != want.piece:
        return "the tokens must join back to the piece"
    bad = next((t for t in got if t not in want.ranks), None)
    if bad is not None:
        return f"{bad!r} is not a token of the vocabulary"
    longest = max(map(len, want), default=0)
    if longest > 4:
        return f"the fewest uses a token of {longest} bytes: look back as far as the longest token"
    return "rank order and longest-first are not the fewest: take the best over every cut"


def _runs() -> Ranks:
    return Ranks({b"a" * k: 254 + k for k in range(2, 7)})  # a, aa, ..., aaaaaa


def _shortest_cases():
    runs = _runs()
    yield from [
        (b"abcd", Ranks({b"bc": 256, b"ab": 257, b"cd": 258})),  # rank encoding: a bc d
        (b"abcd", Ranks({b"ab": 256, b"bcd": 257})),  # longest match first: ab c d
        (b"abcdefgh", Ranks({b"abcdefgh": 256, b"ab": 257})),  # one token longer than 4 (and than 7) bytes
        (b"xyz", Ranks()), (b"", Ranks()), (b"a", runs), (b"aaaaaaa", runs),
    ]
    gpt4 = _gpt4_ranks()
    long = next(t for t in sorted(gpt4, key=len, reverse=True) if t.isascii() and t.strip())  # dozens of bytes
    for text in [" imagnumber", "floordiv", " Straßenbahnhaltestelle", "(metaclass", " прыгает"]:
        yield text.encode("utf-8"), gpt4
    yield long + b"x", gpt4


def _shortest_case(rng):
    if rng.random() < 1 / 21:  # a long run over many short tokens: a recursion without a memo never ends
        return b"a" * rng.randint(50, 70), _runs()
    alphabet = rng.choice(ALPHABETS)
    ranks = _random_vocabulary(rng, alphabet)
    return _piece(rng, ranks, alphabet, rng.choice([6, 12, 24, 40])), ranks


@check("ex-opt-shortest")
def check_shortest(shortest):
    """``shortest(piece, ranks)`` -> the fewest tokens that spell ``piece``, as a list of bytes.

    >>> check_shortest(optimal.shortest_encoding)   # the package's own passes
    """
    compare(shortest, _fewest, _shortest_cases(), generate=_shortest_case, kind=list, equal=_spells,
            hint=_shortest_hint, shrink=_shrink_piece)


# ---- ex-opt-brute -------------------------------------------------------------------

# texts where no optimal list of k merges starts with one of the 3 (the first 6) or the 2 most
# frequent pairs (the rest): a search that tries only the top pairs misses the optimum (found
# by trying every string over abc of 8 to 10 letters, k = 2 and 3; under 1% of them are so)
PRUNING_TRAPS = [(b"aabbbabaaa", 2), (b"aabaaacaac", 3), (b"aabaacaaab", 3), (b"aabbaaaaab", 3),
                 (b"aabcaaaaab", 3), (b"aabcaaabaa", 3), (b"aababaaa", 2), (b"aabbabaaa", 2),
                 (b"aababaaac", 3), (b"aaaabaaaba", 2), (b"aaabbbcbbc", 2), (b"aabaaaaaba", 2),
                 (b"aababaaacb", 2), (b"aababbbaaa", 2), (b"aabbcbcbbb", 2), (b"abaacacaaa", 2)]
# texts where joining a pair's occurrences from the right ("aaa" -> a aa) leaves fewer symbols
# than the left-to-right rule can (none shorter than 9 letters over abc)
ORDER_TRAPS = [(b"aaaaabaab", 2), (b"aaaabaaab", 2), (b"aaabaaaab", 2), (b"aabaaaaab", 2),
               (b"abbabbbbb", 2), (b"aaaaabaab", 3), (b"aabaaaaab", 3), (b"abbbbbabb", 3)]


def _brute_cases():
    yield from [(b"abcabdbca", 2), (b"aaabaab", 2), (b"abcabc", 2), (b"aaaa", 1), (b"aaaa", 2),
                (b"xyz", 0), (b"ab", 3), (b"", 2), (b"a", 1), (b"abab", 2), (b"aaab", 1)]


def _brute_case(rng):
    if rng.random() < 0.16:  # a trap with its letters renamed (the optimum and the ties stay)
        text, k = rng.choice(PRUNING_TRAPS + ORDER_TRAPS)
        names = dict(zip(b"abc", rng.sample(b"abcd", 3)))
        return bytes(names[c] for c in text), k
    alphabet = rng.choice([b"ab", b"abc", b"abc", b"abcd"])
    n, k = rng.randint(0, 10), rng.choice([1, 2, 2, 3, 3])
    if rng.random() < 0.1:
        n, k = rng.randint(0, 6), rng.choice([0, 4])
    text = b""
    r = rng.random()
    while len(text) < n:
        if r < 0.3:  # runs of a between single other letters: aababaaa
            text += b"a" * rng.randint(1, 3) + bytes([rng.choice(alphabet[1:])]) * rng.choice([1, 1, 2])
        else:  # runs and repeats make ties and overlapping counts
            text += bytes([rng.choice(alphabet)]) * (rng.randint(2, 4) if rng.random() < 0.3 else 1)
    if rng.random() < 0.2 and text:
        text = (text[:3] * 4)[:n]  # a repeated motif: abcabc...
    return text[:n], k


def _brute_hint(args, want, got):
    text, k = args
    if isinstance(got, int) and got < want:
        return "fewer than any k merges can reach: a merge joins every occurrence, left to right"
    if isinstance(got, int) and got > want:
        return "try every pair at every step, including pairs of merged tokens"
    return None


@check("ex-opt-brute")
def check_brute(fewest_after_merges):
    """``fewest_after_merges(text, k)`` -> the fewest symbols any k merges leave ``text`` in."""
    compare(fewest_after_merges, lambda text, k: optimal.optimal_merges(text, k)[0], _brute_cases(), generate=_brute_case,
            kind=int, equal=lambda want, got: not isinstance(got, bool) and got == want, hint=_brute_hint)


# ---- ex-opt-dropout -----------------------------------------------------------------

def _same_distribution(want, got) -> bool:
    got = {tuple(k): v for k, v in got.items() if v > 1e-12}
    return set(got) == set(want) and all(abs(got[parts] - q) < 1e-9 for parts, q in want.items())


def _dropout_hint(args, want, got):
    if not isinstance(got, dict):
        return None

    def cut(parts):  # (b'a', b'bc') -> 'a|bc'
        return "|".join(t.decode("utf-8", "replace") for t in parts) or "()"

    mine = {tuple(k): v for k, v in got.items() if isinstance(v, (int, float)) and v > 1e-12}
    extra = sorted(set(mine) - set(want))
    if extra:
        return f"{cut(extra[0])} cannot occur"
    missing = sorted(set(want) - set(mine))
    if missing:
        return f"{cut(missing[0])} can occur, with P {want[missing[0]]:.4f}"
    parts = next(p for p, q in sorted(want.items()) if abs(mine[p] - q) >= 1e-9)
    return f"P({cut(parts)}) is {want[parts]:.6f}, yours {mine[parts]:.6f}"


def _dropout_cases():
    yield from [(b"abc", Ranks({b"bc": 256, b"ab": 257}), 0.5),  # rank decides, not position
                (b"abab", Ranks({b"ab": 256}), 0.3),  # a merge dropped at one step can return at the next
                (b"abc", Ranks({b"ab": 256, b"bc": 257, b"abc": 258}), 0.0),
                (b"abc", Ranks({b"ab": 256, b"bc": 257, b"abc": 258}), 1.0),
                (b"", Ranks(), 0.5), (b"a", Ranks(), 0.1), (b"aaaa", Ranks({b"aa": 256, b"aaaa": 257}), 0.5),
                (b" unbel", _gpt4_ranks(), 0.1)]


def _dropout_case(rng):
    alphabet = rng.choice(ALPHABETS[:2] + ALPHABETS[:1])
    ranks = _random_vocabulary(rng, alphabet, long=False)
    p = rng.choice([0.0, 0.1, 0.25, 0.5, 0.5, 0.75, 1.0])
    return _piece(rng, ranks, alphabet, rng.choice([3, 5, 7])), ranks, p


def _show_dropout(args):
    piece, ranks, p = args
    return f"{piece!r}, {ranks!r}, {p}"


@check("ex-opt-dropout")
def check_dropout(dropout_distribution):
    """``dropout_distribution(piece, ranks, p)`` -> {segmentation (tuple of bytes): probability}."""
    compare(dropout_distribution, optimal.segmentation_probabilities, _dropout_cases(), generate=_dropout_case,
            kind=dict, equal=_same_distribution, hint=_dropout_hint, shrink=_shrink_piece, show=_show_dropout)
