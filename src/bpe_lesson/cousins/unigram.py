"""Unigram language-model tokenization (Kudo 2018), small enough to read.

A Unigram tokenizer is a set of pieces, each with a probability ``p(x)``. A word's
segmentation is the sequence of pieces with the highest product of probabilities
(the highest sum of log-probabilities); ``viterbi`` finds it by dynamic
programming over end positions, in time linear in the word length times the
longest piece.

Training goes the other way round from BPE: start *large* (every frequent
substring), fit the probabilities, then repeatedly *prune* the pieces whose
removal raises the corpus negative log-likelihood least, until the target size is
reached. Single characters are never pruned, so every word stays spellable.

What this module leaves out (SentencePiece has them): the real EM, which sums over
all segmentations with the forward-backward algorithm (here: hard EM, counting
the best segmentation only); subword regularization (sampling segmentations);
the suffix-array seed; whitespace as a ``▁`` piece; bytes for unseen characters;
and speed (pure Python, for corpora of a few hundred kB).
"""

from __future__ import annotations

import math
from collections import Counter

__all__ = ["viterbi", "corpus_nll", "seed_pieces", "fit", "removal_loss", "prune",
           "train_unigram"]


def viterbi(word: str, logp: dict[str, float], longest: int | None = None) -> tuple[list[str], float]:
    """The most probable segmentation of ``word`` and its log-probability.

    ``best[i]`` is the best log-probability of ``word[:i]``; the last piece of that
    best segmentation starts at ``back[i]``. A word with no segmentation gives
    ``([], -inf)``. ``longest`` (the longest piece's length) saves a pass over
    ``logp`` when the caller segments many words with one vocabulary.

    >>> logp = {"a": -2.0, "b": -2.0, "ab": -3.0, "abb": -6.0}
    >>> viterbi("abb", logp)        # ab + b = -5 beats abb (-6) and a + b + b (-6)
    (['ab', 'b'], -5.0)
    """
    if longest is None:
        longest = max(map(len, logp), default=0)
    best = [0.0] + [-math.inf] * len(word)  # best[i]: log-prob of the best segmentation of word[:i]
    back = [0] * (len(word) + 1)  # back[i]: where its last piece starts
    for end in range(1, len(word) + 1):
        for start in range(max(0, end - longest), end):
            lp = logp.get(word[start:end])
            if lp is not None and best[start] + lp > best[end]:
                best[end], back[end] = best[start] + lp, start
    if best[-1] == -math.inf:
        return [], -math.inf
    pieces, end = [], len(word)
    while end > 0:  # walk back from the end of the word
        pieces.append(word[back[end]:end])
        end = back[end]
    return pieces[::-1], best[-1]


def corpus_nll(word_counts, logp) -> float:
    """Negative log-likelihood of the corpus: minus the sum over words of count * best log-probability.

    >>> corpus_nll({"ab": 2}, {"a": -1.0, "b": -1.0, "ab": -1.5})
    3.0
    """
    longest = max(map(len, logp), default=0)
    return -sum(n * viterbi(w, logp, longest)[1] for w, n in word_counts.items())


def seed_pieces(word_counts, size: int, max_len: int = 8) -> Counter:
    """The starting vocabulary: every character, plus the ``size`` most frequent longer substrings.

    Ties are broken by the substring itself, so the seed is reproducible.

    >>> sorted(seed_pieces({"abab": 1}, size=1))
    ['a', 'ab', 'b']
    """
    chars, longer = Counter(), Counter()  # str -> count
    for w, n in word_counts.items():
        for i in range(len(w)):
            chars[w[i]] += n
            for j in range(i + 2, min(len(w), i + max_len) + 1):
                longer[w[i:j]] += n
    top = sorted(longer.items(), key=lambda kv: (-kv[1], kv[0]))[:size]
    return chars + Counter(dict(top))


def fit(word_counts, pieces, iterations: int = 3) -> dict[str, float]:
    """Log-probabilities for ``pieces`` by hard EM: segment every word, count the pieces used, normalize.

    Pieces never used keep a small count (0.1) so they are not lost before pruning
    decides about them.

    >>> logp = fit({"ab": 3, "a": 1}, ["a", "b", "ab"])
    >>> viterbi("ab", logp)[0]
    ['ab']
    """
    counts = {p: 1.0 for p in pieces}  # start uniform
    for _ in range(iterations):
        total = sum(counts.values())
        logp = {p: math.log(c / total) for p, c in counts.items()}
        longest = max(map(len, logp), default=0)
        counts = {p: 0.1 for p in pieces}
        for w, n in word_counts.items():
            for p in viterbi(w, logp, longest)[0]:
                counts[p] += n
    total = sum(counts.values())
    return {p: math.log(c / total) for p, c in counts.items()}


def removal_loss(word_counts, logp) -> dict[str, float]:
    """For each piece longer than one character: how much the corpus NLL rises without it.

    Only the words whose best segmentation uses the piece can change; they are
    segmented again without it (the other probabilities are kept, as SentencePiece
    does when it ranks pieces for pruning).

    >>> loss = removal_loss({"ab": 5, "abc": 1}, {"a": -2.0, "b": -2.0, "c": -2.0, "ab": -1.0, "bc": -3.0})
    >>> loss["ab"], loss["bc"]       # without "ab": 5 * (4 - 1) + 1 * (5 - 3); nobody uses "bc"
    (17.0, 0.0)
    """
    longest = max(map(len, logp), default=0)
    users = {}  # piece -> list of (word, count, best log-prob)
    for w, n in word_counts.items():
        pieces, lp = viterbi(w, logp, longest)
        for p in set(pieces):
            users.setdefault(p, []).append((w, n, lp))
    loss = {}
    without = dict(logp)  # the vocabulary with one piece taken out at a time
    for piece in logp:
        if len(piece) < 2:
            continue  # characters stay
        del without[piece]
        loss[piece] = sum((n * (lp - viterbi(w, without, longest)[1]) for w, n, lp in users.get(piece, ())), 0.0)
        without[piece] = logp[piece]  # put it back
    return loss


def prune(word_counts, logp, keep: int) -> dict[str, float]:
    """Keep the ``keep`` pieces that matter most (all characters, then the pieces with the largest removal loss).

    >>> sorted(prune({"ab": 5, "abc": 1}, {"a": -2.0, "b": -2.0, "c": -2.0, "ab": -1.0, "bc": -3.0}, 4))
    ['a', 'ab', 'b', 'c']
    """
    chars = [p for p in logp if len(p) == 1]
    loss = removal_loss(word_counts, logp)
    ranked = sorted(loss, key=lambda p: (-loss[p], p))
    kept = chars + ranked[: max(0, keep - len(chars))]
    return {p: logp[p] for p in kept}


def train_unigram(word_counts, vocab_size: int, seed_size: int | None = None, shrink: float = 0.75,
                  max_len: int = 8, verbose: bool = False) -> dict[str, float]:
    """Seed large, then fit and prune (keeping ``shrink`` of the pieces each round) down to ``vocab_size``.

    Returns piece -> log-probability. With ``verbose`` each round prints its size and corpus NLL.

    >>> logp = train_unigram({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 20)
    >>> len(logp), viterbi("lowest", logp)[0]     # 10 characters and 10 longer pieces
    (20, ['low', 'est'])
    """
    seed_size = 10 * vocab_size if seed_size is None else seed_size
    pieces = seed_pieces(word_counts, seed_size, max_len)
    logp = fit(word_counts, pieces)
    while len(logp) > vocab_size:
        keep = max(vocab_size, int(len(logp) * shrink))
        logp = fit(word_counts, prune(word_counts, logp, keep))
        if verbose:
            print(f"{len(logp)} pieces, corpus NLL {corpus_nll(word_counts, logp):.1f} nats")
    return logp
