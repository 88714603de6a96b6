"""Checks of the exercises in *From windows to fine-tuning*: the Llama 3 template with its
loss mask, padding with the last real token gathered, and the verifier of an RL answer.

Each check is differential (``compare``): the reader's function against the package's,
on hand-picked cases and then on generated ones aimed at the edges where a wrong
answer differs: empty content, content that opens with newlines or holds a special
token's text, 1 to 8 turns with and without a system message; sequences that end in
the pad id, all of one length, or one much longer; replies with no marker, two
markers, whitespace and full stops around the answer (one trailing full stop is removed,
no other), and numbers written with thousands separators, decimals, signs and fractions,
and written in ways that are no number here (``1,25``, ``12,34,567``, ``1e3``, ``1_000``).

The references: ``lm.chat.render_chat(..., "llama3")`` (itself tested id for id
against Meta's ``ChatFormat``), ``lm.preference.pad_sequences`` / ``gather_last``
and ``lm.rl.reward``.

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import functools

import torch

from ...lm.chat import render_chat
from ...lm.preference import gather_last, pad_sequences
from ...lm.rl import reward
from ...trainer import train
from . import _gen, call, check, compare

__all__ = ["LLAMA3_SPECIALS", "small_llama3_tokenizer", "CONTENTS", "check_mask",
           "check_gather", "ANSWERS", "MALFORMED", "STOPS", "check_verifier"]

LLAMA3_SPECIALS = ["<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]


@functools.lru_cache(maxsize=1)
def small_llama3_tokenizer():
    """A 400-token vocabulary trained here, with Llama 3's four chat tokens: fast, and the mask
    does not depend on the vocabulary's size."""
    # "\n\n\n" becomes a token: then "\n\n" + "\nx" encoded as one text differs from its pieces
    text = ["user assistant system\n\n\nWhat does BPE stand for?\n\n\n Byte-pair encoding. 中文 émigré 😀"] * 4
    return train(text, 400, special_tokens=LLAMA3_SPECIALS)


# ---- ex-shapes-mask ----------------------------------------------------------------

CONTENTS = ["", "Hi", "\nx", "What does BPE stand for?", "Byte-pair encoding.", "\n\nnewlines first", " space",
            "end\n", "<|eot_id|>", "<|start_header_id|>user<|end_header_id|>", "中文 😀", "a  b"]


def _dialog(rng):
    msgs = [{"role": "system", "content": rng.choice(CONTENTS)}] if rng.random() < 0.4 else []
    for k in range(rng.randint(0, 8)):
        content = rng.choice(CONTENTS) if rng.random() < 0.7 else _gen.text(rng, 20)
        msgs.append({"role": ("user", "assistant")[k % 2], "content": content})
    return (msgs,)


def _mask_cases():
    yield from [([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."}],),
                ([{"role": "assistant", "content": ""}],), ([],),
                ([{"role": "system", "content": "x"}, {"role": "user", "content": "<|eot_id|>"}],)]


def _as_lists(value):
    ids, mask = value
    return [int(i) for i in ids], [int(m) for m in mask]


@check("ex-shapes-mask")
def check_mask(render_llama3, tokenizer=None):
    tok = tokenizer or small_llama3_tokenizer()

    def reference(msgs):
        return render_chat(tok, msgs, "llama3")

    def reader(msgs):
        return render_llama3(tok, msgs)

    reader.__name__ = getattr(render_llama3, "__name__", "render_llama3")

    def hint(args, want, got):
        (wi, wm), (gi, gm) = _as_lists(want), _as_lists(got)
        k = next((k for k in range(min(len(wi), len(gi))) if (wi[k], wm[k]) != (gi[k], gm[k])),
                 min(len(wi), len(gi)))
        if k >= len(wi) or k >= len(gi):
            return f"ids agree up to position {k}, then one of the two ends"
        return (f"first difference at position {k}: expected {tok.decode([wi[k]])!r} (mask {wm[k]}), "
                f"got {tok.decode([gi[k]])!r} (mask {gm[k]})")

    compare(reader, reference, _mask_cases(), generate=_dialog, kind=tuple,
            equal=lambda want, got: len(got) == 2 and _as_lists(got) == _as_lists(want),
            show=lambda a: _short_dialog(a[0]), hint=hint)


def _short_dialog(msgs, width=40):
    """A dialog as a failure message shows it: (first letter of the role, content), cut at ``width``.

    >>> _short_dialog([{"role": "user", "content": "Hi"}])
    "[('u', 'Hi')]"
    """
    r = repr([(m["role"][0], m["content"]) for m in msgs])
    return r if len(r) <= width else r[:width - 4] + " ..."


# ---- ex-shapes-gather ----------------------------------------------------------------


def _gather_reference(seqs, pad_id, values):
    """The package's answer: the padded ids, the lengths, and ``values`` read at each last real token.

    >>> _gather_reference([[5, 6], [7]], 0, [[1.0, 2.0], [3.0, 4.0]])
    ([[5, 6], [7, 0]], [2, 1], [2.0, 3.0])
    """
    ids, lengths = pad_sequences(seqs, pad_id)
    return ids.tolist(), lengths.tolist(), gather_last(torch.tensor(values)[:, :ids.shape[1]], lengths).tolist()


def _seqs(rng, pad_id):
    """1-5 sequences: some ending in the pad id (an end of turn used as pad), one length or several."""
    n = rng.randint(1, 5)
    same = rng.random() < 0.2
    length = rng.randint(1, 6)
    out = []
    for _ in range(n):
        k = length if same else rng.choice([1, 2, 3, 4, 6, 9, rng.randint(1, 12)])
        seq = [rng.choice([3, 4, 5, 7, pad_id]) for _ in range(k)]
        if rng.random() < 0.5:
            seq[-1] = pad_id  # the end of turn doubles as the pad id
        out.append(seq)
    return out


def _gather_cases():
    yield from [([[5, 6, 7], [8]], 0), ([[1]], 0), ([[2, 0], [3, 4, 5, 0]], 0), ([[9, 9], [9, 9]], 9)]


def _gather_case(rng):
    pad_id = rng.choice([0, 9, 128_009])
    return _seqs(rng, pad_id), pad_id


@check("ex-shapes-gather")
def check_gather(pad_batch, last_real):
    name = f"{getattr(pad_batch, '__name__', 'pad_batch')} + {getattr(last_real, '__name__', 'last_real')}"

    def with_values(seqs, pad_id):  # each case gets a values table (B, 12) of distinct numbers
        return seqs, pad_id, [[float(100 * b + t) for t in range(12)] for b in range(len(seqs))]

    def reader(seqs, pad_id, values):
        got = call(pad_batch, seqs, pad_id)
        ids, lengths = got
        ids, lengths = torch.as_tensor(ids), torch.as_tensor(lengths)
        last = call(last_real, torch.tensor(values)[:, :ids.shape[1]], lengths)
        return ids.tolist(), lengths.tolist(), torch.as_tensor(last).tolist()

    reader.__name__ = name
    compare(reader, _gather_reference, [with_values(*c) for c in _gather_cases()],
            generate=lambda rng: with_values(*_gather_case(rng)),
            kind=tuple, show=lambda a: f"{a[0]}, pad_id={a[1]}"[:60],
            hint=lambda a, want, got: None if want[0] != got[0] else
            "the lengths are what you padded, not a count of non-pad ids: the end of turn can be "
            "the pad id" if want[1] != got[1] else "read row b at position seq_lengths[b] - 1")


# ---- ex-shapes-verifier ----------------------------------------------------------------

ANSWERS = ["7", "1,250", "1250", "1250.0", "+1250", "-3", "3/4", "0.75", ".5", "1,25", "12 apples",
           "Paris", "  paris ", "New  York", "1/0", "007", "1e3", "1000"]


def _reply(rng):
    return _reply_with(rng, rng.choice(ANSWERS))


def _reply_with(rng, answer):
    reasoning = rng.choice(["", "3 + 4 = 7\n", "so the total is 1250.\n", "#", "## 7\n"])
    r = rng.random()
    if r < 0.15:
        return reasoning + answer  # no marker
    if r < 0.3:
        return reasoning + f"#### {answer}\n#### {rng.choice(ANSWERS)}"  # two answers
    space = rng.choice(["", " ", "   ", "\t"])
    end = rng.choice(["", ".", " .", "\n", "\nthanks", ". ", "..", "\n#"])
    return reasoning + "####" + space + answer + end


# numbers written in ways the format does not accept, each with the number a loose parser
# reads in it: separators out of groups of three, exponents, underscores (Python's own
# int() and float() take the last two)
MALFORMED = [("1,25", "125"), ("12,34,567", "1234567"), ("1,2345", "12345"), ("1e3", "1000"),
             ("1_000", "1000"), ("1,000,0", "10000"), (",125", "125"), ("125,", "125"), ("1E3", "1000"),
             ("1,000_000", "1000000"), ("1,0.5", "10.5")]
# full stops a parser may strip too many of: at the start, two at the end, one on each side
STOPS = [(".5", "5"), ("7..", "7"), (". 7", "7"), (".7.", "7"), ("...", "."), ("7 . .", "7"), ("..5", ".5")]


def _verifier_cases():
    yield from [("#### 7", "7"), ("7", "7"), ("#### 7\n#### 7", "7"), ("#### 1,000.", "1000"),
                ("####", "1"), ("#### 0.75", "3/4"), ("#### Paris", "paris")]
    for written, loose in MALFORMED + STOPS:  # paid only as the same text, never as the number
        yield from [(f"#### {written}", loose), (f"#### {loose}", written), (f"#### {written}", written),
                    (f"#### {written}.", loose)]


def _verifier_case(rng):
    if rng.random() < 0.2:
        written, loose = rng.choice(MALFORMED + STOPS)
        pair = (written, loose) if rng.random() < 0.5 else (loose, written)
        return _reply_with(rng, pair[0]), pair[1]
    return _reply(rng), rng.choice(ANSWERS).strip() or "7"


@check("ex-shapes-verifier")
def check_verifier(my_reward):
    def reader(reply, gold):
        return float(call(my_reward, reply, gold))

    reader.__name__ = getattr(my_reward, "__name__", "reward")
    compare(reader, reward, _verifier_cases(), generate=_verifier_case,
            kind=float, show=lambda a: f"reply={a[0]!r}, gold={a[1]!r}",
            hint=_verifier_hint)


def _verifier_hint(args, want, got):
    reply, gold = args
    if reply.count("####") > 1:
        return "two #### markers are no answer"
    if "####" not in reply:
        return "no #### marker: no answer"
    answer = reply.split("####", 1)[1].split("\n", 1)[0].strip()
    if answer.lstrip(".") != answer or answer.endswith("..") or answer.rstrip(". ") != answer.removesuffix(".").rstrip():
        return "only one trailing full stop is removed; a full stop elsewhere is part of the answer"
    if not want and any(c in answer + gold for c in ",_eE"):
        return "thousands separators only in groups of three (1,250); 1,25, 1e3 and 1_000 are text"
    return "numbers compare by value: 1,250 = 1250.0; 3/4 = 0.75" if want else None
