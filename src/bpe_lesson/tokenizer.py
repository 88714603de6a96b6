"""The Tokenizer: a vocabulary, its merges, a split pattern and special tokens.

Encoding follows tiktoken's *rank* semantics, so our ids equal tiktoken's for the
same vocabulary: within a chunk, start from single bytes and repeatedly join the
adjacent pair whose concatenated bytes have the lowest id (rank) in the
vocabulary; the leftmost such pair wins a tie. (For the vocabularies our
trainers make this almost always equals replaying the merge list; the book's
tiktoken chapter shows where the two part ways.) Like tiktoken, a chunk whose
bytes are themselves one token is encoded as that token straight away.

Special tokens follow tiktoken too: their text in the input raises unless the
caller allows it; allowed ones become their id and are never split or merged.

What this module does not do: train (``trainer.py``) or read and write
``.tiktoken`` files (``tiktoken_io.py``).
"""

from __future__ import annotations

import json
import os

from ._files import atomic_write
from .patterns import compile_pattern, resolve_pattern, special_regex

FORMAT = "bpe-lesson tokenizer"
VERSION = 1
_CACHE_LIMIT = 200_000


def bpe_encode_chunk(chunk: bytes, ranks: dict[bytes, int]) -> list[int]:
    """Encode one chunk by rank: join the lowest-ranked adjacent pair until none is left.

    >>> ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258}
    >>> bpe_encode_chunk(b"abcd", ranks)   # "ab" (256) beats "bc" (257), then "abc"
    [258, 100]
    """
    token = ranks.get(chunk)
    if token is not None:
        return [token]  # tiktoken's shortcut: the whole chunk is one token
    parts = [chunk[i : i + 1] for i in range(len(chunk))]  # list[bytes]
    while len(parts) > 1:
        best_i, best_rank = -1, None
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            # strict "<": among equal ranks the leftmost pair wins
            if rank is not None and (best_rank is None or rank < best_rank):
                best_i, best_rank = i, rank
        if best_rank is None:
            break
        parts[best_i : best_i + 2] = [parts[best_i] + parts[best_i + 1]]
    return [ranks[p] for p in parts]


class Tokenizer:
    """A byte-level BPE tokenizer.

    ``merges``: ``[((left_id, right_id), new_id), ...]`` in merge order.
    ``vocab``: ``{id: bytes}`` (built from the 256 bytes and the merges unless given).
    ``pattern``: the split regex itself, a pattern name, or ``None`` (no split).
    ``special_tokens``: ``{text: id}``; ids must not collide with the vocabulary.

    >>> tok = Tokenizer([((97, 97), 256)], pattern=None)
    >>> tok.encode("aaab"), tok.decode([256, 97, 98])
    ([256, 97, 98], 'aaab')
    """

    def __init__(self, merges, pattern=None, special_tokens=None, vocab=None, name=None):
        self.merges = [((int(a), int(b)), int(n)) for (a, b), n in merges]
        if vocab is None:
            vocab = {i: bytes([i]) for i in range(256)}
            for (a, b), n in self.merges:
                vocab[n] = vocab[a] + vocab[b]
        self.vocab = dict(vocab)  # int -> bytes
        self.pattern = resolve_pattern(pattern)
        self.special_tokens = dict(special_tokens or {})  # str -> int
        self.name = name
        self._ranks = {b: i for i, b in self.vocab.items()}  # bytes -> int
        if len(self._ranks) != len(self.vocab):
            raise ValueError("two ids in the vocabulary have the same bytes; every token's bytes must be distinct")
        for s, i in self.special_tokens.items():
            if i in self.vocab:
                raise ValueError(f"special token {s!r} has id {i}, which the vocabulary already uses for {self.vocab[i]!r}")
        if len(set(self.special_tokens.values())) != len(self.special_tokens):
            raise ValueError("two special tokens share an id")
        self._special_by_id = {i: s.encode("utf-8") for s, i in self.special_tokens.items()}
        self._split = compile_pattern(self.pattern).findall if self.pattern is not None else None
        self._cache = {}  # str chunk -> list[int]

    # ---- sizes ------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        """Number of ids: ordinary tokens plus special tokens."""
        return len(self.vocab) + len(self.special_tokens)

    @property
    def max_token_id(self) -> int:
        return max(list(self.vocab) + list(self.special_tokens.values()))

    def __repr__(self):
        pat = "None" if self.pattern is None else f"{len(self.pattern)}-char regex"
        return (f"Tokenizer(vocab_size={self.vocab_size}, merges={len(self.merges)}, "
                f"special_tokens={len(self.special_tokens)}, pattern={pat})")

    # ---- encoding ---------------------------------------------------------
    def encode_chunk(self, chunk: str) -> list[int]:
        """Ids of one pre-tokenized chunk (cached: real text repeats its chunks)."""
        ids = self._cache.get(chunk)
        if ids is None:
            ids = bpe_encode_chunk(chunk.encode("utf-8"), self._ranks)
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[chunk] = ids
        return ids

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode text with no special-token handling at all (their text is plain text)."""
        chunks = self._split(text) if self._split is not None else ([text] if text else [])
        out = []
        for chunk in chunks:
            out.extend(self.encode_chunk(chunk))
        return out

    def encode(self, text: str, allowed_special=(), disallowed_special="all") -> list[int]:
        """Encode text to ids, with tiktoken's rules for special tokens.

        ``allowed_special``: "all" or a set of special tokens that become their id.
        ``disallowed_special``: "all" (every special token not allowed) or a set;
        finding one of these in ``text`` raises ``ValueError``.
        """
        if not isinstance(text, str):
            raise TypeError(f"encode takes a str, got {type(text).__name__}")
        allowed = set(self.special_tokens) if allowed_special == "all" else set(allowed_special)
        unknown = allowed - set(self.special_tokens)
        if unknown:
            raise ValueError(f"allowed_special names {sorted(unknown)!r}, which this tokenizer does not have "
                             f"(its special tokens: {sorted(self.special_tokens)!r})")
        disallowed = set(self.special_tokens) - allowed if disallowed_special == "all" else set(disallowed_special)
        if disallowed:
            m = special_regex(disallowed).search(text)
            if m:
                raise ValueError(
                    f"the text contains the special token {m.group()!r} at character {m.start()}, which is "
                    f"disallowed; pass allowed_special={{{m.group()!r}}} to encode it as its id, or "
                    f"disallowed_special=() to encode it as plain text")
        rx = special_regex(allowed)
        if rx is None:
            return self.encode_ordinary(text)
        out, start = [], 0
        for m in rx.finditer(text):
            out.extend(self.encode_ordinary(text[start : m.start()]))
            out.append(self.special_tokens[m.group()])
            start = m.end()
        out.extend(self.encode_ordinary(text[start:]))
        return out

    # ---- decoding ---------------------------------------------------------
    def decode_bytes(self, ids) -> bytes:
        """The bytes of a list of ids, special tokens included.

        >>> Tokenizer([]).decode_bytes([104, 105])
        b'hi'
        """
        out = []
        for i in ids:
            b = self.vocab.get(i)
            if b is None:
                b = self._special_by_id.get(i)
                if b is None:
                    raise ValueError(f"id {i!r} is not in this vocabulary (size {self.vocab_size}, "
                                     f"ids 0..{self.max_token_id})")
            out.append(b)
        return b"".join(out)

    def decode(self, ids) -> str:
        """Ids back to text; bytes that are not valid UTF-8 become U+FFFD.

        >>> Tokenizer([]).decode([0xE2, 0x82])   # a cut-off euro sign
        '\ufffd'
        """
        return self.decode_bytes(ids).decode("utf-8", errors="replace")

    # ---- saving -----------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "version": VERSION,
            "pattern": self.pattern,
            "special_tokens": self.special_tokens,
            "merges": [[a, b, n] for (a, b), n in self.merges],
        }

    def save(self, path) -> None:
        """Write one human-readable JSON file (a merge per line), atomically."""
        base = {i: bytes([i]) for i in range(256)}
        for (a, b), n in self.merges:
            base[n] = base[a] + base[b]
        if base != self.vocab:
            raise ValueError("this vocabulary is not the 256 bytes plus its merges (e.g. one imported from "
                             "tiktoken); save it with save_tiktoken() instead")
        d = self.to_dict()
        head = json.dumps({k: v for k, v in d.items() if k != "merges"}, ensure_ascii=False, indent=1)
        lines = ",\n".join("  " + json.dumps(m) for m in d["merges"])
        text = head[:-2] + ',\n "merges": [\n' + lines + ("\n ]\n}\n" if lines else "]\n}\n")
        atomic_write(path, text.encode("utf-8"))

    def save_tiktoken(self, path) -> None:
        """Write a ``.tiktoken`` file (ranks = our ids) and its JSON sidecar; see ``tiktoken_io``."""
        from .tiktoken_io import save_tiktoken

        save_tiktoken(self, path)

    @classmethod
    def load(cls, path) -> "Tokenizer":
        """Read what ``save`` wrote; a corrupt or truncated file raises ``ValueError``."""
        path = os.fspath(path)
        with open(path, "rb") as f:
            raw = f.read()
        try:
            d = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ValueError(f"{path} is not a valid bpe-lesson tokenizer file (corrupt or truncated?): {e}") from None
        return cls.from_dict(d, source=path)

    @classmethod
    def from_dict(cls, d, source="<dict>") -> "Tokenizer":
        def bad(why):
            return ValueError(f"{source} is not a valid bpe-lesson tokenizer file: {why}")

        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise bad(f"the 'format' field must be {FORMAT!r}")
        if d.get("version") != VERSION:
            raise bad(f"version {d.get('version')!r} is not supported (this package reads version {VERSION})")
        merges = d.get("merges")
        if not isinstance(merges, list):
            raise bad("'merges' must be a list")
        out = []
        for k, m in enumerate(merges):
            if not (isinstance(m, list) and len(m) == 3 and all(type(x) is int for x in m)):
                raise bad(f"merge {k} is {m!r}, expected [left_id, right_id, new_id]")
            a, b, n = m
            if n != 256 + k:
                raise bad(f"merge {k} makes id {n}, expected {256 + k} (ids follow merge order)")
            if not (0 <= a < n and 0 <= b < n):
                raise bad(f"merge {k} joins ids {a} and {b}; both must already exist (below {n})")
            out.append(((a, b), n))
        specials = d.get("special_tokens") or {}
        if not isinstance(specials, dict) or not all(isinstance(s, str) and type(i) is int for s, i in specials.items()):
            raise bad("'special_tokens' must map strings to integer ids")
        pattern = d.get("pattern")
        if pattern is not None and not isinstance(pattern, str):
            raise bad("'pattern' must be a regex string or null")
        return cls(out, pattern=pattern, special_tokens=specials)
