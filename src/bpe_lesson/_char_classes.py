"""The character-class table the compiled scanners read, computed from the ``regex`` module.

The hand-written scanners (``_scanners.pxi``, compiled into both extensions) cut
text where GPT-2's, GPT-4's and o200k's regexes would, without running a regex:
they look each code point up in one table of class bits. This module builds that
table, and the one for the ``(?i)`` contraction letters, by running ``regex``
itself over a string of every code point, so the scanners and the regex agree on
every code point by construction. This is the one place the classes are defined;
``_scanners.pxi`` declares the same bits (it checks that they match) and holds the
scanners.

Asking ``regex`` rather than ``unicodedata`` matters: the two follow different
Unicode versions, and ``regex``'s ``\\s`` is not ``str.isspace`` (U+001C-U+001F).

Built once per process (about 0.3 s on a quiet machine) and shared by the encoder
and the trainer's chunk counter.

What this module does not do: scan text (the scanners do), or serve the
pure-Python backend (it splits with ``regex`` directly, ``patterns.split_chunks``).
"""

from __future__ import annotations

import array
import functools
import threading

import regex

# one bit per class, in the table: code point -> bits
F_L = 1    # \p{L}
F_N = 2    # \p{N}
F_S = 4    # \s
F_U = 8    # [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]   (o200k: "upper-case-like")
F_W = 16   # [\p{Ll}\p{Lm}\p{Lo}\p{M}]         (o200k: "lower-case-like")
F_P = 32   # [^\s\p{L}\p{N}]                   (punctuation, symbols, marks, ...)

CLASSES = {F_L: r"\p{L}", F_N: r"\p{N}", F_S: r"\s", F_U: r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]",
           F_W: r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]", F_P: r"[^\s\p{L}\p{N}]"}  # bit -> regex class
CONTRACTION_LETTERS = "'sdmtlvre"  # what (?i:'s|'t|'re|'ve|'m|'ll|'d) and GPT-4's [sdmt]|ll|ve|re use
MAX_CI_EXTRA = 16  # room the scanners keep for non-ASCII code points equal to a letter under (?i)
N_CODE_POINTS = 0x110000

_lock = threading.Lock()


def class_tables() -> tuple[bytes, bytes, list[tuple[int, int]]]:
    """(classes, ci_ascii, ci_extra), built once:

    ``classes[c]``: the F_* bits of code point c (0x110000 bytes).
    ``ci_ascii[c]``: for an ASCII code point, the contraction letter it equals under
    (?i), or 0. ``ci_extra``: the non-ASCII code points that equal one, as
    (code point, letter) pairs.

    >>> classes, ci_ascii, ci_extra = class_tables()
    >>> classes[ord("a")] == F_L | F_W, classes[ord(" ")] == F_S, classes[ord("7")] == F_N
    (True, True, True)
    >>> chr(ci_ascii[ord("S")]), [(hex(c), chr(letter)) for c, letter in ci_extra]
    ('s', [('0x17f', 's')])
    """
    # subtle: two threads may ask at once (chunks.count_chunk_bytes starts one counter
    # per core); the lock makes the second wait for the first's table
    with _lock:
        return _build()


@functools.cache
def _build():
    # every code point in one string, built from a UTF-32 buffer: "".join(map(chr, ...))
    # gives the same string but holds 1.1 million str objects (~100 MB) on the way
    every = array.array("I", range(N_CODE_POINTS)).tobytes().decode("utf-32-le", "surrogatepass")
    bits = 0  # the table as one big int (OR-ing six 1.1 MB layers is then one step each)
    for bit, cls in CLASSES.items():
        layer = bytearray(N_CODE_POINTS)  # bit where the code point is in the class, else 0
        for m in regex.finditer(cls + "+", every):
            a, b = m.span()
            layer[a:b] = bytes([bit]) * (b - a)
        bits |= int.from_bytes(layer, "little")
    classes = bits.to_bytes(N_CODE_POINTS, "little")
    ci_ascii = bytearray(128)
    ci_extra = []
    for letter in CONTRACTION_LETTERS:
        for m in regex.finditer(f"(?i:{regex.escape(letter)})", every):
            c = m.start()
            if c < 128:
                ci_ascii[c] = ord(letter)
            else:
                ci_extra.append((c, ord(letter)))
    if len(ci_extra) > MAX_CI_EXTRA:
        raise RuntimeError(f"regex's case folding gives {len(ci_extra)} non-ASCII contraction letters; "
                           f"the scanners keep room for {MAX_CI_EXTRA} (raise MAX_CI_EXTRA in _char_classes.py "
                           "and the arrays in _scanners.pxi)")
    return classes, bytes(ci_ascii), ci_extra
