"""*Training fast* read against its own outputs.

The chapter once ended in an 83-line wall of the encoder's history, in the style of a
changelog, whose figures (page faults, cycles, percentages) no cell on the page
measured; its Summary said "about ten times" and "two orders of magnitude" without a
figure, and its prose typed "28 times as many merges"; its Python and Cython listings
stood side by side. These tests read the stored notebook: every figure the prose
takes is glued from a cell that ran, a timing only from a cell tagged
``nbval-ignore-output``, the printed factors agree with the glued ones, the history
lives in ``benchmarks/README.md``, and the listings are stacked, one after another.
They do not run the notebook (nbval does).
"""

import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NB = os.path.join(ROOT, "book", "training_fast.ipynb")
README = os.path.join(ROOT, "benchmarks", "README.md")
TIMINGS = {"loop_speedup", "front_share", "cache_speedup", "split_share", "compiled_speedup",
           "vs_tiktoken"}


def load():
    with open(NB, encoding="utf-8") as f:
        return json.load(f)


def markdown(nb):
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]


def glued(nb):
    """name -> (the stored text/plain value, the tags of the cell that glued it)."""
    out = {}
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                out[name] = (o["data"]["application/papermill.record/text/plain"],
                             c["metadata"].get("tags", []))
    return out


def printed(nb, needle):
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and needle in "".join(c["source"])]
    assert len(cells) == 1, f"{len(cells)} cells hold {needle!r}"
    return "".join("".join(o["text"]) for o in cells[0]["outputs"]
                   if o.get("output_type") == "stream" and o.get("name") == "stdout")


def test_no_wall_of_history_in_the_chapter():
    nb = load()
    for text in markdown(nb):
        prose = re.sub(r"```\{prf:.*?```", "", text, flags=re.S)  # definitions and proofs are not walls
        assert prose.count("\n") < 40, f"a markdown cell of {prose.count(chr(10))} lines: {prose[:80]!r}"
    whole = "\n".join(markdown(nb))
    for history in ("page faults", "valgrind", "2,918", "55,000", "wrong guesses"):
        assert history not in whole, history
    with open(README, encoding="utf-8") as f:
        readme = f.read()
    for history in ("page faults", "valgrind", "2,918", "55,000", "## History"):
        assert history in readme, history


def test_every_glue_is_glued_and_timings_come_from_ignored_cells():
    nb = load()
    g = glued(nb)
    used = set(re.findall(r"\{glue:text\}`([^`:]+)", "\n".join(markdown(nb))))
    assert used and used <= set(g), sorted(used - set(g))
    assert TIMINGS <= used
    for name in TIMINGS:
        assert "nbval-ignore-output" in g[name][1], f"{name} is a timing from a compared cell"
    summary = [m for m in markdown(nb) if m.lstrip().startswith("## Summary")]
    assert len(summary) == 1
    for name in ("scan_factor", "work_factor", "loop_speedup", "cache_speedup", "compiled_speedup"):
        assert f"{{glue:text}}`{name}:" in summary[0], name
    assert "two orders of magnitude" not in summary[0] and "about\n  ten times" not in summary[0]


def test_the_glued_factors_are_the_printed_ones():
    nb = load()
    g = glued(nb)
    scan = float(re.search(r"([\d.]+)x fewer to scan", printed(nb, "T0 = sum(")).group(1))
    assert f"{float(g['scan_factor'][0]):.1f}" == f"{scan}"
    work = re.search(r"\(([\d,]+)x\)", printed(nb, "trace.measure_work(")).group(1)
    assert f"{float(g['work_factor'][0]):,.0f}" == work
    loop = re.search(r"takes (\d+)x less time", printed(nb, "get_trainer(\"incremental\"")).group(1)
    assert f"{float(g['loop_speedup'][0]):.0f}" == loop


def test_merge_ratio_is_the_two_sizes_merges():
    nb = load()
    src = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    small, large = map(int, re.search(r"^SMALL, LARGE = (\d+), (\d+)", src, re.M).groups())
    assert int(glued(nb)["merge_ratio"][0]) == (large - 256) // (small - 256)
    assert "28\ntimes as many" not in "\n".join(markdown(nb))


def test_listings_are_stacked_python_then_cython():
    nb = load()
    src = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert "side_by_side" not in src and "HTML(" not in src
    for step in ("pop_best", "merge_word", "apply_merge"):
        cells = [c for c in nb["cells"] if c["cell_type"] == "code"
                 and re.search(rf'^stacked\("{step}"\)', "".join(c["source"]), re.M)]
        assert len(cells) == 1, step
        shown = ["".join(o["data"]["text/markdown"]) for o in cells[0]["outputs"]
                 if "text/markdown" in o.get("data", {})]
        assert len(shown) == 2, step
        assert "```python\n" in shown[0] and f"def {step}" in shown[0]
        assert "```cython\n" in shown[1] and step in shown[1]


def test_the_summary_claim_of_equal_merges_is_what_the_cell_printed():
    out = printed(load(), "reference = ours(")
    assert out.count("and rustbpe give all") == 2  # at both sizes
    assert "incremental (Python), incremental (Cython)" in out
