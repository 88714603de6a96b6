"""The checks of *Troubleshooting* pass right solutions and reject plausible wrong ones."""

from _wrong import graded


def _ids(tok, text):
    return tok.encode(text, allowed_special="all")


# ---------------------------------------------------------------- ex-trouble-fingerprint

def same_ids(tok_a, tok_b, texts):  # the notebook's
    if tok_a.vocab != tok_b.vocab:
        return False
    if tok_a.special_tokens != tok_b.special_tokens:
        return False
    return all(_ids(tok_a, t) == _ids(tok_b, t) for t in texts)


def same_ids_by_decoding(tok_a, tok_b, texts):  # right: each id's bytes, both ways, then the ids
    ids = set(tok_a.vocab) | set(tok_b.vocab)
    if any(tok_a.vocab.get(i) != tok_b.vocab.get(i) for i in ids):
        return False
    if sorted(tok_a.special_tokens.items()) != sorted(tok_b.special_tokens.items()):
        return False
    for t in texts:
        if _ids(tok_a, t) != _ids(tok_b, t):
            return False
    return True


def same_ids_vocab_only(tok_a, tok_b, texts):  # never encodes: misses another split pattern
    return tok_a.vocab == tok_b.vocab and tok_a.special_tokens == tok_b.special_tokens


def same_ids_probes_only(tok_a, tok_b, texts):  # never compares the vocabularies
    return all(_ids(tok_a, t) == _ids(tok_b, t) for t in texts)


def same_ids_ordinary_only(tok_a, tok_b, texts):  # special tokens ignored: other id for <|endoftext|> passes
    return tok_a.vocab == tok_b.vocab and all(tok_a.encode_ordinary(t) == tok_b.encode_ordinary(t) for t in texts)


def same_ids_first_text(tok_a, tok_b, texts):  # probes only the first text
    return same_ids(tok_a, tok_b, texts[:1])


def same_ids_one_way(tok_a, tok_b, texts):  # every id of tok_a in tok_b, but not the other way
    return (all(tok_b.vocab.get(i) == b for i, b in tok_a.vocab.items())
            and tok_a.special_tokens.items() <= tok_b.special_tokens.items()
            and all(_ids(tok_a, t) == _ids(tok_b, t) for t in texts))


def same_ids_subset_of_items(tok_a, tok_b, texts):  # issue 49: tok_a's (id, bytes) within tok_b's, not back
    return (set(tok_a.vocab.items()) <= set(tok_b.vocab.items()) and tok_a.special_tokens == tok_b.special_tokens
            and all(_ids(tok_a, t) == _ids(tok_b, t) for t in texts))


def same_ids_b_looked_up_in_a(tok_a, tok_b, texts):  # issue 49: every id of tok_b found in tok_a, not back
    return (all(tok_a.vocab.get(i) == t for i, t in tok_b.vocab.items())
            and tok_a.special_tokens == tok_b.special_tokens
            and all(_ids(tok_a, t) == _ids(tok_b, t) for t in texts))


def same_ids_loops_over_a(tok_a, tok_b, texts):  # issue 49: a loop over tok_a's ids, the first mismatch
    for i, t in tok_a.vocab.items():
        if tok_b.vocab.get(i) != t:
            return False
    return dict(tok_a.special_tokens) == dict(tok_b.special_tokens) and all(
        _ids(tok_a, t) == _ids(tok_b, t) for t in texts)


def same_ids_default_encode(tok_a, tok_b, texts):  # plain encode: raises on <|endoftext|>
    return tok_a.vocab == tok_b.vocab and all(tok_a.encode(t) == tok_b.encode(t) for t in texts)


def same_ids_as_int(tok_a, tok_b, texts):  # 1 or 0, not True or False
    return int(same_ids(tok_a, tok_b, texts))


# ---------------------------------------------------------------- ex-trouble-first-id

def first_disagreement(tok_a, tok_b, text):  # the notebook's
    a, b = _ids(tok_a, text), _ids(tok_b, text)
    if a == b:
        return None
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    return k, len(tok_a.decode_bytes(a[:k]))


def first_disagreement_by_offsets(tok_a, tok_b, text):  # right: a running byte offset
    a, b = _ids(tok_a, text), _ids(tok_b, text)
    offset = 0
    for k in range(max(len(a), len(b))):
        if k >= len(a) or k >= len(b) or a[k] != b[k]:
            return k, offset
        offset += len(tok_a.decode_bytes([a[k]]))
    return None


def first_disagreement_zip(tok_a, tok_b, text):  # zip stops at the shorter list: a prefix gives None
    a, b = _ids(tok_a, text), _ids(tok_b, text)
    for k, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return k, len(tok_a.decode_bytes(a[:k]))
    return None


def first_disagreement_chars(tok_a, tok_b, text):  # counts characters where bytes are meant
    found = first_disagreement(tok_a, tok_b, text)
    if found is None:
        return None
    k = found[0]
    return k, len(tok_a.decode(_ids(tok_a, text)[:k]))


def first_disagreement_b_bytes(tok_a, tok_b, text):  # measures the offset in tok_b's tokens
    found = first_disagreement(tok_a, tok_b, text)
    return found and (found[0], len(tok_b.decode_bytes(_ids(tok_b, text)[:found[0]])))


def first_disagreement_last_agreeing(tok_a, tok_b, text):  # off by one: the last id that agrees
    found = first_disagreement(tok_a, tok_b, text)
    return found and (found[0] - 1, found[1])


def first_disagreement_ordinary(tok_a, tok_b, text):  # encode_ordinary: special tokens read as text
    a, b = tok_a.encode_ordinary(text), tok_b.encode_ordinary(text)
    if a == b:
        return None
    k = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return k, len(tok_a.decode_bytes(a[:k]))


def first_disagreement_via_text(tok_a, tok_b, text):  # decodes to str and back: a cut character grows to 3 bytes
    found = first_disagreement(tok_a, tok_b, text)
    return found and (found[0], len(tok_a.decode(_ids(tok_a, text)[:found[0]]).encode("utf-8")))


def first_disagreement_list(tok_a, tok_b, text):  # a list, not a tuple
    found = first_disagreement(tok_a, tok_b, text)
    return None if found is None else list(found)


# ---------------------------------------------------------------- ex-trouble-padding

def pad_length(n, T, stride):  # the notebook's
    if n <= T + 1:
        return T + 1 - n
    return (-(n - (T + 1))) % stride


def pad_length_by_search(n, T, stride):  # right: add EOS until the last window reaches n - 1
    p = 0
    while True:
        windows = max(0, 1 + (n + p - (T + 1)) // stride)
        if windows and (windows - 1) * stride + T >= n - 1:
            return p
        p += 1


def pad_to_multiple_of_stride(n, T, stride):  # pads n, not n - (T + 1)
    return (-n) % stride


def pad_one_window_too_many(n, T, stride):  # a whole stride extra when already aligned
    return pad_length(n, T, stride) + (stride if n > T + 1 and (n - T - 1) % stride == 0 else 0)


def pad_forgets_short_streams(n, T, stride):  # a stream shorter than one window gets no window
    return (-(n - (T + 1))) % stride


def pad_window_of_T(n, T, stride):  # windows of T ids, not T + 1
    if n <= T:
        return T - n
    return (-(n - T)) % stride


def pad_as_float(n, T, stride):  # right count, as a float
    return float(pad_length(n, T, stride))


RIGHT = {
    "ex-trouble-fingerprint": [same_ids, same_ids_by_decoding],
    "ex-trouble-first-id": [first_disagreement, first_disagreement_by_offsets],
    "ex-trouble-padding": [pad_length, pad_length_by_search],
}
WRONG = {
    "ex-trouble-fingerprint": [same_ids_vocab_only, same_ids_probes_only, same_ids_ordinary_only,
                               same_ids_first_text, same_ids_one_way, same_ids_default_encode, same_ids_as_int,
                               same_ids_subset_of_items, same_ids_b_looked_up_in_a, same_ids_loops_over_a],
    "ex-trouble-first-id": [first_disagreement_zip, first_disagreement_chars, first_disagreement_b_bytes,
                            first_disagreement_last_agreeing, first_disagreement_ordinary, first_disagreement_via_text,
                            first_disagreement_list],
    "ex-trouble-padding": [pad_to_multiple_of_stride, pad_one_window_too_many, pad_forgets_short_streams,
                           pad_window_of_T, pad_as_float],
}


test_right_solution_passes, test_wrong_solution_fails = graded(RIGHT, WRONG)
