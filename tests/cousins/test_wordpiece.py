"""WordPiece: the score and the ## pieces by hand, greedy longest-match encoding,
the round trip up to the ## convention, and Hugging Face's WordPieceTrainer.

WordPiece has one (pure-Python) implementation, so these tests take no ``backend``.
"""


import pytest

from bpe_lesson.cousins import wordpiece
from bpe_lesson.cousins.wordpiece import (PREFIX, UNK, WordPiece, count_words, initial_vocab, pair_score, split_words,
                                  train_wordpiece)

# the corpus of the Hugging Face course's WordPiece section, small enough to check by hand
HAND = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}


def test_initial_vocab_by_hand():
    # [UNK], the 7 characters, then the 4 characters that occur inside a word
    assert initial_vocab(HAND) == [UNK, "b", "g", "h", "n", "p", "s", "u", "##g", "##n", "##s", "##u"]


def test_first_merge_likelihood_vs_count():
    # by hand: (##g, ##s) occurs 5 times, ##g 20 times, ##s 5 times: 5 / (20 * 5) = 1/20;
    # every pair with ##u (36 occurrences) scores 1/36, e.g. (##u, ##g): 20 / (36 * 20)
    assert pair_score(5, 20, 5) == 1 / 20
    assert pair_score(20, 36, 20) == 1 / 36
    wp = train_wordpiece(HAND, 13, score="likelihood")
    assert wp.vocab[12] == "##gs" and wp.merges == [("##g", "##s", 5)]
    # BPE's choice on the same pieces: the most frequent pair, (##u, ##g) with 20
    bpe_like = train_wordpiece(HAND, 13, score="count")
    assert bpe_like.vocab[12] == "##ug" and bpe_like.merges == [("##u", "##g", 20)]


def test_merges_by_hand_with_tie_rule():
    wp = train_wordpiece(HAND, 14)
    # after ##gs, five pairs tie at 1/36; the smallest (left id, right id) is (b=1, ##u=11)
    assert wp.vocab[12:] == ["##gs", "bu"]
    assert wp.tokenize("hugs bug") == ["h", "##u", "##gs", "bu", "##g"]


def test_greedy_longest_match_and_unknown():
    wp = WordPiece([UNK, "un", "##aff", "##able", "a", "##ff", "##a"])
    assert wp.tokenize("unaffable") == ["un", "##aff", "##able"]
    # longest first: "a" then "##ff" ("##f" is not a piece), then "##able"
    assert wp.tokenize("affable") == ["a", "##ff", "##able"]
    # "un ##aff" and then no piece starts "##bble": the WHOLE word becomes unknown, not just its tail
    assert wp.tokenize("unaffbble able") == [UNK, UNK]
    # with no unknown piece, a word that cannot be cut raises, naming the word
    with pytest.raises(ValueError, match="cannot be cut"):
        WordPiece(["un", "##x"], unk=None).tokenize("unaffx")


def test_round_trip_up_to_the_prefix_convention(prose_docs):
    text = "\n".join(prose_docs[:40])
    wp = train_wordpiece(count_words(text), 600)
    ids = wp.encode(text)
    assert wp.ids[UNK] not in ids  # every character of the training text is in the alphabet
    assert wp.decode(ids) == " ".join(split_words(text))
    # and the pieces of each word spell the word
    for word in split_words(text)[:2000]:
        pieces = wp.tokenize_word(word)
        assert pieces[0][:2] != PREFIX and all(p.startswith(PREFIX) for p in pieces[1:])
        assert pieces[0] + "".join(p[2:] for p in pieces[1:]) == word


def test_errors_teach():
    with pytest.raises(ValueError, match="score='bpe'"):
        train_wordpiece(HAND, 20, score="bpe")
    with pytest.raises(ValueError, match="use at least 12"):
        train_wordpiece(HAND, 10)
    with pytest.raises(ValueError, match="id 99 is not in this vocabulary"):
        WordPiece([UNK, "a"]).decode([99])


def _hf_wordpiece_vocab(text, vocab_size, min_frequency):
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, trainers

    tok = tokenizers.Tokenizer(models.WordPiece(unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=[UNK], min_frequency=min_frequency,
                                        show_progress=False)
    tok.train_from_iterator([text], trainer)
    return tok


def test_hugging_face_trainer_is_count_scored_wordpiece(prose_docs, n_chars=50_000, vocab_size=406):
    """HF's WordPieceTrainer is its BPE trainer with the ## prefix: our score="count" gives its vocabulary.

    The documented difference: HF breaks ties by ids that it gives the ## characters in
    hash-map order, which changes from run to run. Where tied pairs overlap in a word
    (merging one lowers the other's count) or compete for the last places, HF's own
    vocabulary changes between runs and ours is one of its outcomes. This corpus and
    size were chosen so that no tie matters: the last merge's count is strictly above
    the next one's, and 150 HF runs in separate processes all gave our vocabulary.
    """
    text = "\n".join(prose_docs)[:n_chars]
    wc = count_words(text)
    ours = train_wordpiece(wc, vocab_size, score="count", min_count=2)
    one_more = train_wordpiece(wc, vocab_size + 1, score="count", min_count=2)
    assert one_more.merges[-1][2] < ours.merges[-1][2], "a tie at the cut-off: pick another size"
    for _ in range(2):  # HF's hash order changes between runs; the vocabulary must not
        hf = _hf_wordpiece_vocab(text, vocab_size, min_frequency=2)
        assert set(hf.get_vocab()) == set(ours.vocab)
    # and the encoders agree: both cut greedily, longest piece first
    held = "\n".join(prose_docs[-20:])[:5000]
    assert hf.encode(held).tokens == WordPiece(ours.vocab).tokenize(held)


def test_the_documented_difference_from_hugging_face():
    """WordPiece's likelihood score and HF's trainer pick different first merges on the hand corpus."""
    text = " ".join(" ".join([w] * n) for w, n in HAND.items())
    hf = _hf_wordpiece_vocab(text, 13, min_frequency=0)
    assert "##ug" in hf.get_vocab() and "##gs" not in hf.get_vocab()
    ours = train_wordpiece(count_words(text), 13)
    assert "##gs" in ours.vocab and "##ug" not in ours.vocab
