"""Checks of the exercises in *Real model tokenizers and Hugging Face*.

References the reader's code is compared with: GPT-2's byte map as ``transformers``
ships it (``bytes_to_unicode``), the parameter counts Meta publishes for Llama 3 8B
and Llama 3.2 1B, and a brute-force search for the string two vocabularies disagree
on most.

What this module does not do: load the vocabularies (the chapter passes them in).

>>> sorted(n for n in CHECKS if n.startswith("ex-models"))
['ex-models-bytemap', 'ex-models-disagree', 'ex-models-share']
"""

from __future__ import annotations

from . import CHECKS, check

LLAMA3_VOCAB = 128_256  # ids of Llama 3's vocabulary (128,000 tokens + 256 special tokens)


@check("ex-models-bytemap")
def check_bytemap(byte_to_unicode):
    from transformers.convert_slow_tokenizer import bytes_to_unicode  # GPT-2's map, as transformers has it

    m = byte_to_unicode()
    assert sorted(m) == list(range(256)), "the map must have one entry for each byte 0..255"
    assert len(set(m.values())) == 256, "two bytes map to the same character"
    assert m[32] == "Ġ" and m[10] == "Ċ", "space should be 'Ġ' and newline 'Ċ', as in GPT-2's files"
    ref = bytes_to_unicode()
    wrong = [b for b in range(256) if m[b] != ref[b]]
    assert not wrong, f"byte {wrong[0]} maps to {m[wrong[0]]!r}; GPT-2's map has {ref[wrong[0]]!r}"


@check("ex-models-share")
def check_share(llama_params, vocab_size=LLAMA3_VOCAB):
    big = llama_params(vocab_size, 4096, 32, 14_336, 1024, tied=False)
    small = llama_params(vocab_size, 2048, 16, 8192, 512, tied=True)
    assert big == 8_030_261_248, f"Llama 3 8B has 8,030,261,248 parameters; your count is {big:,}"
    assert small == 1_235_814_400, f"Llama 3.2 1B has 1,235,814,400 parameters; your count is {small:,}"
    untied = llama_params(vocab_size, 2048, 16, 8192, 512, tied=False)
    assert untied == small + vocab_size * 2048, "untying adds exactly one more V x d matrix"


@check("ex-models-disagree")
def check_disagree(most_disagreeing, tok_a, tok_b, candidates):
    def ratio(s):
        return len(tok_a.encode(s)) / len(tok_b.encode(s))

    found, r = most_disagreeing(tok_a, tok_b, candidates)
    top = max(ratio(s) for s in candidates)
    assert found in candidates, f"{found!r} is not one of the candidates"
    assert abs(r - top) < 1e-12 and ratio(found) == top, (
        f"{found!r} has ratio {ratio(found):.3f}; the largest is {top:.3f} (tokens of the first "
        f"vocabulary over tokens of the second)")
    first = next(s for s in candidates if ratio(s) == top)
    assert found == first, f"on a tie the first candidate wins: {first!r}, not {found!r}"
    same, _ = most_disagreeing(tok_a, tok_a, ["b", "a"])
    assert same == "b", "one vocabulary against itself: every ratio is 1, so the first candidate wins"
