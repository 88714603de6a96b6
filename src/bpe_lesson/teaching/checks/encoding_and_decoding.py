"""Checks of the exercises in "Encoding and decoding": the reader's encoder by replay, the
rank encoder of one chunk, decoding with U+FFFD for broken bytes, and a decoder for a
stream of ids.

Each check is differential (``compare``): the reader's function against the package's
(``textbook.apply_merges`` on each chunk, ``ranks.bpe_encode_chunk``) or against a
reference written here, small and anchored by a hand-checked case (``decode_replace``
is ``Tokenizer.decode`` on an id -> bytes table; ``stream_pieces`` is the standard
library's incremental UTF-8 decoder). The rank encoder is also run on real text with
GPT-4's ranks and compared with tiktoken itself.

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import codecs
import functools

from ... import textbook
from ...chunks import count_chunks, to_byte_counts
from ...patterns import GPT4_PATTERN, split_chunks
from ...ranks import bpe_encode_chunk, byte_pair_merge
from ...tokenizer import Tokenizer
from ...trainer import train as package_train
from .. import samples
from . import _calls, _forbidden, _gen, _reference, call, check, compare, merges_shown

__all__ = ["TOY", "HAND", "THE", "BYTES", "replay_encode", "decode_replace", "BROKEN",
           "BYTES_VOCAB", "stream_pieces"]

TOY = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)
HAND = [((98, 99), 256), ((97, 98), 257), ((257, 99), 258)]  # bc, ab, abc = ab + c: not realised on "abc"
SP, T, H, E = (ord(ch) for ch in " the")
THE = [((SP, T), 256), ((H, E), 257), ((T, 257), 258), ((SP, 258), 259)]  # " t", "he", "the", " the"
BYTES = {bytes([i]): i for i in range(256)}  # the 256 one-byte tokens: bytes -> rank


@functools.lru_cache(maxsize=1)
def _trained():
    """(merges, held-out text): 512 merges trained on the first documents of the prose's training split."""
    train, held = samples.prose_split()
    return package_train(train[:12], vocab_size=768).merges, "\n".join(held[:2])


def _cut(value, width: int = 30) -> str:
    """``repr(value)`` in at most ``width`` characters."""
    r = repr(value)
    return r if len(r) <= width else r[:width - 4] + " ..."


# ---------------------------------------------------------------- ex-encode-replay

def replay_encode(text, merges):
    """The replay of ``merges`` on each GPT-4 chunk of ``text`` (the package's earliest-first loop).

    >>> replay_encode("abc abcab", [((97, 98), 256), ((256, 99), 257)])
    [257, 32, 257, 256]
    """
    by_pair = {tuple(pair): new_id for pair, new_id in merges}
    return [i for chunk in split_chunks(text, GPT4_PATTERN)
            for i in textbook.apply_merges(list(chunk.encode("utf-8")), by_pair)]


def _replay_text(rng):
    """Text whose chunks the merges will meet: runs, repeated words, multi-byte letters."""
    pool = ["abc", "ab", "bc", "aab", "abab", "aaaa", " the", "the", " t", "he", "é", "中", "😀", " ", "  ", "\n"]
    if rng.random() < 0.5:
        return _gen.text(rng, 40)
    return "".join(rng.choice(pool) for _ in range(rng.randint(0, 12)))


def _replay_cases():
    toy = [((97, 98), 256), ((256, 99), 257)]
    yield from [("abc abcab", toy), ("a b", [((97, 32), 256)]), ("", toy), ("aaaa", [((97, 97), 256)]),
                ("aaa", [((97, 97), 256), ((256, 97), 257)]), ("abc", HAND), (" the then", THE),
                (" lowest", package_train(TOY, 256 + 5, algorithm="textbook").merges)]


def _replay_case(rng):
    r = rng.random()
    text = _replay_text(rng)
    if r < 0.15:
        return text, rng.choice([HAND, THE, [((97, 97), 256), ((256, 256), 257)]])
    # merges trained on this text, or on another one (then the text is new to them)
    source = text if r < 0.5 else _replay_text(rng) + text[: rng.randint(0, len(text))]
    counts = to_byte_counts(count_chunks([source], GPT4_PATTERN))
    return text, textbook.train_merges(counts, rng.randint(1, 12))


def _held_out():
    """Last: held-out prose, and 512 merges trained on other prose."""
    trained, held = _trained()
    return [(held, trained)]


def _shrink_replay(args):
    """A shorter text, or the list without its last merge (so every id stays defined)."""
    text, merges = args
    for smaller in _calls._smaller(text):
        yield smaller, merges
    if len(merges) > 1:
        yield text, merges[:len(merges) // 2]
    if merges:
        yield text, merges[:-1]


@check("ex-encode-replay")
def _encode(encode):
    compare(encode, replay_encode, _replay_cases(), generate=_replay_case, then=_held_out(), kind=list, shrink=_shrink_replay,
            show=lambda args: f"{_cut(args[0])}, {merges_shown(args[1])}",
            hint=lambda args, want, got: "split with GPT-4's pattern; replay the merges "
                                         "on each chunk's bytes")


# ---------------------------------------------------------------- ex-encode-rank

def _reachable(ranks) -> bool:
    """Every token is the rank encoding of its own bytes (so tiktoken's shortcut changes nothing).

    >>> _reachable(BYTES | {b"ab": 256, b"abc": 257}), _reachable(BYTES | {b"abc": 256})   # no pair of abc
    (True, False)
    """
    return all(len(t) < 2 or byte_pair_merge(t, ranks) == [t] for t in ranks)


def _table(rng):
    """A small rank table: the 256 bytes and a few tokens of 2-6 bytes, all reachable.

    The tokens are built as joins of earlier ones, over two letters or over the pieces
    of "é"; some tables rank them in that order (as training would), most shuffle the
    ranks, so a token can rank below its own pieces (then one join changes which pair
    is best, and joining every occurrence of a pair at once goes wrong).
    """
    parts = rng.choice([[b"a", b"b"], [b"a", b"b", b"c"], [b"\xc3", b"\xa9", b"a"]])
    tokens = []
    if rng.random() < 0.35:  # a token P, then P with a piece of P beside it: "ab", then "aba"
        p = rng.choice(parts) + rng.choice(parts)
        tokens = [p, p + p[:1]] if rng.random() < 0.5 else [p, p[-1:] + p]
    for _ in range(rng.randint(1, 6)):
        t = rng.choice(parts + tokens) + rng.choice(parts + tokens)
        if len(t) <= 6 and t not in tokens:
            tokens.append(t)
    ranks = list(range(256, 256 + len(tokens)))
    if rng.random() < 0.6:
        rng.shuffle(ranks)
    table = BYTES | dict(zip(tokens, ranks))
    while not _reachable(table):  # drop tokens the encoder cannot build from their own bytes
        table = {t: r for t, r in table.items() if len(t) < 2 or byte_pair_merge(t, table) == [t]}
    return table


def _chunk(rng, table):
    """A chunk over the table's tokens: a token repeated, runs, neighbours; sometimes long."""
    tokens = [t for t in table if len(t) > 1] + [b"a", b"b", b"c", b"\xc3\xa9"]
    if rng.random() < 0.3:
        return rng.choice(tokens) * rng.randint(2, 4) + rng.choice([b"", rng.choice(tokens)])
    n = rng.randint(0, 8) if rng.random() > 0.05 else rng.randint(20, 40)
    return b"".join(rng.choice(tokens) * (rng.randint(1, 3) if rng.random() < 0.3 else 1) for _ in range(n))


def _rank_cases():
    yield from [(b"aaa", BYTES | {b"aa": 256}), (b"abcd", BYTES | {b"ab": 256, b"bc": 257, b"cd": 258,
                                                                     b"abc": 259}),
                (b"abcd", BYTES | {b"bc": 256, b"ab": 257, b"cd": 258}), (b"", BYTES), (b"a", BYTES),
                (b"abab", BYTES | {b"ab": 257, b"aba": 256}),  # order matters: join one at a time
                (b"aaaa", BYTES | {b"aa": 256, b"aaa": 257})]


def _rank_case(rng):
    table = _table(rng)
    return _chunk(rng, table), table


def _shrink_rank(args):
    chunk, table = args
    for i in range(len(chunk)):  # one byte fewer at each place, then one token fewer
        yield chunk[:i] + chunk[i + 1:], table
    for t in [t for t in table if len(t) > 1]:
        yield chunk, {k: r for k, r in table.items() if k != t}


def _tokens_shown(table) -> str:
    extra = sorted((r, t) for t, r in table.items() if len(t) > 1)
    return "{" + ", ".join(f"{t!r}: {r}" for r, t in extra) + "} + bytes"


@functools.lru_cache(maxsize=1)
def _cl100k():
    """GPT-4's ranks (offline) and tiktoken's own encoder of them, without special tokens."""
    import tiktoken  # here: only this check needs tiktoken itself

    gpt4 = _reference.encoding("cl100k_base")
    enc = tiktoken.Encoding("cl100k_base_offline", pat_str=gpt4._pat_str, mergeable_ranks=gpt4._mergeable_ranks,
                            special_tokens={})
    return gpt4._mergeable_ranks, enc


@check("ex-encode-rank")
def _rank(rank_encode):
    compare(rank_encode, bpe_encode_chunk, _rank_cases(), generate=_rank_case, kind=list,
            shrink=_shrink_rank, valid=lambda args: _reachable(args[1]),
            show=lambda args: f"{args[0]!r}, {_tokens_shown(args[1])}",
            hint=lambda args, want, got: "join one pair at a time (lowest rank, leftmost), "
                                         "then look again")
    ranks, enc = _cl100k()  # GPT-4's table on real text, against tiktoken itself
    text = (samples.MULTILINGUAL["Greek"] + "\n" + samples.MULTILINGUAL["Hindi (Devanagari)"] + "\n"
            + samples.prose_split()[1][3][:1500])
    got = [i for chunk in split_chunks(text, GPT4_PATTERN) for i in call(rank_encode, chunk.encode(), ranks)]
    want = enc.encode_ordinary(text)
    first = next((k for k, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
    assert got == want, (f"with GPT-4's ranks on real text, id {first} of {len(want)} is not tiktoken's\n"
                         f"  expected: {want[first:first + 4]} ...\n  got:      {got[first:first + 4]} ...")


# ---------------------------------------------------------------- ex-decode-replace

def decode_replace(ids, vocab) -> str:
    """What ``Tokenizer.decode`` gives for ``ids`` under ``vocab`` (id -> bytes): the joined bytes
    read as UTF-8, each maximal invalid sequence replaced by one U+FFFD.

    >>> decode_replace([0, 1, 2], {0: b"a\\xe2", 1: b"\\x82", 2: b"\\xffb"})   # a cut-off euro, a bad byte
    'a\\ufffd\\ufffdb'
    """
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")


BROKEN = [b"\x80", b"\xbf", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98", b"\xff", b"\xfe", b"\xc0\x80", b"\xc1\xbf",
          b"\xe0\x80\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xf5\x80", b"\xf8\x88\x80\x80\x80"]
# lone continuations, leads cut short, bytes never in UTF-8, overlong forms, a surrogate, past U+10FFFF
BYTES_VOCAB = {i: bytes([i]) for i in range(256)}  # id -> bytes, the 256 one-byte tokens


def _vocab_for(pieces):
    """ids and an id -> bytes table for a list of byte pieces (equal pieces share an id)."""
    vocab, ids = {}, []
    for p in pieces:
        i = next((k for k, b in vocab.items() if b == p), None)
        if i is None:
            i = 256 + len(vocab) if len(p) != 1 else p[0]
            vocab[i] = p
        ids.append(i)
    return ids, vocab


def _broken_pieces(rng):
    """Pieces of UTF-8 text with broken sequences mixed in, cut at random places."""
    data = b""
    for _ in range(rng.randint(0, 6)):
        r = rng.random()
        if r < 0.4:
            data += rng.choice(BROKEN)
        elif r < 0.7:
            data += _gen.utf8(rng, 4)
        else:
            c = rng.choice(_gen.WIDE).encode()
            data += c[: rng.randint(1, len(c))]  # a character, often cut short
    return _gen.split_points(rng, data, 6)


def _replace_cases():
    euro = "€".encode()
    yield from [([0xE2, 0x82], BYTES_VOCAB), ([], {}), *[_vocab_for([b]) for b in BROKEN],
                _vocab_for([b"a\xe2", b"\x82", b"\xffb"]), _vocab_for([euro[:1], euro[1:]]),
                _vocab_for([b"ok", b"\xf0\x9f\x98", b"\x80!"]), _vocab_for([b"\xf0\x9f\x98", b"a"])]


def _replace_case(rng):
    return tuple(_vocab_for(_broken_pieces(rng)))


def _shrink_ids(args):
    """Fewer ids (a prefix, a suffix, or a run of 1-4 dropped), then one character fewer."""
    ids, vocab = args
    pieces = [vocab[i] for i in ids]
    n = len(pieces)
    spans = [(0, k) for k in range(n - 1, 0, -1)] + [(k, n) for k in range(1, n)]
    spans += [(k, k + j) for j in (1, 2, 3, 4) for k in range(n - j + 1)]
    for a, b in spans:
        yield _vocab_for(pieces[:a] + pieces[b:])
    data, ends, at = b"".join(pieces), [], 0
    for p in pieces:
        at += len(p)
        ends.append(at)
    units, at = [], 0  # (start, end) of each character, or of each byte that is not UTF-8
    for ch in data.decode("utf-8", errors="surrogateescape"):
        size = len(ch.encode("utf-8", errors="surrogateescape"))
        units.append((at, at + size))
        at += size
    for s, e in units:  # one character fewer, wherever the cuts fall
        cut = sorted({c if c <= s else max(s, c - (e - s)) for c in ends})
        rest = data[:s] + data[e:]
        yield _vocab_for([rest[a:b] for a, b in zip([0] + cut, cut) if b > a])


def _pieces_shown(args) -> str:
    ids, vocab = args
    return "ids of " + _cut([vocab[i] for i in ids], 56)


@check("ex-decode-replace")
def _replace(decode):
    assert decode_replace([0xE2, 0x82], BYTES_VOCAB) == Tokenizer([]).decode([0xE2, 0x82])  # the anchor
    compare(decode, decode_replace, _replace_cases(), generate=_replace_case, kind=str, shrink=_shrink_ids,
            show=_pieces_shown,
            hint=lambda args, want, got: "join the bytes first; one U+FFFD per bad stretch, "
                                         "from the error's start to its end")
    # the exercise is to do by hand what errors="replace" does: the right text through it is no answer
    assert not _forbidden.uses_constant(decode, "replace"), (
        f"{_calls._name(decode)} gives the right text, but through the codec's 'replace' error handler, which "
        "the exercise rules out\n  hint: decode strictly; on UnicodeDecodeError keep data[:e.start], add "
        "U+FFFD, go on at e.end")


# ---------------------------------------------------------------- ex-decode-stream

def stream_pieces(ids, vocab) -> list[str]:
    """The text each id completes: every whole character so far, less what came before.

    >>> stream_pieces([0, 1, 2], {0: b"a\\xd0", 1: b"\\x9f", 2: b"b"})   # "aПb", the П cut in two
    ['a', 'П', 'b']
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    return [decoder.decode(vocab[i]) for i in ids]


def _stream_pieces(rng):
    """Pieces of valid UTF-8 whose joins fall inside characters: every byte alone, random cuts,
    or one character cut at each of its places; now and then dozens of ids."""
    r = rng.random()
    if r < 0.25:  # one wide character, cut at one place, between ASCII and other wide characters
        c = rng.choice(_gen.WIDE).encode()
        k = rng.randint(1, len(c) - 1)
        before, after = _gen.utf8(rng, 3), _gen.utf8(rng, 3)
        return [p for p in [before + c[:k], c[k:] + after] if p] if rng.random() < 0.5 else \
            [p for p in [before, c[:k], c[k:], after] if p]
    data = "".join(rng.choice(_gen.WIDE + ["a", " ", "b"]) for _ in range(rng.randint(8, 30))).encode() \
        if r < 0.4 else _gen.utf8(rng, 12)
    if r < 0.6:  # every byte its own id: the longest waits
        return [data[i:i + 1] for i in range(len(data))]
    return _gen.split_points(rng, data, max(2, len(data) // 2))


def _stream_cases():
    p = "П".encode()
    yield from [_vocab_for([b"a" + p[:1], p[1:], b"b"]), ([], {}), _vocab_for([b"abc"]),
                _vocab_for([b"\xf0", b"\x9f", b"\x98", b"\x80", b"!"]),
                _vocab_for(["😀😀".encode()[k:k + 1] for k in range(8)]),
                _vocab_for([b"\xe4\xb8", b"\xad\xe6", b"\x96\x87"]),  # a token ends one character, starts one
                _vocab_for([b"a", b"\xc3", b"\xa9\xc3", b"\xa9"])]
    for c in _gen.WIDE:  # each multi-byte character (2, 3 and 4 bytes) cut at each of its places
        b = c.encode()
        for k in range(1, len(b)):
            yield _vocab_for([b"x" + b[:k], b[k:] + b"y"])


def _stream_case(rng):
    return tuple(_vocab_for(_stream_pieces(rng)))


def _as_pieces(decode_stream):
    """The reader's generator run to its end, so its pieces can be compared as a list."""
    def pieces(ids, vocab):
        out = decode_stream(ids, vocab)
        return out if isinstance(out, (str, bytes)) or out is None else list(out)
    pieces.__name__ = getattr(decode_stream, "__name__", "decode_stream")
    return pieces


def _valid_stream(args) -> bool:
    ids, vocab = args
    try:
        b"".join(vocab[i] for i in ids).decode("utf-8")
    except (UnicodeDecodeError, KeyError):
        return False
    return True


def _stream_hint(args, want, got):
    if isinstance(got, list) and len(got) != len(want):
        return f"yield one piece per id: {len(want)} ids here, {len(got)} pieces"
    if isinstance(got, list) and any("\ufffd" in p for p in got if isinstance(p, str)):
        return "half a character leaked as U+FFFD: hold its bytes back"
    return "yield each character when its last byte comes, not before or after"


@check("ex-decode-stream")
def _stream(decode_stream):
    compare(_as_pieces(decode_stream), stream_pieces, _stream_cases(), generate=_stream_case, kind=list,
            shrink=_shrink_ids, valid=_valid_stream, show=_pieces_shown, hint=_stream_hint)
