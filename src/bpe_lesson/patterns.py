"""Pre-tokenization: normalize the text (optional), then cut it into chunks before
BPE ever sees it.

A split pattern is a regular expression; every match is one chunk, and BPE merges
never cross a chunk boundary (so " dog." can never become one token with the
space, the word and the full stop). Special tokens such as ``<|endoftext|>`` are
cut out of the raw text *before* the pattern runs.

A split pattern must *cover* the text: every character in some match. tiktoken
encodes only the matches and silently drops the rest (``"[a-z]+"`` turns "Hello,
World!" into "elloorld"); here ``check_pattern`` refuses such a pattern before it
is used for a tokenizer, and ``uncovered`` finds the first character a pattern
leaves out. ``check_pattern`` also refuses a pattern that backtracks exponentially
on short probes (``(a|aa)+$``); a pattern that passes can still be slow on text
unlike the probes, so a tokenizer file's pattern is only as safe as its author.

What this module does not do: it counts nothing and merges nothing (see
``chunks.py`` and the trainers), and it knows no byte-level tricks: chunks are
``str``; the caller turns them into UTF-8 bytes.
"""

from __future__ import annotations

import functools
import os
import re

import unicodedata

import regex

from ._internal.unicode_classes import exact_pattern, needs_exact

__all__ = ["GPT2_PATTERN", "GPT4_PATTERN", "O200K_PATTERN", "PATTERNS", "safe_cut",
           "resolve_pattern", "capture_group_error", "compile_pattern", "ExactSplitter",
           "COVERAGE_PROBE", "uncovered", "uncovered_error", "check_pattern",
           "split_chunks", "special_regex", "special_longest_first", "special_prefix",
           "split_specials", "ordinary_pieces", "FORMS", "check_form", "normalize_text",
           "changed_characters", "check_specials_normalized"]

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

# Safe cuts: places where text may be cut in two and each side split (and encoded) on
# its own with the chunks of the whole; the cut goes right after the matched "\n".
# gpt4: the next line has a visible ASCII character after its spaces and tabs (a blank
# next line would extend the run "\n\n"); o200k: the same, unless the next line starts
# with "/" (o200k lets a punctuation chunk run on into "\n//"); any other pattern: a
# visible ASCII character on both sides (GPT-2 chunks "\n  x" as "\n ", " x"). The
# YAML trainer cuts its sources there (scale/sources.py, whose tests check the rule on
# real text) and Tokenizer.encode_iterable cuts its stream there.
_SAFE_CUTS = {GPT4_PATTERN: r"\n(?=[ \t]*[!-~])", O200K_PATTERN: r"\n(?=[ \t]*[!-~])(?!/)"}
_STRICT_CUT = r"\n(?<=[!-~]\n)(?=[!-~])(?!/)"


@functools.lru_cache(maxsize=None)
def safe_cut(pattern: str | None, binary: bool = False) -> re.Pattern:
    """The safe cut points for a (resolved) split pattern, on ``str`` or on UTF-8 ``bytes``.

    >>> [m.end() for m in safe_cut(GPT4_PATTERN).finditer("a\\n  b\\n\\nc\\n")]
    [2, 7]
    """
    source = _SAFE_CUTS.get(pattern, _STRICT_CUT)
    return re.compile(source.encode() if binary else source)


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
        compiled = regex.compile(pattern)
    except regex.error as e:
        raise ValueError(f"pattern {pattern[:60]!r} is not a valid regex: {e}") from None
    if compiled.groups:
        raise capture_group_error(pattern, compiled.groups)
    return pattern


def capture_group_error(pattern: str, groups: int) -> ValueError:
    r"""The error for a split pattern with capture groups.

    subtle: ``findall`` on a pattern with a group returns the group, not the match,
    so the chunks would lose the text outside it ("(a)b" gives "a" for "ab"), while
    tiktoken and Hugging Face take the whole match. Refused, never guessed at.

    >>> resolve_pattern(r"(a)b|\s+|[^\s]")
    Traceback (most recent call last):
    ValueError: split pattern '(a)b|\\s+|[^\\s]' has 1 capture group; ...
    """
    return ValueError(f"split pattern {pattern[:60]!r} has {groups} capture group{'s' if groups > 1 else ''}; a "
                      f"chunk is the whole match, so write each group non-capturing, (?:...) instead of (...)")


_compiled: dict[str, regex.Pattern] = {}


def compile_pattern(pattern: str) -> regex.Pattern:
    """Compile (and cache) a split pattern with the third-party ``regex`` module (it knows ``\\p{L}``).

    subtle: a named pattern is compiled with its classes written out as the ranges
    of tiktoken's Unicode tables (``unicode_classes.exact_pattern``), not with the
    ``regex`` module's own, newer tables, so its chunks are tiktoken's on every
    code point. ``pattern`` itself (what files store) stays tiktoken's string.
    """
    c = _compiled.get(pattern)
    if c is None:
        c = _compiled[pattern] = ExactSplitter(pattern) if pattern in PATTERNS.values() else regex.compile(pattern)
    return c


class ExactSplitter:
    """A named pattern, compiled twice: with the ``regex`` module's own classes (fast) and
    with tiktoken's written out as ranges (exact, 10-30x slower); ``findall`` and
    ``finditer`` use the exact one only for text that holds a code point the two
    tables disagree about (``unicode_classes.needs_exact``), where the chunks differ.

    >>> ExactSplitter(GPT2_PATTERN).findall("\u05c8'z")   # U+05C8 is unassigned for tiktoken: no letter
    ["\\u05c8'", 'z']
    """

    def __init__(self, pattern: str):
        self.pattern = pattern
        self.fast = regex.compile(pattern)
        self._exact = None

    @property
    def exact(self) -> regex.Pattern:
        if self._exact is None:
            self._exact = regex.compile(exact_pattern(self.pattern))  # ~0.3 s, once
        return self._exact

    def _for(self, text):
        return self.exact if needs_exact(text) else self.fast

    def findall(self, text, *args, **kwargs):
        return self._for(text).findall(text, *args, **kwargs)

    def finditer(self, text, *args, **kwargs):
        return self._for(text).finditer(text, *args, **kwargs)


# common text that any split pattern must cover whole: ASCII, accents, CJK, Greek,
# Arabic digits, a combining mark, an emoji, no-break space, CRLF
COVERAGE_PROBE = ("Hello, World! 42\n\tx = f(y) + 3.14;  # done\r\n'tis na\u00efve caf\u00e9 "
                  "\u6771\u4eac \u03a9\u03bc\u03ad\u03b3\u03b1 \u0661\u0662\u0663 e\u0301 "
                  "\U0001F600 \u2026\u00a0~`@$%^&*_=[]{}|\\:\"<>?/")
# a run of one kind of character and an ending that spoils the match: where nested
# quantifiers such as (a|aa)+$ try exponentially many ways
_BACKTRACK_PROBES = [run * 30 + end for run in ("a", "1", " ", "\u00e9", "!", "\n", "ab ", "a1") for end in ("\x00!", "")]
_BACKTRACK_SECONDS = 0.25
_checked: set[str] = set()


def uncovered(text: str, pattern: str | None):
    r"""The position of the first character of ``text`` in no match of ``pattern``, or None.

    >>> uncovered("Hello, World", r"[a-z]+"), uncovered("Hello", r"\w+"), uncovered("a", None)
    (0, None, None)
    """
    if pattern is None:
        return None
    at = 0
    for m in compile_pattern(pattern).finditer(text):
        if m.start() > at:
            return at
        at = max(at, m.end())
    return at if at < len(text) else None


def uncovered_error(text: str, at: int, pattern: str, where: str = "the text", offset: int = 0) -> ValueError:
    """The error for ``text[at]``, which the pattern leaves out (``offset``: where ``text``
    starts in what the caller gave), naming the position and the character."""
    return ValueError(f"character {at + offset} (U+{ord(text[at]):04X}, {text[at]!r}) of {where} is not matched by the "
                      f"split pattern {pattern[:60]!r}; the pattern must cover all text (tiktoken would drop it "
                      f"silently); add an alternative such as |\\s+|[^\\s]")


def check_pattern(pattern: str | None, where: str = "") -> str | None:
    r"""Refuse a split pattern that leaves common text unmatched, backtracks exponentially
    or has capture groups (``resolve_pattern`` refuses those, for every caller); return
    the regex (a name resolved), so a caller resolves and checks its pattern in one call.

    ``where`` names the file and key the pattern came from, for the message.

    >>> check_pattern("gpt4") == GPT4_PATTERN, check_pattern(r"\w+|\s+|[^\w\s]+")
    (True, '\\w+|\\s+|[^\\w\\s]+')
    >>> check_pattern(r"[a-z]+")
    Traceback (most recent call last):
    ValueError: split pattern '[a-z]+' leaves character 0 (U+0048, 'H') of ... unmatched; ...
    """
    at_ = f"{where}: " if where else ""
    try:
        pattern = resolve_pattern(pattern)
    except ValueError as e:
        raise ValueError(f"{at_}{e}") from None
    if pattern is None or pattern in PATTERNS.values() or pattern in _checked:
        return pattern
    at = uncovered(COVERAGE_PROBE, pattern)
    if at is not None:
        raise ValueError(f"{at_}split pattern {pattern[:60]!r} leaves character {at} (U+{ord(COVERAGE_PROBE[at]):04X}, "
                         f"{COVERAGE_PROBE[at]!r}) of {COVERAGE_PROBE[:30]!r} unmatched; the pattern must cover all "
                         f"text (tiktoken would drop it silently); add an alternative such as |\\s+|[^\\s]")
    c = compile_pattern(pattern)
    for probe in _BACKTRACK_PROBES:
        try:
            c.findall(probe, timeout=_BACKTRACK_SECONDS)
        except TimeoutError:
            raise ValueError(f"{at_}split pattern {pattern[:60]!r} takes over {_BACKTRACK_SECONDS} s on the "
                             f"{len(probe)}-character text {probe[:12]!r}...: it backtracks exponentially "
                             f"(nested quantifiers such as (a|aa)+); write it with possessive quantifiers "
                             f"(++, *+) or atomic groups") from None
    _checked.add(pattern)
    return pattern


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
    that "<|end|>" never hides "<|endoftext|>". Made once per set of tokens
    (``encode`` asks for it on every call).

    >>> special_regex(["<|end|>", "<|endoftext|>"]).findall("a<|endoftext|>b<|end|>")
    ['<|endoftext|>', '<|end|>']
    """
    return _special_regex(frozenset(special_tokens))


@functools.lru_cache(maxsize=64)
def _special_regex(special_tokens: frozenset) -> regex.Pattern | None:
    specials = special_longest_first(special_tokens)
    if not specials:
        return None
    return regex.compile("|".join(regex.escape(s) for s in specials))


@functools.lru_cache(maxsize=64)
def special_longest_first(special_tokens: frozenset) -> tuple[str, ...]:
    """The tokens in the order a search tries them at one place: longest first.

    >>> special_longest_first(frozenset(["<|end|>", "<|endoftext|>"]))
    ('<|endoftext|>', '<|end|>')
    """
    return tuple(sorted(special_tokens, key=lambda s: (-len(s), s)))


@functools.lru_cache(maxsize=64)
def special_prefix(special_tokens: frozenset) -> str:
    """What all the given special tokens begin with ("" if nothing). ``encode``
    searches a text for it (a substring search, many GB/s) and tries the tokens
    only where it occurs, instead of running the regex at every character.

    >>> special_prefix(frozenset(["<|endoftext|>", "<|endofprompt|>"]))
    '<|endof'
    """
    return os.path.commonprefix(sorted(special_tokens)) if special_tokens else ""


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


# ---- Unicode normalization: the optional step before the split ----------------------
# Unicode often has two ways to write what a reader sees as the same text: "é" is
# one code point (U+00E9) or "e" followed by a combining accent (U+0301). The four
# normalization forms pick one way:
#
# * NFC: compose ("e" + accent -> "é"); NFD: decompose ("é" -> "e" + accent);
# * NFKC and NFKD do the same after also replacing *compatibility* characters by
#   their plain equivalents: the ligature "ﬁ" -> "fi", full-width "Ａ" -> "A",
#   superscript "²" -> "2".
#
# A tokenizer built with ``normalize="NFKC"`` sees fewer distinct spellings, but it
# no longer round-trips: ``decode(encode("ﬁ"))`` is "fi". Byte-level BPE (GPT-2
# onwards) leaves text alone for exactly that reason.
#
# What this section does not do: lowercasing, accent stripping or any other
# normalizer of BERT or SentencePiece (``nmt_nfkc`` adds rules of its own); it is
# Python's ``unicodedata.normalize`` with a check of the form's name.


FORMS = ("NFC", "NFD", "NFKC", "NFKD")


def check_form(form: str | None) -> str | None:
    """Return ``form`` if it is None or one of ``FORMS``; otherwise raise a ValueError that says what is allowed.

    >>> check_form("NFKC"), check_form(None)
    ('NFKC', None)
    """
    if form is None or (isinstance(form, str) and form in FORMS):
        return form
    hint = ""
    if isinstance(form, str) and form.upper() in FORMS:
        hint = f" (did you mean {form.upper()!r}?)"
    raise ValueError(f"normalize={form!r} is not a Unicode normalization form{hint}; use None or one of {FORMS}")


def normalize_text(text: str, form: str | None) -> str:
    """``text`` in normalization form ``form``; ``None`` returns it unchanged.

    >>> normalize_text("ﬁne", "NFKC"), normalize_text("ﬁne", "NFC"), normalize_text("ﬁne", None)
    ('fine', 'ﬁne', 'ﬁne')
    >>> [len(normalize_text("é", f)) for f in FORMS]    # composed: 1 code point, decomposed: 2
    [1, 2, 1, 2]
    """
    if form is None:
        return text
    if form not in FORMS:  # (a form checked once, where the setting was made, is not checked again)
        check_form(form)
    return unicodedata.normalize(form, text)


def changed_characters(text: str, form: str) -> int:
    """How many characters of ``text`` the form changes (each character normalized on its own).

    subtle: normalizing one character at a time misses changes that need a
    neighbour (a base letter and a combining mark that NFC composes); use it for
    counting, and ``normalize_text`` for the text itself.

    >>> changed_characters("ﬁne ｃａｆé x²", "NFKC")   # the ligature, 3 full-width letters, the superscript
    5
    """
    return sum(1 for ch in text if unicodedata.normalize(form, ch) != ch)


def check_specials_normalized(specials, form: str | None, where: str = "special_tokens") -> None:
    """Refuse a special token that ``form`` changes: text is normalized before special
    tokens are looked for, so such a token could never be found (nor refused).

    >>> check_specials_normalized(["<|caf\\u00e9|>"], "NFC")
    >>> check_specials_normalized(["<|e\\u0301|>"], "NFC")
    Traceback (most recent call last):
    ValueError: special_tokens: '<|e\u0301|>' changes under NFC (to '<|\u00e9|>'), ...; write it in NFC form, or use normalize=None
    """
    if form is None:
        return
    for s in specials:
        n = normalize_text(s, form)
        if n != s:
            raise ValueError(f"{where}: {s!r} changes under {form} (to {n!r}), so normalized text never holds "
                             f"it; write it in {form} form, or use normalize=None")
