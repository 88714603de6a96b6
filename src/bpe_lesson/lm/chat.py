"""Chat data: a conversation becomes ids plus a loss mask, in one of three templates.

A conversation becomes one id sequence plus a ``loss_mask`` of the same length:
1 on the tokens the model should learn to write (every assistant message's
content and the end-of-turn token after it), 0 on everything it is only given
(the role headers and the user's and system's turns). The templates are data
(``TEMPLATES``), one ``ChatTemplate`` each:

* ``"plain"``, for our own small vocabularies with one special token::

      ### User:
      What does BPE stand for?

      ### Assistant:
      Byte-pair encoding.<|endoftext|>

* ``"llama3"``, Llama 3's chat format (``llama_models.llama3.chat_format.ChatFormat``,
  which the tests match id for id): ``<|begin_of_text|>`` once, then per message
  ``<|start_header_id|>`` role ``<|end_header_id|>`` ``"\\n\\n"`` content ``<|eot_id|>``;
* ``"chatml"``, Qwen 2's ChatML (the ``chat_template`` of Qwen2-7B-Instruct's
  ``tokenizer_config.json``): per message ``<|im_start|>`` ``"role\\n"`` content
  ``<|im_end|>`` ``"\\n"``, and when the first message is not a system message, the
  system message ``"You are a helpful assistant."`` first, as Qwen's template writes it.

Each piece is encoded on its own (the header's text parts, the content, the text
after the end of turn), so the mask boundary is exactly a token boundary
(subtle: encoding the joined text could merge a header's last newline with the
reply's first whitespace into one token that belongs to neither). This is what
Meta's ``ChatFormat`` does too; Hugging Face's ``apply_chat_template`` encodes the
rendered string whole, which gives other ids only where a content starts with a
newline (the chapter shows one). Content is used as given, not stripped:
``ChatFormat`` does not strip it either (Meta's Jinja template on the Hub does,
``| trim``).

A message whose text holds a special token's text ("<|eot_id|>") stays plain
text: content is encoded with ``encode_ordinary``, never parsed for special tokens.

What this module does not do: tool calls, images, or the ``ipython`` role of
Llama 3; a model's full Jinja template (we render the three formats above by
hand, and the tests compare with the real renderers).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._internal.optional import optional_import
from .shards import DEFAULT_EOS, special_id
from .tensors import as_int64_ids

__all__ = ["ROLES", "IGNORE_INDEX", "ChatTemplate", "TEMPLATES", "render_chat",
           "sft_targets"]

ROLES = ("system", "user", "assistant")
IGNORE_INDEX = -100  # torch.nn.functional.cross_entropy skips targets equal to this


@dataclass(frozen=True)
class ChatTemplate:
    """How one chat format lays out a message; parts are ``("special", name)`` or ``("text", str)``.

    ``header``: the parts before a message's content (``{role}`` and ``{Role}`` are
    filled in), each encoded on its own; ``end_of_turn``: the special token after
    the content of a message whose role is in ``eot_roles`` (``None``: the EOS
    given to ``render_chat``); ``after``: text after each message (never learned);
    ``begin``: special tokens once at the start; ``default_system``: a system
    message put first when the conversation has none.
    """

    name: str
    header: tuple
    end_of_turn: str | None
    eot_roles: tuple = ROLES
    after: str = ""
    begin: tuple = ()
    default_system: str | None = None


TEMPLATES = {
    "plain": ChatTemplate("plain", header=(("text", "### {Role}:\n"),), end_of_turn=None,
                          eot_roles=("assistant",), after="\n\n"),
    "llama3": ChatTemplate("llama3", header=(("special", "<|start_header_id|>"), ("text", "{role}"),
                                             ("special", "<|end_header_id|>"), ("text", "\n\n")),
                           end_of_turn="<|eot_id|>", begin=("<|begin_of_text|>",)),
    "chatml": ChatTemplate("chatml", header=(("special", "<|im_start|>"), ("text", "{role}\n")),
                           end_of_turn="<|im_end|>", after="\n", default_system="You are a helpful assistant."),
}


def _template(template) -> ChatTemplate:
    if isinstance(template, ChatTemplate):
        return template
    if template not in TEMPLATES:
        raise ValueError(f"template {template!r} is not one of {sorted(TEMPLATES)} (or pass a ChatTemplate)")
    return TEMPLATES[template]


def _checked(messages) -> list[dict]:
    if isinstance(messages, (str, dict)) or not hasattr(messages, "__iter__"):
        raise ValueError(f"messages must be a list of {{'role', 'content'}} dicts, got {type(messages).__name__}")
    out = list(messages)
    for k, msg in enumerate(out):
        role = msg.get("role") if isinstance(msg, dict) else None
        content = msg.get("content") if isinstance(msg, dict) else None
        if role not in ROLES or not isinstance(content, str):
            raise ValueError(f"message {k}: role {role!r} / content of type {type(content).__name__}; "
                             f"expected a role in {ROLES} and a str content")
    return out


def render_chat(tokenizer, messages, template="plain", add_generation_prompt: bool = False,
                eos: str = DEFAULT_EOS) -> tuple[list[int], list[int]]:
    """``(ids, loss_mask)`` for a list of ``{"role": ..., "content": ...}`` messages.

    The mask is 1 exactly on every assistant message's content and its end-of-turn
    token. ``add_generation_prompt``: end with the assistant's header (mask 0), the
    prompt a model completes at inference. ``eos``: the end-of-turn token of the
    plain template.

    >>> import bpe_lesson
    >>> tok = bpe_lesson.train(["ab ab"], 257, special_tokens=["<|endoftext|>"])
    >>> ids, mask = render_chat(tok, [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}])
    >>> tok.decode([i for i, m in zip(ids, mask) if m])
    'b<|endoftext|>'
    """
    t = _template(template)
    msgs = _checked(messages)
    needed = list(t.begin) + [v for k, v in t.header if k == "special"] + [t.end_of_turn] * bool(t.end_of_turn)
    missing = [name for name in needed if name not in tokenizer.special_tokens]
    if missing:
        raise ValueError(f"template {t.name!r} needs the special token(s) {missing}, which this tokenizer does "
                         f"not have (its special tokens: {sorted(tokenizer.special_tokens)[:6]!r}"
                         f"{' ...' if len(tokenizer.special_tokens) > 6 else ''})")
    ids, mask = [], []  # list[int], list[int]

    def text(s, learn):
        piece = tokenizer.encode_ordinary(s)  # a special token's text in a message stays plain text
        ids.extend(piece)
        mask.extend([learn] * len(piece))

    def token(i, learn):
        ids.append(i)
        mask.append(learn)

    def header(role):
        for kind, value in t.header:  # each part its own piece, as Meta's ChatFormat encodes them
            if kind == "special":
                token(tokenizer.special_tokens[value], 0)
            else:
                text(value.format(role=role, Role=role.capitalize()), 0)

    eot = special_id(tokenizer, eos, "EOS") if t.end_of_turn is None else tokenizer.special_tokens[t.end_of_turn]
    for name in t.begin:
        token(tokenizer.special_tokens[name], 0)
    if t.default_system is not None and (not msgs or msgs[0]["role"] != "system"):
        msgs = [{"role": "system", "content": t.default_system}] + msgs
    for msg in msgs:
        role, content = msg["role"], msg["content"]
        learn = int(role == "assistant")
        header(role)
        if role in t.eot_roles:
            text(content, learn)
            token(eot, learn)  # the model must learn to stop: the end of turn is a target too
            text(t.after, 0)
        else:  # plain: a user's turn ends in text, not a token
            text(content + t.after, 0)
    if add_generation_prompt:
        header("assistant")
    return ids, mask


def sft_targets(ids, loss_mask, ignore_index: int = IGNORE_INDEX) -> tuple[torch.Tensor, torch.Tensor]:
    """``(x, y)`` for supervised fine-tuning: y is x shifted by one, with unmasked targets ignored.

    Target ``y[t] = ids[t+1]`` counts in the loss only when ``loss_mask[t+1]`` is 1.
    A mask of all ones is refused: it would train the model on the prompt too.

    >>> sft_targets([5, 6, 7, 8], [0, 0, 1, 1])
    (tensor([5, 6, 7]), tensor([-100,    7,    8]))
    """
    torch = optional_import("torch", "sft_targets")  # here: render_chat needs no torch
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
