"""The Tokenizer's argument checks and conversions, its search for disallowed special
tokens, and the one rule for a setting's older name (``renamed``).

Each takes what a caller may pass (ids as a list, a NumPy array or a tensor; text as a
``str`` subclass; a dtype) and gives the one form the encoder works with, or an error
that names the bad value and what would be right.

What this module does not do: encode or decode (``tokenizer.py``), or decide which
special tokens are allowed (``Tokenizer._special_sets``).
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from ..patterns import special_longest_first, special_prefix, special_regex
from ..formats.tiktoken_io import MAX_ID


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


def renamed(old: str, old_value, new: str, new_value, *, shown: str = "{}=", where: str = "",
            category=DeprecationWarning, stacklevel: int = 3):
    """The value of a setting that has a new name and an older one, each None when not
    given: ``new_value``, else ``old_value`` with a warning that names the new name; both
    given is a ValueError that names both. One rule for a keyword argument (a
    ``DeprecationWarning``), a YAML key and a command-line flag (``FutureWarning``, which
    is shown to the user of a tool). ``shown`` writes a name as the user typed it
    (``{}=`` a keyword, ``{}:`` a YAML key, ``--{}`` a flag); ``where`` begins the
    messages (a config file's name); ``stacklevel`` 3 points the warning at the caller's
    caller (the line that called ``train(processes=2)``, not ``train``).

    >>> renamed("processes", None, "workers", 2)
    2
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     renamed("processes", 2, "workers", None)
    2
    >>> print(caught[0].category.__name__, caught[0].message)
    DeprecationWarning processes= is deprecated, the older name of workers=; use workers=
    >>> renamed("threads", 2, "workers", 4, shown="{}:", where="tok.yaml: ")
    Traceback (most recent call last):
    ValueError: tok.yaml: workers: and threads: are one setting (threads: is its older name); give only workers:
    """
    old, new = shown.format(old), shown.format(new)
    if old_value is None:
        return new_value
    if new_value is not None:
        raise ValueError(f"{where}{new} and {old} are one setting ({old} is its older name); give only {new}")
    warnings.warn(f"{where}{old} is deprecated, the older name of {new}; use {new}", category, stacklevel=stacklevel)
    return old_value


def as_ids(ids) -> list:
    """Ids as a list of Python ints: a list, a NumPy array, a torch tensor, NumPy ints;
    floats and bools are refused (15.0 is not id 15).

    >>> import numpy as np; as_ids(np.array([1, 2], dtype=np.uint64)), as_ids([np.int32(3)])
    ([1, 2], [3])
    >>> as_ids([15.0])
    Traceback (most recent call last):
    TypeError: ids must be integers; item 0 is 15.0 (float)
    """
    dtype = getattr(ids, "dtype", None)
    if dtype is not None and hasattr(ids, "tolist"):  # a NumPy array or a torch tensor
        kind = getattr(dtype, "kind", None)  # NumPy's; torch dtypes have is_floating_point instead
        floaty = (kind not in ("i", "u")) if kind is not None else (
            dtype.is_floating_point or dtype.is_complex or str(dtype) == "torch.bool")
        if floaty:
            raise TypeError(f"ids must be integers, got an array of {dtype}")
        ids = ids.tolist()  # Python ints, exact (uint64 above 2**63 too)
        if not isinstance(ids, list):
            ids = [ids]
    out = []
    for k, i in enumerate(ids):
        if type(i) is not int:
            try:
                if isinstance(i, bool) or str(getattr(i, "dtype", "")) in ("bool", "torch.bool"):
                    raise TypeError
                i = operator.index(i)  # NumPy ints, 0-d integer tensors
            except TypeError:
                raise TypeError(f"ids must be integers; item {k} is {i!r} ({type(i).__name__})") from None
        out.append(i)
    return out


def find_special_by_str(text: str, longest_first: tuple, prefix: str):
    """The first special token in text: (character offset, token), or None. Every
    token begins with ``prefix``: find each place it occurs (a substring search,
    several GB/s, where the regex would try every character) and try the tokens
    there, longest first, as ``special_regex`` does.

    >>> find_special_by_str("a<|b<|end|>", ("<|endoftext|>", "<|end|>"), "<|")
    (4, '<|end|>')
    """
    at = text.find(prefix)
    while at >= 0:
        token = next((t for t in longest_first if text.startswith(t, at)), None)
        if token is not None:
            return at, token
        at = text.find(prefix, at + 1)
    return None


def replace_surrogates(text: str) -> str:
    """Lone surrogates (which UTF-8 cannot hold) become U+FFFD, as tiktoken does.

    >>> replace_surrogates("a\\ud800b") == "a\\ufffdb"
    True
    """
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def as_text(text, what: str = "encode") -> str:
    """``text`` as a plain ``str``: a ``str`` subclass (``numpy.str_``, say) becomes one, so
    the compiled encoder (which takes exact ``str``) and the readable one see the same;
    anything else is a ``TypeError`` naming its type.

    >>> import numpy as np; type(as_text(np.str_("hi"))).__name__
    'str'
    >>> as_text(None)
    Traceback (most recent call last):
    TypeError: encode takes a str, got NoneType
    """
    if type(text) is str:
        return text
    if isinstance(text, str):
        return str.__str__(text)  # subtle: str(text) would call a subclass's own __str__
    raise TypeError(f"{what} takes a str, got {type(text).__name__}")


def array_dtype(dtype) -> np.dtype:
    """``dtype`` as a NumPy integer dtype, or ``TypeError``."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "ui":
        raise TypeError(f"dtype must be an integer type such as uint32 or uint16, got {dtype.name}")
    return dtype


def as_dtype(ids: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """uint32 ``ids`` as ``dtype``; ``ValueError`` when an id does not fit."""
    if ids.dtype == dtype:
        return ids
    top = np.iinfo(dtype).max
    if len(ids) and int(ids.max()) > top:
        raise ValueError(f"id {int(ids.max()):,} does not fit in {dtype.name} (at most {top:,}); "
                         f"use a wider dtype such as uint32")
    return ids.astype(dtype)


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


def old_keyword(method: str, old: str, old_value, new: str, new_value):
    """A first argument that has tiktoken's keyword name (``new``) and this package's older one
    (``old``): ``renamed``'s rule (the old name works, with a ``DeprecationWarning``), and a
    ``TypeError`` when neither was given, as a missing argument is.

    >>> old_keyword("decode", "ids", None, "tokens", [1])
    [1]
    >>> old_keyword("decode", "ids", None, "tokens", None)
    Traceback (most recent call last):
    TypeError: decode() missing its first argument, tokens= (tiktoken's name; ids= before)
    """
    value = renamed(old, old_value, new, new_value, stacklevel=4)  # points at the caller of the method
    if value is None:
        raise TypeError(f"{method}() missing its first argument, {new}= (tiktoken's name; {old}= before)")
    return value
