"""What the compiled extensions are built from, and that a change to any of it rebuilds them.

Two places decide whether a build is stale: setup.py's ``depends`` (setuptools rebuilds an
extension when one of them is newer than its .so) and the Makefile's install stamp (make
reinstalls when one of its prerequisites is newer). Each extension's sources are found here
by reading the .pyx: its ``include "x.pxi"`` lines, followed into the .pxi files, and its
``#include`` / ``cdef extern from`` headers that live in the package.
"""

import fnmatch
import os
import re
import sys
import types

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src", "bpe_lesson")
NAMED = re.compile(r'^\s*(?:include\s+"([^"]+\.pxi)"|#include\s+"([^"]+\.h)"|cdef extern from\s+"([^"]+\.h)")', re.M)


def inputs_of(path, seen=None):
    """Every package file that ``path`` (a .pyx or .pxi) includes, directly or not."""
    seen = set() if seen is None else seen
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for m in NAMED.finditer(text):
        name = next(g for g in m.groups() if g)
        full = os.path.join(SRC, name)
        if os.path.exists(full) and full not in seen:
            seen.add(full)
            if full.endswith(".pxi"):
                inputs_of(full, seen)
    return seen


def extensions():
    """setup.py's Extension objects, read without building (setup and cythonize stubbed)."""
    captured = {}
    fake_build = types.ModuleType("Cython.Build")
    fake_build.cythonize = lambda exts, **kw: exts
    import setuptools
    real_setup = setuptools.setup
    saved = {k: sys.modules.get(k) for k in ("Cython.Build",)}
    sys.modules["Cython.Build"] = fake_build
    setuptools.setup = lambda **kw: captured.update(kw)
    try:
        code = compile(open(os.path.join(ROOT, "setup.py")).read(), "setup.py", "exec")
        exec(code, {"__name__": "setup_under_test"})
    finally:
        setuptools.setup = real_setup
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return captured["ext_modules"]


@pytest.mark.parametrize("ext", extensions(), ids=lambda e: e.name)
def test_every_included_file_is_a_dependency(ext):
    needed = set()
    for source in ext.sources:
        needed |= inputs_of(os.path.join(ROOT, source))
    listed = {os.path.join(ROOT, d) for d in ext.depends}
    missing = sorted(os.path.relpath(p, ROOT) for p in needed - listed)
    assert not missing, f"{ext.name}: setup.py's depends leaves out {missing}"


def test_the_install_stamp_depends_on_every_compiled_source():
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        line = next(l for l in f if l.startswith("$(STAMP):"))
    patterns = re.findall(r"src/bpe_lesson/\*\.\w+", line)
    compiled = [n for n in os.listdir(SRC) if n.endswith((".pyx", ".pxd", ".pxi", ".h"))]
    assert compiled
    uncovered = [n for n in compiled if not any(fnmatch.fnmatch(f"src/bpe_lesson/{n}", p) for p in patterns)]
    assert not uncovered, f"the Makefile's $(STAMP) rule does not depend on {uncovered}"


def test_the_include_reader_on_a_hand_made_file(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "SRC", str(tmp_path))
    (tmp_path / "a.pxi").write_text('cdef extern from "b.h":\n    pass\n')
    (tmp_path / "b.h").write_text("")
    (tmp_path / "m.pyx").write_text('include "a.pxi"\ncdef extern from "Python.h":\n    pass\n')
    assert inputs_of(str(tmp_path / "m.pyx")) == {str(tmp_path / "a.pxi"), str(tmp_path / "b.h")}
