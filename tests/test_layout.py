"""The package's import graph goes one way, the Tokenizer has one home, and ``import bpe_lesson`` stays light.

Each module of ``src/bpe_lesson`` is parsed with ``ast`` (the .pyx/.pxi files
by their ``from .x import`` lines) and its imports of package modules become
the edges of a graph. Checked here:
  * the graph has no cycle, and neither has the graph of the package's parts (each
    top-level module, and each folder as one part: ``tokenizer``, ``formats``,
    ``_compiled`` with the compiled side's Python imports, ``_internal``, ``scale``, ...);
  * ``_internal`` is the bottom layer: it imports nothing of the package outside itself;
  * every public name of ``Tokenizer`` is defined in a module of ``bpe_lesson.tokenizer``;
  * no module of the core (the flat top level, and the folders that are the core's
    own insides: ``CORE_FOLDERS``) imports a subpackage, by an
    import statement or by naming one of its modules in a string (for
    ``importlib``), except the command line (``__main__``), which dispatches to each part's
    subcommand;
  * no package module is imported inside a function (the way a cycle is dodged);
  * ``import bpe_lesson`` in a fresh interpreter loads no torch, matplotlib or tqdm.
"""

import ast
import os
import re
import subprocess
import sys

import pytest

import bpe_lesson

ROOT = os.path.dirname(bpe_lesson.__file__)
HEAVY = ("torch", "matplotlib", "tqdm")
# core modules allowed to name subpackage modules, and why
# folders that belong to the core (the core imports them), and why
CORE_FOLDERS = {"bpe_lesson._compiled": "the compiled twin of the core's encoder and trainer, and the switch to it",
                "bpe_lesson._internal": "helpers of the core modules (files, progress, character classes, checks)",
                "bpe_lesson.tokenizer": "the Tokenizer: its class and every concern of it",
                "bpe_lesson.formats": "other ecosystems' tokenizer files, read into and written from a Tokenizer"}
DISPATCHERS = {"bpe_lesson.__main__": "the bpe-lesson command runs each part's subcommand by module name"}


def module_files():
    """Dotted name -> (path, is_package) for every .py, .pyx and .pxi file of the package."""
    out = {}
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith((".", "__"))]
        rel = os.path.relpath(folder, os.path.dirname(ROOT)).replace(os.sep, ".")
        for f in files:
            stem, ext = os.path.splitext(f)
            if ext not in (".py", ".pyx", ".pxi"):
                continue
            name = rel if stem == "__init__" else f"{rel}.{stem}"
            out[name] = (os.path.join(folder, f), stem == "__init__")
    return out


MODULES = module_files()


def resolve(name, is_package, level, target):
    """The absolute name of ``from <level dots><target> import ...`` written in module ``name``."""
    if level == 0:
        return target
    base = name.split(".") if is_package else name.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def targets(base, names):
    """The package modules that ``from base import names`` loads."""
    out = set()
    for n in names:
        if f"{base}.{n}" in MODULES:
            out.add(f"{base}.{n}")
        elif base in MODULES:
            out.add(base)
    return out


def imports_of(name):
    """(imported module, inside a function?) for each import of a package module in ``name``."""
    path, is_package = MODULES[name]
    with open(path, encoding="utf-8") as f:
        return imports_in(f.read(), name, is_package, cython=path.endswith((".pyx", ".pxi")))


def imports_in(source, name, is_package=False, cython=False):
    """The same, for the source text of module ``name``."""
    found = []
    if cython:  # read the Python-level import lines
        for dots, target, names in re.findall(r"^(?:from|cimport) (\.+)(\w*(?:\.\w+)*) (?:c?import) ([\w, ]+)$",
                                              source, re.M):
            base = resolve(name, is_package, len(dots), target)
            found += [(m, False) for m in targets(base, [n.split(" as ")[0].strip() for n in names.split(",")])]
        return found

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom):
                base = resolve(name, is_package, child.level, child.module or "")
                if base.split(".")[0] == "bpe_lesson":
                    found.extend((m, inside) for m in targets(base, [a.name for a in child.names]))
            elif isinstance(child, ast.Import):
                for a in child.names:
                    parts = a.name.split(".")
                    known = [".".join(parts[:k]) for k in range(len(parts), 0, -1) if ".".join(parts[:k]) in MODULES]
                    if known:
                        found.append((known[0], inside))
            visit(child, inside)

    visit(ast.parse(source), False)
    return found


def test_imports_in_reads_each_form():
    # a check on the checker, on a module written for it
    source = (
        "import os\n"
        "from . import ranks, trainer\n"
        "from .patterns import GPT4_PATTERN\n"
        "import bpe_lesson.textbook\n"
        "def f():\n"
        "    from tqdm import tqdm\n"
        "    from .tokenizer import Tokenizer\n"
        "class C:\n"
        "    def g(self):\n"
        "        import bpe_lesson.chunks\n"
    )
    assert sorted(imports_in(source, "bpe_lesson.x")) == [
        ("bpe_lesson.chunks", True), ("bpe_lesson.patterns", False),
        ("bpe_lesson.ranks", False), ("bpe_lesson.textbook", False), ("bpe_lesson.tokenizer", True),
        ("bpe_lesson.trainer", False)]
    # in a subpackage: ".." is the core, "." the subpackage itself
    assert sorted(imports_in("from ..lm import pack\nfrom .. import chunks\nfrom . import counting\n",
                             "bpe_lesson.scale.x")) == [
        ("bpe_lesson.chunks", False), ("bpe_lesson.lm.pack", False), ("bpe_lesson.scale.counting", False)]
    assert imports_in("from ..ranks import vocab_from_merges\ninclude \"_scanners.pxi\"\n",
                      "bpe_lesson._compiled._incremental", cython=True) == [("bpe_lesson.ranks", False)]


def graph():
    return {name: {m for m, _ in imports_of(name) if m != name} for name in MODULES}


def is_core(name):
    return (name == "bpe_lesson" or (name.count(".") == 1 and not MODULES[name][1])
            or any(name == f or name.startswith(f + ".") for f in CORE_FOLDERS))


def test_every_part_is_found():
    # a check on the checker: it sees the core, each subpackage and the compiled sources
    for name in ["bpe_lesson", "bpe_lesson.tokenizer", "bpe_lesson.tokenizer.core", "bpe_lesson._compiled._native",
                 "bpe_lesson._compiled._incremental", "bpe_lesson._compiled._scanners",
                 "bpe_lesson.scale", "bpe_lesson.scale.phases", "bpe_lesson.lm.pack", "bpe_lesson.cousins.unigram",
                 "bpe_lesson.teaching.viz"]:
        assert name in MODULES, name
    g = graph()
    assert "bpe_lesson._compiled._native" in g["bpe_lesson._compiled.backend"]
    assert sum(path.endswith(".pxi") for path, _ in MODULES.values()) >= 10  # the compiled sources are read
    assert is_core("bpe_lesson._compiled._native") and not is_core("bpe_lesson.scale.phases")
    assert "bpe_lesson.chunks" in g["bpe_lesson.scale.counting"]  # from ..chunks import


def find_cycle(g):
    """A cycle as a list of modules, or None (depth-first search, colouring nodes)."""
    state = {}  # name -> "open" while on the stack, "done" after

    def dfs(node, path):
        state[node] = "open"
        for nxt in sorted(g.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = dfs(nxt, path + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for start in sorted(g):
        if start not in state:
            found = dfs(start, [start])
            if found:
                return found
    return None


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_the_import_graph_has_no_cycle():
    assert find_cycle(graph()) is None


def part(name):
    """The part of the package a module belongs to: its folder (``bpe_lesson.tokenizer.core`` ->
    ``tokenizer``), or the module itself when it sits at the top (``bpe_lesson.ranks`` -> ``ranks``)."""
    return name.split(".")[1] if "." in name else "__init__"


def part_graph():
    """Part -> the parts it imports. The face (``__init__``) and the command line (``__main__``)
    import every part and no part imports them: they are the roof, left out."""
    roof = {"__init__", "__main__"}
    out = {}
    for name, imported in graph().items():
        if part(name) in roof:
            continue
        out.setdefault(part(name), set()).update(part(m) for m in imported if part(m) != part(name))
    return out


def test_part_graph_reads_folders_as_parts():
    # a check on the checker: a folder is one part, and the compiled side's imports count
    g = part_graph()
    assert "formats" in g and "tokenizer" in g and "tokenizer" in g["formats"]
    assert "_compiled" in g["tokenizer"] and "patterns" in g["_compiled"]
    assert part("bpe_lesson.teaching.checks._gen") == "teaching" and part("bpe_lesson") == "__init__"


def test_the_parts_import_one_way():
    # no loop between parts: formats -> tokenizer -> _compiled -> patterns -> _internal, never back
    assert find_cycle(part_graph()) is None


def test_the_compiled_sources_import_nothing_of_the_package():
    # the .pyx/.pxi files receive what they use of the Python core (backend's configure call),
    # so the compiled side sits under the core: one way, with nothing to read back up
    found = sorted(f"{name} imports {m}" for name, (path, _) in MODULES.items() if path.endswith((".pyx", ".pxi"))
                   for m, _ in imports_of(name))
    assert found == []


def test_internal_is_the_bottom_layer():
    up = sorted(f"{name} imports {m}" for name, imported in graph().items() if part(name) == "_internal"
                for m in imported if part(m) != "_internal")
    assert up == []


def test_every_public_name_of_tokenizer_is_defined_in_its_home():
    # what a Tokenizer can do is read in one package: its class and the concerns it mixes in
    from bpe_lesson import Tokenizer

    outside = {}
    for name in dir(Tokenizer):
        if name.startswith("_"):
            continue
        owner = next(c for c in Tokenizer.__mro__ if name in vars(c))
        if owner.__module__.split(".")[:2] != ["bpe_lesson", "tokenizer"]:
            outside[name] = f"{owner.__module__}.{owner.__qualname__}"
    assert outside == {}
    assert len([n for n in dir(Tokenizer) if not n.startswith("_")]) >= 40  # the check saw the whole surface


def test_the_core_imports_no_subpackage():
    subpackage_modules = {n for n in MODULES if not is_core(n)}
    bad = []
    for name in sorted(filter(is_core, MODULES)):
        imported = {m for m, _ in imports_of(name)}
        path = MODULES[name][0]
        if path.endswith(".py"):  # modules named in strings, as importlib.import_module takes them
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read())
            imported |= {node.value for node in ast.walk(tree)
                         if isinstance(node, ast.Constant) and node.value in subpackage_modules}
        for m in sorted(imported & subpackage_modules):
            if name not in DISPATCHERS:
                bad.append(f"{name} imports {m}")
    assert bad == []


def test_the_command_line_is_a_dispatcher():
    # the exemption above holds only while cli names subpackage modules
    from bpe_lesson import __main__ as cli

    assert {module for module, _ in cli.COMMANDS.values()} <= {n for n in MODULES if not is_core(n)}


def test_no_package_module_is_imported_inside_a_function():
    bad = [f"{name} imports {m} inside a function" for name in sorted(MODULES)
           for m, inside in imports_of(name) if inside]
    assert bad == []


def test_importing_the_package_loads_no_heavy_library():
    code = ("import sys, bpe_lesson; "
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))")
    for env in ({}, {"BPE_LESSON_PUREPYTHON": "1"}):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env=dict(os.environ, **env)).stdout
        assert out.strip() == "[]", env


def test_the_backend_is_read_in_one_module():
    # one switch, one place: only _compiled.backend imports the compiled extension or reads the environment variable
    importers = sorted(name for name in MODULES for m, _ in imports_of(name)
                       if m == "bpe_lesson._compiled._native" and not MODULES[name][0].endswith((".pyx", ".pxi")))
    assert importers == ["bpe_lesson._compiled.backend"]
    readers = []
    for name, (path, _) in sorted(MODULES.items()):
        if path.endswith(".py"):
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read())
            docs = {id(n.body[0].value) for n in ast.walk(tree)
                    if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef)) and n.body
                    and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
            if any(isinstance(n, ast.Constant) and n.value == "BPE_LESSON_PUREPYTHON" and id(n) not in docs
                   for n in ast.walk(tree)):
                readers.append(name)
    assert readers == ["bpe_lesson._compiled.backend"]


# ---- the shape of the package: what `ls` shows, and how many parameters a helper takes ----
# (no cap on a file's lines: a cap split the Tokenizer across folders once; an idea stays whole)

# every entry of src/bpe_lesson, so that a new one is a decision made here
ROOT_ENTRIES = {
    "__init__.py", "__main__.py",                                    # the face, the command
    "patterns.py", "chunks.py",                                      # the core Part I reads
    "textbook.py", "incremental.py", "ranks.py", "trainer.py",
    "tokenizer",                                                     # the Tokenizer, one package
    "formats", "_compiled", "_internal",                             # the core's own folders
    "scale", "lm", "cousins", "teaching",                            # the parts
}
MOST_PARAMETERS = 8
# helpers that still take more, and why (a public entry point may, with its options keyword-only)
MANY_PARAMETERS = {}


def test_the_package_root_is_the_core_and_the_parts():
    entries = {e for e in os.listdir(ROOT) if not e.startswith(".") and e != "__pycache__"
               and not e.endswith((".so", ".pyd", ".c", ".cpp", ".html"))}
    assert entries == ROOT_ENTRIES
    assert len(ROOT_ENTRIES) <= 16  # a newcomer reads the root at a glance


def source_files():
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith((".", "__"))]
        for f in files:
            if f.endswith((".py", ".pyx", ".pxd", ".pxi", ".h")):
                yield os.path.relpath(os.path.join(folder, f), ROOT)


def test_no_helper_takes_more_than_a_few_parameters():
    bad, seen = [], set()
    for rel in source_files():
        if not rel.endswith(".py"):
            continue
        module = rel[:-3].replace(os.sep, ".")
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            a = node.args
            positional = [x.arg for x in a.posonlyargs + a.args if x.arg not in ("self", "cls")]
            n = len(positional) + len(a.kwonlyargs)
            public_with_options = not node.name.startswith("_") and len(positional) <= 3
            name = f"{module}.{node.name}"
            if n > MOST_PARAMETERS and not public_with_options:
                seen.add(name)
                if name not in MANY_PARAMETERS:
                    bad.append(f"{name} takes {n} parameters, {len(positional)} positional")
    assert bad == []
    assert sorted(set(MANY_PARAMETERS) - seen) == [], "fixed now: take them out of MANY_PARAMETERS"


# ---- what a module offers: its __all__ ----

def public_modules():
    """Dotted name -> path of every .py module whose name and folders are not private."""
    return {name: path for name, (path, is_package) in MODULES.items()
            if path.endswith(".py") and not is_package
            and not any(p.startswith("_") for p in name.split("."))}


def declared_all(tree):
    """The names of a module's ``__all__ = [...]`` (a literal), or None."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                                for t in node.targets):
            return [elt.value for elt in node.value.elts]
    return None


def defined_names(tree):
    """Top-level functions and classes, and UPPER_CASE constants, as written."""
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out += [t.id for t in targets if isinstance(t, ast.Name) and t.id.isupper()]
    return out


def test_declared_all_reads_a_literal():
    tree = ast.parse('"""doc"""\nimport os\n__all__ = ["A", "f"]\nA = 1\ndef f(): pass\n'
                     "def _g(): pass\nclass C: pass\n")
    assert declared_all(tree) == ["A", "f"]
    assert defined_names(tree) == ["A", "f", "_g", "C"]  # C public and undeclared: the test below fails on it


def imported_names(tree):
    """The names a module's top-level imports bind (a module may offer them on)."""
    return {(a.asname or a.name).split(".")[0] for node in tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names}


def test_every_public_module_declares_all_it_offers():
    # what a module offers is read at its top: every public function, class and constant
    # it defines is in __all__, and every name in __all__ is one it defines or imports
    assert len(public_modules()) >= 80  # the check saw the whole package
    wrong = {}
    for name, path in sorted(public_modules().items()):
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        declared = declared_all(tree)
        public = [n for n in defined_names(tree) if not n.startswith("_")]
        if declared is None:
            wrong[name] = "no __all__"
        elif (set(public) - set(declared) or set(declared) - set(public) - imported_names(tree)
              or len(declared) != len(set(declared))):
            wrong[name] = {"undeclared": sorted(set(public) - set(declared)),
                           "not defined here": sorted(set(declared) - set(public)
                                                      - imported_names(tree))}
    assert wrong == {}
