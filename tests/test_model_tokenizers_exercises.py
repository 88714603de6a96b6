"""The exercises of book/model_tokenizers.ipynb: each check cell fails a plausible wrong solution.

The chapter's code cells run in one namespace in this process (solution and check
cells left out), as a kernel would run them top to bottom. Then, for each exercise,
every wrong solution below is executed in place of the real one and its check cell
must raise ``AssertionError``; last, the real solution must pass its check, so a
check that rejects everything is caught too.
"""

import os

import nbformat
import pytest

from bpe_lesson.exercises import CHECK_TAG, SOLUTION_TAG

pytestmark = pytest.mark.slow  # the chapter loads seven vocabularies and encodes 400 KB with each

CHAPTER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "book",
                       "model_tokenizers.ipynb")

WRONG = {
    "ex-models-bytemap": {
        "keeps only ASCII, not Latin-1": '''
def byte_to_unicode():
    out, extra = {}, 0
    for b in range(256):
        if 33 <= b <= 126:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + extra)
            extra += 1
    return out
''',
        "shifts every other byte by 256": '''
def byte_to_unicode():
    keep = [*range(33, 127), *range(161, 173), *range(174, 256)]
    return {b: chr(b) if b in keep else chr(256 + b) for b in range(256)}
''',
        "Latin-1 for every byte": '''
def byte_to_unicode():
    return {b: chr(b) for b in range(256)}
''',
    },
    "ex-models-share": {
        "counts an untied embedding once": '''
def llama_params(vocab_size, d_model, n_layers, d_ff, d_kv, tied):
    layer = 2 * d_model * d_model + 2 * d_model * d_kv + 3 * d_model * d_ff + 2 * d_model
    return n_layers * layer + d_model + vocab_size * d_model
''',
        "forgets the normalization weights": '''
def llama_params(vocab_size, d_model, n_layers, d_ff, d_kv, tied):
    layer = 2 * d_model * d_model + 2 * d_model * d_kv + 3 * d_model * d_ff
    return n_layers * layer + vocab_size * d_model * (1 if tied else 2)
''',
        "full-width keys and values": '''
def llama_params(vocab_size, d_model, n_layers, d_ff, d_kv, tied):
    layer = 4 * d_model * d_model + 3 * d_model * d_ff + 2 * d_model
    return n_layers * layer + d_model + vocab_size * d_model * (1 if tied else 2)
''',
        "a two-matrix MLP": '''
def llama_params(vocab_size, d_model, n_layers, d_ff, d_kv, tied):
    layer = 2 * d_model * d_model + 2 * d_model * d_kv + 2 * d_model * d_ff + 2 * d_model
    return n_layers * layer + d_model + vocab_size * d_model * (1 if tied else 2)
''',
    },
    "ex-models-disagree": {
        "the largest difference, not ratio": '''
def most_disagreeing(tok_a, tok_b, candidates):
    best = max(candidates, key=lambda s: len(tok_a.encode(s)) - len(tok_b.encode(s)))
    return best, len(tok_a.encode(best)) / len(tok_b.encode(best))
''',
        "the ratio upside down": '''
def most_disagreeing(tok_a, tok_b, candidates):
    best = max(candidates, key=lambda s: len(tok_b.encode(s)) / len(tok_a.encode(s)))
    return best, len(tok_b.encode(best)) / len(tok_a.encode(best))
''',
        "the last on a tie": '''
def most_disagreeing(tok_a, tok_b, candidates):
    best, best_ratio = None, -1.0
    for s in candidates:
        ratio = len(tok_a.encode(s)) / len(tok_b.encode(s))
        if ratio >= best_ratio:
            best, best_ratio = s, ratio
    return best, best_ratio
''',
    },
}


@pytest.fixture(scope="module")
def chapter():
    """(namespace after the chapter's ordinary cells, [(label, solution source, check source)])."""
    import matplotlib

    matplotlib.use("Agg")  # the figure cell draws without a display
    nb = nbformat.read(CHAPTER, as_version=4)
    cells = nb.cells
    exercises, label = [], None
    namespace = {"__name__": "__chapter__"}
    for i, cell in enumerate(cells):
        if cell.cell_type == "markdown" and "{solution-start}" in cell.source:
            label = cell.source.split("{solution-start}")[1].split()[0]
        if cell.cell_type != "code":
            continue
        tags = cell.metadata.get("tags", [])
        if SOLUTION_TAG in tags:
            solution = cell.source
        elif CHECK_TAG in tags:
            exercises.append((label, solution, cell.source))
        else:
            exec(compile(cell.source, f"{CHAPTER}, cell {i}", "exec"), namespace)
    return namespace, exercises


def test_every_exercise_has_wrong_solutions(chapter):
    _, exercises = chapter
    assert [label for label, _, _ in exercises] == list(WRONG)
    assert all(len(wrong) >= 3 for wrong in WRONG.values())


@pytest.mark.parametrize("label,why", [(label, why) for label, wrong in WRONG.items() for why in wrong])
def test_the_check_rejects_a_wrong_solution(chapter, label, why):
    namespace, exercises = chapter
    _, _, check = next(e for e in exercises if e[0] == label)
    ns = dict(namespace)
    exec(WRONG[label][why], ns)
    with pytest.raises(AssertionError):
        exec(check, ns)


@pytest.mark.parametrize("label", list(WRONG))
def test_the_check_accepts_the_real_solution(chapter, label):
    namespace, exercises = chapter
    _, solution, check = next(e for e in exercises if e[0] == label)
    ns = dict(namespace)
    exec(solution, ns)
    exec(check, ns)
