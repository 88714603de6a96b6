"""Hostile YAML configs (issue 39, items 9 and 11, and the non-UTF-8 low item).

A 451-byte file of nested aliases took over 30 s and 1.3 GB to build its error
message; a 267-byte one printed 480 KB; ``threads: 64`` (now ``workers:``) started
64 processes on 2 cores and ``threads: 100000`` was accepted. Each file is loaded
in a subprocess with a timeout, so a regression fails instead of hanging the suite.
"""

import os
import subprocess
import sys
import textwrap
import warnings

import pytest

from bpe_lesson._compiled.backend import CORES
from bpe_lesson.scale.config import ConfigError, load_config

HANG_SECONDS = 20  # far above the milliseconds a refusal takes; bounds a hang, syncs nothing


def laughs(levels: int, width: int = 9) -> str:
    """A "billion laughs" config: each level an alias list of ``width`` copies of the last."""
    lines = ["a0: &a0 [" + ",".join(["lol"] * width) + "]"]
    for k in range(1, levels):
        lines.append(f"a{k}: &a{k} [" + ",".join([f"*a{k - 1}"] * width) + "]")
    return "\n".join(lines + ["output: o.tiktoken", f"phases: *a{levels - 1}"]) + "\n"


def load_in_child(path) -> subprocess.CompletedProcess:
    code = textwrap.dedent(f"""
        from bpe_lesson.scale.config import load_config
        load_config({str(path)!r})
    """)
    try:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_SECONDS,
                              env=os.environ)
    except subprocess.TimeoutExpired:
        pytest.fail(f"load_config did not end within {HANG_SECONDS} s")


def test_nested_aliases_are_refused_at_once_with_a_short_message(tmp_path):
    path = tmp_path / "laughs.yaml"
    path.write_text(laughs(9), encoding="utf-8")
    assert len(path.read_bytes()) <= 460  # the 451 bytes, give or take the names
    r = load_in_child(path)
    last = r.stderr.strip().splitlines()[-1]
    assert r.returncode != 0 and "ConfigError" in last and "aliases expand to more than 100,000" in last, r.stderr
    assert str(path) in last and len(r.stderr) < 4000


def test_a_value_in_a_message_is_cut(tmp_path):
    path = tmp_path / "small_laughs.yaml"  # under the alias bound, but 9**4 items in one wrong value
    levels = ["&a0 [" + ",".join(["lol"] * 9) + "]"] + [f"&a{k} [" + ",".join([f"*a{k - 1}"] * 9) + "]"
                                                         for k in range(1, 5)]
    path.write_text("output: [" + ", ".join(levels) + "]\nphases: []\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"small_laughs\.yaml: output: \[\['lol'") as e:
        load_config(path)
    assert len(str(e.value)) < 300, len(str(e.value))  # before: hundreds of kilobytes


def test_a_non_utf8_config_names_its_file(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("output: caf\u00e9.tiktoken\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=r"latin1\.yaml: not UTF-8 text \(byte 11: invalid continuation"):
        load_config(path)


def config_with_workers(tmp_path, workers):
    (tmp_path / "c.txt").write_text("hello world\n", encoding="utf-8")
    path = tmp_path / "c.yaml"
    path.write_text(f"output: o.tiktoken\nworkers: {workers}\nphases:\n  - merges: 5\n    sources: "
                    f"[{{file: c.txt}}]\n", encoding="utf-8")
    return path


def test_workers_above_the_cores_warn_and_are_capped(tmp_path):
    with pytest.warns(UserWarning, match=rf"workers: {CORES + 62} is more than the {CORES} cores"):
        cfg = load_config(config_with_workers(tmp_path, CORES + 62))
    assert cfg.workers == CORES
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning at or below the cores
        assert load_config(config_with_workers(tmp_path, CORES)).workers == CORES


def test_absurd_workers_are_refused(tmp_path):
    with pytest.raises(ConfigError, match=r"c\.yaml: workers: 100,000 worker processes is absurd"):
        load_config(config_with_workers(tmp_path, 100000))


def test_one_rule_bounds_workers_for_pack_too(tmp_path):
    # issue 48, Medium 7: the YAML trainer's bound, for pack (which had asked for Pool(250000))
    from bpe_lesson.lm.pack import pack

    src = tmp_path / "a.txt"
    src.write_text("hello world\n" * 10, encoding="utf-8")
    with pytest.raises(ValueError, match=r"workers: 250,000 worker processes is absurd \(at most 1,024\)"):
        pack([src], "cl100k_base", tmp_path / "out", workers=250_000)
    assert not (tmp_path / "out").exists()  # refused before the folder is made
    with pytest.warns(UserWarning, match=rf"workers: {CORES + 38} is more than the {CORES} cores"):
        pack([src], "cl100k_base", tmp_path / "out2", workers=CORES + 38)


def test_the_output_is_never_an_input(tmp_path):
    # issue 48, Medium 5: output: ./keep.tiktoken with file: ./keep.tiktoken, and path: . + glob "*"
    (tmp_path / "keep.tiktoken").write_text("a precious file\n", encoding="utf-8")
    (tmp_path / "c.txt").write_text("hello world\n", encoding="utf-8")
    path = tmp_path / "c.yaml"
    path.write_text("output: ./keep.tiktoken\nphases:\n  - merges: 5\n    sources: [{file: ./keep.tiktoken}]\n",
                    encoding="utf-8")
    with pytest.raises(ConfigError, match=r"c\.yaml: phases\[0\]\.sources\[0\]\.file: .*keep\.tiktoken is, or holds no file but, "
                                         r"the output"):
        load_config(path)
    path.write_text("output: ./keep.tiktoken\nphases:\n  - merges: 5\n    sources: [{path: ., glob: \"*\"}]\n",
                    encoding="utf-8")
    files = [os.path.basename(f) for f in load_config(path).phases[0].sources[0].files]
    assert "keep.tiktoken" not in files and "c.txt" in files


def test_pack_never_reads_its_own_folder(tmp_path):
    # issue 48, Medium 6: pack src --glob '*' --out src/shards packed its lock and tokenizer files
    from bpe_lesson.lm.pack import pack

    src = tmp_path / "src"
    src.mkdir()
    for name in ("a.txt", "b.txt"):
        (src / name).write_text(f"{name} hello\n", encoding="utf-8")
    for _ in range(2):  # a rerun sees the shards of the first run, and leaves them out too
        manifest = pack([src], "cl100k_base", src / "shards", glob="*", overwrite=True)
        assert manifest["documents"] == 2 and manifest["total_tokens"] == 10  # "a.txt hello\n" is 4 ids + EOS
    with pytest.raises(ValueError, match=r"source .*shards.* is inside the output .*shards"):
        pack([src / "a.txt", next(p for p in (src / "shards").iterdir() if p.is_file())], "cl100k_base",
             src / "shards", overwrite=True)
