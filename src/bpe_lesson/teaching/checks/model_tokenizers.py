"""Checks of the exercises in *Model tokenizers, and the Hugging Face round trip*.

Every check is differential. The references: GPT-2's spelling of bytes as the
package writes it into ``tokenizer.json`` (``formats.byte_level.show_bytes``; the
tests check its map against ``transformers``' own ``bytes_to_unicode``); a
parameter count written out here and anchored on the counts Meta publishes for
Llama 3 8B and Llama 3.2 1B (the tests check it against PyTorch's own modules); and
a plain loop for the candidate on which two vocabularies disagree most. Hand-picked
cases first, then generated ones (``compare`` draws and seeds them).

What this module does not do: load the vocabularies (the chapter passes them in),
or import ``transformers`` (seconds to import, for a map of 256 entries).

>>> sorted(n for n in CHECKS if n.startswith("ex-models"))
['ex-models-bytemap', 'ex-models-disagree', 'ex-models-share']
"""

from __future__ import annotations

from ...formats.huggingface import show_bytes
from . import CHECKS, _gen, check, compare
from ._calls import _name, _shown

__all__ = ["EDGES", "check_bytemap", "llama_params", "VOCABS", "PADS", "check_share",
           "most_disagreeing", "check_disagree"]

# ---- ex-models-bytemap: a token's bytes as GPT-2's files spell them --------------------

# the edges of GPT-2's three printable ranges (33-126, 161-172, 174-255), and bytes
# a reader may treat as text: tab, newline, carriage return, space, DEL, NBSP, soft hyphen
EDGES = [0, 9, 10, 13, 31, 32, 33, 126, 127, 128, 159, 160, 161, 172, 173, 174, 254, 255]


def _token(rng) -> bytes:
    """0 to 8 bytes: edge bytes, any bytes, or the UTF-8 of short text (so characters and bytes differ)."""
    r = rng.random()
    if r < 0.35:
        return bytes(rng.choice(EDGES) for _ in range(rng.randint(0, 8)))
    if r < 0.7:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 8)))
    return _gen.text(rng, 6, long=0).encode("utf-8")


def _spell_cases():
    yield from [(b"",), (b" the",), ("é".encode(),), (b"\n\n",), (bytes(range(256)),)]
    yield from [(bytes([b]),) for b in range(256)]  # every byte alone


def _spell_case(rng):
    return (_token(rng),)


@check("ex-models-bytemap")
def check_bytemap(spell):
    compare(spell, show_bytes, _spell_cases(), generate=_spell_case, kind=str, hint=_spell_hint)


def _spell_hint(args, want, got):
    if not isinstance(got, str):
        return None
    if len(got) != len(want):
        return "one character per byte (iterate over the bytes, not the text)"
    return "33-126, 161-172, 174-255 as chr(b); the other 68 chr(256), chr(257), ..."


# ---- ex-models-share: a Llama-style model's parameters ----------------------------------

def llama_params(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to):
    """Parameters of a Llama-style model, the vocabulary's rows padded to a multiple of ``pad_to``.

    Per layer: W_q and W_o (d x d), W_k and W_v (d x d_kv), three d x d_ff matrices
    of the gated MLP, two RMSNorm vectors of d; one more norm after the layers; an
    embedding of V' x d, V' = V rounded up to a multiple of ``pad_to``, and an
    output layer as large again unless ``tied``. No biases. Meta's counts:

    >>> llama_params(128_256, 4096, 32, 14_336, 1024, False, 64)   # Llama 3 8B
    8030261248
    >>> llama_params(128_256, 2048, 16, 8192, 512, True, 64)       # Llama 3.2 1B
    1235814400
    >>> llama_params(50_257, 8, 0, 8, 8, True, 64) == 50_304 * 8 + 8   # nanoGPT's padding
    True
    """
    rows = -(-vocab_size // pad_to) * pad_to  # subtle: ceiling division, exact for any int
    layer = 2 * d_model * d_model + 2 * d_model * d_kv + 3 * d_model * d_ff + 2 * d_model
    return n_layers * layer + d_model + rows * d_model * (1 if tied else 2)


# vocabulary sizes worth a case: the smallest, the byte vocabulary, the uint16 edge,
# GPT-2's, GPT-4's, Llama 3's, GPT-4o's and Gemma's
VOCABS = [1, 2, 255, 256, 257, 50_257, 50_304, 65_535, 65_536, 65_537, 100_277, 128_256, 200_019, 262_144]
PADS = [1, 1, 2, 8, 64, 64, 128]


def _config(rng):
    """One configuration: V at or beside a multiple of pad_to (or a known size), shapes small or real, tied or not."""
    pad_to = rng.choice(PADS)
    if rng.random() < 0.6:  # at a multiple of pad_to, one below or one above
        vocab = max(1, rng.randint(1, 4000) * pad_to + rng.choice([-1, 0, 0, 1]))
    else:
        vocab = rng.choice(VOCABS)
    d = rng.choice([1, 2, 8, 64, 512, 2048, 4096])
    d_kv = max(1, d // rng.choice([1, 1, 4, 8]))
    d_ff = rng.choice([d, 4 * d, 8192, 14_336, rng.randint(1, 3000)])
    n_layers = rng.choice([0, 1, 2, 3, 16, 32])
    return vocab, d, n_layers, d_ff, d_kv, rng.random() < 0.5, pad_to


def _share_cases():
    yield from [(128_256, 4096, 32, 14_336, 1024, False, 64), (128_256, 2048, 16, 8192, 512, True, 64),
                (128_256, 2048, 16, 8192, 512, False, 64), (50_257, 768, 12, 3072, 768, True, 64),
                (50_304, 768, 12, 3072, 768, True, 64), (1, 1, 0, 1, 1, True, 1), (65_537, 8, 1, 8, 8, False, 128)]


def _share_hint(args, want, got):
    vocab, d, n_layers, d_ff, d_kv, tied, pad_to = args
    rows = -(-vocab // pad_to) * pad_to
    k = 1 if tied else 2
    if not isinstance(got, int) or got == want:
        return None
    if any(got - want == (other - rows) * k * d for other in (vocab, vocab // pad_to * pad_to, rows + pad_to)):
        return f"the rows: {vocab:_} rounded up to a multiple of {pad_to} is {rows:_}"
    if abs(got - want) == rows * d:
        return "tied: one matrix of rows x d for both ends; untied: two"
    return None


@check("ex-models-share")
def check_share(params):
    compare(params, llama_params, _share_cases(), generate=_config, kind=int, hint=_share_hint,
            show=lambda a: "{:_}, {}, {}, {:_}, {}, tied={}, pad_to={}".format(*a))


# ---- ex-models-disagree: the candidate two vocabularies disagree on most -----------------

def most_disagreeing(ratio, candidates):
    """The first candidate of the largest ratio, and the ratio.

    >>> most_disagreeing(len, ["ab", "c", "de"])
    ('ab', 2)
    """
    best = candidates[0]
    for s in candidates[1:]:
        if ratio(s) > ratio(best):  # strictly larger: the first of equals stays
            best = s
    return best, ratio(best)


def _lists(rng, pool, ratio):
    """A short candidate list from ``pool``: often two or more candidates tie for the top ratio."""
    k = rng.randint(1, 7)
    out = [rng.choice(pool) for _ in range(k)]
    if rng.random() < 0.6:  # a tie for the top, at two random places
        top = max(ratio(s) for s in out)
        equal = [s for s in pool if ratio(s) == top]
        for _ in range(rng.randint(1, 2)):
            out.insert(rng.randint(0, len(out)), rng.choice(equal))
    return out


@check("ex-models-disagree")
def check_disagree(find, tok_a, tok_b, candidates):
    pool = [s for s in dict.fromkeys(candidates) if s]
    lengths = {s: (len(tok_a.encode(s)), len(tok_b.encode(s))) for s in pool}  # s -> (tokens of a, of b)

    def ratio(s):
        a, b = lengths[s] if s in lengths else (len(tok_a.encode(s)), len(tok_b.encode(s)))
        return a / b

    def mine(strings):
        return find(tok_a, tok_b, strings)

    mine.__name__ = _name(find)
    cases = [(list(candidates),), (pool[:1],), (pool[:2],), (pool[::-1],)]
    names = f"{getattr(tok_a, 'name', 'tok_a')}, {getattr(tok_b, 'name', 'tok_b')}"
    compare(mine, lambda strings: most_disagreeing(ratio, strings), cases,
            generate=lambda rng: (_lists(rng, pool, ratio),), kind=tuple, valid=lambda a: bool(a[0]),
            show=lambda a: f"{names}, {_shown(a[0], 48)}",
            hint=lambda args, want, got: "tokens of the first over tokens of the second; the first on a tie")
