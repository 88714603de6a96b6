"""From windows to fine-tuning, read against its own stored outputs (issue 34).

Reads ``book/from_windows_to_fine_tuning.ipynb`` as JSON (no kernel): the glued
values, the printed outputs and the markdown around them. What this file does not
do: run the notebook (``pytest --nbval`` does) or look at the rendered page.
"""

import json
import os
import re

import pytest
from _notebook import as_glue_roles

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NB_PATH = os.path.join(ROOT, "book", "from_windows_to_fine_tuning.ipynb")


@pytest.fixture(scope="module")
def nb():
    with open(NB_PATH, encoding="utf-8") as f:
        return json.load(f)


def source(cell):
    text = "".join(cell["source"])
    return as_glue_roles(text) if cell["cell_type"] == "markdown" else text


def printed(nb):
    return "".join("".join(o["text"]) for c in nb["cells"] for o in c.get("outputs", [])
                   if o["output_type"] == "stream")


def glued(nb):
    out = {}
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                out[name] = o["data"]["application/papermill.record/text/plain"]
    return out


def test_the_llama3_check_covers_1000_dialogs_and_all_agree(nb):
    out = printed(nb)
    assert "1000 of 1000 dialogs: the same ids as Meta's ChatFormat" in out
    n, total = map(int, re.search(r"(\d+) of (\d+) dialogs: the same ids as apply_chat_template", out).groups())
    assert n == total >= 200


def test_each_shape_bug_is_shown_failing_then_fixed(nb):
    g, out = glued(nb), printed(nb)
    assert float(g["copy_loss"]) < 0.05 < 1.0 < float(g["right_loss"])        # copying looks like success
    assert float(g["p_stop_no_eos"]) < 0.05 < 0.3 < float(g["p_stop_right"])  # no EOS target: no stop
    assert "loss_mask is 1 on all" in out                                      # prompt in the loss refused
    assert "rejected differs from the prompt" in out                           # joined encoding refused
    chosen = re.search(r"chosen +alone (\[.*?\]) +gathered (\[.*?\])\n +at -1 (\[.*?\])", out).groups()
    assert chosen[0] == chosen[1] != chosen[2]                                 # gathered right, -1 wrong


def test_the_vocabulary_figures(nb):
    g, out = glued(nb), printed(nb)
    assert int(g["gpt2_rows"]) == 50_304 and int(g["gpt2_extra"]) == 47
    assert "uint32," in out and "read back = Meta's encoder's ids: True" in out
    assert "vocab_size 512: accepted" in out and "the model config says 501" in out
    assert float(g["big_grew"]) < float(g["big_mb"]) / 10


def test_the_chapter_sits_after_the_windows_chapter_in_part_ii():
    toc = open(os.path.join(ROOT, "_toc.yml"), encoding="utf-8").read()
    part2 = toc.split("Part II.")[1].split("Part III.")[0]
    lines = [line.split("#")[0].strip() for line in part2.splitlines() if "file:" in line]
    k = lines.index("- file: book/from_tokens_to_training_windows")
    assert lines[k + 1] == "- file: book/from_windows_to_fine_tuning"


# ---------------------------------------------------------------- issue 54 (errata) and 49 (reading snags)

def _markdown(nb):
    return [source(c) for c in nb["cells"] if c["cell_type"] == "markdown"]


def _code(nb, needle):
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and needle in source(c)]
    assert len(cells) == 1, needle
    return cells[0]


def _stdout(c):
    return "".join("".join(o["text"]) for o in c.get("outputs", []) if o["output_type"] == "stream")


def test_the_memory_claim_is_the_peak(nb):
    # the peak (VmHWM, reset first), not memory read after the fact
    src = source(_code(nb, 'on_disk = write_big_shards("big")'))
    assert "reset_peak=True" in src and 'after["VmHWM"]' in src
    assert "/proc/self/clear_refs" in source(_code(nb, "def memory_mb("))
    out = _stdout(_code(nb, 'on_disk = write_big_shards("big")'))
    peak = int(re.search(r"at its peak the process held\s+(\d+) MB more", out).group(1))
    pages, besides = map(int, re.search(r"(\d+) MB of them the shards' own pages, (\d+) MB besides", out).groups())
    assert peak - pages == besides
    g = glued(nb)
    assert float(g["big_peak"]) == peak and float(g["big_besides"]) == besides
    assert besides < float(g["big_mb"]) / 10
    summary = next(m for m in _markdown(nb) if "## Summary" in m)
    assert "{glue:text}`big_besides:.0f`" in summary


def test_chatformat_is_named_with_its_version(nb):
    import importlib.metadata
    g = glued(nb)
    assert g["llama_models"].strip("'") == importlib.metadata.version("llama_models")
    from llama_models.datatypes import RawMessage
    from llama_models.llama3.chat_format import ChatFormat
    from llama_models.llama3.tokenizer import Tokenizer as MetaTokenizer
    tok = MetaTokenizer.get_instance()
    ids = ChatFormat(tok).encode_dialog_prompt([RawMessage(role="user", content=" hi\n")]).tokens
    assert " hi\n<|eot_id|>" in tok.decode(ids)  # this version keeps the whitespace
    strip = next(m for m in _markdown(nb) if "without stripping its whitespace" in m)
    assert "{glue:text}`llama_models`" in strip


def test_dpo_sums_the_answer_log_probabilities(nb):
    out = _stdout(_code(nb, "def answer_logp("))
    alone, batched = re.search(r"alone +(\[.*?\])\s+in the batch (\[.*?\])", out).groups()
    assert alone == batched
    summary = next(m for m in _markdown(nb) if "## Summary" in m)
    assert "DPO sums the log-probabilities" in " ".join(summary.split())


def test_the_loader_seed_claim_holds_below_2_to_the_32(nb):
    import numpy as np
    from bpe_lesson.lm.windows import loader_seed

    def numpy_seed(s, e):  # numpy's SeedSequence, called here directly
        return int(np.random.SeedSequence([s, e]).generate_state(1, np.uint64)[0])

    assert loader_seed(2**32, 0) == loader_seed(0, 1) == numpy_seed(2**32, 0)
    assert "loader_seed(2**32, 0) == loader_seed(0, 1): True" in printed(nb)
    text = " ".join(" ".join(_markdown(nb)).split())
    assert "pairs of numbers below $2^{32}$ give different seeds" in text


def test_every_function_of_a_stub_is_named_in_its_exercise(nb):
    # issue 49: the verifier's stub had a value(s) the exercise never mentioned
    from bpe_lesson.teaching.exercises import stub_for
    cells = nb["cells"]
    for k, c in enumerate(cells):
        m = re.search(r"\{solution-start\}\s+(\S+)", source(c)) if c["cell_type"] == "markdown" else None
        if not m:
            continue
        label = m.group(1)
        exercise = next(source(x) for x in cells if "{exercise}" in source(x) and f":label: {label}" in source(x))
        stub = stub_for(label, source(cells[k + 1]))
        for name in re.findall(r"^(?:def|class) (\w+)", stub, re.M):
            assert f"`{name}(" in exercise or f"`{name}`" in exercise, (label, name)


def test_the_all_ones_mask_claim_is_what_the_refusal_printed(nb):
    # issue 54: "answers a question with more questions" was never measured; what the
    # text says now is what sft_targets printed when it refused the all-ones mask
    out = printed(nb)
    m = re.search(r"loss_mask is 1 on all (\d+) targets \(positions 1 to (\d+)\): the prompt\s+\(headers,\s+user turns\)", out)
    assert m and m.group(1) == m.group(2)
    para = next(" ".join(t.split()) for t in _markdown(nb) if "{glue:text}`p_stop_no_eos:.3f` where" in t)
    assert "trained to write the user's turns and the headers too" in para
