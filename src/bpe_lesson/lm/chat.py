"""Chat data, briefly: a plain-text chat template and the loss mask that goes with it.

A conversation becomes one id sequence plus a ``loss_mask`` of the same length:
1 on the tokens the model should learn to write (every assistant reply and the
EOS that ends it), 0 on everything it is only given (the role headers and the
user's and system's turns). The template, in plain text::

    ### User:
    What does BPE stand for?

    ### Assistant:
    Byte-pair encoding.<|endoftext|>

Each piece is encoded on its own, so the mask boundary is exactly a token
boundary (subtle: encoding the joined text could merge a header's last space
with the reply's first word into one token that belongs to neither).

What this module does not do: role tokens. Our tokenizers have one special
token, so the roles are plain text, and a user who types "### Assistant:" writes
what looks like a turn; production chat formats give each role a special token
for that reason.
"""

from __future__ import annotations

import numpy as np
import torch

from .shards import DEFAULT_EOS, special_id
from .windows import as_int64_ids

ROLES = ("system", "user", "assistant")
IGNORE_INDEX = -100  # torch.nn.functional.cross_entropy skips targets equal to this


def render_chat(tokenizer, messages, eos: str = DEFAULT_EOS) -> tuple[list[int], list[int]]:
    """``(ids, loss_mask)`` for a list of ``{"role": ..., "content": ...}`` messages.

    The mask is 1 exactly on the assistant's content and the EOS after it.
    """
    eos_id = special_id(tokenizer, eos, "EOS")
    ids, mask = [], []  # list[int], list[int]

    def add(text, learn):
        piece = tokenizer.encode_ordinary(text)  # a special token's text in a message stays plain text
        ids.extend(piece)
        mask.extend([learn] * len(piece))

    for k, msg in enumerate(messages):
        role, content = msg.get("role"), msg.get("content")
        if role not in ROLES or not isinstance(content, str):
            raise ValueError(f"message {k}: role {role!r} / content of type {type(content).__name__}; "
                             f"expected a role in {ROLES} and a str content")
        add(f"### {role.capitalize()}:\n", 0)
        if role == "assistant":
            add(content, 1)
            ids.append(eos_id)  # the model must learn to stop: the EOS is a target too
            mask.append(1)
            add("\n\n", 0)
        else:
            add(content + "\n\n", 0)
    return ids, mask


def sft_targets(ids, loss_mask, ignore_index: int = IGNORE_INDEX) -> tuple[torch.Tensor, torch.Tensor]:
    """``(x, y)`` for supervised fine-tuning: y is x shifted by one, with unmasked targets ignored.

    Target ``y[t] = ids[t+1]`` counts in the loss only when ``loss_mask[t+1]`` is 1.
    A mask of all ones is refused: it would train the model on the prompt too.

    >>> sft_targets([5, 6, 7, 8], [0, 0, 1, 1])
    (tensor([5, 6, 7]), tensor([-100,    7,    8]))
    """
    ids = as_int64_ids(ids)
    raw = np.asarray(loss_mask.cpu() if torch.is_tensor(loss_mask) else loss_mask)
    # checked before any cast: 0.5 must not quietly become 0
    if raw.dtype == object or raw.dtype.kind not in "biuf" or not np.isin(raw, (0, 1)).all():
        odd = sorted({str(v) for v in raw.ravel().tolist() if v not in (0, 1)})[:5] if raw.dtype != object else "?"
        raise ValueError(f"loss_mask must hold only 0 and 1, found {odd}")
    mask = torch.as_tensor(raw.astype(np.int64))
    if ids.shape != mask.shape or ids.ndim != 1:
        raise ValueError(f"ids {tuple(ids.shape)} and loss_mask {tuple(mask.shape)} must be 1-D and the same length")
    if len(ids) < 2:
        raise ValueError(f"{len(ids)} id(s) make no (input, target) pair; an example needs at least 2")
    # the first id is never a target, so its mask value does not count
    n_targets = len(mask) - 1
    if bool(mask[1:].all()):
        raise ValueError(f"loss_mask is 1 on all {n_targets} targets (positions 1 to {n_targets}): the prompt "
                         f"(headers, user turns) would be in the loss; build the mask with render_chat")
    if not bool(mask[1:].any()):
        raise ValueError(f"loss_mask is 0 on all {n_targets} targets (positions 1 to {n_targets}): this example "
                         f"teaches nothing")
    y = ids[1:].clone()
    y[mask[1:] == 0] = ignore_index
    return ids[:-1], y
