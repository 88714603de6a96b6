"""The shard folder format: what ``pack`` writes and what everything else reads.

A shard folder holds ``shard_00000.bin``, ``shard_00001.bin``, ... (headerless
little-endian arrays of token ids: uint16 when every id is below 65,536,
otherwise uint32; every shard ends with the EOS id) and ``manifest.json``:

  format, version, vocab_size, eos_token, eos_token_id, pad_token, pad_token_id,
  tokenizer {name, sha256 of the file, fingerprint of the vocabulary},
  dtype, byte_order, shard_size_tokens, total_tokens, shard_count,
  documents, empty_documents_skipped,
  shards [{index, path, n_tokens, n_eos, sha256}, ...]

This module names the files, opens shards as memory maps, reads the manifest,
compares it with a tokenizer or a model config, and ``verify`` re-checks
everything (the ``bpe-lesson verify`` command).

What this module does not do: write shards (``data.py``) or cut them into
training windows (``dataset.py``). It imports no torch.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import stat
import sys

import numpy as np

from .._internal.files import file_kind, json_int
from ..tokenizer import Tokenizer

__all__ = ["MANIFEST", "STATE", "FORMAT", "VERSION", "DEFAULT_EOS", "dtype_for",
           "shard_name", "sha256_file", "tokenizer_fingerprint", "embedding_rows",
           "padded_vocab_size", "special_id", "load_tokenizer", "read_manifest",
           "open_shard", "check_compatible", "verify", "add_verify_arguments",
           "run_verify"]

MANIFEST = "manifest.json"
STATE = "pack_state.json"  # present while a pack is unfinished
FORMAT = "bpe-lesson shards"
VERSION = 1
DEFAULT_EOS = "<|endoftext|>"


# ---- names, sizes, hashes ------------------------------------------------------
def dtype_for(vocab_size: int) -> str:
    """The smallest unsigned dtype that holds every id of a vocabulary.

    >>> dtype_for(65_536), dtype_for(65_537)
    ('uint16', 'uint32')
    """
    if vocab_size <= 1 << 16:
        return "uint16"
    if vocab_size <= 1 << 32:
        return "uint32"
    raise ValueError(f"vocab_size {vocab_size} does not fit in uint32 ids")


def shard_name(index: int) -> str:
    """The file name of shard ``index``.

    >>> shard_name(7)
    'shard_00007.bin'
    """
    return f"shard_{index:05d}.bin"


def sha256_file(path, block: int = 1 << 20) -> str:
    """The hex sha256 of a file's bytes, read a block at a time."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(block):
            h.update(chunk)
    return h.hexdigest()


def tokenizer_fingerprint(tokenizer) -> str:
    """A hash of what decides the ids: pattern, normalization, every token's bytes, special tokens.

    The same vocabulary saved as JSON or as ``.tiktoken`` has one fingerprint; a
    retrained tokenizer of the same size almost surely has another.
    """
    h = hashlib.sha256()
    head = [tokenizer.pattern, sorted(tokenizer.special_tokens.items())]
    norm = getattr(tokenizer, "normalize", None)
    if norm:  # only when set, so tokenizers without normalization keep one fingerprint
        head.append(norm)
    h.update(json.dumps(head).encode("utf-8"))
    for i in sorted(tokenizer.vocab):
        b = tokenizer.vocab[i]
        h.update(i.to_bytes(4, "little") + len(b).to_bytes(4, "little") + b)
    return h.hexdigest()


def embedding_rows(tokenizer) -> int:
    """The ``vocab_size`` a model needs: highest id + 1 (subtle: tiktoken
    vocabularies have gaps, so this can exceed the number of tokens)."""
    return tokenizer.max_token_id + 1


def padded_vocab_size(vocab_size: int, multiple: int = 64) -> int:
    """The embedding rows training code allocates: ``vocab_size`` rounded up to a multiple of ``multiple``.

    GPT-2's 50,257 ids become 50,304 = 786 x 64 rows (nanoGPT), so the matrices of the
    embedding and the output layer split evenly into the GPU's tiles; the 47 extra
    rows are never an input and never a target.

    >>> padded_vocab_size(50_257), padded_vocab_size(512), padded_vocab_size(128_256)
    (50304, 512, 128256)
    """
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
        raise ValueError(f"vocab_size must be a positive int, got {vocab_size!r}")
    return -(-vocab_size // multiple) * multiple


def special_id(tokenizer, token: str, what: str = "EOS") -> int:
    """The id of a special token, or an error that lists the tokenizer's special tokens."""
    if token not in tokenizer.special_tokens:
        names = sorted(tokenizer.special_tokens)
        shown = repr(names[:8])[:-1] + (f", ... and {len(names) - 8} more]" if len(names) > 8 else "]")
        raise ValueError(f"the tokenizer has no special token {token!r} to use as {what} (its special tokens: "
                         f"{shown}); train it with special_tokens=[{token!r}] "
                         f"or name one of its special tokens with {what.lower()}= "
                         f"(--{what.lower()} on the command line)")
    return tokenizer.special_tokens[token]


def load_tokenizer(path):
    """Our JSON tokenizer file or a ``.tiktoken`` file (``bpe_lesson.load``)."""
    return Tokenizer.load(path)


# ---- reading and checking a shard folder ------------------------------------------
_FIELDS = {  # manifest field -> type(s) it must have
    "format": str, "version": int, "vocab_size": int, "eos_token_id": int, "dtype": str,
    "shard_size_tokens": int, "total_tokens": int, "shard_count": int, "tokenizer": dict, "shards": list,
}
_SHARD_FIELDS = {"index": int, "path": str, "n_tokens": int, "n_eos": int, "sha256": str}


def _manifest_problems(m) -> tuple[list[str], bool]:
    """Problems with the manifest's own fields (not the shards), and whether the shards can
    still be checked against it (every field there, a valid dtype, every shard entry whole)."""
    if not isinstance(m, dict):
        return [f"{MANIFEST}: expected a JSON object, got {type(m).__name__}"], False
    out = [f"{MANIFEST}: field {k!r} is missing or not {t.__name__} (got {m.get(k)!r:.40})"
           for k, t in _FIELDS.items() if type(m.get(k)) is not t]
    if out:
        return out, False
    if m["format"] != FORMAT or m["version"] != VERSION:
        out.append(f"{MANIFEST}: format/version is {m['format']!r}/{m['version']}, this package reads "
                   f"{FORMAT!r}/{VERSION}")
    if m.get("byte_order", "little") != "little":  # what pack writes and every reader here reads
        out.append(f"{MANIFEST}: byte_order: {m['byte_order']!r:.40}, but shards are little-endian")
    usable = m["dtype"] in ("uint16", "uint32")
    if not usable:
        out.append(f"{MANIFEST}: dtype: {m['dtype']!r} is not uint16 or uint32")
    elif not 1 <= m["vocab_size"] <= 1 << 32:
        out.append(f"{MANIFEST}: vocab_size: {m['vocab_size']:,} is not between 1 and 2**32 (what uint32 ids "
                   f"can name)")
    elif m["dtype"] != dtype_for(m["vocab_size"]):
        out.append(f"{MANIFEST}: dtype: {m['dtype']} but vocab_size {m['vocab_size']} calls for "
                   f"{dtype_for(m['vocab_size'])} (uint16 holds ids below 65,536)")
    if not 0 <= m["eos_token_id"] < m["vocab_size"]:
        out.append(f"{MANIFEST}: eos_token_id: {m['eos_token_id']} is not below vocab_size {m['vocab_size']}")
    if m["shard_count"] != len(m["shards"]):
        out.append(f"{MANIFEST}: shard_count: says {m['shard_count']}, the shard list has {len(m['shards'])}")
    shards_ok = True
    for k, s in enumerate(m["shards"]):
        bad = [f for f, t in _SHARD_FIELDS.items() if not isinstance(s, dict) or type(s.get(f)) is not t]
        if bad:
            out.append(f"{MANIFEST}: shard {k}: field(s) {bad} missing or of the wrong type")
            shards_ok = usable = False
        elif s["index"] != k or s["path"] != shard_name(k):
            out.append(f"{MANIFEST}: shard {k}: index/path are {s['index']}/{s['path']!r:.60}, expected "
                       f"{k}/{shard_name(k)!r}")
            # subtle: never open a path the manifest made up ("/dev/zero", "../x"): only shard_NNNNN.bin here
            usable = False
    if shards_ok:
        total = sum(s["n_tokens"] for s in m["shards"])
        if total != m["total_tokens"]:
            out.append(f"{MANIFEST}: total_tokens: says {m['total_tokens']}, the shards add up to {total}")
    return out, usable


def read_manifest(path) -> tuple[dict, str]:
    """``(manifest, folder)`` from a shard folder or its ``manifest.json``; ``ValueError`` if malformed.

    Only the manifest is checked here (cheap); ``verify`` also reads every shard.
    """
    path = os.fspath(path)
    folder = path if os.path.isdir(path) else os.path.dirname(path)
    mpath = os.path.join(folder, MANIFEST)
    if not os.path.exists(mpath):
        hint = " (a pack was interrupted: run it again to resume)" if os.path.exists(os.path.join(folder, STATE)) else ""
        raise FileNotFoundError(f"no {MANIFEST} in {folder}{hint}")
    try:
        with open(mpath, encoding="utf-8") as f:
            m = json.load(f, parse_int=json_int)  # 5,000 digits: a problem, not a crash
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{mpath} is not valid JSON ({e})") from None
    except RecursionError:
        raise ValueError(f"{mpath} is not a manifest: its JSON nests too deeply") from None
    problems, _ = _manifest_problems(m)
    if problems:
        raise ValueError(f"{mpath} is malformed:\n  " + "\n  ".join(problems))
    return m, folder


def open_shard(path, dtype: str, n_tokens: int | None = None) -> np.ndarray:
    """A shard as a read-only, memory-mapped array (nothing is read until used).

    ``n_tokens`` given: the file size must be exactly that many ids.
    """
    dt = np.dtype(dtype).newbyteorder("<")
    size = os.path.getsize(path)
    if n_tokens is not None and size != n_tokens * dt.itemsize:
        raise ValueError(f"{os.path.basename(path)}: n_tokens: the file has {size:,} bytes, but the manifest's "
                         f"{n_tokens:,} {dtype} ids take {n_tokens * dt.itemsize:,}; run `bpe-lesson verify`")
    if size < dt.itemsize:
        return np.zeros(0, dtype=dt)  # np.memmap refuses an empty file
    return np.memmap(path, dtype=dt, mode="r", shape=(size // dt.itemsize,))


def _shard_problems(folder, m, s, block: int = 1 << 23) -> list[str]:
    """Every problem of one shard file: size, hash, EOS count, ids out of range, last id."""
    name, path = s["path"], os.path.join(folder, s["path"])
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return [f"{name}: file: missing"]
    if not stat.S_ISREG(st.st_mode):  # a FIFO would block the hash, /dev/zero never end it
        return [f"{name}: file: {file_kind(st.st_mode)}, not a regular file"]
    out = []
    itemsize = np.dtype(m["dtype"]).itemsize
    size = st.st_size
    if size != s["n_tokens"] * itemsize:
        hint = ""
        if size == s["n_tokens"] * 4 and itemsize == 2:
            hint = " (4 bytes per id: written as uint32 where the manifest says uint16?)"
        elif size * 2 == s["n_tokens"] * 4 and itemsize == 4:
            hint = " (2 bytes per id: written as uint16 where the manifest says uint32?)"
        out.append(f"{name}: n_tokens: the file has {size:,} bytes = {size / itemsize:,.1f} {m['dtype']} ids, "
                   f"the manifest says {s['n_tokens']:,} ids ({s['n_tokens'] * itemsize:,} bytes){hint}")
    if s["n_tokens"] > m["shard_size_tokens"]:
        out.append(f"{name}: n_tokens: {s['n_tokens']:,} is more than shard_size_tokens {m['shard_size_tokens']:,}")
    if size != s["n_tokens"] * itemsize:
        return out  # a wrong size: the hash and ids cannot match; reading them is wasted time
    digest = sha256_file(path)
    if digest != s["sha256"]:
        out.append(f"{name}: sha256: the file hashes to {digest[:16]}..., the manifest says {s['sha256'][:16]}... "
                   f"(the bytes changed after packing)")
    ids = open_shard(path, m["dtype"])
    eos, vocab = m["eos_token_id"], m["vocab_size"]
    n_eos, n_bad, first_bad = 0, 0, None
    for start in range(0, len(ids), block):  # a block at a time: a shard may not fit in memory
        part = ids[start : start + block]
        n_eos += int(np.count_nonzero(part == eos))
        bad = np.flatnonzero(part >= vocab)
        if len(bad) and first_bad is None:
            first_bad = (start + int(bad[0]), int(part[bad[0]]))
        n_bad += len(bad)
    if n_eos != s["n_eos"]:
        out.append(f"{name}: n_eos: the file has {n_eos:,} EOS ids ({eos}), the manifest says {s['n_eos']:,}")
    if n_bad:
        out.append(f"{name}: ids: {n_bad:,} id(s) >= vocab_size {vocab:,}; the first is {first_bad[1]:,} "
                   f"at position {first_bad[0]:,}")
    if len(ids) and int(ids[-1]) != eos:
        out.append(f"{name}: last id: {int(ids[-1])}, not EOS {eos}: its last document runs on into the next shard")
    return out


def check_compatible(manifest: dict, tokenizer=None, config=None) -> list[str]:
    """What differs between a manifest and a tokenizer (object or file path) or a model config.

    ``config``: a dict or an object with ``vocab_size`` and ``eos_token_id``.
    Every message names both values. A tokenizer file whose sha256 differs from
    the manifest's but whose vocabulary fingerprint matches (the same tokenizer
    saved as ``.tiktoken`` instead of JSON, say) is no problem: its ids mean the same.
    """
    out = []
    if tokenizer is not None:
        tok_name, digest = "the tokenizer", None
        if isinstance(tokenizer, (str, os.PathLike)):
            tok_name, digest = os.path.basename(os.fspath(tokenizer)), sha256_file(tokenizer)
            tokenizer = load_tokenizer(tokenizer)
        packed = manifest["tokenizer"]
        rows = embedding_rows(tokenizer)
        if rows != manifest["vocab_size"]:
            out.append(f"vocab_size: {tok_name} has {rows:,}, the manifest says {manifest['vocab_size']:,}")
        eos_name = manifest.get("eos_token") or DEFAULT_EOS
        eos = tokenizer.special_tokens.get(eos_name)
        if eos != manifest["eos_token_id"]:
            out.append(f"eos_token_id: {tok_name} gives {eos_name!r} the id {eos}, the manifest says "
                       f"{manifest['eos_token_id']}")
        fp = tokenizer_fingerprint(tokenizer)
        if fp != packed.get("fingerprint"):
            if digest is not None and digest != packed.get("sha256"):
                out.insert(0, f"tokenizer: sha256: {tok_name} hashes to {digest[:16]}..., the shards were packed "
                              f"with {packed.get('name')} ({str(packed.get('sha256'))[:16]}...)")
            elif not out:  # the same size and EOS: only the fingerprint tells
                out.append(f"tokenizer: fingerprint: {tok_name} has the same size and EOS but other tokens, pattern "
                           f"or special tokens ({fp[:16]}... vs {str(packed.get('fingerprint'))[:16]}...): "
                           f"the ids in the shards would mean different text")
    if config is not None:
        get = config.get if isinstance(config, dict) else (lambda k: getattr(config, k, None))
        rows, data = get("vocab_size"), manifest["vocab_size"]
        # the one larger size that is fine: the data's rounded up to a multiple of 64 (rows no id reaches)
        if rows != data and not (isinstance(rows, int) and rows == padded_vocab_size(data)):
            padded = padded_vocab_size(data)
            out.append(f"vocab_size: the model config says {rows}, the manifest says {data}"
                       + (f" (or {padded}: padded to a multiple of 64)" if padded != data else ""))
        if get("eos_token_id") != manifest["eos_token_id"]:
            out.append(f"eos_token_id: the model config says {get('eos_token_id')}, the manifest says "
                       f"{manifest['eos_token_id']}")
    return out


def verify(folder, tokenizer=None) -> list[str]:
    """Re-check a shard folder against its manifest: a list of problems, ``[]`` when all is well.

    Checks the manifest's fields, and for every shard its size (2 or 4 bytes x
    n_tokens), sha256, EOS count, ids below vocab_size and a final EOS; with
    ``tokenizer`` (a file path or a Tokenizer), that it is the one the shards
    were packed with. Each problem names the file and the field.
    """
    folder = os.fspath(folder)
    if not os.path.isdir(folder):  # nothing to check: the caller named the wrong thing
        raise ValueError(f"{folder}: " + ("not a folder" if os.path.exists(folder) else "no such folder"))
    mpath = os.path.join(folder, MANIFEST)
    if not os.path.exists(mpath):
        return [f"{MANIFEST}: missing in {folder}"]
    try:
        with open(mpath, encoding="utf-8") as f:
            m = json.load(f, parse_int=json_int)  # 5,000 digits: a problem, not a crash
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        return [f"{MANIFEST}: not valid JSON ({e})"]
    except RecursionError:
        return [f"{MANIFEST}: not a manifest: its JSON nests too deeply"]
    out, usable = _manifest_problems(m)
    if not usable:
        return out
    for s in m["shards"]:
        out += _shard_problems(folder, m, s)
    # every document ends in one EOS (and only there), so the shards' EOS counts, checked
    # against the files just now, add up to the documents
    docs, ends = m.get("documents"), sum(s["n_eos"] for s in m["shards"])
    eos_ok = not any(": n_eos: " in p for p in out)
    if "documents" in m and eos_ok and (type(docs) is not int or docs != ends):
        out.append(f"{MANIFEST}: documents: says {docs!r:.40}, the shards hold {ends:,} EOS-ended documents")
    listed = {s["path"] for s in m["shards"]}
    for p in sorted(glob.glob(os.path.join(folder, "shard_*.bin"))):
        if os.path.basename(p) not in listed:
            out.append(f"{os.path.basename(p)}: file: not in the manifest")
    if os.path.exists(os.path.join(folder, STATE)):
        out.append(f"{STATE}: a pack into this folder did not finish; run it again to resume")
    if tokenizer is not None:
        out += check_compatible(m, tokenizer=tokenizer)
    return out


# ---- the command line ---------------------------------------------------------------
def add_verify_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", metavar="DIR", help="a folder written by `bpe-lesson pack`")
    p.add_argument("--tokenizer", default=None, help="also check that this tokenizer file is the one packed with")


def run_verify(args) -> int:
    problems = verify(args.folder, tokenizer=args.tokenizer)
    for p in problems:  # problems go to stderr, so `verify DIR > report` still shows them
        print(p, file=sys.stderr)
    if problems:
        print(f"{args.folder}: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    m, _ = read_manifest(args.folder)
    print(f"{args.folder}: ok ({m['shard_count']} shard(s), {m['total_tokens']:,} {m['dtype']} tokens, "
          f"{m['documents'] if 'documents' in m else '?'} documents)")
    return 0
