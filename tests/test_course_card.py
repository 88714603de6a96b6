"""The course card's task list: each task has an executed code cell somewhere in book/*.ipynb.

The card we build on lists what a reader should be able to do: train a tokenizer,
encode with special tokens, decode, normalize with NFKC, use tiktoken, train with
Hugging Face, train SentencePiece, load a model tokenizer. For each task a regular
expression recognises a call that does it in a code cell's source (comments
dropped); the cell must have been executed, without an error, in the stored
notebook. A missing task fails with its name.
"""

import functools
import glob
import io
import os
import re
import tokenize

import nbformat
import pytest

BOOK = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "book")

# task -> a call that does it
TASKS = {
    "train a tokenizer": r"\bbpe_lesson\.train\(|(?<![\w.])train\(",
    "encode with special tokens": r"\.encode\([^)]*allowed_special\s*=\s*(?!\(\))",
    "decode ids": r"\.decode\(\s*(?:\[|(?!errors\b|encoding\b)[A-Za-z_])",
    "NFKC normalization": r"normalize\s*=\s*['\"]NFKC['\"]",
    "tiktoken": r"\b(?:to_tiktoken|from_tiktoken|tiktoken\.Encoding|tiktoken\.get_encoding)\(",
    "Hugging Face training": r"\.train_from_iterator\([^)]*trainers\.\w+Trainer|\btrainers\.BpeTrainer\(",
    "SentencePiece training": r"\bSentencePieceTrainer\.[Tt]rain\(",
    "load a model tokenizer": r"\bfrom_pretrained\(",
}


@functools.lru_cache(maxsize=None)
def _code(source: str) -> str:
    """A cell's source without comments (so "# TODO: train(...)" does not count)."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type != tokenize.COMMENT]
        return tokenize.untokenize(tokens)
    except (tokenize.TokenError, SyntaxError):  # IPython magics and the like: the source as it is
        return source


def cells_doing(notebooks, pattern):
    """(notebook, cell index) of executed, error-free code cells whose source matches ``pattern``."""
    rx = re.compile(pattern)
    out = []
    for name, nb in notebooks.items():
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or not rx.search(_code(cell.source)):
                continue
            if cell.execution_count is None or any(o.output_type == "error" for o in cell.outputs):
                continue
            out.append((name, i))
    return out


def missing_tasks(notebooks):
    return [task for task, pattern in TASKS.items() if not cells_doing(notebooks, pattern)]


@pytest.fixture(scope="module")
def book():
    paths = sorted(glob.glob(os.path.join(BOOK, "*.ipynb")))
    return {os.path.basename(p): nbformat.read(p, as_version=4) for p in paths}


def test_every_task_on_the_card_has_a_cell(book):
    missing = missing_tasks(book)
    assert not missing, f"no executed code cell in book/*.ipynb does these course-card tasks: {missing}"


@pytest.mark.parametrize("task", list(TASKS))
def test_dropping_the_cells_of_a_task_names_it(book, task):
    # the detector is not vacuous: without the cells that do a task, exactly that task is missing
    hits = set(cells_doing(book, TASKS[task]))
    assert hits, task
    pruned = {name: nbformat.v4.new_notebook(cells=[c for i, c in enumerate(nb.cells) if (name, i) not in hits])
              for name, nb in book.items()}
    assert task in missing_tasks(pruned)


def test_a_cell_that_was_not_run_or_failed_does_not_count():
    nb = nbformat.v4.new_notebook()
    never_run = nbformat.v4.new_code_cell("tok = from_pretrained('llama3')")
    failed = nbformat.v4.new_code_cell("tok = from_pretrained('llama3')", execution_count=1)
    failed.outputs = [nbformat.v4.new_output("error", ename="ValueError", evalue="x", traceback=[])]
    commented = nbformat.v4.new_code_cell("# from_pretrained('llama3') would load it", execution_count=2)
    nb.cells = [never_run, failed, commented]
    assert cells_doing({"x.ipynb": nb}, TASKS["load a model tokenizer"]) == []
    nb.cells.append(nbformat.v4.new_code_cell("tok = from_pretrained('llama3')", execution_count=3))
    assert cells_doing({"x.ipynb": nb}, TASKS["load a model tokenizer"]) == [("x.ipynb", 3)]
