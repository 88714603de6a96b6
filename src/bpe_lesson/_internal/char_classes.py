"""The character-class table the compiled scanners read, built from tiktoken's classes.

The hand-written scanners (``_compiled/_scanners.pxi``, compiled once) cut
text where GPT-2's, GPT-4's and o200k's regexes would, without running a regex:
they look each code point up in one table of class bits. This module builds that
table, and the one for the ``(?i)`` contraction letters, from the classes of
tiktoken's own regex engine (``unicode_classes``: stored code-point ranges), the
same ranges the pure-Python backend's exact patterns are written with, so both
backends split as tiktoken does on every code point. This is the one place the
scanners' classes are defined; ``_scanners.pxi`` declares the same bits (it checks
that they match) and holds the scanners.

subtle: not from the ``regex`` module's ``\\p{L}``: its Unicode tables are newer
than tiktoken's (17,144 more letters), and ``unicodedata``'s differ again.

Built once per process (NumPy over about 4,000 ranges: a few milliseconds) and
shared by the encoder and the trainer's chunk counter.

What this module does not do: scan text (the scanners do), or serve the
pure-Python backend (it splits with ``patterns.compile_pattern``).
"""

from __future__ import annotations

import functools
import threading

import numpy as np

from .unicode_classes import case_insensitive, ranges

# one bit per class, in the table: code point -> bits
F_L = 1    # \p{L}
F_N = 2    # \p{N}
F_S = 4    # \s
F_U = 8    # [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]   (o200k: "upper-case-like")
F_W = 16   # [\p{Ll}\p{Lm}\p{Lo}\p{M}]         (o200k: "lower-case-like")
F_P = 32   # [^\s\p{L}\p{N}]                   (punctuation, symbols, marks, ...)

CLASSES = {F_L: r"\p{L}", F_N: r"\p{N}", F_S: r"\s", F_U: r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]",
           F_W: r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]", F_P: r"[^\s\p{L}\p{N}]"}  # bit -> the regex class it stands for
# bit -> the unicode_classes names whose union it is (F_P: every code point in none of L, N, s)
PARTS = {F_L: ("L",), F_N: ("N",), F_S: ("s",), F_U: ("Lu", "Lt", "Lm", "Lo", "M"), F_W: ("Ll", "Lm", "Lo", "M")}
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
    table = np.zeros(N_CODE_POINTS, dtype=np.uint8)  # code point -> F_* bits
    for bit, names in PARTS.items():
        for name in names:
            for lo, hi in ranges(name):
                table[lo : hi + 1] |= bit
    # [^\s\p{L}\p{N}]: everything else, unassigned code points and surrogates included
    table[(table & (F_L | F_N | F_S)) == 0] |= F_P
    classes = table.tobytes()
    ci_ascii = bytearray(128)
    ci_ascii[ord("'")] = ord("'")  # the apostrophe folds to itself alone
    ci_extra = []
    for letter in CONTRACTION_LETTERS[1:]:
        for c in case_insensitive(letter):
            if c < 128:
                ci_ascii[c] = ord(letter)
            else:
                ci_extra.append((c, ord(letter)))
    if len(ci_extra) > MAX_CI_EXTRA:
        raise RuntimeError(f"tiktoken's case folding gives {len(ci_extra)} non-ASCII contraction letters; "
                           f"the scanners keep room for {MAX_CI_EXTRA} (raise MAX_CI_EXTRA in _internal/char_classes.py "
                           "and the arrays in _scanners.pxi)")
    return classes, bytes(ci_ascii), ci_extra
