"""Every training stage's data shape (chat.py, preference.py, rl.py, windows.py, shards.py), each
against something independent: Meta's Llama 3 chat format, Hugging Face's ``apply_chat_template``
with Qwen's template, a model run on each unpadded sequence alone, NumPy's SeedSequence,
Meta's own encoder for uint32 shards, and the kernel's count of the process's memory."""

import json
import os
import random

import numpy as np
import pytest
import torch

import bpe_lesson
from bpe_lesson.formats.pretrained import from_pretrained
from bpe_lesson.lm.chat import TEMPLATES, render_chat
from bpe_lesson.lm.pack import pack
from bpe_lesson.lm.preference import (check_shared_prompt, encode_pair, gather_last, pair_batch,
                                      preference_batch)
from bpe_lesson.lm.rl import extract_answer, reward, rl_prompts
from bpe_lesson.lm.shards import padded_vocab_size, verify
from bpe_lesson.lm.windows import SlidingWindowDataset, loader_seed, make_dataloader

# Qwen2-7B-Instruct's "chat_template", from its tokenizer_config.json on the Hugging Face Hub
QWEN2_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}{% endif %}"
    "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")

PIECES = ["Hi", "What does BPE stand for?", "Byte-pair encoding.", " leading space", "trailing\n",
          "\n\nnewlines first", "中文 and 日本語", "émigré naïve", "😀👍🏽", "1,234 + 5 = 1,239", "", "  ",
          "tab\there", "<|eot_id|> is text here", "<|begin_of_text|><|start_header_id|>user", "x" * 40,
          "Ça va?\r\n", "code: def f(x):\n    return x\n", "\u200b", "ﬁ ligature"]


def dialog(rng, plain_only=False):
    """1-8 messages, user and assistant in turn, a system message first half the time."""
    pool = [p for p in PIECES if not (plain_only and ("<|" in p or p[:1].isspace()))]
    msgs = [{"role": "system", "content": rng.choice(pool)}] if rng.random() < 0.5 else []
    for k in range(rng.randint(1, 8) - len(msgs) or 1):
        content = "".join(rng.choice(pool) for _ in range(rng.randint(0, 3)))
        if plain_only and content[:1].isspace():
            content = content.lstrip()
        msgs.append({"role": ("user", "assistant")[k % 2], "content": content})
    return msgs


@pytest.fixture(scope="module")
def llama3():
    return from_pretrained("llama3")


@pytest.fixture(scope="module")
def meta_format():
    from llama_models.llama3.chat_format import ChatFormat
    from llama_models.llama3.tokenizer import Tokenizer
    return ChatFormat(Tokenizer.get_instance())


def meta_ids(fmt, msgs):
    from llama_models.datatypes import RawMessage
    return fmt.encode_dialog_prompt([RawMessage(**m) for m in msgs]).tokens


# ---- chat templates ------------------------------------------------------------------------------
def test_llama3_ids_equal_meta_chat_format_on_1000_dialogs(llama3, meta_format, backend):
    llama3.backend = backend
    rng = random.Random(34)
    header = meta_format._encode_header("assistant")
    for n in range(1000):
        msgs = dialog(rng)
        want = meta_ids(meta_format, msgs)
        ids, mask = render_chat(llama3, msgs, "llama3", add_generation_prompt=True)
        assert ids == want, f"dialog {n}: {msgs}"
        assert mask[-len(header):] == [0] * len(header)
        bare, bare_mask = render_chat(llama3, msgs, "llama3")  # without the generation prompt
        assert bare == want[:-len(header)] and bare_mask == mask[:-len(header)]


def test_llama3_mask_decodes_to_the_assistant_messages_and_their_eot(llama3, meta_format):
    rng = random.Random(35)
    eot = llama3.special_tokens["<|eot_id|>"]
    for _ in range(300):
        msgs = dialog(rng)
        ids, mask = render_chat(llama3, msgs, "llama3")
        learned = [i for i, m in zip(ids, mask) if m]
        # independent: Meta's tokenizer on each assistant message alone, plus the eot id
        expected = [i for m in msgs if m["role"] == "assistant"
                    for i in meta_format.tokenizer.encode(m["content"], bos=False, eos=False) + [eot]]
        assert learned == expected
        assert llama3.decode(learned) == "".join(m["content"] + "<|eot_id|>" for m in msgs
                                                  if m["role"] == "assistant")
    # the text "<|eot_id|>" inside a message is text: one real eot per message
    ids, _ = render_chat(llama3, [{"role": "user", "content": "<|eot_id|>"}], "llama3")
    assert ids.count(eot) == 1


@pytest.fixture(scope="module")
def qwen_hf(tmp_path_factory):
    """Our Qwen vocabulary, exported and loaded back as transformers' PreTrainedTokenizerFast."""
    from transformers import PreTrainedTokenizerFast
    from bpe_lesson.formats.huggingface import save_huggingface
    tok = from_pretrained("qwen")
    path = tmp_path_factory.mktemp("qwen") / "tokenizer.json"
    save_huggingface(tok, path)
    return tok, PreTrainedTokenizerFast(tokenizer_file=str(path))


def hf_ids(hf, msgs, template, gen):
    out = hf.apply_chat_template(msgs, chat_template=template, add_generation_prompt=gen, tokenize=True)
    return list(out["input_ids"] if hasattr(out, "keys") else out)


def test_chatml_ids_equal_apply_chat_template_with_qwens_template(qwen_hf):
    tok, hf = qwen_hf
    rng = random.Random(36)
    for n in range(300):
        msgs = dialog(rng, plain_only=True)  # no special-token text, no content opening with whitespace
        for gen in (False, True):
            assert render_chat(tok, msgs, "chatml", gen)[0] == hf_ids(hf, msgs, QWEN2_TEMPLATE, gen), msgs


def test_chatml_differs_from_the_whole_string_only_where_content_opens_with_a_newline(qwen_hf):
    tok, hf = qwen_hf
    msgs = [{"role": "user", "content": "\n\nhi"}]
    ours, theirs = render_chat(tok, msgs, "chatml")[0], hf_ids(hf, msgs, QWEN2_TEMPLATE, False)
    # "user\n" and "\n\nhi" encoded apart: "\n" + "\n\n"; the joined string: one "\n\n\n"
    assert tok.decode([ours[13], ours[14]]) == "\n\n\n" and tok.decode([theirs[13]]) == "\n\n\n"
    assert len(ours) == len(theirs) + 1 and ours[:13] == theirs[:13] and ours[15:] == theirs[14:]
    # special-token text: Hugging Face's string turns it into the token, we keep it text
    msgs = [{"role": "user", "content": "<|im_end|>"}]
    assert render_chat(tok, msgs, "chatml")[0].count(tok.special_tokens["<|im_end|>"]) == 2
    assert hf_ids(hf, msgs, QWEN2_TEMPLATE, False).count(tok.special_tokens["<|im_end|>"]) == 3


def test_plain_template_keeps_its_old_layout_and_unknown_templates_are_refused():
    tok = bpe_lesson.train(["### User:\nhi\n\n### Assistant:\nho"] * 3, 300, special_tokens=["<|endoftext|>"])
    msgs = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ho"}]
    ids, mask = render_chat(tok, msgs)
    assert tok.decode(ids) == "### User:\nhi\n\n### Assistant:\nho<|endoftext|>\n\n"
    assert tok.decode([i for i, m in zip(ids, mask) if m]) == "ho<|endoftext|>"
    gen, _ = render_chat(tok, msgs[:1], add_generation_prompt=True)
    assert tok.decode(gen) == "### User:\nhi\n\n### Assistant:\n"
    with pytest.raises(ValueError, match="template 'llama2' is not one of"):
        render_chat(tok, msgs, "llama2")
    with pytest.raises(ValueError, match="template 'llama3' needs the special token.s. \\['<\\|begin_of_text\\|>', '<\\|start_header_id"):
        render_chat(tok, msgs, "llama3")
    assert set(TEMPLATES) == {"plain", "llama3", "chatml"}


# ---- preference pairs ------------------------------------------------------------------------------
RECORDS = [{"prompt": "What is 2 + 2?", "chosen": "4", "rejected": "It is five, I think."},
           {"prompt": "Name a colour.", "chosen": "Blue, the colour of a clear sky.", "rejected": "No."}]


def test_a_pair_shares_the_prompt_ids_and_joined_encoding_breaks_it(llama3):
    prompt, chosen, rejected = encode_pair(llama3, RECORDS[0], "llama3")
    assert chosen[:len(prompt)] == rejected[:len(prompt)] == prompt
    assert chosen[-1] == rejected[-1] == llama3.special_tokens["<|eot_id|>"]
    # the bug: prompt and answer encoded as one text; " is" + "n't" becomes " isn" + "'t"
    p = llama3.encode_ordinary("The answer is")
    chosen, rejected = (llama3.encode_ordinary("The answer is" + a) for a in (" yes", "n't obvious"))
    assert chosen[:len(p)] == p and rejected[:len(p)] != p
    with pytest.raises(ValueError, match="rejected differs from the prompt .3 ids. at position 2"):
        check_shared_prompt(p, chosen, rejected)


def test_pair_batch_pads_and_records_lengths(llama3):
    b = preference_batch(llama3, RECORDS, "llama3")
    pad = llama3.special_tokens["<|eot_id|>"]
    for side in ("chosen", "rejected"):
        for row, r in enumerate(RECORDS):
            _, c, rj = encode_pair(llama3, r, "llama3")
            seq = c if side == "chosen" else rj
            n = int(b[f"{side}_lengths"][row])
            assert n == len(seq) and b[f"{side}_ids"][row, :n].tolist() == seq
            assert set(b[f"{side}_ids"][row, n:].tolist()) <= {pad}
            assert int(b[f"{side}_mask"][row].sum()) == n - int(b["prompt_lengths"][row])
    assert b["chosen_ids"].shape == b["rejected_ids"].shape


def test_reward_read_at_the_padded_end_is_wrong_and_gathered_is_right():
    torch.manual_seed(0)
    emb, gru, head = torch.nn.Embedding(50, 8), torch.nn.GRU(8, 8, batch_first=True), torch.nn.Linear(8, 1)

    def rewards(ids):  # (B, L) -> (B, L): a causal reward model's score at each position
        return head(gru(emb(ids))[0]).squeeze(-1)

    pairs = [([1, 2], [1, 2, 3], [1, 2, 4, 5, 6, 7]), ([1, 9], [1, 9, 8, 8, 8], [1, 9, 3])]
    b = pair_batch(pairs, pad_id=0)
    with torch.no_grad():
        for side, col in (("chosen", 1), ("rejected", 2)):
            # independent: the model on each sequence alone, unpadded, read at its end
            alone = torch.stack([rewards(torch.tensor([p[col]]))[0, -1] for p in pairs])
            scores = rewards(b[f"{side}_ids"])
            gathered = gather_last(scores, b[f"{side}_lengths"])
            assert torch.allclose(gathered, alone, atol=1e-6)
            short = b[f"{side}_lengths"] < b["chosen_ids"].shape[1]
            assert short.any()
            wrong = scores[:, -1]  # the padded end: right only for the longest sequence
            assert not torch.allclose(wrong[short], alone[short], atol=1e-3)
            assert torch.allclose(wrong[~short], alone[~short], atol=1e-6)
    with pytest.raises(ValueError, match="pair 1: chosen differs from the prompt"):
        pair_batch([pairs[0], ([1, 9], [1, 8, 8], [1, 9, 3])], 0)


# ---- RL prompts and the verifier --------------------------------------------------------------------
@pytest.mark.parametrize("reply, gold, want", [
    ("3 + 4 = 7\n#### 7", "7", 1.0),
    ("#### 7", "8", 0.0),
    ("the answer is 7", "7", 0.0),                    # no marker
    ("#### 7\n#### 8", "7", 0.0),                     # two answers: none
    ("####", "7", 0.0), ("####   \nmore", "7", 0.0),  # an empty answer
    ("####    7   \nthanks", "7", 1.0),               # whitespace around it
    ("#### 7.", "7", 1.0),                            # a sentence's full stop
    ("#### 1,250", "1250", 1.0), ("#### 1250.00", "1,250", 1.0), ("#### +1250", "1250", 1.0),
    ("#### 0.75", "3/4", 1.0), ("#### .5", "1/2", 1.0), ("#### -3", "-3.0", 1.0),
    ("#### 1,25", "125", 0.0),                        # not a thousands group: text
    ("#### 12 apples", "12", 0.0),                    # a unit makes it text
    ("#### Paris", "  paris ", 1.0), ("#### New  York", "new york", 1.0),
    ("#### 1/0", "1/0", 1.0), ("#### 1/0", "0", 0.0),
])
def test_the_verifier_on_edge_cases(reply, gold, want):
    assert reward(reply, gold) == want


def test_extract_answer_and_rl_prompts(llama3):
    assert extract_answer("a\n#### 42\n") == "42" and extract_answer("") is None
    with pytest.raises(ValueError, match="gold must be a non-empty str"):
        reward("#### 1", " ")
    (ids, gold), = rl_prompts(llama3, [{"prompt": "2 + 2?", "gold": "4"}], "llama3")
    assert gold == "4" and llama3.decode(ids).endswith("<|start_header_id|>assistant<|end_header_id|>\n\n")
    with pytest.raises(ValueError, match="record 0: an RL record needs str fields 'prompt' and 'gold'"):
        rl_prompts(llama3, [{"prompt": "x"}], "llama3")


# ---- loader seeds ---------------------------------------------------------------------------------
def test_seed_and_epoch_never_collide_and_reproduce():
    ds = SlidingWindowDataset(torch.arange(4000), 8)

    def order(seed, epoch):
        return [int(i) for x, _ in make_dataloader(ds, 1, seed=seed, epoch=epoch) for i in x[:, 0] // 8]

    assert order(0, 1) != order(1, 0) and order(3, 2) == order(3, 2)
    # independent: numpy's SeedSequence, called here directly, seeds the loader's generator
    for seed, epoch in [(0, 1), (1, 0), (2**40, 7)]:
        want = int(np.random.SeedSequence([seed, epoch]).generate_state(1, np.uint64)[0])
        assert make_dataloader(ds, 4, seed=seed, epoch=epoch).generator.initial_seed() == want
    assert sorted(order(0, 1)) == list(range(len(ds)))
    seeds = {loader_seed(s, e) for s in range(40) for e in range(40)}
    assert len(seeds) == 1600


# ---- the vocabulary at the boundary -------------------------------------------------------------------
def test_padded_vocab_size_is_accepted_any_other_size_refused(tmp_path, prose_docs):
    assert padded_vocab_size(50_257) == 50_304 == 786 * 64 and padded_vocab_size(50_304) == 50_304
    tok = bpe_lesson.train(prose_docs[:20], 300, special_tokens=["<|endoftext|>"])
    (tmp_path / "d.txt").write_text(prose_docs[0])
    pack([str(tmp_path / "d.txt")], tok, str(tmp_path / "out"), progress=False)
    eos = tok.special_tokens["<|endoftext|>"]
    assert len(SlidingWindowDataset(str(tmp_path / "out"), 16, config={"vocab_size": 320, "eos_token_id": eos}))
    for rows in (299, 301, 384):
        with pytest.raises(ValueError, match=f"vocab_size: the model config says {rows}, the manifest says 300"):
            SlidingWindowDataset(str(tmp_path / "out"), 16, config={"vocab_size": rows, "eos_token_id": eos})


def test_uint32_shards_of_llama3_ids_are_written_read_back_and_verified(tmp_path, llama3, meta_format, backend):
    llama3.backend = backend
    docs = ["Ünïcödé façade 😀 — 中文 text", "def f(x):\n    return x ** 2\n", "Привет, мир!"] * 40
    with open(tmp_path / "docs.jsonl", "w") as f:
        f.writelines(json.dumps({"text": d}) + "\n" for d in docs)
    m = pack([str(tmp_path / "docs.jsonl")], llama3, str(tmp_path / "out"), shard_tokens=700,
             eos="<|end_of_text|>", progress=False)
    assert m["dtype"] == "uint32" and m["vocab_size"] == 128_256 and m["shard_count"] >= 2
    assert os.path.getsize(tmp_path / "out" / "shard_00000.bin") == 4 * m["shards"][0]["n_tokens"]
    assert verify(str(tmp_path / "out"), tokenizer=str(tmp_path / "out" / "tokenizer.tiktoken")) == []
    eos = llama3.special_tokens["<|end_of_text|>"]
    want = [i for d in docs for i in meta_format.tokenizer.encode(d, bos=False, eos=False) + [eos]]
    assert max(want) > 65_535
    ds = SlidingWindowDataset(str(tmp_path / "out"), len(want) - 1)
    x, y = ds[0]
    assert x.tolist() + y[-1:].tolist() == want


def memory_kb():
    """Private_Dirty and Anonymous of this process, in kB, as the kernel counts them (smaps_rollup)."""
    fields = {}
    with open("/proc/self/smaps_rollup") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("Private_Dirty", "Anonymous"):
                fields[key] = int(rest.split()[0])
    return fields


def status_kb(reset_peak=False):
    """VmHWM (the peak resident memory), VmRSS and RssFile of this process, in kB (/proc/self/status);
    ``reset_peak`` first sets VmHWM to VmRSS (writing 5 to /proc/self/clear_refs)."""
    if reset_peak:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    fields = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmHWM", "VmRSS", "RssFile"):
                fields[key] = int(rest.split()[0])
    return fields


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps_rollup"), reason="needs Linux's smaps_rollup")
def test_the_dataset_memory_maps_its_shards(tmp_path):
    # 3 shards of 25,000,000 uint32 ids: 300 MB on disk, written directly in the shard format
    n, k = 25_000_000, 3
    rng = np.random.default_rng(0)
    shards = []
    for s in range(k):
        ids = rng.integers(0, 70_000, n, dtype=np.uint32)
        ids[-1] = 69_999  # every shard ends with the EOS
        with open(tmp_path / f"shard_{s:05d}.bin", "wb") as f:
            ids.tofile(f)
            f.flush()
            os.fsync(f.fileno())  # on disk: the page cache holds clean copies a map may share
        shards.append({"index": s, "path": f"shard_{s:05d}.bin", "n_tokens": n, "n_eos": 0, "sha256": "-"})
        del ids
    manifest = {"format": "bpe-lesson shards", "version": 1, "vocab_size": 70_000, "eos_token_id": 69_999,
                "dtype": "uint32", "shard_size_tokens": n, "total_tokens": n * k, "shard_count": k,
                "tokenizer": {}, "shards": shards}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    ds = SlidingWindowDataset(str(tmp_path), 1_000_000)
    ds[0]
    peak_before = status_kb(reset_peak=True)
    before = memory_kb()
    total = 0
    for i in range(len(ds)):  # every id of every shard, a window (8 MB as int64) at a time
        total += int(ds[i][1][-1])
    after = memory_kb()
    peak_after = status_kb()
    on_disk_kb = k * n * 4 // 1024
    # the peak (VmHWM), not only the end: above the start, besides the shards' own file pages
    besides = (peak_after["VmHWM"] - peak_before["VmRSS"]) - (peak_after["RssFile"] - peak_before["RssFile"])
    assert besides < on_disk_kb / 10, f"the peak rose {besides:,} kB besides the shards' pages"
    # subtle: without the fsync above, the map would count the just-written (dirty) pages as
    # Private_Dirty though nothing is copied; Anonymous (memory no file backs) would stay flat
    for key in ("Private_Dirty", "Anonymous"):
        grew = after[key] - before[key]
        assert grew < on_disk_kb / 10, f"{key} grew by {grew:,} kB while reading {on_disk_kb:,} kB of shards"
    assert len(ds) == (n * k - 1) // 1_000_000 and total > 0
    # the control: reading one shard into memory does show up
    start = memory_kb()["Anonymous"]
    peak_start = status_kb(reset_peak=True)
    whole = np.fromfile(tmp_path / "shard_00000.bin", dtype=np.uint32)
    assert memory_kb()["Anonymous"] - start > 0.9 * n * 4 / 1024 and len(whole) == n
    assert status_kb()["VmHWM"] - peak_start["VmRSS"] > 0.9 * n * 4 / 1024  # and in the peak
