"""The checks of *Unicode versions* pass right solutions and reject plausible wrong ones."""

import re
import unicodedata

import numpy as np
import regex
import tiktoken

from _wrong import graded
from bpe_lesson.teaching.checks.unicode_versions import DISPUTED, NEWER
from bpe_lesson._internal.unicode_classes import disputed_table, tiktoken_table, to_ranges


# ---------------------------------------------------------------- ex-unicode-uncovered

def first_uncovered(text, pattern):  # the notebook's
    at = 0  # everything before `at` is covered
    for m in regex.finditer(pattern, text):
        if m.start() > at:
            return at
        at = max(at, m.end())
    return at if at < len(text) else None


def first_uncovered_by_marks(text, pattern):  # right: mark every covered character, find the first not
    covered = [False] * len(text)
    for m in regex.finditer(pattern, text):
        covered[m.start():m.end()] = [True] * (m.end() - m.start())
    return covered.index(False) if False in covered else None


def uncovered_by_length(text, pattern):  # the total length of the matches, not where the first gap is
    n = len("".join(regex.findall(pattern, text)))
    return n if n < len(text) else None


def uncovered_at_first_match_end(text, pattern):  # looks at the first match only
    m = regex.search(pattern, text)
    return None if m is None or m.end() == len(text) else m.end()


def uncovered_misses_the_end(text, pattern):  # forgets the text after the last match
    at = 0
    for m in regex.finditer(pattern, text):
        if m.start() > at:
            return at
        at = max(at, m.end())
    return None


def uncovered_in_bytes(text, pattern):  # a position in UTF-8 bytes, not characters
    at = first_uncovered(text, pattern)
    return None if at is None else len(text[:at].encode("utf-8"))


def uncovered_with_re(text, pattern):  # Python's re: no \p{L}
    at = 0
    for m in re.finditer(pattern, text):
        if m.start() > at:
            return at
        at = max(at, m.end())
    return at if at < len(text) else None


def uncovered_minus_one(text, pattern):  # -1 for "all covered", as str.find does
    at = first_uncovered(text, pattern)
    return -1 if at is None else at


def uncovered_off_by_one(text, pattern):  # >= instead of >: two matches side by side make a gap
    at = 0
    for m in regex.finditer(pattern, text):
        if m.start() >= at and at > 0:
            return at
        at = max(at, m.end())
    return at if at < len(text) else None


def uncovered_char_by_char(text, pattern):  # asks the pattern of each character alone: "aa" covers no "a"
    for i, c in enumerate(text):
        if not regex.fullmatch(pattern, c):
            return i
    return None


# ---------------------------------------------------------------- ex-unicode-tiktoken-class

def _probe(cls):
    ranks = {bytes([b]): b for b in range(256)}
    return tiktoken.Encoding(name="probe", pat_str=cls, mergeable_ranks=ranks, special_tokens={})


def tiktoken_members(cls, chars):  # the notebook's
    probe = _probe(cls)
    kept = probe.decode_bytes(probe.encode_ordinary(chars)).decode("utf-8")
    return "".join(c for c in chars if c in kept)


def tiktoken_members_one_by_one(cls, chars):  # right: ask tiktoken about each character alone
    probe = _probe(cls)
    return "".join(c for c in chars if probe.encode_ordinary(c))


def members_by_regex_module(cls, chars):  # the regex module's tables, newer than tiktoken's
    return "".join(regex.findall(cls, chars))


def members_by_unicodedata(cls, chars):  # Python's unicodedata: Unicode 14, older than tiktoken's
    if cls == r"\s":
        return "".join(c for c in chars if c.isspace())
    prefix = cls[3:-1]
    return "".join(c for c in chars if unicodedata.category(c).startswith(prefix))


def members_by_isalpha(cls, chars):  # str methods in place of the classes
    test = {r"\p{L}": str.isalpha, r"\p{N}": str.isnumeric, r"\s": str.isspace}.get(cls, lambda c: False)
    return "".join(c for c in chars if test(c))


def members_as_bytes(cls, chars):  # the bytes tiktoken kept, not a str
    probe = _probe(cls)
    return probe.decode_bytes(probe.encode_ordinary(chars))


def members_ascii_bytes(cls, chars):  # a vocabulary of the 128 ASCII bytes: tiktoken panics on é
    ranks = {bytes([b]): b for b in range(128)}
    probe = tiktoken.Encoding(name="probe", pat_str=cls, mergeable_ranks=ranks, special_tokens={})
    return probe.decode(probe.encode_ordinary(chars))


def members_once_each(cls, chars):  # a set of characters: repeats and order lost
    return "".join(sorted(set(tiktoken_members(cls, chars))))


# ---------------------------------------------------------------- ex-unicode-differ

def where_differ(a, b):  # the notebook's
    def points(ranges):
        return {c for lo, hi in ranges for c in range(lo, hi + 1)}
    out = []
    for c in sorted(points(a) ^ points(b)):
        if out and out[-1][1] == c - 1:
            out[-1] = (out[-1][0], c)
        else:
            out.append((c, c))
    return out


def where_differ_sweep(a, b):  # right: walk the boundaries, never expand a range
    events = sorted([(lo, 1) for lo, _ in a + b] + [(hi + 1, -1) for _, hi in a + b])
    out, inside, start, i = [], 0, None, 0
    while i < len(events):
        at = events[i][0]
        while i < len(events) and events[i][0] == at:
            inside += events[i][1]
            i += 1
        if inside == 1 and start is None:
            start = at
        elif inside != 1 and start is not None:
            if out and out[-1][1] == start - 1:
                out[-1] = (out[-1][0], at - 1)
            else:
                out.append((start, at - 1))
            start = None
    return out


def where_differ_exclusive(a, b):  # takes hi as exclusive, as range() does
    def points(ranges):
        return {c for lo, hi in ranges for c in range(lo, hi)}
    return to_ranges(points(a) ^ points(b))


def where_differ_one_way(a, b):  # what a has and b lacks, not the other way
    def points(ranges):
        return {c for lo, hi in ranges for c in range(lo, hi + 1)}
    return to_ranges(points(a) - points(b))


def where_differ_not_joined(a, b):  # the two one-way differences side by side: unsorted, touching ranges apart
    def points(ranges):
        return {c for lo, hi in ranges for c in range(lo, hi + 1)}
    pa, pb = points(a), points(b)
    return to_ranges(pa - pb) + to_ranges(pb - pa) if pa - pb and pb - pa else to_ranges(pa ^ pb)


def where_differ_pairwise(a, b):  # compares the i-th range of one with the i-th of the other
    return [ra for ra, rb in zip(a, b) if ra != rb] + a[len(b):] + b[len(a):]


def where_differ_code_points(a, b):  # the code points, not ranges of them
    def points(ranges):
        return {c for lo, hi in ranges for c in range(lo, hi + 1)}
    return sorted(points(a) ^ points(b))


RIGHT = {
    "ex-unicode-uncovered": [first_uncovered, first_uncovered_by_marks],
    "ex-unicode-tiktoken-class": [tiktoken_members, tiktoken_members_one_by_one],
    "ex-unicode-differ": [where_differ, where_differ_sweep],
}
WRONG = {
    "ex-unicode-uncovered": [uncovered_by_length, uncovered_at_first_match_end, uncovered_misses_the_end,
                             uncovered_in_bytes, uncovered_with_re, uncovered_minus_one, uncovered_off_by_one,
                             uncovered_char_by_char],
    "ex-unicode-tiktoken-class": [members_by_regex_module, members_by_unicodedata, members_by_isalpha,
                                  members_as_bytes, members_once_each, members_ascii_bytes],
    "ex-unicode-differ": [where_differ_exclusive, where_differ_one_way, where_differ_not_joined,
                          where_differ_pairwise, where_differ_code_points],
}


test_right_solution_passes, test_wrong_solution_fails = graded(RIGHT, WRONG)


def test_the_sample_code_points_are_the_ones_the_engines_dispute():
    disputed = disputed_table()
    assert all(disputed[c] for c in DISPUTED)
    letters = tiktoken_table("L")
    assert all(letters[c] and unicodedata.category(chr(c)) == "Cn" for c in NEWER)  # tiktoken's tables are newer
    assert len(to_ranges(np.flatnonzero(disputed).tolist())) >= len(DISPUTED)
