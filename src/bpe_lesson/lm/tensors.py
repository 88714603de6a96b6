"""Ids in memory as a torch tensor, checked: lists, arrays and tensors all come in through here.

``as_int64_ids`` gives a 1-D int64 tensor and refuses, never casts, floats, bools
and ids beyond int64 (a vocabulary never needs them; a rounded id is a silent bug).
torch is imported when it is called, not when this module is, so ``chat``'s
``render_chat``, which returns plain lists, loads on an install without torch.

What this module does not do: read shards (``windows``), or pad a batch (``preference``).
"""

from __future__ import annotations

import numpy as np

from .._internal.optional import optional_import

__all__ = ["as_int64_ids"]


def as_int64_ids(source) -> torch.Tensor:
    """Ids in memory as a 1-D int64 tensor; floats, bools and ids beyond int64 are refused, not cast.

    >>> as_int64_ids(np.array([1, 2], dtype=np.uint64))
    tensor([1, 2])
    >>> as_int64_ids([1.7, 2.2])
    Traceback (most recent call last):
    ValueError: ids must be integers, got float64 values such as 1.7; nothing is rounded
    """
    torch = optional_import("torch", "as_int64_ids")
    if torch.is_tensor(source):
        if source.is_floating_point() or source.is_complex() or source.dtype == torch.bool:
            raise ValueError(f"ids must be integers, got a {source.dtype} tensor; nothing is rounded")
        arr = source.detach().cpu()
        if arr.dtype == torch.uint64 and arr.numel() and int(arr.max()) > np.iinfo(np.int64).max:
            raise ValueError(f"id {int(arr.max())} is beyond int64, and no vocabulary is that large")
        ids = arr.long()
    else:
        arr = np.asarray(source)
        if arr.dtype == object:  # Python ints beyond 64 bits
            raise ValueError("ids must be integers below 2**63, and no vocabulary is that large")
        if arr.dtype.kind not in "iu":
            if arr.size == 0:
                arr = arr.astype(np.int64)
            else:
                raise ValueError(f"ids must be integers, got {arr.dtype} values such as {arr.flat[0].item()!r}; "
                                 f"nothing is rounded")
        if arr.dtype == np.uint64 and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
            raise ValueError(f"id {int(arr.max())} is beyond int64, and no vocabulary is that large")
        ids = torch.from_numpy(arr.astype(np.int64))
    if ids.ndim != 1:
        raise ValueError(f"ids must be a 1-D sequence of integers, got shape {tuple(ids.shape)}")
    return ids
