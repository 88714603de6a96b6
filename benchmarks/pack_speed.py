"""Packing speed: ``bpe_lesson.lm.pack.pack`` on one core and on all cores, against tiktoken, in one run.

How to run (from the repository root, with the project's environment active):

    python benchmarks/pack_speed.py                  # 50 MB of text
    python benchmarks/pack_speed.py --mb 2           # a quick check
    python benchmarks/pack_speed.py --tokenizer T    # pack with your tokenizer file instead

The corpus: CPython's standard-library sources (``Lib/**/*.py``, sorted, no
site-packages), one document per file, cut to ``--mb`` megabytes (10^6 bytes) and
written as one ``.jsonl`` file, so every run also reads and parses its input.
Without ``--tokenizer`` the script trains an 8,192-id tokenizer (GPT-4 pattern,
``<|endoftext|>``) on the first 2 MB first; training is not timed.

What it measures, each from the .jsonl on disk to finished shards:
  * ours, 1 worker: ``pack(..., workers=1)`` (the compiled encoder, ``encode_batch_to_numpy``);
  * ours, all cores: ``pack(..., workers=os.cpu_count())`` (that many encoding
    threads, beside the one that reads and writes);
  * tiktoken: the same vocabulary as a ``tiktoken.Encoding`` (``to_tiktoken``),
    ``encode_ordinary_batch`` over batches of documents with one thread per core,
    an EOS after each document, and the same ``ShardWriter`` writing shards of the
    same size. The script checks that its shards have the same sha256 as ours.
It prints tokens/s for each and the ratio of ours to tiktoken's.

Ours run ``--rounds`` times (default 5), 1 worker and all cores taking turns (which
goes first changes each round), and the table gives the median time of each; the
ratio of all cores to 1 is the median of the ratios within a round. Why: this
machine has slow and fast spells that last seconds and move both alike, and one
run of each measured the spell as much as the workers (0.74x and 1.14x in two
runs of the same code). tiktoken runs once.

What this script does not do: drop the page cache (the first round reads the
.jsonl from the cache the writing left).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import numpy as np

import bpe_lesson
from _corpus import stdlib_docs  # benchmarks/_corpus.py
from bpe_lesson.lm.pack import ShardWriter, iter_documents, pack
from bpe_lesson.lm.shards import embedding_rows, dtype_for, special_id
from bpe_lesson.tokenizer.tiktoken_io import to_tiktoken

EOS = "<|endoftext|>"


def pack_with_tiktoken(jsonl, tok, out_dir, shard_tokens, num_threads, batch_docs=256) -> list[dict]:
    """The baseline: tiktoken encodes, our ShardWriter writes (same closing rule, same bytes)."""
    enc = to_tiktoken(tok)
    eos = special_id(tok, EOS)
    dtype = np.dtype(dtype_for(embedding_rows(tok))).newbyteorder("<")
    writer = ShardWriter(out_dir, dtype.name, shard_tokens, eos)
    shards, batch = [], []

    def flush():
        for ids in enc.encode_ordinary_batch(batch, num_threads=num_threads):
            doc = np.array(ids + [eos], dtype=dtype)
            if not writer.fits(len(doc)):
                shards.append(writer.close_shard())
            writer.add(doc)
        batch.clear()

    for _, text in iter_documents([jsonl]):
        if text:
            batch.append(text)
        if len(batch) >= batch_docs:
            flush()
    flush()
    last = writer.close_shard()
    return shards + ([last] if last else [])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mb", type=float, default=50, help="megabytes of text to pack (default 50)")
    p.add_argument("--tokenizer", default=None, help="a tokenizer file with <|endoftext|> (default: train one)")
    p.add_argument("--shard-tokens", type=int, default=2_000_000, help="ids per shard (default 2,000,000)")
    p.add_argument("--rounds", type=int, default=5, help="runs of ours, 1 worker and all cores in turn (default 5)")
    args = p.parse_args(argv)
    cores = os.cpu_count() or 1

    with tempfile.TemporaryDirectory(prefix="pack_speed_") as tmp:
        docs = stdlib_docs(int(args.mb * 1e6), cut_last=False, cycle=True)
        n_bytes = sum(len(d.encode("utf-8")) for d in docs)
        jsonl = os.path.join(tmp, "corpus.jsonl")
        with open(jsonl, "w", encoding="utf-8") as f:
            for d in docs:
                f.write(json.dumps({"text": d}) + "\n")
        tok_path = args.tokenizer
        if tok_path is None:
            tok_path = os.path.join(tmp, "stdlib8192.json")
            head, size = [], 0
            for d in docs:
                head.append(d)
                size += len(d)
                if size > 2_000_000:
                    break
            bpe_lesson.train(head, 8192, special_tokens=[EOS]).save(tok_path)
        tok = bpe_lesson.load(tok_path)
        print(f"corpus: {len(docs):,} documents, {n_bytes / 1e6:.1f} MB of stdlib code; tokenizer: "
              f"{os.path.basename(tok_path)} ({embedding_rows(tok):,} ids); {cores} core(s)")

        times = {1: [], cores: []}  # seconds per run, by workers
        runs = []  # each run's shard records
        for r in range(args.rounds):
            for procs in (1, cores) if r % 2 == 0 else (cores, 1):
                t0 = time.perf_counter()
                m = pack([jsonl], tok_path, os.path.join(tmp, "ours"), shard_tokens=args.shard_tokens,
                         workers=procs, progress=False, overwrite=True)
                times[procs].append(time.perf_counter() - t0)
                runs.append(m["shards"])
        same_ours = all(r == runs[0] for r in runs)
        rows = [(label, m["total_tokens"], statistics.median(times[procs]), runs[0])
                for label, procs in [("ours, 1 worker", 1), (f"ours, {cores} workers", cores)]]
        out = os.path.join(tmp, "tiktoken")
        os.makedirs(out)
        t0 = time.perf_counter()
        shards = pack_with_tiktoken(jsonl, tok, out, args.shard_tokens, num_threads=cores)
        rows.append((f"tiktoken, {cores} threads", sum(s["n_tokens"] for s in shards), time.perf_counter() - t0, shards))

    same = all(r[3] == rows[0][3] for r in rows)
    tiktoken_rate = rows[-1][1] / rows[-1][2]
    print(f"{'packer':<24}{'tokens':>14}{'seconds':>10}{'tokens/s':>14}{'vs tiktoken':>13}")
    for label, n, secs, _ in rows:
        print(f"{label:<24}{n:>14,}{secs:>10.2f}{n / secs:>14,.0f}{(n / secs) / tiktoken_rate:>12.3f}x")
    print(f"same shards (sha256) from all three, in every round: {same and same_ours}")
    ratios = sorted(a / b for a, b in zip(times[1], times[cores]))
    print(f"ours: {statistics.median(ratios):.2f}x faster on {cores} workers than on 1 (median of {args.rounds} "
          f"rounds; each round: {', '.join(f'{x:.2f}' for x in ratios)})")
    return 0 if same and same_ours else 1


if __name__ == "__main__":
    sys.exit(main())
