"""Training windows: the ids of a corpus cut into (input, target) pairs for a language model.

A window of ``T + 1`` consecutive ids starting at ``s = i * stride`` gives item
``i``: ``x = ids[s : s+T]`` (what the model reads) and ``y = ids[s+1 : s+T+1]``
(what it must predict: each position's *next* id). ``len`` is the number of
such windows that fit, ``max(0, 1 + (N - (T+1)) // stride)``.

The ids come from a tensor in memory or from a shard folder (``shards.py``):
shards are memory-mapped, so the corpus is never read into RAM, and a window
that crosses from one shard into the next is stitched from both.

What this module does not do: pack or verify shards (``pack.py``, ``shards.py``;
opening a folder checks the manifest and the file sizes only, not the hashes),
mask documents from each other inside a window (an EOS separates them; attention
still crosses it), or build chat examples (``chat.py``).
"""

from __future__ import annotations

import operator
import os

import numpy as np

from .._internal.optional import optional_import
from .shards import check_compatible, open_shard, read_manifest
from .tensors import as_int64_ids

__all__ = ["window_count", "SlidingWindowDataset", "loader_seed", "make_dataloader",
           "check_windows"]

torch = optional_import("torch", "bpe_lesson.lm.windows (a PyTorch Dataset)")
from torch.utils.data import DataLoader, Dataset  # noqa: E402  (only once torch is known to be there)


def _positive_int(name, v):
    """``v`` as an int (NumPy ints too) if it is a positive integer; None stays None."""
    if v is None:
        return None
    try:
        if isinstance(v, bool):
            raise TypeError
        v = operator.index(v)  # int, np.int64, ...; not 4.0
    except TypeError:
        raise ValueError(f"{name} must be a positive int, got {v!r}") from None
    if v < 1:
        raise ValueError(f"{name} must be a positive int, got {v!r}")
    return v


def window_count(n_tokens: int, context_length: int, stride: int | None = None) -> int:
    """How many windows of ``context_length + 1`` ids start at multiples of ``stride``.

    >>> window_count(10, 4)   # windows at 0 (ids 0..4) and 4 (ids 4..8); one at 8 would need id 12
    2
    >>> window_count(4, 4)    # fewer than T + 1 ids: no window at all
    0
    >>> window_count(10, 0)
    Traceback (most recent call last):
    ValueError: context_length must be a positive int, got 0
    """
    context_length = _positive_int("context_length", context_length)
    stride = context_length if stride is None else _positive_int("stride", stride)
    try:
        n_tokens = operator.index(n_tokens) if not isinstance(n_tokens, bool) else None
    except TypeError:
        n_tokens = None
    if n_tokens is None or n_tokens < 0:
        raise ValueError("n_tokens must be a whole number of ids, 0 or more")
    return max(0, 1 + (n_tokens - (context_length + 1)) // stride)


class SlidingWindowDataset(Dataset):
    """``(x, y)`` windows over ids in memory or in a shard folder.

    ``source``: a 1-D tensor / array / list of ids, or a shard folder (or its
    ``manifest.json``). ``stride`` defaults to ``context_length`` (windows share
    one id: the last target of one is the first input of the next).
    ``tokenizer`` (a Tokenizer or a tokenizer file) and ``config`` (a dict or
    object with ``vocab_size`` and ``eos_token_id``): when given, a shard folder
    packed with something else is refused, naming both values.

    >>> ds = SlidingWindowDataset(torch.arange(10), context_length=4)
    >>> len(ds), ds[1]
    (2, (tensor([4, 5, 6, 7]), tensor([5, 6, 7, 8])))
    """

    def __init__(self, source, context_length: int, stride: int | None = None, tokenizer=None, config=None):
        context_length, stride = _positive_int("context_length", context_length), _positive_int("stride", stride)
        self.context_length = context_length
        self.stride = context_length if stride is None else stride
        self.manifest = None
        if isinstance(source, (str, os.PathLike)):
            self.manifest, self.folder = read_manifest(source)
            problems = check_compatible(self.manifest, tokenizer=tokenizer, config=config)
            if problems:
                raise ValueError(f"the shards in {self.folder} do not match what you train with:\n  "
                                 + "\n  ".join(problems))
            shards = self.manifest["shards"]
            self._paths = [os.path.join(self.folder, s["path"]) for s in shards]
            for path, s in zip(self._paths, shards):  # cheap: a size per file, no reading
                open_shard(path, self.manifest["dtype"], s["n_tokens"])
            # _starts[k] = position of shard k's first id in the whole stream
            self._starts = np.cumsum([0] + [s["n_tokens"] for s in shards])
            self.n_tokens = int(self._starts[-1])
            self._maps = None  # opened on first use, in each DataLoader worker
        else:
            if tokenizer is not None or config is not None:
                raise ValueError("tokenizer/config checks need a shard folder (its manifest); ids in memory have none")
            self.ids = as_int64_ids(source)
            self.n_tokens = len(self.ids)

    def __len__(self) -> int:
        return window_count(self.n_tokens, self.context_length, self.stride)

    def _read(self, start: int, stop: int) -> torch.Tensor:
        """Ids ``start:stop`` of the whole stream, stitched across shards, as int64."""
        if self.manifest is None:
            return self.ids[start:stop]
        if self._maps is None:
            self._maps = [open_shard(p, self.manifest["dtype"]) for p in self._paths]
        k = int(np.searchsorted(self._starts, start, side="right")) - 1  # the shard holding `start`
        pieces = []
        while start < stop:
            base = int(self._starts[k])
            end = min(stop, int(self._starts[k + 1]))
            pieces.append(self._maps[k][start - base : end - base])  # a view into the memory map
            start, k = end, k + 1
        # the only copy: this window, widened to int64 (what nn.Embedding and cross_entropy take)
        return torch.from_numpy(np.concatenate(pieces).astype(np.int64))

    def __getitem__(self, i: int):
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"window {i} is out of range (this dataset has {n} windows)")
        s = (i % n) * self.stride
        window = self._read(s, s + self.context_length + 1)  # T + 1 ids
        return window[:-1], window[1:]

    def __getstate__(self):
        # subtle: pickling a memory map would copy the whole shard into each DataLoader worker
        d = dict(self.__dict__)
        d["_maps"] = None
        return d

    def __repr__(self):
        where = f"{len(self._paths)} shard(s) in {self.folder}" if self.manifest else "ids in memory"
        return (f"SlidingWindowDataset({len(self):,} windows of {self.context_length} over {self.n_tokens:,} "
                f"tokens, stride {self.stride}, {where})")


def loader_seed(seed: int, epoch: int) -> int:
    """The 64-bit seed of the shuffle for ``(seed, epoch)``, drawn from ``SeedSequence([seed, epoch])``.

    Two pairs of numbers below 2**32 feed ``SeedSequence`` different words, so their
    seeds differ. subtle: it splits a larger number into 32-bit words and does not
    delimit the list, so above 2**32 pairs can meet.

    >>> loader_seed(0, 1) != loader_seed(1, 0)
    True
    >>> loader_seed(2**32, 0) == loader_seed(0, 1)
    True
    """
    for name, v in (("seed", seed), ("epoch", epoch)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"{name} must be an int >= 0, got {v!r}")
    return int(np.random.SeedSequence([int(seed), int(epoch)]).generate_state(1, np.uint64)[0])


def make_dataloader(dataset, batch_size: int, seed: int, epoch: int, shuffle: bool = True,
                    drop_last: bool = False, num_workers: int = 0) -> DataLoader:
    """A DataLoader whose order depends only on ``(seed, epoch)``.

    The shuffle draws from a generator seeded with both numbers,
    ``numpy.random.SeedSequence([seed, epoch])`` (``loader_seed``): two runs with
    the same pair see the same batches, each epoch has its own order, and no two
    pairs of numbers below 2**32 share one (subtle: seeding with ``seed + epoch``
    gives seed 0's epoch 1 the order of seed 1's epoch 0).
    """
    g = torch.Generator()
    g.manual_seed(loader_seed(seed, epoch))
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, generator=g, drop_last=drop_last,
                      num_workers=num_workers)


def check_windows(dataset, samples: int = 8) -> int:
    """Check a few items of any window dataset: shapes agree and ``y`` is ``x`` shifted by one.

    Raises ``ValueError`` naming the first bad item; returns how many were checked.
    A dataset that returns ``(x, x)`` trains a model to copy its input, and the
    loss falls fast: the bug that looks like success.
    """
    n = len(dataset)
    if n == 0:
        raise ValueError("the dataset has no windows (fewer than context_length + 1 ids?)")
    # every item of a small dataset; else `samples` items spread from the first to the last
    picks = range(n) if n <= samples else sorted({round(k * (n - 1) / max(1, samples - 1)) for k in range(samples)})
    for i in picks:
        x, y = dataset[i]
        if x.shape != y.shape or x.ndim != 1:
            raise ValueError(f"item {i}: x has shape {tuple(x.shape)}, y {tuple(y.shape)}; both must be (T,)")
        if not torch.equal(x[1:], y[:-1]):
            raise ValueError(f"item {i}: y is not x shifted by one: x[1:4] = {x[1:4].tolist()}, "
                             f"y[0:3] = {y[0:3].tolist()} (expected y[t] = the id after x[t])")
    return len(picks)
