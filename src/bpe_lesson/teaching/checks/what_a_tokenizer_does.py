"""Checks of the exercises in "What a tokenizer does": UTF-8 by hand, decode, the fewest tokens.

Each check is differential (``compare``): the reader's function and a reference on
hand-picked cases, then generated ones aimed at where wrong answers differ.

* ``ex-tokenizer-utf8``: against Python's own encoder, at and around every boundary
  of the UTF-8 table (one code point either side) and on code points of each length.
* ``ex-tokenizer-decode``: against ``Tokenizer.decode`` over small vocabularies whose
  tokens cut characters in two, on ids that end inside a character and on bytes that
  are no UTF-8 at all (each kind of bad sequence that ``errors="replace"`` treats
  differently: a lone continuation byte, a cut-off lead, an overlong form, a surrogate).
* ``ex-tokenizer-fewest``: against ``fewest`` below (a dynamic programme anchored by an
  exhaustive search), on bytes that are often not ASCII or not UTF-8, with tokens that
  cut characters and tokens longer than any fixed look-back (5 to 40 bytes).

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import itertools

from ... import textbook
from ...ranks import vocab_from_merges
from ...tokenizer import Tokenizer
from .. import samples
from . import _gen, check, compare, shorter

__all__ = ["EDGES", "SURROGATES", "LENGTHS", "BAD", "SINGLE", "fewest",
           "fewest_by_search"]

# the first and last code point of each UTF-8 length, and the surrogate gap's edges
EDGES = [0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF]
SURROGATES = range(0xD800, 0xE000)  # no UTF-8 for these: never a case


def _scalar(cp: int) -> bool:
    return 0 <= cp <= 0x10FFFF and cp not in SURROGATES


def _utf8_cases():
    """Every edge and up to 3 either side, the samples' characters (generated: code points of every length)."""
    yield from ((cp,) for cp in sorted({e + d for e in EDGES for d in range(-3, 4)}) if _scalar(cp))
    yield from ((ord(ch),) for ch in sorted(set("".join(samples.MULTILINGUAL.values())))[::7])


LENGTHS = [(0, 0x7F), (0x80, 0x7FF), (0x800, 0xD7FF), (0xE000, 0xFFFF), (0x10000, 0x10FFFF)]  # 1, 2, 3, 3, 4 bytes


def _code_point(rng):
    lo, hi = rng.choice(LENGTHS)
    return (rng.randint(lo, hi),)


def _utf8_hint(args, want, got):
    cp = args[0]
    if not isinstance(got, (bytes, bytearray)):
        return None
    if len(got) != len(want):
        return f"U+{cp:04X} takes {len(want)} bytes: check the boundaries of the table"
    return "lead byte (k ones, a zero), then 10xxxxxx bytes, high bits first"


@check("ex-tokenizer-utf8")
def _utf8(utf8):
    compare(utf8, lambda cp: chr(cp).encode("utf-8"), _utf8_cases(), generate=_code_point,
            kind=(bytes, bytearray), equal=lambda want, got: bytes(got) == want,
            show=lambda args: f"{args[0]:#x}", hint=_utf8_hint)


# bytes that are not UTF-8, each a case that errors="replace" handles its own way
BAD = [[0xFF], [0x80], [0xBF, 0x80], [0xC3], [0xE4, 0xB8], [0xF0, 0x9F, 0x91], [0xC0, 0xAF],
       [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE0, 0x80, 0x80], [0xC3, 0x28]]


def _vocab_and_ids(rng, text: str):
    """A vocabulary grown by merging random neighbours of ``text``'s bytes (so tokens cut
    characters), and ids over it: the whole text, a slice of it, or either with bad bytes."""
    ids = list(text.encode("utf-8"))
    vocab = vocab_from_merges()
    known = set(vocab.values())
    for new_id in range(256, 256 + rng.randint(0, 8)):
        pairs = [p for p in zip(ids, ids[1:]) if vocab[p[0]] + vocab[p[1]] not in known]
        if not pairs:
            break
        pair = rng.choice(pairs)
        vocab[new_id] = vocab[pair[0]] + vocab[pair[1]]
        known.add(vocab[new_id])
        ids = textbook.merge(ids, pair, new_id)
    r = rng.random()
    if r < 0.3 and ids:  # a slice: it may start or end inside a character
        a = rng.randrange(len(ids))
        ids = ids[a:rng.randint(a, len(ids))]
    elif r < 0.6:  # bad bytes somewhere
        for _ in range(rng.randint(1, 2)):
            at = rng.randint(0, len(ids))
            ids = ids[:at] + rng.choice(BAD) + ids[at:]
    elif r < 0.7:  # any ids of the vocabulary, in any order
        ids = [rng.choice(list(vocab)) for _ in range(rng.randint(0, 6))]
    return ids, vocab


def _decode_cases():
    plain = vocab_from_merges()  # the 256 byte tokens
    emoji = vocab_from_merges([((240, 159), 256), ((256, 145), 257), ((195, 169), 258)])
    yield from [([], plain), (list("café 👋".encode()), plain), ([99, 97, 102, 258, 32, 257, 139], emoji),
                ([257], emoji), ([257, 139, 257], emoji), ([256], emoji), ([99, 195], plain),
                ([0xFF, 97], plain), ([0xED, 0xA0, 0x80], plain), ([0xC0, 0xAF, 98], plain)]
    for name, text in samples.MULTILINGUAL.items():
        yield (list(text[:12].encode("utf-8")), plain)


def _decode_case(rng):
    text = _gen.utf8(rng, 10).decode("utf-8") if rng.random() < 0.5 else _gen.text(rng, 16, long=0.02)
    return _vocab_and_ids(rng, text)


def _decode_show(args):
    ids, vocab = args
    return f"{_shown(ids)}, vocab with {_shown([vocab.get(i) for i in ids])}"


def _shown(value, width=44):
    r = repr(value)
    return r if len(r) <= width else r[:width - 4] + " ..."


def _decode_shrink(args):
    ids, vocab = args
    for smaller in shorter(ids):
        yield smaller, vocab


def _decode_hint(args, want, got):
    ids, vocab = args
    if not isinstance(got, str):
        return None
    if got == "".join(vocab[i].decode("utf-8", errors="replace") for i in ids):
        return "join all the tokens' bytes first: a character may span tokens"
    if "\ufffd" in want and "\ufffd" not in got:
        return "bytes that are not UTF-8 become U+FFFD: errors=\"replace\""
    if got.count("\ufffd") > want.count("\ufffd"):
        return "one U+FFFD for each bad sequence, as bytes.decode(errors=\"replace\")"
    return None


@check("ex-tokenizer-decode")
def _decode(decode):
    compare(decode, lambda ids, vocab: Tokenizer(None, vocab=vocab).decode(ids),
            _decode_cases(), generate=_decode_case, order=lambda ids, vocab: len(ids), kind=str, show=_decode_show,
            shrink=_decode_shrink, hint=_decode_hint)


SINGLE = frozenset(bytes([i]) for i in range(256))


def fewest(data: bytes, tokens) -> int:
    """The fewest tokens of ``tokens`` (which holds every single byte) that spell ``data``.

    best[k] is the answer for data[:k]: one token more than the best answer for the
    prefix before some token that ends at k.

    >>> fewest(b"abcdef", SINGLE | {b"abc", b"ab", b"cdef"})   # ab + cdef
    2
    >>> fewest(b"", SINGLE), fewest("é".encode(), SINGLE)
    (0, 2)
    """
    lengths = sorted({len(t) for t in tokens})
    best = [0] + [len(data)] * len(data)  # no answer exceeds one token per byte
    for k in range(1, len(data) + 1):
        best[k] = min(best[k - m] + 1 for m in lengths if m <= k and data[k - m:k] in tokens)
    return best[len(data)]


def fewest_by_search(data: bytes, tokens) -> int:
    """The fewest tokens that spell ``data``, by trying every way to cut it (short inputs only).

    >>> fewest_by_search(b"abcdef", SINGLE | {b"abc", b"ab", b"cdef"})
    2
    """
    n = len(data)
    for k in range(1, n + 1):
        for cuts in itertools.combinations(range(1, n), k - 1):
            bounds = (0, *cuts, n)
            if all(data[a:b] in tokens for a, b in zip(bounds, bounds[1:])):
                return k
    return 0


def _substrings(rng, data: bytes, n: int, lo: int, hi: int) -> set:
    """``n`` random pieces of ``data`` of ``lo`` to ``hi`` bytes (they cut characters anywhere)."""
    out = set()
    for _ in range(n):
        if len(data) < lo:
            break
        m = rng.randint(lo, min(hi, len(data)))
        a = rng.randint(0, len(data) - m)
        out.add(data[a:a + m])
    return out


def _fewest_cases():
    """Hand-picked traps, then generated bytes and tokens; each case is (data, tokens)."""
    singles = set(SINGLE)
    hand = [(b"abcdef", {b"abc", b"ab", b"cdef"}), (b"", set()), (b"xyz", set()),
            (b"a" * 40, {b"aa", b"aaa", b"aaaa"}),  # many ways to cut: a search without a memo never ends
            (b"abcdefgh", {b"abcdefgh", b"abcd"}), (b"xabcdefghij", {b"xa", b"bcdefghij", b"xabc"}),
            ("é".encode(), set()), ("aé".encode(), {"aé".encode()[:2]}),
            ("👋👋".encode(), {"👋👋".encode()[2:6]}), (b"\xff\xfe\x80", {b"\xfe\x80"})]
    for data, extra in hand:
        yield data, singles | extra


def _fewest_case(rng):
    """(data, tokens): one of four kinds, each a trap of its own."""
    kind = rng.randrange(4)
    if kind == 0:  # letters: the greedy trap (ab + cdef beats abc + d + e + f)
        data = bytes(rng.choice(b"abc") for _ in range(rng.randint(0, 14)))
        extra = {bytes(rng.choice(b"abc") for _ in range(rng.randint(2, 6))) for _ in range(6)}
    elif kind == 1:  # UTF-8 text: tokens cut characters, bytes are not characters
        data = _gen.utf8(rng, 8)
        extra = _substrings(rng, data, 5, 2, 9)
    elif kind == 2:  # tokens longer than any look-back of 4 or 8 bytes a reader might fix
        data = _gen.text(rng, 30, long=0).encode("utf-8")
        extra = _substrings(rng, data, 4, 5, 16) | _substrings(rng, data, 2, 2, 3)
    else:  # raw bytes, often not UTF-8 at all; now and then a long text and a 20-40 byte token
        if rng.random() < 0.15:
            piece = bytes(rng.randrange(256) for _ in range(rng.randint(20, 40)))
            data = piece * rng.randint(2, 5) + bytes(rng.randrange(256) for _ in range(3))
            extra = {piece, piece[1:], piece[:-3]}
        else:
            data = bytes(rng.choice(b"ab\x80\xc3\xe4\xff") for _ in range(rng.randint(0, 12)))
            extra = _substrings(rng, data, 4, 2, 6)
    return data, set(SINGLE) | extra


def _fewest_show(args):
    data, tokens = args
    extra = sorted((t for t in tokens - SINGLE if t in data), key=lambda t: (len(t), t))
    return f"{_shown(data)}, the bytes + {_shown(extra, 60)}"


def _fewest_shrink(args):
    data, tokens = args
    for smaller in shorter(data):
        yield smaller, tokens
    for t in sorted(tokens - SINGLE, key=lambda t: (len(t), t)):
        yield data, tokens - {t}


def _fewest_hint(args, want, got):
    data, tokens = args
    if not isinstance(got, int):
        return None
    if got < want and any(b >= 0x80 for b in data):
        return "count bytes, not characters: a token may cut a character in two"
    if got > want and got == _longest_first(data, tokens):
        return "longest token first is not always best: try every token ending here"
    if got > want:
        return "try every token that can end here, up to the longest one"
    return None


def _longest_first(data: bytes, tokens) -> int:
    """How many tokens taking the longest token that fits, from the left, spends."""
    n, i = 0, 0
    while i < len(data):
        i = max(j for j in range(i + 1, len(data) + 1) if data[i:j] in tokens)
        n += 1
    return n


@check("ex-tokenizer-fewest")
def _fewest(fewest_tokens):
    compare(fewest_tokens, fewest, _fewest_cases(), generate=_fewest_case,
            order=lambda data, tokens: (len(data), len(tokens)), kind=int,  # short inputs first
            show=_fewest_show, shrink=_fewest_shrink, hint=_fewest_hint)
