"""Packing: documents in, EOS-delimited token shards and a manifest out (``bpe-lesson pack``).

The steps of ``pack``:
  1. read documents in a fixed order (one per file, one per ``.jsonl`` line, one
     per parquet row), skipping empty ones;
  2. encode each with ``encode_ordinary`` (so the *text* "<|endoftext|>" inside a
     document stays plain text and can never pose as a document boundary) and
     append the EOS id; workers do this when the input is large (threads with
     the compiled encoder, which lets go of the GIL; processes with the Python one);
  3. append whole documents to the current shard until the next one would not
     fit, then close it: ``shard_00000.bin``, ``shard_00001.bin``, ... are
     headerless little-endian arrays of uint16 ids (every id below 65,536) or
     uint32 (otherwise);
  4. after each shard, record the progress in ``pack_state.json``, so a killed run
     resumes at the first document of the shard it was writing;
  5. at the end write ``manifest.json`` (sizes, counts and hashes of every shard).

The format of the folder, and ``verify``, which re-checks it, are in ``shards.py``.

A pack holds an exclusive lock on ``OUT/.pack.lock`` while it runs (``fcntl.flock``,
released by the kernel when the process dies), so a second pack into the same
folder stops at once instead of racing on temporary names. A resume checks each
source's size and modification time (ns) against the interrupted run's; an edited
source is refused. (Not a content hash: that would read every source twice; an
edit that restores the old size and mtime by hand goes unnoticed.)

What this module does not do: check a finished folder (``shards.py``), serve
training windows (``windows.py``) or chat data (``chat.py``); it imports no
torch. It does not shuffle documents: the order of the sources is the order of
the shards. Its command line is ``pack_command.py``'s; the folder's lock, state file
and tokenizer file are ``pack_folder.py``'s;
``PackJob`` holds one pack's plan (what to read, how to cut, where to write).
"""

from __future__ import annotations

import glob
import hashlib
import multiprocessing as mp
import os
import shutil
import time
from collections import deque
from dataclasses import dataclass
from concurrent.futures import Future, ThreadPoolExecutor
from multiprocessing.pool import AsyncResult

import numpy as np

from .._compiled.backend import resolve_workers
from .._internal.arguments import renamed
from .._internal.cluster import dask_client
from .._internal.progress import check_progress, progress_bar
from ..formats.documents import STDIN, check_errors, expand_sources, iter_documents
from ..formats.huggingface import special_roles
from ..tokenizer import Tokenizer
from .dask_pack import ShardSettings, write_shards_on_dask
from .pack_folder import (_clean_partial, _start_or_resume, _write_json, folder_lock, locked_folder, pack_tokenizer,
                          tokenizer_file)
from .shards import (DEFAULT_EOS, FORMAT, MANIFEST, STATE, VERSION, dtype_for, embedding_rows, load_tokenizer,
                     sha256_file, shard_name, special_id, tokenizer_fingerprint)

__all__ = ["DEFAULT_SHARD_TOKENS", "ShardWriter", "pack", "PackJob"]

DEFAULT_SHARD_TOKENS = 50_000_000
_BATCH_CHARS = 256_000  # text per task sent to a worker process
# text per task for a worker thread: its start and end need the GIL, which the thread
# that parses the JSON holds; fewer, larger tasks wait for it less. 2 threads against 1,
# 50 MB of code (8 alternations): 1.16x with 1 MB, 1.22x with 2 MB, 1.39-1.51x with 4 MB,
# 1.38x with 8 MB; with 256 KB the threads waited a third of their time
_THREAD_BATCH_CHARS = 4_000_000


# ---- encoding, in this process or in a pool ------------------------------------
_worker = {}  # the tokenizer, EOS id and dtype of this worker process (_init_worker)


def _init_worker(tokenizer, eos_id, dtype):
    if isinstance(tokenizer, str):  # spawn: a fresh process loads the tokenizer file itself
        tokenizer = load_tokenizer(tokenizer)
    _worker.update(tokenizer=tokenizer, eos_id=eos_id, dtype=dtype)


def _encode_batch(texts, tok=None, eos=None, dtype=None):
    """Encode documents; return (lengths with the EOS, all ids with an EOS after each).

    In a worker process, ``tok``, ``eos`` and ``dtype`` are what ``_init_worker`` kept;
    in this process they are passed (a module-wide copy would be shared by two packs
    running at once on threads of one process).
    """
    if tok is None:
        tok, eos, dtype = _worker["tokenizer"], _worker["eos_id"], _worker["dtype"]
    # subtle: "<" pins little-endian, whatever the machine; numpy raises on an id too big for the dtype
    dtype = np.dtype(dtype).newbyteorder("<")
    end = np.array([eos], dtype=dtype)
    parts, lengths = [], []  # arrays of ids, an EOS after each; int per document
    # encode_ordinary's ids (special tokens' text is plain text), an array per document (no
    # Python int per id), in one call: one stretch of compiled code for the whole batch
    for ids in tok.encode_batch_to_numpy(texts, num_threads=1, dtype=dtype, disallowed_special=()):
        parts += (ids, end)
        lengths.append(len(ids) + 1)
    flat = np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
    return np.array(lengths, dtype=np.int64), flat


def _on_threads(tokenizer, workers: int) -> bool:
    """Whether the ``workers`` are threads of this process (see ``_encoded``)."""
    return workers > 1 and tokenizer._fast_encoder() is not None


def _encoded(batches, tokenizer, tokenizer_path, eos_id, dtype, workers):
    """Yield ``(batch, (lengths, flat))`` in input order, with at most 2 x workers tasks in flight.

    ``workers`` encode while this thread reads, parses and writes: threads of this process
    with the compiled encoder (its batch call lets go of the GIL, so nothing is copied between
    processes), worker processes with the Python backend, which holds the GIL.
    """
    if workers <= 1:
        for batch in batches:
            yield batch, _encode_batch([t for _, _, t in batch], tokenizer, eos_id, dtype)
        return
    if _on_threads(tokenizer, workers):
        # why not processes: a fork pool pickled every batch's text out and its ids back, and
        # 2 processes packed 50 MB of code at 0.76x the speed of 1 (benchmarks/pack_speed.py)
        pool = ThreadPoolExecutor(workers, thread_name_prefix="pack")
        submit = lambda texts: pool.submit(_encode_batch, texts, tokenizer, eos_id, dtype)
        result = Future.result
    else:
        # fork (Linux): workers inherit the tokenizer, nothing is pickled, and they start in
        # milliseconds, in a notebook too; elsewhere (spawn) each worker loads the file
        method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
        init = (tokenizer if method == "fork" else tokenizer_path, eos_id, dtype)
        pool = mp.get_context(method).Pool(workers, initializer=_init_worker, initargs=init)
        submit = lambda texts: pool.apply_async(_encode_batch, (texts,))
        result = AsyncResult.get
    with pool:
        pending = deque()  # (batch, its task), oldest first
        for batch in batches:
            pending.append((batch, submit([t for _, _, t in batch])))
            if len(pending) >= 2 * workers:
                b, r = pending.popleft()
                yield b, result(r)
        while pending:
            b, r = pending.popleft()
            yield b, result(r)


def _batches(docs, start: int, seen: list, chars: int):
    """Group ``(index, label, text)`` of the non-empty documents from index ``start`` on,
    about ``chars`` characters a group.

    ``seen[0]`` ends as the number of documents read, empty ones included.
    """
    batch, size = [], 0
    for index, (label, text) in enumerate(docs):
        seen[0] = index + 1
        if index < start or not text:
            continue
        batch.append((index, label, text))
        size += len(text)
        if size >= chars:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


# ---- writing shards -------------------------------------------------------------
class ShardWriter:
    """Appends whole documents to ``shard_NNNNN.bin`` files of at most ``shard_tokens`` ids.

    A shard is written to a hidden temporary file and renamed when complete, so a
    file named ``shard_*.bin`` is always whole. ``close_shard`` returns its record.
    """

    def __init__(self, out_dir, dtype: str, shard_tokens: int, eos_id: int, first_index: int = 0):
        self.out_dir, self.shard_tokens, self.eos_id = out_dir, shard_tokens, eos_id
        self.dtype = np.dtype(dtype).newbyteorder("<")  # e.g. uint16 -> "<u2"
        self.index = first_index
        self._file = None

    def fits(self, n: int) -> bool:
        return self._file is None or self.n_tokens + n <= self.shard_tokens

    def add(self, ids: np.ndarray) -> None:
        """Append one document's ids (ending in EOS) to the open shard."""
        # subtle: an int64 array would write 8 bytes per id, and nothing downstream could tell
        if ids.dtype != self.dtype or len(ids) == 0 or ids[-1] != self.eos_id:
            raise ValueError(f"a document must arrive as {self.dtype} ids ending in EOS {self.eos_id}, "
                             f"got {ids.dtype} ids ending in {ids[-1] if len(ids) else 'nothing'}")
        if self._file is None:
            self._tmp = os.path.join(self.out_dir, "." + shard_name(self.index) + ".tmp")
            self._file = open(self._tmp, "wb")
            self._hash, self.n_tokens, self.n_eos = hashlib.sha256(), 0, 0
        data = memoryview(np.ascontiguousarray(ids)).cast("B")
        self._file.write(data)
        self._hash.update(data)
        self.n_tokens += len(ids)
        self.n_eos += 1

    def close_shard(self) -> dict | None:
        if self._file is None:
            return None
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        self._file = None
        name = shard_name(self.index)
        os.replace(self._tmp, os.path.join(self.out_dir, name))
        self.index += 1
        return {"index": self.index - 1, "path": name, "n_tokens": self.n_tokens, "n_eos": self.n_eos,
                "sha256": self._hash.hexdigest()}


# ---- pack -----------------------------------------------------------------------
def pack(sources, tokenizer, out_dir, *, shard_tokens: int = DEFAULT_SHARD_TOKENS, eos: str | None = None,
         pad: str | None = None, text_field: str = "text", workers: int | None = None,
         overwrite: bool = False, progress: bool | None = None, engine: str = "local", scheduler: str | None = None,
         glob: str | None = None, processes: int | None = None, errors: str = "strict") -> dict:
    """Encode the documents of ``sources`` into shards in ``out_dir``; return the manifest.

    ``tokenizer``: the path of a JSON or ``.tiktoken`` tokenizer file (its sha256
    goes into the manifest), a ``Tokenizer``, or a model vocabulary's name
    (``"cl100k_base"``, ``"llama3"``, ... as ``from_pretrained`` takes); the last two
    are first written into ``out_dir`` as ``tokenizer.tiktoken`` (+ its sidecar), so
    the folder carries the tokenizer its ids need. ``workers``: how many encode at once, of the
    kind the encoder allows: threads of this process with the compiled encoder (it lets go of
    the GIL), worker processes with the Python one, a LocalCluster's with ``engine="dask"``;
    None: all cores for a large input, else one; -1: all cores (``processes``, its older name,
    warns). A run over a folder holding ``pack_state.json`` with the same settings resumes where
    that run stopped. ``engine="dask"``: the workers of a Dask cluster encode and write the
    shards (``dask_pack.py``), on ``scheduler`` or a LocalCluster; same bytes. ``progress``: a
    bar on stderr, None (default) on a terminal only, True always, False never (``_internal/progress.py``).

    ``sources``, ``text_field``, ``glob``: as ``train`` reads them (``documents.py``): ``.txt``, ``.jsonl``
    (the field ``text_field``), ``.parquet`` (the column), a folder (its files of those kinds, or matching
    ``glob``, never ``out_dir``'s), ``"-"`` for stdin (a run reading it cannot resume). Workers: at most the cores.
    ``errors="skip"``: a file that cannot be read or decoded is left out, with a warning
    (``documents.iter_documents``; engine local only); the default stops at it.

    ``eos``: the special token after every document; ``None``: the tokenizer's own
    end-of-text token, as the Hugging Face export names it (``<|endoftext|>``,
    else ``<|end_of_text|>`` for Llama 3, ``<|im_end|>``, ``</s>``, ...).
    """
    workers = renamed("processes", processes, "workers", workers)
    check_progress(progress)
    if engine not in ("local", "dask"):
        raise ValueError(f"engine {engine!r} should be local (workers here) or dask (a Dask cluster)")
    if scheduler is not None and engine != "dask":
        raise ValueError(f"a scheduler ({scheduler}) is only used with engine dask (--engine dask)")
    workers = None if workers is None else resolve_workers(workers, 0, remote=scheduler is not None)
    check_errors(errors)
    if errors == "skip" and engine == "dask":
        raise ValueError("errors skip (--errors skip) is for engine local; a Dask cluster's workers read the files")
    if isinstance(shard_tokens, bool) or not isinstance(shard_tokens, int) or shard_tokens < 2:
        raise ValueError(f"shard_tokens must be an int >= 2 (a document needs at least one id and its EOS), "
                         f"got {shard_tokens!r}")
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ValueError(f"--out {out_dir} is a file; name a folder for the shards (it is created if missing)")
    tokenizer = pack_tokenizer(tokenizer)  # an unknown name is refused before any folder is made
    with locked_folder(out_dir) as planned:  # a tokenizer given by name or object is written into it
        tok_path = tokenizer_file(tokenizer, out_dir)
        paths = expand_sources(sources, glob, outputs=[out_dir], errors=errors)  # never its own lock, tokenizer...
        job = PackJob.plan(paths, text_field, tok_path, eos, pad, shard_tokens, out_dir)
        planned()
        job.workers, job.progress, job.engine, job.scheduler, job.errors = workers, progress, engine, scheduler, errors
        if errors == "skip":  # a resumed run must skip the same files (strict runs' states stay as they were)
            job.settings["errors"] = errors
        return job.run(overwrite)


@dataclass
class PackJob:
    """One pack, once its folder is locked and its tokenizer is a file: what to read, how
    to cut it into shards, where to write. ``plan`` makes one; ``run`` writes the shards
    (starting over or resuming) and the manifest.
    """

    # what to read
    paths: list            # the sources, expanded (documents.expand_sources)
    text_field: str
    # how to cut: the tokenizer, the ids around documents, the shard layout
    tok: Tokenizer
    tok_path: str
    eos: str
    pad: str | None
    eos_id: int
    pad_id: int | None
    vocab_size: int        # embedding rows (shards.embedding_rows)
    dtype: str             # "uint16" or "uint32"
    shard_tokens: int
    # where to write, and who does the work
    out_dir: str
    settings: dict         # what a resumed run must match (pack_state.json)
    workers: int | None = None
    progress: bool | None = None
    engine: str = "local"
    scheduler: str | None = None
    errors: str = "strict"  # or "skip" (documents.iter_documents)

    @classmethod
    def plan(cls, paths, text_field, tok_path, eos, pad, shard_tokens, out_dir) -> "PackJob":
        """The job for ``paths`` (already expanded) with the tokenizer file ``tok_path``."""
        tok = load_tokenizer(tok_path)
        if eos is None:
            eos = special_roles(tok).get("eos_token", DEFAULT_EOS)  # none of the usual names: say so below
        eos_id = special_id(tok, eos, "EOS")
        pad_id = None if pad is None else special_id(tok, pad, "PAD")
        vocab_size = embedding_rows(tok)
        dtype = dtype_for(vocab_size)
        settings = {
            # size and mtime: a source edited since an interrupted run is not resumed (see the docstring);
            # standard input gets this run's time, so a run that read it never matches a later one
            "sources": [[p, 0, time.time_ns()] if p == STDIN else
                        [os.path.abspath(p), os.path.getsize(p), os.stat(p).st_mtime_ns] for p in paths],
            "text_field": text_field, "tokenizer_sha256": sha256_file(tok_path),
            "eos_token_id": eos_id, "dtype": dtype, "shard_size_tokens": shard_tokens,
        }
        return cls(paths, text_field, tok, tok_path, eos, pad, eos_id, pad_id, vocab_size, dtype, shard_tokens,
                   out_dir, settings)

    @property
    def state_path(self) -> str:
        """Where the job records its progress after each shard.

        >>> PackJob([], "text", None, "t.json", "<eos>", None, 0, None, 256, "uint16", 10, "out", {}).state_path
        'out/pack_state.json'
        """
        return os.path.join(self.out_dir, STATE)

    def run(self, overwrite: bool) -> dict:
        """Write the shards and the manifest; return the manifest."""
        if STDIN in self.paths and self.engine == "dask":
            raise ValueError("engine dask reads the sources on its workers, which cannot read this standard input; "
                             "save it to a file first")
        fresh = not os.path.exists(self.state_path)
        state = _start_or_resume(self.out_dir, self.settings, overwrite)
        try:
            n_docs, n_empty = self.write(state)
        except BaseException:
            if fresh and not state["shards"] and os.path.exists(self.state_path):
                os.unlink(self.state_path)  # a run that failed before its first shard leaves nothing to resume
            raise
        return self.finish(state, n_docs, n_empty)

    def write(self, state) -> tuple[int, int]:
        """Encode and write the shards from where ``state`` stopped; return (documents, empty ones)."""
        _clean_partial(self.out_dir, keep=len(state["shards"]))
        workers = resolve_workers(self.workers, sum(size for _, size, _ in self.settings["sources"]))
        if self.engine == "dask":  # encoded and written by the workers of a Dask cluster (dask_pack.py)
            with dask_client(self.scheduler, workers=workers) as client:
                job = ShardSettings(iter_documents, self.text_field, self.tok_path, self.eos_id, self.dtype, self.shard_tokens)
                return write_shards_on_dask(client, self.paths, job, self.out_dir, state,
                                            lambda: _write_json(self.state_path, state), self.progress)
        return self.write_here(state, workers)

    def write_here(self, state, workers: int) -> tuple[int, int]:
        """Encode and write the shards here (this process and its workers); return (documents, empty ones)."""
        shards = state["shards"]  # list of shard records, in order
        for parts in glob.glob(os.path.join(self.out_dir, ".parts-*")):
            shutil.rmtree(parts)  # ids a killed Dask run encoded (dask_pack.py): not used here
        writer = ShardWriter(self.out_dir, self.dtype, self.shard_tokens, self.eos_id, first_index=len(shards))
        # what the state file will say once the open shard is closed: (next_document, documents, empty_documents)
        done = (state["next_document"], state["documents"], state["empty_documents"])
        n_docs, n_empty, last_index = done[1], done[2], done[0] - 1

        def save_shard(record):
            shards.append(record)
            state.update(next_document=done[0], documents=done[1], empty_documents=done[2])
            _write_json(self.state_path, state)  # after the rename: a shard on disk is only "done" once recorded

        seen = [0]  # documents read so far, empty ones included
        chars = _THREAD_BATCH_CHARS if _on_threads(self.tok, workers) else _BATCH_CHARS
        docs = _batches(iter_documents(self.paths, self.text_field, self.errors), done[0], seen, chars)
        with progress_bar(self.progress, delay=2.0, desc="pack", unit="doc") as bar:
            for batch, (lengths, flat) in _encoded(docs, self.tok, self.tok_path, self.eos_id, self.dtype, workers):
                offset = 0
                for (index, label, _), n in zip(batch, lengths.tolist()):
                    n_empty += index - last_index - 1  # the empty documents skipped since the last one
                    last_index = index
                    if n > self.shard_tokens:
                        raise ValueError(f"document {label} is {n - 1} tokens + 1 EOS = {n}, more than --shard-tokens "
                                         f"{self.shard_tokens}; a document never spans two shards, so raise the budget")
                    if not writer.fits(n):
                        save_shard(writer.close_shard())
                    writer.add(flat[offset : offset + n])
                    offset += n
                    n_docs += 1
                    done = (index + 1, n_docs, n_empty)
                bar.update(len(batch))
        n_empty += max(seen[0], done[0]) - last_index - 1  # empty documents at the very end
        record = writer.close_shard()
        if record is not None:
            save_shard(record)
        return n_docs, n_empty

    def finish(self, state, n_docs: int, n_empty: int) -> dict:
        """Write the manifest (last: a folder with one is finished) and drop the state file."""
        shards = state["shards"]
        manifest = {
            "format": FORMAT, "version": VERSION,
            "vocab_size": self.vocab_size, "eos_token": self.eos, "eos_token_id": self.eos_id,
            "pad_token": self.pad, "pad_token_id": self.pad_id,
            "tokenizer": {"name": os.path.basename(self.tok_path), "sha256": self.settings["tokenizer_sha256"],
                          "fingerprint": tokenizer_fingerprint(self.tok)},
            "dtype": self.dtype, "byte_order": "little", "shard_size_tokens": self.shard_tokens,
            "total_tokens": sum(s["n_tokens"] for s in shards), "shard_count": len(shards),
            "documents": n_docs, "empty_documents_skipped": n_empty, "shards": shards,
        }
        _write_json(os.path.join(self.out_dir, MANIFEST), manifest)
        os.unlink(self.state_path)
        return manifest
