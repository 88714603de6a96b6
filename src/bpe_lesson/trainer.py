"""``train``: text in, Tokenizer out; and the choice of trainer and backend.

The steps: resolve the split pattern, count the chunks (``chunks.py``), learn the
merges with one of three trainers that share one rule (``textbook.py``,
``incremental.py``, ``_compiled/_incremental.pxi``), and give special tokens the ids after
the merges. Which incremental trainer serves is ``_backend.BACKEND`` unless the
caller names one.

Like ``encode``, training maps lone surrogates (which UTF-8 cannot hold) to
U+FFFD, and refuses a split pattern that leaves text unmatched rather than learn
from part of it.

``train_bpe`` is Stanford CS336's name for the same training: a file in,
``(vocab, merges)`` out as byte tables.

What this module does not do: read files (``formats/documents.py``; ``train_bpe``
asks it) or follow a YAML config (``scale/``).
"""

from __future__ import annotations

import os
import warnings

from ._compiled import backend as _backend
from . import incremental, textbook
from ._internal.progress import check_progress, progress_bar
from .incremental import options_problem
from ._compiled.backend import resolve_workers
from .chunks import ChunkTally, doc_batches
from .ranks import bpe_encode_chunk
from .patterns import check_form, check_specials_normalized
from .patterns import normalize_text
from .patterns import PATTERNS, check_pattern, ordinary_pieces, uncovered, uncovered_error
from .patterns import resolve_pattern
from ._internal.arguments import renamed, replace_surrogates
from .formats.documents import read_documents
from .tokenizer import Tokenizer

__all__ = ["ALGORITHMS", "STREAM_CHARS", "get_trainer", "StoppedShort", "train",
           "train_bpe"]

ALGORITHMS = ("textbook", "incremental")
# characters of documents counted at a time when train streams an iterable, on the compiled
# counter (its threads start in microseconds); the readable split's worker processes take
# tasks of chunks._BATCH_CHARS, so there a batch holds four (per worker asked for).
# Measured (benchmarks/train_stream.py, 100 MB of stdlib code, vocab 8,192, RSS added at
# peak, 2 cores): 1 MiB batches 52.5 MB (one thread 47.4), about as much as from a list
# (48.6 MB), where holding every document added 176 MB; 2 MiB 54.4 MB, 4 MiB 56-64 MB.
STREAM_CHARS = 1 << 20


def get_trainer(algorithm: str = "incremental", backend: str | None = None):
    """The module whose ``train_merges`` runs ``algorithm`` on ``backend``.

    >>> get_trainer("textbook").__name__
    'bpe_lesson.textbook'
    """
    _check_algorithm(algorithm)
    if algorithm == "textbook":
        return textbook  # whatever the backend: its one implementation is the readable one
    return _trainer_for(algorithm, _backend.resolve_backend(backend))


def _check_algorithm(algorithm) -> None:
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; use one of {ALGORITHMS}")


def _trainer_for(algorithm: str, backend: str):
    """``get_trainer`` for a checked algorithm and a resolved backend."""
    if algorithm == "textbook":
        return textbook  # one implementation: it exists to be read
    return _backend.extension(backend) or incremental


def _check_covered(text, pattern, specials, chunk_counts, first: int = 0) -> None:
    """Refuse training when ``pattern`` left some text out of the chunks (it would learn from part of it);
    ``first``: the number of the first document in ``text`` (a batch of a stream)."""
    docs = [text] if isinstance(text, str) else text
    counted = sum(len(chunk) * n for chunk, n in chunk_counts.items())
    pieces = [(k, piece) for k, doc in enumerate(docs) for piece in ordinary_pieces(doc, specials)]
    if counted == sum(len(piece.encode("utf-8")) for _, piece in pieces):
        return
    for k, piece in pieces:
        at = uncovered(piece, pattern)
        if at is not None:
            raise uncovered_error(piece, at, pattern, f"a piece of document {first + k}")


def _count_docs(tally, docs, pattern, specials, normalize, first: int = 0, check: bool = True):
    """``tally.count`` of ``docs`` (a str, or a list of documents: all of them, or one batch
    of a stream whose first is document number ``first``), each document put in the
    ``normalize`` form, lone surrogates as U+FFFD, a custom pattern checked to cover it all.

    ``pattern`` and ``normalize`` come resolved and checked (``train`` decides them once).

    >>> tally = ChunkTally(PATTERNS["gpt4"], backend="python")
    >>> _count_docs(tally, ["ab ab"], PATTERNS["gpt4"], [], None) == {b"ab": 1, b" ab": 1}
    True
    """
    if normalize is not None:  # before pre-tokenization, as encode does
        docs = normalize_text(docs, normalize) if isinstance(docs, str) else [normalize_text(d, normalize) for d in docs]
    try:
        chunk_counts = tally.count(docs)
    except UnicodeEncodeError:  # lone surrogates: U+FFFD, as encode does (rare, so only then)
        docs = replace_surrogates(docs) if isinstance(docs, str) else [replace_surrogates(d) for d in docs]
        chunk_counts = tally.count(docs)
    if check and pattern is not None and pattern not in PATTERNS.values():  # the readable split's: a dict
        _check_covered(docs, pattern, specials, chunk_counts, first)
    return chunk_counts


def _count_text(text, pattern, specials, workers, counting, normalize, check: bool = True):
    """Chunk counts of all of ``text`` (bytes -> count), and what ``_why_short`` may look at:
    ``text`` itself when it is held (a str, a list, a tuple); else it streams, read once
    a batch at a time (``STREAM_CHARS``), and only a lone first document is kept.
    ``check``: refuse a custom pattern that leaves text out (``_check_covered``).
    """
    tally = ChunkTally(pattern, specials, workers, backend=counting)
    if isinstance(text, (str, list, tuple)):  # held already: counted in one go
        tally.add(_count_docs(tally, text, pattern, specials, normalize, check=check))
        return tally.result(), text
    seen, first = 0, []  # documents read; the first, while it is the only one
    per_batch = STREAM_CHARS if tally.counter is not None else 4 * resolve_workers(workers, 0) * STREAM_CHARS
    for batch in doc_batches(text, per_batch):
        tally.add(_count_docs(tally, batch, pattern, specials, normalize, seen, check=check))
        first = batch[:1] if seen == 0 and len(batch) == 1 else []
        seen += len(batch)
    return tally.result(), first


class StoppedShort(UserWarning):
    """``train`` made fewer ids than ``vocab_size`` asks for; the message says both and why."""


def _why_short(text, vocab_size: int, made: int, min_frequency: int, max_token_length) -> str:
    """The ``StoppedShort`` message: both numbers, the rule that stopped the merges, and a
    text that is one line naming a file (trained on as its name, not its contents)."""
    floor = max(min_frequency, 2)
    why = f"no pair occurs {floor} times or more" + (
        f" within max_token_length {max_token_length}" if max_token_length is not None else "")
    docs = [text] if isinstance(text, str) else text[:1] if len(text) == 1 else []
    named = [d for d in docs if 0 < len(d) < 4096 and "\n" not in d and os.path.exists(d.strip())]
    hint = (f"; the text {named[0]!r:.80} is the name of a file: train(read_documents({named[0]!r:.80}), ...) "
            f"trains on what it holds" if named else "; more text gives more pairs")
    return f"train made {made:,} ids, not the {vocab_size:,} asked for: {why}{hint}"


def train(text, vocab_size: int, *, pattern="gpt4", special_tokens=None, algorithm="incremental",
          backend=None, verbose=False, workers=None, normalize=None, tie_break="smallest-ids",
          min_frequency=2, max_token_length=None, progress=None, processes=None, start_from=None) -> Tokenizer:
    """Train a byte-level BPE tokenizer.

    ``text``: a str or an iterable of documents (str). A list or tuple is counted in
    one go; any other iterable (a generator, ``read_documents(...)``) streams: it is
    read once, counted a batch of about ``STREAM_CHARS`` characters at a time, and
    never held whole, so memory grows with the distinct chunks, not the documents
    (the merges are the same as from a list of the same documents). Files and folders:
    ``train(read_documents("corpus/", text_field="text"), ...)`` reads them as the
    YAML trainer and ``pack`` do (``documents.py``: ``.txt``, each ``.jsonl`` line's
    ``text_field``, a parquet column, a folder with a ``glob``, ``"-"`` for stdin).
    ``vocab_size``: ids in all: 256 bytes + merges + special tokens. Training stops
    earlier when no pair occurs twice, and then warns (``StoppedShort``) with both numbers.
    ``pattern``: "gpt2", "gpt4", "o200k", a regex, or None (each document is one chunk).
    ``special_tokens``: strings that get the ids after the merges, in the given order.
    ``algorithm``: "incremental" (fast) or "textbook" (recounts every pair each merge).
    ``backend``: "python" or "cython" for the incremental algorithm; None = ``BACKEND``.
    ``workers``: how many count the chunks at once (``chunks.count_chunk_bytes``):
    threads of this process where the compiled counter serves (the Cython backend,
    the incremental algorithm, a named pattern or None), worker processes otherwise;
    None (default): every core when the text is large, one otherwise; -1: every core.
    The merge loop runs on one thread whatever it is. ``processes`` is its older
    name (deprecated: it warns).
    ``normalize``: None (default: the text as given) or "NFC", "NFD", "NFKC", "NFKD":
    the Unicode form every document is put in before the split; the tokenizer keeps
    it and applies it in ``encode``. Caveat: the round trip ``decode(encode(s)) == s``
    then holds only for text already in that form (NFKC turns "ﬁ" into "fi").
    ``tie_break``: "smallest-ids" (the default rule: a tie goes to the smallest
    (left id, right id)) or "greatest-bytes" (to the greatest (left bytes, right
    bytes): Stanford CS336's rule, for checking a course trainer against this one).
    ``min_frequency``: stop when the best pair occurs fewer times (never below 2).
    ``max_token_length``: never make a token of more bytes than this (pairs that
    would are skipped), the guard against a long repeated string growing ever
    longer tokens.
    ``progress``: a bar of the merges on stderr: None (default) on a terminal only,
    and only when training takes more than a second (so a notebook's stored
    outputs and a log never hold one); True always (a notebook shows it too);
    False never (``_internal/progress.py``).
    ``start_from``: a Tokenizer to extend (``_extend``): every id it has, special
    tokens included, keeps its id and bytes; ``vocab_size`` is then its highest id
    + 1 plus the new merges (and new ``special_tokens``), the rows an embedding needs;
    the base's pattern and normal form serve (another one is refused).

    >>> tok = train("aaabdaaabac", 259, pattern=None)
    >>> tok.encode("aaabdaaabac")
    [258, 100, 258, 97, 99]
    """
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int, got {vocab_size!r}")
    if vocab_size < 256:
        raise ValueError(f"vocab_size {vocab_size} is below 256: the 256 byte values are always in the vocabulary")
    if isinstance(special_tokens, (str, bytes, dict)):
        raise TypeError(f"special_tokens is a list of strings, got the {type(special_tokens).__name__} "
                        f"{special_tokens!r:.40}; write special_tokens=[{special_tokens!r:.40}]")
    specials = list(special_tokens or [])
    for s in specials:
        if not isinstance(s, str) or not s:
            raise ValueError(f"special tokens must be non-empty strings, got {s!r}")
    if len(set(specials)) != len(specials):
        raise ValueError(f"special tokens repeat: {specials!r}")
    n_merges = vocab_size - 256 - len(specials)
    if n_merges < 0:
        raise ValueError(f"vocab_size {vocab_size} leaves no room for 256 bytes and {len(specials)} special tokens")
    problem = options_problem(tie_break, min_frequency, max_token_length)  # the YAML config's check too
    if problem is not None:
        raise ValueError(" ".join(problem))
    workers = renamed("processes", processes, "workers", workers)
    check_progress(progress)
    if start_from is not None:
        _check_same_split(start_from, pattern, normalize)
        options = {"tie_break": tie_break, "min_frequency": min_frequency, "max_token_length": max_token_length}
        return _extend(start_from, text, vocab_size, special_tokens, backend=backend, workers=workers,
                       verbose=verbose, options=options)
    # each setting decided once, here, and the resolved value passed down
    pattern = check_pattern(pattern)  # the regex (a name resolved), checked to cover text
    normalize = check_form(normalize)
    check_specials_normalized(specials, normalize)  # refused now, not after training
    backend = _backend.resolve_backend(backend)  # what every step below runs on
    _check_algorithm(algorithm)
    impl = _trainer_for(algorithm, backend)
    counting = backend if algorithm == "incremental" else "python"  # the textbook counts as it reads
    chunk_counts, text = _count_text(text, pattern, specials, workers, counting, normalize)
    with progress_bar(False if (verbose or n_merges == 0) else progress, total=n_merges, desc="merges",
                      unit="merge") as bar:
        merges = impl.train_merges(chunk_counts, n_merges, verbose=verbose, progress=bar.update,
                                   tie_break=tie_break, min_frequency=min_frequency,
                                   max_token_length=max_token_length)
    if len(merges) < n_merges:
        warnings.warn(StoppedShort(_why_short(text, vocab_size, len(merges) + 256 + len(specials), min_frequency,
                                              max_token_length)), stacklevel=2)
    first = 256 + len(merges)
    # the settings were checked above and the merges made here: the tokenizer takes them as they are
    return Tokenizer._from_resolved(merges, vocab=None, pattern=pattern,
                                    special_tokens={s: first + k for k, s in enumerate(specials)},
                                    normalize=normalize, backend=backend)  # it encodes on the backend it was trained on


def train_bpe(input_path, vocab_size: int, special_tokens, **kwargs) -> tuple[dict, list]:
    """Stanford CS336's ``run_train_bpe``: ``train`` on one text file, with CS336's rules,
    returning ``(vocab, merges)``: ``vocab: {id: bytes}`` (``vocab_bytes``) and
    ``merges: [(bytes, bytes), ...]`` in merge order (``merge_bytes``).

    CS336's rules are ``train``'s options: GPT-2's split pattern, the text cut at the
    special tokens first (no merge crosses one), ``vocab_size`` counting them, and a
    tie between pairs going to the greatest (left bytes, right bytes)
    (``tie_break="greatest-bytes"``). ``kwargs`` go to ``train`` (``workers=``, or
    another ``pattern=``).

    The ids are ``train``'s: the 256 bytes at their byte value, one id per merge from
    256 on, the special tokens last. CS336's reference vocabulary numbers the same
    tokens otherwise (its special token at 0, the bytes at 1-256 in GPT-2's
    printable-first order, the merges from 257 on); their test compares the two
    vocabularies' ids and tokens as sets, and ``Tokenizer.from_vocab`` reads either.

    >>> import tempfile; path = os.path.join(tempfile.mkdtemp(), "c.txt")
    >>> _ = open(path, "w").write("low lower<|endoftext|>lowest")
    >>> vocab, merges = train_bpe(path, 259, ["<|endoftext|>"])
    >>> merges  # "lo" and "ow" occur 3 times each: the greater pair, (b"o", b"w"), goes first
    [(b'o', b'w'), (b'l', b'ow')]
    >>> vocab[ord("a")], vocab[256], vocab[257], vocab[258]
    (b'a', b'ow', b'low', b'<|endoftext|>')
    """
    options = {"pattern": "gpt2", "tie_break": "greatest-bytes"} | kwargs
    tok = train(read_documents(os.fspath(input_path)), vocab_size, special_tokens=special_tokens, **options)
    return tok.vocab_bytes(), tok.merge_bytes()


def _check_same_split(base: Tokenizer, pattern, normalize) -> None:
    """``start_from`` splits and normalizes as the base does: refuse another pattern or form."""
    if pattern != "gpt4" and resolve_pattern(pattern) != base.pattern:
        raise ValueError(f"start_from splits with its own pattern; pattern={pattern!r:.40} differs from it "
                         f"(leave pattern out)")
    if normalize is not None and check_form(normalize) != base.normalize:
        raise ValueError(f"start_from normalizes as {base.normalize!r}; normalize={normalize!r} differs (leave it out)")


def _extend(base: Tokenizer, text, vocab_size: int, special_tokens, *, backend, workers, verbose,
            options) -> Tokenizer:
    """``train(..., start_from=base)``: continue BPE from a pretrained tokenizer.

    1. Split the text with the base's pattern (and its special tokens, its normal form)
       and count the chunks, as ``train`` does.
    2. Encode each chunk with the base's ranks: the words are the base's own ids.
    3. Run the incremental trainer's loop (``incremental.merge_loop``) on those words;
       new ids start after the highest existing id, special tokens included.
    The result keeps every base id with its bytes; the new tokens rank after all
    of them, so it encodes as tiktoken does with the extended rank table.

    What it does not do: run the compiled trainer (its words are bytes replayed
    through a merge list; here they are ids from a rank table, which need not be
    0-255 for the bytes: cl100k's "!" is id 0), or change the base's pattern.

    >>> base = train("abab abab", 257, pattern=None)
    >>> ext = train("ababab ababab", 258, pattern=None, start_from=base)
    >>> ext.merges[-1], ext.decode_bytes([257])
    (((256, 256), 257), b'abab')
    """
    backend = _backend.resolve_backend(backend)
    new_specials = list(special_tokens or [])
    clash = [s for s in new_specials if s in base.special_tokens]
    if clash:
        raise ValueError(f"special token {clash[0]!r} is already in the base (id {base.special_tokens[clash[0]]})")
    first = max([*base.vocab, *base.special_tokens.values()]) + 1  # the first new id
    n_merges = vocab_size - first - len(new_specials)
    if n_merges < 0:
        raise ValueError(f"vocab_size {vocab_size:,} is below the base's highest id + 1 ({first:,}) "
                         f"plus {len(new_specials)} new special tokens")
    specials = list(base.special_tokens) + new_specials  # kept out of the chunks
    # the base's pattern is trusted to cover the text, as encode does: no coverage check
    chunk_counts, text = _count_text(text, base.pattern, specials, workers, backend, base.normalize, check=False)
    ranks = base._ranks  # bytes -> id, ordinary tokens only
    # each unique chunk as the base's ids: list[list[int]], and its count
    words = [bpe_encode_chunk(chunk, ranks) for chunk in chunk_counts]
    counts = list(chunk_counts.values())
    merges = incremental.merge_loop(words, counts, base.vocab, first, n_merges, verbose=verbose, options=options)
    if len(merges) < n_merges:
        warnings.warn(StoppedShort(_why_short(text, vocab_size, first + len(merges) + len(new_specials),
                                              options["min_frequency"], options["max_token_length"])), stacklevel=3)
    vocab = dict(base.vocab)  # int -> bytes: every base token, then the new ones
    for (a, b), new_id in merges:
        vocab[new_id] = vocab[a] + vocab[b]
    after = first + len(merges)
    specials = dict(base.special_tokens) | {s: after + k for k, s in enumerate(new_specials)}
    base_merges = base._merges  # None for an imported rank table: recovered when read
    return Tokenizer._from_resolved(None if base_merges is None else base_merges + merges, vocab=vocab,
                                    pattern=base.pattern, special_tokens=specials, normalize=base.normalize,
                                    backend=backend)
