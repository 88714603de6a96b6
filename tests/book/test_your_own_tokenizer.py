"""*Your own tokenizer* read against its own stored outputs and the package.

Reads ``book/your_own_tokenizer.ipynb`` as JSON (no kernel): its markdown, its
solution cells and what its cells printed. Pinned here from issue 54 (errata) and
issue 49 (reading snags): the Summary's safe-cut rule is the theorem's, slash
included, and cutting by it gives the whole text's ids (checked with the package's
GPT-4 and GPT-4o encoders); the count of functions the intro promises is the count
the solution cells define; a chapter that comes later in the book is not cited as
one already read.

What this file does not do: run the notebook (``pytest --nbval`` does).
"""

import os
import re

import yaml

from _notebook import ROOT, chapter, code_cell, fold, markdown_cells, source, stdout, summary_cell

nb = chapter("your_own_tokenizer")
WORDS = {"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11}


def _summary_rule(nb):
    """The characters the Summary's safe-cut bullet says may not start the next line."""
    bullet = next(b for b in fold(summary_cell(nb)).split("* ") if "A stream can be cut" in b)
    m = re.search(r"followed by a character that is (?:not|neither) (whitespace)(?: nor `(.)`)?", bullet)
    assert m, bullet
    return {m.group(2)} if m.group(2) else set()


def _cut(text, banned):
    """Cut ``text`` at every line start the rule allows: after a newline, before a
    character that is not whitespace and not in ``banned``."""
    lines = text.splitlines(keepends=True)
    parts, held = [], ""
    for line in lines:
        first = line[:1]
        if held.endswith("\n") and first and not first.isspace() and first not in banned:
            parts.append(held)
            held = ""
        held += line
    return parts + [held]


def test_the_summary_safe_cut_rule_gives_the_whole_texts_ids(nb):
    import bpe_lesson
    banned = _summary_rule(nb)
    # the chapter's own example: a cut before '/' changes GPT-4o's ids
    out = stdout(code_cell(nb, "for tok, a, b in [(gpt4, "))
    whole, apart = re.search(r"o200k_base 'x;\\n' \+ '/y':\n  whole (\[.*?\]), apart (\[.*?\])", out).groups()
    assert whole != apart
    texts = ["x;\n/y", "a = 1\n\nb\n/c\n d\n\te\n//f\nx", "if x:\n    y\n# z;\n/* c */\n"]
    for name in ("cl100k_base", "o200k_base"):
        tok = bpe_lesson.from_pretrained(name)
        for text in texts:
            parts = _cut(text, banned)
            assert sum((tok.encode(p) for p in parts), []) == tok.encode(text), (name, text, parts)
    assert banned == {"/"}


def test_the_intro_counts_the_functions_and_exercises_it_asks_for(nb):
    intro = fold(markdown_cells(nb)[0])
    n_functions, n_exercises = (WORDS[w] for w in re.search(
        r"`MyTokenizer`, from (\w+) functions you write here in (\w+) exercises", intro).groups())
    # the solutions of the exercises before the class's own
    defs, exercises, label = [], 0, None
    for c in nb["cells"]:
        m = re.search(r"\{solution-start\}\s+(\S+)", source(c)) if c["cell_type"] == "markdown" else None
        if m:
            label = m.group(1)
        elif "solution" in c["metadata"].get("tags", []):
            if label == "ex-own-tokenizer":
                break
            exercises += 1
            defs += re.findall(r"^def (\w+)", source(c), re.M)
    assert (n_functions, n_exercises) == (len(defs), exercises) == (9, 7), defs


def test_no_later_chapter_is_cited_as_already_read(nb):
    with open(os.path.join(ROOT, "_toc.yml"), encoding="utf-8") as f:
        toc = yaml.safe_load(f)
    order = [c["file"].split("/")[-1] for part in toc["parts"] for c in part["chapters"]]
    later = order[order.index("your_own_tokenizer") + 1:]
    for text in markdown_cells(nb):
        text = fold(text)
        for m in re.finditer(r"\{doc\}`(\w+)`", text):
            if m.group(1) in later:
                after = text[m.end():m.end() + 30]
                assert not re.match(r"\s+(read|showed|built|derived|wrote)\b", after), \
                    f"{m.group(1)} comes later, but the text says {text[m.start():m.end() + 30]!r}"
                assert "Part II" in text[max(0, m.start() - 40):m.start()] or "later" in text, m.group(1)
