"""The checks of "What tokenization does to a model" pass the reference solutions and fail
plausible wrong ones."""

import regex
import pytest

from bpe_lesson.ranks import byte_pair_merge
from bpe_lesson.teaching.checks import CHECKS


# ---- ex-tok-healing -----------------------------------------------------------------

def healing_right(tok, prompt):
    last = tok.decode_bytes(tok.encode(prompt)[-1:])
    return [i for i, t in tok.vocab.items() if t.startswith(last) and len(t) > len(last)]


def healing_with_itself(tok, prompt):  # keeps the last token itself among its extensions
    last = tok.decode_bytes(tok.encode(prompt)[-1:])
    return [i for i, t in tok.vocab.items() if t.startswith(last)]


def healing_last_character(tok, prompt):  # extends the last character, not the last token
    last = prompt[-1:].encode()
    return [i for i, t in tok.vocab.items() if t.startswith(last) and len(t) > len(last)]


def healing_stripped(tok, prompt):  # strips the prompt's trailing whitespace first
    last = tok.decode_bytes(tok.encode(prompt.rstrip())[-1:])
    return [i for i, t in tok.vocab.items() if t.startswith(last) and len(t) > len(last)]


# ---- ex-tok-digits ------------------------------------------------------------------

def digits_right(digits):
    return regex.findall(r"\d{1,3}", digits)


def digits_from_the_right(digits):  # thousands separators: 1|234|567
    head = len(digits) % 3
    return ([digits[:head]] if head else []) + [digits[i:i + 3] for i in range(head, len(digits), 3)]


def digits_one_by_one(digits):  # Llama 2's rule, not GPT-4's
    return list(digits)


def digits_groups_of_four(digits):
    return [digits[i:i + 4] for i in range(0, len(digits), 4)]


# ---- ex-tok-letters -----------------------------------------------------------------

def letters_right(tok, text, letter):
    ids = tok.encode(text)
    starts, at = [], 0
    for i in ids:
        starts.append(at)
        at += len(tok.decode_bytes([i]))
    raw, needle, out, pos = text.encode(), letter.encode(), [], 0
    while (pos := raw.find(needle, pos)) >= 0:
        out.append(max(k for k, s in enumerate(starts) if s <= pos))
        pos += len(needle)
    return out


def letters_once_per_token(tok, text, letter):  # a token with two r's counted once
    ids = tok.encode(text)
    return [k for k, i in enumerate(ids) if letter.encode() in tok.decode_bytes([i])]


def letters_decoded_per_token(tok, text, letter):  # decodes each token alone: loses split characters
    out = []
    for k, i in enumerate(tok.encode(text)):
        out += [k] * tok.decode([i]).count(letter)
    return out


def letters_character_offsets(tok, text, letter):  # counts characters where it should count bytes
    ids = tok.encode(text)
    starts, at = [], 0
    for i in ids:
        starts.append(at)
        at += len(tok.decode([i]))
    return [max(k for k, s in enumerate(starts) if s <= pos) for pos, c in enumerate(text) if c == letter]


# ---- ex-tok-premium -----------------------------------------------------------------

def premium_right(tok, texts):
    base = len(tok.encode(texts["English"]))
    return {lang: len(tok.encode(t)) / base for lang, t in texts.items()}


def premium_bytes(tok, texts):  # the ratio of bytes, not tokens
    base = len(texts["English"].encode())
    return {lang: len(t.encode()) / base for lang, t in texts.items()}


def premium_inverted(tok, texts):  # English over the language
    base = len(tok.encode(texts["English"]))
    return {lang: base / len(tok.encode(t)) for lang, t in texts.items()}


def premium_characters(tok, texts):  # tokens per character, relative to English
    per = {lang: len(tok.encode(t)) / len(t) for lang, t in texts.items()}
    return {lang: v / per["English"] for lang, v in per.items()}


# ---- ex-tok-unreachable -------------------------------------------------------------

def unreachable_right(ranks):
    return [t for t in ranks if len(t) > 1 and byte_pair_merge(t, ranks) != [t]]


def unreachable_with_shortcut(ranks):  # the whole-chunk shortcut makes every token reachable
    return [t for t in ranks if len(t) > 1 and ([t] if t in ranks else byte_pair_merge(t, ranks)) != [t]]


def unreachable_older_parts_only(ranks):  # only lower-ranked tokens may build a token
    return [t for t, r in ranks.items() if len(t) > 1 and byte_pair_merge(t, ranks, r) != [t]]


def unreachable_any_split(ranks):  # reachable if some split into two tokens exists
    return [t for t in ranks if len(t) > 1 and not any(t[:i] in ranks and t[i:] in ranks for i in range(1, len(t)))]


RIGHT = {"ex-tok-healing": healing_right, "ex-tok-digits": digits_right, "ex-tok-letters": letters_right,
         "ex-tok-premium": premium_right, "ex-tok-unreachable": unreachable_right}
WRONG = {
    "ex-tok-healing": [healing_with_itself, healing_last_character, healing_stripped],
    "ex-tok-digits": [digits_from_the_right, digits_one_by_one, digits_groups_of_four],
    "ex-tok-letters": [letters_once_per_token, letters_decoded_per_token, letters_character_offsets],
    "ex-tok-premium": [premium_bytes, premium_inverted, premium_characters],
    "ex-tok-unreachable": [unreachable_with_shortcut, unreachable_older_parts_only, unreachable_any_split],
}


@pytest.mark.parametrize("label", sorted(RIGHT))
def test_right_solution_passes(label):
    CHECKS[label](RIGHT[label])


@pytest.mark.parametrize("label,wrong", [(label, w) for label, ws in WRONG.items() for w in ws],
                         ids=lambda x: getattr(x, "__name__", x))
def test_wrong_solution_fails(label, wrong):
    with pytest.raises(AssertionError):
        CHECKS[label](wrong)
