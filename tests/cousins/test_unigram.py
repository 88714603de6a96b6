"""The readable Unigram module: Viterbi is optimal (against brute force), pruning
removes what costs least, and training reaches its size with every word spellable.
"""

import itertools
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_lesson.cousins import unigram
from bpe_lesson.cousins.unigram import corpus_nll, prune, removal_loss, train_unigram, viterbi
from bpe_lesson.cousins.wordpiece import count_words


def all_segmentations(word):
    """Every way to cut ``word``: 2 ** (len - 1) of them."""
    for cuts in itertools.product([False, True], repeat=len(word) - 1):
        pieces, start = [], 0
        for i, cut in enumerate(cuts, start=1):
            if cut:
                pieces.append(word[start:i])
                start = i
        yield pieces + [word[start:]]


LOGP = {"a": -3.0, "b": -2.5, "c": -4.0, "ab": -3.5, "bc": -4.2, "abc": -8.0, "ca": -2.0, "bca": -5.5}


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abc", min_size=1, max_size=9))
def test_viterbi_is_the_best_segmentation(word):
    pieces, lp = viterbi(word, LOGP)
    best = max(sum(LOGP.get(p, -math.inf) for p in seg) for seg in all_segmentations(word))
    assert "".join(pieces) == word
    assert math.isclose(lp, best) and math.isclose(lp, sum(LOGP[p] for p in pieces))


def test_unspellable_word():
    assert viterbi("abd", LOGP) == ([], -math.inf)


def test_pruning_costs_what_removal_loss_says():
    wc = count_words("the cat sat on the mat with the hat that the rat ate " * 3)
    logp = train_unigram(wc, 30)
    assert len(logp) == 30
    before = corpus_nll(wc, logp)
    loss = removal_loss(wc, logp)
    cheapest = sorted(loss, key=lambda p: (-loss[p], p))[-1]  # least loss; ties: the last name goes first
    without = {p: v for p, v in logp.items() if p != cheapest}
    assert math.isclose(corpus_nll(wc, without) - before, loss[cheapest], abs_tol=1e-9)
    kept = prune(wc, logp, len(logp) - 1)
    assert cheapest not in kept and len(kept) == len(logp) - 1
    # every word is still spellable: single characters are never pruned
    assert all(viterbi(w, kept)[0] for w in wc)


def test_training_on_real_text(prose_docs):
    wc = count_words("\n".join(prose_docs[:30])[:30_000])
    logp = train_unigram(wc, 300)
    assert len(logp) == 300
    assert all(math.isfinite(viterbi(w, logp)[1]) for w in wc)
    assert math.isclose(sum(math.exp(v) for v in logp.values()), 1.0, rel_tol=0.05)
