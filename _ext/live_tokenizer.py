"""Sphinx hooks for the book's live tokenizer: a ``{live-tokenizer}`` directive, the
script and stylesheet that make it a widget, and its vocabularies written at build time.

* ``{live-tokenizer}`` with options ``:vocab:`` (``ours_4096``, ``cl100k_base`` or
  ``o200k_base``: the one selected first), ``:word:`` (the word whose merges the
  widget steps through) and ``:text:`` (what the text box holds first) becomes
  ``<div class="live-tokenizer" data-...>`` with one line for a reader without
  JavaScript; ``_static/live_tokenizer.js`` replaces it with the widget.
* When an HTML build finishes, the three vocabularies are written to
  ``_static/live/NAME.js`` in the output (``bpe_lesson.teaching.live.vocab_script``;
  each written to a temporary name and renamed): the chapters' own vocabulary, trained
  again here exactly as ``what_a_tokenizer_does`` trains it (4,096 ids on the book's
  prose and code, well under a second), and GPT-4's and GPT-4o's, from the package's
  offline copies. Nothing of them is committed.

What this module does not do: tokenize (the browser does), or write anything for a
builder other than HTML.
"""

import html
import os

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

VOCABS = ("ours_4096", "cl100k_base", "o200k_base")
NO_SCRIPT = "The live tokenizer needs JavaScript."


class LiveTokenizerDirective(SphinxDirective):
    option_spec = {"vocab": directives.unchanged, "word": directives.unchanged, "text": directives.unchanged}

    def run(self):
        vocab = self.options.get("vocab", "cl100k_base")
        if vocab not in VOCABS:
            raise self.error(f"live-tokenizer: :vocab: {vocab!r} is not one of {', '.join(VOCABS)}")
        data = "".join(f' data-{key}="{html.escape(self.options[key])}"'
                       for key in ("word", "text") if key in self.options)
        div = (f'<div class="live-tokenizer" data-vocab="{vocab}"{data}>'
               f'<p class="live-tokenizer-nojs">{NO_SCRIPT}</p></div>')
        return [nodes.raw("", div, format="html")]


def book_tokenizers():
    """name -> (label, Tokenizer), the three the widget offers."""
    import bpe_lesson
    from bpe_lesson.formats.pretrained import from_pretrained
    from bpe_lesson.teaching import samples

    prose_train, _ = samples.prose_split()
    code_train, _ = samples.code_split()
    ours = bpe_lesson.train(prose_train + code_train, vocab_size=4096)  # as the first chapter does
    return {"ours_4096": ("ours (4,096 ids)", ours),
            "cl100k_base": ("GPT-4 (cl100k_base)", from_pretrained("cl100k_base")),
            "o200k_base": ("GPT-4o (o200k_base)", from_pretrained("o200k_base"))}


def write_vocabularies(folder):
    """Write ``folder/NAME.js`` for each vocabulary; returns name -> size in bytes."""
    from bpe_lesson._internal.files import atomic_write
    from bpe_lesson.teaching.live import vocab_script

    os.makedirs(folder, exist_ok=True)
    sizes = {}
    for name, (label, tok) in book_tokenizers().items():
        data = vocab_script(tok, name, label).encode("ascii")
        atomic_write(os.path.join(folder, name + ".js"), data)
        sizes[name] = len(data)
    return sizes


def on_build_finished(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    sizes = write_vocabularies(os.path.join(app.outdir, "_static", "live"))
    logging.getLogger(__name__).info("live tokenizer vocabularies: " +
                                     ", ".join(f"{n} {s / 1e6:.2f} MB" for n, s in sizes.items()))


def setup(app):
    app.add_directive("live-tokenizer", LiveTokenizerDirective)
    app.add_js_file("live_tokenizer.js")
    app.add_css_file("live_tokenizer.css")
    app.connect("build-finished", on_build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
