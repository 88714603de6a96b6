"""Interop with other ecosystems: real models' vocabularies by name, and Hugging Face's ``tokenizer.json``.

``from_pretrained(name)``: Llama 3, Llama 4, Qwen, GPT-4, GPT-4o and Mistral's
Tekken, offline, from files that pinned packages ship (``pretrained``).
``to_huggingface`` / ``save_huggingface`` / ``from_huggingface``: a byte-level BPE
``tokenizer.json`` out and in (``huggingface``).
``from_gpt2_files`` / ``save_gpt2_files``: GPT-2's ``encoder.json`` + ``vocab.bpe``
pair, the files of Hugging Face's ``GPT2Tokenizer`` (``gpt2_files``).

What this package does not do: import ``tokenizers`` or ``transformers`` until a
function needs them (``import bpe_lesson.interop`` stays light), or download.
"""

from .gpt2_files import from_gpt2_files, save_gpt2_files
from .huggingface import from_huggingface, save_huggingface, to_huggingface
from .pretrained import NAMES, PRETRAINED, from_pretrained

__all__ = ["from_pretrained", "PRETRAINED", "NAMES", "to_huggingface", "save_huggingface", "from_huggingface",
           "from_gpt2_files", "save_gpt2_files"]
