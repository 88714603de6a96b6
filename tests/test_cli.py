"""The command-line parser: each subcommand's options, --help, and the errors it reports.

The expected options are written out here by hand (what a user types); the
parser is ``cli.build_parser``, the one ``bpe-lesson`` and ``python -m
bpe_lesson`` run. A bad command line exits with argparse's status 2 and a
message naming what is wrong. What the subcommands do is tested with their
modules (tests/scale/, tests/lm/).
"""

import os
import subprocess
import sys

import pytest

from bpe_lesson import __main__ as cli


def parse(*argv):
    return vars(cli.build_parser().parse_args(list(argv)))


def fails(capsys, *argv):
    """Parse a bad command line: its exit status and the last line it printed on stderr."""
    with pytest.raises(SystemExit) as e:
        cli.build_parser().parse_args(list(argv))
    return e.value.code, capsys.readouterr().err.strip().splitlines()[-1]


def test_the_subcommands():
    assert list(cli.COMMANDS) == ["train", "pack", "verify"]


TRAIN_FLAGS = {"sources": [], "vocab_size": None, "output": None, "pattern": None, "special_tokens": None,
               "algorithm": None, "backend": None, "workers": None, "normalize": None, "tie_break": None,
               "min_frequency": None, "max_token_length": None, "text_field": None, "glob": None, "errors": None,
               "verbose": None}


def test_train_options():
    assert parse("train", "-c", "tok.yaml") == {"command": "train", "config": "tok.yaml", "quiet": False,
                                                **TRAIN_FLAGS}
    assert parse("train", "--config", "tok.yaml", "--quiet") == {"command": "train", "config": "tok.yaml",
                                                                 "quiet": True, **TRAIN_FLAGS}


def test_train_from_flags_options():
    args = parse("train", "a.txt", "docs/", "-", "--vocab-size", "16384", "-o", "t.json")
    assert args == {"command": "train", "config": None, "quiet": False,
                    **TRAIN_FLAGS, "sources": ["a.txt", "docs/", "-"], "vocab_size": 16384, "output": "t.json"}
    args = parse("train", "b.jsonl", "--vocab-size", "300", "--output", "t.tiktoken", "--pattern", "gpt2",
                 "--special-token", "<|endoftext|>", "--special-token", "<|pad|>", "--algorithm", "textbook",
                 "--backend", "python", "--workers", "-1", "--normalize", "NFC", "--tie-break", "greatest-bytes",
                 "--min-frequency", "3", "--max-token-length", "16", "--text-field", "body", "--glob", "*.py",
                 "--errors", "skip", "--verbose", "--quiet")
    assert args == {"command": "train", "config": None, "quiet": True, "sources": ["b.jsonl"], "vocab_size": 300,
                    "output": "t.tiktoken", "pattern": "gpt2", "special_tokens": ["<|endoftext|>", "<|pad|>"],
                    "algorithm": "textbook", "backend": "python", "workers": -1, "normalize": "NFC",
                    "tie_break": "greatest-bytes", "min_frequency": 3, "max_token_length": 16,
                    "text_field": "body", "glob": "*.py", "errors": "skip", "verbose": True}


def test_pack_options():
    args = parse("pack", "a.jsonl", "docs/", "--tokenizer", "tok.json", "--out", "shards")
    assert args == {"command": "pack", "sources": ["a.jsonl", "docs/"], "tokenizer": "tok.json", "out": "shards",
                    "shard_tokens": 50_000_000, "eos": None, "pad": None, "text_field": "text",
                    "workers": None, "processes": None, "engine": "local", "scheduler": None, "overwrite": False, "quiet": False,
                    "glob": None, "errors": "strict"}
    args = parse("pack", "b.parquet", "--tokenizer", "t.tiktoken", "--out", "o", "--shard-tokens", "1000",
                 "--eos", "<|eos|>", "--pad", "<|pad|>", "--text-field", "content", "--workers", "2",
                 "--engine", "dask", "--scheduler", "tcp://10.0.0.5:8786", "--overwrite", "--quiet",
                 "--glob", "*.md", "--errors", "skip")
    assert args == {"command": "pack", "sources": ["b.parquet"], "tokenizer": "t.tiktoken", "out": "o",
                    "shard_tokens": 1000, "eos": "<|eos|>", "pad": "<|pad|>", "text_field": "content",
                    "workers": 2, "processes": None, "engine": "dask", "scheduler": "tcp://10.0.0.5:8786", "overwrite": True,
                    "quiet": True, "glob": "*.md", "errors": "skip"}


def test_verify_options():
    assert parse("verify", "shards") == {"command": "verify", "folder": "shards", "tokenizer": None}
    assert parse("verify", "shards", "--tokenizer", "tok.json") == {"command": "verify", "folder": "shards",
                                                                    "tokenizer": "tok.json"}


def test_help_lists_every_subcommand(capsys):
    with pytest.raises(SystemExit) as e:
        cli.build_parser().parse_args(["--help"])
    assert e.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps lines at the terminal's width
    assert out.startswith("usage: bpe-lesson [-h] [--version] {train,pack,verify}")
    for name, (_, help_) in cli.COMMANDS.items():
        assert f"{name} {help_}" in out


@pytest.mark.parametrize("command, options", [
    ("train", ["FILE", "--vocab-size", "--output", "--pattern", "--special-token", "--algorithm", "--backend",
               "--workers", "--normalize", "--tie-break", "--min-frequency", "--max-token-length",
               "--text-field", "--glob", "--errors", "--verbose", "--config", "--quiet"]),
    ("pack", ["SOURCE", "--tokenizer", "--out", "--shard-tokens", "--eos", "--pad", "--text-field",
              "--glob", "--errors", "--workers", "--processes", "--engine", "--scheduler", "--overwrite", "--quiet"]),
    ("verify", ["DIR", "--tokenizer"]),
])
def test_each_subcommand_has_help(capsys, command, options):
    with pytest.raises(SystemExit) as e:
        cli.build_parser().parse_args([command, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: bpe-lesson {command}"), out
    for option in options:
        assert option in out, option


def test_an_unknown_command_exits_2_naming_it(capsys):
    code, last = fails(capsys, "frobnicate")
    assert code == 2
    assert last == ("bpe-lesson: error: argument command: invalid choice: 'frobnicate' "
                    "(choose from 'train', 'pack', 'verify')")


def test_no_command_exits_2(capsys):
    code, last = fails(capsys)
    assert code == 2
    assert last == "bpe-lesson: error: the following arguments are required: command"


@pytest.mark.parametrize("argv, message", [
    (["pack", "a.txt", "--out", "o"], "the following arguments are required: --tokenizer"),
    (["pack", "--tokenizer", "t.json", "--out", "o"], "the following arguments are required: SOURCE"),
    (["pack", "a.txt", "--tokenizer", "t.json", "--out", "o", "--shard-tokens", "many"],
     "argument --shard-tokens: invalid int value: 'many'"),
    (["pack", "a.txt", "--tokenizer", "t.json", "--out", "o", "--engine", "spark"],
     "argument --engine: invalid choice: 'spark' (choose from 'local', 'dask')"),
    (["verify"], "the following arguments are required: DIR"),
    (["train", "-c", "x.yaml", "--fast"], "unrecognized arguments: --fast"),
])
def test_bad_options_exit_2_naming_the_option(capsys, argv, message):
    code, last = fails(capsys, *argv)
    assert code == 2
    assert last.startswith("bpe-lesson") and last.endswith(message)


def test_train_with_nothing_to_train_on_returns_2(capsys):
    assert cli.main(["train"]) == 2
    assert capsys.readouterr().err == ("bpe-lesson train: error: give the files to train on (FILE..., - for "
                                       "standard input), or a config with -c CONFIG\n")


def test_main_reports_a_missing_config_and_returns_2(tmp_path, capsys):
    missing = tmp_path / "nope.yaml"
    assert cli.main(["train", "-c", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bpe-lesson train: error:") and "nope.yaml" in err


def test_the_module_runs_as_the_command():
    ok = subprocess.run([sys.executable, "-m", "bpe_lesson", "--help"], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("usage: bpe-lesson")
    bad = subprocess.run([sys.executable, "-m", "bpe_lesson", "frobnicate"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert "invalid choice: 'frobnicate'" in bad.stderr


def test_version():
    from bpe_lesson import __version__
    p = subprocess.run([sys.executable, "-m", "bpe_lesson", "--version"], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout == f"bpe-lesson {__version__}\n"


def test_help_states_the_exit_codes(capsys):
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["--help"])
    out = capsys.readouterr().out
    assert "exit codes: 0 done, 1 problems found (verify), 2 usage or input error" in out
    assert "130 interrupted, 141 output pipe closed" in out


@pytest.fixture(scope="module")
def packed(tmp_path_factory, prose_docs):
    """A finished pack of a few documents: (its folder, the tokenizer file)."""
    import bpe_lesson
    from bpe_lesson.lm.pack import pack
    base = tmp_path_factory.mktemp("cli")
    tok = base / "tok.json"
    bpe_lesson.train(prose_docs[:10], 300, special_tokens=["<|endoftext|>"]).save(tok)
    (base / "a.txt").write_text("\n".join(prose_docs[10:14]), encoding="utf-8")
    pack([str(base / "a.txt")], str(tok), str(base / "out"), progress=False)
    return base / "out", tok


def run(*argv, **kwargs):
    return subprocess.run([sys.executable, "-m", "bpe_lesson", *map(str, argv)], text=True, **kwargs)


def test_a_closed_pipe_exits_quietly(packed):
    """`bpe-lesson verify DIR | head` where head has gone: no traceback, status 141 (as SIGPIPE gives)."""
    import os
    read, write = os.pipe()
    os.close(read)  # the reader is gone before we write a byte: the first write fails, every time
    p = run("verify", packed[0], stdout=write, stderr=subprocess.PIPE)
    os.close(write)
    assert p.returncode == 141, p.stderr
    assert p.stderr == ""


def test_verify_reports_problems_on_stderr_and_exits_1(packed, tmp_path):
    import shutil
    folder = tmp_path / "copy"
    shutil.copytree(packed[0], folder)
    shard = sorted(folder.glob("shard_*.bin"))[0]
    shard.write_bytes(shard.read_bytes()[:-2])
    p = run("verify", folder, capture_output=True)
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr.strip().splitlines()[-1] == f"{folder}: {len(p.stderr.strip().splitlines()) - 1} problem(s)"
    ok = run("verify", packed[0], capture_output=True)
    assert ok.returncode == 0 and ok.stdout.startswith(f"{packed[0]}: ok") and ok.stderr == ""


def test_a_finished_pack_leaves_no_lock_file(packed):
    assert not (packed[0] / ".pack.lock").exists()
    assert sorted(p.name for p in packed[0].iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize("how", ["pack", "yaml"])
def test_standard_input_closed_is_a_clear_error_exit_2(tmp_path, how):
    # issue 48, Medium 8: `bpe-lesson pack - ... <&-` printed an AttributeError traceback and exited 1
    import bpe_lesson
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(bpe_lesson.__file__)))
    if how == "pack":
        argv = ["pack", "-", "--tokenizer", "cl100k_base", "--out", str(tmp_path / "out")]
    else:
        (tmp_path / "c.yaml").write_text('output: o.tiktoken\nphases:\n  - merges: 5\n    sources: [{file: "-"}]\n')
        argv = ["train", "-c", str(tmp_path / "c.yaml")]
    r = subprocess.run([sys.executable, "-m", "bpe_lesson", *argv], stdin=None,
                       capture_output=True, text=True, env=env, timeout=300,
                       preexec_fn=lambda: os.close(0))
    assert r.returncode == 2, (r.returncode, r.stderr[-400:])
    assert "standard input, but this process has none" in r.stderr and "Traceback" not in r.stderr


# issue 48, Low: Ctrl-C while the command starts (importing numpy, regex, the package)
# printed a traceback. A sitecustomize sends the process SIGINT as it begins to import
# TARGET, the way a Ctrl-C lands during start-up, without waiting for one.
CTRL_C_AT_IMPORT = """
import importlib.abc, os, signal, sys
class CtrlC(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["TARGET"]:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None
sys.meta_path.insert(0, CtrlC())
"""


def console_script():
    """``python -c`` as the ``bpe-lesson`` script pip writes, from pyproject.toml's entry point."""
    import tomllib
    with open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "pyproject.toml"), "rb") as f:
        module, func = tomllib.load(f)["project"]["scripts"]["bpe-lesson"].split(":")
    return ["-c", f"import sys; from {module} import {func}; sys.exit({func}())"]


def ctrl_c_at(tmp_path, target, argv):
    import signal
    import bpe_lesson
    (tmp_path / "sitecustomize.py").write_text(CTRL_C_AT_IMPORT)
    src = os.path.dirname(os.path.dirname(bpe_lesson.__file__))
    env = dict(os.environ, TARGET=target, PYTHONPATH=os.pathsep.join([str(tmp_path), src]))
    # subtle: a child inherits an ignored SIGINT (pytest run as a background job) and Python keeps it
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, env=env, timeout=120,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


@pytest.mark.parametrize("how", ["console script", "python -m"])
@pytest.mark.parametrize("target", ["numpy", "regex", "bpe_lesson.tokenizer", "argparse",
                                    "bpe_lesson.lm.pack_command"])
def test_ctrl_c_during_start_up_exits_quietly_with_130(tmp_path, how, target):
    argv = console_script() if how == "console script" else ["-m", "bpe_lesson"]
    r = ctrl_c_at(tmp_path, target, argv + ["verify", str(tmp_path)])
    assert (r.returncode, r.stderr) == (130, "bpe-lesson: interrupted\n"), r.stderr[-600:]
    assert r.stdout == ""


def test_the_hook_interrupts_a_plain_import(tmp_path):
    # the check above could pass with a hook that never fires: a program importing the
    # package still gets Python's KeyboardInterrupt (the command alone is quiet)
    r = ctrl_c_at(tmp_path, "numpy", ["-c", "import bpe_lesson"])
    assert r.returncode != 0 and r.stderr.startswith("Traceback") and r.stderr.endswith("KeyboardInterrupt\n")


def test_which_module_python_m_runs():
    import bpe_lesson_cli
    for argv, name in [(["python", "-m", "bpe_lesson", "pack"], "bpe_lesson"),
                       (["python", "-B", "-X", "dev", "-m", "bpe_lesson"], "bpe_lesson"),
                       (["python", "-mbpe_lesson.lm"], "bpe_lesson.lm"),
                       (["python", "-Bm", "pytest", "-m", "x"], "pytest"),
                       (["python", "-c", "pass", "-m"], ""), (["python", "script.py", "-m", "bpe_lesson"], "")]:
        assert bpe_lesson_cli.run_by_python_m(argv) == name, argv
