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
(``ranks.py``), read or write files (``json_file``, ``tiktoken_io`` and ``byte_tables``
beside it, mixed in), encode batches (``batch``, mixed in), or spell tiktoken's and
Hugging Face's other names (``tiktoken_surface`` and ``hf_surface``, mixed in).
"""

from __future__ import annotations

import operator
import random

import numpy as np

from .._internal.arguments import as_ids, as_text, old_keyword, replace_surrogates
from ..patterns import check_form, check_specials_normalized
from ..patterns import normalize_text
from ..patterns import PATTERNS, check_pattern, compile_pattern, split_specials
from ..patterns import uncovered, uncovered_error
from ..ranks import bpe_encode_chunk, recover_merges, vocab_from_merges
from .batch import BatchEncoding
from .byte_tables import ByteTables
from .compiled_path import CompiledPath
from .hf_surface import HuggingFaceNames
from .json_file import JsonFile
from .special_tokens import check_special_tokens, refuse_specials_in
from .streaming import encode_iterable, encode_iterable_to_numpy
from .tiktoken_surface import EncodingSurface, UnknownTokenError

__all__ = ["CACHE_ENTRIES", "checked_merges", "Tokenizer"]

CACHE_ENTRIES = 1 << 18  # the chunk cache starts over at this many chunks (the compiled twin: cache_entries)
_U32 = np.uint32


def checked_merges(merges, vocab=None) -> list:
    """``merges`` as ``[((int, int), int), ...]``, each checked: a pair of known ids and a
    new id, all integers (a NumPy integer too; not 256.7, not True), no id made twice.
    Without ``vocab``, a merge joins ids made before it (the bytes 0-255 or an earlier merge).

    >>> checked_merges([((97, 98), 256), ((97, 99), 256)])
    Traceback (most recent call last):
    ValueError: merge 1 ((97, 99) -> 256) makes id 256, which merge 0 already makes; each merge makes a new id
    """
    out, made = [], {}  # int -> the merge that made it
    for k, m in enumerate(merges):
        try:
            (a, b), n = m
            ids = [operator.index(x) if not isinstance(x, bool) else None for x in (a, b, n)]
        except (TypeError, ValueError):
            raise ValueError(f"merge {k} is {str(m)[:60]}; a merge is ((left_id, right_id), new_id), "
                             f"each an integer") from None
        if None in ids:
            raise ValueError(f"merge {k} is {str(m)[:60]}; ids are integers, not True/False")
        a, b, n = ids
        if n in made:
            raise ValueError(f"merge {k} (({a}, {b}) -> {n}) makes id {n}, which merge {made[n]} already makes; "
                             f"each merge makes a new id")
        known = (lambda i: 0 <= i < 256 or i in made) if vocab is None else (lambda i: i in vocab)
        for side in (a, b):
            if not known(side):
                raise ValueError(f"merge {k} (({a}, {b}) -> {n}) joins id {side}, which is neither a byte (0-255) "
                                 f"nor made by an earlier merge")
        if vocab is None and 0 <= n < 256:
            raise ValueError(f"merge {k} (({a}, {b}) -> {n}) makes id {n}, a byte's id; new ids start at 256")
        made[n] = k
        out.append(((a, b), n))
    return out


def _check_arguments(allowed_special, disallowed_special, dropout) -> None:
    """``encode``'s arguments other than the text, checked (their special tokens are checked
    against the tokenizer's by ``Tokenizer._special_sets``).

    >>> _check_arguments("<|endoftext|>", "all", 0.0)
    Traceback (most recent call last):
    TypeError: allowed_special is 'all' or a set of special tokens, got the string '<|endoftext|>'; write allowed_special={'<|endoftext|>'}
    """
    for name, value in (("allowed_special", allowed_special), ("disallowed_special", disallowed_special)):
        if isinstance(value, str) and value != "all":
            raise TypeError(f"{name} is 'all' or a set of special tokens, got the string {value!r}; "
                            f"write {name}={{{value!r}}}")
    if not (isinstance(dropout, (int, float)) and 0.0 <= dropout <= 1.0):
        raise ValueError(f"dropout must be a probability between 0 and 1, got {dropout!r}")


class Tokenizer(CompiledPath, BatchEncoding, EncodingSurface, HuggingFaceNames, JsonFile, ByteTables):
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
    ``specials_in_text``: what ``encode`` (and every method built on it) does with a
    special token's text when the call names no special tokens (``allowed_special``
    and ``disallowed_special`` left at their defaults): "raise" (the default,
    tiktoken's rule: ``ValueError``), "id" (Stanford CS336's and Hugging Face's rule:
    it becomes its id, as ``allowed_special="all"`` does), or a list of special tokens
    that become their ids, the others' text being plain text (``from_vocab``'s tokens
    that no merge makes). A call that names them is followed as given. (``save`` does
    not store it: ``load`` gives "raise".)

    >>> tok = Tokenizer([((97, 97), 256)], pattern=None)
    >>> tok.encode("aaab"), tok.decode([256, 97, 98])
    ([256, 97, 98], 'aaab')
    """

    def __init__(self, merges, *, pattern=None, special_tokens=None, vocab=None, name=None, normalize=None,
                 backend=None, specials_in_text="raise"):
        # merges=None with a vocab: an imported rank table (tiktoken_io); its merge
        # list is recovered from the ranks the first time someone reads .merges
        # every setting is decided here, once (train decides them itself: _from_resolved)
        if merges is None and vocab is None:
            raise ValueError("merges=None needs a vocab (an imported rank table); pass merges=[] for the 256 bytes alone")
        merges = None if merges is None else checked_merges(merges, vocab)
        pattern = check_pattern(pattern)  # the regex; covers common text, no exponential backtracking
        special_tokens = check_special_tokens(special_tokens)  # str -> int
        normalize = check_form(normalize)  # None or "NFC" / "NFD" / "NFKC" / "NFKD"
        check_specials_normalized(special_tokens, normalize)  # each found in normalized text
        self._setup(merges, vocab, pattern, special_tokens, name, normalize, specials_in_text)
        if len(self._ranks) != len(self.vocab):
            raise ValueError("two ids in the vocabulary have the same bytes; every token's bytes must be distinct")
        for s, i in self.special_tokens.items():
            if i in self.vocab:
                raise ValueError(f"special token {s!r} has id {i}, which the vocabulary already uses for {self.vocab[i]!r}")
        if len(set(self.special_tokens.values())) != len(self.special_tokens):
            raise ValueError("two special tokens share an id")
        self._default_specials = self._resolve_specials_in_text(specials_in_text)  # what encode's defaults mean
        self.backend = backend  # "python", "cython", or None: bpe_lesson.BACKEND (a property: compiled_path)

    _check_arguments = staticmethod(_check_arguments)

    @classmethod
    def _from_resolved(cls, merges, *, vocab, pattern, special_tokens, normalize, backend) -> "Tokenizer":
        """A Tokenizer from settings its caller has already decided and checked (``train``):
        the pattern as its regex, the special tokens as ``{text: id}`` with fresh ids, a
        checked form, a resolved backend, and merges it made itself. Nothing is checked
        or resolved again; the result is what ``Tokenizer(...)`` of the same values gives."""
        self = cls.__new__(cls)
        self._setup(merges, vocab, pattern, special_tokens, None, normalize, "raise")
        self._default_specials = ((), "all")  # specials_in_text="raise"
        self._bind_backend(backend)
        return self

    def _setup(self, merges, vocab, pattern, special_tokens, name, normalize, specials_in_text) -> None:
        """The tables a tokenizer keeps, from its settings as decided (``__init__``, ``_from_resolved``)."""
        self._merges = merges  # None for an imported rank table: recovered when first read
        if vocab is None:
            vocab = vocab_from_merges(merges)
        self.vocab = dict(vocab)  # int -> bytes
        self.pattern, self.special_tokens, self.name, self.normalize = pattern, special_tokens, name, normalize
        self._ranks = {b: i for i, b in self.vocab.items()}  # bytes -> int
        self._largest_rank = max(self.vocab, default=-1)  # what encode_batch_to_numpy's dtype must hold
        self._special_by_id = {i: s.encode("utf-8") for s, i in self.special_tokens.items()}
        self.specials_in_text = specials_in_text
        self._split = compile_pattern(pattern).findall if pattern is not None else None
        # a named pattern covers every character by construction; any other is checked at each encode
        self._check_cover = pattern is not None and pattern not in PATTERNS.values()
        self._cache = {}  # str chunk -> list[int]

    @property
    def merges(self) -> list:
        """``[((left_id, right_id), new_id), ...]``; for an imported vocabulary, recovered
        from the ranks on first use (``ranks.recover_merges``, about a second)."""
        if self._merges is None:
            self._merges = recover_merges(self._ranks)
        return self._merges

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
            if len(self._cache) >= CACHE_ENTRIES:
                self._cache.clear()
            self._cache[chunk] = ids
        return ids

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode text with no special-token handling at all (their text is plain text)."""
        if type(text) is not str:
            text = as_text(text, "encode_ordinary")
        plan = self._plan_ordinary  # (kept: a short document's call is mostly this bookkeeping)
        if plan is False:
            plan = self._plan_ordinary = self._plan((), ())
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
        if type(text) is not str:
            text = as_text(text)
        if dropout == 0:
            ids = self._whole_call(text, allowed_special, disallowed_special, False)
            if ids is not None:
                return ids
        return self._checked(text, allowed_special, disallowed_special, dropout, seed, array=False)

    def encode_iterable(self, pieces, *, allowed_special=frozenset(), disallowed_special="all"):
        """A lazy iterator of the ids of ``encode("".join(pieces))``, on any split of the text into
        pieces (an open file, say), holding only the text since the last safe cut. Pieces of
        UTF-8 bytes, or a file opened with "rb" (the fastest), are encoded as bytes; see
        ``tokenizer/streaming.py``."""
        return encode_iterable(self, pieces, allowed_special, disallowed_special)

    def encode_iterable_to_numpy(self, pieces, *, dtype=_U32, allowed_special=frozenset(), disallowed_special="all"):
        """``encode_iterable`` as a lazy iterator of NumPy arrays, one per stretch of text
        between safe cuts (concatenated: ``encode_to_numpy("".join(pieces))``)."""
        return encode_iterable_to_numpy(self, pieces, allowed_special, disallowed_special, dtype)

    def _checked(self, text, allowed_special, disallowed_special, dropout, seed, array):
        """``encode``'s argument checks, then ``_encode`` (``array``: a NumPy uint32 array)."""
        text = as_text(text)
        _check_arguments(allowed_special, disallowed_special, dropout)
        try:
            return self._encode(text, allowed_special, disallowed_special, dropout, seed, array)
        except UnicodeEncodeError:
            return self._encode(replace_surrogates(text), allowed_special, disallowed_special, dropout, seed, array)

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

    def _resolve_specials_in_text(self, rule):
        """The ``(allowed_special, disallowed_special)`` that a call at the defaults stands for.

        >>> Tokenizer([], special_tokens={"<|a|>": 256, "<|b|>": 257})._resolve_specials_in_text(["<|a|>"])
        (frozenset({'<|a|>'}), ())
        """
        if isinstance(rule, str) and rule in ("raise", "id"):
            return ((), "all") if rule == "raise" else ("all", "all")
        unknown = None if isinstance(rule, str) else [s for s in rule if s not in self.special_tokens]
        if unknown is None or unknown:
            raise ValueError(f"specials_in_text is 'raise' (tiktoken: a special token's text raises unless "
                             f"allowed), 'id' (CS336: it becomes its id) or a list of this tokenizer's "
                             f"special tokens, got {rule!r:.80}")
        return frozenset(rule), ()

    def _special_sets(self, allowed_special, disallowed_special) -> tuple[set, set]:
        """``encode``'s two arguments as the sets of allowed and of disallowed special tokens."""
        if disallowed_special == "all" and not allowed_special:
            allowed_special, disallowed_special = self._default_specials  # the rule the tokenizer was made with
        allowed = set(self.special_tokens) if allowed_special == "all" else set(allowed_special)
        unknown = allowed - set(self.special_tokens)
        if unknown:
            raise ValueError(f"allowed_special names {sorted(unknown)!r}, which this tokenizer does not have "
                             f"(its special tokens: {sorted(self.special_tokens)!r})")
        disallowed = set(self.special_tokens) - allowed if disallowed_special == "all" else set(disallowed_special)
        return allowed, disallowed

    def _refuse_specials(self, text: str, disallowed) -> None:
        """Raise ``ValueError`` at the first disallowed special token in ``text``."""
        refuse_specials_in(self, [text], disallowed)

    # ---- decoding ---------------------------------------------------------
    def decode_bytes(self, tokens=None, *, ids=None) -> bytes:
        """The bytes of a list of ids, special tokens included. (``tokens`` is tiktoken's name;
        ``ids=``, this package's name before it, still works, with a ``DeprecationWarning``.)

        >>> Tokenizer([]).decode_bytes([104, 105]), Tokenizer([]).decode_bytes(tokens=[104, 105])
        (b'hi', b'hi')
        """
        if tokens is None or ids is not None:  # subtle: a positional call pays two tests for the old name
            tokens = old_keyword("decode_bytes", "ids", ids, "tokens", tokens)
        out = []
        for i in as_ids(tokens):
            b = self.vocab.get(i)
            if b is None:
                b = self._special_by_id.get(i)
                if b is None:  # a KeyError as in tiktoken, and a ValueError as before
                    raise UnknownTokenError(f"id {i!r} is not in this vocabulary (size {self.vocab_size}, "
                                            f"ids 0..{self.max_token_id})")
            out.append(b)
        return b"".join(out)

    def decode(self, tokens=None, errors="replace", *, ids=None) -> str:
        """Ids back to text; bytes that are not valid UTF-8 become U+FFFD (``errors``: as in
        ``bytes.decode``, "strict" raises ``UnicodeDecodeError`` instead). ``tokens`` is
        tiktoken's name; ``ids=`` still works (deprecated).

        >>> Tokenizer([]).decode([0xE2, 0x82])   # a cut-off euro sign
        '\ufffd'
        """
        if tokens is None or ids is not None:
            tokens = old_keyword("decode", "ids", ids, "tokens", tokens)
        return self.decode_bytes(tokens).decode("utf-8", errors=errors)
