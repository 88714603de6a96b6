"""The checks of *From a vocabulary to a model* pass right solutions and reject plausible
wrong ones; their references agree with the package (``lm.bits_per_byte`` on a model,
``lm.resize_embeddings``, and ``train(start_from=...)`` on GPT-4's vocabulary)."""

import math

import pytest
import torch

import bpe_lesson
from _wrong import graded
from bpe_lesson.lm import GPT, bits_per_byte, new_token_pieces, resize_embeddings
from bpe_lesson.teaching.checks.vocabulary_to_model import bits_per_byte_of, extended_ids, pieces_rows


# ---------------------------------------------------------------- ex-model-bpb

def bpb(losses, token_bytes):  # the notebook's
    bits = sum(loss for loss, n in zip(losses, token_bytes) if n) / math.log(2)
    return bits / sum(token_bytes)


def bpb_log2(losses, token_bytes):  # nats to bits one token at a time
    return math.fsum(x * math.log2(math.e) for x, n in zip(losses, token_bytes) if n > 0) / sum(token_bytes)


def bpb_in_nats(losses, token_bytes):
    return sum(x for x, n in zip(losses, token_bytes) if n) / sum(token_bytes)


def bpb_with_specials(losses, token_bytes):  # the special token's loss counted
    return sum(losses) / math.log(2) / sum(token_bytes)


def bpb_per_token(losses, token_bytes):  # bits per token, the unit that cannot be compared
    kept = [x for x, n in zip(losses, token_bytes) if n]
    return sum(kept) / math.log(2) / len(kept)


def bpb_mean_of_ratios(losses, token_bytes):  # each token's bits per byte, averaged
    kept = [(x, n) for x, n in zip(losses, token_bytes) if n]
    return sum(x / math.log(2) / n for x, n in kept) / len(kept)


# ---------------------------------------------------------------- ex-model-pieces-init

def init_rows(weight, pieces, first, n_new):  # the notebook's
    rows = []
    for i in range(first, first + n_new):
        ids = pieces.get(i)
        rows.append(weight[ids].mean(0) if ids else weight.mean(0))
    return torch.stack(rows) if rows else weight[:0]


def init_rows_sum(weight, pieces, first, n_new):  # a sum divided by a count, row by row
    out = torch.zeros(n_new, weight.shape[1], dtype=weight.dtype)
    for k in range(n_new):
        ids = pieces.get(first + k, list(range(len(weight))))
        for i in ids:
            out[k] += weight[i]
        out[k] /= len(ids)
    return out


def init_rows_distinct(weight, pieces, first, n_new):  # "aa" from "a" twice counted once
    return init_rows(weight, {i: sorted(set(p)) for i, p in pieces.items()}, first, n_new)


def init_rows_zero_for_specials(weight, pieces, first, n_new):
    rows = [weight[pieces[i]].mean(0) if i in pieces else torch.zeros(weight.shape[1], dtype=weight.dtype)
            for i in range(first, first + n_new)]
    return torch.stack(rows) if rows else weight[:0]


def init_rows_in_place(weight, pieces, first, n_new):  # writes its rows into the weight it was given
    out = init_rows(weight, pieces, first, n_new)
    if n_new:
        weight[0] = out[0]
    return out


def init_rows_first_piece(weight, pieces, first, n_new):  # the first piece's row only
    rows = [weight[pieces[i][0]] if i in pieces else weight.mean(0) for i in range(first, first + n_new)]
    return torch.stack(rows) if rows else weight[:0]


def init_rows_all_new_ids(weight, pieces, first, n_new):  # one row per id in pieces, not per new id
    return torch.stack([weight[p].mean(0) for _, p in sorted(pieces.items())]) if pieces else weight[:0]


# ---------------------------------------------------------------- ex-model-extend-ids

def new_ids(vocab, specials, merges, new_specials):  # the notebook's
    nxt = max(list(vocab) + list(specials.values())) + 1
    tokens, known = {}, dict(vocab)
    for left, right in merges:
        tokens[nxt] = known[nxt] = known[left] + known[right]
        nxt += 1
    return tokens, {name: nxt + k for k, name in enumerate(new_specials)}


def new_ids_counted(vocab, specials, merges, new_specials):  # ids from a running count
    known = dict(vocab)
    first = max(max(vocab), max(specials.values(), default=-1)) + 1
    for k, (a, b) in enumerate(merges):
        known[first + k] = known[a] + known[b]
    return ({i: known[i] for i in range(first, first + len(merges))},
            dict(zip(new_specials, range(first + len(merges), first + len(merges) + len(new_specials)))))


def new_ids_after_ordinary(vocab, specials, merges, new_specials):  # specials above forgotten
    return new_ids(vocab, {}, merges, new_specials)


def new_ids_by_length(vocab, specials, merges, new_specials):  # len(vocab) as the next id: gaps forgotten
    nxt = len(vocab) + len(specials)
    tokens, known = {}, dict(vocab)
    for a, b in merges:
        tokens[nxt] = known[nxt] = known[a] + known[b]
        nxt += 1
    return tokens, {name: nxt + k for k, name in enumerate(new_specials)}


def new_ids_specials_first(vocab, specials, merges, new_specials):  # new specials before the merges
    nxt = max(list(vocab) + list(specials.values())) + 1
    names = {name: nxt + k for k, name in enumerate(new_specials)}
    tokens, known = {}, dict(vocab)
    for k, (a, b) in enumerate(merges):
        i = nxt + len(new_specials) + k
        tokens[i] = known[i] = known[a] + known[b]
    return tokens, names


def new_ids_base_only(vocab, specials, merges, new_specials):  # a merge of new tokens not looked up
    nxt = max(list(vocab) + list(specials.values())) + 1
    tokens = {}
    for k, (a, b) in enumerate(merges):
        tokens[nxt + k] = vocab.get(a, b"") + vocab.get(b, b"")
    return tokens, {name: nxt + len(merges) + k for k, name in enumerate(new_specials)}


RIGHT = {"ex-model-bpb": [bpb, bpb_log2],
         "ex-model-pieces-init": [init_rows, init_rows_sum],
         "ex-model-extend-ids": [new_ids, new_ids_counted]}
WRONG = {"ex-model-bpb": [bpb_in_nats, bpb_with_specials, bpb_per_token, bpb_mean_of_ratios],
         "ex-model-pieces-init": [init_rows_distinct, init_rows_zero_for_specials, init_rows_in_place,
                                  init_rows_first_piece, init_rows_all_new_ids],
         "ex-model-extend-ids": [new_ids_after_ordinary, new_ids_by_length, new_ids_specials_first,
                                 new_ids_base_only]}

test_right_solution_passes, test_wrong_solution_fails = graded(RIGHT, WRONG)


# ---------------------------------------------------------------- the references against the package

def test_bits_per_byte_reference_matches_the_package():
    """The check's reference, fed each predicted token's loss and bytes, gives what
    ``lm.bits_per_byte`` gives for a real (untrained) model on text with a special token."""
    tok = bpe_lesson.train(["the cat sat on the mat, the cat sat"] * 3, 300,
                           special_tokens=["<|endoftext|>"])
    model = GPT(tok.n_vocab, 8, 1, 2, 16, seed=3).double()
    text = "the cat<|endoftext|> sat on the mat"
    ids = tok.encode(text, allowed_special="all")
    with torch.no_grad():
        logits = model(torch.tensor([ids[:-1]]))[0]
    losses = torch.nn.functional.cross_entropy(logits, torch.tensor(ids[1:]), reduction="none").tolist()
    sizes = [0 if j in tok.special_tokens.values() else len(tok.decode_bytes([j])) for j in ids[1:]]
    assert 0 in sizes
    assert math.isclose(bits_per_byte_of(losses, sizes), bits_per_byte(model, tok, text), rel_tol=1e-12)


def test_pieces_reference_matches_resize_embeddings():
    base = bpe_lesson.train(["abcabcabd abd"] * 4, 260)
    ext = bpe_lesson.train(["abcabcabd abd abcd abcd"] * 4, 264, start_from=base)
    pieces = new_token_pieces(base, ext)
    model = GPT(base.n_vocab, 4, 1, 1, 8, seed=1).double()
    old = model.tok.weight.detach().clone()
    resize_embeddings(model, ext.n_vocab, "pieces", pieces)
    want = pieces_rows(old, pieces, base.n_vocab, ext.n_vocab - base.n_vocab)
    assert torch.equal(model.tok.weight.detach()[base.n_vocab:], want)


@pytest.fixture(scope="module")
def cl100k():
    return bpe_lesson.from_pretrained("cl100k")


def test_extended_ids_reference_matches_train_start_from(cl100k):
    """GPT-4's vocabulary (ids with a gap, special tokens above them) extended on Unicode
    character names: the check's bookkeeping gives exactly the new tokens ``train`` made."""
    import unicodedata
    names = [unicodedata.name(chr(c), "") for c in range(0x2000, 0x2400)]
    ext = bpe_lesson.train([" ".join(names)], cl100k.n_vocab + 40, start_from=cl100k)
    merges = [pair for pair, i in ext.merges if i not in cl100k.vocab]  # in id order
    assert len(merges) == 40
    tokens, names_ = extended_ids(cl100k.vocab, cl100k.special_tokens, merges, ["<|domain|>"])
    assert tokens == {i: b for i, b in ext.vocab.items() if i not in cl100k.vocab}
    assert names_ == {"<|domain|>": max(tokens) + 1}

