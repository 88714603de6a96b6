"""The checks of "The merge rule, derived" pass right solutions and catch plausible wrong ones."""

from collections import Counter


from _solutions import merge_pair  # the notebook's solution
from _wrong import graded, run_wrong
from bpe_lesson import textbook
from bpe_lesson.patterns import GPT4_PATTERN, split_chunks


# ---------------------------------------------------------------- ex-merge-pairs

def pair_counts(ids):  # the notebook's solution
    counts = {}
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def pair_counts_counter(ids):  # a Counter over the neighbours, by index
    return Counter((ids[i], ids[i + 1]) for i in range(len(ids) - 1))


def pair_counts_no_overlap(ids):  # counts like str.count: "aaa" holds (a, a) once
    counts, i = {}, 0
    while i + 1 < len(ids):
        pair = (ids[i], ids[i + 1])
        counts[pair] = counts.get(pair, 0) + 1
        i += 2 if pair[0] == pair[1] else 1
    return counts


def pair_counts_misses_last(ids):  # off by one: stops a pair early
    return pair_counts(ids[:-1])


def pair_counts_via_bytes(ids):  # bytes(ids): fails on merged ids, which are past 255
    b = bytes(ids)
    return dict(Counter(zip(b, b[1:])))


def pair_counts_seen(ids):  # records that a pair occurs, not how often
    return {pair: 1 for pair in zip(ids, ids[1:])}


def pair_counts_list(ids):  # the pairs, not their counts
    return list(zip(ids, ids[1:]))


# ---------------------------------------------------------------- ex-merge-merge

def merge_pair_flag(ids, pair, idx):  # one pass with a "skip the next id" flag
    out, skip = [], False
    for i, t in enumerate(ids):
        if skip:
            skip = False
        elif tuple(ids[i:i + 2]) == tuple(pair):
            out.append(idx)
            skip = True
        else:
            out.append(t)
    return out


def merge_right_to_left(ids, pair, idx):  # "aaa" -> [97, 256]
    return merge_pair(ids[::-1], pair[::-1], idx)[::-1]


def merge_in_place(ids, pair, idx):  # right answer, but it rewrites the caller's list
    i = 0
    while i + 1 < len(ids):
        if (ids[i], ids[i + 1]) == pair:
            ids[i:i + 2] = [idx]
        i += 1
    return ids


def merge_drops_last(ids, pair, idx):  # the loop stops before the last id
    out, i = [], 0
    while i + 1 < len(ids):
        if (ids[i], ids[i + 1]) == pair:
            out.append(idx)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def merge_by_replace(ids, pair, idx):  # issue 49: str.replace on the joined ids: "1,12" matches in "11,12"
    text = ",".join(str(i) for i in ids).replace(f"{pair[0]},{pair[1]}", str(idx))
    return [int(x) for x in text.split(",")] if ids else []


def merge_by_replace_spaced(ids, pair, idx):  # issue 49: the same joined with spaces, read back by split()
    return list(map(int, " ".join(map(str, ids)).replace(f"{pair[0]} {pair[1]}", str(idx)).split()))


def merge_tuple(ids, pair, idx):  # a tuple, not a list
    return tuple(merge_pair(ids, pair, idx))


# ---------------------------------------------------------------- ex-merge-saving

def merge_saving(ids, pair):  # the notebook's solution
    saved, i = 0, 0
    while i + 1 < len(ids):
        if (ids[i], ids[i + 1]) == pair:
            saved += 1
            i += 2  # the next token is used up
        else:
            i += 1
    return saved


def merge_saving_by_runs(ids, pair):  # (a, a): half of every run, rounded down; else the count
    a, b = pair
    if a != b:
        return sum(p == (a, b) for p in zip(ids, ids[1:]))
    saved = run = 0
    for t in list(ids) + [None]:
        if t == a:
            run += 1
        else:
            saved, run = saved + run // 2, 0
    return saved


def saving_is_count(ids, pair):  # forgets overlaps
    return sum(1 for p in zip(ids, ids[1:]) if p == pair)


def saving_half_count(ids, pair):  # (a, a): half the count, as if it were one run
    count = saving_is_count(ids, pair)
    return count if pair[0] != pair[1] else (count + 1) // 2


def saving_misses_last_pair(ids, pair):  # off by one: never looks at the last pair
    saved, i = 0, 0
    while i + 2 < len(ids):
        if (ids[i], ids[i + 1]) == pair:
            saved, i = saved + 1, i + 2
        else:
            i += 1
    return saved


def saving_bytes_count(ids, pair):  # bytes.count is right for bytes, but ids go past 255
    return bytes(ids).count(bytes(pair))


def saving_pops(ids, pair):  # right number, but it empties the caller's list
    saved = 0
    while len(ids) >= 2:
        if (ids[0], ids[1]) == pair:
            saved += 1
            ids.pop(0)
        ids.pop(0)
    return saved


def saving_as_merged_length(ids, pair):  # the length after the merge, not what it removes
    return len(merge_pair(ids, pair, -1))


def saving_by_merge_pair(ids, pair):  # issue 49: the right number, from the merged list the text rules out
    return len(ids) - len(merge_pair(ids, pair, -1))


def saving_by_textbook(ids, pair):  # issue 49: the same through the package's merge
    return len(ids) - len(textbook.merge(ids, pair, 0))


combine = merge_pair_flag  # another name for a merge: the function keeps its own __name__


def saving_by_alias(ids, pair):  # issue 49: a merge under another name, the merged list again
    merged = combine(list(ids), pair, None)
    return len(ids) - len(merged)


# ---------------------------------------------------------------- ex-merge-train

def _train(text, vocab_size, tie=min, stop=2, split=True, merge=merge_pair, first_id=256, weighted=True):
    chunks = split_chunks(text, GPT4_PATTERN) if split else [text]
    words = Counter(tuple(c.encode()) for c in chunks)
    if not weighted:
        words = Counter(set(words))
    merges = []
    for new_id in range(first_id, vocab_size):
        counts = Counter()
        for w, c in words.items():
            for p in zip(w, w[1:]):
                counts[p] += c
        if not counts or max(counts.values()) < stop:
            break
        top = max(counts.values())
        best = tie([p for p, c in counts.items() if c == top])
        words = {tuple(merge(list(w), best, new_id)): c for w, c in words.items()}
        merges.append((best, new_id))
    return merges


def train(text, vocab_size):  # the notebook's solution
    chunks = split_chunks(text, GPT4_PATTERN)
    words = Counter(tuple(c.encode()) for c in chunks)  # ids -> count
    merges = []
    for new_id in range(256, vocab_size):
        pairs = Counter()  # (int, int) -> count, chunks weighted
        for w, c in words.items():
            for pair, n in pair_counts(list(w)).items():
                pairs[pair] += n * c
        if not pairs or max(pairs.values()) < 2:
            break  # the stop rule
        top = max(pairs.values())
        best = min(p for p, f in pairs.items() if f == top)  # the tie rule
        words = {tuple(merge_pair(list(w), best, new_id)): c
                 for w, c in words.items()}
        merges.append((best, new_id))
    return merges


def train_sorted(text, vocab_size):  # ranks pairs by (-count, pair) and keeps the chunks as lists
    chunks = [list(c.encode()) for c in split_chunks(text, GPT4_PATTERN)]
    merges, new_id = [], 256
    while new_id < vocab_size:
        counts = Counter(p for w in chunks for p in zip(w, w[1:]))
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        if not ranked or ranked[0][1] < 2:
            break
        best = ranked[0][0]
        chunks = [merge_pair(w, best, new_id) for w in chunks]
        merges.append([list(best), new_id])  # lists, not tuples: the check accepts both
        new_id += 1
    return merges


def train_characters(text, vocab_size):  # code points where UTF-8 bytes are meant
    words = Counter(tuple(ord(ch) for ch in c) for c in split_chunks(text, GPT4_PATTERN))
    merges = []
    for new_id in range(256, vocab_size):
        pairs = Counter()
        for w, c in words.items():
            for p in zip(w, w[1:]):
                pairs[p] += c
        if not pairs or max(pairs.values()) < 2:
            break
        top = max(pairs.values())
        best = min(p for p, f in pairs.items() if f == top)
        words = {tuple(merge_pair(list(w), best, new_id)): c for w, c in words.items()}
        merges.append((best, new_id))
    return merges


def train_split_on_whitespace(text, vocab_size):  # str.split for the pattern: spaces and lines vanish
    return _train(" ".join(text.split()), vocab_size)


def train_first_seen(text, vocab_size):  # ties to the pair seen first, not the smallest
    return _train(text, vocab_size, tie=lambda ps: ps[0])


def train_largest_tie(text, vocab_size):  # ties to the largest pair
    return _train(text, vocab_size, tie=max)


def train_no_stop(text, vocab_size):  # keeps merging pairs that occur once
    return _train(text, vocab_size, stop=1)


def train_stops_at_two(text, vocab_size):  # stops when the best pair occurs only twice
    return _train(text, vocab_size, stop=3)


def train_one_too_many(text, vocab_size):  # makes vocab_size - 255 merges
    return _train(text, vocab_size + 1)


def train_no_split(text, vocab_size):  # merges across chunk boundaries
    return _train(text, vocab_size, split=False)


def train_unweighted(text, vocab_size):  # counts each distinct chunk once
    return _train(text, vocab_size, weighted=False)


def train_merges_right_to_left(text, vocab_size):  # "aaa" becomes [97, 256]: order matters later
    return _train(text, vocab_size, merge=merge_right_to_left)


def train_all_tied_at_once(text, vocab_size):  # merges every pair tied at the top in one round
    words = Counter(tuple(c.encode()) for c in split_chunks(text, GPT4_PATTERN))
    merges, new_id = [], 256
    while new_id < vocab_size:
        counts = Counter()
        for w, c in words.items():
            for p in zip(w, w[1:]):
                counts[p] += c
        if not counts or max(counts.values()) < 2:
            break
        top = max(counts.values())
        for best in sorted(p for p, c in counts.items() if c == top)[:vocab_size - new_id]:
            words = {tuple(merge_pair(list(w), best, new_id)): c for w, c in words.items()}
            merges.append((best, new_id))
            new_id += 1
    return merges


def train_ids_from_255(text, vocab_size):  # new ids start one too low
    return _train(text, vocab_size, first_id=255)


def train_dict(text, vocab_size):  # a dict pair -> id, not the list
    return dict(train(text, vocab_size))


# ---------------------------------------------------------------- ex-merge-smallest

def saving_pick(words):  # the notebook's solution
    saving = Counter()  # (int, int) -> tokens its merge would remove
    for w, c in words.items():
        for pair in pair_counts(list(w)):
            saving[pair] += c * merge_saving(list(w), pair)
    if not saving:
        return None  # no chunk has a pair
    top = max(saving.values())  # ties go to the smallest pair
    return min(p for p, g in saving.items() if g == top)


def saving_pick_sorted(words):  # each pair's saving from its merged chunks, then one sort
    pairs = {p for w in words for p in zip(w, w[1:])}
    removed = {p: sum(c * (len(w) - len(merge_pair(list(w), p, -1))) for w, c in words.items())
               for p in pairs}
    ranked = sorted(removed, key=lambda p: (-removed[p], p))
    return ranked[0] if ranked else None


def _pick(words, gain, tie=min, weighted=True):
    saving = Counter()
    for w, c in words.items():
        for pair in dict.fromkeys(zip(w, w[1:])):
            saving[pair] += (c if weighted else 1) * gain(list(w), pair)
    if not saving:
        return None
    top = max(saving.values())
    return tie([p for p, g in saving.items() if g == top])


def pick_by_count(words):  # the count rule: ranks by occurrences, overlaps included
    return _pick(words, saving_is_count)


def pick_largest_tie(words):  # ties to the largest pair
    return _pick(words, merge_saving, tie=max)


def pick_first_seen(words):  # ties to the pair met first
    return _pick(words, merge_saving, tie=lambda ps: ps[0])


def pick_unweighted(words):  # forgets how often each chunk occurs
    return _pick(words, merge_saving, weighted=False)


def pick_half_count(words):  # (a, a) saves half its count, rounded up
    return _pick(words, saving_half_count)


def pick_across_chunks(words):  # joins the chunks into one list: pairs across boundaries
    ids = [t for w, c in words.items() for _ in range(c) for t in w]
    return _pick({tuple(ids): 1}, merge_saving)


def pick_empty_fails(words):  # max() of nothing: a corpus without pairs raises
    saving = Counter()
    for w, c in words.items():
        for pair in pair_counts(list(w)):
            saving[pair] += c * merge_saving(list(w), pair)
    top = max(saving.values())
    return min(p for p, g in saving.items() if g == top)


def pick_list(words):  # [a, b], not (a, b)
    pair = saving_pick(words)
    return None if pair is None else list(pair)


def pick_pops(words):  # right pair, but it empties the caller's corpus
    pair = saving_pick(words)
    words.clear()
    return pair


RIGHT = {
    "ex-merge-pairs": [pair_counts, pair_counts_counter],
    "ex-merge-merge": [merge_pair, merge_pair_flag],
    "ex-merge-saving": [merge_saving, merge_saving_by_runs],
    "ex-merge-train": [train, train_sorted],
    "ex-merge-smallest": [saving_pick, saving_pick_sorted],
}
WRONG = {
    "ex-merge-pairs": [pair_counts_no_overlap, pair_counts_misses_last, pair_counts_seen, pair_counts_list,
                       pair_counts_via_bytes],
    "ex-merge-merge": [merge_right_to_left, merge_in_place, merge_drops_last, merge_tuple, merge_by_replace,
                       merge_by_replace_spaced],
    "ex-merge-saving": [saving_by_merge_pair, saving_by_textbook, saving_by_alias,
                        saving_is_count, saving_half_count, saving_misses_last_pair, saving_pops,
                        saving_as_merged_length, saving_bytes_count],
    "ex-merge-train": [train_first_seen, train_largest_tie, train_no_stop, train_stops_at_two,
                       train_one_too_many, train_no_split, train_unweighted, train_merges_right_to_left,
                       train_all_tied_at_once, train_ids_from_255, train_dict, train_characters,
                       train_split_on_whitespace],
    "ex-merge-smallest": [pick_by_count, pick_largest_tie, pick_first_seen, pick_unweighted,
                          pick_half_count, pick_across_chunks, pick_list, pick_pops, pick_empty_fails],
}


test_right_solution_passes, test_wrong_solution_fails = graded(RIGHT, WRONG)


def test_a_trainer_that_stops_at_two_is_told_to_go_on():
    message = run_wrong("ex-merge-train", train_stops_at_two)
    assert "go on while a pair occurs at least twice" in message
