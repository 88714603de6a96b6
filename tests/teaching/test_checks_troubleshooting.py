"""The checks of *Troubleshooting* reject plausible wrong solutions and pass the right ones."""

import pytest

from bpe_lesson.teaching.checks import CHECKS


# ---- ex-trouble-fingerprint
def same_ids(tok_a, tok_b, texts):
    if tok_a.vocab != tok_b.vocab or tok_a.special_tokens != tok_b.special_tokens:
        return False
    return all(tok_a.encode(t, allowed_special="all") == tok_b.encode(t, allowed_special="all") for t in texts)


def same_ids_vocab_only(tok_a, tok_b, texts):
    return tok_a.vocab == tok_b.vocab and tok_a.special_tokens == tok_b.special_tokens


def same_ids_probes_only(tok_a, tok_b, texts):
    return all(tok_a.encode(t, allowed_special="all") == tok_b.encode(t, allowed_special="all") for t in texts)


def same_ids_ordinary_only(tok_a, tok_b, texts):
    return tok_a.vocab == tok_b.vocab and all(tok_a.encode_ordinary(t) == tok_b.encode_ordinary(t) for t in texts)


# ---- ex-trouble-padding
def pad_length(n, T, stride):
    if n <= T + 1:
        return T + 1 - n
    return (-(n - (T + 1))) % stride


def pad_to_multiple_of_stride(n, T, stride):
    return (-n) % stride


def pad_one_window_too_many(n, T, stride):
    return pad_length(n, T, stride) + (stride if n > T + 1 else 0)


def pad_forgets_short_streams(n, T, stride):
    return (-(n - (T + 1))) % stride


WRONG = {
    "ex-trouble-fingerprint": [same_ids_vocab_only, same_ids_probes_only, same_ids_ordinary_only],
    "ex-trouble-padding": [pad_to_multiple_of_stride, pad_one_window_too_many, pad_forgets_short_streams],
}
RIGHT = {"ex-trouble-fingerprint": same_ids, "ex-trouble-padding": pad_length}


@pytest.mark.parametrize("label", sorted(RIGHT))
def test_the_reference_solution_passes(label):
    CHECKS[label](RIGHT[label])


@pytest.mark.parametrize("label,wrong", [(label, w) for label, ws in WRONG.items() for w in ws],
                         ids=lambda x: getattr(x, "__name__", x))
def test_a_wrong_solution_fails(label, wrong):
    with pytest.raises(AssertionError):
        CHECKS[label](wrong)
