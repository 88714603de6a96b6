"""Tokenizer files, in and out: our JSON file, a course's byte tables, ``.tiktoken``.

``tokenizer_json`` (the JSON file ``Tokenizer.save`` writes and ``Tokenizer.load``
reads) and ``byte_tables`` (a course's ``{id: bytes}`` vocabulary and
``[(bytes, bytes)]`` merges). ``Tokenizer.save`` / ``load`` / ``from_vocab`` are thin
entry points into these modules.

What this package does not do: encode or train. Its ``__init__`` imports nothing,
so each module is loaded only when a format is used.
"""
