"""The Tokenizer, in one place: every public name of ``Tokenizer`` is defined in this package.

``core`` holds the class: the vocabulary, the merges, the split pattern and the special
tokens, checked once when a tokenizer is made, and ``encode``, ``encode_ordinary``,
``encode_chunk``, ``decode`` and ``decode_bytes``. The class is one idea in several
files, each a concern of it that ``core`` mixes in:

  ``compiled_path``     which encoder runs (``backend``), and the compiled plan of a call
  ``batch``             ``encode_batch``, ``encode_to_numpy``: many texts, on threads
  ``streaming``         ``encode_iterable``: a stream of text, with bounded memory
  ``special_tokens``    special tokens checked, and refused in text that does not allow them
  ``tiktoken_surface``  the rest of ``tiktoken.Encoding``'s names (``n_vocab``, ``decode_batch``, ...)
  ``hf_surface``        Hugging Face's everyday names (``token_to_id``, ``get_vocab``, ...)
  ``json_file``         ``save``, ``load``, ``to_dict``, ``from_dict``: our JSON file
  ``tiktoken_io``       ``.tiktoken`` files and ``tiktoken.Encoding`` objects, in and out
                        (``offline``: where GPT-4's and GPT-4o's files are found)
  ``byte_tables``       ``from_vocab``, ``from_files``, ``vocab_bytes``, ``merge_bytes``: the
                        ``{id: bytes}`` and ``[(bytes, bytes)]`` tables courses use, and GPT-2's
                        byte alphabet they are written in

What this package does not do: train (``trainer``), define the rank loop (``ranks``)
or the split (``patterns``), or read other ecosystems' files (``formats``, which
imports this package and builds a ``Tokenizer`` through its constructor; this
package never imports ``formats``).
"""

from .core import Tokenizer, checked_merges
from .tiktoken_surface import UnknownTokenError

__all__ = ["Tokenizer", "checked_merges", "UnknownTokenError"]
