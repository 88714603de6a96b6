"""What the compiled extension is built from, and that a change to any of it rebuilds it.

Two places decide whether a build is stale: setup.py's ``depends`` (setuptools rebuilds an
extension when one of them is newer than its .so) and the Makefile's install stamp (make
reinstalls when one of its prerequisites is newer). Each extension's sources are found here
by reading the .pyx: the .pxd of the same name (Cython reads it first), its ``include "x.pxi"``
lines, followed into the .pxi files, and its ``#include`` / ``cdef extern from`` headers that
live in the package. Every compiled source lives in ``src/bpe_lesson/_compiled/``.
"""

import fnmatch
import os
import re
import sys
import types

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src", "bpe_lesson")
COMPILED_EXTS = (".pyx", ".pxd", ".pxi", ".h")
NAMED = re.compile(r'^\s*(?:include\s+"([^"]+\.pxi)"|#include\s+"([^"]+\.h)"|cdef extern from\s+"([^"]+\.h)")', re.M)


def inputs_of(path, seen=None):
    """Every package file that ``path`` (a .pyx or .pxi) includes, directly or not, and the
    .pxd beside a .pyx. Names are resolved from the including file's folder, as Cython and
    the C compiler do."""
    seen = set() if seen is None else seen
    folder = os.path.dirname(path)
    pxd = os.path.splitext(path)[0] + ".pxd"
    if path.endswith(".pyx") and os.path.exists(pxd):
        seen.add(pxd)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for m in NAMED.finditer(text):
        name = next(g for g in m.groups() if g)
        full = os.path.join(folder, name)
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
    patterns = re.findall(r"src/bpe_lesson/(?:\w+/)*\*\.\w+", line)
    compiled = compiled_sources()
    assert compiled
    uncovered = [n for n in compiled if not any(fnmatch.fnmatch(f"src/bpe_lesson/{n}", p) for p in patterns)]
    assert not uncovered, f"the Makefile's $(STAMP) rule does not depend on {uncovered}"


def compiled_sources():
    """Every .pyx, .pxd, .pxi and .h under the package, relative to it."""
    return sorted(os.path.relpath(os.path.join(folder, f), SRC) for folder, _, files in os.walk(SRC)
                  for f in files if f.endswith(COMPILED_EXTS))


def test_every_compiled_source_lives_in_one_folder():
    assert {os.path.dirname(n) for n in compiled_sources()} == {"_compiled"}


def test_one_extension_is_built_from_every_compiled_source():
    # one .pyx, one extension: each shared piece (hash table, scanners, SIMD switch) exists once
    (ext,) = extensions()
    assert ext.name == "bpe_lesson._compiled._native"
    used = set()
    for source in ext.sources:
        used |= {os.path.relpath(p, SRC) for p in inputs_of(os.path.join(ROOT, source))}
        used.add(os.path.relpath(os.path.join(ROOT, source), SRC))
    assert used == set(compiled_sources()), "a compiled source that the extension does not build from"


def test_each_pxi_is_included_once():
    counts = {n: 0 for n in compiled_sources() if n.endswith(".pxi")}
    for n in compiled_sources():
        with open(os.path.join(SRC, n), encoding="utf-8") as f:
            for m in re.finditer(r'^include "([^"]+)"', f.read(), re.M):
                counts[os.path.join(os.path.dirname(n), m.group(1))] += 1
    assert {n: c for n, c in counts.items() if c != 1} == {}


def test_the_pxd_declares_the_shared_pieces_each_defined_once():
    with open(os.path.join(SRC, "_compiled", "_native.pxd"), encoding="utf-8") as f:
        pxd = f.read()
    declared = re.findall(r"^cdef (?:struct (\w+)|[\w*\s]+?\b(\w+)\()", pxd, re.M)
    names = [a or b for a, b in declared]
    # the hash table's struct and functions, and the scanners' entry points
    assert {"Table", "Slot", "Key", "table_init", "table_insert", "next_gpt4", "next_o200k"} <= set(names)
    pxi = {n: open(os.path.join(SRC, n), encoding="utf-8").read() for n in compiled_sources() if n.endswith(".pxi")}
    for name in names:
        where = [n for n, text in pxi.items()
                 if re.search(rf"^cdef (?:struct {name}:|[\w*\s]+?\b{name}\()", text, re.M)]
        if name in ("Table", "Slot", "Key"):
            assert where == [], f"struct {name} is declared in _native.pxd, and again in {where}"
        else:
            assert len(where) == 1, f"{name} is defined in {where or 'no .pxi'}, not in exactly one"


def test_the_include_reader_on_a_hand_made_file(tmp_path):
    (tmp_path / "a.pxi").write_text('cdef extern from "b.h":\n    pass\n')
    (tmp_path / "b.h").write_text("")
    (tmp_path / "m.pxd").write_text("")
    (tmp_path / "m.pyx").write_text('include "a.pxi"\ncdef extern from "Python.h":\n    pass\n')
    assert inputs_of(str(tmp_path / "m.pyx")) == {str(tmp_path / "a.pxi"), str(tmp_path / "b.h"),
                                                   str(tmp_path / "m.pxd")}
