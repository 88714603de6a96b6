"""The rendered book's live tokenizer: encode speed in headless Chromium against the
package and tiktoken on the same text, in one run, and the sizes of its vocabulary files.

How to run (from the repository root, after ``make book``):

    python benchmarks/live_tokenizer_speed.py            # every topic of Python's help, 0.47 MB
    python benchmarks/live_tokenizer_speed.py --kb 200   # its first 200 KB

For each vocabulary (ours_4096, cl100k_base, o200k_base): the time to load its file in
the page (insert the script, decode base64, build the map), then ``bpeLesson.encode``
on the text: the first call (empty chunk cache) and the median of three more; the
package's ``Tokenizer.encode`` and tiktoken's ``encode`` (one thread) on the same text,
median of three. The page's ids are checked against the package's first.

What this does not do: assert anything (tests/browser/check_live_tokenizer.py checks
the ids), or time the widget's drawing.
"""

import argparse
import os
import pathlib
import shutil
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "browser"))

import check_live_tokenizer as live  # noqa: E402  the fixtures' helpers: texts, tokenizers, driver set-up
from bpe_lesson.teaching import samples  # noqa: E402


def median_time(f, n=3):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kb", type=int, default=0, help="the first KB of the text only (0: all of it)")
    args = ap.parse_args()
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
    driver, profile = live.start_chromium()
    try:
        live.open_page(driver, (live.BUILD / live.WIDGET_PAGES[0]).as_uri())
        print(f"{'vocabulary':12} {'load s':>7} {'page cold':>10} {'page warm':>10} "
              f"{'package':>8} {'tiktoken':>9} {'page/tiktoken':>14}")
        for name in live.VOCABS:
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
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
