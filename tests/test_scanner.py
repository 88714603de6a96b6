"""Both splitters cut text where an independent regex engine does.

The compiled backend's split is the hand-written scanners (``_scanners.pxi``);
for each named pattern (gpt2, gpt4, o200k) its chunks must equal
``regex.findall(pattern, text)``: on hypothesis text built from the pieces that
trip scanners up (whitespace runs, \\r\\n, Unicode spaces, contractions in any case,
digits of other scripts, combining marks, emoji with ZWJ, punctuation before a
newline, text ending in spaces), on random Unicode, and on real text.

The Python backend's split *is* ``regex.findall``, so comparing it with
``regex`` would test nothing: on real text both backends are compared with a
second engine, Hugging Face ``tokenizers``' Split (Oniguruma, written in C), and
on cases worked out by hand. The character-class table the scanners read
(``_internal/char_classes.py``) is checked against ``regex`` code point by code point.

subtle: ``regex`` and tiktoken's engine disagree about the classes of some rare
code points ("disputed", ``unicode_classes``). The comparisons with ``regex``
here leave text holding one of them out; tests/test_unicode_classes.py checks
what both backends do with them (tiktoken's ids).
"""

import random
from collections import Counter

import pytest
import regex
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import bpe_lesson
from bpe_lesson import patterns
from bpe_lesson._internal import char_classes as _char_classes
from bpe_lesson._compiled import _native
from bpe_lesson.patterns import PATTERNS
from bpe_lesson._internal.unicode_classes import disputed_table, needs_exact
from bpe_lesson.teaching.samples import MULTILINGUAL

NAMES = sorted(PATTERNS)
needs_cython = pytest.mark.skipif(bpe_lesson.BACKEND == "python", reason="BPE_LESSON_PUREPYTHON=1")


def splitter(backend):
    """split_chunks of the backend: the same name in patterns.py and _compiled/_native.pxi."""
    return _native.split_chunks if backend == "cython" else patterns.split_chunks


def expected(text, name):
    return regex.findall(PATTERNS[name], text)


def oniguruma_split(name):
    """Hugging Face's Split pre-tokenizer for a named pattern: chunks by another regex engine.

    subtle: Oniguruma reads GPT-4's possessive ``\\p{N}{1,3}+`` as "1-3 digits,
    repeated"; ``\\p{N}{1,3}`` is what Python's regex does with it.
    """
    tokenizers = pytest.importorskip("tokenizers")
    split = tokenizers.pre_tokenizers.Split(
        tokenizers.Regex(PATTERNS[name].replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")), behavior="isolated")
    return lambda text: [piece for piece, _ in split.pre_tokenize_str(text)]


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


@needs_cython
@settings(max_examples=300, deadline=None)
@given(text=tricky_text)
@example(text="")
@example(text="x  ")
@example(text="x \n ")
@example(text="a\n  ")
@example(text="  \n\n  b")
@example(text="don't DON'T we'LL O'Neil")
@example(text="\u0301\u0301A")
def test_scanner_equals_regex_on_tricky_text(text):
    assume(not needs_exact(text))  # disputed code points: test_unicode_classes.py
    split = _native.split_chunks
    for name in NAMES:
        assert split(text, name) == expected(text, name), name


# runs that end on either side of the scanners' eight-byte steps (SWAR), and what may follow them
RUNS = [c * k for c in ("a", "Z", "aZ", "Zab", " ", "1", "!") for k in (7, 8, 9, 15, 16, 17)]
AFTER = ["é", "É", "\u0301", "中", "\xa0", "\u3000", "'s", "'LL", "\n", "\r\n", "٣", "ǅ", "ʰ", "A", "a", " ",
         # the ASCII bytes just outside the letter and digit ranges: @ [ ` { / : and the ones folding onto them
         "@", "[", "`", "{", "/", ":", "\x1b", "\x1f", "\x7f", "\t"]


@needs_cython
@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.one_of(st.sampled_from(RUNS), st.sampled_from(AFTER), st.sampled_from(TRICKY)),
                     max_size=12).map("".join))
@example(text="abcdefgh\u0301")
@example(text="ABCDEFGHé")
@example(text=" " * 16 + "\u3000x")
@example(text="x" + "Z" * 9 + "'s")
def test_scanner_equals_regex_across_eight_byte_steps(text):
    assume(not needs_exact(text))
    for name in NAMES:
        assert _native.split_chunks(text, name) == expected(text, name), name
        # the trainer's chunk counter reads the same scanners
        counter = _native.ChunkCounter(name)
        counter.add(text)
        assert counter.to_dict() == Counter(c.encode("utf-8", "surrogatepass") for c in expected(text, name))


@needs_cython
def test_scanner_equals_regex_at_every_run_boundary():
    # every run, then every piece that may end it, with a prefix and a tail
    for run in RUNS:
        for after in AFTER:
            for text in (run + after + "x", " " + run + after, "(" + run + after + run):
                for name in NAMES:
                    assert _native.split_chunks(text, name) == expected(text, name), (name, text)


@needs_cython
@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=60))
def test_scanner_equals_regex_on_random_unicode(text):
    assume(not needs_exact(text))  # disputed code points: test_unicode_classes.py
    split = _native.split_chunks
    for name in NAMES:
        assert split(text, name) == expected(text, name), name


@needs_cython
@settings(max_examples=60, deadline=None)
@given(text=st.text(st.characters(exclude_categories=()), max_size=30))
def test_scanner_lets_lone_surrogates_through_like_the_regex(text):
    assume(not needs_exact(text))  # disputed code points: test_unicode_classes.py
    # categories=() includes Cs: lone surrogates, which a str may hold
    split = _native.split_chunks
    for name in NAMES:
        assert split(text, name) == expected(text, name), name


@pytest.fixture(scope="module")
def real_texts(stdlib_docs, prose_docs):
    return {"code": "".join(stdlib_docs[:40]), "prose": "".join(prose_docs),
            "multilingual": " \n".join(MULTILINGUAL.values())}


def test_split_equals_oniguruma_on_real_text(backend, real_texts):
    split = splitter(backend)
    for name in NAMES:
        other_engine = oniguruma_split(name)
        for what, text in real_texts.items():
            got = split(text, name)
            assert got == other_engine(text), (what, name)
            assert "".join(got) == text  # the chunks cover the text


@needs_cython
def test_scanner_equals_regex_on_real_text(real_texts):
    for what, text in real_texts.items():
        for name in NAMES:
            got = _native.split_chunks(text, name)
            want = expected(text, name)
            assert len(got) == len(want), (what, name)
            assert got == want, (what, name)


def test_hand_checked_chunks(backend):
    # cases a reader can check against the pattern by hand
    split = splitter(backend)
    assert split("I'm here  now\n\n", "gpt4") == ["I", "'m", " here", " ", " now", "\n\n"]
    assert split("I'M 12345!!\n", "gpt4") == ["I", "'M", " ", "123", "45", "!!\n"]
    assert split("I'M 12345!!\n", "gpt2") == ["I", "'", "M", " 12345", "!!", "\n"]
    assert split("HTTPServer don'T", "o200k") == ["HTTPServer", " don'T"]
    assert split("a //\n/b", "o200k") == ["a", " //\n/", "b"]


def test_class_table_follows_regex_not_str_isspace():
    # by construction the table is regex's answer; these are the code points where
    # Python's own idea (str.isspace, unicodedata) differs or a careless table would
    classes, ci_ascii, ci_extra = _char_classes.class_tables()
    assert not classes[0x1C] & _char_classes.F_S and "\x1c".isspace()  # regex says no
    assert classes[0x85] & _char_classes.F_S  # NEL is \s
    assert classes[0x301] == _char_classes.F_U | _char_classes.F_W | _char_classes.F_P  # a mark
    assert classes[ord("a")] == _char_classes.F_L | _char_classes.F_W
    assert classes[ord("Q")] == _char_classes.F_L | _char_classes.F_U
    assert classes[ord("٣")] == _char_classes.F_N
    assert chr(ci_ascii[ord("L")]) == "l" and ci_ascii[ord("x")] == 0
    assert ci_extra == [(0x17F, ord("s"))]  # long s is "s" under (?i)


def test_class_table_equals_regex_on_sampled_code_points():
    classes, _, _ = _char_classes.class_tables()
    compiled = {bit: regex.compile(cls) for bit, cls in _char_classes.CLASSES.items()}
    disputed = disputed_table()
    rng = random.Random(0)
    sample = [cp for cp in [*range(0x300), *rng.sample(range(0x110000), 5000)] if not disputed[cp]]
    assert len(sample) > 5000
    for cp in sample:
        ch = chr(cp)
        for bit, cls in compiled.items():
            assert bool(classes[cp] & bit) == bool(cls.fullmatch(ch)), (hex(cp), _char_classes.CLASSES[bit])


@needs_cython
def test_the_extension_reads_the_shared_table():
    module = _native
    classes, _, _ = _char_classes.class_tables()
    assert all(module._class_of(chr(cp)) == classes[cp] for cp in range(0, 0x110000, 7))


@needs_cython
def test_long_s_is_a_contraction_letter_for_the_encoder_and_the_counter():
    assert _native.split_chunks("x'\u017f", "gpt4") == ["x", "'\u017f"]
    counter = _native.ChunkCounter("gpt4")
    counter.add("x'\u017f")
    assert counter.to_dict() == {b"x": 1, "'\u017f".encode(): 1}


@needs_cython
def test_custom_regex_and_none_go_through_unchanged():
    assert _native.split_chunks("ab cd", r"\S+|\s+") == ["ab", " ", "cd"]
    assert _native.split_chunks("ab cd", None) == ["ab cd"]
    assert _native.split_chunks("", None) == []


# ---- the window scanner: 64 bytes of ASCII at a time (_window.h) ---------------------------------
# It serves texts of 64 bytes and more, so these texts are longer than the ones above; the
# pieces are those its rules and their limits are about.
WINDOW_PIECES = ["a", "Z", "s", "T", "ll", "Ve", "re", "D", "m", "0", "7", "123", "4567", " ", "  ", "\t",
                 "\x0b", "\x0c", "\n", "\r", "\r\n", "'", "/", "(", ".", "_", "-", '"', "é", "\u3000", "\xa0",
                 "\u017f", "中", "\u0301", "89"]


@needs_cython
def test_the_window_scanner_is_in_use():
    assert _native._window_in_use()   # so that the tests below exercise it


@needs_cython
def test_window_scanner_equals_regex_on_random_text(simd):
    rng = random.Random(7)
    for _ in range(1500):
        pieces = rng.choice([WINDOW_PIECES, WINDOW_PIECES[:29], ["a", "A", " ", "\n", "'", "s", "/", "(", "1"]])
        text = "".join(rng.choices(pieces, k=rng.randint(40, 200)))
        for name in NAMES:
            assert _native.split_chunks(text, name) == expected(text, name), (name, text)


# what the window scanner must hand over to the scalar one, at every offset to a window's edge
AT_EVERY_OFFSET = ["don't", "x'S", "('s", " 'll", "'ve", "  \n", "\n \t\n", " \t ", "1234567", "fooBar", "ABCdef",
                   "(\n/x", "(\n\nx", "a(b", "((b", " (b", "\t(b", "é", " \u3000x", "x\xa0 y", "'\u017f", "a  1",
                   "\n\n  \u3000\rx", "  \xa0\n", "\t\u2009 \u3000\n", "x9876543210"]


@needs_cython
@pytest.mark.parametrize("piece", AT_EVERY_OFFSET)
def test_window_scanner_equals_regex_at_every_offset(piece, simd):
    for offset in range(0, 72):
        for pad in ("ab " * 30, "x" * 90, " " * 90, "1" * 90, "(" * 90):
            text = pad[:offset] + piece + pad[:70]
            for name in NAMES:
                assert _native.split_chunks(text, name) == expected(text, name), (name, text)
            counter = _native.ChunkCounter("o200k")
            counter.add(text)
            assert counter.to_dict() == Counter(c.encode() for c in expected(text, "o200k"))


# characters of two to four bytes, which the window classifies itself (bpe_classify_wide): letters of
# every case kind (Lu, Ll, Lt, Lm, Lo), P from other scripts, and the ones it leaves to the scalar
# scanner (digits and white space outside ASCII; for o200k, combining marks; a character cut by the
# window's end); with the ASCII around them
WIDE_PIECES = ["слово", "Слово", "СЛОВО", "λόγος", "Ωμέγα", "مرحبا", "中文", "中", "，", "。", "「", "«", "»",
               "ǅ", "ʰ", "é", "É", "ß", "\U0001d400", "\U0001d41a", "\U0001f600", "\u0301", "\u0915\u093f", "٣",
               "\xa0", "\u3000", "\u2028", "\u017f", "\u212a", "\ud800", "A", "a", "B", "z", " ", "  ", "'", "'s",
               "\n", "1", ".", "(", "/"]


def _same_as_regex(text):
    for name in NAMES:
        assert _native.split_chunks(text, name) == expected(text, name), (name, text)
    if "\ud800" not in text:   # the trainer's counter refuses a lone surrogate; split_chunks takes it
        counter = _native.ChunkCounter("o200k")
        counter.add(text)
        assert counter.to_dict() == Counter(c.encode() for c in expected(text, "o200k"))


@needs_cython
def test_window_scanner_equals_regex_on_text_in_many_scripts(simd):
    rng = random.Random(11)
    for _ in range(1500):
        pieces = rng.choice([WIDE_PIECES, WIDE_PIECES[:20] + [" ", ".", "A", "a"], WIDE_PIECES + WINDOW_PIECES])
        text = "".join(rng.choices(pieces, k=rng.randint(30, 150)))
        if not needs_exact(text):
            _same_as_regex(text)


# what a character of two to four bytes leaves to the scalar scanner or lets through, at every offset
# to a window's edge; for o200k, "AB中CDé" is one chunk (its [U]* runs through 中) and "AB中CD " two
WIDE_AT_EVERY_OFFSET = ["слово", "Слово", "x«y", "«y", " «y", ".中文", "中A", "a中B", "AB中CDé", "AB中CD ",
                        "ʰA", "Aʰb", "ǅa", "\U0001d400\U0001d41a", "\U0001f600x", "٣4", "ab\u0301c", " \u0301a",
                        "'\u017f", "слово's", "\u3000\n", "é\n", "«\n/"]


@needs_cython
@pytest.mark.parametrize("piece", WIDE_AT_EVERY_OFFSET)
def test_window_scanner_equals_regex_on_wide_characters_at_every_offset(piece, simd):
    for offset in range(0, 72):
        for pad in ("ab " * 30, "x" * 90, "((" * 45, "ж" * 45, "中" * 30):
            _same_as_regex(pad[:offset] + piece + pad[:70])


@needs_cython
def test_chunk_counts_go_past_32_bits_and_merge_by_key():
    counter = _native.ChunkCounter("gpt4")
    counter.add("a b a")                  # "a", " b", " a": once each
    for _ in range(33):
        counter.update(counter)           # doubles every count
    assert counter.to_dict() == {b"a": 2 ** 33, b" b": 2 ** 33, b" a": 2 ** 33}
    other = _native.ChunkCounter("gpt4")
    other.add("a c")
    counter.update(other)
    assert counter.to_dict() == {b"a": 2 ** 33 + 1, b" b": 2 ** 33, b" a": 2 ** 33, b" c": 1}
    assert len(counter) == 4
