"""Is BPE optimal? read against its own stored outputs.

The chapter once said, under a table with a Llama 3 row, that Llama 3's vocabulary
could not be loaded offline. These tests read the notebook's JSON (nothing runs):
the vocabularies of the table are the ones the prose names and none is denied, and
the glued figures of the prose and the Summary are the ones the cells printed.
"""

import ast
import json
import os
import re

NB = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                  "book", "is_bpe_optimal.ipynb")
# a row of the rank-against-fewest table: vocabulary, text, chunks, rank, fewest, longer, extra
ROW = re.compile(r"^(.+?) (prose|code|multilingual) +([\d,]+) +([\d,]+) +([\d,]+) +([\d.]+)% +([\d.]+)%$")


def load():
    with open(NB, encoding="utf-8") as f:
        return json.load(f)


def cell(nb, cell_id):
    return next(c for c in nb["cells"] if c.get("id") == cell_id)


def printed(nb, cell_id):
    return "".join("".join(o["text"]) for o in cell(nb, cell_id)["outputs"] if o["output_type"] == "stream")


def markdown(nb):
    """Each markdown cell's text, its line breaks and runs of spaces made one space."""
    return [" ".join("".join(c["source"]).split()) for c in nb["cells"] if c["cell_type"] == "markdown"]


def glued(nb):
    """name -> value of every glue output, as myst-nb reads it (literal_eval of text/plain)."""
    out = {}
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                text = "".join(o["data"].get("application/papermill.record/text/plain", ""))
                try:
                    out[name] = ast.literal_eval(text)
                except (SyntaxError, ValueError):
                    out[name] = text
    return out


def table(nb):
    rows = [ROW.match(line) for line in printed(nb, "c021").splitlines()[1:]]
    assert rows and all(rows), "the table's rows no longer parse"
    return [(m[1], m[2], float(m[6]), float(m[7])) for m in rows]


def test_every_glue_the_prose_uses_is_stored():
    nb = load()
    used = set(re.findall(r"\{glue:(?:text|figure)\}`([\w-]+)", "\n".join(markdown(nb))))
    used |= set(re.findall(r"```\{glue:figure\} ([\w-]+)", "\n".join(markdown(nb))))
    missing = used - set(glued(nb))
    assert used and not missing, f"glued in the prose, stored by no cell: {sorted(missing)}"


def test_the_table_has_llama3_and_no_sentence_denies_a_vocabulary_of_it():
    nb = load()
    vocabularies = {v for v, *_ in table(nb)}
    assert {"GPT-4", "GPT-4o", "Llama 3"} <= vocabularies
    assert 'from_pretrained("llama3")' in "".join(cell(nb, "c020")["source"])
    text = " ".join(markdown(nb))
    assert 'from_pretrained("llama3")' in text, "the prose should say how Llama 3 is loaded"
    for sentence in re.split(r"(?<=[.;)])\s+", text):
        for v in vocabularies:
            if v in sentence:
                assert not re.search(r"cannot|can't|not be loaded|not in the table", sentence), sentence


def test_the_summary_names_every_vocabulary_of_the_table():
    nb = load()
    summary = next(m for m in markdown(nb) if m.startswith("## Summary"))
    for v in {v for v, *_ in table(nb)}:
        assert f"{v}'s" in summary, f"the Summary does not name {v}"


def test_under_one_percent_is_the_tables_worst_prose_or_code_row():
    nb = load()
    g, rows = glued(nb), table(nb)
    worst = max(extra for _, t, _, extra in rows if t != "multilingual")
    worst_multi = max(extra for _, t, _, extra in rows if t == "multilingual")
    assert round(g["max_extra"] * 100, 2) == worst < 1.0
    assert round(g["max_extra_multi"] * 100, 2) == worst_multi
    prose = " ".join(markdown(nb))
    assert "under one percent" in prose and "{glue:text}`max_extra:.2%`" in prose


def test_the_sweep_shares_are_the_printed_counts():
    nb = load()
    g = glued(nb)
    found = re.findall(r"k=(\d): greedy loses on (\d+) of ([\d,]+) strings", printed(nb, "c007"))
    assert len(found) == 2
    for k, lost, tried in found:
        assert g["n_strings"] == int(tried.replace(",", ""))
        assert g[f"lost_share_{k}"] == int(lost) / g["n_strings"]


def test_the_number_of_segmentations_is_the_printed_one():
    nb = load()
    n = int(re.search(r"(\d+) segmentations are possible", printed(nb, "c035"))[1])
    assert glued(nb)["n_segmentations"] == n


def test_the_exercises_follow_the_summary_under_one_heading():
    md = markdown(load())
    heads = [(i, m[3:].split()[0]) for i, m in enumerate(md) if re.match(r"## (Summary|Exercises)\b", m)]
    assert [name for _, name in heads] == ["Summary", "Exercises"]
    exercises = [i for i, m in enumerate(md) if m.startswith("```{exercise}")]
    assert len(exercises) == 3 and min(exercises) > heads[1][0]
