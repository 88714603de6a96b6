"""Encoding speed: bpe_lesson against tiktoken (and gigatoken, when installed), four texts, two vocabularies, in one run.

How to run (from the repository root, with the project's environment active):

    python benchmarks/encode_speed.py                   # the whole table (about 12 minutes)
    python benchmarks/encode_speed.py --quick           # 1 MB of code, not 10 MB
    python benchmarks/encode_speed.py --texts code --vocabs cl100k_base --no-batch
    python benchmarks/encode_speed.py --batch-only --batch-texts prose,multi
    python benchmarks/encode_speed.py --repeat 5 --rounds 15   # more fresh processes and rounds

Optional peers, named here because the package never needs them:
  * gigatoken: ``pip install gigatoken==0.10.0`` (rows appear when it imports);
  * the King James Bible text: ``apt-get install bible-kjv`` (Debian; without it
    the "kjv" column is left out and the script says so).

The texts (``benchmarks/_corpus.py``):
  code   CPython's standard-library sources, one document per file, 10 MB (1 MB with --quick)
  prose  every topic of Python's help (``pydoc_data.topics``), 0.47 MB of English
  kjv    the King James Bible, one verse a line, the first 1 MB
  multi  Sphinx's translated messages in 60-odd locales (CJK, Hindi, Persian,
         Georgian, Greek, Cyrillic, European scripts), 0.82 MB

The vocabularies: GPT-4's cl100k_base and GPT-4o's o200k_base, read from the files
that ship in packages (``tiktoken_io.offline_path``). Every engine gets the same
ranks, split pattern and special tokens.

What is timed, for each engine, vocabulary and text, pinned to one core (so
"single thread" holds even for engines with their own thread pools):
  * load: building the encoder from the file (reported, not in the MB/s), and
  * cold: the first call on the text (empty caches, first touch of every table),
    both in a fresh process per engine; with ``--repeat K`` (default 3), in K
    rounds of fresh processes, one per engine in turn;
  * warm: in one process per vocabulary and text, which builds every engine and
    then takes them in turn, ``--rounds R`` times (default 9; tiktoken's 3): a call
    to make its caches warm again after the others ran, then the median of three
    timed calls.
This machine has slow and fast spells of a few seconds each, which move every
engine together (one process at 250 MB/s, the next at 450, whatever the engine):
a figure from a single process per engine measures the spell as much as the
engine. So each engine's figure is the median over its rounds, and each ratio is
the median of the ratios within a round (engines a second or less apart), not a
ratio of two medians. MB/s is 10^6 UTF-8 bytes of text per second. Before a
figure is printed, its ids are compared with tiktoken's ``encode_ordinary`` on
the same text; a difference stops the script.

Engines (rows): tiktoken ``encode_ordinary`` (a list); ours ``encode_ordinary``
and ``encode`` (lists; ``encode`` also looks for special tokens) and
``encode_to_numpy`` (a uint32 array, no Python ints); gigatoken ``encode`` (a
uint32 array) and its tiktoken-API ``encode_ordinary`` (a list).

Then the batch (``--batch-only``: only it): the documents of code, prose and
multilingual text (``batch_docs``), ``encode_batch`` (lists) and
``encode_batch_to_numpy`` (an array per document) with 1 and with 2 threads
(tiktoken ``encode_ordinary_batch(num_threads=)``, gigatoken
``encode_batch_list(parallel=)`` and ``encode_batch(parallel=)``, which gives one
awkward array), not pinned, ids checked per document, after
one warm pass with each thread count. Last, what the machine gives two threads,
whatever the code: sha256 of 40 MB in one piece and in two halves on two threads
(hashlib lets go of the GIL). In 15 rounds, each engine and the machine in turn
time 1 and 2 threads one after the other (tiktoken, ~2 s a run, in 5 of them):
the best of each, and the median of the ratios of those pairs, taken at the same
times for every row.

What this script does not do: compare with Hugging Face tokenizers (2-3 MB/s
here; it would add minutes), or drop the page cache between runs.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import _corpus  # benchmarks/_corpus.py

VOCABS = ("cl100k_base", "o200k_base")
TEXTS = ("code", "prose", "kjv", "multi")
ENGINES = {  # name -> (row label, needs)
    "tiktoken": ("tiktoken encode_ordinary", None),
    "ours": ("bpe_lesson encode_ordinary", None),
    "ours_encode": ("bpe_lesson encode", None),
    "ours_numpy": ("bpe_lesson encode_to_numpy", None),
    "giga": ("gigatoken encode (numpy)", "gigatoken"),
    "giga_list": ("gigatoken encode_ordinary (list)", "gigatoken"),
}

TIKTOKEN_ROUNDS = 3  # tiktoken is 10-20x slower (1.4 s a call on the 10 MB of code)

BATCH_ROWS = {  # name -> row label of the batch section
    "tiktoken": "tiktoken encode_ordinary_batch",
    "ours": "bpe_lesson encode_batch",
    "ours_np": "bpe_lesson encode_batch_to_numpy",
    "giga": "gigatoken encode_batch_list",
    "giga_np": "gigatoken encode_batch (awkward)",
}


def load_text(name: str, quick: bool) -> str | None:
    if name == "code":
        return "".join(_corpus.stdlib_docs(1_000_000 if quick else 10_000_000))
    if name == "prose":
        return _corpus.prose_text()
    if name == "kjv":
        return _corpus.kjv_text(1_000_000)
    if name == "multi":
        return _corpus.multilingual_text()
    raise SystemExit(f"unknown text {name!r}; the texts are {', '.join(TEXTS)}")


def tiktoken_file(vocab: str, folder: str) -> str:
    """The vocabulary as a plain ``<vocab>.tiktoken`` file in ``folder`` (gigatoken reads files by name)."""
    from bpe_lesson.tokenizer.tiktoken_io import offline_path
    src = offline_path(vocab)
    with open(src, "rb") as f:
        data = f.read()
    if src.endswith(".gz"):
        data = gzip.decompress(data)
    path = os.path.join(folder, vocab + ".tiktoken")
    with open(path, "wb") as f:
        f.write(data)
    return path


def tiktoken_encoding(vocab: str):
    import tiktoken
    from bpe_lesson.formats.pretrained import from_pretrained
    tok = from_pretrained(vocab)
    return tiktoken.Encoding(vocab, pat_str=tok.pattern, special_tokens=tok.special_tokens,
                             mergeable_ranks={b: i for i, b in tok.vocab.items()})


def build(engine: str, vocab: str, folder: str):
    """The encode function of one engine (built here, timed by the caller)."""
    if engine == "tiktoken":
        return tiktoken_encoding(vocab).encode_ordinary
    if engine.startswith("ours"):
        from bpe_lesson.formats.pretrained import from_pretrained
        tok = from_pretrained(vocab)
        return getattr(tok, {"ours": "encode_ordinary", "ours_encode": "encode", "ours_numpy": "encode_to_numpy"}[engine])
    import gigatoken
    g = gigatoken.Tokenizer.from_tiktoken(tiktoken_file(vocab, folder))
    return g.encode if engine == "giga" else g.as_tiktoken().encode_ordinary


def same_ids(got, want) -> bool:
    import numpy as np
    if isinstance(got, list):
        return got == want
    return len(got) == len(want) and bool(np.array_equal(np.asarray(got, dtype=np.int64), np.asarray(want)))


def child_cold(engine, vocab, text_name, quick) -> dict:
    """One engine's load and first call on one text, in this (fresh, pinned) process."""
    text = load_text(text_name, quick)
    with tempfile.TemporaryDirectory() as folder:
        t = time.perf_counter()
        fn = build(engine, vocab, folder)
        load = time.perf_counter() - t
        t = time.perf_counter()
        ids = fn(text)
        cold = time.perf_counter() - t
    want = tiktoken_encoding(vocab).encode_ordinary(text)
    return {"load": load, "cold": cold, "ok": same_ids(ids, want), "bytes": len(text.encode("utf-8"))}


def child_warm(engines, vocab, text_name, quick, rounds) -> dict:
    """Every engine on one text, in this (pinned) process, in turn: per round and
    engine, one call to warm its caches again, then the median of three timed calls."""
    text = load_text(text_name, quick)
    want = tiktoken_encoding(vocab).encode_ordinary(text)
    folder = tempfile.mkdtemp()
    fns = {e: build(e, vocab, folder) for e in engines}
    for e, fn in fns.items():
        if not same_ids(fn(text), want):
            return {"bad": e}
    times = {e: [] for e in engines}
    for rnd in range(rounds):
        for k in range(len(engines)):
            e = engines[(k + rnd) % len(engines)]  # each round starts one engine later
            if e == "tiktoken" and rnd >= TIKTOKEN_ROUNDS:
                continue
            fns[e](text)
            one = []
            for _ in range(3):
                t = time.perf_counter()
                fns[e](text)
                one.append(time.perf_counter() - t)
            times[e].append(statistics.median(one))
    return {"warm": times}


def _sha256_halves(block: bytes, k: int) -> None:
    """sha256 of ``block`` cut in ``k`` parts, one thread each (the machine's own scaling)."""
    size = len(block) // k
    threads = [threading.Thread(target=hashlib.sha256, args=(memoryview(block)[i * size:(i + 1) * size],))
               for i in range(k)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def batch_docs(text_name: str, quick: bool) -> list[str]:
    """The documents of a batch: code, one per stdlib file; prose, one per help topic;
    multi, the text's lines gathered into documents of 2,000 characters or more."""
    if text_name == "code":
        return _corpus.stdlib_docs(1_000_000 if quick else 10_000_000)
    if text_name == "prose":
        import pydoc_data.topics
        return [pydoc_data.topics.topics[k] for k in sorted(pydoc_data.topics.topics)]
    docs, held = [], []
    for line in _corpus.multilingual_text().splitlines(keepends=True):
        held.append(line)
        if sum(map(len, held)) >= 2000:
            docs.append("".join(held))
            held = []
    return docs + (["".join(held)] if held else [])


def child_batch(vocab, quick, text_name="code") -> dict:
    """encode_batch with 1 and 2 threads on the documents of ``text_name``."""
    docs = batch_docs(text_name, quick)
    nbytes = sum(len(d.encode("utf-8")) for d in docs)
    enc = tiktoken_encoding(vocab)
    from bpe_lesson.formats.pretrained import from_pretrained
    tok = from_pretrained(vocab)
    runs = {
        "tiktoken": lambda k: enc.encode_ordinary_batch(docs, num_threads=k),
        "ours": lambda k: tok.encode_batch(docs, num_threads=k),
        "ours_np": lambda k: tok.encode_batch_to_numpy(docs, num_threads=k),
    }
    try:
        import gigatoken
        folder = tempfile.mkdtemp()
        g = gigatoken.Tokenizer.from_tiktoken(tiktoken_file(vocab, folder))
        runs["giga"] = lambda k: g.encode_batch_list(docs, parallel=k > 1)
        runs["giga_np"] = lambda k: g.encode_batch(docs, parallel=k > 1)  # an awkward array
    except ImportError:
        pass
    block = os.urandom(40 << 20)
    runs["machine"] = lambda k: _sha256_halves(block, k)
    want = enc.encode_ordinary_batch(docs, num_threads=2)
    out = {"bytes": nbytes, "docs": len(docs)}
    for name, run in runs.items():
        for k in (1, 2):  # warm: every thread's encoder has seen the text once
            got = run(k)
            if name != "machine" and (got.to_list() if hasattr(got, "to_list") else [list(x) for x in got]) != want:
                raise SystemExit(f"{name} encode_batch with {k} threads: ids differ from tiktoken's")
    # rounds: each engine (the machine too) times 1 and 2 threads one after the other, so
    # that every ratio, the machine's included, comes from the same stretch of time; 15
    # rounds (tiktoken, ~2 s a run, takes part in 5): the best of each, the median of the ratios
    names, ratios = list(runs), {name: [] for name in runs}
    for rnd in range(15):
        for j in range(len(names)):
            name = names[(j + rnd) % len(names)]  # each round starts one engine later
            if name == "tiktoken" and rnd >= 5:
                continue
            pair = {}
            for k in (1, 2) if rnd % 2 == 0 else (2, 1):
                t = time.perf_counter()
                runs[name](k)
                pair[k] = time.perf_counter() - t
                out[f"{name}_{k}"] = min(out.get(f"{name}_{k}", 1e9), pair[k])
            ratios[name].append(pair[1] / pair[2])
    for name in runs:
        out[f"{name}_ratio"] = statistics.median(ratios[name])
    return out


def in_child(args: list[str]) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", json.dumps(args)], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"child {args} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="1 MB of code instead of 10 MB")
    ap.add_argument("--texts", default=",".join(TEXTS), help="comma-separated, from " + ",".join(TEXTS))
    ap.add_argument("--vocabs", default=",".join(VOCABS), help="comma-separated, from " + ",".join(VOCABS))
    ap.add_argument("--engines", default=",".join(ENGINES), help="comma-separated, from " + ",".join(ENGINES))
    ap.add_argument("--no-batch", action="store_true", help="leave out the encode_batch section")
    ap.add_argument("--batch-only", action="store_true", help="only the encode_batch section")
    ap.add_argument("--batch-texts", default="code,prose,multi",
                    help="comma-separated texts for the batch section (default code,prose,multi)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="fresh processes per engine and cell for the load and cold figures, in rounds (default 3)")
    ap.add_argument("--rounds", type=int, default=9,
                    help="turns of every engine in one process for the warm figures (default 9)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        job = json.loads(args.child)
        if job[0] == "batch":
            print(json.dumps(child_batch(*job[1:])))
        else:
            os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})  # one core, before any pool starts
            print(json.dumps(child_warm(*job[1:]) if job[0] == "warm" else child_cold(*job)))
        return
    if args.batch_only:
        batch([v for v in args.vocabs.split(",") if v], [t for t in args.batch_texts.split(",") if t], args.quick)
        return

    import tiktoken
    texts = [t for t in args.texts.split(",") if t]
    if "kjv" in texts and _corpus.kjv_text(10) is None:
        print("note: no King James Bible here (apt-get install bible-kjv); the kjv column is left out")
        texts.remove("kjv")
    vocabs = [v for v in args.vocabs.split(",") if v]
    engines = [e for e in args.engines.split(",") if e]
    try:
        import importlib.metadata

        import gigatoken  # noqa: F401 (only whether it imports)
        giga = f", gigatoken {importlib.metadata.version('gigatoken')}"
    except ImportError:
        engines = [e for e in engines if ENGINES[e][1] != "gigatoken"]
        giga = " (gigatoken not installed: pip install gigatoken==0.10.0 adds its rows)"
    print(f"{os.cpu_count()} cores; Python {sys.version.split()[0]}, tiktoken {tiktoken.__version__}{giga}")
    print("MB/s warm / cold, one core; ids equal tiktoken's in every cell (checked)\n")

    if args.repeat < 1 or args.rounds < 1:
        raise SystemExit(f"--repeat and --rounds must be 1 or more, got {args.repeat} and {args.rounds}")
    cold = {}  # (engine, vocab, text) -> one result per round, in order
    warm = {}  # (engine, vocab, text) -> one time per round, in order
    for vocab in vocabs:
        for text in texts:
            r = in_child(["warm", engines, vocab, text, args.quick, args.rounds])
            if "bad" in r:
                raise SystemExit(f"{ENGINES[r['bad']][0]} on {vocab} {text}: ids differ from tiktoken's")
            for e, ts in r["warm"].items():
                warm[e, vocab, text] = ts
            print(f"  ... warm, {args.rounds} rounds: {vocab} {text}", file=sys.stderr, flush=True)
    # round by round (every cell once a round), so that a slow spell of the machine
    # falls on all the engines, not on one engine's repeats
    for rnd in range(1, args.repeat + 1):
        for vocab in vocabs:
            for text in texts:
                for engine in engines:
                    r = in_child([engine, vocab, text, args.quick])
                    if not r["ok"]:
                        raise SystemExit(f"{ENGINES[engine][0]} on {vocab} {text}: ids differ from tiktoken's")
                    cold.setdefault((engine, vocab, text), []).append(r)
                    print(f"  ... round {rnd}: {vocab} {text:6s} {ENGINES[engine][0]:34s} load {r['load']:.2f} s, "
                          f"cold {r['bytes'] / r['cold'] / 1e6:6.1f} MB/s", file=sys.stderr, flush=True)
    cells = {key: {"bytes": rs[0]["bytes"], "load": statistics.median(r["load"] for r in rs),
                   "cold": statistics.median(r["cold"] for r in rs), "warm": statistics.median(warm[key])}
             for key, rs in cold.items()}
    print(f"warm: the median of {args.rounds} turns in one process (tiktoken: {min(args.rounds, TIKTOKEN_ROUNDS)}); "
          f"cold: the median of {args.repeat} fresh process{'es' if args.repeat > 1 else ''}\n")

    cols = [(v, t) for v in vocabs for t in texts]
    sizes = {t: cells[engines[0], vocabs[0], t]["bytes"] / 1e6 for t in texts}
    head = " | ".join(f"{v.split('_')[0]} {t} {sizes[t]:.2f} MB" for v, t in cols)
    print(f"| engine | {head} |")
    print("|---" * (len(cols) + 1) + "|")
    for engine in engines:
        row = " | ".join(f"{c['bytes'] / c['warm'] / 1e6:.1f} / {c['bytes'] / c['cold'] / 1e6:.1f}"
                         for c in (cells[engine, v, t] for v, t in cols))
        print(f"| {ENGINES[engine][0]} | {row} |")

    def ratio(a, b, which, v, t):
        """The median of b's time over a's within each round: above 1, a is faster."""
        if which == "warm":
            ta, tb = warm[a, v, t], warm[b, v, t]
        else:
            ta, tb = ([r["cold"] for r in cold[e, v, t]] for e in (a, b))
        return statistics.median(y / x for x, y in zip(ta, tb))

    print("\nratios (warm / cold, medians of the ratios within a round; above 1: ours is faster)")
    pairs = [("ours", "tiktoken"), ("ours", "giga_list"), ("ours_encode", "giga_list"), ("ours_numpy", "giga")]
    for a, b in pairs:
        if a in engines and b in engines:
            w, c = ([ratio(a, b, which, v, t) for v, t in cols] for which in ("warm", "cold"))
            print(f"  {ENGINES[a][0]} / {ENGINES[b][0]}: " + ", ".join(f"{x:.2f}/{y:.2f}" for x, y in zip(w, c))
                  + f"  (lowest {min(w + c):.2f})")
    print("\nload (s): " + "; ".join(f"{ENGINES[e][0]} {vocabs[0]} {cells[e, vocabs[0], texts[0]]['load']:.2f}"
                                     for e in engines))

    if args.no_batch:
        return
    batch(vocabs, [t for t in args.batch_texts.split(",") if t], args.quick)


def batch(vocabs, texts, quick) -> None:
    """The encode_batch section: each vocabulary and text in a child process of its own."""
    for vocab, text_name in ((v, t) for v in vocabs for t in texts):
        b = in_child(["batch", vocab, quick, text_name])
        print(f"\nencode_batch, {vocab}, {text_name}: {b['docs']:,} documents, {b['bytes'] / 1e6:.2f} MB"
              f" (MB/s, not pinned)")
        for name, label in BATCH_ROWS.items():
            if f"{name}_1" in b:
                one, two = b["bytes"] / b[f"{name}_1"] / 1e6, b["bytes"] / b[f"{name}_2"] / 1e6
                print(f"  {label:34s} 1 thread {one:6.1f}   2 threads {two:6.1f}   x{two / one:.2f}"
                      f"   (median of paired runs x{b[f'{name}_ratio']:.2f})")
        print(f"  {'the machine: sha256, 40 MB':34s} 2 threads / 1: x{b['machine_1'] / b['machine_2']:.2f}"
              f"   (median of paired runs x{b['machine_ratio']:.2f})")


if __name__ == "__main__":
    main()
