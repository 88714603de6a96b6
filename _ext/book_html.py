"""Sphinx hooks for the book's HTML: scripts loaded once, menu buttons that open their
sidebars, and a list of the book's definitions and theorems by title.

* ``dedupe_assets``: sphinx-thebe adds its configuration script
  (``const THEBE_JS_URL = ...``) each time Sphinx reads the sources, and Jupyter Book
  reads them twice, so every page declared the constant twice (a SyntaxError in the
  console). The second copy of any script or stylesheet is dropped.
* ``TOGGLES_JS``: pydata-sphinx-theme and sphinx-book-theme attach their click handlers
  to the first ``.primary-toggle`` / ``.secondary-toggle`` on the page, which sits in the
  header that _static/book.css hides; the visible buttons (in the article's header)
  opened nothing on a phone. Each other button now passes its click to the first one,
  so whatever the theme does on that click (a drawer below 992 px, folding the sidebar
  above) happens, whichever header is shown.
* ``FIGURES_JS``: a figure's PNG is made for the width it declares (its text at 9 pt or
  more, 12.5 px at that width); the theme shrinks it to the column, to half its size on a
  phone, where that text would be 6 px. A figure is now drawn at no less than 3/4 of its
  declared width (its smallest text 9.4 px); where the column is narrower, the figure
  scrolls sideways in its own box, and a tap still opens the full image.
* ``{proof-index}``: a directive that becomes a list of every labelled sphinx-proof
  statement (definition, theorem, lemma, ...), chapter by chapter in the order of the
  table of contents, each shown as "Theorem 3.1 (its title)" and linked to it.
  sphinx-proof's own index (``prf-prf.html``) lists label slugs instead.

What this module does not do: add scripts other than these two, or change how a statement is numbered or
drawn on its own page (sphinx-proof does that).
"""

import os

from docutils import nodes
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import make_refnode


def dedupe_assets(app, pagename, templatename, context, doctree):
    """Keep the first of identical script and stylesheet entries, in order.

    subtle: the two copies differ in their filename, None and "" (an inline script).
    """
    for key in ("script_files", "css_files"):
        files = context.get(key, [])
        seen, kept = set(), []
        for asset in files:
            ident = (os.fspath(getattr(asset, "filename", asset) or ""),
                     tuple(sorted(getattr(asset, "attributes", {}).items())))
            if ident not in seen:
                seen.add(ident)
                kept.append(asset)
        files[:] = kept  # in place: the builder's own list


TOGGLES_JS = """
document.addEventListener("DOMContentLoaded", () => {
  for (const kind of [".primary-toggle", ".secondary-toggle"]) {
    const [first, ...others] = document.querySelectorAll(kind);  // the theme listens on first
    for (const button of others) {
      button.addEventListener("click", (event) => {
        event.preventDefault();
        event.stopPropagation();
        first.click();
      });
    }
  }
});
"""

FIGURES_JS = """
const FIGURE_MIN_SCALE = 0.75;  // of the declared width: 9 pt text stays at 9.4 px
function sizeFigures() {
  for (const img of document.querySelectorAll("article figure img")) {
    const declared = parseFloat(img.dataset.declaredWidth || img.style.width);
    if (!declared) continue;
    const height = parseFloat(img.dataset.declaredHeight || img.style.height);
    img.dataset.declaredWidth = declared;
    img.dataset.declaredHeight = height || "";
    const box = img.closest("a") || img.parentElement;  // the link to the full image
    box.style.display = "block";
    const room = box.clientWidth;
    const width = Math.max(Math.min(declared, room), FIGURE_MIN_SCALE * declared);
    img.style.maxWidth = "none";
    img.style.width = `${width}px`;
    img.style.height = height ? `${height * width / declared}px` : "auto";
    box.style.overflowX = width > room + 0.5 ? "auto" : "";  // too wide: it scrolls
  }
}
document.addEventListener("DOMContentLoaded", sizeFigures);
window.addEventListener("resize", sizeFigures);
"""


class proof_index(nodes.General, nodes.Element):
    """Placeholder, replaced by the list once every page has been read."""


class ProofIndexDirective(SphinxDirective):
    def run(self):
        return [proof_index()]


def record_titles(app, doctree):
    """Remember each labelled statement's title text: label -> title."""
    titles = app.env.__dict__.setdefault("book_proof_titles", {})
    for node in doctree.findall(nodes.Element):
        if "realtype" in node.attributes and node.get("label"):
            titles[node["label"]] = (app.env.docname, node.get("title", ""))


def purge_titles(app, env, docname):
    titles = env.__dict__.get("book_proof_titles", {})
    for label in [k for k, (doc, _) in titles.items() if doc == docname]:
        del titles[label]


def merge_titles(app, env, docnames, other):
    env.__dict__.setdefault("book_proof_titles", {}).update(getattr(other, "book_proof_titles", {}))


def reading_order(env, root):
    """Docnames in table-of-contents order, depth first from the root document."""
    order, stack = [], [root]
    while stack:
        doc = stack.pop()
        if doc in order:
            continue
        order.append(doc)
        stack.extend(reversed(env.toctree_includes.get(doc, [])))
    return order


def fill_proof_index(app, doctree, fromdocname):
    env = app.env
    proofs = getattr(env, "proof_list", {})  # label -> {docname, realtype, countertype, ...}
    titles = getattr(env, "book_proof_titles", {})
    for placeholder in list(doctree.findall(proof_index)):
        content = []
        for doc in reading_order(env, app.config.root_doc):
            labels = [k for k, v in proofs.items() if v["docname"] == doc and k in titles]
            if not labels:
                continue
            # the order the statements appear in their chapter: their number
            numbers = env.toc_fignumbers.get(doc, {})
            def number(label):
                return tuple(numbers.get(proofs[label]["countertype"], {}).get(label, ()))
            labels.sort(key=number)
            chapter = nodes.paragraph()
            secnum = env.toc_secnumbers.get(doc, {}).get("", ())  # the chapter's number, if numbered
            prefix = ".".join(map(str, secnum)) + ". " if secnum else ""
            chapter += nodes.strong(text=prefix + env.titles[doc].astext())
            items = nodes.bullet_list()
            for label in labels:
                kind = proofs[label]["realtype"].title()
                num = ".".join(map(str, number(label)))
                title = titles[label][1].strip()
                if title.startswith("(") and title.endswith(")"):  # proof_title_format " (%t)"
                    title = title[1:-1]
                text = f"{kind} {num}" + (f" ({title})" if title else "")
                para = nodes.paragraph()
                para += make_refnode(app.builder, fromdocname, doc, label, nodes.Text(text))
                items += nodes.list_item("", para)
            content += [chapter, items]
        placeholder.replace_self(content)


def setup(app):
    app.add_js_file(None, body=TOGGLES_JS)
    app.add_js_file(None, body=FIGURES_JS)
    app.add_node(proof_index)
    app.add_directive("proof-index", ProofIndexDirective)
    app.connect("doctree-read", record_titles)
    app.connect("env-purge-doc", purge_titles)
    app.connect("env-merge-info", merge_titles)
    app.connect("doctree-resolved", fill_proof_index)
    app.connect("html-page-context", dedupe_assets, priority=900)  # after the handlers that add scripts
    return {"parallel_read_safe": True, "parallel_write_safe": True}
