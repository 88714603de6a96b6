"""The book's helpers: ``samples`` (real text every Python install has, and multilingual
samples), ``viz`` (tokens as coloured spans, the plot style) and ``exercises`` (the tool
that makes the student version of the chapters).

Importing this package sets the book's figure style once (``viz.book_figures``): every
chapter imports a helper from here, so no chapter configures matplotlib itself.
"""

from . import viz

viz.book_figures()
