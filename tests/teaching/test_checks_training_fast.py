"""The checks of *Training fast* pass right solutions and reject plausible wrong ones."""

import heapq
from collections import Counter


from _wrong import With, graded
from bpe_lesson import incremental, textbook
from bpe_lesson.teaching.checks import training_fast as tf
from bpe_lesson.teaching.checks import training_fast_update as tfu
from bpe_lesson.teaching.checks._gen import draw


# ---------------------------------------------------------------- ex-fast-pop-best

def pop_best(heap, pair_counts, vocab, known):  # the notebook's
    while heap:
        neg, a, b = heapq.heappop(heap)
        count = pair_counts.get((a, b), 0)
        if count != -neg:  # stale: push the true count back, unless it is 0
            if count > 0:
                heapq.heappush(heap, (-count, a, b))
            continue
        if count < 2:
            return None  # the best pair occurs once: training is over
        if vocab[a] + vocab[b] not in known:
            return (a, b), count
    return None


def pop_best_peeks(heap, pair_counts, vocab, known):  # right: looks at heap[0], heapreplace for stale
    while heap:
        neg, a, b = heap[0]
        count = pair_counts.get((a, b), 0)
        if count == -neg:
            heapq.heappop(heap)
            if count <= 1:
                return None
            if vocab[a] + vocab[b] in known:
                continue
            return (a, b), count
        if count:
            heapq.heapreplace(heap, (-count, a, b))
        else:
            heapq.heappop(heap)
    return None


def pop_best_known_first(heap, pair_counts, vocab, known):  # right: a known pair is dropped at once
    while heap:
        neg, a, b = heapq.heappop(heap)
        if vocab[a] + vocab[b] in known:
            continue  # its count only falls: no need to look at it again
        count = pair_counts.get((a, b), 0)
        if count != -neg:
            if count > 0:
                heapq.heappush(heap, (-count, a, b))
            continue
        return ((a, b), count) if count >= 2 else None
    return None


def pop_best_trusts_the_heap(heap, pair_counts, vocab, known):  # never checks for a stale entry
    while heap:
        neg, a, b = heapq.heappop(heap)
        if -neg < 2:
            return None
        if vocab[a] + vocab[b] not in known:
            return (a, b), -neg
    return None


def pop_best_drops_stale(heap, pair_counts, vocab, known):  # throws a stale entry away, true count and all
    while heap:
        neg, a, b = heapq.heappop(heap)
        count = pair_counts.get((a, b), 0)
        if count == -neg:
            if count < 2:
                return None
            if vocab[a] + vocab[b] not in known:
                return (a, b), count
    return None


def _threshold(limit):
    def pop(heap, pair_counts, vocab, known):
        while heap:
            neg, a, b = heapq.heappop(heap)
            count = pair_counts.get((a, b), 0)
            if count != -neg:
                if count > 0:
                    heapq.heappush(heap, (-count, a, b))
                continue
            if count < limit:
                return None
            if vocab[a] + vocab[b] not in known:
                return (a, b), count
        return None
    return pop


pop_best_stops_at_two = _threshold(3)  # off by one: a pair that occurs twice is not merged
pop_best_stops_at_two.__name__ = "pop_best_stops_at_two"
pop_best_merges_singles = _threshold(1)  # off by one: merges pairs that occur once
pop_best_merges_singles.__name__ = "pop_best_merges_singles"


def pop_best_forgets_known(heap, pair_counts, vocab, known):  # merges bytes that already are a token
    return pop_best(heap, pair_counts, vocab, set())


def pop_best_pushes_known_back(heap, pair_counts, vocab, known):  # a known pair back on the heap: popped forever
    skipped = []
    while heap:
        neg, a, b = heapq.heappop(heap)
        count = pair_counts.get((a, b), 0)
        if count != -neg:
            if count > 0:
                heapq.heappush(heap, (-count, a, b))
            continue
        if count < 2:
            break
        if vocab[a] + vocab[b] in known:
            skipped.append((neg, a, b))
            continue
        for e in skipped:
            heapq.heappush(heap, e)
        return (a, b), count
    for e in skipped:
        heapq.heappush(heap, e)
    return None


def pop_best_pushes_the_stale_count(heap, pair_counts, vocab, known):  # pushes the old count back: loops
    while heap:
        neg, a, b = heapq.heappop(heap)
        count = pair_counts.get((a, b), 0)
        if count != -neg:
            heapq.heappush(heap, (neg, a, b))  # subtle: the entry it just popped, stale as before
            continue
        if count < 2:
            return None
        if vocab[a] + vocab[b] not in known:
            return (a, b), count
    return None


def pop_best_pushes_zeros(heap, pair_counts, vocab, known):  # stale entries at 0 go back too
    while heap:
        neg, a, b = heapq.heappop(heap)
        count = pair_counts.get((a, b), 0)
        if count != -neg:
            heapq.heappush(heap, (-count, a, b))
            continue
        if count < 2:
            return None
        if vocab[a] + vocab[b] not in known:
            return (a, b), count
    return None


def pop_best_from_the_counts(heap, pair_counts, vocab, known):  # max over the counts: the first of a tie
    live = {q: c for q, c in pair_counts.items() if c >= 2 and vocab[q[0]] + vocab[q[1]] not in known}
    if not live:
        return None
    best = max(live, key=live.get)
    heap[:] = [e for e in heap if e[1:] != best]
    heapq.heapify(heap)
    return best, live[best]


def pop_best_returns_list(heap, pair_counts, vocab, known):  # [pair, count], not a tuple
    got = pop_best(heap, pair_counts, vocab, known)
    return None if got is None else list(got)


# ---------------------------------------------------------------- ex-fast-delta

def pair_delta(word, pair, new_id):  # the notebook's: one scan, then the pairs at the merge sites
    new, sites, i = [], [], 0  # sites: where new_id stands in new
    while i < len(word):
        if tuple(word[i:i + 2]) == pair:
            sites.append(len(new))
            new.append(new_id)
            i += 2
        else:
            new.append(word[i])
            i += 1
    gone = set()  # positions in word of the old pairs a site touches
    for k, s in enumerate(sites):  # site k: at s in new, s + k in word
        gone |= {s + k - 1, s + k, s + k + 1}
    come = {j for s in sites for j in (s - 1, s)}  # positions in new
    delta = Counter()
    for j in gone & set(range(len(word) - 1)):  # each old pair once
        delta[word[j], word[j + 1]] -= 1
    for j in come & set(range(len(new) - 1)):  # each new pair once
        delta[new[j], new[j + 1]] += 1
    return new, delta


def pair_delta_recount(word, pair, new_id):  # right: merge, then count the pairs before and after
    new = textbook.merge(word, pair, new_id)
    delta = Counter(zip(new, new[1:]))
    delta.subtract(Counter(zip(word, word[1:])))
    return new, {q: d for q, d in delta.items() if d}


def pair_delta_walk(word, pair, new_id):  # right: rustbpe's walk, each neighbour fixed as it is met
    new, delta, i = [], Counter(), 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            delta[pair] -= 1
            if new:
                left = new[-1]
                if left != new_id:  # (x, a) was not yet taken away as a right neighbour
                    delta[left, word[i]] -= 1
                delta[left, new_id] += 1
            if i + 2 < len(word) and tuple(word[i + 2:i + 4]) != pair:
                delta[word[i + 1], word[i + 2]] -= 1
                delta[new_id, word[i + 2]] += 1
            elif i + 2 < len(word):
                delta[word[i + 1], word[i + 2]] -= 1  # the pair between two sites goes once
            new.append(new_id)
            i += 2
        else:
            new.append(word[i])
            i += 1
    return new, delta


def pair_delta_all_at_once(word, pair, new_id):  # every occurrence is a merge site, overlaps too
    new = textbook.merge(word, pair, new_id)
    delta = Counter()
    for i in range(len(word) - 1):
        if (word[i], word[i + 1]) == pair:
            delta[pair] -= 1
            if i > 0:
                delta[word[i - 1], word[i]] -= 1
                delta[word[i - 1], new_id] += 1
            if i + 2 < len(word):
                delta[word[i + 1], word[i + 2]] -= 1
                delta[new_id, word[i + 2]] += 1
    return new, delta


def pair_delta_forgets_the_overlap(word, pair, new_id):  # neighbours from the old word, site by site
    new, delta, i = [], Counter(), 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            delta[pair] -= 1
            if i > 0:
                delta[word[i - 1], word[i]] -= 1
                delta[new[-1], new_id] += 1
            if i + 2 < len(word):
                delta[word[i + 1], word[i + 2]] -= 1
                delta[new_id, word[i + 2]] += 1
            new.append(new_id)
            i += 2
        else:
            new.append(word[i])
            i += 1
    return new, delta


def pair_delta_right_to_left(word, pair, new_id):  # merges from the end: "aaa" -> [97, 256]
    new = textbook.merge(word[::-1], pair[::-1], new_id)[::-1]
    delta = Counter(zip(new, new[1:]))
    delta.subtract(Counter(zip(word, word[1:])))
    return new, delta


def pair_delta_only_the_pair(word, pair, new_id):  # the merged pair falls; its neighbours are forgotten
    new = textbook.merge(word, pair, new_id)
    return new, Counter({pair: len(new) - len(word)})


def pair_delta_counter_minus(word, pair, new_id):  # Counter's "-" drops every negative change
    new = textbook.merge(word, pair, new_id)
    old, now = Counter(zip(word, word[1:])), Counter(zip(new, new[1:]))
    return new, (now - old) + Counter({q: -n for q, n in (old - now).items() if q == pair})


def pair_delta_only_delta(word, pair, new_id):  # returns the Counter alone
    return pair_delta(word, pair, new_id)[1]


def pair_delta_in_place(word, pair, new_id):  # rewrites the caller's list, as the compiled step does
    new, delta = pair_delta(word, pair, new_id)
    word[:] = new
    return word, delta


# ---------------------------------------------------------------- ex-fast-update

def update_counts(pair, new_id, words, counts, pair_counts, where, heap):  # the notebook's
    fresh = set()  # pairs with new_id
    for i in where.pop(pair):
        new_word, delta = pair_delta(words[i], pair, new_id)
        if len(new_word) == len(words[i]):
            continue  # a stale index entry
        for q, n in delta.items():
            pair_counts[q] += n * counts[i]
            if new_id in q:
                where[q].add(i)
                fresh.add(q)
        words[i] = new_word
    for q in fresh:  # once, with the final count
        heapq.heappush(heap, (-pair_counts[q], *q))


def update_by_recount(pair, new_id, words, counts, pair_counts, where, heap):  # right: whole words out, in
    fresh = {}
    for i in sorted(where.pop(pair)):
        old, new = words[i], textbook.merge(words[i], pair, new_id)
        if new == old:
            continue
        for q in zip(old, old[1:]):
            pair_counts[q] -= counts[i]
        for q in zip(new, new[1:]):
            pair_counts[q] += counts[i]
            if new_id in q:
                where[q].add(i)
                fresh[q] = True
        words[i] = new
    for q in fresh:
        heapq.heappush(heap, (-pair_counts[q], q[0], q[1]))


def update_pushes_every_change(pair, new_id, words, counts, pair_counts, where, heap):  # right, if wasteful
    changed = set()  # every pair whose count moved: the old ones' extra entries are stale, never too low
    for i in where.pop(pair):
        new_word, delta = pair_delta(words[i], pair, new_id)
        if new_word == words[i]:
            continue
        for q, n in delta.items():
            pair_counts[q] += n * counts[i]
            changed.add(q)
            if new_id in q:
                where[q].add(i)
        words[i] = new_word
    for q in sorted(changed):
        heapq.heappush(heap, (-pair_counts[q], *q))


def _update(delta=pair_delta, weight=True, index=True, push="end"):
    def update(pair, new_id, words, counts, pair_counts, where, heap):
        fresh = set()
        for i in where.pop(pair):
            new_word, d = delta(words[i], pair, new_id)
            if len(new_word) == len(words[i]):
                continue
            for q, n in d.items():
                pair_counts[q] += n * (counts[i] if weight else 1)
                if new_id in q:
                    if index:
                        where[q].add(i)
                    fresh.add(q)
                    if push == "each":
                        heapq.heappush(heap, (-pair_counts[q], *q))
            words[i] = new_word
        if push == "end":
            for q in fresh:
                heapq.heappush(heap, (-pair_counts[q], *q))
    return update


def _named(fn, name):
    fn.__name__ = name
    return fn


update_ignores_word_counts = _named(_update(weight=False), "update_ignores_word_counts")  # as if each once
update_forgets_the_index = _named(_update(index=False), "update_forgets_the_index")  # new pairs unlisted
update_pushes_per_word = _named(_update(push="each"), "update_pushes_per_word")  # pushes half-done counts
update_pushes_nothing = _named(_update(push=None), "update_pushes_nothing")  # new pairs never on the heap
update_all_at_once = _named(_update(delta=pair_delta_all_at_once), "update_all_at_once")  # overlaps
update_forgets_the_overlap = _named(_update(delta=pair_delta_forgets_the_overlap),
                                    "update_forgets_the_overlap")  # neighbours counted twice
update_right_to_left = _named(_update(delta=pair_delta_right_to_left), "update_right_to_left")
update_only_the_pair = _named(_update(delta=pair_delta_only_the_pair), "update_only_the_pair")


def update_unlists_old_pairs(pair, new_id, words, counts, pair_counts, where, heap):  # tidies too much
    old = {i: words[i] for i in where.get(pair, ())}
    update_counts(pair, new_id, words, counts, pair_counts, where, heap)
    for i, w in old.items():
        for q in zip(w, w[1:]):
            where[q].discard(i)  # subtle: pairs away from the merge sites are still in the word


RIGHT = {
    "ex-fast-pop-best": [pop_best, pop_best_peeks, pop_best_known_first],
    "ex-fast-delta": [pair_delta, pair_delta_recount, pair_delta_walk],
    "ex-fast-update": [update_counts, update_by_recount, update_pushes_every_change],
}
WRONG = {
    "ex-fast-pop-best": [pop_best_trusts_the_heap, pop_best_drops_stale, pop_best_stops_at_two,
                         pop_best_merges_singles, pop_best_forgets_known, pop_best_pushes_known_back,
                         pop_best_pushes_zeros, pop_best_from_the_counts, pop_best_returns_list,
                         With(pop_best_pushes_the_stale_count, time_limit=1)],
    "ex-fast-delta": [pair_delta_all_at_once, pair_delta_forgets_the_overlap, pair_delta_right_to_left,
                      pair_delta_only_the_pair, pair_delta_counter_minus, pair_delta_only_delta,
                      pair_delta_in_place],
    "ex-fast-update": [update_ignores_word_counts, update_forgets_the_index, update_pushes_per_word,
                       update_pushes_nothing, update_all_at_once, update_forgets_the_overlap,
                       update_right_to_left, update_only_the_pair, update_unlists_old_pairs],
}


test_right_solution_passes, test_wrong_solution_fails = graded(RIGHT, WRONG)


def test_generated_words_hold_a_pair_several_times():
    """The delta cases reach the places merge order matters: a pair at least twice in one word, overlapping."""
    cases = [c.args for c in draw(tf._delta_case, "ex-fast-delta")]
    twice = [w for w, p, _ in cases if sum(q == p for q in zip(w, w[1:])) >= 2]
    overlapping = [w for w, p, _ in cases if p[0] == p[1] and any(
        w[i] == w[i + 1] == w[i + 2] == p[0] for i in range(len(w) - 2))]
    assert len(twice) >= 40 and len(overlapping) >= 20


def test_states_have_stale_entries_and_ties():
    stale = ties = 0
    for chunks, before, _ in (c.args for c in draw(tfu._update_case, "ex-fast-update")):
        s = tf.State(chunks, before)
        stale += any(s.pair_counts.get((a, b), 0) != -n for n, a, b in s.heap)
        live = sorted(c for c in s.pair_counts.values() if c >= 2)
        ties += len(live) >= 2 and live[-1] == live[-2]
    assert stale >= 50 and ties >= 50


def test_the_state_is_the_package_trainers():
    chunks = {b"aaabdaaabac": 1}
    s = tf.State(chunks, 3)
    assert s.words == [[258, 100, 258, 97, 99]]  # minbpe's hand-checked case
    assert incremental.train_merges(chunks, 3) == [((97, 97), 256), ((97, 98), 257), ((256, 257), 258)]
