"""The checks of *Unicode versions* reject plausible wrong solutions and pass the right ones."""

import pytest
import regex
import tiktoken

from bpe_lesson.teaching.checks import CHECKS


# ---- ex-unicode-uncovered
def first_uncovered(text, pattern):
    at = 0
    for m in regex.finditer(pattern, text):
        if m.start() > at:
            return at
        at = max(at, m.end())
    return at if at < len(text) else None


def uncovered_by_length(text, pattern):
    n = len("".join(regex.findall(pattern, text)))
    return n if n < len(text) else None


def uncovered_at_first_match_end(text, pattern):
    m = regex.search(pattern, text)
    return None if m is None or m.end() == len(text) else m.end()


def uncovered_misses_the_end(text, pattern):
    at = 0
    for m in regex.finditer(pattern, text):
        if m.start() > at:
            return at
        at = max(at, m.end())
    return None


# ---- ex-unicode-tiktoken-class
def tiktoken_members(cls, chars):
    ranks = {bytes([b]): b for b in range(256)}
    enc = tiktoken.Encoding(name="probe", pat_str=cls, mergeable_ranks=ranks, special_tokens={})
    kept = enc.decode_bytes(enc.encode_ordinary(chars)).decode("utf-8")
    return "".join(c for c in chars if c in kept)


def members_by_regex_module(cls, chars):
    return "".join(regex.findall(cls, chars))


def members_by_isalpha(cls, chars):
    test = {r"\p{L}": str.isalpha, r"\p{N}": str.isnumeric, r"\p{M}": lambda c: False}[cls]
    return "".join(c for c in chars if test(c))


def members_as_bytes(cls, chars):
    ranks = {bytes([b]): b for b in range(256)}
    enc = tiktoken.Encoding(name="probe", pat_str=cls, mergeable_ranks=ranks, special_tokens={})
    return enc.decode_bytes(enc.encode_ordinary(chars))


WRONG = {
    "ex-unicode-uncovered": [uncovered_by_length, uncovered_at_first_match_end, uncovered_misses_the_end],
    "ex-unicode-tiktoken-class": [members_by_regex_module, members_by_isalpha, members_as_bytes],
}
RIGHT = {"ex-unicode-uncovered": first_uncovered, "ex-unicode-tiktoken-class": tiktoken_members}


@pytest.mark.parametrize("label", sorted(RIGHT))
def test_the_reference_solution_passes(label):
    CHECKS[label](RIGHT[label])


@pytest.mark.parametrize("label,wrong", [(label, w) for label, ws in WRONG.items() for w in ws],
                         ids=lambda x: getattr(x, "__name__", x))
def test_a_wrong_solution_fails(label, wrong):
    with pytest.raises(AssertionError):
        CHECKS[label](wrong)
