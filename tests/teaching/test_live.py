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
import shutil
import subprocess
import tempfile

import pytest
import regex
import tiktoken
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
               "const text = u => String.fromCharCode(...u);\n")
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
