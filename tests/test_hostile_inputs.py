"""Inputs a careless or hostile user tries: each gets a clear error (naming the file,
the key or the position and what would be right) or the documented behaviour,
never a traceback from deep inside, a silent change, or half a file."""

import gzip
import json
import os
import stat
import subprocess
import sys
import warnings

import numpy as np
import pytest
import tiktoken
import torch

import bpe_lesson
from bpe_lesson.tokenizer import tiktoken_io
from bpe_lesson._internal import files as _files
from bpe_lesson.patterns import check_pattern
from bpe_lesson.tokenizer import Tokenizer


@pytest.fixture(scope="module")
def small():
    return bpe_lesson.train(["hello hello world, the cat sat on the mat"] * 3, 280, pattern="gpt4",
                            special_tokens=["<|endoftext|>"])


def _umask():
    old = os.umask(0o022)
    os.umask(old)
    return old


# ---- a .tiktoken file and its sidecar are one pair ------------------------------------

def test_the_sidecar_records_the_ranks_files_sha256(small, tmp_path):
    path = tmp_path / "t.tiktoken"
    small.save_tiktoken(path)
    side = json.loads((tmp_path / "t.tiktoken.json").read_text())
    assert side["ranks_sha256"] == tiktoken_io.sha256_hex(path.read_bytes())


def test_new_ranks_beside_an_old_sidecar_are_refused_naming_both_files(small, tmp_path):
    # what a kill between the two renames leaves: the new ranks, the old sidecar
    path = tmp_path / "t.tiktoken"
    small.save_tiktoken(path)
    old_side = (tmp_path / "t.tiktoken.json").read_bytes()
    bigger = bpe_lesson.train(["a different text, a different vocabulary"] * 3, 290, pattern="gpt2")
    bigger.save_tiktoken(path)
    (tmp_path / "t.tiktoken.json").write_bytes(old_side)
    with pytest.raises(ValueError) as e:
        bpe_lesson.load(path)
    msg = str(e.value)
    assert str(path) in msg and str(tmp_path / "t.tiktoken.json") in msg and "sha256" in msg


def test_a_killed_writer_leaves_no_temporary_file_behind(tmp_path):
    # a writer killed with SIGKILL cannot clean up; the next write into the folder does
    code = ("import os, tempfile, sys; d = sys.argv[1];"
            "fd, p = tempfile.mkstemp(prefix='.t.tiktoken.' + str(os.getpid()) + '.', suffix='.tmp', dir=d);"
            "os.write(fd, b'half')")
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True)  # its process is gone now
    assert len(list(tmp_path.glob(".t.tiktoken.*.tmp"))) == 1
    _files.atomic_write(tmp_path / "t.tiktoken", b"whole")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.tiktoken"]


def test_a_live_writers_temporary_file_is_left_alone(tmp_path):
    live = tmp_path / f".t.tiktoken.{os.getpid()}.abc.tmp"  # this process is alive
    live.write_bytes(b"in progress")
    _files.atomic_write(tmp_path / "t.tiktoken", b"whole")
    assert live.exists()


def test_written_files_honour_the_umask(small, tmp_path):
    expect = 0o666 & ~_umask()
    small.save(tmp_path / "t.json")
    small.save_tiktoken(tmp_path / "t.tiktoken")
    for name in ("t.json", "t.tiktoken", "t.tiktoken.json"):
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == expect, name


# ---- text the pattern does not cover ------------------------------------------------

@pytest.mark.parametrize("pattern", [r"[a-z]+", r"\w+", "", r"\s"])
def test_a_pattern_that_drops_common_text_is_refused_up_front(pattern):
    with pytest.raises(ValueError, match=r"leaves .* unmatched"):
        Tokenizer([], pattern=pattern)


def test_text_the_pattern_leaves_unmatched_is_refused_with_its_position(backend):
    # the pattern covers the common text it is checked on, but not this one emoji
    tok = Tokenizer([], pattern="[^\U0001F99C]+", backend=backend)
    assert tok.decode(tok.encode("Hello, World! 42")) == "Hello, World! 42"
    with pytest.raises(ValueError, match=r"character 7 \(U\+1F99C, .*not matched"):
        tok.encode("Hello, \U0001F99C!")


def test_train_refuses_a_pattern_that_drops_text():
    with pytest.raises(ValueError, match=r"leaves .* unmatched"):
        bpe_lesson.train("Hello, World! 42", 300, pattern=r"[a-z]+")
    with pytest.raises(ValueError, match=r"leaves .* unmatched"):
        bpe_lesson.train("Hello, World! 42", 300, pattern="")


def test_a_sidecar_pattern_that_drops_text_is_refused_naming_the_file(small, tmp_path):
    path = tmp_path / "t.tiktoken"
    small.save_tiktoken(path)
    side = json.loads((tmp_path / "t.tiktoken.json").read_text())
    side["pattern"] = "[a-z]+"
    (tmp_path / "t.tiktoken.json").write_text(json.dumps(side))
    with pytest.raises(ValueError, match=r"t\.tiktoken\.json: pattern: "):
        bpe_lesson.load(path)


def test_a_pattern_that_backtracks_exponentially_is_refused():
    with pytest.raises(ValueError, match="backtrack"):
        check_pattern(r"(?:a|aa)+$|[\s\S]")  # covers all text, but slowly
    check_pattern(r"'s|\w+|\s+|[^\w\s]+")  # a reasonable one passes


# ---- hand-edited tokenizer files ------------------------------------------------------

@pytest.mark.parametrize("specials, key", [({"<s>": -5}, "<s>"), ({"<s>": 10**20}, "<s>"), ({"": 300}, "''"),
                                           ({"<s>": True}, "<s>"), ({"<s>": 300.5}, "<s>")])
def test_bad_special_tokens_in_a_json_file_are_refused_naming_file_and_key(small, tmp_path, specials, key):
    d = small.to_dict()
    d["special_tokens"] = specials
    path = tmp_path / "t.json"
    path.write_text(json.dumps(d))
    with pytest.raises(ValueError) as e:
        bpe_lesson.load(path)
    assert str(path) in str(e.value) and "special_tokens" in str(e.value) and key in str(e.value)


@pytest.mark.parametrize("side, key", [([], "object"), (None, "object"), ({"special_tokens": ["<a>"]}, "special_tokens"),
                                       ({"pattern": 5}, "pattern"), ({"special_tokens": {"<a>": "300"}}, "<a>"),
                                       ({"special_tokens": {"<a>": 300.5}}, "<a>"), ({"name": 3}, "name"),
                                       ({"normalize": "NFX"}, "normalize")])
def test_bad_sidecars_are_refused_naming_the_file_and_the_key(small, tmp_path, side, key):
    path = tmp_path / "t.tiktoken"
    small.save_tiktoken(path)
    (tmp_path / "t.tiktoken.json").write_text(json.dumps(side))
    with pytest.raises(ValueError) as e:
        bpe_lesson.load(path)
    assert str(tmp_path / "t.tiktoken.json") in str(e.value) and key in str(e.value)


@pytest.mark.parametrize("name, text", [
    ("t.tiktoken.json", '{"special_tokens": {"<a>": ' + "3" * 5000 + '}}'),
    ("t.json", '{"special_tokens": {"<a>": ' + "3" * 5000 + '}}'),
])
def test_an_integer_past_pythons_4300_digits_is_refused_naming_file_and_key(small, tmp_path, name, text):
    small.save_tiktoken(tmp_path / "t.tiktoken")
    if name == "t.json":  # a whole JSON tokenizer file: put the integer into its specials
        small.save(tmp_path / "t.json")
        whole = (tmp_path / "t.json").read_text()
        text = whole.replace('"special_tokens": {', '"special_tokens": {"<a>": ' + "3" * 5000 + ", ")
        assert text != whole
    (tmp_path / name).write_text(text)
    with pytest.raises(ValueError) as e:
        bpe_lesson.load(tmp_path / name.replace(".tiktoken.json", ".tiktoken"))
    assert str(tmp_path / name) in str(e.value) and "<a>" in str(e.value)


def test_a_json_file_nested_deeply_is_a_clear_error(tmp_path):
    path = tmp_path / "t.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="t.json"):
        bpe_lesson.load(path)


@pytest.mark.parametrize("rank", [2**32 - 1, 2**32, 10**30])
def test_ranks_beyond_32_bits_are_refused_at_load(tmp_path, rank):
    lines = [f"{__import__('base64').b64encode(bytes([i])).decode()} {i}" for i in range(256)]
    lines.append(f"YWI= {rank}")
    path = tmp_path / "big.tiktoken"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=r"line 257: rank .* above"):
        bpe_lesson.load(path)


def test_a_gzip_bomb_stops_at_the_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(tiktoken_io, "MAX_TIKTOKEN_BYTES", 1 << 20)
    path = tmp_path / "bomb.tiktoken.gz"
    path.write_bytes(gzip.compress(b"\0" * (8 << 20)))
    with pytest.raises(ValueError, match=r"bomb\.tiktoken\.gz: .*more than 1,048,576 bytes"):
        bpe_lesson.load(path)


def test_an_unrecognised_file_without_sidecar_warns(tmp_path):
    # cl100k with CRLF line ends: same tokens, other bytes, so not the known file
    data = open(tiktoken_io.offline_path("cl100k_base"), "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    path = tmp_path / "cl100k_crlf.tiktoken"
    path.write_bytes(data.replace(b"\n", b"\r\n"))
    with pytest.warns(UserWarning, match=r"no sidecar .*not one of the known vocabularies.*pattern=None"):
        tok = bpe_lesson.load(path)
    assert tok.pattern is None and tok.special_tokens == {}


def test_the_known_file_without_sidecar_does_not_warn(tmp_path):
    data = open(tiktoken_io.offline_path("cl100k_base"), "rb").read()
    path = tmp_path / "cl100k_base.tiktoken"
    path.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tok = bpe_lesson.load(path)
    assert tok.special_tokens["<|endoftext|>"] == 100257


# ---- argument types -------------------------------------------------------------------

def test_special_tokens_as_one_string_is_refused():
    with pytest.raises(TypeError, match="list of strings"):
        bpe_lesson.train("hello world", 300, special_tokens="EOS")


def test_encode_batch_of_one_string_is_refused(small):
    with pytest.raises(TypeError, match="list of texts"):
        small.encode_batch("abc")


@pytest.mark.parametrize("arg", ["allowed_special", "disallowed_special"])
def test_a_special_token_as_a_string_is_refused(small, arg):
    with pytest.raises(TypeError, match=r"\{'<\|endoftext\|>'\}"):
        small.encode("hi", **{arg: "<|endoftext|>"})


@pytest.mark.parametrize("ids", [torch.tensor([104, 105]), np.array([104, 105], dtype=np.uint64),
                                 [np.int64(104), np.int32(105)], np.array([104, 105])])
def test_decode_accepts_integer_tensors_arrays_and_numpy_ints(small, ids):
    assert small.decode(ids) == "hi"


@pytest.mark.parametrize("ids", [[15.0], torch.tensor([15.0]), np.array([15.0]), [True]])
def test_decode_refuses_floats_and_bools(small, ids):
    with pytest.raises(TypeError, match="integer"):
        small.decode(ids)


def test_decode_names_a_tensor_id_as_a_number(small):
    with pytest.raises(ValueError, match=r"id 100000 is not"):
        small.decode(torch.tensor([104, 100000]))
    with pytest.raises(ValueError, match=rf"id {2**63 + 5} is not"):
        small.decode(np.array([2**63 + 5], dtype=np.uint64))


# ---- lone surrogates: one rule ---------------------------------------------------------

def test_training_maps_lone_surrogates_to_fffd_as_encode_does(backend):
    tok = bpe_lesson.train("aa\ud800bb aa\ud800bb", 270, pattern="gpt4", backend=backend)
    same = bpe_lesson.train("aa\ufffdbb aa\ufffdbb", 270, pattern="gpt4", backend=backend)
    assert tok.merges == same.merges
    # independent: the textbook trainer on the replaced text
    assert same.merges == bpe_lesson.train("aa\ufffdbb aa\ufffdbb", 270, pattern="gpt4", algorithm="textbook").merges
    assert tok.encode("aa\ud800bb") == same.encode("aa\ufffdbb")
