"""The mechanism figures: their layouts on cases checked by hand, and that they draw."""

import matplotlib

matplotlib.use("Agg")

from bpe_lesson.ranks import vocab_from_merges
import json
import os
import re

from bpe_lesson.teaching.figures import (draw_merge_step, draw_merge_tree, draw_tokenizer_parts,
                                         merge_step_layout, merge_tree_layout, token_label,
                                         tokenizer_parts_layout)

CAPSTONE = os.path.join(os.path.dirname(__file__), "..", "..", "book", "your_own_tokenizer.ipynb")


def test_merge_step_marks_what_the_scan_takes():
    # "aaa": the scan takes positions 0-1; the occurrence at 1-2 overlaps it and is left
    assert merge_step_layout([97, 97, 97], (97, 97), 256) == ([256, 97], [0], [1])
    # "aaaa": both halves are taken, the middle occurrence is left
    assert merge_step_layout([97] * 4, (97, 97), 256) == ([256, 256], [0, 2], [1])
    # no overlap possible for (a, b)
    assert merge_step_layout(list(b"abxab"), (97, 98), 256) == ([256, 120, 256], [0, 3], [])
    assert merge_step_layout([1, 2], (3, 4), 256) == ([1, 2], [], [])


def test_merge_tree_layout_of_a_run():
    # "aaaa" built as aa + aa: one node for each copy of "aa", leaves in byte order
    merges = [((97, 97), 256), ((256, 256), 257)]
    nodes = merge_tree_layout(257, merges)
    assert [t for t, _, _, _ in nodes] == [257, 256, 97, 97, 256, 97, 97]
    leaves = [(t, x) for t, x, _, ch in nodes if not ch]
    assert leaves == [(97, 0.0), (97, 1.0), (97, 2.0), (97, 3.0)]
    assert all(d == 2 for _, _, d, ch in nodes if not ch)
    root = nodes[0]
    assert root[1] == 1.5 and root[2] == 0 and [nodes[c][0] for c in root[3]] == [256, 256]


def test_merge_tree_leaves_spell_the_token():
    merges = [((101, 115), 256), ((256, 116), 257), ((32, 108), 258), ((258, 111), 259), ((259, 119), 260),
              ((260, 257), 261)]
    vocab = vocab_from_merges(merges)
    nodes = merge_tree_layout(261, merges)
    leaves = sorted((x, t) for t, x, _, ch in nodes if not ch)
    assert bytes(t for _, t in leaves) == vocab[261] == b" lowest"
    assert sum(1 for n in nodes if n[3]) == 6  # one node per merge used


def test_figures_draw_within_the_column():
    merges = [((97, 97), 256), ((256, 256), 257)]
    vocab = vocab_from_merges(merges)
    fig = draw_merge_step([97, 97, 97, 98], (97, 97), 256, vocab)
    assert fig.get_size_inches()[0] <= 7.0
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts[:4] == ["a", "a", "a", "b"] and "aa" in texts
    fig = draw_merge_tree(257, merges, vocab)
    assert fig.get_size_inches()[0] <= 7.0
    assert sorted(t.get_text() for t in fig.axes[0].texts).count("a") == 4


def test_token_label():
    assert token_label(b" a\n") == "\u2423a\u21b5"
    assert token_label(b"\xe2\x82") == "\\xe2\\x82"


def test_the_capstone_map_names_every_exercise_once_and_only_functions_it_asks_for():
    """Checked against the chapter: its exercise labels, and the names its stubs define."""
    cells = json.load(open(CAPSTONE, encoding="utf-8"))["cells"]
    source = "\n".join("".join(c["source"]) for c in cells)
    labels = re.findall(r":label: (ex-own-[\w-]+)", source)
    defined = set(re.findall(r"^(?:def|class) (\w+)", source, flags=re.M))
    parts, flows, wrappers = tokenizer_parts_layout()
    shown = [label for _, label, _, _ in parts] + list(wrappers)
    assert sorted(shown) == sorted(labels) and len(set(shown)) == len(shown)
    names = {n for name, *_ in parts for n in name.split("\n")}
    assert names <= defined, names - defined
    assert {n for ns in wrappers.values() for n in ns} <= {name for name, *_ in parts}
    assert {"encode", "MyTokenizer"} <= defined  # what the two wrappers are


def test_the_capstone_map_draws_every_part_inside_the_column():
    fig = draw_tokenizer_parts()
    assert fig.get_size_inches()[0] <= 7.0
    texts = [t.get_text() for t in fig.axes[0].texts]
    for name, label, _, _ in tokenizer_parts_layout()[0]:
        assert name in texts and label in texts
