"""Ranks: a vocabulary as an order on byte strings, and the one loop that encodes by it.

A vocabulary maps token bytes to an id, its *rank*. Encoding a chunk by rank
(tiktoken's rule) starts from single bytes and repeatedly joins the adjacent pair
whose joined bytes have the lowest rank, leftmost on a tie, until no adjacent
pair is a token. ``byte_pair_merge`` is that loop, written once: the encoder
(``bpe_encode_chunk``) uses it, and so does ``recover_merges``, which rebuilds a
merge list from a rank table (a ``.tiktoken`` file holds ranks, not merges).

Also here: ``vocab_from_merges``, the 256 bytes plus the tokens a merge list makes.

What this module does not do: split text into chunks (``patterns.py``), handle
special tokens or cache anything (``tokenizer.py``), or read files (``tiktoken_io.py``).
"""

from __future__ import annotations


def vocab_from_merges(merges=()) -> dict[int, bytes]:
    """The 256 byte tokens, plus the token each merge makes: id -> bytes.

    >>> v = vocab_from_merges([((104, 105), 256)]); len(v), v[256]
    (257, b'hi')
    """
    vocab = {i: bytes([i]) for i in range(256)}  # int -> bytes
    for (a, b), new_id in merges:
        vocab[new_id] = vocab[a] + vocab[b]
    return vocab


def byte_pair_merge(piece: bytes, ranks: dict[bytes, int], max_rank: int | None = None) -> list[bytes]:
    """Rank-encode ``piece`` into parts, joining only pairs ranked below ``max_rank``.

    Join the adjacent pair whose bytes have the lowest rank, leftmost on a tie,
    until no allowed pair is left. Only the two pairs beside a join change, so
    each step looks up two ranks, not all of them.

    >>> r = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258}
    >>> byte_pair_merge(b"abcd", r)          # "ab" (256) beats "bc" (257), then "abc"
    [b'abc', b'd']
    >>> byte_pair_merge(b"abc", r, 258)      # "abc" itself is not allowed
    [b'ab', b'c']
    """
    limit = float("inf") if max_rank is None else max_rank
    get = ranks.get
    n = len(piece)
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


def bpe_encode_chunk(chunk: bytes, ranks: dict[bytes, int]) -> list[int]:
    """The ids of one chunk, encoded by rank.

    Like tiktoken, a chunk whose bytes are one token is that token straight away.

    >>> ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258}
    >>> bpe_encode_chunk(b"abcd", ranks)
    [258, 100]
    """
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
