"""Preference pairs: ``{"prompt", "chosen", "rejected"}`` records to one padded batch.

A reward model or DPO compares two answers to one prompt, so the two sequences
must start with *the same prompt ids*; the answers differ after it. Each record
becomes ``prompt_ids + answer_ids + [end_of_turn]`` twice (``encode_pair``), the
prompt rendered by ``chat.render_chat`` with the generation prompt, the answer
encoded on its own (subtle: encoding ``prompt + answer`` as one text can merge the
prompt's last characters with the answer's first, and then the two sides no
longer share the prompt's last id). ``check_shared_prompt`` refuses a pair whose
prompts differ, naming the first position.

``pair_batch`` pads every sequence of the batch, chosen and rejected alike, to one
length with the pad id and records ``seq_lengths``; a model's score for a whole
sequence is read at its last *real* token, ``gather_last(values, seq_lengths)``,
not at position ``-1``, which is padding for every sequence shorter than the longest.

What this module does not do: compute a DPO or reward-model loss, or truncate
sequences longer than a context (a too-long pair is the caller's to drop).
"""

from __future__ import annotations

from .._internal.optional import optional_import
from .chat import _template, render_chat

__all__ = ["encode_pair", "check_shared_prompt", "pad_sequences", "pair_batch",
           "last_token_index", "gather_last", "preference_batch"]


def encode_pair(tokenizer, record, template="plain", eos=None) -> tuple[list[int], list[int], list[int]]:
    """``(prompt_ids, chosen_ids, rejected_ids)`` for one record; both answers start with the prompt's ids.

    The prompt is one user message with the generation prompt; each answer is the
    assistant's content and its end-of-turn token.
    """
    for key in ("prompt", "chosen", "rejected"):
        if not isinstance(record, dict) or not isinstance(record.get(key), str):
            got = sorted(record) if isinstance(record, dict) else type(record).__name__
            raise ValueError(f"a preference record needs str fields 'prompt', 'chosen', 'rejected'; "
                             f"{key!r} is missing or not a str (found {got})")
    kw = {} if eos is None else {"eos": eos}
    prompt, _ = render_chat(tokenizer, [{"role": "user", "content": record["prompt"]}], template,
                            add_generation_prompt=True, **kw)
    sides = []
    for key in ("chosen", "rejected"):
        full, mask = render_chat(tokenizer, [{"role": "user", "content": record["prompt"]},
                                             {"role": "assistant", "content": record[key]}], template, **kw)
        # the answer: the learned part (content + end of turn); what follows it (template text) is dropped
        last = max(i for i, m in enumerate(mask) if m)
        sides.append(full[:last + 1])
    check_shared_prompt(prompt, sides[0], sides[1])
    return prompt, sides[0], sides[1]


def check_shared_prompt(prompt, chosen, rejected) -> None:
    """Refuse a pair unless both sides start with exactly the prompt's ids and have an answer after them.

    >>> check_shared_prompt([1, 2], [1, 2, 3], [1, 2, 4, 5])
    >>> check_shared_prompt([1, 2], [1, 2, 3], [1, 9, 3])
    Traceback (most recent call last):
    ValueError: rejected differs from the prompt (2 ids) at position 1: 9, not 2; encode the prompt once and append each answer
    """
    prompt = list(prompt)
    for name, seq in (("chosen", chosen), ("rejected", rejected)):
        seq = list(seq)
        if len(seq) <= len(prompt):
            raise ValueError(f"{name} has {len(seq)} ids, no answer after the prompt's {len(prompt)}")
        for k, (a, b) in enumerate(zip(prompt, seq)):
            if a != b:
                raise ValueError(f"{name} differs from the prompt ({len(prompt)} ids) at position {k}: {b}, "
                                 f"not {a}; encode the prompt once and append each answer")


def pad_sequences(seqs, pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``(ids, seq_lengths)``: the sequences padded on the right with ``pad_id`` to the longest one.

    The lengths are recorded, never recounted from the padding (subtle: when the pad
    id is the end-of-turn id, every real sequence ends in it too).

    >>> pad_sequences([[5, 6, 7], [8]], pad_id=0)
    (tensor([[5, 6, 7],
            [8, 0, 0]]), tensor([3, 1]))
    """
    torch = optional_import("torch", "pad_sequences")  # only the tensor helpers need it
    seqs = [list(s) for s in seqs]
    if not seqs or min(map(len, seqs)) < 1:
        raise ValueError("pad_sequences needs at least one sequence, each of at least one id")
    ids = torch.full((len(seqs), max(map(len, seqs))), pad_id, dtype=torch.int64)
    for row, seq in enumerate(seqs):
        ids[row, :len(seq)] = torch.tensor(seq, dtype=torch.int64)
    return ids, torch.tensor([len(s) for s in seqs])


def pair_batch(pairs, pad_id: int) -> dict:
    """A batch from ``(prompt_ids, chosen_ids, rejected_ids)`` triples, padded on the right.

    Returns ``chosen_ids`` and ``rejected_ids`` (B, L) with L the longest of all 2B
    sequences, ``chosen_lengths`` / ``rejected_lengths`` (B,) (the ``seq_lengths``),
    ``prompt_lengths`` (B,), and ``chosen_mask`` / ``rejected_mask`` (B, L): 1 on the
    answer's ids, 0 on the prompt and the padding.

    >>> b = pair_batch([([7], [7, 1], [7, 2, 3])], pad_id=0)
    >>> b["chosen_ids"].tolist(), b["rejected_ids"].tolist(), b["chosen_lengths"].tolist()
    ([[7, 1, 0]], [[7, 2, 3]], [2])
    """
    torch = optional_import("torch", "pair_batch")  # only the tensor helpers need it
    pairs = list(pairs)
    if not pairs:
        raise ValueError("pair_batch needs at least one pair")
    for k, (prompt, chosen, rejected) in enumerate(pairs):
        try:
            check_shared_prompt(prompt, chosen, rejected)
        except ValueError as e:
            raise ValueError(f"pair {k}: {e}") from None
    # both sides padded together: one length L for all 2B sequences
    ids, lengths = pad_sequences([p[1] for p in pairs] + [p[2] for p in pairs], pad_id)
    prompt_lengths = torch.tensor([len(p) for p, _, _ in pairs])
    positions = torch.arange(ids.shape[1])
    out = {"prompt_lengths": prompt_lengths}
    for side, rows in (("chosen", slice(0, len(pairs))), ("rejected", slice(len(pairs), None))):
        out[f"{side}_ids"], out[f"{side}_lengths"] = ids[rows], lengths[rows]
        # the answer, end of turn included: at or past the prompt, before the padding
        answer = (positions >= prompt_lengths[:, None]) & (positions < lengths[rows][:, None])
        out[f"{side}_mask"] = answer.long()
    return out


def last_token_index(seq_lengths) -> torch.Tensor:
    """The position of each sequence's last real token: ``seq_lengths - 1``.

    >>> import torch
    >>> last_token_index(torch.tensor([3, 1]))
    tensor([2, 0])
    """
    torch = optional_import("torch", "last_token_index")  # only the tensor helpers need it
    seq_lengths = torch.as_tensor(seq_lengths)
    if seq_lengths.numel() and int(seq_lengths.min()) < 1:
        raise ValueError(f"a sequence of length {int(seq_lengths.min())} has no last token")
    return seq_lengths - 1


def gather_last(values: torch.Tensor, seq_lengths) -> torch.Tensor:
    """``values[b, seq_lengths[b] - 1]`` for each row b: a (B, L, ...) tensor read at the last real token.

    >>> import torch
    >>> gather_last(torch.tensor([[1., 2., 0.], [4., 5., 6.]]), torch.tensor([2, 3]))
    tensor([2., 6.])
    """
    torch = optional_import("torch", "gather_last")  # only the tensor helpers need it
    idx = last_token_index(seq_lengths)
    if values.ndim < 2 or len(idx) != values.shape[0] or (len(idx) and int(idx.max()) >= values.shape[1]):
        raise ValueError(f"values {tuple(values.shape)} and seq_lengths {idx.add(1).tolist()[:8]}: expected "
                         f"(B, L, ...) with every length between 1 and L")
    return values[torch.arange(values.shape[0]), idx]


def preference_batch(tokenizer, records, template="plain", pad: str | None = None, eos=None) -> dict:
    """``pair_batch`` of ``encode_pair`` for each record; ``pad``: the pad token (default: the end of turn)."""
    t = _template(template)
    pairs = []
    for k, r in enumerate(records):
        try:
            pairs.append(encode_pair(tokenizer, r, template, eos=eos))
        except ValueError as e:
            raise ValueError(f"record {k}: {e}") from None
    pad = pad or t.end_of_turn or eos or "<|endoftext|>"
    if pad not in tokenizer.special_tokens:
        raise ValueError(f"pad token {pad!r} is not a special token of this tokenizer")
    return pair_batch(pairs, tokenizer.special_tokens[pad])
