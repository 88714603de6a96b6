"""Normalization and BPE's cousins: its prose against its own stored outputs.

Each test reads the notebook's JSON (no execution) and checks a statement of the
chapter against what it must agree with: the test file the prose names exists, the
token totals of the normalization forms, and the Summary's side-by-side figures
against the metrics table.

What this file does not do: re-execute the chapter (nbval does), or read figures.
"""

import os
import re

from _notebook import ROOT, cell, chapter, code_cell, glued_values, markdown, markdown_cells, printed, summary_cell

nb = chapter("normalization_and_cousins")


def test_the_test_files_the_prose_names_exist(nb):
    named = set(re.findall(r"`(tests/[\w/]+\.py)`", markdown(nb)))
    assert named, "the chapter names the WordPiece round-trip test"
    for path in named:
        assert os.path.exists(os.path.join(ROOT, path)), path


def test_decomposed_text_costs_more_tokens_as_the_table_says(nb):
    row = re.search(r"^all samples +(\d+) +(\d+) +(\d+) +(\d+)", printed(cell(nb, "e15557a3")), re.M)
    nfc, nfd = int(row.group(1)), int(row.group(2))
    g = glued_values(nb)
    assert (g["tokens_nfc"], g["tokens_nfd"]) == (nfc, nfd) and nfd > nfc


def test_the_side_by_side_summary_agrees_with_the_metrics_table(nb):
    table = printed(cell(nb, "04c5ddbd"))
    rows = re.findall(r"^(.{18}) (.{17}) +([\d.]+) +([\d.]+)\*? +([\d.]+) +([\d.]+)$", table, re.M)
    metrics = {(t.strip(), k.strip()): tuple(map(float, v)) for t, k, *v in rows}
    keep = ["BPE (ours)", "Unigram (SP)", "BPE (SP)"]
    spreads = []
    for text in ("English (held out)", "Python (held out)"):
        b = [metrics[text, k][0] for k in keep]
        spreads.append(max(b) / min(b) - 1)
    g = glued_values(nb)
    assert abs(g["keep_bytes_spread"] - max(spreads)) < 0.01
    unseen = {t for t, k in metrics if t not in ("English (held out)", "Python (held out)",
                                                 "French (Latin)", "German (Latin)")}
    assert len(unseen) == 6
    least = min(metrics[t, k][3] for t in unseen for k in ("WordPiece (score)", "WordPiece (count)"))
    assert g["wp_unknown_least"] == round(least) and least > 50  # glued as the text shows it (.0f)
    assert all(metrics[t, k][3] == 0 for t in unseen for k in keep)  # "losing nothing"
    s = summary_cell(nb)
    assert "{glue:text}`keep_bytes_spread" in s and "{glue:text}`wp_unknown_least" in s


# ---- issue 54: what NFC composes, who the score belongs to, byte fallback, SentencePiece's splits

def test_nfc_leaves_the_composition_exclusions_decomposed(nb):
    import unicodedata
    out = printed(code_cell(nb, 'for c in ("\\u0958", "\\ufb1d"):'))
    for cp in (0x0958, 0xFB1D):
        c = chr(cp)
        nfd = " ".join(f"{ord(x):04X}" for x in unicodedata.normalize("NFD", c))
        # the stdlib (independent of bpe_lesson.patterns.normalize_text) agrees with the cell
        assert unicodedata.normalize("NFC", c) == unicodedata.normalize("NFD", c) != c
        assert f"U+{cp:04X} {unicodedata.name(c)}: NFC {nfd}, NFD {nfd}" in out
    n = int(re.search(r"^(\d+) code points are more than one code point after NFC", out, re.M).group(1))
    assert glued_values(nb)["nfc_decomposed"] == n > 2
    definition = next(m for m in markdown_cells(nb) if ":label: def-normalization-forms" in m)
    assert "composition exclusions" in definition and "U+0958" in definition and "U+FB1D" in definition


def test_the_score_is_the_courses_and_the_total_gain_picks_another_pair(nb):
    out = printed(code_cell(nb, 'glue("rho_score"'))
    score_pair, score_count = re.search(r"^highest score \(WordPiece\): (.+), count (\d+),", out, re.M).groups()
    total_pair, total_count = re.search(r"^highest exact total gain: (.+), count (\d+),", out, re.M).groups()
    assert score_pair != total_pair                       # Schuster and Nakajima's rule differs
    g = glued_values(nb)
    assert (g["count_score_best"], g["count_total_best"]) == (int(score_count), int(total_count))
    definition = next(m for m in markdown_cells(nb) if ":label: def-wordpiece-score" in m)
    assert "Hugging\nFace course" in definition or "Hugging Face course" in definition
    text = markdown(nb)
    assert "reconstruction" in text and "huggingface.co/learn/nlp-course/chapter6/6" in text


def test_the_score_theorem_says_its_model_is_unnormalized(nb):
    from fractions import Fraction
    out = printed(code_cell(nb, "N_hand = sum(units.values())"))
    num, den, dec = re.search(r"the weights sum to (\d+)/(\d+) = ([\d.]+)", out).groups()
    # the hand example by hand: 113 pieces (hug 10, pug 5, pun 12, bun 4, hugs 5), ##g ##s 5 times
    assert Fraction(int(num), int(den)) == 1 + Fraction(5, 3 * 10 + 3 * 5 + 3 * 12 + 3 * 4 + 4 * 5)
    assert glued_values(nb)["weights_sum"] == round(float(dec), 3) > 1
    theorem = next(m for m in markdown_cells(nb) if ":label: thm-wordpiece-score" in m)
    assert "unnormalized" in theorem and "no longer a probability model" in theorem
    assert "heuristic" in theorem


def test_byte_fallback_needs_no_unknown_token(nb):
    out = printed(code_cell(nb, 'cjk = "分词器"'))
    unk = dict(re.findall(r"^(defaults|identity) .*unknown: (\d+)$", out.replace("\n          ", " "), re.M))
    assert int(unk["defaults"]) > 0 and int(unk["identity"]) == 0
    g = glued_values(nb)
    assert (g["unk_defaults"], g["unk_identity"]) == (int(unk["defaults"]), 0)
    assert "byte_fallback=True" in "".join(code_cell(nb, "identity = train_spm(lines, 500")["source"])
    para = next(m for m in markdown_cells(nb) if "### Why byte-level BPE dropped the normalizer" in m)
    assert "`byte_fallback`" in para and "needs no unknown token" in para


def test_sentencepiece_splits_by_whitespace_script_and_number_by_default(nb):
    out = printed(code_cell(nb, "def across(sp):")).replace("\n           ", " ")
    spans = dict(re.findall(r"^(defaults|no splits) *: +(\d+) pieces span words", out, re.M))
    assert int(spans["defaults"]) == 0 < int(spans["no splits"])
    assert "'▁of▁the'" in out
    g = glued_values(nb)
    assert (g["span_defaults"], g["span_no_splits"]) == (0, int(spans["no splits"]))
    para = next(m for m in markdown_cells(nb) if m.startswith("## SentencePiece"))
    for option in ("split_by_whitespace", "split_by_unicode_script", "split_by_number"):
        assert f"`{option}`" in para
