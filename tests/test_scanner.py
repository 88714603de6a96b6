"""The hand-written scanners in _encoder.pyx cut text exactly where the regex does.

For each named pattern (gpt2, gpt4, o200k) the chunks must equal
``regex.findall(pattern, text)``: on hypothesis text built from the pieces that
trip scanners up (whitespace runs, \\r\\n, Unicode spaces, contractions in any case,
digits of other scripts, combining marks, emoji with ZWJ, punctuation before a
newline, text ending in spaces), on random Unicode, and on real text. With the
"python" backend the split is the regex itself, so those runs check the test.
"""

import pytest
import regex
from hypothesis import example, given, settings
from hypothesis import strategies as st

import bpe_lesson
from bpe_lesson import _encoder, patterns
from bpe_lesson.patterns import PATTERNS
from bpe_lesson.teaching.samples import MULTILINGUAL

NAMES = sorted(PATTERNS)
needs_cython = pytest.mark.skipif(bpe_lesson.BACKEND == "python", reason="BPE_LESSON_PUREPYTHON=1")


def splitter(backend):
    """split_chunks of the backend: the same name in patterns.py and _encoder.pyx."""
    return _encoder.split_chunks if backend == "cython" else patterns.split_chunks


def expected(text, name):
    return regex.findall(PATTERNS[name], text)


# pieces that exercise each alternative of the three patterns
TRICKY = [
    # whitespace: runs, \r\n, Unicode spaces, and \x1c, which str.isspace() calls space but regex's \s does not
    " ", "  ", "   ", "\t", "\n", "\r\n", "\r", "\n\n", " \n", "\n ", "\x0b", "\x0c", "\x85", "\xa0",
    "\u2028", "\u3000", "\u2009", "\x1c", "\x1f",
    # contractions in any case, and apostrophes that are not contractions; U+017F (long s) is (?i) "s"
    "'", "'s", "'S", "'t", "'T", "'d", "'m", "'M", "'ll", "'LL", "'lL", "'ve", "'VE", "'re", "'Re",
    "'\u017f", "'x", "''", "’s",
    # letters: Lu, Ll, Lt (ǅ), Lm (ʰ), Lo (中, ﬀ is Ll), with combining marks, Kelvin sign (Lu, (?i) k)
    "a", "Z", "word", "Word", "WORD", "ǅ", "ʰ", "中文", "ß", "İ", "\u212a", "e\u0301", "A\u030a",
    "\u0915\u094d\u0937", "\u0301", "\u0301\u0301", "ﬀ", "ÉCOLE", "naïve",
    # digits of several scripts, numbers that are letters-like, more than three digits
    "0", "7", "12345", "٣", "߂", "१२", "𝟙", "Ⅻ", "½", "²",
    # emoji and ZWJ sequences, variation selectors, skin tones
    "👍", "👍🏽", "👨\u200d👩\u200d👧", "🏳\ufe0f\u200d🌈", "\u200d", "\ufe0f",
    # punctuation runs, some followed by newlines or slashes (o200k: [\r\n/]*)
    "!", "!!", "...", "?!\n", ".\r\n", "//", "/\n/", "--", "->", "#", "(", ")", "\"", "@", "<|endoftext|>",
]

tricky_text = st.lists(
    st.one_of(st.sampled_from(TRICKY), st.characters(codec="utf-8"), st.characters(max_codepoint=127)),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=tricky_text)
@example(text="")
@example(text="x  ")
@example(text="x \n ")
@example(text="a\n  ")
@example(text="  \n\n  b")
@example(text="don't DON'T we'LL O'Neil")
@example(text="\u0301\u0301A")
def test_scanner_equals_regex_on_tricky_text(backend, text):
    split = splitter(backend)
    for name in NAMES:
        assert split(text, name) == expected(text, name), name


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=60))
def test_scanner_equals_regex_on_random_unicode(backend, text):
    split = splitter(backend)
    for name in NAMES:
        assert split(text, name) == expected(text, name), name


@settings(max_examples=60, deadline=None)
@given(text=st.text(st.characters(exclude_categories=()), max_size=30))
def test_scanner_lets_lone_surrogates_through_like_the_regex(backend, text):
    # categories=() includes Cs: lone surrogates, which a str may hold
    split = splitter(backend)
    for name in NAMES:
        assert split(text, name) == expected(text, name), name


def test_scanner_equals_regex_on_real_text(backend, stdlib_docs, prose_docs):
    split = splitter(backend)
    texts = {"code": "".join(stdlib_docs[:40]), "prose": "".join(prose_docs), "multilingual": " \n".join(MULTILINGUAL.values())}
    for what, text in texts.items():
        for name in NAMES:
            got = split(text, name)
            want = expected(text, name)
            assert len(got) == len(want), (what, name)
            assert got == want, (what, name)
            assert "".join(got) == text  # the chunks cover the text


def test_hand_checked_chunks(backend):
    # cases a reader can check against the pattern by hand
    split = splitter(backend)
    assert split("I'm here  now\n\n", "gpt4") == ["I", "'m", " here", " ", " now", "\n\n"]
    assert split("I'M 12345!!\n", "gpt4") == ["I", "'M", " ", "123", "45", "!!\n"]
    assert split("I'M 12345!!\n", "gpt2") == ["I", "'", "M", " 12345", "!!", "\n"]
    assert split("HTTPServer don'T", "o200k") == ["HTTPServer", " don'T"]
    assert split("a //\n/b", "o200k") == ["a", " //\n/", "b"]


@needs_cython
def test_class_table_follows_regex_not_str_isspace():
    # by construction the table is regex's answer; these are the code points where
    # Python's own idea (str.isspace, unicodedata) differs or a careless table would
    assert not _encoder._class_of("\x1c") & 4 and "\x1c".isspace()  # F_S: regex says no
    assert _encoder._class_of("\x85") & 4  # NEL is \s
    assert _encoder._class_of("\u0301") == 8 | 16 | 32  # a mark: U and W (o200k) and not L/N/space
    assert _encoder.split_chunks("'\u017f", "gpt4") == ["'\u017f"]  # long s is "s" under (?i)


@needs_cython
def test_custom_regex_and_none_go_through_unchanged():
    assert _encoder.split_chunks("ab cd", r"\S+|\s+") == ["ab", " ", "cd"]
    assert _encoder.split_chunks("ab cd", None) == ["ab cd"]
    assert _encoder.split_chunks("", None) == []
