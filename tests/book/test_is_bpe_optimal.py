"""Is BPE optimal? read against its own stored outputs.

The chapter once said, under a table with a Llama 3 row, that Llama 3's vocabulary
could not be loaded offline. These tests read the notebook's JSON (nothing runs):
the vocabularies of the table are the ones the prose names and none is denied, and
the glued figures of the prose and the Summary are the ones the cells printed.
"""

import re

from _notebook import (cell, chapter, fold, glued_values, markdown_folded, printed, source,
                       summary_cell)

# a row of the rank-against-fewest table: vocabulary, text, chunks, rank, fewest, longer, extra
ROW = re.compile(r"^(.+?) (prose|code|multilingual) +([\d,]+) +([\d,]+) +([\d,]+) +([\d.]+)% +([\d.]+)%$")

nb = chapter("is_bpe_optimal")


def table(nb):
    rows = [ROW.match(line) for line in printed(cell(nb, "c021")).splitlines()[1:]]
    assert rows and all(rows), "the table's rows no longer parse"
    return [(m[1], m[2], float(m[6]), float(m[7])) for m in rows]


def test_the_table_has_llama3_and_no_sentence_denies_a_vocabulary_of_it(nb):
    vocabularies = {v for v, *_ in table(nb)}
    assert {"GPT-4", "GPT-4o", "Llama 3"} <= vocabularies
    assert 'from_pretrained("llama3")' in source(cell(nb, "c020"))
    text = markdown_folded(nb)
    assert 'from_pretrained("llama3")' in text, "the prose should say how Llama 3 is loaded"
    for sentence in re.split(r"(?<=[.;)])\s+", text):
        for v in vocabularies:
            if v in sentence:
                assert not re.search(r"cannot|can't|not be loaded|not in the table", sentence), sentence


def test_the_summary_names_every_vocabulary_of_the_table(nb):
    summary = fold(summary_cell(nb))
    for v in {v for v, *_ in table(nb)}:
        assert f"{v}'s" in summary, f"the Summary does not name {v}"


def test_under_one_percent_is_the_tables_worst_prose_or_code_row(nb):
    g, rows = glued_values(nb), table(nb)
    worst = max(extra for _, t, _, extra in rows if t != "multilingual")
    worst_multi = max(extra for _, t, _, extra in rows if t == "multilingual")
    assert round(g["max_extra"] * 100, 2) == worst < 1.0
    assert round(g["max_extra_multi"] * 100, 2) == worst_multi
    prose = markdown_folded(nb)
    assert "under one percent" in prose and "{glue:text}`max_extra:.2%`" in prose


def test_the_sweep_shares_are_the_printed_counts(nb):
    g = glued_values(nb)
    found = re.findall(r"k=(\d): greedy loses on (\d+) of ([\d,]+) strings", printed(cell(nb, "c007")))
    assert len(found) == 2
    for k, lost, tried in found:
        assert g["n_strings"] == int(tried.replace(",", ""))
        assert g[f"lost_share_{k}"] == int(lost) / g["n_strings"]


def test_the_number_of_segmentations_is_the_printed_one(nb):
    n = int(re.search(r"(\d+) segmentations are possible", printed(cell(nb, "c035")))[1])
    assert glued_values(nb)["n_segmentations"] == n
