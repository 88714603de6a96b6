"""encode_iterable (a lazy stream of ids) and the byte tables a course's BPE speaks (from_vocab,
vocab_bytes, merge_bytes), each against an independent reference: tiktoken's encode of the
whole text, and a merge-replay encoder written out below.
"""

import io
import os
import random

import numpy as np
import pytest

import bpe_lesson
from bpe_lesson import Tokenizer
from bpe_lesson.formats.pretrained import from_pretrained
from bpe_lesson.patterns import GPT2_PATTERN, split_chunks
from bpe_lesson.tokenizer.streaming import HOLD, stretches
from bpe_lesson.teaching.samples import MULTILINGUAL


def _splits(text, rng, n):
    """``text`` cut at ``n`` random places (inside lines, words and characters' neighbours)."""
    cuts = sorted(rng.sample(range(len(text) + 1), min(n, len(text) + 1)))
    return [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]


@pytest.fixture(scope="module", params=["cl100k_base", "o200k_base", "gpt2-pattern"])
def pair(request, prose_docs):
    """(ours, tiktoken's Encoding of the same vocabulary)."""
    if request.param == "gpt2-pattern":
        ours = bpe_lesson.train("\n".join(prose_docs[:40]), vocab_size=600, pattern=GPT2_PATTERN,
                                special_tokens=["<|endoftext|>"])
    else:
        ours = from_pretrained(request.param)
    return ours, ours.to_tiktoken()


def test_a_stream_gives_the_ids_of_the_whole_text(pair, backend, stdlib_docs, prose_docs):
    ours, ref = pair
    ours = Tokenizer(None, pattern=ours.pattern, special_tokens=ours.special_tokens, vocab=ours.vocab,
                     backend=backend)
    rng = random.Random(5)
    texts = stdlib_docs[:3] + prose_docs[:3] + list(MULTILINGUAL.values())
    texts += ["a\n\n  b\n//c\n", "x  \n\n\n y\n\tz", "\n", "", "<|endoftext|>\nok\n<|endoftext|>"]
    for text in texts:
        want = ref.encode(text, allowed_special="all")
        for n in (0, 1, 7, 60):
            # an iterator is streamed stretch by stretch (a short list is encoded at once)
            got = list(ours.encode_iterable(iter(_splits(text, rng, n)), allowed_special="all"))
            assert got == want, (text[:40], n)
            arrays = list(ours.encode_iterable_to_numpy(iter(_splits(text, rng, n)), allowed_special="all"))
            assert all(a.dtype == np.uint32 for a in arrays)
            assert [i for a in arrays for i in a.tolist()] == want, (text[:40], n)
        lines = text.splitlines(keepends=True)  # the common case: a file's lines
        assert list(ours.encode_iterable(lines, allowed_special="all")) == want


def test_a_stream_is_lazy():
    tok = from_pretrained("cl100k_base")
    consumed = []

    def lines():
        for k in range(20_000):
            consumed.append(k)
            yield f"line {k:05d} of a long file\n"
    ids = tok.encode_iterable(lines())
    first = next(ids)
    assert first == tok.encode("line")[0]
    # it gathers HOLD characters of pieces before it looks for a cut, and no more
    width = len("line 00000 of a long file\n")
    assert len(consumed) == -(-HOLD // width), f"{len(consumed)} lines were read before the first id"


def test_an_open_file_streams_the_ids_of_its_text(tmp_path, backend, stdlib_docs):
    # a text file is read in blocks, not lines: the same text (newlines translated as a
    # text file translates them), so tiktoken's ids of what read() returns
    tok = from_pretrained("cl100k_base")
    tok.backend = backend
    ref = tok.to_tiktoken()
    path = tmp_path / "f.txt"
    body = "".join(stdlib_docs)[:300_000]
    path.write_bytes((body[:1000].replace("\n", "\r\n") + body[1000:]).encode())
    with open(path, encoding="utf-8") as f:
        want = ref.encode_ordinary(f.read())
    with open(path, encoding="utf-8") as f:
        assert list(tok.encode_iterable(f)) == want
    with open(path, encoding="utf-8") as f:
        assert np.concatenate(list(tok.encode_iterable_to_numpy(f))).tolist() == want
    # opened in binary: the bytes as they are ("\r\n" kept), tiktoken's ids of their text
    want = ref.encode_ordinary(path.read_bytes().decode("utf-8"))
    with open(path, "rb") as f:
        assert list(tok.encode_iterable(f)) == want
    with open(path, "rb") as f:
        assert np.concatenate(list(tok.encode_iterable_to_numpy(f))).tolist() == want
    with open(path, "rb") as f:
        assert np.concatenate(list(tok.encode_iterable_to_numpy(f, dtype=np.int64))).tolist() == want


def test_a_streams_memory_does_not_grow_with_the_text(backend, stdlib_docs):
    # tracemalloc's peak while the ids are consumed and dropped: the text held is about
    # 2 * HOLD characters (and one stretch's ids), whether the file has 1 or 4 copies
    import tracemalloc

    tok = from_pretrained("cl100k_base")
    tok.backend = backend
    code = "".join(stdlib_docs)
    lines = (code * (1 + (2 << 20) // len(code)))[: 2 << 20].splitlines(keepends=True)  # 2 MB of code
    tok.encode("".join(lines))  # warm the chunk caches: what they hold is not the stream's
    peaks = {}
    for copies in (1, 4):
        tracemalloc.start()
        try:
            n = sum(1 for _ in tok.encode_iterable(line for _ in range(copies) for line in lines))
            peaks[copies] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert n == copies * len(tok.encode("".join(lines)))
    text_bytes = 4 * len("".join(lines))  # the 4-copy text as one string: 8 MB
    assert peaks[4] < 1.5 * peaks[1] + 256 * 1024, peaks
    assert peaks[4] < text_bytes / 4, (peaks, text_bytes)  # about 1 MB: one stretch and its ids


@pytest.mark.parametrize("hold", [1, 7, 100])
def test_stretches_cut_where_the_rule_says_at_any_hold(pair, backend, stdlib_docs, hold):
    """With a small hold, the stream is cut at many safe cuts, and the ids are still tiktoken's."""
    ours, ref = pair
    ours = Tokenizer(None, pattern=ours.pattern, special_tokens=ours.special_tokens, vocab=ours.vocab,
                     backend=backend)
    rng = random.Random(hold)
    for text in stdlib_docs[:3] + list(MULTILINGUAL.values()) + ["a\n\n  b\n//c\n", "x  \n\n\n y\n\tz"]:
        got = [i for part in stretches(ours, _splits(text, rng, 7), hold=hold) for i in part]
        assert got == ref.encode_ordinary(text)


def test_a_stream_refuses_a_disallowed_special_and_bytes():
    tok = from_pretrained("cl100k_base")
    with pytest.raises(ValueError, match=r"special token '<\|endoftext\|>' at character \d+, which is disallowed"):
        list(tok.encode_iterable(["ok\n", "then <|endoftext|>\n"]))
    with pytest.raises(ValueError, match=r"special token '<\|endoftext\|>' at byte 8, which is disallowed"):
        list(tok.encode_iterable(iter([b"ok\n", b"then <|endoftext|>\n"])))
    with pytest.raises(TypeError, match="piece 1 is a str among bytes"):
        list(tok.encode_iterable(iter([b"bytes\n", "text\n"])))
    with pytest.raises(TypeError, match="piece 1 is a bytes among str"):
        list(tok.encode_iterable(iter(["text\n", b"bytes\n"])))
    with pytest.raises(TypeError, match="piece 0 is a int"):
        list(tok.encode_iterable(iter([3])))


@pytest.mark.parametrize("as_array", [False, True])
def test_a_disallowed_special_is_placed_in_the_stream_not_in_its_stretch(backend, stdlib_docs, as_array):
    # the position named is where str.find (bytes.find, for a binary stream) puts the
    # token in the whole text, however many stretches came before it
    tok = from_pretrained("cl100k_base")
    tok.backend = backend
    encode = tok.encode_iterable_to_numpy if as_array else tok.encode_iterable
    text = "".join(stdlib_docs)[:300_000] + "é, then <|endoftext|> and <|fim_prefix|>\n" + "tail\n" * 99
    data = text.encode("utf-8")
    assert text.find("<|endoftext|>") > 4 * HOLD and data.find(b"<|") > text.find("<|")  # a far, multi-byte place
    for pieces, where in ((_splits(text, random.Random(1), 9), f"the stream holds .* at character {text.find('<|')},"),
                          (io.StringIO(text), f"the stream holds .* at character {text.find('<|')},"),
                          (_byte_splits(data, random.Random(1), 9), f"the binary stream holds .* at byte {data.find(b'<|')},"),
                          (io.BytesIO(data), f"the binary stream holds .* at byte {data.find(b'<|')},")):
        with pytest.raises(ValueError, match=where.replace("|", r"\|")):
            list(encode(pieces))


def _byte_splits(data, rng, n):
    """``data`` cut at ``n`` random byte offsets, inside UTF-8 characters as well."""
    cuts = sorted(rng.sample(range(len(data) + 1), min(n, len(data) + 1)))
    return [data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])]


def test_a_stream_of_utf8_bytes_gives_tiktokens_ids(pair, backend, stdlib_docs, prose_docs):
    # the bytes, cut anywhere (inside characters too), and stretched at small holds so
    # that the safe cuts on bytes are taken: tiktoken's ids of the decoded text
    ours, ref = pair
    ours = Tokenizer(None, pattern=ours.pattern, special_tokens=ours.special_tokens, vocab=ours.vocab,
                     backend=backend)
    rng = random.Random(11)
    texts = stdlib_docs[:2] + prose_docs[:2] + list(MULTILINGUAL.values())
    texts += ["a\r\n\r\n  b\r\n//c\n", "\ufeffBOM\n", "\n", "", "<|endoftext|>\nok\n<|endoftext|>",
              "\U0001F600 emoji\nline\n" * 50]
    for text in texts:
        data = text.encode("utf-8")
        want = ref.encode(text, allowed_special="all")
        for n in (0, 3, 40):
            got = list(ours.encode_iterable(iter(_byte_splits(data, rng, n)), allowed_special="all"))
            assert got == want, (text[:40], n)
            arrays = list(ours.encode_iterable_to_numpy(iter(_byte_splits(data, rng, n)), allowed_special="all"))
            assert [i for a in arrays for i in a.tolist()] == want, (text[:40], n)
        for hold in (1, 50):
            got = [i for part in stretches(ours, _byte_splits(data, rng, 9), hold=hold, allowed_special="all")
                   for i in part]
            assert got == want, (text[:40], hold)


def _nearly_utf8(rng):
    """Bytes that are mostly UTF-8, with the bytes its rules are about: continuation bytes,
    C0/C1, E0 and ED with their edge seconds, F0/F4/F5, and characters cut at the end."""
    parts = []
    for _ in range(rng.randrange(1, 12)):
        kind = rng.choice((0,) * 24 + (1, 2, 3, 4, 5))
        if kind == 0:
            parts.append(rng.choice(["ab", "x\n", " y", "\u00e9", "\u20ac", "\U00010348"]).encode())
        elif kind == 1:
            parts.append(bytes([rng.choice([0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xF5, 0xFF])]))
        elif kind == 2:
            parts.append(bytes([rng.choice([0xE0, 0xED, 0xEF]), rng.choice([0x80, 0x9F, 0xA0, 0xBF]), 0x80]))
        elif kind == 3:
            parts.append(bytes([rng.choice([0xF0, 0xF4]), rng.choice([0x80, 0x8F, 0x90, 0xBF]), 0x80, 0x80]))
        elif kind == 4:
            parts.append("\U0001F600".encode()[: rng.randrange(1, 4)])  # a character cut short
        else:
            parts.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4))))
    return b"".join(parts)


def test_bytes_are_refused_exactly_when_pythons_decoder_refuses_them(backend):
    # the compiled check of UTF-8 against Python's strict decoder, on 3,000 generated strings
    tok = from_pretrained("cl100k_base")
    tok.backend = backend
    ref = tok.to_tiktoken()
    fast = tok._fast_encoder()  # None on the Python backend
    rng = random.Random(3)
    refused = 0
    for _ in range(3000):
        data = _nearly_utf8(rng)
        try:
            want = ref.encode_ordinary(data.decode("utf-8"))
        except UnicodeDecodeError as e:
            refused += 1
            assert fast is None or fast.encode_utf8(data, None) is None, data
            with pytest.raises(UnicodeDecodeError) as got:
                list(tok.encode_iterable(iter([b"ok\n", data])))
            assert f"byte {3 + e.start:,} of the stream" in str(got.value.__notes__), data
        else:
            assert list(tok.encode_iterable(iter([data]))) == want, data
            assert fast is None or fast.encode_utf8(data, None, False) == want, data  # taken, not passed on
    assert 300 < refused < 2700, refused  # both sides are tried


def _replay_encode(vocab, merges, specials, pattern, text):
    """A course's encoder: cut specials, split, then apply the merges in order (bytes in, ids out)."""
    ids_of = {b: i for i, b in vocab.items()}
    out = []
    pieces = [text]
    for s in sorted(specials, key=len, reverse=True):
        pieces = [q for p in pieces for q in _keep_split(p, s)]
    for piece in pieces:
        if piece in specials:
            out.append(ids_of[piece.encode()])
            continue
        for chunk in split_chunks(piece, pattern):
            parts = [bytes([b]) for b in chunk.encode()]
            for left, right in merges:
                i = 0
                while i + 1 < len(parts):
                    if parts[i] == left and parts[i + 1] == right:
                        parts[i:i + 2] = [left + right]
                    else:
                        i += 1
            out += [ids_of[p] for p in parts]
    return out


def _keep_split(text, sep):
    parts = text.split(sep)
    out = []
    for k, p in enumerate(parts):
        if k:
            out.append(sep)
        if p:
            out.append(p)
    return out


def test_from_vocab_reads_a_course_triple(prose_docs):
    """CS336's layout: the special token at id 0, the bytes at 1-256, merges from 257 on."""
    trained = bpe_lesson.train("\n".join(prose_docs[:30]), vocab_size=400, pattern="gpt2")
    merges = trained.merge_bytes()
    vocab = {0: b"<|endoftext|>"} | {k + 1: bytes([k]) for k in range(256)}
    vocab |= {257 + k: a + b for k, (a, b) in enumerate(merges)}
    tok = Tokenizer.from_vocab(vocab, merges, ["<|endoftext|>"], pattern="gpt2")
    assert tok.special_tokens == {"<|endoftext|>": 0} and tok.n_vocab == len(vocab)
    for text in prose_docs[30:40] + ["hello<|endoftext|>world <|endoftext|><|endoftext|>"]:
        want = _replay_encode(vocab, merges, ["<|endoftext|>"], GPT2_PATTERN, text)
        assert tok.encode(text, allowed_special="all") == want
    assert tok.vocab_bytes() == vocab
    assert tok.merge_bytes() == merges


def test_from_vocab_gives_a_missing_special_the_next_id_and_round_trips():
    base = from_pretrained("cl100k_base")
    tok = Tokenizer.from_vocab(base.vocab, None, ["<|endoftext|>", "<|mine|>"], pattern=base.pattern)
    assert tok.special_tokens == {"<|endoftext|>": 100_256, "<|mine|>": 100_257}
    back = Tokenizer.from_vocab(base.vocab_bytes(), None, list(base.special_tokens), pattern=base.pattern)
    ref = base.to_tiktoken()
    text = "round <|endoftext|> trip <|fim_prefix|> 中文"
    assert back.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")


@pytest.mark.parametrize("vocab, merges, why", [
    ({k: bytes([k]) for k in range(255)}, None, "lacks 1 of the 256 single bytes"),
    ({k: bytes([k]) for k in range(256)} | {256: b"a"}, None, "two ids"),
    ({k: bytes([k]) for k in range(256)} | {256: b"ab"}, [(b"a", b"c")], "not in vocab"),
    ({k: bytes([k]) for k in range(256)} | {256: b"ab", 257: b"abc"}, [(b"ab", b"c"), (b"a", b"b")],
     "makes token 256 .* after a merge made token 257"),
    ({0: "a"}, None, "maps ids"),
])
def test_from_vocab_names_what_is_wrong(vocab, merges, why):
    with pytest.raises((ValueError, TypeError), match=why):
        Tokenizer.from_vocab(vocab, merges)


@pytest.mark.parametrize("newline", [None, "", "\n"])
def test_a_text_file_is_encoded_as_bytes_up_to_its_first_cr(tmp_path, backend, stdlib_docs, newline):
    # opened as UTF-8 text and not read from: its bytes are read and encoded up to the
    # first "\r", the rest read as text, which translates "\r" as the file was opened
    # to; tiktoken's ids of what read() returns, whatever the newline mode
    tok = from_pretrained("cl100k_base")
    tok.backend = backend
    ref = tok.to_tiktoken()
    body = "".join(stdlib_docs)[:400_000]
    path = tmp_path / "f.txt"
    path.write_bytes((body[:250_000] + "x\r\ny\rz\r\n" + body[250_000:]).encode())
    with open(path, encoding="utf-8", newline=newline) as f:
        want = ref.encode_ordinary(f.read())
    with open(path, encoding="utf-8", newline=newline) as f:
        assert np.concatenate(list(tok.encode_iterable_to_numpy(f))).tolist() == want
    with open(path, encoding="utf-8", newline=newline) as f:
        assert list(tok.encode_iterable(f)) == want
    # after a line was read, and in Latin-1, the text path: tiktoken's ids of the rest
    with open(path, encoding="utf-8", newline=newline) as f:
        text = f.read()
    with open(path, encoding="utf-8", newline=newline) as f:
        first = f.readline()
        assert list(tok.encode_iterable(f)) == ref.encode_ordinary(text[len(first):])
    with open(path, encoding="latin-1", newline=newline) as f:
        text = f.read()
    with open(path, encoding="latin-1", newline=newline) as f:
        assert list(tok.encode_iterable(f)) == ref.encode_ordinary(text)


def test_text_streams_without_a_file_are_read_as_text(backend, stdlib_docs):
    # a StringIO (no encoding, no bytes) and a text wrapper over bytes in memory (no
    # file to map): read as text, tiktoken's ids
    import io

    tok = from_pretrained("cl100k_base")
    tok.backend = backend
    text = "".join(stdlib_docs)[:200_000]
    want = tok.to_tiktoken().encode_ordinary(text)
    assert list(tok.encode_iterable(io.StringIO(text))) == want
    wrapped = io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8", newline="")
    assert np.concatenate(list(tok.encode_iterable_to_numpy(wrapped))).tolist() == want
    assert list(tok.encode_iterable(io.BytesIO(text.encode("utf-8")))) == want  # bytes, read as the file is


@pytest.mark.parametrize("mode", ["rb", "rt"])
def test_a_compressed_file_is_read_through_gzip(tmp_path, backend, mode):
    # a gzip file has a fileno(), of its compressed bytes: it must be read through
    # gzip, not by its file descriptor (300 KB of compressed bytes, more than a stretch)
    import gzip

    tok = from_pretrained("cl100k_base")
    tok.backend = backend
    rng = random.Random(0)
    text = "".join(rng.choice("abcdefghij klmnop\n") for _ in range(500_000))
    with gzip.open(tmp_path / "t.gz", "wt", encoding="utf-8") as f:
        f.write(text)
    assert (tmp_path / "t.gz").stat().st_size > 2 * HOLD
    with gzip.open(tmp_path / "t.gz", mode) as f:
        assert list(tok.encode_iterable(f)) == tok.to_tiktoken().encode_ordinary(text)


@pytest.mark.parametrize("mode", ["rb", "r"])
def test_a_file_with_a_disallowed_special_raises_naming_it(tmp_path, backend, mode):
    # the error of the str path, not one about reading the file
    tok = from_pretrained("cl100k_base")
    tok.backend = backend
    path = tmp_path / "f.txt"
    path.write_text("x\n" * 40_000 + "then <|endoftext|>\n" + "line\n" * 3_000, encoding="utf-8")
    with open(path, mode) as f, pytest.raises(ValueError, match=r"special token '<\|endoftext\|>'"):
        list(tok.encode_iterable(f))
    with open(path, mode) as f:
        assert list(tok.encode_iterable(f, allowed_special="all")) == \
            tok.to_tiktoken().encode(path.read_text(encoding="utf-8"), allowed_special="all")


def _rss_kb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads VmRSS from Linux's /proc")
def test_a_binary_file_is_read_in_stretches(tmp_path, backend, stdlib_docs):
    # a binary file is read a stretch at a time (HOLD bytes, cut at a safe point): the
    # resident memory grows by a few megabytes at most, not by the 24 MB file; the ids
    # are tiktoken's
    tok = from_pretrained("cl100k_base")
    tok.backend = backend
    code = "".join(stdlib_docs)
    text = (code * (1 + (24 << 20) // len(code)))[: 24 << 20]
    path = tmp_path / "big.txt"
    path.write_text(text, encoding="utf-8", newline="")
    want = len(tok.to_tiktoken().encode_ordinary(text))
    before = _rss_kb()
    grew, n = 0, 0
    with open(path, "rb") as f:
        for a in tok.encode_iterable_to_numpy(f):
            n += len(a)
            grew = max(grew, _rss_kb() - before)
        assert f.tell() == path.stat().st_size  # left at the end, as a read would leave it
    assert n == want
    assert grew < 6 * 1024, f"resident memory grew by {grew} KB while reading a 24 MB file"
