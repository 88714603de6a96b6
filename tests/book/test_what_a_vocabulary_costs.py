"""*What a vocabulary costs* read against its own outputs.

The chapter once had two Summaries that disagreed (d = 1,024 and 27.1% in one;
d = 768, 98.3M and "about a fifth of the reference model" in the other), and the
"reference model" of the second was never built. These tests read the stored
notebook and check that the one Summary's figures are glued from cells that ran,
that the real models are built and counted in a cell, and that the sentences about
shares say what the counts printed. They do not run the notebook (nbval does).
"""

import re

from _notebook import (chapter, code_cell, glued_text, markdown, markdown_cells, source, stdout,
                       summary_cell)

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
