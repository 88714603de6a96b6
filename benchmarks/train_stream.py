r"""Training from a generator against training from a list: memory added at peak, and time.

How to run (from the repository root, with the project's environment active):

    python benchmarks/train_stream.py stdlib:100MB 32768
    python benchmarks/train_stream.py stdlib:10MB 8192 --workers 1

``stdlib:SIZE`` is CPython's ``Lib/**/*.py`` (as in ``_corpus.py``), its files read
again in further passes until SIZE bytes, one document per file. Each mode runs in
a fresh subprocess, which reports its own peak resident set size (``ru_maxrss``):
  * ``list``: the documents read into a list first, then ``train(docs, VOCAB)``;
    added = peak minus the RSS once the list is held (what training itself adds);
  * ``generator``: ``train(gen, VOCAB)`` where ``gen`` reads each file only when
    pulled; added = peak minus the RSS before training (documents included: a
    trainer that held them all would add their size here).
The merges of both modes are checked equal before anything is printed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _corpus import parse_size, stdlib_paths  # noqa: E402


def documents(limit_bytes: int):
    """Each stdlib file's text, read when pulled, round and round until ``limit_bytes``."""
    paths, total = stdlib_paths(), 0
    while True:
        for p in paths:
            with open(p, encoding="utf-8", errors="replace") as f:
                text = f.read()
            total += len(text.encode("utf-8"))
            if total > limit_bytes:
                return
            yield text


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def child(mode: str, limit_bytes: int, vocab: int, workers, stream_chars) -> None:
    import bpe_lesson
    from bpe_lesson import trainer

    if stream_chars:
        trainer.STREAM_CHARS = stream_chars

    bpe_lesson.train(["warm up the imports " * 50], 300)
    docs = list(documents(limit_bytes)) if mode == "list" else documents(limit_bytes)
    base = _rss()
    t = time.perf_counter()
    tok = bpe_lesson.train(docs, vocab, workers=workers)
    seconds = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    merges = hashlib.sha256(repr(list(tok.merges)).encode()).hexdigest()
    print(json.dumps({"seconds": seconds, "added": max(peak - base, 0), "merges": merges,
                      "backend": bpe_lesson.BACKEND}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", help="stdlib:SIZE, e.g. stdlib:100MB")
    ap.add_argument("vocab", type=int)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--stream-chars", type=int, default=None,
                    help="characters counted at a time when streaming (default: trainer.STREAM_CHARS)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not args.corpus.startswith("stdlib:"):
        raise SystemExit(f"CORPUS {args.corpus!r}: this script reads stdlib:SIZE (e.g. stdlib:100MB)")
    limit = parse_size(args.corpus[len("stdlib:"):])
    if args.child:
        return child(args.child, limit, args.vocab, args.workers, args.stream_chars)
    results = {}
    for mode in ("list", "generator"):
        cmd = [sys.executable, __file__, args.corpus, str(args.vocab), "--child", mode]
        if args.workers is not None:
            cmd += ["--workers", str(args.workers)]
        if args.stream_chars is not None:
            cmd += ["--stream-chars", str(args.stream_chars)]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        results[mode] = json.loads(out.strip().splitlines()[-1])
    if results["list"]["merges"] != results["generator"]["merges"]:
        raise SystemExit("the merges from the generator differ from those from the list")
    print(f"{args.corpus}, vocab {args.vocab:,}, workers {args.workers}, stream_chars {args.stream_chars}, backend "
          f"{results['list']['backend']}: merges identical")
    print(f"{'documents':<11} {'seconds':>8} {'added at peak':>14}")
    for mode, r in results.items():
        print(f"{mode:<11} {r['seconds']:>8.2f} {r['added'] / 1e6:>11.1f} MB")


if __name__ == "__main__":
    main()
