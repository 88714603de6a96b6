"""The rendered book's live tokenizer in headless Chromium: encode speed against the
package and tiktoken on the same text, in one run; one long chunk; a 1 MB paste into
the widget; and the sizes of its vocabulary files.

How to run (from the repository root, after ``make book``):

    python benchmarks/live_tokenizer_speed.py            # every topic of Python's help, 0.47 MB
    python benchmarks/live_tokenizer_speed.py --kb 200   # its first 200 KB
    python benchmarks/live_tokenizer_speed.py --vocab cl100k_base --skip-text
    python benchmarks/live_tokenizer_speed.py --paste-only

Four tables:

* **text**: for each vocabulary (ours_4096, cl100k_base, o200k_base), the time to load
  its file in the page (insert the script, decode base64, build the map), then
  ``bpeLesson.encode`` on the text: the first call (empty chunk cache) and the median
  of three more; the package's ``Tokenizer.encode`` and tiktoken's ``encode`` (one
  thread) on the same text, median of three.
* **long chunks**: seconds for one call of ``bpeLesson.encode`` on texts that are one
  chunk (``"ab" * n``, 200,000 random letters, 20,000 Han characters), against the
  package and tiktoken. The rank loop on such a chunk is quadratic unless bounded.
* **paste**: 1.1 MB of prose pasted into the first chapter's widget as a reader does
  (the clipboard, then Ctrl+V through DevTools), on three fresh pages: seconds from
  the key to the frame that shows the token row and the exact count, the median and
  each run; of which the browser's own part (putting the text in the box, before any
  script of ours sees it), the widget's (encoding, building the row, any wait), and
  the frame's layout and paint (the box's 1 MB and the row); the elements drawn.
* **mergeSteps** on an 8,000-letter word: seconds, the steps it returned and the
  JavaScript heap it grew by (Chromium's ``performance.memory``, after a GC).

Every id the page gives is checked against the package's first.

What this does not do: assert anything (tests/browser/check_live_tokenizer.py and
tests/teaching/test_live.py check the ids and the bounds), or time typing.
"""

import argparse
import os
import pathlib
import random
import shutil
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "browser"))

import check_live_tokenizer as live  # noqa: E402  the fixtures' helpers: texts, tokenizers, driver set-up
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from bpe_lesson.teaching import samples  # noqa: E402


def median_time(f, n=3):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def long_chunks():
    """name -> a text that each vocabulary's pattern leaves as one chunk (seeded)."""
    rng = random.Random(0)
    han = [c for c in samples.MULTILINGUAL["Chinese (CJK)"] if "\u4e00" <= c <= "\u9fff"]
    return {"'ab' * 5,000": "ab" * 5_000, "'ab' * 20,000": "ab" * 20_000, "'ab' * 100,000": "ab" * 100_000,
            "200k letters": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(200_000)),
            "20k Han": "".join(rng.choice(han) for _ in range(20_000))}


def time_long_chunks(driver, names):
    print("\nlong chunks: seconds for one encode (cold: each text is new to the page)")
    print(f"{'vocabulary':12} {'text':16} {'page':>7} {'package':>8} {'tiktoken':>9}")
    for name in names:
        tok, tk = live.package(name), live.tiktoken_encoding(name)
        for label, text in long_chunks().items():
            r = driver.execute_async_script("""
                const [name, text, done] = arguments;
                bpeLesson.load(name).then(() => {
                    const a = performance.now(), ids = bpeLesson.encode(name, text);
                    done({s: (performance.now() - a) / 1e3, ids});
                });
            """, name, text)
            t = time.perf_counter()
            want = tok.encode(text)  # the first call: as cold as the page's
            pkg = time.perf_counter() - t
            assert r["ids"] == want, f"{name} {label}: the page's ids differ from the package's"
            t = time.perf_counter()
            tk.encode(text)
            tkt = time.perf_counter() - t
            print(f"{name:12} {label:16} {r['s']:7.3f} {pkg:8.3f} {tkt:9.3f}")


def time_paste(driver, text, repeats=3):
    """Paste ``text`` into the first chapter's widget as a reader does (the clipboard, then
    Ctrl+V through DevTools): seconds from the key to the frame that shows the drawn row
    and status line, the median of ``repeats`` fresh pages, and where they went."""
    driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["clipboardReadWrite",
                                                                       "clipboardSanitizedWrite"]})
    key = {"modifiers": 2, "key": "v", "code": "KeyV", "windowsVirtualKeyCode": 86}  # Ctrl+V
    runs = []
    for _ in range(repeats):
        live.open_page(driver, (live.BUILD / live.WIDGET_PAGES[0]).as_uri())
        name = driver.find_element(live.By.CSS_SELECTOR, "div.live-tokenizer").get_attribute("data-vocab")
        n = len(live.package(name).encode(text, allowed_special="all"))
        # marks: the key, the paste event, the input event (the browser has put the text in the
        # box), the status line drawn (the widget's script), the next frame after it (layout, paint)
        driver.execute_async_script("""
            const [text, n, done] = arguments;
            const box = document.querySelector("div.live-tokenizer"), status = box.querySelector(".live-status");
            const area = box.querySelector("textarea"), marks = window.pasteMarks = {};
            box.addEventListener("paste", () => { marks.paste = performance.now(); }, true);
            box.addEventListener("input", () => { marks.input = performance.now(); }, true);
            const drawn = () => status.textContent.startsWith(n.toLocaleString("en-US") + " tokens");
            new MutationObserver(() => {
                if (marks.drawn || !drawn()) return;
                marks.drawn = performance.now();
                requestAnimationFrame(() => setTimeout(() => { marks.frame = performance.now(); }, 0));
            }).observe(status, {childList: true, characterData: true, subtree: true});
            const ready = () => {  // once the widget has drawn its first text
                if (!box.querySelector(".live-rows .live-token")) return requestAnimationFrame(ready);
                area.focus();
                area.select();
                navigator.clipboard.writeText(text).then(done);
            };
            bpeLesson.load(box.querySelector("select").value).then(ready);
        """, text, n)
        marks = {"key": driver.execute_script("return performance.now()")}
        driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyDown", "commands": ["paste"], **key})
        driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", **key})
        WebDriverWait(driver, 120, poll_frequency=0.02).until(
            lambda d: d.execute_script("return window.pasteMarks.frame !== undefined"))
        marks.update(driver.execute_script("return window.pasteMarks"))
        r = driver.execute_script("""
            const box = document.querySelector("div.live-tokenizer");
            return {tokens: box.querySelectorAll(".live-rows .live-token").length,
                    more: (box.querySelector(".live-rows .live-more") || {}).textContent,
                    length: box.querySelector("textarea").value.length};""")
        assert r["length"] == len(text), f"the box holds {r['length']:,} characters of {len(text):,}"
        runs.append({"total": marks["frame"] - marks["key"], "browser": marks["input"] - marks["key"],
                     "script": marks["drawn"] - marks["input"], "frame": marks["frame"] - marks["drawn"], **r})
    med = sorted(runs, key=lambda r: r["total"])[len(runs) // 2]
    print(f"\npaste: {len(text.encode()) / 1e6:.2f} MB of prose pasted into the widget ({name}, {n:,} tokens), "
          f"Ctrl+V to the frame that shows it: {med['total'] / 1e3:.2f} s (median of {repeats}; "
          + ", ".join(f"{r['total'] / 1e3:.2f}" for r in runs) + ")\n"
          f"  of which the browser putting the text in the box {med['browser'] / 1e3:.2f} s, the widget's "
          f"encoding and drawing {med['script'] / 1e3:.2f} s (and any wait), the frame's layout and paint "
          f"{med['frame'] / 1e3:.2f} s; {med['tokens']:,} token elements and {med['more']!r}")


def time_merge_steps(driver, name):
    word = long_chunks()["200k letters"][:8_000]
    r = driver.execute_async_script("""
        const [name, word, done] = arguments;
        bpeLesson.load(name).then(() => {
            gc();
            const m0 = performance.memory.usedJSHeapSize, a = performance.now();
            const steps = bpeLesson.mergeSteps(name, word);
            const s = (performance.now() - a) / 1e3, m1 = performance.memory.usedJSHeapSize;
            const parts = steps.reduce((n, st) => n + st.parts.length, 0);
            done({s, mb: (m1 - m0) / 1e6, steps: steps.length, parts,
                  last: steps[steps.length - 1].parts.length});
        });
    """, name, word)
    print(f"\nmergeSteps({name}, 8,000 letters): {r['s']:.2f} s, heap +{r['mb']:.0f} MB, "
          f"{r['steps'] - 1} steps kept and the end, holding {r['parts']:,} parts, the end {r['last']:,}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kb", type=int, default=0, help="the first KB of the text only (0: all of it)")
    ap.add_argument("--vocab", action="append", choices=live.VOCABS,
                    help="only this vocabulary (repeatable; default: all three)")
    ap.add_argument("--skip-text", action="store_true", help="skip the first table (the help topics)")
    ap.add_argument("--paste-only", action="store_true", help="the paste only")
    args = ap.parse_args()
    names = args.vocab or live.VOCABS
    text = "\n".join(samples.prose_topics().values())
    if args.kb:
        text = text.encode()[:args.kb * 1000].decode(errors="ignore")
    mb = len(text.encode()) / 1e6
    folder = live.BUILD / "_static" / "live"
    if not folder.is_dir():
        sys.exit(f"{folder} is missing: run `make book` first")
    print(f"text: Python's help topics, {mb:.2f} MB; Chromium headless; MB/s of UTF-8 input")
    print("vocabulary files: " + ", ".join(f"{p.stem} {p.stat().st_size / 1e6:.2f} MB"
                                             for p in sorted(folder.glob("*.js"))))
    driver, profile = live.start_chromium(["--enable-precise-memory-info", "--js-flags=--expose-gc"])
    driver.set_script_timeout(600)
    try:
        live.open_page(driver, (live.BUILD / live.WIDGET_PAGES[0]).as_uri())
        print(f"{'vocabulary':12} {'load s':>7} {'page cold':>10} {'page warm':>10} "
              f"{'package':>8} {'tiktoken':>9} {'page/tiktoken':>14}")
        for name in ([] if args.skip_text or args.paste_only else names):
            r = driver.execute_async_script("""
                const [name, text, done] = arguments;
                const t0 = performance.now();
                bpeLesson.load(name).then(() => {
                    const t1 = performance.now(), ids = bpeLesson.encode(name, text), t2 = performance.now();
                    const warm = [];
                    for (let k = 0; k < 3; k++) { const a = performance.now(); bpeLesson.encode(name, text);
                                                  warm.push(performance.now() - a); }
                    warm.sort((a, b) => a - b);
                    done({load: t1 - t0, cold: t2 - t1, warm: warm[1], ids});
                });
            """, name, text)
            tok, tk = live.package(name), live.tiktoken_encoding(name)
            assert r["ids"] == tok.encode(text), f"{name}: the page's ids differ from the package's"
            pkg = median_time(lambda: tok.encode(text))
            tkt = median_time(lambda: tk.encode(text))
            cold, warm = mb / (r["cold"] / 1e3), mb / (r["warm"] / 1e3)
            print(f"{name:12} {r['load'] / 1e3:7.2f} {cold:10.1f} {warm:10.1f} {mb / pkg:8.1f} "
                  f"{mb / tkt:9.1f} {warm / (mb / tkt):14.2f}")
        if not args.paste_only:
            time_long_chunks(driver, names)
        prose = "\n".join(samples.prose_topics().values())
        time_paste(driver, (prose + "\n") * 2 + prose[:150_000])
        if not args.paste_only:
            time_merge_steps(driver, names[0])
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
