"""A tokenizer as byte tables, the shape courses use: ``{id: bytes}`` and ``[(bytes, bytes), ...]``.

Stanford's CS336 and many course fixtures describe a BPE tokenizer as a triple:
``vocab: dict[int, bytes]`` (special tokens inside it, by their UTF-8 bytes),
``merges: list[tuple[bytes, bytes]]`` in merge order, and ``special_tokens:
list[str]``. ``Tokenizer.from_vocab`` builds our Tokenizer from that triple and
``Tokenizer.from_files`` (CS336's name) from the triple written as GPT-2 writes it:
a vocab JSON of token -> id and a merges text of one pair a line, each token in
GPT-2's byte alphabet ("Ġthe"); ``vocab_bytes`` and ``merge_bytes`` give it back, so
a learner can compare their own trainer's output with ours table for table. Both
constructors follow CS336's rule for special tokens: the ones given are always
special in ``encode`` (``specials_in_text="id"``; tiktoken's rule raises instead).
The readers of GPT-2's two files live here, and ``gpt2_files`` uses them too, with
GPT-2's byte alphabet they are written in (``bytes_to_unicode``, ``show_bytes``).

What this module does not do: change the encoding rule. A Tokenizer encodes by rank
(tiktoken's rule: the lowest id joins first), so ``from_vocab`` refuses merges on
which replaying them in order would give other ids (``ranks.merge_list_problem``:
ids that fall in merge order, a merge the ranks imply that is missing); the
Tokenizer keeps the ranks' own merges, which are then the ones passed.
"""

from __future__ import annotations

import json
import operator
import os

from .._internal.files import json_int, read_bytes
from ..ranks import merge_list_problem, recover_merges

__all__ = ["bytes_to_unicode", "show_bytes", "read_gpt2_tables", "ByteTables"]


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's map from each byte to a printable character (Hugging Face's ByteLevel).

    Printable Latin-1 bytes stand for themselves; the other 68 get the characters
    from U+0100 on, in byte order, so a space is "Ġ" and a newline "Ċ".

    >>> m = bytes_to_unicode(); m[ord("a")], m[ord(" ")], m[ord("\\n")], len(set(m.values()))
    ('a', 'Ġ', 'Ċ', 256)
    """
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    out, extra = {}, 0  # int -> str
    for b in range(256):
        if b in printable:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + extra)
            extra += 1
    return out


_BYTE_TO_CHAR = bytes_to_unicode()
_CHAR_TO_BYTE = {c: b for b, c in _BYTE_TO_CHAR.items()}


def show_bytes(token: bytes) -> str:
    """A token's bytes as Hugging Face writes them in a byte-level vocabulary.

    >>> show_bytes(b" the"), show_bytes("é".encode())
    ('Ġthe', 'Ã©')
    """
    return "".join(_BYTE_TO_CHAR[b] for b in token)


def _symbol_bytes(symbol: str, where: str) -> bytes:
    """A token as GPT-2's files write it -> its bytes: "Ġthe" -> b" the"."""
    try:
        return bytes(_CHAR_TO_BYTE[c] for c in symbol)
    except KeyError as e:
        raise ValueError(f"{where}: {symbol!r} holds {e.args[0]!r}, which is not one of GPT-2's 256 byte "
                         f"characters") from None


def _read_encoder(path) -> dict:
    raw = read_bytes(path, what="encoder.json")
    try:
        encoder = json.loads(raw.decode("utf-8"), parse_int=json_int)
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


def read_gpt2_tables(vocab_path, merges_path, special_tokens=()) -> tuple[dict, list]:
    """CS336's ``(vocab, merges)`` from GPT-2-style files: ``{id: bytes}`` and ``[(bytes, bytes)]``.

    Each token is written in GPT-2's byte alphabet ("Ġ" is a space); a key that is one
    of ``special_tokens`` is taken as its own text (one outside that alphabet, too).

    >>> import tempfile; d = tempfile.mkdtemp()
    >>> _ = open(os.path.join(d, "v.json"), "w").write('{"<|endoftext|>": 0, "Ġ": 1, "a": 2, "Ġa": 3}')
    >>> _ = open(os.path.join(d, "m.txt"), "w").write("Ġ a\\n")
    >>> read_gpt2_tables(os.path.join(d, "v.json"), os.path.join(d, "m.txt"), ["<|endoftext|>"])
    ({0: b'<|endoftext|>', 1: b' ', 2: b'a', 3: b' a'}, [(b' ', b'a')])
    """
    vocab_path, merges_path = os.fspath(vocab_path), os.fspath(merges_path)
    specials = set(special_tokens or ())
    vocab = {i: key.encode("utf-8") if key in specials else _symbol_bytes(key, f"{vocab_path}: key {key!r}")
             for key, i in _read_encoder(vocab_path).items()}  # int -> bytes
    merges = [(_symbol_bytes(left, f"{merges_path}, line {n}"), _symbol_bytes(right, f"{merges_path}, line {n}"))
              for n, left, right in _read_merges(merges_path)]
    return vocab, merges


class ByteTables:
    """Mixed into ``Tokenizer``: needs ``vocab``, ``special_tokens``, ``merges``."""

    @classmethod
    def from_vocab(cls, vocab, merges=None, special_tokens=None, pattern="gpt2", specials_in_text="id",
                   **kwargs):
        """A Tokenizer from ``vocab: {id: bytes}``, ``merges: [(bytes, bytes), ...]`` and
        ``special_tokens: [str, ...]``: CS336's ``get_tokenizer(vocab, merges, special_tokens)``.

        A special token whose bytes are in ``vocab`` keeps that id; one that is missing
        gets the next free id. Every other entry of ``vocab`` is an ordinary token, but
        for one that no merge of ``merges`` makes (GPT-2's "<|endoftext|>" when not in
        ``special_tokens``): replaying the merges, as CS336 encodes, never gives it, so
        it is kept for ``decode`` only (a special token no call allows by default) and
        its text in ``encode``'s input is plain text, as in CS336.
        ``specials_in_text``: "id" (CS336's rule, the default here: ``encode`` makes
        the text of each of ``special_tokens`` its id, longest first, so
        "<|endoftext|><|endoftext|>" wins over "<|endoftext|>" when both are given)
        or "raise" (tiktoken's, ``Tokenizer``'s default).

        >>> from bpe_lesson import Tokenizer
        >>> vocab = {0: b"<|endoftext|>"} | {i + 1: bytes([i]) for i in range(256)} | {257: b"ab"}
        >>> tok = Tokenizer.from_vocab(vocab, [(b"a", b"b")], ["<|endoftext|>"])
        >>> tok.encode("ab<|endoftext|>")
        [257, 0]
        """
        specials = list(special_tokens or [])
        by_bytes = {}  # bytes -> id
        for i, b in vocab.items():
            if isinstance(i, bool) or not isinstance(b, (bytes, bytearray)):
                raise TypeError(f"vocab maps ids (int) to bytes; got {i!r}: {type(b).__name__}")
            try:
                i = operator.index(i)  # an int, or a NumPy integer (not 256.7)
            except TypeError:
                raise TypeError(f"vocab maps ids (int) to bytes; got the id {i!r} ({type(i).__name__})") from None
            if bytes(b) in by_bytes:
                raise ValueError(f"vocab gives the bytes {bytes(b)!r} two ids ({by_bytes[bytes(b)]} and {i})")
            by_bytes[bytes(b)] = i
        special_ids = {}
        free = max(by_bytes.values(), default=-1) + 1
        for s in specials:
            i = by_bytes.pop(s.encode("utf-8"), None)
            if i is None:
                i, free = free, free + 1
            special_ids[s] = i
        missing = [b for b in (bytes([k]) for k in range(256)) if b not in by_bytes]
        if missing:
            raise ValueError(f"vocab lacks {len(missing)} of the 256 single bytes (first: {missing[0]!r}); "
                             f"byte-level BPE needs every byte")
        implied = None
        if merges is not None:
            listed = []  # [((left id, right id), new id)] in the order given
            for k, m in enumerate(merges):
                if not (isinstance(m, (tuple, list)) and len(m) == 2
                        and all(isinstance(x, (bytes, bytearray)) for x in m)):
                    raise ValueError(f"merge {k} is {str(m)[:60]}; a merge is a pair (left bytes, right bytes)")
                left, right = bytes(m[0]), bytes(m[1])
                for side in (left, right, left + right):
                    if side not in by_bytes:
                        raise ValueError(f"merge {k} ({left!r}, {right!r}) names {side!r}, which is not in vocab")
                listed.append(((by_bytes[left], by_bytes[right]), by_bytes[left + right]))
            made = {new for _, new in listed}
            for b, i in list(by_bytes.items()):
                if len(b) > 1 and i not in made:  # no merge makes it: kept for decode only
                    try:
                        special_ids[b.decode("utf-8")] = by_bytes.pop(b)
                    except UnicodeDecodeError:
                        raise ValueError(f"vocab's token {i} ({b!r}) is made by no merge and is not UTF-8 "
                                         f"text, so it cannot be kept for decode only") from None
            implied = recover_merges(by_bytes)
            # a merge list is replayed in order, with no whole-chunk rule (GPT-2, CS336): it must agree
            problem = merge_list_problem(by_bytes, listed, False, implied)
            if problem is not None:
                k, why = problem
                raise ValueError(f"{'merges' if k is None else f'merge {k}'}: {why}; replaying these merges "
                                 f"and encoding by rank (as this Tokenizer does) would give different ids")
        ordinary = {i: b for b, i in by_bytes.items()}  # int -> bytes
        rule = specials if specials_in_text == "id" else specials_in_text  # the given ones, not the decode-only
        return cls(implied, pattern=pattern, special_tokens=special_ids, vocab=ordinary, specials_in_text=rule,
                   **kwargs)

    @classmethod
    def from_files(cls, vocab_filepath, merges_filepath, special_tokens=None, **kwargs):
        """CS336's ``Tokenizer.from_files``: ``from_vocab`` of the tables in a GPT-2-style vocab
        JSON and merges text (``read_gpt2_tables``; CS336's ``gpt2_vocab.json`` and
        ``gpt2_merges.txt``, or GPT-2's own ``encoder.json`` and ``vocab.bpe``). Only the
        ``special_tokens`` given are special, as in CS336 (``from_gpt2_files`` instead makes
        every entry of the JSON that no merge makes special).

        >>> import tempfile; d = tempfile.mkdtemp()
        >>> from bpe_lesson import Tokenizer
        >>> from bpe_lesson.formats.gpt2_files import save_gpt2_files
        >>> save_gpt2_files(Tokenizer([((97, 98), 256)], special_tokens={"<|endoftext|>": 257}), d)
        >>> tok = Tokenizer.from_files(f"{d}/encoder.json", f"{d}/vocab.bpe", ["<|endoftext|>"])
        >>> tok.encode("abab<|endoftext|>")
        [256, 256, 257]
        """
        vocab, merges = read_gpt2_tables(vocab_filepath, merges_filepath, special_tokens)
        return cls.from_vocab(vocab, merges, special_tokens, **kwargs)

    def vocab_bytes(self) -> dict:
        """Every id to its bytes, special tokens included (as their UTF-8 bytes)."""
        out = dict(self.vocab)
        out.update((i, s.encode("utf-8")) for s, i in self.special_tokens.items())
        return dict(sorted(out.items()))

    def merge_bytes(self) -> list:
        """The merges as byte pairs, in merge order: ``[(b"a", b"b"), (b"ab", b"c"), ...]``."""
        return [(self.vocab[a], self.vocab[b]) for (a, b), _ in self.merges]
