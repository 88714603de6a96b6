"""The vocabulary ladder: one model shape, trained at equal compute on each of several
vocabularies, measured in bits per byte on held-out text.

``SHAPE`` is the model and its training (the book's *From a vocabulary to a model*
trains it on a laptop's CPU in seconds per run); ``steps_for(budget, vocab_size)``
turns a budget of training FLOPs into optimizer steps, counting FLOPs as
``model.flops_per_token`` does (embedding lookup free, the head ``2 V d`` per token, a
training step three forward passes), so a larger vocabulary trains on fewer tokens;
``run`` trains one model and measures it; ``grid`` runs every size at every budget (and
untied at the first); ``extension_curve`` resizes a trained model for an extended
vocabulary (``extend.resize_embeddings``), trains it on, and measures it at checkpoints.
Everything is float64 and trains on one thread, so a result does not depend on the
CPU's vector width beyond the last bits (the chapter prints three decimals).

``benchmarks/vocab_ladder.py`` runs the chapter's grid again at more seeds and writes
``benchmarks/results/vocab_ladder.json``, which the chapter shows.

What this module does not do: train the tokenizers (``trainer.train``; the ladder cuts
one run's merges) or pick a learning rate per size (every size gets ``SHAPE["lr"]``).
"""

from __future__ import annotations

import copy
import math

from .._internal.optional import optional_import
from .evaluate import bits_per_byte
from .extend import resize_embeddings
from .model import GPT, flops_per_token, parameter_counts
from .train_loop import train_model
from .windows import SlidingWindowDataset

torch = optional_import("torch", "bpe_lesson.lm.ladder (the vocabulary ladder)")

__all__ = ["SHAPE", "SIZES", "BUDGETS", "steps_for", "run", "grid", "extension_curve"]

# d_model, layers, heads, context (tokens), batch (windows), AdamW's learning rate
SHAPE = {"d_model": 64, "n_layers": 2, "n_heads": 4, "context_length": 64, "batch_size": 16, "lr": 3e-3}
SIZES = (512, 1024, 2048, 4096)  # vocabulary sizes: the first V - 256 merges of one run
BUDGETS = (1.25e11, 5e11)  # training FLOPs per model; untied heads are trained at the first


def steps_for(budget: float, vocab_size: int, shape: dict = SHAPE) -> int:
    """Optimizer steps that spend ``budget`` training FLOPs on a model of ``vocab_size`` ids.

    >>> steps_for(1.25e11, 512), steps_for(1.25e11, 4096)  # the head is dearer: fewer steps
    (138, 54)
    """
    per_token = flops_per_token(vocab_size, shape["d_model"], shape["n_layers"], shape["context_length"],
                                training=True)
    return round(budget / (per_token * shape["batch_size"] * shape["context_length"]))


def run(tokenizer, train_ids, held: dict, budget: float, tied: bool = True, seed: int = 0,
        shape: dict = SHAPE):
    """Train ``SHAPE``'s model for ``budget`` FLOPs on ``train_ids`` (a list of ids, cut into
    windows of ``context_length``), then measure it on each held-out set (name -> texts).

    Returns ``(row, model)``: the row holds the vocabulary size, the parameters, the steps
    and tokens trained, the mean training loss of the last tenth of the steps (nats per
    token) and ``bits_per_byte`` of each held-out set.
    """
    v = tokenizer.n_vocab
    d, layers, t = shape["d_model"], shape["n_layers"], shape["context_length"]
    with _float64():
        model = GPT(v, d, layers, shape["n_heads"], t, tied=tied, seed=seed)
        steps = steps_for(budget, v, shape)
        windows = SlidingWindowDataset(torch.tensor(train_ids), t)
        losses = train_model(model, windows, steps, lr=shape["lr"], batch_size=shape["batch_size"], seed=seed)
        tail = losses[-max(1, len(losses) // 10):]
        out = {"V": v, "tied": tied, "seed": seed, "budget": budget, "steps": steps,
               "tokens": steps * shape["batch_size"] * t, "parameters": sum(parameter_counts(model).values()),
               "train loss": math.fsum(tail) / len(tail)}
        out |= {name: bits_per_byte(model, tokenizer, texts) for name, texts in held.items()}
    return out, model


def grid(tokenizers: dict, train_texts, held: dict, budgets=BUDGETS, seeds=(0,), shape: dict = SHAPE):
    """``run`` for each vocabulary size (``tokenizers``: V -> tokenizer), budget and seed, tied,
    and untied at ``budgets[0]``. Returns ``(rows, models)``; ``models[(V, budget, tied,
    seed)]`` is the trained model. The training ids are each text's ``encode_ordinary``
    joined end to end.
    """
    rows, models = [], {}
    for v, tok in tokenizers.items():
        ids = [i for text in train_texts for i in tok.encode_ordinary(text)]
        for budget in budgets:
            for tied in (True, False) if budget == budgets[0] else (True,):
                for seed in seeds:
                    row, models[v, budget, tied, seed] = run(tok, ids, held, budget, tied, seed, shape)
                    rows.append(row)
    return rows, models


def extension_curve(model, tokenizer, train_texts, *, held, steps: int, checkpoints=(), init=None,
                    pieces=None, seed: int = 0, shape: dict = SHAPE) -> dict:
    """Train a copy of ``model`` on ``train_texts`` under ``tokenizer`` for ``steps`` steps and
    return ``{step: bits per byte on held}`` (a list of texts) at step 0 and at each checkpoint. With
    ``init`` ("random", "mean" or "pieces"), the copy first gets ``tokenizer.n_vocab``
    rows (``extend.resize_embeddings``); without, it keeps its own vocabulary.
    """
    model = copy.deepcopy(model)
    if init is not None:
        resize_embeddings(model, tokenizer.n_vocab, init, pieces, seed=seed)
    ids = [i for text in train_texts for i in tokenizer.encode_ordinary(text)]
    curve = {0: bits_per_byte(model, tokenizer, held)}

    def measure(step, loss):
        if step in checkpoints:
            curve[step] = bits_per_byte(model, tokenizer, held)

    with _float64():
        windows = SlidingWindowDataset(torch.tensor(ids), shape["context_length"])
        train_model(model, windows, steps, lr=shape["lr"], batch_size=shape["batch_size"], seed=seed,
                    on_step=measure)
    return curve


class _float64:
    """Build and train in float64 (the default dtype put back afterwards)."""

    def __enter__(self):
        self.before = torch.get_default_dtype()
        torch.set_default_dtype(torch.float64)

    def __exit__(self, *exc):
        torch.set_default_dtype(self.before)
