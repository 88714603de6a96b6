"""Hugging Face ``tokenizers``' everyday names on our Tokenizer: tokens as strings, and offsets.

A user who knows ``tokenizers.Tokenizer`` finds ``token_to_id``, ``id_to_token``,
``get_vocab`` and ``get_vocab_size``, with the strings Hugging Face uses for a
byte-level BPE: each ordinary token's bytes written with GPT-2's byte-to-unicode map
(``" the"`` is ``"Ġthe"``, ``"é"`` is ``"Ã©"``; ``byte_tables.show_bytes``), a special
token as its own text. ``encode_with_offsets`` gives the ids and each token's span
of characters in the text, ``(start, end)``, as ``Encoding.offsets`` does on our
Hugging Face export: a token that holds only some bytes of a character spans that
whole character, so two tokens that split "😀" both get its span.

What this module does not do: encode (``Tokenizer.encode`` does; the offsets are
counted from the ids' bytes), trim spaces off offsets (Hugging Face's
``trim_offsets``, which our export does not ask for), or map offsets through a
normalization that changes the text (refused, with the reason).
"""

from __future__ import annotations

import numpy as np

from ..patterns import normalize_text
from .byte_tables import _CHAR_TO_BYTE, show_bytes

__all__ = ["HuggingFaceNames"]


class HuggingFaceNames:
    """Mixed into ``Tokenizer``: needs ``vocab``, ``_ranks``, ``special_tokens``, ``_special_by_id``,
    ``normalize``, ``encode`` and ``decode_tokens_bytes``."""

    def token_to_id(self, token: str) -> int | None:
        """The id of a token written as Hugging Face writes it (a special token: its text), or None.

        >>> from bpe_lesson import Tokenizer
        >>> tok = Tokenizer([((32, 104), 256)], special_tokens={"<|end|>": 257})
        >>> tok.token_to_id("Ġh"), tok.token_to_id("<|end|>"), tok.token_to_id(" h")
        (256, 257, None)
        """
        i = self.special_tokens.get(token)
        if i is not None:
            return i
        try:
            return self._ranks.get(bytes(_CHAR_TO_BYTE[c] for c in token))
        except (KeyError, TypeError):  # a character outside GPT-2's byte alphabet: no such token
            return None

    def id_to_token(self, id: int) -> str | None:  # noqa: A002  (Hugging Face's name)
        """A token as Hugging Face writes it: its bytes in GPT-2's alphabet, a special token's text;
        None for an id the vocabulary does not have.

        >>> from bpe_lesson import Tokenizer
        >>> Tokenizer([((32, 104), 256)]).id_to_token(256), Tokenizer([]).id_to_token(999)
        ('Ġh', None)
        """
        b = self.vocab.get(id)
        if b is not None:
            return show_bytes(b)
        b = self._special_by_id.get(id)
        return None if b is None else b.decode("utf-8")

    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        """``{token string: id}`` for every ordinary token, and every special token unless
        ``with_added_tokens`` is false (Hugging Face's added tokens are our special tokens)."""
        vocab = {show_bytes(b): i for i, b in self.vocab.items()}
        if with_added_tokens:
            vocab.update(self.special_tokens)
        return vocab

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        """How many tokens: ``len(get_vocab(with_added_tokens))`` (not ``n_vocab``, the highest id + 1)."""
        return len(self.vocab) + (len(self.special_tokens) if with_added_tokens else 0)

    def encode_with_offsets(self, text: str, *, allowed_special=(), disallowed_special="all"):
        """``encode``'s ids, and each token's ``(start, end)`` span of characters in ``text``.

        A token that begins or ends inside a character (a 4-byte emoji in two tokens)
        spans the whole character, as Hugging Face's ``Encoding.offsets`` does. The
        special-token options are ``encode``'s (Hugging Face finds every added token:
        ``allowed_special="all"`` does the same).

        >>> from bpe_lesson import Tokenizer
        >>> Tokenizer([((104, 105), 256)], pattern="gpt4").encode_with_offsets("hi é")
        ([256, 32, 195, 169], [(0, 2), (2, 3), (3, 4), (3, 4)])
        """
        ids = self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        if self.normalize is not None and normalize_text(text, self.normalize) != text:
            raise ValueError(f"encode_with_offsets: this tokenizer {self.normalize}-normalizes the text first and "
                             f"this text changes under {self.normalize}, so its tokens have no spans in it; pass "
                             f"unicodedata.normalize({self.normalize!r}, text)")
        pieces = self.decode_tokens_bytes(ids)
        if not pieces:
            return ids, []
        data = np.frombuffer(b"".join(pieces), dtype=np.uint8)  # the text's UTF-8 (lone surrogates: U+FFFD)
        char_of_byte = np.cumsum((data & 0xC0) != 0x80) - 1  # which character each byte belongs to
        ends = np.cumsum([len(p) for p in pieces])  # one past each token's last byte
        starts = char_of_byte[ends - np.array([len(p) for p in pieces])].tolist()
        return ids, list(zip(starts, (char_of_byte[ends - 1] + 1).tolist()))
