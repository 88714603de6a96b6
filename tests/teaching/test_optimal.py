"""The exact solvers of ``teaching.optimal`` against hand counts and independent references.

References: enumeration of every segmentation (for the DP), tiktoken's ids (for the
rank side of the comparison), the textbook trainer (for the greedy merges), and
strings whose optimum a hand count gives.
"""

import itertools

import pytest

from bpe_lesson import textbook
from bpe_lesson.ranks import bpe_encode_chunk
from bpe_lesson.teaching import optimal, samples


def all_segmentations(piece, ranks):
    """Every way to cut ``piece`` into tokens (brute force over the cut points)."""
    n = len(piece)
    for cuts in itertools.product((0, 1), repeat=n - 1):
        bounds = [0] + [i + 1 for i, c in enumerate(cuts) if c] + [n]
        parts = [piece[a:b] for a, b in zip(bounds, bounds[1:])]
        if all(p in ranks for p in parts):
            yield parts


def test_shortest_encoding_hand_checked():
    # "abcde" with ab, bc, abc, cd, de: two tokens only as abc + de (ab + cd + e is three)
    r = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258, b"cd": 259, b"de": 260}
    assert optimal.shortest_encoding(b"abcde", r) == [b"abc", b"de"]
    # "xyz" with yz only: x + yz
    r = {bytes([i]): i for i in range(256)} | {b"yz": 256}
    assert optimal.shortest_encoding(b"xyz", r) == [b"x", b"yz"]
    assert optimal.shortest_encoding(b"", r) == []


def test_shortest_encoding_beats_rank_on_a_known_case():
    # ranks order "bc" before "ab" and "cd": rank encoding takes a + bc + d (3), the optimum ab + cd (2)
    r = {bytes([i]): i for i in range(256)} | {b"bc": 256, b"ab": 257, b"cd": 258}
    assert bpe_encode_chunk(b"abcd", r) == [97, 256, 100]
    assert optimal.shortest_encoding(b"abcd", r) == [b"ab", b"cd"]


def test_shortest_encoding_is_the_minimum_over_all_segmentations(cl100k_tokenizer):
    ranks = {b: i for i, b in cl100k_tokenizer.vocab.items()}
    for word in [" unbelievable", " tokenization", "Straßenbahn", " antidisestablish", "12345678"]:
        piece = word.encode("utf-8")
        best = min(len(s) for s in all_segmentations(piece, ranks))
        got = optimal.shortest_encoding(piece, ranks)
        assert len(got) == best and b"".join(got) == piece


def test_shortest_is_never_longer_than_rank_encoding_on_real_text(cl100k_tokenizer, tiktoken_cl100k):
    ranks = {b: i for i, b in cl100k_tokenizer.vocab.items()}
    _, held = samples.prose_split()
    texts = held[:40]
    d = optimal.compare_with_rank(texts, ranks, cl100k_tokenizer.pattern)
    assert d["rank_tokens"] == sum(len(tiktoken_cl100k.encode(t)) for t in texts)  # the rank side is tiktoken's
    assert d["shortest_tokens"] <= d["rank_tokens"]
    assert d["rank_tokens"] - d["shortest_tokens"] == sum(k * v for k, v in d["excess"].items())
    assert d["longer"] == sum(d["excess"].values())
    for chunk, rank_parts, best in d["examples"]:
        assert b"".join(rank_parts) == b"".join(best) == chunk.encode("utf-8")
        assert len(best) < len(rank_parts)


def test_shortest_encoding_needs_every_byte():
    with pytest.raises(ValueError, match="cannot be spelled"):
        optimal.shortest_encoding(b"ab", {b"a": 0})


def test_greedy_merges_are_the_textbook_trainers():
    for text in [b"aaabdaaabac", b"the cat sat on the mat with the hat", b"abababcabc"]:
        k = len(textbook.train_merges({text: 1}, 4))
        vocab = textbook.vocab_from_merges(textbook.train_merges({text: 1}, k))
        expected = [(vocab[a], vocab[b]) for (a, b), _ in textbook.train_merges({text: 1}, k)]
        assert optimal.greedy_merges(text, k) == expected


def test_optimal_merges_hand_checked():
    # "abcabc", one merge: any of ab, bc saves 2 (4 symbols), ca saves 1
    assert optimal.optimal_merges(b"abcabc", 1)[0] == 4
    # "aaaa": aa then aa+aa makes one symbol with 2 merges
    assert optimal.optimal_merges(b"aaaa", 2) == (1, [(b"a", b"a"), (b"aa", b"aa")])
    # zero merges: the text itself
    assert optimal.optimal_merges(b"xyz", 0) == (3, [])


def test_optimum_beats_greedy_where_a_hand_count_says():
    # "abcabdbca": ab, bc and ca occur twice each; the tie rule takes ab, after which every
    # pair occurs once (9 - 2 - 1 = 6 symbols). bc, then bc + a (twice) leaves a bca b d bca: 5.
    text = b"abcabdbca"
    assert len(optimal.apply_merges(text, optimal.greedy_merges(text, 2))) == 6
    assert optimal.optimal_merges(text, 2) == (5, [(b"b", b"c"), (b"bc", b"a")])
    # "aaabaab": aa counts 3 (overlapping) but saves 2, as ab does; greedy takes aa and then
    # saves 1 (4 symbols); ab, then a + ab (twice): a aab aab, 3 symbols
    text = b"aaabaab"
    assert optimal.greedy_merges(text, 2)[0] == (b"a", b"a")
    assert len(optimal.apply_merges(text, optimal.greedy_merges(text, 2))) == 4
    assert optimal.optimal_merges(text, 2)[0] == 3


def test_saving_greedy_hand_checked():
    # "aaabab": aa occurs twice (overlapping) but one merge fits, saving 1; ab occurs twice
    # and saves 2. The count rule ties aa with ab and takes aa; the saving rule takes ab.
    assert optimal.greedy_merges(b"aaabab", 1) == [(b"a", b"a")]
    assert optimal.saving_greedy_merges(b"aaabab", 1) == [(b"a", b"b")]
    assert optimal.utility(b"aaabab", optimal.saving_greedy_merges(b"aaabab", 1)) == 2
    # without a run the two rules agree: "abcabdbca" (tie among ab, bc, ca, all saving 2)
    assert optimal.saving_greedy_merges(b"abcabdbca", 2) == optimal.greedy_merges(b"abcabdbca", 2)


def test_the_count_rule_keeps_half_on_a_ten_byte_string():
    # "aaabcbbbcb", k=2. Count rule: aa counts 2 (saves 1), bb counts 2 (saves 1): 2 saved.
    # Optimum: bc (twice) then bc + b (twice): a a a bcb b bcb, 4 saved. Ratio 1/2 < 0.625.
    text = b"aaabcbbbcb"
    assert optimal.greedy_merges(text, 2) == [(b"a", b"a"), (b"b", b"b")]
    assert optimal.utility(text, optimal.greedy_merges(text, 2)) == 2
    assert optimal.optimal_merges(text, 2) == (6, [(b"b", b"c"), (b"bc", b"b")])


def test_optimal_is_never_worse_than_either_greedy_and_the_saving_rule_keeps_a_third():
    # the one-third bound (Kozma and Voderholzer) is proved for the saving rule only
    for n in range(4, 9):
        for letters in itertools.product(b"ab", repeat=n):
            text = bytes(letters)
            for k in (1, 2):
                best, merges = optimal.optimal_merges(text, k)
                greedy = optimal.greedy_merges(text, k)
                saving = optimal.saving_greedy_merges(text, k)
                assert best <= len(optimal.apply_merges(text, greedy))
                assert best <= len(optimal.apply_merges(text, saving))
                assert 3 * optimal.utility(text, saving) >= optimal.utility(text, merges)


def test_segmentation_probabilities_sum_to_one_and_match_hand_count():
    r = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258}
    probs = optimal.segmentation_probabilities(b"abc", r, 0.2)
    # ab (0.8) then abc (0.8) -> abc 0.64; ab then stop 0.16; bc (0.2*0.8) then abc 0.128; bc stop .032
    assert probs[(b"abc",)] == pytest.approx(0.64 + 0.128)
    assert probs[(b"ab", b"c")] == pytest.approx(0.16)
    assert probs[(b"a", b"bc")] == pytest.approx(0.032)
    assert probs[(b"a", b"b", b"c")] == pytest.approx(0.04)
    assert sum(probs.values()) == pytest.approx(1.0)
