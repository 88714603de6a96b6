"""The sdist and the wheel, each installed into a new venv outside the checkout.

Built once, as a user or a release would: ``python -m build`` on a copy of the files
git tracks (so a file that is only on this disk cannot help) makes the sdist, then
the wheel *from the sdist* (so a source missing from the sdist fails here). Then:

  * the wheel, in a venv with the core dependencies only: trains minbpe's hand-checked
    case on the compiled backend, encodes and decodes it; and every optional entry
    point fails with the ``pip install "bpe-lesson[...]"`` of its extra, written out
    below by hand (``render_chat`` works without torch);
  * the sdist, ``pip install``-ed into another new venv (it compiles the extension
    again): the same hand-checked case on the compiled backend;
  * what each archive holds: the Cython sources in the sdist, the compiled extension
    (and no source, no generated .cpp) in the wheel.

Isolated builds and installs take setuptools, Cython, numpy, regex, tqdm and PyYAML
from the package index, as a user's pip would. About 3 minutes on 2 cores, most of
it compiling the extension twice; ``-m "not artifacts"`` leaves it out.

What this file does not do: test the extras' installs themselves (each is a pip
resolve of large packages; the full suite runs with all of them), or the package's
behaviour (the rest of tests/ does, on the checkout).
"""

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import zipfile

import pytest

import bpe_lesson

pytestmark = [pytest.mark.artifacts, pytest.mark.slow]  # slow: once, not again in the pure-Python pass
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = f"bpe_lesson-{bpe_lesson.__version__}"

# trains and round-trips minbpe's example (3 merges of "aaabdaaabac", checked by hand in
# tests/test_trainers.py) on the compiled backend; prints what it saw as JSON
SMOKE = textwrap.dedent("""
    import json, bpe_lesson
    tok = bpe_lesson.train("aaabdaaabac", 259, pattern=None)
    ids = tok.encode("aaabdaaabac")
    print(json.dumps({"backend": bpe_lesson.BACKEND, "file": bpe_lesson.__file__, "ids": ids,
                      "merges": [[list(pair), new] for pair, new in tok.merges],
                      "text": tok.decode(ids), "vocab258": tok.vocab[258].decode()}))
""")

# each optional entry point, called where only the core is installed: its error message
CALLS = textwrap.dedent("""
    import json, os, sys, tempfile
    import bpe_lesson
    from bpe_lesson import Tokenizer, from_pretrained
    out = {}
    def attempt(key, f):
        try:
            f()
            out[key] = "no error"
        except Exception as e:
            out[key] = f"{type(e).__name__}: {e}"
    tok = bpe_lesson.train("ab ab ab", 258, special_tokens=["<|endoftext|>"])
    for name in ("llama3", "llama4", "qwen", "qwen3.5", "tekken", "cl100k", "o200k"):
        attempt(f"from_pretrained({name})", lambda: from_pretrained(name))
    from bpe_lesson.formats import huggingface
    from bpe_lesson.tokenizer import tiktoken_io
    attempt("to_huggingface", lambda: huggingface.to_huggingface(tok))
    attempt("save_huggingface", lambda: huggingface.save_huggingface(tok, tempfile.mkdtemp() + "/"))
    attempt("to_tiktoken", lambda: tiktoken_io.to_tiktoken(tok))
    parquet = os.path.join(tempfile.mkdtemp(), "a.parquet")
    open(parquet, "wb").write(b"PAR1")
    attempt("read parquet", lambda: list(bpe_lesson.read_documents(parquet)))
    from bpe_lesson.lm.chat import render_chat, sft_targets
    ids, mask = render_chat(tok, [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}])
    out["render_chat"] = {"torch loaded": "torch" in sys.modules, "decoded": tok.decode(ids)}
    attempt("sft_targets", lambda: sft_targets(ids, mask))
    from bpe_lesson.lm import preference
    attempt("pad_sequences", lambda: preference.pad_sequences([[1]], 0))
    attempt("import lm.windows", lambda: __import__("bpe_lesson.lm.windows"))
    from bpe_lesson._internal import cluster
    def dask():
        with cluster.dask_client(workers=1):
            pass
    attempt("dask_client", dask)
    attempt("import teaching.plots", lambda: __import__("bpe_lesson.teaching.plots"))
    attempt("import teaching.checks", lambda: __import__("bpe_lesson.teaching.checks"))
    print(json.dumps(out))
""")

# entry point -> the extra its message must name (and the error type), as a reader would expect
EXPECTED = {
    **{f"from_pretrained({n})": ("FileNotFoundError", "models")
       for n in ("llama3", "llama4", "qwen", "qwen3.5", "tekken", "cl100k", "o200k")},
    "to_huggingface": ("MissingExtra", "hf"),
    "save_huggingface": ("MissingExtra", "hf"),
    "to_tiktoken": ("MissingExtra", "tiktoken"),
    "read parquet": ("MissingExtra", "data"),
    "sft_targets": ("MissingExtra", "torch"),
    "pad_sequences": ("MissingExtra", "torch"),
    "import lm.windows": ("MissingExtra", "torch"),
    "dask_client": ("DaskUnavailable", "dask"),
    "import teaching.plots": ("MissingExtra", "book"),
    "import teaching.checks": ("MissingExtra", "book"),
}


def run(*cmd, cwd=None, timeout=900):
    """Run a command; on failure, fail the test with its last lines of output."""
    p = subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, timeout=timeout,
                       env={k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "BPE_LESSON_PUREPYTHON")})
    if p.returncode:
        pytest.fail(f"{' '.join(map(str, cmd))} exited {p.returncode}:\n{(p.stdout + p.stderr)[-3000:]}")
    return p.stdout


def new_venv(path):
    """A brand-new venv (with pip); returns its python."""
    run(sys.executable, "-m", "venv", path)
    return os.path.join(path, "bin", "python")


@pytest.fixture(scope="module")
def work():
    """A temporary folder outside the checkout, removed at the end."""
    d = tempfile.mkdtemp(prefix="bpe-lesson-artifacts-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def dist(work):
    """(sdist path, wheel path), built from a copy of the files git tracks."""
    if not os.path.isdir(os.path.join(ROOT, ".git")) and not os.path.isfile(os.path.join(ROOT, ".git")):
        pytest.fail(f"{ROOT} is not a git checkout: the artifacts are built from the files git tracks")
    files = run("git", "-C", ROOT, "ls-files", "-z").split("\0")
    src = os.path.join(work, "src")
    for f in filter(None, files):
        if os.path.exists(os.path.join(ROOT, f)):  # a tracked file deleted in the work tree stays out
            os.makedirs(os.path.dirname(os.path.join(src, f)), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, f), os.path.join(src, f))
    tools = new_venv(os.path.join(work, "tools"))
    run(tools, "-m", "pip", "install", "-q", "build")
    out = os.path.join(work, "dist")
    run(tools, "-m", "build", "--outdir", out, src)  # the sdist, then the wheel from it
    names = sorted(os.listdir(out))
    sdists, wheels = [n for n in names if n.endswith(".tar.gz")], [n for n in names if n.endswith(".whl")]
    assert len(sdists) == 1 and len(wheels) == 1, f"expected one sdist and one wheel, got {names}"
    return os.path.join(out, sdists[0]), os.path.join(out, wheels[0])


def check_smoke(python, where):
    got = json.loads(run(python, "-c", SMOKE, cwd=where))
    assert got["backend"] == "cython", f"the installed package runs on {got['backend']}, not the compiled backend"
    assert not got["file"].startswith(ROOT), f"imported from the checkout ({got['file']}), not the install"
    assert got["merges"] == [[[97, 97], 256], [[97, 98], 257], [[256, 257], 258]]
    assert got["ids"] == [258, 100, 258, 97, 99]
    assert got["text"] == "aaabdaaabac" and got["vocab258"] == "aaab"


def test_sdist_holds_the_sources_not_the_generated_cpp(dist):
    with tarfile.open(dist[0]) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    compiled = "src/bpe_lesson/_compiled/"
    for f in os.listdir(os.path.join(ROOT, compiled)):
        if f.endswith((".pyx", ".pxd", ".pxi", ".h")):
            assert compiled + f in names, f"{f} is missing from the sdist; MANIFEST.in should include it"
    assert {"setup.py", "pyproject.toml", "MANIFEST.in", "README.md"} <= names
    assert not [n for n in names if n.endswith((".cpp", ".c", ".so", ".html"))], "a build product is in the sdist"


def test_wheel_holds_the_extension_and_no_sources(dist):
    names = zipfile.ZipFile(dist[1]).namelist()
    assert [n for n in names if n.startswith("bpe_lesson/_compiled/_native.") and n.endswith(".so")], names
    sources = [n for n in names if n.endswith((".pyx", ".pxd", ".pxi", ".h", ".cpp", ".c"))]
    assert not sources, f"the wheel ships Cython or C++ sources: {sources}"
    assert "bpe_lesson/lm/chat.py" in names and "bpe_lesson/formats/pretrained.py" in names
    assert "bpe_lesson_cli.py" in names, "the console script's front door is missing from the wheel"


def test_wheel_installs_alone_and_names_each_missing_extra(dist, work):
    python = new_venv(os.path.join(work, "wheel"))
    run(python, "-m", "pip", "install", "-q", dist[1])
    check_smoke(python, work)
    # the console script pip wrote runs (its front door, bpe_lesson_cli, imports the package late)
    assert "usage: bpe-lesson" in run(os.path.join(os.path.dirname(python), "bpe-lesson"), "--help", cwd=work)
    # the core only: none of the extras' packages came with it
    present = run(python, "-c", "import importlib.util as u; print([m for m in ('torch', 'tokenizers', "
                  "'tiktoken', 'pyarrow', 'distributed', 'llama_models', 'matplotlib') if u.find_spec(m)])")
    assert present.strip() == "[]", f"the core install brought optional packages: {present}"
    got = json.loads(run(python, "-c", CALLS, cwd=work))
    assert got.pop("render_chat") == {"torch loaded": False, "decoded": "### User:\na\n\n### Assistant:\n"
                                      "b<|endoftext|>\n\n"}
    for key, (kind, extra) in EXPECTED.items():
        message = got.pop(key)
        assert message.startswith(kind + ":") and f'pip install "bpe-lesson[{extra}]"' in message, (
            f"{key}: expected a {kind} naming the extra {extra!r}, got {message!r}")
        assert "requirements.txt" not in message
    assert not got, f"entry points not checked: {sorted(got)}"


def test_sdist_builds_and_installs_alone(dist, work):
    python = new_venv(os.path.join(work, "sdist"))
    run(python, "-m", "pip", "install", "-q", dist[0])  # compiles the extension from the sdist's sources
    check_smoke(python, work)
