"""YAML ``vocab_size:``: the ids you get, special tokens and hardcoded merges included.

On real text (standard-library modules) a config with ``vocab_size: N`` gives a
tokenizer of exactly N ids, with and without special tokens and hardcoded merges,
on each backend; without hardcoded merges it learns the merges ``bpe_lesson.train``
learns from the same files (the Python API, the flag command and the YAML agree).
A config gives ``vocab_size`` or its phases' merges, not both; each mistake is
refused naming its key.
"""

import os
import shutil
import subprocess
import sys

import pytest
import yaml

import bpe_lesson
from bpe_lesson import read_documents
from bpe_lesson.scale.config import ConfigError, load_config, parse_config
from bpe_lesson.scale.hardcoded import hardcoded_merges
from bpe_lesson.scale.phases import train_from_config

LIB = os.path.dirname(os.__file__)
FILES = ["abc.py", "bisect.py", "colorsys.py", "copy.py", "fnmatch.py", "heapq.py", "keyword.py", "textwrap.py",
         "string.py", "queue.py", "shlex.py", "sched.py"]
SPECIALS = ["<|endoftext|>", "<|pad|>"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A folder of twelve standard-library modules (about 170 KB of Python)."""
    folder = tmp_path_factory.mktemp("vocab") / "corpus"
    folder.mkdir()
    for name in FILES:
        shutil.copy(os.path.join(LIB, name), folder / name)
    return folder


def config(corpus, **fields):
    return {"output": str(corpus.parent / "t.tiktoken"), "workers": 1,
            "phases": [{"sources": [{"path": str(corpus), "glob": "*.py"}]}], **fields}


def trained(raw, backend=None):
    return train_from_config(parse_config(raw), backend=backend, progress=False, log=lambda line: None,
                             write=False).tokenizer


@pytest.mark.parametrize("specials", [[], SPECIALS], ids=["no-specials", "2-specials"])
@pytest.mark.parametrize("hardcoded, n", [(None, 300), (None, 2000), (True, 1500), (True, 3000)],
                         ids=["300", "2000", "hardcoded-1500", "hardcoded-3000"])
def test_vocab_size_is_the_ids_you_get(corpus, backend, specials, hardcoded, n):
    fields = {"vocab_size": n, "special_tokens": specials}
    if hardcoded is not None:
        fields["hardcoded_merges"] = hardcoded
    tok = trained(config(corpus, **fields), backend)
    assert tok.n_vocab == n
    assert sorted(tok.special_tokens.values()) == list(range(n - len(specials), n))
    if hardcoded:
        assert tok.merges[:1161] == hardcoded_merges()
    else:  # a plain config: what train() learns from the same files
        docs = read_documents(corpus, glob="*.py")
        assert tok.merges == bpe_lesson.train(docs, n, special_tokens=specials, backend=backend).merges


def test_hardcoded_merges_default_false_with_vocab_size_and_true_with_merges(corpus):
    assert parse_config(config(corpus, vocab_size=2000)).hardcoded_merges is False
    with_merges = config(corpus)
    with_merges["phases"][0]["merges"] = 100
    assert parse_config(with_merges).hardcoded_merges is True  # as before (the chapter relies on it)
    assert parse_config(config(corpus, vocab_size=2000, hardcoded_merges=True)).phases[0].merges == 2000 - 256 - 1161


def test_the_yaml_the_flags_and_the_python_api_agree(corpus, tmp_path):
    raw = config(corpus, vocab_size=800, special_tokens=["<|endoftext|>"], output=str(tmp_path / "yaml.tiktoken"))
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(raw), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(bpe_lesson.__file__)))

    def command(*argv):
        r = subprocess.run([sys.executable, "-m", "bpe_lesson", "train", *argv, "--quiet"], cwd=tmp_path,
                           capture_output=True, text=True, env=env, timeout=300)
        assert r.returncode == 0, r.stderr

    command("-c", "c.yaml")
    command(str(corpus), "--glob", "*.py", "--vocab-size", "800", "--special-token", "<|endoftext|>",
            "-o", "flags.tiktoken")
    assert (tmp_path / "yaml.tiktoken").read_bytes() == (tmp_path / "flags.tiktoken").read_bytes()
    yaml_tok, flags_tok = (bpe_lesson.load(tmp_path / f) for f in ("yaml.tiktoken", "flags.tiktoken"))
    assert yaml_tok.n_vocab == flags_tok.n_vocab == 800
    assert yaml_tok.special_tokens == flags_tok.special_tokens == {"<|endoftext|>": 799}


@pytest.mark.parametrize("fields, phase, where, words", [
    ({"vocab_size": 1000}, {"merges": 10}, r"phases\[0\]\.merges", "is given with vocab_size"),
    ({"vocab_size": 1000, "hardcoded_merges": True, "special_tokens": SPECIALS}, {}, "vocab_size",
     "1,000 leaves no room for 256 bytes \\+ 1,161 hardcoded merges \\+ 2 special token\\(s\\); "
     "give at least 1,419"),
    ({"vocab_size": 257, "special_tokens": SPECIALS}, {}, "vocab_size",
     "257 leaves no room for 256 bytes \\+ 2 special token\\(s\\); give at least 258"),
    ({"vocab_size": "16k"}, {}, "vocab_size", "'16k' should be a whole number"),
    ({"vocab_size": True}, {}, "vocab_size", "True should be a whole number"),
    ({}, {}, r"phases\[0\]\.merges", r"missing; .* \(or vocab_size: N at the top, the ids in all\)"),
])
def test_a_bad_vocab_size_is_refused_naming_its_key(corpus, fields, phase, where, words):
    raw = config(corpus, **fields)
    raw["phases"][0].update(phase)
    with pytest.raises(ConfigError, match=f"<config>: {where}: {words}"):
        parse_config(raw)


def test_vocab_size_with_two_phases_is_refused(corpus):
    raw = config(corpus, vocab_size=1000)
    raw["phases"].append({"sources": [{"path": str(corpus)}]})
    with pytest.raises(ConfigError, match=r"<config>: vocab_size: gives the ids of a config with one phase; "
                                          r"this one has 2: give each phase its merges: instead"):
        parse_config(raw)


def test_the_plain_example_config(corpus, tmp_path):
    example = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "examples", "plain.yaml")
    with pytest.raises(ConfigError, match=r"phases\[0\].sources\[0\].path: ./corpus does not exist"):
        load_config(example)
    shutil.copy(example, tmp_path / "plain.yaml")
    (tmp_path / "corpus").mkdir()
    shutil.copy(corpus / "abc.py", tmp_path / "corpus" / "abc.txt")
    cfg = load_config(tmp_path / "plain.yaml")
    assert (cfg.vocab_size, cfg.hardcoded_merges, cfg.special_tokens) == (16384, False, ["<|endoftext|>"])
    assert cfg.phases[0].merges == 16384 - 256 - 1  # the example's comment: 16,127 merges
