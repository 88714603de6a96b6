"""The checks of *Model tokenizers, and the Hugging Face round trip* pass right solutions and
reject plausible wrong ones; their references agree with independent ones."""

import math
import random

import pytest
from _wrong import With, right_cases, run_right, run_wrong, wrong_cases

import bpe_lesson
from bpe_lesson.formats.huggingface import bytes_to_unicode, show_bytes
from bpe_lesson.teaching.checks import model_tokenizers


# ---- ex-models-bytemap
KEEP = {*range(33, 127), *range(161, 173), *range(174, 256)}
OTHERS = [b for b in range(256) if b not in KEEP]  # the 68, in order
BYTE_CHAR = {b: chr(b) if b in KEEP else chr(256 + OTHERS.index(b)) for b in range(256)}


def spell(token):  # the notebook's
    return "".join(BYTE_CHAR[b] for b in token)


def _gpt2_map():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


GPT2 = _gpt2_map()


def spell_gpt2_style(token):  # right, written as GPT-2's encoder.py builds the map
    return "".join(GPT2[b] for b in bytes(token))


def _spell_with(keep, numbering=None):
    others = [b for b in range(256) if b not in keep]
    table = {b: chr(b) if b in keep else chr(256 + (numbering(b) if numbering else others.index(b)))
             for b in range(256)}
    return lambda token: "".join(table[b] for b in token)


def spell_ascii_only(token):  # keeps only 33-126; Latin-1's printable bytes are shifted too
    return _spell_with(set(range(33, 127)))(token)


def spell_shift_by_256(token):  # chr(256 + b) for the others, not chr(256 + its place among them)
    return _spell_with(KEEP, numbering=lambda b: b)(token)


def spell_latin1(token):  # every byte as itself: space stays ' ', not 'Ġ'
    return token.decode("latin-1")


def spell_range_off_by_one(token):  # range(161, 172) leaves out 172 ('¬')
    return _spell_with({*range(33, 127), *range(161, 172), *range(174, 256)})(token)


def spell_soft_hyphen_kept(token):  # 173, the soft hyphen, kept as itself
    return _spell_with({*range(33, 127), *range(161, 256)})(token)


def spell_characters(token):  # spells the text's characters, not the bytes
    return "".join(BYTE_CHAR.get(ord(c), c) for c in token.decode("utf-8", "replace"))


def spell_list(token):  # a list of characters, not a str
    return [BYTE_CHAR[b] for b in token]


# ---- ex-models-share
def llama_params(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to=1):  # the notebook's
    rows = (vocab_size + pad_to - 1) // pad_to * pad_to  # V, padded up
    attention = 2 * d_model * d_model + 2 * d_model * d_kv
    layer = attention + 3 * d_model * d_ff + 2 * d_model
    embedding = rows * d_model * (1 if tied else 2)
    return n_layers * layer + d_model + embedding


def llama_params_by_parts(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to=1):  # right, differently
    rows = vocab_size + (-vocab_size) % pad_to
    shapes = [(d_model, d_model), (d_model, d_kv), (d_model, d_kv), (d_model, d_model)]
    shapes += [(d_model, d_ff)] * 3 + [(d_model, 1)] * 2
    total = sum(a * b for a, b in shapes) * n_layers + d_model
    return total + sum(rows * d_model for _ in range(1 if tied else 2))


def _params(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to, rows=None, norms=2, final=1, kv=None,
            matrices=None):
    rows = math.ceil(vocab_size / pad_to) * pad_to if rows is None else rows(vocab_size, pad_to)
    kv = d_kv if kv is None else kv
    layer = 2 * d_model * d_model + 2 * d_model * kv + 3 * d_model * d_ff + norms * d_model
    k = (1 if tied else 2) if matrices is None else matrices(tied)
    return n_layers * layer + final * d_model + rows * d_model * k


def params_untied_counted_once(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to):  # one matrix either way
    return _params(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to, matrices=lambda tied: 1)


def params_tied_inverted(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to):  # two matrices when tied
    return _params(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to, matrices=lambda tied: 2 if tied else 1)


def params_no_norms(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to):  # leaves out every norm
    return _params(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to, norms=0, final=0)


def params_no_final_norm(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to):  # the norm after the layers
    return _params(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to, final=0)


def params_full_width_kv(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to):  # W_k, W_v as d x d
    return _params(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to, kv=d_model)


def params_pad_past_a_multiple(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to):  # V // p + 1 rows of p
    return _params(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to, rows=lambda v, p: (v // p + 1) * p)


def params_pad_down(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to):  # rounds V down
    return _params(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to, rows=lambda v, p: v // p * p)


def params_no_padding(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to):  # ignores pad_to
    return _params(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to, rows=lambda v, p: v)


def params_in_billions(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to):  # a float, rounded
    return round(llama_params(vocab_size, d_model, n_layers, d_ff, d_kv, tied, pad_to) / 1e9, 3)


# ---- ex-models-disagree
def most_disagreeing(tok_a, tok_b, candidates):  # the notebook's
    best, best_ratio = None, -1.0
    for s in candidates:
        ratio = len(tok_a.encode(s)) / len(tok_b.encode(s))
        if ratio > best_ratio:
            best, best_ratio = s, ratio
    return best, best_ratio


def most_disagreeing_max(tok_a, tok_b, candidates):  # right, written differently: max() keeps the first
    def ratio(s):
        return len(tok_a.encode(s)) / len(tok_b.encode(s))
    best = max(candidates, key=ratio)
    return best, ratio(best)


def disagree_by_difference(tok_a, tok_b, candidates):  # the largest difference, not the largest ratio
    best = max(candidates, key=lambda s: len(tok_a.encode(s)) - len(tok_b.encode(s)))
    return best, len(tok_a.encode(best)) / len(tok_b.encode(best))


def disagree_upside_down(tok_a, tok_b, candidates):  # tokens of b over tokens of a
    best = max(candidates, key=lambda s: len(tok_b.encode(s)) / len(tok_a.encode(s)))
    return best, len(tok_b.encode(best)) / len(tok_a.encode(best))


def disagree_last_on_tie(tok_a, tok_b, candidates):  # >= keeps the last of equals
    best, best_ratio = None, -1.0
    for s in candidates:
        ratio = len(tok_a.encode(s)) / len(tok_b.encode(s))
        if ratio >= best_ratio:
            best, best_ratio = s, ratio
    return best, best_ratio


def disagree_sorts_in_place(tok_a, tok_b, candidates):  # sorts the caller's list
    candidates.sort(key=lambda s: -len(tok_a.encode(s)) / len(tok_b.encode(s)))
    return candidates[0], len(tok_a.encode(candidates[0])) / len(tok_b.encode(candidates[0]))


def disagree_alphabetical_tie(tok_a, tok_b, candidates):  # ties go to the smallest string
    best = min(candidates, key=lambda s: (-len(tok_a.encode(s)) / len(tok_b.encode(s)), s))
    return best, len(tok_a.encode(best)) / len(tok_b.encode(best))


def disagree_per_character(tok_a, tok_b, candidates):  # tokens of a per character; b never asked
    best = max(candidates, key=lambda s: len(tok_a.encode(s)) / len(s))
    return best, len(tok_a.encode(best)) / len(tok_b.encode(best))


def disagree_integer_ratio(tok_a, tok_b, candidates):  # // : 5/3 and 4/3 both count as 1
    best = max(candidates, key=lambda s: len(tok_a.encode(s)) // len(tok_b.encode(s)))
    return best, len(tok_a.encode(best)) // len(tok_b.encode(best))


def disagree_list(tok_a, tok_b, candidates):  # a list, not a tuple
    return list(most_disagreeing(tok_a, tok_b, candidates))


# GPT-4 over GPT-4o tokens: "Ελληνικά" 9/3 and "Ελληνική" 9/3 tie for the largest ratio;
# the Hindi run has the largest difference (60 more tokens) at a ratio of only 1.5
WORDS = ["hello", "Ελληνικά", "Привет", "Ελληνική", "日本語", "नमस्ते " * 30, "1234567", "world"]
WORDS += [w for t in bpe_lesson.teaching.samples.MULTILINGUAL.values() for w in t.split()]


@pytest.fixture(scope="module")
def vocabularies():
    return bpe_lesson.Tokenizer.from_tiktoken("cl100k_base"), bpe_lesson.Tokenizer.from_tiktoken("o200k_base")


RIGHT = {
    "ex-models-bytemap": [spell, spell_gpt2_style],
    "ex-models-share": [llama_params, llama_params_by_parts],
    "ex-models-disagree": [most_disagreeing, most_disagreeing_max],
}
WRONG = {
    "ex-models-bytemap": [spell_ascii_only, spell_shift_by_256, spell_latin1, spell_range_off_by_one,
                          spell_soft_hyphen_kept, spell_characters, spell_list],
    "ex-models-share": [params_untied_counted_once, params_tied_inverted, params_no_norms, params_no_final_norm,
                        params_full_width_kv, params_pad_past_a_multiple, params_pad_down, params_no_padding,
                        params_in_billions],
    "ex-models-disagree": [disagree_by_difference, disagree_upside_down, disagree_last_on_tie,
                           disagree_sorts_in_place, disagree_alphabetical_tie, disagree_per_character,
                           disagree_integer_ratio, disagree_list],
}


def _solution(label, fn, vocabularies):
    return With(fn, *vocabularies, WORDS) if label == "ex-models-disagree" else fn


@pytest.mark.parametrize("label, solution", right_cases(RIGHT))
def test_right_solution_passes(label, solution, vocabularies):
    run_right(label, _solution(label, solution, vocabularies))


@pytest.mark.parametrize("label, solution", wrong_cases(WRONG))
def test_wrong_solution_fails(label, solution, vocabularies):
    run_wrong(label, _solution(label, solution, vocabularies))


def test_the_byte_map_is_transformers():
    """The reference's map is the one transformers ships (imported here only: it takes seconds)."""
    from transformers.convert_slow_tokenizer import bytes_to_unicode as transformers_map

    assert bytes_to_unicode() == transformers_map() == GPT2
    assert show_bytes(bytes(range(256))) == "".join(transformers_map()[b] for b in range(256))


def test_the_parameter_count_is_pytorchs():
    """The reference count equals the parameters of PyTorch modules built to the same description."""
    torch = pytest.importorskip("torch")
    rng = random.Random(0)
    for _ in range(12):
        vocab, d, n_layers, d_ff, d_kv, tied, pad_to = model_tokenizers._config(rng)
        d, d_ff, d_kv, n_layers = min(d, 64), min(d_ff, 64), min(d_kv, 64), min(n_layers, 3)
        rows = -(-vocab // pad_to) * pad_to
        def linear(a, b):
            return torch.nn.Linear(a, b, bias=False, device="meta")

        layer = torch.nn.ModuleList([linear(d, d), linear(d, d_kv), linear(d, d_kv), linear(d, d),
                                     linear(d, d_ff), linear(d, d_ff), linear(d_ff, d),
                                     torch.nn.RMSNorm(d, device="meta"), torch.nn.RMSNorm(d, device="meta")])
        ends = [torch.nn.Embedding(rows, d, device="meta"), torch.nn.RMSNorm(d, device="meta")]
        if not tied:
            ends.append(linear(d, rows))
        count = n_layers * sum(p.numel() for p in layer.parameters())
        count += sum(p.numel() for m in ends for p in m.parameters())
        assert count == model_tokenizers.llama_params(vocab, d, n_layers, d_ff, d_kv, tied, pad_to)


def test_a_tie_is_shown_with_both_candidates(vocabularies):
    message = run_wrong("ex-models-disagree", _solution("ex-models-disagree", disagree_last_on_tie, vocabularies))
    assert "first on a tie" in message, message
