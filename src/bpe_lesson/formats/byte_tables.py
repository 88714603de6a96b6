"""A tokenizer as byte tables, the shape courses use: ``{id: bytes}`` and ``[(bytes, bytes), ...]``.

Stanford's CS336 and many course fixtures describe a BPE tokenizer as a triple:
``vocab: dict[int, bytes]`` (special tokens inside it, by their UTF-8 bytes),
``merges: list[tuple[bytes, bytes]]`` in merge order, and ``special_tokens:
list[str]``. ``Tokenizer.from_vocab`` builds our Tokenizer from that triple;
``vocab_bytes`` and ``merge_bytes`` give it back, so a learner can compare their
own trainer's output with ours table for table.

What this module does not do: change the encoding rule. A Tokenizer encodes by rank
(tiktoken's rule: the lowest id joins first), so ``from_vocab`` checks that the merges
make ever higher ids, in order; for a vocabulary trained by merges that is the merge
order, and the ids equal replaying the merges.
"""

from __future__ import annotations


class ByteTables:
    """Mixed into ``Tokenizer``: needs ``vocab``, ``special_tokens``, ``merges``."""

    @classmethod
    def from_vocab(cls, vocab, merges=None, special_tokens=None, pattern="gpt2", **kwargs):
        """A Tokenizer from ``vocab: {id: bytes}``, ``merges: [(bytes, bytes), ...]`` and
        ``special_tokens: [str, ...]``.

        A special token whose bytes are in ``vocab`` keeps that id; one that is missing
        gets the next free id. Every other entry of ``vocab`` is an ordinary token.

        >>> from bpe_lesson import Tokenizer
        >>> vocab = {0: b"<|endoftext|>"} | {i + 1: bytes([i]) for i in range(256)} | {257: b"ab"}
        >>> tok = Tokenizer.from_vocab(vocab, [(b"a", b"b")], ["<|endoftext|>"])
        >>> tok.encode("ab<|endoftext|>", allowed_special="all")
        [257, 0]
        """
        specials = list(special_tokens or [])
        by_bytes = {}  # bytes -> id
        for i, b in vocab.items():
            if not isinstance(i, int) or not isinstance(b, (bytes, bytearray)):
                raise TypeError(f"vocab maps ids (int) to bytes; got {i!r}: {type(b).__name__}")
            if bytes(b) in by_bytes:
                raise ValueError(f"vocab gives the bytes {bytes(b)!r} two ids ({by_bytes[bytes(b)]} and {i})")
            by_bytes[bytes(b)] = i
        special_ids = {}
        free = max(vocab, default=-1) + 1
        for s in specials:
            i = by_bytes.pop(s.encode("utf-8"), None)
            if i is None:
                i, free = free, free + 1
            special_ids[s] = i
        missing = [b for b in (bytes([k]) for k in range(256)) if b not in by_bytes]
        if missing:
            raise ValueError(f"vocab lacks {len(missing)} of the 256 single bytes (first: {missing[0]!r}); "
                             f"byte-level BPE needs every byte")
        if merges is not None:
            last = -1
            for k, (left, right) in enumerate(merges):
                new = by_bytes.get(bytes(left) + bytes(right))
                if new is None:
                    raise ValueError(f"merge {k} ({left!r}, {right!r}) makes {bytes(left) + bytes(right)!r}, "
                                     f"which is not in vocab")
                if new <= last:
                    raise ValueError(f"merge {k} makes id {new}, not above the previous merge's id {last}: "
                                     f"ids must follow merge order for rank encoding")
                last = new
        ordinary = {i: b for b, i in by_bytes.items()}  # int -> bytes
        return cls(None, pattern=pattern, special_tokens=special_ids, vocab=ordinary, **kwargs)

    def vocab_bytes(self) -> dict:
        """Every id to its bytes, special tokens included (as their UTF-8 bytes)."""
        out = dict(self.vocab)
        out.update((i, s.encode("utf-8")) for s, i in self.special_tokens.items())
        return dict(sorted(out.items()))

    def merge_bytes(self) -> list:
        """The merges as byte pairs, in merge order: ``[(b"a", b"b"), (b"ab", b"c"), ...]``."""
        return [(self.vocab[a], self.vocab[b]) for (a, b), _ in self.merges]
