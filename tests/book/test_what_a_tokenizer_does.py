"""The prose of "What a tokenizer does" against its own stored outputs.

Each test reads the notebook's JSON (no execution) and checks one statement of the
text against the output it must agree with: a figure that used to be typed in (the
3,840 merges, the 80/20 split, GPT-4o's tokens per Russian word) and is now glued.
"""

import json
import re

from _notebook import GLUE_ROLE, cell, chapter, glued_text, markdown, printed, section, source

nb = chapter("what_a_tokenizer_does")


def test_the_merge_count_is_the_one_the_cell_prints(nb):
    # was: "Its 3,840 merges", typed in; now glued from the cell that counts them
    assert "3,840" not in markdown(nb)
    assert "{glue:text}`ours_merges:,`" in source(cell(nb, "e81e2c8f"))
    n = int(re.search(r"ours has ([\d,]+) merges", printed(cell(nb, "ea0ead93"))).group(1)
            .replace(",", ""))
    assert int(glued_text(nb)["ours_merges"]) == n == 4096 - 256


def test_vocabulary_size_paragraph_sits_right_above_the_cell_that_prints_both(nb):
    # was: "The first cell prints both", under the intro, above the imports
    cells = nb["cells"]
    k = next(i for i, c in enumerate(cells) if "largest id + 1" in printed(c))
    above = source(cells[k - 1])
    assert cells[k - 1]["cell_type"] == "markdown" and "The next cell prints both" in above
    # "more when the ids have gaps, as GPT-4's and GPT-4o's do": both rows show a gap
    assert "GPT-4's and GPT-4o's" in above
    for line in printed(cells[k]).splitlines()[1:]:
        size, rows = (int(x.replace(",", "")) for x in line.split()[-2:])
        assert (rows > size) == line.startswith("GPT"), line


def test_the_held_out_share_is_the_split_the_cell_prints(nb):
    # was: "train on 80% of the topics and measure on the held-out 20%"; the split
    # holds out every fifth topic, which is 15 of 79 (19%)
    text = source(cell(nb, "3c322380"))
    assert "20%" not in text and "{glue:text}`held_share:.0%`" in text
    m = re.search(r"(\d+) topics to train on, (\d+) held out \((\d+)%\)",
                  printed(cell(nb, "b79a0665")))
    train, held, pct = map(int, m.groups())
    g = glued_text(nb)
    assert (int(g["n_train_topics"]), int(g["n_held_topics"])) == (train, held)
    assert f"{float(g['held_share']):.0%}" == f"{pct}%"


def test_gpt4o_tokens_per_russian_word_agree_with_the_count(nb):
    # was: "GPT-4o writes most words in one or two tokens"; it spends up to four
    text = markdown(nb)
    assert "one or two tokens" not in text
    k = next(c for c in nb["cells"] if "GPT-4o, tokens per word:" in printed(c))
    per_word = json.loads(re.search(r"tokens per word: (\[.*\])", printed(k)).group(1))
    g = glued_text(nb)
    assert (int(g["ru_words"]), int(g["ru_min"]), int(g["ru_max"])) == \
        (len(per_word), min(per_word), max(per_word))
    assert sum(n <= 2 for n in per_word) <= len(per_word) / 2  # "most in one or two" is false
    # the spans' cell prints one line per tokenizer, GPT-4o's second: "20 tokens for 99 bytes"
    shown = [line for line in printed(cell(nb, "2899f52e")).splitlines() if line.strip()]
    assert int(shown[1].split()[0]) == sum(per_word) + 1  # the words and the full stop


def test_ours_against_gpt4_is_the_share_the_cell_prints(nb):
    out = printed(cell(nb, "b5a7a98e"))
    g = glued_text(nb)
    for key, name in [("prose", "English prose"), ("code", "Python code")]:
        pct = re.search(rf"{name} \(held-out\): ours reaches (\d+)%", out).group(1)
        assert f"{float(g['ours_vs_gpt4_' + key]):.0%}" == f"{pct}%"


def test_the_summary_pastes_its_figures_and_they_match_the_table(nb):
    summary = section(nb, "## Summary")
    assert not re.search(r"\d[\d,.]*%", re.sub(GLUE_ROLE, "", summary)), \
        "a percentage typed into the Summary"
    for name in ["word_ids", "word_oov", "bytes_len", "words_len", "bpe4096_len"]:
        assert f"`{name}" in summary
    table = printed(cell(nb, "b79a0665"))
    rows = {line.split()[0]: line.split() for line in table.splitlines()
            if line.startswith(("bytes", "words"))}
    g = glued_text(nb)
    assert rows["words"][1].replace(",", "") == g["word_ids"]
    assert rows["words"][-1] == f"{float(g['word_oov']):.2%}"
    assert rows["bytes"][2].replace(",", "") == g["bytes_len"]
    assert rows["words"][2].replace(",", "") == g["words_len"]
    bpe = next(r for r in table.splitlines() if r.startswith("BPE 4096")).split()
    assert bpe[3].replace(",", "") == g["bpe4096_len"]
