"""Argument checks and conversions, a substring search for special tokens, and the one
rule for a setting's older name (``renamed``).

Each takes what a caller may pass (ids as a list, a NumPy array or a tensor; text as a
``str`` subclass; a dtype) and gives the one form the encoder works with, or an error
that names the bad value and what would be right.

What this module does not do: check special tokens or refuse them in text
(``tokenizer/special_tokens.py``), encode or decode (``tokenizer/``). It imports
nothing of the package: ``_internal`` is the bottom layer.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np



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
