"""The YAML trainer end to end against rustbpe, on the same files, in one run.

How to run (from the repository root, with the project's environment active):

    python benchmarks/train_config.py                         # 50 MB, 32,000 merges
    python benchmarks/train_config.py --size 5MB --merges 4000  # a quick check
    python benchmarks/train_config.py --check                 # also: without hardcoded merges, equal to rustbpe's?

The corpus: CPython's ``Lib/**/*.py`` (sorted by path, site-packages left out)
copied as .txt files into a temporary folder until SIZE bytes (decimal: 50MB =
50,000,000); when the stdlib is smaller than SIZE the copy goes round again
from the first file (``pass2/...``), and the script says so.

What it runs, each in a fresh subprocess so that peak memory never mixes:
  * ours: ``examples/tokenizer.yaml`` with its phases replaced by one phase of
    MERGES merges on the corpus folder (so: GPT-4 pattern, the 1,161 hardcoded
    merges, two special tokens, all cores), via ``train_from_config``: stream the
    files, count chunks on worker processes, the Cython merge loop, write the
    .tiktoken file.
  * rustbpe: ``rustbpe.Tokenizer().train_from_iterator(docs, 256 + MERGES,
    pattern=GPT4_PATTERN)``, with ``docs`` a generator that reads the same files.
Both clocks start after the imports and stop when the merges are done (ours also
includes writing its output). Peak memory is each subprocess's ``ru_maxrss``; our
counting workers' peak is printed separately (it is per worker, not a sum).

``--check`` adds a third run, ours without hardcoded merges or special tokens,
whose merges must equal rustbpe's (same tie rule, same byte ids).

What this script does not do: warm up, repeat or average. Run it on a quiet
machine; one run of each is what it reports.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

from _corpus import parse_size, stdlib_paths  # benchmarks/_corpus.py

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, os.pardir, "examples", "tokenizer.yaml")

TARGET_RATIO = 1.2  # the goal: within 1.2x of rustbpe's time


def make_corpus(folder: str, size: int) -> tuple[int, int, int]:
    """Copy stdlib sources into ``folder`` as .txt until ``size`` bytes: (files, bytes, passes)."""
    lib = os.path.dirname(os.__file__)
    paths = stdlib_paths()
    total = files = 0
    passes = 1
    while total < size:
        for p in paths:
            with open(p, "rb") as f:
                data = f.read()
            try:  # the trainer refuses text that is not UTF-8 (a few stdlib tests are Latin-1)
                data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            # the last file may be cut: at a character's start, so it stays UTF-8
            data = data[: size - total].decode("utf-8", "ignore").encode("utf-8")
            rel = os.path.relpath(p, lib) + ".txt"
            dest = os.path.join(folder, f"pass{passes}", rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as f:
                f.write(data)
            total += len(data)
            files += 1
            if total >= size:
                break
        else:
            passes += 1
    return files, total, passes


OURS = r"""
import json, resource, sys, time
from bpe_lesson.scale.config import load_config
from bpe_lesson.scale.phases import train_from_config
cfg = load_config(sys.argv[1])
t0 = time.perf_counter()
result = train_from_config(cfg, progress=False, log=lambda line: None)
seconds = time.perf_counter() - t0
trained = [m for r in result.phases for m in r.merges]
print(json.dumps({
    "seconds": seconds,
    "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    "peak_workers": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024,
    "merges": len(trained),
    "summary": [r.line() for r in result.phases],
    "phase": {k: getattr(result.phases[0], k) for k in ("seconds_read", "seconds_count", "seconds_merge",
                                                          "unique_chunks", "bytes_read")},
    "merge_rate": result.phases[0].merges_per_second,
    "vocab": [result.tokenizer.vocab[i].hex() for i in sorted(result.tokenizer.vocab)],
}))
"""

RUSTBPE = r"""
import json, resource, sys, time
import rustbpe
from bpe_lesson.patterns import GPT4_PATTERN
with open(sys.argv[1], encoding="utf-8") as f:  # a file: thousands of paths overflow argv
    paths = json.load(f)
vocab_size = int(sys.argv[2])
def docs():
    for p in paths:
        with open(p, encoding="utf-8", errors="replace", newline="") as f:  # newline="": keep \r\n as ours does
            yield f.read()
t0 = time.perf_counter()
tok = rustbpe.Tokenizer()
tok.train_from_iterator(docs(), vocab_size, pattern=GPT4_PATTERN)
seconds = time.perf_counter() - t0
ranks = tok.get_mergeable_ranks()
ranks = ranks.items() if isinstance(ranks, dict) else ranks
print(json.dumps({
    "seconds": seconds,
    "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    "merges": tok.vocab_size - 256,
    "vocab": [bytes(b).hex() for b, r in sorted(ranks, key=lambda kv: kv[1])],
}))
"""


def run(code: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"a benchmark subprocess failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def write_config(path: str, corpus: str, merges: int, hardcoded: bool) -> None:
    import yaml

    with open(EXAMPLE, encoding="utf-8") as f:
        cfg = yaml.safe_load(f)
    cfg["output"] = os.path.join(os.path.dirname(path), "bench.tiktoken")
    cfg["phases"] = [{"name": "stdlib", "merges": merges, "sources": [{"path": corpus}]}]
    if not hardcoded:
        cfg["hardcoded_merges"] = False
        cfg["special_tokens"] = []
    with open(path, "w", encoding="utf-8") as f:
        yaml.safe_dump(cfg, f, sort_keys=False)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="50MB", help="corpus size (default 50MB)")
    ap.add_argument("--merges", type=int, default=32000, help="merges to learn (default 32000)")
    ap.add_argument("--check", action="store_true", help="also train without hardcoded merges; compare with rustbpe")
    args = ap.parse_args(argv)
    size = parse_size(args.size)

    tmp = tempfile.mkdtemp(prefix="bpe-lesson-bench-")
    try:
        corpus = os.path.join(tmp, "corpus")
        n_files, n_bytes, passes = make_corpus(corpus, size)
        note = "" if passes == 1 else f"; the stdlib is smaller, so the files repeat ({passes} passes)"
        print(f"corpus: {n_bytes / 1e6:.1f} MB in {n_files:,} files of CPython Lib/**/*.py{note}")
        print(f"merges: {args.merges:,}; cores: {os.cpu_count()}")
        paths = sorted(glob.glob(os.path.join(corpus, "**", "*.txt"), recursive=True))

        cfg_path = os.path.join(tmp, "bench.yaml")
        write_config(cfg_path, corpus, args.merges, hardcoded=True)
        ours = run(OURS, cfg_path)
        paths_file = os.path.join(tmp, "paths.json")
        with open(paths_file, "w", encoding="utf-8") as f:
            json.dump(paths, f)
        rust = run(RUSTBPE, paths_file, str(256 + args.merges))

        rows = [("bpe-lesson train (example config)", ours), ("rustbpe", rust)]
        print(f"\n{'trainer':36s} {'wall s':>8s} {'peak MB':>9s} {'workers MB':>11s} "
              f"{'merges/s':>9s} {'loop merges/s':>14s} {'vs rustbpe':>11s}")
        for label, r in rows:
            workers = f"{r['peak_workers'] / 2**20:,.0f}" if "peak_workers" in r else "-"
            loop = f"{r['merge_rate']:,.0f}" if "merge_rate" in r else "-"
            print(f"{label:36s} {r['seconds']:8.2f} {r['peak'] / 2**20:9,.0f} {workers:>11s} "
                  f"{r['merges'] / r['seconds']:9,.0f} {loop:>14s} {r['seconds'] / rust['seconds']:10.2f}x")
        p = ours["phase"]
        print(f"\nours, by step: read {p['seconds_read']:.2f} s, count {p['seconds_count']:.2f} s, "
              f"merge loop {p['seconds_merge']:.2f} s; {p['unique_chunks']:,} unique chunks")
        print("our summary line:", ours["summary"][0])
        ratio = ours["seconds"] / rust["seconds"]
        verdict = "met" if ratio <= TARGET_RATIO else "NOT met"
        print(f"target (within {TARGET_RATIO}x of rustbpe's time): {verdict} ({ratio:.2f}x)")

        if args.check:
            write_config(cfg_path, corpus, args.merges, hardcoded=False)
            plain = run(OURS, cfg_path)
            same = plain["vocab"] == rust["vocab"]
            print(f"\nwithout hardcoded merges: {plain['seconds']:.2f} s; vocabulary equal to rustbpe's: {same}")
            if not same:
                k = next((i for i, (a, b) in enumerate(zip(plain["vocab"], rust["vocab"])) if a != b),
                         min(len(plain["vocab"]), len(rust["vocab"])))
                print(f"  first difference at id {k}: ours "
                      f"{bytes.fromhex(plain['vocab'][k]) if k < len(plain['vocab']) else None!r}, rustbpe "
                      f"{bytes.fromhex(rust['vocab'][k]) if k < len(rust['vocab']) else None!r}")
                return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
