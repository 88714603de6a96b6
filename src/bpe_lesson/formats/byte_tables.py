"""A tokenizer as byte tables, the shape courses use: ``{id: bytes}`` and ``[(bytes, bytes), ...]``.

Stanford's CS336 and many course fixtures describe a BPE tokenizer as a triple:
``vocab: dict[int, bytes]`` (special tokens inside it, by their UTF-8 bytes),
``merges: list[tuple[bytes, bytes]]`` in merge order, and ``special_tokens:
list[str]``. ``Tokenizer.from_vocab`` builds our Tokenizer from that triple;
``vocab_bytes`` and ``merge_bytes`` give it back, so a learner can compare their
own trainer's output with ours table for table.

What this module does not do: change the encoding rule. A Tokenizer encodes by rank
(tiktoken's rule: the lowest id joins first), so ``from_vocab`` refuses merges on
which replaying them in order would give other ids (``ranks.merge_list_problem``:
ids that fall in merge order, a merge the ranks imply that is missing); the
Tokenizer keeps the ranks' own merges, which are then the ones passed.
"""

from __future__ import annotations

import operator

from ..ranks import merge_list_problem, recover_merges


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
            if isinstance(i, bool) or not isinstance(b, (bytes, bytearray)):
                raise TypeError(f"vocab maps ids (int) to bytes; got {i!r}: {type(b).__name__}")
            try:
                i = operator.index(i)  # an int, or a NumPy integer (not 256.7)
            except TypeError:
                raise TypeError(f"vocab maps ids (int) to bytes; got the id {i!r} ({type(i).__name__})") from None
            if bytes(b) in by_bytes:
                raise ValueError(f"vocab gives the bytes {bytes(b)!r} two ids ({by_bytes[bytes(b)]} and {i})")
            by_bytes[bytes(b)] = i
        special_ids = {}
        free = max(by_bytes.values(), default=-1) + 1
        for s in specials:
            i = by_bytes.pop(s.encode("utf-8"), None)
            if i is None:
                i, free = free, free + 1
            special_ids[s] = i
        missing = [b for b in (bytes([k]) for k in range(256)) if b not in by_bytes]
        if missing:
            raise ValueError(f"vocab lacks {len(missing)} of the 256 single bytes (first: {missing[0]!r}); "
                             f"byte-level BPE needs every byte")
        ordinary = {i: b for b, i in by_bytes.items()}  # int -> bytes
        implied = None
        if merges is not None:
            listed = []  # [((left id, right id), new id)] in the order given
            for k, m in enumerate(merges):
                if not (isinstance(m, (tuple, list)) and len(m) == 2
                        and all(isinstance(x, (bytes, bytearray)) for x in m)):
                    raise ValueError(f"merge {k} is {str(m)[:60]}; a merge is a pair (left bytes, right bytes)")
                left, right = bytes(m[0]), bytes(m[1])
                for side in (left, right, left + right):
                    if side not in by_bytes:
                        raise ValueError(f"merge {k} ({left!r}, {right!r}) names {side!r}, which is not in vocab")
                listed.append(((by_bytes[left], by_bytes[right]), by_bytes[left + right]))
            implied = recover_merges(by_bytes)
            # a merge list is replayed in order, with no whole-chunk rule (GPT-2, CS336): it must agree
            problem = merge_list_problem(by_bytes, listed, False, implied)
            if problem is not None:
                k, why = problem
                raise ValueError(f"{'merges' if k is None else f'merge {k}'}: {why}; replaying these merges "
                                 f"and encoding by rank (as this Tokenizer does) would give different ids")
        return cls(implied, pattern=pattern, special_tokens=special_ids, vocab=ordinary, **kwargs)

    def vocab_bytes(self) -> dict:
        """Every id to its bytes, special tokens included (as their UTF-8 bytes)."""
        out = dict(self.vocab)
        out.update((i, s.encode("utf-8")) for s, i in self.special_tokens.items())
        return dict(sorted(out.items()))

    def merge_bytes(self) -> list:
        """The merges as byte pairs, in merge order: ``[(b"a", b"b"), (b"ab", b"c"), ...]``."""
        return [(self.vocab[a], self.vocab[b]) for (a, b), _ in self.merges]
