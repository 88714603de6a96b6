"""Our tokenizer file: one human-readable JSON file, a merge per line.

``{"format": "bpe-lesson tokenizer", "version": 1, "pattern": ..., "special_tokens":
{text: id}, "merges": [[left, right, new], ...]}`` (and ``"normalize"`` when set).
``dumps`` writes it for ``Tokenizer.save``; ``parse`` checks what ``Tokenizer.load``
read, field by field, and gives the Tokenizer's arguments; an error names the file,
the field and what was expected.

What this module does not do: read or write the file itself (``Tokenizer.save`` and
``load`` do, through ``_internal.files``), or hold vocabularies that are not the 256
bytes plus one token per merge (``.tiktoken`` files do: ``tiktoken_io``).
``JsonFile.from_dict`` builds the Tokenizer through the class it is mixed into.
"""

from __future__ import annotations

import json
import os

from .._internal.files import atomic_write, read_json
from ..patterns import FORMS as NORMALIZATION_FORMS
from ..patterns import check_pattern
from ..ranks import vocab_from_merges
from .special_tokens import check_special_tokens

__all__ = ["FORMAT", "VERSION", "to_dict", "dumps", "parse", "JsonFile"]

FORMAT = "bpe-lesson tokenizer"
VERSION = 1


def to_dict(tok) -> dict:
    """The file's fields for ``tok``, as a dict.

    >>> from bpe_lesson import Tokenizer
    >>> to_dict(Tokenizer([((97, 97), 256)], pattern=None))["merges"]
    [[97, 97, 256]]
    """
    return {
        "format": FORMAT,
        "version": VERSION,
        "pattern": tok.pattern,
        "special_tokens": tok.special_tokens,
        "merges": [[a, b, n] for (a, b), n in tok.merges],
    } | ({"normalize": tok.normalize} if tok.normalize else {})  # the key is there only when set



def dumps(tok) -> str:
    """The file's text for ``tok``, a merge per line; ``ValueError`` for a vocabulary the
    format cannot hold (ids 0-255 not the bytes in order, or a token no merge builds).

    >>> from bpe_lesson import Tokenizer
    >>> print(dumps(Tokenizer([((97, 97), 256)], pattern=None)))
    {
     "format": "bpe-lesson tokenizer",
     "version": 1,
     "pattern": null,
     "special_tokens": {},
     "merges": [
      [97, 97, 256]
     ]
    }
    <BLANKLINE>
    """
    for i in range(256):  # checked first: it fails fast, before recovering any merges
        if tok.vocab.get(i) != bytes([i]):
            raise ValueError(f"this JSON format needs ids 0-255 to be the bytes 0-255 in order, but id {i} is "
                             f"{tok.vocab.get(i)!r} in this vocabulary (imported?); save it with "
                             f"save_tiktoken(), which keeps any rank table")
    base = vocab_from_merges(tok.merges)
    if base != tok.vocab:
        bad = min(i for i in set(base) | set(tok.vocab) if base.get(i) != tok.vocab.get(i))
        raise ValueError(f"this vocabulary is not the 256 bytes plus its merges: id {bad} is "
                         f"{tok.vocab.get(bad)!r} here but {base.get(bad)!r} by the merges (e.g. a token no merge "
                         f"of two older tokens builds); save it with save_tiktoken() instead")
    d = to_dict(tok)
    head = json.dumps({k: v for k, v in d.items() if k != "merges"}, ensure_ascii=False, indent=1)
    lines = ",\n".join("  " + json.dumps(m) for m in d["merges"])
    text = head[:-2] + ',\n "merges": [\n' + lines + ("\n ]\n}\n" if lines else "]\n}\n")
    return text


def parse(d, source="<dict>") -> dict:
    """Check the fields of a file read as ``d`` and return the Tokenizer's arguments
    (``merges``, ``pattern``, ``special_tokens``, ``normalize``); ``ValueError`` names
    the field.

    >>> parse({"format": FORMAT, "version": 1, "merges": [[97, 97, 256]]})["merges"]
    [((97, 97), 256)]
    >>> parse({"format": FORMAT, "version": 1, "merges": [[97, 97, 300]]}, "tok.json")
    Traceback (most recent call last):
    ValueError: tok.json is not a valid bpe-lesson tokenizer file: merge 0 makes id 300, expected 256 (ids follow merge order)
    """
    def bad(why):
        return ValueError(f"{source} is not a valid bpe-lesson tokenizer file: {why}")

    if isinstance(d, dict) and isinstance(d.get("model"), dict) and "format" not in d:
        raise ValueError(f"{source} is a Hugging Face tokenizer.json, not a bpe-lesson file; read it with "
                         f"bpe_lesson.formats.huggingface.from_huggingface({source!r})")
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise bad(f"the 'format' field must be {FORMAT!r}")
    if type(d.get("version")) is not int or d["version"] != VERSION:  # subtle: True == 1 in Python
        raise bad(f"version {d.get('version')!r} is not supported (this package reads version {VERSION})")
    merges = d.get("merges")
    if not isinstance(merges, list):
        raise bad("'merges' must be a list")
    out, seen = [], {}  # seen: (int, int) -> the merge that made it
    for k, m in enumerate(merges):
        if not (isinstance(m, list) and len(m) == 3 and all(type(x) is int for x in m)):
            raise bad(f"merge {k} is {m!r}, expected [left_id, right_id, new_id]")
        a, b, n = m
        if n != 256 + k:
            raise bad(f"merge {k} makes id {n}, expected {256 + k} (ids follow merge order)")
        if not (0 <= a < n and 0 <= b < n):
            raise bad(f"merge {k} joins ids {a} and {b}; both must already exist (below {n})")
        if (a, b) in seen:
            raise bad(f"merge {k} repeats merge {seen[(a, b)]} ({a}, {b}); each pair is merged once")
        seen[(a, b)] = k
        out.append(((a, b), n))
    try:
        specials = check_special_tokens(d.get("special_tokens"), "'special_tokens'")
    except ValueError as e:
        raise bad(str(e)) from None
    pattern = d.get("pattern")
    if pattern is not None and not isinstance(pattern, str):
        raise bad("'pattern' must be a regex string or null")
    norm = d.get("normalize")
    if norm is not None and norm not in NORMALIZATION_FORMS:
        raise bad(f"'normalize' is {norm!r}; expected null or one of {NORMALIZATION_FORMS}")
    try:
        check_pattern(pattern)
    except ValueError as e:
        raise bad(f"'pattern': {e}") from None
    return dict(merges=out, pattern=pattern, special_tokens=specials, normalize=norm)


class JsonFile:
    """Mixed into ``Tokenizer``: ``save``, ``load``, ``to_dict`` and ``from_dict``, thin entry
    points into the functions above (``load`` hands ``.tiktoken`` files to ``load_tiktoken``)."""

    def to_dict(self) -> dict:
        """Our JSON file's fields (``tokenizer.json_file``)."""
        return to_dict(self)

    def save(self, path) -> None:
        """Write one human-readable JSON file (a merge per line), atomically.

        The format is a merge list, so it holds vocabularies that are the 256 bytes in
        order plus one token per merge; an imported one that is not (tiktoken's orders
        its bytes its own way) is refused with a pointer to ``save_tiktoken``.
        """
        atomic_write(path, dumps(self).encode("utf-8"))

    @classmethod
    def load(cls, path) -> "Tokenizer":
        """Read what ``save`` or ``save_tiktoken`` wrote (chosen by the name's ending: ``.tiktoken``
        or ``.tiktoken.gz``, else our JSON); a corrupt or truncated file raises ``ValueError``."""
        path = os.fspath(path)
        if path.endswith((".tiktoken", ".tiktoken.gz")):
            return cls.load_tiktoken(path)
        if os.path.isdir(path):
            raise ValueError(f"{path} is a folder; a tokenizer is one file (.json, .tiktoken or .tiktoken.gz)")
        # a FIFO or device refused, never opened; at most MAX_JSON_BYTES read; a key twice refused
        d = read_json(path, "valid bpe-lesson tokenizer file")
        return cls.from_dict(d, source=path)

    @classmethod
    def from_dict(cls, d, source="<dict>") -> "Tokenizer":
        """A Tokenizer from our JSON file's fields, each checked (``formats.parse``)."""
        args = parse(d, source)
        try:
            return cls(**args)
        except ValueError as e:  # a special token's id that the merges already use, or two that share one
            raise ValueError(f"{source} is not a valid bpe-lesson tokenizer file: 'special_tokens': {e}") from None
