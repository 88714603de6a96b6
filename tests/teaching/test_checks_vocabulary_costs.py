"""The checks of *What a vocabulary costs* pass right solutions and reject plausible wrong ones."""

import math
from fractions import Fraction

import pytest

from _wrong import With, graded
from bpe_lesson.teaching.checks import vocabulary_costs as vc

# the chapter's measured curve has this shape; the notebook passes its own
MEASURED = {512: 2.124, 1024: 2.741, 2048: 3.41, 4096: 4.044, 8192: 4.514, 16_384: 4.772, 18_241: 4.81}


# ---------------------------------------------------------------- ex-cost-max-vocab

def max_vocab(d, layers, share, tied=True):  # the notebook's
    body = layers * (12 * d * d + 13 * d) + 2 * d
    k = 1 if tied else 2
    return math.floor(share * body / ((1 - share) * k * d))


def max_vocab_by_search(d, layers, share, tied=True):  # right: double, then bisect on the fraction itself
    body = layers * (12 * d * d + 13 * d) + 2 * d
    k = 1 if tied else 2

    def fits(v):
        return k * v * d <= share * (body + k * v * d)
    hi = 1
    while fits(hi):
        hi *= 2
    lo = 0  # fits(lo), not fits(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def max_vocab_integer(d, layers, share, tied=True):  # right: integers only, // on numerator/denominator
    body = layers * (12 * d * d + 13 * d) + 2 * d
    p, q = share.numerator, share.denominator
    return p * body // ((q - p) * (1 if tied else 2) * d)


def max_vocab_no_biases(d, layers, share, tied=True):  # leaves out the biases and norms: 12 d^2 a layer
    return math.floor(share * layers * 12 * d * d / ((1 - share) * (1 if tied else 2) * d))


def max_vocab_no_final_norm(d, layers, share, tied=True):  # forgets the final layer norm's 2 d
    return math.floor(share * layers * (12 * d * d + 13 * d) / ((1 - share) * (1 if tied else 2) * d))


def max_vocab_share_of_body(d, layers, share, tied=True):  # the share of the body, not of the whole model
    body = layers * (12 * d * d + 13 * d) + 2 * d
    return math.floor(share * body / ((1 if tied else 2) * d))


def max_vocab_ignores_tying(d, layers, share, tied=True):  # always one matrix
    return max_vocab(d, layers, share, tied=True)


def max_vocab_rounds_up(d, layers, share, tied=True):  # ceil: one row over the budget
    body = layers * (12 * d * d + 13 * d) + 2 * d
    return math.ceil(share * body / ((1 - share) * (1 if tied else 2) * d))


def max_vocab_strict(d, layers, share, tied=True):  # "< share": a budget met exactly is refused
    body = layers * (12 * d * d + 13 * d) + 2 * d
    return math.ceil(share * body / ((1 - share) * (1 if tied else 2) * d)) - 1


def max_vocab_floats(d, layers, share, tied=True):  # floats: exactly at the budget it rounds either way
    body = layers * (12 * d * d + 13 * d) + 2 * d
    s = float(share)
    return math.floor(s * body / ((1 - s) * (1 if tied else 2) * d))


def max_vocab_linear_search(d, layers, share, tied=True):  # right answer, one row at a time: too slow
    body = layers * (12 * d * d + 13 * d) + 2 * d
    k, v = 1 if tied else 2, 0
    while k * (v + 1) * d <= share * (body + k * (v + 1) * d):
        v += 1
    return v


def max_vocab_returns_float(d, layers, share, tied=True):  # floor division of floats gives a float
    body = layers * (12 * d * d + 13 * d) + 2 * d
    return share * body // ((1 - share) * (1 if tied else 2) * d) * 1.0


# ---------------------------------------------------------------- ex-cost-cheapest

def cheapest_vocab(curve, d, layers, n_bytes):  # the notebook's
    def flops(v):
        T = n_bytes / curve[v]
        return layers * (24 * d * d * T + 4 * T * T * d) + 2 * T * v * d
    return min(sorted(curve), key=flops)


def cheapest_per_token_form(curve, d, layers, n_bytes):  # right: T times the cost of one token, a loop
    best = None
    for v in sorted(curve):
        t = n_bytes / curve[v]
        cost = t * (layers * (24 * d * d + 4 * t * d) + 2 * v * d)
        if best is None or cost < best[0]:
            best = (cost, v)
    return best[1]


def cheapest_per_byte(curve, d, layers, n_bytes):  # right: FLOPs per byte of text ranks the sizes the same
    def per_byte(v):
        t = n_bytes / curve[v]
        return (layers * (24 * d * d * t + 4 * t * t * d) + 2 * t * v * d) / n_bytes
    return sorted(curve, key=lambda v: (per_byte(v), v))[0]


def _flops(curve, v, d, layers, n_bytes, linear=24, attention=4, head=2, per_token=False):
    t = n_bytes / curve[v]
    per = layers * (linear * d * d + attention * t * d) + head * v * d
    return per if per_token else per * t


def cheapest_per_token(curve, d, layers, n_bytes):  # the cost of one token, not of the document
    return min(sorted(curve), key=lambda v: _flops(curve, v, d, layers, n_bytes, per_token=True))


def cheapest_without_linear_layers(curve, d, layers, n_bytes):  # attention and head only
    return min(sorted(curve), key=lambda v: _flops(curve, v, d, layers, n_bytes, linear=0))


def cheapest_without_attention(curve, d, layers, n_bytes):  # forgets the T^2 term
    return min(sorted(curve), key=lambda v: _flops(curve, v, d, layers, n_bytes, attention=0))


def cheapest_attention_in_macs(curve, d, layers, n_bytes):  # attention counted in multiply-adds: 2 T^2 d
    return min(sorted(curve), key=lambda v: _flops(curve, v, d, layers, n_bytes, attention=2))


def cheapest_head_per_layer(curve, d, layers, n_bytes):  # the output head paid in every layer
    return min(sorted(curve), key=lambda v: layers * _flops(curve, v, d, 1, n_bytes))


def cheapest_ties_to_first(curve, d, layers, n_bytes):  # the curve's order decides a tie, not the size
    return min(curve, key=lambda v: _flops(curve, v, d, layers, n_bytes))


def cheapest_ties_to_larger(curve, d, layers, n_bytes):  # on a tie, the larger size
    return min(sorted(curve), key=lambda v: (_flops(curve, v, d, layers, n_bytes), -v))


def cheapest_tokens_times_bpt(curve, d, layers, n_bytes):  # T = n_bytes * bytes per token, upside down
    return min(sorted(curve), key=lambda v: _flops({v: 1 / curve[v]}, v, d, layers, n_bytes))


def cheapest_largest(curve, d, layers, n_bytes):  # "more compression is always cheaper"
    return max(curve)


def cheapest_returns_pair(curve, d, layers, n_bytes):  # the size and its cost, not the size
    v = cheapest_vocab(curve, d, layers, n_bytes)
    return v, _flops(curve, v, d, layers, n_bytes)


# ---------------------------------------------------------------- ex-cost-break-even

def break_even(bpt, small, big):  # the notebook's
    def width(v):
        return 2 if v - 1 <= 65_535 else 4
    return bpt * width(big) / width(small)


def break_even_bits(bpt, small, big):  # right, written with bits: ids 0 .. v - 1 need (v - 1).bit_length()
    def width(v):
        return 2 if (v - 1).bit_length() <= 16 else 4
    return bpt * width(big) / width(small)


def break_even_boundary_off_by_one(bpt, small, big):  # 65,536 ids taken for uint32
    def width(v):
        return 2 if v < 65_536 else 4
    return bpt * width(big) / width(small)


def break_even_inverted(bpt, small, big):  # the ratio of widths upside down
    return break_even(bpt, big, small)


def break_even_log_ratio(bpt, small, big):  # bits of information, not bytes on disk
    return bpt * math.ceil(math.log2(big)) / math.ceil(math.log2(small))


def break_even_uint8(bpt, small, big):  # 256 ids or fewer stored in one byte
    def width(v):
        return 1 if v <= 256 else 2 if v <= 65_536 else 4
    return bpt * width(big) / width(small)


def break_even_rounded(bpt, small, big):  # rounds the answer for printing
    return round(break_even(bpt, small, big), 2)


def break_even_bool(bpt, small, big):  # answers "does it pay?" instead of how much
    return break_even(bpt, small, big) > bpt


RIGHT = {
    "ex-cost-max-vocab": [max_vocab, max_vocab_by_search, max_vocab_integer],
    "ex-cost-cheapest": [With(cheapest_vocab, curve=MEASURED), cheapest_per_token_form, cheapest_per_byte],
    "ex-cost-break-even": [break_even, break_even_bits],
}
WRONG = {
    "ex-cost-max-vocab": [max_vocab_no_biases, max_vocab_no_final_norm, max_vocab_share_of_body,
                          max_vocab_ignores_tying, max_vocab_rounds_up, max_vocab_strict, max_vocab_floats,
                          max_vocab_returns_float, With(max_vocab_linear_search, time_limit=1)],
    "ex-cost-cheapest": [cheapest_per_token, cheapest_without_linear_layers, cheapest_without_attention,
                         cheapest_attention_in_macs, cheapest_head_per_layer, cheapest_ties_to_first,
                         cheapest_ties_to_larger, cheapest_tokens_times_bpt, cheapest_largest,
                         cheapest_returns_pair],
    "ex-cost-break-even": [break_even_boundary_off_by_one, break_even_inverted, break_even_log_ratio,
                           break_even_uint8, break_even_rounded, break_even_bool],
}


test_right_solution_passes, test_wrong_solution_fails = graded(RIGHT, WRONG)


@pytest.mark.parametrize("d", [1, 64, 100, 768, 1024])
def test_body_params_is_what_pytorch_counts(d):
    torch = pytest.importorskip("torch")
    layer = torch.nn.TransformerEncoderLayer(d, nhead=1, dim_feedforward=4 * d, device="meta")
    final = torch.nn.LayerNorm(d, device="meta")
    per_layer = sum(p.numel() for p in layer.parameters())
    for layers in (0, 1, 28):
        assert vc.body_params(d, layers) == layers * per_layer + sum(p.numel() for p in final.parameters())


def test_max_vocab_meets_a_budget_exactly():
    d, layers = 1024, 28  # at V = 86,107 rows the tied vocabulary is exactly this share: it still fits
    share = Fraction(86_107 * d, vc.body_params(d, layers) + 86_107 * d)
    assert vc.max_vocab(d, layers, share) == 86_107
    assert vc.max_vocab(d, layers, share - Fraction(1, 10 ** 12)) == 86_106


def test_the_tie_cases_cost_the_same():
    rng = vc._gen.rng_for("tie-test")
    for _ in range(50):
        curve, d, layers, n_bytes = vc._tie(rng)
        small, big = sorted(curve)[:2]
        assert vc.forward_flops(curve[small], small, d, layers, n_bytes) == \
            vc.forward_flops(curve[big], big, d, layers, n_bytes)
