"""Every module's worked examples (its docstrings' doctests) run, in one place.

Each module of the package is found by walking it, so a new module is covered
without editing this file; a module with no worked example fails, unless it is
one of the few listed below with the reason.
"""

import doctest
import importlib
import pkgutil

import pytest

import bpe_lesson

# modules with nothing to show by example, and why
NO_EXAMPLE = {
    "bpe_lesson.cli": "argument parsing; tests/test_cli.py runs it",
    "bpe_lesson.scale.phases": "runs whole training phases; tests/scale/test_config.py runs them",
    "bpe_lesson.lm.windows": "needs shards on disk; tests/lm/test_windows.py builds them",
    "bpe_lesson.teaching.viz": "draws HTML and plots; tests/teaching/test_viz.py checks them",
    "bpe_lesson.interop": "a package of submodules",
    "bpe_lesson._unicode_data": "generated data; tests/test_unicode_classes.py checks it against tiktoken",
}
COMPILED = {"bpe_lesson._incremental", "bpe_lesson._encoder"}


def modules():
    names = [m.name for m in pkgutil.walk_packages(bpe_lesson.__path__, "bpe_lesson.")]
    return sorted((set(names) | {"bpe_lesson"}) - {"bpe_lesson.__main__"})  # __main__ runs the command line


@pytest.mark.parametrize("name", modules())
def test_worked_examples(name):
    if name in COMPILED and bpe_lesson.BACKEND != "cython":
        pytest.skip("BPE_LESSON_PUREPYTHON=1: the compiled modules are not imported")
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    if name not in NO_EXAMPLE and name.rsplit(".", 1)[-1] not in ("__init__",) and module.__file__ and \
            not module.__file__.endswith("__init__.py"):
        assert result.attempted > 0, f"{name} has no worked example in its docstrings"
