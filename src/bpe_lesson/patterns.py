"""Pre-tokenization: cut text into chunks before BPE ever sees it.

A split pattern is a regular expression; every match is one chunk, and BPE merges
never cross a chunk boundary (so " dog." can never become one token with the
space, the word and the full stop). Special tokens such as ``<|endoftext|>`` are
cut out of the raw text *before* the pattern runs.

What this module does not do: it counts nothing and merges nothing (see
``chunks.py`` and the trainers), and it knows no byte-level tricks: chunks are
``str``; the caller turns them into UTF-8 bytes.
"""

from __future__ import annotations

import regex

# GPT-2's pattern as tiktoken writes it for r50k_base / gpt2.
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""

# GPT-4's pattern: exactly tiktoken's cl100k_base pat_str.
GPT4_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""

# GPT-4o's pattern: exactly tiktoken's o200k_base pat_str.
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

PATTERNS = {"gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN, "o200k": O200K_PATTERN}


def resolve_pattern(pattern: str | None) -> str | None:
    """Turn a pattern name into the regex itself; pass a regex or None through.

    >>> resolve_pattern("gpt4") == GPT4_PATTERN
    True
    >>> resolve_pattern(None) is None
    True
    """
    if pattern is None:
        return None
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a name, a regex string or None, not {type(pattern).__name__}")
    if pattern in PATTERNS:
        return PATTERNS[pattern]
    # subtle: a bare word such as "gpt3" is a valid regex (it matches the text "gpt3"),
    # but it is far more likely a typo for a pattern name, so we refuse it.
    if pattern.isidentifier():
        raise ValueError(f"unknown pattern name {pattern!r}; use one of {sorted(PATTERNS)}, a regex, or None")
    try:
        regex.compile(pattern)
    except regex.error as e:
        raise ValueError(f"pattern {pattern!r} is not a valid regex: {e}") from None
    return pattern


_compiled: dict[str, regex.Pattern] = {}


def compile_pattern(pattern: str) -> regex.Pattern:
    """Compile (and cache) a split pattern with the third-party ``regex`` module (it knows ``\\p{L}``)."""
    c = _compiled.get(pattern)
    if c is None:
        c = _compiled[pattern] = regex.compile(pattern)
    return c


def split_chunks(text: str, pattern: str | None) -> list[str]:
    """Cut ``text`` into the chunks BPE trains and encodes on.

    >>> split_chunks("Hello world!!", "gpt4")
    ['Hello', ' world', '!!']
    >>> split_chunks("Hello world", None)
    ['Hello world']
    """
    pattern = resolve_pattern(pattern)
    if pattern is None:
        return [text] if text else []
    return compile_pattern(pattern).findall(text)


def special_regex(special_tokens) -> regex.Pattern | None:
    """One regex that finds any of the given special tokens; longest first so
    that "<|end|>" never hides "<|endoftext|>".
    """
    specials = sorted(special_tokens, key=len, reverse=True)
    if not specials:
        return None
    return regex.compile("|".join(regex.escape(s) for s in specials))


def split_specials(text: str, specials) -> list[tuple[str, bool]]:
    """Cut raw text at special tokens: a list of (piece, is_special).

    The one special-token cutter: training, encoding and packing all use it.
    ``specials`` is a list of special tokens or a regex from ``special_regex``
    (None or an empty list: no special tokens).

    >>> split_specials("a<|endoftext|>b", ["<|endoftext|>"])
    [('a', False), ('<|endoftext|>', True), ('b', False)]
    """
    rx = specials if (specials is None or isinstance(specials, regex.Pattern)) else special_regex(specials)
    if rx is None:
        return [(text, False)] if text else []
    out = []
    start = 0
    for m in rx.finditer(text):
        if m.start() > start:
            out.append((text[start : m.start()], False))
        out.append((m.group(), True))
        start = m.end()
    if start < len(text):
        out.append((text[start:], False))
    return out


def ordinary_pieces(text: str, specials) -> list[str]:
    """The text between special tokens: what training counts (specials are never counted).

    >>> ordinary_pieces("a<|endoftext|>b", ["<|endoftext|>"])
    ['a', 'b']
    """
    return [piece for piece, special in split_specials(text, specials) if not special]
