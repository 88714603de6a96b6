"""Checks of the exercises in "Encoding and decoding": the reader's encoder by replay, the
rank encoder of one chunk, and a decoder for a stream of ids.

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import functools

from ...patterns import GPT4_PATTERN, split_chunks
from ...ranks import bpe_encode_chunk
from ...tokenizer import Tokenizer
from ...trainer import train as package_train
from .. import samples
from . import check
from ._calls import call


@functools.lru_cache(maxsize=1)
def _trained():
    """(tokenizer, held-out text): 768 ids trained on the prose's training split."""
    train, held = samples.prose_split()
    return package_train(train, vocab_size=768), "\n".join(held[:3])


@check("ex-encode-replay")
def _encode(encode):
    tok, held = _trained()
    toy = [((97, 98), 256), ((256, 99), 257)]
    got = call(encode, "abc abcab", toy)
    want = Tokenizer(toy).encode("abc abcab")
    assert got == want, f"encode('abc abcab') = {got}, should be {want} (chunks 'abc', ' abcab')"
    got = call(encode, "a b", [((97, 32), 256)])
    assert got == [97, 32, 98], f"encode('a b') with the merge 'a' + ' ' gave {got}: no merge crosses a chunk"
    got = call(encode, held, tok.merges)
    want = tok.encode(held)
    assert len(got) == len(want), f"{len(got)} ids for the held-out prose, the package gives {len(want)}"
    first = next((k for k, (g, w) in enumerate(zip(got, want)) if g != w), None)
    assert first is None, f"id {first} differs: {got[first]} instead of {want[first]}"


@check("ex-encode-rank")
def _rank(rank_encode):
    ranks = {bytes([i]): i for i in range(256)}
    got = call(rank_encode, b"aaa", ranks | {b"aa": 256})
    assert got == [256, 97], f"rank_encode(b'aaa') = {got}: on a tie, join the leftmost pair"
    toy = ranks | {b"ab": 256, b"bc": 257, b"cd": 258, b"abc": 259}
    got = call(rank_encode, b"abcd", toy)
    assert got == [256, 258], (f"rank_encode(b'abcd') = {got}: ab (256) first; then cd (258) ranks "
                               f"below ab + c = abc (259)")
    got = call(rank_encode, b"abcd", ranks | {b"bc": 256, b"ab": 257, b"cd": 258})
    assert got == [97, 256, 100], (f"rank_encode(b'abcd') = {got}: bc has the lowest rank and goes "
                                   f"first; then neither a + bc nor bc + d is a token")
    tok, held = _trained()
    table = {b: i for i, b in tok.vocab.items()}
    for chunk in sorted({c.encode() for c in split_chunks(held, GPT4_PATTERN)}):
        got, want = call(rank_encode, chunk, table), bpe_encode_chunk(chunk, table)
        assert got == want, f"rank_encode({chunk!r}) = {got}, the package gives {want}"


@check("ex-decode-stream")
def _stream(decode_stream):
    tok = Tokenizer([((208, 159), 256)], pattern=None)  # one merge: the two bytes of Cyrillic "П"
    for name, text in samples.MULTILINGUAL.items():
        ids = tok.encode(text)
        pieces = list(call(decode_stream, ids, dict(tok.vocab)))
        assert len(pieces) == len(ids), f"{name}: {len(pieces)} pieces for {len(ids)} ids; yield one per id"
        assert "".join(pieces) == text, f"{name}: the pieces do not join to the text"
        assert not any("\ufffd" in p for p in pieces), f"{name}: a piece holds U+FFFD: half a character leaked"
        data = b""
        for k, (i, piece) in enumerate(zip(ids, pieces)):
            data += tok.vocab[i]
            done = _complete(data)
            assert "".join(pieces[: k + 1]) == done, (f"{name}: after id {k} the text shown should be every "
                                                      f"complete character so far, {len(done)} characters")


def _complete(data: bytes) -> str:
    """The longest prefix of ``data`` that is whole UTF-8 characters, decoded.

    >>> _complete("ab\u041f".encode()[:-1])   # the last letter's second byte is missing
    'ab'
    """
    for cut in range(len(data), max(len(data) - 4, -1), -1):
        try:
            return data[:cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
    raise ValueError("not UTF-8")
