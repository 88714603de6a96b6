"""Checks of the exercises in *Training a real tokenizer*.

The references are the package's split (``patterns.split_chunks``), its one
special-token cutter (``patterns.ordinary_pieces``) and a chi-squared test.

What this module does not do: train (the chapter does).
"""

from __future__ import annotations

import random

import regex

from ...patterns import GPT4_PATTERN, ordinary_pieces, split_chunks
from .. import samples
from . import check

RUN = regex.compile(r"\p{N}+")


def thousands(chunks):
    """GPT-4's chunks with every run of digit chunks regrouped in threes from the right.

    >>> thousands(["in", " ", "123", "456", "7", " ms"])
    ['in', ' ', '1', '234', '567', ' ms']
    """
    out, run = [], ""
    for c in chunks + [""]:
        if c and RUN.fullmatch(c):
            run += c
            continue
        if run:
            head = len(run) % 3
            out += ([run[:head]] if head else []) + [run[k : k + 3] for k in range(head, len(run), 3)]
            run = ""
        if c:
            out.append(c)
    return out


@check("ex-real-digits")
def check_digits(pattern, texts=None):
    try:
        rx = regex.compile(pattern)
    except (regex.error, TypeError) as e:
        raise AssertionError(f"the pattern does not compile: {e}") from None
    cases = {"1234567": ["1", "234", "567"], "in 12345 ms": ["in", " ", "12", "345", " ms"],
             "999": ["999"], "1000": ["1", "000"], "x1000000y": ["x", "1", "000", "000", "y"],
             "3.14159": ["3", ".", "14", "159"]}
    for text, want in cases.items():
        got = rx.findall(text)
        assert got == want, f"{text!r} splits into {got}, expected {want}"
    texts = texts or (list(samples.prose_topics().values())[:20] + list(samples.code_files(200_000).values()))
    texts = ["½ cup, x² + 1²³4, ①②③④ and ٣٤٥٦ (Arabic-Indic digits)"] + list(texts)
    for t in texts:
        got, want = rx.findall(t), thousands(split_chunks(t, GPT4_PATTERN))
        assert "".join(got) == t, "the chunks must cover the text (every character in some chunk)"
        assert got == want, next(f"first difference from GPT-4's split (digits regrouped): {a!r} vs {b!r}"
                                 for a, b in zip(got + [None], want + [None]) if a != b)


@check("ex-real-reservoir")
def check_reservoir(sample):
    assert sorted(sample(range(5), 10, seed=0)) == [0, 1, 2, 3, 4], "fewer items than k: keep them all"
    assert len(sample(iter(range(10_000)), 100, seed=1)) == 100, "k items from a longer stream"
    assert sample(range(1000), 50, seed=3) == sample(range(1000), 50, seed=3), "the same seed, the same sample"
    counts = [0] * 10
    for seed in range(200):
        s = sample(iter(range(1000)), 20, seed=seed)
        assert len(set(s)) == 20 and all(0 <= x < 1000 for x in s), "20 distinct items of the stream"
        for x in s:
            counts[x // 100] += 1
    chi2 = sum((c - 400) ** 2 / 400 for c in counts)
    assert chi2 < 27.9, f"not uniform: items per hundred {counts} (chi-squared {chi2:.1f}, 9 dof, p = 0.001)"
    late = sum(x >= 990 for seed in range(300) for x in sample(iter(range(1000)), 20, seed=seed + 7))
    assert 30 <= late <= 95, f"the last 10 items were kept {late} times in 300 samples, expected about 60"


SPECIALS = ["<|endoftext|>", "<|end|>", "<|im_start|>"]


@check("ex-real-specials")
def check_specials(training_chunks):
    text = "a<|end|>b <|endoftext|> 12345<|im_start|>user"
    cases = [(text, SPECIALS, "gpt4"), ("x<|endoftext|>y<|end", ["<|end", "<|endoftext|>"], "gpt4"),
             ("<|endoftext|><|endoftext|>", SPECIALS, "gpt2"), ("plain text, no special", SPECIALS, "gpt4"),
             ("hi<|end|>", [], "gpt4")]
    rng = random.Random(0)
    for doc in list(samples.prose_topics().values())[:5]:
        cut = sorted(rng.sample(range(len(doc)), 6))
        parts = [doc[a:b] for a, b in zip([0] + cut, cut + [len(doc)])]
        cases.append(("".join(p + rng.choice(SPECIALS) for p in parts), SPECIALS, "gpt4"))
    for t, specials, pattern in cases:
        want = [c for piece in ordinary_pieces(t, specials) for c in split_chunks(piece, pattern)]
        got = training_chunks(t, specials, pattern)
        assert got == want, next(f"{t[:40]!r}...: first difference {a!r} vs expected {b!r} "
                                 "(cut the specials out first, longest first, then split)"
                                 for a, b in zip(got + [None], want + [None]) if a != b)
