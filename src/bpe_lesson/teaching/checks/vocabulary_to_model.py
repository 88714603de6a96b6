"""Checks of the exercises in *From a vocabulary to a model*: bits per byte from the
losses of the predicted tokens, the mean-of-pieces start of a new embedding row, and
the ids an extended vocabulary gives its new tokens.

Each check compares the reader's function with a reference written here, small and
exact, on hand-picked cases and on generated ones aimed at the edges: special tokens
(no bytes, and a loss that must not count), one predicted token, tokens of 1 and of
16 bytes; a new token made of one piece, of the same piece twice, a new special token
with no pieces; a base whose ids have gaps and whose special tokens sit above (or
among) its ordinary ids, a merge of two new tokens, new special tokens after the new
merges. ``tests/teaching/test_checks_vocabulary_to_model.py`` checks the references
against the package: ``lm.bits_per_byte`` on a model, ``lm.resize_embeddings``, and
``train(start_from=...)``'s ids on a real extension of GPT-4's vocabulary.

What this module does not do: train a model (the chapter does), or import torch before
a check runs (the other chapters grade without it).
"""

from __future__ import annotations

import math

from ..._internal.optional import optional_import
from . import _gen, check, compare

__all__ = ["bits_per_byte_of", "BPB_CASES", "check_bits_per_byte", "pieces_rows",
           "check_pieces_init", "extended_ids", "EXTEND_CASES", "check_extend_ids"]

# ---------------------------------------------------------------- ex-model-bpb


def bits_per_byte_of(losses, token_bytes) -> float:
    """Bits per byte of predicted tokens: ``losses[i]`` nats for a token of ``token_bytes[i]``
    UTF-8 bytes; a special token (0 bytes) adds neither its loss nor bytes.

    >>> round(bits_per_byte_of([math.log(4), math.log(2), 5.0], [2, 1, 0]), 9)  # 2 + 1 bits over 3 bytes
    1.0
    """
    kept = [(loss, n) for loss, n in zip(losses, token_bytes) if n > 0]
    return math.fsum(loss for loss, _ in kept) / math.log(2) / sum(n for _, n in kept)


BPB_CASES = [([math.log(2)], [1]),                        # one bit for one byte
             ([math.log(4), math.log(2), 5.0], [2, 1, 0]),  # the special token's 5 nats do not count
             ([0.0, 3.0], [1, 16]),                       # a certain token, then a long one
             ([2.5] * 7, [3, 1, 4, 1, 5, 9, 2])]


def _bpb_case(rng):
    n = rng.choice([1, 2, 3, rng.randint(1, 40)])
    losses = [rng.choice([0.0, round(rng.uniform(0, 12), 3), math.log(rng.randint(2, 50_000))]) for _ in range(n)]
    sizes = [rng.choice([0, 1, 1, 2, 3, 4, 6, 16, rng.randint(1, 30)]) for _ in range(n)]
    if rng.random() < 0.3:  # a special token with a large loss, which must not count
        k = rng.randrange(n)
        sizes[k], losses[k] = 0, rng.uniform(5, 20)
    return (losses, sizes) if sum(sizes) else None  # no byte predicted: no answer, draw again


def _bpb_hint(args, want, got):
    losses, sizes = args
    if math.isclose(got, want * math.log(2), rel_tol=1e-9):
        return "the losses are in nats: divide by ln 2 for bits"
    with_specials = math.fsum(losses) / math.log(2) / sum(sizes)
    if math.isclose(got, with_specials, rel_tol=1e-9):
        return "a special token (0 bytes) adds neither its loss nor bytes"
    return "total bits of the tokens that cover bytes, divided by those bytes (not by tokens)"


@check("ex-model-bpb")
def check_bits_per_byte(fn):
    compare(fn, bits_per_byte_of, BPB_CASES, generate=_bpb_case, kind=float,
            equal=lambda want, got: math.isclose(got, want, rel_tol=1e-9), hint=_bpb_hint)


# ---------------------------------------------------------------- ex-model-pieces-init

def pieces_rows(weight, pieces: dict, first: int, n_new: int):
    """Rows for ids ``first .. first + n_new - 1``: the mean of the rows of the id's pieces
    (each occurrence counts), or the mean of all rows for an id with no pieces.

    >>> torch = optional_import("torch", "the doctest")
    >>> pieces_rows(torch.tensor([[0., 3.], [6., 9.]]), {2: [0, 1, 1]}, 2, 2).tolist()
    [[4.0, 7.0], [3.0, 6.0]]
    """
    torch = optional_import("torch", "ex-model-pieces-init")
    rows = [weight[torch.tensor(pieces[i])].mean(0) if i in pieces else weight.mean(0)
            for i in range(first, first + n_new)]
    return torch.stack(rows) if rows else weight.new_zeros((0, weight.shape[1]))


def _pieces_case(rng):
    torch = optional_import("torch", "ex-model-pieces-init")
    old, d = rng.randint(1, 8), rng.randint(1, 3)
    weight = torch.tensor([[float(rng.randint(-8, 8)) / 4 for _ in range(d)] for _ in range(old)],
                          dtype=torch.float64)
    n_new = rng.choice([0, 1, 2, rng.randint(1, 5)])
    pieces = {}
    for i in range(old, old + n_new):
        if rng.random() < 0.8:  # else: a new special token, no pieces
            k = rng.choice([1, 2, 2, 3, 5])
            one = rng.randrange(old)
            pieces[i] = [one] * k if rng.random() < 0.2 else [rng.randrange(old) for _ in range(k)]
    return weight, pieces, old, n_new


def _pieces_cases():
    torch = optional_import("torch", "ex-model-pieces-init")
    w = torch.tensor([[0.0, 2.0], [4.0, 6.0], [1.0, -1.0]], dtype=torch.float64)
    yield (w, {3: [0, 1]}, 3, 1)          # " the" from " t" + "he": the mean of two rows
    yield (w, {3: [1, 1]}, 3, 1)          # the same piece twice: that row itself
    yield (w, {3: [0, 0, 2]}, 3, 1)       # each occurrence counts: (2 w0 + w2) / 3
    yield (w, {4: [2, 0]}, 3, 2)          # id 3 has no pieces (a new special token): mean of all rows


def _unchanged(fn):
    """The reader's function, refused when it writes into the weight it was given."""
    def run(weight, pieces, first, n_new):
        before = weight.clone()
        out = fn(weight, pieces, first, n_new)
        if not (weight.shape == before.shape and bool((weight == before).all())):
            raise ValueError("changed the weight matrix it was given; return the new rows only")
        return out
    run.__name__ = getattr(fn, "__name__", "the solution")
    return run


def _as_rows(fn):
    """``fn``'s tensor as rows of floats to 9 decimals: compared exactly, printed on one line."""
    def run(*args):
        torch = optional_import("torch", "ex-model-pieces-init")
        out = fn(*args)
        if not isinstance(out, torch.Tensor):
            raise TypeError(f"returned a {type(out).__name__}; return a tensor of rows, one per new id")
        if out.dim() != 2:  # printed as it is: the wrong shape shows
            return [round(float(x), 9) for x in out.flatten()]
        return [[round(float(x), 9) for x in row] for row in out]
    run.__name__ = getattr(fn, "__name__", "the solution")
    return run


def _show_pieces(args):
    weight, pieces, first, n_new = args
    return f"weight={weight.tolist()}, pieces={pieces}, first={first}, n_new={n_new}"


def _pieces_hint(args, want, got):
    weight, pieces, first, n_new = args
    if len(got) != len(want) or any(not isinstance(r, list) or len(r) != weight.shape[1] for r in got):
        return f"one row per new id, {n_new} of them, each {weight.shape[1]} wide"
    return "an id with pieces: the mean of their rows, each occurrence counted; without: the mean of all rows"


@check("ex-model-pieces-init")
def check_pieces_init(fn):
    compare(_as_rows(_unchanged(fn)), _as_rows(pieces_rows), _pieces_cases(), generate=_pieces_case,
            kind=list, show=_show_pieces, shrink=lambda args: iter(()), pure=False, hint=_pieces_hint)


# ---------------------------------------------------------------- ex-model-extend-ids

def extended_ids(vocab: dict, specials: dict, merges: list, new_specials: list) -> tuple[dict, dict]:
    """The new entries of a vocabulary extended by ``merges`` (pairs of ids, in order) and
    ``new_specials``: ``({id: bytes}, {name: id})``. The first new id is one above the
    highest id in use, special tokens included; merges take ids in order, each the bytes of
    its left id then its right one (either may be new); then the new special tokens.

    >>> extended_ids({0: b"a", 1: b"b"}, {"<s>": 5}, [(0, 1), (6, 6)], ["<t>"])
    ({6: b'ab', 7: b'abab'}, {'<t>': 8})
    """
    nxt = max([*vocab, *specials.values()]) + 1
    tokens, all_bytes = {}, dict(vocab)
    for a, b in merges:
        tokens[nxt] = all_bytes[nxt] = all_bytes[a] + all_bytes[b]
        nxt += 1
    return tokens, {name: nxt + k for k, name in enumerate(new_specials)}


def _extend_case(rng):
    """A base with gaps in its ids (cl100k has them), special tokens above or among the
    ordinary ids, merges that use earlier new tokens, sometimes new special tokens."""
    n = rng.randint(1, 6)
    ids = rng.sample(range(rng.choice([n, n + 3, 300])), n)
    vocab = {i: _gen.token(rng, 3) for i in ids}
    specials = {}
    for name in rng.sample(["<|endoftext|>", "<s>", "</s>", "<pad>"], rng.randint(0, 3)):
        specials[name] = rng.choice([max(ids) + rng.randint(1, 20), rng.randint(0, max(ids) + 5)])
    if len(set(specials.values()) | set(ids)) != len(specials) + len(ids):
        return None  # an id used twice: no legal base, draw again
    known, first = list(ids), max([*ids, *specials.values()]) + 1
    merges = []
    for k in range(rng.choice([0, 1, 2, rng.randint(1, 6)])):
        merges.append((rng.choice(known), rng.choice(known)))
        known.append(first + k)
    new_specials = [s for s in ["<|fim|>", "<code>"] if rng.random() < 0.3 and s not in specials]
    return vocab, specials, merges, new_specials


EXTEND_CASES = [({0: b"a", 1: b"b"}, {}, [(0, 1)], []),                      # the first new id is 2
                ({0: b"a", 1: b"b"}, {"<s>": 5}, [(0, 1), (6, 6)], ["<t>"]),  # after the special token
                ({3: b"x", 0: b"y"}, {"<s>": 1}, [(3, 0)], []),               # a gap below: still max + 1
                ({0: b"a", 1: b"b"}, {"<s>": 2}, [], ["<t>", "<u>"])]         # no merge, two new specials


def _extend_hint(args, want, got):
    vocab, specials, merges, _ = args
    tokens, names = got if isinstance(got, tuple) and len(got) == 2 else ({}, {})
    first = max([*vocab, *specials.values()]) + 1
    if isinstance(tokens, dict) and isinstance(names, dict) and tokens and names \
            and min(names.values(), default=0) < min(tokens, default=0):
        return "the new special tokens come after the new merges"
    if isinstance(tokens, dict) and (tokens or names) \
            and min([*tokens, *(names.values() if isinstance(names, dict) else [])]) != first:
        return f"the first new id is one above the highest id in use, special tokens included: {first}"
    return "merges take ids in order, each the bytes of its left id then its right one (new ones too)"


def _legal_base(args) -> bool:
    """A base has ordinary ids, and special tokens with names."""
    vocab, specials, _, new_specials = args
    return bool(vocab) and all(specials) and all(new_specials)


@check("ex-model-extend-ids")
def check_extend_ids(fn):
    compare(fn, extended_ids, EXTEND_CASES, generate=_extend_case, kind=tuple, hint=_extend_hint,
            valid=_legal_base)
