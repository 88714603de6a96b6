"""From a tokenizer to a language model's input: ``pack`` (documents into token
shards, ``bpe-lesson pack``), ``shards`` (the folder format and ``bpe-lesson verify``),
``windows`` (a sliding-window PyTorch dataset over the shards) and ``chat`` (a chat
template with its loss mask). The only part of the package that imports torch
(``windows`` and ``chat``).
"""
