"""The textbook BPE trainer: recount every pair, merge the best one, repeat.

This is the version the book walks through. Each round it counts every adjacent
pair in every chunk (weighted by how often the chunk occurs), picks the winner by
the package's one rule, and rewrites every chunk. That costs a full pass over the
corpus per merge, so it is for small corpora and for reading; ``incremental.py``
gives the same merges, fast.

The rule (shared with ``incremental.py`` and ``_compiled/_incremental.pxi``):
  * merge the pair with the highest count (overlapping occurrences count: "aaa" has
    two (a, a) pairs);
  * ties go to the smallest (left id, right id);
  * a pair whose concatenated bytes already are a token is skipped and uses no id
    (every id's bytes stay distinct, as a .tiktoken file requires). Training from
    bytes never meets such a pair (the book's chapter "Overlaps, ties and order"
    proves it); it arises when training continues from merges written by hand,
    such as the YAML trainer's hardcoded merges;
  * new ids are 256, 257, ... in merge order; stop at the budget or when the best
    count is below 2.

What this module does not do: pre-tokenize or read text (see ``chunks.py``), or
encode with rank semantics (see ``ranks.py``).
"""

from __future__ import annotations

from collections import Counter

from .ranks import vocab_from_merges

__all__ = ["count_pairs", "merge", "apply_merges", "train_merges", "format_merge"]


def count_pairs(words: dict[tuple[int, ...], int]) -> Counter:
    """Count adjacent pairs over all words, each weighted by its count.

    >>> count_pairs({(97, 97, 97): 1, (97, 98): 2})   # "aaa" holds (a, a) twice
    Counter({(97, 97): 2, (97, 98): 2})
    """
    pairs = Counter()  # (int, int) -> int
    for word, count in words.items():
        for pair in zip(word, word[1:]):
            pairs[pair] += count
    return pairs


def merge(ids, pair, new_id) -> list[int]:
    """Replace every occurrence of ``pair`` in ``ids`` by ``new_id``, left to right.

    >>> merge([1, 2, 3, 1, 2], (1, 2), 4)
    [4, 3, 4]
    >>> merge([97, 97, 97], (97, 97), 256)   # overlapping: the leftmost wins
    [256, 97]
    """
    out = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def apply_merges(ids: list[int], merges: dict[tuple[int, int], int]) -> list[int]:
    """Apply a merge list the way training did: earliest merge first.

    ``merges`` maps pair -> new id; the smallest new id present is applied next,
    which gives exactly the sequence that training produced for this chunk.

    >>> apply_merges([97, 98, 99], {(97, 98): 256, (256, 99): 257})
    [257]
    """
    while len(ids) >= 2:
        best = min(zip(ids, ids[1:]), key=lambda p: merges.get(p, float("inf")))
        if best not in merges:
            break
        ids = merge(ids, best, merges[best])
    return ids


def train_merges(chunk_counts, n_merges, base_merges=(), verbose=False, progress=None, *,
                 tie_break="smallest-ids", min_frequency=2, max_token_length=None):
    """Learn up to ``n_merges`` merges from ``chunk_counts`` (bytes -> count).

    Returns the new merges as ``[((left, right), new_id), ...]``; their ids follow
    those of ``base_merges`` (the merges we continue from, e.g. an earlier phase).
    ``tie_break="greatest-bytes"``: a tie goes to the greatest (left bytes, right bytes)
    (CS336's rule); ``min_frequency``: stop when the best count is below it (never
    below 2); ``max_token_length``: pairs that would make a longer token are skipped.

    >>> train_merges({b"aaabdaaabac": 1}, 3)
    [((97, 97), 256), ((97, 98), 257), ((256, 257), 258)]
    """
    vocab = vocab_from_merges(base_merges)  # int -> bytes
    known = set(vocab.values())  # every token's bytes, to skip pairs that already are a token
    ranks = {pair: new_id for pair, new_id in base_merges}
    # each unique chunk as a tuple of ids (after the merges we continue from) -> count
    words = {tuple(apply_merges(list(chunk), ranks)): count for chunk, count in chunk_counts.items()}
    next_id = 256 + len(base_merges)
    merges = []
    while len(merges) < n_merges:
        pairs = count_pairs(words)
        # drop the pairs whose bytes are already a token (subtle: see the module docstring)
        candidates = {p: c for p, c in pairs.items() if vocab[p[0]] + vocab[p[1]] not in known}
        if max_token_length is not None:  # and those that would make too long a token
            candidates = {p: c for p, c in candidates.items()
                          if len(vocab[p[0]]) + len(vocab[p[1]]) <= max_token_length}
        if not candidates:
            break
        best_count = max(candidates.values())
        if best_count < max(2, min_frequency):
            break
        # the tie rule: among the pairs with the best count, the smallest (left, right)
        tied = [p for p, c in candidates.items() if c == best_count]
        if tie_break == "smallest-ids":
            best = min(tied)
        else:  # "greatest-bytes": the greatest (left bytes, right bytes)
            best = max(tied, key=lambda p: (vocab[p[0]], vocab[p[1]]))
        words = {tuple(merge(list(w), best, next_id)): c for w, c in words.items()}
        vocab[next_id] = vocab[best[0]] + vocab[best[1]]
        known.add(vocab[next_id])
        merges.append((best, next_id))
        if verbose:
            print(format_merge(len(merges), best, next_id, vocab, best_count))
        if progress is not None:
            progress(1)
        next_id += 1
    return merges


def format_merge(i, pair, new_id, vocab, count) -> str:
    """One line a reader can follow.

    >>> format_merge(300, (256, 257), 556, {256: b' t', 257: b'he', 556: b' the'}, 9812)
    "merge 300: (b' t', b'he') -> b' the' count 9812"
    """
    return f"merge {i}: ({vocab[pair[0]]!r}, {vocab[pair[1]]!r}) -> {vocab[new_id]!r} count {count}"
