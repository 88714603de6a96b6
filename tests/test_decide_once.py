"""Each setting is decided once: one ``train()`` call resolves its pattern, backend,
normal form and special tokens once, and passes the resolved values down.

The calls are counted with ``sys.setprofile`` on the resolvers' code objects, so a
call is seen whoever makes it (a module that imported the function under its own
name, or the compiled extension calling back into Python).
"""

import sys
import warnings
from collections import Counter

import pytest

import bpe_lesson
from bpe_lesson import Tokenizer, train
from bpe_lesson._compiled import backend as _backend
from bpe_lesson import patterns
from bpe_lesson.tokenizer import core, special_tokens

RESOLVERS = {
    patterns.resolve_pattern.__code__: "resolve_pattern",
    patterns.check_pattern.__code__: "check_pattern",
    patterns.check_form.__code__: "check_form",
    patterns.check_specials_normalized.__code__: "check_specials_normalized",
    _backend.resolve_backend.__code__: "resolve_backend",
    special_tokens.check_special_tokens.__code__: "check_special_tokens",
    core.checked_merges.__code__: "checked_merges",
}
TEXT = ["the cat sat on the mat <|endoftext|> and the dog sat too", "caf\u00e9 cats and dogs " * 3] * 20


def calls(f):
    """(f's result, Counter of resolver name -> calls made while f ran)."""
    counted = Counter()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code in RESOLVERS:
            counted[RESOLVERS[frame.f_code]] += 1

    sys.setprofile(profile)
    try:
        out = f()
    finally:
        sys.setprofile(None)
    return out, counted


def test_calls_sees_a_resolver_called_under_another_name():
    # a check on the counter: every call counts, however the caller names the function
    from bpe_lesson.patterns import resolve_pattern as rp
    _, counted = calls(lambda: (rp("gpt4"), patterns.resolve_pattern(None)))
    assert counted == {"resolve_pattern": 2}


@pytest.mark.parametrize("pattern", ["gpt4", "o200k", r"\w+|\s+|[^\w\s]+", None])
@pytest.mark.parametrize("algorithm", ["incremental", "textbook"])
@pytest.mark.parametrize("normalize", [None, "NFC"])
def test_one_train_call_resolves_each_setting_once(backend, pattern, algorithm, normalize):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # StoppedShort on the small text: not what is counted
        tok, counted = calls(lambda: train(TEXT, 290, pattern=pattern, special_tokens=["<|endoftext|>"],
                                           algorithm=algorithm, backend=backend, normalize=normalize))
    assert tok.backend == backend and tok.normalize == normalize  # the settings reached the tokenizer
    assert max(counted.values()) <= 1, counted
    assert counted["resolve_pattern"] == counted["resolve_backend"] == counted["check_form"] == 1


def test_extending_resolves_each_setting_once(backend):
    base = train(TEXT, 280, special_tokens=["<|endoftext|>"], backend=backend)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, counted = calls(lambda: train(TEXT, 300, start_from=base, special_tokens=["<|pad|>"], backend=backend))
    assert max(counted.values()) <= 1, counted


@pytest.mark.parametrize("normalize", [None, "NFKC"])
def test_the_trained_tokenizer_is_the_one_the_constructor_makes(backend, normalize):
    # train builds its tokenizer from settings it decided (no second check); the public
    # constructor, checking everything, must make the same object from the same values
    tok = train(TEXT, 280, pattern="gpt4", special_tokens=["<|endoftext|>", "<|pad|>"], backend=backend,
                normalize=normalize)
    made = Tokenizer(tok.merges, pattern="gpt4", special_tokens=tok.special_tokens, normalize=normalize,
                     backend=backend)
    fields = lambda t: {k: v for k, v in vars(t).items() if k not in ("_fast", "_plans", "_plan_default")}  # noqa: E731
    assert fields(tok) == fields(made)
    assert sorted(vars(tok)) == sorted(vars(made))
    text = "the cat <|pad|> caf\u00e9"
    assert tok.encode(text, allowed_special="all") == made.encode(text, allowed_special="all")


@pytest.mark.skipif(bpe_lesson.BACKEND == "python", reason="the compiled plan needs the Cython backend")
def test_the_compiled_plan_checks_arguments_without_encoding():
    tok = train(TEXT, 280, special_tokens=["<|endoftext|>"], backend="cython")
    encode_steps = {Tokenizer._checked.__code__, Tokenizer._encode.__code__}
    seen = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code in encode_steps:
            seen.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        plan = tok._plan((), frozenset({"<|endoftext|>"}))
    finally:
        sys.setprofile(None)
    assert plan is not None and seen == []  # planned, and the Python encoder never ran
    with pytest.raises(TypeError, match="write allowed_special"):
        tok._plan("<|endoftext|>", "all")  # the argument checks still run
