"""The 1,161 hardcoded merges: tokens every code-and-numbers tokenizer wants, put in before training.

Before any phase trains, the YAML trainer can put these tokens at ids 256-1416,
in this order:

  =====  =============================================  =====
  ids    tokens                                         count
  =====  =============================================  =====
  256    "00" .. "99"          every two-digit number     100
  356    "000" .. "999"        every three-digit number  1000
  1356   2 .. 32 spaces        indentation runs            31
  1387   2 .. 8 newlines       blank-line runs              7
  1394   "\\r\\n"              a Windows line end            1
  1395   20 operators          ``==``, ``->``, ``::``...   20
  1415   ".." and "..."        ranges, ellipses              2
  =====  =============================================  =====

Why these: the GPT-4 split pattern cuts numbers into groups of 1-3 digits, so
1,100 tokens cover *every* digit group (a model then sees numbers in uniform
pieces instead of whatever the corpus happened to make common); indentation and
operators are the bulk of code.

How each token is built. A merge joins two tokens that already exist, and we
pick the pair that the rank encoder (``ranks.bpe_encode_chunk``) would join
*last* when it encodes the token with the tokens made before it. For spaces that
gives a hierarchy (4 = 2+2, 5 = 2+3, 8 = 4+4); for a three-digit number it is
"two-digit token + digit" when the leading pair ranks first ("123" = "12"+"3"),
and "digit + two-digit token" otherwise ("321" = "3"+"21", because "21", id 277,
is older than "32", id 288). subtle: had we always written ("32", "1"), replaying
the merge list (as the trainers do for the merges they continue from) would join
"21" first and then never reach "321"; built this way, replay and rank encoding
agree on every hardcoded token, and ``recover_merges`` gives this list back.

What this module does not do: train, or decide whether to use the block (the
config's ``hardcoded_merges: true`` does).
"""

from __future__ import annotations

from ..ranks import bpe_encode_chunk

__all__ = ["OPERATORS", "FIRST_ID", "hardcoded_tokens", "hardcoded_merges"]

# The 20 operators: comparison, arrows, scope, augmented
# assignment, logic, shifts, power/floor division, increments, the walrus.
OPERATORS = ("==", "!=", "<=", ">=", "->", "=>", "::", "+=", "-=", "*=",
             "/=", "&&", "||", "<<", ">>", "**", "//", "++", "--", ":=")

FIRST_ID = 256


def hardcoded_tokens() -> list[bytes]:
    """The 1,161 tokens, in id order (the first gets id 256).

    >>> t = hardcoded_tokens(); len(t), t[0], t[100], t[-1]
    (1161, b'00', b'000', b'...')
    """
    two = [f"{i:02d}" for i in range(100)]  # "00".."99"
    three = [f"{i:03d}" for i in range(1000)]  # "000".."999"
    spaces = [" " * n for n in range(2, 33)]  # 31 runs
    newlines = ["\n" * n for n in range(2, 9)]  # 7 runs
    tokens = two + three + spaces + newlines + ["\r\n"] + list(OPERATORS) + ["..", "..."]
    return [t.encode("ascii") for t in tokens]


def hardcoded_merges() -> list[tuple[tuple[int, int], int]]:
    """The merges that make ``hardcoded_tokens()``: ``[((left, right), new_id), ...]``, ids 256-1416.

    >>> m = hardcoded_merges()
    >>> m[0], m[-1]          # "0"+"0" -> 256 ... ".."+"." -> 1416
    (((48, 48), 256), ((1415, 46), 1416))
    """
    ranks = {bytes([i]): i for i in range(256)}  # bytes -> id, growing as we go
    merges = []
    for token in hardcoded_tokens():
        # encode the token with the tokens made so far: it ends as exactly two parts
        parts = bpe_encode_chunk(token, ranks)
        if len(parts) != 2:  # never happens for this list; guards edits to it
            raise AssertionError(f"hardcoded token {token!r} is not one join away: {parts}")
        new_id = FIRST_ID + len(merges)
        merges.append(((parts[0], parts[1]), new_id))
        ranks[token] = new_id
    return merges
