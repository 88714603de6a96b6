"""Per-document arrays on held-out-like documents: ``encode_to_numpy`` one document at a
time against gigatoken's ``encode``, warm and cold, both vocabularies, in one run.

How to run (from the repository root, with the project's environment active, and
gigatoken installed: ``pip install gigatoken==0.10.0``):

    python benchmarks/per_document.py                     # 2 vocabularies x 3 texts x warm/cold
    python benchmarks/per_document.py --rounds 15 --vocabs cl100k_base

The documents are cut the way held-out text arrives, not the way the other
benchmarks cut it (one file or one help topic per document):
  code   the stdlib sources after the first 10 MB (which ``train_speed.py`` and
         ``encode_speed.py`` read), 1.5 MB, each file cut at blank lines into
         documents of 1 to 12 paragraphs;
  prose  Python's help topics, joined and cut at blank lines into documents of
         1 to 6 paragraphs;
  multi  Sphinx's translated messages, cut into documents of 1 to 40 lines.
The number of paragraphs or lines per document is drawn at random, seeded.

What is timed, pinned to one core: a loop over every document, one call each
(ours ``Tokenizer.encode_to_numpy``, gigatoken ``Tokenizer.encode``; both give a
uint32 array per document). Cold: the loop on a tokenizer just built (empty
caches), building not timed. Warm: the same tokenizer's second loop. In each of
``--rounds`` rounds both engines are built afresh and timed in turn (which one
goes first alternates); a cell's ratio is the median over rounds of gigatoken's
time over ours (above 1: ours is faster). Before any timing, every document's
ids are compared with tiktoken's ``encode_ordinary``; a difference stops the script.

What this script does not do: time lists, batches or whole texts (encode_speed.py
and per_call.py do), or run on more than one core.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _corpus  # noqa: E402
from encode_speed import tiktoken_encoding, tiktoken_file  # noqa: E402

TEXTS = ("code", "prose", "multi")


def _groups(parts: list[str], most: int, rng: random.Random, sep: str) -> list[str]:
    """Consecutive parts joined into documents of 1..most parts each."""
    docs, i = [], 0
    while i < len(parts):
        k = rng.randint(1, most)
        docs.append(sep.join(parts[i:i + k]))
        i += k
    return [d for d in docs if d.strip()]


def documents(text: str, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    if text == "code":
        seen = _corpus.stdlib_docs(10_000_000, cut_last=False)  # what the other benchmarks read
        skipped = sum(len(d.encode("utf-8")) for d in seen)
        files = _corpus.stdlib_docs(skipped + 1_500_000, cut_last=False)[len(seen):]
        return [d for f in files for d in _groups(f.split("\n\n"), 12, rng, "\n\n")]
    if text == "prose":
        return _groups(_corpus.prose_text().split("\n\n"), 6, rng, "\n\n")
    return _groups(_corpus.multilingual_text().split("\n"), 40, rng, "\n")


def engines(vocab: str, folder: str) -> dict:
    """name -> a function that builds a fresh tokenizer and returns its per-document call."""
    import gigatoken

    from bpe_lesson.formats.pretrained import from_pretrained
    path = tiktoken_file(vocab, folder)
    return {"ours": lambda: from_pretrained(vocab).encode_to_numpy,
            "gigatoken": lambda: gigatoken.Tokenizer.from_tiktoken(path).encode}


def loop(call, docs) -> float:
    t = time.perf_counter()
    for d in docs:
        call(d)
    return time.perf_counter() - t


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--vocabs", default="cl100k_base,o200k_base")
    p.add_argument("--texts", default=",".join(TEXTS))
    p.add_argument("--rounds", type=int, default=9)
    args = p.parse_args(argv)
    import numpy as np

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    print(f"machine: {os.cpu_count()} cores, pinned to one; Python {sys.version.split()[0]}; "
          f"{args.rounds} rounds; ratio = gigatoken's time / ours (above 1: ours faster)")
    print(f"{'vocab':12} {'text':6} {'docs':>6} {'MB':>5} {'mean bytes':>10} "
          f"{'cold ours':>10} {'cold giga':>10} {'ratio':>6} {'warm ours':>10} {'warm giga':>10} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as folder:
        for vocab in args.vocabs.split(","):
            build = engines(vocab, folder)
            tt = tiktoken_encoding(vocab)
            for text in args.texts.split(","):
                docs = documents(text)
                n = sum(len(d.encode("utf-8")) for d in docs)
                for name, make in build.items():  # ids first
                    call = make()
                    for d in docs:
                        if not np.array_equal(np.asarray(call(d), dtype=np.int64), tt.encode_ordinary(d)):
                            raise SystemExit(f"{name} differs from tiktoken on a {text} document ({vocab})")
                times = {(e, k): [] for e in build for k in ("cold", "warm")}
                ratios = {"cold": [], "warm": []}
                for r in range(args.rounds):
                    order = list(build) if r % 2 == 0 else list(build)[::-1]
                    got = {}
                    for name in order:
                        call = build[name]()
                        got[name, "cold"] = loop(call, docs)
                        got[name, "warm"] = loop(call, docs)
                    for key, t in got.items():
                        times[key].append(t)
                    for k in ratios:
                        ratios[k].append(got["gigatoken", k] / got["ours", k])
                med = {key: statistics.median(v) * 1e3 for key, v in times.items()}
                print(f"{vocab:12} {text:6} {len(docs):>6,} {n / 1e6:>5.2f} {n / len(docs):>10,.0f} "
                      f"{med['ours', 'cold']:>7.1f} ms {med['gigatoken', 'cold']:>7.1f} ms "
                      f"{statistics.median(ratios['cold']):>6.2f} "
                      f"{med['ours', 'warm']:>7.1f} ms {med['gigatoken', 'warm']:>7.1f} ms "
                      f"{statistics.median(ratios['warm']):>6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
