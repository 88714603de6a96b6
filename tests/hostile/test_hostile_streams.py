"""One stream contract (issue 48, High 3-5, Medium 2): ``encode_iterable`` is ``encode`` of the
joined text for every pattern and piece type, ``dtype`` is honoured on every path, and a
file that shrinks under the encoder is an error naming it, never a signal.

References: tiktoken's ``Encoding`` built on the same ranks and pattern encodes the
joined text (where its regex engine takes the pattern); ``encode`` of the joined
text, a different code path (no cuts) on both backends; NumPy's own dtype rules.
"""

import io
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tiktoken

import bpe_lesson
from bpe_lesson import Tokenizer
from bpe_lesson.tokenizer.streaming import HOLD

# patterns whose chunks cross newlines, or depend on where the text starts
CROSSING = {
    "letters and newlines": r"[a-z\n]+|[^a-z\n]+",
    "newline then word": r"\n?[a-z]+|[^a-z]",
    "fixed width": r"(?s:.{1,5})",
    "line pairs": r"[^\n]*\n[^\n]*\n?|[^\n]+",
}


def text_of(n):
    return "".join(f"ab{k % 7}\ncd\n\nx y\n" for k in range(n))


@pytest.fixture(scope="module")
def no_pattern():
    return bpe_lesson.train(["a\nb\n" * 500], 300, pattern=None)


def test_the_issues_stream_with_no_pattern(no_pattern, backend):
    tok = Tokenizer(no_pattern.merges, pattern=None, backend=backend)
    s = "a\nb\n" * 40000
    want = tok.encode(s)
    assert list(tok.encode_iterable(s.splitlines(True))) == want
    assert list(tok.encode_iterable(iter(s.splitlines(True)))) == want
    assert list(tok.encode_iterable(iter([s.encode()]))) == want
    enc = tiktoken.Encoding("none", pat_str=r"(?s:.+)", mergeable_ranks=tok._ranks, special_tokens={})
    assert enc.encode_ordinary(s) == want  # the whole text, one chunk


@pytest.mark.parametrize("name", sorted(CROSSING))
def test_custom_patterns_whose_chunks_cross_newlines(name, backend, tmp_path):
    pattern = CROSSING[name]
    base = bpe_lesson.train([text_of(300)], 400, pattern=pattern)
    tok = Tokenizer(base.merges, pattern=pattern, backend=backend)
    s = text_of(20000)  # more than HOLD: cut into stretches
    assert len(s) > 3 * HOLD
    want = tok.encode(s)
    enc = tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=tok._ranks, special_tokens={})
    assert enc.encode_ordinary(s) == want
    assert list(tok.encode_iterable(iter(s.splitlines(True)))) == want, "str lines"
    assert list(tok.encode_iterable(iter(line.encode() for line in s.splitlines(True)))) == want, "bytes lines"
    path = tmp_path / "t.txt"
    path.write_bytes(s.encode())
    with open(path, "rb") as f:  # mapped
        assert list(tok.encode_iterable(f)) == want, "binary file"
    with open(path, encoding="utf-8", newline="") as f:
        assert list(tok.encode_iterable(f)) == want, "text file"


def test_memoryview_pieces_are_streamed_like_bytes(backend):
    tok = bpe_lesson.from_pretrained("cl100k")
    tok.backend = backend
    s = "x\n" * 40000
    want = tok.encode(s)
    assert list(tok.encode_iterable([memoryview(s.encode())])) == want
    pieces = [memoryview(line.encode()) for line in s.splitlines(True)]
    assert list(tok.encode_iterable(iter(pieces))) == want
    assert [i for a in tok.encode_iterable_to_numpy(iter(pieces)) for i in a.tolist()] == want


@pytest.mark.parametrize("dtype", ["uint16", np.dtype("uint16"), np.uint16, "int64", np.int64, "uint32",
                                   np.dtype("uint32")])
@pytest.mark.parametrize("kind", ["str", "bytes", "binary file", "text file"])
def test_dtype_is_honoured_on_every_path(dtype, kind, backend, tmp_path):
    tok = Tokenizer(bpe_lesson.from_pretrained("cl100k").merges[:2000], pattern="gpt4", backend=backend)
    s = "hello world\n" * 20000
    path = tmp_path / "t.txt"
    path.write_bytes(s.encode())
    pieces = {"str": lambda: iter(s.splitlines(True)), "bytes": lambda: iter([s.encode()]),
              "binary file": lambda: open(path, "rb"), "text file": lambda: open(path, encoding="utf-8")}[kind]()
    arrays = list(tok.encode_iterable_to_numpy(pieces, dtype=dtype))
    assert all(isinstance(a, np.ndarray) and a.dtype == np.dtype(dtype) for a in arrays), kind
    assert np.concatenate(arrays).tolist() == tok.encode(s)


@pytest.mark.parametrize("kind", ["str", "bytes", "binary file"])
def test_uint16_overflow_is_refused_on_every_path(kind, backend, tmp_path):
    tok = bpe_lesson.from_pretrained("cl100k")
    tok.backend = backend
    s = "hello world\n" * 20000  # ids below 65,536, then " unterschied" (81360) on the last lines
    s += "ein unterschied\n" * 10
    assert max(tok.encode(s)) > 65535
    path = tmp_path / "t.txt"
    path.write_bytes(s.encode())
    pieces = {"str": lambda: iter(s.splitlines(True)), "bytes": lambda: iter([s.encode()]),
              "binary file": lambda: open(path, "rb")}[kind]()
    with pytest.raises(ValueError, match=r"uint16"):
        for _ in tok.encode_iterable_to_numpy(pieces, dtype="uint16"):
            pass


TRUNCATE = textwrap.dedent("""
    import os, sys
    import bpe_lesson
    path, backend = sys.argv[1], sys.argv[2]
    tok = bpe_lesson.from_pretrained("cl100k")
    tok.backend = backend
    with open(path, "rb") as f:
        ids = tok.encode_iterable_to_numpy(f)
        next(ids)                      # the file is mapped and a first stretch encoded
        os.truncate(path, 1000)       # log rotation with copytruncate does this
        try:
            for _ in ids:
                pass
        except OSError as e:
            print("error:", e)
            sys.exit(3)
    print("no error")
""")


@pytest.mark.parametrize("opened", ["rb", "r"])
def test_a_file_truncated_while_streamed_is_an_error_naming_it(opened, backend, tmp_path):
    path = tmp_path / "rotated.log"
    path.write_bytes(("a line of a log file, with some words in it\n" * 200_000).encode())
    script = TRUNCATE if opened == "rb" else TRUNCATE.replace('open(path, "rb")', 'open(path, encoding="utf-8")')
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(bpe_lesson.__file__)))
    r = subprocess.run([sys.executable, "-c", script, str(path), backend], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 3, (r.returncode, r.stderr[-500:])  # not -7 (SIGBUS) nor 135
    assert "rotated.log" in r.stdout and "shrank" in r.stdout, r.stdout
