"""A caller's ``backend="python"`` is honoured at every entry point.

The switch is read once (``_backend``) and passed down; here each entry point is
called with ``backend="python"`` while every name of the compiled extension that
could serve it raises, so the call only succeeds if the readable code ran. Each
result is then compared with something independent of both backends: the textbook
trainer's merges, and tiktoken's ids on the textbook trainer's ranks.
"""

import os

import pytest
import tiktoken
import yaml

import bpe_lesson
from bpe_lesson import Tokenizer, chunks, train
from bpe_lesson.formats.gpt2_files import from_gpt2_files, save_gpt2_files
from bpe_lesson.patterns import GPT4_PATTERN
from bpe_lesson.scale import counting, dask_count
from bpe_lesson.scale.phases import train_from_config
from bpe_lesson.trainer import get_trainer

pytestmark = pytest.mark.skipif(bpe_lesson.BACKEND != "cython",
                                reason="needs the compiled extension, to make it raise")

DOCS = ["the cat sat on the mat", "the cat ate the hat", "x = 1\nx = 2\n"] * 5
COMPILED_NAMES = ("Encoder", "ChunkCounter", "train_merges", "SpecialSearch", "track_lists", "split_chunks")


class Untouchable:
    """Stands in for a compiled function or class: any use fails the test."""

    def __init__(self, name):
        self.name = name

    def __call__(self, *args, **kwargs):
        raise AssertionError(f"backend='python' reached the compiled {self.name}")


@pytest.fixture
def compiled_raises(monkeypatch):
    """Every compiled entry point raises while the test runs (the real ones are returned)."""
    from bpe_lesson._compiled import _native

    real = {name: getattr(_native, name) for name in COMPILED_NAMES}
    for name in COMPILED_NAMES:
        monkeypatch.setattr(_native, name, Untouchable(name))
    return real


@pytest.fixture(scope="module")
def trained():
    return train(DOCS, 300, pattern="gpt4", backend="cython")


@pytest.fixture(scope="module")
def textbook_tok():
    """The textbook trainer's tokenizer on the same text (made before anything raises)."""
    return train(DOCS, 300, pattern="gpt4", algorithm="textbook")


@pytest.fixture(scope="module")
def reference(textbook_tok):
    """tiktoken's encoder on the textbook trainer's ranks: the independent reference for ids."""
    ranks = {b: i for i, b in textbook_tok.vocab.items()}  # bytes -> rank
    return tiktoken.Encoding(name="switch_reference", pat_str=GPT4_PATTERN, mergeable_ranks=ranks,
                             special_tokens={})


def test_the_reference_is_the_compiled_trainers_tokenizer(trained, textbook_tok, reference):
    assert trained.merges == textbook_tok.merges
    assert trained.encode("the cat") == reference.encode_ordinary("the cat")


def test_the_fixture_really_blocks_the_compiled_path(compiled_raises):
    # a check on the check: the default (cython) path does meet the raising stand-ins
    with pytest.raises(AssertionError, match="reached the compiled"):
        chunks.count_chunk_bytes(DOCS, "gpt4", workers=1)


def test_train(compiled_raises, textbook_tok, reference):
    tok = train(DOCS, 300, pattern="gpt4", backend="python")
    assert tok.backend == "python" and tok.merges == textbook_tok.merges
    assert tok.encode("the cat") == reference.encode_ordinary("the cat")


def test_get_trainer(compiled_raises):
    assert get_trainer("incremental", "python").__name__ == "bpe_lesson.incremental"


def test_count_chunk_bytes(compiled_raises):
    got = chunks.count_chunk_bytes(DOCS, "gpt4", workers=1, backend="python")
    assert got == chunks.to_byte_counts(chunks.count_chunks(DOCS, "gpt4", workers=1))
    assert chunks.compiled_counter("gpt4", "python") is None


def test_tokenizer_encode_paths(compiled_raises, trained, reference):
    tok = Tokenizer(trained.merges, pattern="gpt4", special_tokens={"<|eot|>": 300}, backend="python")
    expect = reference.encode_ordinary("the cat sat")
    assert tok.encode("the cat sat") == expect
    assert tok.encode_ordinary("the cat sat") == expect
    assert list(tok.encode_to_numpy("the cat sat")) == expect
    assert tok.encode_batch(["the cat sat", "the mat"], num_threads=2) == [expect, reference.encode_ordinary("the mat")]
    assert [list(a) for a in tok.encode_batch_to_numpy(["the cat sat"], num_threads=1)] == [expect]
    with pytest.raises(ValueError, match="special token"):
        tok.encode("a <|eot|>")


@pytest.fixture(scope="module")
def on_cython(trained):
    return Tokenizer(trained.merges, pattern="gpt4", backend="cython")  # made before anything raises


def test_tokenizer_backend_switch(on_cython, compiled_raises, reference):
    tok = on_cython
    tok.backend = "python"
    assert tok.encode("the hat") == reference.encode_ordinary("the hat")


def test_gpt2_files(compiled_raises, trained, reference, tmp_path):
    save_gpt2_files(trained, tmp_path)
    tok = from_gpt2_files(tmp_path / "encoder.json", tmp_path / "vocab.bpe", pattern="gpt4", backend="python")
    assert tok.backend == "python" and tok.encode("the cat") == reference.encode_ordinary("the cat")


def test_scale_counting(compiled_raises):
    lines = [d.rstrip("\n") + "\n" for d in DOCS]  # units are lines: glued, they split as apart
    units = [line.encode() for line in lines]
    alone = bytearray(len(units))
    expect = chunks.to_byte_counts(chunks.count_chunks(lines, GPT4_PATTERN, workers=1))
    assert counting.count_units(units, alone, GPT4_PATTERN, backend="python") == expect
    assert counting.count_units(units, alone, GPT4_PATTERN, workers=2, backend="python") == expect  # forked


def test_scale_dask_map_task(compiled_raises, tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"x = 1\nx = 1\n")
    counts, _, _ = dask_count.count_range((str(path), 0, 12, None), GPT4_PATTERN, backend="python")
    assert counts[b" ="] == 2


def test_scale_train_from_config(compiled_raises, tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("\n".join(DOCS), encoding="utf-8")
    cfg = {"output": str(tmp_path / "out" / "tok.tiktoken"),
           "phases": [{"name": "one", "merges": 20, "sources": [{"path": str(tmp_path / "docs")}]}]}
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    result = train_from_config(str(tmp_path / "cfg.yaml"), backend="python", progress=False,
                               log=lambda line: None, write=False)
    assert result is not None
