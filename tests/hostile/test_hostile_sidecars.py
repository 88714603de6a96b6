"""Sidecars of ``.tiktoken`` and ``.tiktoken.gz`` side by side (issue 39, item 12).

``save_tiktoken("c.tiktoken.gz")`` and ``save_tiktoken("c.tiktoken")`` shared the
sidecar ``c.tiktoken.json``: the second save overwrote the first's, and the
``.gz`` then failed to load, its pattern and special tokens gone. Each file now
has its own (``c.tiktoken.gz.json``); a sidecar under the old name still loads
when it matches the ranks, and one that does not is refused, as before.
"""

import os

import pytest

from bpe_lesson import Tokenizer, train


@pytest.fixture(scope="module")
def two():
    a = train("alpha beta gamma " * 30, 270, pattern="gpt4", special_tokens=["<|a|>"])
    b = train("delta epsilon zeta " * 30, 275, pattern="gpt2", special_tokens=["<|b|>"])
    return a, b


def test_gz_and_plain_files_side_by_side_keep_their_own_sidecars(tmp_path, two):
    a, b = two
    a.save_tiktoken(tmp_path / "c.tiktoken.gz")
    b.save_tiktoken(tmp_path / "c.tiktoken")
    assert sorted(os.listdir(tmp_path)) == ["c.tiktoken", "c.tiktoken.gz", "c.tiktoken.gz.json", "c.tiktoken.json"]
    for tok, name in ((a, "c.tiktoken.gz"), (b, "c.tiktoken")):
        back = Tokenizer.load(tmp_path / name)  # before: the .gz was refused (its sidecar overwritten)
        assert (back.vocab, back.pattern, back.special_tokens) == (tok.vocab, tok.pattern, tok.special_tokens)


def test_a_gz_sidecar_under_its_old_name_still_loads(tmp_path, two):
    a, _ = two
    a.save_tiktoken(tmp_path / "old.tiktoken.gz")
    os.rename(tmp_path / "old.tiktoken.gz.json", tmp_path / "old.tiktoken.json")  # as saved before the fix
    back = Tokenizer.load(tmp_path / "old.tiktoken.gz")
    assert (back.pattern, back.special_tokens) == (a.pattern, a.special_tokens)


def test_an_old_name_sidecar_of_other_ranks_is_refused(tmp_path, two):
    a, b = two
    a.save_tiktoken(tmp_path / "c.tiktoken.gz")
    os.remove(tmp_path / "c.tiktoken.gz.json")
    b.save_tiktoken(tmp_path / "c.tiktoken")  # c.tiktoken.json: b's, not a's
    with pytest.raises(ValueError, match=r"c\.tiktoken\.json.*ranks_sha256"):
        Tokenizer.load(tmp_path / "c.tiktoken.gz")
