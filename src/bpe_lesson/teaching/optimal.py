"""Is BPE optimal? The true optimum of the two problems BPE solves greedily.

Two questions, two exact solvers small enough to read:

* **Merges.** Choose ``k`` merges that make a text shortest when applied in
  order (each merge rewrites every occurrence, left to right, as training
  does). ``optimal_merges`` tries every sequence of ``k`` merges of adjacent
  pairs (memoized on the text so far); ``greedy_merges`` is BPE's rule, the
  most frequent pair first; ``saving_greedy_merges`` the rule the approximation
  theorems are proved for, the biggest saving first. Exponential in ``k``: for strings of a few dozen
  bytes and ``k`` up to about 4.
* **Encoding.** For a fixed vocabulary, the fewest tokens a piece of text can
  be cut into. ``shortest_encoding`` finds it by dynamic programming over the
  cut points; ``compare_with_rank`` sets it beside rank encoding (tiktoken's
  rule, ``ranks.bpe_encode_chunk``) chunk by chunk.

Also ``segmentation_probabilities``: the exact distribution of BPE-dropout's
segmentations of one short piece, by recursion over its states.

What this module does not do: train a usable tokenizer (``trainer.py``), or
encode with anything but rank semantics in the package (the shortest encoding
is for measuring; a model trained on rank encodings has never seen it).
"""

from __future__ import annotations

import itertools
from collections import Counter

from ..patterns import split_chunks
from ..ranks import bpe_encode_chunk

__all__ = ["apply_merge", "apply_merges", "greedy_merges", "saving_greedy_merges",
           "optimal_merges", "utility", "greedy_blind_spots", "sweep",
           "distinct_strings", "shortest_encoding", "compare_with_rank",
           "segmentation_probabilities"]

# ---- merges: the training problem ------------------------------------------------


def apply_merge(symbols: tuple, pair: tuple) -> tuple:
    """Join every occurrence of ``pair`` in ``symbols`` (tuples of bytes), left to right.

    >>> apply_merge((b"a", b"a", b"a", b"b"), (b"a", b"a"))   # overlapping: the leftmost wins
    (b'aa', b'a', b'b')
    """
    out, i, n = [], 0, len(symbols)
    while i < n:
        if i + 1 < n and symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def apply_merges(text: bytes, merges) -> tuple:
    """The symbols ``text`` becomes after the merges ``[(left, right), ...]``, in order.

    >>> apply_merges(b"abab", [(b"a", b"b"), (b"ab", b"ab")])
    (b'abab',)
    """
    symbols = tuple(bytes([b]) for b in text)
    for pair in merges:
        symbols = apply_merge(symbols, pair)
    return symbols


def greedy_merges(text: bytes, k: int) -> list[tuple[bytes, bytes]]:
    """BPE's choice of ``k`` merges: the most frequent adjacent pair first.

    The book's trainers' rule (overlapping occurrences count; a tie goes to the
    smallest pair of ids, where a byte is its own id and the n-th merge makes id
    255 + n), with one difference: a pair that occurs once is still merged (it
    shortens the text by one), so the greedy stops only when one symbol is left.

    >>> greedy_merges(b"aaabdaaabac", 3)   # the textbook trainer's three merges
    [(b'a', b'a'), (b'a', b'b'), (b'aa', b'ab')]
    """
    return _greedy(text, k, lambda symbols: Counter(zip(symbols, symbols[1:])))  # (bytes, bytes) -> count


def _greedy(text: bytes, k: int, scores) -> list[tuple[bytes, bytes]]:
    """The loop both greedies share: merge the pair with the best of ``scores(symbols)``
    ({pair: score}), ties to the smallest pair of ids, ``k`` times or until one symbol is left."""
    symbols = apply_merges(text, [])
    ids = {bytes([i]): i for i in range(256)}  # token -> id, for the tie rule
    merges = []
    while len(merges) < k and len(symbols) > 1:
        score = scores(symbols)
        best = max(score.values())
        pair = min((p for p, c in score.items() if c == best), key=lambda p: (ids[p[0]], ids[p[1]]))
        symbols = apply_merge(symbols, pair)
        ids.setdefault(pair[0] + pair[1], 256 + len(merges))
        merges.append(pair)
    return merges


def saving_greedy_merges(text: bytes, k: int) -> list[tuple[bytes, bytes]]:
    """The greedy the approximation theorems are about: the merge that saves the most first.

    A pair's saving is the symbols its merge removes, its occurrences that do not
    overlap ("aaa" holds (a, a) twice but saves one). ``greedy_merges`` counts
    overlapping occurrences instead; the two differ only where a run overlaps.
    Ties go to the smallest pair of ids, as in ``greedy_merges``.

    >>> greedy_merges(b"aaabab", 1), saving_greedy_merges(b"aaabab", 1)   # aa: 2 saves 1; ab: 2 saves 2
    ([(b'a', b'a')], [(b'a', b'b')])
    """
    def saved(symbols):  # (bytes, bytes) -> symbols its merge removes now
        return {p: len(symbols) - len(apply_merge(symbols, p)) for p in set(zip(symbols, symbols[1:]))}
    return _greedy(text, k, saved)


def optimal_merges(text: bytes, k: int) -> tuple[int, list[tuple[bytes, bytes]]]:
    """The fewest symbols any ``k`` merges leave ``text`` in, and one such merge list.

    Brute force: at each step try every distinct adjacent pair (a pair that does
    not occur changes nothing, so no other merge can help), remembering the best
    result for each (symbols, merges left) already seen.

    >>> optimal_merges(b"abcabc", 2)   # "ab" then "abc": two symbols
    (2, [(b'a', b'b'), (b'ab', b'c')])
    """
    memo = {}  # (symbols, merges left) -> (length, merges)

    def best(symbols, left):
        if left == 0 or len(symbols) < 2:
            return len(symbols), []
        key = (symbols, left)
        if key not in memo:
            found = (len(symbols), [])
            for pair in sorted(set(zip(symbols, symbols[1:]))):
                length, rest = best(apply_merge(symbols, pair), left - 1)
                if length < found[0]:
                    found = (length, [pair] + rest)
            memo[key] = found
        return memo[key]

    return best(apply_merges(text, []), k)


def utility(text: bytes, merges) -> int:
    """Symbols saved: ``len(text)`` minus the length after the merges (the quantity
    the approximation results are stated for).

    >>> utility(b"abcabc", [(b"a", b"b"), (b"ab", b"c")])
    4
    """
    return len(text) - len(apply_merges(text, merges))


def greedy_blind_spots(text: bytes, k: int) -> tuple[int, int]:
    """Two ways the greedy's count misleads it, over its first ``k`` steps: ``(ties, overcounts)``.

    ``ties``: steps where two or more pairs had the best count (the tie rule, not
    the text, chose). ``overcounts``: steps where the chosen pair's count was more
    than the symbols its merge saved (a run such as "aaa" holds (a, a) twice, but
    one merge fits).

    >>> greedy_blind_spots(b"abcabdbca", 2)   # ab, bc, ca twice each; then every pair once
    (2, 0)
    >>> greedy_blind_spots(b"aaab", 1)         # (a, a) counts 2, saves 1
    (0, 1)
    """
    symbols, ties, overcounts = apply_merges(text, []), 0, 0
    for pair in greedy_merges(text, k):
        counts = Counter(zip(symbols, symbols[1:]))
        ties += sum(c == counts[pair] for c in counts.values()) > 1
        merged = apply_merge(symbols, pair)
        overcounts += counts[pair] > len(symbols) - len(merged)
        symbols = merged
    return ties, overcounts


def sweep(alphabet: bytes, lengths, k: int) -> list[dict]:
    """Greedy against the optimum on every string over ``alphabet`` with a length in ``lengths``.

    One record per string where the greedy's ``k`` merges leave it longer than the
    optimum: the ``text``, both merge lists, both lengths, both utilities and
    ``blind_spots`` (``greedy_blind_spots``). Strings that differ only by renaming
    letters are tried once (``distinct_strings``).

    >>> [r["text"] for r in sweep(b"abc", range(2, 10), 2)][:2]
    [b'aaabaab', b'aabaaab']
    """
    out = []
    for text in distinct_strings(alphabet, lengths):
        best, merges = optimal_merges(text, k)
        greedy = greedy_merges(text, k)
        if len(apply_merges(text, greedy)) > best:
            out.append({"text": text, "greedy": greedy, "optimal": merges, "k": k,
                        "greedy_len": len(apply_merges(text, greedy)), "optimal_len": best,
                        "greedy_utility": utility(text, greedy), "optimal_utility": utility(text, merges),
                        "blind_spots": greedy_blind_spots(text, k)})
    return out


def distinct_strings(alphabet: bytes, lengths):
    """Every string over ``alphabet`` with a length in ``lengths``, one per renaming of letters:
    its letters appear in ``alphabet``'s order of first use.

    >>> [s.decode() for s in distinct_strings(b"ab", [3])]
    ['aaa', 'aab', 'aba', 'abb']
    """
    for n in lengths:
        for letters in itertools.product(alphabet, repeat=n):
            names = {}  # letter -> its name in first-use order
            for c in letters:
                if c not in names:
                    names[c] = alphabet[len(names)]
            if all(names[c] == c for c in letters):
                yield bytes(letters)


# ---- encoding: the shortest tokenization a vocabulary allows ---------------------


def shortest_encoding(piece: bytes, ranks: dict[bytes, int], max_len: int | None = None) -> list[bytes]:
    """The fewest tokens of ``ranks`` that spell ``piece``, by dynamic programming.

    ``fewest[i]`` is the fewest tokens for ``piece[:i]``: the best over every
    token that ends at ``i``. Ties go to the longest last token. Every single byte
    must be a token (so a solution exists). ``max_len``: the longest token's
    length (computed when not given; pass it when calling many times).

    >>> r = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258, b"cd": 259}
    >>> shortest_encoding(b"abcd", r)   # rank encoding gives abc + d; ab + cd is as short
    [b'ab', b'cd']
    """
    if max_len is None:
        max_len = max(map(len, ranks))
    n = len(piece)
    fewest = [0] + [n + 1] * n  # fewest[i]: tokens for piece[:i]
    cut = [0] * (n + 1)  # cut[i]: where the last token of that best encoding starts
    for i in range(1, n + 1):
        for j in range(max(0, i - max_len), i):  # j ascending: the longest token first
            if fewest[j] + 1 < fewest[i] and piece[j:i] in ranks:
                fewest[i], cut[i] = fewest[j] + 1, j
    if fewest[n] > n:
        raise ValueError(f"{piece!r} cannot be spelled with this vocabulary (a single byte is missing)")
    parts, i = [], n
    while i > 0:
        parts.append(piece[cut[i] : i])
        i = cut[i]
    return parts[::-1]


def compare_with_rank(texts, ranks: dict[bytes, int], pattern: str | None, examples: int = 5) -> dict:
    """Rank encoding against the shortest encoding, chunk by chunk, over ``texts``.

    Each text is split by ``pattern`` (as the tokenizer does); every chunk is
    rank-encoded (``ranks.bpe_encode_chunk``) and shortest-encoded. Returns the
    totals (``chunks``, ``rank_tokens``, ``shortest_tokens``), ``longer``: how many
    chunks rank encoding cuts into more tokens, ``excess``: a Counter of
    tokens-over-the-optimum -> chunks, and ``examples``: the first few chunks
    where rank encoding is longer, as ``(chunk, rank parts, shortest parts)``.

    >>> r = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258, b"cd": 259}
    >>> d = compare_with_rank(["abcde"], r, None)
    >>> d["rank_tokens"], d["shortest_tokens"], d["longer"], d["excess"]
    (3, 3, 0, Counter())
    """
    max_len = max(map(len, ranks))
    out = {"chunks": 0, "rank_tokens": 0, "shortest_tokens": 0, "longer": 0, "excess": Counter(), "examples": []}
    seen = {}  # chunk -> (rank ids, shortest parts): real text repeats its chunks
    for text in texts:
        for chunk in split_chunks(text, pattern):
            if chunk not in seen:
                b = chunk.encode("utf-8")
                seen[chunk] = (bpe_encode_chunk(b, ranks), shortest_encoding(b, ranks, max_len))
            ids, best = seen[chunk]
            out["chunks"] += 1
            out["rank_tokens"] += len(ids)
            out["shortest_tokens"] += len(best)
            if len(ids) > len(best):
                out["longer"] += 1
                out["excess"][len(ids) - len(best)] += 1
                if len(out["examples"]) < examples and all(e[0] != chunk for e in out["examples"]):
                    inverse = {i: t for t, i in ranks.items() if i in set(ids)}
                    out["examples"].append((chunk, [inverse[i] for i in ids], best))
    return out


# ---- BPE-dropout: the exact distribution of one piece's segmentations ------------


def segmentation_probabilities(piece: bytes, ranks: dict[bytes, int], p: float) -> dict[tuple, float]:
    """Every segmentation BPE-dropout can give ``piece``, with its exact probability.

    One step of dropout: each adjacent pair that is a token survives with
    probability ``1 - p``; the surviving pair of lowest rank (leftmost on a tie)
    is joined; when none survives, the segmentation ends. So with the candidates
    sorted by (rank, position), the i-th (from 0) is joined with probability
    ``(1 - p) * p**i``, and the piece stops with probability ``p**len(candidates)``.
    Memoized on the segmentation so far; up to 2**(len(piece) - 1) of them: for words.

    >>> r = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257}
    >>> sorted(segmentation_probabilities(b"abc", r, 0.5).items())
    [((b'a', b'b', b'c'), 0.25), ((b'a', b'bc'), 0.25), ((b'ab', b'c'), 0.5)]
    """
    memo = {}  # parts -> {final parts: probability of ending there from these parts}

    def finals(parts):
        if parts not in memo:
            candidates = sorted((ranks[parts[k] + parts[k + 1]], k) for k in range(len(parts) - 1)
                                if parts[k] + parts[k + 1] in ranks)
            out = Counter({parts: p ** len(candidates)})  # every candidate dropped: stop here
            for i, (_, k) in enumerate(candidates):
                joined = parts[:k] + (parts[k] + parts[k + 1],) + parts[k + 2 :]
                for end, q in finals(joined).items():
                    out[end] += (1 - p) * p**i * q  # the i-th best survives, all better ones dropped
            memo[parts] = out
        return memo[parts]

    return {parts: q for parts, q in finals(tuple(bytes([b]) for b in piece)).items() if q > 0}
