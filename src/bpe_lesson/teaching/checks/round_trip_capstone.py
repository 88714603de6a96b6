"""Check of the capstone of *Round trip through tiktoken* (``ex-tiktoken-capstone``): the
reader's own tiktoken encoder, on two rank tables of one tokenizer (a small one trained on
the help topics, unless the chapter passes another): its own ranks, and the same tokens
with the multi-byte ones ranked in reverse, which no merge list explains.

The reference is a ``tiktoken.Encoding`` built from the same ranks, pattern and special
tokens. Hand-picked texts first (held-out prose and code, every multilingual sample,
emoji, traps), then generated ones full of bits of special tokens and the split
pattern's traps (``capstone_text``, seeded by the label).

What this module does not do: download anything, or check the reader's ``.tiktoken``
writer and reader (``round_trip`` does).
"""

from __future__ import annotations

import functools

import tiktoken

from ...trainer import train
from .. import samples
from . import _gen, check, compare
from ._calls import _name, _shown, _smaller

__all__ = ["small_tokenizer", "capstone_tables", "SPECIAL_BITS", "SPLIT_BITS",
           "capstone_text", "capstone_texts", "check_capstone"]


# ---- ex-tiktoken-capstone: the reader's own tiktoken encoder ---------------------------------

@functools.lru_cache(maxsize=1)
def small_tokenizer():
    """A 1,024-id tokenizer (GPT-4 split, one special token) trained on the help topics."""
    topics = list(samples.prose_topics().values())
    return train(topics[:40], 1024, pattern="gpt4", special_tokens=["<|endoftext|>"])


def capstone_tables(tok):
    """Two rank tables for the capstone, each name -> (ranks, special tokens, tiktoken's Encoding).

    ``ranks``: the tokenizer's own; ``reversed``: the same tokens, the multi-byte ones
    ranked in reverse, so that longer tokens outrank their parts and no merge list
    explains the table (a merge-list replay, or rank encoding without the whole-chunk
    shortcut, gives other ids there). Both get a second special token, ``<|user|>``.
    """
    specials = dict(tok.special_tokens)
    ranks = {b: i for i, b in tok.vocab.items()}  # bytes -> rank (the special tokens are not in vocab)
    specials.setdefault("<|user|>", max([*ranks.values(), *specials.values()]) + 1)
    multi = sorted(r for b, r in ranks.items() if len(b) > 1)
    flip = dict(zip(multi, reversed(multi)))
    reversed_ranks = {b: flip.get(r, r) for b, r in ranks.items()}
    out = {}
    for name, table in (("ranks", ranks), ("reversed", reversed_ranks)):
        enc = tiktoken.Encoding(name=f"capstone_{name}", pat_str=tok.pattern, mergeable_ranks=table,
                                special_tokens=specials)
        out[name] = (table, specials, enc)
    return out


# bits of special tokens: whole, halves, side by side
SPECIAL_BITS = ["<|endoftext|>", "<|user|>", "<|endoftext|><|endoftext|>", "<|user|><|endoftext|>",
                "<|endoftext", "endoftext|>", "<|", "|>", "<|user", "<|<|endoftext|>|>"]
# what the GPT-4 split treats specially: contractions in both cases, digit runs, whitespace runs
SPLIT_BITS = ["don't", "I'M", "'S", "we'LL", "1234567", "3.14159", "  \n\n   ", "\t\t x", " \r\n", "x" * 40,
              "    for key in d:\n        pass\n", "émigré", "👩‍💻 🇫🇷", "naïve café"]


def capstone_text(rng) -> str:
    """A short text: ``_gen.text``, bits of special tokens at the start, the end and inside,
    the split pattern's traps, a slice of a sample in another script, now and then a long run."""
    parts = [_gen.text(rng, 30)]
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        bit = rng.choice(SPECIAL_BITS + SPLIT_BITS)
        where = rng.choice([0, len(parts), rng.randint(0, len(parts))])
        parts.insert(where, bit)
    r = rng.random()
    if r < 0.15:
        sample = rng.choice(list(samples.MULTILINGUAL.values()))
        k = rng.randrange(len(sample))
        parts.insert(rng.randint(0, len(parts)), sample[k : k + rng.randint(1, 40)])
    elif r < 0.2:
        parts.append(rng.choice(["x", "ab", " ", "1", "中"]) * rng.randint(50, 300))
    return "".join(parts)


@functools.lru_cache(maxsize=1)
def capstone_texts():
    """Hand-picked texts: held-out prose and code, every multilingual sample, emoji, traps."""
    prose_held = samples.prose_split()[1]
    code_held = samples.code_split()[1]
    traps = ["", "👩‍💻 wrote 🧪 tests; 👍🏽!", "a literal <|endoftext|> in the middle", "<|endoftext|>",
             "<|endoftext|><|user|>", "x" * 1000, " \t\n\n   \r\n", "Straße ½ ² ﬁ 123456789"]
    return tuple([t[:400] for t in prose_held[:3] + code_held[:3]] + list(samples.MULTILINGUAL.values()) + traps)


@check("ex-tiktoken-capstone")
def check_capstone(encode, tokenizer=None):
    tok = tokenizer or small_tokenizer()
    tables = capstone_tables(tok)

    def mine(text, table):  # each call gets its own copy of the ranks, so no call sees another's changes
        ranks, specials, _ = tables[table]
        return encode(text, dict(ranks), tok.pattern, dict(specials))

    def tiktoken_ids(text, table):
        return tables[table][2].encode(text, allowed_special="all")

    mine.__name__ = _name(encode)
    cases = [(t, "ranks") for t in capstone_texts()] + [(t, "reversed") for t in capstone_texts()[:12]]
    compare(mine, tiktoken_ids, cases, generate=lambda rng: (capstone_text(rng), rng.choice(["ranks", "reversed"])),
            kind=list, shrink=_shrink_text,
            show=lambda args: f"{_shown(args[0], 48)}, " + ("ranks" if args[1] == "ranks"
                                                          else "ranks with the multi-byte ones reversed"),
            hint=_capstone_hint)


def _shrink_text(args):
    """Shorter texts, the table kept.

    >>> list(_shrink_text(("abc", "ranks")))[:2]
    [('bc', 'ranks'), ('a', 'ranks')]
    """
    text, table = args
    for smaller in _smaller(text):
        yield (smaller, table)


def _capstone_hint(args, want, got):
    text, table = args
    if any(s in text for s in ("<|endoftext|>", "<|user|>")):
        return "cut at each special token first; it becomes its id"
    if table == "reversed":
        return "a chunk that is a token is that token; else lowest-ranked pair first"
    return "split with regex.findall; join the lowest-ranked pair, leftmost first"
