"""Checks of the exercises in "Overlaps, ties and order": the whole rule, the reader's trainer
with the skip, and whether a merge list is realised.

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

from ... import textbook
from ...chunks import count_chunks, to_byte_counts
from ...patterns import GPT4_PATTERN
from ...ranks import vocab_from_merges
from ...trainer import train as package_train
from .. import samples
from . import check
from ._calls import call

HAND = [((98, 99), 256), ((97, 98), 257), ((257, 99), 258)]  # bc, ab, then abc = ab + c
SP, T, H, E = (ord(ch) for ch in " the")
THE = [((SP, T), 256), ((H, E), 257), ((T, 257), 258), ((SP, 258), 259)]  # " t", "he", "the", " the"
TOPICS = ("if", "while", "for", "try", "assignment")


def _prose():
    return "\n".join(samples.prose_topics()[t] for t in TOPICS)


@check("ex-overlaps-rule")
def _pick(pick):
    base = vocab_from_merges()
    got = call(pick, {(99, 98): 8, (98, 98): 8, (98, 99): 4}, base)
    assert got == (98, 98), f"a tie between (99, 98) and (98, 98) at count 8 goes to the smaller pair, not {got}"
    got = call(pick, {(98, 98): 8, (99, 98): 8}, base)
    assert got == (98, 98), "the tie rule must not depend on the order of the dict"
    assert call(pick, {(97, 98): 1}, base) is None, "a best count below 2 means stop: return None"
    assert call(pick, {}, base) is None, "no pairs at all: return None"
    hand = vocab_from_merges(HAND)
    got = call(pick, {(97, 256): 5, (120, 121): 3}, hand)
    assert got == (120, 121), f"(a, bc) spells 'abc', already a token: skip it; you returned {got}"
    assert call(pick, {(97, 256): 5, (120, 121): 1}, hand) is None, "after the skip the best count is 1: stop"
    words = {tuple(w): c for w, c in to_byte_counts(count_chunks([_prose()], GPT4_PATTERN)).items()}
    want = textbook.train_merges(to_byte_counts(count_chunks([_prose()], GPT4_PATTERN)), 1)[0][0]
    assert call(pick, textbook.count_pairs(words), base) == want, "on the prose, pick differs from the first merge"


def _as_merges(result):
    """The reader's merges as tuples, whatever sequences they came in.

    >>> _as_merges([[[97, 98], 256]])
    [((97, 98), 256)]
    """
    return [(tuple(pair), int(new_id)) for pair, new_id in result]


@check("ex-overlaps-train")
def _train(train):
    text = _prose()
    want = package_train(text, vocab_size=256 + 50, pattern="gpt4", algorithm="textbook").merges
    got = _as_merges(call(train, text, 256 + 50))
    assert got == want, "from bytes, the first 50 merges on the prose differ from the package's"
    chunk_counts = to_byte_counts(count_chunks([text], GPT4_PATTERN))
    want = textbook.train_merges(chunk_counts, 30, base_merges=THE)
    got = _as_merges(call(train, text, 256 + len(THE) + 30, THE))
    assert (256, 257) not in dict(got), ("after the hand-written ' the' merges, (' t', 'he') spells ' the', "
                                         "a token already: the rule skips it")
    assert got[:1] == want[:1], (f"continuing from the ' the' merges, the first merge is {got[:1]}, should be "
                                 f"{want[:1]} (apply the base merges to every chunk first; new ids start at 260)")
    assert got == want, "continuing from the ' the' merges, the 30 merges differ from the package's"


@check("ex-overlaps-realised")
def _realised(is_realised):
    def ask(merges, chunks):
        got = call(is_realised, merges, chunks)
        assert isinstance(got, bool), f"is_realised should return True or False, not {got!r}"
        return got

    assert ask([((97, 97), 256)], [b"aaa"]) is True
    assert ask([((97, 97), 256), ((256, 97), 257)], [b"aaa"]) is True, "a|aa -> aa|a -> aaa: both merges replace"
    assert ask(HAND, [b"abc"]) is False, ("replayed on 'abc', bc goes first and leaves a|bc: the merges ab "
                                          "and ab + c never replace anything, although the bytes 'abc' are there")
    assert ask(HAND, [b"abc", b"ab", b"bc"]) is False, "ab replaces in 'ab', but (ab, c) still never does"
    assert ask(HAND, [b"bcx", b"abd", b"abc"]) is False
    assert ask([((97, 98), 256), ((256, 99), 257)], [b"abc"]) is True
    assert ask([((97, 98), 256), ((98, 99), 257)], [b"abc"]) is False, "after ab, 'abc' holds no (b, c)"
    text = _prose()
    merges = package_train(text, vocab_size=256 + 80, pattern="gpt4").merges
    chunks = list(to_byte_counts(count_chunks([text], GPT4_PATTERN)))
    assert ask(merges, chunks) is True, "every list the trainer makes is realised on its own corpus"
    assert ask(merges, chunks[:50]) is False, "50 chunks cannot realise all 80 merges"
