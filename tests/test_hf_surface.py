"""Hugging Face ``tokenizers``' everyday names on our Tokenizer, checked against ``tokenizers`` itself.

The reference is Hugging Face's own Rust tokenizer loading the ``tokenizer.json``
that ``save_huggingface`` writes for the same vocabulary: our own tokenizer trained
on Python's standard library (small, so multibyte characters fall into several
tokens), and GPT-4's cl100k_base. Each test compares token strings, ids, vocabularies
or character offsets with what ``tokenizers`` gives.
"""

import pytest

import bpe_lesson
from bpe_lesson.formats.huggingface import save_huggingface
from bpe_lesson.formats.pretrained import from_pretrained
from bpe_lesson.teaching.samples import MULTILINGUAL

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
TRICKY = ["", "é", "😀😀 x", "a\u0301b ﬁ ḱ 🤖", "<|im_start|>user\nhé<|im_end|>\n😀<|endoftext|>",
          "  \n\t x  ", "Καλημέρα κόσμε, привет мир, مرحبا بالعالم, 你好世界"]


@pytest.fixture(scope="module", params=["trained", "cl100k_base"])
def pair(request, stdlib_docs, tmp_path_factory):
    """(ours, tokenizers.Tokenizer loaded from our export of it)."""
    import tokenizers

    if request.param == "trained":
        ours = bpe_lesson.train(stdlib_docs[:60], 1500, pattern="gpt4", special_tokens=SPECIALS)
    else:
        ours = from_pretrained("cl100k_base")
    path = save_huggingface(ours, tmp_path_factory.mktemp("hf"))
    return ours, tokenizers.Tokenizer.from_file(path)


@pytest.fixture
def on(pair, backend):
    """``pair`` with our tokenizer on one backend (put back after the test)."""
    ours, ref = pair
    before, ours.backend = ours.backend, backend
    yield ours, ref
    ours.backend = before


def test_get_vocab_and_its_size(pair):
    ours, ref = pair
    assert ours.get_vocab() == ours.get_vocab(with_added_tokens=True) == ref.get_vocab(with_added_tokens=True)
    added = set(ref.get_added_tokens_decoder())
    # our export also lists the special tokens in the model's vocabulary (so Hugging Face keeps
    # their ids): the ordinary tokens are Hugging Face's vocabulary less its added tokens
    assert ours.get_vocab(with_added_tokens=False) == {s: i for s, i in ref.get_vocab().items() if i not in added}
    assert ours.get_vocab_size() == ref.get_vocab_size(with_added_tokens=True)
    assert ours.get_vocab_size(with_added_tokens=False) == len(ref.get_vocab()) - len(added)


def test_token_to_id_and_id_to_token(pair):
    ours, ref = pair
    for token, i in ref.get_vocab().items():
        assert ours.token_to_id(token) == ref.token_to_id(token) == i, token
    for token in ("", " the", "zzzzqqqzzz", "<|nope|>", "ĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠĠ", "中"):
        assert ours.token_to_id(token) == ref.token_to_id(token), token
    for i in range(ours.n_vocab + 3):  # every id, the gaps between special tokens, and past the end
        assert ours.id_to_token(i) == ref.id_to_token(i), i


def test_offsets_are_hugging_faces(on, stdlib_docs):
    ours, ref = on
    texts = [d[:3000] for d in stdlib_docs[60:90]] + list(MULTILINGUAL.values()) + TRICKY
    shared = 0  # tokens that hold part of a character, so share its span with a neighbour
    for text in texts:
        want = ref.encode(text)
        ids, offsets = ours.encode_with_offsets(text, allowed_special="all")
        assert ids == want.ids
        assert offsets == want.offsets, text[:60]
        shared += sum(a[1] > b[0] for a, b in zip(offsets, offsets[1:]))
    assert shared > 0  # the texts reach the case where the two rules could differ


def test_offsets_keep_encodes_options_and_refuse_changed_normalized_text(backend):
    tok = bpe_lesson.Tokenizer([], pattern="gpt4", special_tokens={"<|end|>": 256}, normalize="NFC",
                               backend=backend)
    with pytest.raises(ValueError, match=r"special token '<\|end\|>' at character 1, which is disallowed"):
        tok.encode_with_offsets("a<|end|>")
    assert tok.encode_with_offsets("é", allowed_special="all") == ([195, 169], [(0, 1), (0, 1)])
    with pytest.raises(ValueError, match="NFC-normalizes"):
        tok.encode_with_offsets("e\u0301")
