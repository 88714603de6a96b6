"""The command-line parser: each subcommand's options, --help, and the errors it reports.

The expected options are written out here by hand (what a user types); the
parser is ``cli.build_parser``, the one ``bpe-lesson`` and ``python -m
bpe_lesson`` run. A bad command line exits with argparse's status 2 and a
message naming what is wrong. What the subcommands do is tested with their
modules (tests/scale/, tests/lm/).
"""

import subprocess
import sys

import pytest

from bpe_lesson import cli


def parse(*argv):
    return vars(cli.build_parser().parse_args(list(argv)))


def fails(capsys, *argv):
    """Parse a bad command line: its exit status and the last line it printed on stderr."""
    with pytest.raises(SystemExit) as e:
        cli.build_parser().parse_args(list(argv))
    return e.value.code, capsys.readouterr().err.strip().splitlines()[-1]


def test_the_subcommands():
    assert list(cli.COMMANDS) == ["train", "pack", "verify"]


def test_train_options():
    assert parse("train", "-c", "tok.yaml") == {"command": "train", "config": "tok.yaml", "quiet": False}
    assert parse("train", "--config", "tok.yaml", "--quiet") == {"command": "train", "config": "tok.yaml",
                                                                 "quiet": True}


def test_pack_options():
    args = parse("pack", "a.jsonl", "docs/", "--tokenizer", "tok.json", "--out", "shards")
    assert args == {"command": "pack", "sources": ["a.jsonl", "docs/"], "tokenizer": "tok.json", "out": "shards",
                    "shard_tokens": 50_000_000, "eos": "<|endoftext|>", "pad": None, "text_field": "text",
                    "processes": None, "engine": "local", "scheduler": None, "overwrite": False, "quiet": False}
    args = parse("pack", "b.parquet", "--tokenizer", "t.tiktoken", "--out", "o", "--shard-tokens", "1000",
                 "--eos", "<|eos|>", "--pad", "<|pad|>", "--text-field", "content", "--processes", "2",
                 "--engine", "dask", "--scheduler", "tcp://10.0.0.5:8786", "--overwrite", "--quiet")
    assert args == {"command": "pack", "sources": ["b.parquet"], "tokenizer": "t.tiktoken", "out": "o",
                    "shard_tokens": 1000, "eos": "<|eos|>", "pad": "<|pad|>", "text_field": "content",
                    "processes": 2, "engine": "dask", "scheduler": "tcp://10.0.0.5:8786", "overwrite": True,
                    "quiet": True}


def test_verify_options():
    assert parse("verify", "shards") == {"command": "verify", "folder": "shards", "tokenizer": None}
    assert parse("verify", "shards", "--tokenizer", "tok.json") == {"command": "verify", "folder": "shards",
                                                                    "tokenizer": "tok.json"}


def test_help_lists_every_subcommand(capsys):
    with pytest.raises(SystemExit) as e:
        cli.build_parser().parse_args(["--help"])
    assert e.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps lines at the terminal's width
    assert out.startswith("usage: bpe-lesson [-h] {train,pack,verify}")
    for name, (_, help_) in cli.COMMANDS.items():
        assert f"{name} {help_}" in out


@pytest.mark.parametrize("command, options", [
    ("train", ["--config", "--quiet"]),
    ("pack", ["SOURCE", "--tokenizer", "--out", "--shard-tokens", "--eos", "--pad", "--text-field",
              "--processes", "--engine", "--scheduler", "--overwrite", "--quiet"]),
    ("verify", ["DIR", "--tokenizer"]),
])
def test_each_subcommand_has_help(capsys, command, options):
    with pytest.raises(SystemExit) as e:
        cli.build_parser().parse_args([command, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: bpe-lesson {command}")
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
    (["train"], "the following arguments are required: -c/--config"),
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
