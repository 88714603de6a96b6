"""The memory budget: keep every unit while they fit, then a uniform random sample.

Units (pieces of text, see ``sources.py``) arrive one at a time from a stream of
unknown length. While they fit in the budget we keep them all. The first time
one does not fit, we switch to reservoir sampling with random keys: every unit
gets a key drawn uniformly from [0, 1), and we hold exactly the units whose key
is below a threshold T. When the held units outgrow the budget we lower T (to
where about ``low`` x budget stays) and drop every unit whose key is now above
it; a unit arriving later is kept only if its key is below the current T.

Why this is a uniform sample: keys are independent of the text, so ordering
the units by key is a uniformly random permutation, and "key below T" takes its
first units. For units of equal size, every set of m units is equally likely to
be the m held (the book proves it). Units of unequal size change only how many
fit below T, not which: the budget holds at every step, and the sample fills
between ``low`` and all of it, however long the stream.

(Classic Algorithm R keeps a fixed number k of units. With units of unequal
size a fixed k cannot respect a byte budget; shrinking k when a big unit
arrives works but only ever shrinks, so over a long stream the sample starves.)

What is counted against the budget: each held unit's UTF-8 bytes plus
``UNIT_OVERHEAD`` for the Python objects that hold it (a ``bytes`` header, a list
slot, a flag byte and its key). Not counted: the chunk counts and the trainer's
arrays built from the sample afterwards (they grow with the number of *distinct*
chunks, usually a small fraction of the text; the phase summary reports peak memory).

What this module does not do: read files (``sources.py``) or count chunks.
"""

from __future__ import annotations

import random
import sys
from array import array
from itertools import compress

__all__ = ["UNIT_OVERHEAD", "Reservoir"]

UNIT_OVERHEAD = sys.getsizeof(b"") + 8 + 1 + 8  # bytes object header, list slot, flag, key


class Reservoir:
    """Hold units within ``budget_bytes``; a seeded uniform sample once they do not fit.

    >>> r = Reservoir(budget_bytes=30 * (1 + UNIT_OVERHEAD), seed=0)
    >>> r.offer([bytes([i % 256]) for i in range(1000)], bytearray(1000))
    >>> r.sampling, r.seen, 24 <= len(r.units) <= 30     # 27 to 30 of the 1,000 one-byte units, give or take
    (True, 1000, True)
    """

    def __init__(self, budget_bytes: int, seed: int = 0, low: float = 0.9):
        if budget_bytes <= 0:
            raise ValueError(f"budget_bytes must be positive, got {budget_bytes}")
        if not 0 < low < 1:
            raise ValueError(f"low must be between 0 and 1 (the part of the budget kept after a prune), got {low}")
        self.budget = int(budget_bytes)
        self.low = low
        self.units: list[bytes] = []  # the units held
        self.alone = bytearray()  # their flags (see sources.py), in step with units
        self.keys = array("d")  # their random keys, in step with units (once sampling)
        self.threshold = 1.0  # T: units with a key below it are held
        self.held = 0  # bytes counted against the budget
        self.seen = 0  # units offered so far
        self.bytes_seen = 0  # their text bytes
        self.skipped = 0  # units larger than the whole budget, never held
        self.sampling = False  # True once the units stopped fitting
        self.forgotten = 0  # units let go by ``forget`` (their bytes still count in ``held``)
        self._rng = random.Random(seed)

    @property
    def text_bytes(self) -> int:
        """The text bytes held (without the per-unit overhead)."""
        return self.held - UNIT_OVERHEAD * self.units_held

    @property
    def units_held(self) -> int:
        """The units held, with those let go by ``forget``."""
        return len(self.units) + self.forgotten

    def forget(self) -> None:
        """Let the units held go, their bytes still counted against the budget: for a
        caller that has counted them already and reads the text again, from the
        start, should the budget overflow (there is no sample to draw without them).

        >>> r = Reservoir(budget_bytes=1000); r.offer([b"ab", b"c"], bytearray(2)); r.forget()
        >>> r.units, r.units_held, r.text_bytes
        ([], 2, 3)
        """
        if self.sampling:
            raise RuntimeError("a sampling reservoir cannot forget its units: they are the sample")
        self.forgotten += len(self.units)
        self.units, self.alone = [], bytearray()

    def offer(self, units, alone) -> None:
        """Offer a batch of units (and their 0/1 flags), in stream order."""
        n_bytes = sum(map(len, units))
        self.bytes_seen += n_bytes
        self.seen += len(units)
        if not self.sampling:
            cost = n_bytes + UNIT_OVERHEAD * len(units)
            if self.held + cost <= self.budget:
                # the common case until the budget is reached: keep the whole batch
                self.units.extend(units)
                self.alone.extend(alone)
                self.held += cost
                return
            # the budget is reached: from now on we sample; the units held get their keys
            self.sampling = True
            self.keys = array("d", (self._rng.random() for _ in self.units))
        rand = self._rng.random
        for unit, a in zip(units, alone):
            key = rand()
            if key >= self.threshold:
                continue  # the common case once sampling: this unit is not in the sample
            cost = len(unit) + UNIT_OVERHEAD
            if cost > self.budget:
                self.skipped += 1  # could never be held, however empty the reservoir
                continue
            self.units.append(unit)
            self.alone.append(a)
            self.keys.append(key)
            self.held += cost
            if self.held > self.budget:
                self._prune()

    def _prune(self) -> None:
        """Lower the threshold so that about ``low`` x budget stays; drop the units above it."""
        while self.held > self.low * self.budget:
            # keys below T are uniform on [0, T): scaling T keeps that share of the bytes
            t = self.threshold * self.low * self.budget / self.held
            keep = bytearray(key < t for key in self.keys)  # 1 byte per unit, not a list of indices
            self.units = list(compress(self.units, keep))
            self.alone = bytearray(compress(self.alone, keep))
            self.keys = array("d", compress(self.keys, keep))
            self.held = sum(map(len, self.units)) + UNIT_OVERHEAD * len(self.units)
            self.threshold = t
