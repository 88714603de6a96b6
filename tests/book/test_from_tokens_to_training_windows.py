"""From tokens to training windows, read against its own stored outputs (issue 33's fixes).

Reads ``book/from_tokens_to_training_windows.ipynb`` as JSON (no kernel): the glued
values, the printed outputs and the markdown around them. What this file does not
do: run the notebook (``pytest --nbval`` does) or look at the rendered page.
"""

import re

from _notebook import (cell_above, chapter, code_cell_starting, displayed_tables, glued_values,
                       markdown, markdown_cells, printed, section, source)

nb = chapter("from_tokens_to_training_windows")


def test_the_numpy_sentence_names_no_version_the_page_does_not_show(nb):
    # 1.24 and 1.26 were printed by no cell; the claim about NumPy 2 is checked by its output
    text = markdown(nb)
    assert "1.24" not in text and "1.26" not in text and "NumPy 2 refuses" in text
    out = printed(code_cell_starting(nb, 'print("NumPy", np.__version__)'))
    major = int(re.search(r"NumPy (\d+)\.", out).group(1))
    assert major >= 2 and "OverflowError: Python integer 65536 out of bounds for uint16" in out


def test_the_wrapped_id_is_what_the_cast_printed(nb):
    g = glued_values(nb)
    out = printed(code_cell_starting(nb, 'print("NumPy", np.__version__)'))
    assert g["wrapped_id"] == 100_276 % 65_536 and f" {g['wrapped_id']}]" in out
    prose = next(md for md in markdown_cells(nb) if "{glue:text}`wrapped_id:,`" in md)
    assert "id 100,276" in prose


def test_the_failure_table_is_a_list_table_of_short_words(nb):
    # "vocabul/ary", "docum/ents": the first column broke words mid-word
    md = next(md for md in markdown_cells(nb) if "## The silent failures" in md)
    table = md[md.index("```{list-table}"):]
    assert re.search(r"^:widths: \d+ \d+ \d+$", table, re.M) and ":header-rows: 1" in table
    labels = re.findall(r"^\* - (.+)$", table, re.M)[1:]  # the header row is not a failure
    assert len(labels) == 7
    for label in labels:
        assert all(len(w) <= 9 for w in label.split()), f"a long word in the first column: {label!r}"
    # each row is then made to happen under its own name, in bold
    text = markdown(nb).lower()
    for label in labels:
        assert f"**{label.lower()}" in text, f"no paragraph opens with the row {label!r}"


def test_the_extra_special_token_is_listed_after_eos(nb):
    # the text said "listed first"; the code lists <|pad|> second and EOS still moves
    cell = code_cell_starting(nb, "tok_pad = bpe_lesson.train(")
    assert 'special_tokens=["<|endoftext|>", "<|pad|>"]' in source(cell)
    before = source(cell_above(nb, cell))
    assert "listed after `<|endoftext|>`" in before and "listed first" not in before
    out = printed(cell)
    ours = printed(code_cell_starting(nb, "torch.manual_seed(0)"))
    merges_pad = int(re.search(r"merges=(\d+)", out).group(1))
    merges = int(re.search(r"merges=(\d+)", ours).group(1))
    assert merges_pad == merges - 1 and "one merge fewer" in " ".join(before.split())
    assert "vocab_size=2048" in out and "'<|endoftext|>': 2046" in out and "manifest says 2047" in out


def test_the_intro_names_the_section_that_makes_the_failures_happen(nb):
    # the failures are no longer the last section: the exercises and summary are
    intro = markdown_cells(nb)[0]
    assert "The last section" not in intro and "*The silent failures*" in intro
    assert any(md.lstrip().startswith("`sft_targets`") and "## The silent failures" in md
               for md in markdown_cells(nb))


def test_the_summary_agrees_with_the_printed_outputs(nb):
    g = glued_values(nb)
    summary = section(nb, "## Summary")
    bare = re.sub(r"\{glue:text\}`[^`]*`|`[^`]*`|\$[^$]*\$|GPT-4", "", summary)
    typed = set(re.findall(r"\d[\d,.]*", bare)) - {"100,276", "65,536", "8"}  # inputs and a constant
    assert not typed, f"figures typed into the Summary: {typed}"
    assert g["n_cuts"] == g["n_corpus"] == g["n_topics"] + 1
    assert f"{g['n_corpus']} documents, " in printed(code_cell_starting(nb, "corpus = list("))
    assert f"{g['rows_cl100k']:,}  uint32" in printed(code_cell_starting(nb, "VOCABS = {"))
    [(_, keys), (_, shards)] = displayed_tables(code_cell_starting(nb, 'with open("prose.jsonl"'))
    manifest = {k: v.strip("`") for k, v in keys[1:]}  # the manifest's keys and JSON values
    assert manifest["total_tokens"] == str(g["total_tokens"])
    assert manifest["shard_count"] == str(g["shard_count"]) == str(len(shards) - 1)
    assert sum(int(row[1].replace(",", "")) for row in shards[1:]) == g["total_tokens"]
    assert f"{g['n_windows_8']:,} windows of 8" in printed(code_cell_starting(nb, "ds = SlidingWindowDataset("))
    assert g["copy_loss"] < g["right_loss"] / 3


def _never_targets(n, t, s):
    """The ids no window predicts, counted by hand from the windows: (20, 4, 4) -> [0, 17, 18, 19]."""
    w = max(0, 1 + (n - (t + 1)) // s)
    targets = {i * s + j for i in range(w) for j in range(1, t + 1)}
    return sorted(set(range(n)) - targets)


def test_with_stride_t_the_tail_is_never_a_target(nb):
    # issue 54: "each id after the first is a target exactly once" left out the last (N-1) mod T
    g = glued_values(nb)
    never = _never_targets(20, 4, 4)
    assert g["fig_tail"] == (20 - 1) % 4 == len(never) - 1
    assert g["fig_never"] == len(never)
    out = printed(code_cell_starting(nb, "fig = plots.windows_figure(20, 4, [2, 4, 6])"))
    assert f"ids never a target: {never}" in out
    prose = next(m for m in markdown_cells(nb) if "The stride decides how windows share ids" in m)
    assert "{glue:text}`fig_tail`" in prose and "{glue:text}`fig_never`" in prose
    assert r"$(N - 1) \bmod T$" in prose


def test_the_loader_seed_sentence_says_where_pairs_meet(nb):
    # issue 54: SeedSequence splits numbers into 32-bit words, so (0, 1) and (2**32, 0) meet
    import numpy as np

    def seed(s, e):  # numpy's SeedSequence, called here directly
        return int(np.random.SeedSequence([s, e]).generate_state(1, np.uint64)[0])

    assert seed(0, 1) == seed(2**32, 0)
    assert len({seed(s, e) for s in range(30) for e in range(30)}) == 900
    out = printed(code_cell_starting(nb, "ds256 = SlidingWindowDataset("))
    assert "seed 2**32, epoch 0 = seed 0, epoch 1: True" in out
    prose = next(m for m in markdown_cells(nb) if "`make_dataloader(dataset, batch_size, seed, epoch)`" in m)
    assert "$2^{32}$" in prose and "`(2**32, 0)`" in prose
