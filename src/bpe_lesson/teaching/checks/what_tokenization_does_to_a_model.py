"""Checks for the chapter "What tokenization does to a model".

Each compares the reader's function with the real vocabularies (GPT-4's cl100k_base
and GPT-4o's o200k_base, loaded offline) and with cases a reader can check by hand.

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import functools
import random

from ...ranks import byte_pair_merge
from ...tokenizer import Tokenizer
from ..samples import MULTILINGUAL
from . import check


@functools.lru_cache(maxsize=2)
def _vocabulary(name: str) -> Tokenizer:
    return Tokenizer.from_tiktoken(name)


@check("ex-tok-healing")
def check_healing(extensions):
    """``extensions(tok, prompt)`` -> the ids of every token whose bytes start with the bytes of
    the prompt's last token and are longer: what a model could have written there."""
    for name in ("cl100k_base", "o200k_base"):
        tok = _vocabulary(name)
        for prompt in ["Hello ", "https:", "The answer is 4", "def f(x):\n   "]:
            last = tok.decode_bytes(tok.encode(prompt)[-1:])
            want = {i for i, t in tok.vocab.items() if t.startswith(last) and len(t) > len(last)}
            got = set(extensions(tok, prompt))
            assert got == want, (f"{name}, prompt {prompt!r}: the last token is {last!r}; "
                                 f"{len(want)} tokens extend it, your answer has {len(got)} "
                                 f"(e.g. missing {sorted(want - got)[:3]}, extra {sorted(got - want)[:3]})")


@check("ex-tok-digits")
def check_digits(digit_groups):
    """``digit_groups(digits)`` -> the pieces GPT-4 cuts a string of ASCII digits into.

    >>> check_digits(lambda d: [d[i:i + 3] for i in range(0, len(d), 3)])   # from the left
    >>> check_digits(list)                                                    # one by one
    Traceback (most recent call last):
    AssertionError: GPT-4 cuts 1234567 as 123|456|7
    """
    assert list(digit_groups("1234567")) == ["123", "456", "7"], "GPT-4 cuts 1234567 as 123|456|7"
    rng = random.Random(0)
    for name in ("cl100k_base", "o200k_base"):
        tok = _vocabulary(name)
        for n in list(range(1, 16)) + [rng.randint(16, 40) for _ in range(10)]:
            digits = "".join(rng.choice("0123456789") for _ in range(n))
            want = [tok.decode([i]) for i in tok.encode(digits)]
            got = list(digit_groups(digits))
            assert got == want, f"{name} cuts {digits!r} as {'|'.join(want)}, you have {'|'.join(got)}"


@check("ex-tok-letters")
def check_letters(letter_tokens):
    """``letter_tokens(tok, text, letter)`` -> for each occurrence of ``letter`` in ``text``, the
    index of the token that holds its first byte."""
    tok = _vocabulary("cl100k_base")
    assert list(letter_tokens(tok, "strawberry", "r")) == [0, 2, 2], \
        "GPT-4 cuts 'strawberry' as str|aw|berry: its r's are in tokens 0, 2, 2"
    for name in ("cl100k_base", "o200k_base"):
        tok = _vocabulary(name)
        for text, letter in [("strawberry", "r"), (" Mississippi", "s"), ("déjà vu, café", "é"),
                             ("東京タワーと京都", "京"), ("鬱と鬱", "鬱"), ("aaaaaaaaaaaa", "a")]:
            ids = tok.encode(text)
            starts, at = [], 0  # byte offset where each token starts
            for i in ids:
                starts.append(at)
                at += len(tok.decode_bytes([i]))
            raw, want, pos = text.encode(), [], 0
            needle = letter.encode()
            while (pos := raw.find(needle, pos)) >= 0:
                want.append(max(k for k, s in enumerate(starts) if s <= pos))
                pos += len(needle)
            got = list(letter_tokens(tok, text, letter))
            assert got == want, f"{name}: the {letter!r} in {text!r} are in tokens {want}, you have {got}"


@check("ex-tok-premium")
def check_premium(premium):
    """``premium(tok, texts)`` -> {language: tokens of its text / tokens of the English text}."""
    toy = Tokenizer([], pattern=None)  # the 256 bytes alone: one token per byte
    got = premium(toy, {"English": "ab", "Other": "é" * 3})
    assert abs(got["Other"] - 3.0) < 1e-9 and abs(got["English"] - 1.0) < 1e-9, \
        f"with one token per byte, 'ééé' (6 bytes) against 'ab' (2) costs 3.0 times English, not {got['Other']}"
    for name in ("cl100k_base", "o200k_base"):
        tok = _vocabulary(name)
        base = len(tok.encode(MULTILINGUAL["English"]))
        got = premium(tok, MULTILINGUAL)
        assert set(got) == set(MULTILINGUAL), f"one ratio per language, got {sorted(got)}"
        for lang, text in MULTILINGUAL.items():
            want = len(tok.encode(text)) / base
            assert abs(got[lang] - want) < 1e-9, f"{name}, {lang}: {want:.3f} times English's tokens, not {got[lang]}"


@check("ex-tok-unreachable")
def check_unreachable(unreachable):
    """``unreachable(ranks)`` -> the tokens whose own bytes the rank loop does not encode to themselves."""
    bytes_ = {bytes([i]): i for i in range(256)}
    cases = [
        (bytes_ | {b"ab": 256, b"bc": 257, b"abc": 258}, set()),
        (bytes_ | {b"abc": 256, b"bc": 257}, set()),  # bc, then a + bc: the loop ignores that abc ranks lower
        (bytes_ | {b"bc": 256, b"ab": 257, b"abcd": 258, b"cd": 259}, {b"abcd"}),  # a|bc|d: never ab + cd
    ]
    for ranks, want in cases:
        got = set(unreachable(ranks))
        assert got == want, f"with {sorted(t for t in ranks if len(t) > 1)}, unreachable: {want or 'none'}, you have {got}"
    tok = _vocabulary("cl100k_base")
    ranks = {b: i for i, b in tok.vocab.items() if i < 3000}
    for extra in (b"ing the", b"tion of the", b"abcd"):  # three-part tokens: some the loop cannot reach
        ranks.setdefault(extra, len(ranks) + 256)
    want = {t for t in ranks if len(t) > 1 and byte_pair_merge(t, ranks) != [t]}
    got = set(unreachable(ranks))
    assert got == want, f"on GPT-4's first 3,000 ranks and three more: {sorted(want)}, you have {sorted(got)[:5]}"
