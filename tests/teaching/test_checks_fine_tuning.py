"""The checks of *From windows to fine-tuning* pass right solutions and reject plausible wrong ones."""

import re
from fractions import Fraction

import torch

from _wrong import With, graded
from bpe_lesson.teaching.checks.fine_tuning import small_llama3_tokenizer

SPECIAL = small_llama3_tokenizer().special_tokens


# ---------------------------------------------------------------- ex-shapes-mask

def render_llama3(tok, messages):  # the notebook's
    sp = tok.special_tokens
    ids, mask = [sp["<|begin_of_text|>"]], [0]
    for m in messages:
        learn = int(m["role"] == "assistant")
        head = ([sp["<|start_header_id|>"]] + tok.encode_ordinary(m["role"])
                + [sp["<|end_header_id|>"]] + tok.encode_ordinary("\n\n"))
        body = tok.encode_ordinary(m["content"]) + [sp["<|eot_id|>"]]
        ids += head + body
        mask += [0] * len(head) + [learn] * len(body)
    return ids, mask


def render_llama3_pieces(tok, messages):  # written as a list of (piece, learned) first
    sp = tok.special_tokens
    pieces = [([sp["<|begin_of_text|>"]], 0)]
    for m in messages:
        a = m["role"] == "assistant"
        pieces += [([sp["<|start_header_id|>"]], 0), (tok.encode_ordinary(m["role"]), 0),
                   ([sp["<|end_header_id|>"]], 0), (tok.encode_ordinary("\n\n"), 0),
                   (tok.encode_ordinary(m["content"]), a), ([sp["<|eot_id|>"]], a)]
    ids = [i for p, _ in pieces for i in p]
    return ids, [int(a) for p, a in pieces for _ in p]


def mask_without_eot(tok, messages):  # the model never learns to stop
    ids, mask = render_llama3(tok, messages)
    eot = tok.special_tokens["<|eot_id|>"]
    return ids, [0 if i == eot else m for i, m in zip(ids, mask)]


def mask_with_header(tok, messages):  # the assistant's header counted as its reply
    ids, mask = [tok.special_tokens["<|begin_of_text|>"]], [0]
    for m in messages:
        one, _ = render_llama3(tok, [m])
        ids += one[1:]
        mask += [int(m["role"] == "assistant")] * (len(one) - 1)
    return ids, mask


def joined_text(tok, messages):  # the text between special tokens encoded as one piece
    sp = tok.special_tokens
    ids, mask = [sp["<|begin_of_text|>"]], [0]
    for m in messages:
        learn = int(m["role"] == "assistant")
        ids += [sp["<|start_header_id|>"]] + tok.encode_ordinary(m["role"]) + [sp["<|end_header_id|>"]]
        body = tok.encode_ordinary("\n\n" + m["content"])
        ids += body + [sp["<|eot_id|>"]]
        mask += [0] * (len(ids) - len(mask) - 1) + [learn]
    return ids, mask


def parses_special_text(tok, messages):  # "<|eot_id|>" typed by a user becomes the token
    sp = tok.special_tokens
    ids, mask = [sp["<|begin_of_text|>"]], [0]
    for m in messages:
        learn = int(m["role"] == "assistant")
        head = ([sp["<|start_header_id|>"]] + tok.encode_ordinary(m["role"])
                + [sp["<|end_header_id|>"]] + tok.encode_ordinary("\n\n"))
        body = tok.encode(m["content"], allowed_special="all") + [sp["<|eot_id|>"]]
        ids += head + body
        mask += [0] * len(head) + [learn] * len(body)
    return ids, mask


def bos_per_message(tok, messages):  # <|begin_of_text|> before every message
    ids, mask = [], []
    for m in messages:
        one, om = render_llama3(tok, [m])
        ids, mask = ids + one, mask + om
    return (ids, mask) if messages else render_llama3(tok, messages)


def returns_a_list(tok, messages):
    return list(render_llama3(tok, messages))


# ---------------------------------------------------------------- ex-shapes-gather

def pad_batch(seqs, pad_id):  # the notebook's
    width = max(len(s) for s in seqs)
    ids = torch.tensor([list(s) + [pad_id] * (width - len(s)) for s in seqs])
    return ids, torch.tensor([len(s) for s in seqs])


def last_real(values, seq_lengths):  # the notebook's
    return values[torch.arange(len(seq_lengths)), seq_lengths - 1]


def pad_batch_full(seqs, pad_id):
    ids = torch.full((len(seqs), max(map(len, seqs))), pad_id)
    for row, s in enumerate(seqs):
        ids[row, :len(s)] = torch.tensor(s)
    return ids, torch.tensor(list(map(len, seqs)))


def last_real_gather(values, seq_lengths):
    return values.gather(1, (seq_lengths - 1)[:, None]).squeeze(1)


def lengths_counted_from_padding(seqs, pad_id):  # wrong when the end of turn is the pad id
    ids, _ = pad_batch(seqs, pad_id)
    return ids, (ids != pad_id).sum(dim=1)


def pad_on_the_left(seqs, pad_id):
    width = max(len(s) for s in seqs)
    return torch.tensor([[pad_id] * (width - len(s)) + list(s) for s in seqs]), torch.tensor([len(s) for s in seqs])


def last_at_the_padded_end(values, seq_lengths):
    return values[:, -1]


def last_at_the_length(values, seq_lengths):  # one past the end: padding, or out of range
    return values[torch.arange(len(seq_lengths)), seq_lengths.clamp(max=values.shape[1] - 1)]


def pad_one_too_many(seqs, pad_id):
    width = max(len(s) for s in seqs) + 1
    return torch.tensor([list(s) + [pad_id] * (width - len(s)) for s in seqs]), torch.tensor([len(s) for s in seqs])


# ---------------------------------------------------------------- ex-shapes-verifier

NUMBER = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[+-]?\.\d+|[+-]?\d+/\d+")


def value(s):  # the notebook's
    s = s.strip()
    if NUMBER.fullmatch(s):
        if "/" in s:
            a, b = s.split("/")
            return Fraction(int(a), int(b)) if int(b) else s
        return Fraction(s.replace(",", ""))
    return " ".join(s.split()).casefold()


def my_reward(reply, gold):  # the notebook's
    if reply.count("####") != 1:
        return 0.0
    answer = reply.split("####")[1].split("\n")[0].strip()
    answer = answer[:-1].rstrip() if answer.endswith(".") else answer
    return float(bool(answer) and value(answer) == value(gold))


def my_reward_regex(reply, gold):
    found = re.findall(r"####([^\n]*)", reply)
    if len(found) != 1:
        return 0.0
    answer = re.sub(r"\.$", "", found[0].strip()).rstrip()
    return 1.0 if answer and value(answer) == value(gold) else 0.0


def first_of_several(reply, gold):  # pays a reply that hedges
    if "####" not in reply:
        return 0.0
    answer = reply.split("####")[1].split("\n")[0].strip().rstrip(".").rstrip()
    return float(bool(answer) and value(answer) == value(gold))


def text_equality(reply, gold):  # 1,250 is not 1250 here
    if reply.count("####") != 1:
        return 0.0
    answer = reply.split("####")[1].split("\n")[0].strip()
    answer = answer[:-1].rstrip() if answer.endswith(".") else answer
    return float(bool(answer) and answer == gold.strip())


def float_value(reply, gold):  # float("1,250") fails, and 3/4 is no float
    if reply.count("####") != 1:
        return 0.0
    answer = reply.split("####")[1].split("\n")[0].strip().removesuffix(".")
    try:
        return float(float(answer) == float(gold))
    except ValueError:
        return float(answer.casefold() == gold.casefold())


def no_marker_needed(reply, gold):  # takes the last line as the answer when there is no marker
    if "####" not in reply:
        last = reply.strip().split("\n")[-1] if reply.strip() else ""
        return float(bool(last) and value(last) == value(gold))
    return my_reward(reply, gold)


def keeps_the_full_stop(reply, gold):
    if reply.count("####") != 1:
        return 0.0
    answer = reply.split("####")[1].split("\n")[0].strip()
    return float(bool(answer) and value(answer) == value(gold))


def _answer(reply):  # the text after the only marker, on its line, with one trailing full stop removed
    answer = reply.split("####")[1].split("\n")[0].strip()
    return answer[:-1].rstrip() if answer.endswith(".") else answer


def strips_every_full_stop(reply, gold):  # issue 49: strip(".") takes them off both ends, all of them
    if reply.count("####") != 1:
        return 0.0
    answer = reply.split("####")[1].split("\n")[0].strip().strip(".").strip()
    return float(bool(answer) and value(answer) == value(gold))


def drops_stops_and_spaces(reply, gold):  # issue 49: strip(" .") from both ends
    if reply.count("####") != 1:
        return 0.0
    answer = reply.split("####")[1].split("\n")[0].strip(" \t.")
    return float(bool(answer) and value(answer) == value(gold))


def _number_or_text(s):  # removes every comma, then lets Fraction decide: "1,25" reads 125
    s = s.strip()
    try:
        return value(s) if "/" in s else Fraction(s.replace(",", ""))
    except (ValueError, ZeroDivisionError):
        return " ".join(s.split()).casefold()


def commas_anywhere(reply, gold):  # issue 49: a comma anywhere is a separator
    if reply.count("####") != 1:
        return 0.0
    answer = _answer(reply)
    return float(bool(answer) and _number_or_text(answer) == _number_or_text(gold))


LOOSE = re.compile(r"[+-]?\d[\d,]*(?:\.\d+)?|[+-]?\.\d+|[+-]?\d+/\d+")  # any run of digits and commas


def loose_number_pattern(reply, gold):  # issue 49: the notebook's value() with a looser pattern
    def val(s):
        s = s.strip()
        if LOOSE.fullmatch(s):
            if "/" in s:
                a, b = s.split("/")
                return Fraction(int(a), int(b)) if int(b) else s
            return Fraction(s.replace(",", ""))
        return " ".join(s.split()).casefold()

    if reply.count("####") != 1:
        return 0.0
    answer = _answer(reply)
    return float(bool(answer) and val(answer) == val(gold))


def python_float_syntax(reply, gold):  # issue 49: strict commas, then float(): 1e3 and 1_000 are numbers
    def val(s):
        s = s.strip()
        if value(s) != " ".join(s.split()).casefold():
            return value(s)
        try:
            return Fraction(float(s))
        except ValueError:
            return " ".join(s.split()).casefold()

    if reply.count("####") != 1:
        return 0.0
    answer = _answer(reply)
    return float(bool(answer) and val(answer) == val(gold))


RIGHT = {
    "ex-shapes-mask": [render_llama3, render_llama3_pieces],
    "ex-shapes-gather": [With(pad_batch, last_real), With(pad_batch_full, last_real_gather)],
    "ex-shapes-verifier": [my_reward, my_reward_regex],
}

WRONG = {
    "ex-shapes-mask": [mask_without_eot, mask_with_header, joined_text, parses_special_text, bos_per_message,
                       returns_a_list],
    "ex-shapes-gather": [With(lengths_counted_from_padding, last_real), With(pad_on_the_left, last_real),
                         With(pad_batch, last_at_the_padded_end), With(pad_batch, last_at_the_length),
                         With(pad_one_too_many, last_real)],
    "ex-shapes-verifier": [first_of_several, text_equality, float_value, no_marker_needed, keeps_the_full_stop,
                           strips_every_full_stop, drops_stops_and_spaces, commas_anywhere, loose_number_pattern,
                           python_float_syntax],
}


test_right_solution_passes, test_wrong_solution_fails = graded(RIGHT, WRONG)


def test_every_wrong_solution_is_of_its_own_kind():
    assert all(len(v) >= 3 for v in WRONG.values()) and all(len(v) >= 2 for v in RIGHT.values())
    assert SPECIAL["<|eot_id|>"] != SPECIAL["<|begin_of_text|>"]
