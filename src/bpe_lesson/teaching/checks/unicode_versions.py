"""Checks of the exercises in *Unicode versions*.

``first_uncovered`` is compared with ``patterns.uncovered`` and with cases a reader
can count by hand; ``tiktoken_members`` with the classes stored in
``unicode_classes`` (which a test checks against tiktoken itself), on characters
the two engines agree on and on characters they do not.

What this module does not do: encode (the reader's code asks tiktoken).

>>> SAMPLE[:3]
'Aa1'
"""

from __future__ import annotations

from ...patterns import uncovered
from ...unicode_classes import members
from . import check

# letters, digits, marks, spaces, punctuation, and code points the two engines'
# tables disagree on (U+0558, U+05C8, U+0B53, U+1ACF: marks or letters only in newer tables)
SAMPLE = "Aa1 ,é\u0301中\u0558\u05c8\u0b53\u1acf\u00b2\u0663\u2028!\U0001F99C"

CASES = [
    ("Hello, World", r"[a-z]+"), ("hello world", r"[a-z]+"), ("ab  cd", r"\w+"), ("abc", r"\w+"),
    ("", r"\w+"), ("a1b2", r"[a-z]"), ("a b c", r"\w+| "), ("x\ny", r"\S+|\n"), ("é!", r"\p{L}"),
]


@check("ex-unicode-uncovered")
def check_first_uncovered(first_uncovered):
    assert first_uncovered("Hello, World", r"[a-z]+") == 0, "'H' (position 0) is not a lowercase letter"
    assert first_uncovered("hello world", r"[a-z]+") == 5, "the space at position 5 is in no match"
    assert first_uncovered("abc", r"\w+") is None, "a pattern that matches everything: None"
    for text, pattern in CASES:
        want = uncovered(text, pattern)
        got = first_uncovered(text, pattern)
        assert got == want, f"first_uncovered({text!r}, {pattern!r}) is {got!r}; expected {want!r}"


@check("ex-unicode-tiktoken-class")
def check_tiktoken_members(tiktoken_members):
    for cls, name in ((r"\p{L}", "L"), (r"\p{N}", "N"), (r"\p{M}", "M")):
        want = "".join(c for c in SAMPLE if ord(c) in members(name))
        got = tiktoken_members(cls, SAMPLE)
        assert isinstance(got, str), f"return the characters as a str, not {type(got).__name__}"
        extra = [f"U+{ord(c):04X}" for c in got if c not in want]
        missing = [f"U+{ord(c):04X}" for c in want if c not in got]
        assert not extra and not missing, (
            f"{cls}: tiktoken's engine does not put {extra} in it and does put {missing} "
            f"(ask tiktoken, not the regex module, whose tables are newer)")
