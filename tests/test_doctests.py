"""Every module's worked examples (its docstrings' doctests) run, in one place.

Each module of the package is found by walking it, so a new module is covered
without editing this file; a module with no worked example fails, unless it is
one of the few listed below with the reason.
"""

import doctest
import importlib
import pkgutil
import sys

import pytest

import bpe_lesson

# modules with nothing to show by example, and why
NO_EXAMPLE = {
        "bpe_lesson.scale.phases": "runs whole training phases; tests/scale/test_config.py runs them",
    "bpe_lesson.lm.windows": "needs shards on disk; tests/lm/test_windows.py builds them",
    "bpe_lesson.teaching.viz": "draws HTML and plots; tests/teaching/test_viz.py checks them",
    "bpe_lesson._internal.unicode_data": "generated data; tests/test_unicode_classes.py checks it against tiktoken",
}
COMPILED = {"bpe_lesson._compiled._native"}
CORE = {"regex", "tqdm", "yaml", "numpy"}  # pyproject's dependencies: never optional


def import_or_skip(name):
    """Import ``name``; skip (with the reason) when it needs an optional package that is
    not installed (torch, pyarrow, matplotlib, dask...), fail for anything else."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        missing = (e.name or "").split(".")[0]
        if missing and missing != "bpe_lesson" and missing not in CORE:
            pytest.skip(f"{name} needs {missing}, an optional package that is not installed")
        raise


def modules():
    names = [m.name for m in pkgutil.walk_packages(bpe_lesson.__path__, "bpe_lesson.")]
    return sorted((set(names) | {"bpe_lesson"}) - {"bpe_lesson.__main__"})  # __main__ runs the command line


@pytest.mark.parametrize("name", modules())
def test_worked_examples(name):
    if name in COMPILED and bpe_lesson.BACKEND != "cython":
        pytest.skip("BPE_LESSON_PUREPYTHON=1: the compiled modules are not imported")
    module = import_or_skip(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    if name not in NO_EXAMPLE and name.rsplit(".", 1)[-1] not in ("__init__",) and module.__file__ and \
            not module.__file__.endswith("__init__.py"):
        assert result.attempted > 0, f"{name} has no worked example in its docstrings"


def test_a_missing_optional_package_skips_and_a_missing_core_one_fails(monkeypatch):
    for gone in ("bpe_lesson.lm.windows", "torch"):
        monkeypatch.delitem(sys.modules, gone, raising=False)
    monkeypatch.setitem(sys.modules, "torch", None)  # "import torch" now raises ModuleNotFoundError
    with pytest.raises(pytest.skip.Exception, match="needs torch"):
        import_or_skip("bpe_lesson.lm.windows")
    monkeypatch.setitem(sys.modules, "regex", None)  # a dependency every install has
    monkeypatch.delitem(sys.modules, "bpe_lesson.patterns")
    with pytest.raises(ModuleNotFoundError):
        import_or_skip("bpe_lesson.patterns")
