"""Normalization and BPE's cousins: its prose against its own stored outputs.

Each test reads the notebook's JSON (no execution) and checks a statement of the
chapter against what it must agree with: the test file the prose names exists, the
token totals of the normalization forms, and the Summary's side-by-side figures
against the metrics table.

What this file does not do: re-execute the chapter (nbval does), or read figures.
"""

import os
import re

from _notebook import ROOT, cell, chapter, glued_values, markdown, printed, summary_cell

nb = chapter("normalization_and_cousins")


def test_the_test_files_the_prose_names_exist(nb):
    named = set(re.findall(r"`(tests/[\w/]+\.py)`", markdown(nb)))
    assert named, "the chapter names the WordPiece round-trip test"
    for path in named:
        assert os.path.exists(os.path.join(ROOT, path)), path


def test_decomposed_text_costs_more_tokens_as_the_table_says(nb):
    row = re.search(r"^all samples +(\d+) +(\d+) +(\d+) +(\d+)", printed(cell(nb, "e15557a3")), re.M)
    nfc, nfd = int(row.group(1)), int(row.group(2))
    g = glued_values(nb)
    assert (g["tokens_nfc"], g["tokens_nfd"]) == (nfc, nfd) and nfd > nfc


def test_the_side_by_side_summary_agrees_with_the_metrics_table(nb):
    table = printed(cell(nb, "04c5ddbd"))
    rows = re.findall(r"^(.{18}) (.{17}) +([\d.]+) +([\d.]+)\*? +([\d.]+) +([\d.]+)$", table, re.M)
    metrics = {(t.strip(), k.strip()): tuple(map(float, v)) for t, k, *v in rows}
    keep = ["BPE (ours)", "Unigram (SP)", "BPE (SP)"]
    spreads = []
    for text in ("English (held out)", "Python (held out)"):
        b = [metrics[text, k][0] for k in keep]
        spreads.append(max(b) / min(b) - 1)
    g = glued_values(nb)
    assert abs(g["keep_bytes_spread"] - max(spreads)) < 0.01
    unseen = {t for t, k in metrics if t not in ("English (held out)", "Python (held out)",
                                                 "French (Latin)", "German (Latin)")}
    assert len(unseen) == 6
    least = min(metrics[t, k][3] for t in unseen for k in ("WordPiece (score)", "WordPiece (count)"))
    assert g["wp_unknown_least"] == round(least) and least > 50  # glued as the text shows it (.0f)
    assert all(metrics[t, k][3] == 0 for t in unseen for k in keep)  # "losing nothing"
    s = summary_cell(nb)
    assert "{glue:text}`keep_bytes_spread" in s and "{glue:text}`wp_unknown_least" in s
