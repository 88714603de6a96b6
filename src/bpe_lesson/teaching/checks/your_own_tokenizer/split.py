"""Checks of "Your own tokenizer"'s first two exercises: the reader's split
(``ex-own-split``) and special-token cutter (``ex-own-specials``).

The references: ``patterns.split_chunks`` and ``patterns.uncovered`` for the split;
tiktoken's ``Encoding.encode`` for the special-token cutter (its ids, read back as pieces),
except where one special token is a prefix of another: there tiktoken's choice follows the
order of its hash map, and the check asks for the longest token, as
``patterns.split_specials`` does. Hand-picked cases first, then generated ones (seeded by
the label).

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import functools

import tiktoken

from ....patterns import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN, compile_pattern, split_chunks, split_specials
from .. import _gen, check, compare
from .._calls import _shown
from ._common import BYTES, NAMES, RAISES, Raises, _plain, _shrink_first, _value_error_as_result

__all__ = ["COVER_SOME", "COVER_ALL", "split_reference", "SPLIT_CASES", "PATTERN_POOL",
           "check_split", "cut_reference", "SPECIAL_SETS", "check_specials"]


# ---- ex-own-split: the chunks of a text, or ValueError when the pattern leaves a character out ----

COVER_SOME = [r"[a-z]+", r"\w+", r" ?\w+| ?[^\w\s]+", r"\S+"]  # patterns that leave characters out
COVER_ALL = [r"\w+|\s+|[^\w\s]+", r" ?\w+| ?[^\w\s]+|\s+"]


def split_reference(text: str, pattern):
    """The package's chunks (``patterns.split_chunks``), or RAISES when some character is in no match.

    subtle: a named pattern is matched with its fast side, the ``regex`` module's own tables
    (``patterns.ExactSplitter``): the cases hold no character where those differ from tiktoken's,
    and asking which characters do costs a second the first time.

    >>> split_reference("Hi there!", r"\\w+")
    raises ValueError
    >>> split_reference("", None), split_reference("ab", None), split_reference("a b", r"\\w+|\\s+")
    ([], ['ab'], ['a', ' ', 'b'])
    """
    if pattern is None:
        return split_chunks(text, None)
    compiled = compile_pattern(pattern)
    chunks, at = [], 0
    for m in getattr(compiled, "fast", compiled).finditer(text):
        if m.start() > at:
            return RAISES  # text[at] is in no match
        chunks.append(m.group())
        at = m.end()
    return chunks if at == len(text) else RAISES


def _split_text(rng) -> str:
    """Text for the split: the generators' text and lines, runs of spaces and digits, contractions."""
    r = rng.random()
    if r < 0.45:
        return _gen.text(rng, 30)
    if r < 0.7:
        return _gen.lines(rng, 4)
    parts = ["  ", "\n", "\r\n", " \n ", "123456", "7", "'s", "'LL", " 'll", "don't", "Hello", " world", "!",
             "?!", "\t", "é", "中文", "😀", "A", "aB", "ABc", "x1", "...\n"]
    return "".join(rng.choice(parts) for _ in range(rng.randint(1, 8)))


SPLIT_CASES = [("Hello world!!", GPT4_PATTERN), ("", GPT4_PATTERN), ("", None), ("a b", None),
               ("Hello, World", r"[a-z]+"), ("x  \n\n  y", GPT4_PATTERN), ("I'LL 1234567", O200K_PATTERN),
               ("don't  stop\n", GPT2_PATTERN), ("a\n", r"\w+"), ("ab", r"\w+")]
PATTERN_POOL = [GPT2_PATTERN, GPT4_PATTERN, GPT4_PATTERN, O200K_PATTERN, O200K_PATTERN, None] + COVER_SOME + COVER_ALL


def _split_case(rng):
    """(text, pattern); None when the text has a character the cases do not use safely (draw again)."""
    text = _split_text(rng)
    return (text, rng.choice(PATTERN_POOL)) if _plain(text) else None


def _split_hint(args, want, got):
    if want is RAISES:
        return ("this pattern leaves a character out of every match: raise ValueError "
                "(tiktoken would drop it silently)")
    if got is RAISES:
        return "every character is in some match here: return the chunks"
    if args[1] is None:
        return "with no pattern the whole text is one chunk, and an empty text has none"
    return None


@check("ex-own-split")
def check_split(split):
    compare(_value_error_as_result(split), split_reference, SPLIT_CASES, generate=_split_case, kind=(list, Raises),
            shrink=_shrink_first, hint=_split_hint,
            show=lambda args: f"{_shown(args[0], 44)}, {NAMES.get(args[1], repr(args[1]))}")


# ---- ex-own-specials: cut at allowed special tokens; raise at disallowed ones (tiktoken's rules) ----

@functools.lru_cache(maxsize=64)
def _special_encoding(specials: tuple) -> tiktoken.Encoding:
    """A tiktoken Encoding whose ordinary tokens are the 256 bytes (each byte a chunk) and whose
    special tokens are ``specials``, at ids 256 on: its ids spell out how it cut a text."""
    return tiktoken.Encoding(name="cutter", pat_str=r"[\s\S]", mergeable_ranks=BYTES,
                             special_tokens={s: 256 + k for k, s in enumerate(specials)})


def _prefix_pair(specials) -> bool:
    """True when one special token is a prefix of another (tiktoken's answer then depends on hash order)."""
    return any(a != b and b.startswith(a) for a in specials for b in specials)


def _resolve(specials, allowed_special, disallowed_special):
    allowed = set(specials) if allowed_special == "all" else set(allowed_special)
    disallowed = set(specials) - allowed if disallowed_special == "all" else set(disallowed_special)
    return allowed, disallowed


def cut_reference(text, specials, allowed_special, disallowed_special):
    """tiktoken's cut of ``text``: [(piece, is_special), ...], or RAISES.

    tiktoken raises when a disallowed special token occurs anywhere in the text, and
    otherwise turns every allowed special token into its id, left to right; its ids are read
    back into pieces here. Where one special token is a prefix of another, the longest wins
    (``patterns.split_specials``).

    >>> cut_reference("a<|endoftext|>b", ("<|endoftext|>",), "all", "all")
    [('a', False), ('<|endoftext|>', True), ('b', False)]
    >>> cut_reference("a<|endoftext|>b", ("<|endoftext|>",), (), "all")
    raises ValueError
    """
    specials = tuple(specials)
    allowed, disallowed = _resolve(specials, allowed_special, disallowed_special)
    if _prefix_pair(specials):
        if any(s in text for s in disallowed):
            return RAISES
        return split_specials(text, sorted(allowed))
    try:
        ids = _special_encoding(specials).encode(text, allowed_special=allowed, disallowed_special=disallowed)
    except ValueError:
        return RAISES
    out, ordinary = [], bytearray()
    for i in ids:
        if i < 256:
            ordinary.append(i)
            continue
        if ordinary:
            out.append((ordinary.decode("utf-8"), False))
            ordinary = bytearray()
        out.append((specials[i - 256], True))
    if ordinary:
        out.append((ordinary.decode("utf-8"), False))
    return out


SPECIAL_SETS = [("<|endoftext|>",), ("<|endoftext|>", "<|endofprompt|>"),
                ("<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>"),
                ("<|x|>", "|>y"),  # overlapping: the leftmost start wins
                ("<s>", "</s>"),
                ("<|a|>", "<|a|>b"), ("<|im", "<|im_start|>", "<|im_end|>")]  # one a prefix of another


def _special_text(rng, specials) -> str:
    """Ordinary text with special tokens at the start, the end, side by side, and halves of them."""
    parts = []
    for _ in range(rng.randint(0, 6)):
        r = rng.random()
        if r < 0.45:
            parts.append(rng.choice(specials))
        elif r < 0.6:
            s = rng.choice(specials)
            parts.append(s[:rng.randint(1, len(s) - 1)] if len(s) > 1 else s)  # a special cut short
        elif r < 0.7:
            parts.append(rng.choice(["<", "|", ">", "<|", "|>", " "]))
        else:
            parts.append(_gen.text(rng, 8))
    return "".join(parts)


def _setting(rng, specials, below_all: float, below_none: float):
    """An ``allowed_special`` or ``disallowed_special`` as tiktoken takes it: "all" (r < below_all),
    none (r < below_none), or some of ``specials``."""
    r = rng.random()
    if r < below_all:
        return "all"
    if r < below_none:
        return ()
    return frozenset(s for s in specials if rng.random() < 0.5)


def _allowed(rng, specials):
    return _setting(rng, specials, 0.3, 0.45)


def _disallowed(rng, specials):
    return _setting(rng, specials, 0.6, 0.85)


def _cut_cases():
    eot, eop = "<|endoftext|>", "<|endofprompt|>"
    two = (eot, eop)
    yield from [("a<|endoftext|>b", (eot,), "all", "all"), ("", (eot,), "all", "all"),
                (eot, (eot,), "all", "all"), (eot + eot, (eot,), "all", "all"),
                (eot + "x" + eop, two, "all", "all"), ("<|endoftext", (eot,), "all", "all"),
                ("a" + eot, (eot,), (), "all"), ("a" + eot, (eot,), (), ()),
                (eot + eop, two, frozenset([eot]), ()), (eot + eop, two, frozenset([eot]), "all"),
                ("<|x|>y", ("<|x|>", "|>y"), "all", "all"), ("<|a|>b", ("<|a|>", "<|a|>b"), "all", "all"),
                ("<|a|>b", ("<|a|>", "<|a|>b"), frozenset(["<|a|>"]), ())]


def _cut_case(rng):
    specials = rng.choice(SPECIAL_SETS)
    return _special_text(rng, specials), specials, _allowed(rng, specials), _disallowed(rng, specials)


def _cut_equal(want, got):
    if want is RAISES or got is RAISES:
        return want == got
    return [tuple(p) for p in got] == want


def _cut_hint(args, want, got):
    text, specials, allowed_special, disallowed_special = args
    allowed, disallowed = _resolve(specials, allowed_special, disallowed_special)
    if want is RAISES:
        return (f"the text holds a disallowed special token ({sorted(s for s in disallowed if s in text)[0]!r}): "
                f"raise ValueError, as tiktoken's encode does")
    if got is RAISES:
        return "nothing disallowed occurs here; a special token that is neither allowed nor disallowed is text"
    if isinstance(got, list) and any(p == ("", False) or p == ["", False] for p in got):
        return "leave out empty pieces"
    return "where two allowed special tokens start at one place, the longest wins" if _prefix_pair(specials) else None


@check("ex-own-specials")
def check_specials(cut_specials):
    compare(_value_error_as_result(cut_specials), cut_reference, _cut_cases(), generate=_cut_case,
            kind=(list, Raises), equal=_cut_equal, shrink=_shrink_first, hint=_cut_hint)
