"""Packing on a Dask cluster (lm/dask_pack.py): the local pack's bytes, a worker killed mid-write,
and resuming a killed run.

The reference is ``pack(engine="local")``, whose shards ``test_pack.py`` checks
against the tokenizer; here the Dask engine must give the same files, byte for
byte (every shard and the manifest), and its ids must be tiktoken's encoding of
the documents. After every test no child process and no
listening port is left.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
from functools import partial

import numpy as np
import pydoc_data.topics
import pytest

import bpe_lesson
from bpe_lesson._internal.cluster import dask_client, leftovers
from bpe_lesson.__main__ import main as cli_main
from bpe_lesson.formats.documents import expand_sources, iter_documents
from bpe_lesson.tokenizer.tiktoken_io import to_tiktoken
from bpe_lesson.lm import dask_pack
from bpe_lesson.lm.dask_pack import write_shard
from bpe_lesson.lm.pack import pack
from bpe_lesson.lm.shards import read_manifest, verify

pytest.importorskip("distributed")
EOS = "<|endoftext|>"


@pytest.fixture(scope="module")
def cluster():
    """One LocalCluster of 2 workers for the tests that take a scheduler address; then nothing left."""
    assert leftovers() == [], "something was running before the cluster started"
    with dask_client(workers=2) as client:
        yield client.scheduler.address
    assert leftovers() == [], "closing the cluster left a process or a port"


@pytest.fixture(autouse=True)
def nothing_left_running():
    """After each test, the same child processes and listening ports as before it (the shared cluster's)."""
    before = sorted(leftovers())
    yield
    assert sorted(leftovers()) == before, "the test left part of a cluster running"


@pytest.fixture(autouse=True)
def small_groups(monkeypatch):
    """Encoding tasks of 100 kB, so that shards are cut from several parts."""
    monkeypatch.setattr(dask_pack, "GROUP_BYTES", 100_000)


@pytest.fixture(scope="module")
def tok_path(tmp_path_factory, prose_docs):
    path = tmp_path_factory.mktemp("tok") / "prose512.json"
    bpe_lesson.train(prose_docs, 512, special_tokens=[EOS]).save(path)
    return str(path)


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """pydoc's help topics as .jsonl (every 40th one emptied) and a folder of stdlib modules."""
    root = tmp_path_factory.mktemp("docs")
    topics = [pydoc_data.topics.topics[k] for k in sorted(pydoc_data.topics.topics)]
    topics[::40] = [""] * len(topics[::40])
    with open(root / "topics.jsonl", "w", encoding="utf-8") as f:
        for t in topics:
            f.write(json.dumps({"text": t}) + "\n")
    code = root / "code"
    code.mkdir()
    lib = os.path.dirname(os.__file__)
    for name in ("abc.py", "bisect.py", "heapq.py", "textwrap.py", "string.py", "fnmatch.py"):
        shutil.copy(os.path.join(lib, name), code / f"{name}.txt")  # a folder: its .txt files
    return [str(root / "topics.jsonl"), str(code)]


def folder_bytes(folder):
    return {name: open(os.path.join(folder, name), "rb").read() for name in sorted(os.listdir(folder))}


@pytest.fixture(scope="module")
def local_pack(tmp_path_factory, sources, tok_path):
    out = str(tmp_path_factory.mktemp("local") / "out")
    pack(sources, tok_path, out, shard_tokens=40_000, workers=1, progress=False)
    return out


def test_dask_pack_writes_the_local_bytes(tmp_path, sources, tok_path, local_pack):
    out = str(tmp_path / "out")
    m = pack(sources, tok_path, out, shard_tokens=40_000, workers=2, progress=False, engine="dask")
    assert m["shard_count"] >= 5 and m["empty_documents_skipped"] > 0
    assert folder_bytes(out) == folder_bytes(local_pack)  # every shard and manifest.json; no parts left
    assert verify(out, tok_path) == []
    # independent of both engines: tiktoken's ids for each non-empty document, then EOS
    tok = bpe_lesson.load(tok_path)
    enc, eos = to_tiktoken(tok), tok.special_tokens[EOS]
    m, _ = read_manifest(out)
    dt = np.dtype(m["dtype"]).newbyteorder("<")
    ids = np.concatenate([np.fromfile(os.path.join(out, s["path"]), dtype=dt) for s in m["shards"]])
    docs = [text for _, text in iter_documents(expand_sources(sources)) if text]
    assert ids.tolist() == [i for d in docs for i in enc.encode_ordinary(d) + [eos]]


def test_the_command_line_takes_engine_and_scheduler(tmp_path, sources, tok_path, local_pack, cluster):
    out = str(tmp_path / "out")
    args = ["pack", *sources, "--tokenizer", tok_path, "--out", out, "--shard-tokens", "40000", "--quiet",
            "--engine", "dask", "--scheduler", cluster]
    assert cli_main(args) == 0
    assert folder_bytes(out) == folder_bytes(local_pack)


def test_an_unreachable_scheduler_is_named(tmp_path, sources, tok_path, capsys):
    args = ["pack", *sources, "--tokenizer", tok_path, "--out", str(tmp_path / "out"), "--quiet",
            "--engine", "dask", "--scheduler", "tcp://127.0.0.1:9"]
    assert cli_main(args) == 2
    assert "error: no Dask scheduler answered at tcp://127.0.0.1:9 within 5 s" in capsys.readouterr().err


def _die_in_write(index, pieces, dtype, n_eos, out_dir, marker):
    """write_shard, except that the first worker to write shard 2 dies halfway, its file half written."""
    if index == 2 and not os.path.exists(marker):
        with open(os.path.join(out_dir, f".shard_00002.bin.{os.getpid()}.tmp"), "wb") as f:
            f.write(b"half a shard")
        open(marker, "w").close()
        os._exit(1)
    return write_shard(index, pieces, dtype, n_eos, out_dir)


def test_a_worker_killed_mid_write_changes_nothing(tmp_path, sources, tok_path, local_pack, monkeypatch):
    marker = str(tmp_path / "died")
    monkeypatch.setattr(dask_pack, "write_shard", partial(_die_in_write, marker=marker))
    out = str(tmp_path / "out")
    with dask_client(workers=2) as client:  # its own cluster: the nanny replaces the dead worker
        pack(sources, tok_path, out, shard_tokens=40_000, progress=False, engine="dask",
             scheduler=client.scheduler.address)
    assert os.path.exists(marker), "no worker died"
    assert folder_bytes(out) == folder_bytes(local_pack)  # shard 2 written again; the half file removed


# A pack whose client (and, with it, its LocalCluster) is killed as soon as the state
# file records its second shard: synchronised on that write, not on a clock.
KILL_AFTER_TWO_SHARDS = """
import os, signal, sys
import bpe_lesson.lm.pack as pack
from bpe_lesson.__main__ import main
from bpe_lesson.lm import dask_pack
from bpe_lesson.lm.dask_pack import write_shard
dask_pack.GROUP_BYTES = 100_000
write = pack._write_json
def write_then_die(path, obj):
    write(path, obj)
    if path.endswith("pack_state.json") and len(obj["shards"]) == 2:
        os.killpg(0, signal.SIGKILL)  # the client, the nannies and the workers: all of this session
pack._write_json = write_then_die
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("resume_engine", ["dask", "local"])
def test_a_killed_dask_pack_resumes_to_the_same_bytes(tmp_path, sources, tok_path, local_pack, cluster,
                                                      resume_engine):
    out = str(tmp_path / "out")
    args = ["pack", *sources, "--tokenizer", tok_path, "--out", out, "--shard-tokens", "40000", "--quiet",
            "--engine", "dask", "--workers", "2"]
    proc = subprocess.run([sys.executable, "-c", KILL_AFTER_TWO_SHARDS, *args], capture_output=True,
                          start_new_session=True)  # its own process group, which it kills
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
    with open(os.path.join(out, "pack_state.json")) as f:
        assert len(json.load(f)["shards"]) == 2
    assert not os.path.exists(os.path.join(out, "manifest.json"))
    assert any(name.startswith(".parts-") for name in os.listdir(out))  # the encoded parts, kept for the resume
    args = args[:-4] + (["--engine", "dask", "--scheduler", cluster] if resume_engine == "dask" else [])
    assert cli_main(args) == 0
    assert folder_bytes(out) == folder_bytes(local_pack)
