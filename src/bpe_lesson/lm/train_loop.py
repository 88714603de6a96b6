"""``train_model``: a few hundred AdamW steps over training windows, the loss curve out.

Deterministic on one device: the weights come from the model's seed, the batch
order from ``make_dataloader(seed, epoch)``, and torch runs on a fixed number of
threads (a different count can change the last bits of a sum). The thread count
is put back when training ends.

What this module does not do: schedule the learning rate, clip gradients, mix
precisions, save checkpoints or evaluate (``evaluate.bits_per_byte``).
"""

from __future__ import annotations

from .._internal.optional import optional_import
from .windows import make_dataloader

__all__ = ["train_model"]

torch = optional_import("torch", "bpe_lesson.lm.train_loop (training a model)")
from torch.nn import functional as F  # noqa: E402  (only once torch is known to be there)


def train_model(model, windows, steps: int, *, lr: float = 3e-3, batch_size: int = 16, seed: int = 0,
                threads: int = 1, weight_decay: float = 0.1, on_step=None) -> list[float]:
    """Train ``model`` on ``windows`` (a ``SlidingWindowDataset`` or any dataset of ``(x, y)``)
    for ``steps`` steps of AdamW; return each step's mean training loss (nats per token).

    Epochs follow one another as needed; epoch ``e`` is shuffled by ``(seed, e)``. The
    batches go to the device the model is on. ``on_step(step, loss)``, when given, is
    called after each step (``step`` counts from 1): a place to measure the model
    part-way (``evaluate.bits_per_byte`` puts it back into training mode).

    >>> from bpe_lesson.lm.model import GPT
    >>> from bpe_lesson.lm.windows import SlidingWindowDataset
    >>> losses = train_model(GPT(8, 8, 1, 2, 4), SlidingWindowDataset(torch.arange(8).repeat(8), 4), 30, lr=1e-2)
    >>> len(losses), losses[-1] < losses[0]
    (30, True)
    """
    if steps < 0:
        raise ValueError(f"steps must be >= 0, got {steps}")
    if len(windows) == 0:
        raise ValueError("no training window: the ids are shorter than context_length + 1")
    device = next(model.parameters()).device
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        torch.manual_seed(seed)  # anything random inside the model's forward
        opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
        model.train()
        losses, epoch = [], 0
        while len(losses) < steps:
            for x, y in make_dataloader(windows, batch_size, seed, epoch):
                logits = model(x.to(device))
                loss = F.cross_entropy(logits.flatten(0, 1), y.to(device).flatten())
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                losses.append(loss.item())
                if on_step is not None:
                    on_step(len(losses), losses[-1])
                if len(losses) == steps:
                    break
            epoch += 1
        return losses
    finally:
        torch.set_num_threads(before)
