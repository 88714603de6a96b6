"""Special tokens a hostile user writes (issue 39, item 2 and the low items).

Text is normalized before special tokens are looked for, so a special token that
the form changes (``"<|e\\u0301|>"`` under NFC) could never be found: it encoded as
plain bytes with ``allowed_special="all"``, the disallowed default did not raise,
and the Hugging Face export (which normalizes the added token too) gave its id.
Now such a token is refused where a tokenizer is made: construction, ``train``,
``load`` and every import. The reference for the accepted ones is ``tokenizers``.
"""

import json
import unicodedata

import pytest

from bpe_lesson import Tokenizer, train
from bpe_lesson.formats.huggingface import from_huggingface, huggingface_dict, to_huggingface

DECOMPOSED = "<|e\u0301|>"  # NFC composes it to "<|\u00e9|>"


@pytest.mark.parametrize("form", ["NFC", "NFKC"])
def test_a_special_token_the_form_changes_is_refused(backend, form):
    assert unicodedata.normalize(form, DECOMPOSED) != DECOMPOSED
    with pytest.raises(ValueError, match=rf"special_tokens: '<\|e\u0301\|>' changes under {form}"):
        Tokenizer([], special_tokens={DECOMPOSED: 256}, normalize=form, backend=backend)
    with pytest.raises(ValueError, match=f"changes under {form}"):
        train(["caf\u00e9 " * 20], 270, special_tokens=[DECOMPOSED], normalize=form, backend=backend)


def test_a_special_token_the_form_keeps_gives_the_hugging_face_export_ids(backend):
    composed = unicodedata.normalize("NFC", DECOMPOSED)
    tok = Tokenizer([((99, 97), 256)], pattern="gpt4", special_tokens={composed: 257}, normalize="NFC",
                    backend=backend)
    text = "ca" + DECOMPOSED + " ca" + composed  # the decomposed spelling normalizes into the token
    assert tok.encode(text, allowed_special="all") == to_huggingface(tok).encode(text).ids == [256, 257, 32, 256,
                                                                                              257]
    with pytest.raises(ValueError, match="disallowed"):  # before: the default call encoded bytes silently
        tok.encode(text)


def test_the_rule_holds_on_load_and_import(tmp_path):
    composed = unicodedata.normalize("NFC", DECOMPOSED)
    tok = Tokenizer([], special_tokens={composed: 256}, normalize="NFC")
    path = tmp_path / "t.json"
    tok.save(path)
    d = json.loads(path.read_text(encoding="utf-8"))
    d["special_tokens"] = {DECOMPOSED: 256}
    path.write_text(json.dumps(d, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ValueError, match=r"t\.json.*'special_tokens'.*changes under NFC"):
        Tokenizer.load(path)
    hf = huggingface_dict(tok)
    hf["added_tokens"][0]["content"] = DECOMPOSED
    hf["model"]["vocab"] = {k if k != composed else DECOMPOSED: v for k, v in hf["model"]["vocab"].items()}
    (tmp_path / "tokenizer.json").write_text(json.dumps(hf, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ValueError, match="changes under NFC"):
        from_huggingface(tmp_path / "tokenizer.json")


def test_a_lone_surrogate_special_token_is_refused_as_load_refuses_it(backend):
    with pytest.raises(ValueError, match=r"special_tokens: '<\|\\ud800\|>' holds a lone surrogate"):
        Tokenizer([], special_tokens={"<|\ud800|>": 256}, backend=backend)


def test_a_duplicate_merge_is_reported_as_a_merge(tmp_path):
    path = tmp_path / "t.json"
    Tokenizer([((97, 98), 256)]).save(path)
    d = json.loads(path.read_text(encoding="utf-8"))
    d["merges"].append([97, 98, 257])
    path.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(ValueError, match=r"t\.json.*merge 1 repeats merge 0 \(97, 98\)") as e:
        Tokenizer.load(path)
    assert "special" not in str(e.value)  # before: "'special_tokens': two ids ... have the same bytes"
