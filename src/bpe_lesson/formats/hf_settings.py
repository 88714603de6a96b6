"""What a Hugging Face tokenizer holds besides its vocabulary: the roles, a BOS, a chat template.

A model on the Hub ships more than its vocabulary: ``tokenizer.json``'s
post-processor adds the beginning-of-text token when ``transformers`` encodes
with ``add_special_tokens=True`` (Meta's Llama 3: ``encode("hi")`` starts with
``<|begin_of_text|>``, id 128000), and ``tokenizer_config.json`` names the EOS
and PAD tokens and holds the ``chat_template``, a Jinja program that
``apply_chat_template`` renders to a string and then encodes.

``MODEL_EXPORTS``: these settings for the vocabularies ``from_pretrained``
loads, as the models' published tokenizers have them, with one choice made for
each: EOS is the *instruct* model's (Llama 3: ``<|eot_id|>``, the end of a
turn, as in Meta-Llama-3-8B-Instruct; the base model's is ``<|end_of_text|>``),
because the export carries the chat template and a chat model must stop at the
end of its turn. PAD is the model's own pad token, never EOS (a collator that
masks labels by pad id would otherwise mask the EOS target too).

``CHAT_TEMPLATES``: Jinja equal in effect to ``render_chat``'s templates
(``bpe_lesson.lm.chat``): ``"llama3"`` is llama-models' ``ChatFormat`` (content
as given, not ``| trim``-ed as on the Hub), ``"chatml"`` Qwen2-Instruct's, and
``"plain"`` the layout our own small vocabularies use.

Subtle: ``apply_chat_template`` encodes the rendered string whole, with special
tokens recognised, while ``render_chat`` and ``ChatFormat`` encode each piece on
its own and a message's text as text. The ids agree except where a content opens
with a line break (``"\\n\\n"`` + ``"\\nhi"`` becomes one ``"\\n\\n\\n"``) or spells a
special token (``"<|eot_id|>"`` typed by a user becomes the real token). The
rendered *strings* are always the same.

``special_roles`` picks EOS, BOS, PAD and UNK among a tokenizer's special tokens;
``export_settings`` decides, once, what ``save_huggingface`` writes: the roles,
whether a post-processor adds BOS (``bos_processor``), and the chat template.

What this module does not do: build or check the ``tokenizers`` object
(``huggingface`` does); tool calls, images, Llama 4's or Qwen 3's chat
templates (``render_chat`` has no equivalent to test them against), or the Hub's
other files (``generation_config.json``, which lists all stop tokens).
"""

from __future__ import annotations

from .pretrained import PRETRAINED
from ..tokenizer import Tokenizer

# name -> the settings of the model's own Hugging Face tokenizer (see the module docstring)
MODEL_EXPORTS = {
    # meta-llama/Meta-Llama-3-8B-Instruct; pad as llama_models' Tokenizer.pad_id
    "llama3": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>",
               "pad_token": "<|finetune_right_pad_id|>", "add_bos": True, "chat_template": "llama3"},
    # meta-llama/Llama-4-Scout-17B-16E-Instruct
    "llama4": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot|>", "pad_token": "<|finetune_right_pad|>",
               "add_bos": True, "chat_template": None},
    # Qwen/Qwen2-7B-Instruct, Qwen2.5-*-Instruct: no BOS at all
    "qwen": {"bos_token": None, "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>", "add_bos": False,
             "chat_template": "chatml"},
    "qwen3.5": {"bos_token": None, "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>", "add_bos": False,
                "chat_template": None},
    # mistralai/Mistral-Nemo-Instruct-2407; pad as mistral_common's Tekkenizer.pad_id
    "tekken": {"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>", "add_bos": True,
               "chat_template": None},
}

CHAT_TEMPLATES = {
    # llama_models.llama3.chat_format.ChatFormat.encode_dialog_prompt
    "llama3": ("{{ '<|begin_of_text|>' }}{% for message in messages %}"
               "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' + message['content']"
               " + '<|eot_id|>' }}{% endfor %}"
               "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}"),
    # Qwen/Qwen2-7B-Instruct's tokenizer_config.json
    "chatml": ("{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
               "{{ '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}{% endif %}"
               "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
               "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"),
    # render_chat's "plain": only the assistant's turn ends in the EOS token
    "plain": ("{% for message in messages %}{{ '### ' + message['role'] | capitalize + ':\n' + message['content'] }}"
              "{% if message['role'] == 'assistant' %}{{ eos_token }}{% endif %}{{ '\n\n' }}{% endfor %}"
              "{% if add_generation_prompt %}{{ '### Assistant:\n' }}{% endif %}"),
}

# the special tokens each template writes (the "plain" one writes the EOS role's)
TEMPLATE_SPECIALS = {
    "llama3": ("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"),
    "chatml": ("<|im_start|>", "<|im_end|>"),
    "plain": (),
}


def model_export(tok) -> dict:
    """The ``MODEL_EXPORTS`` settings for ``tok``: by its name, when its special tokens are
    still the model's (same names, same ids); else ``{}``.

    >>> from bpe_lesson import Tokenizer
    >>> model_export(Tokenizer([], special_tokens={"<|im_end|>": 256}, name="qwen"))
    {}
    """
    settings = MODEL_EXPORTS.get(getattr(tok, "name", None))
    if settings is None:
        return {}
    own = PRETRAINED[tok.name].special_tokens
    named = [v for k, v in settings.items() if k.endswith("_token") and v is not None]
    if any(tok.special_tokens.get(s) != own[s] for s in named):
        return {}
    return dict(settings)


def chat_template_text(template, tok, eos_token) -> str:
    """The Jinja text for ``template``: a name in ``CHAT_TEMPLATES`` (checked against
    ``tok``'s special tokens) or Jinja given as text.

    >>> from bpe_lesson import Tokenizer
    >>> chat_template_text("chatml", Tokenizer([], special_tokens={"<|im_start|>": 256}), None)
    Traceback (most recent call last):
    ValueError: chat_template='chatml' writes the special token(s) ['<|im_end|>'], ...
    """
    if not isinstance(template, str) or not template:
        raise ValueError(f"chat_template must be one of {sorted(CHAT_TEMPLATES)} or Jinja text, "
                         f"not {template!r}")
    if template not in CHAT_TEMPLATES:
        if "{{" not in template and "{%" not in template:
            raise ValueError(f"chat_template={template[:40]!r} is neither one of {sorted(CHAT_TEMPLATES)} nor "
                             f"Jinja (no '{{{{' or '{{%' in it)")
        return template
    missing = [s for s in TEMPLATE_SPECIALS[template] if s not in tok.special_tokens]
    if missing:
        raise ValueError(f"chat_template={template!r} writes the special token(s) {missing}, which this "
                         f"tokenizer does not have")
    if template == "plain" and eos_token is None:
        raise ValueError("chat_template='plain' ends each assistant turn with the EOS token; name one "
                         "(eos_token=...) among the tokenizer's special tokens")
    return CHAT_TEMPLATES[template]


_DEFAULT_ROLES = {  # role -> special tokens that usually play it, first found wins
    "eos_token": ("<|endoftext|>", "<|end_of_text|>", "<|im_end|>", "</s>", "<|eot_id|>"),
    "bos_token": ("<|begin_of_text|>", "<s>", "<|startoftext|>"),
    "pad_token": ("<|pad|>", "<pad>", "[PAD]", "<|finetune_right_pad_id|>", "<|finetune_right_pad|>"),
    "unk_token": ("<unk>", "<|unk|>"),
}


def _specials_named(tok: Tokenizer) -> str:
    """The special tokens, for an error: all of them, or the first eight and the count."""
    names = sorted(tok.special_tokens, key=tok.special_tokens.get)
    if not names:
        return "none"
    return repr(names) if len(names) <= 8 else f"{names[:8]!r} ... ({len(names)} in all)"


def special_roles(tok: Tokenizer, **given) -> dict:
    """Which special token is EOS, BOS, PAD and UNK: the ones given, else the usual names.

    PAD is a pad token when the tokenizer has one (``<|pad|>``, ``<pad>``, ...), never
    EOS then; else it falls back to EOS (a common choice for byte-level models, which
    need no UNK).

    >>> from bpe_lesson import Tokenizer
    >>> special_roles(Tokenizer([], special_tokens={"<|endoftext|>": 256}))
    {'eos_token': '<|endoftext|>', 'pad_token': '<|endoftext|>'}
    >>> special_roles(Tokenizer([], special_tokens={"<|endoftext|>": 256, "<pad>": 257}))
    {'eos_token': '<|endoftext|>', 'pad_token': '<pad>'}
    """
    roles = {}
    for role, usual in _DEFAULT_ROLES.items():
        name = given.get(role)
        if name is None:
            name = next((s for s in usual if s in tok.special_tokens), None)
        elif name not in tok.special_tokens:
            raise ValueError(f"{role}={name!r} is not a special token of this tokenizer; its special tokens: "
                             f"{_specials_named(tok)}")
        if name is not None:
            roles[role] = name
    if "pad_token" not in roles and "eos_token" in roles:
        roles["pad_token"] = roles["eos_token"]
    return {role: roles[role] for role in _DEFAULT_ROLES if role in roles}


def bos_processor(tok: Tokenizer, bos: str) -> dict:
    """A ``TemplateProcessing`` post-processor that puts ``bos`` first, as in Meta's Llama 3
    ``tokenizer.json`` (a pair gets it before each half).

    >>> from bpe_lesson import Tokenizer
    >>> bos_processor(Tokenizer([], special_tokens={"<s>": 256}), "<s>")["single"]
    [{'SpecialToken': {'id': '<s>', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}}]
    """
    def special(type_id):
        return {"SpecialToken": {"id": bos, "type_id": type_id}}

    def seq(name, type_id):
        return {"Sequence": {"id": name, "type_id": type_id}}

    return {"type": "TemplateProcessing", "single": [special(0), seq("A", 0)],
            "pair": [special(0), seq("A", 0), special(1), seq("B", 1)],
            "special_tokens": {bos: {"id": bos, "ids": [tok.special_tokens[bos]], "tokens": [bos]}}}

def export_settings(tok: Tokenizer, *, folder=None, add_bos=None, chat_template=None, **given):
    """``(roles, add_bos, template)`` for ``save_huggingface``: each argument given, else the
    model's own (``model_export``), else the usual names and no BOS, no template.
    ``folder``: where the files go (None: one file, which holds no chat template).

    >>> from bpe_lesson import Tokenizer
    >>> tok = Tokenizer([], special_tokens={"<s>": 256, "</s>": 257, "<pad>": 258})
    >>> export_settings(tok, folder="hf/", add_bos=True)
    ({'eos_token': '</s>', 'bos_token': '<s>', 'pad_token': '<pad>'}, True, None)
    """
    model = model_export(tok)  # {} for our own tokenizers
    roles = special_roles(tok, **{k: v if v is not None else model.get(k) for k, v in given.items()})
    add_bos = model.get("add_bos", False) if add_bos is None else add_bos
    if add_bos and "bos_token" not in roles:
        raise ValueError(f"add_bos=True needs a BOS token, and this tokenizer has none of the usual names "
                         f"{list(_DEFAULT_ROLES['bos_token'])}; name one with bos_token=... (its special "
                         f"tokens: {_specials_named(tok)})")
    template = model.get("chat_template") if chat_template is None else chat_template
    if template is False or template is None:
        return roles, bool(add_bos), None
    if folder is None:
        if chat_template is None:  # the model's own, but a lone tokenizer.json has no place for it
            return roles, bool(add_bos), None
        raise ValueError("chat_template goes into tokenizer_config.json, which is written only into a folder; "
                         "this path is a file (end the path with '/' for a folder)")
    return roles, bool(add_bos), chat_template_text(template, tok, roles.get("eos_token"))


__all__ = ["MODEL_EXPORTS", "CHAT_TEMPLATES", "TEMPLATE_SPECIALS", "model_export", "chat_template_text",
           "special_roles", "bos_processor", "export_settings"]
