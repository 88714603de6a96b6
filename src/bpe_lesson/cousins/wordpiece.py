"""WordPiece: BERT's subword vocabulary, trained and applied the textbook way.

Training looks like BPE: start from single characters and merge the best adjacent
pair, again and again. Two things differ.

* The pieces. A character that continues a word carries the prefix ``##``:
  "hug" starts as ``h ##u ##g``, so ``##ing`` (inside a word) and ``ing`` (a word
  start) are different tokens. Pieces never cross a word boundary.
* The score. BPE merges the most frequent pair. WordPiece merges the pair with the
  highest ``count(ab) / (count(a) * count(b))``: the pair whose merge raises the
  likelihood of a unigram model of the corpus most *per occurrence* (the
  normalization chapter derives it). ``score="count"`` merges by count instead, on
  the same pieces: that is what Hugging Face's ``WordPieceTrainer`` does (it is
  their BPE trainer with the ``##`` prefix), so this module can reproduce it.

Encoding keeps no merge list: each word is cut greedily, longest vocabulary piece
first, left to right; a word that cannot be cut to the end becomes one ``[UNK]``.

The rule, for reproducibility: the best score wins; ties go to the smallest
``(left id, right id)``. Ids: special tokens, then every character seen (sorted),
then every ``##`` character (sorted), then new pieces in merge order. A merge whose
piece already exists (``##a ##bc`` and ``##ab ##c`` both give ``##abc``) reuses its
id. Training stops at ``vocab_size`` ids or when no pair occurs ``min_count`` times.

What this module leaves out: BERT's normalizer (lowercasing, accent stripping,
spaces around Chinese characters), speed (pure Python, a few MB at most), and
bytes: a character never seen in training makes its word ``[UNK]``, where
byte-level BPE would spell it in bytes.
"""

from __future__ import annotations

from collections import Counter

import regex

# a merge joins (a, b) left to right, exactly as in BPE: one function, textbook.merge
from ..textbook import merge as merge_word

__all__ = ["PREFIX", "UNK", "WORD_PATTERN", "SCORES", "split_words", "count_words",
           "initial_pieces", "join", "pair_score", "count_pieces", "initial_vocab",
           "train_wordpiece", "WordPiece"]

PREFIX = "##"  # marks a piece that continues a word
UNK = "[UNK]"
# Hugging Face's `Whitespace` pre-tokenizer: runs of word characters, runs of punctuation
WORD_PATTERN = r"\w+|[^\w\s]+"
SCORES = ("likelihood", "count")


def split_words(text: str) -> list[str]:
    """Pre-tokenize: words and punctuation runs; whitespace is dropped.

    >>> split_words("Don't panic, 42 times!")
    ['Don', "'", 't', 'panic', ',', '42', 'times', '!']
    """
    return regex.findall(WORD_PATTERN, text)


def count_words(texts) -> Counter:
    """Word -> count over a str or an iterable of str.

    >>> count_words("the cat and the hat")["the"]
    2
    """
    docs = [texts] if isinstance(texts, str) else texts
    counts = Counter()  # str -> int
    for doc in docs:
        counts.update(split_words(doc))
    return counts


def initial_pieces(word: str) -> list[str]:
    """A word as single characters, every one after the first marked ``##``.

    >>> initial_pieces("hug")
    ['h', '##u', '##g']
    """
    return [c if i == 0 else PREFIX + c for i, c in enumerate(word)]


def join(left: str, right: str) -> str:
    """The piece two adjacent pieces make: the right one loses its ``##``.

    >>> join("h", "##u"), join("##u", "##g")
    ('hu', '##ug')
    """
    return left + right[len(PREFIX):] if right.startswith(PREFIX) else left + right


def pair_score(pair_count: int, left_count: int, right_count: int) -> float:
    """WordPiece's score: count(ab) / (count(a) * count(b)).

    Two rare pieces that always occur together beat two common ones that often do:

    >>> pair_score(5, 5, 5), pair_score(100, 1000, 1000)
    (0.2, 0.0001)
    """
    return pair_count / (left_count * right_count)


def count_pieces(words, counts) -> tuple[Counter, Counter]:
    """(piece id -> count, (left id, right id) -> count) over all words, each weighted by its count.

    >>> units, pairs = count_pieces([[0, 1, 1]], [2])
    >>> dict(units), dict(pairs)
    ({0: 2, 1: 4}, {(0, 1): 2, (1, 1): 2})
    """
    units, pairs = Counter(), Counter()
    for word, n in zip(words, counts):
        for p in word:
            units[p] += n
        for pair in zip(word, word[1:]):
            pairs[pair] += n
    return units, pairs


def initial_vocab(word_counts, special_tokens=(UNK,)) -> list[str]:
    """Specials, every character seen (sorted), then every ``##`` character (sorted).

    >>> initial_vocab({"ab": 1, "b": 1})
    ['[UNK]', 'a', 'b', '##b']
    """
    chars = sorted({c for w in word_counts for c in w})
    inner = sorted({c for w in word_counts for c in w[1:]})
    vocab = list(dict.fromkeys(special_tokens))
    return vocab + [c for c in chars if c not in vocab] + [PREFIX + c for c in inner]


def train_wordpiece(word_counts, vocab_size: int, score: str = "likelihood", special_tokens=(UNK,),
                    min_count: int = 2, verbose: bool = False) -> "WordPiece":
    """Learn a WordPiece vocabulary from ``word_counts`` (word -> count, see ``count_words``).

    ``score``: "likelihood" (WordPiece) or "count" (BPE's choice, Hugging Face's trainer).
    ``vocab_size`` counts everything: specials, the characters, and the new pieces.

    >>> wp = train_wordpiece({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 14)
    >>> wp.vocab[12:], wp.tokenize("hugs bug")   # 12 = [UNK], 7 characters, 4 ##characters
    (['##gs', 'bu'], ['h', '##u', '##gs', 'bu', '##g'])
    """
    if score not in SCORES:
        raise ValueError(f"score={score!r} is not known; use one of {SCORES}")
    if min_count < 1:
        raise ValueError(f"min_count={min_count} must be at least 1 (a pair that never occurs cannot be merged)")
    vocab = initial_vocab(word_counts, special_tokens)  # id -> piece
    if vocab_size < len(vocab):
        raise ValueError(f"vocab_size {vocab_size} is smaller than the alphabet: {len(vocab)} specials, characters "
                         f"and ##characters, each of which needs an id; use at least {len(vocab)}")
    ids = {p: i for i, p in enumerate(vocab)}  # piece -> id
    merges = []  # (left piece, right piece, count) in merge order
    # each distinct word as a list of piece ids, and how often it occurs
    items = sorted(word_counts.items())
    words = [[ids[p] for p in initial_pieces(w)] for w, _ in items]
    counts = [n for _, n in items]
    units, pairs = count_pieces(words, counts)
    where = {}  # (int, int) -> set of word indices that contain the pair (may be stale)
    for k, word in enumerate(words):
        for pair in zip(word, word[1:]):
            where.setdefault(pair, set()).add(k)

    while len(vocab) < vocab_size:
        # the best score, then the smallest (left, right): the largest (score, -left, -right)
        if score == "likelihood":
            top = max(((c / (units[a] * units[b]), -a, -b) for (a, b), c in pairs.items() if c >= min_count),
                      default=None)
        else:
            top = max(((c, -a, -b) for (a, b), c in pairs.items() if c >= min_count), default=None)
        if top is None:
            break  # no pair occurs min_count times
        a, b = -top[1], -top[2]
        c = pairs[a, b]
        piece = join(vocab[a], vocab[b])
        new_id = ids.get(piece)
        if new_id is None:  # subtle: another pair may have made this piece already; reuse its id
            new_id = ids[piece] = len(vocab)
            vocab.append(piece)
        merges.append((vocab[a], vocab[b], c))
        if verbose:
            print(f"{len(vocab)}: {vocab[a]!r} + {vocab[b]!r} -> {piece!r}  count {c}, "
                  f"score {pair_score(c, units[a], units[b]):.3g}")
        # rewrite only the words that contain the pair: take their counts out, merge, put them back
        touched = set()  # pairs whose count went down
        for k in where.pop((a, b)):
            old = words[k]
            new = merge_word(old, (a, b), new_id)
            if new == old:
                continue
            n = counts[k]
            for p in old:
                units[p] -= n
            for pair in zip(old, old[1:]):
                pairs[pair] -= n
                touched.add(pair)
            for p in new:
                units[p] += n
            for pair in zip(new, new[1:]):
                pairs[pair] += n
                where.setdefault(pair, set()).add(k)
            words[k] = new
        # keep the dict small: pairs that no longer occur leave
        for pair in touched:
            if pairs.get(pair, 1) <= 0:
                del pairs[pair]
    return WordPiece(vocab, unk=UNK if UNK in vocab else None, merges=merges)


class WordPiece:
    """A WordPiece vocabulary and its greedy longest-match-first encoder.

    ``vocab``: pieces in id order; ``unk``: the piece for a word that cannot be cut
    (None: such a word raises ``ValueError``); ``merges``: what training did,
    ``[(left piece, right piece, count), ...]`` (the encoder never uses it).

    >>> wp = WordPiece(["[UNK]", "un", "##aff", "##able", "##a", "a"])
    >>> wp.tokenize("unaffable affable")
    ['un', '##aff', '##able', '[UNK]']
    """

    def __init__(self, vocab, unk=UNK, max_chars_per_word: int = 100, merges=()):
        self.vocab = list(vocab)  # id -> piece
        self.merges = list(merges)
        self.ids = {p: i for i, p in enumerate(self.vocab)}  # piece -> id
        if len(self.ids) != len(self.vocab):
            raise ValueError("a piece appears twice in the vocabulary")
        if unk is not None and unk not in self.ids:
            raise ValueError(f"the unknown piece {unk!r} is not in the vocabulary")
        self.unk = unk
        self.max_chars_per_word = max_chars_per_word

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def __repr__(self):
        return f"WordPiece(vocab_size={self.vocab_size})"

    def tokenize_word(self, word: str) -> list[str]:
        """Cut one word: at each position take the longest piece in the vocabulary.

        >>> WordPiece(["[UNK]", "h", "hug", "##g", "##s", "##gs"]).tokenize_word("hugs")
        ['hug', '##s']
        """
        if len(word) > self.max_chars_per_word:
            return self._unknown(word)
        pieces, start = [], 0
        while start < len(word):
            # try the longest candidate first, then shorter ones
            for end in range(len(word), start, -1):
                piece = word[start:end] if start == 0 else PREFIX + word[start:end]
                if piece in self.ids:
                    break
            else:
                return self._unknown(word)  # subtle: the whole word is lost, not just this character
            pieces.append(piece)
            start = end
        return pieces

    def _unknown(self, word):
        if self.unk is None:
            raise ValueError(f"the word {word!r} cannot be cut into pieces of this vocabulary and it has no unknown piece")
        return [self.unk]

    def tokenize(self, text: str) -> list[str]:
        """The pieces of a text: split into words, then cut each word."""
        return [p for w in split_words(text) for p in self.tokenize_word(w)]

    def encode(self, text: str) -> list[int]:
        return [self.ids[p] for p in self.tokenize(text)]

    def decode(self, ids) -> str:
        """Pieces back to text: a ``##`` piece joins the one before; other pieces are separated by a space.

        The round trip gives the words of the text, one space apart, not the text:

        >>> wp = WordPiece(["[UNK]", "hi", ",", "you", "##s"])
        >>> wp.decode(wp.encode("hi,  yous"))
        'hi , yous'
        """
        out = []
        for i in ids:
            if not 0 <= i < len(self.vocab):
                raise ValueError(f"id {i!r} is not in this vocabulary (ids 0..{len(self.vocab) - 1})")
            p = self.vocab[i]
            if p.startswith(PREFIX) and out:
                out[-1] += p[len(PREFIX):]
            else:
                out.append(p)
        return " ".join(out)
