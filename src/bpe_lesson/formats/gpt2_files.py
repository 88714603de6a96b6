"""GPT-2's file pair: ``encoder.json`` (token -> id) and ``vocab.bpe`` (the merges, in order).

The format of OpenAI's GPT-2 release, of Hugging Face's ``GPT2Tokenizer``
(``vocab_file``, ``merges_file``) and of many course fixtures. Both files write a
token's bytes through GPT-2's byte-to-unicode map (``huggingface.bytes_to_unicode``:
a space is "Ġ", a newline "Ċ"); ``vocab.bpe`` starts with ``#version: 0.2`` and
holds one merge a line, its two sides separated by one space.

``from_gpt2_files(encoder_json, vocab_bpe)`` checks the two files as a pair:
the 256 byte symbols are in ``encoder.json``; every merge joins two tokens and its
result is in ``encoder.json``; the results' ids never fall in merge order; no id is
used twice; and the merges agree with the ids (``ranks.merge_list_problem``), so
that ``GPT2Tokenizer``, replaying them, gives our rank encoder's ids. An entry of
``encoder.json`` that is neither a byte nor a merge's result (``<|endoftext|>``)
is a special token. Errors name the file and the line or key. (The two files are
read by ``byte_tables``' readers, which CS336's ``Tokenizer.from_files`` shares.)
``save_gpt2_files(tok, folder)`` writes the pair (``ranks.replay_merges``: the
ranks' merges plus every split of a token they cannot make), each file through a
temporary name and a rename (``_files.atomic_write``), after checking it against
``tokenizers``' reading of it; a vocabulary the format cannot hold is refused.

What this module does not do: store the split pattern or a normalization (GPT-2's
files have none: pass ``pattern=`` and ``normalize=``; the default pattern is GPT-2's own), download GPT-2's files, or read
Hugging Face's ``tokenizer.json`` (``huggingface.py``).
"""

from __future__ import annotations

import json
import os

from .._internal.files import atomic_write
from ..tokenizer import Tokenizer
from ..ranks import merge_list_problem, recover_merges, replay_merges
from .byte_level import _BYTE_TO_CHAR, to_oniguruma
from ..tokenizer.byte_tables import _read_encoder, _read_merges, _symbol_bytes
from .export_check import check_export

__all__ = ["ENCODER", "MERGES", "VERSION_LINE", "from_gpt2_files", "gpt2_merge_lines",
           "save_gpt2_files"]

ENCODER = "encoder.json"
MERGES = "vocab.bpe"
VERSION_LINE = "#version: 0.2"


def _symbol(token: bytes) -> str:
    """Bytes -> GPT-2's written form: b" the" -> "Ġthe"."""
    return "".join(_BYTE_TO_CHAR[b] for b in token)


def from_gpt2_files(encoder_json, vocab_bpe, *, pattern="gpt2", name=None, backend=None,
                    normalize=None) -> Tokenizer:
    """A Tokenizer from GPT-2's ``encoder.json`` and ``vocab.bpe``, checked as a pair.

    The merges must agree with the ids (``ranks.merge_list_problem``, as GPT-2's
    readers replay them in line order and have no whole-chunk rule), or the pair is
    refused naming the line: else our rank encoder and ``GPT2Tokenizer`` would give
    different ids. ``normalize``: the Unicode form the text was normalized to
    (GPT-2's files cannot say; ``save_gpt2_files`` of Qwen's tokenizer needs "NFC").

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
    lines = _read_merges(bpe_path)
    for lineno, left, right in lines:  # first every result, so a merge may name a later line's token
        where = f"{bpe_path}, line {lineno}"
        if left + right in encoder:  # (one that is not: refused below, once its sides are checked)
            by_bytes[_symbol_bytes(left + right, where)] = encoder[left + right]
    merges, last = [], None  # [((left id, right id), new id)] in line order; the previous merge's (id, line)
    for lineno, left, right in lines:
        where = f"{bpe_path}, line {lineno}"
        ids = []
        for side in (left, right):
            b = _symbol_bytes(side, where)
            if b not in by_bytes:
                raise ValueError(f"{where}: {side!r} is neither a byte nor the result of a merge")
            ids.append(by_bytes[b])
        if left + right not in encoder:
            raise ValueError(f"{where}: the merge {left!r} {right!r} makes {left + right!r}, which {enc_path} lacks")
        new = encoder[left + right]
        if last is not None and new < last[0]:
            raise ValueError(f"{where}: {left + right!r} has id {new} in {enc_path}, below {last[0]} of line "
                             f"{last[1]}; ids must rise in merge order")
        merges.append(((ids[0], ids[1]), new))
        last = (new, lineno)
    tokens = {_BYTE_TO_CHAR[b] for b in range(256)} | {l + r for _, l, r in lines}
    specials = {key: i for key, i in encoder.items() if key not in tokens}  # <|endoftext|> and the like
    vocab = {i: b for b, i in by_bytes.items()}
    ranks = {b: i for i, b in vocab.items()}  # bytes -> int
    implied = recover_merges(ranks)
    problem = merge_list_problem(ranks, merges, False, implied)  # GPT-2's readers: no whole-chunk rule
    if problem is not None:
        k, why = problem
        where = bpe_path if k is None else f"{bpe_path}, line {lines[k][0]}"
        raise ValueError(f"{where}: {why}; GPT2Tokenizer and bpe_lesson would give different ids")
    return Tokenizer(implied, pattern=pattern, special_tokens=specials, vocab=vocab, name=name, backend=backend,
                     normalize=normalize)


def gpt2_merge_lines(tok: Tokenizer) -> list[str]:
    """``vocab.bpe``'s merge lines for ``tok`` (``ranks.replay_merges``), or ``ValueError``
    when GPT-2's format cannot hold the vocabulary: a token only tiktoken's whole-chunk
    rule gives (``ranks.stuck_tokens``: 588 in Llama 3, 201 in Qwen 3.5).

    >>> gpt2_merge_lines(Tokenizer([((32, 97), 256)]))
    ['Ġ a']
    """
    merges = replay_merges(tok._ranks, tok.merges)
    problem = merge_list_problem(tok._ranks, merges, False, tok.merges)
    if problem is not None:
        raise ValueError(f"GPT-2's files cannot hold this vocabulary exactly: {problem[1]}. Their readers "
                         f"(GPT2Tokenizer, tokenizers' BPE.from_file) replay merges with no whole-chunk rule; "
                         f"save it with save_huggingface() (ignore_merges) or save_tiktoken() instead")
    return [f"{_symbol(tok.vocab[a])} {_symbol(tok.vocab[b])}" for (a, b), _ in merges]


def _reader(tok: Tokenizer, encoder: dict, lines: list[str]):
    """GPT-2's files as ``tokenizers`` reads them (``BPE.from_file``: no whole-chunk rule), with
    ``tok``'s split pattern: a function of texts -> ids, for ``export_check``."""
    from tokenizers import Regex, Tokenizer as HFTokenizer, decoders, models, pre_tokenizers

    bpe = models.BPE(vocab=encoder, merges=[tuple(line.split(" ")) for line in lines], ignore_merges=False)
    hf = HFTokenizer(bpe)
    steps = [pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
    if tok.pattern is not None:
        steps.insert(0, pre_tokenizers.Split(Regex(to_oniguruma(tok.pattern)), behavior="isolated"))
    hf.pre_tokenizer = pre_tokenizers.Sequence(steps)
    hf.decoder = decoders.ByteLevel()
    if tok.normalize:
        from tokenizers import normalizers
        hf.normalizer = getattr(normalizers, tok.normalize)()
    return lambda texts: [e.ids for e in hf.encode_batch(texts)]


def save_gpt2_files(tok: Tokenizer, folder, *, drop_normalize=False) -> None:
    """Write ``folder/encoder.json`` and ``folder/vocab.bpe`` for ``tok`` (GPT-2's format).

    Special tokens go into ``encoder.json`` with their ids, as GPT-2's
    ``<|endoftext|>`` does; the split pattern is not stored (GPT-2's files have none).
    Exact or refused: a vocabulary the format cannot hold (``gpt2_merge_lines``) raises
    ``ValueError``, and so does one on which ``tokenizers``, reading the pair, gives
    other ids on sample text (``export_check``); nothing is written then. A tokenizer
    that normalizes (Qwen's NFC) is refused unless ``drop_normalize=True``: the files
    cannot say so, and a reader must then pass ``normalize=`` itself.
    """
    if tok.normalize and not drop_normalize:
        raise ValueError(f"this tokenizer normalizes text to {tok.normalize}, which GPT-2's files have no place "
                         f"for (a reader would encode un-normalized text differently); pass drop_normalize=True "
                         f"and read them with from_gpt2_files(..., normalize={tok.normalize!r})")
    folder = os.fspath(folder)
    vocab = tok.vocab
    encoder = {_symbol(b): i for i, b in sorted(vocab.items())}
    for s, i in tok.special_tokens.items():
        if s in encoder:
            raise ValueError(f"special token {s!r} is written like the ordinary token {encoder[s]}; "
                             f"GPT-2's encoder.json cannot hold both")
        encoder[s] = i
    merge_lines = gpt2_merge_lines(tok)
    made = {new for _, new in tok.merges}
    added = [i for i, b in vocab.items() if len(b) > 1 and i not in made]
    check_export(tok, _reader(tok, encoder, merge_lines), "GPT-2 files", added)
    os.makedirs(folder, exist_ok=True)
    atomic_write(os.path.join(folder, ENCODER), json.dumps(encoder, ensure_ascii=False).encode("utf-8"))
    atomic_write(os.path.join(folder, MERGES), ("\n".join([VERSION_LINE] + merge_lines) + "\n").encode("utf-8"))
