"""Checks of the exercises in *What a vocabulary costs*: the largest vocabulary under a
parameter budget, the vocabulary that makes a document cheapest, and the break-even
compression of wider ids.

Each check compares the reader's function with a reference written here, small
and exact (fractions, so a threshold met exactly stays met), on hand-picked cases
and on generated parameter sets aimed at the edges: a budget met exactly, one a
hair above or below it, a budget too small for a single row, no layers at all;
two vocabularies that cost exactly the same FLOPs, curves handed over in no
particular order; vocabularies of 65,535, 65,536 and 65,537 ids.

The architecture is the chapter's: per layer an attention block (four d x d
matrices with biases) and an MLP of width 4d (with biases), two layer norms; a
final layer norm; an embedding of V rows, tied with the output head or not. The
chapter counts those parameters with PyTorch and checks the formula against the
count; ``tests/teaching/test_checks_vocabulary_costs.py`` does the same for
``body_params``.

What this module does not do: measure compression (the chapter does, and passes
its curve in), or import torch (grading needs none).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from . import _gen, check, compare

__all__ = ["CURVE", "CONFIGS", "body_params", "max_vocab", "check_max_vocab",
           "forward_flops", "cheapest_vocab", "check_cheapest", "width", "break_even",
           "check_break_even"]

# bytes per token of held-out text at each vocabulary size, the shape the chapter
# measures (a hand-made curve, so the check works without training)
CURVE = {512: 2.0, 1024: 2.45, 2048: 2.9, 4096: 3.3, 8192: 3.65, 16_384: 3.9, 32_768: 4.05}
CONFIGS = [(1024, 28, 16_384), (256, 4, 4_096), (128, 2, 65_536), (512, 6, 1_024), (64, 1, 256)]


# ---------------------------------------------------------------- ex-cost-max-vocab

def body_params(d: int, layers: int) -> int:
    """Parameters of everything but the vocabulary: ``layers`` layers of 12 d^2 + 13 d, a final norm of 2 d.

    >>> body_params(1024, 28)  # the chapter's model: 28 x 12,596,224 + 2,048
    352696320
    """
    return layers * (12 * d * d + 13 * d) + 2 * d


def max_vocab(d: int, layers: int, share, tied: bool = True) -> int:
    """The largest V whose k V d rows hold at most ``share`` of all parameters (k = 1 tied, 2 untied).

    k V d <= share (body + k V d)  <=>  V <= share body / ((1 - share) k d), in exact arithmetic.

    >>> max_vocab(1024, 28, Fraction(1, 5))  # the chapter's model, a fifth
    86107
    >>> body_params(1, 0), max_vocab(1, 0, Fraction(1, 2))  # 2 parameters of norm; V = 2 holds exactly half
    (2, 2)
    """
    k = 1 if tied else 2
    share = Fraction(share)
    if not 0 < share < 1:
        raise ValueError(f"share must lie strictly between 0 and 1, not {share}")
    return math.floor(share * body_params(d, layers) / ((1 - share) * k * d))


def _max_vocab_cases():
    """(d, layers, share, tied): the chapter's models, then budgets met exactly, just missed, just passed."""
    yield from [(1024, 28, Fraction(1, 5), True), (768, 12, Fraction(3, 10), True),
                (512, 8, Fraction(1, 4), False), (2048, 24, Fraction(1, 10), True),
                (1024, 28, Fraction(2, 5), False), (1, 0, Fraction(1, 2), True),  # V = 2 is exactly half
                (64, 1, Fraction(1, 1000), True)]                                  # not one row fits: 0


def _max_vocab_case(rng):
    d = rng.choice([1, 2, 3, 7, 64, 100, 768, 1024, 4096, rng.randint(1, 2048)])
    layers = rng.choice([0, 1, 2, 12, 28, rng.randint(0, 48)])
    tied = rng.random() < 0.5
    k, body = 1 if tied else 2, body_params(d, layers)
    r = rng.random()
    if r < 0.45:  # a budget met exactly at some V0, or missed / passed by a hair
        v0 = rng.choice([1, 2, 3, rng.randint(1, 300), rng.randint(1, 300_000)])
        share = Fraction(k * v0 * d, body + k * v0 * d)
        eps = Fraction(1, 10 ** rng.randint(9, 15))
        share += rng.choice([0, 0, 0, -eps, eps])
    elif r < 0.55:  # too small a budget for one row
        share = Fraction(rng.randint(1, k * d), (body + k * d) * rng.randint(2, 9))
    else:
        q = rng.randint(2, 1000)
        share = Fraction(rng.randint(1, q - 1), q)
    return (d, layers, share, tied) if 0 < share < 1 else None  # None: compare draws again


def _max_vocab_hint(args, want, got):
    d, layers, share, tied = args
    if not isinstance(got, int):
        return None
    k = 1 if tied else 2

    def held(v):  # the fraction of all parameters k V d rows hold
        return Fraction(k * v * d, body_params(d, layers) + k * v * d)
    if got > want:
        return f"at V = {got:,} the rows hold {float(held(got)):.9f} > share: round down"
    at = "exactly share" if held(want) == share else f"{float(held(want)):.9f} <= share"
    return f"V = {want:,} fits (its rows hold {at}); count biases, norms, the final norm"


@check("ex-cost-max-vocab")
def check_max_vocab(fn):
    compare(fn, max_vocab, _max_vocab_cases(), generate=_max_vocab_case, kind=int,
            shrink=lambda args: iter(()), hint=_max_vocab_hint)


# ---------------------------------------------------------------- ex-cost-cheapest

def forward_flops(bpt, v: int, d: int, layers: int, n_bytes: int) -> Fraction:
    """FLOPs of one forward pass over ``n_bytes`` bytes at ``bpt`` bytes per token, exactly.

    Per layer 24 d^2 T (the linear layers) + 4 T^2 d (attention); 2 T V d for the output head.

    >>> # T = 128 tokens: 24 * 64**2 * 128 + 4 * 128**2 * 64 + 2 * 128 * 512 * 64
    >>> int(forward_flops(2.0, 512, 64, 1, 256)), 12_582_912 + 4_194_304 + 8_388_608
    (25165824, 25165824)
    """
    t = Fraction(n_bytes) / Fraction(bpt)
    return layers * (24 * d * d * t + 4 * t * t * d) + 2 * t * v * d


def cheapest_vocab(curve: dict, d: int, layers: int, n_bytes: int) -> int:
    """The size in ``curve`` (size -> bytes per token) whose forward pass costs least; the smaller on a tie.

    >>> cheapest_vocab({512: 2.0, 1024: 2.5}, 64, 1, 256), cheapest_vocab({512: 2.0, 1024: 2.5}, 64, 4, 256)
    (512, 1024)
    >>> cheapest_vocab({15: 5.0, 6: 4.0}, 1, 1, 20)  # 280 FLOPs each: 120 + 100 + 60 = 96 + 64 + 120
    6
    """
    return min(curve, key=lambda v: (forward_flops(curve[v], v, d, layers, n_bytes), v))


def _tie(rng):
    """A curve of two sizes whose documents cost exactly the same FLOPs (all values integers).

    T1 > T2 tokens at sizes V1 < V2: V2 = V1 T1 / T2 + L (12 d (T1 - T2) + 2 (T1^2 - T2^2)) / T2,
    with V1 picked so that it divides; n_bytes = T1 T2 makes both bytes per token whole.
    """
    while True:
        d, layers = rng.choice([1, 2, 8, 64]), rng.randint(1, 4)
        t2 = rng.randint(1, 12)
        t1 = t2 + rng.randint(1, 6)
        if math.gcd(t1, t2) != 1:
            continue
        a = layers * (12 * d * (t1 - t2) + 2 * (t1 * t1 - t2 * t2))
        v1 = (-a * pow(t1, -1, t2)) % t2 + t2 * rng.randint(1, 40)
        v2 = (a + t1 * v1) // t2
        assert forward_flops(t2, v1, d, layers, t1 * t2) == forward_flops(t1, v2, d, layers, t1 * t2)
        curve = {v2: float(t1), v1: float(t2)}  # the larger size first: the tie goes to the smaller
        if rng.random() < 0.5:
            curve[v2 * 2] = float(t1 + 1)  # a third size that costs more
        return curve, d, layers, t1 * t2


def _curve(rng):
    """Sizes (powers of two and others) with bytes per token that mostly rise, in random order."""
    sizes = rng.sample([256, 512, 1000, 1024, 2048, 4096, 8192, 16_384, 32_768, 50_257, 65_536,
                        100_277, 131_072, 200_019], rng.randint(1, 6))
    bpt = round(rng.uniform(1.2, 2.5), 3)
    curve = {}
    for v in sorted(sizes):
        curve[v] = bpt
        bpt = round(bpt + rng.uniform(-0.05, 0.9) * rng.random(), 3)
        bpt = max(bpt, 1.0)
    keys = list(curve)
    rng.shuffle(keys)
    return {v: curve[v] for v in keys}


def _clear_winner(curve, d, layers, n_bytes):
    """True when the cheapest size is an exact tie or wins by more than float noise."""
    costs = sorted(forward_flops(b, v, d, layers, n_bytes) for v, b in curve.items())
    return len(costs) < 2 or costs[0] == costs[1] or costs[1] - costs[0] > costs[0] * Fraction(1, 10 ** 9)


def _cheapest_cases(measured):
    for d, layers, n_bytes in CONFIGS:
        yield (dict(CURVE), d, layers, n_bytes)
        if measured:
            yield (dict(measured), d, layers, n_bytes)
    yield ({512: 2.0}, 64, 1, 100)  # one size measured: it is the answer


def _cheapest_case(rng):
    """A tie, or a random curve and model; None unless one size wins clearly (then compare draws again)."""
    if rng.random() < 0.25:
        case = _tie(rng)
    else:
        d = int(2 ** rng.uniform(3, 12))
        case = (_curve(rng), d, rng.randint(1, 48), int(10 ** rng.uniform(1, 6.3)))
    return case if _clear_winner(*case) else None


def _cheapest_hint(args, want, got):
    curve, d, layers, n_bytes = args
    if not isinstance(got, int) or isinstance(got, bool):
        return None
    if got in curve and forward_flops(curve[got], got, d, layers, n_bytes) == \
            forward_flops(curve[want], want, d, layers, n_bytes):
        return "the two cost exactly the same: on a tie, the smaller size"
    return "FLOPs of the whole document: (linear + attention) x layers + head, for T tokens"


@check("ex-cost-cheapest")
def check_cheapest(fn, curve=None):
    compare(fn, cheapest_vocab, _cheapest_cases(curve), generate=_cheapest_case, kind=int,
            valid=lambda args: len(args[0]) > 0, hint=_cheapest_hint)


# ---------------------------------------------------------------- ex-cost-break-even

def width(vocab_size: int) -> int:
    """Bytes per id in the smallest of uint16 and uint32 that holds ids 0 .. vocab_size - 1.

    >>> width(256), width(65_536), width(65_537)
    (2, 2, 4)
    """
    if not 1 <= vocab_size <= 2 ** 32:
        raise ValueError(f"a vocabulary of {vocab_size} ids does not fit uint32")
    return np.dtype(np.uint16 if vocab_size - 1 <= np.iinfo(np.uint16).max else np.uint32).itemsize


def break_even(bpt, small: int, big: int) -> float:
    """Bytes per token ``big`` ids must reach to take no more disk than ``small`` ids at ``bpt``.

    >>> break_even(3.0, 65_536, 65_537), break_even(3.0, 50_257, 65_536)
    (6.0, 3.0)
    """
    return bpt * width(big) / width(small)


def _size(rng):
    return rng.choice([_gen.near(rng, 65_536), _gen.near(rng, 65_536), _gen.near(rng, 256), 1, 2,
                       rng.randint(1, 65_536), rng.randint(65_537, 300_000), _gen.near(rng, 2 ** 32, 0)])


def _break_even_cases():
    yield from [(3.0, 50_257, 100_261), (3.0, 65_536, 65_537), (3.0, 65_535, 65_536), (4.2, 1_024, 200_000),
                (4.2, 100_000, 200_000), (2.5, 2_048, 32_768), (3.0, 200_000, 50_000), (1.5, 256, 257)]


def _break_even_case(rng):
    bpt = rng.choice([round(rng.uniform(1, 8), 3), rng.randint(1, 6), 3.3])
    return bpt, _size(rng), _size(rng)


def _break_even_hint(args, want, got):
    bpt, small, big = args
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        return None
    return (f"{small:,} ids: {width(small)} bytes an id; {big:,} ids: {width(big)} "
            "(uint16 holds ids 0 .. 65,535)")


@check("ex-cost-break-even")
def check_break_even(fn):
    compare(fn, break_even, _break_even_cases(), generate=_break_even_case, kind=(int, float),
            equal=lambda want, got: not isinstance(got, bool) and math.isclose(got, want, rel_tol=1e-9),
            shrink=lambda args: iter(()), hint=_break_even_hint)
