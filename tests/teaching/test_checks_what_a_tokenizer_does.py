"""The checks of "What a tokenizer does" pass right solutions and catch plausible wrong ones."""

import codecs
import functools


from _wrong import With, graded, run_wrong


# ---------------------------------------------------------------- ex-tokenizer-utf8

def utf8(cp):  # the notebook's solution
    if cp < 0x80:
        return bytes([cp])
    k = 2 if cp < 0x800 else 3 if cp < 0x10000 else 4  # bytes needed
    # each further byte: 10, then 6 bits of cp, the highest bits first
    tail = [0x80 | (cp >> 6 * j) & 0x3F for j in range(k - 2, -1, -1)]
    # the lead byte: k ones, a zero, then the top bits of cp
    lead = (0xFF << (8 - k)) & 0xFF | cp >> 6 * (k - 1)
    return bytes([lead] + tail)


def utf8_by_rows(cp):  # one branch per row of the table, into a bytearray
    out = bytearray()
    if cp < 0x80:
        out.append(cp)
    elif cp < 0x800:
        out += bytes([0xC0 | cp >> 6, 0x80 | cp & 0x3F])
    elif cp < 0x10000:
        out += bytes([0xE0 | cp >> 12, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F])
    else:
        out += bytes([0xF0 | cp >> 18, 0x80 | cp >> 12 & 0x3F, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F])
    return out


def utf8_little_endian(cp):  # the bytes in the wrong order
    return utf8(cp)[::-1]


def utf8_off_by_one(cp):  # U+0080 still one byte (<= where < is meant)
    return bytes([cp]) if cp <= 0x80 else utf8(cp)


def utf8_off_by_one_at_4_bytes(cp):  # U+10000 still three bytes
    if cp == 0x10000:
        return bytes([0xE0 | (cp >> 12) & 0x0F, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F])
    return utf8(cp)


def utf8_latin1(cp):  # one byte for everything below 256, as Latin-1 does
    return bytes([cp]) if cp < 0x100 else utf8(cp)


def utf8_no_markers(cp):  # forgets the 10xxxxxx marker of the continuation bytes
    b = utf8(cp)
    return b[:1] + bytes(x & 0x3F for x in b[1:])


def utf8_list(cp):  # the right numbers, but a list, not bytes
    return list(utf8(cp))


# ---------------------------------------------------------------- ex-tokenizer-decode

def decode(ids, vocab):  # the notebook's solution
    # all the bytes first: a token may end inside a character
    data = b"".join(vocab[i] for i in ids)
    return data.decode("utf-8", errors="replace")


def decode_codecs(ids, vocab):  # the same through the codecs module, bytes gathered in a bytearray
    data = bytearray()
    for i in ids:
        data += vocab[i]
    return codecs.decode(bytes(data), "utf-8", "replace")


def decode_incremental(ids, vocab):  # token by token through an incremental decoder
    return "".join(codecs.iterdecode((vocab[i] for i in ids), "utf-8", errors="replace"))


def decode_strip(ids, vocab):  # tidies the text: spaces and line breaks at the ends vanish
    return decode(ids, vocab).strip()


def decode_each_token(ids, vocab):  # token by token: breaks a character split across tokens
    return "".join(vocab[i].decode("utf-8", errors="replace") for i in ids)


def decode_strict(ids, vocab):  # raises on bytes that are not UTF-8
    return b"".join(vocab[i] for i in ids).decode("utf-8")


def decode_ignore(ids, vocab):  # drops bad bytes silently
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="ignore")


def decode_ids_as_bytes(ids, vocab):  # ids are not bytes: ignores the vocabulary
    return bytes(ids).decode("utf-8", errors="replace")


def decode_latin1_fallback(ids, vocab):  # reads bad UTF-8 as Latin-1 instead of U+FFFD
    data = b"".join(vocab[i] for i in ids)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def decode_fffd_per_byte(ids, vocab):  # one U+FFFD per bad byte, not per bad sequence
    text = b"".join(vocab[i] for i in ids).decode("utf-8", errors="surrogateescape")
    return "".join("\ufffd" if "\udc80" <= ch <= "\udcff" else ch for ch in text)


def decode_bytes(ids, vocab):  # stops at the bytes
    return b"".join(vocab[i] for i in ids)


# ---------------------------------------------------------------- ex-tokenizer-fewest

def fewest_tokens(data, tokens):  # the notebook's solution
    longest = max(map(len, tokens))
    best = [0] + [None] * len(data)  # best[k]: fewest tokens for data[:k]
    for k in range(1, len(data) + 1):
        options = [best[j] + 1 for j in range(max(0, k - longest), k)
                   if best[j] is not None and data[j:k] in tokens]
        best[k] = min(options)  # never empty: data[k-1] alone is a token
    return best[len(data)]


def fewest_memo(data, tokens):  # from the left, a recursion with a memo
    @functools.lru_cache(maxsize=None)
    def rest(i):  # the fewest tokens that spell data[i:]
        if i == len(data):
            return 0
        return min(1 + rest(j) for j in range(i + 1, len(data) + 1) if data[i:j] in tokens)
    return rest(0)


def fewest_forward(data, tokens):  # pushes each best answer forward over every token that starts there
    inf = float("inf")
    best = [0] + [inf] * len(data)
    for i in range(len(data)):
        for t in tokens:
            if data.startswith(t, i) and best[i] + 1 < best[i + len(t)]:
                best[i + len(t)] = best[i] + 1
    return best[-1]


def fewest_greedy(data, tokens):  # longest match first: not always the fewest
    n, i = 0, 0
    while i < len(data):
        j = max(k for k in range(i + 1, len(data) + 1) if data[i:k] in tokens)
        n, i = n + 1, j
    return n


def _look_back(data, tokens, width):
    best = [0] + [len(data)] * len(data)
    for k in range(1, len(data) + 1):
        for j in range(max(0, k - width), k):
            if data[j:k] in tokens:
                best[k] = min(best[k], best[j] + 1)
    return best[len(data)]


def fewest_greedy_from_the_right(data, tokens):  # the longest token that ends here, from the end
    n, k = 0, len(data)
    while k > 0:
        k = min(j for j in range(k) if data[j:k] in tokens)
        n += 1
    return n


def fewest_look_back_4(data, tokens):  # a fixed 4-byte look-back: misses longer tokens
    return _look_back(data, tokens, 4)


def fewest_look_back_8(data, tokens):  # a fixed 8-byte look-back
    return _look_back(data, tokens, 8)


def fewest_look_back_short_by_one(data, tokens):  # range(k - longest + 1, k): never the longest token
    return _look_back(data, tokens, max(map(len, tokens)) - 1)


def fewest_characters(data, tokens):  # works on characters: a token that cuts one never fits
    text = data.decode("utf-8", errors="replace")
    pieces = {t.decode("utf-8", errors="replace") for t in tokens}
    best = [0] + [len(text)] * len(text)
    for k in range(1, len(text) + 1):
        for j in range(k):
            if text[j:k] in pieces:
                best[k] = min(best[k], best[j] + 1)
    return best[len(text)]


def fewest_no_memo(data, tokens):  # a recursion without a memo: exponential
    if not data:
        return 0
    return min(1 + fewest_no_memo(data[m:], tokens) for m in range(1, len(data) + 1) if data[:m] in tokens)


def fewest_segmentation(data, tokens):  # returns the tokens, not how many
    out, i = [], 0
    while i < len(data):
        j = max(k for k in range(i + 1, len(data) + 1) if data[i:k] in tokens)
        out.append(data[i:j])
        i = j
    return out


RIGHT = {
    "ex-tokenizer-utf8": [utf8, utf8_by_rows],
    "ex-tokenizer-decode": [decode, decode_codecs, decode_incremental],
    "ex-tokenizer-fewest": [fewest_tokens, fewest_memo, fewest_forward],
}
WRONG = {
    "ex-tokenizer-utf8": [utf8_little_endian, utf8_off_by_one, utf8_off_by_one_at_4_bytes, utf8_latin1,
                          utf8_no_markers, utf8_list],
    "ex-tokenizer-decode": [decode_each_token, decode_strict, decode_ignore, decode_ids_as_bytes,
                            decode_latin1_fallback, decode_fffd_per_byte, decode_bytes, decode_strip],
    "ex-tokenizer-fewest": [fewest_greedy, fewest_greedy_from_the_right, fewest_look_back_4, fewest_look_back_8,
                            fewest_look_back_short_by_one, fewest_characters,
                            With(fewest_no_memo, time_limit=2), fewest_segmentation],
}


test_right_solution_passes, test_wrong_solution_fails = graded(RIGHT, WRONG)


def test_a_search_without_a_memo_is_called_too_slow():
    message = run_wrong("ex-tokenizer-fewest", With(fewest_no_memo, time_limit=1))
    assert "too slow" in message


def test_a_fixed_look_back_fails_on_a_long_token():
    message = run_wrong("ex-tokenizer-fewest", fewest_look_back_4)
    assert "expected" in message and "up to the longest one" in message


def test_characters_for_bytes_are_told_to_count_bytes():
    message = run_wrong("ex-tokenizer-fewest", fewest_characters)
    assert "bytes, not characters" in message
