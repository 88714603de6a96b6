"""Generated inputs for the graders: seeded, small, and aimed at the edges where wrong answers differ.

Every generator takes a ``random.Random`` (``rng_for(label)`` seeds one from the
exercise label, so a failure reproduces run after run) and returns one value. The
values are small on purpose (a shrunk failure should fit on a line) but reach the
places a plausible wrong solution misses: runs (``aaaa``), alternations
(``abab``), ties, a pair that occurs exactly 1, 2 or 3 times, multi-byte UTF-8
(2, 3 and 4 bytes), blank and whitespace-only lines, and now and then an input
longer than any fixed look-back a reader might guess.

``draw`` makes a check's ``MIN_GENERATED`` generated cases from its generator (``compare``
calls it), ``by_size`` orders them smallest first.

What this module does not do: know any exercise (the chapter modules combine these).
"""

from __future__ import annotations

import random
import zlib

MIN_GENERATED = 200  # generated cases every check compares (``draw`` draws them)

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


# bytes whose base64 has '+' or '/' (0xfb -> '+w==', 0xff -> '/w=='), the ones a text
# line cannot hold raw (newline, carriage return, space), NUL and tab
AWKWARD = [0xFB, 0xFF, 0x3E, 0x3F, 0xF8, 10, 13, 32, 0, 9]


def token(rng: random.Random, max_len: int = 7) -> bytes:
    """1 to ``max_len`` bytes from one pool: the awkward ones, ``abc``, or any byte (so base64
    ends in '==', '=' and no padding alike).

    >>> import base64; [base64.b64encode(bytes([b])) for b in AWKWARD[:2]]  # why they are awkward
    [b'+w==', b'/w==']
    """
    n = rng.randint(1, max_len)
    pool = rng.choice([AWKWARD, list(b"abc"), list(range(256))])
    return bytes(rng.choice(pool) for _ in range(n))


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


# ---- the generated cases of a check ---------------------------------------------------------

class Generated:
    """One generated argument tuple (hand-picked cases are plain tuples)."""
    __slots__ = ("args",)

    def __init__(self, *args):
        self.args = args


def draw(generate, label: str, salt: int = 0, *, order=None) -> list:
    """``MIN_GENERATED`` cases from ``generate``, seeded by the label (and ``salt``): what ``compare``
    compares after the hand-picked cases, for a check that needs the same cases again afterwards.

    >>> cases = draw(lambda rng: (rng.randrange(9),), "ex-demo")
    >>> len(cases) == MIN_GENERATED, cases[0].args == (rng_for("ex-demo").randrange(9),)
    (True, True)
    """
    cases = list(drawing(generate, label, salt))
    return sorted(cases, key=lambda g: order(*g.args)) if order else cases


def drawing(generate, label: str, salt: int = 0):
    """``draw``'s cases one at a time, each made when it is needed: a check that fails early
    does not pay for the generated cases after the failure."""
    rng = rng_for(label, salt)
    made = 0
    while made < MIN_GENERATED:
        args = generate(rng)  # None: this draw is no legal input, draw again
        if args is not None:
            made += 1
            yield Generated(*args)


def by_size(*args) -> int:
    """How big an input is (lengths, nested), to try small cases first: ``order=by_size``.

    >>> by_size([1, 2], "abc"), by_size({"ab": 1}), by_size(5)
    (5, 1, 0)
    """
    if len(args) != 1:
        return sum(by_size(a) for a in args)
    value = args[0]
    if isinstance(value, (str, bytes, list, tuple, dict, set, frozenset)):
        return len(value) + sum(by_size(v) for v in value if not isinstance(v, (str, bytes, int)))
    return 0
