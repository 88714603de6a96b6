"""Progress bars (``_internal/progress.py``): on stderr, never stdout; off unless asked or on a terminal.

Each case reads what the process wrote to its real file descriptors 1 and 2
(``capfd``, so a bar written past ``sys.stderr`` would still be caught).
"""

import io
import os
import subprocess
import sys

import pytest

import bpe_lesson
from bpe_lesson._internal.progress import progress_bar
from bpe_lesson.scale.config import ConfigError, parse_config
from bpe_lesson.scale.phases import train_from_config

N = 120


@pytest.fixture(scope="module")
def text(prose_docs):
    return prose_docs[:20]


def test_progress_true_draws_the_bar_on_stderr_only(text, capfd, backend):
    tok = bpe_lesson.train(text, 256 + N, backend=backend, progress=True)
    out, err = capfd.readouterr()
    assert len(tok.merges) == N
    assert out == ""
    assert "merges" in err and f"{N}/{N}" in err


@pytest.mark.parametrize("progress", [False, None])  # None: stderr here is not a terminal
def test_no_bar_when_false_or_off_a_terminal(text, capfd, backend, progress):
    bpe_lesson.train(text, 256 + N, backend=backend, progress=progress)
    assert capfd.readouterr() == ("", "")


def test_a_bad_progress_value_is_named(text):
    with pytest.raises(ValueError, match=r"progress 'yes' should be true, false, or none"):
        bpe_lesson.train(text, 300, progress="yes")


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_none_draws_on_a_terminal_only(monkeypatch):
    for stream, shown in ((FakeTerminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr(sys, "stderr", stream)
        with progress_bar(None, delay=0, total=3, desc="steps") as bar:
            bar.update(3)
        assert ("3/3" in stream.getvalue()) is shown


def yaml_config(folder, **fields):
    (folder / "a.txt").write_text("low lower lowest newer wider " * 200)
    return {"output": str(folder / "t.tiktoken"), "hardcoded_merges": False, **fields,
            "phases": [{"name": "one", "merges": 40, "sources": [{"file": str(folder / "a.txt")}]}]}


@pytest.mark.parametrize("progress, shown", [(True, True), (False, False), (None, False)])
def test_the_yaml_progress_field(tmp_path, capfd, progress, shown):
    cfg = parse_config(yaml_config(tmp_path, progress=progress))
    train_from_config(cfg, log=lambda line: None, write=False)
    out, err = capfd.readouterr()
    assert out == "" and ("phase one: merges" in err) is shown


def test_the_yaml_progress_field_is_checked(tmp_path):
    with pytest.raises(ConfigError, match=r"progress: 'on' should be true"):
        parse_config(yaml_config(tmp_path, progress="on"))


def test_the_command_line_draws_no_bar_into_a_pipe(tmp_path):
    import yaml

    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(yaml_config(tmp_path, progress=True)))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(bpe_lesson.__file__)))
    done = subprocess.run([sys.executable, "-m", "bpe_lesson", "train", "-c", str(tmp_path / "cfg.yaml")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "training 1 phase(s)" in done.stderr  # the lines it prints
    assert "phase one: merges" not in done.stderr and "\r" not in done.stderr  # but no bar
    assert done.stdout.startswith("wrote ")
