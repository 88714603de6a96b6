"""The per-call fast path (``Tokenizer._plan``, ``Encoder.encode_unless_special``): a call
whose arguments the compiled encoder can take whole gives tiktoken's ids and tiktoken's
refusals, whatever form the arguments take, on each backend, on the first call and on
the calls after it (when the plan is kept)."""

import numpy as np
import pytest
import tiktoken

import bpe_lesson
from bpe_lesson import Tokenizer
from bpe_lesson.formats.pretrained import from_pretrained

EOT = "<|endoftext|>"
TEXTS = ["", "a", "hello world", "x" * 70, "caf\u00e9 \u4f60\u597d \U0001F600", "lone \ud800 surrogate",
         "  \n\n\tcode()\n", "<|endof", "<|endoftext", "a <| b |> c", "\u00e9" * 300,
         "def f(x):\n    return x + 1\n" * 30]
ARGUMENTS = [  # (allowed_special, disallowed_special): the same sets, written in several forms
    ((), "all"), (set(), "all"), (frozenset(), "all"), ([], "all"),
    ((), ()), ((), set()), ("all", "all"), ({EOT}, "all"), ([EOT], ()), (frozenset({EOT}), set()),
    ((), {EOT}), ((), [EOT]), ((), frozenset({EOT})),
]


@pytest.fixture(scope="module", params=["cl100k_base", "o200k_base"])
def vocab(request):
    tok = from_pretrained(request.param)
    ref = tiktoken.Encoding(request.param, pat_str=tok.pattern, special_tokens=tok.special_tokens,
                            mergeable_ranks={b: i for i, b in tok.vocab.items()})
    return tok, ref


def _tiktoken(ref, text, allowed, disallowed):
    """tiktoken's ids, or the type of what it raised."""
    try:
        return ref.encode(text, allowed_special=set(allowed) if allowed != "all" else "all",
                          disallowed_special=set(disallowed) if disallowed != "all" else "all")
    except ValueError:
        return ValueError


def _ours(call, text, allowed, disallowed, **kw):
    try:
        got = call(text, allowed_special=allowed, disallowed_special=disallowed, **kw)
    except ValueError:
        return ValueError
    return got.tolist() if isinstance(got, np.ndarray) else got


@pytest.mark.parametrize("allowed, disallowed", ARGUMENTS)
def test_every_form_of_the_arguments_gives_tiktokens_answer(vocab, backend, allowed, disallowed):
    tok, ref = vocab
    tok = Tokenizer(None, pattern=tok.pattern, special_tokens=tok.special_tokens, vocab=tok.vocab, backend=backend)
    for text in TEXTS + [f"a {EOT} b", f"{EOT}", f"\u4f60{EOT}\u597d", f"{EOT[:-1]}{EOT}"]:
        want = _tiktoken(ref, text, allowed, disallowed)
        for _ in range(2):  # the first call works the plan out, the second uses the kept one
            assert _ours(tok.encode, text, allowed, disallowed) == want, (text, allowed, disallowed)
            assert _ours(tok.encode_to_numpy, text, allowed, disallowed) == want, (text, allowed, disallowed)
            if want is not ValueError:
                assert _ours(tok.encode_to_numpy, text, allowed, disallowed, dtype="uint32") == want
                assert tok.encode_to_numpy(text, allowed_special=allowed, disallowed_special=disallowed).dtype \
                    == np.uint32


def test_encode_ordinary_and_iterable_agree_with_tiktoken(vocab, backend):
    tok, ref = vocab
    tok = Tokenizer(None, pattern=tok.pattern, special_tokens=tok.special_tokens, vocab=tok.vocab, backend=backend)
    for text in TEXTS + [f"a {EOT} b"]:
        for _ in range(2):
            assert tok.encode_ordinary(text) == ref.encode_ordinary(text)
            assert list(tok.encode_iterable([text], disallowed_special=())) == ref.encode_ordinary(text)


def test_bad_arguments_are_refused_on_every_call(vocab):
    tok, _ = vocab
    for _ in range(3):  # a refusal is never kept as a plan
        with pytest.raises(ValueError, match="which this tokenizer does not have"):
            tok.encode("hi", allowed_special={"<|nope|>"})
        with pytest.raises(TypeError, match="write allowed_special="):
            tok.encode("hi", allowed_special=EOT)
        with pytest.raises(TypeError, match="encode takes a str"):
            tok.encode(b"hi")
        with pytest.raises(ValueError, match=r"special token '<\|endoftext\|>' at character 3"):
            tok.encode_to_numpy(f"hi {EOT}")


def test_a_switched_backend_gives_the_same_ids(vocab):
    tok, ref = vocab
    tok = Tokenizer(None, pattern=tok.pattern, special_tokens=tok.special_tokens, vocab=tok.vocab)
    backends = ("python", "cython", "python") if bpe_lesson.BACKEND == "cython" else ("python",)
    for backend in backends:
        tok.backend = backend  # the kept plans go with the old backend
        assert tok.encode("hello world") == ref.encode("hello world")
        with pytest.raises(ValueError, match="disallowed"):
            tok.encode(EOT)


def test_a_normalizing_tokenizer_still_normalizes(backend):
    # a form set: the plan must not skip normalization (NFC turns e + U+0301 into U+00E9)
    tok = Tokenizer([], pattern="gpt4", normalize="NFC", backend=backend)
    assert tok.encode("e\u0301") == list("\u00e9".encode())
    assert tok.encode_to_numpy("e\u0301").tolist() == list("\u00e9".encode())


def test_many_distinct_argument_sets_keep_few_plans(vocab):
    tok, ref = vocab
    for k in range(200):
        assert tok.encode("hi", disallowed_special={EOT} if k % 2 else set()) == ref.encode("hi")
    assert len(tok._plans) <= 64
