""".tiktoken files in and out.

A ``.tiktoken`` file is one line per token: ``base64(token bytes) rank``. Ranks are
our ids. It carries no pattern and no special tokens, so beside each file we write a
small JSON *sidecar* (``NAME.tiktoken.json``) with both; ``load_tiktoken`` reads it
when it is there.

What this module does not do: encode (``tokenizer.py``). A ``.tiktoken`` file holds
ranks, not merges; ``recover_merges`` rebuilds a merge list from the ranks.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import os

from ._files import atomic_write
from .tokenizer import Tokenizer

SIDECAR_SUFFIX = ".json"


def sidecar_path(path) -> str:
    """The JSON sidecar beside a ``.tiktoken`` file.

    >>> sidecar_path("out/my.tiktoken")
    'out/my.tiktoken.json'
    """
    p = os.fspath(path)
    if p.endswith(".gz"):
        p = p[:-3]
    return p + SIDECAR_SUFFIX


def dumps_tiktoken(vocab: dict[int, bytes]) -> bytes:
    """The file's bytes: one ``base64 rank`` line per token, in rank order.

    >>> dumps_tiktoken({0: b"a", 1: b"b"})
    b'YQ== 0\\nYg== 1\\n'
    """
    return b"".join(base64.b64encode(vocab[i]) + b" " + str(i).encode() + b"\n" for i in sorted(vocab))


def parse_tiktoken(data: bytes, source: str = "<bytes>") -> dict[bytes, int]:
    """Parse and check a ``.tiktoken`` file's bytes: token bytes -> rank.

    Rejected, with the line number: bad base64, a missing or non-integer rank, a
    duplicate rank, duplicate bytes, and (over the whole file) a missing byte token.

    >>> parse_tiktoken(b"YQ== 0\\n")
    {b'a': 0}
    """
    ranks: dict[bytes, int] = {}
    seen: dict[int, int] = {}  # rank -> line number
    for lineno, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"{source}, line {lineno}: expected 'base64 rank', got {line[:60]!r}")
        b64, rank_s = parts
        try:
            token = base64.b64decode(b64, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"{source}, line {lineno}: {b64[:60]!r} is not valid base64") from None
        try:
            rank = int(rank_s)
        except ValueError:
            raise ValueError(f"{source}, line {lineno}: rank {rank_s[:30]!r} is not an integer") from None
        if rank < 0:
            raise ValueError(f"{source}, line {lineno}: rank {rank} is negative")
        if rank in seen:
            raise ValueError(f"{source}, line {lineno}: rank {rank} is a duplicate (first on line {seen[rank]})")
        if token in ranks:
            raise ValueError(f"{source}, line {lineno}: the bytes {token!r} are a duplicate (rank {ranks[token]} has them)")
        if not token:
            raise ValueError(f"{source}, line {lineno}: empty token")
        seen[rank] = lineno
        ranks[token] = rank
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise ValueError(f"{source}: {len(missing)} of the 256 single-byte tokens are missing "
                         f"(first: {bytes([missing[0]])!r}); every byte needs a token")
    return ranks


def read_tiktoken_file(path) -> dict[bytes, int]:
    """Read a ``.tiktoken`` file (``.gz`` too) into bytes -> rank, checking it."""
    p = os.fspath(path)
    with open(p, "rb") as f:
        data = f.read()
    if p.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise ValueError(f"{p}: not a valid gzip file ({e})") from None
    return parse_tiktoken(data, source=p)


def recover_merges(ranks: dict[bytes, int]) -> list[tuple[tuple[int, int], int]]:
    """For each multi-byte token, the two lower-ranked tokens the rank encoder joins last.

    Tokens that no such split reaches are left out (the tiktoken chapter counts them).

    >>> r = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"abc": 257}
    >>> recover_merges(r)
    [((97, 98), 256), ((256, 99), 257)]
    """
    out = []
    for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(token) < 2:
            continue
        parts = _parts_below(token, ranks, rank)
        if len(parts) == 2:
            out.append(((ranks[parts[0]], ranks[parts[1]]), rank))
    return out


def _parts_below(chunk: bytes, ranks, max_rank) -> list[bytes]:
    """Rank-encode ``chunk`` using only tokens ranked below ``max_rank``; the parts."""
    parts = [chunk[i : i + 1] for i in range(len(chunk))]
    while len(parts) > 1:
        best_i, best_rank = -1, max_rank
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and r < best_rank:
                best_i, best_rank = i, r
        if best_i < 0:
            break
        parts[best_i : best_i + 2] = [parts[best_i] + parts[best_i + 1]]
    return parts


def save_tiktoken(tokenizer: Tokenizer, path) -> None:
    """Write ``path`` (.tiktoken) and its JSON sidecar, each atomically."""
    atomic_write(path, dumps_tiktoken(tokenizer.vocab))
    side = {"pattern": tokenizer.pattern, "special_tokens": tokenizer.special_tokens}
    if tokenizer.name:
        side["name"] = tokenizer.name
    atomic_write(sidecar_path(path), (json.dumps(side, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))


def load_tiktoken(path, pattern=None, special_tokens=None) -> Tokenizer:
    """Load a ``.tiktoken`` file; pattern and special tokens come from the sidecar unless given."""
    ranks = read_tiktoken_file(path)
    side = {}
    sp = sidecar_path(path)
    if os.path.exists(sp):
        try:
            with open(sp, "rb") as f:
                side = json.loads(f.read().decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ValueError(f"{sp}: the sidecar is not valid JSON ({e})") from None
    if pattern is None:
        pattern = side.get("pattern")
    if special_tokens is None:
        special_tokens = side.get("special_tokens") or {}
    vocab = {rank: token for token, rank in ranks.items()}
    name = side.get("name") or os.path.basename(os.fspath(path)).split(".")[0]
    return Tokenizer(recover_merges(ranks), pattern=pattern, special_tokens=special_tokens, vocab=vocab, name=name)
