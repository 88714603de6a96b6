"""Troubleshooting read against its own stored outputs.

Each section's prose states a symptom and a cause; these tests read the notebook's
JSON (nothing runs but one import) and check that each statement agrees with the
output of the cell that shows it: the glued counts and ratios are the printed ones,
the scripts named as the dearest are the dearest in the table, the window formula
gives the positions the cell found, the errors named are the errors raised, and each
intended error shows its last line only.
"""

import ast
import json
import os
import re

NB = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                  "book", "troubleshooting.ipynb")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def load():
    with open(NB, encoding="utf-8") as f:
        return json.load(f)


def cell(nb, cell_id):
    return next(c for c in nb["cells"] if c.get("id") == cell_id)


def printed(nb, cell_id):
    return "".join("".join(o["text"]) for o in cell(nb, cell_id)["outputs"] if o["output_type"] == "stream")


def markdown(nb):
    """The markdown cells' text, line breaks and runs of spaces made one space."""
    return " ".join(" ".join("".join(c["source"]).split()) for c in nb["cells"] if c["cell_type"] == "markdown")


def glued(nb):
    """name -> value of every glue output, as myst-nb reads it (literal_eval of text/plain)."""
    out = {}
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                out[name] = ast.literal_eval("".join(o["data"]["application/papermill.record/text/plain"]))
    return out


def ratio_table(nb, cell_id, column):
    """language -> ratio to English, from a printed table (column 0 or 1 of the figures)."""
    rows = {}
    for line in printed(nb, cell_id).splitlines():
        m = re.match(r"^(\S.*?) +(\d+\.\d\d)(?: x English| +(\d+\.\d\d))$", line)
        if m:
            rows[m[1]] = float(m[2 + column])
    assert len(rows) >= 5, f"the table of {cell_id} no longer parses"
    return rows


def test_every_glue_the_prose_uses_is_stored():
    nb = load()
    used = set(re.findall(r"\{glue:text\}`(\w+)", markdown(nb)))
    missing = used - set(glued(nb))
    assert used and not missing, f"glued in the prose, stored by no cell: {sorted(missing)}"


def test_the_special_token_comes_out_as_the_glued_number_of_pieces():
    nb = load()
    pieces = ast.literal_eval(printed(nb, "9483cf35").split("] [")[0] + "]")
    assert glued(nb)["n_eot_pieces"] == len(pieces) > 1
    assert markdown(nb).count("{glue:text}`n_eot_pieces`") == 2  # the table and the section


def test_the_scripts_named_dearest_are_the_dearest_and_the_glued_ratios_printed():
    nb = load()
    g = glued(nb)
    cl100k = ratio_table(nb, "60e1067d", 0)
    assert set(sorted(cl100k, key=cl100k.get)[-2:]) == {"Greek", "Hindi (Devanagari)"}
    assert "in Hindi or Greek" in markdown(nb)
    both = {k: ratio_table(nb, "b290ffbe", k) for k in (0, 1)}
    assert both[0] == cl100k
    for lang, key in [("Greek", "greek"), ("Hindi (Devanagari)", "hindi")]:
        assert round(g[f"{key}_cl100k"], 2) == cl100k[lang]
        assert round(g[f"{key}_o200k"], 2) == both[1][lang] < cl100k[lang]
    assert g["n_o200k"] > 1.9 * g["n_cl100k"]  # "roughly doubled"


def test_the_last_window_formula_gives_the_positions_the_cell_found():
    nb = load()
    out = printed(nb, "fde28b1c")
    n, t = map(int, re.search(r"N = (\d+) ids, T = (\d+)", out).groups())
    missing = ast.literal_eval(re.search(r"never a target: (\[.*\])", out)[1])
    assert len(missing) == (n - 1) % t == glued(nb)["n_missing"]
    assert "$(N - 1) \\bmod T$" in markdown(nb)
    pad = int(re.match(r"(\d+) EOS appended", printed(nb, "1c9a59f5"))[1])
    assert glued(nb)["pad"] == pad
    assert "every position is a target: True" in printed(nb, "1c9a59f5")


def test_the_errors_named_are_the_errors_raised():
    from bpe_lesson.tiktoken_surface import UnknownTokenError

    nb = load()
    names = [o["ename"] for cid in ("a350060e", "a6853200")
             for o in cell(nb, cid)["outputs"] if o["output_type"] == "error"]
    assert names == ["UnknownTokenError", "KeyError"]
    assert issubclass(UnknownTokenError, KeyError) and issubclass(UnknownTokenError, ValueError)
    assert "`UnknownTokenError` (both a `KeyError` and a `ValueError`" in markdown(nb)


def test_intended_errors_show_their_last_line_only():
    nb = load()
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    raising = [i for i, c in enumerate(code) if "raises-exception" in c["metadata"].get("tags", [])]
    xmode = [i for i, c in enumerate(code) if "%xmode Minimal" in "".join(c["source"])]
    assert raising and xmode and xmode[0] < raising[0]
    assert "remove-cell" in code[xmode[0]]["metadata"]["tags"]
    for i in raising:
        errors = [o for o in code[i]["outputs"] if o["output_type"] == "error"]
        assert len(errors) == 1
        tb = "".join(errors[0]["traceback"])
        assert len(ANSI.sub("", tb).strip().splitlines()) == 1, tb
        assert ANSI.sub("", tb).startswith(errors[0]["ename"] + ":")


def test_re_compiles_the_rest_of_the_pattern_on_the_python_the_text_names():
    out = printed(load(), "trouble-re-ascii")
    major, minor = map(int, re.match(r"Python (\d+)\.(\d+):", out).groups())
    assert (major, minor) >= (3, 11)


def test_the_shape_summary_exercises_and_cleanup_last():
    nb = load()
    md = markdown(nb)
    assert md.index("## Summary") < md.index("## Exercises") < md.index("```{exercise}")
    last = nb["cells"][-1]
    assert "scratch.cleanup()" in "".join(last["source"])
    assert last["metadata"]["tags"] == ["remove-input"]
