"""Training a real tokenizer: its prose against its own stored outputs.

Each test reads the notebook's JSON (no execution) and checks a statement of the
chapter against the output it must agree with: what the three split patterns do
with newlines, how many digit groups the hardcoded block holds and what a trained
vocabulary does without it, the hardcoded block's share of GPT-4's size, and the
Summary's glued figures against the tables they come from.

What this file does not do: re-execute the chapter (nbval does), or read figures.
"""

import ast
import re

from _notebook import cell, chapter, glued_values, printed, source, summary_cell

nb = chapter("training_a_real_tokenizer")


def test_what_the_patterns_do_with_newlines_is_what_the_split_prints(nb):
    out = printed(cell(nb, "0028e544")).replace("\n     ", " ")  # undo the wrap
    gpt2 = re.search(r"^   gpt2 +(\[' {3}'.*?\])$", out, re.M).group(1)
    gpt4 = re.search(r"^   gpt4 +(\[' {3}'.*?\])$", out, re.M).group(1)
    assert "')\\n\\n\\n'" in gpt4 and "'\\n\\n\\n'" not in gpt4
    assert "'\\n\\n', '\\n'" in gpt2
    prose = source(cell(nb, "b94c405f"))
    assert "punctuation take the newlines that follow it" in prose
    assert 'lets a newline run be one chunk' not in prose


def test_digit_groups_of_the_hardcoded_block(nb):
    # the block's two- and three-digit numbers, as printed: 100 + 1,000
    out = printed(cell(nb, "5106fea7"))
    two = re.search(r"ids +(\d+)- *(\d+) two-digit numbers", out)
    three = re.search(r"ids +(\d+)- *(\d+) three-digit numbers", out)
    n = sum(int(m.group(2)) - int(m.group(1)) + 1 for m in (two, three))
    assert glued_values(nb)["hc_digit_groups"] == n == 1100
    prose = source(cell(nb, "7257905c"))
    assert "{glue:text}`hc_digit_groups:,`" in prose
    # under GPT-4's split no chunk has four digits, so no trained token is "2024"
    assert '"2024" as one token' not in prose
    assert "'000'" in printed(cell(nb, "002ae7ba"))  # the longest digit chunk
    share = re.search(r"^without +([\d.]+)% of", printed(cell(nb, "61a93e75")), re.M)
    assert glued_values(nb)["without_one_share"] == round(float(share.group(1)) / 100, 2)  # the text shows .0%
    assert float(share.group(1)) < 100


def test_the_block_share_of_gpt4_is_the_printed_one(nb):
    out = printed(cell(nb, "835fe3b2"))
    small = re.search(r"the hardcoded block is (\d+)% of this vocabulary", out).group(1)
    big = re.search(r"^([\d.]+)% of GPT-4's", out, re.M).group(1)
    g = glued_values(nb)
    assert f"{g['hc_share']:.0%}" == small + "%" and f"{g['hc_share_gpt4']:.1%}" == big + "%"
    assert "about\none percent" not in source(cell(nb, "d24d4d36"))


def test_the_summary_agrees_with_the_tables(nb):
    g, s = glued_values(nb), summary_cell(nb)
    table = printed(cell(nb, "f296bafd"))
    nosplit = float(re.search(r"^no split +([\d.]+)", table, re.M).group(1))
    split = float(re.search(r"^GPT-4 split +([\d.]+)", table, re.M).group(1))
    assert round(g["bpt_nosplit"], 2) == nosplit > split == round(g["bpt_split"], 2)
    assert "{glue:text}`bpt_split" in s and "{glue:text}`bpt_nosplit" in s
    # hardcoded: wins on numbers, loses on prose, as the Summary and the text say
    rows = dict(re.findall(r"^(weather CSV|prose \(held out\)) +([\d.]+ +[\d.]+)",
                           printed(cell(nb, "835fe3b2")), re.M))
    w, wo = map(float, rows["weather CSV"].split())
    pw, pwo = map(float, rows["prose (held out)"].split())
    assert w > wo and pw < pwo
    assert (round(g["bpt_with_weather"], 2), round(g["bpt_without_weather"], 2)) == (w, wo)
    # the smallest sample compresses worse than all of the text
    assert g["sample_prose_smallest"] < g["sample_prose_all"] and g["sample_smallest"] < 0.05
    # the marker's pieces, glued, are the ones printed
    marker = re.search(r"tokens made from the marker: (\[.*\])", printed(cell(nb, "5282eb8d")))
    assert g["marker_pieces"] == len(ast.literal_eval(marker.group(1)))
