"""Packing on a Dask cluster (``bpe-lesson pack --engine dask``): the local pack's shards, byte for byte.

Packing is parallel per document, but where a shard ends depends on the token
count of every document before it. So the cluster works in two maps, and the
client (``pack.pack``) decides in between and writes the manifest last:
  1. *encode*: consecutive files are grouped into tasks of about ``GROUP_BYTES``;
     a worker reads its group's documents (``pack.iter_documents``, in order),
     encodes each with ``encode_ordinary`` + EOS, and writes the ids to a *part*
     file (``.parts-<settings hash>/part_NNNNN.bin``) beside their lengths (0 for
     an empty document), each atomically; it returns the lengths;
  2. the client cuts the documents into shard-sized groups by the local rule
     (whole documents, a shard closes when the next would not fit), in order;
  3. *write*: a worker copies each group's ids from the parts into
     ``shard_NNNNN.bin`` (a temporary name, fsync, rename) and returns its record;
  4. as shards finish, the client records the finished *prefix* in
     ``pack_state.json`` exactly as the local engine does, so a killed run resumes
     with either engine; then it removes the parts. Parts already written are
     reused when a killed run resumes.

Why a killed worker changes nothing: every task is pure (its output is a
function of its inputs: files in, a file and a value out, written under a
temporary name and renamed), so the scheduler may run it again on another worker;
the client alone records results, each once, as it receives them, and removes the
temporary files a dead attempt left once every shard is written.

On a real cluster ``out_dir``, the sources and the tokenizer file must be shared
storage (NFS, a parallel file system, a FUSE mount of a bucket) at the same path
on every worker and on the client: workers write the shards, the client the state
and the manifest.

What this module does not do: read the settings or write the manifest
(``pack.py``), split a single large file across tasks (a ``.jsonl`` of 50 GB is
one task: split it into several files), or copy data between machines.
"""

from __future__ import annotations

import glob
import hashlib
import io
import json
import os
import shutil
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .._internal.cluster import as_completed
from .._internal.files import atomic_write
from .._internal.progress import progress_bar
from .shards import load_tokenizer, shard_name

__all__ = ["GROUP_BYTES", "plan_groups", "ShardSettings", "encode_group", "write_shard",
           "shard_plan", "write_shards_on_dask"]

GROUP_BYTES = 8 << 20  # source bytes per encoding task


def plan_groups(paths, group_bytes: int = GROUP_BYTES) -> list[list[str]]:
    """Consecutive files in groups of about ``group_bytes`` (a larger file is a group of its own).

    >>> import tempfile; d = tempfile.mkdtemp(); paths = [os.path.join(d, c) for c in "abc"]
    >>> for p, n in zip(paths, (3, 4, 9)): _ = open(p, "w").write("x" * n)
    >>> [[os.path.basename(p) for p in g] for g in plan_groups(paths, group_bytes=8)]
    [['a', 'b'], ['c']]
    """
    groups, size = [], group_bytes
    for path in paths:
        n = os.path.getsize(path)
        if size + n > group_bytes:
            groups.append([])
            size = 0
        groups[-1].append(path)
        size += n
    return groups


@dataclass(frozen=True)
class ShardSettings:
    """What every encode task needs besides its files: shipped to the workers, so it pickles.

    ``read(paths, text_field)`` yields ``(label, text)`` per document (``pack.iter_documents``,
    a module-level function, so it pickles by name); ``tok_path`` names the tokenizer file,
    ``eos_id`` follows each document, ``dtype`` is the shards' id type, and no document may
    be longer than ``shard_tokens`` ids + EOS.

    >>> import pickle
    >>> s = ShardSettings(read=os.path.join, text_field="text", tok_path="tok.json", eos_id=0,
    ...                   dtype="uint16", shard_tokens=1024)
    >>> pickle.loads(pickle.dumps(s)) == s
    True
    """

    read: object  # (paths, text_field) -> iterator of (label, text)
    text_field: str
    tok_path: str
    eos_id: int
    dtype: object  # a numpy dtype or its name
    shard_tokens: int


@lru_cache(maxsize=2)
def _tokenizer(path: str, sha256: str):
    """The tokenizer file, loaded once per worker process (``sha256`` keys the cache)."""
    return load_tokenizer(path)


def encode_group(paths, job: ShardSettings, tok_sha256: str, part: str) -> np.ndarray:
    """The encode task: write ``part``.bin (the ids) and ``part``.len.npy; return the lengths.

    ``tok_sha256`` is the tokenizer file's hash (it keys each worker's cached tokenizer).
    Lengths are ids + EOS per document in order, 0 for an empty one. A part
    already on disk (a resumed run) is read back instead of encoded again.
    """
    if os.path.exists(part + ".len.npy"):  # written after the ids: both are there
        return np.load(part + ".len.npy")
    tok = _tokenizer(job.tok_path, tok_sha256)
    dt = np.dtype(job.dtype).newbyteorder("<")  # little-endian whatever the machine, as pack.py
    lengths, arrays = [], []  # int per document; one array per non-empty document
    for label, text in job.read(paths, job.text_field):
        if not text:
            lengths.append(0)
            continue
        ids = tok.encode_to_numpy(text, dtype=dt, disallowed_special=())  # encode_ordinary's ids, as an array
        n = len(ids) + 1
        if n > job.shard_tokens:
            raise ValueError(f"document {label} is {n - 1} tokens + 1 EOS = {n}, more than --shard-tokens "
                             f"{job.shard_tokens}; a document never spans two shards, so raise the budget")
        a = np.empty(n, dtype=dt)
        a[:-1] = ids
        a[-1] = job.eos_id  # numpy raises on an id too big for the dtype
        arrays.append(a)
        lengths.append(n)
    lengths = np.array(lengths, dtype=np.int64)
    atomic_write(part + ".bin", np.concatenate(arrays).tobytes() if arrays else b"")
    buf = io.BytesIO()
    np.save(buf, lengths)
    atomic_write(part + ".len.npy", buf.getvalue())
    return lengths


def write_shard(index: int, pieces, dtype: str, n_eos: int, out_dir) -> dict:
    """The write task: shard ``index`` from ``pieces`` ``[(part.bin, first id, end id), ...]``; its record."""
    dt = np.dtype(dtype).newbyteorder("<")
    name = shard_name(index)
    # subtle: a name per process, so a retry never writes into a file a dead attempt left open
    tmp = os.path.join(out_dir, f".{name}.{os.getpid()}.tmp")
    h, n_tokens = hashlib.sha256(), 0
    with open(tmp, "wb") as f:
        for part, lo, hi in pieces:
            ids = np.fromfile(part, dtype=dt, count=hi - lo, offset=lo * dt.itemsize)
            data = memoryview(ids).cast("B")
            f.write(data)
            h.update(data)
            n_tokens += len(ids)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, os.path.join(out_dir, name))
    return {"index": index, "path": name, "n_tokens": n_tokens, "n_eos": n_eos, "sha256": h.hexdigest()}


def shard_plan(lengths: np.ndarray, start: int, shard_tokens: int) -> list[tuple[int, int]]:
    """Documents ``[first, last]`` (indices, inclusive) of each shard from document ``start`` on.

    The local rule: whole non-empty documents, a shard closes when the next would not fit.

    >>> shard_plan(np.array([3, 0, 4, 2, 5]), 0, shard_tokens=7)
    [(0, 2), (3, 4)]
    """
    docs = np.flatnonzero(lengths > 0)
    docs = docs[docs >= start]
    ends = np.cumsum(lengths[docs])  # tokens up to and including each document
    plan, i = [], 0
    while i < len(docs):
        # the last document j with ends[j] - (tokens before i) <= shard_tokens
        j = int(np.searchsorted(ends, (ends[i - 1] if i else 0) + shard_tokens, side="right")) - 1
        plan.append((int(docs[i]), int(docs[j])))
        i = j + 1
    return plan


def write_shards_on_dask(client, paths, job: ShardSettings, out_dir, state, save_state, progress=None,
                         group_bytes: int | None = None):
    """Encode and write the shards on the cluster; record them in ``state``; return (documents, empty ones).

    ``job`` is what each encode task needs (``ShardSettings``); the shards go to ``out_dir``.
    ``state`` is ``pack.py``'s (settings, next_document, documents, empty_documents,
    shards); ``save_state()`` writes it. Called by ``pack.pack(engine="dask")``.
    """

    settings = state["settings"]
    key = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]
    parts_dir = os.path.join(out_dir, ".parts-" + key)
    for old in glob.glob(os.path.join(out_dir, ".parts-*")):
        if old != parts_dir:
            shutil.rmtree(old)  # an unfinished pack with other settings
    os.makedirs(parts_dir, exist_ok=True)

    # 1. encode: one task per group of files, each writes its part and returns its lengths
    groups = plan_groups(paths, GROUP_BYTES if group_bytes is None else group_bytes)
    parts = [os.path.join(parts_dir, f"part_{k:05d}") for k in range(len(groups))]
    futures = [client.submit(encode_group, g, job, settings["tokenizer_sha256"], part)
               for g, part in zip(groups, parts)]
    per_group = client.gather(futures)
    lengths = np.concatenate(per_group) if per_group else np.zeros(0, dtype=np.int64)
    first_doc = np.cumsum([0] + [len(g) for g in per_group])  # document index where each part starts
    first_id = np.concatenate([[0], np.cumsum(lengths)])  # id offset of each document, over all parts

    # 2. the shards from where the state says (0, or a killed run's next document)
    def pieces(first, last):
        lo, hi = first_id[first], first_id[last + 1]
        out = []
        for g in range(np.searchsorted(first_doc, first, side="right") - 1, len(parts)):
            g_lo, g_hi = first_id[first_doc[g]], first_id[first_doc[g + 1]]
            if g_lo >= hi:
                break
            if g_hi > lo:
                out.append((parts[g] + ".bin", int(max(lo, g_lo) - g_lo), int(min(hi, g_hi) - g_lo)))
        return out

    plan = shard_plan(lengths, state["next_document"], job.shard_tokens)
    base = len(state["shards"])
    futures = {client.submit(write_shard, base + s, pieces(first, last), job.dtype,
                             int(np.count_nonzero(lengths[first:last + 1])), out_dir): s
               for s, (first, last) in enumerate(plan)}

    # 3. record the finished prefix as it grows: what the local engine's state says after each shard
    finished, prefix = {}, 0
    with progress_bar(progress, delay=2.0, total=len(plan), desc="pack (dask)", unit="shard") as bar:
        for future in as_completed(futures):
            finished[futures[future]] = future.result()
            bar.update(1)
            while prefix in finished:
                last = plan[prefix][1]
                state["shards"].append(finished.pop(prefix))
                state.update(next_document=last + 1, documents=int(np.count_nonzero(lengths[:last + 1])),
                             empty_documents=int(np.count_nonzero(lengths[:last] == 0)))
                save_state()
                prefix += 1
    # every shard is written: a temporary file still here is a dead attempt's
    for tmp in glob.glob(os.path.join(out_dir, ".shard_*.tmp")):
        os.unlink(tmp)
    shutil.rmtree(parts_dir)
    n_docs = int(np.count_nonzero(lengths))
    return n_docs, len(lengths) - n_docs
