"""Files and folders a hostile user hands the readers (issue 39, item 4).

Each call runs in a subprocess with a timeout: a reader that opens a FIFO blocks
forever and one that follows a link to ``..`` walks until killed, and a test of
that must fail, not hang. The timeout bounds a hang; nothing waits on it to sync.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

HANG_SECONDS = 20  # far above the < 1 s each refusal takes on a loaded machine


def run(code: str, cwd) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter; fail (not hang) if it does not end."""
    try:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, capture_output=True,
                              text=True, timeout=HANG_SECONDS, env=os.environ)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the call did not end within {HANG_SECONDS} s (it blocks or loops):\n{code}")


def refused(code: str, cwd, *names) -> str:
    r = run(code, cwd)
    assert r.returncode != 0, f"accepted: {r.stdout}"
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith(("ValueError", "FileNotFoundError", "bpe_lesson")), r.stderr
    for n in names:
        assert n in last, last
    return last


@pytest.fixture
def tok_path(tmp_path):
    from bpe_lesson.trainer import train
    path = tmp_path / "tok.json"
    train("alpha beta gamma delta " * 40, 280, special_tokens=["<|endoftext|>"]).save(path)
    return str(path)


@pytest.fixture
def corpus(tmp_path):
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_text("alpha beta\n", encoding="utf-8")
    (src / "sub" / "b.txt").write_text("gamma\n", encoding="utf-8")
    return src


def listed(cwd, folder):
    r = run(f"""
        import json
        from bpe_lesson.lm.pack import expand_sources
        from bpe_lesson.scale.sources import list_files
        print(json.dumps([expand_sources({str(folder)!r}), list_files({str(folder)!r})]))
        """, cwd)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("target", [".", ".."])
def test_a_link_to_a_folder_inside_the_sources_is_not_followed(corpus, tmp_path, target):
    os.symlink(target, corpus / "sub" / "loop")
    want = sorted([str(corpus / "a.txt"), str(corpus / "sub" / "b.txt")])  # by hand: the two real files
    packed, trained = listed(tmp_path, corpus)
    assert packed == want and trained == want


def test_a_link_to_a_file_already_listed_is_read_once(corpus, tmp_path):
    os.symlink(corpus / "a.txt", corpus / "c.txt")
    packed, trained = listed(tmp_path, corpus)
    assert len(packed) == len(trained) == 2


def test_pack_of_a_folder_with_a_link_to_itself_packs_each_document_once(corpus, tmp_path, tok_path):
    os.symlink(".", corpus / "self")
    out = tmp_path / "out"
    r = run(f"""
        from bpe_lesson.lm.pack import pack
        from bpe_lesson.lm.shards import read_manifest
        pack({str(corpus)!r}, {tok_path!r}, {str(out)!r}, progress=False)
        print(read_manifest({str(out)!r})[0]["documents"])
        """, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[-1] == "2"


def test_a_fifo_in_the_sources_is_refused_by_name(corpus, tmp_path):
    fifo = corpus / "sub" / "pipe.txt"
    os.mkfifo(fifo)
    for call in ("expand_sources", "list_files"):
        module = "bpe_lesson.lm.pack" if call == "expand_sources" else "bpe_lesson.scale.sources"
        msg = refused(f"from {module} import {call}; {call}({str(corpus)!r})", tmp_path, str(fifo), "FIFO")
        assert "folder" not in msg


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_source_that_is_not_a_regular_file_is_refused(tmp_path, kind):
    p = tmp_path / "in.txt"
    os.mkfifo(p) if kind == "fifo" else os.symlink("/dev/zero", p)
    what = "FIFO" if kind == "fifo" else "character device"
    refused(f"from bpe_lesson.lm.pack import expand_sources; expand_sources({str(p)!r})", tmp_path, str(p), what)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder"])
@pytest.mark.parametrize("name", ["tok.json", "tok.tiktoken"])
def test_load_refuses_what_is_not_a_regular_file(tmp_path, kind, name):
    p = tmp_path / name
    {"fifo": os.mkfifo, "dev-zero": lambda q: os.symlink("/dev/zero", q), "folder": os.mkdir}[kind](p)
    msg = refused(f"from bpe_lesson import Tokenizer; Tokenizer.load({str(p)!r})", tmp_path, str(p))
    assert ("folder" in msg) == (kind == "folder"), msg


def test_a_sidecar_that_is_a_folder_is_refused_by_name(tmp_path):
    p = tmp_path / "t.tiktoken"
    r = run(f"""
        from bpe_lesson.trainer import train
        train("hello world hello there " * 50, 300).save_tiktoken({str(p)!r})
        """, tmp_path)
    assert r.returncode == 0, r.stderr
    from bpe_lesson.tokenizer.tiktoken_io import sidecar_path
    sp = sidecar_path(str(p))
    os.unlink(sp)
    os.mkdir(sp)
    refused(f"from bpe_lesson import Tokenizer; Tokenizer.load({str(p)!r})", tmp_path, sp, "folder")


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_train_config_that_is_not_a_file_is_a_clear_error(tmp_path, kind):
    p = tmp_path / "cfg.yaml"
    os.mkdir(p) if kind == "folder" else os.mkfifo(p)
    r = run(f"""
        import sys
        from bpe_lesson.__main__ import main
        sys.exit(main(["train", "-c", {str(p)!r}]))
        """, tmp_path)
    assert r.returncode != 0
    assert "Traceback" not in r.stderr, r.stderr
    assert str(p) in r.stderr and ("folder" if kind == "folder" else "FIFO") in r.stderr, r.stderr


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "short"])
def test_verify_refuses_a_shard_that_is_not_its_size_without_hashing_it(corpus, tmp_path, kind, tok_path):
    out = tmp_path / "out"
    r = run(f"""
        from bpe_lesson.lm.pack import pack
        pack({str(corpus)!r}, {tok_path!r}, {str(out)!r}, progress=False)
        """, tmp_path)
    assert r.returncode == 0, r.stderr
    shard = out / json.loads((out / "manifest.json").read_text())["shards"][0]["path"]
    shard.unlink()
    if kind == "fifo":
        os.mkfifo(shard)
    elif kind == "dev-zero":
        os.symlink("/dev/zero", shard)
    else:
        shard.write_bytes(b"\0\0")
    r = run(f"from bpe_lesson.lm.shards import verify; print(verify({str(out)!r}))", tmp_path)
    assert r.returncode == 0, r.stderr
    problems = eval(r.stdout)  # a list of str printed by repr
    assert problems and all(shard.name in p for p in problems), problems
    want = {"fifo": "FIFO", "dev-zero": "character device", "short": "n_tokens"}[kind]
    assert want in problems[0] and not any("sha256" in p for p in problems), problems
