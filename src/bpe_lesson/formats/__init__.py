"""Other ecosystems' tokenizer files, read into a ``Tokenizer`` and written from one; real
models' vocabularies by name; the documents to train on.

``huggingface`` (a byte-level BPE ``tokenizer.json``, out and in; ``hf_settings``: the
roles, BOS and chat template it writes beside the vocabulary), ``gpt2_files`` (GPT-2's
``encoder.json`` + ``vocab.bpe``), ``byte_level`` (a split pattern in Hugging Face's
regex syntax), ``pretrained`` (``from_pretrained``: Llama 3, Qwen, GPT-4, ... offline,
from files that pinned packages ship), ``export_check`` (an export read back and
compared) and ``documents`` (text, JSONL and Parquet files to train on). Each reads
plain data (ranks, merges, a pattern, special tokens) and builds a ``Tokenizer``
through its constructor: this package imports ``tokenizer``, never the reverse. The
Tokenizer's own files (our JSON, ``.tiktoken``, a course's byte tables) are read and
written in ``tokenizer/``.

What this package does not do: encode or train. Its ``__init__`` imports nothing,
so each module is loaded only when a format is used.
"""
