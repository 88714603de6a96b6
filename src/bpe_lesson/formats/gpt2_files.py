"""GPT-2's file pair: ``encoder.json`` (token -> id) and ``vocab.bpe`` (the merges, in order).

The format of OpenAI's GPT-2 release, of Hugging Face's ``GPT2Tokenizer``
(``vocab_file``, ``merges_file``) and of many course fixtures. Both files write a
token's bytes through GPT-2's byte-to-unicode map (``huggingface.bytes_to_unicode``:
a space is "Ġ", a newline "Ċ"); ``vocab.bpe`` starts with ``#version: 0.2`` and
holds one merge a line, its two sides separated by one space.

``from_gpt2_files(encoder_json, vocab_bpe)`` checks the two files as a pair:
the 256 byte symbols are in ``encoder.json``; every merge joins two tokens known
by then and its result is in ``encoder.json``; the results' ids rise in merge
order (rank encoding needs that); no id is used twice. An entry of
``encoder.json`` that is neither a byte nor a merge's result (``<|endoftext|>``)
is a special token. Errors name the file and the line or key.
``save_gpt2_files(tok, folder)`` writes the pair, each file through a temporary
name and a rename (``_files.atomic_write``).

What this module does not do: store the split pattern (GPT-2's files have none:
pass ``pattern=``; the default is GPT-2's own), download GPT-2's files, or read
Hugging Face's ``tokenizer.json`` (``huggingface.py``).
"""

from __future__ import annotations

import json
import os

from .._internal.files import atomic_write, read_bytes
from ..tokenizer import Tokenizer
from .byte_level import _BYTE_TO_CHAR, _CHAR_TO_BYTE

ENCODER = "encoder.json"
MERGES = "vocab.bpe"
VERSION_LINE = "#version: 0.2"


def _symbol_bytes(symbol: str, where: str) -> bytes:
    """A token as GPT-2's files write it -> its bytes: "Ġthe" -> b" the"."""
    try:
        return bytes(_CHAR_TO_BYTE[c] for c in symbol)
    except KeyError as e:
        raise ValueError(f"{where}: {symbol!r} holds {e.args[0]!r}, which is not one of GPT-2's 256 byte "
                         f"characters") from None


def _symbol(token: bytes) -> str:
    """Bytes -> GPT-2's written form: b" the" -> "Ġthe"."""
    return "".join(_BYTE_TO_CHAR[b] for b in token)


def _read_encoder(path) -> dict:
    raw = read_bytes(path, what="encoder.json")
    try:
        encoder = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: not a JSON file ({e})") from None
    if not isinstance(encoder, dict):
        raise ValueError(f"{path}: a JSON {type(encoder).__name__}; expected an object of token -> id")
    seen = {}  # id -> key
    for key, i in encoder.items():
        if isinstance(i, bool) or not isinstance(i, int) or i < 0:
            raise ValueError(f"{path}: key {key!r}: id {i!r} should be a whole number >= 0")
        if i in seen:
            raise ValueError(f"{path}: keys {seen[i]!r} and {key!r} both have id {i}")
        seen[i] = key
    return encoder


def _read_merges(path) -> list[tuple[int, str, str]]:
    """``(line number, left, right)`` for every merge line of ``vocab.bpe``."""
    raw = read_bytes(path, what="vocab.bpe")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text (byte {e.start:,}: {e.reason})") from None
    out = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if (lineno == 1 and line.startswith("#version")) or not line:
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            raise ValueError(f"{path}, line {lineno}: {line[:60]!r} should be two tokens separated by one space")
        out.append((lineno, parts[0], parts[1]))
    return out


def from_gpt2_files(encoder_json, vocab_bpe, *, pattern="gpt2", name=None, backend=None) -> Tokenizer:
    """A Tokenizer from GPT-2's ``encoder.json`` and ``vocab.bpe``, checked as a pair.

    >>> import tempfile; d = tempfile.mkdtemp()
    >>> tok = Tokenizer([((97, 98), 256)], pattern="gpt2", special_tokens={"<|endoftext|>": 257})
    >>> save_gpt2_files(tok, d)
    >>> back = from_gpt2_files(os.path.join(d, "encoder.json"), os.path.join(d, "vocab.bpe"))
    >>> back.encode("abab<|endoftext|>", allowed_special="all"), back.special_tokens
    ([256, 256, 257], {'<|endoftext|>': 257})
    """
    enc_path, bpe_path = os.fspath(encoder_json), os.fspath(vocab_bpe)
    encoder = _read_encoder(enc_path)
    by_bytes = {}  # bytes -> id, of every key that is a byte or a merge's result
    for b in range(256):
        key = _BYTE_TO_CHAR[b]
        if key not in encoder:
            raise ValueError(f"{enc_path}: the byte {b} (written {key!r}) is missing; byte-level BPE needs all "
                             f"256 byte symbols")
        by_bytes[bytes([b])] = encoder[key]
    merges, last = [], None  # [((left id, right id), new id)], the previous merge's (id, line)
    for lineno, left, right in _read_merges(bpe_path):
        where = f"{bpe_path}, line {lineno}"
        ids = []
        for side in (left, right):
            b = _symbol_bytes(side, where)
            if b not in by_bytes:
                raise ValueError(f"{where}: {side!r} is neither a byte nor the result of an earlier merge")
            ids.append(by_bytes[b])
        result = left + right
        new_bytes = _symbol_bytes(result, where)
        if new_bytes in by_bytes:
            raise ValueError(f"{where}: the merge {left!r} {right!r} makes {result!r}, which an earlier line "
                             f"or a byte already makes")
        if result not in encoder:
            raise ValueError(f"{where}: the merge {left!r} {right!r} makes {result!r}, which {enc_path} lacks")
        new = encoder[result]
        if last is not None and new <= last[0]:
            raise ValueError(f"{where}: {result!r} has id {new} in {enc_path}, not above {last[0]} of line "
                             f"{last[1]}; ids must rise in merge order")
        by_bytes[new_bytes] = new
        merges.append(((ids[0], ids[1]), new))
        last = (new, lineno)
    tokens = {_BYTE_TO_CHAR[b] for b in range(256)} | {l + r for _, l, r in _read_merges(bpe_path)}
    specials = {key: i for key, i in encoder.items() if key not in tokens}  # <|endoftext|> and the like
    vocab = {i: b for b, i in by_bytes.items()}
    for key, i in specials.items():
        if i in vocab:  # cannot happen with unique ids; kept as the invariant Tokenizer checks
            raise ValueError(f"{enc_path}: key {key!r} has the id {i} of {vocab[i]!r}")
    return Tokenizer(merges, pattern=pattern, special_tokens=specials, vocab=vocab, name=name, backend=backend)


def save_gpt2_files(tok: Tokenizer, folder) -> None:
    """Write ``folder/encoder.json`` and ``folder/vocab.bpe`` for ``tok`` (GPT-2's format).

    Special tokens go into ``encoder.json`` with their ids, as GPT-2's
    ``<|endoftext|>`` does; the split pattern is not stored (GPT-2's files have none).
    """
    folder = os.fspath(folder)
    os.makedirs(folder, exist_ok=True)
    vocab = tok.vocab
    encoder = {_symbol(b): i for i, b in sorted(vocab.items())}
    for s, i in tok.special_tokens.items():
        if s in encoder:
            raise ValueError(f"special token {s!r} is written like the ordinary token {encoder[s]}; "
                             f"GPT-2's encoder.json cannot hold both")
        encoder[s] = i
    lines = [VERSION_LINE] + [f"{_symbol(vocab[a])} {_symbol(vocab[b])}" for (a, b), _ in tok.merges]
    atomic_write(os.path.join(folder, ENCODER), json.dumps(encoder, ensure_ascii=False).encode("utf-8"))
    atomic_write(os.path.join(folder, MERGES), ("\n".join(lines) + "\n").encode("utf-8"))
