"""Streaming sources and counting their units: cutting files into units never changes the
chunk counts; folders recurse .txt and .parquet; parquet is read by column in batches; the
ASCII twin of each pattern splits ASCII text exactly as ``regex`` does; counting on
workers gives what counting in process gives."""

import os
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_lesson
from bpe_lesson import read_documents
from bpe_lesson.scale import counting, sources
from bpe_lesson.scale.config import ConfigError, parse_config
from bpe_lesson.scale.phases import train_from_config
from bpe_lesson.teaching import samples
from bpe_lesson.chunks import count_chunks, to_byte_counts
from bpe_lesson.scale.counting import ascii_twin, count_units
from bpe_lesson.patterns import PATTERNS, compile_pattern
from bpe_lesson.scale.sources import cut_regex, list_files, stream_units

EOT = "<|endoftext|>"


def stream_all(paths, pattern, columns=None):
    units, alone = [], bytearray()
    for p in paths:
        for u, a in stream_units(p, cut_regex(pattern), columns):
            units += u
            alone += a
    return units, alone


@pytest.fixture(scope="module")
def corpus_files(tmp_path_factory, stdlib_docs):
    """Real text as files: stdlib code, prose joined by special tokens, multilingual samples
    with awkward whitespace (ideographic spaces, blank lines, CRLF, no final newline)."""
    d = tmp_path_factory.mktemp("corpus")
    paths = []
    for k, doc in enumerate(stdlib_docs[:40]):
        p = d / f"code{k:02d}.txt"
        p.write_text(doc, encoding="utf-8")
        paths.append(str(p))
    prose = d / "prose.txt"
    prose.write_text(EOT.join(list(samples.prose_topics().values())[:150]), encoding="utf-8")
    odd = d / "odd.txt"
    odd.write_bytes("".join(f"{v}\n  \u3000{v}\n\n\r\n /x\n\t// y \n\n\n" for v in samples.MULTILINGUAL.values())
                    .encode("utf-8") + b"   tail  ")
    return paths + [str(prose), str(odd)]


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_streamed_counts_equal_whole_file_counts(corpus_files, name, monkeypatch):
    monkeypatch.setattr(sources, "BLOCK_BYTES", 4096)  # many block boundaries: the carry is exercised
    pattern = PATTERNS[name]
    docs = [open(p, encoding="utf-8", newline="").read() for p in corpus_files]  # newline="": keep \r\n
    want = to_byte_counts(count_chunks(docs, pattern, [EOT], workers=1))
    units, alone = stream_all(corpus_files, pattern)
    assert b"".join(units) == b"".join(open(p, "rb").read() for p in corpus_files)  # nothing lost or doubled
    assert len(units) > 2 * len(corpus_files)  # the files really were cut
    assert count_units(units, alone, pattern, [EOT]) == want


def test_counting_on_workers_equals_counting_here(corpus_files, monkeypatch):
    monkeypatch.setattr(counting, "TASK_BYTES", 50_000)  # several tasks
    pattern = PATTERNS["gpt4"]
    units, alone = stream_all(corpus_files, pattern)
    # the reference: whole documents counted by chunks.count_chunks (anchored to regex.findall in
    # test_trainers.py), not the scale counter itself
    docs = [open(p, encoding="utf-8", newline="").read() for p in corpus_files]
    want = to_byte_counts(count_chunks(docs, pattern, [EOT], workers=1))
    assert count_units(units, alone, pattern, [EOT], workers=2) == want
    assert count_units(units, alone, pattern, [EOT]) == want
    # processes=, the older name of workers=, still counts on worker processes, and warns
    with pytest.warns(DeprecationWarning, match=r"^processes= is deprecated, the older name of workers="):
        assert count_units(units, alone, pattern, [EOT], processes=2) == want
    with pytest.raises(ValueError, match=r"^workers= and processes= are one setting"):
        count_units(units, alone, pattern, [EOT], workers=2, processes=2)


def test_a_line_longer_than_the_unit_limit_is_cut_at_a_character_boundary(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "MAX_UNIT_BYTES", 1000)
    monkeypatch.setattr(sources, "BLOCK_BYTES", 700)
    p = tmp_path / "long.txt"
    text = ("é" * 3000 + "\n" + "x" * 2500).encode("utf-8")
    p.write_bytes(text)
    units, alone = stream_all([str(p)], PATTERNS["gpt4"])
    assert b"".join(units) == text
    assert all(len(u) <= 1000 + 700 for u in units)  # a unit ends within a block of the limit
    assert all(u.decode("utf-8") for u in units)  # no unit ends inside a character
    assert set(alone) == {1}  # forced cuts are not safe: every piece is split on its own


def test_a_folder_source_recurses_txt_and_parquet_only(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    for rel in ["z.txt", "a/x.txt", "a/b/y.parquet", "a/b/notes.md", "a/data.csv"]:
        (tmp_path / rel).write_bytes(b"")
    assert [os.path.relpath(p, tmp_path) for p in list_files(tmp_path)] == ["a/b/y.parquet", "a/x.txt", "z.txt"]


def write_parquet(path, rows):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"id": pa.array(range(len(rows)), pa.int64()),
                      "text": pa.array(rows, pa.string()),
                      "title": pa.array([f"Title {i}" for i in range(len(rows))], pa.large_string())})
    pq.write_table(table, path, row_group_size=50)


def test_parquet_text_columns_are_read_in_batches(tmp_path, prose_docs):
    path = str(tmp_path / "docs.parquet")
    rows = prose_docs[:120] + [None, ""]
    write_parquet(path, rows)
    pattern = PATTERNS["gpt4"]
    batches = list(sources.parquet_units(path, cut_regex(pattern), batch_rows=40))
    assert len(batches) >= 3  # 122 rows, 40 at a time
    units = [u for us, _ in batches for u in us]
    alone = bytearray(b"".join(bytes(a) for _, a in batches))
    # every string column, each cell a document
    want = to_byte_counts(count_chunks([r for r in rows if r] + [f"Title {i}" for i in range(len(rows))], pattern))
    assert count_units(units, alone, pattern) == want
    # or only the columns named
    units, alone = stream_all([path], pattern, columns=["text"])
    assert count_units(units, alone, pattern) == to_byte_counts(count_chunks([r for r in rows if r], pattern))


def test_parquet_errors_name_the_file_and_the_columns(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = str(tmp_path / "nums.parquet")
    pq.write_table(pa.table({"n": [1, 2, 3]}), path)
    with pytest.raises(ValueError, match=r"nums.parquet: no text column \(its columns: \['n'\]\)"):
        list(stream_units(path, cut_regex(PATTERNS["gpt4"])))
    with pytest.raises(ValueError, match=r"column 'n' holds int64, not text"):
        list(stream_units(path, cut_regex(PATTERNS["gpt4"]), columns=["n"]))
    with pytest.raises(ValueError, match=r"no column 'text'"):
        list(stream_units(path, cut_regex(PATTERNS["gpt4"]), columns=["text"]))


ascii_text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=200)
ascii_texty = st.lists(st.sampled_from(["  ", "\n", "\r\n", "'s", "'LL", "x", "Yz", "12345", "->", "//", "\t",
                                        "...", "\x0b", "\x1c", " ", "a1", "_"]), max_size=40).map("".join)


@pytest.mark.parametrize("name", sorted(PATTERNS))
@settings(max_examples=150, deadline=None)
@given(text=st.one_of(ascii_text, ascii_texty))
def test_the_ascii_twin_splits_ascii_text_exactly_like_regex(name, text):
    pattern = PATTERNS[name]
    twin = ascii_twin(pattern)
    assert twin is not None
    assert twin.findall(text) == compile_pattern(pattern).findall(text)


def test_the_ascii_twin_agrees_on_real_code(stdlib_docs):
    text = "".join(d for d in stdlib_docs if d.isascii())
    for pattern in PATTERNS.values():
        assert ascii_twin(pattern).findall(text) == compile_pattern(pattern).findall(text)


def test_patterns_the_twin_cannot_translate_fall_back_to_regex():
    assert ascii_twin(r"\w+|\s+") is None  # \w is not translated
    assert ascii_twin(r"[\S]+") is None  # \S inside a class is not translated
    assert ascii_twin(r" ?\p{L}+|\p{N}|\s+") is not None


# ---- errors: skip in a YAML config: what read_documents(errors="skip") reads, the same warning ----


@pytest.mark.parametrize("workers", [1, 2])
def test_a_yaml_config_skips_what_read_documents_skips(tmp_path, backend, workers):
    lib = os.path.dirname(os.__file__)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("abc.py", "heapq.py", "textwrap.py"):
        shutil.copy(os.path.join(lib, name), corpus / (name[:-3] + ".txt"))
    # a good start, then a Latin-1 byte after the first block: a streamed file must not keep its start
    typing_py = open(os.path.join(lib, "typing.py"), "rb").read()
    (corpus / "big.txt").write_bytes(typing_py * 12 + "\u00e9".encode("latin-1"))  # its bad byte past the first 1 MiB block
    (corpus / "e.jsonl").write_text('{"text": "def f():\\n    return 1\\n"}\n{"text": 1}\n{"text": "x"}\n')
    raw = {"output": str(tmp_path / "t.tiktoken"), "workers": workers, "vocab_size": 700, "errors": "skip",
           "phases": [{"sources": [{"path": str(corpus)}]}]}
    with pytest.warns(UserWarning) as caught:
        tok = train_from_config(parse_config(raw), backend=backend, progress=False, log=lambda line: None,
                                write=False).tokenizer
    messages = [str(w.message) for w in caught if "skipped" in str(w.message)]
    assert len(messages) == 1 and messages[0].startswith("phase 'phase 1': skipped 2 of 5 files")
    assert f"{corpus / 'big.txt'} (not UTF-8 text (byte {os.path.getsize(corpus / 'big.txt') - 1:,}" in messages[0]
    assert f"{corpus / 'e.jsonl'} (line 2: the field 'text' is a int, not a string" in messages[0]
    with pytest.warns(UserWarning, match="skipped 2 of 5 files"):
        want = bpe_lesson.train(read_documents(corpus, errors="skip"), 700, backend=backend)
    assert tok.merges == want.merges
    with pytest.raises(ValueError, match=r"big\.txt: not UTF-8 text"):
        train_from_config(parse_config({**raw, "errors": "strict"}), progress=False, log=lambda line: None,
                          write=False)


def test_errors_in_a_config_is_checked():
    raw = {"output": "t.tiktoken", "phases": [{"merges": 1, "sources": [{"file": __file__}]}]}
    with pytest.raises(ConfigError, match=r"<config>: errors: 'ignore' should be strict .* or skip"):
        parse_config({**raw, "errors": "ignore"})
    with pytest.raises(ConfigError, match=r"<config>: errors: skip is for engine: local"):
        parse_config({**raw, "errors": "skip", "engine": "dask"})
