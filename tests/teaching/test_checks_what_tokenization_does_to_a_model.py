"""The checks of "What tokenization does to a model" pass right solutions written two ways and
reject plausible wrong ones, each failing in a few lines that name the exercise."""

import bisect

import pytest
import regex

from _wrong import right_cases, run_right, run_wrong, wrong_cases
from bpe_lesson.ranks import byte_pair_merge

# ---------------------------------------------------------------- ex-tok-healing

def extensions(tok, prompt):  # the notebook's
    last = tok.decode_bytes(tok.encode(prompt)[-1:])
    return [i for i, t in tok.vocab.items() if t.startswith(last) and len(t) > len(last)]


def extensions_by_id(tok, prompt):  # right: the last id, then a set of the longer tokens
    last_id = tok.encode(prompt)[-1]
    last = tok.vocab[last_id]
    return {i for i, t in tok.vocab.items() if i != last_id and t[:len(last)] == last}


def healing_with_itself(tok, prompt):  # keeps the last token itself among its extensions
    last = tok.decode_bytes(tok.encode(prompt)[-1:])
    return [i for i, t in tok.vocab.items() if t.startswith(last)]


def healing_last_character(tok, prompt):  # extends the last character, not the last token
    last = prompt[-1:].encode()
    return [i for i, t in tok.vocab.items() if t.startswith(last) and len(t) > len(last)]


def healing_stripped(tok, prompt):  # strips the prompt's trailing whitespace first
    last = tok.decode_bytes(tok.encode(prompt.rstrip() or prompt)[-1:])
    return [i for i, t in tok.vocab.items() if t.startswith(last) and len(t) > len(last)]


def healing_decoded(tok, prompt):  # the last token as text: a token that ends inside a character becomes '\ufffd'
    last = tok.decode(tok.encode(prompt)[-1:]).encode()
    return [i for i, t in tok.vocab.items() if t.startswith(last) and len(t) > len(last)]


def healing_last_chunk(tok, prompt):  # the last chunk of the split, which may be several tokens
    last = regex.findall(tok.pattern, prompt)[-1].encode()
    return [i for i, t in tok.vocab.items() if t.startswith(last) and len(t) > len(last)]


def healing_bytes(tok, prompt):  # the tokens' bytes, not their ids
    last = tok.decode_bytes(tok.encode(prompt)[-1:])
    return [t for t in tok.vocab.values() if t.startswith(last) and len(t) > len(last)]


# ---------------------------------------------------------------- ex-tok-digits

def digit_groups(digits):  # the notebook's
    return [digits[i:i + 3] for i in range(0, len(digits), 3)]


def digits_regex(digits):  # right: the pattern's own alternative
    return regex.findall(r"\d{1,3}", digits)


def digits_from_the_right(digits):  # thousands separators: 1|234|567
    head = len(digits) % 3
    return ([digits[:head]] if head else []) + [digits[i:i + 3] for i in range(head, len(digits), 3)]


def digits_one_by_one(digits):  # Llama 2's rule, not GPT-4's
    return list(digits)


def digits_groups_of_four(digits):  # groups of four, as some languages write large numbers
    return [digits[i:i + 4] for i in range(0, len(digits), 4)]


def digits_drop_the_rest(digits):  # off by one: the last, shorter group is lost
    return [digits[i:i + 3] for i in range(0, len(digits) - 2, 3)]


def digits_joined(digits):  # the cut as one string, 123|456|7
    return "|".join(digit_groups(digits))


# ---------------------------------------------------------------- ex-tok-letters

def letter_tokens(tok, text, letter):  # the notebook's
    ids = tok.encode(text)
    starts, at = [], 0
    for i in ids:
        starts.append(at)
        at += len(tok.decode_bytes([i]))
    raw, needle, out = text.encode(), letter.encode(), []
    pos = raw.find(needle)
    while pos >= 0:
        out.append(max(k for k, s in enumerate(starts) if s <= pos))
        pos = raw.find(needle, pos + len(needle))
    return out


def letters_by_ends(tok, text, letter):  # right: walk the tokens, the byte offsets where each one ends
    ends, at = [], 0
    for i in tok.encode(text):
        at += len(tok.decode_bytes([i]))
        ends.append(at)
    offsets = [m.start() for m in regex.finditer(regex.escape(letter.encode()), text.encode())]
    return [bisect.bisect_right(ends, pos) for pos in offsets]


def letters_once_per_token(tok, text, letter):  # a token with two r's counted once
    ids = tok.encode(text)
    return [k for k, i in enumerate(ids) if letter.encode() in tok.decode_bytes([i])]


def letters_decoded_per_token(tok, text, letter):  # decodes each token alone: loses split characters
    out = []
    for k, i in enumerate(tok.encode(text)):
        out += [k] * tok.decode([i]).count(letter)
    return out


def letters_character_offsets(tok, text, letter):  # counts characters where it should count bytes
    starts, at = [], 0
    for i in tok.encode(text):
        starts.append(at)
        at += len(tok.decode([i]))
    return [max([k for k, s in enumerate(starts) if s <= pos] or [0]) for pos, c in enumerate(text) if c == letter]


def letters_bisect_left(tok, text, letter):  # off by one inside a token: bisect_left finds the next token
    starts, at = [], 0
    for i in tok.encode(text):
        starts.append(at)
        at += len(tok.decode_bytes([i]))
    return [bisect.bisect_left(starts, m.start()) for m in regex.finditer(regex.escape(letter.encode()),
                                                                          text.encode())]


# ---------------------------------------------------------------- ex-tok-premium

def premium(tok, texts):  # the notebook's
    english = len(tok.encode(texts["English"]))
    return {lang: len(tok.encode(t)) / english for lang, t in texts.items()}


def premium_batch(tok, texts):  # right: one batch call, then the ratios
    counts = dict(zip(texts, map(len, tok.encode_batch(list(texts.values())))))
    return {lang: n / counts["English"] for lang, n in counts.items()}


def premium_bytes(tok, texts):  # the ratio of bytes, not tokens
    base = len(texts["English"].encode())
    return {lang: len(t.encode()) / base for lang, t in texts.items()}


def premium_inverted(tok, texts):  # English over the language
    base = len(tok.encode(texts["English"]))
    return {lang: base / max(len(tok.encode(t)), 1) for lang, t in texts.items()}


def premium_characters(tok, texts):  # tokens per character, relative to English
    per = {lang: len(tok.encode(t)) / max(len(t), 1) for lang, t in texts.items()}
    return {lang: v / per["English"] for lang, v in per.items()}


def premium_without_english(tok, texts):  # leaves English (always 1.0) out
    return {lang: v for lang, v in premium(tok, texts).items() if lang != "English"}


def premium_rounded(tok, texts):  # rounds to two places, as the chapter's table prints
    return {lang: round(v, 2) for lang, v in premium(tok, texts).items()}


def premium_words(tok, texts):  # words for tokens
    base = len(texts["English"].split())
    return {lang: len(t.split()) / base for lang, t in texts.items()}


# ---------------------------------------------------------------- ex-tok-unreachable

def unreachable(ranks):  # the notebook's: the loop written out
    lost = []
    for token in ranks:
        parts = [bytes([b]) for b in token]
        while len(parts) > 1:
            joined = [ranks.get(a + b, float("inf")) for a, b in zip(parts, parts[1:])]
            if min(joined) == float("inf"):
                break
            k = joined.index(min(joined))
            parts[k:k + 2] = [parts[k] + parts[k + 1]]
        if len(parts) > 1:
            lost.append(token)
    return lost


def unreachable_by_package(ranks):  # right: the package's loop, byte_pair_merge, as a set
    return {t for t in ranks if len(t) > 1 and byte_pair_merge(t, ranks) != [t]}


def unreachable_first_joinable(ranks):  # joins the leftmost pair that is a token, not the lowest-ranked one
    lost = []
    for token in ranks:
        parts = [bytes([b]) for b in token]
        while True:
            k = next((k for k in range(len(parts) - 1) if parts[k] + parts[k + 1] in ranks), None)
            if k is None:
                break
            parts[k:k + 2] = [parts[k] + parts[k + 1]]
        if len(parts) > 1:
            lost.append(token)
    return lost


def unreachable_pairs_only(ranks):  # joins only single bytes: a token of three or more is never built
    return [t for t in ranks if len(t) > 2 or (len(t) == 2 and t not in ranks)]


def unreachable_with_shortcut(ranks):  # the whole-chunk shortcut makes every token reachable
    return [t for t in ranks if len(t) > 1 and ([t] if t in ranks else byte_pair_merge(t, ranks)) != [t]]


def unreachable_older_parts_only(ranks):  # only lower-ranked tokens may join: no token ever makes itself
    return [t for t, r in ranks.items() if len(t) > 1 and byte_pair_merge(t, ranks, r) != [t]]


def unreachable_any_split(ranks):  # reachable if some split into two tokens exists
    return [t for t in ranks if len(t) > 1 and not any(t[:i] in ranks and t[i:] in ranks for i in range(1, len(t)))]


def unreachable_rightmost_tie(ranks):  # a loop that joins the rightmost of the lowest-ranked pairs
    out = []
    for t in ranks:
        parts = [bytes([b]) for b in t]
        while len(parts) > 1:
            joins = [ranks.get(parts[k] + parts[k + 1], float("inf")) for k in range(len(parts) - 1)]
            if min(joins) == float("inf"):
                break
            k = len(joins) - 1 - joins[::-1].index(min(joins))
            parts[k:k + 2] = [parts[k] + parts[k + 1]]
        if len(t) > 1 and parts != [t]:
            out.append(t)
    return out


def unreachable_ranks(ranks):  # the ranks of the tokens, not their bytes
    return [ranks[t] for t in unreachable(ranks)]


RIGHT = {
    "ex-tok-healing": [extensions, extensions_by_id],
    "ex-tok-digits": [digit_groups, digits_regex],
    "ex-tok-letters": [letter_tokens, letters_by_ends],
    "ex-tok-premium": [premium, premium_batch],
    "ex-tok-unreachable": [unreachable, unreachable_by_package],
}
WRONG = {
    "ex-tok-healing": [healing_with_itself, healing_last_character, healing_stripped, healing_decoded,
                       healing_last_chunk, healing_bytes],
    "ex-tok-digits": [digits_from_the_right, digits_one_by_one, digits_groups_of_four, digits_drop_the_rest,
                      digits_joined],
    "ex-tok-letters": [letters_once_per_token, letters_decoded_per_token, letters_character_offsets,
                       letters_bisect_left],
    "ex-tok-premium": [premium_bytes, premium_inverted, premium_characters, premium_without_english,
                       premium_rounded, premium_words],
    "ex-tok-unreachable": [unreachable_with_shortcut, unreachable_older_parts_only, unreachable_any_split,
                           unreachable_rightmost_tie, unreachable_ranks, unreachable_first_joinable,
                           unreachable_pairs_only],
}


@pytest.mark.parametrize("label, solution", right_cases(RIGHT))
def test_right_solution_passes(label, solution):
    run_right(label, solution, min_generated=200)


@pytest.mark.parametrize("label, solution", wrong_cases(WRONG))
def test_wrong_solution_fails(label, solution):
    run_wrong(label, solution)
