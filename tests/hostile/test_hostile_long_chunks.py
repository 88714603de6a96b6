"""One very long chunk (issue 39, item 10): the same ids as tiktoken, in near-linear time.

The pure-Python rank loop scanned every pair at every join, so one 100,000-character
word took 143 s; BPE-dropout drew once for every pair at every join (88 s on 25,000
characters). Long pieces now take a heap (``ranks.byte_pair_merge_heap``) and dropout
tries pairs from the best down. The reference for the ids is tiktoken's own
``encode_single_piece`` and ``encode``; the dropout distribution is checked in
``test_dropout.py`` against the exact one. The 60-second alarm below is a watchdog
(the fix takes well under a second), not a speed measurement: the figures are in
``benchmarks/long_chunk.py``.
"""

import random
import signal
from contextlib import contextmanager

import pytest

from bpe_lesson.ranks import LONG_PIECE, byte_pair_merge, byte_pair_merge_heap, merge_with_dropout


@contextmanager
def watchdog(seconds):
    def fire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s: quadratic again?")
    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def random_pieces(rng, count):
    """Byte strings around and past LONG_PIECE, from few symbols (many ties, long runs)."""
    symbols = [b"a", b"b", b" ", b"=", b"ab", b"the", b"ing", "\u4e2d".encode(), b"\n"]
    for _ in range(count):
        n = rng.choice([LONG_PIECE - 1, LONG_PIECE, LONG_PIECE + 1, 300, 2000])
        yield b"".join(rng.choice(symbols) for _ in range(n))


def test_long_pieces_give_tiktokens_parts(tiktoken_cl100k):
    ranks = tiktoken_cl100k._mergeable_ranks
    for piece in random_pieces(random.Random(5), 200):
        want = tiktoken_cl100k._core_bpe.encode_single_piece(piece)
        assert [ranks[p] for p in byte_pair_merge(piece, ranks)] == want, piece[:40]
        assert [ranks[p] for p in byte_pair_merge_heap(piece, ranks)] == want, piece[:40]


def test_the_heap_honours_the_rank_limit():
    # hand-checked: below 258 "abc" is not allowed, so "ab" + "c", then "abc" + "d" is no token
    ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258}
    assert byte_pair_merge_heap(b"abcd" * 50, ranks, 258) == [b"ab", b"c", b"d"] * 50
    assert byte_pair_merge(b"abcd" * 50, ranks, 258) == [b"ab", b"c", b"d"] * 50
    assert byte_pair_merge(b"abcd" * 50, ranks) == [b"abc", b"d"] * 50


@pytest.mark.parametrize("word", ["x" * 100_000, " " * 100_000, "ab=" * 33_334])
def test_a_100000_character_chunk_encodes_as_tiktoken(cl100k_tokenizer, tiktoken_cl100k, backend, word):
    cl100k_tokenizer.backend = backend
    with watchdog(60):  # before the fix: 143 s on the Python backend
        ids = cl100k_tokenizer.encode(word)
    assert ids == tiktoken_cl100k.encode(word)


def test_dropout_on_a_100000_byte_chunk_finishes_and_keeps_the_bytes(tiktoken_cl100k):
    piece = ("ab=" * 33_334).encode()
    with watchdog(60):  # before the fix: minutes (one draw per pair per join)
        parts = merge_with_dropout(piece, tiktoken_cl100k._mergeable_ranks, 0.1, random.Random(0))
    assert b"".join(parts) == piece
    assert all(p in tiktoken_cl100k._mergeable_ranks for p in parts)


def test_dropout_through_the_tokenizer_on_a_long_word(cl100k_tokenizer, backend):
    cl100k_tokenizer.backend = backend
    word = "unbelievable" * 5_000
    with watchdog(60):
        ids = cl100k_tokenizer.encode(word, dropout=0.1, seed=3)
    assert cl100k_tokenizer.decode(ids) == word
    assert len(ids) > len(cl100k_tokenizer.encode(word))  # some joins dropped
