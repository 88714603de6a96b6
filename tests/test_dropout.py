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


def test_same_seed_same_ids_on_both_backends(tok, cl100k, prose_docs):
    if bpe_lesson.BACKEND == "python":
        pytest.skip("BPE_LESSON_PUREPYTHON=1: the Cython backend is disabled for this run")
    text = "\n".join(prose_docs[:5])
    runs = {}
    for backend in ("python", "cython"):
        tok.backend = backend
        runs[backend] = [tok.encode(text, dropout=0.1, seed=s) for s in range(3)]
    assert runs["python"] == runs["cython"]
    assert runs["python"][0] != runs["python"][1]  # another seed, other draws
    # independent: tiktoken decodes each run to the text, in more tokens than its own encoding
    plain = cl100k.encode(text)
    for ids in runs["python"]:
        assert cl100k.decode(ids) == text and len(ids) > len(plain)
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
