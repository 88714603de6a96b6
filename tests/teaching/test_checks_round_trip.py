"""The checks of *Round trip through tiktoken* pass right solutions and reject plausible wrong ones."""

import base64
import binascii
import re

import pytest
import regex
from _wrong import With, graded, run_right, run_wrong

from bpe_lesson.teaching.checks import _reference
from bpe_lesson.teaching.checks.round_trip_capstone import small_tokenizer


# ---- ex-tiktoken-write
def dumps_ranks(vocab):  # the notebook's
    lines = [base64.b64encode(vocab[i]) + b" " + str(i).encode() + b"\n" for i in sorted(vocab)]
    return b"".join(lines)


def dumps_ranks_by_items(vocab):  # right, written differently
    out = bytearray()
    for i, token in sorted(vocab.items(), key=lambda kv: kv[0]):
        out += b"%s %d\n" % (base64.standard_b64encode(token), i)
    return bytes(out)


def dumps_urlsafe(vocab):  # '-' and '_' for '+' and '/': tiktoken reads other bytes
    return b"".join(base64.urlsafe_b64encode(vocab[i]) + b" %d\n" % i for i in sorted(vocab))


def dumps_dict_order(vocab):  # lines in the dict's order, not rank order
    return b"".join(base64.b64encode(t) + b" %d\n" % i for i, t in vocab.items())


def dumps_ids_as_strings(vocab):  # sorted as text: "10" before "9"
    return b"".join(base64.b64encode(vocab[int(i)]) + b" " + i.encode() + b"\n" for i in sorted(map(str, vocab)))


def dumps_no_last_newline(vocab):  # lines joined by newlines: the last one has none
    return b"\n".join(base64.b64encode(vocab[i]) + b" %d" % i for i in sorted(vocab))


def dumps_crlf(vocab):  # Windows line ends
    return b"".join(base64.b64encode(vocab[i]) + b" %d\r\n" % i for i in sorted(vocab))


def dumps_no_padding(vocab):  # strips the '=' padding: tiktoken cannot decode the line
    return b"".join(base64.b64encode(vocab[i]).rstrip(b"=") + b" %d\n" % i for i in sorted(vocab))


def dumps_raw_bytes(vocab):  # the token's bytes as they are, no base64
    return b"".join(vocab[i] + b" %d\n" % i for i in sorted(vocab))


def dumps_popping(vocab):  # takes the tokens out of the caller's dict
    out = b""
    while vocab:
        i = min(vocab)
        out += base64.b64encode(vocab.pop(i)) + b" %d\n" % i
    return out


def dumps_encodebytes(vocab):  # base64.encodebytes ends the base64 in a newline of its own
    return b"".join(base64.encodebytes(vocab[i]) + b" %d\n" % i for i in sorted(vocab))


def dumps_mime_lines(vocab):  # base64 folded at 76 characters, as e-mail does: a token over 57 bytes
    out = []                  # takes two lines, and only GPT-4's longest tokens are that long
    for i in sorted(vocab):
        b64 = base64.b64encode(vocab[i])
        out.append(b"\n".join(b64[k:k + 76] for k in range(0, len(b64), 76)) + b" %d\n" % i)
    return b"".join(out)


def dumps_text(vocab):  # a str, not bytes
    return "".join(f"{base64.b64encode(vocab[i]).decode()} {i}\n" for i in sorted(vocab))


# ---- ex-tiktoken-read
MAX_ID = 2**32 - 2


def parse_ranks(data):  # the notebook's
    ranks, line_of = {}, {}  # bytes -> rank; rank -> its line
    MAX = MAX_ID
    for n, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            b64, rank = line.split()
            token = base64.b64decode(b64, validate=True)
        except ValueError:
            raise ValueError(f"line {n}: not 'base64 rank'") from None
        if not rank.isdigit() or len(rank) > 10 or int(rank) > MAX:
            raise ValueError(f"line {n}: {rank!r} is not a rank")
        if int(rank) in line_of or token in ranks:
            raise ValueError(f"line {n}: a rank or bytes again")
        line_of[int(rank)] = n
        ranks[token] = int(rank)
    return ranks


RANK = re.compile(rb"[0-9]{1,10}")


def parse_ranks_regex(data):  # right, written differently: a regex for the rank, sets for repeats
    ranks, seen = {}, set()
    for n, line in enumerate(data.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 2 or not RANK.fullmatch(fields[1]) or int(fields[1]) > MAX_ID:
            raise ValueError(f"Line {n} is bad")
        try:
            token = binascii.a2b_base64(fields[0], strict_mode=True)
        except binascii.Error as e:
            raise ValueError(f"line {n}: {e}") from None
        rank = int(fields[1])
        if rank in seen or token in ranks:
            raise ValueError(f"line {n} repeats")
        seen.add(rank)
        ranks[token] = rank
    return ranks


def _parse_with(data, lines=None, rank_ok=None, b64=None, repeats=True):
    ranks = {}
    for n, line in lines(data) if lines else enumerate(data.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 2:
            raise ValueError(f"line {n}: two fields")
        try:
            token = b64(fields[0]) if b64 else base64.b64decode(fields[0], validate=True)
        except ValueError:
            raise ValueError(f"line {n}: base64") from None
        ok = rank_ok(fields[1]) if rank_ok else (fields[1].isdigit() and len(fields[1]) <= 10
                                                 and int(fields[1]) <= MAX_ID)
        if not ok:
            raise ValueError(f"line {n}: rank")
        rank = int(fields[1])
        if repeats and (rank in ranks.values() or token in ranks):
            raise ValueError(f"line {n}: repeat")
        ranks[token] = rank
    return ranks


def parse_skips_blank_lines_in_count(data):  # numbers only the non-blank lines
    return _parse_with(data, lines=lambda d: enumerate([x for x in d.splitlines() if x.strip()], 1))


def parse_split_on_newline(data):  # b"\n" only: a lone b"\r" does not end a line
    return _parse_with(data, lines=lambda d: enumerate(d.split(b"\n"), 1))


def parse_zero_based(data):  # line numbers from 0
    return _parse_with(data, lines=lambda d: enumerate(d.splitlines()))


def parse_int_rank(data):  # int() takes "+5", "-3" and "1_0"
    def ok(s):
        try:
            return 0 <= int(s) <= MAX_ID
        except ValueError:
            return False
    return _parse_with(data, rank_ok=ok)


def parse_rank_limit_off_by_one(data):  # lets 4,294,967,295 through
    return _parse_with(data, rank_ok=lambda s: s.isdigit() and len(s) <= 10 and int(s) <= MAX_ID + 1)


def parse_lenient_base64(data):  # b64decode without validate=True drops bad characters
    return _parse_with(data, b64=base64.b64decode)


def parse_no_repeat_check(data):  # a later line silently wins
    return _parse_with(data, repeats=False)


def parse_space_split(data):  # fields apart by exactly one space: tabs and double spaces fail
    ranks = {}
    for n, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.strip().split(b" ")
        if len(fields) != 2:
            raise ValueError(f"line {n}: two fields")
        ranks[base64.b64decode(fields[0], validate=True)] = int(fields[1])
    return ranks


def parse_all_checks_after(data):  # reads every line, then looks for repeats: names the wrong line
    pairs = []
    for n, line in enumerate(data.splitlines(), 1):
        if line.strip():
            ranks = _parse_with(line, repeats=False)
            pairs += [(n, t, r) for t, r in ranks.items()]
    seen_t, seen_r = {}, {}
    for n, t, r in pairs:
        seen_t.setdefault(t, n)
        seen_r.setdefault(r, n)
    for n, t, r in pairs:
        if seen_t[t] != n or seen_r[r] != n:
            raise ValueError(f"line {max(seen_t[t], seen_r[r])}: repeat")
    return {t: r for _, t, r in pairs}


# ---- ex-tiktoken-last-merge
def _last_merge(token, ranks, below=True, rightmost=False):
    limit = ranks[token] if below else float("inf")
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 2:
        best, best_rank = None, limit
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1], limit)
            if r < best_rank or (rightmost and r == best_rank and best is not None and r < limit):
                best, best_rank = i, r
        if best is None:
            return None
        parts[best : best + 2] = [parts[best] + parts[best + 1]]
    return tuple(parts) if len(parts) == 2 else None


def last_merge(token, ranks):  # the notebook's
    return _last_merge(token, ranks)


def last_merge_by_min(token, ranks):  # right, written differently
    parts = list(token[i : i + 1] for i in range(len(token)))
    while True:
        found = [(ranks[a + b], i) for i, (a, b) in enumerate(zip(parts, parts[1:]))
                 if ranks.get(a + b, ranks[token]) < ranks[token]]
        if not found:
            return (parts[0], parts[1]) if len(parts) == 2 else None
        _, i = min(found)
        parts[i : i + 2] = [parts[i] + parts[i + 1]]


def last_merge_any_rank(token, ranks):  # every rank but the token's own is allowed
    return _last_merge(token, {k: v for k, v in ranks.items() if k != token}, below=False)


def last_merge_rightmost(token, ranks):  # the rightmost of equal pairs
    return _last_merge(token, ranks, rightmost=True)


def last_merge_split_in_half(token, ranks):  # no rank encoding at all
    return (token[: len(token) // 2], token[len(token) // 2 :]) if len(token) > 1 else None


def last_merge_all_at_once(token, ranks):  # joins every occurrence of the lowest pair in one step
    limit = ranks[token]
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 2:
        pairs = [ranks.get(a + b, limit) for a, b in zip(parts, parts[1:])]
        best = min(pairs)
        if best >= limit:
            return None
        out, i = [], 0
        while i < len(parts):
            if i + 1 < len(parts) and ranks.get(parts[i] + parts[i + 1]) == best:
                out.append(parts[i] + parts[i + 1])
                i += 2
            else:
                out.append(parts[i])
                i += 1
        parts = out
    return tuple(parts) if len(parts) == 2 else None


def last_merge_list(token, ranks):  # a list, not a tuple
    got = _last_merge(token, ranks)
    return list(got) if got else got


def last_merge_up_to_its_rank(token, ranks):  # joins pairs ranked up to the token's own rank, itself too
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 1:
        pairs = [(ranks.get(a + b, ranks[token] + 1), i) for i, (a, b) in enumerate(zip(parts, parts[1:]))]
        r, i = min(pairs)
        if r > ranks[token]:
            break
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return tuple(parts) if len(parts) == 2 else None


# ---- ex-tiktoken-capstone
def encode(text, ranks, pattern, special_tokens):  # the notebook's
    ids = []
    cut = "(" + "|".join(map(regex.escape, special_tokens)) + ")"
    pieces = regex.split(cut, text) if special_tokens else [text]
    for k, piece in enumerate(pieces):
        if k % 2:  # odd pieces are the special tokens the split kept
            ids.append(special_tokens[piece])
            continue
        for chunk in regex.findall(pattern, piece):
            ids += [ranks[p] for p in rank_parts(chunk.encode(), ranks)]
    return ids


def rank_parts(b, ranks):
    if b in ranks:  # the whole chunk is a token (tiktoken's shortcut)
        return [b]
    parts = [b[i : i + 1] for i in range(len(b))]
    while True:
        pairs = [x + y for x, y in zip(parts, parts[1:])]
        found = [(ranks[p], i) for i, p in enumerate(pairs) if p in ranks]
        if not found:
            return parts
        _, i = min(found)  # the lowest rank; the leftmost on a tie
        parts[i : i + 2] = [pairs[i]]


def encode_by_scanning(text, ranks, pattern, special_tokens):  # right, written differently
    compiled = regex.compile(pattern)
    ids, i = [], 0
    while i <= len(text):
        hits = [(text.find(s, i), s) for s in special_tokens if text.find(s, i) >= 0]
        end, special = min(hits) if hits else (len(text), None)
        for chunk in compiled.findall(text[i:end]):
            ids += _encode_chunk(chunk.encode(), ranks)
        if special is None:
            break
        ids.append(special_tokens[special])
        i = end + len(special)
    return ids


def _encode_chunk(b, ranks, shortcut=True, rightmost=False, all_at_once=False):
    if shortcut and b in ranks:
        return [ranks[b]]
    parts = [b[i : i + 1] for i in range(len(b))]
    while len(parts) > 1:
        pairs = [ranks.get(x + y) for x, y in zip(parts, parts[1:])]
        known = [r for r in pairs if r is not None]
        if not known:
            break
        best = min(known)
        if all_at_once:
            out, i = [], 0
            while i < len(parts):
                if i + 1 < len(parts) and pairs[i] == best:
                    out.append(parts[i] + parts[i + 1])
                    i += 2
                else:
                    out.append(parts[i])
                    i += 1
            parts = out
            continue
        k = len(pairs) - 1 - pairs[::-1].index(best) if rightmost else pairs.index(best)
        parts[k : k + 2] = [parts[k] + parts[k + 1]]
    return [ranks[p] for p in parts]


def _encode_with(text, ranks, pattern, special_tokens, **how):
    ids = []
    cut = "(" + "|".join(map(regex.escape, special_tokens)) + ")"
    for k, piece in enumerate(regex.split(cut, text)):
        if k % 2:
            ids.append(special_tokens[piece])
        else:
            for chunk in regex.findall(pattern, piece):
                ids += _encode_chunk(chunk.encode(), ranks, **how)
    return ids


def encode_no_shortcut(text, ranks, pattern, special_tokens):  # leaves out the whole-chunk shortcut
    return _encode_with(text, ranks, pattern, special_tokens, shortcut=False)


def encode_merges_in_order(text, ranks, pattern, special_tokens):  # replays merges by rank: a merge list
    by_rank = sorted((r, t) for t, r in ranks.items() if len(t) > 1)
    ids = []
    cut = "(" + "|".join(map(regex.escape, special_tokens)) + ")"
    for k, piece in enumerate(regex.split(cut, text)):
        if k % 2:
            ids.append(special_tokens[piece])
            continue
        for chunk in regex.findall(pattern, piece):
            parts = [bytes([c]) for c in chunk.encode()]
            for _, t in by_rank:  # every token in rank order, joined wherever its two halves meet
                if len(parts) == 1:
                    break
                i = 0
                while i < len(parts) - 1:
                    if parts[i] + parts[i + 1] == t:
                        parts[i : i + 2] = [t]
                    else:
                        i += 1
            ids += [ranks[p] for p in parts]
    return ids


def encode_all_at_once(text, ranks, pattern, special_tokens):  # every occurrence of the best pair in one step
    return _encode_with(text, ranks, pattern, special_tokens, all_at_once=True)


def encode_rightmost_tie(text, ranks, pattern, special_tokens):  # of two equal pairs, joins the rightmost
    return _encode_with(text, ranks, pattern, special_tokens, rightmost=True)


def encode_first_special_only(text, ranks, pattern, special_tokens):  # cuts at one special token only
    first = next(iter(special_tokens))
    return _encode_with(text, ranks, pattern, {first: special_tokens[first]})


def encode_with_re(text, ranks, pattern, special_tokens):  # the re module: no \p{L}
    import re as stdlib_re
    return [i for c in stdlib_re.findall(pattern, text) for i in _encode_chunk(c.encode(), ranks)]


def encode_ignores_specials(text, ranks, pattern, special_tokens):  # special tokens encoded as plain text
    return [i for chunk in regex.findall(pattern, text) for i in _encode_chunk(chunk.encode(), ranks)]


def encode_characters(text, ranks, pattern, special_tokens):  # code points, not UTF-8 bytes
    cut = "(" + "|".join(map(regex.escape, special_tokens)) + ")"
    ids = []
    for k, piece in enumerate(regex.split(cut, text)):
        if k % 2:
            ids.append(special_tokens[piece])
            continue
        for chunk in regex.findall(pattern, piece):
            parts = [c.encode() for c in chunk]
            ids += [i for p in parts for i in _encode_chunk(p, ranks)]
    return ids


def encode_no_split(text, ranks, pattern, special_tokens):  # no split pattern: each piece one chunk
    cut = "(" + "|".join(map(regex.escape, special_tokens)) + ")"
    ids = []
    for k, piece in enumerate(regex.split(cut, text)):
        ids += [special_tokens[piece]] if k % 2 else (_encode_chunk(piece.encode(), ranks) if piece else [])
    return ids


def encode_scan_table(text, ranks, pattern, special_tokens):  # right ids; scans GPT-4's table per join
    by_rank = sorted(ranks.items(), key=lambda kv: kv[1])
    ids = []
    cut = "(" + "|".join(map(regex.escape, special_tokens)) + ")"
    for k, piece in enumerate(regex.split(cut, text)):
        if k % 2:
            ids.append(special_tokens[piece])
            continue
        for chunk in regex.findall(pattern, piece):
            b = chunk.encode()
            parts = [b] if b in ranks else [bytes([c]) for c in b]
            while len(parts) > 1:
                pairs = [x + y for x, y in zip(parts, parts[1:])]
                hit = next((t for t, _ in by_rank if t in pairs), None)  # the lowest-ranked token among them
                if hit is None:
                    break
                i = pairs.index(hit)
                parts[i : i + 2] = [hit]
            ids += [ranks[p] for p in parts]
    return ids


# ---- the harness's tables
RIGHT = {
    "ex-tiktoken-write": [dumps_ranks, dumps_ranks_by_items],
    "ex-tiktoken-read": [parse_ranks, parse_ranks_regex],
    "ex-tiktoken-last-merge": [last_merge, last_merge_by_min],
    "ex-tiktoken-capstone": [encode, encode_by_scanning],
}
WRONG = {
    "ex-tiktoken-write": [dumps_urlsafe, dumps_dict_order, dumps_ids_as_strings, dumps_no_last_newline,
                          dumps_crlf, dumps_no_padding, dumps_raw_bytes, dumps_popping, dumps_encodebytes,
                          dumps_text, dumps_mime_lines],
    "ex-tiktoken-read": [parse_skips_blank_lines_in_count, parse_split_on_newline, parse_zero_based,
                         parse_int_rank, parse_rank_limit_off_by_one, parse_lenient_base64, parse_no_repeat_check,
                         parse_space_split, parse_all_checks_after],
    "ex-tiktoken-last-merge": [last_merge_any_rank, last_merge_rightmost, last_merge_split_in_half,
                               last_merge_all_at_once, last_merge_list, last_merge_up_to_its_rank],
    "ex-tiktoken-capstone": [encode_no_shortcut, encode_merges_in_order, encode_all_at_once, encode_rightmost_tie,
                             encode_first_special_only, encode_with_re,
                             encode_ignores_specials, encode_characters, encode_no_split,
                             With(encode_scan_table, tokenizer=_reference.tokenizer("cl100k_base"), time_limit=3)],
}


@pytest.fixture(scope="module", autouse=True)
def loaded():
    """The vocabularies the checks load by default, loaded before any check's clock starts."""
    return _reference.tokenizer("cl100k_base"), small_tokenizer()


test_right_solution_passes, test_wrong_solution_fails = graded(RIGHT, WRONG)


def test_a_blank_line_miscount_is_shown_on_a_small_file():
    message = run_wrong("ex-tiktoken-read", parse_skips_blank_lines_in_count)
    assert "expected: ValueError naming line" in message and len(message.splitlines()[0]) < 120, message


def test_the_capstone_names_the_reversed_table_when_only_it_fails():
    message = run_wrong("ex-tiktoken-capstone", encode_no_shortcut)
    assert "reversed" in message, message


def test_a_slow_encoder_is_stopped_and_told_so():
    message = run_wrong("ex-tiktoken-capstone", With(encode_scan_table, tokenizer=_reference.tokenizer("cl100k_base"), time_limit=3))
    assert "too slow" in message, message


def test_the_capstone_grades_the_notebooks_tokenizer():
    run_right("ex-tiktoken-capstone", With(encode, tokenizer=small_tokenizer()))
