"""Generated inputs for the graders: seeded, small, and aimed at the edges where wrong answers differ.

Every generator takes a ``random.Random`` (``rng_for(label)`` seeds one from the
exercise label, so a failure reproduces run after run) and returns one value. The
values are small on purpose (a shrunk failure should fit on a line) but reach the
places a plausible wrong solution misses: runs (``aaaa``), alternations
(``abab``), ties, a pair that occurs exactly 1, 2 or 3 times, multi-byte UTF-8
(2, 3 and 4 bytes), blank and whitespace-only lines, and now and then an input
longer than any fixed look-back a reader might guess.

What this module does not do: know any exercise (the chapter modules combine these).
"""

from __future__ import annotations

import random
import zlib

# letters that make ties and runs likely, plus one code point of each UTF-8 length
ALPHABET = "aab c\n"
WIDE = ["é", "ß", "中", "語", "😀", "𝄞"]          # 2, 2, 3, 3, 4, 4 bytes
WORDS = ["a", "ab", "aa", "the", " the", "low", "lower", "newest", "widest", "x1", "42", "中文", "é"]
PIECES = ["aaaa", "abab", "aaab", "  ", "\n\n", " \n", "\t", "123", "1234", "!!", "...", "'s", "don't"]


def rng_for(label: str, salt: int = 0) -> random.Random:
    """A generator seeded from the exercise label: the same cases on every run.

    >>> rng_for("ex-demo").random() == rng_for("ex-demo").random()
    True
    """
    return random.Random(zlib.crc32(label.encode()) * 1009 + salt)


def text(rng: random.Random, max_len: int = 40, long: float = 0.03) -> str:
    """A short string built from runs, words, pieces and multi-byte characters.

    Now and then (``long``) one is a few hundred characters long.
    """
    target = rng.randint(0, max_len) if rng.random() > long else rng.randint(200, 600)
    parts = []
    size = 0
    while size < target:
        r = rng.random()
        if r < 0.25:
            p = rng.choice("ab") * rng.randint(1, 6)          # runs: a, aa, aaa, ...
        elif r < 0.4:
            p = rng.choice(PIECES)
        elif r < 0.6:
            p = rng.choice(WORDS) + rng.choice([" ", "", "\n", ","])
        elif r < 0.75:
            p = rng.choice(WIDE) * rng.randint(1, 3)
        else:
            p = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 5)))
        parts.append(p)
        size += len(p)
    return "".join(parts)[:target] if target else ""


def lines(rng: random.Random, max_lines: int = 8) -> str:
    """Text of several lines, some blank, some only spaces or tabs, with or without a last newline."""
    out = []
    for _ in range(rng.randint(0, max_lines)):
        r = rng.random()
        if r < 0.2:
            out.append("")
        elif r < 0.35:
            out.append(rng.choice([" ", "  ", "\t", " \t "]))
        else:
            out.append(text(rng, 30, long=0))
    s = "\n".join(out)
    return s + "\n" if out and rng.random() < 0.5 else s


def ids(rng: random.Random, max_len: int = 24, alphabet: int = 4, base: int = 97) -> list[int]:
    """A list of ids drawn from a small alphabet (so pairs repeat, overlap and tie)."""
    n = rng.randint(0, max_len)
    out = []
    while len(out) < n:
        k = base + rng.randrange(alphabet)
        out += [k] * (rng.randint(1, 4) if rng.random() < 0.3 else 1)
    return out[:n]


def utf8(rng: random.Random, max_chars: int = 12) -> bytes:
    """UTF-8 bytes mixing 1-, 2-, 3- and 4-byte characters."""
    pool = list("ab ") + WIDE
    return "".join(rng.choice(pool) for _ in range(rng.randint(0, max_chars))).encode("utf-8")


def split_points(rng: random.Random, data: bytes, max_parts: int = 5) -> list[bytes]:
    """``data`` cut into pieces at random places (often inside a character)."""
    if not data:
        return [b""] if rng.random() < 0.5 else []
    cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randint(0, max_parts - 1))))
    bounds = [0] + cuts + [len(data)]
    return [data[a:b] for a, b in zip(bounds, bounds[1:])]


def counts(rng: random.Random, n_max: int = 6) -> list[int]:
    """Small counts that sit at and around thresholds 1, 2 and 3."""
    return [rng.choice([0, 1, 1, 2, 2, 3, 4]) for _ in range(rng.randint(0, n_max))]


def near(rng: random.Random, edge: int, spread: int = 2) -> int:
    """An int at ``edge`` or at most ``spread`` away from it (say 65,536 for uint16)."""
    return edge + rng.randint(-spread, spread)
