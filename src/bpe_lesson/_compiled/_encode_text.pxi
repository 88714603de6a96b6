# The loop that encodes a text: cut chunks, look them up in blocks, merge the rest.
# Included once, by _native.pyx, after the Encoder class (_encoder.pxi);
# it reads the vocabulary table and the chunk cache (_hashtable.pxi), the front
# cache (_front_cache.pxi), the scanners (_scanners.pxi) and the rank merge
# (_rank_merge.pxi).
#
# What this file does not do: hold any state (the Encoder owns the tables and the
# output buffer), or touch Python objects (everything here runs without the GIL).

# Why it is fast (perf record on one core of a 2-core x86-64 machine, 10 MB of
# CPython's stdlib sources, cl100k_base, encode_ordinary; benchmarks/encode_speed.py
# measures the speeds against tiktoken and gigatoken):
#   Before, each chunk probed the 8 MB rank table, then the chunk cache, and each id
#   became a new Python int in a buffer made afresh per call. encode_piece took 23%
#   of the samples, half of them on the load of the table's first slot (a wait on
#   main memory); making and freeing the ints ~17%; page faults of the new buffers
#   ~10%; the scanner ~10%; UTF-8 encoding 3.5%.
#   * The front cache (_front_cache.pxi) answers most chunks from 4 MB of entries
#     with the ids inline. Warm, at 2 MB, it answered 97% of the chunks of this code, 98% of
#     English prose, 99% of the Bible and 84-89% of text in many scripts (there
#     more chunks are longer than 16 bytes).
#   * Blocks of 64 chunks: cut them, prefetch their entries, then look them up.
#     The scanner's work on the next chunks hides the wait for the first entries.
#   * One int object per rank, made once (_Ranks.ints): a list holds references
#     to them. encode_to_numpy copies the C buffer and makes no int at all.
#   * The output buffer is kept between calls (up to keep_ids ids): no page faults
#     on the second call.
#   * The scanners take ASCII runs eight bytes a step (_scanners.pxi).
#   * Then the window scanner (_window.h, _window_cut.pxi): the chunk starts of 64
#     bytes of ASCII at once, from bit masks of the byte classes, with no branch
#     per chunk; the scalar scanner only where its rules stop (bytes >= 0x80,
#     contractions, white space before a newline). Scanning went from ~24% of
#     the samples (scalar: next_gpt4 and run) to ~9% (7% window, 2% scalar).
#   * A miss asks the chunk cache before the rank table: what misses the front
#     cache is mostly chunks of 4 ids or more, which only the chunk cache has
#     (multilingual text: 107 -> 119 MB/s, the others unchanged).
#   * Entries of 4 to 6 ids, packed 18 bits each (_front_cache.pxi): multilingual
#     text with cl100k_base 99 -> 114 MB/s.
#   * A merge starts from the byte pairs of its chunk: their ranks come from a flat
#     array of all 65,536 pairs (Table.small_ranks), not from hash probes.
#   After the front cache: this loop 23% of the samples, misses (encode_piece) 9%,
#   the scanner 13%, the list 11%, UTF-8 encoding 7%. After the window scanner
#   (encode_ordinary): this loop 34%, misses 11%, making and freeing the list 16%,
#   the window scanner 7%, the scalar one 2%. encode_to_numpy makes no list:
#   there this loop is 47%, misses 15%, the window scanner 9%; what is left is
#   mostly the wait for the front-cache entries (2 MB then, 4 MB now: either is
#   larger than a core's L2).
#   Tried and dropped: a smaller cache that fits a core's L2 (512 KB) missed more
#   (warm, on this code: 8,192 entries 6.4% of the chunks, 32,768 3.3%, 65,536
#   3.0%) and was no faster once prefetched; prefetching the rank-table slot of
#   each miss in a second pass over the block: no gain we could measure; an 8-bit
#   class mask from eight table loads in run(): no faster than the byte loop; the
#   tables in 2 MB huge pages (madvise), for fewer TLB misses: no faster either
#   (and this kernel gave none); blocks of 32 or 128 chunks instead of 64: no
#   difference beyond the noise; in bpe_small, each part's id kept from the merge
#   that made it instead of looked up at the end: no gain (the lookup finds the
#   slot the merge just read, in the cache); in bpe_small, both neighbours' slots
#   prefetched before either is probed (cold, the slot loads are ~45% of it): no
#   gain either, the processor already overlaps the two; a pair table, (left
#   rank, right rank) -> rank for every split of a token into two tokens (233,378
#   for cl100k_base, 446,189 for o200k_base; 8-byte slots), with each part's rank
#   kept through the merge: the same ids, and cold 0-9% faster on multilingual
#   text, nothing measurable elsewhere, for 4-8 MB more per vocabulary and a
#   longer load.
#   Where the warm time goes, stage by stage (an instrumented copy of this loop,
#   cl100k_base, the 10 MB of code, best of 5): the window scanner alone 11-14 ms;
#   with each chunk's key and hash 18 ms; with the front-cache lookups 30-31 ms;
#   all of encode_text 42 ms (gigatoken: 29-44 ms for everything). Also tried and
#   dropped: a front_find with no branch (both ways compared, then a select), no
#   change; a 512 KB front cache (it fits L2), and the lookups took as long.
#   Then valgrind, which counts instructions and simulates caches and branches the
#   same way on every run (timings here move by 10% from run to run). One warm pass
#   over 1 MB of the code, cl100k_base, the front cache at 4 MB: we ran 26.5 M
#   instructions to gigatoken's 28.9 M, with about as many simulated misses of a 512
#   KB L2 (75 K and 68 K) and mispredicted branches (87 K and 69 K). So the gap was
#   time spent waiting, not work; a build with -march=native (AVX2, BMI2) was no
#   faster.
#   Three changes, each against the build before it in one process (31 alternations,
#   twice):
#   * the front cache 2 -> 4 MB (_front_cache.pxi): warm misses on the code 2.18% ->
#     1.39% of the chunks; 0-21% faster, most on code and many scripts;
#   * the ids of runs of up to 128 spaces in a table of their own (space_runs_fill):
#     0.65% of the code's chunks, which had gone to the chunk cache; by itself within
#     the noise;
#   * the front cache and the rank table's slots in 2 MB pages (big_alloc in
#     _hashtable.pxi): 4 MB of entries were 1,024 pages of 4 KB, and a lookup lands
#     on any of them; 2-10% faster on every text.
#   Together, warm, encode_to_numpy's speed against the start of this pass: code
#   +16-25%, many scripts +12-25%, prose +3-11%, the Bible +0-6% (best of 31, two
#   runs); as a ratio to gigatoken's NumPy encode (medians), 0.72-1.04 before and
#   0.83-1.17 after. perf, warm, the 10 MB of code: encode_text 60 -> 68% of the
#   samples, misses (encode_piece) 17 -> 7%, the window scanner 13 -> 14%, the scalar
#   scanner 6% both times, the copy into the array 3%.
#   Tried and dropped in that pass: prefetching the chunk-cache and rank-table slots
#   of each front-cache miss (a look-ahead over the block, or from its first miss
#   on): many scripts 5-7% faster, prose and the Bible 3-12% slower; one loop that
#   prefetches chunk j's entry and looks up chunk j - AHEAD (AHEAD 8, 16 or 32)
#   instead of two loops per block: no faster; in bpe_small, prefetching the slot of
#   every piece of 3 bytes or more before the merge (chunks up to 8, 16 or 24 bytes):
#   cold no faster; letting the next window take a white-space run at a window's end
#   instead of the scalar scanner: 18% more instructions (valgrind).
#   Then why the 10 MB of code was the slowest cell. Against gigatoken in one process,
#   ours was level on its first 1 MB (a median ratio of 1.00 with cl100k_base) and
#   0.82 on all 10 MB; gigatoken lost 3% from 1 to 10 MB, ours 15%. Ten calls of 1 MB
#   were as slow as one of 10 MB, so it was not the output's size but the text's
#   chunks: ~55,000 distinct ones of 16 bytes or fewer, for the front cache's 65,536
#   sets of two. Sets that a hash gives three hot chunks push one out on every pass:
#   11,549 misses a warm pass (0.5% of the chunks, each a trip to the chunk cache),
#   where the first 1 MB had 168. A table four times larger has far fewer such sets,
#   but 16 MB from the start was 15-20% slower cold on prose and the Bible (the
#   kernel zeroes each 2 MB page at its first touch). So the table grows once, after
#   8,192 entries pushed out (front_grow): the code grows in its second pass, then
#   misses ~1,000 a pass; prose and the Bible never grow. Warm, each build in its own
#   processes, ratio to gigatoken's NumPy encode (medians of 3 processes, two runs):
#   code 0.84-0.86 -> 0.92-0.96 with cl100k_base, 0.89-0.91 -> 0.98-1.00 with
#   o200k_base; the other texts the same within the noise.
#   Tried and dropped in that pass: the entries prefetched to L2 only while the block
#   is cut, and to L1 2, 4 or 8 chunks ahead of the lookup (gigatoken's two steps): no
#   faster; encode_to_numpy writing the ids straight into its array (made one id per
#   byte long, then cut to length) instead of copying them from the kept buffer: no
#   faster either.
#   Cold, text in many scripts was the slowest cell: perf put 57% of the encoder's
#   samples in bpe_small, most of them on the loads of the rank table's slots (main
#   memory after 64 MB of other reads). 65% of the merge's probes of 3 bytes or more
#   were of byte strings that are no token; a Bloom filter of 16 bits per token
#   (table_filter in _hashtable.pxi) now answers those. Medians of 11 cold passes:
#   many scripts 19.3-19.8 -> 24.0-27.5 MB/s with cl100k_base, 16.8-18.9 ->
#   20.9-21.7 with o200k_base; 64 bits per token (1 MB) gained about half as much,
#   the filter's own words being the next wait.
#   On a second machine (a 2-core Intel Xeon: 2 MB of L2 a core, 260 MB of L3; no
#   hardware counters in its VM), English prose with cl100k_base was the slowest
#   warm cell (0.84-0.90 of gigatoken). valgrind, one warm pass over its 0.47 MB:
#   13.4 M instructions to gigatoken's 13.6 M, and 38 K simulated mispredicted
#   branches to its 26 K; of ours, 26 K in this loop (about 8 K on which of a
#   set's two entries holds the chunk, 8 K on the end of each window's loop over
#   its chunk starts), 7 K in the scalar scanner, 3 K in the window scanner. Both
#   were tried and dropped: the starts written eight a step whatever the bits
#   (popcount, then one ctz each; simdjson's way), the same speed; front_find
#   comparing both entries and then selecting, 5-10% slower on every text. The
#   simulator's predictor is simpler than this processor's, which already
#   predicts most of those branches. Also dropped there: the output buffer in 2
#   MB pages (madvise once it passes 2 MB), for fewer page faults on a cold 10 MB
#   call; it got them (10 MB more AnonHugePages) and was no faster (a fresh
#   process each, 21 pairs: a median ratio of 0.91, quartiles 0.79-1.00).
#   Then a new encoder's first call. valgrind, a fresh process's first call on the
#   10 MB of code with cl100k_base (the process without it subtracted): ours ran
#   374.0 M instructions, 2,336 K simulated L1 data misses and 3,294 K mispredicted
#   branches, gigatoken 383.3 M, 1,632 K and 1,693 K. A warm pass of ours is 296.8
#   M, 908 K and 1,132 K (gigatoken's 320.0 M, 1,156 K and 682 K). Of what the
#   first call adds, 1,257 K mispredicts were in bpe_small, 38 a merge, and the call
#   took 2,918 page faults. Two changes: the merge by byte offsets (bpe_lanes in
#   _rank_merge.pxi, figures there), and encode_to_numpy writing a long text's ids
#   straight into its array when the kept buffer has no room for them
#   (Encoder.encode_to_numpy; 53 faults). After both: 370.9 M instructions, 2,033 K
#   L1 misses, 2,263 K mispredicts. Dropped: the chunk cache keeping no chunk the
#   front cache holds (an entry pushed out of the front cache moved into it
#   instead), for fewer inserts on a first pass: 95 K fewer mispredicts and 173 K
#   fewer L1 misses under valgrind, and in one process no faster (warm 0.97-0.98 of
#   the build without it, a fresh encoder's pass 1.00-1.03).
#   Then text in many scripts, the slowest warm cell after that (0.88-0.91 of
#   gigatoken in one process). perf, warm, cl100k_base: the scalar scanner took
#   28% of the samples (run 18%, next_gpt4 10%), this loop 21%, the window scanner
#   7%: every byte >= 0x80 had sent the window to the scalar scanner, whose loops
#   end at every word. valgrind, a warm pass over its 0.82 MB: 32.1 M instructions
#   and 252 K mispredicted branches (68 K in run, 54 K in next_gpt4), gigatoken 33.0
#   M and 137 K. The window scanner now reads characters of two to four bytes itself
#   (_window.h, bpe_classify_wide): 29.3 M instructions and 144 K mispredicts (run
#   and next_gpt4 8 K each, the window scanner 33 K); in one process, warm, 22-30%
#   faster on that text (medians of 31 alternations, 110 -> 131 MB/s with
#   cl100k_base, 103 -> 132 with o200k_base), a fresh encoder's pass 2-6%, the
#   trainer's chunk counting 13%; the other texts the same within the noise. As
#   ratios to gigatoken's NumPy encode in one process (medians of 21): 0.88 -> 1.12
#   with cl100k_base, 0.91 -> 1.24 with o200k_base. Dropped there: the wide
#   characters decoded with no branch on their length (the window copied to a
#   padded buffer, the classes ORed in by arithmetic): 15-17% slower on that text,
#   whose scripts keep the branches predictable; a long chunk's key made and its
#   chunk-cache slot prefetched while the block is cut: warm 1-2% faster, a fresh
#   encoder 3-6% slower.
#   Then the windows that end in white space (indentation): the limit backed up to
#   the start of the run, so the scalar scanner cut the chunk before it again (the
#   word before the indentation). That start depends only on the character before
#   it, so it is now trusted (bpe_ws_limit in _window.h). valgrind, a warm pass
#   over the 10 MB of code with cl100k_base: next_gpt4 and run 13.6 M instructions
#   and 183 K mispredicts -> 9.7 M and 122 K; with this loop and the window scanner,
#   289.8 M and 1,119 K -> 286.8 M and 1,041 K. In one process, warm, code +2-3%
#   (41 alternations), prose and the Bible +2-7%, a fresh encoder the same.
#   Then which way of a front-cache set holds the chunk, the branch that earlier
#   changes (a front_find with no branch) could not remove: a hit in the second way
#   now swaps the set's two entries (figures in _front_cache.pxi), so hits land in
#   the first way. As ratios to gigatoken's NumPy encode in one process, warm
#   (medians of 21): cl100k_base code 1.06, prose 1.04, the Bible 1.02, many
#   scripts 1.20; o200k_base 1.11, 1.22, 1.15, 1.25.
#   Then a first call again. valgrind, a fresh process's first call on the 10 MB of
#   code with cl100k_base (the process without it subtracted): ours 470.7 M
#   instructions, 2,839 K simulated L1 data misses, 1,825 K mispredicts; gigatoken
#   487.5 M, 2,359 K, 1,671 K (both with Python's 100 M to convert the str to UTF-8).
#   The chunk cache took its 33,009 merged chunks from 1,024 slots to 65,536 by six
#   doublings, each moving every entry (table_insert: 165 K mispredicts, 141 K L1
#   misses). It now gets room for one chunk per 256 bytes of a long text before the
#   loop (table_reserve in _hashtable.pxi): 466.1 M, 2,106 K and 1,564 K, below
#   gigatoken's on all three. In one process a fresh encoder's pass is 2-4% faster on
#   code, prose and the Bible with cl100k_base, the same on many scripts and with
#   o200k_base (medians of 21-31 alternations); warm the same.
#   Dropped there: a UTF-8 conversion of our own, 16 code points a step while they
#   are ASCII, kept in the str where Python keeps its own. It was 1.12x Python's on
#   the code (10.6 against 11.9 ms: the first touch of the output's pages and the
#   40 MB read of a 4-byte-kind str are most of it) and 0.69x on many scripts.
#   Then the lookup loop's own instructions (perf annotate, a warm pass over prose):
#   it loaded out.p and out.n and stored out.n for every chunk, since it also writes
#   64-bit words through pointers and calls encode_piece, and the compiler could not
#   keep out.n in a register. The output's end is now a local there, written back
#   around encode_piece. In one process against the build before (medians of 31
#   alternations, two runs), warm: the Bible +6-10%, code +7%, prose +3-4%; many
#   scripts +4-5% (21); a fresh encoder +1-6%.
#   Then the loop that makes each chunk's key (objdump): a 16-byte copy of the chunk
#   and the two masks went through an SSE register and the stack (a store, then
#   loads of it back) before the hash, because k0 and k1 sat side by side in
#   Pending and the compiler joined their masking and their stores. Two 8-byte
#   loads into registers (front_key), and k0 and k1 apart in Pending: warm, code
#   +5%, prose +7-9%, the Bible +8% (31 alternations; both vocabularies), many
#   scripts the same.
#   Then a new encoder's first pass over text in many scripts: its chunk cache ended
#   with 22,035 chunks (cl100k_base), one per 37 bytes, where the room made before
#   the loop was for one per 256 (3,205), so it still doubled three times (valgrind:
#   table_rehash 1.9 M instructions, 69 K L1 misses). cache_need adds one per 16
#   bytes outside ASCII, counted at every 64th byte: in one process a fresh
#   encoder's pass 1-4% faster there (31 alternations, twice, both vocabularies),
#   the Bible the same.
#
# Many texts on two threads (Tokenizer.encode_batch, the 758 files of the same
# 10 MB): this loop had let go of the GIL, and still 2 threads gave x0.95-1.10
# of one. Where the second core went, found with gc.callbacks, per-share
# timestamps and perf, and what was done:
#   * The cycle collector. A batch makes one list per text; a collection that
#     started while a thread made its lists walked every id of the shares done
#     so far, under the GIL: 16-21 ms of a 70 ms batch. The lists now stay
#     untracked until the batch is whole (encode_batch(track=False), then
#     track_lists), and a collection finds nothing to walk.
#   * One Py_INCREF per id, under the GIL. Encoder._lists now writes the items
#     and counts each id's uses without the GIL, and adds each distinct id's
#     references in one step (PyList_New's zeroing of the items went too).
#     One thread gains as well: encode_ordinary 4-14% faster, freeing included.
#   * The special-token search let go of the GIL once per text and waited for
#     it after each; a share's texts are now searched in one call
#     (find_special_batch).
#   * A spare encoder went to whichever thread asked for one, so a share could
#     run on a core whose L2 held the other encoder's entries; thread k now keeps
#     helper(k). The threads are kept between calls (_internal/batch.py, _helper_pool),
#     and the shares shrink towards the end, so the two threads end together.
#   After: x1.5-1.6 in benchmarks/encode_speed.py, x1.6-1.8 as the median of
#   paired runs in one process (alternating 1 and 2 threads). What is left
#   under the GIL is making the list objects, the additions to the counts, and
#   freeing the lists when the caller drops them (list_dealloc, ~4.5 ms of a
#   ~35 ms batch, all on one thread). Pinning each thread to a core changed
#   nothing we could measure.
#   * encode_batch_to_numpy (Encoder.encode_batch(array=True)) skips the lists:
#     an array per text, made under the GIL and filled without it, no reference
#     to count, and dropping the batch is one free per text (the lists' is one
#     decrement per id, 5-7 ms on one thread). In two benchmark runs: x1.37-1.91
#     on 2 threads (medians of 15 paired runs x1.64-1.81), where the lists gave
#     x1.39-1.61 (medians x1.38-1.51). The bare compiled call on two halves of
#     the batch, no Python around it, gave medians of x1.60-1.83 here: what is
#     left is mostly the machine.

cdef extern from *:
    """
    #define BPE_PREFETCH(p) __builtin_prefetch((const void*)(p))
    """
    void prefetch "BPE_PREFETCH"(const void* p) noexcept nogil

cdef enum:
    BLOCK = 64      # chunks cut, then looked up, at a time
    CACHE_RESERVE_SHIFT = 8     # encode_text makes room in the chunk cache for one
                                # chunk per 2**8 bytes of text
    FRONT_MID_TEXT = 1 << 22    # ... and a text of 4 MB or more starts with a 4 MB front cache

cdef inline size_t cache_need(const uint8_t* s, Py_ssize_t n) noexcept nogil:
    """About how many chunks a first pass over s[0:n] leaves in the chunk cache:
    one per 2**CACHE_RESERVE_SHIFT bytes, and one per 16 bytes outside ASCII
    (counted at every 64th byte). Words of other scripts are rarely one token:
    the benchmark's text in many scripts (43% of its bytes outside ASCII) left
    22,035 chunks there with cl100k_base, one per 37 bytes; code, prose and the
    Bible one per 264-375 bytes."""
    cdef size_t wide = 0
    cdef Py_ssize_t i
    for i in range(0, n, 64):
        wide += s[i] >> 7
    return (<size_t>n >> CACHE_RESERVE_SHIFT) + ((wide * 64) >> 4)


cdef struct Pending:    # a chunk of the current block
    Py_ssize_t start, n
    uint64_t k0         # its front-cache key (chunks of at most FRONT_KEY bytes) ...
    Front* f            # ... its set, or NULL for a longer chunk
    uint64_t k1         # (k0 and k1 apart: side by side, the compiler joined their
                        # masking into SSE, moved through the stack)


cdef int encode_text(const Table* R, Table* C, FrontTable* F, int most_ids, int kind, const uint8_t* s,
                     Py_ssize_t n, IdBuf* out) noexcept nogil:
    """Scan the text chunk by chunk and encode each; 0, or -1 when out of memory.
    ``most_ids``: how many ids a front-cache entry may hold for this vocabulary.

    A block of up to BLOCK chunks at a time: cut them and ask the memory for their
    front-cache entries (prefetch), then look them up in order. The scanner's work
    on the next chunks hides the wait for the entries of the first.

    ``out`` has room for n + FRONT_IDS ids: a chunk of L bytes gives at most L ids,
    and a front-cache hit copies all FRONT_IDS inline ids before it counts the
    chunk's own (one branch less).
    """
    cdef Pending P[BLOCK + CUT_SLACK]
    cdef Py_ssize_t ends[BLOCK + CUT_SLACK]
    cdef Pending* c
    cdef Py_ssize_t i = 0, start
    cdef int nb, j
    cdef size_t before
    cdef Front* f
    cdef Front tmp
    cdef Front* entries
    cdef int shift
    cdef const uint32_t* row
    cdef uint32_t* op
    cdef const uint8_t* end = s + n
    if kind == KIND_NONE:
        return encode_piece(R, C, s, n, out) if n else 0
    # a long text: make the chunk cache's room at once (cache_need), not by
    # doubling as it fills (table_reserve); and a front cache of 4 MB from the
    # start (front_grow)
    if 2 * (n >> CACHE_RESERVE_SHIFT) > C.mask + 1 and table_reserve(C, min(cache_need(s, n), cache_entries)) < 0:
        return -1
    if n >= FRONT_MID_TEXT and F.bits < FRONT_MID_BITS:
        front_grow(F)
    F.used = True
    while i < n:
        if F.evictions > (<size_t>1 << (F.bits - 4)) and F.bits < FRONT_MAX_BITS:
            front_grow(F)           # between blocks: no entry is pending
        entries = F.e
        shift = 65 - F.bits
        # 1. cut a block of chunks (_window_cut.pxi); find and prefetch each one's entry
        start = i
        nb = cut_block(kind, s, n, &i, ends, BLOCK)
        for j in range(nb):
            c = &P[j]
            c.start = start
            c.n = ends[j] - start
            start = ends[j]
            if c.n <= FRONT_KEY:
                front_key(s + c.start, c.n, end, &c.k0, &c.k1)
                c.f = front_slot(entries, shift, c.k0, c.k1, c.n)
                prefetch(c.f)
            else:
                c.f = NULL
        # 2. look them up, in order. The output's end is a local (op) here, written
        # back to out.n around encode_piece: the loop also writes 64-bit words
        # through pointers (the swap) and calls encode_piece, which writes *out,
        # so the compiler had kept out.n in memory, a load and a store per chunk,
        # each chunk's place waiting on the store before it (figures above)
        op = out.p + out.n
        for j in range(nb):
            c = &P[j]
            f = front_find(c.f, c.k0, c.k1, c.n) if c.f != NULL else NULL
            if f != NULL and f != c.f:   # a hit in the second way: move it first (_front_cache.pxi)
                tmp = c.f[0]
                c.f[0] = f[0]
                f[0] = tmp
                f = c.f
            if f != NULL:  # hit: the ids are inline
                if f.nids <= FRONT_IDS:
                    op[0] = f.ids[0]
                    op[1] = f.ids[1]
                    op[2] = f.ids[2]
                else:
                    front_unpack(f, op, f.nids)
                op += f.nids
                continue
            if (c.f == NULL and c.n <= SPACE_RUN_MAX and R.space_runs != NULL
                    and all_spaces(s + c.start, c.n)):
                # a run of spaces too long for the front cache (space_runs_fill)
                row = R.space_runs + c.n * (SPACE_RUN_IDS + 1)
                if row[0]:
                    op[0] = row[1]
                    op[1] = row[2]
                    op[2] = row[3]
                    op[3] = row[4]
                    op += row[0]
                    continue
            out.n = op - out.p
            before = out.n
            if encode_piece(R, C, s + c.start, c.n, out) < 0:
                return -1
            if c.f != NULL and out.n - before <= <size_t>most_ids:
                F.evictions += front_fill(c.f, c.k0, c.k1, c.n, out.p + before, out.n - before)
            op = out.p + out.n
        out.n = op - out.p
    return 0
