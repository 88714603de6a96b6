"""BPE-dropout: ``Tokenizer.encode(text, dropout=p, seed=...)``.

Anchored in references outside the loop under test: tiktoken's ids (dropout=0),
the text's own UTF-8 bytes looked up in tiktoken's table (dropout=1), tiktoken's
encoding of one word (the most frequent segmentation at p=0.1), and the exact
distribution a hand count gives on a three-letter word.
"""

import random
from collections import Counter

import pytest
import tiktoken

import bpe_lesson
from bpe_lesson import Tokenizer
from bpe_lesson.ranks import merge_with_dropout


@pytest.fixture(scope="module")
def cl100k(tiktoken_cl100k):
    return tiktoken_cl100k


@pytest.fixture(scope="module")
def tok(cl100k_tokenizer):
    return cl100k_tokenizer


def test_dropout_zero_is_tiktoken(tok, cl100k, backend, prose_docs):
    tok.backend = backend
    text = "\n".join(prose_docs[:20])
    assert tok.encode(text, dropout=0, seed=3) == cl100k.encode(text)
    assert tok.encode(text, dropout=0.0) == tok.encode(text)


def test_dropout_one_leaves_bytes(tok, cl100k, backend):
    tok.backend = backend
    text = "Tokenization, déjà vu: 東京 2024!"
    byte_ids = [cl100k.encode_single_token(bytes([b])) for b in text.encode("utf-8")]
    assert tok.encode(text, dropout=1.0, seed=0) == byte_ids


def reference_dropout(chunk: bytes, ranks: dict, p: float, rng) -> list[int]:
    """BPE-dropout as ``merge_with_dropout``'s docstring states it, written from scratch:
    each step, list the joinable pairs by (rank, position), draw once for each in that
    order, join the first whose draw is ``p`` or more; stop when every one is dropped."""
    parts = [bytes([b]) for b in chunk]
    while True:
        pairs = sorted((ranks[a + b], i) for i, (a, b) in enumerate(zip(parts, parts[1:])) if a + b in ranks)
        for _, i in pairs:
            if rng.random() >= p:
                parts[i:i + 2] = [parts[i] + parts[i + 1]]
                break
        else:
            return [ranks[part] for part in parts]


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_same_seed_same_ids_as_the_stated_algorithm(tok, cl100k, backend, prose_docs, p):
    # each backend, each seed: the ids of the algorithm written out above, with the
    # same draws (one random.Random(seed) over the chunks in order)
    import regex

    tok.backend = backend
    # (runs of one pair, "aaaa", "====": ties in rank that the leftmost must win)
    text = "\n".join(prose_docs[:2])[:3000] + " Tokenization, déjà vu: 東京 2024! aaaaaaaaaaaa ================"
    ranks = {b: i for i, b in tok.vocab.items()}
    runs = []
    for seed in range(3):
        rng = random.Random(seed)
        want = [i for chunk in regex.findall(tok.pattern, text)
                for i in reference_dropout(chunk.encode("utf-8"), ranks, p, rng)]
        runs.append(tok.encode(text, dropout=p, seed=seed))
        assert runs[-1] == want, seed
        assert cl100k.decode(runs[-1]) == text  # and tiktoken decodes it to the text
    assert runs[0] != runs[1]  # another seed, other draws
    tok.backend = None


def test_dropout_decodes_to_the_text(tok, backend, stdlib_docs):
    tok.backend = backend
    text = stdlib_docs[0][:5000]
    ids = tok.encode(text, dropout=0.3, seed=7)
    assert tok.decode(ids) == text
    assert len(ids) > len(tok.encode(text))  # dropped merges: more tokens


def test_rank_encoding_is_the_most_frequent_segmentation(tok, cl100k):
    word = " unbelievable"
    counts = Counter(tuple(tok.encode(word, dropout=0.1, seed=s)) for s in range(2000))
    assert counts.most_common(1)[0][0] == tuple(cl100k.encode(word))
    assert len(counts) > 3  # and it is not the only one


def test_exact_distribution_by_hand():
    # "abc" with ab (256) and bc (257): step 1 joins ab with probability 1 - p; else bc with
    # p(1 - p); else stops (p^2). After either join no pair is a token.
    ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257}
    p, n = 0.3, 20_000
    rng = random.Random(11)
    seen = Counter(tuple(merge_with_dropout(b"abc", ranks, p, rng)) for _ in range(n))
    expected = {(b"ab", b"c"): 1 - p, (b"a", b"bc"): p * (1 - p), (b"a", b"b", b"c"): p * p}
    assert set(seen) == set(expected)
    for parts, prob in expected.items():
        assert abs(seen[parts] / n - prob) < 0.02, (parts, seen[parts] / n, prob)


def test_bad_dropout_names_the_value(tok):
    with pytest.raises(ValueError, match="dropout must be a probability between 0 and 1, got 1.5"):
        tok.encode("hello", dropout=1.5)


def test_dropout_keeps_special_tokens(tok):
    ids = tok.encode("hi<|endoftext|>there", allowed_special="all", dropout=1.0, seed=0)
    assert tok.special_tokens["<|endoftext|>"] in ids
    assert tok.decode(ids) == "hi<|endoftext|>there"


@pytest.mark.parametrize("word", [b" unbelievable", b"aaaaaa", b" tokenization", b"abab"])
def test_sampled_distribution_is_the_exact_one(cl100k, word):
    # the exact distribution is computed by enumeration (teaching.optimal), a second
    # implementation of the rule; the sampler tries pairs from the best down
    from bpe_lesson.teaching.optimal import segmentation_probabilities
    ranks, p, n = cl100k._mergeable_ranks, 0.3, 20_000
    exact = segmentation_probabilities(word, ranks, p)
    rng = random.Random(4)
    seen = Counter(tuple(merge_with_dropout(word, ranks, p, rng)) for _ in range(n))
    assert set(seen) <= set(exact)
    distance = sum(abs(seen[s] / n - q) for s, q in exact.items()) / 2  # total variation
    assert distance < 0.03, (word, distance)
