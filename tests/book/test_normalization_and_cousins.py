"""Normalization and BPE's cousins: its prose against its own stored outputs.

Each test reads the notebook's JSON (no execution) and checks a statement of the
chapter against what it must agree with: the test file the prose names exists, the
token totals of the normalization forms, and the Summary's side-by-side figures
against the metrics table.

What this file does not do: re-execute the chapter (nbval does), or read figures.
"""

import ast
import json
import os
import re

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
PATH = os.path.join(ROOT, "book", "normalization_and_cousins.ipynb")


@pytest.fixture(scope="module")
def nb():
    with open(PATH, encoding="utf-8") as f:
        return json.load(f)


def cell(nb, cid):
    return next(c for c in nb["cells"] if c.get("id") == cid)


def text_of(c):
    return "".join(c["source"])


def stdout(c):
    return "".join("".join(o["text"]) for o in c.get("outputs", []) if o.get("output_type") == "stream")


def glued(nb):
    out = {}
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:  # a figure's text is "<Figure ...>": kept as it is
                raw = o["data"]["application/papermill.record/text/plain"]
                try:
                    out[name] = ast.literal_eval(raw)
                except (SyntaxError, ValueError):
                    out[name] = raw
    return out


def markdown(nb):
    return "\n".join(text_of(c) for c in nb["cells"] if c["cell_type"] == "markdown")


def summary(nb):
    md = [text_of(c) for c in nb["cells"] if c["cell_type"] == "markdown"]
    (s,) = [m for m in md if re.search(r"^## Summary\s*$", m, re.M)]
    return s


def test_every_glued_name_in_the_prose_is_computed(nb):
    used = set(re.findall(r"\{glue:text\}`([^`:]+)", markdown(nb)))
    assert used and used <= set(glued(nb)), used - set(glued(nb))


def test_the_test_files_the_prose_names_exist(nb):
    named = set(re.findall(r"`(tests/[\w/]+\.py)`", markdown(nb)))
    assert named, "the chapter names the WordPiece round-trip test"
    for path in named:
        assert os.path.exists(os.path.join(ROOT, path)), path


def test_decomposed_text_costs_more_tokens_as_the_table_says(nb):
    row = re.search(r"^all samples +(\d+) +(\d+) +(\d+) +(\d+)", stdout(cell(nb, "e15557a3")), re.M)
    nfc, nfd = int(row.group(1)), int(row.group(2))
    g = glued(nb)
    assert (g["tokens_nfc"], g["tokens_nfd"]) == (nfc, nfd) and nfd > nfc


def test_the_side_by_side_summary_agrees_with_the_metrics_table(nb):
    table = stdout(cell(nb, "04c5ddbd"))
    rows = re.findall(r"^(.{18}) (.{17}) +([\d.]+) +([\d.]+)\*? +([\d.]+) +([\d.]+)$", table, re.M)
    metrics = {(t.strip(), k.strip()): tuple(map(float, v)) for t, k, *v in rows}
    keep = ["BPE (ours)", "Unigram (SP)", "BPE (SP)"]
    spreads = []
    for text in ("English (held out)", "Python (held out)"):
        b = [metrics[text, k][0] for k in keep]
        spreads.append(max(b) / min(b) - 1)
    g = glued(nb)
    assert abs(g["keep_bytes_spread"] - max(spreads)) < 0.01
    unseen = {t for t, k in metrics if t not in ("English (held out)", "Python (held out)",
                                                 "French (Latin)", "German (Latin)")}
    assert len(unseen) == 6
    least = min(metrics[t, k][3] for t in unseen for k in ("WordPiece (score)", "WordPiece (count)"))
    assert round(g["wp_unknown_least"], 2) == least > 50
    assert all(metrics[t, k][3] == 0 for t in unseen for k in keep)  # "losing nothing"
    s = summary(nb)
    assert "{glue:text}`keep_bytes_spread" in s and "{glue:text}`wp_unknown_least" in s


def test_one_summary_then_the_exercises(nb):
    md = [text_of(c) for c in nb["cells"] if c["cell_type"] == "markdown"]
    at_summary = [i for i, m in enumerate(md) if re.search(r"^## Summary\s*$", m, re.M)]
    at_ex = [i for i, m in enumerate(md) if re.search(r"^## Exercises\s*$", m, re.M)]
    exercises = [i for i, m in enumerate(md) if m.lstrip().startswith("```{exercise}")]
    assert len(at_summary) == 1 and len(at_ex) == 1 and at_summary[0] < at_ex[0]
    assert len(exercises) == 3 and min(exercises) > at_ex[0]
