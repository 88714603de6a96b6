"""Per-call cost: encoding many short documents one call at a time, ours against
tiktoken and gigatoken, in one run.

How to run (from the repository root, with the project's environment active):

    python benchmarks/per_call.py                  # 10-, 70- and 700-character documents, both vocabularies
    python benchmarks/per_call.py --vocabs cl100k_base --lengths 70 --rounds 9

What is timed, pinned to one core: a loop that encodes each of 2,000 documents of
one length (cut from code, prose and multilingual text at random places, seeded),
one call per document, for each engine and call shape; the figure is microseconds
per call, the median over ``--rounds`` rounds, the engines taken in turn within a
round. Before timing, every engine's ids are checked against tiktoken's on every
document.

The floor is the compiled encoder called directly (``Encoder.encode_ordinary`` and
``Encoder.encode_to_numpy``): the encoding itself, with no argument handling; for
``encode_iterable``, whose ids are taken out of an iterator, ``list(iter(...))`` of
the same call. The
"above floor" columns are what ``Tokenizer``'s methods add to it: the issue's bar
is 1 us.

gigatoken is optional (``pip install gigatoken==0.10.0``): its rows appear when it imports.
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

N_DOCS = 2000


def documents(length: int, seed: int = 0) -> list[str]:
    """N_DOCS documents of ``length`` characters: a third each from code, prose and
    multilingual text, cut at random places (seeded)."""
    rng = random.Random(seed)
    texts = ["".join(_corpus.stdlib_docs(2_000_000)), _corpus.prose_text(), _corpus.multilingual_text()]
    docs = []
    for k in range(N_DOCS):
        text = texts[k % 3]
        at = rng.randrange(len(text) - length)
        docs.append(text[at:at + length])
    return docs


def engines(vocab: str, folder: str) -> dict:
    """name -> one call on one document."""
    from bpe_lesson.formats.pretrained import from_pretrained
    tok = from_pretrained(vocab)
    fast = tok._fast_encoder()
    tt = tiktoken_encoding(vocab)
    calls = {
        "floor: Encoder.encode_ordinary": fast.encode_ordinary,
        "floor: Encoder.encode_to_numpy": fast.encode_to_numpy,
        # an iterator's call shape includes taking the ids out of it: the same list() here
        "floor: list(iter(encode_ordinary))": lambda doc: list(iter(fast.encode_ordinary(doc))),
        "ours encode": tok.encode,
        "ours encode_ordinary": tok.encode_ordinary,
        "ours encode_to_numpy": tok.encode_to_numpy,
        "ours encode_iterable": lambda doc: list(tok.encode_iterable((doc,))),
        "tiktoken encode": tt.encode,
        "tiktoken encode_ordinary": tt.encode_ordinary,
    }
    try:
        import gigatoken
    except ImportError:
        print("(gigatoken not installed: pip install gigatoken==0.10.0 adds its rows)")
    else:
        g = gigatoken.Tokenizer.from_tiktoken(tiktoken_file(vocab, folder))
        calls["gigatoken encode (numpy)"] = g.encode
        calls["gigatoken encode_ordinary (list)"] = g.as_tiktoken().encode_ordinary
    return calls, tt


def check(calls: dict, tt, docs: list[str]) -> None:
    """Every engine gives tiktoken's ids on every document (or the run stops)."""
    for doc in docs:
        want = tt.encode_ordinary(doc)
        for name, call in calls.items():
            got = call(doc)
            got = got.tolist() if hasattr(got, "tolist") else list(got)
            if got != want:
                raise SystemExit(f"{name} differs from tiktoken on {doc!r}")


def per_call_us(call, docs) -> float:
    start = time.perf_counter()
    for doc in docs:
        call(doc)
    return (time.perf_counter() - start) / len(docs) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocabs", nargs="+", default=["cl100k_base", "o200k_base"])
    ap.add_argument("--lengths", nargs="+", type=int, default=[10, 70, 700])
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    import bpe_lesson
    print(f"bpe_lesson {bpe_lesson.BACKEND} backend, one core; {N_DOCS} documents per length; "
          f"median of {args.rounds} rounds; us per call")
    with tempfile.TemporaryDirectory() as folder:
        for vocab in args.vocabs:
            calls, tt = engines(vocab, folder)
            for length in args.lengths:
                docs = documents(length)
                check(calls, tt, docs)
                times = {name: [] for name in calls}
                for _ in range(args.rounds):
                    for name, call in calls.items():
                        per_call_us(call, docs[:200])  # warm again after the others ran
                        times[name].append(per_call_us(call, docs))
                med = {name: statistics.median(t) for name, t in times.items()}
                print(f"\n{vocab}, {length}-character documents")
                for name, t in med.items():
                    extra = ""
                    if name.startswith("ours"):
                        floor = med["floor: Encoder.encode_to_numpy" if "numpy" in name
                                    else "floor: list(iter(encode_ordinary))" if "iterable" in name
                                    else "floor: Encoder.encode_ordinary"]
                        extra = f"  {t - floor:+6.2f} above floor"
                        peer = med.get("gigatoken encode (numpy)" if "numpy" in name
                                       else "gigatoken encode_ordinary (list)")
                        if peer:
                            extra += f"  {peer / t:5.2f}x gigatoken"
                    print(f"  {name:34s} {t:7.2f}{extra}")


if __name__ == "__main__":
    main()
