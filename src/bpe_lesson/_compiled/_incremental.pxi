# The incremental BPE trainer, compiled (part of the one extension, ``_native.pyx``): same names, same merges as ``incremental.py``.
#
# Read ``incremental.py`` first; this file is that algorithm with C++ containers,
# step for step under the same names: ``_Trainer.load``, ``_Trainer.count_all``,
# ``_Trainer.pop_best`` (the heap pop with the stale and skip checks),
# ``_Trainer.merge_word`` (the step inside one word; rustbpe's ``Word::merge_pair``)
# and ``_Trainer.apply_merge`` (one merge over every word that holds the pair).
# ``_Trainer.run`` is the loop of ``incremental.train_merges``. The public
# ``train_merges`` on top converts the chunks to flat C arrays and calls ``run``,
# which touches no Python object. The data the steps work on (the words, the pair
# table, the heap: ``incremental.TrainerState`` and the vocabulary) are the fields
# of ``_Trainer``'s base class, ``_TrainerState``, in ``_trainer_state.pxi``.
#
# Why it is fast (measured on a 2-core x86-64 machine, 10 MB of CPython
# stdlib sources, GPT-4 pattern, 32,768-token vocabulary; see benchmarks/):
#   * All unique chunks live in one flat int32 buffer; ``merge_word`` rewrites a
#     chunk in place (it only shrinks), so there is no allocation per merge.
#   * A chunk's pair counts change only around the merge sites, so ``merge_word``
#     subtracts the pairs that touch a site and adds the new pairs that contain the
#     new id, instead of recounting the chunk (the Python ``merge_word`` recounts the
#     whole word: simpler, and the same result).
#   * The heap holds (count, ~key) where key = left << 32 | right, so std::pair's
#     ordering *is* the rule: the highest count, then the smallest (left, right).
#   * Pair statistics live in one open-addressing hash table (key -> slot) with the
#     slots in flat arrays (count, key, list of words). Pairs are never deleted (a
#     merged pair's count is 0), so there are no tombstones. With std::unordered_map
#     for counts and a second one for the word lists, perf showed ~35% of the time
#     in their operator[] and in malloc/free of their nodes; the flat table halved
#     the merge-loop time (10 MB of stdlib code, 32k vocabulary).
#   * ``apply_merge`` visits the words that hold the pair in no useful memory order,
#     so the loop was bound by cache misses (perf: ~50% of its samples on the first
#     load of a word's ids and of its stamp). It now prefetches the data of the word
#     8 and 16 places ahead: -22% merge-loop time (0.223 -> 0.175 s for 32,512
#     merges). Packing a word's start/length/count/stamp into one struct was tried
#     as well and gained nothing measurable; dropped.
#   * The steps are methods of a final class and ``merge_word`` is ``inline``, so
#     naming them costs no call: a whole ``train_merges`` (load, count, 32,512
#     merges), best of 8 runs interleaved, took 0.90 s before the split into steps
#     and 0.82 s after, on a machine with a load average of 11: no loss measurable.
#     The data and its small operations later moved to a base class
#     (``_TrainerState``, its methods ``final`` too: direct calls, no vtable). A
#     whole ``train_merges`` (10 MB of stdlib code, 32,512 merges; a quieter
#     machine), best of 12 runs in each of 4 interleaved processes, took
#     0.123-0.139 s before that move and 0.116-0.129 s after: no loss either.
#   * Tried and dropped: a Python dict for the counts (the loop then spent most of
#     its time in the interpreter), and recounting whole chunks (about 2x slower on
#     long chunks, and quadratic with pattern=None).
# The Python interpreter is entered only between batches of merges, to report
# progress or print a verbose line.
#
# The trainer's front end lives here too: ``ChunkCounter`` (``_chunk_counter.pxi``)
# counts the chunks of texts with the hand-written scanners (``_scanners.pxi``,
# and ``_window_cut.pxi`` for 64 ASCII bytes at a time; both shared with the
# encoder) for ``chunks.count_chunk_bytes``.
#

cimport cython
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libcpp cimport bool
from libcpp.algorithm cimport sort, unique
from libcpp.pair cimport pair as cpair
from libcpp.string cimport string
from libcpp.unordered_map cimport unordered_map
from libcpp.vector cimport vector



def train_merges(chunk_counts, n_merges, base_merges=(), verbose=False, progress=None, *,
                 tie_break="smallest-ids", min_frequency=2, max_token_length=None, memory=None):
    """Learn up to ``n_merges`` merges from ``chunk_counts`` (bytes -> count).

    Same contract, options and result as ``incremental.train_merges``. ``memory``, a
    dict, receives the bytes each of the trainer's structures holds (``_Trainer.footprint``)
    after counting (``memory["counted"]``) and after the last merge (``memory["done"]``).

    >>> train_merges({b"aaabdaaabac": 1}, 3)
    [((97, 97), 256), ((97, 98), 257), ((256, 257), 258)]
    """
    cdef _Trainer t = _Trainer()
    if tie_break not in ("smallest-ids", "greatest-bytes"):
        raise ValueError(f"tie_break {tie_break!r} should be 'smallest-ids' or 'greatest-bytes'")
    t.greatest = tie_break == "greatest-bytes"
    t.min_count = max(2, int(min_frequency))
    t.max_len = 0 if max_token_length is None else int(max_token_length)
    vocab = _from_core("vocab_from_merges")(base_merges)
    for i in range(len(vocab)):
        t.tok.push_back(vocab[i])
        t.known.insert(vocab[i])
    t.next_id = len(vocab)
    t.load(chunk_counts, {pair: new_id for pair, new_id in base_merges})
    t.count_all()
    if memory is not None:
        memory["counted"] = t.footprint()

    merges = []
    cdef int batch = 1 if verbose else 4096
    cdef int done
    while len(merges) < n_merges:
        done = t.run(min(batch, n_merges - len(merges)))
        for k in range(len(merges), len(merges) + done):
            pair = (int(t.out_left[k]), int(t.out_right[k]))
            new_id = int(t.out_new[k])
            merges.append((pair, new_id))
            if verbose:
                vocab[new_id] = vocab[pair[0]] + vocab[pair[1]]
                print(_from_core("format_merge")(len(merges), pair, new_id, vocab, t.out_count[k]))
        if progress is not None and done:
            progress(done)
        if t.finished:
            break
    if memory is not None:
        memory["done"] = t.footprint()
    return merges


cdef extern from *:
    void prefetch "__builtin_prefetch" (const void* p) noexcept nogil


cdef inline uint64_t pair_key(int32_t a, int32_t b) noexcept nogil:
    return (<uint64_t>(<uint32_t>a) << 32) | <uint32_t>b


@cython.final
cdef class _Trainer(_TrainerState):
    """The steps of one training run, named as in ``incremental.py``.

    ``incremental.py`` passes its state (``incremental.TrainerState``) between plain
    functions; here the state is the fields of ``_TrainerState`` (``_trainer_state.pxi``),
    so each step is a method: ``load``, ``count_all``, ``pop_best``, ``merge_word``
    (one word), ``apply_merge`` (every word that holds the pair), and ``run``, the
    loop that calls them.
    """

    # ---- the steps, as in incremental.py -----------------------------------------

    cdef load(self, chunk_counts, ranks):
        """Flatten the chunks (bytes -> count) into ``ids``/``start``/``length``.

        The merges we continue from (``ranks``: pair -> new id) are replayed on each
        chunk by ``replay``, which gives what ``textbook.apply_merges`` gives.
        """
        cdef const unsigned char[:] view
        cdef Py_ssize_t j, n
        cdef int64_t s
        cdef size_t longest = 0
        cdef unordered_map[uint64_t, int32_t] rank  # pair key -> new id
        cdef vector[char] first  # first[a * 256 + b]: (a, b) is a merge of two bytes
        first.assign(65536, 0)
        for (a, b), new_id in ranks.items():
            rank[pair_key(a, b)] = new_id
            if a < 256 and b < 256:
                first[a * 256 + b] = 1
        self.start.reserve(len(chunk_counts))
        for chunk, count in chunk_counts.items():
            s = self.ids.size()
            self.start.push_back(s)
            self.wcount.push_back(count)
            view = chunk
            n = view.shape[0]
            for j in range(n):
                self.ids.push_back(view[j])
            if n >= 2 and not rank.empty():
                n = replay(self.ids.data() + s, n, rank, first.data())
                self.ids.resize(s + n)
            self.length.push_back(n)
            if <size_t>n > longest:
                longest = n
        self.stamp.assign(self.length.size(), -1)
        self.mark.assign(longest + 1, 0)

    cdef void count_all(self) noexcept nogil:
        """Count every pair once, index the words that hold it, fill the heap."""
        cdef size_t i, slot
        cdef int64_t s, k, c
        cdef int32_t sl
        cdef vector[int32_t]* ws
        for i in range(self.length.size()):
            s = self.start[i]
            c = self.wcount[i]
            for k in range(s, s + self.length[i] - 1):
                sl = self.slot_of(pair_key(self.ids[k], self.ids[k + 1]))
                self.count[sl] += c
                ws = &self.where[sl]
                if ws.empty() or ws.back() != <int32_t>i:
                    ws.push_back(i)
        for slot in range(self.count.size()):
            self.hpush(self.count[slot], self.slot_key[slot])

    cdef int32_t pop_best(self) noexcept nogil:
        """The slot of the pair to merge next, or -1 when no pair occurs twice.

        Counts only fall (pairs with the newest token are pushed fresh), so a popped
        entry is an upper bound: when its count is stale we push the true count
        back and pop again. A pair whose bytes already are a token is skipped for good.
        """
        cdef cpair[int64_t, uint64_t] top
        cdef uint64_t key
        cdef int64_t c
        cdef int32_t sl
        cdef string joined
        while not self.hempty():
            top = self.hpop()
            key = top.second
            sl = self.find(key)
            c = 0 if sl < 0 else self.count[sl]
            if c != top.first:
                # stale entry: the count fell since it was pushed; push the true one back
                if c > 0:
                    self.hpush(c, key)
                continue
            if c < self.min_count:
                return -1
            joined = self.tok[<int32_t>(key >> 32)]
            joined.append(self.tok[<int32_t>(<uint32_t>key)])
            if self.known.count(joined):
                # subtle: these bytes already are a token (made from another split); skip
                # the pair for good: its count can only fall, so it never needs a re-check
                continue
            if self.max_len and joined.size() > self.max_len:
                continue  # too long a token: skipped for good too (lengths never change)
            return sl
        return -1

    cdef inline Py_ssize_t merge_word(self, int32_t i, int32_t a, int32_t b, int32_t new_id,
                                      vector[int32_t]& fresh) noexcept nogil:
        """Merge (a, b) -> new_id in word i, left to right, in place; its new length.

        The step inside the loop (rustbpe's ``Word::merge_pair``). Instead of
        recounting the word, it changes the pair counts only around the merge sites:
        old pairs that touch a site go, new pairs (all contain new_id) come, each
        times the word's count; the slots of the new pairs are appended to ``fresh``.
        A word without the pair (a stale index entry) is left as it is.

        w=[97, 97, 97, 98], (97, 97) -> 256: marks [1, 2, 0, 0]; (97, 97) loses 2
        (the pairs at 0 and 1 touch the site), (97, 98) is untouched; w becomes
        [256, 97, 98], (256, 97) gains 1; returns 3.
        """
        cdef int32_t* w = self.ids.data() + self.start[i]
        cdef int64_t L = self.length[i], c = self.wcount[i], k, j
        cdef char* mark = self.mark.data()
        cdef bool any_site = False
        cdef int32_t sl
        cdef vector[int32_t]* ws
        # 1. mark the merge sites, left to right: 1 = left half, 2 = right half
        k = 0
        while k < L - 1:
            if w[k] == a and w[k + 1] == b:
                mark[k] = 1
                mark[k + 1] = 2
                any_site = True
                k += 2
            else:
                mark[k] = 0
                k += 1
        if k == L - 1:
            mark[k] = 0
        if not any_site:
            return L  # stale index entry
        # 2. the old pairs that touch a site disappear
        for k in range(L - 1):
            if mark[k] or mark[k + 1]:
                self.count[self.slot_of(pair_key(w[k], w[k + 1]))] -= c
        # 3. rewrite in place (the word only shrinks)
        j = 0
        k = 0
        while k < L:
            if mark[k] == 1:
                w[j] = new_id
                k += 2
            else:
                w[j] = w[k]
                k += 1
            j += 1
        # 4. the new pairs all contain new_id: count them and index the word
        for k in range(j - 1):
            if w[k] == new_id or w[k + 1] == new_id:
                sl = self.slot_of(pair_key(w[k], w[k + 1]))
                self.count[sl] += c
                ws = &self.where[sl]
                if ws.empty() or ws.back() != i:
                    ws.push_back(i)
                fresh.push_back(sl)
        return j

    cdef void apply_merge(self, int32_t slot, int32_t new_id) noexcept nogil:
        """Merge the pair of ``slot`` -> new_id in every word that holds it.

        Pairs that contain ``new_id`` are new: they are pushed once, after all words
        are done, with their final counts.
        """
        cdef uint64_t key = self.slot_key[slot]
        cdef int32_t a = <int32_t>(key >> 32), b = <int32_t>(<uint32_t>key)
        cdef vector[int32_t] words
        cdef vector[int32_t] fresh        # slots of the pairs that contain new_id
        cdef size_t wi, f, n_words, ahead
        cdef int32_t i
        words.swap(self.where[slot])  # the pair is merged everywhere now: its list is done
        n_words = words.size()
        for wi in range(n_words):
            # the words are scattered in memory: ask for a later word's data now, so it
            # is in cache when its turn comes (its bookkeeping 16 ahead, its ids 8 ahead)
            if wi + 16 < n_words:
                ahead = words[wi + 16]
                prefetch(&self.stamp[ahead])
                prefetch(&self.start[ahead])
                prefetch(&self.length[ahead])
                prefetch(&self.wcount[ahead])
            if wi + 8 < n_words:
                prefetch(self.ids.data() + self.start[words[wi + 8]])
            i = words[wi]
            if self.stamp[i] == new_id:
                continue  # listed twice
            self.stamp[i] = new_id
            self.length[i] = self.merge_word(i, a, b, new_id, fresh)
        self.count[slot] = 0
        # push each new pair once, with its final count
        sort(fresh.begin(), fresh.end())
        fresh.erase(unique(fresh.begin(), fresh.end()), fresh.end())
        for f in range(fresh.size()):
            self.hpush(self.count[fresh[f]], self.slot_key[fresh[f]])

    cdef int run(self, int limit) noexcept nogil:
        """Make up to ``limit`` merges; return how many. Sets ``finished`` at the end.

        The loop of ``incremental.train_merges``: pop the best pair, give its bytes
        a new id, apply the merge.
        """
        cdef int done = 0
        cdef int32_t sl, new_id
        cdef uint64_t key
        cdef string joined
        while done < limit:
            sl = self.pop_best()
            if sl < 0:
                self.finished = True
                break
            key = self.slot_key[sl]
            new_id = self.next_id
            self.next_id += 1
            joined = self.tok[<int32_t>(key >> 32)]
            joined.append(self.tok[<int32_t>(<uint32_t>key)])
            self.tok.push_back(joined)
            self.known.insert(joined)
            self.out_left.push_back(<int32_t>(key >> 32))
            self.out_right.push_back(<int32_t>(<uint32_t>key))
            self.out_new.push_back(new_id)
            self.out_count.push_back(self.count[sl])
            self.apply_merge(sl, new_id)
            done += 1
        return done
