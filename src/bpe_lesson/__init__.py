"""bpe_lesson: byte-pair encoding from first principles.

The public API: ``train``, ``load``, ``Tokenizer`` and ``BACKEND``: "cython" when the
compiled extensions (the trainer ``_incremental`` and the encoder ``_encoder``) are
built and not disabled by ``BPE_LESSON_PUREPYTHON=1``, else "python". Both give the
same merges and the same ids.
"""

from .tokenizer import Tokenizer
from .trainer import BACKEND, train

__all__ = ["train", "load", "Tokenizer", "BACKEND"]
__version__ = "0.1.0"


def load(path) -> Tokenizer:
    """Load a tokenizer: our JSON file, or a ``.tiktoken`` file (with its JSON sidecar if present)."""
    p = str(path)
    if p.endswith(".tiktoken") or p.endswith(".tiktoken.gz"):
        from .tiktoken_io import load_tiktoken

        return load_tiktoken(path)
    return Tokenizer.load(path)
