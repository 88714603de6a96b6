"""A tiny decoder-only language model (GPT), written to be read, and what it costs.

``GPT(vocab_size, d_model, n_layers, n_heads, context_length, tied=True, seed=0)``
maps a ``(batch, time)`` LongTensor of ids to ``(batch, time, vocab)`` logits:
token embedding + learned positions, ``n_layers`` pre-norm blocks (causal
self-attention, then an MLP four times as wide), a final LayerNorm, and a head that
is the embedding itself (``tied=True``) or a matrix of its own.

Why learned positions and not RoPE: they are one more table a reader can print,
like the token embedding, and every window here is at most ``context_length``
long, so RoPE's reach beyond the trained length buys nothing.

``parameter_counts`` splits the parameters as the book's What a vocabulary costs
does (embedding, body, head); ``flops_per_token`` counts as it does: two FLOPs per
multiply-add, ``24 d^2`` per layer in the linear layers, ``4 T d`` in attention,
``2 V d`` in the head, and three times a forward pass for a training step.

What this module does not do: generate text, use dropout, or mask documents from
each other inside a window (``windows.py`` says why).
"""

from __future__ import annotations

from .._internal.optional import optional_import

__all__ = ["Block", "GPT", "default_device", "parameter_counts", "flops_per_token",
           "model_flops"]

torch = optional_import("torch", "bpe_lesson.lm.model (a PyTorch model)")
from torch import nn  # noqa: E402  (only once torch is known to be there)
from torch.nn import functional as F  # noqa: E402


class Block(nn.Module):
    """One pre-norm block: ``x + attn(norm(x))``, then ``x + mlp(norm(x))``."""

    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model {d_model} is not a multiple of n_heads {n_heads}")
        self.n_heads = n_heads
        self.norm1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)  # queries, keys, values in one matrix
        self.proj = nn.Linear(d_model, d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x):
        b, t, d = x.shape
        # (b, t, 3d) -> three (b, heads, t, d / heads)
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.n_heads, d // self.n_heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # each position sees itself and the past
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.norm2(x))


class GPT(nn.Module):
    """ids ``(batch, time)`` -> logits ``(batch, time, vocab_size)``; the same weights for a given ``seed``.

    >>> m = GPT(vocab_size=10, d_model=8, n_layers=1, n_heads=2, context_length=4)
    >>> m(torch.tensor([[1, 2, 3]])).shape
    torch.Size([1, 3, 10])
    """

    def __init__(self, vocab_size: int, d_model: int = 64, n_layers: int = 2, n_heads: int = 4,
                 context_length: int = 128, tied: bool = True, seed: int = 0):
        super().__init__()
        self.context_length = context_length
        with torch.random.fork_rng(devices=[]):  # the caller's random state is left as it was
            torch.manual_seed(seed)
            self.tok = nn.Embedding(vocab_size, d_model)
            self.pos = nn.Embedding(context_length, d_model)
            self.blocks = nn.ModuleList(Block(d_model, n_heads) for _ in range(n_layers))
            self.norm = nn.LayerNorm(d_model)
            self.head = nn.Linear(d_model, vocab_size, bias=False)
            for m in self.modules():  # GPT-2's initialisation: small normal weights, zero biases
                if isinstance(m, (nn.Linear, nn.Embedding)):
                    nn.init.normal_(m.weight, std=0.02)
                if isinstance(m, nn.Linear) and m.bias is not None:
                    nn.init.zeros_(m.bias)
        if tied:
            self.head.weight = self.tok.weight  # one matrix: row i embeds id i and scores it

    @property
    def tied(self) -> bool:
        return self.head.weight is self.tok.weight

    def forward(self, ids):
        t = ids.shape[1]
        if t > self.context_length:
            raise ValueError(f"{t} ids in a row; this model reads at most context_length={self.context_length}")
        x = self.tok(ids) + self.pos(torch.arange(t, device=ids.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.norm(x))


def default_device() -> str:
    """"cuda" where a GPU is present, else "cpu": the same code runs on both."""
    return "cuda" if torch.cuda.is_available() else "cpu"


def parameter_counts(model: GPT) -> dict:
    """Parameters in three parts: ``embedding`` (token rows + positions), ``body`` (the
    blocks and the final norm) and ``head`` (0 when tied: its matrix is the embedding's).

    >>> parameter_counts(GPT(10, d_model=8, n_layers=1, n_heads=2, context_length=4, tied=False))
    {'embedding': 112, 'body': 888, 'head': 80}
    """
    emb = model.tok.weight.numel() + model.pos.weight.numel()
    body = sum(p.numel() for p in model.blocks.parameters()) + sum(p.numel() for p in model.norm.parameters())
    head = 0 if model.tied else model.head.weight.numel()
    return {"embedding": emb, "body": body, "head": head}


def flops_per_token(vocab_size: int, d_model: int, n_layers: int, context_length: int,
                    training: bool = False) -> int:
    """FLOPs per token of a forward pass over a full window, counted as What a vocabulary costs
    counts: per layer ``24 d^2`` (linear layers) + ``4 T d`` (attention's two products,
    the whole T x T square); ``2 V d`` for the head. A training step (forward and
    backward) is three forward passes. Norms, softmax and the embedding lookup are left out.

    >>> flops_per_token(512, 64, 1, 128)  # 24 * 64**2 + 4 * 128 * 64 + 2 * 512 * 64
    196608
    """
    forward = n_layers * (24 * d_model * d_model + 4 * context_length * d_model) + 2 * vocab_size * d_model
    return 3 * forward if training else forward


def model_flops(model: GPT, training: bool = False) -> int:
    """``flops_per_token`` of ``model``'s own shape."""
    v, d = model.tok.weight.shape
    return flops_per_token(v, d, len(model.blocks), model.context_length, training)

