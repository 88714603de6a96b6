"""The teaching recorders and harnesses, checked against the textbook trainer and hand counts."""

import heapq
import os
import textwrap

import pytest

from bpe_lesson import incremental, textbook
from bpe_lesson.chunks import count_chunks, to_byte_counts
from bpe_lesson.cousins.wordpiece import WordPiece
from bpe_lesson.teaching import samples, trace
from bpe_lesson.tokenizer import Tokenizer

TOY = {b"hug": 10, b"pug": 5, b"pun": 12, b"bun": 4, b"hugs": 5}


@pytest.fixture(scope="module")
def prose_counts():
    return to_byte_counts(count_chunks(list(samples.prose_topics().values())[:10], "gpt4"))


def test_recorded_training_matches_the_textbook_and_restores_heapq(prose_counts):
    merges, log = trace.recorded_training(prose_counts, 100)
    assert merges == textbook.train_merges(prose_counts, 100)
    assert incremental.heapq is heapq
    kinds = [e[3] for e in trace.explain(log, merges)]
    assert kinds.count("up to date, merged") == len(merges)
    assert kinds.count("stale, pushed back") == kinds.count("pushed back")


def test_explain_on_the_toy_corpus_by_hand():
    merges, log = trace.recorded_training(TOY, 10)
    events = [(op, count, pair, kind) for op, count, pair, kind, _ in trace.explain(log, merges)]
    u, g, p = b"ugp"
    # (u, g) 20 is merged; then the stale (p, u) 17 is pushed back with 12 (five pugs became p ug)
    assert events[0] == ("pop", 20, (u, g), "up to date, merged")
    assert ("pop", 17, (p, u), "stale, pushed back") in events
    assert ("push", 12, (p, u), "pushed back") in events


def test_recorder_is_removed_when_training_fails():
    with pytest.raises(AttributeError):
        with trace.recording_heap():
            incremental.train_merges(None, 1)
    assert incremental.heapq is heapq


def test_merge_state_against_a_recount():
    s = trace.merge_state(TOY, 2)
    words = {tuple(w): c for w, c in TOY.items()}
    for pair, new_id in textbook.train_merges(TOY, 1):
        words = {tuple(textbook.merge(list(w), pair, new_id)): c for w, c in words.items()}
    assert s["before"]["counts"] == dict(+textbook.count_pairs(words))
    (pair, new_id), = textbook.train_merges(TOY, 2)[1:]
    assert (s["pair"], s["new_id"]) == (pair, new_id)
    after = {tuple(textbook.merge(list(w), pair, new_id)): c for w, c in words.items()}
    assert s["after"]["counts"] == dict(+textbook.count_pairs(after))
    best = {}
    for neg, a, b in s["after"]["heap"]:  # the lazy heap's promise: never below the true count
        best[a, b] = max(best.get((a, b), 0), -neg)
    assert all(best.get(q, 0) >= c for q, c in s["after"]["counts"].items())


def test_merge_state_past_the_end():
    with pytest.raises(ValueError, match="no merge 5"):
        trace.merge_state({b"ab": 3}, 5)


def test_measure_work_against_brute_force(prose_counts):
    merges, touched, scanned, recounts, listed = trace.measure_work(prose_counts, 60, check_every=20)
    assert merges == textbook.train_merges(prose_counts, 60)
    assert sorted(recounts) == [20, 40, 60]
    words = [list(w) for w in prose_counts]
    ever = {}  # pair -> the words that held it at some point (what the index lists)
    for k, (pair, new_id) in enumerate(merges):
        for i, w in enumerate(words):
            for q in zip(w, w[1:]):
                ever.setdefault(q, set()).add(i)
        assert scanned[k] == sum(map(len, words))
        assert touched[k] == sum(len(w) for w in words if pair in zip(w, w[1:]))
        assert listed[k] == sum(len(words[i]) for i in ever[pair])
        words = [textbook.merge(w, pair, new_id) for w in words]
    assert sum(listed) > sum(touched)  # on real text some entries are stale


def test_pyx_function_reads_the_source_file():
    path = os.path.join(os.path.dirname(incremental.__file__), "_compiled", "_incremental.pxi")
    text = open(path, encoding="utf-8").read()
    src = trace.pyx_function("count_all", docstring=True)
    assert src.startswith("cdef") and "count_all(" in src.splitlines()[0]
    assert textwrap.indent(src, "    ", lambda line: True).replace("    \n", "\n") in text  # a method, dedented
    assert trace.pyx_function("train_merges", docstring=True) in text  # a top-level function, as it is
    assert '"""' not in trace.pyx_function("count_all")
    assert trace.pyx_function("train_merges").startswith("def train_merges(")
    with pytest.raises(KeyError, match="no_such_step"):
        trace.pyx_function("no_such_step")
    with pytest.raises(FileNotFoundError):
        trace.pyx_function("x", module="_missing")


def test_segmenters_and_metrics_by_hand():
    tok = Tokenizer([((104, 105), 256)], pattern=None)
    assert b"".join(trace.pieces_bpe(tok, "hi hé")) == "hi hé".encode()
    wp = WordPiece(["[UNK]", "h", "##i", "ho"])
    assert trace.pieces_wordpiece(wp, "hi ho xy") == ["h", "i", "ho", trace.UNKNOWN]
    m = trace.segmentation_metrics(["h", "i", "ho", trace.UNKNOWN], "hi ho xy", units=3)
    assert m == {"bytes/token": 8 / 4, "tokens/word": 4 / 3, "single-char %": 50.0, "unknown %": 25.0}
    r = trace.compare_segmenters({"bpe": lambda t: trace.pieces_bpe(tok, t)}, {"en": "hi hi"},
                                 lambda name, text: len(text.split()))
    assert r["en", "bpe"]["bytes/token"] == 5 / 3
    lines = trace.metrics_table(r, marked={"en"})
    assert all(len(line) <= 76 for line in lines) and "*" in lines[1]


def test_pieces_sentencepiece_with_byte_fallback(tmp_path):
    spm = pytest.importorskip("sentencepiece")
    text = list(samples.prose_topics().values())[0][:20_000]
    model = tmp_path / "m"
    spm.SentencePieceTrainer.train(sentence_iterator=iter(text.splitlines() or [text]), model_prefix=str(model),
                                   vocab_size=300, byte_fallback=True, character_coverage=0.99,
                                   minloglevel=2)
    sp = spm.SentencePieceProcessor(model_file=str(model) + ".model")
    pieces = trace.pieces_sentencepiece(sp, "plain text ☃")
    assert trace.UNKNOWN not in pieces
    joined = b"".join(p if isinstance(p, bytes) else p.encode() for p in pieces)
    assert joined.strip() == "plain text ☃".encode()


def test_training_memory_in_a_fresh_process_agrees_with_rustbpe():
    # rustbpe is an independent trainer of the same rule: on the same one string, the
    # child processes must report the same bytes for every id
    docs = list(samples.prose_topics().values())[:40]
    ours = trace.training_memory(docs, 600, trainer="ours", one_string=True)
    rust = trace.training_memory(docs, 600, trainer="rustbpe", one_string=True)
    assert len(ours["vocab"]) == 600 and ours["vocab"] == rust["vocab"]
    many = trace.training_memory(docs, 600, trainer="ours", one_string=False)
    assert len(many["vocab"]) == 600 and many["seconds"] > 0
    for run in (ours, rust, many):
        assert 0 <= run["added"] < 1 << 30
        assert run["how"] == ("peak reset" if os.path.exists("/proc/self/clear_refs") else "peak since start")


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="Linux only")
def test_the_peak_is_set_back_then_sees_what_is_allocated_after():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before, peak, how = trace._resident()
    assert how == "peak reset" and peak - before < 32 << 20
    held = b"x" * (64 << 20)  # 64 MiB, every page written
    _, peak, _ = trace._resident()
    assert peak - before >= 64 << 20
    del held


def test_training_memory_names_an_unknown_trainer():
    with pytest.raises(ValueError, match="'gigatoken'.*'ours', 'rustbpe'"):
        trace.training_memory(["a b"], 300, trainer="gigatoken")
