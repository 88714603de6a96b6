"""What a careless or hostile user tries on pack, verify, the window dataset and the chat
helpers: a clear error (file, key or position, and what would be right) every time."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import bpe_lesson
from bpe_lesson.__main__ import main as cli_main
from bpe_lesson.lm.chat import sft_targets
from bpe_lesson.lm.pack import folder_lock, pack
from bpe_lesson.lm.shards import verify
from bpe_lesson.lm.windows import SlidingWindowDataset

EOS = "<|endoftext|>"


@pytest.fixture(scope="module")
def tok_path(tmp_path_factory, prose_docs):
    path = tmp_path_factory.mktemp("tok") / "prose300.json"
    bpe_lesson.train(prose_docs[:20], 300, special_tokens=[EOS]).save(path)
    return str(path)


def jsonl(path, texts):
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    return str(path)


# ---- pack -------------------------------------------------------------------------------

def test_a_tokenizer_folder_is_a_clear_error(tmp_path, tok_path, capsys):
    src = jsonl(tmp_path / "d.jsonl", ["hello"])
    assert cli_main(["pack", src, "--tokenizer", str(tmp_path), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_out_that_is_a_file_is_a_clear_error(tmp_path, tok_path, capsys):
    src = jsonl(tmp_path / "d.jsonl", ["hello"])
    (tmp_path / "o").write_text("x")
    assert cli_main(["pack", src, "--tokenizer", tok_path, "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "is a file" in err


def test_an_unreadable_source_fails_before_anything_is_written(tmp_path, tok_path):
    # /proc/self/mem is a file whose first byte cannot be read (EIO), for root too
    out = tmp_path / "o"
    with pytest.raises(ValueError, match=r"source /proc/self/mem: cannot read it"):
        pack(["/proc/self/mem"], tok_path, str(out), progress=False)
    assert not out.exists() or os.listdir(out) == []


@pytest.mark.parametrize("name, says", [
    ("nonexistent_model", "not a vocabulary the package knows (its names: cl100k_base, llama3"),
    ("gpt-17", "not a vocabulary the package knows"),
    ("missing/tok.tiktoken", "no such file"),
])
def test_an_unknown_tokenizer_is_refused_before_a_folder_is_made(tmp_path, capsys, name, says):
    src = jsonl(tmp_path / "d.jsonl", ["hello"])
    out = tmp_path / "o"
    assert cli_main(["pack", src, "--tokenizer", name, "--out", str(out), "--quiet"]) == 2
    assert f"--tokenizer {name}: " in capsys.readouterr().err
    with pytest.raises(ValueError, match=rf"--tokenizer {name}: .*{says.replace('(', '.')}"):
        pack([src], name, str(out), progress=False)
    assert not out.exists()


@pytest.mark.parametrize("tokenizer", ["cl100k_base", "file"])
def test_a_pack_refused_before_its_first_shard_removes_the_folder_it_made(tmp_path, tok_path, tokenizer):
    # the name writes tokenizer.tiktoken into the new folder first; the refusal takes it away
    out, kept = tmp_path / "o", tmp_path / "kept"
    kept.mkdir()
    (kept / "notes.txt").write_text("mine")
    for folder in (out, kept):
        with pytest.raises(ValueError, match="no file matching"):
            pack([str(tmp_path)], tok_path if tokenizer == "file" else tokenizer, str(folder),
                 glob="*.nothing", progress=False)
    assert not out.exists()
    assert os.listdir(kept) == ["notes.txt"]  # a folder it did not make keeps what it held


def test_a_failed_fresh_pack_leaves_no_state_file(tmp_path, tok_path):
    src = jsonl(tmp_path / "d.jsonl", ["hello", "world"])
    with open(src, "a") as f:
        f.write('{"text": 5}\n')  # fails on the third line, before any shard is complete
    out = tmp_path / "o"
    with pytest.raises(ValueError, match="line 3"):
        pack([src], tok_path, str(out), progress=False)
    assert not (out / "pack_state.json").exists()


def test_jsonl_nested_deeply_is_a_clear_error(tmp_path, tok_path):
    src = tmp_path / "d.jsonl"
    src.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(ValueError, match=r"d\.jsonl, line 1: .*nests too deeply"):
        pack([str(src)], tok_path, str(tmp_path / "o"), progress=False)


@pytest.mark.parametrize("name, data, where", [("d.txt", b"ok \xff no", "byte 3"),
                                               ("d.jsonl", b'{"text": "a"}\n{"text": "\xe9"}\n', "line 2")])
def test_invalid_utf8_is_refused_naming_the_file_and_byte(tmp_path, tok_path, name, data, where):
    src = tmp_path / name
    src.write_bytes(data)
    with pytest.raises(ValueError, match=rf"{name}: not UTF-8 text \({where}|{name}, {where}: not UTF-8"):
        pack([str(src)], tok_path, str(tmp_path / "o"), progress=False)


def test_a_second_pack_into_a_locked_folder_stops_at_once(tmp_path, tok_path):
    src = jsonl(tmp_path / "d.jsonl", ["hello", "world"])
    out = tmp_path / "o"
    out.mkdir()
    # another process holds the lock until we close its stdin
    holder = subprocess.Popen([sys.executable, "-c", "import sys; from bpe_lesson.lm.pack import folder_lock\n"
                               "with folder_lock(sys.argv[1]):\n print('locked', flush=True); sys.stdin.read()",
                               str(out)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(ValueError, match=rf"another pack \(process {holder.pid}\) is writing"):
            pack([src], tok_path, str(out), progress=False)
    finally:
        holder.stdin.close()
        holder.wait()
    pack([src], tok_path, str(out), progress=False)  # free again once it is gone
    assert verify(str(out)) == []


def test_resume_refuses_a_source_edited_to_the_same_size(tmp_path, tok_path, prose_docs, monkeypatch):
    src = tmp_path / "d.jsonl"
    jsonl(src, [p for d in prose_docs[:6] for p in d.split("\n\n") if p.strip()])
    out = tmp_path / "o"
    from bpe_lesson.lm import pack as pack_mod

    # interrupt the run when it closes its third shard (two are recorded by then)
    real_close, closed = pack_mod.ShardWriter.close_shard, []

    def close_then_stop(self):
        if len(closed) == 2:
            raise KeyboardInterrupt
        closed.append(1)
        return real_close(self)

    monkeypatch.setattr(pack_mod.ShardWriter, "close_shard", close_then_stop)
    with pytest.raises(KeyboardInterrupt):
        pack([str(src)], tok_path, str(out), shard_tokens=400, workers=1, progress=False)
    monkeypatch.undo()
    assert (out / "pack_state.json").exists()
    # edit the source in place, a second later, keeping its size
    size = os.path.getsize(src)
    mtime = os.stat(src).st_mtime_ns
    src.write_bytes(src.read_bytes().replace(b"the", b"THE"))
    os.utime(src, ns=(mtime + 10**9, mtime + 10**9))
    assert os.path.getsize(src) == size
    with pytest.raises(ValueError, match=r"unfinished pack with other settings \(sources"):
        pack([str(src)], tok_path, str(out), shard_tokens=400, workers=1, progress=False)


# ---- verify -------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", ["/dev/zero", "../outside.bin", "/etc/passwd"])
def test_verify_never_opens_a_shard_path_outside_the_folder(tmp_path, tok_path, bad):
    src = jsonl(tmp_path / "d.jsonl", ["hello world"] * 3)
    out = tmp_path / "o"
    pack([src], tok_path, str(out), progress=False)
    m = json.loads((out / "manifest.json").read_text())
    m["shards"][0]["path"] = bad
    (out / "manifest.json").write_text(json.dumps(m))
    problems = verify(str(out))  # /dev/zero would never end
    assert any("index/path" in p and "shard_00000.bin" in p for p in problems)
    assert not any(p.startswith(bad) for p in problems)


def test_verify_a_manifest_nested_deeply(tmp_path):
    (tmp_path / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    assert verify(str(tmp_path)) == ["manifest.json: not a manifest: its JSON nests too deeply"]


# ---- ids in memory ---------------------------------------------------------------------------

@pytest.mark.parametrize("ids", [[1.7, 2.2, 3.0], np.array([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.0, 3.0]),
                                 torch.tensor([True, False, True])])
def test_the_window_dataset_refuses_float_ids(ids):
    with pytest.raises(ValueError, match="integers"):
        SlidingWindowDataset(ids, 1)


def test_the_window_dataset_refuses_ids_beyond_int64():
    with pytest.raises(ValueError, match=r"id 9223372036854775813 is beyond int64"):
        SlidingWindowDataset(np.array([1, 2**63 + 5], dtype=np.uint64), 1)


def test_the_window_dataset_takes_numpy_ints_and_unsigned_arrays():
    ds = SlidingWindowDataset(np.array([5, 6, 7, 8], dtype=np.uint32), context_length=np.int64(2))
    assert len(ds) == 1 and ds[0][0].tolist() == [5, 6] and ds[0][1].tolist() == [6, 7]


def test_sft_targets_name_the_targets_not_the_tokens():
    with pytest.raises(ValueError, match=r"1 on all 2 targets \(positions 1 to 2\)"):
        sft_targets([1, 2, 3], [0, 1, 1])
    with pytest.raises(ValueError, match=r"0 on all 2 targets"):
        sft_targets([1, 2, 3], [1, 0, 0])


def test_sft_targets_refuse_a_fractional_mask():
    with pytest.raises(ValueError, match=r"only 0 and 1, found \['0.5'\]"):
        sft_targets([1, 2, 3, 4], [0, 0.5, 1, 0])
