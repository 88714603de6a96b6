"""The trainers' options, each against an independent trainer written out here.

``tie_break="greatest-bytes"`` is Stanford CS336's rule (among the pairs with the
highest count, the lexicographically greatest pair of bytes); ``min_frequency`` and
``max_token_length`` are the options Hugging Face's ``BpeTrainer`` has. The
reference below is the plainest trainer there is: recount every pair of every
chunk, pick by the rule, merge, repeat. Every trainer (textbook, incremental) on
every backend must give its merges exactly.

``workers`` (how many count the chunks) must change no merge and no count, whatever
kind they are; ``processes``, its older name, still works and warns.
"""

import random
import warnings
from collections import Counter

import pytest
import regex

import bpe_lesson
from bpe_lesson.chunks import count_chunk_bytes, count_chunks
from bpe_lesson.patterns import GPT4_PATTERN, split_chunks


def reference_merges(text, n_merges, tie_break="smallest-ids", min_frequency=2, max_token_length=None):
    """The merges as byte pairs: the rule, written as plainly as it can be. ``text``: a str,
    or a list of documents (no chunk spans two)."""
    docs = [text] if isinstance(text, str) else text
    words = Counter(tuple(bytes([b]) for b in c.encode()) for d in docs for c in split_chunks(d, GPT4_PATTERN))
    known = {bytes([b]) for b in range(256)}
    merges = []
    while len(merges) < n_merges:
        pairs = Counter()
        for w, c in words.items():
            for p in zip(w, w[1:]):
                pairs[p] += c
        pairs = {p: c for p, c in pairs.items() if p[0] + p[1] not in known
                 and (max_token_length is None or len(p[0] + p[1]) <= max_token_length)}
        if not pairs or max(pairs.values()) < max(2, min_frequency):
            break
        top = max(pairs.values())
        tied = [p for p, c in pairs.items() if c == top]
        if tie_break == "greatest-bytes":
            best = max(tied)  # tuples of bytes compare left bytes first, then right
        else:
            ids = {b: i for i, b in enumerate(sorted(known, key=lambda b: token_id[b]))}
            best = min(tied, key=lambda p: (ids[p[0]], ids[p[1]]))
        merged = best[0] + best[1]
        token_id[merged] = len(token_id)
        known.add(merged)
        merges.append(best)
        new_words = Counter()
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(merged)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            new_words[tuple(out)] += c
        words = new_words
    return merges


token_id = {}


@pytest.fixture(autouse=True)
def _fresh_ids():
    token_id.clear()
    token_id.update({bytes([b]): b for b in range(256)})


def texts():
    rng = random.Random(3)
    out = ["aaabdaaabac", "abab baba abab baba", "zz yy zz yy xx", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]
    for _ in range(12):
        out.append(" ".join("".join(rng.choice("abcé中") for _ in range(rng.randint(1, 6)))
                            for _ in range(rng.randint(5, 40))))
    return out


OPTIONS = [dict(tie_break="greatest-bytes"), dict(min_frequency=3), dict(min_frequency=5),
           dict(max_token_length=2), dict(max_token_length=3, tie_break="greatest-bytes"),
           dict(min_frequency=4, max_token_length=4, tie_break="greatest-bytes")]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("algorithm", ["textbook", "incremental"])
def test_every_trainer_follows_the_options(options, algorithm, backend, prose_docs):
    for text in texts() + ["\n".join(prose_docs[:8])]:
        n = 60
        token_id.clear()
        token_id.update({bytes([b]): b for b in range(256)})
        want = reference_merges(text, n, **options)
        tok = bpe_lesson.train(text, 256 + n, pattern="gpt4", algorithm=algorithm, backend=backend, **options)
        assert tok.merge_bytes() == want, (text[:30], options)


def test_the_default_rule_is_the_reference_too(backend, prose_docs):
    text = "\n".join(prose_docs[:8])
    assert bpe_lesson.train(text, 356, backend=backend).merge_bytes() == reference_merges(text, 100)


def test_greatest_bytes_changes_a_tie():
    """In "zz yy zz yy" as one chunk, (z, z), (z, ' '), (' ', y) and (y, y) all occur twice: the
    smallest ids pick (' ', y) (32 is the smallest id), the greatest bytes pick (z, z)."""
    text = "zz yy zz yy"
    assert bpe_lesson.train(text, 257, pattern=None).merge_bytes() == [(b" ", b"y")]
    assert bpe_lesson.train(text, 257, pattern=None, tie_break="greatest-bytes").merge_bytes() == [(b"z", b"z")]


def test_a_long_run_stops_growing_at_max_token_length():
    text = "a" * 4096
    lengths = [len(b) for b in bpe_lesson.train(text, 300, pattern=None, max_token_length=8).vocab.values()]
    assert max(lengths) == 8


@pytest.mark.parametrize("kwargs, message", [
    (dict(tie_break="largest"), "tie_break 'largest' should be one of smallest-ids, greatest-bytes"),
    (dict(min_frequency=0), "min_frequency 0 should be a whole number >= 1"),
    (dict(max_token_length=1), "max_token_length 1 should be a whole number >= 2, or None"),
])
def test_bad_options_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        bpe_lesson.train("abc", 260, **kwargs)


# ---- workers: how many count the chunks ----------------------------------------------

def regex_counts(docs):
    """Chunk counts by the ``regex`` module's own findall, document by document: bytes -> count."""
    return Counter(c.encode() for d in docs for c in regex.findall(GPT4_PATTERN, d))


@pytest.mark.parametrize("workers", [1, 2, -1])
@pytest.mark.parametrize("algorithm", ["textbook", "incremental"])
def test_workers_change_no_merge(workers, algorithm, backend, prose_docs):
    # two workers are threads with the compiled counter, processes otherwise: the same merges
    docs = prose_docs[:8]
    tok = bpe_lesson.train(docs, 316, algorithm=algorithm, backend=backend, workers=workers)
    assert tok.merge_bytes() == reference_merges(docs, 60)


@pytest.mark.parametrize("workers", [None, 1, 2, 3])
def test_workers_change_no_count(workers, backend, prose_docs):
    docs = prose_docs[:8]
    want = regex_counts(docs)
    assert count_chunk_bytes(docs, "gpt4", workers=workers, backend=backend) == want
    assert {c.encode(): n for c, n in count_chunks(docs, "gpt4", workers=workers).items()} == want


@pytest.mark.parametrize("call", [
    lambda docs, **kw: bpe_lesson.train(docs, 316, **kw).merge_bytes(),
    lambda docs, **kw: count_chunk_bytes(docs, "gpt4", **kw),
    lambda docs, **kw: dict(count_chunks(docs, "gpt4", **kw)),
], ids=["train", "count_chunk_bytes", "count_chunks"])
def test_processes_is_the_older_name_of_workers(call, prose_docs):
    docs = prose_docs[:8]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new name warns of nothing
        want = call(docs, workers=2)
    with pytest.warns(DeprecationWarning, match=r"^processes= is deprecated, the older name of workers=; "
                                                r"use workers=$") as caught:
        assert call(docs, processes=2) == want
    assert len(caught) == 1 and caught[0].filename == __file__  # it points at the caller's line
    with pytest.raises(ValueError, match=r"^workers= and processes= are one setting \(processes= is its older "
                                         r"name\); give only workers=$"):
        call(docs, workers=2, processes=2)


# ---- a training that stops short says so ------------------------------------------------
@pytest.mark.parametrize("algorithm", ["textbook", "incremental"])
@pytest.mark.parametrize("options", [{}, dict(min_frequency=5), dict(max_token_length=3)])
def test_a_training_that_stops_short_warns_with_both_numbers(algorithm, backend, options, prose_docs):
    text = prose_docs[0][:300]
    want = 256 + len(reference_merges(text, 10_000, **options)) + 1  # the reference runs out of pairs too
    with pytest.warns(bpe_lesson.StoppedShort) as caught:
        tok = bpe_lesson.train(text, 5_000, special_tokens=["<|endoftext|>"], algorithm=algorithm,
                               backend=backend, **options)
    assert tok.n_vocab == want < 5_000
    message = str(caught[0].message)
    assert message.startswith(f"train made {want:,} ids, not the 5,000 asked for: no pair occurs "
                              f"{max(2, options.get('min_frequency', 2))} times or more")
    assert caught[0].filename == __file__  # pointed at the caller's line


def test_a_training_that_reaches_its_size_is_silent(backend, prose_docs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bpe_lesson.train(prose_docs[:4], 300, backend=backend).n_vocab == 300


@pytest.mark.parametrize("as_list", [False, True])
def test_a_text_that_names_a_file_is_called_a_file_name(tmp_path, monkeypatch, backend, as_list, prose_docs):
    (tmp_path / "corpus.txt").write_text(prose_docs[0])
    monkeypatch.chdir(tmp_path)
    with pytest.warns(bpe_lesson.StoppedShort, match=r"the text 'corpus.txt' is the name of a file: "
                                                     r"train\(read_documents\('corpus.txt'\), \.\.\.\)"):
        bpe_lesson.train(["corpus.txt"] if as_list else "corpus.txt", 1_000, backend=backend)
    assert bpe_lesson.train(bpe_lesson.read_documents("corpus.txt"), 300, backend=backend).n_vocab == 300
