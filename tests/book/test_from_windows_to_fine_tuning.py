"""From windows to fine-tuning, read against its own stored outputs (issue 34).

Reads ``book/from_windows_to_fine_tuning.ipynb`` as JSON (no kernel): the glued
values, the printed outputs and the markdown around them. What this file does not
do: run the notebook (``pytest --nbval`` does) or look at the rendered page.
"""

import json
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NB_PATH = os.path.join(ROOT, "book", "from_windows_to_fine_tuning.ipynb")


@pytest.fixture(scope="module")
def nb():
    with open(NB_PATH, encoding="utf-8") as f:
        return json.load(f)


def source(cell):
    return "".join(cell["source"])


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
