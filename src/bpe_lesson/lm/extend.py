"""A model for an extended vocabulary: new embedding (and head) rows for the new ids.

``train(texts, vocab_size, start_from=base)`` adds tokens after the base's ids; a
model trained on the base then needs ``new_vocab_size`` rows. ``resize_embeddings``
keeps every old row and starts the new ones as
  * ``"random"``: normal, std 0.02, as the model was first initialised;
  * ``"mean"``: the mean of all the old rows;
  * ``"pieces"``: the mean of the rows of the base tokens each new token is made of
    (``new_token_pieces``: the base's encoding of the new token's bytes).
A tied head stays tied (one matrix); an untied head's new rows start the same way
from the head's own rows.

What this module does not do: train the new rows (``train_loop.train_model``) or
extend the tokenizer (``trainer.train(start_from=...)``).
"""

from __future__ import annotations

from .._internal.optional import optional_import
from ..ranks import bpe_encode_chunk

__all__ = ["INITS", "new_token_pieces", "resize_embeddings"]

torch = optional_import("torch", "bpe_lesson.lm.extend (resizing a model)")
from torch import nn  # noqa: E402  (only once torch is known to be there)

INITS = ("random", "mean", "pieces")


def new_token_pieces(base, extended) -> dict[int, list[int]]:
    """Each id ``extended`` has and ``base`` has not -> the base's ids for its bytes.

    >>> from bpe_lesson import Tokenizer
    >>> base = Tokenizer([((97, 98), 256)])
    >>> new_token_pieces(base, Tokenizer([((97, 98), 256), ((256, 99), 257)]))
    {257: [256, 99]}
    """
    return {i: bpe_encode_chunk(b, base._ranks) for i, b in extended.vocab.items() if i not in base.vocab
            and i not in base.special_tokens.values()}


def _new_rows(old, n_new: int, init: str, pieces, first: int, generator):
    """``n_new`` rows for ids ``first, first + 1, ...`` from the matrix ``old`` (rows = ids)."""
    if init == "random":
        return torch.randn(n_new, old.shape[1], generator=generator, dtype=old.dtype) * 0.02
    if init == "mean":
        return old.mean(0, keepdim=True).expand(n_new, -1).clone()
    rows = []
    for i in range(first, first + n_new):
        if i not in pieces:  # an id with no pieces (a new special token): the mean of all rows
            rows.append(old.mean(0))
        else:
            rows.append(old[torch.tensor(pieces[i])].mean(0))
    return torch.stack(rows)


@torch.no_grad()
def resize_embeddings(model, new_vocab_size: int, init: str = "random", pieces=None, seed: int = 0):
    """Give ``model`` (``model.GPT``) ``new_vocab_size`` rows, old rows kept; returns the model.

    ``pieces``: ``{new id: [base ids]}`` (``new_token_pieces``), needed for ``init="pieces"``.

    >>> from bpe_lesson.lm.model import GPT
    >>> m = resize_embeddings(GPT(6, 4, 1, 1, 4), 7, "pieces", {6: [3, 5]})
    >>> bool(torch.equal(m.tok.weight[6], (m.tok.weight[3] + m.tok.weight[5]) / 2)), m.tied
    (True, True)
    """
    if init not in INITS:
        raise ValueError(f"init {init!r} should be one of {', '.join(INITS)}")
    old_v, d = model.tok.weight.shape
    if new_vocab_size < old_v:
        raise ValueError(f"new_vocab_size {new_vocab_size:,} is below the model's {old_v:,} rows; resizing only adds")
    if init == "pieces" and pieces is None:
        raise ValueError('init="pieces" needs pieces={new id: [base ids]} (lm.extend.new_token_pieces)')
    g = torch.Generator().manual_seed(seed)
    tied, n_new = model.tied, new_vocab_size - old_v
    w = model.tok.weight
    emb = nn.Embedding(new_vocab_size, d, device=w.device, dtype=w.dtype)
    emb.weight.copy_(torch.cat([w.detach().cpu(), _new_rows(w.detach().cpu(), n_new, init, pieces, old_v, g)]))
    model.tok = emb
    if tied:
        model.head = nn.Linear(d, new_vocab_size, bias=False, device=w.device, dtype=w.dtype)
        model.head.weight = model.tok.weight
    else:
        h = model.head.weight.detach().cpu()
        model.head = nn.Linear(d, new_vocab_size, bias=False, device=w.device, dtype=w.dtype)
        model.head.weight.copy_(torch.cat([h, _new_rows(h, n_new, init, pieces, old_v, g)]))
    return model
