"""Streaming: ``encode_iterable`` over a file's lines against ``encode`` of the whole text,
speed and memory, ids checked equal.

How to run (from the repository root, with the project's environment active):

    python benchmarks/streaming.py                    # 50 MB of stdlib code, GPT-4's vocabulary
    python benchmarks/streaming.py stdlib:5MB --rounds 5
    python benchmarks/streaming.py prose:20MB --vocab o200k_base   # also multi:SIZE (encode_speed's texts)

CORPUS (``_corpus.py``) is written once to a temporary file. Timed, the median over
``--rounds``, the two shapes in turn, on the compiled backend, one thread:

- ``whole``: read the file into one string, ``tok.encode(text)``, then take the ids one
  by one (``deque(ids, maxlen=0)``: iteration at C speed);
- ``stream``: ``deque(tok.encode_iterable(open(path)), maxlen=0)``, the ids taken as
  they come (nothing holds all of them); a UTF-8 text file not yet read from is
  mapped and its bytes encoded up to its first "\r" (there is none here), else
  read a block at a time;

- ``arrays``: ``sum(len(a) for a in tok.encode_iterable_to_numpy(open(path)))``, one
  NumPy array per stretch (no Python int per id);
- ``arrays rb``: the same over ``open(path, "rb")``: the file's UTF-8 bytes go to the
  compiled encoder as they are, with no str made;
- ``gigatoken``: ``Tokenizer.encode_files(TextFileSource([path]), parallel=False)`` when
  gigatoken is installed (one thread; it maps the file and returns all the ids at once).

Memory, measured apart from the timing (tracemalloc, the peak of Python allocations
while the call runs, ids not kept): ``whole`` holds the text and the list of ids;
``stream`` holds about twice ``streaming.HOLD`` characters and one stretch's ids.
"""
from __future__ import annotations

import argparse
from collections import deque
import os
import statistics
import sys
import tempfile
import time
import tracemalloc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _corpus  # noqa: E402
import numpy as np  # noqa: E402

from bpe_lesson import Tokenizer  # noqa: E402


def whole(tok, path):
    with open(path, encoding="utf-8") as f:
        ids = tok.encode(f.read())
    deque(ids, maxlen=0)  # taken one by one, as a stream's consumer takes them
    return len(ids)


def stream(tok, path):
    with open(path, encoding="utf-8") as f:
        return len(deque(tok.encode_iterable(f), maxlen=0))


def gigatoken_files(vocab: str, folder: str):
    """gigatoken's file encoder for ``vocab``, or None when gigatoken is not installed."""
    try:
        import gigatoken
    except ImportError:
        return None
    from encode_speed import tiktoken_file

    g = gigatoken.Tokenizer.from_tiktoken(tiktoken_file(vocab, folder))

    def encode_file(tok, path):
        return len(g.encode_files(gigatoken.TextFileSource([path]), parallel=False)[0])
    encode_file.g = g
    return encode_file


def stream_arrays(tok, path):
    with open(path, encoding="utf-8") as f:
        return sum(len(a) for a in tok.encode_iterable_to_numpy(f))


def stream_arrays_binary(tok, path):
    with open(path, "rb") as f:
        return sum(len(a) for a in tok.encode_iterable_to_numpy(f))


def peak_mb(fn, *args) -> float:
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?", default="stdlib:50MB")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--vocab", default="cl100k_base")
    args = ap.parse_args()
    kind, _, size = args.corpus.partition(":")
    if kind == "stdlib":  # the stdlib holds ~31 MB of sources: go round it to reach SIZE
        docs = _corpus.stdlib_docs(_corpus.parse_size(size), cycle=True)
    elif kind in ("prose", "multi") and size:  # encode_speed.py's texts, repeated to SIZE
        one = _corpus.prose_text() if kind == "prose" else _corpus.multilingual_text()
        n = _corpus.parse_size(size)
        docs = [(one * (1 + n // len(one.encode())))[:n]]
    else:
        docs = _corpus.load_corpus(args.corpus)
    text = "".join(docs).replace("<|endoftext|>", "")
    tok = Tokenizer.from_tiktoken(args.vocab)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "corpus.txt")
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        mb = os.path.getsize(path) / 1e6
        with open(path, encoding="utf-8", newline="") as f:
            want = tok.encode(f.read())
        with open(path, encoding="utf-8", newline="") as f:
            assert list(tok.encode_iterable(f)) == want, "the stream's ids differ from encode's"
        with open(path, "rb") as f:
            assert np.concatenate(list(tok.encode_iterable_to_numpy(f))).tolist() == want
        shapes = {"whole": whole, "stream": stream, "arrays": stream_arrays, "arrays rb": stream_arrays_binary}
        giga = gigatoken_files(args.vocab, tmp)
        if giga is not None:
            import awkward as ak
            import gigatoken
            got = ak.to_numpy(giga.g.encode_files(gigatoken.TextFileSource([path]), parallel=False)[0])
            assert got.tolist() == want, "gigatoken's ids differ from encode's"
            shapes["gigatoken"] = giga
        times = {name: [] for name in shapes}
        for _ in range(args.rounds):
            for name, fn in shapes.items():
                t = time.perf_counter()
                fn(tok, path)
                times[name].append(time.perf_counter() - t)
        peaks = {name: peak_mb(fn, tok, path) for name, fn in shapes.items() if name != "gigatoken"}
    print(f"{mb:.1f} MB, {len(want):,} ids ({args.vocab}); medians of {args.rounds} rounds")
    base = statistics.median(times["whole"])
    for name in times:
        s = statistics.median(times[name])
        memory = f"   peak Python memory {peaks[name]:8.1f} MB" if name in peaks else ""
        print(f"{name:>10}: {s:7.3f} s  {mb / s:6.1f} MB/s  {s / base:5.2f}x whole{memory}")
    if "gigatoken" in times:  # how many times gigatoken's time each array shape takes: >1 is ahead
        g = statistics.median(times["gigatoken"])
        print("against gigatoken: " + ", ".join(f"{name} {g / statistics.median(times[name]):.2f}x"
                                                for name in ("arrays", "arrays rb")))


if __name__ == "__main__":
    main()
