"""Counting chunks and packing shards: the local engine against Dask on 1 and 2 workers, in one run.

    .venv/bin/python benchmarks/scale_out.py [CORPUS]      (default stdlib:50MB)

CORPUS as in ``_corpus.py``. The documents are written to a temporary folder as
text files of about 4 MB (counting) and ``.jsonl`` files of about 4 MB (packing);
a 4,096-id tokenizer is trained on the first 2 MB. Each engine counts the same
files and packs the same documents; the results are checked equal (counts; shard
bytes and manifest), then the times are printed with the ratio to the local engine
(> 1: Dask is faster) and, for counting, the reduce time (what was left once the
last map task ended). Cluster start-up is timed apart, not counted in the rows.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))

from _corpus import load_corpus, parse_size, stdlib_docs  # noqa: E402

import bpe_lesson  # noqa: E402
from bpe_lesson._compiled.backend import CORES  # noqa: E402
from bpe_lesson._internal.cluster import dask_client  # noqa: E402
from bpe_lesson.lm.pack import pack  # noqa: E402
from bpe_lesson.scale.config import parse_config  # noqa: E402
from bpe_lesson.scale.dask_count import count_on_cluster, plan_tasks  # noqa: E402
from bpe_lesson.scale.phases import count_local  # noqa: E402

FILE_BYTES = 4_000_000
EOS = "<|endoftext|>"


def write_files(docs, folder, suffix):
    """Documents into files of about FILE_BYTES each: .txt (concatenated) or .jsonl (one per line)."""
    os.makedirs(folder)
    paths, buf, size = [], [], 0
    for doc in docs + [None]:
        if doc is None or size >= FILE_BYTES:
            if buf:
                path = os.path.join(folder, f"part_{len(paths):03d}{suffix}")
                lines = [json.dumps({"text": d}) + "\n" for d in buf] if suffix == ".jsonl" else buf
                with open(path, "w", encoding="utf-8") as f:
                    f.writelines(lines)
                paths.append(path)
            buf, size = [], 0
            continue
        buf.append(doc)
        size += len(doc)
    return paths


def folder_bytes(folder):
    return {n: open(os.path.join(folder, n), "rb").read() for n in sorted(os.listdir(folder))}


def main(spec="stdlib:50MB"):
    # the stdlib is repeated when it is smaller than the size asked for
    docs = stdlib_docs(parse_size(spec[len("stdlib:"):]), cycle=True) if spec.startswith("stdlib:") else load_corpus(spec)
    total = sum(len(d.encode("utf-8")) for d in docs)
    tmp = tempfile.mkdtemp(prefix="scale_out_")
    text_dir, jsonl_dir = os.path.join(tmp, "text"), os.path.join(tmp, "jsonl")
    write_files(docs, text_dir, ".txt")
    write_files(docs, jsonl_dir, ".jsonl")
    head, n = [], 0
    for d in docs:
        head.append(d)
        n += len(d)
        if n > 2_000_000:
            break
    tok_path = os.path.join(tmp, "tok4096.json")
    bpe_lesson.train(head, 4096 - 1, special_tokens=[EOS]).save(tok_path)
    print(f"corpus {spec}: {total / 1e6:,.1f} MB in {len(docs):,} documents; backend {bpe_lesson.BACKEND}; "
          f"{CORES} cores; load average {os.getloadavg()[0]:.1f}")

    cfg = parse_config({"output": os.path.join(tmp, "t.tiktoken"), "workers": 2, "hardcoded_merges": False,
                        "phases": [{"name": "all", "merges": 0, "sources": [{"path": text_dir}]}]})
    phase = cfg.phases[0]
    rows = []  # (task, engine, seconds, reduce seconds or None)

    # ---- the local engine: workers on this machine (worker processes that count; pack's
    #      workers are threads with the compiled backend)
    for workers in (1, 2):
        cfg.workers = workers
        t = time.perf_counter()
        reference, _, _ = count_local(cfg, phase, 0, True)
        rows.append(("count", f"local, {workers} worker{'s' if workers > 1 else ''}",
                     time.perf_counter() - t, None))
        out = os.path.join(tmp, f"local{workers}")
        t = time.perf_counter()
        pack([jsonl_dir], tok_path, out, shard_tokens=5_000_000, workers=workers, progress=False)
        rows.append(("pack", f"local, {workers} worker{'s' if workers > 1 else ''}",
                     time.perf_counter() - t, None))
    local_bytes = folder_bytes(out)

    # ---- Dask: a LocalCluster of 1, then 2 workers (one thread each)
    files = [(os.path.join(text_dir, p), None) for p in sorted(os.listdir(text_dir))]
    for workers in (1, 2):
        t = time.perf_counter()
        with dask_client(workers=workers) as client:
            started = time.perf_counter() - t
            t = time.perf_counter()
            (counts, _, _), reduce_s = count_on_cluster(client, plan_tasks(files, cfg.pattern), cfg.pattern)
            rows.append(("count", f"dask, {workers} worker{'s' if workers > 1 else ''}", time.perf_counter() - t,
                         reduce_s))
            assert counts == reference, "Dask counts differ from the local engine's"
            out = os.path.join(tmp, f"dask{workers}")
            t = time.perf_counter()
            pack([jsonl_dir], tok_path, out, shard_tokens=5_000_000, workers=workers, progress=False,
                 engine="dask", scheduler=client.scheduler.address)
            rows.append(("pack", f"dask, {workers} worker{'s' if workers > 1 else ''}", time.perf_counter() - t,
                         None))
            assert folder_bytes(out) == local_bytes, "Dask shards differ from the local engine's"
        print(f"LocalCluster of {workers} worker(s): started in {started:.1f} s")

    print(f"\n{len(reference):,} distinct chunks; the shards and manifest of every engine are identical\n")
    print(f"{'task':6} {'engine':20} {'seconds':>8} {'MB/s':>6} {'local 2 / this':>14} {'reduce s':>9}")
    for task in ("count", "pack"):
        base = next(s for t, e, s, _ in rows if t == task and e == "local, 2 workers")
        for t, engine, seconds, reduce_s in rows:
            if t == task:
                r = f"{reduce_s:9.2f}" if reduce_s is not None else f"{'':>9}"
                print(f"{t:6} {engine:20} {seconds:8.2f} {total / 1e6 / seconds:6.1f} {base / seconds:14.2f} {r}")


if __name__ == "__main__":
    main(*sys.argv[1:])
