"""Ranks: a vocabulary as an order on byte strings, and the one loop that encodes by it.

A vocabulary maps token bytes to an id, its *rank*. Encoding a chunk by rank
(tiktoken's rule) starts from single bytes and repeatedly joins the adjacent pair
whose joined bytes have the lowest rank, leftmost on a tie, until no adjacent
pair is a token. ``byte_pair_merge`` is that loop, written once: the encoder
(``bpe_encode_chunk``) uses it, and so does ``recover_merges``, which rebuilds a
merge list from a rank table (a ``.tiktoken`` file holds ranks, not merges).

Also here: ``vocab_from_merges``, the 256 bytes plus the tokens a merge list makes;
``byte_pair_merge_heap``, the same rule with a heap for long pieces (a run of 100,000
spaces would take the plain loop minutes); and ``merge_with_dropout``, the loop with
BPE-dropout's random drops.

What this module does not do: split text into chunks (``patterns.py``), handle
special tokens or cache anything (``tokenizer/``), or read files (``tokenizer/tiktoken_io.py``).
"""

from __future__ import annotations

import heapq

__all__ = ["LONG_PIECE", "MAX_ID", "vocab_from_merges", "byte_pair_merge",
           "byte_pair_merge_heap", "merge_with_dropout", "bpe_encode_chunk",
           "recover_merges", "unreachable_tokens", "replay_merges", "stuck_tokens",
           "merge_list_problem"]

LONG_PIECE = 128  # pieces longer than this many bytes take the heap (as the compiled encoder)
# the largest rank (= id): the compiled encoder keeps ids in 32 bits and uses 2**32 - 1 for "no token"
MAX_ID = 2**32 - 2


def vocab_from_merges(merges=()) -> dict[int, bytes]:
    """The 256 byte tokens, plus the token each merge makes: id -> bytes.

    >>> v = vocab_from_merges([((104, 105), 256)]); len(v), v[256]
    (257, b'hi')
    """
    vocab = {i: bytes([i]) for i in range(256)}  # int -> bytes
    for (a, b), new_id in merges:
        vocab[new_id] = vocab[a] + vocab[b]
    return vocab


def byte_pair_merge(piece: bytes, ranks: dict[bytes, int], max_rank: int | None = None,
                    dropout: float = 0.0, rng=None) -> list[bytes]:
    """Rank-encode ``piece`` into parts, joining only pairs ranked below ``max_rank``.

    Join the adjacent pair whose bytes have the lowest rank, leftmost on a tie,
    until no allowed pair is left. Only the two pairs beside a join change, so
    each step looks up two ranks, not all of them. Each step still scans every pair
    for the lowest (quadratic in the piece's length), so a piece longer than
    ``LONG_PIECE`` bytes goes to ``byte_pair_merge_heap``, the same rule in
    O(n log n).

    ``dropout`` > 0 is BPE-dropout (Provilkov et al., 2020): at every step each
    joinable pair is dropped with probability ``dropout`` (one ``rng.random()``
    draw per pair, left to right), the best surviving pair is joined, and the
    loop ends at the first step where every pair is dropped (see
    ``merge_with_dropout``). ``rng``: a ``random.Random``.

    >>> r = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258}
    >>> byte_pair_merge(b"abcd", r)          # "ab" (256) beats "bc" (257), then "abc"
    [b'abc', b'd']
    >>> byte_pair_merge(b"abc", r, 258)      # "abc" itself is not allowed
    [b'ab', b'c']
    >>> import random; byte_pair_merge(b"abcd", r, dropout=1.0, rng=random.Random(0))
    [b'a', b'b', b'c', b'd']
    """
    if dropout:
        return merge_with_dropout(piece, ranks, dropout, rng, max_rank)
    limit = float("inf") if max_rank is None else max_rank
    get = ranks.get
    n = len(piece)
    if n > LONG_PIECE:
        return byte_pair_merge_heap(piece, ranks, limit)
    starts = list(range(n + 1))  # part k is piece[starts[k]:starts[k + 1]]
    # pair_rank[k]: rank of part k joined with part k + 1 (``limit`` when not allowed)
    pair_rank = [min(get(piece[i : i + 2], limit), limit) for i in range(n - 1)]
    while pair_rank:
        best = min(pair_rank)
        if best >= limit:
            break
        k = pair_rank.index(best)  # subtle: index() finds the leftmost of the lowest: the tie rule
        del starts[k + 1]
        del pair_rank[k]
        # the joined part k has new neighbours on both sides: re-rank those two pairs
        if k > 0:
            pair_rank[k - 1] = min(get(piece[starts[k - 1] : starts[k + 1]], limit), limit)
        if k < len(pair_rank):
            pair_rank[k] = min(get(piece[starts[k] : starts[k + 2]], limit), limit)
    return [piece[starts[k] : starts[k + 1]] for k in range(len(starts) - 1)]


class _Parts:
    """The parts of a piece as a linked list of start offsets, and a heap of the
    joinable pairs beside them: the state ``byte_pair_merge_heap`` and
    ``merge_with_dropout`` share.

    Part ``s`` is ``piece[s:end[s]]``; the part before it starts at ``prev[s]``.
    A heap entry ``(rank, s, t, u)`` is the pair of parts ``piece[s:t]`` and
    ``piece[t:u]``; it is *stale* once either part has been joined to another
    (then ``end[s] != t`` or ``end[t] != u``), and stale entries are skipped when
    popped instead of being searched for and removed.

    piece=b"abcd", ranks ab:256 bc:257 abc:258 -> heap [(256, 0, 1, 2), (257, 1, 2, 3)];
    join (256, 0, 1, 2): end[0] = 2, push (258, 0, 2, 3); (257, 1, 2, 3) is now stale.
    """

    def __init__(self, piece, ranks, limit):
        self.piece, self.ranks, self.limit = piece, ranks, limit
        n = len(piece)
        self.end = list(range(1, n + 1)) + [n]  # start -> end of the part that starts there
        self.prev = list(range(-1, n))           # start -> start of the part before (-1: none)
        self.heap = []                           # (rank, s, t, u) for each joinable pair
        for s in range(n - 1):
            self.add(s, s + 1, s + 2, list.append)  # heapified once below
        heapq.heapify(self.heap)

    def add(self, s, t, u, put=heapq.heappush):
        """Put the pair piece[s:t] + piece[t:u] in the heap, if it is a token below the limit."""
        rank = self.ranks.get(self.piece[s:u], self.limit)
        if rank < self.limit:  # not a token (or not allowed): never joinable, never in the heap
            put(self.heap, (rank, s, t, u))

    def pop(self):
        """The best pair still current (lowest rank, then leftmost), or None."""
        end, heap = self.end, self.heap
        while heap:
            entry = heapq.heappop(heap)
            _, s, t, u = entry
            if end[s] == t and end[t] == u:  # both parts unchanged since the push
                return entry
        return None

    def join(self, entry):
        """Join the pair ``entry`` and push the two new pairs beside the joined part."""
        _, s, t, u = entry
        end, prev, n = self.end, self.prev, len(self.piece)
        end[s] = u
        end[t] = -1  # subtle: no part starts at t any more, so every entry naming t is stale
        if u < n:
            prev[u] = s
            self.add(s, u, end[u])
        if prev[s] >= 0:
            self.add(prev[s], s, u)

    def split(self):
        """The parts, left to right."""
        out, s, n = [], 0, len(self.piece)
        while s < n:
            out.append(self.piece[s : self.end[s]])
            s = self.end[s]
        return out


def byte_pair_merge_heap(piece: bytes, ranks: dict[bytes, int], limit=float("inf")) -> list[bytes]:
    """``byte_pair_merge``'s rule (lowest rank, leftmost on a tie) with a heap: O(n log n).

    The pairs wait in a heap ordered by (rank, start); joining a pair pushes the two
    pairs beside the new part, and entries made stale by a join are skipped when
    they come up (``_Parts``). For one 100,000-byte chunk this takes well under a
    second where the plain loop takes minutes (``benchmarks/long_chunk.py``).

    >>> r = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258}
    >>> byte_pair_merge_heap(b"abcd", r)
    [b'abc', b'd']
    >>> byte_pair_merge_heap(b"abc", r, 258)
    [b'ab', b'c']
    """
    parts = _Parts(piece, ranks, limit)
    while True:
        entry = parts.pop()
        if entry is None:
            break  # no joinable pair is left
        parts.join(entry)
    return parts.split()


def merge_with_dropout(piece: bytes, ranks: dict[bytes, int], dropout: float, rng,
                       max_rank: int | None = None) -> list[bytes]:
    """One BPE-dropout segmentation of ``piece``: the rank loop with pairs dropped at random.

    Each step, every adjacent pair whose joined bytes are a token (below
    ``max_rank``) is dropped with probability ``dropout``, and the surviving pair
    of lowest rank (leftmost on a tie) is joined; the loop stops at the first step
    where every pair is dropped. ``dropout=1`` leaves the bytes; ``dropout=0`` is
    ``byte_pair_merge``.

    Drawn this way: try the pairs from the best down, one ``rng.random()`` draw
    each, and join the first that survives (a draw of ``dropout`` or more). The
    pairs after it in that order would have lost to it whatever they drew, so this has the
    distribution of a draw for every pair (Provilkov et al.'s description), with
    about ``1 / (1 - dropout)`` draws a step instead of one per pair: one
    100,000-byte chunk at ``dropout=0.1`` takes a second, not minutes.

    >>> import random
    >>> r = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257}
    >>> merge_with_dropout(b"abc", r, 0.5, random.Random(1))   # draws 0.13 (ab dropped), 0.85
    [b'a', b'bc']
    """
    if not 0.0 <= dropout <= 1.0:
        raise ValueError(f"dropout must be a probability between 0 and 1, got {dropout!r}")
    parts = _Parts(piece, ranks, float("inf") if max_rank is None else max_rank)
    while True:
        dropped = []  # pairs tried and dropped at this step: back in the heap for the next
        while (entry := parts.pop()) is not None and rng.random() < dropout:
            dropped.append(entry)
        if entry is None:
            break  # every joinable pair was dropped (or none is left): the segmentation ends
        parts.join(entry)
        for e in dropped:
            heapq.heappush(parts.heap, e)
    return parts.split()


def bpe_encode_chunk(chunk: bytes, ranks: dict[bytes, int], dropout: float = 0.0, rng=None) -> list[int]:
    """The ids of one chunk, encoded by rank.

    Like tiktoken, a chunk whose bytes are one token is that token straight away;
    with ``dropout`` > 0 it is not (a whole word is usually one token, and dropout
    must be able to split it): the chunk goes through ``merge_with_dropout``.

    >>> ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258}
    >>> bpe_encode_chunk(b"abcd", ranks)
    [258, 100]
    """
    if dropout:
        return [ranks[p] for p in merge_with_dropout(chunk, ranks, dropout, rng)]
    token = ranks.get(chunk)
    if token is not None:
        return [token]  # tiktoken's shortcut: the whole chunk is one token
    return [ranks[p] for p in byte_pair_merge(chunk, ranks)]


def recover_merges(ranks: dict[bytes, int]) -> list[tuple[tuple[int, int], int]]:
    """The merge list behind a rank table, in rank order.

    For each multi-byte token of rank r, rank-encode its bytes with the tokens
    ranked below r: when that ends in exactly two parts, they are the merge that
    makes the token (the split the encoder itself would produce). Tokens that no
    such split reaches are left out (``unreachable_tokens`` lists them).

    >>> r = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"abc": 257}
    >>> recover_merges(r)
    [((97, 98), 256), ((256, 99), 257)]
    """
    out = []
    for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(token) < 2:
            continue
        if len(token) == 2:
            left, right = token[:1], token[1:]  # nothing to search: two bytes, one split
        else:
            parts = byte_pair_merge(token, ranks, rank)
            if len(parts) != 2:
                continue
            left, right = parts
        if ranks[left] < rank and ranks[right] < rank:
            out.append(((ranks[left], ranks[right]), rank))
    return out


def unreachable_tokens(ranks: dict[bytes, int]) -> list[bytes]:
    """Multi-byte tokens that their own recovered merges cannot build, in rank order.

    A token is unreachable when the rank encoder, given only lower-ranked tokens,
    does not end on two parts (so no merge of two older tokens makes it).

    >>> r = {bytes([i]): i for i in range(256)} | {b"abc": 256, b"bc": 257}
    >>> unreachable_tokens(r)   # "abc" comes before "bc": only a, b, c are older
    [b'abc']
    """
    made = {rank for _, rank in recover_merges(ranks)}
    return [t for t, r in sorted(ranks.items(), key=lambda kv: kv[1]) if len(t) > 1 and r not in made]


def _splits(token: bytes, ranks: dict[bytes, int]) -> list[tuple[int, int]]:
    """Every way to write ``token`` as two tokens, as id pairs, smallest ids first.

    >>> r = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258}
    >>> _splits(b"abc", r)
    [(97, 257), (256, 99)]
    """
    pairs = [(ranks[token[:k]], ranks[token[k:]]) for k in range(1, len(token))
             if token[:k] in ranks and token[k:] in ranks]
    return sorted(pairs)


def replay_merges(ranks: dict[bytes, int], merges=None) -> list[tuple[tuple[int, int], int]]:
    """A merge list on which a BPE that replays merges in list order (Hugging Face's
    ``tokenizers``, GPT-2's files) joins what the rank loop joins, in rank order.

    ``merges``: the ranks' own merge list (``recover_merges``), if already known.
    Each token the recovered merges make keeps its one merge; an unreachable token
    (``unreachable_tokens``) can still be made by the rank loop inside a longer chunk,
    from any two adjacent tokens that spell it once the parts before it are joined,
    so it gets a merge for every such split, all at its rank (as ``transformers``'
    ``TikTokenConverter`` writes every token). Sorted by the id made, then the pair.

    >>> r = {bytes([i]): i for i in range(256)} | {b"abc": 256, b"bc": 257}
    >>> replay_merges(r)   # "abc" only from "a" + "bc", though "bc" comes after it
    [((97, 257), 256), ((98, 99), 257)]
    """
    merges = recover_merges(ranks) if merges is None else merges
    made = {new for _, new in merges}
    out = list(merges)
    for token, rank in ranks.items():
        if len(token) > 1 and rank not in made:
            out.extend((pair, rank) for pair in _splits(token, ranks))
    out.sort(key=lambda m: (m[1], m[0]))
    return out


def stuck_tokens(ranks: dict[bytes, int], merges=None) -> list[bytes]:
    """Tokens whose own bytes, encoded alone by the merge loop, do not end as that one
    token: only tiktoken's whole-chunk rule (Hugging Face's ``ignore_merges``) gives
    them, so a merge-list format without it (GPT-2's files) cannot hold them.

    >>> r = {bytes([i]): i for i in range(256)} | {b"abc": 256}
    >>> stuck_tokens(r)   # no "ab" or "bc": a, b, c never join
    [b'abc']
    """
    merges = recover_merges(ranks) if merges is None else merges
    made = {new for _, new in merges}
    return [t for t, r in sorted(ranks.items(), key=lambda kv: kv[1])
            if len(t) > 1 and r not in made and len(byte_pair_merge(t, ranks)) != 1]


def merge_list_problem(ranks: dict[bytes, int], merges, whole_chunk: bool, implied=None):
    """Why a BPE replaying ``merges`` in list order would give other ids than the rank
    loop on ``ranks``, as ``(index into merges or None, reason)``, or None: they agree.

    ``merges``: ``[((left_id, right_id), new_id), ...]`` in the reader's order, each
    joining two tokens into the token they spell. ``whole_chunk``: the reader has
    tiktoken's rule that a chunk which is one token is that token (Hugging Face's
    ``ignore_merges``). They agree when (1) the ids made never fall along the list
    (the list's order is the rank order), (2) every merge the ranks imply
    (``recover_merges``) is listed, (3) every token no merge of lower ids makes is
    listed with each of its splits into two tokens (``replay_merges``), and (4)
    without the whole-chunk rule, every token's own bytes merge into it
    (``stuck_tokens``). Other splits may be listed: the rank loop would join them too.

    >>> r = {bytes([i]): i for i in range(256)} | {b"qr": 256, b"pq": 257, b"pqr": 258}
    >>> merge_list_problem(r, [((113, 114), 256), ((112, 113), 257), ((257, 114), 258)], True)[1]
    "token 258 (b'pqr') is made by no merge (112, 256) (b'p' + b'qr'), which the ranks join it from"
    """
    vocab = {i: b for b, i in ranks.items()}  # int -> bytes
    last, listed = -1, set()  # the id the previous merge made; the pairs seen
    for k, ((a, b), new) in enumerate(merges):
        if new < last:
            return k, (f"it makes token {new} ({vocab[new]!r}) after a merge made token {last}; a merge-list "
                       f"reader joins in list order, the rank encoder lowest id first")
        if ((a, b), new) in listed:
            return k, f"it repeats the merge {(a, b)} ({vocab[a]!r} + {vocab[b]!r})"
        last = new
        listed.add(((a, b), new))
    implied = recover_merges(ranks) if implied is None else implied
    for pair, new in implied:
        if (pair, new) not in listed:
            return None, (f"token {new} ({vocab[new]!r}) is made by no merge {pair} ({vocab[pair[0]]!r} + "
                          f"{vocab[pair[1]]!r}), which the ranks join it from")
    made = {new for _, new in implied}
    for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(token) < 2 or rank in made:
            continue
        for pair in _splits(token, ranks):
            if (pair, rank) not in listed:
                return None, (f"token {rank} ({token!r}) is made by no merge of lower ids, and the merge {pair} "
                              f"({vocab[pair[0]]!r} + {vocab[pair[1]]!r}) that spells it is not listed, so a "
                              f"merge-list reader never makes it where the rank encoder does (inside a longer "
                              f"chunk)")
        if not whole_chunk and len(byte_pair_merge(token, ranks)) != 1:
            return None, (f"token {rank} ({token!r}) is not made by merging its own bytes, and the reader has no "
                          f"whole-chunk rule (ignore_merges), so text that is that token alone gets other ids")
    return None
