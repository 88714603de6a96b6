"""Tokenizer: encode/decode round trips, special tokens, rank semantics, save/load, errors."""

import json
import re

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_lesson
from bpe_lesson import Tokenizer
from bpe_lesson.patterns import GPT4_PATTERN
from bpe_lesson.teaching.samples import MULTILINGUAL, code_files, prose_topics

TRICKY = [
    "",
    "hello world",
    "👩‍👩‍👧‍👦 family, 🇫🇷 flag, 😀!",
    "\u0301 a lone combining acute, e\u0301 decomposed, é composed",
    "    indented\n\n\n\tcode = 1  \r\n",
    "a" * 500,
    "Straße 123456789 ½ ² ﬁ",
] + list(MULTILINGUAL.values())


@pytest.fixture(scope="module")
def trained(request):
    """One tokenizer per (backend, pattern), trained on real prose and code."""
    cache = {}

    def get(backend, pattern="gpt4"):
        key = (backend, pattern)
        if key not in cache:
            docs = list(prose_topics().values())[:40] + list(code_files(150_000).values())
            if pattern is None:  # each document is one long chunk: keep it small for the Python trainer
                docs = [d[:3000] for d in docs[:20]]
            cache[key] = bpe_lesson.train(docs, 1024, pattern=pattern, special_tokens=["<|endoftext|>"],
                                          backend=backend)
        return cache[key]

    return get


@pytest.mark.parametrize("pattern", ["gpt4", "gpt2", "o200k", None])
def test_round_trip_on_tricky_text(trained, backend, pattern):
    tok = trained(backend, pattern)
    for s in TRICKY:
        assert tok.decode(tok.encode(s)) == s


@settings(max_examples=200, deadline=None)
@given(s=st.text())
def test_round_trip_on_arbitrary_unicode(trained, backend, s):
    tok = trained(backend)
    ids = tok.encode(s, disallowed_special=())
    assert tok.decode(ids) == s
    assert tok.decode_bytes(ids) == s.encode("utf-8")


def test_encode_is_the_same_for_both_backends(trained, stdlib_docs):
    if bpe_lesson.BACKEND == "python":
        pytest.skip("BPE_LESSON_PUREPYTHON=1")
    a, b = trained("python"), trained("cython")
    assert a.merges == b.merges
    # independent: rustbpe trained on the same documents, and tiktoken encoding with its ranks
    rustbpe = pytest.importorskip("rustbpe")
    peer = rustbpe.Tokenizer()
    docs = list(prose_topics().values())[:40] + list(code_files(150_000).values())  # as the fixture
    n = 256 + len(a.merges)
    peer.train_from_iterator(iter(docs), n, pattern=GPT4_PATTERN)
    ranks = dict(peer.get_mergeable_ranks())  # bytes -> rank
    assert [a.vocab[i] for i in range(n)] == sorted(ranks, key=ranks.get)
    enc = tiktoken.Encoding(name="rustbpe_ranks", pat_str=GPT4_PATTERN, mergeable_ranks=ranks, special_tokens={})
    text = stdlib_docs[0][:20000]
    want = enc.encode_ordinary(text)
    assert a.encode(text) == want and b.encode(text) == want


def test_ids_equal_tiktoken_built_from_our_ranks(trained, backend, prose_docs):
    tok = trained(backend)
    enc = tiktoken.Encoding(name="ours", pat_str=tok.pattern,
                            mergeable_ranks={b: i for i, b in tok.vocab.items()},
                            special_tokens=tok.special_tokens)
    for s in TRICKY + prose_docs[50:55]:
        assert tok.encode(s) == enc.encode(s)
    s = "x<|endoftext|>y"
    assert tok.encode(s, allowed_special="all") == enc.encode(s, allowed_special="all")


def test_rank_semantics_join_the_lowest_ranked_pair_first():
    # "ab" (256) and "bc" (257), then "abc" (258): in "abcd" the pair "ab" has the lowest rank
    tok = Tokenizer([((97, 98), 256), ((98, 99), 257), ((256, 99), 258)], pattern=None)
    assert tok.encode("abcd") == [258, 100]
    assert tok.encode("bcd") == [257, 100]


# ---- special tokens ----------------------------------------------------------------

def test_disallowed_special_token_raises_and_names_it(trained, backend):
    tok = trained(backend)
    with pytest.raises(ValueError, match=r"<\|endoftext\|>"):
        tok.encode("before <|endoftext|> after")


def first_special_by_hand(text, tokens):
    """The leftmost special token in text, the longest one there: (at, token) or None."""
    for at in range(len(text)):
        for token in sorted(tokens, key=len, reverse=True):
            if text.startswith(token, at):
                return at, token
    return None


@pytest.mark.parametrize("tokens", [
    ["<|a|>", "<|ab|>", "<|ab"],    # a shared beginning ("<|"): found by substring search
    ["[x]", "<y>", "[x"],           # none: found by the regex
])
@settings(max_examples=200, deadline=None)
@given(parts=st.lists(st.sampled_from(["<|", "<|a", "<|ab", "|>", "<", "x]", "[x", "<y>", "[x]", " ", "b", "c|>",
                                             "\ud800"]),
                      max_size=12))
def test_the_first_disallowed_special_token_is_named_at_its_place(tokens, parts, backend):
    tok = Tokenizer([], special_tokens={t: 256 + k for k, t in enumerate(tokens)}, backend=backend)
    text = "".join(parts)
    expected = first_special_by_hand(text, tokens)
    if expected is None:   # its bytes, a lone surrogate as U+FFFD (as tiktoken does)
        assert tok.encode(text) == list(text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode())
        return
    at, token = expected
    with pytest.raises(ValueError, match=f"special token {re.escape(repr(token))} at character {at},"):
        tok.encode(text)
    with pytest.raises(ValueError, match=f"at character {at},"):
        tok.encode_to_numpy(text)


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(st.lists(st.sampled_from(["<|", "<|a", "<|ab", "|>", "<", " ", "b", "c|>", "é"]),
                               max_size=8).map("".join), max_size=7),
       threads=st.sampled_from([1, 2, 3]))
def test_a_batch_names_the_first_special_token_of_the_first_text_that_has_one(texts, threads, backend):
    # the compiled search looks through a share's texts in one call, and the shares
    # run at once: still the first text (in order) with a token, and its first token
    tokens = ["<|a|>", "<|ab|>", "<|ab"]
    tok = Tokenizer([], special_tokens={t: 256 + k for k, t in enumerate(tokens)}, backend=backend)
    first = next((hit for hit in (first_special_by_hand(t, tokens) for t in texts) if hit), None)
    if first is None:
        assert tok.encode_batch(texts, num_threads=threads) == [list(t.encode()) for t in texts]
        return
    at, token = first
    with pytest.raises(ValueError, match=f"special token {re.escape(repr(token))} at character {at},"):
        tok.encode_batch(texts, num_threads=threads)


def test_a_special_token_is_found_at_every_offset(backend, simd):
    # the compiled search takes 16 bytes a step (SSE2) or 32 (AVX2): put the token on
    # either side of every step
    tokens = ["<|a|>", "<|ab|>"]
    tok = Tokenizer([], special_tokens={"<|a|>": 256, "<|ab|>": 257}, backend=backend)
    one = Tokenizer([], special_tokens={"<|a|>": 256}, backend=backend)   # searched for whole
    for pad in ("x", "<", "|", "<|", "é", "<|a"):
        for k in range(72):
            text = (pad * k)[:k] + "<|ab|>" + pad + "<|a|>"
            at, token = first_special_by_hand(text, tokens)
            with pytest.raises(ValueError, match=f"special token {re.escape(repr(token))} at character {at},"):
                tok.encode(text)
            # the only token, at the text's very end
            with pytest.raises(ValueError, match=f"special token '<\\|a\\|>' at character {k},"):
                one.encode((pad * k)[:k].replace("<", "x") + "<|a|>")


def test_allowed_special_token_becomes_its_id(trained, backend):
    tok = trained(backend)
    eot = tok.special_tokens["<|endoftext|>"]
    ids = tok.encode("a cat<|endoftext|>a dog", allowed_special={"<|endoftext|>"})
    assert ids == tok.encode("a cat") + [eot] + tok.encode("a dog")
    assert tok.decode(ids) == "a cat<|endoftext|>a dog"
    # with the check off, the same text is plain text: no special id appears
    plain = tok.encode("a cat<|endoftext|>a dog", disallowed_special=())
    assert eot not in plain and tok.decode(plain) == "a cat<|endoftext|>a dog"


def test_unknown_allowed_special_is_an_error(trained, backend):
    with pytest.raises(ValueError, match="<\\|nope\\|>"):
        trained(backend).encode("x", allowed_special={"<|nope|>"})


def test_special_tokens_are_never_merged_into_text(backend):
    text = "<|endoftext|>".join(["the cat sat"] * 200) + "<|endoftext|>"
    tok = bpe_lesson.train(text, 400, special_tokens=["<|endoftext|>"], backend=backend)
    assert not any(b"<|" in b or b"|>" in b or b"endoftext" in b for b in tok.vocab.values())
    ids = tok.encode(text, allowed_special="all")
    assert ids.count(tok.special_tokens["<|endoftext|>"]) == 200


# ---- save / load -----------------------------------------------------------------

def test_save_load_gives_the_same_ids(trained, backend, tmp_path, prose_docs):
    tok = trained(backend)
    path = tmp_path / "tok.json"
    tok.save(path)
    text = path.read_text(encoding="utf-8")
    assert '"merges": [\n  [' in text  # one merge per line: readable
    back = bpe_lesson.load(path)
    assert back.merges == tok.merges and back.pattern == tok.pattern
    assert back.special_tokens == tok.special_tokens
    for s in TRICKY + prose_docs[60:63]:
        assert back.encode(s) == tok.encode(s)
    assert not [p for p in tmp_path.iterdir() if p.name != "tok.json"]  # no temporary file left


def test_truncated_save_file_is_rejected(trained, backend, tmp_path):
    path = tmp_path / "tok.json"
    trained(backend).save(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="corrupt or truncated"):
        Tokenizer.load(path)


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(format="something else"), "format"),
    (lambda d: d.update(version=99), "version 99"),
    (lambda d: d["merges"].__setitem__(1, [97, 98, 999]), "merge 1 makes id 999, expected 257"),
    (lambda d: d["merges"].__setitem__(0, [97, 5000, 256]), "merge 0 joins ids 97 and 5000"),
    (lambda d: d["merges"].__setitem__(2, "x"), "merge 2 is 'x'"),
    (lambda d: d.update(special_tokens={"<|x|>": "one"}), "special_tokens"),
])
def test_corrupt_save_file_is_rejected_with_a_reason(tmp_path, mutate, message):
    tok = bpe_lesson.train("aaabdaaabac " * 20, 270, pattern=None)
    path = tmp_path / "tok.json"
    tok.save(path)
    d = json.loads(path.read_text())
    mutate(d)
    path.write_text(json.dumps(d))
    with pytest.raises(ValueError, match=message):
        Tokenizer.load(path)


# ---- bad input ---------------------------------------------------------------------

def test_vocab_size_below_256_is_an_error():
    with pytest.raises(ValueError, match="vocab_size 200 is below 256"):
        bpe_lesson.train("hello", 200)


def test_vocab_size_too_small_for_special_tokens():
    with pytest.raises(ValueError, match="no room"):
        bpe_lesson.train("hello", 257, special_tokens=["<|a|>", "<|b|>"])


def test_unknown_pattern_name_is_an_error():
    with pytest.raises(ValueError, match="unknown pattern name 'gpt5'"):
        bpe_lesson.train("hello", 300, pattern="gpt5")


def test_invalid_regex_is_an_error():
    with pytest.raises(ValueError, match="not a valid regex"):
        bpe_lesson.train("hello", 300, pattern="(unclosed")


def test_unknown_algorithm_and_backend_are_errors():
    with pytest.raises(ValueError, match="unknown algorithm 'fastest'"):
        bpe_lesson.train("hello", 300, algorithm="fastest")
    with pytest.raises(ValueError, match="unknown backend 'rust'"):
        bpe_lesson.train("hello", 300, backend="rust")


def test_decoding_an_unknown_id_names_the_id_and_the_size(trained, backend):
    tok = trained(backend)
    with pytest.raises(ValueError, match=r"id 130000 is not in this vocabulary \(size 1024"):
        tok.decode([104, 130000])
    with pytest.raises(ValueError, match="id -1 is not in this vocabulary"):
        tok.decode_bytes([-1])


def test_invalid_utf8_decodes_to_replacement_character():
    tok = Tokenizer([])
    assert tok.decode([0xF0, 0x9F]) == "\ufffd"
    assert tok.decode_bytes([0xF0, 0x9F]) == b"\xf0\x9f"


def test_documents_must_be_strings():
    with pytest.raises(TypeError, match="documents must be str"):
        bpe_lesson.train([b"bytes"], 300)


def test_lone_surrogates_become_replacement_characters_like_tiktoken(trained, backend):
    tok = trained(backend)
    enc = tiktoken.Encoding(name="ours", pat_str=tok.pattern,
                            mergeable_ranks={b: i for i, b in tok.vocab.items()},
                            special_tokens=tok.special_tokens)
    for s in ["a\ud800b", "\udfff", "x \ud83d y"]:
        assert tok.encode(s) == enc.encode(s)
        assert tok.encode_ordinary(s) == enc.encode_ordinary(s)
        assert tok.decode(tok.encode(s)) == s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def test_a_trained_tokenizer_encodes_on_the_backend_it_was_trained_on(backend):
    tok = bpe_lesson.train("the cat sat on the mat " * 20, 280, backend=backend)
    assert tok.backend == backend


def test_max_token_id_is_the_largest_id_with_or_without_special_tokens():
    # by hand: one merge makes id 256; a special token placed at 300 is then the largest
    assert Tokenizer([((97, 97), 256)], pattern=None).max_token_id == 256
    assert Tokenizer([((97, 97), 256)], pattern=None, special_tokens={"<|end|>": 300}).max_token_id == 300
