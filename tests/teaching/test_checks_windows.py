"""The checks of *From tokens to training windows* reject plausible wrong solutions and pass the right ones."""

import pytest

from bpe_lesson.teaching.checks import CHECKS


# ---- ex-windows-overflow
def wrapped(ids):
    return [(k, i, i % 65_536) for k, i in enumerate(ids) if i > 65_535]


def wrapped_mod_65535(ids):
    return [(k, i, i % 65_535) for k, i in enumerate(ids) if i > 65_535]


def wrapped_threshold_off_by_one(ids):
    return [(k, i, i % 65_536) for k, i in enumerate(ids) if i > 65_536]


def wrapped_clipped(ids):
    return [(k, i, 65_535) for k, i in enumerate(ids) if i > 65_535]


# ---- ex-windows-never
def n_windows(n, t, s):
    return max(0, 1 + (n - (t + 1)) // s)


def never_targets(n, t, s):
    w = n_windows(n, t, s)
    if w == 0:
        return n
    covered = (w - 1) * s + t if s <= t else w * t  # overlapping windows, or gaps between them
    return n - covered


def never_targets_assumes_overlap(n, t, s):
    w = n_windows(n, t, s)
    return n if w == 0 else n - ((w - 1) * s + t)


def never_targets_assumes_gaps(n, t, s):
    return n - n_windows(n, t, s) * t


def never_targets_forgets_the_first_id(n, t, s):
    return max(0, never_targets(n, t, s) - 1)


def never_targets_window_count_n_over_s(n, t, s):
    w = max(0, (n - 1) // s) if n > t else 0
    if w == 0:
        return n
    return n - min(n - 1, ((w - 1) * s + t if s <= t else w * t))


# ---- ex-windows-mixed
def mixed_windows(stream, eos, t, s):
    return sum(eos in list(stream[i * s : i * s + t]) for i in range(n_windows(len(stream), t, s)))


def mixed_windows_whole_window(stream, eos, t, s):
    return sum(eos in list(stream[i * s : i * s + t + 1]) for i in range(n_windows(len(stream), t, s)))


def mixed_windows_targets(stream, eos, t, s):
    return sum(eos in list(stream[i * s + 1 : i * s + t + 1]) for i in range(n_windows(len(stream), t, s)))


def mixed_windows_one_too_many(stream, eos, t, s):
    return sum(eos in list(stream[i * s : i * s + t]) for i in range(n_windows(len(stream), t, s) + 1))


WRONG = {
    "ex-windows-overflow": [wrapped_mod_65535, wrapped_threshold_off_by_one, wrapped_clipped],
    "ex-windows-never": [never_targets_assumes_overlap, never_targets_assumes_gaps,
                         never_targets_forgets_the_first_id, never_targets_window_count_n_over_s],
    "ex-windows-mixed": [mixed_windows_whole_window, mixed_windows_targets, mixed_windows_one_too_many],
}
RIGHT = {"ex-windows-overflow": wrapped, "ex-windows-never": never_targets, "ex-windows-mixed": mixed_windows}


@pytest.mark.parametrize("label,solution", [(k, w) for k, ws in WRONG.items() for w in ws],
                         ids=[w.__name__ for ws in WRONG.values() for w in ws])
def test_wrong_solution_fails(label, solution):
    with pytest.raises(AssertionError):
        CHECKS[label](solution)


@pytest.mark.parametrize("label", sorted(RIGHT))
def test_right_solution_passes(label):
    CHECKS[label](RIGHT[label])
