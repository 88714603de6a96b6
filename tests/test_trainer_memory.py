"""The compiled trainer's memory report (``train_merges(..., memory=...)``), held to
counts made independently from the chunk counts with the textbook's pair counter."""

import pytest

import bpe_lesson
from bpe_lesson import textbook
from bpe_lesson.chunks import count_chunks, to_byte_counts
from bpe_lesson.teaching import samples

pytestmark = pytest.mark.skipif(bpe_lesson.BACKEND != "cython",
                                reason="BPE_LESSON_PUREPYTHON=1: the compiled trainer is not built")


@pytest.fixture(scope="module")
def counts():
    docs = list(samples.prose_topics().values())[:40]
    return to_byte_counts(count_chunks(docs, "gpt4"))


def report_for(counts, n_merges):
    from bpe_lesson._compiled import _native

    report = {}
    merges = _native.train_merges(counts, n_merges, memory=report)
    return merges, report


def test_each_structure_holds_at_least_what_the_counts_need(counts):
    merges, report = report_for(counts, 300)
    counted, done = report["counted"], report["done"]
    assert set(counted) == set(done) == {"words", "pair table", "pair counts", "pair index", "heap", "tokens"}
    n_ids = sum(map(len, counts))
    words = 4 * n_ids + 28 * len(counts)  # int32 ids; start 8, length 4, count 8, stamp 8
    assert words <= counted["words"] <= 2 * words
    pairs = textbook.count_pairs({tuple(w): c for w, c in counts.items()})
    assert counted["pair counts"] >= 16 * len(pairs)  # a count and a key per distinct pair
    holders = sum(len(set(zip(w, w[1:]))) for w in counts)  # (pair, word) incidences
    assert counted["pair index"] >= 4 * holders
    frequent = sum(c >= 2 for c in pairs.values())  # a pair seen once can never be merged
    assert counted["heap"] >= 16 * frequent
    assert len(merges) == 300


def test_merging_never_shrinks_the_arrays(counts):
    _, report = report_for(counts, 300)
    for part in ("words", "pair table", "pair counts", "pair index", "tokens"):
        assert report["done"][part] >= report["counted"][part], part


def test_the_report_changes_nothing_about_the_merges(counts):
    merges, _ = report_for(counts, 200)
    assert merges == textbook.train_merges(counts, 200)
