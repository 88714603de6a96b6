"""The vocabularies of the rendered book's live tokenizer, written as JavaScript files.

The book's pages carry a small tokenizer in JavaScript (``_static/live_tokenizer.js``,
added by ``_ext/live_tokenizer.py``). It knows no vocabulary of its own: each one is
a script written here at build time, which calls ``bpeLesson._register(name, {...})``
when the page inserts it with ``<script src>`` (a page opened from ``file://`` may not
``fetch()`` a file, but it may load a script). The script holds:

* ``tokens``: every token's bytes, in id order, as one base64 string, and ``lengths``:
  each token's length in bytes, one byte each, also base64 (0 where an id is unused);
* ``specials``: special token -> id;
* ``pattern``: the split pattern rewritten for JavaScript's ``RegExp`` with the ``v``
  flag (``js_pattern``), with tiktoken's Unicode classes written out as ranges;
  ``ascii_pattern``, the same with the classes' ASCII members only, and ``cut``, where
  text may be cut so that each side splits alone into the chunks of the whole
  (``patterns.safe_cut``): the page splits a stretch of ASCII between two cuts with
  the small pattern, and anything else with the full one.

``js_pattern`` rewrites only what the three named patterns use: ``\\p{..}`` and ``\\s``
become tiktoken's ranges (``unicode_classes``), so the browser's own, newer Unicode
tables never decide a chunk; ``(?i:...)`` becomes explicit case classes (Node 20 and
older browsers lack the modifier, and ``'ſ`` must match as it does in tiktoken); and
possessive quantifiers (``++``, ``?+``, ``*+``, ``{1,3}+``), which JavaScript lacks,
lose their ``+``. subtle: that is only safe because in these patterns nothing after a
possessive piece could match what backtracking would give back (``\\p{L}++`` ends its
alternative, ``[^\\s..]++`` is followed by ``[\\r\\n]``, which it never matches, and
``\\s++$`` matches only a run that reaches the end, possessive or not);
``tests/browser/test_live_tokenizer.py`` checks the page's ids against tiktoken's.

What this module does not do: load or train a vocabulary (``_ext/live_tokenizer.py``
does, from ``bpe_lesson.formats.pretrained`` and ``bpe_lesson.train``), or any other pattern
(``js_pattern`` refuses one it does not know).
"""

from __future__ import annotations

import base64
import json

from .._internal import unicode_classes
from ..patterns import PATTERNS, safe_cut

__all__ = ["js_pattern", "vocab_script"]

# a \p{..} name or \s -> the name unicode_classes stores its ranges under
_CLASSES = {f"\\p{{{n}}}": n for n in unicode_classes.CLASS_NAMES if n != "s"} | {"\\s": "s"}


def _ranges_class(name: str, ascii: bool = False) -> str:
    r"""One class's ranges in JavaScript's ``v``-flag syntax (``ascii``: only its ASCII part;
    ``[]``, which matches nothing, if it has none).

    >>> _ranges_class("Lt")[:29]
    '[\\u{1c5}\\u{1c8}\\u{1cb}\\u{1f2}'
    """
    items = []
    for lo, hi in unicode_classes.ranges(name):
        if ascii and lo > 0x7F:
            break
        hi = min(hi, 0x7F) if ascii else hi
        items.append(f"\\u{{{lo:x}}}" if lo == hi else f"\\u{{{lo:x}}}-\\u{{{hi:x}}}")
    return "[" + "".join(items) + "]"


def _fold(letter: str, ascii: bool = False) -> str:
    """A letter as the class ``(?i:letter)`` matches in tiktoken: ``s -> [\\u{53}\\u{73}\\u{17f}]``."""
    return "[" + "".join(f"\\u{{{c:x}}}" for c in unicode_classes.case_insensitive(letter)
                         if c < 0x80 or not ascii) + "]"


def js_pattern(pattern: str, ascii: bool = False) -> str:
    r"""A named split pattern (GPT-2's, GPT-4's or GPT-4o's) as the source of a JavaScript
    ``RegExp`` for the flags ``"gv"``. With ``ascii``, each class keeps only its ASCII
    members: the same chunks on ASCII text, twice as fast as the hundreds of ranges.

    >>> js_pattern(PATTERNS["gpt4"], ascii=True).rsplit("|", 1)[1]  # \\s: tab to CR, space
    '[\\u{9}-\\u{d}\\u{20}]'

    >>> js_pattern(PATTERNS["gpt2"])[:24]
    "'(?:[sdmt]|ll|ve|re)| ?["
    >>> js_pattern(r"[a-z]+")
    Traceback (most recent call last):
    ValueError: no JavaScript version of the split pattern '[a-z]+'; the live tokenizer knows gpt2, gpt4, o200k
    """
    if pattern not in PATTERNS.values():
        raise ValueError(f"no JavaScript version of the split pattern {pattern[:60]!r}; "
                         f"the live tokenizer knows {', '.join(PATTERNS)}")
    out, i, depth = [], 0, 0  # depth: inside [...]
    fold, parens = [], 0  # the paren depths of the open (?i: groups; open parens
    quantified = False  # the last piece written was a quantifier
    while i < len(pattern):
        c, was, quantified = pattern[i], quantified, False
        piece = next((k for k in _CLASSES if pattern.startswith(k, i)), None)
        group = next((g for g in ("(?i:", "(?:", "(?!", "(") if pattern.startswith(g, i)), None)
        if piece:  # a class: nested inside [...] (the v flag allows it), bare outside
            out.append(_ranges_class(_CLASSES[piece], ascii))
            i += len(piece)
        elif pattern.startswith("\\S", i):
            out.append("[^" + _ranges_class("s", ascii) + "]")
            i += 2
        elif c == "\\":  # \r, \n, ...: an escape JavaScript reads alike
            out.append(pattern[i:i + 2])
            i += 2
        elif depth == 0 and group:
            parens += 1
            if group == "(?i:":
                fold.append(parens)
            out.append("(?:" if group == "(?i:" else group)
            i += len(group)
        elif depth == 0 and c == ")":
            if fold and fold[-1] == parens:
                fold.pop()
            parens -= 1
            out.append(c)
            i += 1
        elif c == "[" or c == "]":
            depth += 1 if c == "[" else -1
            out.append(c)
            i += 1
        elif depth == 0 and c == "{":  # {1,3}
            close = pattern.index("}", i) + 1
            out.append(pattern[i:close])
            i, quantified = close, True
        elif depth == 0 and c in "+*?":
            if not (c == "+" and was):  # a "+" after a quantifier makes it possessive: drop it
                out.append(c)
                quantified = True
            i += 1
        elif fold and c.isascii() and c.isalpha():
            out.append(_fold(c, ascii))  # subtle: inside [...] too, as a nested class of its cases
            i += 1
        elif c == "/" and depth:
            out.append("\\/")  # the v flag wants a "/" in a class escaped
            i += 1
        elif c.isalnum() or c in "'| $" or (c == "^" and depth):
            out.append(c)
            i += 1
        else:
            raise ValueError(f"js_pattern: no rule for {c!r} at {i} of {pattern[:60]!r}")
    return "".join(out)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def vocab_script(tokenizer, name: str, label: str) -> str:
    """The JavaScript file for one vocabulary: a call ``bpeLesson._register(name, {...})``.

    ``tokenizer`` is a ``bpe_lesson.Tokenizer`` whose ids are its ranks (a trained one,
    or one from ``from_pretrained``) and whose pattern is a named one.

    >>> from bpe_lesson.tokenizer import Tokenizer
    >>> js = vocab_script(Tokenizer([((104, 105), 256)], pattern="gpt2"), "toy", "a toy")
    >>> js.startswith('bpeLesson._register("toy", {"label": "a toy", "size": 257,')
    True
    """
    vocab = tokenizer.vocab  # id -> bytes
    top = max(vocab) + 1
    lengths = bytearray(top)
    for i, token in vocab.items():
        if not 0 < len(token) < 256:
            raise ValueError(f"{name}: token {i} is {len(token)} bytes long; the live tokenizer's "
                             f"files store lengths of 1 to 255 bytes")
        lengths[i] = len(token)
    data = b"".join(vocab.get(i, b"") for i in range(top))
    body = {"label": label, "size": tokenizer.vocab_size, "pattern": js_pattern(tokenizer.pattern),
            "ascii_pattern": js_pattern(tokenizer.pattern, ascii=True), "cut": safe_cut(tokenizer.pattern).pattern,
            "specials": dict(tokenizer.special_tokens), "lengths": _b64(bytes(lengths)), "tokens": _b64(data)}
    return f"bpeLesson._register({json.dumps(name)}, {json.dumps(body, ensure_ascii=True)});\n"
