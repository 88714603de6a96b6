# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# distutils: language = c++
"""The compiled side of the package, as one extension: the encoder and the trainer.

Read the readable Python first: ``ranks.byte_pair_merge``, ``Tokenizer.encode_ordinary``
and ``patterns.split_chunks`` for the encoder; ``incremental.py`` for the trainer. This
module has the same names and gives the same ids and merges:

* ``Encoder``, ``bpe_encode_chunk``, ``split_chunks``, ``track_lists``, ``SpecialSearch``:
  what ``Tokenizer`` calls when its backend is "cython" (``_encoder.pxi`` and the
  files it uses);
* ``train_merges`` (the ``_Trainer``, step for step as ``incremental.py``) and
  ``ChunkCounter`` (the chunks of texts, counted): what ``trainer`` and ``chunks``
  call (``_incremental.pxi`` on ``_trainer_state.pxi``, ``_chunk_counter.pxi``).

One extension, so each shared piece exists once: the hash table, the scanners and
their class table, and the SIMD switch (``_simd``) that picks which copy of the
vector loops runs. The shared pieces are declared in ``_native.pxd``. The file is
split by concern (msgpack's way: each ``.pxi`` is included once, here):

  _hashtable.pxi     bytes -> value: the vocabulary, the chunk cache, the chunk counts
  _scanners.pxi      the hand-written scanners of the gpt2 and gpt4 patterns, their class table
  _scanner_o200k.pxi the o200k scanner
  _window_cut.pxi    cutting a block of chunks: 64 ASCII bytes at a time by bit masks
                     (_window.h, in C), the scanners elsewhere
  _utf8.h            reading one UTF-8 character, for _scanners.pxi and _window.h; checking UTF-8
  _simd.h            AVX2 where the processor has it, else SSE2
  _front_cache.pxi   the ids of short chunks, in entries with no pointer in them
  _rank_merge.pxi    the rank merge of one chunk (``ranks.byte_pair_merge``)
  _vocab_table.pxi   the vocabulary table (``_Ranks``), ``bpe_encode_chunk``, ``split_chunks``,
                     and the ids out as lists and arrays
  _encoder.pxi       ``Encoder``: the encoder's public API
  _special_search.pxi finding special tokens in many texts (``find_special_batch``); ``track_lists``
  _encode_piece.pxi  encoding one chunk: whole token, cache or rank merge
  _encode_text.pxi   the loop that encodes a text, and why it is fast
  _chunk_counter.pxi ``ChunkCounter``, for ``chunks.count_chunk_bytes``
  _replay.pxi        the merges a trainer continues from, applied to one chunk
  _trainer_state.pxi the trainer's data: words, pair table, heap (``_TrainerState``)
  _incremental.pxi   the trainer's steps (``train_merges``, ``_Trainer``), and why it is fast

What this module does not do: decide whether it is used (``_backend`` does, once),
special tokens beyond finding them, or decoding (a dict lookup, already fast).
"""

include "_hashtable.pxi"
include "_scanners.pxi"
include "_scanner_o200k.pxi"
include "_window_cut.pxi"
include "_front_cache.pxi"
include "_rank_merge.pxi"
include "_vocab_table.pxi"
include "_encoder.pxi"
include "_special_search.pxi"
include "_encode_piece.pxi"
include "_encode_text.pxi"
include "_chunk_counter.pxi"
include "_replay.pxi"
include "_trainer_state.pxi"
include "_incremental.pxi"
