"""From a tokenizer to a language model's input: ``pack`` (documents into token
shards; ``pack_command``: ``bpe-lesson pack``), ``shards`` (the folder format and
``bpe-lesson verify``), ``windows`` (a sliding-window PyTorch dataset over the
shards), ``chat`` (a chat template with its loss mask), ``preference`` and ``rl``
(fine-tuning records) and ``tensors`` (ids in memory as a checked tensor). The only
part of the package that uses torch, an extra (``pip install "bpe-lesson[torch]"``):
``windows`` on import, the others only in the functions that return tensors
(``render_chat`` returns lists).
"""
