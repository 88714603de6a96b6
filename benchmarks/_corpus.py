"""What the benchmarks share: the CORPUS argument and the stdlib corpus.

CORPUS is ``stdlib:SIZE`` (CPython's ``Lib/**/*.py``, sorted by path, without
site-packages, one document per file, cut to SIZE bytes), a text file, or a folder
(every .py and .txt under it, one document per file).
"""

from __future__ import annotations

import glob
import os
import re
import sys


def parse_size(text: str) -> int:
    """'10MB' -> 10_000_000 (decimal units: B, KB, MB, GB).

    >>> parse_size("10MB"), parse_size("512KB"), parse_size("2000")
    (10000000, 512000, 2000)
    """
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(B|KB|MB|GB)?\s*", text, re.IGNORECASE)
    if not m:
        raise ValueError(f"size {text!r} is not understood; write it like 10MB, 512KB or 2000 (bytes)")
    unit = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9}[(m.group(2) or "").upper()]
    return int(float(m.group(1)) * unit)


def stdlib_paths() -> list[str]:
    """CPython's Lib/**/*.py, sorted by path, without site-packages."""
    lib = os.path.dirname(os.__file__)
    return sorted(p for p in glob.glob(os.path.join(lib, "**", "*.py"), recursive=True)
                  if not {"site-packages", "dist-packages"} & set(os.path.relpath(p, lib).split(os.sep)))


def stdlib_docs(limit_bytes: int, cut_last: bool = True, cycle: bool = False) -> list[str]:
    """One document per stdlib file, up to ``limit_bytes`` of UTF-8 in all.

    ``cut_last``: cut the last file at a character boundary so the total is exactly
    the limit (else stop before the file that would pass it). ``cycle``: when the
    stdlib is smaller than the limit, go round its files again (and say so).
    """
    paths = stdlib_paths()
    if cycle:
        total_size = sum(os.path.getsize(p) for p in paths)
        rounds = max(1, -(-limit_bytes // max(total_size, 1)))
        if rounds > 1:
            print(f"note: the stdlib has {total_size:,} bytes of sources; its files repeat ({rounds} passes)",
                  file=sys.stderr)
        paths = paths * rounds
    docs, total = [], 0
    for p in paths:
        with open(p, encoding="utf-8", errors="replace") as f:
            text = f.read()
        size = len(text.encode("utf-8"))
        if total + size > limit_bytes:
            if cut_last:
                text = text.encode("utf-8")[: limit_bytes - total].decode("utf-8", errors="ignore")
                if text:
                    docs.append(text)
                    total += len(text.encode("utf-8"))
            break
        docs.append(text)
        total += size
    if total < 0.9 * limit_bytes:
        print(f"note: the stdlib has only {total:,} bytes of sources; using all of it", file=sys.stderr)
    return docs


def load_corpus(spec: str) -> list[str]:
    """The documents named by CORPUS: stdlib:SIZE, a file, or a folder."""
    if spec.startswith("stdlib:"):
        return stdlib_docs(parse_size(spec[len("stdlib:"):]))
    if os.path.isfile(spec):
        with open(spec, encoding="utf-8", errors="replace") as f:
            return [f.read()]
    if os.path.isdir(spec):
        paths = sorted(p for ext in ("py", "txt") for p in glob.glob(os.path.join(spec, "**", f"*.{ext}"), recursive=True))
        if not paths:
            raise SystemExit(f"folder {spec!r} holds no .py or .txt file")
        docs = []
        for p in paths:
            with open(p, encoding="utf-8", errors="replace") as f:
                docs.append(f.read())
        return docs
    raise SystemExit(f"CORPUS {spec!r} is neither a file, a folder, nor stdlib:SIZE (e.g. stdlib:10MB)")


# ---- the four texts of encode_speed.py -------------------------------------------

def prose_text() -> str:
    """English prose: every topic of Python's help (``pydoc_data.topics``), in key order."""
    import pydoc_data.topics
    return "".join(pydoc_data.topics.topics[k] for k in sorted(pydoc_data.topics.topics))


def kjv_text(limit_bytes: int) -> str | None:
    """The King James Bible, one verse a line, cut to ``limit_bytes``; None without it.

    It comes from Debian's ``bible-kjv`` package (``apt-get install bible-kjv``,
    which installs offline from the package cache), read with its ``bible`` command.
    """
    import shutil
    import subprocess
    if shutil.which("bible") is None:
        return None
    text = subprocess.run(["bible", "-f", "Gen1:1-Rev22:21"], capture_output=True, text=True, check=True).stdout
    return text.encode("utf-8")[:limit_bytes].decode("utf-8", errors="ignore")


def multilingual_text() -> str:
    """Many languages: every translated message of Sphinx (installed with the book), by locale.

    Sphinx ships its messages in 60-odd locales (Japanese, Chinese, Korean, Hindi,
    Persian, Georgian, Greek, Russian and most European languages); the text is
    each locale's translations, one message a line, locales in sorted order.
    """
    import gettext
    import sphinx
    root = os.path.join(os.path.dirname(sphinx.__file__), "locale")
    parts = []
    for mo in sorted(glob.glob(os.path.join(root, "*", "LC_MESSAGES", "sphinx.mo"))):
        with open(mo, "rb") as f:
            catalog = gettext.GNUTranslations(f)._catalog
        parts.append("\n".join(v for k, v in sorted(catalog.items(), key=lambda kv: str(kv[0]))
                               if k and isinstance(v, str)))
    return "\n".join(parts)
