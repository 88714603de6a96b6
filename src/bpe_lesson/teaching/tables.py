"""Results that are tables, shown as tables: an HTML table in the built book and in
JupyterLab, aligned text where only text is shown.

A chapter ends a cell with ``Table(header, rows)`` (or gives one to ``display``). The cell's output then carries two
forms of one table: ``text/markdown`` (a pipe table: myst-nb renders it as an HTML table
in the book, JupyterLab in the notebook) and ``text/plain`` (the same cells in aligned
columns, which nbval compares on every run, so the numbers are checked, not only the
fact that a table was drawn). Both come from the cells as given: the chapter formats
each number once, to the digits the text needs.

What this module does not do: format numbers, or sort, total or wrap anything.
"""

from __future__ import annotations

__all__ = ["Table"]


class Table:
    """A header, rows of cells (each shown with ``str``), a title and each column's side
    (``align``: one ``l`` or ``r`` per column; by default a first column of names goes
    left and every number right).

    >>> t = Table(["V", "bits per byte"], [[512, "3.017"], [4096, "2.550"]], title="Held out")
    >>> print(repr(t))
    Held out
       V  bits per byte
     512          3.017
    4096          2.550
    >>> print(t._repr_markdown_())
    **Held out**
    <BLANKLINE>
    | V | bits per byte |
    | ---: | ---: |
    | 512 | 3.017 |
    | 4096 | 2.550 |
    """

    def __init__(self, header, rows, *, title: str | None = None, align: str | None = None):
        self.header = [str(h) for h in header]
        self.rows = [[str(x) for x in row] for row in rows]
        self.title = title
        # the first column to the left when it holds names, else every column to the right
        self.align = align or ("l" if self._names_first() else "r") + "r" * (len(self.header) - 1)
        if len(self.align) != len(self.header) or set(self.align) - {"l", "r"}:
            raise ValueError(f"align={self.align!r}: one 'l' or 'r' per column ({len(self.header)})")
        for k, row in enumerate(self.rows):
            if len(row) != len(self.header):
                raise ValueError(f"row {k} has {len(row)} cells; the header has {len(self.header)}")

    def _names_first(self) -> bool:
        return any(row and not _numeric(row[0]) for row in self.rows)

    def _repr_markdown_(self) -> str:
        rule = ["---:" if a == "r" else ":---" for a in self.align]
        lines = [[_escaped(c) for c in self.header], rule] + [[_escaped(c) for c in row] for row in self.rows]
        body = "\n".join("| " + " | ".join(line) + " |" for line in lines)
        return f"**{self.title}**\n\n{body}" if self.title else body

    def __repr__(self) -> str:
        widths = [max(len(r[i]) for r in [self.header] + self.rows) for i in range(len(self.header))]
        lines = [self.title] if self.title else []
        for row in [self.header] + self.rows:
            cells = [c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(row, widths, self.align)]
            lines.append("  ".join(cells).rstrip())
        return "\n".join(lines)


def _numeric(cell: str) -> bool:
    return cell.replace(",", "").replace(".", "").replace("%", "").replace("e+", "").lstrip("+-").isdigit()


def _escaped(cell: str) -> str:
    """A cell's text in a pipe table: a ``|`` of its own would end the cell."""
    return cell.replace("|", "\\|")
