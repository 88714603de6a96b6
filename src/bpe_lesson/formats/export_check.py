"""An export is exact or refused: check a written tokenizer against the format's own reader.

``check_export(tok, reader, merges, what)`` encodes a few hundred short texts with
``tok`` and with ``reader`` (the format's reader over what is about to be written:
``tokenizers`` for a ``tokenizer.json`` or GPT-2's file pair) and raises
``ValueError`` naming the first text on which the ids differ. The texts
(``sample_texts``): real lines in ten scripts, generated text over characters every
regex engine's Unicode tables agree on (seeded, so a rerun checks the same), and
each token the exporter had to add merges for, alone and inside a longer word.

What this module does not do: prove an export exact (``ranks.merge_list_problem``
checks the merge list itself, before this runs); write any file; or check special
tokens (the texts hold none).
"""

from __future__ import annotations

import random

__all__ = ["REAL_LINES", "sample_texts", "check_export"]

# Real text: one line per script (the book's samples are longer; these stay in the core).
REAL_LINES = [
    "The quick brown fox jumps over the lazy dog. Reading is easy; counting is easier.",
    "Le modèle ne voit que ces nombres. Lire, c'est facile. Straßenbahnhaltestelle über.",
    "Температура воздуха сегодня высокая. Быстрая коричневая лиса прыгает через собаку.",
    "人力资源管理是一门学科。敏捷的棕色狐狸跳过了懒狗，模型只看到这些数字。",
    "素早い茶色の狐がのろまな犬を飛び越える。トークナイザーは文章を数字に変える。",
    "الثعلب البني السريع يقفز فوق الكلب الكسول. المحلل يحول النص إلى أرقام.",
    "तेज़ भूरी लोमड़ी आलसी कुत्ते के ऊपर कूदती है। टोकनाइज़र पाठ को बदलता है।",
    "Η γρήγορη καφέ αλεπού πηδά πάνω από τον τεμπέλη σκύλο. 빠른 갈색 여우가 점프합니다.",
    "Việc hợp tác nhiều điều quan trọng. Tiếng Việt có dấu. Jeho práce je důležitá.",
    "def f(x):\n    return {'a': [1, 2, 3]}  # 12345 * 678 = 8369910\n\n\tprint(f'{x!r}')\r\n",
]

# Characters in Unicode 7.0 or earlier, where Oniguruma's tables (in ``tokenizers``)
# and the ``regex`` module's agree on \p{L}, \p{N}, \p{M} and \s.
_OLD_RANGES = [(0x09, 0x0D), (0x20, 0x7E), (0xA0, 0x17F), (0x300, 0x34E), (0x391, 0x3C9), (0x400, 0x45F),
               (0x5D0, 0x5EA), (0x621, 0x63A), (0x641, 0x669), (0x905, 0x939), (0x93E, 0x94D),
               (0x1EA0, 0x1EF9), (0x2010, 0x2027), (0x3041, 0x3094), (0x4E00, 0x4FFF), (0xAC00, 0xAC40),
               (0xFF01, 0xFF5E), (0x1F600, 0x1F640)]
_OLD_CHARS = "".join(chr(c) for lo, hi in _OLD_RANGES for c in range(lo, hi + 1) if c != 0xA0)


def sample_texts(tok, added_ids=(), n_generated=300, seed=0) -> list[str]:
    """The texts ``check_export`` compares on: real lines, generated ones, and the text of
    each token in ``added_ids`` (when it is UTF-8) alone, after a space, and between letters.

    >>> from bpe_lesson import Tokenizer
    >>> texts = sample_texts(Tokenizer([((97, 98), 256)]), added_ids=[256], n_generated=2)
    >>> len(texts), texts[-3:]
    (15, ['ab', ' ab', 'aabs'])
    """
    rng = random.Random(seed)
    out = list(REAL_LINES)
    for _ in range(n_generated):
        out.append("".join(rng.choice(_OLD_CHARS) for _ in range(rng.randint(1, 40))))
    for i in added_ids:
        try:
            s = tok.vocab[i].decode("utf-8")
        except UnicodeDecodeError:
            continue  # a token that is not whole characters: no text spells it alone
        out.extend([s, " " + s.lstrip(), "a" + s + "s"])
    specials = tuple(tok.special_tokens)
    return [t for t in out if not any(s in t for s in specials)]


def check_export(tok, reader, what: str, added_ids=()) -> None:
    """Raise ``ValueError`` if ``reader(texts) -> [ids, ...]`` (the format's own reader over
    the export) gives other ids than ``tok.encode_ordinary`` on ``sample_texts``.

    >>> from bpe_lesson import Tokenizer
    >>> tok = Tokenizer([((97, 98), 256)], pattern="gpt4")
    >>> check_export(tok, lambda texts: [tok.encode(t) for t in texts], "tokenizer.json")
    >>> check_export(tok, lambda texts: [[tok.encode(t)[0]] for t in texts], "tokenizer.json")
    Traceback (most recent call last):
    ValueError: the tokenizer.json written would give other ids than this tokenizer ...
    """
    texts = sample_texts(tok, added_ids)
    theirs = reader(texts)
    for text, got in zip(texts, theirs):
        ours = tok.encode_ordinary(text)
        if list(got) != ours:
            at = next((k for k, (a, b) in enumerate(zip(ours, got)) if a != b), min(len(ours), len(got)))
            raise ValueError(f"the {what} written would give other ids than this tokenizer on {text[:60]!r}: "
                             f"its reader gives {list(got)[at:at + 4]} where this tokenizer gives "
                             f"{ours[at:at + 4]} (at id {at}); nothing was written")
