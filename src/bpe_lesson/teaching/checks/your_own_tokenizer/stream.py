"""Check of "Your own tokenizer"'s streaming encoder (``ex-own-stream``): an iterable of
lines in, ids out as it goes.

The reference is the encoding of the joined lines, on lines that start with any kind of
whitespace (a carriage return, CRLF line ends, a form feed, U+2028, U+00A0, ...), a "/",
a special token; the check also feeds the lines one at a
time and asks that ids come out before the last line is read (``check_laziness``).

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import functools

from ....tokenizer import Tokenizer
from ....trainer import train
from .. import Generated, Shown, _gen, _reference, check, compare, draw
from .._calls import _name, _shown

__all__ = ["Encoder", "OTHER_SPACE", "LINE_STARTS", "safe_cuts", "check_laziness",
           "stream_hint", "check_stream"]


# ---- ex-own-stream: encode an iterable of lines, yielding as it goes ---------------------------

@functools.lru_cache(maxsize=1)
def _stream_tokenizers():
    """GPT-4's and GPT-4o's tokenizers (the package's), loaded once: their real tokens span the
    places where a wrong cut differs (a newline and a blank line, ";\\n/")."""
    return {"GPT-4 split": _reference.tokenizer("cl100k_base"),
            "GPT-4o split": _reference.tokenizer("o200k_base"),
            "GPT-4 split, small vocabulary": _spaces_tokenizer()}


def _spaces_tokenizer() -> Tokenizer:
    """GPT-4's split with ~100 merges trained on lines of whitespace other than " \t\n": its tokens
    join a newline to the form feed, U+2028, U+00A0, ... after it, which no real vocabulary's do
    (only CR and, in GPT-4o's, U+3000 have such tokens), so a cut before those lines shows."""
    text = "".join(f"a{k}\n{space}\n{space}{space}\n\n" for k, space in enumerate(OTHER_SPACE * 8))
    return train(text, 256 + 100, pattern="gpt4", special_tokens=["<|endoftext|>"])


class Encoder(Shown):
    """One of the stream check's encoders, printed by its name."""

    def __init__(self, name):
        self.name = f"<encode with the {name}>"
        self.tok = _stream_tokenizers()[name]

    def __call__(self, text):
        return self.tok.encode(text, allowed_special="all")


# whitespace beyond " \t\n" that the split's \s joins to a newline before it: a carriage
# return, a form feed, a vertical tab, NEL, the line and paragraph separators, no-break and
# ideographic spaces (str.isspace() knows them all)
OTHER_SPACE = ["\r", "\x0c", "\x0b", "\x85", "\u2028", "\u2029", "\u00a0", "\u3000"]
LINE_STARTS = ["", " ", "  ", "\t", "\n", "x", "1", "'s", "!", "/", "//", "<|endoftext|>", "é", "中"] + OTHER_SPACE


def _stream_lines(rng, max_lines: int = 8) -> list[str]:
    """Lines as a text file gives them: each ends in a newline but perhaps the last; blank lines,
    lines of spaces, lines that start with a space, a digit, a quote, a special token."""
    out = []
    for _ in range(rng.randint(0, max_lines)):
        r = rng.random()
        if r < 0.2:
            body = ""
        elif r < 0.35:
            body = rng.choice([" ", "  ", "\t", " \t ", "\r", rng.choice(OTHER_SPACE)])  # "\r": a CRLF line end
        else:
            body = rng.choice(LINE_STARTS) + _gen.text(rng, 16, long=0.02).replace("\n", " ")
        out.append(body + "\n")
    if out and rng.random() < 0.4:
        out[-1] = out[-1][:-1] or "x"  # the last line without its newline
    return out


def _stream_cases():
    yield from [([], ), (["a\n"],), (["a\n", "\n", "b\n"],), (["a\n", " \n", "b"],), (["x\n", "y\n", "z\n"],),
                (["  \n", "\n", "\n"],), (["a\n", "<|endoftext|>b\n"],), (["1\n", "2\n"],),
                (["x;\n", "/y\n"],), (["x;\n", "/y\n"],)]  # each case alternates the two encoders
    for space in OTHER_SPACE:  # a line that starts with whitespace other than " \t\n", each encoder
        yield from [(["a\n", space + "b\n"],), (["a\n", space + "b\n"],)]
    yield from [(["a\r\n", "\r\n", "b\r\n"],), (["a\r\n", "\r\n", "b\r\n"],),  # CRLF line ends
                (["a\n", "\n", "\u3000\n"],), (["a\n", "\n", "\u3000\n"],)]  # GPT-4o: "\n\n\u3000\n" is a token


def _stream_case(rng):
    """Lines, one time in 20 forty of them: a reader who holds back a fixed number of lines is late there."""
    return (_stream_lines(rng, 40) if rng.random() < 0.05 else _stream_lines(rng)),


class _Feed:
    """The lines, one at a time, noting how many ids the reader had yielded when it asked for each."""

    def __init__(self, lines):
        self.lines = lines
        self.yielded = 0
        self.at_request = []  # at_request[k]: ids yielded before line k was asked for

    def __iter__(self):
        for line in self.lines:
            self.at_request.append(self.yielded)
            yield line


def safe_cuts(lines) -> list[int]:
    """The indices j where a cut before line j is safe: the line before ends in a newline and
    line j starts with a character that is neither whitespace nor "/" (GPT-4o's pattern joins
    a slash to the punctuation and newlines before it: ";\n/" is one chunk).

    >>> safe_cuts(["a\\n", "\\n", "b\\n", " c\\n", "d\\n", "/e"])
    [2, 4]
    """
    return [j for j in range(1, len(lines)) if lines[j - 1].endswith("\n") and lines[j][:1]
            and not lines[j][:1].isspace() and lines[j][0] != "/"]


def _run_stream(encode_lines, lines, encode):
    """(ids, feed): the reader's ids, and when it asked for each line."""
    feed = _Feed(list(lines))
    ids = []
    for i in encode_lines(iter(feed), encode):
        ids.append(i)
        feed.yielded += 1
    return ids, feed


def _late(lines, encode, at_request):
    """The first safe cut whose ids came out later than the line after the cut, or None:
    (j, ids before the cut, ids yielded when line j + 2 was asked for)."""
    for j in safe_cuts(lines):
        if j + 2 < len(lines):
            need = len(encode("".join(lines[:j])))
            if at_request[j + 2] < need:
                return j, need, at_request[j + 2]
    return None


def check_laziness(encode_lines, cases, encode_for, label):
    """Fail when the reader waits too long: the ids of everything before a safe cut before line j must
    be out by the time it asks for line j + 2 (it needs line j to see the cut; one more line is allowed)."""
    late = []
    for args in cases:
        lines, encode = encode_for(args)
        _, feed = _run_stream(encode_lines, lines, encode)
        problem = _late(lines, encode, feed.at_request)
        if problem:
            late.append((len(lines), lines, problem))
    if late:
        _, lines, (j, need, got) = min(late, key=lambda x: (x[0], len("".join(x[1]))))
        raise AssertionError(
            f"{label}: {_name(encode_lines)}({_shown(lines, 60)}) waits too long\n"
            f"  line {j + 1} starts with {lines[j][0]!r} after a newline: a safe cut, so the {need} ids "
            f"before it\n  must be out before line {j + 3} is asked for; {got} were\n"
            f"  hint: yield as you go; do not read all the lines first")


def stream_hint(lines):
    """What joins across a line end in ``lines``: the hint for the input that failed.

    >>> "'/'" in stream_hint([";\\n", "/"]), "'/'" in stream_hint(["x\\n", "\\n", "y"])
    (True, False)
    """
    lines = list(lines)
    if any(a.endswith("\n") and b.startswith("/") for a, b in zip(lines, lines[1:])):
        return ("ids must equal those of the joined text: GPT-4o's split joins a '/' to the newline "
                "before it, so no cut before a line that starts with '/'")
    space = next((b[0] for a, b in zip(lines, lines[1:]) if a.endswith("\n") and b[:1].isspace()
                  and b[0] not in " \t\n"), None)
    if space is not None:
        return (f"ids must equal those of the joined text: a line that starts with {space!r} (whitespace, "
                "as str.isspace() says) joins the newline before it")
    return ("ids must equal those of the joined text: a blank line or one of spaces joins the newline "
            "before it in one chunk")


@check("ex-own-stream")
def check_stream(encode_lines):
    encoders = [Encoder("GPT-4 split"), Encoder("GPT-4o split")]

    def yours(lines, encode):
        return _run_stream(encode_lines, lines, encode)[0]

    yours.__name__ = _name(encode_lines)
    cases = [(c[0], encoders[k % 2]) for k, c in enumerate(_stream_cases())]  # each encoder in turn
    cases += [Generated(g.args[0], encoders[k % 2]) for k, g in enumerate(draw(_stream_case, "ex-own-stream"))]
    small = Encoder("GPT-4 split, small vocabulary")  # tokens that join "\n" to other whitespace
    cases += [(["a\n", line, "b\n"], small) for space in OTHER_SPACE for line in (space + "\n", space * 2 + "\n")]
    compare(yours, lambda lines, encode: encode("".join(lines)), cases, kind=list,
            hint=lambda args, want, got: stream_hint(args[0]), pure=False)
    check_laziness(encode_lines, [c.args if isinstance(c, Generated) else c for c in cases],
                   lambda args: args, "ex-own-stream")
