"""The core's insides: helpers the core modules use and a Part I reader need not open.

``files`` (reading and writing files safely), ``progress`` (progress bars),
``unicode_classes`` / ``unicode_data`` / ``char_classes`` (tiktoken's character
classes, stored, and the table the compiled scanners read), ``checks`` (the
Tokenizer's argument checks), ``batch`` (``encode_batch`` and its threads),
``streaming`` (``encode_iterable``) and ``tiktoken_surface`` (the rest of
``tiktoken.Encoding``'s names on ``Tokenizer``).

What this package does not hold: anything a chapter teaches from; it imports
nothing here, so each module is loaded only by the core module that needs it.
"""
