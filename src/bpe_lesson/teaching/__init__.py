"""The book's helpers, one module per kind:

* ``samples``: real text every Python install has (prose, code), and multilingual samples;
* pictures, one module per kind: ``viz`` (tokens as coloured spans, and the plot style every
  figure shares), ``figures`` (diagrams of one mechanism worked by hand: a merge step, a
  merge tree, the capstone's parts), ``plots`` (the trainer's state and measured results:
  the pair index and heap, windows, timings, the vocabulary's price) and ``data_shapes``
  (the figure of the four training shapes);
* ``tables``: results that are tables, shown as tables (HTML in the book and JupyterLab,
  aligned text for nbval);
* ``trace`` (recorders that watch the package work), ``replay`` (a merge list replayed step
  by step), ``optimal`` (exact solvers to hold BPE against), ``live`` (the rendered book's
  live tokenizer's vocabularies), ``exercises`` (the student version of the chapters);
* ``checks``: the graders of the chapters' exercises.

Importing this package sets the book's figure style once (``viz.book_figures``): every
chapter imports a helper from here, so no chapter configures matplotlib itself.
"""

from . import viz

viz.book_figures()
