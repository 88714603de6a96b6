"""Hugging Face tokenizer.json out and in: ids from ``tokenizers`` and ``transformers`` equal ours.

Independent sides: Hugging Face's own Rust encoder (``tokenizers``) and
``transformers.PreTrainedTokenizerFast`` load the file we write; Python's
``regex`` module and Hugging Face's Oniguruma split the same text; a vocabulary
Hugging Face itself trains is read back and must give Hugging Face's ids.
"""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_lesson
from bpe_lesson.formats.huggingface import from_huggingface, save_huggingface, to_huggingface
from bpe_lesson.formats.pretrained import from_pretrained
from bpe_lesson.formats.huggingface import bytes_to_unicode, from_oniguruma, to_oniguruma
from bpe_lesson.patterns import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN, split_chunks
from bpe_lesson.teaching.samples import MULTILINGUAL

from test_interop_pretrained import HELD_OUT

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

# Characters assigned in Unicode 7.0 or earlier, so that Oniguruma's tables (inside
# tokenizers) and the regex module's agree on \p{L}, \p{N} and \s for every one.
OLD_RANGES = [(0x09, 0x0D), (0x20, 0x7E), (0x85, 0x85), (0xA0, 0x17F), (0x300, 0x34E), (0x391, 0x3A1),
              (0x3A3, 0x3C9), (0x400, 0x45F), (0x5D0, 0x5EA), (0x621, 0x63A), (0x641, 0x669), (0x905, 0x939),
              (0x93E, 0x94D), (0x966, 0x96F), (0x2000, 0x200A), (0x2010, 0x2027), (0x2028, 0x2029),
              (0x3000, 0x3002), (0x3041, 0x3094), (0x4E00, 0x4E80), (0xAC00, 0xAC40), (0xFF01, 0xFF5E),
              (0x1F600, 0x1F640)]
OLD_CHARS = "".join(chr(c) for lo, hi in OLD_RANGES for c in range(lo, hi + 1))
old_text = st.text(alphabet=st.sampled_from(OLD_CHARS), max_size=80)
digits_and_more = st.text(alphabet=st.sampled_from("0123456789٠١٢३४ ab,.\n"), max_size=40)


@pytest.fixture(scope="module")
def trained(prose_docs):
    """Our own tokenizer, trained on English prose, with three special tokens."""
    return bpe_lesson.train(prose_docs[::3], 1024, pattern="gpt4", special_tokens=SPECIALS)


@pytest.fixture(scope="module")
def exported(trained, tmp_path_factory):
    """(path, tokenizers.Tokenizer, transformers.PreTrainedTokenizerFast) for ``trained``."""
    import tokenizers
    from transformers import PreTrainedTokenizerFast

    path = save_huggingface(trained, tmp_path_factory.mktemp("hf"))
    return path, tokenizers.Tokenizer.from_file(path), PreTrainedTokenizerFast(tokenizer_file=path)


def _real_text():
    return HELD_OUT + list(MULTILINGUAL.values()) + [
        "<|im_start|>user\nWhat is 12345 * 678?<|im_end|>\n<|im_start|>assistant\n8369910<|endoftext|>"]


# ---- out ------------------------------------------------------------------------------

def test_the_file_is_written_where_asked_and_atomically(trained, tmp_path):
    p = save_huggingface(trained, tmp_path / "my.json")
    assert p.endswith("my.json") and [f.name for f in tmp_path.iterdir()] == ["my.json"]  # no temporary left
    d = json.loads(open(p, encoding="utf-8").read())
    assert d["model"]["type"] == "BPE" and d["model"]["ignore_merges"] is True
    assert len(d["model"]["merges"]) == len(trained.merges)
    assert [t["content"] for t in d["added_tokens"]] == SPECIALS


def test_tokenizers_and_transformers_give_our_ids_on_real_text(trained, exported, backend):
    _, hf, fast = exported
    trained.backend = backend
    for text in _real_text():
        ours = trained.encode(text, allowed_special="all")
        assert hf.encode(text).ids == ours, text[:40]
        assert fast.encode(text, add_special_tokens=False) == ours, text[:40]
        assert fast.decode(ours) == text


def test_special_tokens_become_their_ids(trained, exported):
    _, hf, fast = exported
    text = "a<|endoftext|>b<|im_start|>"
    ids = trained.encode(text, allowed_special="all")
    assert ids[1] == trained.special_tokens["<|endoftext|>"] and ids[-1] == trained.special_tokens["<|im_start|>"]
    assert hf.encode(text).ids == ids == fast(text, add_special_tokens=False)["input_ids"]
    assert fast.convert_tokens_to_ids("<|im_end|>") == trained.special_tokens["<|im_end|>"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=old_text, special=st.sampled_from(["", *SPECIALS]), cut=st.integers(0, 80))
def test_hypothesis_text_gives_the_same_ids(trained, exported, text, special, cut):
    _, hf, fast = exported
    text = text[:cut] + special + text[cut:]
    ours = trained.encode(text, allowed_special="all")
    assert hf.encode(text).ids == ours
    assert fast.encode(text, add_special_tokens=False) == ours


def test_real_vocabularies_survive_the_export(backend):
    # GPT-4 (a possessive {1,3}+), Qwen (an NFC normalizer), Tekken (specials at ids 0-999)
    for name in ("cl100k_base", "qwen", "tekken"):
        tok = from_pretrained(name)
        tok.backend = backend
        hf = to_huggingface(tok)
        allowed = {"disallowed_special": ()} if name == "tekken" else {"allowed_special": "all"}
        for text in _real_text():
            if name == "tekken" and any(s in text for s in ("<s>", "</s>", "[INST]")):
                continue  # Tekken never finds its specials in text; Hugging Face always does
            assert hf.encode(text).ids == tok.encode(text, **allowed), (name, text[:40])


# ---- the digit-run trap -------------------------------------------------------------------

def _hf_chunks(pattern, text):
    from tokenizers import Regex, pre_tokenizers

    return [c for c, _ in pre_tokenizers.Split(Regex(pattern), behavior="isolated").pre_tokenize_str(text)]


def test_the_trap_is_real():
    # the pattern as it stands: Oniguruma reads \p{N}{1,3}+ as "groups of 1-3 digits, repeated"
    assert split_chunks("x 1234567", GPT4_PATTERN) == ["x", " ", "123", "456", "7"]
    assert _hf_chunks(GPT4_PATTERN, "x 1234567") == ["x", " ", "1234567"]
    assert _hf_chunks(to_oniguruma(GPT4_PATTERN), "x 1234567") == ["x", " ", "123", "456", "7"]


@settings(max_examples=400, deadline=None)
@given(text=digits_and_more)
def test_exported_pattern_gives_the_same_chunks_on_digit_runs(text):
    for pattern in (GPT4_PATTERN, O200K_PATTERN, GPT2_PATTERN):
        assert _hf_chunks(to_oniguruma(pattern), text) == split_chunks(text, pattern)


@settings(max_examples=300, deadline=None)
@given(text=old_text)
def test_exported_pattern_gives_the_same_chunks_on_any_old_text(text):
    for pattern in (GPT4_PATTERN, O200K_PATTERN, GPT2_PATTERN):
        assert _hf_chunks(to_oniguruma(pattern), text) == split_chunks(text, pattern)


def test_pattern_rewrite_round_trips():
    for p in (GPT4_PATTERN, O200K_PATTERN, GPT2_PATTERN, r"[{}]{2}+|\p{N}{1,3}+|(?:ab){2,}+|x{3}"):
        assert from_oniguruma(to_oniguruma(p)) == p
    assert from_oniguruma(r"\d{1,3}+") == r"(?:\d{1,3})+"  # what Oniguruma means by it


# ---- in ---------------------------------------------------------------------------------------

def test_round_trip_gives_the_same_merges_and_ids(trained, exported, backend):
    path, _, _ = exported
    back = from_huggingface(path)
    back.backend = backend
    assert back.merges == trained.merges and back.vocab == trained.vocab
    assert back.pattern == trained.pattern and back.special_tokens == trained.special_tokens
    for text in _real_text():
        assert back.encode(text, allowed_special="all") == trained.encode(text, allowed_special="all")


def test_round_trip_keeps_normalization_and_no_pattern(prose_docs, tmp_path):
    tok = bpe_lesson.train(prose_docs[:40], 400, pattern=None, normalize="NFKC", special_tokens=["<eot>"])
    back = from_huggingface(save_huggingface(tok, tmp_path))
    assert back.normalize == "NFKC" and back.pattern is None and back.merges == tok.merges
    hf = to_huggingface(tok)
    for text in ["ﬁne ＡＢＣ", "no split at all, one chunk<eot>x", "e\u0301 Å"]:
        assert back.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")
        assert hf.encode(text).ids == tok.encode(text, allowed_special="all")


def test_a_vocabulary_hugging_face_trained_reads_back_with_its_ids(prose_docs, tmp_path, backend):
    # GPT-2 style: ByteLevel with its own regex, no Split step, merges from HF's trainer
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    hf = Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=800, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    hf.train_from_iterator(prose_docs[::2], trainer)
    hf.save(str(tmp_path / "gpt2ish.json"))
    ours = from_huggingface(tmp_path / "gpt2ish.json")
    ours.backend = backend
    assert ours.special_tokens == {"<|endoftext|>": 0}
    for text in _real_text() + prose_docs[1::40]:
        assert ours.encode(text, allowed_special="all") == hf.encode(text).ids, text[:40]


def test_bytes_to_unicode_is_what_hugging_face_uses():
    from tokenizers import pre_tokenizers

    alphabet = set(pre_tokenizers.ByteLevel.alphabet())
    assert set(bytes_to_unicode().values()) == alphabet
    shown = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False).pre_tokenize_str(" é\n")
    assert shown[0][0] == "".join(bytes_to_unicode()[b] for b in " é\n".encode())


# ---- errors -------------------------------------------------------------------------------------

def _hf_file(tmp_path, model, pre_tokenizer=None):
    from tokenizers import Tokenizer

    tok = Tokenizer(model)
    if pre_tokenizer is not None:
        tok.pre_tokenizer = pre_tokenizer
    tok.save(str(tmp_path / "t.json"))
    return tmp_path / "t.json"


def test_wordpiece_and_unigram_are_refused(tmp_path):
    from tokenizers import models

    with pytest.raises(ValueError, match=r"t\.json: the model type is 'WordPiece'; .* byte-level BPE only"):
        from_huggingface(_hf_file(tmp_path, models.WordPiece({"[UNK]": 0, "a": 1}, unk_token="[UNK]")))
    with pytest.raises(ValueError, match="the model type is 'Unigram'"):
        from_huggingface(_hf_file(tmp_path, models.Unigram([("a", -1.0), ("b", -2.0)])))


def test_sentencepiece_style_bpe_is_refused(tmp_path):
    from tokenizers import models, pre_tokenizers

    path = _hf_file(tmp_path, models.BPE({"▁": 0, "a": 1, "▁a": 2}, [("▁", "a")]), pre_tokenizers.Metaspace())
    with pytest.raises(ValueError, match="with no ByteLevel step; this is not a byte-level BPE"):
        from_huggingface(path)


def test_a_corrupt_file_is_named(trained, tmp_path):
    good = save_huggingface(trained, tmp_path / "tokenizer.json")
    bad = tmp_path / "cut.json"
    bad.write_bytes(open(good, "rb").read()[:5000])
    with pytest.raises(ValueError, match=r"cut\.json: not a tokenizer\.json \(corrupt or truncated"):
        from_huggingface(bad)


def test_non_byte_level_tokens_and_merge_order_are_checked(trained, tmp_path):
    from bpe_lesson.formats.huggingface import huggingface_dict

    d = huggingface_dict(trained)
    d["model"]["vocab"]["▁word"] = 5000  # U+2581 is no byte's character
    (tmp_path / "a.json").write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(ValueError, match="token '▁word' \\(id 5000\\) has the character '▁'"):
        from_huggingface(tmp_path / "a.json")
    d = huggingface_dict(trained)
    d["model"]["merges"][3], d["model"]["merges"][4] = d["model"]["merges"][4], d["model"]["merges"][3]
    (tmp_path / "b.json").write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(ValueError, match=r"model\.merges\[4\]: it makes token 259 .* after a merge made token 260"):
        from_huggingface(tmp_path / "b.json")


def test_worked_examples_in_docstrings():
    import doctest

    from bpe_lesson.formats import huggingface

    result = doctest.testmod(huggingface, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_an_exported_folder_pads_a_batch_with_auto_tokenizer(tmp_path, prose_docs):
    """transformers' AutoTokenizer reads the folder as it is: padding, batch_decode, the roles."""
    import bpe_lesson
    from transformers import AutoTokenizer

    tok = bpe_lesson.train(prose_docs[:20], 400, pattern="gpt4", special_tokens=["<|endoftext|>", "<|pad|>"])
    folder = str(tmp_path / "new" / "hf_tok") + "/"  # a path ending in "/" is a folder, made if missing
    assert save_huggingface(tok, folder) == folder + "tokenizer.json"
    hf = AutoTokenizer.from_pretrained(folder)
    assert (hf.eos_token, hf.pad_token) == ("<|endoftext|>", "<|pad|>")
    assert hf.pad_token_id == tok.special_tokens["<|pad|>"]
    texts = ["a short one", "a somewhat longer text, with more words in it"]
    batch = hf(texts, padding=True)
    lengths = [len(tok.encode(t)) for t in texts]
    assert [len(ids) for ids in batch["input_ids"]] == [max(lengths)] * 2
    assert batch["input_ids"][0][:lengths[0]] == tok.encode(texts[0])  # padded on the right, the ids ours
    assert batch["attention_mask"][0] == [1] * lengths[0] + [0] * (max(lengths) - lengths[0])
    assert hf.batch_decode(batch["input_ids"], skip_special_tokens=True) == texts


def test_roles_default_and_can_be_named(tmp_path):
    from bpe_lesson import Tokenizer
    from bpe_lesson.formats.huggingface import special_roles

    tok = Tokenizer([], special_tokens={"<|begin_of_text|>": 256, "<|eot_id|>": 257, "<|end_of_text|>": 258})
    assert special_roles(tok) == {"eos_token": "<|end_of_text|>", "bos_token": "<|begin_of_text|>",
                                  "pad_token": "<|end_of_text|>"}
    assert special_roles(tok, eos_token="<|eot_id|>")["eos_token"] == "<|eot_id|>"
    with pytest.raises(ValueError, match=r"pad_token='<pad>' is not a special token"):
        save_huggingface(tok, tmp_path, pad_token="<pad>")
    assert list(tmp_path.iterdir()) == []  # refused before anything is written
