r"""Training speed: our three trainers against Hugging Face ``tokenizers`` and ``rustbpe``, in one run.

How to run (from the repository root, with the project's environment active):

    python benchmarks/train_speed.py stdlib:10MB 32768    # 10 MB of stdlib code, a 32,768-token vocabulary
    python benchmarks/train_speed.py stdlib:1MB 2048      # a check; includes the textbook (a minute or more)
    python benchmarks/train_speed.py notes.txt 8192       # one text file = one document
    python benchmarks/train_speed.py src/ 8192            # every .py/.txt under a folder, one document per file

CORPUS is a text file, a folder, or ``stdlib:SIZE`` (CPython's standard-library
sources ``Lib/**/*.py`` in sorted order, site-packages left out, one document per
file, cut to SIZE bytes; SIZE is decimal: 10MB = 10,000,000 bytes). VOCAB counts
everything (256 bytes + merges), as ``bpe_lesson.train`` and rustbpe both do.

What it measures, all on the same documents and the GPT-4 split pattern:
  * end to end, for each trainer: from the list of documents in memory to the
    finished merges (split + count + merge loop), wall time, and that time as a
    ratio to rustbpe's. textbook runs only on small corpora (--textbook-max-bytes).
  * the merge loop alone, for our two incremental trainers: ``train_merges`` on
    chunk counts computed beforehand, its time, merges/s, and Python / Cython.
  * peak memory: every trainer runs in a fresh subprocess, which reports its own
    peak resident set size (``ru_maxrss``), so peaks never mix. When our front end
    counts chunks in worker processes, their peak is printed separately.
It checks that our three trainers agree (assertion) and that our merges equal
rustbpe's (rustbpe uses the same tie rule and the same byte ids), and prints the
first difference if they do not.

Peers as configured here:
  * rustbpe: ``rustbpe.Tokenizer().train_from_iterator(iter(docs), VOCAB, pattern=GPT4_PATTERN)``.
  * Hugging Face: BPE model, no normalizer, pre-tokenizer = Split(GPT-4 regex,
    behavior "isolated") then ByteLevel(use_regex=False), BpeTrainer with the 256
    byte symbols as initial alphabet and min_frequency 2.
    subtle: Hugging Face compiles regexes with Oniguruma, which reads GPT-4's
    ``\p{N}{1,3}+`` as "1-3 digits, repeated" (any run of digits), not as a
    possessive 1-3 digits; we hand it ``\p{N}{1,3}``, which splits exactly as
    GPT-4's pattern does in Python's ``regex`` (checked on the first documents).
    Its tie rule differs from ours (its byte ids are in another order), so tied
    merges may come in another order; we print how many of its tokens are ours.

What this script does not do: warm up, repeat or average. Run it on a quiet
machine; one run of each trainer is what it reports.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time

from _corpus import load_corpus  # benchmarks/_corpus.py

TRAINERS = ["textbook", "incremental-python", "incremental-cython", "hf-tokenizers", "rustbpe", "gigatoken"]
LABELS = {
    "textbook": "textbook (Python)",
    "incremental-python": "incremental, Python",
    "incremental-cython": "incremental, Cython",
    "hf-tokenizers": "HF tokenizers",
    "rustbpe": "rustbpe",
    "gigatoken": "gigatoken",
}
OPTIONAL = {"gigatoken": "gigatoken"}  # peers run only when installed (pip install gigatoken)


# ---------------------------------------------------------------- the corpus

# ---------------------------------------------------------------- one trainer per subprocess

def _peaks() -> tuple[int, int]:
    """Peak RSS in bytes of this process and of its largest finished child (Linux reports KiB)."""
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return me, kids


def hf_pattern(pattern: str) -> str:
    r"""The same split written for Oniguruma: ``{1,3}+`` is a repetition there, not possessive.

    >>> hf_pattern(r"\p{N}{1,3}+|x")
    '\\p{N}{1,3}|x'
    """
    return pattern.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")


def hf_tokenizer_and_trainer(vocab_size: int, pattern: str):
    """Hugging Face's byte-level BPE set up like ours: GPT-4 split, all 256 bytes, no normalizer."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    pattern = hf_pattern(pattern)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=2, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=[])
    return tok, trainer


def _hf_vocab_bytes(tok) -> list[bytes]:
    """HF's byte-level tokens (printable stand-ins for bytes) back to raw bytes, in id order."""
    # GPT-2's byte <-> printable character table, rebuilt (HF uses the same one)
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    char_to_byte = {chr(c): b for b, c in zip(bs, cs)}
    vocab = tok.get_vocab()  # str -> id
    return [bytes(char_to_byte[ch] for ch in token) for token in sorted(vocab, key=vocab.get)]


def worker(name: str, docs_path: str, vocab_size: int, out_path: str) -> None:
    """Run one trainer on the pickled documents; write times, peak memory and the vocabulary as JSON."""
    with open(docs_path, "rb") as f:
        docs = pickle.load(f)
    from bpe_lesson.patterns import GPT4_PATTERN

    result = {}
    if name == "baseline":
        pass  # the documents alone: what every worker holds before it trains
    elif name in ("textbook", "incremental-python", "incremental-cython"):
        import bpe_lesson

        algorithm, _, backend = name.partition("-")
        t0 = time.perf_counter()
        tok = bpe_lesson.train(docs, vocab_size, pattern="gpt4", algorithm=algorithm, backend=backend or None)
        result["seconds"] = time.perf_counter() - t0
        result["vocab"] = [tok.vocab[i].hex() for i in range(len(tok.vocab))]
    elif name == "merge-loop":
        # the merge loop alone, both backends on the same chunk counts (computed before the clock starts)
        from bpe_lesson import incremental
        from bpe_lesson import trainer as trainer_mod
        from bpe_lesson.chunks import count_chunks, to_byte_counts

        counts = to_byte_counts(count_chunks(docs, GPT4_PATTERN))
        result["unique_chunks"] = len(counts)
        for backend, impl in (("python", incremental), ("cython", trainer_mod.get_trainer("incremental", "cython"))):
            t0 = time.perf_counter()
            merges = impl.train_merges(counts, vocab_size - 256)
            result[backend] = {"seconds": time.perf_counter() - t0, "merges": [[a, b, c] for (a, b), c in merges]}
    elif name == "hf-tokenizers":
        t0 = time.perf_counter()
        tok, trainer = hf_tokenizer_and_trainer(vocab_size, GPT4_PATTERN)
        tok.train_from_iterator(docs, trainer)
        result["seconds"] = time.perf_counter() - t0
        result["vocab_bytes"] = [b.hex() for b in _hf_vocab_bytes(tok)]
        # after the clock: does its split (the Split step alone) equal ours? the first 200 documents
        from tokenizers import Regex, pre_tokenizers

        from bpe_lesson.patterns import split_chunks

        split = pre_tokenizers.Split(Regex(hf_pattern(GPT4_PATTERN)), behavior="isolated")
        sample = docs[:200]
        result["split_same"] = sum([p for p, _ in split.pre_tokenize_str(d)] == split_chunks(d, GPT4_PATTERN)
                                   for d in sample)
        result["split_checked"] = len(sample)
    elif name == "rustbpe":
        import rustbpe

        t0 = time.perf_counter()
        tok = rustbpe.Tokenizer()
        tok.train_from_iterator(iter(docs), vocab_size, pattern=GPT4_PATTERN)
        ranks = tok.get_mergeable_ranks()  # list of (bytes, rank)
        result["seconds"] = time.perf_counter() - t0
        result["ranks"] = [[b.hex(), r] for b, r in ranks]
    elif name == "gigatoken":
        import gigatoken

        # its own pre-tokenizer (not our GPT-4 pattern: its merges differ from the 20th on),
        # the documents joined by a separator it never merges across
        t0 = time.perf_counter()
        data = "\x00".join(docs).encode("utf-8")
        vocab, merges = gigatoken.train_bpe(data, vocab_size, [], separator=b"\x00")
        result["seconds"] = time.perf_counter() - t0
        result["n_merges"] = len(merges)
    else:
        raise SystemExit(f"unknown worker {name!r}; use one of {TRAINERS + ['merge-loop', 'baseline']}")
    result["peak_rss"], result["children_peak_rss"] = _peaks()
    with open(out_path, "w") as f:
        json.dump(result, f)


def run_worker(name: str, docs_path: str, vocab_size: int, tmp: str) -> dict:
    out = os.path.join(tmp, f"{name}.json")
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", name, "--docs", docs_path, "--out", out,
           "x", str(vocab_size)]
    # stderr (progress bars) is shown only when the worker fails
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        raise SystemExit(f"worker {name!r} failed with exit code {p.returncode}")
    with open(out) as f:
        return json.load(f)


# ---------------------------------------------------------------- comparing vocabularies

def first_difference(ours: list[bytes], theirs: dict[int, bytes]) -> str | None:
    """None when both give every id the same bytes; else a description of the first id that differs.

    >>> first_difference([b"a", b"b"], {0: b"a", 1: b"b"}) is None
    True
    >>> first_difference([b"a", b"bc"], {0: b"a", 1: b"cb"})
    "id 1: ours b'bc', rustbpe b'cb'"
    """
    for i in range(max(len(ours), len(theirs))):
        a = ours[i] if i < len(ours) else None
        b = theirs.get(i)
        if a != b:
            return f"id {i}: ours {a!r}, rustbpe {b!r}"
    return None


def fmt_mb(n: int) -> str:
    return f"{n / 1e6:,.0f} MB"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("corpus", help="a text file, a folder (every .py/.txt under it), or stdlib:SIZE (e.g. stdlib:10MB)")
    p.add_argument("vocab", type=int, help="vocabulary size, 256 bytes included (e.g. 32768)")
    p.add_argument("--textbook-max-bytes", type=int, default=1_000_000,
                   help="run the textbook trainer only on corpora up to this many bytes (default 1,000,000)")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--docs", help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.vocab <= 256:
        raise SystemExit(f"VOCAB {args.vocab} leaves no merges: it counts the 256 bytes too, so use e.g. 2048 or 32768")
    if args.worker:
        worker(args.worker, args.docs, args.vocab, args.out)
        return 0

    import platform

    docs = load_corpus(args.corpus)
    n_bytes = sum(len(d.encode("utf-8")) for d in docs)
    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    print(f"corpus: {args.corpus}: {len(docs):,} documents, {n_bytes:,} bytes; vocab {args.vocab:,} "
          f"({args.vocab - 256:,} merges); pattern GPT-4 (cl100k_base)")
    print(f"machine: {cores} cores ({usable} usable by this process), {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}")
    print("every time below is end to end: from the documents in memory to finished merges "
          "(split + count + merge loop), one run, each trainer in a fresh subprocess\n")

    with tempfile.TemporaryDirectory(prefix="train_speed_") as tmp:
        docs_path = os.path.join(tmp, "docs.pickle")
        with open(docs_path, "wb") as f:
            pickle.dump(docs, f, protocol=pickle.HIGHEST_PROTOCOL)
        del docs
        results = {"baseline": run_worker("baseline", docs_path, args.vocab, tmp)}
        for name in TRAINERS:
            if name == "textbook" and n_bytes > args.textbook_max_bytes:
                results[name] = None
                continue
            if name in OPTIONAL and importlib.util.find_spec(OPTIONAL[name]) is None:
                results[name] = "missing"
                continue
            print(f"  running {LABELS[name]} ...", file=sys.stderr, flush=True)
            results[name] = run_worker(name, docs_path, args.vocab, tmp)
        print("  running the merge loops ...", file=sys.stderr, flush=True)
        loop = run_worker("merge-loop", docs_path, args.vocab, tmp)

    rust = results["rustbpe"]
    base = results["baseline"]["peak_rss"]
    print(f"{'trainer':<22} {'seconds':>9} {'x rustbpe':>10} {'peak RSS':>10} {'x rustbpe':>10} "
          f"{'above docs':>11} {'workers peak':>13}")
    for name in TRAINERS:
        r = results[name]
        if r == "missing":
            print(f"{LABELS[name]:<22} {'skipped':>9}   (not installed: pip install {OPTIONAL[name]})")
            continue
        if r is None:
            print(f"{LABELS[name]:<22} {'skipped':>9}   (corpus above {args.textbook_max_bytes:,} bytes; "
                  f"see --textbook-max-bytes)")
            continue
        kids = fmt_mb(r["children_peak_rss"]) if r["children_peak_rss"] else "-"
        print(f"{LABELS[name]:<22} {r['seconds']:>9.2f} {r['seconds'] / rust['seconds']:>10.2f} "
              f"{fmt_mb(r['peak_rss']):>10} {r['peak_rss'] / rust['peak_rss']:>10.2f} "
              f"{fmt_mb(r['peak_rss'] - base):>11} {kids:>13}")
    print(f"(peak RSS of a process that only holds the documents: {fmt_mb(base)}; 'workers peak' is the "
          f"largest chunk-counting worker process, outside the trainer's own peak)")

    py, cy = loop["python"], loop["cython"]
    n_merges = len(py["merges"])
    print(f"\nmerge loop alone (train_merges on {loop['unique_chunks']:,} unique chunks counted beforehand, "
          f"{n_merges:,} merges):")
    for label, r in (("incremental, Python", py), ("incremental, Cython", cy)):
        print(f"  {label:<20} {r['seconds']:>8.3f} s  {n_merges / max(r['seconds'], 1e-9):>12,.0f} merges/s")
    print(f"  Python / Cython: {py['seconds'] / max(cy['seconds'], 1e-9):.1f}x less merge-loop time compiled")

    # our trainers must agree with each other, id for id
    vocabs = {name: [bytes.fromhex(h) for h in results[name]["vocab"]]
              for name in ("textbook", "incremental-python", "incremental-cython") if results[name] is not None}
    ref = vocabs["incremental-cython"]
    for name, v in vocabs.items():
        assert v == ref, f"{LABELS[name]} and the Cython trainer disagree: {first_difference(v, dict(enumerate(ref)))}"
    assert py["merges"] == cy["merges"], "the merge loops of the Python and Cython backends disagree"
    print(f"\nour trainers agree ({'; '.join(LABELS[n] for n in vocabs)}): yes, {len(ref):,} tokens each")

    theirs = {r: bytes.fromhex(h) for h, r in rust["ranks"]}
    diff = first_difference(ref, theirs)
    print("merges identical to rustbpe: " + ("yes" if diff is None else f"no (first difference at {diff})"))
    hfr = results["hf-tokenizers"]
    hf = [bytes.fromhex(h) for h in hfr["vocab_bytes"]]
    print(f"HF tokenizers: its split equals ours on {hfr['split_same']} of the first {hfr['split_checked']} "
          f"documents; {len(set(hf) & set(ref)):,} of its {len(hf):,} tokens are ours, "
          f"{sum(a == b for a, b in zip(hf[256:], ref[256:])):,} of its {len(hf) - 256:,} merges at the same id "
          f"(its tie rule differs, so no exact match is expected)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
