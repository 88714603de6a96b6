"""``bits_per_byte``: a language model's held-out loss in a unit every tokenizer shares.

Loss per token cannot be compared across vocabularies (a larger one predicts fewer,
harder tokens); the same text has the same bytes under any tokenizer, so the total
cross-entropy in bits divided by the bytes predicted can.

The convention:
  * each text is encoded on its own (``encode`` with its special tokens allowed);
    its first token is not predicted (nothing comes before it), every later one is;
  * a text longer than ``context_length + 1`` tokens is cut into windows of
    ``context_length`` predictions that do not overlap: window ``k`` reads tokens
    ``kT .. kT+T-1`` and predicts ``kT+1 .. kT+T``, so each token is predicted once,
    and the first one of each window sees no earlier window (a pessimistic figure;
    overlapping windows would give lower numbers at more cost);
  * a predicted special token adds neither its loss nor bytes.

What this module does not do: train (``train_loop.py``) or pick a tokenizer.
"""

from __future__ import annotations

import math

from .._internal.optional import optional_import

__all__ = ["windows_of", "bits_per_byte"]

torch = optional_import("torch", "bpe_lesson.lm.evaluate (bits per byte)")
from torch.nn import functional as F  # noqa: E402  (only once torch is known to be there)


def windows_of(ids: list[int], context_length: int) -> list[tuple[list[int], list[int]]]:
    """The (input, target) windows that predict every id after the first once.

    >>> windows_of([1, 2, 3, 4, 5, 6], 2)
    [([1, 2], [2, 3]), ([3, 4], [4, 5]), ([5], [6])]
    """
    last = len(ids) - 1  # the last id is only ever a target
    return [(ids[s:min(s + context_length, last)], ids[s + 1:s + 1 + context_length])
            for s in range(0, last, context_length)]


@torch.no_grad()
def bits_per_byte(model, tokenizer, texts, context_length: int | None = None, batch_size: int = 16,
                  device=None) -> float:
    """Held-out cross-entropy of every predicted token, in bits, per UTF-8 byte those tokens cover.

    ``model``: ids ``(batch, time)`` -> logits ``(batch, time, vocab)``. ``texts``: a str
    or a list of them. ``context_length``: the model's own when None. The result does
    not depend on ``batch_size`` (windows are padded at the end, and a causal model's
    earlier positions never see the padding). Convention: the module docstring.

    A model that gives every id the same logit costs ``log2(V)`` bits a token:
    ``log2(V) * tokens / bytes``.
    """
    texts = [texts] if isinstance(texts, str) else list(texts)
    if context_length is None:
        context_length = model.context_length
    device = device or next(model.parameters(), torch.empty(0)).device
    specials = set(tokenizer.special_tokens.values())
    windows = [w for text in texts for w in windows_of(tokenizer.encode(text, allowed_special="all"), context_length)]
    was_training = getattr(model, "training", False)
    if hasattr(model, "eval"):
        model.eval()
    nats, n_bytes = 0.0, 0
    try:
        for k in range(0, len(windows), batch_size):
            batch = windows[k:k + batch_size]
            t = max(len(x) for x, _ in batch)
            x = torch.zeros(len(batch), t, dtype=torch.long)
            y = torch.full((len(batch), t), -100, dtype=torch.long)  # -100: not predicted (padding, specials)
            for i, (xs, ys) in enumerate(batch):
                x[i, :len(xs)] = torch.tensor(xs)
                y[i, :len(ys)] = torch.tensor([-100 if j in specials else j for j in ys])
                n_bytes += sum(len(tokenizer.decode_bytes([j])) for j in ys if j not in specials)
            logits = model(x.to(device))
            logits = logits if logits.dtype == torch.float64 else logits.float()  # half precision widened
            nats += F.cross_entropy(logits.flatten(0, 1), y.to(device).flatten(), ignore_index=-100,
                                    reduction="sum").item()
    finally:
        if was_training:
            model.train()
    if n_bytes == 0:
        raise ValueError("no predicted byte: each text needs two tokens or more besides special tokens")
    return nats / math.log(2) / n_bytes
