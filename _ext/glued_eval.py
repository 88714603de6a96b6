"""The {eval} role, rendered from the values a chapter glues, as {glue:text} renders them.

A chapter quotes a measured number as {eval}`glued("KEY:FORMAT")` (see
``bpe_lesson.teaching.glue``): JupyterLab with jupyterlab-myst shows {eval} from the
results stored in the cell's metadata, or from the kernel. myst-nb's own {eval} role asks a
running kernel, which this book does not start (``execute_notebooks: "off"``: it builds
from stored outputs), so it cannot render it. This extension replaces that role: the
expression must be ``glued("KEY")`` or ``glued("KEY:FORMAT")``, and it renders exactly as
myst-nb's {glue:text}`KEY:FORMAT` does (it is that role, called with KEY:FORMAT), from the
glue outputs stored in the notebook. Any other expression is a warning (an error under -W)
that names it.

What this module does not do: evaluate Python, or the {eval} directive and {eval:figure}
(myst-nb's, unchanged; the book does not use them).
"""

from docutils.utils import unescape
from myst_nb.ext.glue.roles import PasteTextRole

from bpe_lesson.teaching.glue import parse_expression


def glued_eval_role(name, rawtext, text, lineno, inliner, options=None, content=()):
    """{eval}`glued("model_share:.1%")` -> what {glue:text}`model_share:.1%` renders: "12.3%"."""
    try:
        spec = parse_expression(unescape(text))
    except ValueError as exc:
        msg = inliner.reporter.warning(str(exc), line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    return PasteTextRole()(name, rawtext, spec, lineno, inliner, options or {}, content)


def setup(app):
    app.setup_extension("myst_nb")  # subtle: myst-nb adds its own "eval" role; load it first, then replace it
    app.add_role("eval", glued_eval_role, override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
