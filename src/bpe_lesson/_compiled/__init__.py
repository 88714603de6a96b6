"""The compiled side of the core: one Cython extension, ``_native``.

Every ``.pyx``, ``.pxd``, ``.pxi`` and ``.h`` of the package lives in this folder.
``_native.pyx`` includes each ``.pxi`` once (the encoder, the trainer and the pieces
both use: the hash table, the scanners, the SIMD switch), and ``_native.pxd``
declares the shared pieces. ``setup.py`` builds it; ``backend`` (the one Python module
here) imports it, once, unless ``BPE_LESSON_PUREPYTHON=1``, and says which serves.

What this package does not hold: the readable twin of each piece, which is in the
core (``ranks``, ``patterns``, ``incremental``, ``chunks``).
"""
