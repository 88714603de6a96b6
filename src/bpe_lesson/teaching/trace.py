"""Recorders and harnesses the chapters use to watch the package work.

* ``recording_heap`` / ``recorded_training``: run the incremental trainer with every
  heap push and pop written down, and ``explain`` labels each event (merged, stale,
  pushed back, ...), for *Training fast*;
* ``pyx_function``: the source of one function of a compiled module, read from its
  ``.pyx`` file in the package folder, to print beside the Python one;
* ``pieces_*``, ``segmentation_metrics`` and ``compare_segmenters``: turn five
  tokenizers of different families into one measurement (bytes per token, tokens per
  word, single-character and unknown shares), for *Normalization and BPE's cousins*;
* ``training_memory``: the memory one training run adds, and its time, measured in a
  fresh process, for *Training fast*.

What this module does not do: train, encode or draw (the package and ``plots.py``
do); it only records and measures what they do.
"""

from __future__ import annotations

import contextlib
import heapq
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time

from .. import incremental, textbook
from ..patterns import GPT4_PATTERN
from ..ranks import vocab_from_merges
from ..trainer import train

__all__ = ["HeapRecorder", "recording_heap", "recorded_training", "explain",
           "merge_state", "measure_work", "pyx_function", "py_function", "UNKNOWN",
           "pieces_bpe", "pieces_wordpiece", "pieces_sentencepiece", "is_single_char",
           "segmentation_metrics", "compare_segmenters", "metrics_table", "TRAINERS", "training_memory"]

# --------------------------------------------------------------------------- the heap


class HeapRecorder:
    """Stands in for the ``heapq`` module inside ``incremental.py`` and logs every push and pop.

    ``log`` holds ``("push" | "pop", count, (left, right))`` tuples, in order.

    >>> r = HeapRecorder(); h = []
    >>> r.heappush(h, (-3, 97, 98)); r.heappop(h)
    (-3, 97, 98)
    >>> r.log
    [('push', 3, (97, 98)), ('pop', 3, (97, 98))]
    """

    def __init__(self):
        self.log = []  # ("push" | "pop", count, (left, right))

    def heapify(self, heap):
        heapq.heapify(heap)

    def heappush(self, heap, entry):
        self.log.append(("push", -entry[0], entry[1:]))
        heapq.heappush(heap, entry)

    def heappop(self, heap):
        entry = heapq.heappop(heap)
        self.log.append(("pop", -entry[0], entry[1:]))
        return entry


@contextlib.contextmanager
def recording_heap():
    """For the length of a ``with`` block, ``incremental.py``'s heap calls go through a recorder.

    >>> with recording_heap() as rec:
    ...     incremental.train_merges({b"aab": 2}, 1)
    [((97, 97), 256)]
    >>> rec.log[0]
    ('pop', 2, (97, 97))
    """
    recorder = HeapRecorder()
    # subtle: incremental.py calls heapq.heappush through the module name heapq, so
    # swapping that name swaps its heap functions ... and we always put the real one back
    incremental.heapq = recorder
    try:
        yield recorder
    finally:
        incremental.heapq = heapq


def recorded_training(chunk_counts, n_merges):
    """``incremental.train_merges`` with its heap recorded: ``(merges, log)``.

    >>> merges, log = recorded_training({b"hug": 10, b"pug": 5}, 1)
    >>> merges, log[0]
    ([((117, 103), 256)], ('pop', 15, (117, 103)))
    """
    with recording_heap() as recorder:
        merges = incremental.train_merges(chunk_counts, n_merges)
    return merges, recorder.log


def explain(log, merges):
    """Label every event of a heap log: ``(op, count, pair, kind, detail)``.

    kinds: "new pair", "pushed back" (pushes); "up to date, merged", "stale, pushed back",
    "stale, dropped", "skipped or stale", "training stops" (pops).

    >>> merges, log = recorded_training({b"hug": 10, b"pug": 5}, 1)
    >>> [e[3] for e in explain(log, merges)]
    ['up to date, merged', 'new pair', 'new pair']
    """
    vocab = vocab_from_merges(merges)  # int -> bytes, for the labels
    known = {vocab[i] for i in range(256)}  # the tokens made so far
    made = iter(merges)
    upcoming = next(made, None)  # the next merge the trainer made
    out = []
    for k, (op, count, pair) in enumerate(log):
        after = log[k + 1] if k + 1 < len(log) else None
        if op == "push":
            back = k > 0 and log[k - 1][0] == "pop" and log[k - 1][2] == pair
            out.append((op, count, pair, "pushed back" if back else "new pair", ""))
        elif after is not None and after[0] == "push" and after[2] == pair:
            out.append((op, count, pair, "stale, pushed back", f": count is now {after[1]}"))
        elif upcoming is not None and pair == upcoming[0]:
            out.append((op, count, pair, "up to date, merged", f": {upcoming[1]} = {vocab[upcoming[1]]!r}"))
            known.add(vocab[upcoming[1]])
            upcoming = next(made, None)
        elif upcoming is None and after is None:
            out.append((op, count, pair, "training stops", ": count below 2"))
        elif vocab[pair[0]] + vocab[pair[1]] in known:
            out.append((op, count, pair, "skipped or stale", ": its bytes already are a token"))
        else:
            out.append((op, count, pair, "stale, dropped", ": count is now 0"))
    return out


def merge_state(chunk_counts, merge_number):
    """The trainer's pair counts, index and heap just before and just after merge ``merge_number``.

    Runs the named steps of ``incremental.py`` (``load``, ``count_all``, then
    ``pop_best`` and ``apply_merge`` per merge) and returns a dict with ``pair``,
    ``new_id``, ``vocab`` (int -> bytes), ``words`` (after), ``before`` and ``after``,
    each ``{"counts": {pair: count}, "where": {pair: set of word indices},
    "heap": [(-count, left, right), ...]}`` (the heap as a list, in heap order).

    >>> s = merge_state({b"hug": 10, b"pug": 5}, 1)
    >>> s["pair"], s["before"]["counts"][(117, 103)], s["after"]["counts"].get((117, 103), 0)
    ((117, 103), 15, 0)
    """
    vocab = vocab_from_merges(())  # int -> bytes
    known = set(vocab.values())
    words, counts = incremental.load(chunk_counts)
    pair_counts, where, heap = incremental.count_all(words, counts)
    state = incremental.TrainerState(words, counts, pair_counts, where, heap)  # what apply_merge updates
    for k in range(merge_number):
        best = incremental.pop_best(heap, pair_counts, vocab, known)
        if best is None:
            raise ValueError(f"training stops after {k} merges; there is no merge {merge_number}")
        pair, _ = best
        new_id = 256 + k
        vocab[new_id] = vocab[pair[0]] + vocab[pair[1]]
        known.add(vocab[new_id])
        if k == merge_number - 1:  # the heap already lost the popped entry
            before = _snapshot(pair_counts, where, [(-pair_counts[pair], *pair)] + heap)
        incremental.apply_merge(pair, new_id, state)
    after = _snapshot(pair_counts, where, heap)
    return {"pair": pair, "new_id": new_id, "vocab": vocab, "words": words,
            "before": before, "after": after}


def _snapshot(pair_counts, where, heap):
    return {"counts": {p: c for p, c in pair_counts.items() if c > 0},
            "where": {p: set(ws) for p, ws in where.items() if ws},
            "heap": list(heap)}


def measure_work(chunk_counts, n_merges, check_every=100):
    """Train with the named steps of ``incremental.py`` and measure each merge's work.

    Per merge: the chunk-tokens of the chunks that really held the pair (what
    ``apply_merge`` rewrites), of every chunk the index listed for it (``listed``: the
    stale entries too, which ``merge_word`` reads and finds nothing in) and ``T_k``,
    all chunk-tokens (what a textbook pass reads). Every ``check_every`` merges the
    updated pair counts are compared with a full recount (``textbook.count_pairs``);
    an ``AssertionError`` says where they differ. Returns
    ``(merges, touched, scanned, recounts, listed)``, ``recounts`` mapping a merge
    number to the recount after it.

    >>> merges, touched, scanned, _, listed = measure_work({b"hug": 10, b"pug": 5}, 2, check_every=1)
    >>> merges, touched, scanned, listed
    ([((117, 103), 256), ((104, 256), 257)], [6, 2], [6, 4], [6, 2])
    """
    vocab = vocab_from_merges(())  # int -> bytes
    known = set(vocab.values())
    words, counts = incremental.load(chunk_counts)
    pair_counts, where, heap = incremental.count_all(words, counts)
    state = incremental.TrainerState(words, counts, pair_counts, where, heap)  # what apply_merge updates
    total = sum(len(w) for w in words)  # T_k
    merges, touched, scanned, recounts, listed = [], [], [], {}, []
    for k in range(n_merges):
        best = incremental.pop_best(heap, pair_counts, vocab, known)
        if best is None:
            break
        (pair, _), new_id = best, 256 + k
        vocab[new_id] = vocab[pair[0]] + vocab[pair[1]]
        known.add(vocab[new_id])
        held = [i for i in where[pair] if pair in zip(words[i], words[i][1:])]  # not the stale entries
        before = sum(len(words[i]) for i in held)
        listed.append(sum(len(words[i]) for i in where[pair]))  # stale entries too
        incremental.apply_merge(pair, new_id, state)
        touched.append(before)
        scanned.append(total)
        total -= before - sum(len(words[i]) for i in held)
        merges.append((pair, new_id))
        if (k + 1) % check_every == 0:
            recount = textbook.count_pairs({tuple(w): c for w, c in zip(words, counts)})
            assert {p: c for p, c in pair_counts.items() if c} == recount, f"counts differ after merge {k + 1}"
            recounts[k + 1] = recount
    return merges, touched, scanned, recounts, listed


# --------------------------------------------------------------------- compiled source

_DEF = re.compile(r"^(\s*)(?:c?p?def)\s+(?:[\w\[\], ]+\s+)?(\w+)\s*\(")


def pyx_function(name, module="_incremental", docstring=False):
    """The source of function or method ``name`` in ``bpe_lesson/_compiled/<module>.pxi``
    (a piece of the compiled extension; the trainer by default), as text.

    A ``def``, ``cdef`` or ``cpdef`` line naming ``name``, and every line after it that
    is blank or indented deeper, dedented; the docstring is left out unless
    ``docstring=True``.

    >>> print(pyx_function("pair_key").splitlines()[0])
    cdef inline uint64_t pair_key(int32_t a, int32_t b) noexcept nogil:
    """
    path = os.path.join(os.path.dirname(incremental.__file__), "_compiled", f"{module}.pxi")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such .pxi file in the compiled folder")
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for k, line in enumerate(lines):
        m = _DEF.match(line)
        if m and m.group(2) == name:
            indent = len(m.group(1))
            body = [line]
            for nxt in lines[k + 1:]:
                if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent:
                    break
                body.append(nxt)
            while body and not body[-1].strip():
                body.pop()
            text = textwrap.dedent("\n".join(body))  # a method loses its class's indentation
            if not docstring:
                text = re.sub(r'\n\s*"""(?:.|\n)*?"""', "", text, count=1)
            return text
    raise KeyError(f"{path} defines no function or method named {name!r}")


def py_function(fn, docstring=False):
    """The source of a Python function, its docstring left out unless ``docstring=True``.

    The listing to put beside ``pyx_function`` of the same name.

    >>> print(py_function(incremental.merge_word).splitlines()[0])
    def merge_word(word, pair, new_id):
    """
    text = inspect.getsource(fn).rstrip()
    if not docstring:
        text = re.sub(r'\n\s*"""(?:.|\n)*?"""', "", text, count=1)
    return text


# ------------------------------------------------------------------ five segmenters

class _Unknown:
    """The one marker for a token that stands for no text."""

    def __repr__(self):
        return "UNKNOWN"


UNKNOWN = _Unknown()  # WordPiece's [UNK], SentencePiece's <unk>: a token that stands for no text


def pieces_bpe(tok, text):
    """The bytes each token of a ``bpe_lesson`` tokenizer stands for.

    >>> from bpe_lesson.tokenizer import Tokenizer
    >>> pieces_bpe(Tokenizer([((104, 105), 256)], pattern=None), "hi!")
    [b'hi', b'!']
    """
    return [tok.decode_bytes([i]) for i in tok.encode(text)]


def pieces_wordpiece(wp, text):
    """WordPiece's pieces with ``##`` taken off; ``UNKNOWN`` for its unknown token.

    >>> from bpe_lesson.cousins.wordpiece import WordPiece
    >>> pieces_wordpiece(WordPiece(["[UNK]", "h", "##i"]), "hi yo")
    ['h', 'i', UNKNOWN]
    """
    return [UNKNOWN if p == wp.unk else p.removeprefix("##") for p in wp.tokenize(text)]


def pieces_sentencepiece(sp, text):
    """SentencePiece's pieces with ``▁`` as a space, byte pieces as ``bytes``, ``UNKNOWN`` for ``<unk>``."""
    out = []
    for i in sp.encode(text):
        if sp.is_unknown(i):
            out.append(UNKNOWN)
        elif sp.is_byte(i):
            out.append(bytes([int(sp.id_to_piece(i)[3:5], 16)]))  # "<0xE5>" -> b"\xe5"
        else:
            out.append(sp.id_to_piece(i).replace("▁", " "))
    return out


def is_single_char(piece):
    """One character or less; a byte that is part of a character counts as one.

    >>> is_single_char("a"), is_single_char("ab"), is_single_char(b"\\xe5"), is_single_char(UNKNOWN)
    (True, False, True, False)
    """
    if piece is UNKNOWN:
        return False
    if isinstance(piece, bytes):
        try:
            return len(piece.decode("utf-8")) <= 1
        except UnicodeDecodeError:
            return True  # part of one character
    return len(piece) <= 1


def segmentation_metrics(pieces, text, units):
    """Bytes per token, tokens per unit (word or character), single-character % and unknown %.

    >>> m = segmentation_metrics(["ab", "c", UNKNOWN], "abc d", units=2)
    >>> {k: round(v, 2) for k, v in m.items()}
    {'bytes/token': 1.67, 'tokens/word': 1.5, 'single-char %': 33.33, 'unknown %': 33.33}
    """
    n = len(pieces)
    return {"bytes/token": len(text.encode("utf-8")) / n,
            "tokens/word": n / units,
            "single-char %": 100 * sum(map(is_single_char, pieces)) / n,
            "unknown %": 100 * sum(p is UNKNOWN for p in pieces) / n}


def compare_segmenters(segmenters, texts, units):
    """``{(text name, segmenter name): metrics}`` for every pair.

    ``segmenters`` maps a name to a function text -> pieces; ``texts`` maps a name to a
    text; ``units(name, text)`` gives the number of words (or characters) to divide by.

    >>> r = compare_segmenters({"chars": list}, {"t": "ab c"}, lambda name, text: 2)
    >>> r["t", "chars"]["tokens/word"]
    2.0
    """
    return {(t, s): segmentation_metrics(seg(text), text, units(t, text))
            for t, text in texts.items() for s, seg in segmenters.items()}


def metrics_table(results, marked=()):
    """The lines of a table of ``compare_segmenters`` results, under 76 characters each.

    Texts in ``marked`` are measured per character; their tokens-per-unit gets a ``*``.
    """
    texts = list(dict.fromkeys(t for t, _ in results))
    names = list(dict.fromkeys(s for _, s in results))
    heads = ["bytes/tok", "tok/word", "1-char %", "unknown %"]
    lines = [f"{'text':18} {'tokenizer':17} " + " ".join(f"{h:>9}" for h in heads)]
    for t in texts:
        for s in names:
            star = "*" if t in marked else " "
            r = list(results[t, s].values())
            cells = [f"{r[0]:8.2f} ", f"{r[1]:8.2f}{star}", f"{r[2]:8.2f} ", f"{r[3]:8.2f}"]
            lines.append(f"{t[:18]:18} {s:17} " + " ".join(cells))
        lines.append("")
    return lines


# --------------------------------------------------------------- memory in a fresh process

TRAINERS = ("ours", "rustbpe")


def training_memory(docs, vocab_size: int, *, trainer: str = "ours", one_string: bool = True) -> dict:
    """Train on ``docs`` (a list of str) in a fresh Python process and measure the run:
    ``{"seconds", "added", "how", "vocab"}``.

    ``one_string``: the documents joined into one ``str`` (as a caller holding a whole
    file passes it), else the list. ``trainer``: "ours" (``bpe_lesson.train``) or
    "rustbpe" (its ``train_from_iterator``, GPT-4's pattern, as ours). ``added`` is the
    peak resident memory during training minus the resident memory with the text
    loaded, whatever allocated it (Python, C++ or Rust). ``how`` says how the peak was
    read: "peak reset" (Linux: the peak is set back to the current size once the text
    is loaded, ``/proc/self/clear_refs``), else "peak since start" (``getrusage``:
    what loading the text reached is then a floor, so a small run reads 0).
    ``vocab``: every id's bytes, in id order, to check the trainers agree.
    """
    if trainer not in TRAINERS:
        raise ValueError(f"unknown trainer {trainer!r}; use one of {TRAINERS}")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "docs.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(list(docs), f)
        code = (f"from bpe_lesson.teaching.trace import _measure_training; "
                f"_measure_training({path!r}, {int(vocab_size)}, {trainer!r}, {bool(one_string)})")
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"training_memory: the {trainer} run failed:\n{run.stderr[-2000:]}")
    out = json.loads(run.stdout.strip().splitlines()[-1])
    out["vocab"] = [bytes.fromhex(h) for h in out["vocab"]]
    return out


def _resident() -> tuple[int, int, str]:
    """(resident bytes now, peak resident bytes, how the peak is read)."""
    try:
        with open("/proc/self/status") as f:
            kb = {k: int(v.split()[0]) for k, _, v in (line.partition(":") for line in f)
                  if k in ("VmRSS", "VmHWM")}
        return kb["VmRSS"] * 1024, kb["VmHWM"] * 1024, "peak reset"
    except OSError:
        import resource  # POSIX; ru_maxrss is in bytes on macOS, KB elsewhere
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
        return peak, peak, "peak since start"


def _measure_training(path: str, vocab_size: int, trainer: str, one_string: bool) -> None:
    """The child of ``training_memory``: load, reset the peak, train, print one JSON line."""
    with open(path, encoding="utf-8") as f:
        docs = json.load(f)
    text = "".join(docs) if one_string else docs
    del docs
    if trainer == "rustbpe":
        import rustbpe  # (imported before the peak is reset, as ours is)
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # the peak resident size is now the current one
    except OSError:
        pass
    before, _, how = _resident()
    t0 = time.perf_counter()
    if trainer == "ours":
        tok = train(text, vocab_size, pattern="gpt4")
        vocab = [tok.vocab[i] for i in range(len(tok.vocab))]
    else:
        rust = rustbpe.Tokenizer()
        rust.train_from_iterator(iter([text] if one_string else text), vocab_size, pattern=GPT4_PATTERN)
        vocab = [b for b, _ in sorted(rust.get_mergeable_ranks(), key=lambda br: br[1])]
    seconds = time.perf_counter() - t0
    _, peak, how = _resident()
    print(json.dumps({"seconds": seconds, "added": max(0, peak - before), "how": how,
                      "vocab": [b.hex() for b in vocab]}))
