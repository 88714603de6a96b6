"""Checks for the chapter "What tokenization does to a model".

Each check is differential (``compare``): the reader's function against a reference
built on the package (``Tokenizer.encode``, ``decode_bytes``, ``ranks.byte_pair_merge``),
on hand-picked cases with the real vocabularies (GPT-4's ``cl100k_base`` and GPT-4o's
``o200k_base``, loaded offline), then on generated ones. Generated cases also use
``cl100k_base[:3000]``, GPT-4's first 3,000 tokens with its pattern: there most
characters outside ASCII are split into byte tokens, which is where byte offsets and
characters part ways.

A tokenizer is passed to ``compare`` by name (the first argument of every case) and
looked up on each call, so a failure prints ``cl100k_base`` and not a vocabulary.

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import bisect
import functools

from ...patterns import GPT4_PATTERN
from ...ranks import byte_pair_merge
from ...tokenizer import Tokenizer
from ..samples import MULTILINGUAL
from . import _gen, _reference, check, compare
from ._calls import _shrink_args

__all__ = ["SMALL", "vocabulary", "extending", "ENDINGS", "check_healing",
           "check_digits", "letter_places", "LETTERS", "check_letters", "premiums",
           "SNIPPETS", "check_premium", "BYTES", "unreachable_by_loop",
           "UNREACHABLE_CASES", "check_unreachable"]

SMALL = "cl100k_base[:3000]"


@functools.lru_cache(maxsize=4)
def vocabulary(name: str) -> Tokenizer:
    """A tokenizer by name: the two real vocabularies, the small one, or ``bytes`` (256 tokens)."""
    if name == SMALL:
        vocab = {i: b for i, b in vocabulary("cl100k_base").vocab.items() if i < 3000}
        return Tokenizer(None, pattern=GPT4_PATTERN, vocab=vocab, name=SMALL)
    if name == "bytes":
        return Tokenizer([], pattern=None, name="bytes")  # one token per byte
    return _reference.tokenizer(name)


def _on_vocabulary(fn):
    """``fn(tok, ...)`` as a function of the vocabulary's name, for ``compare``."""
    def by_name(name, *rest):
        return fn(vocabulary(name), *rest)
    by_name.__name__ = getattr(fn, "__name__", "the solution")
    return by_name


def _keep_name(args):
    """Shrink every argument but the first (the vocabulary's name)."""
    for smaller in _shrink_args(args[1:]):
        yield (args[0],) + smaller


def _show(args):
    return ", ".join([args[0]] + [repr(a) if len(repr(a)) <= 40 else repr(a)[:37] + "..." for a in args[1:]])


def _same_items(want, got):
    return sorted(got) == sorted(want)


# ---------------------------------------------------------------- ex-tok-healing

def extending(tok, prompt):
    """The ids of every token that starts with the prompt's last token and is longer, in id order.

    >>> t = vocabulary("cl100k_base"); 13 in extending(t, "Hello, world"), t.decode([13])
    (False, '.')
    """
    last = tok.decode_bytes(tok.encode(prompt)[-1:])
    return sorted(i for i, t in tok.vocab.items() if len(t) > len(last) and t.startswith(last))


ENDINGS = ["", " ", "  ", "\n", "\n    ", "4", "ing", "http:", ", ", "(", "é", "中", "😀", "'s", " the"]


def _prompt(rng):
    return (_gen.text(rng, 16, long=0) + rng.choice(ENDINGS)) or "a"


def _healing_cases():
    # GPT-4's whole vocabulary (a scan of it takes a while: six prompts), the last two ending inside a character
    yield from [("cl100k_base", p) for p in ["Hello ", "https:", "naïve caf", "def f(x):\n   ", "a𝄞", "Ж"]]


def _healing_case(rng):
    return SMALL, _prompt(rng)


def _healing_hint(args, want, got):
    tok = vocabulary(args[0])
    last = tok.encode(args[1])[-1]
    if last in got:
        return "the last token itself is not an extension: longer tokens only"
    if any(not isinstance(i, int) for i in got):
        return "give the ids of the tokens, not their bytes"
    return f"the prompt's last token is {tok.decode_bytes([last])!r}: compare bytes, not characters"


@check("ex-tok-healing")
def check_healing(extensions):
    """``extensions(tok, prompt)`` -> the ids of every token whose bytes start with the bytes of
    the prompt's last token and are longer: what a model could have written there."""
    compare(_on_vocabulary(extensions), _on_vocabulary(extending), _healing_cases(), generate=_healing_case,
            kind=(list, tuple, set), equal=_same_items, shrink=_keep_name, show=_show,
            valid=lambda args: bool(vocabulary(args[0]).encode(args[1])), hint=_healing_hint)


# ---------------------------------------------------------------- ex-tok-digits

def _cut(tok, text):
    return [tok.decode([i]) for i in tok.encode(text)]


def _digit_strings(rng):
    n = rng.choice([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) if rng.random() > 0.15 else rng.randint(13, 40)
    return "".join(rng.choice("0123456789" if rng.random() > 0.2 else "09") for _ in range(n))


def _digit_cases():
    yield from [("1234567",), ("",), ("7",), ("77",), ("777",), ("7777",), ("1000000",), ("0" * 13,)]


def _digit_case(rng):
    return (_digit_strings(rng),)


@check("ex-tok-digits")
def check_digits(digit_groups):
    """``digit_groups(digits)`` -> the pieces GPT-4 (and GPT-4o) cut a string of ASCII digits into."""
    for salt, name in enumerate(("cl100k_base", "o200k_base")):
        tok = vocabulary(name)
        reference = functools.partial(_cut, tok)
        reference.__name__ = name
        compare(digit_groups, reference, _digit_cases(), generate=_digit_case, seed=("ex-tok-digits", salt), kind=list,
                hint=lambda args, want, got: (
                    None if not isinstance(got, list) else
                    "GPT-4 cuts from the left: 3 digits, 3 digits, ... and what is left at the end"
                    if "".join(got) == args[0] else "the pieces must join back into the digits"))


# ---------------------------------------------------------------- ex-tok-letters

def letter_places(tok, text, letter):
    """For each occurrence of ``letter`` in ``text``, the index of the token holding its first byte.

    >>> letter_places(vocabulary("cl100k_base"), "strawberry", "r")
    [0, 2, 2]
    """
    starts, at = [], 0  # the byte offset where each token starts
    for i in tok.encode(text):
        starts.append(at)
        at += len(tok.decode_bytes([i]))
    raw, needle, out = text.encode(), letter.encode(), []
    pos = raw.find(needle)
    while pos >= 0:
        out.append(bisect.bisect_right(starts, pos) - 1)
        pos = raw.find(needle, pos + len(needle))
    return out


LETTERS = ["r", "s", "a", " ", "é", "中", "😀", "\n", "b"]


def _letter_case(rng):
    name = rng.choice(["cl100k_base", "o200k_base", SMALL, SMALL])
    text = _gen.text(rng, 24, long=0.05)
    chars = [c for c in text]
    letter = rng.choice(chars) if chars and rng.random() < 0.8 else rng.choice(LETTERS)
    return name, text, letter


def _letter_cases():
    for name in ("cl100k_base", "o200k_base"):
        for text, letter in [("strawberry", "r"), (" Mississippi", "s"), ("déjà vu, café", "é"),
                             ("東京タワーと京都", "京"), ("鬱と鬱", "鬱"), ("aaaaaaaaaaaa", "a"), ("", "a")]:
            yield name, text, letter


@check("ex-tok-letters")
def check_letters(letter_tokens):
    """``letter_tokens(tok, text, letter)`` -> for each occurrence of ``letter`` in ``text``, the
    index of the token that holds its first byte."""
    compare(_on_vocabulary(letter_tokens), _on_vocabulary(letter_places), _letter_cases(), generate=_letter_case,
            kind=list, shrink=_keep_name, show=_show, valid=lambda args: len(args[2]) == 1,
            hint=lambda args, want, got: (
                f"{len(want)} occurrence(s) of {args[2]!r}: one index each" if len(got) != len(want) else
                "count byte offsets (a token may end inside a character's bytes)"))


# ---------------------------------------------------------------- ex-tok-premium

def premiums(tok, texts):
    """{language: tokens of its text / tokens of the English text}.

    >>> premiums(vocabulary("bytes"), {"English": "ab", "Other": "é" * 3})
    {'English': 1.0, 'Other': 3.0}
    """
    english = len(tok.encode(texts["English"]))
    return {lang: len(tok.encode(t)) / english for lang, t in texts.items()}


SNIPPETS = [t[:n] for t in MULTILINGUAL.values() for n in (12, 40)] + ["", " ", "aaaa", "1234567"]


def _texts(rng):
    texts = {"English": rng.choice([MULTILINGUAL["English"][:rng.randint(1, 60)], _gen.text(rng, 20) or "a"])}
    names = rng.sample([n for n in MULTILINGUAL if n != "English"], rng.randint(0, 4))
    for n in names:
        texts[n] = rng.choice(SNIPPETS) if rng.random() < 0.7 else _gen.text(rng, 30)
    items = list(texts.items())
    rng.shuffle(items)  # English is not always first
    return dict(items)


def _premium_cases():
    yield "bytes", {"English": "ab", "Other": "é" * 3}
    for name in ("cl100k_base", "o200k_base"):
        yield name, dict(MULTILINGUAL)


def _premium_case(rng):
    return rng.choice(["cl100k_base", "o200k_base", "bytes", SMALL]), _texts(rng)


def _close(want, got):
    return set(got) == set(want) and all(abs(got[k] - want[k]) < 1e-9 for k in want)


def _premium_hint(args, want, got):
    if set(got) != set(want):
        return "one ratio per language, English (1.0) included"
    return "tokens of the language's text over tokens of the English text"


@check("ex-tok-premium")
def check_premium(premium):
    """``premium(tok, texts)`` -> {language: tokens of its text / tokens of the English text}."""
    compare(_on_vocabulary(premium), _on_vocabulary(premiums), _premium_cases(), generate=_premium_case, kind=dict,
            equal=_close, shrink=_keep_name, show=_show, hint=_premium_hint,
            valid=lambda args: "English" in args[1] and bool(vocabulary(args[0]).encode(args[1]["English"])))


# ---------------------------------------------------------------- ex-tok-unreachable

BYTES = {bytes([i]): i for i in range(256)}


def unreachable_by_loop(ranks):
    """The tokens of two or more bytes that the rank loop does not encode to themselves, in rank order.

    >>> unreachable_by_loop(BYTES | {b"bc": 256, b"ab": 257, b"abcd": 258, b"cd": 259})   # a|bc|d
    [b'abcd']
    """
    return [t for t in sorted(ranks, key=ranks.get) if len(t) > 1 and byte_pair_merge(t, ranks) != [t]]


def _ranks(rng):
    """The 256 bytes, then 1 to 8 tokens over a, b, c, d: most made by joining two tokens (as
    training does), some not; their ranks shuffled now and then, so a token may come before its parts."""
    tokens = [bytes([c]) for c in b"abcd"]
    made = []
    for _ in range(rng.randint(1, 8)):
        if rng.random() < 0.75:
            t = rng.choice(tokens) + rng.choice(tokens)
        else:
            t = bytes(rng.choice(b"abcd") for _ in range(rng.randint(2, 5)))
        if t not in made and len(t) > 1:
            made.append(t)
            tokens.append(t)
    if rng.random() < 0.4:
        rng.shuffle(made)
    return BYTES | {t: 256 + k for k, t in enumerate(made)}


UNREACHABLE_CASES = [(BYTES | {b"ab": 256, b"bc": 257, b"abc": 258},), (BYTES | {b"abc": 256, b"bc": 257},),
                     (BYTES | {b"bc": 256, b"ab": 257, b"abcd": 258, b"cd": 259},), (dict(BYTES),)]


def _real_ranks():
    tok = vocabulary("cl100k_base")  # last: a real vocabulary, too large to shrink
    ranks = {b: i for i, b in tok.vocab.items() if i < 3000}
    for extra in (b"ing the", b"tion of the", b"abcd"):  # three-part tokens: some the loop cannot reach
        ranks.setdefault(extra, len(ranks) + 256)
    return [(ranks,)]


def _shrink_ranks(args):
    (ranks,) = args
    if len(ranks) > 300:
        return  # GPT-4's first 3,000 tokens: shrinking would take longer than the check may
    for t in sorted((t for t in ranks if len(t) > 1), key=ranks.get, reverse=True):
        yield ({k: v for k, v in ranks.items() if k != t},)


def _show_ranks(args):
    (ranks,) = args
    longer = sorted(((t, r) for t, r in ranks.items() if len(t) > 1), key=lambda e: e[1])
    inside = ", ".join(f"{t!r}: {r}" for t, r in longer[:4]) + (", ..." if len(longer) > 4 else "")
    return f"bytes | {{{inside}}}" if len(ranks) - len(longer) == 256 else f"{{{inside}}}"


@check("ex-tok-unreachable")
def check_unreachable(unreachable):
    """``unreachable(ranks)`` -> the tokens whose own bytes the rank loop does not encode to themselves."""
    compare(unreachable, unreachable_by_loop, UNREACHABLE_CASES, generate=lambda rng: (_ranks(rng),),
            then=_real_ranks(),
            kind=(list, tuple, set), equal=_same_items, shrink=_shrink_ranks, show=_show_ranks,
            hint=lambda args, want, got: (
                "give the tokens' bytes, of two bytes or more" if any(not isinstance(t, bytes) for t in got)
                else "join the lowest-ranked pair, leftmost on a tie, until no pair is a token"))
