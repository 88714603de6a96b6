"""The core's insides: helpers the core modules use and a Part I reader need not open.

``files`` (reading and writing files safely), ``progress`` (progress bars),
``unicode_data`` (tiktoken's character classes, stored, for ``unicode_classes``) and
``char_classes`` (the table the compiled scanners read), ``checks`` (the
Tokenizer's argument checks, and a setting's older name), ``batch`` (``encode_batch`` and its threads),
``compiled_path`` (the backend a tokenizer runs on, bound once), ``cluster``
(a Dask client, for the parts that count or pack on a cluster), ``streaming``
(``encode_iterable``) and ``tiktoken_surface`` (the rest of
``tiktoken.Encoding``'s names on ``Tokenizer``).

What this package does not hold: anything a chapter teaches from. Its
``__init__`` imports nothing, so each module is loaded only by the core module
that needs it.
"""
