"""tiktoken's ``Encoding`` surface on our Tokenizer: the same names, options, results and errors.

A user who knows ``tiktoken.Encoding`` finds every public name of it on
``Tokenizer``: ``n_vocab`` (highest id + 1, so ``nn.Embedding(tok.n_vocab, d)``
holds every id, specials included), ``eot_token``, ``special_tokens_set``,
``max_token_value``, ``encode_ordinary_batch``, ``encode_single_token``,
``decode_single_token_bytes``, ``decode_tokens_bytes``, ``decode_with_offsets``,
``decode_batch``, ``decode_bytes_batch``, ``token_byte_values``,
``is_special_token``, ``encode_with_unstable``, and ``len(tok)``. Unknown ids and
tokens raise ``KeyError`` as in tiktoken. The three private fields tiktoken's
README reads to extend an encoding, ``_pat_str``, ``_mergeable_ranks`` and
``_special_tokens``, are read-only copies here (``ReadOnlyDict``).

Parameter names are tiktoken's (``decode(tokens)``, ``encode_batch(text)``); the
three that had other names here keep them as keyword-only aliases that warn
(``checks.old_keyword``): tiktoken's name is the one in the signature, so
``help()`` and IDEs show tiktoken's call, and a positional call (nearly every
call) pays only a test of two defaults, within the noise of ``decode``'s 1.4 us.

Also here, thin entry points into ``tiktoken_io``: ``save_tiktoken``, ``to_tiktoken``,
``from_tiktoken``, ``load_tiktoken`` and ``from_spec``.

What this module does not do: encode or decode itself (``Tokenizer.encode`` and
``Tokenizer.decode_bytes`` do; these are thin shapes around them), or reimplement
``encode_with_unstable``'s completion sets (it asks tiktoken, built from our ranks).
"""

from __future__ import annotations

import os

from . import tiktoken_io

__all__ = ["UnknownTokenError", "ReadOnlyDict", "EncodingSurface"]

_CONTINUATION = range(0x80, 0xC0)  # UTF-8 continuation bytes 10xxxxxx


class UnknownTokenError(KeyError, ValueError):
    """An id or a token that is not in the vocabulary: a ``KeyError`` as in tiktoken, and a
    ``ValueError`` as this package raised before it followed tiktoken here."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


class ReadOnlyDict(dict):
    """A dict copy that refuses changes: a dict (tiktoken's Rust core takes only dicts), whose
    writes raise ``TypeError`` naming the field, so changing it cannot seem to change the tokenizer.

    >>> d = ReadOnlyDict({"a": 1}, name="_special_tokens", what="the special tokens")
    >>> {**d, "b": 2}
    {'a': 1, 'b': 2}
    >>> d.pop("a")
    Traceback (most recent call last):
    TypeError: _special_tokens is a read-only copy of the special tokens; build a new dict to change them
    """

    def __init__(self, items, *, name: str, what: str):
        super().__init__(items)
        self._refusal = f"{name} is a read-only copy of {what}; build a new dict to change them"

    def _refuse(self, *args, **kwargs):
        raise TypeError(self._refusal)

    __setitem__ = __delitem__ = __ior__ = pop = popitem = clear = update = setdefault = _refuse

    def __reduce__(self):  # a copy or a pickle of it is a plain dict (as .copy() and {**d} are)
        return dict, (dict(self),)


class EncodingSurface:
    """Mixed into ``Tokenizer``: needs ``vocab``, ``_ranks``, ``special_tokens``, ``_special_by_id``,
    ``_largest_rank``, ``encode``, ``encode_ordinary``, ``encode_batch``, ``decode_bytes``."""

    # ---- sizes and names ----------------------------------------------------
    @property
    def vocab_size(self) -> int:
        """Number of ids: ordinary tokens plus special tokens."""
        return len(self.vocab) + len(self.special_tokens)

    @property
    def max_token_id(self) -> int:
        return max([self._largest_rank, *self.special_tokens.values()])

    @property
    def n_vocab(self) -> int:
        """Highest id + 1 (tiktoken's name): cl100k_base's is 100,277, though it has 100,261 ids.

        >>> from bpe_lesson import Tokenizer
        >>> Tokenizer([], special_tokens={"<|end|>": 300}).n_vocab
        301
        """
        return self.max_token_id + 1

    @property
    def max_token_value(self) -> int:
        """The highest id, special tokens included."""
        return self.max_token_id

    def __len__(self) -> int:
        return self.n_vocab

    @property
    def eot_token(self) -> int:
        """The id of ``<|endoftext|>`` (a KeyError when there is none, as in tiktoken)."""
        try:
            return self.special_tokens["<|endoftext|>"]
        except KeyError:
            raise UnknownTokenError("'<|endoftext|>' is not a special token of this tokenizer") from None

    @property
    def special_tokens_set(self) -> set:
        return set(self.special_tokens)

    def is_special_token(self, token: int) -> bool:
        return token in self._special_by_id

    def token_byte_values(self) -> list[bytes]:
        """Every ordinary token's bytes, sorted (tiktoken's order)."""
        return sorted(self.vocab.values())

    # ---- tiktoken's private fields, read-only, for its extend recipe ------------------------
    # tiktoken's README extends an encoding by reading these three fields: with them,
    # tiktoken.Encoding(name=..., pat_str=tok._pat_str, mergeable_ranks=tok._mergeable_ranks,
    # special_tokens={**tok._special_tokens, "<|im_start|>": 100264}) works on ours too.
    @property
    def _pat_str(self) -> str:
        """The split pattern (``NO_SPLIT_PATTERN``, which matches the whole text, when there is none)."""
        return self.pattern if self.pattern is not None else tiktoken_io.NO_SPLIT_PATTERN

    @property
    def _mergeable_ranks(self) -> dict:
        """A read-only copy of the ranks, ``{bytes: id}`` (a dict, as tiktoken's Rust core needs).

        >>> from bpe_lesson import Tokenizer
        >>> ranks = Tokenizer([((104, 105), 256)])._mergeable_ranks
        >>> ranks[b"hi"], len(ranks)
        (256, 257)
        >>> ranks[b"x"] = 1
        Traceback (most recent call last):
        TypeError: _mergeable_ranks is a read-only copy of the ranks; build a new dict to change them
        """
        return ReadOnlyDict(self._ranks, name="_mergeable_ranks", what="the ranks")

    @property
    def _special_tokens(self) -> dict:
        """A read-only copy of the special tokens, ``{text: id}``."""
        return ReadOnlyDict(self.special_tokens, name="_special_tokens", what="the special tokens")

    # ---- encoding -------------------------------------------------------------
    def encode_ordinary_batch(self, text, *, num_threads=8) -> list[list[int]]:
        return self.encode_batch(text, num_threads=num_threads, allowed_special=(), disallowed_special=())

    def encode_single_token(self, text_or_bytes) -> int:
        """The id of one whole token, given as its bytes or its text (special tokens too).

        >>> from bpe_lesson import Tokenizer
        >>> Tokenizer([((104, 105), 256)]).encode_single_token("hi")
        256
        """
        b = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else bytes(text_or_bytes)
        i = self._ranks.get(b)
        if i is not None:
            return i
        s = b.decode("utf-8", errors="replace")
        if s in self.special_tokens:
            return self.special_tokens[s]
        raise UnknownTokenError(repr(text_or_bytes))

    def encode_with_unstable(self, text, *, allowed_special=frozenset(), disallowed_special="all"):
        """tiktoken's own answer (stable ids, possible completions), from an Encoding with our ranks."""
        encoding = getattr(self, "_tiktoken_copy", None)
        if encoding is None:
            encoding = self._tiktoken_copy = self.to_tiktoken()
        return encoding.encode_with_unstable(text, allowed_special=allowed_special,
                                             disallowed_special=disallowed_special)

    # ---- decoding -------------------------------------------------------------
    def decode_single_token_bytes(self, token: int) -> bytes:
        b = self.vocab.get(token)
        if b is None:
            b = self._special_by_id.get(token)
            if b is None:
                raise UnknownTokenError(repr(token))
        return b

    def decode_tokens_bytes(self, tokens) -> list[bytes]:
        return [self.decode_single_token_bytes(t) for t in tokens]

    def decode_with_offsets(self, tokens) -> tuple[str, list[int]]:
        """The text, and for each token the offset (in characters) where it starts; a token that
        starts inside a character gets that character's offset (tiktoken's rule).

        >>> from bpe_lesson import Tokenizer
        >>> Tokenizer([]).decode_with_offsets(list("aé".encode()))
        ('aé', [0, 1, 1])
        """
        pieces = self.decode_tokens_bytes(tokens)
        offsets, n_chars = [], 0
        for piece in pieces:
            # subtle: a token that begins with a continuation byte belongs to the character before
            offsets.append(max(0, n_chars - (piece[0] in _CONTINUATION)) if piece else n_chars)
            n_chars += sum(1 for c in piece if c not in _CONTINUATION)
        return b"".join(pieces).decode("utf-8", errors="strict"), offsets

    def decode_batch(self, batch, *, errors="replace", num_threads=8) -> list[str]:
        return [self.decode(ids, errors=errors) for ids in batch]

    def decode_bytes_batch(self, batch, *, num_threads=8) -> list[bytes]:
        return [self.decode_bytes(ids) for ids in batch]

    # ---- tiktoken's files and objects, in and out (``tiktoken_io``) -------------------
    def save_tiktoken(self, path) -> None:
        """Write a ``.tiktoken`` file (ranks = our ids) and its JSON sidecar; see ``tiktoken_io``."""
        tiktoken_io.save_tiktoken(self, path)


    def to_tiktoken(self, name=None):
        """A ``tiktoken.Encoding`` with our ranks, pattern and special tokens; see ``tiktoken_io``."""
        return tiktoken_io.to_tiktoken(self, name)


    @classmethod
    def from_spec(cls, spec: dict) -> "Tokenizer":
        """A Tokenizer from imported parts (``ranks``, ``pattern``, ``special_tokens``, ``name``,
        ``normalize``); its merges are recovered only when first asked for."""
        vocab = {rank: token for token, rank in spec["ranks"].items()}  # int -> bytes
        return cls(None, pattern=spec["pattern"], special_tokens=spec["special_tokens"], vocab=vocab,
                   name=spec.get("name"), normalize=spec.get("normalize"))


    @classmethod
    def from_tiktoken(cls, source) -> "Tokenizer":
        """Import a ``tiktoken.Encoding``, a ``.tiktoken`` file, or "cl100k_base" / "o200k_base" (offline,
        sha256-checked); see ``tiktoken_io.tiktoken_spec``."""
        return cls.from_spec(tiktoken_io.tiktoken_spec(source))


    @classmethod
    def load_tiktoken(cls, path, pattern=None, special_tokens=None, expected_sha256=None) -> "Tokenizer":
        """Load a ``.tiktoken`` file; pattern and special tokens from the arguments, else its sidecar
        (see ``tiktoken_io.read_tiktoken``)."""
        spec = tiktoken_io.read_tiktoken(path, pattern, special_tokens, expected_sha256)
        try:
            return cls.from_spec(spec)
        except ValueError as e:  # e.g. a special token's id that a token already has
            raise ValueError(f"{os.fspath(path)} with {tiktoken_io.find_sidecar(path)}: {e}") from None
