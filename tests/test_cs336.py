"""Stanford CS336's names (``train_bpe``, ``Tokenizer.from_vocab``, ``Tokenizer.from_files``)
against CS336's own fixtures (``fixtures/cs336/README.md``): their reference merges and
vocabulary, and tiktoken's GPT-2 encoding built by tiktoken's own loader
(``data_gym_to_mergeable_bpe_ranks``, what ``tiktoken.get_encoding("gpt2")`` runs after
downloading) from the same GPT-2 files, the reference CS336's tests compare with.
"""

import gzip
import json
import shutil
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load
from tiktoken_ext.openai_public import r50k_pat_str

from bpe_lesson import StoppedShort, Tokenizer, train_bpe


# CS336's tests/adapters.py, all of it that a learner of this package writes:
def get_tokenizer(vocab, merges, special_tokens=None): return Tokenizer.from_vocab(vocab, merges, special_tokens)
def run_train_bpe(input_path, vocab_size, special_tokens, **kwargs): return train_bpe(input_path, vocab_size, special_tokens, **kwargs)  # noqa: E501


FIXTURES = Path(__file__).parent / "fixtures" / "cs336"
EOT = "<|endoftext|>"
# the strings of CS336's tests/test_tokenizer.py
STRINGS = ["", "s", "🙃", "Hello, how are you?", "Héllò hôw are ü? 🙃",
           "Héllò hôw <|endoftext|><|endoftext|> are ü? 🙃<|endoftext|>"]
TEXTS = ["address.txt", "german.txt", "tinystories_sample.txt"]


def read(name) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def gpt2_byte_decoder() -> dict:
    """GPT-2's written character -> byte, as CS336's tests/common.py builds it."""
    bs = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    cs = bs[:]
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + len(cs) - 188)
    return {chr(c): b for b, c in zip(bs, cs)}


def cs336_tables(vocab_path, merges_path):
    """``(vocab, merges)`` as CS336's test helper reads GPT-2-style files."""
    dec = gpt2_byte_decoder()
    to_bytes = lambda s: bytes(dec[c] for c in s)  # noqa: E731
    vocab = {i: to_bytes(k) for k, i in json.loads(Path(vocab_path).read_text(encoding="utf-8")).items()}
    lines = Path(merges_path).read_text(encoding="utf-8").splitlines()
    merges = [tuple(to_bytes(s) for s in line.split(" ")) for line in lines if len(line.split(" ")) == 2]
    return vocab, merges


@pytest.fixture(scope="module")
def gpt2_files(tmp_path_factory):
    """CS336's gpt2_vocab.json and gpt2_merges.txt, unpacked."""
    d = tmp_path_factory.mktemp("cs336")
    for name in ("gpt2_vocab.json", "gpt2_merges.txt"):
        with gzip.open(FIXTURES / f"{name}.gz") as src, open(d / name, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return str(d / "gpt2_vocab.json"), str(d / "gpt2_merges.txt")


@pytest.fixture(scope="module")
def tiktoken_gpt2(gpt2_files, tmp_path_factory):
    """tiktoken's gpt2 encoding from the same files (its loader skips a first "#version" line)."""
    vocab_json, merges_txt = gpt2_files
    bpe = tmp_path_factory.mktemp("tiktoken") / "vocab.bpe"
    bpe.write_text("#version: 0.2\n" + Path(merges_txt).read_text(encoding="utf-8"), encoding="utf-8")
    ranks = tiktoken.load.data_gym_to_mergeable_bpe_ranks(str(bpe), vocab_json)  # checks the pair agrees
    return tiktoken.Encoding("gpt2", pat_str=r50k_pat_str, mergeable_ranks=ranks, special_tokens={EOT: 50256})


# ---- train_bpe --------------------------------------------------------------------------

def test_train_bpe_gives_cs336s_reference_merges_and_vocab(backend):
    vocab, merges = run_train_bpe(FIXTURES / "corpus.en", 500, [EOT], backend=backend)
    ref_vocab, ref_merges = cs336_tables(FIXTURES / "train-bpe-reference-vocab.json",
                                         FIXTURES / "train-bpe-reference-merges.txt")
    assert len(merges) == 243 and merges == ref_merges
    # compared as CS336's test does: the ids, and the tokens, as sets
    assert set(vocab) == set(ref_vocab) == set(range(500))
    assert set(vocab.values()) == set(ref_vocab.values())
    # the two layouts (train_bpe's docstring): ours bytes first and the special token last,
    # theirs the special token first; the merges' ids one apart
    assert vocab[499] == ref_vocab[0] == EOT.encode() and vocab[ord("!")] == ref_vocab[1] == b"!"
    assert [vocab[256 + k] for k in range(243)] == [ref_vocab[257 + k] for k in range(243)]


def test_train_bpe_never_merges_across_a_special_token(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("ab<|endoftext|>" * 50, encoding="utf-8")
    with pytest.warns(StoppedShort, match="train made 258 ids, not the 277"):
        vocab, merges = train_bpe(path, 256 + 1 + 20, [EOT])
    # "ab" is the only pair outside the special token: one merge, then nothing occurs twice
    assert merges == [(b"a", b"b")] and vocab == {**{i: bytes([i]) for i in range(256)}, 256: b"ab", 257: b"<|endoftext|>"}


# ---- from_files and from_vocab: GPT-2's files -------------------------------------------

@pytest.mark.parametrize("make", ["from_files", "get_tokenizer"])
def test_gpt2_files_encode_as_tiktokens_gpt2(gpt2_files, tiktoken_gpt2, backend, make):
    if make == "from_files":
        tok = Tokenizer.from_files(*gpt2_files, [EOT], backend=backend)
    else:
        tok = get_tokenizer(*cs336_tables(*gpt2_files), [EOT])
        tok.backend = backend
    for text in STRINGS + [read(name) for name in TEXTS]:
        ids = tok.encode(text)  # special tokens given: their text is their id, with no allowed_special
        assert ids == tiktoken_gpt2.encode(text, allowed_special={EOT})
        assert tok.decode(ids) == text
    with open(FIXTURES / "tinystories_sample.txt", encoding="utf-8") as f:
        assert list(tok.encode_iterable(f)) == tiktoken_gpt2.encode(read("tinystories_sample.txt"),
                                                                    allowed_special={EOT})


def test_cs336s_hand_checked_pieces(gpt2_files):
    tok = Tokenizer.from_files(*gpt2_files, [EOT])
    assert [tok.decode([i]) for i in tok.encode("Hello, how are you?")] == ["Hello", ",", " how", " are", " you", "?"]


def test_without_special_tokens_their_text_is_plain_text(gpt2_files, tiktoken_gpt2, backend):
    # CS336: "<|endoftext|>" is in gpt2_vocab.json, but without special_tokens no merge reaches it
    tok = Tokenizer.from_files(*gpt2_files, backend=backend)
    text = read("tinystories_sample.txt")
    assert tok.encode(text) == tiktoken_gpt2.encode(text, disallowed_special=())
    assert tok.decode([50256]) == EOT and tok.decode(tok.encode(text)) == text  # kept for decode


def test_overlapping_special_tokens_match_longest_first(gpt2_files, backend):
    tok = Tokenizer.from_files(*gpt2_files, [EOT, EOT + EOT], backend=backend)
    assert tok.special_tokens == {EOT: 50256, EOT + EOT: 50257}  # the new one: the next free id
    text = "Hello, how <|endoftext|><|endoftext|> are you?<|endoftext|>"
    pieces = [tok.decode([i]) for i in tok.encode(text)]
    assert pieces.count(EOT) == 1 and pieces.count(EOT + EOT) == 1 and "".join(pieces) == text


def test_from_files_reads_cs336s_reference_layout(backend):
    """Their reference vocab: the special token at 0, the bytes at 1-256 in GPT-2's order."""
    paths = FIXTURES / "train-bpe-reference-vocab.json", FIXTURES / "train-bpe-reference-merges.txt"
    tok = Tokenizer.from_files(*paths, [EOT], backend=backend)
    ref_vocab, _ = cs336_tables(*paths)
    ranks = {b: i for i, b in ref_vocab.items() if i != 0}
    enc = tiktoken.Encoding("reference", pat_str=r50k_pat_str, mergeable_ranks=ranks, special_tokens={EOT: 0})
    for text in STRINGS + read("corpus.en").splitlines()[:300]:
        assert tok.encode(text) == enc.encode(text, allowed_special={EOT})
    assert tok.vocab_bytes() == ref_vocab


# ---- the rule for special tokens' text ---------------------------------------------------

def test_specials_in_text_sets_what_a_call_at_the_defaults_does():
    tiktoken_rule = Tokenizer([], special_tokens={EOT: 256})
    with pytest.raises(ValueError, match="which is disallowed"):
        tiktoken_rule.encode("a" + EOT)
    cs336_rule = Tokenizer([], special_tokens={EOT: 256}, specials_in_text="id")
    assert cs336_rule.encode("a" + EOT) == [97, 256]
    assert cs336_rule.encode_batch(["a" + EOT]) == [[97, 256]]
    assert cs336_rule.encode_to_numpy("a" + EOT).tolist() == [97, 256]
    assert cs336_rule.encode("a" + EOT, disallowed_special=()) == list(b"a<|endoftext|>")  # a call's own rule
    with pytest.raises(ValueError, match="specials_in_text is 'raise'"):
        Tokenizer([], specials_in_text="yes")
