"""The ``normalize=`` option of ``train`` and ``Tokenizer``: off by default (exact
round trip), NFKC's documented loss on concrete strings, the same form in training
and encoding, and the form kept in both save formats.
"""

import json
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_lesson
from bpe_lesson import patterns as normalize_module
from bpe_lesson.teaching import samples
from bpe_lesson.patterns import FORMS, changed_characters, check_form, normalize_text

# text that the four forms treat differently: ligature, full width, superscript, composed and decomposed accents
TRICKY = "ﬁne ﬂour, Ｈｅｌｌｏ x² café cafe\u0301 Å Ω ½"


@pytest.fixture(scope="module")
def training_text():
    train, _ = samples.prose_split()
    return "\n".join(train[:60]) + "\n" + "\n".join(samples.MULTILINGUAL.values()) + "\n" + TRICKY * 3


def test_round_trip_holds_without_normalization(backend, training_text):
    tok = bpe_lesson.train(training_text, 400, backend=backend)
    assert tok.normalize is None
    for s in [TRICKY, unicodedata.normalize("NFD", TRICKY), *samples.MULTILINGUAL.values(), training_text]:
        assert tok.decode(tok.encode(s)) == s


def test_nfkc_loses_the_ligature(backend, training_text):
    tok = bpe_lesson.train(training_text, 400, backend=backend, normalize="NFKC")
    assert tok.normalize == "NFKC"
    # the documented loss: "ﬁ" (U+FB01) comes back as "fi", the same ids as typing "fi"
    assert tok.encode("ﬁ") == tok.encode("fi")
    assert tok.decode(tok.encode("ﬁ")) == "fi" != "ﬁ"
    assert tok.decode(tok.encode("Ｈｅｌｌｏ x²")) == "Hello x2"
    # text already in the form still round-trips
    s = normalize_text(TRICKY, "NFKC")
    assert tok.decode(tok.encode(s)) == s


@pytest.fixture(scope="module")
def textbook_nfkc(training_text):
    """Independent: the textbook trainer on text NFKC-normalized by ``unicodedata`` (its first 44 merges)."""
    return bpe_lesson.train(unicodedata.normalize("NFKC", training_text), 300, algorithm="textbook").merges


def test_training_sees_the_normalized_text(backend, training_text, textbook_nfkc):
    """Normalizing inside ``train`` = normalizing the text first and training without the option."""
    a = bpe_lesson.train(training_text, 400, backend=backend, normalize="NFKC")
    b = bpe_lesson.train(normalize_text(training_text, "NFKC"), 400, backend=backend)
    assert a.merges == b.merges
    assert len(textbook_nfkc) == 44 and a.merges[:44] == textbook_nfkc
    # no token holds the ligature's bytes: NFKC removed it before counting
    assert not any("ﬁ".encode() in tok for tok in a.vocab.values())


def test_nfc_and_nfd_spellings_share_ids(backend, training_text):
    tok = bpe_lesson.train(training_text, 400, backend=backend, normalize="NFC")
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    assert tok.encode(composed) == tok.encode(decomposed)
    plain = bpe_lesson.train(training_text, 400, backend=backend)
    assert plain.encode(composed) != plain.encode(decomposed)


def test_special_tokens_are_found_after_normalization(backend):
    tok = bpe_lesson.train("hello world " * 20, 300, backend=backend, special_tokens=["<|endoftext|>"],
                           normalize="NFKC")
    lookalike = "\uff1c\uff5cendoftext\uff5c\uff1e"  # full-width < | ... | >
    assert normalize_text(lookalike, "NFKC") == "<|endoftext|>"
    with pytest.raises(ValueError, match="disallowed"):
        tok.encode(lookalike)
    assert tok.encode(lookalike, allowed_special="all") == [tok.special_tokens["<|endoftext|>"]]


def test_saved_in_json_and_tiktoken_sidecar(backend, training_text, tmp_path):
    tok = bpe_lesson.train(training_text, 300, backend=backend, normalize="NFKD")
    tok.save(tmp_path / "t.json")
    assert json.loads((tmp_path / "t.json").read_text())["normalize"] == "NFKD"
    again = bpe_lesson.load(tmp_path / "t.json")
    assert again.normalize == "NFKD" and again.encode(TRICKY) == tok.encode(TRICKY)
    tok.save_tiktoken(tmp_path / "t.tiktoken")
    assert json.loads((tmp_path / "t.tiktoken.json").read_text())["normalize"] == "NFKD"
    assert bpe_lesson.load(tmp_path / "t.tiktoken").encode(TRICKY) == tok.encode(TRICKY)
    # without the option, neither file has the key: files written before it existed stay the same
    plain = bpe_lesson.train(training_text, 300, backend=backend)
    plain.save(tmp_path / "p.json")
    plain.save_tiktoken(tmp_path / "p.tiktoken")
    assert "normalize" not in json.loads((tmp_path / "p.json").read_text())
    assert "normalize" not in json.loads((tmp_path / "p.tiktoken.json").read_text())
    assert bpe_lesson.load(tmp_path / "p.json").normalize is None


def test_errors_teach(tmp_path):
    with pytest.raises(ValueError, match="did you mean 'NFKC'"):
        check_form("nfkc")
    with pytest.raises(ValueError, match="normalize='NFX'"):
        bpe_lesson.train("abc abc", 260, normalize="NFX")
    with pytest.raises(ValueError, match="normalize='lower'"):
        bpe_lesson.Tokenizer([], normalize="lower")
    d = bpe_lesson.Tokenizer([]).to_dict() | {"normalize": "NFQ"}
    with pytest.raises(ValueError, match="'normalize' is 'NFQ'"):
        bpe_lesson.Tokenizer.from_dict(d)


def test_measured_changes_on_real_text():
    """What the chapter reports: NFKC changes nothing in the book's prose sample, NFD splits accented letters."""
    assert changed_characters(samples.MULTILINGUAL["English"], "NFKC") == 0
    french = samples.MULTILINGUAL["French (Latin)"]
    assert changed_characters(french, "NFD") == sum(ch in "èéêàç" for ch in french) > 0
    assert len(normalize_text(french, "NFD")) > len(french)
    for form in FORMS:  # every form is idempotent
        s = normalize_text(TRICKY, form)
        assert normalize_text(s, form) == s


@pytest.fixture(scope="module")
def nfkc_pair():
    text = "\n".join(samples.MULTILINGUAL.values()) + TRICKY
    return (bpe_lesson.train(text, 320, backend="python"),
            bpe_lesson.train(text, 320, backend="python", normalize="NFKC"))


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aé\u0301ﬁＨ² Å\u212bΩ\u2126½k\nı")), max_size=30))
def test_property_round_trip(nfkc_pair, s):
    plain, nfkc = nfkc_pair
    assert plain.decode(plain.encode(s)) == s
    assert nfkc.decode(nfkc.encode(s)) == normalize_text(s, "NFKC")
