"""The memory budget: everything kept while it fits; then a uniform, seeded sample that
never exceeds the budget; and a corpus several times the budget trains in bounded memory."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from bpe_lesson.scale import reservoir
from bpe_lesson.scale.reservoir import UNIT_OVERHEAD, Reservoir


def lines(n, width=20):
    """n units of equal size, each carrying its index."""
    return [f"{i:0{width - 1}d}\n".encode() for i in range(n)]


def test_under_the_budget_everything_is_kept_in_order():
    units = lines(100)
    r = Reservoir(budget_bytes=100 * (20 + UNIT_OVERHEAD))
    r.offer(units[:60], bytearray(60))
    r.offer(units[60:], bytearray(b"\x01" * 40))
    assert r.units == units and not r.sampling
    assert r.text_bytes == 2000 and r.seen == 100 and r.bytes_seen == 2000
    assert list(r.alone) == [0] * 60 + [1] * 40


def test_the_sample_is_uniform_over_units():
    # 20,000 units of 20 bytes through a budget of 2,000 units: each should be kept
    # with the same probability, so each tenth of the stream gives a tenth of the sample.
    n, k = 20_000, 2_000
    r = Reservoir(budget_bytes=k * (20 + UNIT_OVERHEAD), seed=1234)
    for start in range(0, n, 500):  # offered in batches, as the sources do
        r.offer(lines(n)[start : start + 500], bytearray(500))
    m = len(r.units)
    assert r.sampling and r.seen == n and r.held <= r.budget
    assert 0.85 * k <= m <= k  # the budget is used: between ``low`` (0.9) and all of it, give or take
    kept = sorted(int(u) for u in r.units)
    assert len(set(kept)) == m  # no unit twice
    bins = [0] * 10
    for i in kept:
        bins[i * 10 // n] += 1
    chi2 = sum((b - m / 10) ** 2 / (m / 10) for b in bins)
    assert chi2 < 27.88, bins  # chi-square, 9 degrees of freedom, p = 0.001
    # the very first units are as likely to stay as the last ones
    assert min(bins) > 0.75 * m / 10 and max(bins) < 1.25 * m / 10, bins


def test_the_sample_is_deterministic_for_a_seed():
    def sample(seed):
        r = Reservoir(budget_bytes=300 * (20 + UNIT_OVERHEAD), seed=seed)
        r.offer(lines(5000), bytearray(5000))
        return sorted(r.units)

    assert sample(7) == sample(7)
    assert sample(7) != sample(8)


def test_units_of_mixed_sizes_never_exceed_the_budget():
    import random

    rng = random.Random(0)
    budget = 50_000
    r = Reservoir(budget_bytes=budget, seed=3)
    for _ in range(400):
        batch = [b"x" * rng.choice([1, 10, 100, 1000, 5000]) for _ in range(20)]
        r.offer(batch, bytearray(20))
        assert r.held <= budget  # at every step, not only at the end
        assert r.held == sum(len(u) + UNIT_OVERHEAD for u in r.units)
    assert r.held > budget * 0.8  # and the budget is used: the sample does not starve
    big = Reservoir(budget_bytes=1000)
    big.offer([b"y" * 2000, b"z"], bytearray(2))
    assert big.skipped == 1 and big.units == [b"z"]


def test_a_budget_must_be_positive():
    with pytest.raises(ValueError, match="budget_bytes must be positive, got 0"):
        Reservoir(0)


PEAK = r"""
import json, resource, sys
from bpe_lesson.scale.config import parse_config
from bpe_lesson.scale.phases import train_from_config
cfg = parse_config({"output": sys.argv[1], "working_set_mb": float(sys.argv[3]), "threads": 1,
                    "hardcoded_merges": False, "phases": [{"merges": 50, "sources": [{"file": sys.argv[2]}]}]})
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
result = train_from_config(cfg, progress=False, log=lambda line: None, write=False)
r = result.phases[0]
print(json.dumps({"base": base, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "held": r.bytes_held, "read": r.bytes_read, "sampled": r.sampled, "units": r.units_held,
                  "merges": len(r.merges)}))
"""


@pytest.mark.parametrize("budget_mb", [4])
def test_a_corpus_larger_than_the_budget_trains_in_bounded_memory(tmp_path, budget_mb):
    # 48 MB of varied lines, 12x the budget
    path = tmp_path / "big.txt"
    block = "".join(f"line {i} of the corpus: word{i % 997} and number {i * 7919 % 100003}\n" for i in range(20_000))
    with open(path, "w", encoding="utf-8") as f:
        while f.tell() < 48 * 2**20:
            f.write(block)
    size = os.path.getsize(path)
    out = subprocess.run([sys.executable, "-c", PEAK, str(tmp_path / "o.tiktoken"), str(path), str(budget_mb)],
                         capture_output=True, text=True, check=True)
    r = json.loads(out.stdout)
    budget = budget_mb * 2**20
    assert r["read"] == size and r["sampled"]
    # the sample fills the budget (text + per-unit overhead) but no more
    assert 0.85 * budget < r["held"] + r["units"] * UNIT_OVERHEAD <= budget
    assert r["merges"] == 50
    # peak memory grew by a few budgets at most (counts and trainer arrays come on top), far below the file
    grew = r["peak"] - r["base"]
    assert grew < 3 * budget_mb + 30, textwrap.shorten(json.dumps(r), 300)
    assert grew < size / 2**20 / 2
