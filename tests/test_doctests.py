"""The worked examples in the docstrings (STYLE 3) are run as doctests."""

import doctest
import importlib

import pytest

import bpe_lesson

MODULES = ["patterns", "textbook", "incremental", "tokenizer", "corpus", "trainer", "tiktoken_io",
           "exercises", "samples", "_files"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(f"bpe_lesson.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no worked example"
    assert result.failed == 0


def test_compiled_trainer_docstring_example():
    if bpe_lesson.BACKEND != "cython":
        pytest.skip("BPE_LESSON_PUREPYTHON=1")
    from bpe_lesson import _incremental

    assert _incremental.train_merges({b"aaabdaaabac": 1}, 3) == [((97, 97), 256), ((97, 98), 257), ((256, 257), 258)]
