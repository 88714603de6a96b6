"""The tiny GPT (lm/model.py), bits per byte (lm/evaluate.py), the training loop
(lm/train_loop.py) and new embedding rows for an extended vocabulary (lm/extend.py).

Closed forms and hand cases: a model whose logits are all equal costs log2(V) bits a
token; a model with fixed logits is worked out by hand; parameter counts by hand;
FLOPs against the book's forward_flops and PyTorch's FlopCounterMode.
"""

import math

import pytest
import torch
from torch import nn

import bpe_lesson
from bpe_lesson import Tokenizer
from bpe_lesson.lm import GPT, bits_per_byte, flops_per_token, parameter_counts, resize_embeddings, train_model
from bpe_lesson.lm.extend import new_token_pieces
from bpe_lesson.lm.windows import SlidingWindowDataset
from bpe_lesson.teaching.checks.vocabulary_costs import forward_flops

torch.set_num_threads(1)
EOS = "<|endoftext|>"


class FixedLogits(nn.Module):
    """Every position gets the same logits, whatever it reads."""

    def __init__(self, logits):
        super().__init__()
        self.logits = nn.Parameter(torch.tensor(logits, dtype=torch.float32))
        self.context_length = 8

    def forward(self, ids):
        return self.logits.expand(ids.shape[0], ids.shape[1], -1)


@pytest.fixture(scope="module")
def tok(prose_docs):
    return bpe_lesson.train(prose_docs[:60], 400, special_tokens=[EOS])


# ---- the model -------------------------------------------------------------------

def test_shapes_and_seed():
    a, b = GPT(50, 16, 2, 2, 8, seed=3), GPT(50, 16, 2, 2, 8, seed=3)
    x = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
    assert a(x).shape == (2, 4, 50)
    assert torch.equal(a(x), b(x))
    assert not torch.equal(a(x), GPT(50, 16, 2, 2, 8, seed=4)(x))


def test_causal():
    """Changing a later id never changes an earlier position's logits."""
    m = GPT(20, 16, 2, 2, 8)
    x = torch.tensor([[1, 2, 3, 4, 5]])
    y = x.clone()
    y[0, 3] = 9
    assert torch.allclose(m(x)[0, :3], m(y)[0, :3])
    assert not torch.allclose(m(x)[0, 3], m(y)[0, 3])


def test_too_long_refused():
    with pytest.raises(ValueError, match="context_length=4"):
        GPT(10, 8, 1, 2, 4)(torch.zeros(1, 5, dtype=torch.long))


def test_parameter_counts_by_hand():
    v, d, layers, t = 100, 16, 2, 8
    block = 2 * 2 * d + (3 * d * d + 3 * d) + (d * d + d) + (4 * d * d + 4 * d) + (4 * d * d + d)
    untied = parameter_counts(GPT(v, d, layers, 2, t, tied=False))
    assert untied == {"embedding": v * d + t * d, "body": layers * block + 2 * d, "head": v * d}
    tied = GPT(v, d, layers, 2, t, tied=True)
    assert parameter_counts(tied)["head"] == 0
    assert sum(parameter_counts(tied).values()) == sum(p.numel() for p in tied.parameters())


def test_flops_as_the_book_counts():
    v, d, layers, t = 512, 64, 2, 128
    # the book's forward pass over t tokens (bytes per token 1: n_bytes = t)
    assert flops_per_token(v, d, layers, t) * t == forward_flops(1, v, d, layers, t)
    assert flops_per_token(v, d, layers, t, training=True) == 3 * flops_per_token(v, d, layers, t)


def test_flops_match_flop_counter():
    from torch.utils.flop_counter import FlopCounterMode
    v, d, layers, t = 64, 32, 2, 16
    m = GPT(v, d, layers, 4, t)
    with FlopCounterMode(display=False) as count:
        m(torch.zeros(1, t, dtype=torch.long))
    # subtle: on CPU the counter does not see inside scaled_dot_product_attention, so it
    # counts the linear layers and the head; attention's 4 T d per layer is the rest
    attention = layers * 4 * t * d
    assert count.get_total_flops() == (flops_per_token(v, d, layers, t) - attention) * t


# ---- bits per byte -----------------------------------------------------------------

def test_uniform_model_closed_form(tok, prose_docs):
    texts = [prose_docs[60][:900], "x", EOS.join(["Two documents", " in one text."]), prose_docs[61][:300]]
    ids = [tok.encode(t, allowed_special="all") for t in texts]
    specials = set(tok.special_tokens.values())
    predicted = [j for seq in ids for j in seq[1:] if j not in specials]  # the first id of each text is not
    n_bytes = sum(len(tok.vocab[j]) for j in predicted)
    want = math.log2(tok.n_vocab) * len(predicted) / n_bytes
    uniform = FixedLogits([0.0] * tok.n_vocab)
    for t in (4, 8, 1000):  # windowing never changes which tokens are predicted
        assert bits_per_byte(uniform, tok, texts, context_length=t) == pytest.approx(want, rel=1e-6)


def test_fixed_logits_by_hand():
    """Bytes only (V = 256): "a" gets logit ln 3, so p("a") = 3/258, any other byte 1/258.
    "aab" predicts "a" then "b": (log2(258/3) + log2(258)) bits over 2 bytes."""
    logits = [0.0] * 256
    logits[97] = math.log(3)
    got = bits_per_byte(FixedLogits(logits), Tokenizer([]), ["aab"])
    assert got == pytest.approx((math.log2(258 / 3) + math.log2(258)) / 2, rel=1e-6)


def test_one_window_equals_direct_cross_entropy(tok, prose_docs):
    m = GPT(tok.n_vocab, 16, 1, 2, 64)
    text = prose_docs[62][:100]
    ids = tok.encode(text)
    assert len(ids) <= 65
    logits = m(torch.tensor([ids[:-1]]))[0]
    nats = nn.functional.cross_entropy(logits, torch.tensor(ids[1:]), reduction="sum").item()
    want = nats / math.log(2) / len(tok.decode_bytes(ids[1:]))
    assert bits_per_byte(m, tok, [text]) == pytest.approx(want, rel=1e-5)


def test_independent_of_batch_size(tok, prose_docs):
    m = GPT(tok.n_vocab, 16, 2, 2, 32, seed=1)
    texts = [d[:k] for d, k in zip(prose_docs[63:70], (50, 400, 120, 900, 30, 260, 700))]
    got = [bits_per_byte(m, tok, texts, batch_size=b) for b in (1, 3, 64)]
    assert got[0] == pytest.approx(got[1], rel=1e-5) == pytest.approx(got[2], rel=1e-5)


def test_nothing_to_predict():
    with pytest.raises(ValueError, match="no predicted byte"):
        bits_per_byte(FixedLogits([0.0] * 256), Tokenizer([]), ["a"])


# ---- training ----------------------------------------------------------------------

def test_held_out_loss_falls(tok, prose_docs):
    """A tiny model on 60 help topics (its training text) predicts the others better after
    150 steps: bits per byte fall from about log2(V) / (bytes per token) by a wide margin."""
    ids = [j for d in prose_docs[:60] for j in tok.encode(d) + [tok.special_tokens[EOS]]]
    windows = SlidingWindowDataset(torch.tensor(ids), context_length=32)
    m = GPT(tok.n_vocab, 32, 2, 2, 32, seed=0)
    held = [d[:2000] for d in prose_docs[60:]]
    before = bits_per_byte(m, tok, held)
    losses = train_model(m, windows, steps=150, lr=3e-3, batch_size=16)
    after = bits_per_byte(m, tok, held)
    assert len(losses) == 150
    assert losses[-1] < losses[0] - 1.0
    assert after < before - 0.5, (before, after)
    assert torch.get_num_threads() == 1  # put back as it was


def test_training_is_deterministic(tok, prose_docs):
    ids = tok.encode(prose_docs[0])[:400]
    runs = []
    for _ in range(2):
        m = GPT(tok.n_vocab, 16, 1, 2, 16, seed=5)
        runs.append(train_model(m, SlidingWindowDataset(torch.tensor(ids), 16), steps=8, batch_size=4, seed=2))
    assert runs[0] == runs[1]


# ---- resizing for an extended vocabulary --------------------------------------------

def test_pieces_hand_case():
    """A new token made of ids 3 and 5 starts as the mean of rows 3 and 5; the head stays tied."""
    m = GPT(6, 8, 1, 2, 4)
    old = m.tok.weight.detach().clone()
    resize_embeddings(m, 8, "pieces", {6: [3, 5], 7: [1, 1, 2]})
    w = m.tok.weight
    assert torch.equal(w[:6], old)
    assert torch.allclose(w[6], (old[3] + old[5]) / 2)
    assert torch.allclose(w[7], (2 * old[1] + old[2]) / 3)
    assert m.tied and m.head.weight.shape == (8, 8)
    assert m(torch.tensor([[6, 7]])).shape == (1, 2, 8)


def test_mean_random_and_untied():
    m = GPT(6, 8, 1, 2, 4, tied=False)
    old_tok, old_head = m.tok.weight.detach().clone(), m.head.weight.detach().clone()
    resize_embeddings(m, 7, "mean")
    assert torch.allclose(m.tok.weight[6], old_tok.mean(0)) and torch.allclose(m.head.weight[6], old_head.mean(0))
    assert not m.tied and torch.equal(m.head.weight[:6], old_head)
    r = resize_embeddings(GPT(6, 8, 1, 2, 4), 9, "random", seed=1)
    assert r.tok.weight[6:].std().item() == pytest.approx(0.02, rel=0.8)
    with pytest.raises(ValueError, match="pieces="):
        resize_embeddings(GPT(6, 8, 1, 2, 4), 7, "pieces")
    with pytest.raises(ValueError, match="below"):
        resize_embeddings(GPT(6, 8, 1, 2, 4), 5)


def test_new_token_pieces_from_an_extension():
    base = bpe_lesson.train("ab ab ab", 258, pattern=None, special_tokens=["<s>"])
    ext = bpe_lesson.train("abab abab abab", 259, pattern=None, start_from=base)
    assert new_token_pieces(base, ext) == {258: [256, 256]}
