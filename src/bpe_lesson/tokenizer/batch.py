"""``encode_batch``: many texts at once, on this thread and helper threads that are kept;
and ``encode_to_numpy``, the ids of one text as a NumPy array.

Mixed into ``Tokenizer`` (``BatchEncoding``): the texts are cut into shares that
shrink as the batch goes, and each thread encodes a share with its own compiled
encoder, which lets go of the GIL; the Python backend encodes text by text. The
helper threads are made once per process (a forked child makes its own).

What this module does not do: encode one text (``Tokenizer.encode``), or choose the
backend (the Tokenizer's, as it was given).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._compiled import backend as _backend
from .._internal.arguments import array_dtype, as_dtype, as_text, old_keyword
from ..patterns import normalize_text
from .compiled_path import _ALL, _NONE
from .special_tokens import refuse_specials_in

__all__ = ["BatchEncoding"]

_U32 = np.uint32

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



class BatchEncoding:
    """Mixed into ``Tokenizer``: needs ``encode``, ``_checked``, ``_plan``, ``_whole_call``, ``_fast_encoder``,
    ``_special_sets``, ``_largest_rank``, ``_check_cover``, ``_native`` and ``normalize``."""

    def encode_to_numpy(self, text: str, *, dtype=_U32, allowed_special=(), disallowed_special="all") -> np.ndarray:
        """``encode`` as a NumPy array of ``dtype``: the same ids, without a Python list.

        The compiled backend writes the ids straight into the array (no Python int is
        made); ``pack`` uses it. ``dtype``: an integer type; an id too large for it
        raises ``ValueError`` (uint16 holds ids up to 65,535).

        >>> from bpe_lesson import Tokenizer
        >>> tok = Tokenizer([((97, 97), 256)], pattern=None)
        >>> tok.encode_to_numpy("aaab"), tok.encode_to_numpy("aaab", dtype="uint16").dtype
        (array([256,  97,  98], dtype=uint32), dtype('uint16'))
        """
        if type(text) is not str:
            text = as_text(text, "encode_to_numpy")
        if dtype is _U32:
            plan = self._plan_default
            if plan and allowed_special is _NONE and disallowed_special is _ALL:
                # the default call goes to the compiled encoder from here, not through
                # _whole_call: a Python call less, 90-140 ns of the ~2 us a document of
                # benchmarks/per_document.py's prose takes warm (timeit, interleaved)
                try:
                    ids = plan[0].encode_unless_special(text, plan[1], True)
                except UnicodeEncodeError:  # a lone surrogate: the steps of _checked replace it
                    ids = None
            else:
                ids = self._whole_call(text, allowed_special, disallowed_special, True)
            if ids is not None:
                return ids
        dtype = array_dtype(dtype)
        return as_dtype(self._checked(text, allowed_special, disallowed_special, 0.0, None, array=True), dtype)

    def encode_batch(self, text=None, *, num_threads=None, allowed_special=(), disallowed_special="all",
                     texts=None) -> list[list[int]]:
        """Encode many texts: the same ids as ``[self.encode(t, ...) for t in text]``.

        ``text`` (a list of texts) is tiktoken's name; ``texts=``, this package's before it,
        still works, with a ``DeprecationWarning``.

        ``num_threads`` workers (default: one per core) share the texts: this thread
        and helper threads that are kept between calls. The compiled encoder lets go
        of Python's GIL while it scans, merges and fills the lists, so they run in
        parallel; with the Python backend they take turns. An error is the one that
        encoding the texts one by one would meet first.
        """
        if text is None or texts is not None:  # texts=: the older name (checks.renamed)
            text = old_keyword("encode_batch", "texts", texts, "text", text)
        return self._batch(text, num_threads, allowed_special, disallowed_special, None)

    def encode_batch_to_numpy(self, texts, *, num_threads=None, dtype=np.uint32, allowed_special=(),
                              disallowed_special="all") -> list[np.ndarray]:
        """``encode_batch`` with a NumPy array of ``dtype`` per text, as ``encode_to_numpy``
        gives: the same ids, threads and errors. No Python int is made or counted, so
        more of the work runs on the threads at once, and dropping the arrays is one
        free per text (a list of ids is one decrement per id, on one thread).

        >>> from bpe_lesson import Tokenizer
        >>> tok = Tokenizer([((97, 97), 256)], pattern=None)
        >>> tok.encode_batch_to_numpy(["aaab", "b"], dtype="uint16")
        [array([256,  97,  98], dtype=uint16), array([98], dtype=uint16)]
        """
        return self._batch(texts, num_threads, allowed_special, disallowed_special, array_dtype(dtype))

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
                    refuse_specials_in(self, ready, disallowed)  # the texts before it come first
                ready.append(normalize_text(as_text(text), self.normalize))  # numpy.str_ -> str
            refuse_specials_in(self, ready, disallowed)
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
