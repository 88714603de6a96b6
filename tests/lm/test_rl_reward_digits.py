"""rl.reward on numbers of any length (issue 48, Medium 1): a policy's reply of 5,000 digits
is scored, never a crash on Python's 4,300-digit limit. Reference: Python's ``decimal``
module (no digit limit), compared on generated numbers written many ways."""

import decimal
import random

import pytest

from bpe_lesson.lm.rl import reward


def test_a_five_thousand_digit_answer_is_scored():
    assert reward("#### " + "1" * 5000, "1") == 0.0
    assert reward("#### " + "1" * 5000, "1" * 5000) == 1.0
    assert reward("#### 1" + "0" * 5000 + "/7", "3") == 0.0  # a long fraction: text, no crash


@pytest.mark.parametrize("seed", range(3))
def test_long_numbers_compare_by_value_as_decimal_does(seed):
    rng = random.Random(seed)
    ctx = decimal.Context(prec=20_000)
    for _ in range(200):
        n = rng.choice([5, 900, 1001, 4500])
        digits = str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(n))
        frac = "".join(rng.choice("0123456789") for _ in range(rng.choice([0, 3, 1200])))
        a = ("-" if rng.random() < 0.2 else "") + digits + ("." + frac if frac else "")
        b = rng.choice([a, "0" + a.lstrip("-") if not a.startswith("-") else a, a + ("0" if "." in a else ".0"),
                        a[:-1] + str((int(a[-1]) + 1) % 10)])
        same = ctx.compare(decimal.Decimal(a), decimal.Decimal(b)) == 0
        assert reward(f"#### {a}", b) == float(same), (a[:20], b[:20])
