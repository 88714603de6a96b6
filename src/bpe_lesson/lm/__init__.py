"""From a tokenizer to a language model's input: ``pack`` (documents into token
shards; ``pack_command``: ``bpe-lesson pack``), ``shards`` (the folder format and
``bpe-lesson verify``), ``windows`` (a sliding-window PyTorch dataset over the
shards), ``chat`` (a chat template with its loss mask), ``preference`` and ``rl``
(fine-tuning records) and ``tensors`` (ids in memory as a checked tensor). Then the
model itself: ``model`` (a tiny GPT, its parameter counts and FLOPs per token),
``train_loop`` (``train_model``), ``evaluate`` (``bits_per_byte``) and ``extend``
(``resize_embeddings`` for a vocabulary grown with ``train(start_from=...)``), and
``ladder`` (equal-compute models on vocabularies of several sizes). The only
part of the package that uses torch, an extra (``pip install "bpe-lesson[torch]"``):
``windows`` and the model's modules on import, the others only in the functions
that return tensors (``render_chat`` returns lists). The names below load their
module (and torch) when first read, so ``import bpe_lesson.lm`` needs no torch.
"""

import importlib

_LAZY = {"GPT": "model", "parameter_counts": "model", "flops_per_token": "model", "model_flops": "model",
         "bits_per_byte": "evaluate", "train_model": "train_loop", "resize_embeddings": "extend",
         "new_token_pieces": "extend"}
__all__ = list(_LAZY)


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'bpe_lesson.lm' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
