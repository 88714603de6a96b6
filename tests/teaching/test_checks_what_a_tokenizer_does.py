"""The checks of "What a tokenizer does" pass the reference solutions and catch plausible wrong ones."""

import codecs

import pytest

from _wrong import cases, run_right, run_wrong


# ---------------------------------------------------------------- ex-tokenizer-utf8

def utf8(cp):
    if cp < 0x80:
        return bytes([cp])
    if cp < 0x800:
        return bytes([0xC0 | cp >> 6, 0x80 | cp & 0x3F])
    if cp < 0x10000:
        return bytes([0xE0 | cp >> 12, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F])
    return bytes([0xF0 | cp >> 18, 0x80 | cp >> 12 & 0x3F, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F])


def utf8_little_endian(cp):  # the bytes in the wrong order
    return utf8(cp)[::-1]


def utf8_off_by_one(cp):  # U+0080 still one byte
    return bytes([cp]) if cp <= 0x80 else utf8(cp)


def utf8_no_markers(cp):  # forgets the 10xxxxxx marker of the continuation bytes
    b = utf8(cp)
    return b[:1] + bytes(x & 0x3F for x in b[1:])


# ---------------------------------------------------------------- ex-tokenizer-decode

def decode(ids, vocab):
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")


def decode_each_token(ids, vocab):  # decodes token by token: breaks a character split across tokens
    return "".join(vocab[i].decode("utf-8", errors="replace") for i in ids)


def decode_strict(ids, vocab):  # raises on bytes that are not UTF-8
    return b"".join(vocab[i] for i in ids).decode("utf-8")


def decode_ignore(ids, vocab):  # drops bad bytes silently
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="ignore")


# ---------------------------------------------------------------- ex-tokenizer-fewest

def fewest_tokens(data, tokens):
    best = [0] + [None] * len(data)  # best[k]: fewest tokens for data[:k]
    longest = max(map(len, tokens))
    for k in range(1, len(data) + 1):
        best[k] = min(best[j] + 1 for j in range(max(0, k - longest), k)
                      if best[j] is not None and data[j:k] in tokens)
    return best[len(data)]


def fewest_greedy(data, tokens):  # longest match first: not always the fewest
    n, i = 0, 0
    while i < len(data):
        j = max(k for k in range(i + 1, len(data) + 1) if data[i:k] in tokens)
        n, i = n + 1, j
    return n


def fewest_shortest_first(data, tokens):  # a DP that only tries tokens of at most 2 bytes
    best = [0] + [len(data)] * len(data)
    for k in range(1, len(data) + 1):
        for j in range(max(0, k - 2), k):
            if data[j:k] in tokens:
                best[k] = min(best[k], best[j] + 1)
    return best[len(data)]


RIGHT = {"ex-tokenizer-utf8": utf8, "ex-tokenizer-decode": decode, "ex-tokenizer-fewest": fewest_tokens}
WRONG = {
    "ex-tokenizer-utf8": [utf8_little_endian, utf8_off_by_one, utf8_no_markers],
    "ex-tokenizer-decode": [decode_each_token, decode_strict, decode_ignore],
    "ex-tokenizer-fewest": [fewest_greedy, fewest_shortest_first],
}


@pytest.mark.parametrize("label", sorted(RIGHT))
def test_reference_solution_passes(label):
    run_right(label, RIGHT[label])


@pytest.mark.parametrize("label, wrong", cases(WRONG))
def test_wrong_solution_fails(label, wrong):
    run_wrong(label, wrong)


def test_the_stdlib_codec_passes_too():
    run_right("ex-tokenizer-decode", lambda ids, vocab: codecs.decode(b"".join(vocab[i] for i in ids), "utf-8",
                                                                      "replace"))
