"""Overlaps, ties and order: the chapter's sentences against its own stored outputs.

Each test reads ``book/overlaps_ties_order.ipynb`` as JSON (nothing is executed but one
four-merge example) and checks a statement of the prose against the output or glued
value it must agree with, so a contradiction fixed once cannot come back.

What this file does not do: re-run the chapter (nbval does) or read the figures.
"""

import re

from bpe_lesson import textbook

from _notebook import chapter, code_cell, glue_refs, glued_text, load, markdown, printed, section

nb = chapter("overlaps_ties_order")


def test_the_summary_glues_its_counts(nb):
    summary = section(nb, "## Summary")
    assert {"n_short", "n_same", "n_ties", "ties_last_500", "moved_share", "n_only"} <= set(glue_refs(summary))


def test_the_glued_counts_are_the_printed_ones(nb):
    g = glued_text(nb)
    gains = printed(code_cell(nb, "at_lower = "))
    assert f"{g['n_same']} merges of a token with itself; {g['n_short']} of them" in gains
    ties = printed(code_cell(nb, "first_tie = tied.index(True) + 1"))
    assert f"{int(g['n_ties']):,} of 4,000 merges were ties; the first at merge {g['first_tie']}" in ties
    rows = re.findall(r"^\s*(\d+)-\s*(\d+)\s+(\d+)\s+\S+\s+(\d+)$", ties, re.M)
    assert rows[0][2] == g["ties_first_500"] and rows[-1][2] == g["ties_last_500"]
    assert max(int(r[3]) for r in rows) == int(g["most_tied"])
    flip = printed(code_cell(nb, "flip = bytes(range(255, -1, -1))"))
    assert f"same bytes under the same id: {int(g['same_id']):,} of 4,000" in flip
    assert f"only in one vocabulary: {g['n_only']} vs {g['n_only']}" in flip
    assert f"{int(g['L_rule']):,} vs {int(g['L_flip']):,} tokens" in flip
    assert abs(float(g["moved_share"]) - (1 - int(g["same_id"]) / 4000)) < 1e-9


def test_the_order_sentence_names_the_tokens_the_two_runs_differ_in(nb):
    # it said "decided which token came third"; the runs differ in aab and aa
    out = printed(code_cell(nb, "order_corpus = "))
    m = re.search(r"only in the first: \[b'(\w+)'\]\s+only in the second: \[b'(\w+)'\]", out)
    assert m, out
    text = section(nb, "## Order")
    assert "which token came third" not in text
    assert f'"{m.group(1)}" in the first run, "{m.group(2)}"' in text


def test_the_skip_example_is_not_called_the_smallest(nb):
    # it said "the smallest such list" of three merges; two merges already reach the skip
    md = markdown(nb)
    assert "smallest such list" not in md
    assert "Two merges are already enough" in md
    out = printed(code_cell(nb, "two = [((97, 97), 256), ((97, 256), 257)]"))
    assert "[256, 97]" in out and "merges made after them: []" in out
    two = [((97, 97), 256), ((97, 256), 257)]
    assert textbook.train_merges({b"aaa": 5}, 3, base_merges=two) == []
    assert textbook.train_merges({b"aaa": 5}, 3, base_merges=two[:1]) != []


def test_the_falling_counts_are_said_to_need_no_skip_and_the_output_agrees(nb):
    # it said the proof "never looks at bytes" while that proof leaned on the skip; the
    # proof in the_merge_rule is now for the rule with no skip, and a remark adds it
    text = section(nb, "### What the skip protects")
    assert "Its proof never looks at bytes" not in text
    assert "Its proof is for the count\nrule with no skip" in text
    merge_rule = markdown(load("the_merge_rule"))
    assert ":label: thm-count-falls" in merge_rule and ":label: rem-count-falls-skip" in merge_rule
    proof = merge_rule.split(":label: thm-count-falls", 1)[1].split("{prf:remark}", 1)[0]
    assert "3. " not in proof  # two facts, none about the skip
    out = printed(code_cell(nb, "no_skip_merges, no_skip_winners = train_no_skip("))
    counts = [int(x) for x in re.search(r"winning counts: \[([\d, ]+)\]", out).group(1).split(",")]
    assert counts == sorted(counts, reverse=True)
    assert re.search(r"ids spelling b' the': \[259, \d+\]", out)


def test_the_lazy_heap_sentence_says_the_skip_is_harmless(nb):
    text = section(nb, "### What the skip protects")
    assert "lazy heap need the skip" not in text
    assert "Nor does the skip upset the incremental trainer's lazy heap" in text

