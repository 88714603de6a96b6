"""Tokenizer files, in and out, and real models' vocabularies by name.

``tokenizer_json`` (the JSON file ``Tokenizer.save`` writes and ``Tokenizer.load``
reads), ``byte_tables`` (a course's ``{id: bytes}`` vocabulary and ``[(bytes, bytes)]``
merges), ``huggingface`` (a byte-level BPE ``tokenizer.json``, out and in;
``hf_settings``: the roles, BOS and chat template it writes beside the vocabulary),
``gpt2_files`` (GPT-2's ``encoder.json`` + ``vocab.bpe``), ``byte_level`` (GPT-2's
byte alphabet and Hugging Face's regex syntax, which both use) and ``pretrained``
(``from_pretrained``: Llama 3, Qwen, GPT-4, ... offline, from files that pinned
packages ship). ``Tokenizer.save`` / ``load`` / ``from_vocab`` are thin entry points
into these modules. ``tiktoken_io``: ``.tiktoken`` files (with their JSON sidecar) and
``tiktoken.Encoding`` objects, in and out; ``offline``: where GPT-4's and GPT-4o's
vocabularies are found without a network.

What this package does not do: encode or train. Its ``__init__`` imports nothing,
so each module is loaded only when a format is used.
"""
