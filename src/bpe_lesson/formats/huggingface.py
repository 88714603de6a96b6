"""Hugging Face ``tokenizer.json`` out and in, for byte-level BPE.

Out: ``to_huggingface(tok)`` gives a ``tokenizers.Tokenizer`` and
``save_huggingface(tok, path)`` writes its ``tokenizer.json``, which both
``tokenizers.Tokenizer.from_file`` and ``transformers.PreTrainedTokenizerFast(
tokenizer_file=...)`` load and which gives our ids. The file holds:

* the model: BPE, vocabulary = our ids, each token's bytes written with GPT-2's
  byte-to-unicode map (``bytes_to_unicode``), merges in id order
  (``ranks.replay_merges``: the ranks' own merges, plus every split of a token
  they cannot make, which the rank encoder still makes inside longer chunks: 932
  extra merges for Llama 3, 209 for Qwen 3.5), and ``ignore_merges: true``,
  Hugging Face's name for tiktoken's rule that a chunk which is itself a token is
  that token;
* the pre-tokenizer: our split pattern as a ``Split`` (rewritten for Hugging
  Face's regex engine, see ``to_oniguruma``), then ``ByteLevel`` without its own
  regex; the decoder ``ByteLevel``;
* the normalizer (NFC, NFKC, ...) when the tokenizer normalizes;
* each special token as an added token with our id (listed in the vocabulary too,
  or Hugging Face would renumber it).

In: ``from_huggingface(path)`` reads such a file, or any byte-level BPE one whose
merges agree with its ids (``ranks.merge_list_problem``: list order is id order,
every merge the ranks imply is there, a token no merge of lower ids makes is listed
with all its splits, as ``tokenizers``' own trainer and ``transformers``' tiktoken
converter write them), into a ``Tokenizer``; other model types (WordPiece, Unigram,
SentencePiece-style BPE with ``▁``) are refused with the reason.

Subtle: Hugging Face replays merges in list order, we join the lowest-ranked
pair; on a list that passes those checks the two join the same pairs in the same
order. Before it returns, every export is encoded by ``tokenizers`` itself on a
few hundred real and generated texts (``export_check``): exact, or refused.
Another difference: a file with ``ignore_merges``
false (older GPT-2-style files) lacks tiktoken's whole-chunk rule, which our
encoder always applies; such a file is read when every token's own bytes merge
into it (``ranks.stuck_tokens``), as on a file ``tokenizers`` trained.

Into a folder, ``save_huggingface`` also writes ``tokenizer_config.json`` (the
roles, a chat template) and ``special_tokens_map.json``; for a vocabulary
``from_pretrained`` loads, as the model's own tokenizer has them (a BOS
post-processor, its chat template: ``hf_settings``).

What this module does not do: read ``tokenizer_config.json`` or chat templates,
write ``transformers``' other files (``generation_config.json``), or import ``tokenizers`` for anything but
building and checking the Hugging Face object (``from_huggingface`` parses the
JSON itself).
"""

from __future__ import annotations

import json
import os
import unicodedata

import regex

from .._internal.files import atomic_write, read_json
from .._internal.optional import optional_import
from ..patterns import FORMS as NORMALIZATION_FORMS
from ..patterns import GPT2_PATTERN, check_pattern
from ..ranks import merge_list_problem, recover_merges, replay_merges
from ..ranks import MAX_ID
from ..tokenizer import Tokenizer
from .byte_level import _BYTE_TO_CHAR, _CHAR_TO_BYTE, HF_BYTELEVEL_PATTERN, bytes_to_unicode
from .byte_level import from_oniguruma, show_bytes, to_oniguruma
from .export_check import check_export
from .hf_settings import bos_processor, export_settings, special_roles

# ---- out --------------------------------------------------------------------------

def huggingface_dict(tok: Tokenizer) -> dict:
    """The ``tokenizer.json`` structure for ``tok`` (see the module docstring)."""
    show = {i: show_bytes(b) for i, b in tok.vocab.items()}  # id -> str
    # the ranks' merges, and every split of a token they cannot make (ranks.replay_merges)
    merges = [[show[a], show[b]] for (a, b), _ in replay_merges(tok._ranks, tok.merges)]
    # subtle: Hugging Face gives an added token that is not in the model's vocabulary the
    # next free id after it, whatever id the file says (cl100k_base's <|endoftext|> would
    # become 100256, not 100257). Listed in the vocabulary too, as GPT-2's file does, it
    # keeps its id; no merge makes it, and the added-token pass cuts it out of the text first.
    taken = {s: i for i, s in show.items()}
    for s, i in tok.special_tokens.items():
        if s in taken:
            raise ValueError(f"special token {s!r} (id {i}) is spelled like ordinary token {taken[s]} in the "
                             f"byte-level vocabulary; Hugging Face cannot hold both")
        show[i] = s
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    steps = [byte_level]
    if tok.pattern is not None:
        steps.insert(0, {"type": "Split", "pattern": {"Regex": to_oniguruma(tok.pattern)},
                         "behavior": "Isolated", "invert": False})
    added = [{"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
              # with a normalizer, we find special tokens in the normalized text, as HF does when this is true
              "normalized": tok.normalize is not None, "special": True}
             for s, i in sorted(tok.special_tokens.items(), key=lambda kv: kv[1])]
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": added,
        "normalizer": {"type": tok.normalize} if tok.normalize else None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": steps},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": True,
                  "vocab": {show[i]: i for i in sorted(show)}, "merges": merges},
    }


def to_huggingface(tok: Tokenizer):
    """A ``tokenizers.Tokenizer`` that gives ``tok``'s ids (special tokens always become their ids).

    >>> from bpe_lesson import Tokenizer
    >>> hf = to_huggingface(Tokenizer([((104, 105), 256)], pattern="gpt4", special_tokens={"<|end|>": 257}))
    >>> hf.encode("hi hi<|end|>").ids
    [256, 32, 256, 257]
    """
    return _checked(tok, json.dumps(huggingface_dict(tok), ensure_ascii=False))


def _checked(tok: Tokenizer, text: str):
    """``tokenizers``' own reading of the file ``text``, checked to give ``tok``'s ids
    (``export_check``): an export is exact or refused."""
    HFTokenizer = optional_import("tokenizers", "to_huggingface").Tokenizer

    hf = HFTokenizer.from_str(text)  # raises here, not in the reader's code later
    made = {new for _, new in tok.merges}
    added = [i for i, b in tok.vocab.items() if len(b) > 1 and i not in made]  # the tokens given extra merges
    check_export(tok, lambda texts: [e.ids for e in hf.encode_batch(texts)], "tokenizer.json", added)
    return hf


def save_huggingface(tok: Tokenizer, path, *, eos_token=None, bos_token=None, pad_token=None, unk_token=None,
                     add_bos=None, chat_template=None, model_max_length=None) -> str:
    """Write ``tok`` as a ``tokenizer.json`` (atomically) and return the path written.

    ``path`` is the file, or a folder to write ``tokenizer.json`` into (an existing
    one, or a path ending in "/", made if missing);
    into a folder go ``tokenizer_config.json`` and ``special_tokens_map.json`` too,
    naming the EOS, BOS, PAD and UNK tokens (``special_roles``: the ones given,
    else the usual names; PAD is not EOS when a pad token exists), so
    ``transformers.AutoTokenizer.from_pretrained(folder)`` pads a batch and decodes
    it as it is.

    A vocabulary ``from_pretrained`` loads is written as the model's own Hugging
    Face tokenizer (``hf_settings.MODEL_EXPORTS``): Llama 3's adds
    ``<|begin_of_text|>`` first when encoding with special tokens, names
    ``<|eot_id|>`` EOS and ``<|finetune_right_pad_id|>`` PAD, and carries a
    ``chat_template`` whose ``apply_chat_template`` gives ``render_chat``'s ids.
    Any argument given wins over those settings; for our own tokenizers they are the
    way to ask for the same:

    * ``add_bos``: a post-processor puts the BOS token first (``encode("hi")`` in
      ``transformers`` and ``tokenizers`` then starts with it; ``add_special_tokens=False``
      and ``apply_chat_template`` do not add it);
    * ``chat_template``: ``"llama3"``, ``"chatml"`` or ``"plain"`` (Jinja equal to
      ``render_chat``'s templates, ``hf_settings.CHAT_TEMPLATES``) or Jinja text,
      written into ``tokenizer_config.json`` (so only with a folder). ``False``: none.

    A role named that is not one of ``tok``'s special tokens is refused, listing them.
    The text is loaded back with ``tokenizers`` before it is written and must give
    this tokenizer's ids on real and generated text (``export_check``, encoded
    without the BOS), so a file this writes always loads, and gives our ids; else
    ``ValueError`` and nothing is written.
    """
    optional_import("tokenizers", "save_huggingface")  # a missing extra named before any work
    path = os.fspath(path)
    folder = os.path.isdir(path) or path.endswith(("/", os.sep))  # "hf_tok/": a folder, made if missing
    roles, add_bos, template = export_settings(  # the model's own when tok is a known vocabulary
        tok, folder=path if folder else None, eos_token=eos_token, bos_token=bos_token, pad_token=pad_token,
        unk_token=unk_token, add_bos=add_bos, chat_template=chat_template)
    d = huggingface_dict(tok)
    _checked(tok, json.dumps(d, ensure_ascii=False))  # gives our ids on sample text, or nothing is written
    if add_bos:
        d["post_processor"] = bos_processor(tok, roles["bos_token"])
    text = json.dumps(d, ensure_ascii=False, indent=1)
    _check_bos(tok, text, roles["bos_token"] if add_bos else None)
    if folder:
        os.makedirs(path, exist_ok=True)
        path = os.path.join(path, "tokenizer.json")
    atomic_write(path, (text + "\n").encode("utf-8"))
    if folder:
        config = {"tokenizer_class": "PreTrainedTokenizerFast", "clean_up_tokenization_spaces": False,
                  "model_max_length": model_max_length or int(1e30),  # transformers' own "no limit"
                  **roles}
        if template is not None:
            config["chat_template"] = template
        for name, content in (("tokenizer_config.json", config), ("special_tokens_map.json", roles)):
            atomic_write(os.path.join(os.path.dirname(path), name),
                         (json.dumps(content, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
    return path


def _check_bos(tok: Tokenizer, text: str, bos: str | None) -> None:
    """The file ``text``, read by ``tokenizers``, adds ``bos`` (or nothing) before our ids."""
    hf = optional_import("tokenizers", "save_huggingface").Tokenizer.from_str(text)
    sample = "Hello, world"
    want = ([tok.special_tokens[bos]] if bos else []) + tok.encode_ordinary(sample)
    got = hf.encode(sample).ids
    if got != want:
        raise ValueError(f"the tokenizer.json written would give {got[:6]} for {sample!r}, not {want[:6]} "
                         f"(BOS {bos!r}); nothing was written")


# ---- in ---------------------------------------------------------------------------

def _steps(node) -> list[dict]:
    """A (possibly nested) Sequence of pre-tokenizers or normalizers, flattened."""
    if node is None:
        return []
    if node.get("type") == "Sequence":
        inner = node.get("pretokenizers", node.get("normalizers", []))
        return [s for n in inner for s in _steps(n)]
    return [node]


def _read_pattern(pre, source) -> str:
    """The one split regex of a byte-level pre-tokenizer (Split, or ByteLevel's own)."""
    steps = _steps(pre)
    kinds = [s.get("type") for s in steps]
    if "ByteLevel" not in kinds:
        raise ValueError(f"{source}: the pre-tokenizer is {kinds or 'missing'}, with no ByteLevel step; "
                         f"this is not a byte-level BPE (SentencePiece-style files use Metaspace and '▁')")
    patterns = []
    for s in steps:
        if s["type"] == "Split":
            rx = s.get("pattern", {}).get("Regex")
            if rx is None or s.get("behavior") != "Isolated" or s.get("invert"):
                raise ValueError(f"{source}: a Split pre-tokenizer must be a Regex with behavior 'Isolated' "
                                 f"and invert false; this one is {s!r}")
            patterns.append(from_oniguruma(rx))
        elif s["type"] == "ByteLevel":
            if s.get("add_prefix_space"):
                raise ValueError(f"{source}: ByteLevel has add_prefix_space true (a space is added before "
                                 f"the text); bpe_lesson encodes text as given")
            if s.get("use_regex", True):
                patterns.append(HF_BYTELEVEL_PATTERN)
        else:
            raise ValueError(f"{source}: pre-tokenizer step {s['type']!r} has no equivalent here "
                             f"(supported: one Split regex, then ByteLevel)")
    if len(patterns) > 1:
        raise ValueError(f"{source}: {len(patterns)} split regexes run one after the other; bpe_lesson "
                         f"splits with one (set use_regex false on ByteLevel when a Split is there)")
    return patterns[0] if patterns else None


def _read_normalizer(node, source) -> str | None:
    steps = _steps(node)
    if not steps:
        return None
    if len(steps) == 1 and steps[0].get("type") in NORMALIZATION_FORMS:
        return steps[0]["type"]
    raise ValueError(f"{source}: normalizer {[s.get('type') for s in steps]} is not supported; "
                     f"bpe_lesson normalizes with one of {NORMALIZATION_FORMS} or not at all")


def _token_bytes(s: str, i: int, source) -> bytes:
    try:
        return bytes(_CHAR_TO_BYTE[c] for c in s)
    except KeyError as e:
        raise ValueError(f"{source}: token {s!r} (id {i}) has the character {e.args[0]!r}, which GPT-2's "
                         f"byte-to-unicode map does not use; this is not a byte-level vocabulary") from None


def _check_id(i, key: str, name) -> int:
    """An id from the file: an integer (not a bool, not 97.5) from 0 to MAX_ID."""
    if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i <= MAX_ID:
        raise ValueError(f"{name}: {key} has id {str(i)[:30]!r} ({type(i).__name__}); an id is an integer "
                         f"from 0 to {MAX_ID}")
    return i


def _read_vocab(model, specials, name) -> dict[int, bytes]:
    """``model.vocab`` as ``{id: bytes}``, checked: non-empty, integer ids, no id twice,
    every one of the 256 bytes a token (else some text has no ids at all)."""
    vocab_s = model.get("vocab")  # str -> int
    if not isinstance(vocab_s, dict) or not vocab_s:
        raise ValueError(f"{name}: model.vocab is {str(vocab_s)[:40]!r}; a byte-level BPE's vocabulary maps "
                         f"at least the 256 byte characters to their ids")
    owner = {}  # int -> str: who has each id
    for s, i in vocab_s.items():
        _check_id(i, f"model.vocab[{s[:40]!r}]", name)
        if i in owner:
            raise ValueError(f"{name}: model.vocab gives id {i} to both {owner[i][:40]!r} and {s[:40]!r}; "
                             f"each id is one token")
        owner[i] = s
    vocab = {i: _token_bytes(s, i, name) for s, i in vocab_s.items() if specials.get(s) != i}
    have = {b[0] for b in vocab.values() if len(b) == 1}
    missing = sorted(set(range(256)) - have)
    if missing:
        raise ValueError(f"{name}: model.vocab has no token for {len(missing)} of the 256 bytes (the first: byte "
                         f"{missing[0]}, {_BYTE_TO_CHAR[missing[0]]!r}); text holding it could not be encoded")
    return vocab


def _read_merges(model, vocab_s, name) -> list[tuple[tuple[int, int], int]]:
    """``model.merges`` as ``[((left_id, right_id), new_id), ...]`` in list order, each a
    pair of tokens whose joined text is a token."""
    merges = model.get("merges") or []
    if not isinstance(merges, list):
        raise ValueError(f"{name}: model.merges must be a list of merges, not {type(merges).__name__}")
    out = []
    for k, m in enumerate(merges):
        pair = m.split(" ") if isinstance(m, str) else m
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
            raise ValueError(f"{name}: model.merges[{k}] is {str(m)[:40]!r}; a merge is \"left right\" or "
                             f"[left, right]")
        a, b = pair
        ids = [vocab_s.get(a), vocab_s.get(b), vocab_s.get(a + b)]
        if None in ids:
            raise ValueError(f"{name}: model.merges[{k}] ({a!r}, {b!r}) names a token that is not in the "
                             f"vocabulary")
        out.append(((ids[0], ids[1]), ids[2]))
    return out


def _check_ranks_agree(vocab, merges, ignore_merges, name) -> list:
    """Refuse a table on which our rank encoder and Hugging Face's merge replay part ways
    (``ranks.merge_list_problem``), naming the merge; return the ranks' own merges.

    We join any two adjacent tokens whose joined bytes are a token, lowest id first;
    Hugging Face joins only the listed merges, in list order, and with
    ``ignore_merges`` false has no whole-chunk rule.

    >>> r = {bytes([i]): i for i in range(256)} | {b"bc": 256, b"ab": 257, b"abc": 258}
    >>> vocab = {i: b for b, i in r.items()}
    >>> _check_ranks_agree(vocab, [((98, 99), 256), ((97, 98), 257), ((257, 99), 258)], True, "t.json")
    Traceback (most recent call last):
    ValueError: t.json: model.merges: token 258 (b'abc') is made by no merge (97, 256) ...
    """
    ranks = {b: i for i, b in vocab.items()}  # bytes -> int
    implied = recover_merges(ranks)
    problem = merge_list_problem(ranks, merges, ignore_merges, implied)
    if problem is not None:
        k, why = problem
        where = "model.merges" if k is None else f"model.merges[{k}]"
        raise ValueError(f"{name}: {where}: {why}; Hugging Face and bpe_lesson would give different ids")
    return implied


def _check_added_flags(t: dict, k: int, content: str, normalize, name) -> None:
    """Refuse an added token whose flags make Hugging Face match it otherwise than we do.

    We cut a special token out of the text exactly where its text stands, after the
    normalizer (if any). ``lstrip`` / ``rstrip`` (it swallows the spaces beside it,
    as RoBERTa's ``<mask>``) and ``single_word`` (only between word boundaries) are
    refused. ``normalized`` false (matched in the text before the normalizer) is
    taken under NFC and NFD when the token's text is already in that form (it can
    then differ only where a combining mark follows the token); under NFKC and NFKD,
    which turn look-alike text into the token's, it is refused.

    >>> _check_added_flags({"lstrip": True}, 3, "<mask>", None, "t.json")
    Traceback (most recent call last):
    ValueError: t.json: added_tokens[3] ('<mask>') has lstrip true: ...
    """
    for flag, what in (("lstrip", "it takes in the spaces before it"), ("rstrip", "it takes in the spaces after it"),
                       ("single_word", "it is matched only as a whole word")):
        if t.get(flag):
            raise ValueError(f"{name}: added_tokens[{k}] ({content!r}) has {flag} true: {what} in Hugging Face, "
                             f"while bpe_lesson matches a special token's text exactly, so the ids would differ; "
                             f"set {flag} false to read it as an exact match")
    if normalize and t.get("normalized") is False:
        if normalize in ("NFKC", "NFKD") or unicodedata.normalize(normalize, content) != content:
            raise ValueError(f"{name}: added_tokens[{k}] ({content!r}) has normalized false: Hugging Face finds "
                             f"it in the text before the {normalize} normalizer, bpe_lesson after it, and "
                             f"{normalize} can make its text from other text; set normalized true")


def from_huggingface(source) -> Tokenizer:
    """Read a byte-level BPE ``tokenizer.json`` (a path, or a ``tokenizers.Tokenizer``) as a ``Tokenizer``.

    Every added token becomes a special token (Hugging Face cuts them all out of
    the text before the model runs). The reader is a validator: a file on which
    our ids would differ from Hugging Face's is refused, naming the file and the
    key: merges whose order is not their id order or not the ranks' own
    (``_check_ranks_agree``), ids that are not integers from 0 to MAX_ID, an id
    twice, a key twice, a missing byte, an empty vocabulary, an added token whose
    flags (``lstrip``, ``rstrip``, ``single_word``, ``normalized``) would match it
    elsewhere than we do (``_check_added_flags``), an added token merges also make.
    The file is read at most ``MAX_JSON_BYTES``.

    >>> from bpe_lesson import Tokenizer
    >>> tok = Tokenizer([((104, 105), 256)], pattern="gpt4", special_tokens={"<|end|>": 257})
    >>> back = from_huggingface(to_huggingface(tok))
    >>> back.merges, back.special_tokens, back.encode("hi hi")
    ([((104, 105), 256)], {'<|end|>': 257}, [256, 32, 256])
    """
    if hasattr(source, "to_str"):  # a tokenizers.Tokenizer
        name = "<tokenizers.Tokenizer>"
        d = json.loads(source.to_str())
    else:
        name = os.fspath(source)
        d = read_json(name, "tokenizer.json")
    model = d.get("model") if isinstance(d, dict) else None
    if not isinstance(model, dict):
        raise ValueError(f"{name}: not a tokenizer.json (no 'model' object)")
    kind = model.get("type", "BPE" if "merges" in model else None)
    if kind != "BPE":
        raise ValueError(f"{name}: the model type is {kind!r}; from_huggingface reads byte-level BPE only "
                         f"(WordPiece and Unigram choose tokens differently)")
    for key in ("byte_fallback", "continuing_subword_prefix", "end_of_word_suffix", "dropout"):
        if model.get(key):  # False, None, "" and 0.0 all mean "off"
            raise ValueError(f"{name}: model.{key} is {str(model[key])[:40]!r}; a byte-level BPE as bpe_lesson "
                             f"encodes it has none")
    pattern = _read_pattern(d.get("pre_tokenizer"), name)
    check_pattern(pattern, f"{name}: pre_tokenizer")  # covers the text, no capture groups
    normalize = _read_normalizer(d.get("normalizer"), name)

    vocab_s = model.get("vocab") if isinstance(model.get("vocab"), dict) else {}  # str -> int
    specials = {}  # str -> int
    added = d.get("added_tokens") or []
    for k, t in enumerate(added if isinstance(added, list) else [added]):
        if not (isinstance(t, dict) and isinstance(t.get("content"), str) and t["content"]):
            raise ValueError(f"{name}: added_tokens[{k}] is {str(t)[:40]!r}; each needs a non-empty 'content'")
        i, s = _check_id(t.get("id"), f"added_tokens[{k}]", name), t["content"]
        if vocab_s.get(s, i) != i:
            raise ValueError(f"{name}: added token {s!r} has id {i}, but the vocabulary gives it id {vocab_s[s]}")
        if s in specials:
            raise ValueError(f"{name}: added_tokens[{k}] repeats the added token {s!r}")
        _check_added_flags(t, k, s, normalize, name)
        specials[s] = i
    vocab = _read_vocab(model, specials, name)  # GPT-2 (and our export) list special tokens there too
    clash = set(specials.values()) & set(vocab)
    if clash:
        i = min(clash)
        raise ValueError(f"{name}: id {i} is both an added token and the ordinary token {vocab[i]!r}")
    merges = _read_merges(model, vocab_s, name)
    special_ids = {i: s for s, i in specials.items()}  # int -> str
    for k, ((a, b), new) in enumerate(merges):
        for j in (a, b, new):
            if j in special_ids:
                raise ValueError(f"{name}: model.merges[{k}] joins or makes id {j}, which is the added token "
                                 f"{special_ids[j]!r}; bpe_lesson keeps added (special) tokens apart from the "
                                 f"tokens merges make, so it cannot be both")
    implied = _check_ranks_agree(vocab, merges, model.get("ignore_merges", False), name)
    return Tokenizer(implied, pattern=pattern, special_tokens=specials, vocab=vocab, normalize=normalize)


__all__ = ["to_huggingface", "save_huggingface", "from_huggingface", "special_roles", "bytes_to_unicode", "show_bytes",
           "to_oniguruma", "from_oniguruma", "huggingface_dict", "bos_processor"]
