"""Checks of "Your own tokenizer"'s assembled tokenizer: the encoder (``ex-own-encode``)
and the whole ``MyTokenizer`` (``ex-own-tokenizer``), graded against tiktoken on GPT-4's and
GPT-4o's real vocabularies: encode on held-out text and special tokens, decode, the stream,
and save and load on a prefix of GPT-4's ranks.

What this module does not do: hold the solutions (the chapter does, folded away), or
download anything (the vocabularies come from ``_common``).
"""

from __future__ import annotations

import functools
import os

import tiktoken

from ... import samples
from .. import ReaderError, Table, _gen, _reference, call, check, compare
from .._calls import _shown
from ._common import RAISES, Raises, _plain, _shrink_first, scratch_folder
from .split import _allowed, _disallowed, _special_text
from .stream import _run_stream, check_laziness

__all__ = ["HELD_FILES", "HELD_TOPICS", "HELD_SENTENCES", "held_out_texts", "pieces",
           "EOT", "SPECIAL_CASES", "NOT_NFC", "check_encode", "SAVED_RANKS",
           "check_tokenizer"]


# ---- ex-own-tokenizer: MyTokenizer reproduces tiktoken's ids -------------------------------------

# held-out text that no chapter shows: a few standard-library files, help topics, and sentences
# in scripts the book's samples do not hold
HELD_FILES = ["colorsys.py", "fnmatch.py", "shlex.py", "textwrap.py"]
HELD_TOPICS = ["assert", "lambda", "with", "yield"]
HELD_SENTENCES = [
    "한국어 문장은 띄어쓰기를 합니다. 토크나이저는 바이트를 셉니다.",
    "ภาษาไทยไม่เว้นวรรคระหว่างคำ แต่เว้นวรรคระหว่างประโยค",
    "עברית נכתבת מימין לשמאל, והמספרים 2024 משמאל לימין.",
    "Tiếng Việt có nhiều dấu: ả, ẫ, ự, ọ; mỗi chữ là một âm tiết.",
    "Türkçe'de büyük İ ile küçük ı ayrı harflerdir; ÇĞÖŞÜ.",
    "Українська мова: ґанок, їжак, єнот, ще й апостроф — м'ята.",
    "বাংলা লিপিতে যুক্তাক্ষর আছে: ক্ষ, জ্ঞ, ন্ত।",
    "Emoji: 👩‍👩‍👧‍👦 🏳️‍🌈 👍🏽 🇯🇵 — and maths: ∑ x² ≤ ½ ∞.",
    "    def f(x):\r\n\treturn x  # tabs, CRLF\r\n\r\n\n   \n",
    "1234567890 3.14159 1e-9 0xFF 1_000_000 ٣٤٥ १२३",
]


@functools.lru_cache(maxsize=1)
def held_out_texts() -> list[str]:
    """The check's own text: whole files and topics, and the sentences above."""
    paths = {os.path.basename(p): p for p in samples.stdlib_paths()}
    texts = []
    for name in HELD_FILES:
        with open(paths[name], encoding="utf-8") as f:
            texts.append(f.read())
    topics = samples.prose_topics()
    texts += [topics[t] for t in HELD_TOPICS] + HELD_SENTENCES
    return texts


def pieces(text: str, size: int = 1500) -> list[str]:
    """``text`` in runs of whole lines of at most about ``size`` characters (a failure then shrinks fast).

    >>> pieces("a\\nb\\nc\\n", 4)
    ['a\\nb\\n', 'c\\n']
    """
    out, run = [], ""
    for line in text.splitlines(keepends=True):
        if run and len(run) + len(line) > size:
            out.append(run)
            run = ""
        run += line
    return out + ([run] if run else [])


EOT = "<|endoftext|>"
SPECIAL_CASES = [("doc one" + EOT + "doc two", "all", "all"), (EOT + EOT, {EOT}, "all"),
                 ("a literal " + EOT, set(), ()), ("a literal " + EOT, set(), "all")]  # the last raises: disallowed


def _special_case(specials):
    """The generator of texts with ``specials`` and allowed/disallowed settings as tiktoken takes them."""
    def one(rng):
        text = _special_text(rng, specials) if rng.random() < 0.5 else _gen.text(rng, 60)
        if not _plain(text):
            return None  # a character the cases do not use safely: compare draws again
        return text, _allowed(rng, specials), _disallowed(rng, specials)
    return one


def _encode_show(args):
    text, allowed, disallowed = args
    extra = "" if (allowed, disallowed) == ((), "all") else f", allowed_special={allowed!r}, " \
                                                            f"disallowed_special={disallowed!r}"
    return _shown(text, 44) + extra


def _build(MyTokenizer, encoding):
    ranks = encoding._mergeable_ranks
    tok = call(MyTokenizer, ranks, encoding._pat_str, dict(encoding._special_tokens))
    return tok


def _as_set(x):
    return x if x == "all" else set(x)


# text that Unicode normalization (NFC) would change: an encoder that normalizes first gives other ids
NOT_NFC = ["Cafe\u0301 au lait", "\u212b and A\u030a", "\u1e9b\u0323 x\u0308y", "\uf900 \u2126hm"]


def _check_encode(encode, encoding, seed, name):
    """``encode(text, allowed_special, disallowed_special)`` against tiktoken's, on held-out text and on
    generated text with special tokens."""
    def reference(text, allowed_special=(), disallowed_special="all"):
        try:
            return encoding.encode(text, allowed_special=_as_set(allowed_special),
                                   disallowed_special=disallowed_special)
        except ValueError:
            return RAISES

    def yours(text, allowed_special=(), disallowed_special="all"):
        try:
            return encode(text, allowed_special, disallowed_special)
        except ValueError:
            return RAISES

    yours.__name__ = name
    held = [(piece, (), ()) for t in held_out_texts() for piece in pieces(t)]
    held += [(text, (), ()) for text in NOT_NFC]
    compare(yours, reference, SPECIAL_CASES, generate=_special_case(sorted(encoding.special_tokens_set)),
            seed=seed, then=held, kind=(list, Raises),
            shrink=_shrink_first, show=_encode_show,
            hint=lambda args, want, got: "split with the pattern, rank-encode each chunk (a byte's id is its "
            "rank); special tokens as tiktoken's encode treats them")


@check("ex-own-encode")
def check_encode(encode):
    for k, name in enumerate(["cl100k_base", "o200k_base"]):
        encoding = _reference.encoding(name)
        ranks = Table(encoding._mergeable_ranks, f"{name}'s ranks")
        specials = dict(encoding._special_tokens)
        _check_encode(lambda text, allowed, disallowed: encode(text, ranks, encoding._pat_str, specials,
                                                               allowed, disallowed), encoding, ("ex-own-encode", k),
                      f"encode(..., {name})")


def _check_decode(tok, encoding, name):
    def yours(ids):
        return tok.decode(ids)

    yours.__name__ = f"MyTokenizer({name}).decode"
    text_ids = [encoding.encode(t, disallowed_special=()) for t in held_out_texts()[4:]]
    cut = [ids[k:k + n] for ids in text_ids for k, n in [(1, 5), (3, 2)]]
    eot = [encoding.encode("<|endoftext|>x", allowed_special="all")]
    # single bytes that start, continue or cannot be UTF-8: decode must replace, not raise
    odd = [[encoding._mergeable_ranks[bytes([b])] for b in bs] for bs in ([0xE4], [0xE4, 0xB8], [0xFF, 0x61], [0x80])]
    compare(yours, encoding.decode, [(ids,) for ids in text_ids + eot + odd + cut], kind=str,
            hint=lambda args, want, got: "join the bytes, then decode once with errors='replace'")


def _check_stream(tok, encoding, name):
    def encode_lines(lines, encode):  # the class's method, called the way check_laziness calls a function
        return tok.encode_lines(lines)

    encode_lines.__name__ = f"MyTokenizer({name}).encode_lines"
    texts = held_out_texts()[:4] + held_out_texts()[-2:] + ["\n".join(NOT_NFC) + "\n"]  # not NFC: kept as given
    for text in texts:
        lines = text.splitlines(keepends=True)
        got, feed = _run_stream(encode_lines, lines, None)
        want = encoding.encode(text, disallowed_special=())
        assert got == want, (f"{encode_lines.__name__} on the {len(lines)} lines of a held-out text gave "
                             f"other ids than encode on the whole text (first difference at id "
                             f"{next(k for k, (a, b) in enumerate(zip(got + [None], want + [None])) if a != b)})")
    def all_ids(lines, options, named):  # the stream read to its end, inside call: a raise is the reader's
        return list(tok.encode_lines(lines, *options, **named))

    all_ids.__name__ = encode_lines.__name__
    eot = {"<|endoftext|>"}
    # the special-token settings are passed on, not dropped: by position and by name, one or both
    for options, named in [(("all",), {}), (((), ()), {}), ((), {"allowed_special": "all"}),
                           ((), {"disallowed_special": ()}), ((eot, ()), {}),
                           ((), {"allowed_special": eot, "disallowed_special": ()})]:
        settings = dict(zip(("allowed_special", "disallowed_special"), options)) | named
        text = "first line<|endoftext|>\nsecond<|endofprompt|> line\n"
        lines = text.splitlines(keepends=True)
        try:
            want = encoding.encode(text, allowed_special=_as_set(settings.get("allowed_special", ())),
                                   disallowed_special=settings.get("disallowed_special", "all"))
        except ValueError:
            want = RAISES
        shown = ", ".join([*map(repr, options), *(f"{k}={v!r}" for k, v in named.items())])
        try:
            got = all_ids(lines, options, named)
        except ValueError:
            got = RAISES
        except Exception as e:  # the reader's code failed: say where, as a failed check
            raise ReaderError(f"{encode_lines.__name__}({_shown(lines, 40)}, {shown}) raised "
                              f"{type(e).__name__}: {_shown(str(e), 60)}") from None
        assert got == want, (f"{encode_lines.__name__}({_shown(lines, 40)}, {shown}) "
                             f"gave other ids than encode(text, {shown}) on the joined lines\n"
                             f"  expected: {_shown(want, 60)}\n  got:      {_shown(got, 60)}\n"
                             "  hint: pass the special-token settings on to encode, by position or by name")
    file_lines = held_out_texts()[3].splitlines(keepends=True)
    check_laziness(encode_lines, [file_lines],
                   lambda lines: (lines, lambda t: encoding.encode(t, disallowed_special=())), "ex-own-tokenizer")


SAVED_RANKS = 5_000  # save and load are checked on a prefix of GPT-4's ranks (a vocabulary in its own right)


def _check_files(MyTokenizer, encoding):
    """save, then tiktoken's loader reads the ranks back; load, then the same ids as tiktoken's."""
    ranks = {t: r for t, r in encoding._mergeable_ranks.items() if r < SAVED_RANKS}
    specials = {"<|endoftext|>": SAVED_RANKS, "<|endofprompt|>": SAVED_RANKS + 1}
    small = tiktoken.Encoding(name="prefix", pat_str=encoding._pat_str, mergeable_ranks=ranks,
                              special_tokens=specials)
    tok = call(MyTokenizer, ranks, encoding._pat_str, specials)
    with scratch_folder() as folder:
        path = os.path.join(folder, "mine.tiktoken")
        call(tok.save, path)
        read = _reference.tiktoken_load(path)
        assert read == ranks, (f"tiktoken's loader read {len(read):,} ranks from the file MyTokenizer.save "
                               f"wrote, not the {len(ranks):,} it was built with")
        back = call(MyTokenizer.load, path)
        for text in [held_out_texts()[0][:3000], "x<|endoftext|>y<|endofprompt|>"]:
            got, want = call(back.encode, text, "all"), small.encode(text, allowed_special="all")
            assert got == want, (f"MyTokenizer.load(path) after save(path), for GPT-4's first {SAVED_RANKS:,} "
                                 f"ranks: encode({_shown(text, 30)}) gives other ids than tiktoken")


@check("ex-own-tokenizer")
def check_tokenizer(MyTokenizer):
    for k, name in enumerate(["cl100k_base", "o200k_base"]):
        encoding = _reference.encoding(name)
        tok = _build(MyTokenizer, encoding)
        _check_encode(lambda text, allowed, disallowed: tok.encode(text, allowed_special=allowed,
                                                                   disallowed_special=disallowed),
                      encoding, ("ex-own-tokenizer", k), f"MyTokenizer({name}).encode")
        _check_decode(tok, encoding, name)
        _check_stream(tok, encoding, name)
    _check_files(MyTokenizer, _reference.encoding("cl100k_base"))
