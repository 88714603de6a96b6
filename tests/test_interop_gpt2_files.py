"""GPT-2's ``encoder.json`` + ``vocab.bpe`` pair, read and written (``formats/gpt2_files.py``).

Checked against two independent readers of the same files: tiktoken's
``data_gym_to_mergeable_bpe_ranks`` (the loader of its ``gpt2`` encoding, given
local paths) and Hugging Face's ``GPT2Tokenizer(vocab_file, merges_file)``; ids
equal on random text. The GPT-2-layout files of the first tests are written here,
by hand, with GPT-2's own byte order (printable bytes first), not by our writer.
"""

import json
import os
import random

import pytest
import regex
import tiktoken
import tiktoken.load

import bpe_lesson
from bpe_lesson.formats.gpt2_files import from_gpt2_files, save_gpt2_files
from bpe_lesson.patterns import GPT2_PATTERN

EOT = "<|endoftext|>"


def gpt2_byte_order():
    """GPT-2's ids of the 256 bytes (its encoder.json's first 256), and the written character of each."""
    order = [b for b in range(256) if chr(b).isprintable() and chr(b) != " "]
    char = {b: chr(b) for b in order}
    for n, b in enumerate(b for b in range(256) if b not in char):
        order.append(b)
        char[b] = chr(256 + n)
    return order, char


@pytest.fixture(scope="module")
def trained(prose_docs):
    return bpe_lesson.train(prose_docs[:80], 256 + 600 + 1, pattern="gpt2", special_tokens=[EOT])


@pytest.fixture(scope="module")
def gpt2_layout(trained, tmp_path_factory):
    """Files in GPT-2's own layout: bytes at ids 0-255 in GPT-2's order, merges from 256, EOT last."""
    d = tmp_path_factory.mktemp("gpt2")
    order, char = gpt2_byte_order()
    write = lambda b: "".join(char[x] for x in b)  # noqa: E731
    encoder = {char[b]: i for i, b in enumerate(order)}
    lines = ["#version: 0.2"]
    for k, (left, right) in enumerate(trained.merge_bytes()):
        encoder[write(left + right)] = 256 + k
        lines.append(f"{write(left)} {write(right)}")
    encoder[EOT] = len(encoder)
    (d / "encoder.json").write_text(json.dumps(encoder), encoding="utf-8")
    (d / "vocab.bpe").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(d / "encoder.json"), str(d / "vocab.bpe")


def random_texts(n=60, seed=0):
    rng = random.Random(seed)
    words = ["the", " the", "token", "izer", "'s", "'ll", " 2024", "\n\n", "  ", "\t", "naïve", "café", "😀",
             "日本語", "—", "x=1;", " ,", "!!", "  \n", "Ġ", "Ċ"]
    return ["".join(rng.choice(words) + (" " if rng.random() < 0.3 else "") for _ in range(rng.randint(1, 40)))
            for _ in range(n)]


def tiktoken_from(encoder_json, vocab_bpe, eot_id, monkeypatch, clobber=False):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # read the local files, cache nothing
    ranks = tiktoken.load.data_gym_to_mergeable_bpe_ranks(vocab_bpe, encoder_json,
                                                          clobber_one_byte_tokens=clobber)
    return tiktoken.Encoding("gpt2_files", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                             special_tokens={EOT: eot_id})


def hf_from(encoder_json, vocab_bpe):
    from transformers import GPT2Tokenizer

    return GPT2Tokenizer(encoder_json, vocab_bpe)  # transformers 5 names them vocab, merges: paths work


def test_gpt2_layout_files_read_as_tiktoken_and_hf_read_them(gpt2_layout, backend, monkeypatch):
    tok = from_gpt2_files(*gpt2_layout, backend=backend)
    eot_id = json.load(open(gpt2_layout[0]))[EOT]
    assert tok.special_tokens == {EOT: eot_id}
    enc, hf = tiktoken_from(*gpt2_layout, eot_id, monkeypatch), hf_from(*gpt2_layout)
    for text in random_texts():
        assert (tok.encode(text), tok.encode(text)) == (enc.encode_ordinary(text), hf.encode(text)), text
    text = "a<|endoftext|>b"
    assert tok.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")


def test_saved_files_read_back_and_as_tiktoken_and_hf_read_them(trained, tmp_path, backend, monkeypatch):
    save_gpt2_files(trained, tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["encoder.json", "vocab.bpe"]  # no temporary left behind
    paths = str(tmp_path / "encoder.json"), str(tmp_path / "vocab.bpe")
    assert open(paths[1], encoding="utf-8").readline() == "#version: 0.2\n"
    back = from_gpt2_files(*paths, backend=backend)
    assert back.vocab_bytes() == trained.vocab_bytes() and back.merge_bytes() == trained.merge_bytes()
    # our byte ids are the byte values, not GPT-2's order: tiktoken then takes them from encoder.json
    enc = tiktoken_from(*paths, trained.special_tokens[EOT], monkeypatch, clobber=True)
    hf = hf_from(*paths)
    for text in random_texts(seed=1):
        assert back.encode(text) == trained.encode(text) == enc.encode_ordinary(text) == hf.encode(text), text


def write_pair(d, encoder, lines):
    (d / "encoder.json").write_text(json.dumps(encoder) if not isinstance(encoder, str) else encoder)
    (d / "vocab.bpe").write_text("\n".join(lines) + "\n")
    return str(d / "encoder.json"), str(d / "vocab.bpe")


def small_pair():
    """A hand-made pair: bytes at their values, "ab" (256) and "abc" (257)."""
    _, char = gpt2_byte_order()
    encoder = {char[b]: b for b in range(256)} | {"ab": 256, "abc": 257, EOT: 258}
    return encoder, ["#version: 0.2", "a b", "ab c"]


def test_a_small_hand_made_pair(tmp_path):
    tok = from_gpt2_files(*write_pair(tmp_path, *small_pair()))
    assert tok.encode("abcab ab") == [257, 256, 32, 256]
    assert tok.special_tokens == {EOT: 258}


@pytest.mark.parametrize("change, message", [
    (lambda e, m: e.pop("Ġ"), r"encoder.json: the byte 32 \(written 'Ġ'\) is missing"),
    (lambda e, m: e.pop("abc"), r"vocab.bpe, line 3: the merge 'ab' 'c' makes 'abc', which .*encoder.json lacks"),
    (lambda e, m: m.append("zz q"), r"vocab.bpe, line 4: 'zz' is neither a byte nor the result of a merge"),
    (lambda e, m: e.update(abc=255), r"encoder.json: keys 'ÿ' and 'abc' both have id 255"),
    (lambda e, m: e.update(abc=100_000, ab=100_001), r"vocab.bpe, line 3: 'abc' has id 100000 .* below 100001 "
                                                     r"of line 2; ids must rise in merge order"),
    (lambda e, m: m.append("a b"), r"vocab.bpe, line 4: 'ab' has id 256 .* below 257 of line 3"),
    (lambda e, m: m.append("a b c"), r"vocab.bpe, line 4: 'a b c' should be two tokens separated by one space"),
    (lambda e, m: e.update(abc="7"), r"encoder.json: key 'abc': id '7' should be a whole number >= 0"),
    (lambda e, m: m.append("a \x00"), r"vocab.bpe, line 4: '\\x00' holds '\\x00', which is not one of GPT-2's"),
])
def test_bad_pairs_name_the_file_and_the_line_or_key(tmp_path, change, message):
    encoder, lines = small_pair()
    change(encoder, lines)
    with pytest.raises(ValueError, match=message):
        from_gpt2_files(*write_pair(tmp_path, encoder, lines))


def test_an_id_past_pythons_4300_digits_is_named_by_its_key(tmp_path):
    encoder_path, merges_path = write_pair(tmp_path, *small_pair())
    text = open(encoder_path).read()
    open(encoder_path, "w").write(text.replace('"abc": 257', '"abc": ' + "9" * 5000))
    assert "9" * 5000 in open(encoder_path).read()
    with pytest.raises(ValueError, match=r"encoder.json: key 'abc': id <an integer of 5,000 digits>"):
        from_gpt2_files(encoder_path, merges_path)


def test_an_encoder_that_is_not_json_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"encoder.json: not a JSON file"):
        from_gpt2_files(*write_pair(tmp_path, "{oops", ["#version: 0.2"]))


def test_the_pattern_is_gpt2s_unless_named(tmp_path):
    paths = write_pair(tmp_path, *small_pair())
    assert from_gpt2_files(*paths).pattern == GPT2_PATTERN
    assert regex.compile(from_gpt2_files(*paths, pattern="gpt4").pattern).pattern != GPT2_PATTERN
