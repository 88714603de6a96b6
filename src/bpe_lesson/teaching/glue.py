"""Numbers in a chapter's prose that read the same in the built book and in JupyterLab.

A chapter glues a measured value in a code cell and quotes it in the markdown:

    glue("model_share", round(V * d / total, 3))         # a code cell
    In this model the vocabulary is {eval}`glued("model_share:.1%")` of the weights.

``glue`` is myst-nb's (it stores the value's display as a hidden output, which nbval
compares on every run) and it also keeps the value's text in this kernel. The markdown
names the value with the role both renderers know, ``{eval}``, and an expression of one
form: ``glued("KEY")`` or ``glued("KEY:FORMAT")``, KEY:FORMAT written as in myst-nb's
``{glue:text}`` role.

* The built book: the book's Sphinx extension ``_ext/glued_eval.py`` reads the expression
  and renders it as ``{glue:text}`KEY:FORMAT``` did, from the stored glue outputs (no kernel).
* JupyterLab (jupyterlab-myst): the role shows the result stored in the markdown cell's
  ``metadata.user_expressions``, written by ``store_expressions`` after ``make execute``;
  when the reader runs the markdown cell, the kernel evaluates ``glued(...)`` itself and
  gets the same text (``Shown``, a str whose repr shows as itself there, no quotes added).

All three compute the text with one function, ``format_glued``: myst-nb's own
``format_plain_text`` applied to the glued value's text/plain.

What this module does not do: evaluate any other expression (``{eval}`1 + 1``` is not
supported; the book renders only ``glued(...)``), or glue figures (``{glue:figure}`` stays
myst-nb's, since an image has no text a JupyterLab role could show).
"""

from __future__ import annotations

import ast
import re
import sys

from .._internal.optional import optional_import

__all__ = ["FUNCTION", "EVAL_ROLE", "MIME_PREFIX", "QUOTED", "Shown",
           "jupyterlab_shows", "glue", "format_glued", "glued", "parse_expression",
           "glued_texts", "expressions_of", "store_expressions", "main"]

_myst_glue = optional_import("myst_nb", "bpe_lesson.teaching.glue")
_variables = optional_import("myst_nb.core.variables", "bpe_lesson.teaching.glue")
_formatters = optional_import("IPython.core.formatters", "bpe_lesson.teaching.glue")
nbformat = optional_import("nbformat", "bpe_lesson.teaching.glue")

FUNCTION = "glued"  # the one function an {eval} role may call
# an {eval} role in markdown source: {eval}`glued("model_share:.1%")`
EVAL_ROLE = re.compile(r"\{eval\}`([^`]*)`")
MIME_PREFIX = "application/papermill.record/"  # myst-nb's prefix for a hidden glue output

_TEXTS: dict[str, str] = {}  # key -> the glued value's text/plain, in this kernel


# jupyterlab-myst shows a text/plain result with one pair of matching quotes taken off
# (those of a str's repr): ``content.replace(/^(["'])(.*)\1$/, "$2")``
QUOTED = re.compile(r"""^(["'])(.*)\1$""")


class Shown(str):
    """A formatted value that displays as itself in JupyterLab: its repr has no quotes.

    subtle: jupyterlab-myst takes one pair of matching quotes off a result, so a text that
    is itself quoted (a glued repr, "'a b'") gets one more pair, which it takes off.

    >>> Shown("12.5%")
    12.5%
    >>> Shown("'a b'")
    ''a b''
    """

    def __repr__(self) -> str:
        return f"{self[0]}{self}{self[0]}" if QUOTED.match(self) else str(self)


def jupyterlab_shows(text_plain: str) -> str:
    """What jupyterlab-myst shows for an inline result's text/plain: "'x'" -> "x", "12%" -> "12%"."""
    return QUOTED.sub(r"\2", text_plain)


def glue(name: str, value, display: bool = False) -> None:
    """myst-nb's ``glue``, and the value's text kept for ``glued``: glue("n_docs", 1234) and
    then glued("n_docs:,") -> 1,234.
    """
    _myst_glue.glue(name, value, display=display)
    data, _ = _formatters.format_display_data(value)  # what myst-nb stores, for text/plain
    _TEXTS[name] = data["text/plain"]


def format_glued(text_plain: str, spec: str) -> str:
    """The text myst-nb's ``{glue:text}`KEY:FORMAT``` shows for a glued value's text/plain.

    ``spec``: "KEY:FORMAT" or "KEY"; only the format is used here.

    >>> format_glued("0.1234", "share:.1%")
    '12.3%'
    >>> format_glued("32768", "n_vocab:,")
    '32,768'
    >>> format_glued("'GPT-2'", "name")
    'GPT-2'
    """
    parts = spec.rsplit(":", 1)
    fmt = parts[1] if len(parts) == 2 else "s"  # myst-nb's default
    return _variables.format_plain_text(text_plain, fmt)


def glued(spec: str) -> Shown:
    """The glued value named by ``spec`` ("KEY" or "KEY:FORMAT"), formatted as the book shows it:
    after glue("ratio", 0.25), glued("ratio:.2f") -> 0.25 (a ``Shown``).
    """
    key = spec.rsplit(":", 1)[0] if ":" in spec else spec
    if key not in _TEXTS:
        raise KeyError(f"{key}: no value glued under this name in this kernel (glued: {sorted(_TEXTS)}); "
                       "run the cell that glues it first")
    return Shown(format_glued(_TEXTS[key], spec))


def parse_expression(expression: str) -> str:
    """The "KEY:FORMAT" of an {eval} expression, which must be ``glued("...")``.

    >>> parse_expression('glued("model_share:.1%")')
    'model_share:.1%'
    >>> parse_expression("model_share")
    Traceback (most recent call last):
    ...
    ValueError: {eval}`model_share`: the book renders only glued("KEY") or glued("KEY:FORMAT")
    """
    try:
        call = ast.parse(expression, mode="eval").body
    except SyntaxError:
        call = None
    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == FUNCTION
            and len(call.args) == 1 and not call.keywords
            and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
        return call.args[0].value
    raise ValueError(f'{{eval}}`{expression}`: the book renders only {FUNCTION}("KEY") or {FUNCTION}("KEY:FORMAT")')


def glued_texts(nb: dict) -> dict[str, str]:
    """Key -> text/plain of every value a notebook's stored outputs glue (as myst-nb reads them).

    nb: the notebook as JSON. A figure is glued too; it has a text/plain as well.
    """
    out = {}
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is None:
                continue
            data = output.get("data", {})
            text = data.get(MIME_PREFIX + "text/plain", data.get("text/plain"))
            if text is not None:
                out[name] = "".join(text) if isinstance(text, list) else text
    return out


def expressions_of(source: str) -> list[str]:
    """The {eval} expressions of a markdown cell's source, each once, in order.

    >>> expressions_of('a {eval}`glued("x:.2f")` b {eval}`glued("y")` c {eval}`glued("x:.2f")`')
    ['glued("x:.2f")', 'glued("y")']
    """
    return list(dict.fromkeys(EVAL_ROLE.findall(source)))


def store_expressions(nb: dict) -> int:
    """Store each markdown cell's {eval} results in its ``metadata.user_expressions``.

    The results are those a kernel that ran the notebook returns for them (``glued`` on the
    values the stored outputs glue), in the form jupyterlab-myst reads and writes. A cell
    without {eval} roles loses any stale entry. Returns how many results were stored;
    raises ``KeyError`` naming the cell for an expression whose key nothing glues.
    """
    texts = glued_texts(nb)
    stored = 0
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        results = []
        for expression in expressions_of(source):
            spec = parse_expression(expression)
            key = spec.rsplit(":", 1)[0] if ":" in spec else spec
            if key not in texts:
                raise KeyError(f"markdown cell {i}: {{eval}}`{expression}` names {key!r}, which no stored output "
                               f"glues (glued: {sorted(texts)})")
            shown = repr(Shown(format_glued(texts[key], spec)))  # the text/plain a kernel returns
            results.append({"expression": expression,
                            "result": {"status": "ok", "data": {"text/plain": shown}, "metadata": {}}})
            stored += 1
        if results:
            cell.setdefault("metadata", {})["user_expressions"] = results
        else:
            cell.get("metadata", {}).pop("user_expressions", None)
    return stored


def main(argv: list[str] | None = None) -> None:
    """python -m bpe_lesson.teaching.glue book/A.ipynb ...: store the {eval} results in place."""
    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        raise SystemExit("usage: python -m bpe_lesson.teaching.glue NOTEBOOK.ipynb ...")
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        n = store_expressions(nb)
        nbformat.write(nb, path)
        print(f"{path}: {n} inline results stored")


if __name__ == "__main__":
    main()
