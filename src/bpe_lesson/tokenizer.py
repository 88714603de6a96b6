"""The Tokenizer: a vocabulary, its merges, a split pattern and special tokens.

Encoding follows tiktoken's *rank* semantics, so our ids equal tiktoken's for the
same vocabulary: within a chunk, start from single bytes and repeatedly join the
adjacent pair whose concatenated bytes have the lowest id (rank) in the
vocabulary; the leftmost such pair wins a tie. (For the vocabularies our
trainers make this almost always equals replaying the merge list; the book's
tiktoken chapter shows where the two part ways.) Like tiktoken, a chunk whose
bytes are themselves one token is encoded as that token straight away.

Special tokens follow tiktoken too: their text in the input raises unless the
caller allows it; allowed ones become their id and are never split or merged.

What this module does not do: train (``trainer.py``), define the rank loop
(``ranks.py``), or parse ``.tiktoken`` files (``tiktoken_io.py``, which the
``*_tiktoken`` methods below call).
"""

from __future__ import annotations

import json
import operator
import os
import random
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _backend, tiktoken_io
from ._files import atomic_write, read_json
from .normalize import FORMS as NORMALIZATION_FORMS
from .normalize import check_form, check_specials_normalized
from .normalize import normalize as normalize_text
from .patterns import PATTERNS, check_pattern, compile_pattern, resolve_pattern, special_longest_first
from .patterns import special_prefix, special_regex, split_specials
from .patterns import uncovered, uncovered_error
from .ranks import bpe_encode_chunk, recover_merges, vocab_from_merges
from .byte_tables import ByteTables
from .streaming import encode_iterable
from .tiktoken_surface import EncodingSurface, UnknownTokenError

FORMAT = "bpe-lesson tokenizer"
VERSION = 1
_CACHE_LIMIT = 200_000
MAX_ID = tiktoken_io.MAX_ID  # 2**32 - 2: ids are 32-bit, and 2**32 - 1 means "no token"


def check_special_tokens(specials, where: str = "special_tokens") -> dict:
    """A ``{text: id}`` dict of special tokens, checked: non-empty strings, ids 0..MAX_ID.

    ``where`` names the file and key for the message.

    >>> check_special_tokens({"<|eos|>": 300})
    {'<|eos|>': 300}
    >>> check_special_tokens({"<s>": -5})
    Traceback (most recent call last):
    ValueError: special_tokens: '<s>' has id -5; an id is an integer from 0 to 4294967294
    """
    if specials is None:
        return {}
    if not isinstance(specials, dict):
        raise ValueError(f"{where} must map each special token (a string) to its id (an integer), "
                         f"got {type(specials).__name__} {str(specials)[:60]}")
    for text, i in specials.items():
        if not isinstance(text, str) or not text:
            raise ValueError(f"{where}: {text!r} is not a special token; each is a non-empty string")
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i <= MAX_ID:
            raise ValueError(f"{where}: {text!r} has id {i!r}; an id is an integer from 0 to {MAX_ID}")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as e:
            raise ValueError(f"{where}: {text!r} holds a lone surrogate ({text[e.start]!r} at {e.start}), "
                             f"which UTF-8 cannot hold; a special token must be valid text") from None
    return {str.__str__(text): i for text, i in specials.items()}


def as_ids(ids) -> list:
    """Ids as a list of Python ints: a list, a NumPy array, a torch tensor, NumPy ints;
    floats and bools are refused (15.0 is not id 15).

    >>> import numpy as np; as_ids(np.array([1, 2], dtype=np.uint64)), as_ids([np.int32(3)])
    ([1, 2], [3])
    >>> as_ids([15.0])
    Traceback (most recent call last):
    TypeError: ids must be integers; item 0 is 15.0 (float)
    """
    dtype = getattr(ids, "dtype", None)
    if dtype is not None and hasattr(ids, "tolist"):  # a NumPy array or a torch tensor
        kind = getattr(dtype, "kind", None)  # NumPy's; torch dtypes have is_floating_point instead
        floaty = (kind not in ("i", "u")) if kind is not None else (
            dtype.is_floating_point or dtype.is_complex or str(dtype) == "torch.bool")
        if floaty:
            raise TypeError(f"ids must be integers, got an array of {dtype}")
        ids = ids.tolist()  # Python ints, exact (uint64 above 2**63 too)
        if not isinstance(ids, list):
            ids = [ids]
    out = []
    for k, i in enumerate(ids):
        if type(i) is not int:
            try:
                if isinstance(i, bool) or str(getattr(i, "dtype", "")) in ("bool", "torch.bool"):
                    raise TypeError
                i = operator.index(i)  # NumPy ints, 0-d integer tensors
            except TypeError:
                raise TypeError(f"ids must be integers; item {k} is {i!r} ({type(i).__name__})") from None
        out.append(i)
    return out


def find_special_by_str(text: str, longest_first: tuple, prefix: str):
    """The first special token in text: (character offset, token), or None. Every
    token begins with ``prefix``: find each place it occurs (a substring search,
    several GB/s, where the regex would try every character) and try the tokens
    there, longest first, as ``special_regex`` does.

    >>> find_special_by_str("a<|b<|end|>", ("<|endoftext|>", "<|end|>"), "<|")
    (4, '<|end|>')
    """
    at = text.find(prefix)
    while at >= 0:
        token = next((t for t in longest_first if text.startswith(t, at)), None)
        if token is not None:
            return at, token
        at = text.find(prefix, at + 1)
    return None


def replace_surrogates(text: str) -> str:
    """Lone surrogates (which UTF-8 cannot hold) become U+FFFD, as tiktoken does.

    >>> replace_surrogates("a\\ud800b") == "a\\ufffdb"
    True
    """
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def as_text(text, what: str = "encode") -> str:
    """``text`` as a plain ``str``: a ``str`` subclass (``numpy.str_``, say) becomes one, so
    the compiled encoder (which takes exact ``str``) and the readable one see the same;
    anything else is a ``TypeError`` naming its type.

    >>> import numpy as np; type(as_text(np.str_("hi"))).__name__
    'str'
    >>> as_text(None)
    Traceback (most recent call last):
    TypeError: encode takes a str, got NoneType
    """
    if type(text) is str:
        return text
    if isinstance(text, str):
        return str.__str__(text)  # subtle: str(text) would call a subclass's own __str__
    raise TypeError(f"{what} takes a str, got {type(text).__name__}")


_helpers = None
_helpers_lock = threading.Lock()


def _helper_pool() -> ThreadPoolExecutor:
    """The threads that help encode_batch, up to max(cores, 8) at once: made once and
    kept (a new thread per call costs its start, and the kernel's work to map and unmap
    its stack)."""
    global _helpers
    with _helpers_lock:
        if _helpers is None:
            _helpers = ThreadPoolExecutor(max_workers=max(_backend.CORES, 8), thread_name_prefix="bpe_lesson")
        return _helpers


def _forget_helpers() -> None:
    # a forked child has none of the parent's threads: its first batch makes its own pool
    global _helpers, _helpers_lock
    _helpers, _helpers_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_helpers)


def _array_dtype(dtype) -> np.dtype:
    """``dtype`` as a NumPy integer dtype, or ``TypeError``."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "ui":
        raise TypeError(f"dtype must be an integer type such as uint32 or uint16, got {dtype.name}")
    return dtype


def _as_dtype(ids: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """uint32 ``ids`` as ``dtype``; ``ValueError`` when an id does not fit."""
    if ids.dtype == dtype:
        return ids
    top = np.iinfo(dtype).max
    if len(ids) and int(ids.max()) > top:
        raise ValueError(f"id {int(ids.max()):,} does not fit in {dtype.name} (at most {top:,}); "
                         f"use a wider dtype such as uint32")
    return ids.astype(dtype)


def _disallowed_error(at: int, token: str) -> ValueError:
    """The error for a disallowed special token ``token`` found at character ``at``."""
    return ValueError(
        f"the text contains the special token {token!r} at character {at}, which is "
        f"disallowed; pass allowed_special={{{token!r}}} to encode it as its id, or "
        f"disallowed_special=() to encode it as plain text")


class Tokenizer(EncodingSurface, ByteTables):
    """A byte-level BPE tokenizer.

    ``merges``: ``[((left_id, right_id), new_id), ...]`` in merge order.
    ``vocab``: ``{id: bytes}`` (built from the 256 bytes and the merges unless given).
    ``pattern``: the split regex itself, a pattern name, or ``None`` (no split).
    ``special_tokens``: ``{text: id}``; ids must not collide with the vocabulary.
    ``backend``: "python" (the readable code below), "cython" (``_compiled/_encoder.pxi``: the
    same ids, faster) or None for ``bpe_lesson.BACKEND``.
    ``normalize``: None (the default: text is encoded exactly as given) or a Unicode
    form, "NFC", "NFD", "NFKC" or "NFKD", applied to the whole text before special
    tokens are found and before the split, as in training. Caveat: with a form set,
    ``decode(encode(s)) == s`` holds only for text already in that form; NFKC, say,
    turns "ﬁ" into "fi" for good (and can turn look-alike text such as full-width
    "＜｜endoftext｜＞" into a special token).

    >>> tok = Tokenizer([((97, 97), 256)], pattern=None)
    >>> tok.encode("aaab"), tok.decode([256, 97, 98])
    ([256, 97, 98], 'aaab')
    """

    def __init__(self, merges, pattern=None, special_tokens=None, vocab=None, name=None, normalize=None,
                 backend=None):
        # merges=None with a vocab: an imported rank table (tiktoken_io); its merge
        # list is recovered from the ranks the first time someone reads .merges
        if merges is None and vocab is None:
            raise ValueError("merges=None needs a vocab (an imported rank table); pass merges=[] for the 256 bytes alone")
        self._merges = None if merges is None else [((int(a), int(b)), int(n)) for (a, b), n in merges]
        if vocab is None:
            vocab = vocab_from_merges(self._merges)
        self.vocab = dict(vocab)  # int -> bytes
        self.pattern = resolve_pattern(pattern)
        check_pattern(self.pattern)  # covers common text, no exponential backtracking
        self.special_tokens = check_special_tokens(special_tokens)  # str -> int
        self.name = name
        self.normalize = check_form(normalize)  # None or "NFC" / "NFD" / "NFKC" / "NFKD"
        check_specials_normalized(self.special_tokens, self.normalize)  # each found in normalized text
        self._ranks = {b: i for i, b in self.vocab.items()}  # bytes -> int
        self._largest_rank = max(self.vocab, default=-1)  # what encode_batch_to_numpy's dtype must hold
        if len(self._ranks) != len(self.vocab):
            raise ValueError("two ids in the vocabulary have the same bytes; every token's bytes must be distinct")
        for s, i in self.special_tokens.items():
            if i in self.vocab:
                raise ValueError(f"special token {s!r} has id {i}, which the vocabulary already uses for {self.vocab[i]!r}")
        if len(set(self.special_tokens.values())) != len(self.special_tokens):
            raise ValueError("two special tokens share an id")
        self._special_by_id = {i: s.encode("utf-8") for s, i in self.special_tokens.items()}
        self._split = compile_pattern(self.pattern).findall if self.pattern is not None else None
        # a named pattern covers every character by construction; any other is checked at each encode
        self._check_cover = self.pattern is not None and self.pattern not in PATTERNS.values()
        self._cache = {}  # str chunk -> list[int]
        self.backend = backend  # "python", "cython", or None: bpe_lesson.BACKEND (a property, below)

    @property
    def merges(self) -> list:
        """``[((left_id, right_id), new_id), ...]``; for an imported vocabulary, recovered
        from the ranks on first use (``ranks.recover_merges``, about a second)."""
        if self._merges is None:
            self._merges = recover_merges(self._ranks)
        return self._merges

    # ---- sizes ------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        """Number of ids: ordinary tokens plus special tokens."""
        return len(self.vocab) + len(self.special_tokens)

    @property
    def max_token_id(self) -> int:
        return max([self._largest_rank, *self.special_tokens.values()])

    def __repr__(self):
        pat = "None" if self.pattern is None else f"{len(self.pattern)}-char regex"
        merges = "not recovered yet" if self._merges is None else len(self._merges)  # repr never waits
        return (f"Tokenizer(vocab_size={self.vocab_size}, merges={merges}, "
                f"special_tokens={len(self.special_tokens)}, pattern={pat})")

    # ---- encoding ---------------------------------------------------------
    def encode_chunk(self, chunk: str) -> list[int]:
        """Ids of one pre-tokenized chunk (cached: real text repeats its chunks)."""
        chunk = as_text(chunk, "encode_chunk")
        fast = self._fast_encoder()
        if fast is not None:
            return fast.encode_chunk(chunk)
        ids = self._cache.get(chunk)
        if ids is None:
            ids = bpe_encode_chunk(chunk.encode("utf-8"), self._ranks)
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[chunk] = ids
        return ids

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode text with no special-token handling at all (their text is plain text)."""
        text = as_text(text, "encode_ordinary")
        plan = self._plan((), ())
        if plan is not None:  # the compiled encoder takes the whole call (see _plan)
            try:
                return plan[0].encode_ordinary(text)
            except UnicodeEncodeError:  # a lone surrogate: the path below replaces it
                pass
        text = normalize_text(text, self.normalize)
        try:
            return self._encode_split(text)
        except UnicodeEncodeError:
            return self._encode_split(replace_surrogates(text))

    def _encode_split(self, text: str, offset: int = 0, dropout: float = 0.0, rng=None, array=False):
        """Split (already normalized) text into chunks and encode each (with BPE-dropout when
        ``dropout`` > 0: the readable loop, uncached, on either backend).

        Text the pattern leaves unmatched raises ``ValueError`` naming its position
        (``offset``: where ``text`` starts in what the caller passed to ``encode``).
        ``array``: return a NumPy uint32 array instead of a list.
        """
        fast = self._fast_encoder()
        if fast is not None and not dropout:
            # the same steps, compiled
            ids = fast.encode_to_numpy(text) if array else fast.encode_ordinary(text)
            # subtle: the compiled encoder, like tiktoken, encodes the matches only; the ids
            # hold every byte of the text exactly when the pattern covered all of it
            if self._check_cover:
                covered = sum(len(self.vocab[i]) for i in (ids.tolist() if array else ids))
                if covered != len(text.encode("utf-8")):
                    self._refuse_uncovered(text, offset)
            return ids
        if array:
            return np.array(self._encode_split(text, offset, dropout, rng), dtype=np.uint32)
        chunks = self._split(text) if self._split is not None else ([text] if text else [])
        if self._check_cover and sum(map(len, chunks)) != len(text):
            self._refuse_uncovered(text, offset)
        out = []
        for chunk in chunks:
            if dropout:
                out.extend(bpe_encode_chunk(chunk.encode("utf-8"), self._ranks, dropout, rng))
            else:
                out.extend(self.encode_chunk(chunk))
        return out

    def _refuse_uncovered(self, text, offset):
        at = uncovered(text, self.pattern)
        where = "the normalized text" if self.normalize else "the text"
        raise uncovered_error(text, at, self.pattern, where, offset)

    @property
    def backend(self) -> str:
        """Which encoder runs: "python" or "cython"; assign to switch (the ids are the same)."""
        return self._backend

    @backend.setter
    def backend(self, value):
        value = _backend.resolve_backend(value)
        if getattr(self, "_backend", None) != value:
            self._backend = value
            self._native = _backend.compiled(value)  # the compiled extension, or None on "python"
            self._fast = None  # the compiled Encoder, built now: not inside the first encode
            self._plans = {}   # see _plan
            self._fast_encoder()

    def _fast_encoder(self):
        """The compiled encoder (built once), or None when the backend is "python"."""
        if self._fast is None:
            self._fast = False
            # a vocabulary without all 256 single bytes stays on the Python path
            if self._native is not None and all(bytes([b]) in self._ranks for b in range(256)):
                self._fast = self._native.Encoder(self._ranks, self.pattern)
        return self._fast or None

    def encode_batch(self, texts, *, num_threads=None, allowed_special=(), disallowed_special="all") -> list[list[int]]:
        """Encode many texts: the same ids as ``[self.encode(t, ...) for t in texts]``.

        ``num_threads`` workers (default: one per core) share the texts: this thread
        and helper threads that are kept between calls. The compiled encoder lets go
        of Python's GIL while it scans, merges and fills the lists, so they run in
        parallel; with the Python backend they take turns. An error is the one that
        encoding the texts one by one would meet first.
        """
        return self._batch(texts, num_threads, allowed_special, disallowed_special, None)

    def encode_batch_to_numpy(self, texts, *, num_threads=None, dtype=np.uint32, allowed_special=(),
                              disallowed_special="all") -> list[np.ndarray]:
        """``encode_batch`` with a NumPy array of ``dtype`` per text, as ``encode_to_numpy``
        gives: the same ids, threads and errors. No Python int is made or counted, so
        more of the work runs on the threads at once, and dropping the arrays is one
        free per text (a list of ids is one decrement per id, on one thread).

        >>> tok = Tokenizer([((97, 97), 256)], pattern=None)
        >>> tok.encode_batch_to_numpy(["aaab", "b"], dtype="uint16")
        [array([256,  97,  98], dtype=uint16), array([98], dtype=uint16)]
        """
        return self._batch(texts, num_threads, allowed_special, disallowed_special, _array_dtype(dtype))

    def _batch(self, texts, num_threads, allowed_special, disallowed_special, dtype):
        """``encode_batch`` (``dtype`` None: lists) or ``encode_batch_to_numpy`` (arrays of ``dtype``)."""
        if isinstance(texts, (str, bytes)):
            raise TypeError(f"encode_batch takes a list of texts, got one {type(texts).__name__} "
                            f"({texts[:30]!r}); use encode() for one text, or pass [text]")
        texts = list(texts)
        threads = _backend.CORES if num_threads is None else num_threads
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"num_threads must be a positive int or None (one per core), got {threads!r}")
        array = dtype is not None

        def one(text):
            if array:  # a batch names encode in its errors, as the compiled batch does
                return self.encode_to_numpy(as_text(text), dtype=dtype, allowed_special=allowed_special,
                                            disallowed_special=disallowed_special)
            return self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)

        fast = self._fast_encoder()
        allowed, disallowed = self._special_sets(allowed_special, disallowed_special)
        narrow = array and self._largest_rank > np.iinfo(dtype).max  # (allowed special tokens go text by text)
        if fast is None or allowed or self._check_cover or narrow:
            # the text-by-text path: the Python backend, allowed special tokens, a pattern to check,
            # or a dtype too narrow for some ids (then the first error is the one text by text meets)
            if threads == 1 or len(texts) < 2:
                return [one(t) for t in texts]
            with ThreadPoolExecutor(max_workers=min(threads, len(texts))) as pool:
                return list(pool.map(one, texts))

        def share(part, enc):
            # checked and normalized here (holding the GIL), then encoded in one compiled call (without it)
            ready = []
            for text in part:
                if not isinstance(text, str):
                    self._refuse_specials_in(ready, disallowed)  # the texts before it come first
                ready.append(normalize_text(as_text(text), self.normalize))  # numpy.str_ -> str
            self._refuse_specials_in(ready, disallowed)
            try:
                # lists: untracked by the cycle collector until the whole batch is made (see below)
                ids = enc.encode_batch(ready, track=False, array=array)
            except UnicodeEncodeError:  # a lone surrogate somewhere: encode() replaces it
                return [one(t) for t in part]
            # every id fits the dtype here (not narrow): a plain conversion, no check of the ids
            return [x.astype(dtype) for x in ids] if array and dtype != np.uint32 else ids

        if threads == 1 or len(texts) < 2:
            done = share(texts, fast)
            return done if array else self._native.track_lists(done)
        # Shares that shrink as the batch goes (guided scheduling): each takes 1/(2 threads)
        # of the characters left, down to 1/(16 threads) of all, so the threads take few
        # shares, and end close together when the last ones are small.
        parts, cut, size = [], 0, 0
        sizes = [len(t) if isinstance(t, str) else 1 for t in texts]
        left = sum(sizes)
        least = left / (16 * threads)
        for k, n in enumerate(sizes):
            size += n
            if size >= max(left / (2 * threads), least):
                parts.append(texts[cut:k + 1])
                cut, left, size = k + 1, left - size, 0
        if cut < len(texts):
            parts.append(texts[cut:])
        # Each thread keeps one encoder (this thread fast itself, thread k its helper k),
        # whose caches it warmed the last time, and takes the next share when it is done
        # with one; next() on the shared iterator holds the GIL, so each share is taken once.
        results, errors = [None] * len(parts), {}
        todo = iter(range(len(parts)))

        def work(enc):
            for j in todo:
                try:
                    results[j] = share(parts[j], enc)
                except Exception as e:  # raised below, the first share's first
                    errors[j] = e

        helpers = [_helper_pool().submit(work, fast.helper(k)) for k in range(1, min(threads, len(parts)))]
        try:
            work(fast)
        finally:
            for f in helpers:
                f.result()
        if errors:
            raise errors[min(errors)]
        done = [ids for part in results for ids in part]
        # lists are tracked only now: a collection while the shares were made would otherwise
        # walk every id of the shares already done, under the GIL (Encoder.encode_batch)
        return done if array else self._native.track_lists(done)

    def encode(self, text: str, *, allowed_special=(), disallowed_special="all", dropout=0.0, seed=None) -> list[int]:
        """Encode text to ids, with tiktoken's rules for special tokens.

        ``allowed_special``: "all" or a set of special tokens that become their id.
        ``disallowed_special``: "all" (every special token not allowed) or a set;
        finding one of these in ``text`` raises ``ValueError``.
        ``dropout``: BPE-dropout's probability p (Provilkov et al., 2020), 0 (the
        default: plain rank encoding, ``seed`` unused) to 1 (every chunk stays in
        bytes); see ``ranks.merge_with_dropout``. ``seed`` seeds its draws
        (``random.Random(seed)``): the same seed gives the same ids on either
        backend, because with ``dropout`` > 0 both run the readable loop.
        """
        text = as_text(text)
        if dropout == 0:
            plan = self._plan(allowed_special, disallowed_special)
            if plan is not None:  # the compiled encoder takes the whole call (see _plan)
                try:
                    ids = plan[0].encode_unless_special(text, plan[1], False)
                except UnicodeEncodeError:  # a lone surrogate: the path below replaces it
                    ids = None
                if ids is not None:
                    return ids
        return self._checked(text, allowed_special, disallowed_special, dropout, seed, array=False)

    def _plan(self, allowed_special, disallowed_special):
        """(compiled encoder, ``SpecialSearch`` or None) for a call the compiled encoder can
        take whole, or None for one that needs the steps of ``_encode``.

        What does not depend on the text (the two argument sets and their checks, the
        special tokens' UTF-8, the encoder) is worked out once per distinct pair of
        arguments and kept: on a 70-character document, working it out on each call
        had cost 3-4 us, three times the encoding (``benchmarks/per_call.py``). A call
        it cannot take: the Python backend, a normalization form, a pattern that may
        leave text unmatched, an allowed special token (the text is cut at them), or
        disallowed tokens without a common beginning of 2 bytes (the regex searches).
        """
        key = (allowed_special, disallowed_special)
        try:
            return self._plans[key]
        except KeyError:
            pass
        except TypeError:  # a set: the same plan as the frozenset
            key = tuple(frozenset(v) if isinstance(v, (set, list)) else v for v in key)
            try:
                return self._plans[key]
            except (KeyError, TypeError):
                pass
        fast = self._fast_encoder()
        if fast is None or self.normalize or self._check_cover:
            plan = None
        else:
            self._checked("", allowed_special, disallowed_special, 0.0, None, False)  # the argument checks
            allowed, disallowed = self._special_sets(allowed_special, disallowed_special)
            prefix = special_prefix(frozenset(disallowed))
            if allowed or (disallowed and len(prefix.encode("utf-8")) < 2):
                plan = None
            elif disallowed:
                plan = (fast, self._native.SpecialSearch(special_longest_first(frozenset(disallowed)), prefix))
            else:
                plan = (fast, None)
        if len(self._plans) < 64:  # (a caller passing a new set each time does not grow it)
            try:
                self._plans[key] = plan
            except TypeError:
                pass
        return plan

    def encode_iterable(self, pieces, *, allowed_special=frozenset(), disallowed_special="all"):
        """A lazy iterator of the ids of ``encode("".join(pieces))``, on any split of the text into
        pieces (an open file's lines, say), holding only the text since the last safe cut;
        see ``streaming.py``."""
        return encode_iterable(self, pieces, allowed_special, disallowed_special)

    def _checked(self, text, allowed_special, disallowed_special, dropout, seed, array):
        """``encode``'s argument checks, then ``_encode`` (``array``: a NumPy uint32 array)."""
        text = as_text(text)
        for name, value in (("allowed_special", allowed_special), ("disallowed_special", disallowed_special)):
            if isinstance(value, str) and value != "all":
                raise TypeError(f"{name} is 'all' or a set of special tokens, got the string {value!r}; "
                                f"write {name}={{{value!r}}}")
        if not (isinstance(dropout, (int, float)) and 0.0 <= dropout <= 1.0):
            raise ValueError(f"dropout must be a probability between 0 and 1, got {dropout!r}")
        try:
            return self._encode(text, allowed_special, disallowed_special, dropout, seed, array)
        except UnicodeEncodeError:
            return self._encode(replace_surrogates(text), allowed_special, disallowed_special, dropout, seed, array)

    def encode_to_numpy(self, text: str, *, dtype=np.uint32, allowed_special=(), disallowed_special="all") -> np.ndarray:
        """``encode`` as a NumPy array of ``dtype``: the same ids, without a Python list.

        The compiled backend writes the ids straight into the array (no Python int is
        made); ``pack`` uses it. ``dtype``: an integer type; an id too large for it
        raises ``ValueError`` (uint16 holds ids up to 65,535).

        >>> tok = Tokenizer([((97, 97), 256)], pattern=None)
        >>> tok.encode_to_numpy("aaab"), tok.encode_to_numpy("aaab", dtype="uint16").dtype
        (array([256,  97,  98], dtype=uint32), dtype('uint16'))
        """
        text = as_text(text, "encode_to_numpy")
        if dtype is np.uint32:
            plan = self._plan(allowed_special, disallowed_special)
            if plan is not None:  # the compiled encoder takes the whole call (see _plan)
                try:
                    ids = plan[0].encode_unless_special(text, plan[1], True)
                except UnicodeEncodeError:  # a lone surrogate: the path below replaces it
                    ids = None
                if ids is not None:
                    return ids
        dtype = _array_dtype(dtype)
        return _as_dtype(self._checked(text, allowed_special, disallowed_special, 0.0, None, array=True), dtype)

    def _encode(self, text: str, allowed_special, disallowed_special, dropout=0.0, seed=None, array=False):
        rng = random.Random(seed) if dropout else None  # one stream of draws per call
        text = normalize_text(text, self.normalize)  # before special tokens and the split, as in training
        allowed, disallowed = self._special_sets(allowed_special, disallowed_special)
        self._refuse_specials(text, disallowed)
        if not allowed:
            return self._encode_split(text, 0, dropout, rng, array)
        out = []
        at = 0  # where the piece starts in the text
        for piece, special in split_specials(text, allowed):
            if special:
                out.append(self.special_tokens[piece])  # an allowed special token: its id, never split
            else:
                out.extend(self._encode_split(piece, at, dropout, rng))
            at += len(piece)
        return np.array(out, dtype=np.uint32) if array else out

    def _special_sets(self, allowed_special, disallowed_special) -> tuple[set, set]:
        """``encode``'s two arguments as the sets of allowed and of disallowed special tokens."""
        allowed = set(self.special_tokens) if allowed_special == "all" else set(allowed_special)
        unknown = allowed - set(self.special_tokens)
        if unknown:
            raise ValueError(f"allowed_special names {sorted(unknown)!r}, which this tokenizer does not have "
                             f"(its special tokens: {sorted(self.special_tokens)!r})")
        disallowed = set(self.special_tokens) - allowed if disallowed_special == "all" else set(disallowed_special)
        return allowed, disallowed

    def _refuse_specials(self, text: str, disallowed) -> None:
        """Raise ``ValueError`` at the first disallowed special token in ``text``."""
        self._refuse_specials_in([text], disallowed)

    def _refuse_specials_in(self, texts: list, disallowed) -> None:
        """Raise ``ValueError`` at the first disallowed special token of the first text
        that has one. With the compiled encoder, all the searches are one call, which
        lets go of the GIL once (encode_batch's threads search at once); otherwise
        ``find_special_by_str`` searches each str (a lone surrogate, or a common
        beginning of one character), or the regex does (no common beginning)."""
        if not disallowed or not texts:
            return
        tokens = frozenset(disallowed)
        prefix = special_prefix(tokens)   # what they all begin with, e.g. "<|"
        longest_first = special_longest_first(tokens)
        fast = self._fast_encoder() if len(prefix) >= 2 else None
        if fast:
            try:  # find_special_by_str's search, in C over the texts' UTF-8
                found = fast.find_special_batch(texts, longest_first, prefix)
            except UnicodeEncodeError:  # a lone surrogate in one of them: search the strs
                pass
            else:
                if found is not None:
                    raise _disallowed_error(*found[1:])
                return
        for text in texts:
            if prefix:
                found = find_special_by_str(text, longest_first, prefix)
            else:
                # concurrent=True: the search lets go of the GIL, so encode_batch's threads search at once
                m = special_regex(disallowed).search(text, concurrent=True)
                found = None if m is None else (m.start(), m.group())
            if found is not None:
                raise _disallowed_error(*found)

    # ---- decoding ---------------------------------------------------------
    def decode_bytes(self, ids) -> bytes:
        """The bytes of a list of ids, special tokens included.

        >>> Tokenizer([]).decode_bytes([104, 105])
        b'hi'
        """
        out = []
        for i in as_ids(ids):
            b = self.vocab.get(i)
            if b is None:
                b = self._special_by_id.get(i)
                if b is None:  # a KeyError as in tiktoken, and a ValueError as before
                    raise UnknownTokenError(f"id {i!r} is not in this vocabulary (size {self.vocab_size}, "
                                            f"ids 0..{self.max_token_id})")
            out.append(b)
        return b"".join(out)

    def decode(self, ids, errors="replace") -> str:
        """Ids back to text; bytes that are not valid UTF-8 become U+FFFD (``errors``: as in
        ``bytes.decode``, "strict" raises ``UnicodeDecodeError`` instead).

        >>> Tokenizer([]).decode([0xE2, 0x82])   # a cut-off euro sign
        '\ufffd'
        """
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

    # ---- saving -----------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "version": VERSION,
            "pattern": self.pattern,
            "special_tokens": self.special_tokens,
            "merges": [[a, b, n] for (a, b), n in self.merges],
        } | ({"normalize": self.normalize} if self.normalize else {})  # the key is there only when set

    def save(self, path) -> None:
        """Write one human-readable JSON file (a merge per line), atomically.

        The format is a merge list, so it holds vocabularies that are the 256 bytes in
        order plus one token per merge; an imported one that is not (tiktoken's orders
        its bytes its own way) is refused with a pointer to ``save_tiktoken``.
        """
        for i in range(256):  # checked first: it fails fast, before recovering any merges
            if self.vocab.get(i) != bytes([i]):
                raise ValueError(f"this JSON format needs ids 0-255 to be the bytes 0-255 in order, but id {i} is "
                                 f"{self.vocab.get(i)!r} in this vocabulary (imported?); save it with "
                                 f"save_tiktoken(), which keeps any rank table")
        base = vocab_from_merges(self.merges)
        if base != self.vocab:
            bad = min(i for i in set(base) | set(self.vocab) if base.get(i) != self.vocab.get(i))
            raise ValueError(f"this vocabulary is not the 256 bytes plus its merges: id {bad} is "
                             f"{self.vocab.get(bad)!r} here but {base.get(bad)!r} by the merges (e.g. a token no merge "
                             f"of two older tokens builds); save it with save_tiktoken() instead")
        d = self.to_dict()
        head = json.dumps({k: v for k, v in d.items() if k != "merges"}, ensure_ascii=False, indent=1)
        lines = ",\n".join("  " + json.dumps(m) for m in d["merges"])
        text = head[:-2] + ',\n "merges": [\n' + lines + ("\n ]\n}\n" if lines else "]\n}\n")
        atomic_write(path, text.encode("utf-8"))

    def save_tiktoken(self, path) -> None:
        """Write a ``.tiktoken`` file (ranks = our ids) and its JSON sidecar; see ``tiktoken_io``."""
        tiktoken_io.save_tiktoken(self, path)

    def to_tiktoken(self, name=None):
        """A ``tiktoken.Encoding`` with our ranks, pattern and special tokens; see ``tiktoken_io``."""
        return tiktoken_io.to_tiktoken(self, name)

    @classmethod
    def from_spec(cls, spec: dict) -> "Tokenizer":
        """A Tokenizer from imported parts (``ranks``, ``pattern``, ``special_tokens``, ``name``,
        ``normalize``); its merges are recovered only when first asked for."""
        vocab = {rank: token for token, rank in spec["ranks"].items()}  # int -> bytes
        return cls(None, pattern=spec["pattern"], special_tokens=spec["special_tokens"], vocab=vocab,
                   name=spec.get("name"), normalize=spec.get("normalize"))

    @classmethod
    def from_tiktoken(cls, source) -> "Tokenizer":
        """Import a ``tiktoken.Encoding``, a ``.tiktoken`` file, or "cl100k_base" / "o200k_base" (offline,
        sha256-checked); see ``tiktoken_io.tiktoken_spec``."""
        return cls.from_spec(tiktoken_io.tiktoken_spec(source))

    @classmethod
    def load_tiktoken(cls, path, pattern=None, special_tokens=None, expected_sha256=None) -> "Tokenizer":
        """Load a ``.tiktoken`` file; pattern and special tokens from the arguments, else its sidecar
        (see ``tiktoken_io.read_tiktoken``)."""
        spec = tiktoken_io.read_tiktoken(path, pattern, special_tokens, expected_sha256)
        try:
            return cls.from_spec(spec)
        except ValueError as e:  # e.g. a special token's id that a token already has
            raise ValueError(f"{os.fspath(path)} with {tiktoken_io.find_sidecar(path)}: {e}") from None

    @classmethod
    def load(cls, path) -> "Tokenizer":
        """Read what ``save`` or ``save_tiktoken`` wrote (chosen by the name's ending: ``.tiktoken``
        or ``.tiktoken.gz``, else our JSON); a corrupt or truncated file raises ``ValueError``."""
        path = os.fspath(path)
        if path.endswith((".tiktoken", ".tiktoken.gz")):
            return cls.load_tiktoken(path)
        if os.path.isdir(path):
            raise ValueError(f"{path} is a folder; a tokenizer is one file (.json, .tiktoken or .tiktoken.gz)")
        # a FIFO or device refused, never opened; at most MAX_JSON_BYTES read; a key twice refused
        d = read_json(path, "valid bpe-lesson tokenizer file")
        return cls.from_dict(d, source=path)

    @classmethod
    def from_dict(cls, d, source="<dict>") -> "Tokenizer":
        def bad(why):
            return ValueError(f"{source} is not a valid bpe-lesson tokenizer file: {why}")

        if isinstance(d, dict) and isinstance(d.get("model"), dict) and "format" not in d:
            raise ValueError(f"{source} is a Hugging Face tokenizer.json, not a bpe-lesson file; read it with "
                             f"bpe_lesson.interop.from_huggingface({source!r})")
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise bad(f"the 'format' field must be {FORMAT!r}")
        if type(d.get("version")) is not int or d["version"] != VERSION:  # subtle: True == 1 in Python
            raise bad(f"version {d.get('version')!r} is not supported (this package reads version {VERSION})")
        merges = d.get("merges")
        if not isinstance(merges, list):
            raise bad("'merges' must be a list")
        out, seen = [], {}  # seen: (int, int) -> the merge that made it
        for k, m in enumerate(merges):
            if not (isinstance(m, list) and len(m) == 3 and all(type(x) is int for x in m)):
                raise bad(f"merge {k} is {m!r}, expected [left_id, right_id, new_id]")
            a, b, n = m
            if n != 256 + k:
                raise bad(f"merge {k} makes id {n}, expected {256 + k} (ids follow merge order)")
            if not (0 <= a < n and 0 <= b < n):
                raise bad(f"merge {k} joins ids {a} and {b}; both must already exist (below {n})")
            if (a, b) in seen:
                raise bad(f"merge {k} repeats merge {seen[(a, b)]} ({a}, {b}); each pair is merged once")
            seen[(a, b)] = k
            out.append(((a, b), n))
        try:
            specials = check_special_tokens(d.get("special_tokens"), "'special_tokens'")
        except ValueError as e:
            raise bad(str(e)) from None
        pattern = d.get("pattern")
        if pattern is not None and not isinstance(pattern, str):
            raise bad("'pattern' must be a regex string or null")
        norm = d.get("normalize")
        if norm is not None and norm not in NORMALIZATION_FORMS:
            raise bad(f"'normalize' is {norm!r}; expected null or one of {NORMALIZATION_FORMS}")
        try:
            check_pattern(pattern)
        except ValueError as e:
            raise bad(f"'pattern': {e}") from None
        try:
            return cls(out, pattern=pattern, special_tokens=specials, normalize=norm)
        except ValueError as e:  # a special token's id that the merges already use, or two that share one
            raise bad(f"'special_tokens': {e}") from None
