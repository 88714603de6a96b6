"""What tokenization does to a model: its prose against its own stored outputs.

Each test reads the notebook's JSON (no execution) and checks one statement of the
chapter against the output it must agree with: the Summary's premiums against the
premium table, the reachable vocabularies against the count of unreachable tokens,
"four of the five" against the digit-string check, the opening against the
vocabularies the chapter loads. Contradictions found and fixed once stay fixed.

What this file does not do: re-execute the chapter (nbval does), or read figures.
"""

import re

from _notebook import cell, chapter, glued_values, markdown, printed, section, source

NAMES = ["GPT-4", "GPT-4o", "Llama 3", "Llama 4", "Qwen"]

nb = chapter("what_tokenization_does_to_a_model")


def premium_table(nb):
    """(vocabulary, language) -> premium, parsed from the printed table."""
    table, name = {}, None
    for line in printed(cell(nb, "c038")).splitlines():
        if line and not line.startswith(" "):
            name = line.split("  ")[0].strip()
        elif line.strip():
            lang = line[2:20].strip()
            table[name, lang] = float(line.split()[-1])
    return table


def test_the_summary_premiums_agree_with_the_table(nb):
    table, glue = premium_table(nb), glued_values(nb)
    assert {n for n, _ in table} == set(NAMES)
    others = [lang for n, lang in table if n == "GPT-4" and lang != "English"]
    # "with GPT-4's vocabulary ... more tokens in every other language"
    assert all(table["GPT-4", lang] > 1 for lang in others)
    # "GPT-4o's larger vocabulary narrows every gap"
    assert all(table["GPT-4o", lang] <= table["GPT-4", lang] for lang in others)
    # the largest premium, glued, is GPT-4's largest in the table
    assert round(glue["gpt4_worst"], 2) == max(table["GPT-4", lang] for lang in others)
    assert table["GPT-4", glue["gpt4_worst_lang"]] == round(glue["gpt4_worst"], 2)
    # every premium of 1 or below is one the Summary names: Qwen's and Llama 4's Chinese
    at_most_one = {(n, lang) for (n, lang), p in table.items() if lang != "English" and p <= 1}
    assert at_most_one == {("Qwen", "Chinese (CJK)"), ("Llama 4", "Chinese (CJK)")}
    assert round(glue["qwen_chinese"], 2) == table["Qwen", "Chinese (CJK)"] < 1
    assert round(glue["llama4_chinese"], 2) == table["Llama 4", "Chinese (CJK)"] == 1.0
    summary = section(nb, "## Summary")
    for name in ("qwen_chinese", "llama4_chinese", "gpt4_worst"):
        assert f"{{glue:text}}`{name}" in summary
    # the old claim, that every language costs more than English with every vocabulary
    assert not re.search(r"cost more tokens in every other language here than in English, less",
                         summary)


def test_the_reachable_vocabularies_are_the_ones_with_no_unreachable_token(nb):
    counts = {m.group(1).strip(): int(m.group(2)) for m in
              re.finditer(r"^(.{7}) unreachable tokens: (\d+) of", printed(cell(nb, "c047")), re.M)}
    assert set(counts) == set(NAMES)
    summary = section(nb, "## Summary")
    sentence = re.search(r"Every token of (.*?) vocabularies is reachable", summary, re.S).group(1)
    named = {n for n in NAMES if re.search(rf"\b{re.escape(n)}'s", sentence)}
    assert named == {n for n, k in counts.items() if k == 0}
    assert glued_values(nb)["lost_llama3"] == counts["Llama 3"] > 0
    assert "{glue:text}`lost_llama3" in summary


def test_four_of_the_five_hold_every_digit_group(nb):
    lines = re.findall(r"^(.{7}) all 1,110 strings of 1-3 digits are tokens: (\w+)",
                       printed(cell(nb, "c015")), re.M)
    holding = {n.strip() for n, ok in lines if ok == "True"}
    assert len(lines) == 5 and len(holding) == 4 and set(NAMES) - holding == {"Qwen"}
    assert "Four of the five" in source(cell(nb, "c014"))
    assert "four of the five vocabularies (Qwen's" in section(nb, "## Summary")


def test_the_opening_names_only_what_the_chapter_loads_and_measures(nb):
    sizes = re.findall(r"^(.{7}) vocabulary size", printed(cell(nb, "c002")), re.M)
    assert [s.strip() for s in sizes] == NAMES
    opening = source(cell(nb, "c000"))
    for name in NAMES[2:]:
        assert name in opening
    assert not re.search(r"cannot (be )?load|not measured|are not loaded|can't load", opening, re.I)


def test_a_motivation_chapter_assumes_no_earlier_chapter(nb):
    md = markdown(nb)
    for phrase in ("so far", "earlier chapter", "previous chapter", "as we saw", "we have seen",
                   "recall that", "chapter 1", "part i "):
        assert phrase not in md.lower(), phrase
    # what it needs from later chapters, it links to
    assert "{doc}`what_a_tokenizer_does`" in source(cell(nb, "c000"))
    assert "{doc}`encoding_and_decoding`" in md
