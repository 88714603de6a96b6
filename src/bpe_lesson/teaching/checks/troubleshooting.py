"""Checks of the exercises in *Troubleshooting*.

``same_ids`` is checked on tokenizers built here from one trained vocabulary: a
renamed copy (same ids), a retrained one, one whose special token has another id,
one with the same vocabulary but no split pattern (other ids on most text), and one
whose vocabulary differs only in a token the probe texts never use. ``pad_length``
is checked against a direct count of the windows, for every small case.

What this module does not do: read the reader's files (the chapter does).

>>> windows_reaching(10, 3, 2)   # windows of 4 ids every 2: targets up to position 9
(4, 9)
"""

from __future__ import annotations

from functools import lru_cache

from ...tokenizer import Tokenizer
from ...trainer import train
from ..samples import prose_topics
from . import check

EOT = "<|endoftext|>"


@lru_cache(maxsize=1)
def _tokenizers():
    texts = list(prose_topics().values())[:40]
    tok = train(texts, 256 + 300 + 1, special_tokens=[EOT])
    renamed = Tokenizer(tok.merges, pattern=tok.pattern, special_tokens=tok.special_tokens, name="renamed")
    retrained = train(texts, 256 + 310 + 1, special_tokens=[EOT])
    other_eot = Tokenizer(tok.merges, pattern=tok.pattern, special_tokens={EOT: tok.vocab_size + 5})
    no_split = Tokenizer(tok.merges, pattern=None, special_tokens=tok.special_tokens)
    # the last merge's token replaced by bytes no probe text holds: same ids on the probes
    vocab = dict(tok.vocab)
    vocab[max(vocab)] = b"\x00\x01\x02zzz"
    other_token = Tokenizer(None, pattern=tok.pattern, special_tokens=tok.special_tokens, vocab=vocab)
    probes = texts[:3] + ["hello <|endoftext|> world"]
    return tok, renamed, retrained, other_eot, no_split, other_token, probes


@check("ex-trouble-fingerprint")
def check_same_ids(same_ids):
    tok, renamed, retrained, other_eot, no_split, other_token, probes = _tokenizers()
    assert same_ids(tok, renamed, probes) is True, "a renamed copy gives the same ids: expected True"
    assert same_ids(tok, retrained, probes) is False, "a tokenizer retrained with more merges differs"
    assert same_ids(tok, other_eot, probes) is False, "a special token with another id changes the ids"
    assert same_ids(tok, no_split, probes) is False, (
        "same vocabulary and special tokens, but no split pattern: the ids differ (compare ids, "
        "not only the vocabulary)")
    assert same_ids(tok, other_token, probes) is False, (
        "the probes give the same ids, but one token decodes to other bytes (compare the vocabulary too)")


def windows_reaching(m: int, T: int, stride: int) -> tuple[int, int]:
    """Windows of ``T + 1`` ids every ``stride`` over ``m`` ids: (how many, last target position)."""
    count = max(0, 1 + (m - (T + 1)) // stride)
    return count, ((count - 1) * stride + T if count else -1)


@check("ex-trouble-padding")
def check_pad_length(pad_length):
    for n in range(1, 60):
        for T in (1, 3, 8):
            for stride in range(1, T + 1):
                p = pad_length(n, T, stride)
                assert isinstance(p, int) and p >= 0, f"n={n}, T={T}, stride={stride}: pad {p!r} is no count"
                count, last = windows_reaching(n + p, T, stride)
                assert count > 0 and last >= n - 1, f"n={n}, T={T}, stride={stride}: pad {p} is too small"
                if p > 0:
                    count, last = windows_reaching(n + p - 1, T, stride)
                    assert count == 0 or last < n - 1, f"n={n}, T={T}, stride={stride}: pad {p} is not the fewest"
