"""What every chapter's stored notebook must hold, whichever chapter it is.

The tests each chapter's own file used to write again for itself: every name the
prose pastes with ``glue`` was glued by a cell that ran; a string with a space at an
edge is inline code, never in quotes that render curly and hide the space; one
Summary, then one Exercises heading with all the exercises under it. The claims
that tie a chapter's sentences to its own tables stay in that chapter's file.

What this file does not do: run a notebook (nbval does), or check the figures the
prose types without glue (``tests/test_book_prose.py`` does).
"""

import glob
import os
import re

import pytest

from _notebook import BOOK, glue_directives, glue_refs, glued_text, load, markdown

CHAPTERS = sorted(os.path.basename(p)[:-len(".ipynb")] for p in glob.glob(os.path.join(BOOK, "*.ipynb")))
# chapter -> how many exercises its Exercises section holds (a chapter not listed: at least one)
EXERCISES = {"from_tokens_to_training_windows": 3, "is_bpe_optimal": 3, "normalization_and_cousins": 3,
             "past_one_machine": 3, "training_a_real_tokenizer": 3, "troubleshooting": None,
             "unicode_versions": None, "what_tokenization_does_to_a_model": 5}


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_glued_name_in_the_prose_was_glued_by_a_cell(name):
    nb = load(name)
    text = markdown(nb)
    used = set(glue_refs(text)) | set(glue_directives(text))
    missing = used - set(glued_text(nb))
    assert used and not missing, f"{name}: the prose pastes glue no cell stored: {sorted(missing)}"


@pytest.mark.parametrize("name", CHAPTERS)
def test_strings_with_an_edge_space_are_inline_code(name):
    # '" the"' in plain prose renders with curly quotes that hide the space.
    # A directive's options (```{live-tokenizer} :word: " lowest") are not prose;
    # the body of an {exercise} or {admonition} is, so only option lines go.
    options = re.sub(r"^:\w[\w-]*:.*$", " ", markdown(load(name)), flags=re.M)
    fences = re.sub(r"^```.*$", " ", options, flags=re.M)
    prose = re.sub(r"`[^`]*`", " ", fences)
    quoted = re.findall(r'"\s\w+"|"\w+\s"', prose)
    assert not quoted, f"{name}: strings with an edge space in quotes, not in backticks: {quoted}"


@pytest.mark.parametrize("name", CHAPTERS)
def test_one_summary_then_the_exercises_under_their_heading(name):
    text = markdown(load(name))
    summaries = [m.start() for m in re.finditer(r"^## Summary\s*$", text, re.M)]
    headings = [m.start() for m in re.finditer(r"^## Exercises\s*$", text, re.M)]
    assert len(summaries) == 1 and len(headings) == 1, f"{name}: {len(summaries)} Summaries, {len(headings)} Exercises"
    assert summaries[0] < headings[0], f"{name}: the Exercises come before the Summary"
    exercises = [m.start() for m in re.finditer(r"```\{exercise\}", text)]
    assert exercises and all(at > headings[0] for at in exercises), f"{name}: an exercise outside its section"
    n = EXERCISES.get(name)
    assert n is None or len(exercises) == n, f"{name}: {len(exercises)} exercises, not {n}"


# Most significant digits a stored output may show for a computed float. BLAS kernels
# (Intel AVX-512, AMD Zen, Haswell), thread counts and CPU generations differ in the
# last bits of a float; nbval compares stored outputs as text, so a float shown to 16
# digits fails on another CPU. Every printed or glued float is rounded to what the
# text needs, which is at most this many digits.
MAX_DIGITS = 8
FLOAT = re.compile(r"(?<![\w.])-?(\d+\.\d+)(?:e[-+]?\d+)?(?![\w.])")


def _significant(digits: str) -> int:
    """'0.00026825' -> 5, '3.294422149658203' -> 16, '120.50' -> 5."""
    return len(digits.replace(".", "").lstrip("0"))


def _shown(output: dict) -> str:
    """Everything an output shows as text: a stream, a result's text/plain or HTML, a glued value."""
    if "text" in output:
        return "".join(output["text"])
    shown = [v for k, v in output.get("data", {}).items() if "text" in k or k.endswith("json")]
    return "".join("".join(v) if isinstance(v, list) else str(v) for v in shown)


@pytest.mark.parametrize("name", CHAPTERS)
def test_no_stored_output_shows_a_float_to_its_last_bits(name):
    too_long = []
    for i, cell in enumerate(load(name)["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        for output in cell.get("outputs", []):
            for m in FLOAT.finditer(_shown(output)):
                # a literal the cell spells out (a word such as "3.14159265") is not computed
                if _significant(m.group(1)) > MAX_DIGITS and m.group(0) not in source:
                    too_long.append(f"cell {i}: {m.group(0)}")
    assert not too_long, (f"{name}: floats shown to more than {MAX_DIGITS} significant digits "
                          f"(round them to what the text needs): {too_long[:5]}")


@pytest.mark.parametrize("name", CHAPTERS)
def test_no_stored_output_writes_to_stderr(name):
    """A warning in a stored output fails `make book` (-W, myst-nb's stderr check) and shows
    the reader a traceback line: silence it where the chapter means it, or avoid it."""
    cells = load(name)["cells"]
    noisy = [(i, "".join(o["text"])[:120]) for i, c in enumerate(cells) for o in c.get("outputs", [])
             if o.get("output_type") == "stream" and o.get("name") == "stderr"]
    assert not noisy, f"{name}: stderr in cell(s) {noisy}"
