"""The 1,161 hardcoded merges: count, order, ids 256-1416, the bytes a reader can check,
and agreement between merge-list replay and rank encoding on every one of them."""


import pytest

from bpe_lesson import Tokenizer
from bpe_lesson.scale import hardcoded
from bpe_lesson.scale.hardcoded import OPERATORS, hardcoded_merges, hardcoded_tokens
from bpe_lesson.textbook import apply_merges
from bpe_lesson.ranks import vocab_from_merges
from bpe_lesson.ranks import recover_merges


@pytest.fixture(scope="module")
def vocab():
    return vocab_from_merges(hardcoded_merges())  # id -> bytes


def test_exactly_1161_merges_with_ids_256_to_1416():
    merges = hardcoded_merges()
    assert len(merges) == 100 + 1000 + 31 + 7 + 1 + 20 + 2 == 1161
    assert [n for _, n in merges] == list(range(256, 1417))
    # every merge joins two tokens that exist before it
    assert all(a < n and b < n for (a, b), n in merges)


def test_the_blocks_come_in_the_documented_order(vocab):
    tokens = [vocab[i] for i in range(256, 1417)]
    assert tokens == hardcoded_tokens()
    assert tokens[:100] == [f"{i:02d}".encode() for i in range(100)]
    assert tokens[100:1100] == [f"{i:03d}".encode() for i in range(1000)]
    assert tokens[1100:1131] == [b" " * n for n in range(2, 33)]
    assert tokens[1131:1138] == [b"\n" * n for n in range(2, 9)]
    assert tokens[1138] == b"\r\n"
    assert tokens[1139:1159] == [op.encode() for op in OPERATORS]
    assert tokens[1159:] == [b"..", b"..."]
    assert len(set(OPERATORS)) == 20 and all(len(op) == 2 for op in OPERATORS)


@pytest.mark.parametrize("token, token_id", [
    (b"00", 256), (b"99", 355), (b"000", 356), (b"999", 1355), (b"  ", 1356), (b" " * 32, 1386),
    (b"\n\n", 1387), (b"\n" * 8, 1393), (b"\r\n", 1394), (b"==", 1395), (b":=", 1414),
    (b"..", 1415), (b"...", 1416),
])
def test_bytes_a_reader_can_check(vocab, token, token_id):
    assert vocab[token_id] == token


def test_how_a_few_are_built(vocab):
    pair = {vocab[n]: (vocab[a], vocab[b]) for (a, b), n in hardcoded_merges()}
    assert pair[b"00"] == (b"0", b"0")
    assert pair[b"123"] == (b"12", b"3")  # two-digit token + digit: "12" ranks before "23"
    assert pair[b"321"] == (b"3", b"21")  # "21" (id 277) ranks before "32" (id 288)
    assert pair[b" " * 8] == (b" " * 4, b" " * 4)  # space runs are built hierarchically
    assert pair[b" " * 5] == (b"  ", b"   ")
    assert pair[b"\r\n"] == (b"\r", b"\n")
    assert pair[b"..."] == (b"..", b".")


def test_replay_and_rank_encoding_agree_on_every_hardcoded_token(vocab):
    merges = hardcoded_merges()
    ranks = {pair: n for pair, n in merges}
    for n in range(256, 1417):
        # replay (how trainers apply base merges) reaches the token in one piece
        assert apply_merges(list(vocab[n]), ranks) == [n], vocab[n]
    # and the ranks alone give back exactly this merge list
    assert recover_merges({b: i for i, b in vocab.items()}) == merges


def test_numbers_and_indentation_become_single_tokens():
    tok = Tokenizer(hardcoded_merges(), pattern="gpt4")
    ids = tok.encode("x = 2024\n\n        return 3.14159...")
    pieces = [tok.decode_bytes([i]) for i in ids]
    assert b"202" in pieces and b"141" in pieces and b"59" in pieces and b"..." in pieces
    assert b" " * 7 in pieces  # 8 spaces before a word: 7 + " return" (GPT-4 keeps one for the word)
    assert tok.decode(ids) == "x = 2024\n\n        return 3.14159..."
