"""Encoding and decoding: the chapter's sentences against its own stored outputs.

Each test reads ``book/encoding_and_decoding.ipynb`` as JSON and checks a statement of
the prose against the output or glued value it must agree with, so a contradiction
fixed once cannot come back.

What this file does not do: re-run the chapter (nbval does) or read the figures.
"""

import re

from bpe_lesson.teaching import samples

from _notebook import chapter, code_cell, glue_refs, glued_text, markdown, printed, section

nb = chapter("encoding_and_decoding")


def test_the_summary_glues_the_chunk_count(nb):
    assert "n_chunks" in glue_refs(section(nb, "## Summary"))


def test_the_theorem_check_counts_what_the_cell_printed(nb):
    g = glued_text(nb)
    out = printed(code_cell(nb, "rank_table = {b: i for i, b in tok.vocab.items()}"))
    assert out.strip() == (f"{int(g['n_chunks']):,} distinct chunks ({int(g['n_chunks_all']):,} in all): "
                           f"0 encoded differently")


def test_the_language_samples_are_not_all_in_other_scripts(nb):
    # it said "the nine samples in other scripts"; English, French and German are Latin
    md = markdown(nb)
    assert "samples in other\nscripts" not in md and "samples in other scripts" not in md
    assert int(glued_text(nb)["n_samples"]) == len(samples.MULTILINGUAL)
    sentence = re.search(r"language samples of `samples\.MULTILINGUAL` \(([^)]*)\)", md).group(1)
    for language in re.findall(r"English|French|German", sentence):
        assert any(k.startswith(language) for k in samples.MULTILINGUAL), language


def test_decode_is_said_to_fail_only_on_an_unknown_id_and_the_output_shows_both(nb):
    # it said "decoding never fails"; an id outside the vocabulary raises
    text = section(nb, "## Decoding")
    assert "so decoding never fails" not in text
    assert "only an id that is not in\nthe vocabulary is an error" in text
    out = printed(code_cell(nb, "tok.decode([len(tok.vocab) + 10])")).splitlines()
    assert out[0].endswith("\ufffd'")
    assert re.fullmatch(r"decode raised: id \d+ is not in this vocabulary \(size \d+, ids 0\.\.\d+\)", out[1])


def test_the_tree_sentence_gives_the_merges_the_cell_printed(nb):
    g = glued_text(nb)
    out = printed(code_cell(nb, "longest = max(words"))
    m = re.search(r"id (\d+): .*made by merge (\d+)\nas .* \(id (\d+)\) \+ .* \(id (\d+)\)", out)
    root, merge, left, right = map(int, m.groups())
    assert (merge, int(g["join_merge"])) == (root - 255, root - 255)
    assert (int(g["left_merge"]), int(g["right_merge"])) == (left - 255, right - 255)
    assert int(g["left_merge"]) < merge and int(g["right_merge"]) < merge  # "long before their join"


def test_a_join_is_not_said_to_cost_only_two_lookups(nb):
    # finding the lowest rank is a scan over the parts, besides the two new lookups
    md = markdown(nb)
    assert "join costs two lookups" not in md
    assert "besides the scan for the lowest rank" in md



def test_a_merge_leaves_no_occurrence_of_its_own_pair(nb):
    """The faster replay relies on it; checked on runs of every length and mixed lists."""
    import random

    from bpe_lesson import textbook
    assert textbook.merge([97, 97, 97], (97, 97), 256) == [256, 97]  # "aaa": "aa", "a"
    rng = random.Random(54)
    for _ in range(2000):
        ids = [rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 12))]
        pair = (rng.choice([1, 2, 3]), rng.choice([1, 2, 3]))
        out = textbook.merge(ids, pair, 9)
        assert pair not in zip(out, out[1:]), (ids, pair, out)
    assert "A merge leaves no occurrence of its own pair" in markdown(nb)


def test_llama3s_tokens_beyond_replay_are_the_recovered_merges_misses(nb):
    """Counted again from Meta's file, read with tiktoken's own loader."""
    import os

    import llama_models
    import tiktoken.load

    from bpe_lesson.ranks import unreachable_tokens
    path = os.path.join(os.path.dirname(llama_models.__file__), "llama3", "tokenizer.model")
    beyond = unreachable_tokens(tiktoken.load.load_tiktoken_bpe(path))
    assert int(glued_text(nb)["llama3_beyond"].replace(",", "")) == len(beyond) > 0
    assert f"Llama 3: {len(beyond)} tokens no recovered merge builds" in printed(
        code_cell(nb, "beyond = unreachable_tokens("))
