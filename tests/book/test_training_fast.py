"""*Training fast* read against its own outputs.

The chapter once ended in an 83-line wall of the encoder's history, in the style of a
changelog, whose figures (page faults, cycles, percentages) no cell on the page
measured; its Summary said "about ten times" and "two orders of magnitude" without a
figure, and its prose typed "28 times as many merges"; its Python and Cython listings
stood side by side. These tests read the stored notebook: every figure the prose
takes is glued from a cell that ran (test_every_chapter.py), a timing only from a cell
tagged ``nbval-ignore-output``, the printed factors agree with the glued ones, the history
lives in ``benchmarks/README.md``, and the listings are stacked, one after another.
They do not run the notebook (nbval does).
"""

import os
import re

from _notebook import (ROOT, chapter, code_cell, glue_refs, glued_tags, glued_text, markdown,
                       markdown_cells, source, stdout, summary_cell)

README = os.path.join(ROOT, "benchmarks", "README.md")
TIMINGS = {"loop_speedup", "front_share", "cache_speedup", "split_share", "compiled_speedup",
           "vs_tiktoken"}

nb = chapter("training_fast")


def test_no_wall_of_history_in_the_chapter(nb):
    for text in markdown_cells(nb):
        prose = re.sub(r"```\{prf:.*?```", "", text, flags=re.S)  # definitions and proofs are not walls
        assert prose.count("\n") < 40, f"a markdown cell of {prose.count(chr(10))} lines: {prose[:80]!r}"
    whole = markdown(nb)
    for history in ("page faults", "valgrind", "2,918", "55,000", "wrong guesses"):
        assert history not in whole, history
    with open(README, encoding="utf-8") as f:
        readme = f.read()
    for history in ("page faults", "valgrind", "2,918", "55,000", "## History"):
        assert history in readme, history


def test_timings_come_from_ignored_cells_and_the_summary_glues_its_factors(nb):
    tags = glued_tags(nb)
    assert TIMINGS <= set(glue_refs(markdown(nb)))
    for name in TIMINGS:
        assert "nbval-ignore-output" in tags[name], f"{name} is a timing from a compared cell"
    summary = summary_cell(nb)
    for name in ("scan_factor", "work_factor", "loop_speedup", "cache_speedup", "compiled_speedup"):
        assert f"{{glue:text}}`{name}:" in summary, name
    assert "two orders of magnitude" not in summary and "about\n  ten times" not in summary


def test_the_glued_factors_are_the_printed_ones(nb):
    g = glued_text(nb)
    scan = float(re.search(r"([\d.]+)x fewer to scan", stdout(code_cell(nb, "T0 = sum("))).group(1))
    assert f"{float(g['scan_factor']):.1f}" == f"{scan}"
    work = re.search(r"\(([\d,]+)x\)", stdout(code_cell(nb, "trace.measure_work("))).group(1)
    assert f"{float(g['work_factor']):,.0f}" == work
    loop = re.search(r"takes (\d+)x less time", stdout(code_cell(nb, "trainer = get_trainer(\"incremental\", backend)"))).group(1)
    assert f"{float(g['loop_speedup']):.0f}" == loop


def test_merge_ratio_is_the_two_sizes_merges(nb):
    src = "\n".join(source(c) for c in nb["cells"] if c["cell_type"] == "code")
    small, large = map(int, re.search(r"^SMALL, LARGE = (\d+), (\d+)", src, re.M).groups())
    assert int(glued_text(nb)["merge_ratio"]) == (large - 256) // (small - 256)
    assert "28\ntimes as many" not in markdown(nb)


def test_listings_are_stacked_python_then_cython(nb):
    src = "\n".join(source(c) for c in nb["cells"] if c["cell_type"] == "code")
    assert "side_by_side" not in src and "HTML(" not in src
    for step in ("pop_best", "merge_word", "apply_merge"):
        cells = [c for c in nb["cells"] if c["cell_type"] == "code"
                 and re.search(rf'^stacked\("{step}"\)', source(c), re.M)]
        assert len(cells) == 1, step
        shown = ["".join(o["data"]["text/markdown"]) for o in cells[0]["outputs"]
                 if "text/markdown" in o.get("data", {})]
        assert len(shown) == 2, step
        assert "```python\n" in shown[0] and f"def {step}" in shown[0]
        assert "```cython\n" in shown[1] and step in shown[1]


def test_the_summary_claim_of_equal_merges_is_what_the_cell_printed(nb):
    out = stdout(code_cell(nb, "reference = ours("))
    assert out.count("and rustbpe give all") == 2  # at both sizes
    assert "incremental (Python), incremental (Cython)" in out
