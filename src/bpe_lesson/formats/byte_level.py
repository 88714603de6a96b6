"""Split patterns rewritten for Hugging Face's regex engine, and GPT-2's byte-level alphabet.

``to_oniguruma`` / ``from_oniguruma`` rewrite a split pattern between the ``regex``
module's syntax and the Oniguruma engine's that Hugging Face's ``tokenizers`` runs.
``bytes_to_unicode`` (GPT-2's map from each byte to a printable character, which
``tokenizer.json``, ``vocab.bpe`` and ``encoder.json`` write tokens in, ``show_bytes``)
is defined with the GPT-2 tables that the Tokenizer reads (``tokenizer/byte_tables.py``)
and imported here for the formats that write it.

What this module does not do: read or write any file (``huggingface`` and
``gpt2_files`` do), or import ``tokenizers``.
"""

from __future__ import annotations

import regex

from ..tokenizer.byte_tables import _BYTE_TO_CHAR, _CHAR_TO_BYTE, bytes_to_unicode, show_bytes  # noqa: F401

__all__ = ["HF_BYTELEVEL_PATTERN", "to_oniguruma", "from_oniguruma"]

# The split Hugging Face's ByteLevel pre-tokenizer runs when use_regex is true
# (GPT-2's pattern, with non-possessive quantifiers).
HF_BYTELEVEL_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


# ---- the split pattern, for Oniguruma and back --------------------------------------

_BRACE_QUANTIFIER = regex.compile(r"\{\d*(?:,\d*)?\}")


def _atom_end(p: str, i: int) -> int:
    """Where the regex atom that starts at ``p[i]`` ends (one past its last character).

    >>> p = r"\\p{N}[a\\]b](x)y"
    >>> _atom_end(p, 0), _atom_end(p, 5), _atom_end(p, 11), _atom_end(p, 14)
    (5, 11, 14, 15)
    """
    c = p[i]
    if c == "\\":
        if p[i + 1 : i + 2] in ("p", "P", "N", "x") and p[i + 2 : i + 3] == "{":
            return p.index("}", i) + 1
        return i + 2
    if c == "[":
        j = i + 1
        if p[j : j + 1] == "^":
            j += 1
        if p[j : j + 1] == "]":  # a "]" first in a class is a literal
            j += 1
        while p[j] != "]":
            j += 2 if p[j] == "\\" else 1
        return j + 1
    if c == "(":
        depth, j = 0, i
        while True:
            if p[j] == "\\":
                j += 2
                continue
            if p[j] == "[":
                j = _atom_end(p, j)
                continue
            depth += {"(": 1, ")": -1}.get(p[j], 0)
            j += 1
            if depth == 0:
                return j
    return i + 1


def _rewrite(p: str, fix) -> str:
    """Rebuild pattern ``p`` atom by atom; ``fix(atom, quantifier, rest)`` may replace
    an atom followed by a brace quantifier; groups are rewritten inside first."""
    out, i = [], 0
    while i < len(p):
        if p[i] in "*+?|^$":
            out.append(p[i])  # a quantifier or an operator, not an atom
            i += 1
            continue
        end = _atom_end(p, i)
        atom = p[i:end]
        if atom.startswith("("):
            atom = "(" + _rewrite(atom[1:-1], fix) + ")"
        q = _BRACE_QUANTIFIER.match(p, end)
        if q is None:
            out.append(atom)
            i = end
            continue
        replaced = fix(atom, q.group(), p[q.end() : q.end() + 1])
        if replaced is None:
            out.append(atom + q.group())
            i = q.end()
        else:
            out.append(replaced)
            i = q.end() + 1  # the fix consumed the character after the quantifier
    return "".join(out)


def to_oniguruma(pattern: str) -> str:
    """Our split pattern, written so that Hugging Face's regex engine splits the same way.

    Subtle: in Python's ``regex`` (and tiktoken's engine) ``\\p{N}{1,3}+`` is a
    *possessive* 1-3 digits; Oniguruma, which ``tokenizers`` uses, reads it as
    ``(\\p{N}{1,3})+``, any number of digits, so "12345" would be one chunk, not
    "123" and "45". An atomic group says "possessive" in both engines.

    >>> to_oniguruma(r"\\p{N}{1,3}+| ?\\p{L}++")
    '(?>\\\\p{N}{1,3})| ?\\\\p{L}++'
    """
    return _rewrite(pattern, lambda atom, q, nxt: f"(?>{atom}{q})" if nxt == "+" else None)


def from_oniguruma(pattern: str) -> str:
    """A pattern from a ``tokenizer.json``, written for Python's ``regex``: the inverse of ``to_oniguruma``.

    Oniguruma's ``X{m,n}+`` (a repeated repetition) becomes ``(?:X{m,n})+``; an
    atomic group around one brace-quantified atom becomes the possessive form.

    >>> from_oniguruma(r"(?>\\p{N}{1,3})|\\d{2}+")
    '\\\\p{N}{1,3}+|(?:\\\\d{2})+'
    """
    repeated = _rewrite(pattern, lambda atom, q, nxt: f"(?:{atom}{q})+" if nxt == "+" else None)
    atomic = regex.compile(r"\(\?>(.*)\)", regex.DOTALL)

    def unwrap(p):  # "(?>X{m,n})" -> "X{m,n}+" when X is one atom
        out, i = [], 0
        while i < len(p):
            if p.startswith("(?>", i):
                end = _atom_end(p, i)
                inner = atomic.fullmatch(p[i:end]).group(1)
                if inner and _atom_end(inner, 0) < len(inner):
                    q = _BRACE_QUANTIFIER.fullmatch(inner, _atom_end(inner, 0))
                    if q is not None and not _BRACE_QUANTIFIER.match(p, end) and p[end : end + 1] not in ("*", "+", "?"):
                        out.append(inner + "+")
                        i = end
                        continue
            if p[i] == "\\":
                out.append(p[i : i + 2])
                i += 2
                continue
            out.append(p[i])
            i += 1
        return "".join(out)

    return unwrap(repeated)
