"""Overlaps, ties and order: the chapter's sentences against its own stored outputs.

Each test reads ``book/overlaps_ties_order.ipynb`` as JSON (nothing is executed but one
four-merge example, a few tiny tiktoken encodings and a pair count by hand) and checks a statement of the prose against the output or glued
value it must agree with, so a contradiction fixed once cannot come back.

What this file does not do: re-run the chapter (nbval does) or read the figures.
"""

import ast
import re
from collections import Counter

import tiktoken

from bpe_lesson import textbook

from _notebook import (chapter, code_cell, fold, glue_refs, glued_text, glued_values, load, markdown,
                       markdown_cells, printed, section, source)

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


def _tiktoken_lengths(corpus, merge_list):
    """Each chunk's token count under tiktoken, its ranks the merges' tokens in list order.

    subtle: tiktoken returns a chunk that is itself a token as that token, without
    merging; a "|" before each chunk (in no merge) makes it merge, and is taken off."""
    ranks = {bytes([i]): i for i in range(256)}
    for left, right in merge_list:
        ranks[left + right] = len(ranks)
    enc = tiktoken.Encoding("order", pat_str=r"[\s\S]+", mergeable_ranks=ranks, special_tokens={})
    return {w: len(enc.encode_ordinary("|" + w.decode())) - 1 for w in corpus}


def test_the_order_demo_reorders_one_list_and_tiktoken_cuts_as_it_says(nb):
    # it trained twice with a forced first merge; now one list is replayed in two orders
    cell = code_cell(nb, "order_corpus = ")
    corpus = ast.literal_eval(re.search(r"order_corpus = (\{.*?\})", source(cell)).group(1))
    out = printed(cell)
    lists = {name: [t.encode() for t in toks.split(", ")]
             for name, toks in re.findall(r"^(as trained|reordered): (.+)$", out, re.M)}
    assert sorted(lists["as trained"]) == sorted(lists["reordered"])  # the same merges
    assert lists["reordered"] == lists["as trained"][-1:] + lists["as trained"][:-1]
    g = glued_values(nb)
    for name, key in (("as trained", "order_len_trained"), ("reordered", "order_len_reordered")):
        # a merge's token is its two parts; in these lists each splits as below
        pairs = {b"ab": (b"a", b"b"), b"aab": (b"a", b"ab"), b"aabc": (b"aab", b"c"),
                 b"bc": (b"b", b"c")}
        lengths = _tiktoken_lengths(corpus, [pairs[t] for t in lists[name]])
        total = sum(lengths[w] * c for w, c in corpus.items())
        assert g[key] == total and f"length {total}" in out
    assert g["order_len_reordered"] > g["order_len_trained"]
    text = fold(section(nb, "## Order"))
    assert "{glue:text}`order_len_reordered` tokens long instead of {glue:text}`order_len_trained`" in text
    assert "same four merges" in text


def test_the_tie_example_ties_in_count_and_in_gain(nb):
    # it showed "cb" against "bb" in "cbbb": equal counts, unequal gains; a real tie now
    cell = code_cell(nb, "tie_corpus = ")
    corpus = ast.literal_eval(re.search(r"tie_corpus = (\{.*?\})", source(cell)).group(1))
    count, gain = Counter(), Counter()
    for w, c in corpus.items():
        for x, y in zip(w, w[1:]):
            count[x + y] += c  # overlapping occurrences
        for p in {x + y for x, y in zip(w, w[1:])}:
            gain[p] += c * (len(w) - len(w.replace(p, "_")))  # str.replace: left to right
    top = max(count.values())
    tied = sorted(p for p, c in count.items() if c == top)
    assert len(tied) >= 2 and all(gain[p] == count[p] for p in tied)
    out = printed(cell)
    for p in tied:
        assert f"pair {p}: count f = {count[p]}, gain g = {gain[p]}" in out
    assert "a tie in count *and* in gain" in markdown(nb)
    runs = printed(code_cell(nb, "made_rule, tie_L_rule = greedy("))
    ends = [int(x) for x in re.findall(r"length \d+ -> (\d+)$", runs, re.M)]
    g = glued_values(nb)
    assert (g["tie_L_rule"], g["tie_L_other"]) == (ends[2], ends[5]) and ends[2] > ends[5]
    assert runs.splitlines()[1].strip().startswith(f"{tied[0][0]} + {tied[0][1]} (count {top})")


def test_the_intro_says_another_tie_rule_mostly_renumbers(nb):
    # it said the winner "changes the vocabulary"; on real text it mostly moves ids
    intro = markdown_cells(nb)[0]
    assert {"n_ties", "n_only", "moved_share"} <= set(glue_refs(intro))
    g = glued_values(nb)
    assert g["moved_share"] > 0.25  # many ids move ...
    assert g["n_only"] * 100 < 4000 and g["n_only"] * 100 < g["n_ties"]  # ... few tokens change
    flip = printed(code_cell(nb, "flip = bytes(range(255, -1, -1))"))
    assert f"only in one vocabulary: {g['n_only']} vs {g['n_only']}" in flip


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

