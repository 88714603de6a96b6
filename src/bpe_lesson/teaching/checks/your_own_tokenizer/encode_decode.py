"""Checks of "Your own tokenizer"'s rank encoder (``ex-own-rank``) and decoder
(``ex-own-decode``).

The references: ``ranks.bpe_encode_chunk`` for rank encoding; tiktoken's ``decode_bytes``
and ``decode`` for decoding. Hand-picked cases first, then generated ones (seeded by the
label).

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import functools

import tiktoken

from ....ranks import bpe_encode_chunk
from .. import Table, _gen, _reference, check, compare
from .._calls import _shown, _smaller
from ._common import BYTES

__all__ = ["check_rank", "check_decode"]


# ---- ex-own-rank: tiktoken's rank encoding of one chunk ----------------------------------------

def _shuffled_bytes(rng) -> dict[bytes, int]:
    """The 256 single bytes at ranks 0-255, in a shuffled order (as in GPT-4's file, where b'!' is 0)."""
    order = list(range(256))
    rng.shuffle(order)
    return {bytes([b]): r for r, b in enumerate(order)}


def _rank_table(rng) -> dict[bytes, int]:
    """All 256 bytes and a few longer tokens over a small alphabet; some only reachable whole."""
    ranks = dict(BYTES) if rng.random() < 0.6 else _shuffled_bytes(rng)
    alphabet = rng.choice([b"ab", b"abc", b"a b", "é中".encode()])
    parts = [alphabet[i:i + 1] for i in range(len(alphabet))]
    for _ in range(rng.randint(0, 8)):
        if rng.random() < 0.75:  # a join of two tokens we have: how trainers make them
            token = rng.choice(parts) + rng.choice(parts)
        else:  # any short string: it may be reachable only as a whole chunk (tiktoken's shortcut)
            token = bytes(rng.choice(alphabet) for _ in range(rng.randint(2, 5)))
        if token not in ranks:
            ranks[token] = len(ranks)
            parts.append(token)
    return ranks


def _rank_cases():
    table = dict(BYTES) | {b"ab": 256, b"bc": 257, b"abc": 258}
    yield from [(b"abcd", table), (b"", table), (b"a", table), (b"aaa", dict(BYTES) | {b"aa": 256}),
                (b"abcd", dict(BYTES) | {b"abcd": 256}), (b"abc", dict(BYTES) | {b"bc": 256, b"ab": 257})]
    gpt4 = Table(_reference.ranks("cl100k_base"), "GPT-4's ranks")
    for chunk in [" tokenizer", " Straße", "中文", "😀", "    ", "1234", " encyclopedia"]:
        yield (chunk.encode(), gpt4)


def _rank_case(rng):
    ranks = _rank_table(rng)
    alphabet = [t for t in ranks if len(t) > 1] + [b"a", b"b", b"c", b" "]
    chunk = b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
    if rng.random() < 0.1:
        chunk = bytes([rng.choice(b"ab")]) * rng.randint(2, 40)  # runs: the leftmost pair first
    return chunk, ranks


def _show_table(args):
    chunk, ranks = args
    if len(ranks) > 1000:
        return f"{chunk!r}, GPT-4's ranks"
    longer = {t: r for t, r in ranks.items() if len(t) > 1}
    order = "" if all(ranks[bytes([b])] == b for b in range(256)) else "shuffled bytes + "
    return f"{_shown(chunk, 30)}, {order}{_shown(longer, 60)}"


def _rank_shrink(args):
    chunk, ranks = args
    for s in _smaller(chunk):
        yield s, ranks
    if len(ranks) < 1000:
        for t in [t for t in ranks if len(t) > 1]:
            yield chunk, {k: v for k, v in ranks.items() if k != t}


@check("ex-own-rank")
def check_rank(rank_encode):
    compare(rank_encode, bpe_encode_chunk, _rank_cases(), generate=_rank_case, kind=list, shrink=_rank_shrink,
            show=_show_table,
            hint=lambda args, want, got: "join the adjacent pair of lowest rank, the leftmost on a tie; "
            "a chunk that is a token is that token; a byte's id is its rank, not its value")


# ---- ex-own-decode: ids -> bytes, and ids -> text with errors="replace" (tiktoken's decode) ----

def _decode_vocab(rng, specials: bool = True) -> dict[int, bytes]:
    """id -> bytes: the shuffled single bytes, tokens that cut characters in two, and special tokens."""
    ranks = _shuffled_bytes(rng) if rng.random() < 0.7 else dict(BYTES)
    for token in ["中".encode()[:2], "中".encode()[2:], "😀".encode()[:3], "é".encode(), b" the", "ß".encode()[:1]]:
        ranks.setdefault(token, len(ranks))
    vocab = {r: t for t, r in ranks.items()}
    if specials:
        vocab[len(vocab)] = b"<|endoftext|>"
    return vocab


@functools.lru_cache(maxsize=8)
def _decode_encoding(items: tuple) -> tiktoken.Encoding:
    vocab = dict(items)
    ranks = {t: i for i, t in vocab.items() if not t.startswith(b"<|")}
    specials = {t.decode(): i for i, t in vocab.items() if t.startswith(b"<|")}
    return tiktoken.Encoding(name="decode", pat_str=r"[\s\S]", mergeable_ranks=ranks, special_tokens=specials)


@functools.lru_cache(maxsize=1)
def _decode_vocabs():
    """Four vocabularies (each prints by its name), and each one's bytes -> id."""
    rng = _gen.rng_for("ex-own-decode", 1)
    vocabs = [Table(_decode_vocab(rng), f"vocab{k}") for k in range(4)]
    return vocabs, [{t: i for i, t in v.items()} for v in vocabs]


def _decode_cases():
    vocabs, by_bytes = _decode_vocabs()
    yield from [([], vocabs[0]), ([by_bytes[0][b"a"]], vocabs[0]), ([by_bytes[0]["中".encode()[:2]]], vocabs[0]),
                ([by_bytes[0]["中".encode()[:2]], by_bytes[0]["中".encode()[2:]]], vocabs[0]),
                ([by_bytes[1][b"<|endoftext|>"]], vocabs[1]),
                ([by_bytes[2][b"\xff"], by_bytes[2][b"a"]], vocabs[2])]


def _decode_case(rng):
    vocabs, by_bytes = _decode_vocabs()
    k = rng.randrange(len(vocabs))
    vocab, inverse = vocabs[k], by_bytes[k]
    if rng.random() < 0.5:  # the bytes of real text, some characters cut between tokens
        data = _gen.utf8(rng, 6)
        return [inverse[data[i:i + 1]] for i in range(len(data))], vocab
    # any ids at all: bytes that are no UTF-8, halves of characters, the special token
    return [rng.choice(list(vocab)) for _ in range(rng.randint(0, 6))], vocab


def _decode_show(args):
    ids, vocab = args
    return f"{_shown(ids, 30)} (= {_shown(b' + '.join(vocab[i] for i in ids if i in vocab), 40)[2:-1]})"


def _tiktoken_decode_bytes(ids, vocab):
    """tiktoken's ``decode_bytes`` on ``vocab`` (id -> bytes).

    >>> _tiktoken_decode_bytes([1, 0, 1], {0: b"a", 1: b"\\xc3"})
    b'\\xc3a\\xc3'
    """
    return _decode_encoding(tuple(sorted(vocab.items()))).decode_bytes(ids)


def _tiktoken_decode(ids, vocab):
    """tiktoken's ``decode`` (``errors="replace"``) on ``vocab``.

    >>> _tiktoken_decode([1, 0], {0: b"a", 1: b"\\xc3"}) == "\\ufffda"
    True
    """
    return _decode_encoding(tuple(sorted(vocab.items()))).decode(ids)


def _decode_hint(args, want, got):
    if isinstance(got, str) and "\ufffd" in got and got != want:
        return "join all the bytes first, then decode them once: a token may end inside a character"
    if isinstance(got, str) and len(got) < len(want):
        return "errors='replace': each invalid byte sequence becomes U+FFFD, nothing is dropped"
    return None


@check("ex-own-decode")
def check_decode(decode_bytes, decode):
    shrink = lambda args: ((s, args[1]) for s in _smaller(args[0]))  # noqa: E731  (the ids shrink, not the vocabulary)
    compare(decode_bytes, _tiktoken_decode_bytes, _decode_cases(), generate=_decode_case, kind=bytes, shrink=shrink,
            show=_decode_show)
    compare(decode, _tiktoken_decode, _decode_cases(), generate=_decode_case, kind=str, shrink=shrink,
            show=_decode_show,
            hint=_decode_hint)
