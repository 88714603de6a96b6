"""The numbers a chapter's prose quotes, as JupyterLab shows them and as the book renders them.

A chapter that imports ``bpe_lesson.teaching.glue`` quotes glued numbers as
{eval}`glued("KEY:FORMAT")`. JupyterLab (jupyterlab-myst) shows the result stored in the
markdown cell's ``metadata.user_expressions``; the book (``_ext/glued_eval.py``) renders
what myst-nb's {glue:text}`KEY:FORMAT` renders. Checked here, for every chapter, from the
stored notebooks (nothing executed):

  * a converted chapter has no {glue:text} or {glue} role left, and each markdown cell
    stores exactly its own {eval} expressions, in order, each with a result that
    JupyterLab shows (after taking off one pair of matching quotes, as jupyterlab-myst
    does) as the text myst-nb's ``format_plain_text`` makes of the glued value's stored
    text/plain: the text the book shows. A chapter re-executed without ``make execute``'s second step fails here;
  * a chapter not converted has no {eval} role and stores no results.

And once with a real kernel, on a two-cell notebook: the result a kernel returns for
``glued(...)`` when JupyterLab asks (an execute request's ``user_expressions``) is the one
stored, so running a markdown cell in JupyterLab changes nothing the reader sees.
"""

import glob
import os
import re

import nbformat
import pytest
from _notebook import BOOK, GLUE_TEXT, source
from myst_nb.core.variables import format_plain_text

from bpe_lesson.teaching import glue as glue_module

CHAPTERS = sorted(os.path.basename(p)[:-len(".ipynb")] for p in glob.glob(os.path.join(BOOK, "*.ipynb")))
EVAL = re.compile(r"\{eval\}`([^`]*)`")
GLUED = re.compile(r'^glued\("([^"]*)"\)$')  # the one expression form the book renders
# jupyterlab-myst takes one pair of matching quotes off a text/plain result (its JavaScript,
# copied: content.replace(/^(["'])(.*)\1$/, "$2"))
JUPYTERLAB_UNQUOTE = re.compile(r"""^(["'])(.*)\1$""")
GLUE_INLINE = re.compile(r"\{glue(?::text)?\}`")  # myst-nb's inline roles ({glue:figure} is a directive)
IMPORT = "from bpe_lesson.teaching.glue import glue, glued"
# the chapters issue 47 asks to read in JupyterLab: they must be converted
MUST_CONVERT = {"what_a_vocabulary_costs", "your_own_tokenizer", "what_tokenization_does_to_a_model"}


def load(name):
    return nbformat.read(os.path.join(BOOK, name + ".ipynb"), as_version=4)


def converted(nb):
    return any(IMPORT in source(c) for c in nb.cells if c.cell_type == "code")


def stored_glue(nb):
    """key -> text/plain of each hidden glue output, read as the book reads them."""
    out = {}
    for c in nb.cells:
        for o in c.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name and GLUE_TEXT in o.get("data", {}):
                out[name] = o["data"][GLUE_TEXT]
    return out


def book_text(glued, spec):
    """What {glue:text}`spec` renders: myst-nb's PasteTextRole, its key:format split and format."""
    key, fmt = spec.rsplit(":", 1) if ":" in spec else (spec, "s")
    return format_plain_text(glued[key], fmt)


def test_the_chapters_issue_47_names_are_converted():
    assert all(converted(load(name)) for name in MUST_CONVERT)


@pytest.mark.parametrize("name", CHAPTERS)
def test_stored_results_are_what_the_book_shows(name):
    nb = load(name)
    glued = stored_glue(nb)
    problems, n = [], 0
    for i, c in enumerate(nb.cells):
        if c.cell_type != "markdown":
            continue
        exprs = list(dict.fromkeys(EVAL.findall(c.source)))
        stored = c.metadata.get("user_expressions", [])
        if not converted(nb):
            assert not exprs and not stored, f"{name}: {{eval}} or user_expressions in a chapter that imports no {IMPORT!r}"
            continue
        if GLUE_INLINE.search(c.source):
            problems.append(f"cell {i}: a {{glue:text}} role is left: {c.source[GLUE_INLINE.search(c.source).start():][:60]!r}")
        if [e["expression"] for e in stored] != exprs:
            problems.append(f"cell {i}: stores {[e['expression'] for e in stored]}, its source has {exprs} "
                            "(run `make execute NB=...`, or python -m bpe_lesson.teaching.glue on it)")
            continue
        for e in stored:
            m = GLUED.match(e["expression"])
            if not m:
                problems.append(f"cell {i}: {{eval}}`{e['expression']}` is not glued(\"KEY:FORMAT\")")
                continue
            want = book_text(glued, m.group(1))
            got = e["result"]
            seen = JUPYTERLAB_UNQUOTE.sub(r"\2", got.get("data", {}).get("text/plain", ""))
            if got.get("status") != "ok" or set(got["data"]) != {"text/plain"} or seen != want:
                problems.append(f"cell {i}: {e['expression']} stores {got}, so JupyterLab shows {seen!r}; "
                                f"the book shows {want!r}")
            n += 1
    assert not problems, f"{name}:\n" + "\n".join(problems)
    if converted(nb):
        assert n > 0, f"{name}: converted, yet no {{eval}} number"


def test_a_kernel_returns_what_is_stored(tmp_path):
    manager = pytest.importorskip("jupyter_client.manager")
    code = f'{IMPORT}\nglue("share", round(2 / 3, 3))\nglue("n", 32768)\nglue("name", "it\'s GPT-4o")\nglue("lone", repr("a b"))'
    markdown = '{eval}`glued("share:.1%")` of {eval}`glued("n:,")` ids, {eval}`glued("name")`, {eval}`glued("share")` {eval}`glued("lone")`'
    exprs = glue_module.expressions_of(markdown)
    km, kc = manager.start_new_kernel(kernel_name="python3", cwd=str(tmp_path))
    outputs = []  # the glue cell's outputs, as a notebook stores them
    try:
        def keep(msg):
            if msg["msg_type"] in ("display_data", "stream", "error"):
                outputs.append(nbformat.v4.output_from_msg(msg))
        ran = kc.execute_interactive(code, timeout=60, output_hook=keep)
        assert ran["content"]["status"] == "ok", outputs
        # what jupyterlab-myst sends when the reader runs the markdown cell
        reply = kc.execute_interactive("", user_expressions={str(k): e for k, e in enumerate(exprs)},
                                       timeout=60, output_hook=keep)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert reply["content"]["status"] == "ok"
    live = [reply["content"]["user_expressions"][str(k)] for k in range(len(exprs))]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(code, outputs=outputs), nbformat.v4.new_markdown_cell(markdown)]
    assert glue_module.store_expressions(nb) == 5
    stored = [e["result"] for e in nb.cells[1].metadata["user_expressions"]]
    by_hand = ["66.7%", "32,768", "it's GPT-4o", "0.667", "'a b'"]  # what {glue:text} shows for these
    assert [book_text(stored_glue(nb), GLUED.match(e).group(1)) for e in exprs] == by_hand
    # a kernel's text/plain and the stored one are the same; JupyterLab shows it as the book does
    assert [(r["status"], r["data"]["text/plain"]) for r in live] == [("ok", r["data"]["text/plain"]) for r in stored]
    assert [JUPYTERLAB_UNQUOTE.sub(r"\2", r["data"]["text/plain"]) for r in stored] == by_hand
