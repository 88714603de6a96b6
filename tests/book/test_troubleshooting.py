"""Troubleshooting read against its own stored outputs.

Each section's prose states a symptom and a cause; these tests read the notebook's
JSON (nothing runs but one import) and check that each statement agrees with the
output of the cell that shows it: the glued counts and ratios are the printed ones,
the scripts named as the dearest are the dearest in the table, the window formula
gives the positions the cell found, the errors named are the errors raised, and each
intended error shows its last line only.
"""

import ast
import re

from _notebook import cell, chapter, glued_values, markdown_folded, printed, source

ANSI = re.compile(r"\x1b\[[0-9;]*m")

nb = chapter("troubleshooting")


def ratio_table(nb, cell_id, column):
    """language -> ratio to English, from a printed table (column 0 or 1 of the figures)."""
    rows = {}
    for line in printed(cell(nb, cell_id)).splitlines():
        m = re.match(r"^(\S.*?) +(\d+\.\d\d)(?: x English| +(\d+\.\d\d))$", line)
        if m:
            rows[m[1]] = float(m[2 + column])
    assert len(rows) >= 5, f"the table of {cell_id} no longer parses"
    return rows


def test_the_special_token_comes_out_as_the_glued_number_of_pieces(nb):
    pieces = ast.literal_eval(printed(cell(nb, "9483cf35")).split("] [")[0] + "]")
    assert glued_values(nb)["n_eot_pieces"] == len(pieces) > 1
    assert markdown_folded(nb).count("{glue:text}`n_eot_pieces`") == 2  # the table and the section


def test_the_scripts_named_dearest_are_the_dearest_and_the_glued_ratios_printed(nb):
    g = glued_values(nb)
    cl100k = ratio_table(nb, "60e1067d", 0)
    assert set(sorted(cl100k, key=cl100k.get)[-2:]) == {"Greek", "Hindi (Devanagari)"}
    assert "in Hindi or Greek" in markdown_folded(nb)
    both = {k: ratio_table(nb, "b290ffbe", k) for k in (0, 1)}
    assert both[0] == cl100k
    for lang, key in [("Greek", "greek"), ("Hindi (Devanagari)", "hindi")]:
        assert round(g[f"{key}_cl100k"], 2) == cl100k[lang]
        assert round(g[f"{key}_o200k"], 2) == both[1][lang] < cl100k[lang]
    assert g["n_o200k"] > 1.9 * g["n_cl100k"]  # "roughly doubled"


def test_the_last_window_formula_gives_the_positions_the_cell_found(nb):
    out = printed(cell(nb, "fde28b1c"))
    n, t = map(int, re.search(r"N = (\d+) ids, T = (\d+)", out).groups())
    missing = ast.literal_eval(re.search(r"never a target: (\[.*\])", out)[1])
    assert len(missing) == (n - 1) % t == glued_values(nb)["n_missing"]
    assert "$(N - 1) \\bmod T$" in markdown_folded(nb)
    pad = int(re.match(r"(\d+) EOS appended", printed(cell(nb, "1c9a59f5")))[1])
    assert glued_values(nb)["pad"] == pad
    assert "every position is a target: True" in printed(cell(nb, "1c9a59f5"))


def test_the_errors_named_are_the_errors_raised(nb):
    from bpe_lesson._internal.tiktoken_surface import UnknownTokenError

    names = [o["ename"] for cid in ("a350060e", "a6853200")
             for o in cell(nb, cid)["outputs"] if o["output_type"] == "error"]
    assert names == ["UnknownTokenError", "KeyError"]
    assert issubclass(UnknownTokenError, KeyError) and issubclass(UnknownTokenError, ValueError)
    assert "`UnknownTokenError` (both a `KeyError` and a `ValueError`" in markdown_folded(nb)


def test_intended_errors_show_their_last_line_only(nb):
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    raising = [i for i, c in enumerate(code) if "raises-exception" in c["metadata"].get("tags", [])]
    xmode = [i for i, c in enumerate(code) if "%xmode Minimal" in source(c)]
    assert raising and xmode and xmode[0] < raising[0]
    assert "remove-cell" in code[xmode[0]]["metadata"]["tags"]
    for i in raising:
        errors = [o for o in code[i]["outputs"] if o["output_type"] == "error"]
        assert len(errors) == 1
        tb = "".join(errors[0]["traceback"])
        assert len(ANSI.sub("", tb).strip().splitlines()) == 1, tb
        assert ANSI.sub("", tb).startswith(errors[0]["ename"] + ":")


def test_re_compiles_the_rest_of_the_pattern_on_the_python_the_text_names(nb):
    out = printed(cell(nb, "trouble-re-ascii"))
    major, minor = map(int, re.match(r"Python (\d+)\.(\d+):", out).groups())
    assert (major, minor) >= (3, 11)


def test_the_cleanup_cell_comes_last(nb):
    last = nb["cells"][-1]
    assert "scratch.cleanup()" in source(last)
    assert last["metadata"]["tags"] == ["remove-input"]
