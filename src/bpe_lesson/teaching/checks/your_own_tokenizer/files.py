"""Check of "Your own tokenizer"'s ``.tiktoken`` writer and reader (``ex-own-files``).

The references: tiktoken's own loader reading what the reader wrote, and the bytes of
``tiktoken_io.dumps_tiktoken``; ranks at the edges (0, 255, 65,535, 65,536, ...) and tokens
whose base64 is awkward (``+w==``, ``/w==``, newline, NUL).

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import base64
import gzip
import os


from ....tokenizer import tiktoken_io
from .. import _gen, _reference, call, check, compare
from .._calls import _name, _shown
from ._common import scratch_folder

__all__ = ["RANKS_AT_EDGES", "check_files"]


# ---- ex-own-files: write and read .tiktoken files -----------------------------------------------

RANKS_AT_EDGES = [0, 1, 9, 10, 11, 99, 100, 255, 256, 65_535, 65_536, 100_256, 199_997, 10**9]


def _small_ranks(rng) -> dict[bytes, int]:
    """A few tokens with ranks at the edges (one and two digits, 255/256, 65,535/65,536), in any order.

    >>> ranks = _small_ranks(_gen.rng_for("ex-demo")); all(1 <= len(t) <= 7 for t in ranks), len(ranks) <= 12
    (True, True)
    """
    n = rng.choice([0, 1, 2, 3, 4, 6, 9, 12])
    pool = sorted(set(RANKS_AT_EDGES + [rng.randrange(300) for _ in range(8)]))
    ranks = {}
    for r in rng.sample(pool, min(n, len(pool))):
        ranks.setdefault(_gen.token(rng), r)
    return ranks


def _layout(rng, ranks) -> bytes:
    """A file tiktoken reads: lines in any order, CRLF or LF, blank lines, tabs, leading zeros, no last newline."""
    items = list(ranks.items())
    if rng.random() < 0.3:
        rng.shuffle(items)
    end = rng.choice([b"\n", b"\n", b"\r\n"])
    lines = []
    for token, rank in items:
        sep = rng.choice([b" ", b" ", b"\t", b"  "])
        digits = str(rank).encode()
        if rng.random() < 0.1:
            digits = b"0" + digits
        lines.append(base64.b64encode(token) + sep + digits)
        if rng.random() < 0.15:
            lines.append(b"")  # a blank line
    data = end.join(lines)
    return data + end if lines and rng.random() < 0.7 else data


def _write_cases():
    yield from [({},), ({b"a": 0},), ({b"b": 1, b"a": 0},), ({b"x": 10, b"y": 9},),
                ({b"\xfb": 0, b"\xff": 1, b" ": 2, b"\n": 3},),
                ({t: r for r, t in enumerate(_reference.longest_tokens())},)]  # GPT-4's longest: one line each


def _write_case(rng):
    return (_small_ranks(rng),)


def _load_cases():
    yield from [(b"", False), (b"YQ== 0\n", False), (b"YQ== 0\n\nYg== 1\n", False), (b"YQ== 0\r\nYg== 1", False),
                (b"Yg== 1\nYQ== 0\n", False), (b"YQ==\t7\n", False), (b"YQ== 0\nYg== 1\n", True)]


def _load_case(rng):
    return _layout(rng, _small_ranks(rng)), rng.random() < 0.2


@check("ex-own-files")
def check_files(save_ranks, load_ranks, real_files=True):
    with scratch_folder() as folder:
        path = os.path.join(folder, "mine.tiktoken")

        def tiktoken_reads_yours(ranks):  # what tiktoken's own loader reads from the reader's file
            save_ranks(ranks, path)
            return _reference.tiktoken_load(path)

        def your_bytes(ranks):
            save_ranks(ranks, path)
            with open(path, "rb") as f:
                return f.read()

        def your_reading(data, gz):  # the reader's loader on a file that holds ``data``
            where = path + (".gz" if gz else "")
            with (gzip.open if gz else open)(where, "wb") as f:
                f.write(data)
            return load_ranks(where)

        def tiktoken_reading(data, gz):
            with open(path, "wb") as f:
                f.write(data)
            return _reference.tiktoken_load(path)

        tiktoken_reads_yours.__name__ = your_bytes.__name__ = _name(save_ranks)
        your_reading.__name__ = _name(load_ranks)
        compare(tiktoken_reads_yours, lambda ranks: ranks, _write_cases(), generate=_write_case, seed=("ex-own-files", 1), kind=dict,
                hint=lambda args, want, got: "tiktoken.load.load_tiktoken_bpe read this from your file")
        compare(your_bytes, lambda ranks: tiktoken_io.dumps_tiktoken({r: t for t, r in ranks.items()}),
                _write_cases(), generate=_write_case, seed=("ex-own-files", 1), kind=bytes,
                hint=lambda args, want, got: "one line per token in rank order (as numbers): "
                "base64, one space, the rank, b'\\n'")
        compare(your_reading, tiktoken_reading, _load_cases(), generate=_load_case, kind=dict,
                show=lambda args: f"a file of {_shown(args[0], 44)}" + (", gzipped (.gz)" if args[1] else ""),
                hint=lambda args, want, got: "skip blank lines; base64 and rank may be split by any "
                "whitespace; open a .gz file with gzip.open")
    if real_files:  # the reader's loader on the files the packages ship: GPT-4's (plain) and GPT-4o's (.gz)
        for name, want in [(name, _reference.ranks(name)) for name in ("cl100k_base", "o200k_base")]:
            got = call(load_ranks, tiktoken_io.offline_path(name))
            assert isinstance(got, dict) and got == want, (
                f"load_ranks({os.path.basename(tiktoken_io.offline_path(name))!r}) did not give "
                f"{name}'s {len(want):,} ranks" + (f" (it gave {len(got):,} entries)" if isinstance(got, dict) else ""))
