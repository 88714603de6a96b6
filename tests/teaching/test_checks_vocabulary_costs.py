"""The checks of *What a vocabulary costs* reject plausible wrong solutions and pass the right ones."""

import math

import pytest

from bpe_lesson.teaching.checks import CHECKS


# ---- ex-cost-max-vocab
def max_vocab(d, layers, share, tied=True):
    body = layers * (12 * d * d + 13 * d) + 2 * d  # attention + MLP with biases, 2 norms; final norm
    k = 1 if tied else 2
    return math.floor(share * body / ((1 - share) * k * d))  # k V d <= share (body + k V d)


def max_vocab_no_biases(d, layers, share, tied=True):
    return math.floor(share * layers * 12 * d * d / ((1 - share) * (1 if tied else 2) * d))


def max_vocab_share_of_body(d, layers, share, tied=True):
    body = layers * (12 * d * d + 13 * d) + 2 * d
    return math.floor(share * body / ((1 if tied else 2) * d))


def max_vocab_ignores_tying(d, layers, share, tied=True):
    return max_vocab(d, layers, share, tied=True)


def max_vocab_rounds_up(d, layers, share, tied=True):
    body = layers * (12 * d * d + 13 * d) + 2 * d
    return math.ceil(share * body / ((1 - share) * (1 if tied else 2) * d))


# ---- ex-cost-cheapest
def _flops(curve, v, d, layers, n_bytes, linear=24, attention=4, per_token=False):
    t = n_bytes / curve[v]
    per = layers * (linear * d * d + attention * t * d) + 2 * v * d
    return per if per_token else per * t


def cheapest_vocab(curve, d, layers, n_bytes):
    return min(sorted(curve), key=lambda v: _flops(curve, v, d, layers, n_bytes))


def cheapest_per_token(curve, d, layers, n_bytes):
    return min(sorted(curve), key=lambda v: _flops(curve, v, d, layers, n_bytes, per_token=True))


def cheapest_without_linear_layers(curve, d, layers, n_bytes):
    return min(sorted(curve), key=lambda v: _flops(curve, v, d, layers, n_bytes, linear=0))


def cheapest_without_attention(curve, d, layers, n_bytes):
    return min(sorted(curve), key=lambda v: _flops(curve, v, d, layers, n_bytes, attention=0))


def cheapest_attention_in_macs(curve, d, layers, n_bytes):
    return min(sorted(curve), key=lambda v: _flops(curve, v, d, layers, n_bytes, attention=2))


def cheapest_largest(curve, d, layers, n_bytes):
    return max(curve)


# ---- ex-cost-break-even
def break_even(bpt, small, big):
    def width(v):
        return 2 if v <= 65_536 else 4
    return bpt * width(big) / width(small)


def break_even_boundary_off_by_one(bpt, small, big):
    def width(v):
        return 2 if v < 65_536 else 4
    return bpt * width(big) / width(small)


def break_even_inverted(bpt, small, big):
    return bpt * break_even(1, big, small)


def break_even_bits(bpt, small, big):
    return bpt * math.ceil(math.log2(big)) / math.ceil(math.log2(small))


WRONG = {
    "ex-cost-max-vocab": [max_vocab_no_biases, max_vocab_share_of_body, max_vocab_ignores_tying,
                          max_vocab_rounds_up],
    "ex-cost-cheapest": [cheapest_per_token, cheapest_without_linear_layers, cheapest_without_attention,
                         cheapest_attention_in_macs, cheapest_largest],
    "ex-cost-break-even": [break_even_boundary_off_by_one, break_even_inverted, break_even_bits],
}
RIGHT = {"ex-cost-max-vocab": max_vocab, "ex-cost-cheapest": cheapest_vocab, "ex-cost-break-even": break_even}


@pytest.mark.parametrize("label,solution", [(k, w) for k, ws in WRONG.items() for w in ws],
                         ids=[w.__name__ for ws in WRONG.values() for w in ws])
def test_wrong_solution_fails(label, solution):
    with pytest.raises(AssertionError):
        CHECKS[label](solution)


@pytest.mark.parametrize("label", sorted(RIGHT))
def test_right_solution_passes(label):
    CHECKS[label](RIGHT[label])
