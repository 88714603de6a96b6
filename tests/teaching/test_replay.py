"""The replay of a merge list: each step's count, gain and saving winner, against a recount
from scratch with the textbook functions, and against cases checked by hand."""

import pytest

from bpe_lesson import textbook
from bpe_lesson.teaching import samples
from bpe_lesson.teaching.replay import replay, runs, train_by_saving
from bpe_lesson.chunks import count_chunks, to_byte_counts
from bpe_lesson.patterns import GPT4_PATTERN


def recount(chunk_counts, merges, step):
    """(f, g, tied, saving winner, its saving) of merge ``step`` (1-based), the slow way."""
    ranks = dict(merges[: step - 1])
    words = {}
    for w, c in chunk_counts.items():
        key = tuple(textbook.apply_merges(list(w), ranks))
        words[key] = words.get(key, 0) + c
    counts = textbook.count_pairs(words)
    pair, new_id = merges[step - 1]
    top = max(counts.values())

    def gain(p):
        return sum(c * (len(w) - len(textbook.merge(list(w), p, new_id))) for w, c in words.items())

    # a pair removes at most its count: only pairs whose count can reach the best gain matter
    floor = max(c for p, c in counts.items() if p[0] != p[1])
    gains = {p: gain(p) for p, c in counts.items() if c >= floor}
    best = max(gains.values())
    return counts[pair], gains[pair], sum(c == top for c in counts.values()), \
        min(p for p, g in gains.items() if g == best), best


def test_hand_case_where_count_and_saving_disagree():
    # "aaab" + "ab": (a, a) and (a, b) both have count 2; the rule takes (a, a), which saves 1
    steps, words, vocab = replay({b"aaab": 1, b"ab": 1}, [((97, 97), 256)])
    (s,) = steps
    assert (s.count, s.gain, s.tied, s.saving_pair, s.saving) == (2, 1, 2, (97, 98), 2)
    assert (s.run_count, s.run_gain) == (2, 1)
    assert words == [[256, 97, 98], [97, 98]] and vocab[256] == b"aa"


def test_replay_matches_a_recount_on_real_text():
    docs = list(samples.prose_topics().values())[:6]
    chunk_counts = to_byte_counts(count_chunks(docs, GPT4_PATTERN))
    merges = textbook.train_merges(chunk_counts, 30)
    steps, _, _ = replay(chunk_counts, merges)
    assert len(steps) == 30
    for step in (1, 2, 17, 30):
        s = steps[step - 1]
        assert (s.count, s.gain, s.tied, s.saving_pair, s.saving) == recount(chunk_counts, merges, step)


def test_a_list_that_is_not_the_rules_pick_is_refused():
    with pytest.raises(ValueError, match="merge 1 .* is not the rule's pick"):
        replay({b"abab": 1, b"cd": 1}, [((99, 100), 256)])


def test_runs():
    assert runs([1, 1, 1, 2, 1, 1], 1) == [3, 2]
    assert runs([1, 2, 1], 1) == [] and runs([], 1) == []


def saving_trainer(chunk_counts, n_merges):
    """The saving rule the slow way: every pair's gain by merging every chunk, each step."""
    words = {tuple(w): c for w, c in chunk_counts.items()}
    merges = []
    for new_id in range(256, 256 + n_merges):
        pairs = {p for w in words for p in zip(w, w[1:])}
        if not pairs:
            break
        gain = {p: sum(c * (len(w) - len(textbook.merge(list(w), p, new_id))) for w, c in words.items())
                for p in pairs}
        best = min(pairs, key=lambda p: (-gain[p], p))  # most removed, then the smallest pair
        words = {tuple(textbook.merge(list(w), best, new_id)): c for w, c in words.items()}
        merges.append((best, new_id))
    return merges, sum(len(w) * c for w, c in words.items())


def test_train_by_saving_hand_checked():
    # "aaab" twice, "ab" once: 10 tokens. (a, a) counts 4 but removes 2; (a, b) removes 3
    # (7 tokens). Then a a 256 twice, 256 once: (a, a) and (a, 256) both remove 2, the
    # smaller pair (a, a) wins: 257 256 twice, 256 once, 5 tokens.
    assert train_by_saving({b"aaab": 2, b"ab": 1}, 2) == ([((97, 98), 256), ((97, 97), 257)], 5)
    # the count rule would take (a, a) first (count 4 against 3)
    assert textbook.train_merges({b"aaab": 2, b"ab": 1}, 1)[0][0] == (97, 97)
    # a single token per chunk: nothing left to merge
    assert train_by_saving({b"a": 3}, 5) == ([], 3)


def test_train_by_saving_matches_the_slow_way_on_real_text():
    text = [samples.prose_split()[0][0][:1500], "---- == ### aaab aaab ab"]
    chunk_counts = to_byte_counts(count_chunks(text + ["    x = 1\n        y = 2\n"] * 3, GPT4_PATTERN))
    assert train_by_saving(chunk_counts, 30) == saving_trainer(chunk_counts, 30)
