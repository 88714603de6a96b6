"""Unicode normalization: the optional step before pre-tokenization.

Unicode often has two ways to write what a reader sees as the same text: "é" is
one code point (U+00E9) or "e" followed by a combining accent (U+0301). The four
normalization forms pick one way:

* NFC: compose ("e" + accent -> "é"); NFD: decompose ("é" -> "e" + accent);
* NFKC and NFKD do the same after also replacing *compatibility* characters by
  their plain equivalents: the ligature "ﬁ" -> "fi", full-width "Ａ" -> "A",
  superscript "²" -> "2".

A tokenizer built with ``normalize="NFKC"`` sees fewer distinct spellings, but it
no longer round-trips: ``decode(encode("ﬁ"))`` is "fi". Byte-level BPE (GPT-2
onwards) leaves text alone for exactly that reason.

What this module does not do: lowercasing, accent stripping or any other
normalizer of BERT or SentencePiece (``nmt_nfkc`` adds rules of its own); it is
Python's ``unicodedata.normalize`` with a check of the form's name.
"""

from __future__ import annotations

import unicodedata

FORMS = ("NFC", "NFD", "NFKC", "NFKD")


def check_form(form: str | None) -> str | None:
    """Return ``form`` if it is None or one of ``FORMS``; otherwise raise a ValueError that says what is allowed.

    >>> check_form("NFKC"), check_form(None)
    ('NFKC', None)
    """
    if form is None or (isinstance(form, str) and form in FORMS):
        return form
    hint = ""
    if isinstance(form, str) and form.upper() in FORMS:
        hint = f" (did you mean {form.upper()!r}?)"
    raise ValueError(f"normalize={form!r} is not a Unicode normalization form{hint}; use None or one of {FORMS}")


def normalize(text: str, form: str | None) -> str:
    """``text`` in normalization form ``form``; ``None`` returns it unchanged.

    >>> normalize("ﬁne", "NFKC"), normalize("ﬁne", "NFC"), normalize("ﬁne", None)
    ('fine', 'ﬁne', 'ﬁne')
    >>> [len(normalize("é", f)) for f in FORMS]    # composed: 1 code point, decomposed: 2
    [1, 2, 1, 2]
    """
    form = check_form(form)
    if form is None:
        return text
    return unicodedata.normalize(form, text)


def changed_characters(text: str, form: str) -> int:
    """How many characters of ``text`` the form changes (each character normalized on its own).

    subtle: normalizing one character at a time misses changes that need a
    neighbour (a base letter and a combining mark that NFC composes); use it for
    counting, and ``normalize`` for the text itself.

    >>> changed_characters("ﬁne ｃａｆé x²", "NFKC")   # the ligature, 3 full-width letters, the superscript
    5
    """
    return sum(1 for ch in text if unicodedata.normalize(form, ch) != ch)


def check_specials_normalized(specials, form: str | None, where: str = "special_tokens") -> None:
    """Refuse a special token that ``form`` changes: text is normalized before special
    tokens are looked for, so such a token could never be found (nor refused).

    >>> check_specials_normalized(["<|caf\\u00e9|>"], "NFC")
    >>> check_specials_normalized(["<|e\\u0301|>"], "NFC")
    Traceback (most recent call last):
    ValueError: special_tokens: '<|e\u0301|>' changes under NFC (to '<|\u00e9|>'), ...; write it in NFC form, or use normalize=None
    """
    if form is None:
        return
    for s in specials:
        n = normalize(s, form)
        if n != s:
            raise ValueError(f"{where}: {s!r} changes under {form} (to {n!r}), so normalized text never holds "
                             f"it; write it in {form} form, or use normalize=None")
