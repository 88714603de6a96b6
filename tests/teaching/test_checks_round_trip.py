"""The checks of *Round trip through tiktoken* reject plausible wrong solutions and pass the right ones."""

import base64

import pytest

from bpe_lesson.teaching.checks import CHECKS
from bpe_lesson.teaching.checks.round_trip import small_tokenizer


# ---- ex-tiktoken-last-merge
def _last_merge(token, ranks, below=True, rightmost=False):
    limit = ranks[token] if below else float("inf")
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 2:
        best, best_rank = None, limit
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1], limit)
            if r < best_rank or (rightmost and r == best_rank and best is not None):
                best, best_rank = i, r
        if best is None:
            return None
        parts[best : best + 2] = [parts[best] + parts[best + 1]]
    return tuple(parts) if len(parts) == 2 else None


def last_merge(token, ranks):
    return _last_merge(token, ranks)


def last_merge_any_rank(token, ranks):
    return _last_merge(token, {k: v for k, v in ranks.items() if k != token}, below=False)


def last_merge_rightmost(token, ranks):
    return _last_merge(token, ranks, rightmost=True)


def last_merge_split_in_half(token, ranks):
    return (token[: len(token) // 2], token[len(token) // 2 :]) if len(token) > 1 else None


# ---- ex-tiktoken-read
def _read(path, check_duplicates=True, first_line=1, allow_negative=False):
    ranks, seen = {}, set()
    with open(path, "rb") as f:
        for lineno, line in enumerate(f, start=first_line):
            parts = line.split()
            if not parts:
                continue
            try:
                b64, rank = parts
                token = base64.b64decode(b64, validate=True)
                rank = int(rank)
            except ValueError:
                raise ValueError(f"line {lineno}: expected 'base64 rank', got {line!r}") from None
            if rank < 0 and not allow_negative:
                raise ValueError(f"line {lineno}: rank {rank} is negative")
            if check_duplicates and (rank in seen or token in ranks):
                raise ValueError(f"line {lineno}: rank {rank} or bytes {token!r} seen before")
            seen.add(rank)
            ranks[token] = rank
    return ranks


def read_ranks(path):
    return _read(path)


def read_ranks_no_duplicate_check(path):
    return _read(path, check_duplicates=False)


def read_ranks_zero_based_lines(path):
    return _read(path, first_line=0)


def read_ranks_negative_ok(path):
    return _read(path, allow_negative=True)


# ---- ex-tiktoken-capstone
def _lines(tokenizer, order):
    specials = set(tokenizer.special_tokens.values())
    items = [(i, b) for i, b in tokenizer.vocab.items() if i not in specials]
    return [base64.b64encode(b) + b" %d\n" % i for i, b in order(items)]


def export_tiktoken(tokenizer, path):
    with open(path, "wb") as f:
        f.write(b"".join(_lines(tokenizer, sorted)))


def export_by_bytes(tokenizer, path):
    with open(path, "wb") as f:
        f.write(b"".join(_lines(tokenizer, lambda items: sorted(items, key=lambda x: x[1]))))


def export_urlsafe(tokenizer, path):
    specials = set(tokenizer.special_tokens.values())
    with open(path, "wb") as f:
        for i in sorted(tokenizer.vocab):
            if i not in specials:
                f.write(base64.urlsafe_b64encode(tokenizer.vocab[i]) + b" %d\n" % i)


def export_with_specials(tokenizer, path):
    inverse = {i: s.encode() for s, i in tokenizer.special_tokens.items()}
    vocab = {**tokenizer.vocab, **inverse}
    with open(path, "wb") as f:
        f.write(b"".join(base64.b64encode(vocab[i]) + b" %d\n" % i for i in sorted(vocab)))


def export_without_last_newline(tokenizer, path):
    with open(path, "wb") as f:
        f.write(b"".join(_lines(tokenizer, sorted))[:-1])


WRONG = {
    "ex-tiktoken-last-merge": [last_merge_any_rank, last_merge_rightmost, last_merge_split_in_half],
    "ex-tiktoken-read": [read_ranks_no_duplicate_check, read_ranks_zero_based_lines, read_ranks_negative_ok],
    "ex-tiktoken-capstone": [export_by_bytes, export_urlsafe, export_with_specials, export_without_last_newline],
}
RIGHT = {"ex-tiktoken-last-merge": last_merge, "ex-tiktoken-read": read_ranks,
         "ex-tiktoken-capstone": export_tiktoken}


@pytest.fixture(scope="module")
def tok():
    return small_tokenizer()


def _kwargs(label, tok):
    return {"tokenizer": tok} if label == "ex-tiktoken-capstone" else {}


@pytest.mark.parametrize("label,solution", [(k, w) for k, ws in WRONG.items() for w in ws],
                         ids=[w.__name__ for ws in WRONG.values() for w in ws])
def test_wrong_solution_fails(label, solution, tok):
    with pytest.raises(AssertionError):
        CHECKS[label](solution, **_kwargs(label, tok))


@pytest.mark.parametrize("label", sorted(RIGHT))
def test_right_solution_passes(label, tok):
    CHECKS[label](RIGHT[label], **_kwargs(label, tok))
