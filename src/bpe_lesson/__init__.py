"""bpe_lesson: byte-pair encoding from first principles.

The public API: ``train`` (``train_bpe``: Stanford CS336's name and result for it),
``load``, ``from_pretrained`` (real models' vocabularies,
offline: ``formats.pretrained``; tiktoken's ``get_encoding``, ``encoding_for_model``,
``encoding_name_for_model`` and ``list_encoding_names`` too), ``Tokenizer`` and ``BACKEND``: "cython" when the
compiled extension (``_compiled._native``: the trainer and the encoder) is
built and not disabled by ``BPE_LESSON_PUREPYTHON=1``, else "python" (decided once,
in ``_compiled/backend.py``). Both give the same merges and the same ids.

The core, flat in this folder, is what the book's Part I reads: ``patterns``,
``chunks``, ``textbook``, ``incremental``, ``ranks``, ``trainer``, and ``tokenizer``
(a package: the class and every concern of it, its own files included); beside it,
its own folders: ``formats`` (other ecosystems' files in and out, documents to train
on, real models' vocabularies), ``_compiled`` (the Cython extension and the switch
to it) and ``_internal`` (helpers, the bottom layer). Larger
capabilities live in subpackages that import the core, never the reverse:
``scale`` (the YAML trainer), ``lm`` (shards and training windows), ``cousins``
(WordPiece, Unigram) and ``teaching`` (the book's helpers).
"""

import bpe_lesson_cli

# `python -m bpe_lesson`: Python imports this package before __main__ can catch Ctrl-C;
# until it does, Ctrl-C exits quietly with 130, as the command does (bpe_lesson_cli)
if bpe_lesson_cli.run_by_python_m() == "bpe_lesson":
    bpe_lesson_cli.quiet_start_up()

from ._compiled.backend import BACKEND
from .formats.documents import read_documents
from .formats.pretrained import encoding_for_model, encoding_name_for_model, from_pretrained, get_encoding
from .formats.pretrained import list_encoding_names
from .tokenizer import Tokenizer
from .trainer import StoppedShort, train, train_bpe

__all__ = ["train", "train_bpe", "read_documents", "load", "from_pretrained", "Tokenizer", "BACKEND", "StoppedShort",
           # tiktoken's names for loading a vocabulary
           "get_encoding", "encoding_for_model", "encoding_name_for_model", "list_encoding_names"]
__version__ = "0.1.0"

load = Tokenizer.load  # our JSON file, or a .tiktoken file (with its JSON sidecar if present)
