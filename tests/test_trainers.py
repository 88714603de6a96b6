"""The three trainers share one rule and give identical merges.

Each behaviour test runs on both backends (the ``backend`` fixture) and compares
with something independent: a case worked out by hand, the textbook trainer
(hypothesis on random corpora), rustbpe and Hugging Face ``tokenizers`` on real
text (stdlib code and pydoc prose), or ``regex.findall`` for the chunk counts.
A missing peer skips its test (``pytest.importorskip``); both are in
requirements.txt, so in this project's environment they run.
"""

import contextlib
import io
import re
import subprocess
import sys
from collections import Counter

import pytest
import regex
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import bpe_lesson
from bpe_lesson import incremental, textbook
from bpe_lesson.chunks import count_chunk_bytes, count_chunks, to_byte_counts
from bpe_lesson.patterns import GPT4_PATTERN, compile_pattern, split_chunks
from bpe_lesson.trainer import get_trainer
from bpe_lesson._internal.unicode_classes import needs_exact


def implementations(backend):
    """The textbook trainer and the incremental trainer of ``backend``."""
    return [textbook, get_trainer("incremental", backend)]


def test_hand_checkable_case(backend):
    # minbpe's example: 3 merges on "aaabdaaabac"
    tok = bpe_lesson.train("aaabdaaabac", 256 + 3, pattern=None, backend=backend)
    assert tok.merges == [((97, 97), 256), ((97, 98), 257), ((256, 257), 258)]
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]
    assert tok.vocab[258] == b"aaab"


def test_textbook_algorithm_gives_the_same_tokenizer(backend):
    a = bpe_lesson.train("aaabdaaabac", 259, pattern=None, algorithm="textbook")
    b = bpe_lesson.train("aaabdaaabac", 259, pattern=None, backend=backend)
    assert a.merges == b.merges


def test_overlapping_pairs_count_and_merge_left_to_right(backend):
    for impl in implementations(backend):
        # "aaa" holds (a, a) twice, so it is merged; then (aa, a) occurs once: stop
        assert impl.train_merges({b"aaa": 1}, 10) == [((97, 97), 256)]
        # "aa" holds it once: below 2, no merge at all
        assert impl.train_merges({b"aa": 1}, 10) == []
    tok = bpe_lesson.train("aaaaa", 257, pattern=None, backend=backend)
    assert tok.encode("aaaaa") == [256, 256, 97]  # left to right


def test_ties_go_to_the_smallest_pair(backend):
    for impl in implementations(backend):
        # (120, 121) "xy" and (97, 98) "ab" both occur twice; (97, 98) is smaller
        merges = impl.train_merges({b"xy": 2, b"ab": 2}, 1)
        assert merges == [((97, 98), 256)]
        # the left id decides first, then the right id
        merges = impl.train_merges({b"bz": 3, b"ca": 3, b"by": 3}, 3)
        assert [p for p, _ in merges] == [(98, 121), (98, 122), (99, 97)]


def test_highest_count_wins(backend):
    for impl in implementations(backend):
        merges = impl.train_merges({b"zz": 5, b"ab": 4}, 2)
        assert merges == [((122, 122), 256), ((97, 98), 257)]


def test_stops_at_the_budget_and_when_no_pair_repeats(backend, prose_docs):
    tok = bpe_lesson.train(prose_docs[:5], 300, backend=backend)
    assert len(tok.merges) == 300 - 256
    assert tok.vocab_size == 300
    tiny = bpe_lesson.train("abcabc", 1000, pattern=None, backend=backend)
    # (a,b) x2 -> ab; (ab,c) x2 -> abc; (abc,abc) x1: stop
    assert [tiny.vocab[n] for _, n in tiny.merges] == [b"ab", b"abc"]


def test_a_pair_whose_bytes_already_are_a_token_is_skipped(backend):
    # Base merges in which "aaaa" is made as a + aaa. Replaying them on "aaaa"
    # gives [aa, aa] (the pair (aa, a) never forms), so training then meets the pair
    # (aa, aa) whose bytes "aaaa" already are token 258: it must be skipped.
    base = [((97, 97), 256), ((256, 97), 257), ((97, 257), 258)]
    for impl in implementations(backend):
        merges = impl.train_merges({b"aaaa": 5, b"bb": 3}, 5, base_merges=base)
        assert merges == [((98, 98), 259)]  # (256, 256) skipped, no id used


def test_special_ids_follow_the_merges(backend):
    tok = bpe_lesson.train("hello hello hello", 260, special_tokens=["<|endoftext|>", "<|pad|>"], backend=backend)
    n = 256 + len(tok.merges)
    assert tok.special_tokens == {"<|endoftext|>": n, "<|pad|>": n + 1}
    assert tok.vocab_size == n + 2 <= 260


def test_winning_counts_never_increase(backend, prose_docs):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        bpe_lesson.train(prose_docs[:20], 256 + 400, backend=backend, verbose=True)
    counts = [int(m) for m in re.findall(r"count (\d+)$", out.getvalue(), flags=re.M)]
    assert len(counts) == 400
    assert all(a >= b for a, b in zip(counts, counts[1:]))


def test_verbose_prints_each_merge_readably(backend, capsys):
    bpe_lesson.train("aaabdaaabac", 259, pattern=None, backend=backend, verbose=True)
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "merge 1: (b'a', b'a') -> b'aa' count 4",
        "merge 2: (b'a', b'b') -> b'ab' count 2",
        "merge 3: (b'aa', b'ab') -> b'aaab' count 2",
    ]


# ---- agreement on random corpora -------------------------------------------------

# a small alphabet makes many repeated pairs; some arbitrary Unicode on top
words = st.text(alphabet=st.sampled_from("aab bcd\n\t é€😀"), min_size=1, max_size=40)
corpora = st.lists(st.one_of(words, st.text(max_size=30)), min_size=1, max_size=12)


@st.composite
def base_merge_lists(draw):
    """Random earlier merges (distinct bytes), to exercise phases and the skip rule."""
    vocab = {i: bytes([i]) for i in range(256)}
    known = set(vocab.values())
    merges = []
    for _ in range(draw(st.integers(0, 6))):
        pool = [97, 98, 32, 99] + [n for _, n in merges]
        a = draw(st.sampled_from(pool))
        b = draw(st.sampled_from(pool))
        joined = vocab[a] + vocab[b]
        if joined in known:
            continue
        n = 256 + len(merges)
        vocab[n] = joined
        known.add(joined)
        merges.append(((a, b), n))
    return merges


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=corpora, n=st.integers(0, 60), pattern=st.sampled_from([None, "gpt4", "gpt2", "o200k"]),
       base=base_merge_lists())
def test_three_trainers_agree_on_random_corpora(backend, docs, n, pattern, base):
    counts = to_byte_counts(count_chunks(docs, bpe_lesson.patterns.resolve_pattern(pattern)))
    expected = textbook.train_merges(counts, n, base_merges=base)
    assert incremental.train_merges(counts, n, base_merges=base) == expected
    assert get_trainer("incremental", backend).train_merges(counts, n, base_merges=base) == expected


# ---- agreement on real text ------------------------------------------------------

def test_three_trainers_agree_on_real_prose(backend, prose_docs):
    counts = to_byte_counts(count_chunks(prose_docs[:30], GPT4_PATTERN))
    expected = textbook.train_merges(counts, 150)
    assert len(expected) == 150
    assert get_trainer("incremental", backend).train_merges(counts, 150) == expected


def test_no_pattern_long_documents(backend, stdlib_docs):
    docs = stdlib_docs[:3]
    counts = to_byte_counts(count_chunks(docs, None))
    assert len(counts) == 3
    expected = textbook.train_merges(counts, 40)
    assert get_trainer("incremental", backend).train_merges(counts, 40) == expected


@pytest.mark.slow
def test_parallel_counting_equals_regex_findall(stdlib_docs):
    docs = stdlib_docs * 3
    findall = compile_pattern(GPT4_PATTERN).findall
    want = Counter(chunk for doc in docs for chunk in findall(doc))
    assert count_chunks(docs, GPT4_PATTERN, workers=2) == want
    assert count_chunks(docs, GPT4_PATTERN, workers=1) == want


# ---- rustbpe and Hugging Face tokenizers on real text ----------------------------

REAL_VOCAB = 256 + 1000


@pytest.fixture(scope="module", params=["code", "prose"])
def real_docs(request, stdlib_docs, prose_docs):
    return stdlib_docs if request.param == "code" else prose_docs


def vocab_bytes(merges):
    """Each merged token's bytes, in id order: 256 + k -> bytes."""
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges:
        vocab[new_id] = vocab[a] + vocab[b]
    return [vocab[new_id] for _, new_id in merges]


def rustbpe_tokens(docs, vocab_size):
    """rustbpe's vocabulary trained on ``docs`` (GPT-4 pattern): each token's bytes, in rank order.

    rustbpe has our tie rule (highest count, then the smallest pair of ids) and our byte
    ids, so its token k is the bytes of our id k.
    """
    rustbpe = pytest.importorskip("rustbpe")
    peer = rustbpe.Tokenizer()
    peer.train_from_iterator(iter(docs), vocab_size, pattern=GPT4_PATTERN)
    return [token for token, _ in sorted(peer.get_mergeable_ranks(), key=lambda kv: kv[1])]


def test_merges_equal_rustbpe_on_real_text(backend, real_docs):
    theirs = rustbpe_tokens(real_docs, REAL_VOCAB)
    tok = bpe_lesson.train(real_docs, REAL_VOCAB, pattern="gpt4", backend=backend)
    assert len(tok.merges) == REAL_VOCAB - 256
    assert [tok.vocab[i] for i in range(REAL_VOCAB)] == theirs


def test_incremental_trainers_agree_on_real_code(backend, stdlib_docs):
    # every one of 2,000 merges anchored to rustbpe, trained on the same documents (its
    # tokens' bytes, in merge order); the first 200 to the textbook too, ids and all
    counts = to_byte_counts(count_chunks(stdlib_docs, GPT4_PATTERN))
    merges = get_trainer("incremental", backend).train_merges(counts, 2000)
    assert len(merges) == 2000
    assert vocab_bytes(merges) == rustbpe_tokens(stdlib_docs, 256 + 2000)[256:]
    assert textbook.train_merges(counts, 200) == merges[:200]  # the textbook is slow: its first 200


def gpt2_byte_chars():
    """GPT-2's byte -> printable character table, which HF's ByteLevel uses (byte b -> chars[b])."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return chars


def test_merges_equal_hugging_face_on_real_text(backend, real_docs):
    # HF's BpeTrainer counts and picks pairs as we do, with one difference: its byte ids
    # follow the code points of GPT-2's byte characters (sorted), so ties between pairs
    # fall in another order. Relabel our bytes into its order, train, map the merges
    # back: the same merges, one for one.
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import Regex, decoders, models, pre_tokenizers, trainers

    # subtle: Oniguruma reads GPT-4's possessive \p{N}{1,3}+ as "1-3 digits, repeated";
    # \p{N}{1,3} splits as GPT-4's pattern does in Python's regex (checked next)
    split = pre_tokenizers.Split(Regex(GPT4_PATTERN.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")), behavior="isolated")
    for doc in real_docs:
        assert [piece for piece, _ in split.pre_tokenize_str(doc)] == split_chunks(doc, GPT4_PATTERN)
    peer = tokenizers.Tokenizer(models.BPE())
    peer.pre_tokenizer = pre_tokenizers.Sequence([split, pre_tokenizers.ByteLevel(add_prefix_space=False,
                                                                                  use_regex=False)])
    peer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=REAL_VOCAB, min_frequency=2, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=[])
    peer.train_from_iterator(real_docs, trainer)
    byte_of = {ch: b for b, ch in gpt2_byte_chars().items()}
    ids = peer.get_vocab()  # str -> id
    theirs = [bytes(byte_of[ch] for ch in token) for token in sorted(ids, key=ids.get)]
    assert sorted(theirs[:256]) == [bytes([b]) for b in range(256)]
    hf_id = bytes(theirs.index(bytes([b])) for b in range(256))  # our byte -> its id
    back = bytes(theirs[k][0] for k in range(256))  # its id -> our byte
    counts = count_chunk_bytes(real_docs, "gpt4")
    relabelled = {chunk.translate(hf_id): n for chunk, n in counts.items()}
    merges = get_trainer("incremental", backend).train_merges(relabelled, REAL_VOCAB - 256)
    assert len(merges) == REAL_VOCAB - 256
    assert [token.translate(back) for token in vocab_bytes(merges)] == theirs[256:]
    # and without the relabelling the order of ties shows: the lists differ
    assert vocab_bytes(get_trainer("incremental", backend).train_merges(counts, REAL_VOCAB - 256)) != theirs[256:]


# ---- the compiled front end counts exactly what the regex path counts -------------

def regex_byte_counts(docs, pattern, specials=()):
    """Chunk counts by the ``regex`` module alone: cut at the special tokens, then ``regex.findall``.

    Independent of the package's counting; on text where ``regex``'s Unicode tables and
    tiktoken's agree (``needs_exact`` is false) it is the reference for both backends.
    """
    pattern = bpe_lesson.patterns.resolve_pattern(pattern)
    cut = regex.compile("|".join(map(regex.escape, specials))) if specials else None
    counts = Counter()  # bytes -> count
    for doc in docs:
        for piece in (cut.split(doc) if cut else [doc]):
            chunks = [piece] if pattern is None else regex.findall(pattern, piece)
            counts.update(c.encode("utf-8") for c in chunks if c)
    return dict(counts)


def test_regex_byte_counts_by_hand():
    assert regex_byte_counts(["ab ab<|x|>ab"], "gpt4", ["<|x|>"]) == {b"ab": 2, b" ab": 1}
    assert regex_byte_counts(["ab ab", "ab ab"], None) == {b"ab ab": 2}

@pytest.mark.parametrize("pattern", ["gpt2", "gpt4", "o200k", None])
def test_compiled_chunk_counting_equals_regex_counting(pattern, stdlib_docs, prose_docs):
    if bpe_lesson.BACKEND == "python":
        pytest.skip("BPE_LESSON_PUREPYTHON=1")
    docs = stdlib_docs[:40] + prose_docs[:40] + ["a<|endoftext|>b<|endoftext|>", "ünïcödé 😀\r\n  x"]
    specials = ["<|endoftext|>"]
    slow = count_chunk_bytes(docs, pattern, specials, workers=1, backend="python")
    exact = [d for d in docs if not needs_exact(d)]  # where regex's own tables are tiktoken's
    assert len(exact) > 40
    assert count_chunk_bytes(exact, pattern, specials, workers=1) == regex_byte_counts(exact, pattern, specials)
    assert count_chunk_bytes(docs, pattern, specials, workers=1) == slow
    assert count_chunk_bytes(docs, pattern, specials, workers=2) == slow
    assert not any(b"endoftext" in c for c in slow)


@settings(max_examples=100, deadline=None)
@given(docs=corpora, pattern=st.sampled_from([None, "gpt4", "gpt2", "o200k"]))
def test_compiled_chunk_counting_on_random_text(docs, pattern):
    if bpe_lesson.BACKEND == "python":
        pytest.skip("BPE_LESSON_PUREPYTHON=1")
    docs = [d.encode("utf-8", "replace").decode("utf-8") for d in docs]  # no lone surrogates
    # subtle: on code points regex and tiktoken classify differently the Python path follows
    # tiktoken; test_unicode_classes.py checks both backends on those
    assume(not any(needs_exact(d) for d in docs))
    want = regex_byte_counts(docs, pattern)
    assert count_chunk_bytes(docs, pattern, workers=2) == want
    assert count_chunk_bytes(docs, pattern, workers=1, backend="python") == want


@pytest.mark.slow
def test_threaded_counting_in_fresh_processes_equals_regex_counting():
    # Regression: two counter threads once built the scanner's tables at the same time,
    # and the second rebuilt the contraction table while the first was scanning with it
    # (2 runs in 5 differed). Each run needs a fresh process: the tables are built once.
    if bpe_lesson.BACKEND == "python":
        pytest.skip("BPE_LESSON_PUREPYTHON=1")
    code = (
        "from bpe_lesson.chunks import count_chunk_bytes\n"
        "from bpe_lesson.teaching.samples import code_files\n"
        "docs = list(code_files(3_000_000).values())\n"
        "a = count_chunk_bytes(docs, 'gpt4', workers=2)\n"
        "b = count_chunk_bytes(docs, 'gpt4', workers=1, backend='python')\n"
        "print('equal' if a == b else 'differ')\n"
    )
    for _ in range(4):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        assert out.strip() == "equal"
