"""Training on one long string: the memory training adds and its time, ours against
rustbpe and gigatoken, each trainer in a fresh process, in one run.

How to run (from the repository root, with the project's environment active; gigatoken
is optional, ``pip install gigatoken==0.10.0``):

    python benchmarks/train_one_string.py                      # 10 MB and 50 MB, 32,768 ids
    python benchmarks/train_one_string.py --sizes 10MB --vocab 8192

The text: CPython's standard-library sources joined into one ``str`` (``_corpus``),
SIZE bytes of UTF-8; past the 31.5 MB the standard library has, its files repeat.
Each trainer gets the string as one document: ours ``bpe_lesson.train(text, V)``,
rustbpe ``train_from_iterator(iter([text]), V, pattern=GPT-4)``, gigatoken
``train_bpe(text.encode(), V, [])`` (its API takes bytes, so the encoding is part of
its cost). For comparison, ours also trains on the same text as a list of its files.

What is measured, in a fresh process per trainer: the text is read, then the peak
resident set size is reset (Linux: ``/proc/self/clear_refs``, 5) and the resident
size noted; after training, the peak (``VmHWM``) minus that size is the memory
training added, whatever allocated it (Python, C, C++ or Rust). Wall time is
training alone. Our merges on the one string are checked equal to rustbpe's (the same
rule and byte ids); on the list of files they may differ, as a chunk can run on across
the end of a file in the one string.

What this script does not do: repeat runs (one run per trainer; run it on a quiet
machine), or run anywhere but Linux (it reads /proc).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _corpus  # noqa: E402

TRAINERS = ["ours", "ours (list of files)", "rustbpe", "gigatoken"]


def _memory() -> dict:
    with open("/proc/self/status") as f:
        return {k: int(v.split()[0]) * 1024 for k, _, v in (line.partition(":") for line in f)
                if k in ("VmRSS", "VmHWM")}


def worker(name: str, path: str, vocab: int) -> dict:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    files = json.loads(open(path + ".cuts").read()) if name == "ours (list of files)" else None
    if files is not None:
        docs, at = [], 0
        for n in files:
            docs.append(text[at:at + n])
            at += n
    from bpe_lesson.patterns import GPT4_PATTERN
    if name.startswith("ours"):
        import bpe_lesson
    elif name == "rustbpe":
        import rustbpe
    else:
        import gigatoken
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # the peak is now the current size
    before = _memory()["VmRSS"]
    t = time.perf_counter()
    out = {}
    if name == "ours":
        tok = bpe_lesson.train(text, vocab, pattern="gpt4")
    elif name == "ours (list of files)":
        tok = bpe_lesson.train(docs, vocab, pattern="gpt4")
    elif name == "rustbpe":
        rust = rustbpe.Tokenizer()
        rust.train_from_iterator(iter([text]), vocab, pattern=GPT4_PATTERN)
    else:
        gigatoken.train_bpe(text.encode("utf-8"), vocab, [])
    out["seconds"] = time.perf_counter() - t
    out["added"] = _memory()["VmHWM"] - before
    out["text_rss"] = before
    if name.startswith("ours"):
        out["vocab"] = [tok.vocab[i].hex() for i in range(len(tok.vocab))]
    elif name == "rustbpe":
        out["vocab"] = [b.hex() for b, _ in sorted(rust.get_mergeable_ranks(), key=lambda br: br[1])]
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="10MB,50MB")
    p.add_argument("--vocab", type=int, default=32768)
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--path", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.path, args.vocab)))
        return 0
    try:
        import gigatoken  # noqa: F401
        trainers = TRAINERS
    except ImportError:
        print("(gigatoken not installed: pip install gigatoken==0.10.0 adds its row)")
        trainers = TRAINERS[:-1]
    print(f"machine: {os.cpu_count()} cores; Python {sys.version.split()[0]}; vocab {args.vocab:,}; "
          "'added': peak RSS during training minus RSS with the text loaded")
    print(f"{'text':>6} {'trainer':22} {'seconds':>8} {'added':>9} {'x gigatoken':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes.split(","):
            docs = _corpus.stdlib_docs(_corpus.parse_size(size), cycle=True)
            path = os.path.join(tmp, "text.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write("".join(docs))
            with open(path + ".cuts", "w") as f:
                json.dump([len(d) for d in docs], f)
            results = {}
            for name in trainers:
                r = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", name, "--path", path,
                                    "--vocab", str(args.vocab)], capture_output=True, text=True)
                if r.returncode != 0:
                    raise SystemExit(f"{name} failed:\n{r.stderr}")
                results[name] = json.loads(r.stdout.strip().splitlines()[-1])
            giga = results.get("gigatoken", {}).get("added")
            for name, res in results.items():
                ratio = f"{res['added'] / giga:>11.2f}x" if giga else f"{'':>12}"
                print(f"{size:>6} {name:22} {res['seconds']:>8.2f} {res['added'] / 1e6:>6.1f} MB {ratio}", flush=True)
            # (the list of files is other training data: no chunk runs on across a file's end)
            same = results["ours"]["vocab"] == results["rustbpe"]["vocab"]
            print(f"{'':>6} ours and rustbpe, both on the one string, give every id the same bytes: "
                  f"{'yes' if same else 'NO'}; text in memory: {results['ours']['text_rss'] / 1e6:.0f} MB RSS")
            if not same:
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
