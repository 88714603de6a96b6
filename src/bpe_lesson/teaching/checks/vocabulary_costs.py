"""Checks of the exercises in *What a vocabulary costs*.

The architecture is the chapter's: per layer an attention block (four d x d matrices
with biases) and an MLP of width 4d (with biases), two layer norms; a final layer
norm; an embedding of V rows, tied with the output head or not. Parameters are
counted with PyTorch's own modules on the ``meta`` device, never with the formula the
reader is asked to find.

What this module does not do: measure compression (the chapter does, and passes its
curve in).
"""

from __future__ import annotations

import math

import numpy as np

from . import check

# bytes per token of held-out text at each vocabulary size, the shape the chapter
# measures (a hand-made curve, so the check works without training)
CURVE = {512: 2.0, 1024: 2.45, 2048: 2.9, 4096: 3.3, 8192: 3.65, 16_384: 3.9, 32_768: 4.05}


def body_params(d: int, layers: int) -> int:
    """Parameters of everything but the vocabulary, counted by PyTorch (meta device)."""
    import torch  # here, not at the top: grading another chapter's exercise needs no torch

    layer = torch.nn.TransformerEncoderLayer(d, nhead=max(1, d // 64), dim_feedforward=4 * d,
                                             device="meta")
    final = torch.nn.LayerNorm(d, device="meta")
    per_layer = sum(p.numel() for p in layer.parameters())
    return layers * per_layer + sum(p.numel() for p in final.parameters())


@check("ex-cost-max-vocab")
def check_max_vocab(max_vocab):
    for d, layers, share, tied in [(1024, 28, 0.2, True), (768, 12, 0.3, True), (512, 8, 0.25, False),
                                   (2048, 24, 0.1, True), (1024, 28, 0.4, False)]:
        body = body_params(d, layers)
        k = 1 if tied else 2

        def fraction(v):
            return k * v * d / (body + k * v * d)

        got = max_vocab(d, layers, share, tied=tied)
        assert isinstance(got, int), f"max_vocab should return an int (a number of rows), got {got!r}"
        assert fraction(got) <= share, (
            f"d={d}, layers={layers}, tied={tied}: at V = {got:,} the vocabulary holds "
            f"{fraction(got):.4%} of the parameters, more than {share:.0%}")
        assert fraction(got + 1) > share, (
            f"d={d}, layers={layers}, tied={tied}: V = {got + 1:,} still keeps the vocabulary at "
            f"{fraction(got + 1):.4%} <= {share:.0%}; {got:,} is not the largest "
            "(did you leave out the biases and layer norms, or count the share of the body?)")


def forward_flops(bpt: float, v: int, d: int, layers: int, n_bytes: int) -> float:
    """FLOPs of one forward pass over a document of n_bytes bytes at bpt bytes per token."""
    t = n_bytes / bpt
    return layers * (24 * d * d * t + 4 * t * t * d) + 2 * t * v * d


CONFIGS = [(1024, 28, 16_384), (256, 4, 4_096), (128, 2, 65_536), (512, 6, 1_024), (64, 1, 256)]


@check("ex-cost-cheapest")
def check_cheapest(cheapest_vocab, curve=None):
    assert cheapest_vocab({512: 2.0}, 64, 1, 100) == 512, "with one size measured, it is the answer"
    curves = [("a hand-made curve", CURVE)] + ([("the measured curve", curve)] if curve else [])
    for name, c in curves:
        for d, layers, n_bytes in CONFIGS:
            want = min(c, key=lambda v: (forward_flops(c[v], v, d, layers, n_bytes), v))
            got = cheapest_vocab(dict(c), d, layers, n_bytes)
            assert got == want, (
                f"{name}, d={d}, layers={layers}, a document of {n_bytes:,} bytes: you picked "
                f"V = {got:,} ({forward_flops(c[got], got, d, layers, n_bytes) / 1e9:.3f} GFLOPs), but "
                f"V = {want:,} costs {forward_flops(c[want], want, d, layers, n_bytes) / 1e9:.3f} GFLOPs "
                "(count the linear layers, attention and the output head, per token, times the "
                "number of tokens the document becomes)")


def width(vocab_size: int) -> int:
    """Bytes per id in the smallest of uint16 and uint32 that holds ids 0 .. vocab_size - 1.

    >>> width(65_536), width(65_537)
    (2, 4)
    """
    return np.dtype(np.uint16 if vocab_size - 1 <= np.iinfo(np.uint16).max else np.uint32).itemsize


@check("ex-cost-break-even")
def check_break_even(break_even):
    cases = [(3.0, 50_257, 100_261), (3.0, 65_536, 65_537), (3.0, 65_535, 65_536), (4.2, 1_024, 200_000),
             (4.2, 100_000, 200_000), (2.5, 2_048, 32_768)]
    for bpt, small, big in cases:
        want = bpt * width(big) / width(small)
        got = break_even(bpt, small, big)
        assert math.isclose(got, want), (
            f"break_even({bpt}, {small:,}, {big:,}) = {got}, expected {want}: ids of a vocabulary of "
            f"{small:,} take {width(small)} bytes, of {big:,} take {width(big)} (65,536 ids fit in uint16)")
