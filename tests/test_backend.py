"""The compiled backend is built and chosen, and the environment switch forces Python."""

import os
import subprocess
import sys

import pytest

import bpe_lesson
from bpe_lesson.trainer import get_trainer


@pytest.mark.skipif(os.environ.get("BPE_LESSON_PUREPYTHON", "") not in ("", "0"),
                    reason="this run forces the pure-Python backend on purpose")
def test_cython_backend_is_built_and_active():
    # fails when `pip install -e .` did not compile the extensions
    from bpe_lesson import chunks
    from bpe_lesson._compiled import backend as _backend
    from bpe_lesson._compiled import _native
    from bpe_lesson.patterns import GPT4_PATTERN

    assert bpe_lesson.BACKEND == "cython"
    assert get_trainer("incremental").__name__ == "bpe_lesson._compiled._native"
    assert _native.__file__.endswith((".so", ".pyd"))
    assert _backend.native is _native
    # one extension serves the encoder and the trainer's chunk counter
    assert chunks.compiled_counter(GPT4_PATTERN) is _native.ChunkCounter
    assert _native.Encoder and _native.train_merges


def test_environment_variable_forces_pure_python():
    env = dict(os.environ, BPE_LESSON_PUREPYTHON="1")
    out = subprocess.run([sys.executable, "-c", "import bpe_lesson; print(bpe_lesson.BACKEND)"],
                         env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "python"


def test_textbook_has_one_implementation():
    assert get_trainer("textbook", "cython").__name__ == "bpe_lesson.textbook"
