"""*What a vocabulary costs* read against its own outputs.

The chapter once had two Summaries that disagreed (d = 1,024 and 27.1% in one;
d = 768, 98.3M and "about a fifth of the reference model" in the other), and the
"reference model" of the second was never built. These tests read the stored
notebook and check that the one Summary's figures are glued from cells that ran,
that the real models are built and counted in a cell, and that the sentences about
shares say what the counts printed. They do not run the notebook (nbval does).
"""

import re

from _notebook import (chapter, code_cell, displayed_tables, glued_text, glued_values, markdown,
                       markdown_cells, source, stdout, summary_cell)

nb = chapter("what_a_vocabulary_costs")


def test_one_summary_and_no_unbuilt_reference_model(nb):
    text = markdown(nb)
    assert len(re.findall(r"^## Summary\s*$", text, re.M)) == 1
    assert "reference model" not in text  # the model that was never built
    assert "about a fifth" not in text


def test_the_summary_glues_its_shares(nb):
    # the Summary's shares are glued, not typed
    s = summary_cell(nb)
    for name in ("model_share", "gpt2_share", "llama_share", "qwen_share",
                 "wide_share_tied", "wide_share_untied"):
        assert f"{{glue:text}}`{name}:" in s, name
    assert not re.search(r"\d+\.\d%", re.sub(r"\{glue:text\}`[^`]*`", "", s))


def test_the_chapters_model_share_is_the_one_the_parameter_cell_printed(nb):
    out = stdout(code_cell(nb, "per_layer = sum("))
    share = float(re.search(r"the vocabulary is ([\d.]+)% of it", out).group(1))
    total = float(re.search(r"the model, tied: ([\d.]+)M", out).group(1))
    g = glued_text(nb)
    assert f"{float(g['model_share']):.1%}" == f"{share}%"
    assert f"{float(g['model_total_m']):.1f}" == f"{total}"
    # "more than a quarter of the model is a lookup table"
    assert re.search(r"more\s+than a quarter", markdown(nb)) and float(g["model_share"]) > 0.25


def test_the_real_models_are_built_on_the_meta_device_and_counted(nb):
    out = stdout(code_cell(nb, "real = {name: count(build(name, v))"))
    rows = {m.group(1).strip(): (int(m.group(2).replace(",", "")), int(m.group(3).replace(",", "")))
            for m in re.finditer(r"^(.{14}) +[\d,]+ +([\d,]+) +([\d,]+) +[\d.]+%$", out, re.M)}
    assert set(rows) == {"GPT-2 small", "Llama 3.2 1B", "Qwen 2.5 0.5B"}, out
    # transformers' own classes count the same, in the cell after
    check = stdout(code_cell(nb, "for name, (cls, config) in configs.items():"))
    for name, (n, _) in rows.items():
        assert re.search(rf"{re.escape(name)} +transformers: +{n:,} +ours: +{n:,}", check), name
    g = glued_text(nb)
    for key, name in (("gpt2", "GPT-2 small"), ("llama", "Llama 3.2 1B"), ("qwen", "Qwen 2.5 0.5B")):
        n, n_vocab = rows[name]
        assert float(g[f"{key}_share"]) == round(n_vocab / n, 3)  # glued as the text shows it (.1%)
    src = "".join(source(c) for c in nb["cells"] if c["cell_type"] == "code")
    assert 'torch.device("meta")' in src


def test_128000_rows_at_width_768_tied_and_untied(nb):
    out = stdout(code_cell(nb, 'build("GPT-2 small", 128_000, tied=tied_)'))
    shares = dict(re.findall(r"V = 128,000, (tied|untied) *:.*= ([\d.]+)%", out))
    g = glued_text(nb)
    assert f"{float(g['wide_share_tied']):.1%}" == shares["tied"] + "%"
    assert f"{float(g['wide_share_untied']):.1%}" == shares["untied"] + "%"
    assert "98.3M" in out and float(g["wide_vocab_m_tied"]) == round(128_000 * 768 / 1e6, 1)  # the text shows .1f
    # "more than half of such a model would be its vocabulary"
    assert "more than half" in markdown(nb) and float(g["wide_share_tied"]) > 0.5


def test_merge_counts_fall_as_the_prose_says(nb):
    g = glued_text(nb)
    assert int(g["first_count"]) > 100_000 and int(g["last_count"]) < 10


def test_the_training_split_is_glued_not_typed(nb):
    # the prose said "80% of the documents; the other 20% are held out" while the split
    # by topic and by file trains on another share; the share is glued, the rest not typed
    cell = next(m for m in markdown_cells(nb) if "train_share" in m)
    assert not re.search(r"\d+%", re.sub(r"\{glue:text\}`[^`]*`", "", cell))
    assert 0.7 < float(glued_text(nb)["train_share"]) < 0.9


# ---- issue 54: tied matrices, the attention convention, the grid's edge, logits, quality

def test_a_tied_matrix_gets_a_gradient_in_every_row(nb):
    # "a rare token gets few updates to its row" holds for an untied input table only:
    # the cell's toy model, tied, moves every row; untied, only the rows of the ids seen
    out = stdout(code_cell(nb, "head_toy.weight = emb_toy.weight"))
    rows = {k: (int(e.replace(",", "")), int(h.replace(",", "")), int(v.replace(",", "")))
            for k, e, h, v in re.findall(
                r"^(tied|untied) *: rows with a gradient: embedding +([\d,]+), "
                r"head +([\d,]+) of ([\d,]+)$", out, re.M)}
    seen = int(re.search(r"^(\d+) distinct ids in the batch", out, re.M).group(1))
    V_toy = rows["tied"][2]
    assert rows["tied"][:2] == (V_toy, V_toy)       # every row, through the head
    assert rows["untied"] == (seen, V_toy, V_toy)    # the input table: the ids seen
    assert seen < V_toy
    g = glued_values(nb)
    assert (g["rows_tied"], g["rows_untied"], g["ids_seen"]) == (V_toy, seen, seen)
    # the head costs 2 V d FLOPs per position, as FlopCounterMode counted
    flops, n = re.search(r"the head: ([\d,]+) FLOPs = 2 V d x (\d+) positions", out).groups()
    assert int(flops.replace(",", "")) == 2 * V_toy * 16 * int(n)
    text = markdown(nb)
    assert re.search(r"every row gets a gradient at every\s+position", text)
    assert "{glue:text}`rows_tied:,`" in summary_cell(nb)


def test_the_attention_count_says_its_convention(nb):
    out = stdout(code_cell(nb, "causal_count"))
    causal = int(re.search(r"skipped: ([\d,]+) FLOPs", out).group(1).replace(",", ""))
    T, d = 128, 256  # the cell's T_s and d_s
    assert causal == 2 * T * (T + 1) * d
    share = glued_values(nb)["causal_share"]
    assert share == round(causal / (4 * T * T * d), 3) and 0.5 < share < 0.51
    text = markdown(nb)
    assert "{glue:text}`causal_share:.3f`" in text and "all $T^2$ pairs" in text
    assert "causal" in summary_cell(nb)


def test_the_cheapest_vocabulary_is_the_grids_edge_and_said_so(nb):
    (_, table), = displayed_tables(code_cell(nb, '"tokens saved"'))
    sizes = [int(row[0].replace(",", "")) for row in table[1:]]
    out = stdout(code_cell(nb, "best = cheapest_vocab(curve, d_, L_, B)"))
    best = {int(d_.replace(",", "")): int(v.replace(",", ""))
            for d_, v in re.findall(r"^d = ([\d,]+), \d+ layers: cheapest V = ([\d,]+)", out, re.M)}
    assert best[1024] == max(sizes) and "(the largest measured)" in out
    assert min(sizes) < best[256] < max(sizes)                 # the thin model: interior
    g = glued_values(nb)
    assert (g["cheapest_1024"], g["cheapest_256"], g["grid_edge"]) == (best[1024], best[256], max(sizes))
    assert g["still_falling"] > 0
    prose = next(m for m in markdown_cells(nb) if "{glue:text}`cheapest_1024" in m)
    assert "not a balance" in prose and "edge of the grid" in prose


def test_the_logits_memory_is_b_t_v_numbers(nb):
    out = stdout(code_cell(nb, "B_seq, T_seq = 8, 8192"))
    for v, dtype, n, gib in re.findall(r"^V = +([\d,]+), (float32|bfloat16) *: ([\d,]+) logits, +([\d.]+) GiB",
                                       out, re.M):
        v, n = int(v.replace(",", "")), int(n.replace(",", ""))
        assert n == 8 * 8192 * v
        assert float(gib) == round(n * {"float32": 4, "bfloat16": 2}[dtype] / 2**30, 1)
    g = glued_values(nb)
    assert g["logits_fp32_gib"] == round(8 * 8192 * 128_000 * 4 / 2**30, 1)
    assert g["logits_bf16_gib"] == round(8 * 8192 * 128_000 * 2 / 2**30, 1)
    assert g["logits_bf16_gib"] > 10 * g["weights_bf16_gib"]   # "many times the weights"


def test_compression_is_not_quality_cites_tao_et_al(nb):
    import os
    from _notebook import ROOT
    assert "{cite}`tao2024scaling`" in markdown(nb) and "{cite}`tao2024scaling`" in summary_cell(nb)
    with open(os.path.join(ROOT, "book", "references.bib"), encoding="utf-8") as f:
        bib = f.read()
    entry = re.search(r"@\w+\{tao2024scaling,.*?\n\}", bib, re.S).group(0)
    assert "Scaling Laws with Vocabulary" in entry and "2407.13623" in entry
