"""``Tokenizer(merges)`` checks its merges (issue 48, Medium 4): two merges making one id,
an unknown id, and a float id are named, never lost, a bare KeyError, or truncated.
Reference: the JSON file's own reader (``Tokenizer.load``), which refuses the same lists,
and tiktoken on a valid list."""

import numpy as np
import pytest
import tiktoken

from bpe_lesson import Tokenizer


@pytest.mark.parametrize("merges, message", [
    ([((97, 98), 256), ((99, 100), 256)], r"merge 1 \(\(99, 100\) -> 256\) makes id 256, which merge 0 already"),
    ([((97, 999), 256)], r"merge 0 \(\(97, 999\) -> 256\) joins id 999, which is neither a byte"),
    ([((97, 98), 256.7)], r"merge 0 is \(\(97, 98\), 256\.7\); a merge is \(\(left_id, right_id\), new_id\)"),
    ([((97, True), 256)], r"ids are integers, not True/False"),
    ([(97, 98, 256)], r"merge 0 is \(97, 98, 256\); a merge is"),
    ([((97, 98), 100)], r"makes id 100, a byte's id"),
])
def test_bad_merges_are_named(merges, message, backend):
    with pytest.raises(ValueError, match=message):
        Tokenizer(merges, backend=backend)


def test_a_list_save_could_not_load_is_refused_at_the_start(tmp_path):
    # before: Tokenizer kept the second merge for 256, and save() wrote a file load() refused
    with pytest.raises(ValueError, match="already makes"):
        Tokenizer([((97, 98), 256), ((99, 100), 256)])


def test_numpy_ids_are_integers(backend):
    merges = [((np.int64(97), np.int32(98)), np.uint16(256))]
    tok = Tokenizer(merges, pattern="gpt2", backend=backend)
    enc = tiktoken.Encoding("t", pat_str=tok.pattern, mergeable_ranks=tok._ranks, special_tokens={})
    assert tok.merges == [((97, 98), 256)] and tok.encode("ab abc") == enc.encode("ab abc") == [256, 32, 256, 99]
