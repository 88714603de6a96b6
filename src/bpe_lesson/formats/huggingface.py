"""Hugging Face ``tokenizer.json`` out and in, for byte-level BPE.

Out: ``to_huggingface(tok)`` gives a ``tokenizers.Tokenizer`` and
``save_huggingface(tok, path)`` writes its ``tokenizer.json``, which both
``tokenizers.Tokenizer.from_file`` and ``transformers.PreTrainedTokenizerFast(
tokenizer_file=...)`` load and which gives our ids. The file holds:

* the model: BPE, vocabulary = our ids, each token's bytes written with GPT-2's
  byte-to-unicode map (``bytes_to_unicode``), merges in id order, and
  ``ignore_merges: true``, Hugging Face's name for tiktoken's rule that a chunk
  which is itself a token is that token;
* the pre-tokenizer: our split pattern as a ``Split`` (rewritten for Hugging
  Face's regex engine, see ``to_oniguruma``), then ``ByteLevel`` without its own
  regex; the decoder ``ByteLevel``;
* the normalizer (NFC, NFKC, ...) when the tokenizer normalizes;
* each special token as an added token with our id (listed in the vocabulary too,
  or Hugging Face would renumber it).

In: ``from_huggingface(path)`` reads such a file, or any byte-level BPE one whose
merges make ids in increasing order (as ``tokenizers``' own trainer lays them
out), into a ``Tokenizer``; other model types (WordPiece, Unigram, SentencePiece-style BPE with ``▁``) are
refused with the reason.

Subtle: Hugging Face replays merges in list order, we join the lowest-ranked
pair. With merges in id order the two agree on our trained vocabularies and on
the real ones, on all the text the tests try (random text included); the tiktoken
chapter shows the rare rank tables where they cannot. Another difference: a file with ``ignore_merges``
false (older GPT-2-style files) lacks tiktoken's whole-chunk rule, which our
encoder always applies; the tests read back such a file that ``tokenizers``
trained and get its ids.

What this module does not do: read ``tokenizer_config.json`` or chat templates,
write ``transformers``' other files, or import ``tokenizers`` for anything but
building and checking the Hugging Face object (``from_huggingface`` parses the
JSON itself).
"""

from __future__ import annotations

import json
import os

import regex

from .._internal.files import atomic_write, read_json
from ..patterns import FORMS as NORMALIZATION_FORMS
from ..patterns import GPT2_PATTERN, check_pattern
from ..ranks import recover_merges
from .tiktoken_io import MAX_ID
from ..tokenizer import Tokenizer
from .byte_level import _BYTE_TO_CHAR, _CHAR_TO_BYTE, HF_BYTELEVEL_PATTERN, bytes_to_unicode
from .byte_level import from_oniguruma, show_bytes, to_oniguruma

# ---- out --------------------------------------------------------------------------

def huggingface_dict(tok: Tokenizer) -> dict:
    """The ``tokenizer.json`` structure for ``tok`` (see the module docstring)."""
    show = {i: show_bytes(b) for i, b in tok.vocab.items()}  # id -> str
    merges = [[show[a], show[b]] for (a, b), _ in sorted(tok.merges, key=lambda m: m[1])]
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
    from tokenizers import Tokenizer as HFTokenizer

    return HFTokenizer.from_str(json.dumps(huggingface_dict(tok), ensure_ascii=False))


_DEFAULT_ROLES = {  # role -> special tokens that usually play it, first found wins
    "eos_token": ("<|endoftext|>", "<|end_of_text|>", "<|im_end|>", "</s>", "<|eot_id|>"),
    "bos_token": ("<|begin_of_text|>", "<s>", "<|startoftext|>"),
    "pad_token": ("<|pad|>", "<pad>", "<|finetune_right_pad_id|>"),
    "unk_token": ("<unk>", "<|unk|>"),
}


def special_roles(tok: Tokenizer, **given) -> dict:
    """Which special token is EOS, BOS, PAD and UNK: the ones given, else the usual names.

    PAD falls back to EOS (a common choice for byte-level models, which need no UNK).

    >>> from bpe_lesson import Tokenizer
    >>> special_roles(Tokenizer([], special_tokens={"<|endoftext|>": 256}))
    {'eos_token': '<|endoftext|>', 'pad_token': '<|endoftext|>'}
    """
    roles = {}
    for role, usual in _DEFAULT_ROLES.items():
        name = given.get(role)
        if name is None:
            name = next((s for s in usual if s in tok.special_tokens), None)
        elif name not in tok.special_tokens:
            raise ValueError(f"{role}={name!r} is not a special token of this tokenizer; it has "
                             f"{sorted(tok.special_tokens) or 'none'}")
        if name is not None:
            roles[role] = name
    if "pad_token" not in roles and "eos_token" in roles:
        roles["pad_token"] = roles["eos_token"]
    return {role: roles[role] for role in _DEFAULT_ROLES if role in roles}


def save_huggingface(tok: Tokenizer, path, *, eos_token=None, bos_token=None, pad_token=None, unk_token=None,
                     model_max_length=None) -> str:
    """Write ``tok`` as a ``tokenizer.json`` (atomically) and return the path written.

    ``path`` is the file, or a folder to write ``tokenizer.json`` into (an existing
    one, or a path ending in "/", made if missing);
    into a folder go ``tokenizer_config.json`` and ``special_tokens_map.json`` too,
    naming the EOS, BOS, PAD and UNK tokens (``special_roles``: the ones given,
    else the usual names), so ``transformers.AutoTokenizer.from_pretrained(folder)``
    pads a batch and decodes it as it is. The text is loaded back with
    ``tokenizers`` before it is written, so a file this writes always loads.
    """
    from tokenizers import Tokenizer as HFTokenizer

    path = os.fspath(path)
    folder = os.path.isdir(path) or path.endswith(("/", os.sep))  # "hf_tok/": a folder, made if missing
    if folder:
        os.makedirs(path, exist_ok=True)
        roles = special_roles(tok, eos_token=eos_token, bos_token=bos_token, pad_token=pad_token,
                              unk_token=unk_token)
        path = os.path.join(path, "tokenizer.json")
    text = json.dumps(huggingface_dict(tok), ensure_ascii=False, indent=1)
    HFTokenizer.from_str(text)  # raises here, not in the reader's code later
    atomic_write(path, (text + "\n").encode("utf-8"))
    if folder:
        config = {"tokenizer_class": "PreTrainedTokenizerFast", "clean_up_tokenization_spaces": False,
                  "model_max_length": model_max_length or int(1e30),  # transformers' own "no limit"
                  **roles}
        for name, content in (("tokenizer_config.json", config), ("special_tokens_map.json", roles)):
            atomic_write(os.path.join(os.path.dirname(path), name),
                         (json.dumps(content, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
    return path


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


def _read_merges(model, vocab_s, name) -> dict[int, tuple[int, int]]:
    """``model.merges`` as ``{new_id: (left_id, right_id)}``, each a pair of tokens whose
    joined text is a token, in increasing order of the ids they make."""
    merges = model.get("merges") or []
    if not isinstance(merges, list):
        raise ValueError(f"{name}: model.merges must be a list of merges, not {type(merges).__name__}")
    out, last = {}, -1
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
        if ids[2] <= last:
            raise ValueError(f"{name}: model.merges[{k}] makes id {ids[2]} after a merge made id {last}; its "
                             f"merge order is not its id order, so bpe_lesson's rank encoder would give other ids")
        last = ids[2]
        out[ids[2]] = (ids[0], ids[1])
    return out


def _check_ranks_agree(vocab, merges, ignore_merges, name) -> None:
    """Refuse a table on which our rank encoder and Hugging Face's merge replay part ways.

    We join any two adjacent tokens whose joined bytes are a token, lowest id first;
    Hugging Face joins only the listed merges, in list order. The two agree when the
    merges are exactly the ones the ranks imply (``ranks.recover_merges``: for each
    token, the two parts the rank encoder ends on from lower-ranked tokens), and, with
    ``ignore_merges`` false (no whole-chunk rule in Hugging Face), every multi-byte
    token is made by a merge.

    >>> r = {bytes([i]): i for i in range(256)} | {b"bc": 256, b"ab": 257, b"abc": 258}
    >>> vocab = {i: b for b, i in r.items()}
    >>> _check_ranks_agree(vocab, {256: (98, 99), 257: (97, 98), 258: (257, 99)}, True, "t.json")
    Traceback (most recent call last):
    ValueError: t.json: token 258 (b'abc') is made by the merge (257, 99) in model.merges, but ...
    """
    ranks = {b: i for i, b in vocab.items()}  # bytes -> int
    implied = {new: pair for pair, new in recover_merges(ranks)}  # int -> (int, int)
    for new, pair in implied.items():
        if merges.get(new) != pair:
            listed = f"by the merge {merges[new]}" if new in merges else "by no merge"
            raise ValueError(f"{name}: token {new} ({vocab[new]!r}) is made {listed} in model.merges, but the "
                             f"ranks make it from {pair} ({vocab[pair[0]]!r} + {vocab[pair[1]]!r}); Hugging Face "
                             f"and bpe_lesson would give different ids")
    for new, pair in merges.items():
        if new not in implied:
            raise ValueError(f"{name}: model.merges makes token {new} ({vocab[new]!r}) from {pair}, but lower "
                             f"ids cannot build it by rank; Hugging Face and bpe_lesson would give different ids")
    if not ignore_merges:
        unbuilt = [i for i, b in vocab.items() if len(b) > 1 and i not in merges]
        if unbuilt:
            i = min(unbuilt)
            raise ValueError(f"{name}: token {i} ({vocab[i]!r}) is made by no merge and model.ignore_merges is "
                             f"false, so Hugging Face never gives it, while bpe_lesson gives a chunk that is one "
                             f"token that token; set ignore_merges true or drop the token")


def from_huggingface(source) -> Tokenizer:
    """Read a byte-level BPE ``tokenizer.json`` (a path, or a ``tokenizers.Tokenizer``) as a ``Tokenizer``.

    Every added token becomes a special token (Hugging Face cuts them all out of
    the text before the model runs). The reader is a validator: a file on which
    our ids would differ from Hugging Face's is refused, naming the file and the
    key: merges whose order is not their id order or not the ranks' own
    (``_check_ranks_agree``), ids that are not integers from 0 to MAX_ID, an id
    twice, a key twice, a missing byte, an empty vocabulary. The file is read at
    most ``MAX_JSON_BYTES``.

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
        specials[s] = i
    vocab = _read_vocab(model, specials, name)  # GPT-2 (and our export) list special tokens there too
    clash = set(specials.values()) & set(vocab)
    if clash:
        i = min(clash)
        raise ValueError(f"{name}: id {i} is both an added token and the ordinary token {vocab[i]!r}")
    merges = _read_merges(model, vocab_s, name)
    _check_ranks_agree(vocab, merges, model.get("ignore_merges", False), name)
    merge_list = [(pair, new) for new, pair in sorted(merges.items())]
    return Tokenizer(merge_list, pattern=pattern, special_tokens=specials, vocab=vocab, normalize=normalize)


__all__ = ["to_huggingface", "save_huggingface", "from_huggingface", "special_roles", "bytes_to_unicode", "show_bytes",
           "to_oniguruma", "from_oniguruma", "huggingface_dict"]
