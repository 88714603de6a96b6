"""The memory budget: everything kept while it fits; then a uniform, seeded sample that
never exceeds the budget; and a corpus several times the budget trains in bounded memory."""

import json
import os
import random
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


def reference_sample(units, budget, seed, low=0.9):
    """The sample the module's docstring describes, written again without its bookkeeping.

    Each unit gets a key, ``random.Random(seed)``'s draws in stream order; the sample is
    the units whose key is below a threshold t. Whenever the units below t outgrow the
    budget, t falls to t * low * budget / held until they take at most ``low`` x budget.
    (The reservoir keeps the first units without keys while they fit, and draws theirs
    when it starts sampling, in the same order: the same keys, the same sample.)
    Units larger than the budget are not handled: every unit here is small.
    """
    rng = random.Random(seed)
    keys = []  # the key of each unit so far
    t, held = 1.0, 0  # the threshold; the bytes of the units below it

    def below(t):
        return sum(len(u) + UNIT_OVERHEAD for u, k in zip(units, keys) if k < t)

    for unit in units:
        keys.append(rng.random())
        if keys[-1] >= t:
            continue
        held += len(unit) + UNIT_OVERHEAD
        if held > budget:
            while held > low * budget:
                t = t * low * budget / held
                held = below(t)
    return [u for u, k in zip(units, keys) if k < t]


def test_a_small_sample_worked_out_by_hand():
    # 8 one-byte units, each costing c = 1 + UNIT_OVERHEAD, through a budget of 3c. They do
    # not fit, so every unit gets a key: random.Random(0)'s draws, in order,
    #   a .844  b .758  c .421  d .259  e .511  f .405  g .784  h .303
    # a, b, c go in. d makes 4c > 3c: t = 1 x 0.9 x 3/4 = .675 keeps c and d (2c <= 2.7c).
    # e goes in (3c). f makes 4c: t = .675 x 2.7/4 = .456 keeps c, d, f, still 3c > 2.7c,
    # so t = .456 x 2.7/3 = .410 keeps d and f. g is above t; h goes in.
    c = 1 + UNIT_OVERHEAD
    r = Reservoir(budget_bytes=3 * c, seed=0)
    r.offer([bytes([b]) for b in b"abcdefgh"], bytearray(8))
    assert r.units == [b"d", b"f", b"h"]
    assert r.threshold == pytest.approx(0.675 * 0.675 * 0.9)
    assert r.held == 3 * c and r.sampling and r.seen == 8
    assert reference_sample([bytes([b]) for b in b"abcdefgh"], 3 * c, seed=0) == r.units


def test_the_sample_is_deterministic_for_a_seed():
    # not the reservoir against itself: against the algorithm written again (reference_sample),
    # offered in one batch and in batches of 250, as the sources offer them
    units = lines(5000)
    samples = {}
    for seed, batch in ((7, 5000), (8, 250)):
        r = Reservoir(budget_bytes=300 * (20 + UNIT_OVERHEAD), seed=seed)
        for start in range(0, len(units), batch):
            part = units[start : start + batch]
            r.offer(part, bytearray(len(part)))
        assert r.sampling and 0.85 * 300 <= len(r.units) <= 300
        assert r.units == reference_sample(units, r.budget, seed)
        samples[seed] = r.units
    assert samples[7] != samples[8]  # the seed decides


def test_units_of_mixed_sizes_never_exceed_the_budget():
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
cfg = parse_config({"output": sys.argv[1], "working_set_mb": float(sys.argv[3]), "workers": 1,
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
