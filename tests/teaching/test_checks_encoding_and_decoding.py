"""The checks of "Encoding and decoding" pass the reference solutions and catch plausible wrong ones."""

import codecs

import pytest

from _wrong import cases, run_right, run_wrong
from bpe_lesson.patterns import GPT4_PATTERN, split_chunks


# ---------------------------------------------------------------- ex-encode-replay

def merge(ids, pair, idx):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(idx)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def _replay(ids, order):  # order: pair -> position in the list; the earliest present merge next
    while len(ids) >= 2:
        pair = min(zip(ids, ids[1:]), key=lambda p: order.get(p, (float("inf"), 0)))
        if pair not in order:
            break
        ids = merge(ids, pair, order[pair][1])
    return ids


def encode(text, merges):
    order = {pair: (k, new_id) for k, (pair, new_id) in enumerate(merges)}
    return [i for chunk in split_chunks(text, GPT4_PATTERN) for i in _replay(list(chunk.encode()), order)]


def encode_no_split(text, merges):  # merges across chunk boundaries
    order = {pair: (k, new_id) for k, (pair, new_id) in enumerate(merges)}
    return _replay(list(text.encode()), order)


def encode_by_pair_order(text, merges):  # applies merges sorted by their pair, not in training order
    return encode(text, sorted(merges))


def encode_one_pass(text, merges):  # each merge once, left to right over the list, without repeating
    out = []
    for chunk in split_chunks(text, GPT4_PATTERN):
        ids = list(chunk.encode())
        for pair, new_id in reversed(merges):
            ids = merge(ids, pair, new_id)
        out += ids
    return out


# ---------------------------------------------------------------- ex-encode-rank

def _rank_encode(chunk, ranks, pick):
    parts = [chunk[i:i + 1] for i in range(len(chunk))]
    while True:
        joins = [(ranks[a + b], k) for k, (a, b) in enumerate(zip(parts, parts[1:])) if a + b in ranks]
        if not joins:
            return [ranks[p] for p in parts]
        _, k = pick(joins)
        parts[k:k + 2] = [parts[k] + parts[k + 1]]


def rank_encode(chunk, ranks):
    return _rank_encode(chunk, ranks, min)


def rank_encode_rightmost(chunk, ranks):  # a tie goes to the rightmost pair
    return _rank_encode(chunk, ranks, lambda js: min(js, key=lambda j: (j[0], -j[1])))


def rank_encode_longest_match(chunk, ranks):  # longest token first, from the left
    out, i = [], 0
    while i < len(chunk):
        j = max(k for k in range(i + 1, len(chunk) + 1) if chunk[i:k] in ranks)
        out.append(ranks[chunk[i:j]])
        i = j
    return out


# ---------------------------------------------------------------- ex-decode-stream

def decode_stream(ids, vocab):
    decoder = codecs.getincrementaldecoder("utf-8")()
    for i in ids:
        yield decoder.decode(vocab[i])


def decode_stream_by_hand(ids, vocab):
    pending = b""
    for i in ids:
        pending += vocab[i]
        for cut in range(len(pending), max(len(pending) - 4, -1), -1):
            try:
                text = pending[:cut].decode("utf-8")
            except UnicodeDecodeError:
                continue
            pending = pending[cut:]
            yield text
            break


def decode_stream_each(ids, vocab):  # decodes each id alone: half characters become U+FFFD
    for i in ids:
        yield vocab[i].decode("utf-8", errors="replace")


def decode_stream_late(ids, vocab):  # holds every byte until it sees an ASCII byte
    pending = b""
    for i in ids:
        pending += vocab[i]
        if vocab[i][-1] < 0x80:
            yield pending.decode("utf-8")
            pending = b""
        else:
            yield ""
    if pending:
        yield pending.decode("utf-8")


RIGHT = {"ex-encode-replay": encode, "ex-encode-rank": rank_encode, "ex-decode-stream": decode_stream}
WRONG = {
    "ex-encode-replay": [encode_no_split, encode_by_pair_order, encode_one_pass],
    "ex-encode-rank": [rank_encode_rightmost, rank_encode_longest_match],
    "ex-decode-stream": [decode_stream_each, decode_stream_late],
}


@pytest.mark.parametrize("label", sorted(RIGHT))
def test_reference_solution_passes(label):
    run_right(label, RIGHT[label])


def test_a_hand_written_stream_decoder_passes():
    run_right("ex-decode-stream", decode_stream_by_hand)


@pytest.mark.parametrize("label, wrong", cases(WRONG))
def test_wrong_solution_fails(label, wrong):
    run_wrong(label, wrong)
