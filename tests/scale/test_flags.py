"""``bpe-lesson train FILE... --vocab-size N -o OUT``: the Python ``train()`` from the command line.

The command and the Python API train on the same standard-library files (named by
a glob, one by one, and on standard input); the files they write must be equal
byte for byte, on each backend, and tiktoken reading the command's ``.tiktoken``
must give the ids the Python tokenizer gives. A bad flag or file exits 2 with a
message naming it.
"""

import os
import shutil
import subprocess
import sys

import pytest

import bpe_lesson
from bpe_lesson import __main__ as cli
from bpe_lesson import read_documents, train

LIB = os.path.dirname(os.__file__)
FILES = ["abc.py", "bisect.py", "colorsys.py", "copy.py", "fnmatch.py", "heapq.py", "keyword.py", "textwrap.py"]
EOT = "<|endoftext|>"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A folder of eight standard-library modules (about 120 KB of Python)."""
    folder = tmp_path_factory.mktemp("flags") / "corpus"
    folder.mkdir()
    for name in FILES:
        shutil.copy(os.path.join(LIB, name), folder / name)
    return folder


def main(capsys, *argv):
    """Run the command in this process: (exit status, stdout, stderr)."""
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("suffix", [".json", ".tiktoken"])
def test_the_command_writes_what_the_python_api_writes(corpus, tmp_path, capsys, backend, suffix):
    ours = tmp_path / f"cli{suffix}"
    code, out, err = main(capsys, "train", corpus / "*.py", "--vocab-size", 900, "--special-token", EOT,
                          "--special-token", "<|pad|>", "--backend", backend, "-o", ours, "--quiet")
    assert (code, err) == (0, "")
    assert out.startswith(f"wrote {os.path.relpath(ours)}: vocabulary 900 = 256 bytes + 642 merges")
    tok = train(read_documents(sorted(str(p) for p in corpus.iterdir())), 900, special_tokens=[EOT, "<|pad|>"],
                backend=backend)
    api = tmp_path / f"api{suffix}"
    tok.save_tiktoken(api) if suffix == ".tiktoken" else tok.save(api)
    assert ours.read_bytes() == api.read_bytes()
    assert bpe_lesson.load(ours).n_vocab == 900


def test_tiktoken_reads_the_command_s_file_as_the_python_tokenizer_encodes(corpus, tmp_path, capsys, backend):
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    path = tmp_path / "t.tiktoken"
    assert main(capsys, "train", corpus, "--glob", "*.py", "--vocab-size", 700, "--backend", backend,
                "-o", path)[0] == 0
    tok = train(read_documents(corpus, glob="*.py"), 700, backend=backend)
    theirs = tiktoken.Encoding("cli", pat_str=bpe_lesson.patterns.PATTERNS["gpt4"],
                               mergeable_ranks=load_tiktoken_bpe(str(path)), special_tokens={})
    held_out = open(os.path.join(LIB, "string.py"), encoding="utf-8").read()  # not in the corpus
    assert theirs.encode(held_out) == tok.encode(held_out)


def test_every_option_is_train_s_keyword(tmp_path, capsys, backend, prose_docs):
    text = "\n\n".join(prose_docs[:40])
    (tmp_path / "prose.txt").write_text(text, encoding="utf-8")
    path = tmp_path / "t.json"
    code, _, err = main(capsys, "train", tmp_path / "prose.txt", "--vocab-size", 600, "--pattern", "gpt2",
                        "--normalize", "NFKC", "--tie-break", "greatest-bytes", "--min-frequency", 3,
                        "--max-token-length", 6, "--workers", 1, "--backend", backend, "-o", path, "--quiet")
    assert (code, err) == (0, "")
    tok = train(text, 600, pattern="gpt2", normalize="NFKC", tie_break="greatest-bytes", min_frequency=3,
                max_token_length=6, workers=1, backend=backend)
    assert bpe_lesson.load(path).merges == tok.merges
    assert max(len(t) for t in tok.vocab.values()) == 6  # the options reached the trainer


def test_the_textbook_algorithm_and_no_pattern(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("aaabdaaabac", encoding="utf-8")
    path = tmp_path / "t.json"
    assert main(capsys, "train", tmp_path / "a.txt", "--vocab-size", 259, "--pattern", "none",
                "--algorithm", "textbook", "-o", path, "--quiet")[0] == 0
    assert bpe_lesson.load(path).encode("aaabdaaabac") == [258, 100, 258, 97, 99]  # minbpe's hand-checked case


def test_standard_input(tmp_path):
    text = open(os.path.join(LIB, "heapq.py"), encoding="utf-8").read()
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(bpe_lesson.__file__)))
    r = subprocess.run([sys.executable, "-m", "bpe_lesson", "train", "-", "--vocab-size", "500", "-o", "t.json"],
                       input=text, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert bpe_lesson.load(tmp_path / "t.json").merges == train(text, 500).merges


@pytest.mark.parametrize("argv, message", [
    ([], "give the files to train on"),
    (["{corpus}"], "--vocab-size: missing"),
    (["{corpus}", "--vocab-size", "300"], "-o/--output: missing"),
    (["{corpus}", "--vocab-size", "300", "-o", "t.txt"], "-o/--output: t.txt should end in .json"),
    (["{corpus}", "--vocab-size", "257", "--special-token", "<a>", "--special-token", "<b>", "-o", "t.json"],
     "--vocab-size: 257 leaves no room for the 256 bytes and 2 special token(s)"),
    (["{corpus}", "--vocab-size", "300", "--special-token", "<a>", "--special-token", "<a>", "-o", "t.json"],
     "--special-token: '<a>' is given twice"),
    (["{corpus}", "--vocab-size", "300", "--pattern", "gpt5", "-o", "t.json"], "--pattern: "),
    (["{corpus}/nope.txt", "--vocab-size", "300", "-o", "t.json"], "nope.txt': no such file or folder"),
    (["{corpus}/*.rs", "--vocab-size", "300", "-o", "t.json"], "*.rs': the glob matches no file"),
    (["{corpus}", "--glob", "*.rs", "--vocab-size", "300", "-o", "t.json"], "no file matching '*.rs'"),
    (["{corpus}", "--vocab-size", "300", "-o", "{corpus}"], "-o/--output: {corpus} should end in .json"),
    (["{corpus}", "--vocab-size", "300", "-o", "{corpus}/abc.py/t.json"], "-o/--output: "),
    (["-c", "x.yaml", "--vocab-size", "300"], "--vocab-size: is an option of training from files"),
    (["-c", "x.yaml", "{corpus}"], "FILE: is an option of training from files"),
])
def test_a_bad_flag_or_file_exits_2_naming_it(corpus, tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = main(capsys, "train", *(a.format(corpus=corpus) for a in argv))
    assert code == 2 and out == ""
    assert err.startswith("bpe-lesson train: error: ") and message.format(corpus=corpus) in err, err
    assert not (tmp_path / "t.json").exists()


@pytest.mark.parametrize("argv, message", [
    (["--vocab-size", "100"], "argument --vocab-size: 100 should be a whole number >= 256"),
    (["--min-frequency", "0"], "argument --min-frequency: 0 should be a whole number >= 1"),
    (["--workers", "0"], "argument --workers: 0 should be a whole number >= 1 or -1"),
    (["--max-token-length", "x"], "argument --max-token-length: 'x' is not a whole number"),
    (["--backend", "rust"], "argument --backend: invalid choice: 'rust'"),
    (["--errors", "ignore"], "argument --errors: invalid choice: 'ignore'"),
])
def test_a_bad_value_is_a_usage_error_naming_the_flag(capsys, argv, message):
    with pytest.raises(SystemExit) as e:
        cli.build_parser().parse_args(["train", "a.txt", "-o", "t.json", *argv])
    assert e.value.code == 2
    assert message in capsys.readouterr().err.strip().splitlines()[-1]
