"""Under ``pytest --nbval``, an exercise's cells carry its label in their names.

nbval names every code cell "Cell N"; a failing exercise then reads
``book/the_merge_rule.ipynb::Cell 22``. Here the solution and check cells of an
exercise are reported as "Cell 22 [ex-merge-pairs]", in ``book/`` and in a student
copy alike, so the summary line says which exercise failed.

It also tells nbval to leave a glued figure's pixels alone, as it already does for a
figure shown (``image/png``): myst-nb's ``glue`` stores a figure under
``application/papermill.record/image/png``, and a line fitted on another CPU moves
its pixels by a float's last bits. The figure's text (``<Figure size 600x300 with 1
Axes>``) is still compared.

What this file does not do: change how nbval runs a cell.
"""

import re

_LABEL = re.compile(r"\{solution-start\}\s+(\S+)|:label:\s+(ex-\S+)")


def _labels(nb):
    """id(code cell) -> the label of the exercise it belongs to (solution and check cells only)."""
    out, label = {}, None
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for m in _LABEL.finditer(cell.source):
                label = m.group(1) or m.group(2)
        elif {"solution", "check"} & set(cell.metadata.get("tags", [])) and label:
            out[id(cell)] = label
    return out


# glued images: compared by nbval byte for byte unless listed here (its skip_compare)
GLUED_IMAGES = tuple(f"application/papermill.record/{kind}" for kind in ("image/png", "image/jpeg", "image/svg+xml"))

_NAMED = {}  # nbval item's node id -> the same with the exercise label after it


def pytest_collection_modifyitems(items):
    cache = {}
    for item in items:
        cell, nb = getattr(item, "cell", None), getattr(item.parent, "nb", None)
        if cell is None or nb is None:
            continue
        skip = getattr(item.parent, "skip_compare", None)
        if skip is not None and GLUED_IMAGES[0] not in skip:
            item.parent.skip_compare = skip + GLUED_IMAGES
        labels = cache.setdefault(id(nb), _labels(nb))
        if id(cell) in labels:
            _NAMED[str(item.nodeid)] = f"{item.nodeid} [{labels[id(cell)]}]"


def pytest_runtest_logreport(report):
    named = _NAMED.get(str(report.nodeid))
    if named:
        report.nodeid = named
