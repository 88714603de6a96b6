"""Unicode versions read against its own stored outputs.

These tests read the notebook's JSON (nothing runs): the ids and counts the prose
and the Summary glue are the ones the cells printed, the chunks the prose spells out
are the package's, the table's claim (the `regex` module's tables add to a class,
but for the one character that moved) holds on every row, and the figures listed as
hand-worked are what the text says they are.
"""

import ast
import re

from _notebook import cell, chapter, glued_values, markdown_folded, printed, source

nb = chapter("unicode_versions")


def after(text, label):
    return ast.literal_eval(re.search(re.escape(label) + r" *(\[.*\])", text)[1])


def test_the_glued_ids_are_the_printed_ones_and_the_package_gives_tiktokens(nb):
    g = glued_values(nb)
    assert g["tiktoken_ids"] == after(printed(cell(nb, "bf446442")), "tiktoken ids:")
    assert g["regex_ids"] == after(printed(cell(nb, "61f40b73")), "their ids:")
    assert g["tiktoken_ids"] != g["regex_ids"]
    for backend in ("python", "cython"):
        mine = after(printed(cell(nb, "d0579636")), f"{backend:7} ids:")
        assert mine == g["tiktoken_ids"]
    summary = markdown_folded(nb).split("## Summary")[1]
    assert "{glue:text}`tiktoken_ids`" in summary and "{glue:text}`regex_ids`" in summary


def test_the_chunks_the_prose_names_are_the_printed_ones(nb):
    prose = source(cell(nb, "a3e95574"))
    assert "chunks `\"\\u05c8'\"` and `\"z\"`" in prose  # tiktoken's, as the package splits
    assert after(printed(cell(nb, "d0579636")), "chunks:") == ["\u05c8'", "z"]
    assert "the chunks are `\"\\u05c8\"` and `\"'z\"`" in prose  # regex's
    assert after(printed(cell(nb, "61f40b73")), "chunks:") == ["\u05c8", "'z"]


def test_the_table_almost_only_adds_and_the_glued_counts_are_its_own(nb):
    out = printed(cell(nb, "d3174bf4"))
    rows = {m[1]: [int(x.replace(",", "")) for x in m.groups()[1:]]
            for m in re.finditer(r"^(\w+) +([\d,]+) +([\d,]+) +([\d,]+)$", out, re.M)}
    assert {"L", "N", "M", "s"} <= set(rows)
    # "the one exception goes the other way: U+0295 ... (Ll) for tiktoken ... L for both"
    only = re.findall(r"U\+([0-9A-F]{4,6}) \S+ \((\w+)\)", out.split("class only:")[1].splitlines()[0])
    assert only == [("0295", "Ll")]
    in_regex = ast.literal_eval(re.search(r"U\+0295 for regex: (\[.*\])", out)[1])
    assert "Lo" in in_regex and "L" in in_regex and "Ll" not in in_regex
    prose = markdown_folded(nb)
    assert "The one exception goes the other way: U+0295" in prose and "(`Ll`) for tiktoken" in prose
    for name, (ours, theirs, differ) in rows.items():
        moved = sum(cls == name for _, cls in only)  # in tiktoken's class, not in regex's
        assert differ == ours - theirs + 2 * moved, name
    assert rows["L"][2] == rows["L"][0] - rows["L"][1]  # a letter for both
    g = glued_values(nb)
    assert g["n_letters_differ"] == rows["L"][2]
    assert g["n_disputed"] == int(re.search(r"classified differently: ([\d,]+)", out)[1].replace(",", ""))
    assert g["n_disputed"] >= max(d for _, _, d in rows.values())


def test_the_hand_figures_are_the_code_points_of_a_z(nb):
    assert nb["metadata"]["bpe_lesson"]["hand_figures"] == [ord(c) for c in "AZaz"]
    assert "`[(65, 90), (97, 122)]`, `A-Z` and `a-z`" in markdown_folded(nb)



def test_tiktokens_engine_is_the_one_the_text_names(nb):
    """fancy-regex runs lookaround, which Rust's regex crate alone refuses: tiktoken runs it."""
    import tiktoken
    ranks = {bytes([i]): i for i in range(256)} | {b"  ": 256, b"   ": 257}
    enc = tiktoken.Encoding("ws", pat_str=r"\s+(?!\S)|\s+|\S+", mergeable_ranks=ranks, special_tokens={})
    # "a   b": the lookahead stops a run of spaces one short of a word (chunks "a", "  ", " ",
    # "b"); an engine without lookaround would take all three ("   " is one token, 257)
    assert enc.encode("a   b") == [97, 256, 32, 98]
    assert enc.encode("a   ") == [97, 257]  # at the end nothing follows: the whole run
    prose = markdown_folded(nb)
    assert "`fancy-regex`" in prose and "lookahead" in prose
