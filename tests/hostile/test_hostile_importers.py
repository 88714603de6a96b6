"""Importers are validators (issue 39, items 3, 6 and 7).

A reader refuses at load, naming the file and the key, any table on which our ids
would differ from the library that wrote it. The reference is Hugging Face's
``tokenizers`` itself: for generated small ``tokenizer.json`` files, consistent ones
from its own trainer and inconsistent ones made from them, either we refuse the
file or our ids equal ``tokenizers.Tokenizer.from_str(...)``'s on random text.
"""

import json
import os
import random

import pytest
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models, pre_tokenizers, trainers

from bpe_lesson import Tokenizer
from bpe_lesson.formats.huggingface import bytes_to_unicode, from_huggingface, huggingface_dict

ALPHABET = "abcx "
B2U = bytes_to_unicode()


def hf_trained(texts, vocab_size) -> dict:
    """A byte-level BPE ``tokenizer.json`` (as a dict) trained by ``tokenizers``."""
    hf = HFTokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False, special_tokens=[])
    hf.train_from_iterator(texts, trainer)
    return json.loads(hf.to_str())


def write(tmp_path, d, name="tokenizer.json"):
    path = tmp_path / name
    path.write_text(json.dumps(d, ensure_ascii=False), encoding="utf-8")
    return path


def abc_table(merges, extra=(), ignore_merges=True) -> dict:
    """A small byte-level file: the 256 bytes in order, then ``extra`` tokens and the merges' tokens."""
    vocab = {B2U[b]: b for b in range(256)}
    for t in extra:
        vocab[t] = len(vocab)
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    d = huggingface_dict(Tokenizer([], pattern=None))
    d["model"]["vocab"] = vocab
    d["model"]["merges"] = [f"{a} {b}" for a, b in merges]
    d["model"]["ignore_merges"] = ignore_merges
    return d


# ---- the probes of the issue ------------------------------------------------------

def test_merge_order_that_contradicts_the_ranks_is_refused(tmp_path):
    # "bc" 256, "ab" 257, "abc" 258 made from "ab" + "c": by rank, "xabc" is x, bc, then a + bc
    # is the token "abc" (258); Hugging Face has no merge a + bc and gives [120, 97, 256]
    d = abc_table([("b", "c"), ("a", "b"), ("ab", "c")])
    assert HFTokenizer.from_str(json.dumps(d)).encode("xabc").ids == [120, 97, 256]
    with pytest.raises(ValueError, match=r"tokenizer\.json: model\.merges: token 258 \(b'abc'\) is made by no merge "
                                         r"\(97, 256\)"):
        from_huggingface(write(tmp_path, d))


def test_ignore_merges_false_with_a_token_no_merge_builds_is_refused(tmp_path):
    d = abc_table([("a", "b")], extra=["xyz"], ignore_merges=False)
    assert HFTokenizer.from_str(json.dumps(d)).encode("xyz").ids == [120, 121, 122]  # never 256
    with pytest.raises(ValueError, match=r"token 256 \(b'xyz'\) is not made by merging its own bytes, and the reader "
                                         r"has no whole-chunk rule \(ignore_merges\)"):
        from_huggingface(write(tmp_path, d))
    d["model"]["ignore_merges"] = True  # then both give the whole chunk its token
    assert from_huggingface(write(tmp_path, d)).encode("xyz") == HFTokenizer.from_str(json.dumps(d)).encode("xyz").ids


@pytest.mark.parametrize("bad_id, kind", [(97.5, "float"), (-3, "int"), (True, "bool"), ("97", "str")])
def test_an_id_that_is_not_a_non_negative_integer_is_refused(tmp_path, bad_id, kind):
    d = abc_table([("a", "b")])
    d["model"]["vocab"]["a"] = bad_id
    with pytest.raises(ValueError, match=rf"tokenizer\.json: model\.vocab\['a'\] has id .*\({kind}\)"):
        from_huggingface(write(tmp_path, d))
    d = abc_table([("a", "b")])
    d["added_tokens"] = [{"id": bad_id, "content": "<|x|>", "special": True}]
    with pytest.raises(ValueError, match=rf"added_tokens\[0\] has id .*\({kind}\)"):
        from_huggingface(write(tmp_path, d))


def test_duplicates_missing_bytes_and_an_empty_vocabulary_are_refused(tmp_path):
    d = abc_table([("a", "b")])
    d["model"]["vocab"]["ab"] = 97  # two tokens with id 97
    with pytest.raises(ValueError, match=r"model\.vocab gives id 97 to both 'a' and 'ab'"):
        from_huggingface(write(tmp_path, d))
    d = abc_table([("a", "b")])
    del d["model"]["vocab"][B2U[7]]
    with pytest.raises(ValueError, match=r"model\.vocab has no token for 1 of the 256 bytes \(the first: byte 7"):
        from_huggingface(write(tmp_path, d))
    d["model"]["vocab"] = {}
    with pytest.raises(ValueError, match=r"model\.vocab is '\{\}'"):
        from_huggingface(write(tmp_path, d))
    # a key twice in one object: json.loads would keep the last silently
    text = json.dumps(abc_table([("a", "b")])).replace('"a": 97,', '"a": 97, "a": 98,', 1)
    (tmp_path / "twice.json").write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=r"twice\.json: not a tokenizer\.json: the key 'a' appears twice"):
        from_huggingface(tmp_path / "twice.json")


def test_json_readers_cap_what_they_read(tmp_path):
    for name, reader in (("big.json", Tokenizer.load), ("tokenizer.json", from_huggingface)):
        path = tmp_path / name
        with open(path, "wb") as f:
            f.truncate(300 << 20)  # a sparse file: 300 MB on paper, nothing on disk
        with pytest.raises(ValueError, match=rf"{name}: 314,572,800 bytes, more than the 268,435,456"):
            reader(path)


def test_json_load_refuses_version_true(tmp_path):
    path = tmp_path / "t.json"
    Tokenizer([((97, 98), 256)]).save(path)
    d = json.loads(path.read_text(encoding="utf-8"))
    d["version"] = True  # True == 1 in Python
    path.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(ValueError, match="version True is not supported"):
        Tokenizer.load(path)


# ---- the differential test: refused, or tokenizers' ids ---------------------------

def mutate(d: dict, rng) -> tuple[dict, str]:
    """One random change of a consistent file (or none); returns the file and its name."""
    d = json.loads(json.dumps(d))
    model, merges = d["model"], d["model"]["merges"]
    vocab = model["vocab"]
    kind = rng.choice(["none", "swap merges", "drop merge", "extra token", "ignore_merges", "renumber",
                       "reorder merge", "float id", "drop byte", "duplicate id", "merge other split"])
    long = [t for t, i in vocab.items() if len(t) > 1]
    if kind == "swap merges" and len(merges) > 1:
        k = rng.randrange(len(merges) - 1)
        merges[k], merges[k + 1] = merges[k + 1], merges[k]
    elif kind == "drop merge" and merges:
        merges.pop(rng.randrange(len(merges)))
    elif kind == "extra token":
        a, b = rng.choice(list(vocab)), rng.choice(list(vocab))
        vocab.setdefault(a + b, max(vocab.values()) + 1)
    elif kind == "ignore_merges":
        model["ignore_merges"] = not model.get("ignore_merges", False)
    elif kind == "renumber" and len(long) > 1:
        s, t = rng.sample(long, 2)
        vocab[s], vocab[t] = vocab[t], vocab[s]
    elif kind == "reorder merge" and len(merges) > 2:
        merges.insert(rng.randrange(len(merges)), merges.pop(rng.randrange(len(merges))))
    elif kind == "float id":
        t = rng.choice(list(vocab))
        vocab[t] = vocab[t] + 0.5
    elif kind == "drop byte":
        del vocab[B2U[rng.choice(b"abcx ")]]
    elif kind == "duplicate id" and long:
        vocab[rng.choice(long)] = rng.randrange(256)
    elif kind == "merge other split" and merges:
        # replace a merge by another split of the same token, when one exists
        k = rng.randrange(len(merges))
        a, b = merges[k].split(" ") if isinstance(merges[k], str) else merges[k]
        for cut in range(1, len(a + b)):
            x, y = (a + b)[:cut], (a + b)[cut:]
            if (x, y) != (a, b) and x in vocab and y in vocab:
                merges[k] = f"{x} {y}"
                break
    return d, kind


def random_text(rng) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 40)))


def test_generated_files_are_refused_or_give_tokenizers_ids(tmp_path, backend):
    rng = random.Random(39)
    counts = {"refused": 0, "equal": 0}
    kinds_equal, kinds_refused = set(), set()
    for case in range(80):
        texts = [random_text(rng) for _ in range(30)]
        base = hf_trained(texts, 256 + rng.randint(3, 30))
        d, kind = mutate(base, rng)
        text = json.dumps(d, ensure_ascii=False)
        path = write(tmp_path, d, f"case{case}.json")
        try:
            hf = HFTokenizer.from_str(text)
        except Exception:
            hf = None
        try:
            ours = from_huggingface(path)
        except ValueError as e:
            assert str(e).startswith(str(path)), e  # the message names the file
            counts["refused"] += 1
            kinds_refused.add(kind)
            continue
        assert hf is not None, f"{kind}: tokenizers refuses this file, we loaded it"
        ours.backend = backend
        for _ in range(40):
            s = random_text(rng)
            assert ours.encode_ordinary(s) == hf.encode(s).ids, (kind, s)
        counts["equal"] += 1
        kinds_equal.add(kind)
    assert counts["refused"] >= 10 and counts["equal"] >= 10, counts
    assert "none" in kinds_equal and {"swap merges", "float id", "drop byte"} <= kinds_refused, (
        kinds_equal, kinds_refused)


# ---- issue 48: added-token flags honoured or refused; an added token merges make ------

def with_mask(**flags) -> dict:
    d = abc_table([("a", "b")])
    d["model"]["vocab"]["<mask>"] = 300
    d["added_tokens"] = [{"id": 300, "content": "<mask>", "special": True, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False} | flags]
    return d


@pytest.mark.parametrize("flag", ["lstrip", "rstrip", "single_word"])
def test_added_token_flags_that_move_the_match_are_refused(tmp_path, flag, backend):
    text = "ab <mask> ab"
    d = with_mask(**{flag: True})
    hf_flagged = HFTokenizer.from_str(json.dumps(d)).encode(text).ids
    plain = from_huggingface(write(tmp_path, with_mask()))  # all flags false: read, and tokenizers' ids
    plain.backend = backend
    exact = plain.encode(text, allowed_special="all")
    assert exact == HFTokenizer.from_str(json.dumps(with_mask())).encode(text).ids
    if flag != "single_word":  # (here "<mask>" stands between spaces: a whole word either way)
        assert hf_flagged != exact  # the flag changes tokenizers' ids: it cannot be ignored
    with pytest.raises(ValueError, match=rf"tokenizer\.json: added_tokens\[0\] \('<mask>'\) has {flag} true"):
        from_huggingface(write(tmp_path, d))


def test_normalized_false_is_refused_where_the_normalizer_can_make_the_token(tmp_path):
    d = with_mask()
    d["normalizer"] = {"type": "NFKC"}
    # full-width "＜mask＞" becomes "<mask>" under NFKC: matched before it (tokenizers) or after (us)
    assert 300 not in HFTokenizer.from_str(json.dumps(d)).encode("ab ＜mask＞").ids
    with pytest.raises(ValueError, match=r"added_tokens\[0\] \('<mask>'\) has normalized false: .* NFKC"):
        from_huggingface(write(tmp_path, d))
    d["normalizer"] = {"type": "NFC"}  # NFC never makes "<mask>" from other text: read
    assert from_huggingface(write(tmp_path, d)).special_tokens == {"<mask>": 300}


def test_an_added_token_that_merges_also_make_is_named(tmp_path):
    d = abc_table([("a", "b")])
    d["added_tokens"] = [{"id": 256, "content": "ab", "special": True}]  # the same id and text as the merge's
    with pytest.raises(ValueError, match=r"model\.merges\[0\] joins or makes id 256, which is the added token 'ab'"):
        from_huggingface(write(tmp_path, d))
