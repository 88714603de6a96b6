"""The checks of "Encoding and decoding" pass right solutions and catch plausible wrong ones."""

import codecs

import pytest

from _solutions import merge
from _wrong import graded
from bpe_lesson import textbook
from bpe_lesson.patterns import GPT4_PATTERN, split_chunks
from bpe_lesson.teaching.checks import encoding_and_decoding as checks


@pytest.fixture(scope="module", autouse=True)
def _warm():
    """The package's one-time costs (the split pattern's tables, a trained vocabulary, GPT-4's
    ranks) come before the timed checks, as in the chapter, whose earlier cells pay most of them."""
    split_chunks("warm é 中", GPT4_PATTERN)
    checks._trained(), checks._cl100k()


# ---------------------------------------------------------------- ex-encode-replay

def encode(text, merges):  # the notebook's: the earliest merge present, again and again
    order = {pair: (k, new_id) for k, (pair, new_id) in enumerate(merges)}
    out = []
    for chunk in split_chunks(text, GPT4_PATTERN):
        ids = list(chunk.encode())
        while len(ids) >= 2:
            present = [p for p in zip(ids, ids[1:]) if p in order]
            if not present:
                break
            pair = min(present, key=lambda p: order[p][0])
            ids = textbook.merge(ids, pair, order[pair][1])
        out += ids
    return out


def encode_plain_replay(text, merges):  # every merge once, in order, over every chunk
    out = []
    for chunk in split_chunks(text, GPT4_PATTERN):
        ids = list(chunk.encode("utf-8"))
        for pair, new_id in merges:
            ids = merge(ids, pair, new_id)
        out.extend(ids)
    return out


def encode_no_split(text, merges):  # merges across chunk boundaries
    ids = list(text.encode())
    for pair, new_id in merges:
        ids = merge(ids, pair, new_id)
    return ids


def encode_by_pair_order(text, merges):  # applies merges sorted by their pair, not in training order
    return encode_plain_replay(text, sorted(merges))


def encode_reversed(text, merges):  # the newest merge first
    return encode_plain_replay(text, merges[::-1])


def encode_characters(text, merges):  # code points where bytes are meant
    out = []
    for chunk in split_chunks(text, GPT4_PATTERN):
        ids = [ord(ch) for ch in chunk]
        for pair, new_id in merges:
            ids = merge(ids, pair, new_id)
        out += ids
    return out


def encode_by_rank(text, merges):  # rank encoding: the same for trained lists, not for hand-written ones
    ranks = {b: i for i, b in textbook.vocab_from_merges(merges).items()}
    from bpe_lesson.ranks import bpe_encode_chunk
    return [i for c in split_chunks(text, GPT4_PATTERN) for i in bpe_encode_chunk(c.encode(), ranks)]


def encode_stops_at_two(text, merges):  # off by one: a chunk of two ids is never merged
    order = {pair: new_id for pair, new_id in merges}
    out = []
    for chunk in split_chunks(text, GPT4_PATTERN):
        ids = list(chunk.encode())
        while len(ids) > 2:
            pair = min(zip(ids, ids[1:]), key=lambda p: order.get(p, float("inf")))
            if pair not in order:
                break
            ids = merge(ids, pair, order[pair])
        out += ids
    return out


# ---------------------------------------------------------------- ex-encode-rank

def rank_encode(chunk, ranks):  # the notebook's
    parts = [chunk[i:i + 1] for i in range(len(chunk))]
    while len(parts) >= 2:
        joins = [(ranks[a + b], k) for k, (a, b) in enumerate(zip(parts, parts[1:])) if a + b in ranks]
        if not joins:
            break
        _, k = min(joins)
        parts[k:k + 2] = [parts[k] + parts[k + 1]]
    return [ranks[p] for p in parts]


def rank_encode_boundaries(chunk, ranks):  # written differently: cut positions, the shortcut first
    if chunk in ranks:
        return [ranks[chunk]]
    cuts = list(range(len(chunk) + 1))
    while True:
        best = None
        for k in range(len(cuts) - 2):
            r = ranks.get(chunk[cuts[k]:cuts[k + 2]])
            if r is not None and (best is None or r < best[0]):
                best = (r, k)
        if best is None:
            return [ranks[chunk[a:b]] for a, b in zip(cuts, cuts[1:])]
        del cuts[best[1] + 1]


def _rank_loop(chunk, ranks, pick, parts=None):
    parts = [chunk[i:i + 1] for i in range(len(chunk))] if parts is None else parts
    while True:
        joins = [(ranks[a + b], k) for k, (a, b) in enumerate(zip(parts, parts[1:])) if a + b in ranks]
        if not joins:
            return [ranks[p] for p in parts]
        _, k = pick(joins)
        parts[k:k + 2] = [parts[k] + parts[k + 1]]


def rank_encode_rightmost(chunk, ranks):  # a tie goes to the rightmost pair
    return _rank_loop(chunk, ranks, lambda js: min(js, key=lambda j: (j[0], -j[1])))


def rank_encode_all_at_once(chunk, ranks):  # joins every occurrence of the best pair in one sweep
    parts = [chunk[i:i + 1] for i in range(len(chunk))]
    while True:
        found = [ranks[a + b] for a, b in zip(parts, parts[1:]) if a + b in ranks]
        if not found:
            return [ranks[p] for p in parts]
        best, out, k = min(found), [], 0
        while k < len(parts):
            if k + 1 < len(parts) and ranks.get(parts[k] + parts[k + 1]) == best:
                out.append(parts[k] + parts[k + 1])
                k += 2
            else:
                out.append(parts[k])
                k += 1
        parts = out


def rank_encode_longest_match(chunk, ranks):  # longest token first, from the left
    out, i = [], 0
    while i < len(chunk):
        j = max(k for k in range(i + 1, len(chunk) + 1) if chunk[i:k] in ranks)
        out.append(ranks[chunk[i:j]])
        i = j
    return out


def rank_encode_as_merges(chunk, ranks):  # replays the tokens in rank order, as if they were merges
    parts = [chunk[i:i + 1] for i in range(len(chunk))]
    for token, _ in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(token) < 2:
            continue
        out, k = [], 0
        while k < len(parts):
            if k + 1 < len(parts) and parts[k] + parts[k + 1] == token:
                out.append(token)
                k += 2
            else:
                out.append(parts[k])
                k += 1
        parts = out
    return [ranks[p] for p in parts]


def rank_encode_characters(chunk, ranks):  # starts from characters, not bytes
    return _rank_loop(chunk, ranks, min, [ch.encode() for ch in chunk.decode("utf-8")])


def rank_encode_parts(chunk, ranks):  # returns the parts' bytes, not their ranks
    return [bytes([r]) if r < 256 else next(t for t, v in ranks.items() if v == r)
            for r in rank_encode(chunk, ranks)]


# ---------------------------------------------------------------- ex-decode-replace

def decode(ids, vocab):  # the notebook's: strict decode, one U+FFFD per error, go on after it
    data, out = b"".join(vocab[i] for i in ids), []
    while True:
        try:
            out.append(data.decode("utf-8"))
            return "".join(out)
        except UnicodeDecodeError as e:
            out.append(data[:e.start].decode("utf-8") + "\ufffd")
            data = data[e.end:]


def decode_from_offsets(ids, vocab):  # right, written differently: a cursor into the joined bytes
    data, at, text = b"".join(vocab[i] for i in ids), 0, ""
    while at < len(data):
        try:
            return text + data[at:].decode("utf-8")
        except UnicodeDecodeError as e:
            text += data[at:at + e.start].decode("utf-8") + "\ufffd"
            at += e.end
    return text


def decode_with_errors(ids, vocab):  # issue 49: the right text through errors="replace", which the text rules out
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")


def decode_with_codecs(ids, vocab):  # issue 49: the same handler through codecs.decode, by position
    import codecs
    return codecs.decode(b"".join(vocab[i] for i in ids), "utf-8", "replace")


def decode_with_str(ids, vocab):  # issue 49: str(bytes, encoding, errors) with the same handler
    return str(bytes().join(vocab[i] for i in ids), "utf-8", errors="replace")


def _joined_replace(data):  # a helper of the reader's own that calls the handler
    return data.decode("utf-8", errors="replace")


def decode_via_helper(ids, vocab):  # issue 49: errors="replace" one helper away
    return _joined_replace(b"".join(vocab[i] for i in ids))


def decode_each(ids, vocab):  # decodes each id alone: a character cut between tokens becomes U+FFFD
    return "".join(vocab[i].decode("utf-8", errors="replace") for i in ids)


def decode_per_byte(ids, vocab):  # one U+FFFD per bad byte, not per bad sequence
    data, out = b"".join(vocab[i] for i in ids), ""
    while True:
        try:
            return out + data.decode("utf-8")
        except UnicodeDecodeError as e:
            out += data[:e.start].decode("utf-8") + "\ufffd"
            data = data[e.start + 1:]


def decode_ignore(ids, vocab):  # drops what is broken
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="ignore")


def decode_strict(ids, vocab):  # raises on broken bytes
    return b"".join(vocab[i] for i in ids).decode("utf-8")


def decode_rest_lost(ids, vocab):  # one U+FFFD for everything after the first error
    data = b"".join(vocab[i] for i in ids)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        return data[:e.start].decode("utf-8") + "\ufffd"


# ---------------------------------------------------------------- ex-decode-stream

def decode_stream(ids, vocab):  # the notebook's
    pending = b""
    for i in ids:
        pending += vocab[i]
        cut = len(pending)
        while cut > 0:
            try:
                text = pending[:cut].decode("utf-8")
                break
            except UnicodeDecodeError:
                cut -= 1
        else:
            text = ""
        pending = pending[cut:]
        yield text


def decode_stream_codecs(ids, vocab):  # the standard library's incremental decoder
    decoder = codecs.getincrementaldecoder("utf-8")()
    for i in ids:
        yield decoder.decode(vocab[i])


def decode_stream_lead_bytes(ids, vocab):  # reads the lead byte to know how many bytes are missing
    pending = b""
    for i in ids:
        pending += vocab[i]
        k = len(pending)
        for back in range(1, min(4, len(pending)) + 1):
            b = pending[-back]
            if b >= 0xC0:  # a lead byte: is its character whole?
                need = 2 if b < 0xE0 else 3 if b < 0xF0 else 4
                k = len(pending) if back >= need else len(pending) - back
                break
            if b < 0x80:
                break
        yield pending[:k].decode("utf-8")
        pending = pending[k:]


def decode_stream_pops(ids, vocab):  # right pieces, but it empties the caller's list of ids
    decoder = codecs.getincrementaldecoder("utf-8")()
    while ids:
        yield decoder.decode(vocab[ids.pop(0)])


def decode_stream_each(ids, vocab):  # decodes each id alone: half characters become U+FFFD
    for i in ids:
        yield vocab[i].decode("utf-8", errors="replace")


def decode_stream_ignore(ids, vocab):  # emits at every id and drops the bytes it cannot read yet
    for i in ids:
        yield vocab[i].decode("utf-8", errors="ignore")


def decode_stream_hold_three(ids, vocab):  # a fixed hold-back: always keeps the last 3 bytes
    pending, n = b"", 0
    for k, i in enumerate(ids):
        pending += vocab[i]
        if k == len(ids) - 1:
            yield pending.decode("utf-8")
            return
        cut = max(0, len(pending) - 3)
        while cut > 0:
            try:
                text = pending[:cut].decode("utf-8")
                break
            except UnicodeDecodeError:
                cut -= 1
        else:
            text = ""
        pending = pending[cut:]
        yield text


def decode_stream_two_back(ids, vocab):  # looks back at most 2 bytes: a 4-byte character cut after 3 stalls
    pending = b""
    for i in ids:
        pending += vocab[i]
        text = ""
        for cut in range(len(pending), max(len(pending) - 3, -1), -1):
            try:
                text = pending[:cut].decode("utf-8")
            except UnicodeDecodeError:
                continue
            pending = pending[cut:]
            break
        yield text


def decode_stream_late(ids, vocab):  # holds every byte until it sees an ASCII byte
    pending = b""
    for i in ids:
        pending += vocab[i]
        if vocab[i][-1] < 0x80:
            yield pending.decode("utf-8")
            pending = b""
        else:
            yield ""


def decode_stream_skips_empty(ids, vocab):  # yields nothing while waiting (fewer pieces than ids)
    for piece in decode_stream_codecs(ids, vocab):
        if piece:
            yield piece


RIGHT = {
    "ex-encode-replay": [encode, encode_plain_replay],
    "ex-encode-rank": [rank_encode, rank_encode_boundaries],
    "ex-decode-replace": [decode, decode_from_offsets],
    "ex-decode-stream": [decode_stream, decode_stream_codecs, decode_stream_lead_bytes],
}
WRONG = {
    "ex-encode-replay": [encode_no_split, encode_by_pair_order, encode_reversed, encode_characters,
                         encode_by_rank, encode_stops_at_two],
    "ex-encode-rank": [rank_encode_rightmost, rank_encode_all_at_once, rank_encode_longest_match,
                       rank_encode_as_merges, rank_encode_characters, rank_encode_parts],
    "ex-decode-replace": [decode_each, decode_per_byte, decode_ignore, decode_strict, decode_rest_lost,
                          decode_with_errors, decode_with_codecs, decode_with_str, decode_via_helper],
    "ex-decode-stream": [decode_stream_each, decode_stream_ignore, decode_stream_hold_three,
                         decode_stream_two_back, decode_stream_late, decode_stream_skips_empty,
                         decode_stream_pops],
}


test_right_solution_passes, test_wrong_solution_fails = graded(RIGHT, WRONG)
