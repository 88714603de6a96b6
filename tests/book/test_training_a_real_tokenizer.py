"""Training a real tokenizer: its prose against its own stored outputs.

Each test reads the notebook's JSON (no execution) and checks a statement of the
chapter against the output it must agree with: what the three split patterns do
with newlines, how many digit groups the hardcoded block holds and what a trained
vocabulary does without it, the hardcoded block's share of GPT-4's size, and the
Summary's glued figures against the tables they come from.

What this file does not do: re-execute the chapter (nbval does), or read figures.
"""

import ast
import json
import os
import re

import pytest

PATH = os.path.join(os.path.dirname(__file__), "..", "..", "book", "training_a_real_tokenizer.ipynb")


@pytest.fixture(scope="module")
def nb():
    with open(PATH, encoding="utf-8") as f:
        return json.load(f)


def cell(nb, cid):
    return next(c for c in nb["cells"] if c.get("id") == cid)


def text_of(c):
    return "".join(c["source"])


def stdout(c):
    return "".join("".join(o["text"]) for o in c.get("outputs", []) if o.get("output_type") == "stream")


def glued(nb):
    out = {}
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:  # a figure's text is "<Figure ...>": kept as it is
                raw = o["data"]["application/papermill.record/text/plain"]
                try:
                    out[name] = ast.literal_eval(raw)
                except (SyntaxError, ValueError):
                    out[name] = raw
    return out


def markdown(nb):
    return "\n".join(text_of(c) for c in nb["cells"] if c["cell_type"] == "markdown")


def summary(nb):
    md = [text_of(c) for c in nb["cells"] if c["cell_type"] == "markdown"]
    (s,) = [m for m in md if re.search(r"^## Summary\s*$", m, re.M)]
    return s


def test_every_glued_name_in_the_prose_is_computed(nb):
    used = set(re.findall(r"\{glue:text\}`([^`:]+)", markdown(nb)))
    assert used and used <= set(glued(nb)), used - set(glued(nb))


def test_what_the_patterns_do_with_newlines_is_what_the_split_prints(nb):
    out = stdout(cell(nb, "0028e544")).replace("\n     ", " ")  # undo the wrap
    gpt2 = re.search(r"^   gpt2 +(\[' {3}'.*?\])$", out, re.M).group(1)
    gpt4 = re.search(r"^   gpt4 +(\[' {3}'.*?\])$", out, re.M).group(1)
    assert "')\\n\\n\\n'" in gpt4 and "'\\n\\n\\n'" not in gpt4
    assert "'\\n\\n', '\\n'" in gpt2
    prose = text_of(cell(nb, "b94c405f"))
    assert "punctuation take the newlines that follow it" in prose
    assert 'lets a newline run be one chunk' not in prose


def test_digit_groups_of_the_hardcoded_block(nb):
    # the block's two- and three-digit numbers, as printed: 100 + 1,000
    out = stdout(cell(nb, "5106fea7"))
    two = re.search(r"ids +(\d+)- *(\d+) two-digit numbers", out)
    three = re.search(r"ids +(\d+)- *(\d+) three-digit numbers", out)
    n = sum(int(m.group(2)) - int(m.group(1)) + 1 for m in (two, three))
    assert glued(nb)["hc_digit_groups"] == n == 1100
    prose = text_of(cell(nb, "7257905c"))
    assert "{glue:text}`hc_digit_groups:,`" in prose
    # under GPT-4's split no chunk has four digits, so no trained token is "2024"
    assert '"2024" as one token' not in prose
    assert "'000'" in stdout(cell(nb, "002ae7ba"))  # the longest digit chunk
    share = re.search(r"^without +([\d.]+)% of", stdout(cell(nb, "61a93e75")), re.M)
    assert round(glued(nb)["without_one_share"] * 100, 2) == float(share.group(1)) < 100


def test_the_block_share_of_gpt4_is_the_printed_one(nb):
    out = stdout(cell(nb, "835fe3b2"))
    small = re.search(r"the hardcoded block is (\d+)% of this vocabulary", out).group(1)
    big = re.search(r"^([\d.]+)% of GPT-4's", out, re.M).group(1)
    g = glued(nb)
    assert f"{g['hc_share']:.0%}" == small + "%" and f"{g['hc_share_gpt4']:.1%}" == big + "%"
    assert "about\none percent" not in text_of(cell(nb, "d24d4d36"))


def test_the_summary_agrees_with_the_tables(nb):
    g, s = glued(nb), summary(nb)
    table = stdout(cell(nb, "f296bafd"))
    nosplit = float(re.search(r"^no split +([\d.]+)", table, re.M).group(1))
    split = float(re.search(r"^GPT-4 split +([\d.]+)", table, re.M).group(1))
    assert round(g["bpt_nosplit"], 2) == nosplit > split == round(g["bpt_split"], 2)
    assert "{glue:text}`bpt_split" in s and "{glue:text}`bpt_nosplit" in s
    # hardcoded: wins on numbers, loses on prose, as the Summary and the text say
    rows = dict(re.findall(r"^(weather CSV|prose \(held out\)) +([\d.]+ +[\d.]+)",
                           stdout(cell(nb, "835fe3b2")), re.M))
    w, wo = map(float, rows["weather CSV"].split())
    pw, pwo = map(float, rows["prose (held out)"].split())
    assert w > wo and pw < pwo
    assert (round(g["bpt_with_weather"], 2), round(g["bpt_without_weather"], 2)) == (w, wo)
    # the smallest sample compresses worse than all of the text
    assert g["sample_prose_smallest"] < g["sample_prose_all"] and g["sample_smallest"] < 0.05
    # the marker's pieces, glued, are the ones printed
    printed = re.search(r"tokens made from the marker: (\[.*\])", stdout(cell(nb, "5282eb8d")))
    assert g["marker_pieces"] == len(ast.literal_eval(printed.group(1)))


def test_one_summary_then_the_exercises(nb):
    md = [text_of(c) for c in nb["cells"] if c["cell_type"] == "markdown"]
    at_summary = [i for i, m in enumerate(md) if re.search(r"^## Summary\s*$", m, re.M)]
    at_ex = [i for i, m in enumerate(md) if re.search(r"^## Exercises\s*$", m, re.M)]
    exercises = [i for i, m in enumerate(md) if m.lstrip().startswith("```{exercise}")]
    assert len(at_summary) == 1 and len(at_ex) == 1 and at_summary[0] < at_ex[0]
    assert len(exercises) == 3 and min(exercises) > at_ex[0]
