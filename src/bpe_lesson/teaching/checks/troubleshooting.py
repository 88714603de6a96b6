"""Checks of the exercises in *Troubleshooting*: the same ids?, the first id where two
tokenizers part, and the padding that makes the last window reach the end.

Each check compares the reader's function with a reference written here, small and
obviously right, on hand-picked cases and on at least 200 generated ones. The
tokenizer exercises draw their tokenizers from one pool built from one trained
vocabulary (``pool()``): a renamed copy (same ids), the same merges with one more
set of merges, another id for the special token, one token more that no merge makes
(the same ids on every text: only comparing the vocabularies both ways tells them
apart), no split pattern, GPT-2's split
pattern (other ids on digits and spaces only), no special token, one special token
more, one token's bytes replaced by bytes no text holds, the 256 bytes alone, a
vocabulary where the id of ``b`` spells ``bc`` (so one list of ids can be the other's
beginning), and one merge that joins the last two bytes of 中 (so two tokenizers can
part inside a character). The padding is checked against ``lm.windows.window_count``, by search.

What this module does not do: read the reader's files (the chapter does).

>>> first_disagreement(Tokenizer([]), Tokenizer([]), "same")   # no disagreement
>>> pad_length(103, 16, 16)   # the chapter's stream: 10 EOS make a seventh window
10
"""

from __future__ import annotations

import functools

from ...lm.windows import window_count
from ...tokenizer import Tokenizer
from ...trainer import train
from ..samples import prose_topics
from . import _gen, check, compare

__all__ = ["EOT", "PAD", "pool", "same_ids", "check_same_ids", "first_disagreement",
           "check_first_disagreement", "pad_length", "check_pad_length"]

EOT = "<|endoftext|>"
PAD = "<|pad|>"


@functools.lru_cache(maxsize=1)
def pool() -> tuple[tuple[str, Tokenizer], ...]:
    """(name, tokenizer) pairs the tokenizer exercises are graded on (built once: 0.1 s, 0.5 s in pure Python)."""
    texts = list(prose_topics().values())[:5]
    more = train(texts, 256 + 170 + 1, special_tokens=[EOT])  # 170 merges; `tok` has its first 150
    merges = more.merges[:150]
    tok = Tokenizer(merges, pattern="gpt4", special_tokens={EOT: 406})
    vocab = dict(tok.vocab)
    vocab[max(vocab)] = b"\x00\x01\x02zzz"  # bytes no generated text holds
    extra = dict(tok.vocab) | {407: b"\x00\x01\x02zzz"}  # one id more, bytes no generated text holds
    odd = {i: bytes([i]) for i in range(256)} | {98: b"bc", 256: b"b"}  # id 98 spells "bc" here
    return (
        ("tok", tok),
        ("renamed", Tokenizer(merges, pattern="gpt4", special_tokens={EOT: 406}, name="renamed")),
        ("more_merges", Tokenizer(more.merges, pattern="gpt4", special_tokens={EOT: 426})),
        ("other_eot", Tokenizer(merges, pattern="gpt4", special_tokens={EOT: 410})),
        ("no_split", Tokenizer(merges, pattern=None, special_tokens={EOT: 406})),
        ("gpt2_split", Tokenizer(merges, pattern="gpt2", special_tokens={EOT: 406})),
        ("no_special", Tokenizer(merges, pattern="gpt4")),
        ("extra_special", Tokenizer(merges, pattern="gpt4", special_tokens={EOT: 406, PAD: 407})),
        ("other_token", Tokenizer(None, pattern="gpt4", special_tokens={EOT: 406}, vocab=vocab)),
        ("extra_token", Tokenizer(None, pattern="gpt4", special_tokens={EOT: 406}, vocab=extra)),
        ("bytes", Tokenizer([], pattern="gpt4", special_tokens={EOT: 256})),
        ("odd", Tokenizer(None, pattern="gpt4", special_tokens={EOT: 257}, vocab=odd)),
        ("half_char", Tokenizer([((0xB8, 0xAD), 256)], pattern="gpt4", special_tokens={EOT: 257})),  # 中: e4 | b8 ad
    )


# text that tells the pool's tokenizers apart: digits (GPT-2 keeps runs whole), runs of
# spaces, contractions, the special tokens, words the extra merges make, "abc" for `odd`
_PIECES = ["12345", "2024", "   ", "  \n", " don't", "'s", EOT, EOT + EOT, PAD, "abc", "bc",
           " the", " function", " return", "中文", "é"]


def _probe(rng) -> str:
    """One short text: generated text with some of ``_PIECES`` at the start, end or inside."""
    parts = [_gen.text(rng, 16, long=0.02)]
    for _ in range(rng.randint(0, 3)):
        piece = rng.choice(_PIECES)
        parts.insert(rng.randint(0, len(parts)), piece)
    return "".join(parts)


def _encode(tok: Tokenizer, text: str) -> list[int]:
    return tok.encode(text, allowed_special="all")


def _on_pool(fn):
    """``fn`` called with the pool's tokenizers in place of their indices (cases stay small)."""
    tokenizers = [t for _, t in pool()]

    def with_tokenizers(i, j, *rest):
        return fn(tokenizers[i], tokenizers[j], *rest)

    with_tokenizers.__name__ = getattr(fn, "__name__", "the solution")
    return with_tokenizers


def _show(args) -> str:
    names = [n for n, _ in pool()]
    i, j, *rest = args
    return ", ".join([names[i], names[j]] + [repr(r) if len(repr(r)) < 60 else repr(r)[:56] + " ..."
                                              for r in rest])


def _pair(rng):
    """An index pair into the pool: mostly ``tok`` against another, both ways, and now and then two others."""
    n = len(pool())
    other = rng.randrange(n)
    if rng.random() < 0.15:
        return rng.randrange(n), other
    return (0, other) if rng.random() < 0.7 else (other, 0)


# ---------------------------------------------------------------- ex-trouble-fingerprint

def same_ids(tok_a, tok_b, texts) -> bool:
    """The same vocabulary (every id the same bytes), the same special tokens, the same ids on ``texts``."""
    return (tok_a.vocab == tok_b.vocab and tok_a.special_tokens == tok_b.special_tokens
            and all(_encode(tok_a, t) == _encode(tok_b, t) for t in texts))


def _fingerprint_cases():
    names = [n for n, _ in pool()]
    at = names.index
    probes = ["hello " + EOT + " world", "The return statement", "12345 apples", ""]
    yield from [(0, at("renamed"), probes), (0, at("more_merges"), probes), (0, at("other_eot"), probes),
                (0, at("no_split"), probes), (0, at("gpt2_split"), ["a b", "12345"]),
                (0, at("other_token"), probes), (0, at("extra_special"), probes), (0, at("no_special"), []),
                # one id more on one side only, the same ids on every text: compare both ways
                (0, at("extra_token"), probes), (at("extra_token"), 0, probes), (0, at("extra_token"), []),
                (0, 0, []), (0, at("no_split"), [])]


def _fingerprint_case(rng):
    return *_pair(rng), [_probe(rng) for _ in range(rng.randint(0, 4))]


def _fingerprint_hint(args, want, got):
    if not isinstance(got, bool):
        return None
    tokenizers = [t for _, t in pool()]
    a, b = tokenizers[args[0]], tokenizers[args[1]]
    if want:
        return "the same vocabulary, special tokens and ids: True (for no texts too)"
    if a.vocab != b.vocab:
        return "the vocabularies differ: an id decodes to other bytes, or is missing"
    if a.special_tokens != b.special_tokens:
        return "the special tokens differ (their strings or their ids)"
    return "the same vocabulary, but a text gets other ids (another split pattern?)"


@check("ex-trouble-fingerprint")
def check_same_ids(reader_same_ids):
    compare(_on_pool(reader_same_ids), _on_pool(same_ids), _fingerprint_cases(), generate=_fingerprint_case,
            kind=bool, show=_show, hint=_fingerprint_hint)


# ---------------------------------------------------------------- ex-trouble-first-id

def first_disagreement(tok_a, tok_b, text):
    """None when both give ``text`` the same ids; else (k, offset): the first position where
    the ids differ (the shorter list's length when one list begins the other) and the byte
    of ``text`` where ``tok_a``'s k-th token starts.

    >>> a = Tokenizer([((104, 105), 256)])          # "hi" is one token
    >>> first_disagreement(a, Tokenizer([]), "é hi")   # é's 2 bytes and the space agree
    (3, 3)
    """
    ids_a, ids_b = _encode(tok_a, text), _encode(tok_b, text)
    if ids_a == ids_b:
        return None
    k = 0
    while k < min(len(ids_a), len(ids_b)) and ids_a[k] == ids_b[k]:
        k += 1
    return k, len(tok_a.decode_bytes(ids_a[:k]))


def _first_id_cases():
    names = [n for n, _ in pool()]
    at = names.index
    yield from [(0, at("more_merges"), "The return statement leaves"), (0, at("gpt2_split"), "é 12345"),
                (0, at("other_eot"), "中文" + EOT), (at("bytes"), at("odd"), "abc"), (at("odd"), at("bytes"), "xabc"),
                (at("half_char"), at("bytes"), "x中"),
                (0, 0, "same ids"), (0, at("no_split"), ""), (0, at("no_split"), "中 the the")]


def _first_id_case(rng):
    if rng.random() < 1 / 6:  # where one list of ids begins the other, or the two part inside a character
        at = [n for n, _ in pool()].index
        i, j = rng.sample([at("bytes"), at("odd"), at("half_char")], 2)
        return i, j, _probe(rng) + rng.choice(["abc", "bc", "abcbc", "中", "a中", ""])
    return *_pair(rng), _probe(rng)


def _first_id_hint(args, want, got):
    if not (got is None or isinstance(got, tuple)):
        return None
    if want is None:
        return "both give the same ids: return None"
    if got is None or len(got) != 2:
        return "the ids differ (one list may begin the other): return (k, offset)"
    if got[0] != want[0]:
        return "k is the first position where the two lists of ids differ"
    return "offset: the bytes of tok_a's first k tokens (bytes, not characters)"


@check("ex-trouble-first-id")
def check_first_disagreement(reader_first_disagreement):
    compare(_on_pool(reader_first_disagreement), _on_pool(first_disagreement),
            _first_id_cases(), generate=_first_id_case, kind=(tuple, type(None)), show=_show, hint=_first_id_hint)


# ---------------------------------------------------------------- ex-trouble-padding

def pad_length(n: int, T: int, stride: int) -> int:
    """The fewest ids to append to ``n`` ids so that windows of ``T + 1`` ids every
    ``stride`` make every position ``1 .. n - 1`` a target (by search, from 0 up).

    >>> pad_length(5, 4, 4), pad_length(6, 4, 4), pad_length(9, 4, 4), pad_length(10, 4, 4)
    (0, 3, 0, 3)
    """
    p = 0
    while True:
        count = window_count(n + p, T, stride)
        if count and (count - 1) * stride + T >= n - 1:  # the last window's last target
            return p
        p += 1


def _padding_cases():
    yield from [(103, 16, 16), (1, 1, 1), (1, 4, 4), (5, 4, 4), (6, 4, 4), (4, 4, 2), (17, 16, 1),
                (65_536, 1024, 1024), (65_537, 1024, 512)]


def _padding_case(rng):
    T = rng.choice([1, 2, 3, 4, 5, 8, 16, rng.randint(1, 40), 512, 1024])
    stride = rng.choice([T, T, 1, max(1, T // 2), rng.randint(1, T)])
    r = rng.random()
    if r < 0.3:
        n = _gen.near(rng, T + 1)  # around one window
    elif r < 0.7:
        n = T + 1 + rng.randint(1, 6) * stride + rng.randint(-1, 1)  # at and around a window boundary
    elif r < 0.85:
        n = _gen.near(rng, 65_536, 3)
    else:
        n = rng.randint(1, 3 * T + 5)
    return max(1, n), T, stride


@check("ex-trouble-padding")
def check_pad_length(reader_pad_length):
    compare(reader_pad_length, pad_length, _padding_cases(), generate=_padding_case, kind=int,
            equal=lambda want, got: not isinstance(got, bool) and got == want,
            hint=lambda args, want, got: None if not isinstance(got, int)
            else "a stream shorter than one window needs padding too" if args[0] < args[1] + 1
            else "pad until the last window's last target reaches position n - 1")
