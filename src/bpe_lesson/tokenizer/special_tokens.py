"""A tokenizer's special tokens: checked once when it is made, and refused in text
that does not allow them.

``check_special_tokens`` checks a ``{text: id}`` dict (ids 0..``ranks.MAX_ID``);
``refuse_specials_in`` raises ``DisallowedSpecial`` at the first disallowed one in a
list of texts, with the compiled search when the tokenizer has one.

What this module does not do: decide which special tokens a call allows
(``Tokenizer._special_sets``), or cut text at allowed ones (``patterns.split_specials``).
"""

from __future__ import annotations

from .._internal.arguments import find_special_by_str
from ..patterns import special_longest_first, special_prefix, special_regex
from ..ranks import MAX_ID

__all__ = ["check_special_tokens", "DisallowedSpecial", "disallowed_error", "refuse_specials_in"]


def check_special_tokens(specials, where: str = "special_tokens") -> dict:
    """A ``{text: id}`` dict of special tokens, checked: non-empty strings, ids 0..MAX_ID.

    ``where`` names the file and key for the message.

    >>> check_special_tokens({"<|eos|>": 300})
    {'<|eos|>': 300}
    >>> check_special_tokens({"<s>": -5})
    Traceback (most recent call last):
    ValueError: special_tokens: '<s>' has id -5; an id is an integer from 0 to 4294967294
    """
    if specials is None:
        return {}
    if not isinstance(specials, dict):
        raise ValueError(f"{where} must map each special token (a string) to its id (an integer), "
                         f"got {type(specials).__name__} {str(specials)[:60]}")
    for text, i in specials.items():
        if not isinstance(text, str) or not text:
            raise ValueError(f"{where}: {text!r} is not a special token; each is a non-empty string")
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i <= MAX_ID:
            raise ValueError(f"{where}: {text!r} has id {i!r}; an id is an integer from 0 to {MAX_ID}")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as e:
            raise ValueError(f"{where}: {text!r} holds a lone surrogate ({text[e.start]!r} at {e.start}), "
                             f"which UTF-8 cannot hold; a special token must be valid text") from None
    return {str.__str__(text): i for text, i in specials.items()}



class DisallowedSpecial(ValueError):
    """A disallowed special token ``token`` found at ``at`` (a character of the text, or
    of a stream, or a byte of a binary stream: ``where`` says which)."""

    def __init__(self, at: int, token: str, where: str = "the text contains"):
        self.at, self.token = at, token
        unit = "byte" if "binary" in where else "character"
        super().__init__(
            f"{where} the special token {token!r} at {unit} {at}, which is disallowed; "
            f"pass allowed_special={{{token!r}}} to encode it as its id, or "
            f"disallowed_special=() to encode it as plain text")


def disallowed_error(at: int, token: str) -> ValueError:
    """The error for a disallowed special token ``token`` found at character ``at``."""
    return DisallowedSpecial(at, token)


def refuse_specials_in(tok, texts: list, disallowed) -> None:
    """Raise ``ValueError`` at the first disallowed special token of the first text
    that has one. With the compiled encoder, all the searches are one call, which
    lets go of the GIL once (encode_batch's threads search at once); otherwise
    ``find_special_by_str`` searches each str (a lone surrogate, or a common
    beginning of one character), or the regex does (no common beginning)."""
    if not disallowed or not texts:
        return
    tokens = frozenset(disallowed)
    prefix = special_prefix(tokens)   # what they all begin with, e.g. "<|"
    longest_first = special_longest_first(tokens)
    fast = tok._fast_encoder() if len(prefix) >= 2 else None
    if fast:
        try:  # find_special_by_str's search, in C over the texts' UTF-8
            found = tok._native.find_special_batch(texts, longest_first, prefix)
        except UnicodeEncodeError:  # a lone surrogate in one of them: search the strs
            pass
        else:
            if found is not None:
                raise disallowed_error(*found[1:])
            return
    for text in texts:
        if prefix:
            found = find_special_by_str(text, longest_first, prefix)
        else:
            # concurrent=True: the search lets go of the GIL, so encode_batch's threads search at once
            m = special_regex(disallowed).search(text, concurrent=True)
            found = None if m is None else (m.start(), m.group())
        if found is not None:
            raise disallowed_error(*found)
