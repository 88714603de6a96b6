"""Real text for the chapters and tests, from files every Python install has.

* English prose: ``pydoc_data.topics`` (the help texts ``help("if")`` prints).
* Python code: CPython's standard-library sources (``Lib/*.py`` beside ``os.py``).
* Other scripts: short samples written for this book (``MULTILINGUAL``), each a
  few plain sentences about reading and writing, so no chapter needs a download.
* A domain of its own: Unicode's character names (``unicodedata.name``), the text a
  vocabulary trained on prose and code has never seen.

Train/held-out splits are by document (topic or file), fixed by sorted name, so
every chapter that says "held-out" means the same text.

What this module does not do: stream large corpora from disk with a memory
budget (see ``config.py``).
"""

from __future__ import annotations

import glob
import os
import unicodedata

__all__ = ["MULTILINGUAL", "prose_topics", "stdlib_paths", "code_files", "split",
           "prose_split", "code_split", "first_bytes", "unicode_names", "words"]

# Written for this book. Each sample is a handful of ordinary sentences.
MULTILINGUAL = {
    "English": "The quick brown fox jumps over the lazy dog. A tokenizer turns text into numbers, "
               "and a model only ever sees those numbers. Reading is easy; counting is easier.",
    "French (Latin)": "Le renard brun rapide saute par-dessus le chien paresseux. Un tokeniseur transforme "
                      "le texte en nombres, et le modèle ne voit que ces nombres. Lire, c'est facile.",
    "German (Latin)": "Der schnelle braune Fuchs springt über den faulen Hund. Ein Tokenisierer verwandelt "
                      "Text in Zahlen, und das Modell sieht nur diese Zahlen. Straßenbahnhaltestelle.",
    "Russian (Cyrillic)": "Быстрая коричневая лиса прыгает через ленивую собаку. Токенизатор превращает "
                          "текст в числа, и модель видит только эти числа. Читать легко.",
    "Greek": "Η γρήγορη καφέ αλεπού πηδά πάνω από τον τεμπέλη σκύλο. Ο αναλυτής μετατρέπει το "
             "κείμενο σε αριθμούς, και το μοντέλο βλέπει μόνο αυτούς τους αριθμούς.",
    "Chinese (CJK)": "敏捷的棕色狐狸跳过了懒狗。分词器把文本变成数字，模型只看到这些数字。读书很容易，数数更容易。",
    "Japanese (CJK)": "素早い茶色の狐がのろまな犬を飛び越える。トークナイザーは文章を数字に変え、モデルはその数字だけを見る。",
    "Arabic": "الثعلب البني السريع يقفز فوق الكلب الكسول. المحلل يحول النص إلى أرقام، والنموذج لا يرى إلا هذه الأرقام.",
    "Hindi (Devanagari)": "तेज़ भूरी लोमड़ी आलसी कुत्ते के ऊपर कूदती है। टोकनाइज़र पाठ को संख्याओं में बदलता है, "
                          "और मॉडल केवल उन संख्याओं को देखता है।",
}


def prose_topics() -> dict[str, str]:
    """English prose: topic name -> help text, from ``pydoc_data.topics``."""
    from pydoc_data.topics import topics

    return {k: topics[k] for k in sorted(topics)}


def stdlib_paths() -> list[str]:
    """CPython's top-level standard-library sources (``Lib/*.py``), sorted by name."""
    return sorted(glob.glob(os.path.join(os.path.dirname(os.__file__), "*.py")))


def code_files(limit_bytes: int | None = None) -> dict[str, str]:
    """Python code: file name -> source, in sorted order, up to ``limit_bytes`` in all."""
    out, total = {}, 0
    for p in stdlib_paths():
        with open(p, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if limit_bytes is not None and total + len(text.encode("utf-8")) > limit_bytes:
            break
        out[os.path.basename(p)] = text
        total += len(text.encode("utf-8"))
    return out


def split(docs: dict[str, str], held_out_every: int = 5) -> tuple[list[str], list[str]]:
    """(train, held_out): every ``held_out_every``-th document (by sorted name) is held out.

    >>> split({"a": "1", "b": "2", "c": "3"}, held_out_every=2)
    (['1', '3'], ['2'])
    """
    train, held = [], []
    for i, name in enumerate(sorted(docs)):
        (held if i % held_out_every == held_out_every - 1 else train).append(docs[name])
    return train, held


def prose_split() -> tuple[list[str], list[str]]:
    """English prose, 80% train / 20% held out (by topic)."""
    return split(prose_topics())


def code_split(limit_bytes: int = 2_000_000) -> tuple[list[str], list[str]]:
    """Python code, 80% train / 20% held out (by file), from the first ``limit_bytes`` of the stdlib."""
    return split(code_files(limit_bytes))


def first_bytes(docs: list[str], n_bytes: int) -> list[str]:
    """The first documents of ``docs``, up to and including the one that reaches ``n_bytes``
    UTF-8 bytes in all (a held-out set small enough to evaluate a model on quickly).

    >>> first_bytes(["ab", "cd", "ef"], 3)
    ['ab', 'cd']
    """
    out, total = [], 0
    for doc in docs:
        if total >= n_bytes:
            break
        out.append(doc)
        total += len(doc.encode("utf-8"))
    return out


def unicode_names(block: int = 100, n_train: int = 100, n_held: int = 5) -> tuple[list[str], list[str]]:
    """(train, held_out) documents of Unicode character names ("LATIN SMALL LETTER A WITH
    GRAVE"), one per line, ``block`` names a document in code point order: the even
    documents train (the first ``n_train``), the odd ones are held out (the first ``n_held``).

    >>> train, held = unicode_names(block=2, n_train=1, n_held=1)
    >>> train, held
    (['SPACE\\nEXCLAMATION MARK'], ['QUOTATION MARK\\nNUMBER SIGN'])
    """
    names = [n for n in (unicodedata.name(chr(c), "") for c in range(0x30000)) if n]
    docs = ["\n".join(names[k:k + block]) for k in range(0, len(names), block)]
    return docs[0::2][:n_train], docs[1::2][:n_held]


def words(text: str) -> int:
    """Whitespace-separated words, the denominator of fertility (tokens per word).

    For scripts written without spaces (Chinese, Japanese) this counts whole
    sentences as one word, so the chapters report those per character instead.

    >>> words("the cat  sat")
    3
    """
    return len(text.split())
