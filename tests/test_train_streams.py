"""``train`` on an iterable streams: it reads the documents once, a batch at a time, and
never holds them all.

Anchored in things independent of the streaming path: rustbpe trained on the same
documents (same tie rule, same byte ids), the textbook trainer, and the list path for
each option (normalization, special tokens, ``pattern=None``, a custom regex, lone
surrogates). Laziness is shown by the generator's own count when the first batch is
counted, memory by ``tracemalloc``'s peak (no timing anywhere). The 100 MB figure is
``benchmarks/train_stream.py``'s.
"""

import tracemalloc

import pytest

import bpe_lesson
from bpe_lesson import trainer
from bpe_lesson.patterns import GPT4_PATTERN

SMALL_BATCH = 20_000  # characters: the 400 KB of stdlib code streams in several batches


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(trainer, "STREAM_CHARS", SMALL_BATCH)


def rustbpe_tokens(docs, vocab_size):
    """rustbpe's tokens (bytes, in rank order) trained on ``docs`` with the GPT-4 pattern."""
    rustbpe = pytest.importorskip("rustbpe")
    peer = rustbpe.Tokenizer()
    peer.train_from_iterator(iter(docs), vocab_size, pattern=GPT4_PATTERN)
    return [token for token, _ in sorted(peer.get_mergeable_ranks(), key=lambda kv: kv[1])]


@pytest.mark.parametrize("workers", [1, 2])
def test_generator_gives_rustbpes_merges(backend, workers, stdlib_docs, small_batches):
    vocab = 256 + 500
    tok = bpe_lesson.train((d for d in stdlib_docs), vocab, backend=backend, workers=workers)
    assert len(tok.merges) == 500
    assert [tok.vocab[i] for i in range(vocab)] == rustbpe_tokens(stdlib_docs, vocab)
    assert tok.merges == bpe_lesson.train(stdlib_docs, vocab, backend=backend, workers=workers).merges


OPTIONS = {
    "nfkc": dict(normalize="NFKC"),
    "specials": dict(special_tokens=["<|endoftext|>", "<|pad|>"]),
    "no-pattern": dict(pattern=None),
    "custom-regex": dict(pattern=r" ?\w+| ?[^\w\s]+|\s+"),
}


def option_docs(prose_docs):
    """Prose with the things each option acts on: ligatures, special tokens, a lone surrogate."""
    docs = [d[:1500].replace("fi", "\ufb01", 3) + "<|endoftext|>" for d in prose_docs[:60]]
    docs[7] += "\ud800 broken"
    return docs


@pytest.mark.parametrize("option", OPTIONS)
def test_generator_equals_list_and_textbook(backend, option, prose_docs, monkeypatch):
    monkeypatch.setattr(trainer, "STREAM_CHARS", 20_000)  # about five batches of the 60 documents
    docs, kwargs = option_docs(prose_docs), OPTIONS[option]
    streamed = bpe_lesson.train(iter(docs), 256 + 2 + 120, backend=backend, **kwargs)
    textbook = bpe_lesson.train(docs, 256 + 2 + 120, algorithm="textbook", **kwargs)
    assert streamed.merges == textbook.merges
    assert streamed.special_tokens == textbook.special_tokens
    streamed_textbook = bpe_lesson.train(iter(docs), 256 + 2 + 120, algorithm="textbook", **kwargs)
    assert streamed_textbook.merges == textbook.merges


def test_hand_checked_case_streams(backend, monkeypatch):
    # minbpe's case, cut into documents one character long and counted three at a time
    monkeypatch.setattr(trainer, "STREAM_CHARS", 3)
    tok = bpe_lesson.train(iter(["aaabdaaabac"]), 259, pattern=None, backend=backend)
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]


def test_uncovered_text_names_its_document_in_the_stream(monkeypatch):
    monkeypatch.setattr(trainer, "STREAM_CHARS", 5)
    docs = ["abc de", "fgh ij", "kl\u00a4 mn"]  # the pattern leaves "\u00a4" in document 2 out
    with pytest.raises(ValueError, match="document 2"):
        bpe_lesson.train(iter(docs), 260, pattern=r"[^\u00a4]+")


class Recorded:
    """A generator of ``docs`` that counts how many it has handed out."""

    def __init__(self, docs):
        self.docs, self.pulled = docs, 0

    def __iter__(self):
        for d in self.docs:
            self.pulled += 1
            yield d


def test_generator_is_pulled_lazily(backend, stdlib_docs, small_batches, monkeypatch):
    source, seen_at_first_count = Recorded(stdlib_docs), []
    count = trainer.ChunkTally.count

    def spy(self, docs):  # records how far the generator was read when a batch is counted
        seen_at_first_count.append(source.pulled)
        return count(self, docs)

    monkeypatch.setattr(trainer.ChunkTally, "count", spy)
    bpe_lesson.train(iter(source), 300, backend=backend, workers=1)
    assert source.pulled == len(stdlib_docs)  # read to the end, once
    first = seen_at_first_count[0]
    assert len(seen_at_first_count) > 1 and first < len(stdlib_docs)  # counted before all were read
    per_batch = SMALL_BATCH if backend == "cython" else 4 * SMALL_BATCH  # the readable split: 4 tasks
    assert sum(len(d) for d in stdlib_docs[: first - 1]) < per_batch <= sum(len(d) for d in stdlib_docs[:first])


def traced_peak(backend, pool, total_chars):
    """tracemalloc's peak while training on ``total_chars`` of documents made on the fly
    (copies of ``pool``, each a fresh string), and the tokenizer."""

    def documents():
        made, k = 0, 0
        while made < total_chars:
            doc = f"{pool[k % len(pool)]}\n# copy {k % 1000}\n"
            made += len(doc)
            k += 1
            yield doc

    tracemalloc.start()
    try:
        tok = bpe_lesson.train(documents(), 300, backend=backend, workers=1)
        return tracemalloc.get_traced_memory()[1], tok
    finally:
        tracemalloc.stop()


def test_streaming_memory_stays_bounded(backend, prose_docs, monkeypatch):
    # 2 MB and 14 MB of the same documents, counted 1/4 MiB at a time (1 MiB on the
    # readable split, whose batches hold four of its tasks): the same distinct
    # chunks, so a trainer that streams peaks at about the same (a few MB, measured 2-5);
    # one that held the documents would trace 14 MB and more
    monkeypatch.setattr(trainer, "STREAM_CHARS", 1 << 18)
    pool = [d for d in prose_docs if d.isascii()][:200]  # one byte a character
    small, _ = traced_peak(backend, pool, 2_000_000)
    large, tok = traced_peak(backend, pool, 14_000_000)
    assert len(tok.merges) == 300 - 256
    assert large < 8_000_000 and large - small < 4_000_000, \
        f"14 MB traced {large / 1e6:.1f} MB at peak, 2 MB {small / 1e6:.1f} MB"


def test_extending_from_a_generator_equals_from_the_list(backend, prose_docs, monkeypatch):
    # start_from counts through the same stream (the list path is anchored to tiktoken's
    # extended table in test_extend_vocab.py)
    monkeypatch.setattr(trainer, "STREAM_CHARS", 20_000)
    base = bpe_lesson.train(prose_docs[:40], 300, backend=backend)
    docs = prose_docs[40:100]
    streamed = bpe_lesson.train(iter(docs), 360, start_from=base, backend=backend)
    held = bpe_lesson.train(docs, 360, start_from=base, backend=backend)
    assert len(streamed.merges) == len(held.merges) > len(base.merges)
    assert streamed.merges == held.merges and streamed.vocab == held.vocab
