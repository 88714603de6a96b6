"""The student version of the book: the same notebooks with the solutions taken out.

Convention in ``book/*.ipynb`` (every chapter follows it):
  * an exercise is a ``{exercise}`` directive with a ``:label:``;
  * its solution is a code cell tagged ``solution``, inside a
    ``{solution-start} LABEL`` / ``{solution-end}`` pair (so it folds away);
  * a *check* code cell tagged ``check`` follows and asserts, so
    ``pytest --nbval`` fails while the exercise is wrong or missing; it prints
    "ok" and nothing else;
  * an *example* code cell tagged ``example`` may follow the check: it puts the
    reader's function to work on the chapter's text (a worked example, kept apart
    from the grading so the check's output never shows an answer);
  * No other cell uses what a solution cell defines, so an unsolved exercise
    fails its own cells and nothing else.
  * a code cell tagged ``answer-listing`` shows the package's own source of what a
    later exercise asks the reader to write (Training fast's ``pop_best``,
    ``merge_word``, ``apply_merge``, which answer the capstone's trainer): nothing
    later may use what it defines.

``python -m bpe_lesson.teaching.exercises strip book/ student/`` copies every notebook and
replaces each solution cell by a stub that raises ``NotImplementedError``, with
its outputs cleared, and each answer listing by a comment that says where the
listing went. The check and example cells keep their code but lose their
stored outputs too (an example shows what the answer prints), and all three kinds of
cell are tagged ``nbval-ignore-output``: in the student copy nbval grades an exercise by whether its
cells raise, and the check's message names the exercise.

What this module does not do: grade anything itself (nbval does), or touch the
markdown (the folded solution text, if any, stays).
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import os
import re
import sys
import tokenize

__all__ = ["SOLUTION_TAG", "CHECK_TAG", "EXAMPLE_TAG", "LISTING_TAG", "LISTING_NOTE",
           "IGNORE_TAG", "stub_for", "strip_notebook", "strip_tree", "main"]

SOLUTION_TAG = "solution"
CHECK_TAG = "check"
EXAMPLE_TAG = "example"
LISTING_TAG = "answer-listing"
LISTING_NOTE = ("# The book shows the package's source of these steps here. This copy leaves it out:\n"
                "# it answers exercises you write later. Read it in the book once yours pass.")
IGNORE_TAG = "nbval-ignore-output"
_LABEL = re.compile(r"\{solution-start\}\s+(\S+)")


def _source(cell) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def stub_for(label: str, solution: str) -> str:
    """The code a student sees instead of the solution.

    Each top-level ``def`` line is kept with a body that raises; a solution with no
    function (say, a number to compute) becomes a cell that raises.

    >>> print(stub_for("ex-pairs", "def count_pairs(ids):\\n    return {}"))
    # Exercise ex-pairs: write your solution here, then run the check cell below.
    def count_pairs(ids):
        raise NotImplementedError("exercise ex-pairs is not solved yet")
    >>> print(stub_for("ex-share", "share = 98.3 / 501.8"))
    # Exercise ex-share: write your solution here, then run the check cell below.
    raise NotImplementedError("exercise ex-share is not solved yet")
    """
    msg = f'raise NotImplementedError("exercise {label} is not solved yet")'
    lines = [f"# Exercise {label}: write your solution here, then run the check cell below."]
    defs = _signatures(solution)
    for signature in defs:
        lines += signature + ["    " + msg]
    if not defs:
        lines.append(msg)
    return "\n".join(lines)


def _signatures(solution: str) -> list[list[str]]:
    """The lines of each top-level ``def``'s signature, however many lines it spans.

    >>> _signatures("def f(a,\\n      b=1):\\n    return a\\nx = 1")
    [['def f(a,', '      b=1):']]
    """
    source = solution.splitlines()
    try:
        tree = ast.parse(solution)
    except SyntaxError:  # not Python (a cell magic, say): each def line alone, as it stands
        return [[line] for line in source if line.startswith("def ")]
    found = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        first = node.lineno - 1  # decorators stay out: the reader writes their own
        line, col = _colon_after(source, first)  # subtle: the signature may span lines
        found.append(source[first:line] + [source[line][:col + 1]])
    return found


def strip_notebook(nb: dict) -> tuple[dict, list[str]]:
    """Replace every solution cell of one notebook; return it and the labels stripped."""
    label = None
    stripped = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            m = _LABEL.search(_source(cell))
            if m:
                label = m.group(1)
            continue
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.get("cell_type") == "code" and LISTING_TAG in tags:
            cell["source"], cell["outputs"], cell["execution_count"] = LISTING_NOTE, [], None
            continue
        if cell.get("cell_type") != "code" or not {SOLUTION_TAG, CHECK_TAG, EXAMPLE_TAG} & set(tags):
            continue
        if SOLUTION_TAG in tags:
            name = label or f"solution-{len(stripped) + 1}"
            cell["source"] = stub_for(name, _source(cell))
            cell["execution_count"] = None
            stripped.append(name)
        cell["outputs"] = []
        if IGNORE_TAG not in tags:
            cell.setdefault("metadata", {})["tags"] = list(tags) + [IGNORE_TAG]
    return nb, stripped


def strip_tree(src: str, dst: str) -> dict[str, list[str]]:
    """Write a stripped copy of every notebook under ``src`` into ``dst``; other files are not copied."""
    report = {}
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "_build")
        for f in sorted(files):
            if not f.endswith(".ipynb"):
                continue
            path = os.path.join(root, f)
            with open(path, encoding="utf-8") as fh:
                nb = json.load(fh)
            nb, labels = strip_notebook(nb)
            out = os.path.join(dst, os.path.relpath(path, src))
            os.makedirs(os.path.dirname(out), exist_ok=True)
            tmp = out + ".tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(nb, fh, indent=1, ensure_ascii=False)
                fh.write("\n")
            os.replace(tmp, out)
            report[os.path.relpath(path, src)] = labels
    return report


def _colon_after(source: list[str], first: int) -> tuple[int, int]:
    """(line, column) of the ``:`` that ends the signature starting on line ``first``:
    the first colon outside brackets, strings and comments."""
    text = "\n".join(source[first:]) + "\n"
    depth = 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth -= 1
        elif tok.type == tokenize.OP and tok.string == ":" and depth == 0:
            return first + tok.start[0] - 1, tok.start[1]
    raise ValueError(f"no ':' ends the def on line {first + 1}: {source[first]!r}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bpe_lesson.teaching.exercises",
                                description="Write the student version of the book (solutions replaced by stubs).")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("strip", help="copy SRC's notebooks into DST with the solutions taken out")
    s.add_argument("src")
    s.add_argument("dst")
    args = p.parse_args(argv)
    report = strip_tree(args.src, args.dst)
    for nb, labels in report.items():
        print(f"{nb}: {len(labels)} exercise(s) stripped" + (f" ({', '.join(labels)})" if labels else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
