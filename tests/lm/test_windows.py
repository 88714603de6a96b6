"""Training windows (dataset.py) and chat examples with a loss mask (chat.py)."""

import json
import pickle

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_lesson
from bpe_lesson.lm.chat import render_chat, sft_targets
from bpe_lesson.lm.pack import pack
from bpe_lesson.lm.windows import SlidingWindowDataset, check_windows, make_dataloader, window_count

EOS = "<|endoftext|>"


@pytest.fixture(scope="module")
def tok(prose_docs):
    return bpe_lesson.train(prose_docs, 512, special_tokens=[EOS])


@pytest.fixture(scope="module")
def shards(tmp_path_factory, tok, prose_docs):
    """Real shards: 40 prose documents (about 100,000 ids) in shards of at most 30,000 ids."""
    d = tmp_path_factory.mktemp("shards")
    tok.save(d / "tok.json")
    with open(d / "prose.jsonl", "w") as f:
        for t in prose_docs[:40]:
            f.write(json.dumps({"text": t}) + "\n")
    pack([str(d / "prose.jsonl")], str(d / "tok.json"), str(d / "out"), shard_tokens=30_000, progress=False)
    return str(d / "out")


def concatenated(folder):
    m = json.load(open(f"{folder}/manifest.json"))
    return np.concatenate([np.fromfile(f"{folder}/{s['path']}", dtype="<u2") for s in m["shards"]]).astype(np.int64)


# ---- the window count ---------------------------------------------------------------
def brute_force_count(n, t, stride):
    return sum(1 for s in range(0, n, stride) if s + t + 1 <= n)


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 300), t=st.integers(1, 40), stride=st.integers(1, 50))
def test_len_is_the_window_formula(n, t, stride):
    ds = SlidingWindowDataset(torch.arange(n), t, stride)
    assert len(ds) == window_count(n, t, stride) == max(0, 1 + (n - (t + 1)) // stride) == brute_force_count(n, t, stride)
    if len(ds):  # the last window ends inside the ids, one more would not
        x, y = ds[len(ds) - 1]
        assert int(y[-1]) <= n - 1 and (len(ds) * stride + t + 1 > n)


def test_len_when_there_are_fewer_than_t_plus_one_ids():
    assert [len(SlidingWindowDataset(torch.arange(n), 8)) for n in (0, 1, 8, 9, 16, 17)] == [0, 0, 0, 1, 1, 2]
    with pytest.raises(IndexError, match="window 0 is out of range .*0 windows"):
        SlidingWindowDataset(torch.arange(8), 8)[0]


def test_len_on_real_shards_with_t_4096_style_stride(shards):
    n = len(concatenated(shards))
    for t, stride in [(64, None), (64, 32), (100, 1), (1000, 777), (n - 1, None), (n, None)]:
        ds = SlidingWindowDataset(shards, t, stride)
        assert len(ds) == brute_force_count(n, t, stride or t)
    assert len(SlidingWindowDataset(shards, 256)) == (n - 1) // 256  # stride = T: floor((N-1)/T)


# ---- windows: shifted, stitched across shards -----------------------------------------
def test_item_is_x_and_y_shifted_by_one():
    ds = SlidingWindowDataset(torch.arange(100, 120), 4, stride=3)
    x, y = ds[2]
    assert x.tolist() == [106, 107, 108, 109] and y.tolist() == [107, 108, 109, 110]
    assert check_windows(ds) == min(8, len(ds))


def test_windows_that_cross_a_shard_boundary_equal_the_concatenated_ids(shards):
    ids = concatenated(shards)
    m = json.load(open(f"{shards}/manifest.json"))
    boundaries = np.cumsum([s["n_tokens"] for s in m["shards"]])[:-1]
    t, stride = 200, 97
    on_disk, in_memory = SlidingWindowDataset(shards, t, stride), SlidingWindowDataset(torch.from_numpy(ids), t, stride)
    assert len(on_disk) == len(in_memory)
    crossing = [i for i in range(len(on_disk)) if any(i * stride < b <= i * stride + t for b in boundaries)]
    assert len(crossing) >= len(boundaries) >= 2
    for i in range(len(on_disk)):
        x1, y1 = on_disk[i]
        x2, y2 = in_memory[i]
        assert torch.equal(x1, x2) and torch.equal(y1, y2), f"window {i} differs"
    assert on_disk[crossing[0]][0].dtype == torch.int64


def test_the_dataset_pickles_without_the_corpus(shards):
    ds = SlidingWindowDataset(shards, 128)
    ds[0]  # opens the memory maps
    blob = pickle.dumps(ds)
    assert len(blob) < 10_000  # paths and offsets, not 100,000 ids
    assert torch.equal(pickle.loads(blob)[5][1], ds[5][1])


def test_check_windows_catches_targets_that_are_not_shifted():
    class Unshifted(SlidingWindowDataset):
        def __getitem__(self, i):
            x, _ = super().__getitem__(i)
            return x, x  # the bug: y should be the ids one step later

    with pytest.raises(ValueError, match="item 0: y is not x shifted by one"):
        check_windows(Unshifted(torch.arange(50), 8))


# ---- refusing shards from another tokenizer or model -------------------------------------
def test_the_dataset_refuses_a_different_vocab_size_or_eos(shards, tok, prose_docs):
    assert len(SlidingWindowDataset(shards, 64, tokenizer=tok, config={"vocab_size": 512, "eos_token_id": 511})) > 0
    with pytest.raises(ValueError, match="vocab_size: the model config says 50257, the manifest says 512"):
        SlidingWindowDataset(shards, 64, config={"vocab_size": 50257, "eos_token_id": 511})
    with pytest.raises(ValueError, match="eos_token_id: the model config says 0, the manifest says 511"):
        SlidingWindowDataset(shards, 64, config={"vocab_size": 512, "eos_token_id": 0})
    bigger = bpe_lesson.train(prose_docs, 600, special_tokens=[EOS])
    with pytest.raises(ValueError, match="vocab_size: the tokenizer has 600, the manifest says 512"):
        SlidingWindowDataset(shards, 64, tokenizer=bigger)


def test_the_dataset_refuses_a_drifted_tokenizer_of_the_same_size(shards, prose_docs):
    # same size, same EOS id, other merges: every id means other text
    drifted = bpe_lesson.train(prose_docs[1:], 512, special_tokens=[EOS])
    assert drifted.vocab_size == 512 and drifted.special_tokens[EOS] == 511
    with pytest.raises(ValueError, match="fingerprint: the tokenizer has the same size and EOS but other tokens"):
        SlidingWindowDataset(shards, 64, tokenizer=drifted)


# ---- the DataLoader's order ----------------------------------------------------------------
def order(loader):
    return [x[:, 0].tolist() for x, _ in loader]


def test_dataloader_order_depends_only_on_seed_and_epoch():
    ds = SlidingWindowDataset(torch.arange(2000), 16)
    a = order(make_dataloader(ds, 8, seed=1234, epoch=3))
    assert a == order(make_dataloader(ds, 8, seed=1234, epoch=3))
    assert a != order(make_dataloader(ds, 8, seed=1234, epoch=4))
    assert sorted(sum(a, [])) == [16 * i for i in range(len(ds))]  # each window once per epoch


def test_dataloader_with_worker_processes_reads_shards(shards):
    ds = SlidingWindowDataset(shards, 128)
    one = order(make_dataloader(ds, 16, seed=0, epoch=0))
    two = order(make_dataloader(ds, 16, seed=0, epoch=0, num_workers=2))
    assert one == two


# ---- chat: the loss mask -------------------------------------------------------------------
CHAT = [
    {"role": "system", "content": "You answer in one sentence."},
    {"role": "user", "content": "What does BPE stand for?"},
    {"role": "assistant", "content": "Byte-pair encoding."},
    {"role": "user", "content": "And what is <|endoftext|> for?"},
    {"role": "assistant", "content": "It marks where a document ends."},
]


def test_loss_mask_is_one_exactly_on_assistant_tokens(tok):
    ids, mask = render_chat(tok, CHAT)
    assert len(ids) == len(mask) and set(mask) == {0, 1}
    eos = tok.special_tokens[EOS]
    learned = [i for i, m in zip(ids, mask) if m]
    expected = (tok.encode_ordinary("Byte-pair encoding.") + [eos]
                + tok.encode_ordinary("It marks where a document ends.") + [eos])
    assert learned == expected
    given_ = tok.decode([i for i, m in zip(ids, mask) if not m])
    assert given_ == ("### System:\nYou answer in one sentence.\n\n### User:\nWhat does BPE stand for?\n\n"
                      "### Assistant:\n\n\n### User:\nAnd what is <|endoftext|> for?\n\n### Assistant:\n\n\n")
    assert ids.count(eos) == 2  # the user's "<|endoftext|>" text stayed text


def test_sft_targets_ignore_the_prompt_and_refuse_an_all_ones_mask(tok):
    ids, mask = render_chat(tok, CHAT)
    x, y = sft_targets(ids, mask)
    assert x.tolist() == ids[:-1]
    assert [int(v) for v in y if v != -100] == [i for i, m in zip(ids[1:], mask[1:]) if m]
    with pytest.raises(ValueError, match="loss_mask is 1 on all .* the prompt"):
        sft_targets(ids, [1] * len(ids))
    with pytest.raises(ValueError, match="same length"):
        sft_targets(ids, mask[:-1])
