"""The built book (_build/html), read page by page in headless Chromium.

For every page, at a laptop's width (1280 px) and a phone's (414 px): each formula typeset and inline math on the text's baseline; no code,
output, table or formula wider than its box; every image loaded and each figure drawn
so wide that its smallest text (viz.SMALLEST_TEXT_PT) shows at 12 px or more at 1280 px
and 9 px or more at 414 px, scrolling in its own box where it is wider than the column,
in a figure with a numbered caption; no
power of ten written "10^12" outside code; no console error; no request that leaves
the build folder; a solution folds and unfolds on click; an intended error shows its
last line only, no output names a path of the build machine, every token row has its
label; printed output never wraps (each output <pre> is white-space: pre and shows as many
lines as it prints) and, at 1280 px, no code cell scrolls sideways; the visible menu
button (☰) opens the chapter list on screen (a drawer on a phone, the sidebar folds and
unfolds on a laptop) and the visible contents button opens the page's contents; the
landing page lists every chapter of _toc.yml; no MyST source (a directive's fence, a role)
is left in the prose, and every callout has a title of its own. The checks that run inside the page are in pages.js. A failure names the page and
the element. One screenshot per page goes to _build/screenshots/.

Run after ``make book``: ``python -m pytest tests/browser/check_pages.py`` (``make test``
does both). Needs Debian's ``chromium`` and ``chromium-driver`` (the Makefile installs
them with apt-get when /usr/bin/chromedriver is missing) and selenium.

What this does not do: build the book, or judge a page's content; the file name keeps
it out of ``pytest tests`` (it matches neither test_*.py nor *_test.py).
"""

import base64
import functools
import http.server
import json
import os
import pathlib
import re
import shutil
import tempfile
import threading

import pytest
import yaml
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from bpe_lesson.teaching import viz

ROOT = pathlib.Path(__file__).resolve().parents[2]
# another build can be checked with BPE_LESSON_BOOK_HTML=path/to/html (its screenshots go next to it)
BUILD = pathlib.Path(os.environ.get("BPE_LESSON_BOOK_HTML", ROOT / "_build" / "html")).resolve()
SHOTS = BUILD.parent / "screenshots"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM = "/usr/bin/chromium"
WIDTH, HEIGHT = 1280, 900  # a laptop window
WIDTHS = {"laptop": 1280, "phone": 414}  # every page is read at both
CHECKS_JS = (pathlib.Path(__file__).parent / "pages.js").read_text()
# a figure's smallest text, in px where its PNG is drawn at the width it declares
SMALLEST_TEXT_PX = viz.SMALLEST_TEXT_PT * viz.FIGURE_RC["figure.dpi"] / 72
# every chapter the table of contents lists, as its built page: "book/the_merge_rule.html"
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
CHAPTERS = [c["file"] + ".html" for part in TOC["parts"] for c in part["chapters"]]
NOT_PAGES = {"_static", "_sources", "_images", "mathjax"}  # folders of assets, not pages


def book_pages():
    """Every HTML page of the build, relative to it (a redirect-only page excluded)."""
    if not BUILD.is_dir():
        return []
    pages = []
    for path in sorted(BUILD.rglob("*.html")):
        rel = path.relative_to(BUILD)
        if rel.parts[0] in NOT_PAGES:
            continue
        if re.search(r'http-equiv="refresh"', path.read_text(errors="replace"), re.I):
            continue  # index.html only forwards to the first chapter
        pages.append(rel.as_posix())
    return pages


PAGES = book_pages() or [None]  # None: nothing built, a failure (not an empty, skipped run)
TOTALS = {}  # what was checked, summed over the pages -> printed at the end


class BuildFolderHandler(http.server.SimpleHTTPRequestHandler):
    """Serves _build/html and records every request as (path, status)."""

    requests = []  # (path, status), shared by the server's threads; list.append is atomic

    def log_request(self, code="-", size="-"):
        self.requests.append((self.path, int(code) if isinstance(code, int) else code))

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    handler = functools.partial(BuildFolderHandler, directory=str(BUILD))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)  # the OS picks the port
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    thread.join()


@pytest.fixture(scope="module")
def browser(request):
    if not os.access(CHROMEDRIVER, os.X_OK):
        pytest.fail(f"{CHROMEDRIVER} is missing: apt-get install chromium chromium-driver (make test does)")
    profile = tempfile.mkdtemp(prefix="bpe-lesson-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run",
                f"--window-size={WIDTH},{HEIGHT}", f"--user-data-dir={profile}"]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(60)
    driver.set_page_load_timeout(60)
    SHOTS.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)
    # what was checked, on the terminal past pytest's output capture
    plugins = request.config.pluginmanager
    reporter, capture = plugins.get_plugin("terminalreporter"), plugins.get_plugin("capturemanager")
    if reporter is not None and capture is not None and TOTALS:
        with capture.global_and_fixture_disabled():
            reporter.write_line("\nbrowser check: " + ", ".join(f"{v} {k}" for k, v in TOTALS.items()))


def run(driver, call):
    """Evaluate one of pages.js's checks in the page: {count: {...}, problems: [...]}."""
    return driver.execute_script(CHECKS_JS + f"\nreturn {call};")


def wait_for_page(driver):
    """Until the page, its images and fonts have loaded and MathJax has typeset everything."""
    WebDriverWait(driver, 60).until(lambda d: d.execute_script("return document.readyState") == "complete")
    driver.execute_async_script("""
        const done = arguments[0];
        const images = [...document.images].map(img => { img.loading = "eager";
            return img.complete ? null : new Promise(r => { img.onload = img.onerror = r; }); });
        const typeset = () => new Promise(r => (window.MathJax && MathJax.Hub) ? MathJax.Hub.Queue(r) : r());
        Promise.all(images).then(typeset).then(() => document.fonts.ready).then(() => done(true));
    """)


def browser_log_problems(driver, base):
    """Console errors, and requests for anything outside the served build folder."""
    problems = []
    for entry in driver.get_log("browser"):
        if entry["level"] == "SEVERE":
            problems.append(f"console error: {entry['message'][:300]}")
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] != "Network.requestWillBeSent":
            continue
        url = message["params"]["request"]["url"]
        if not (url.startswith(base + "/") or url.startswith("data:") or url.startswith("blob:")):
            problems.append(f"request leaves the build folder: {url[:200]}")
    return problems


def check_solution(driver, page):
    """The first solution on the page is folded, opens on a click and folds again."""
    solutions = driver.find_elements(By.CSS_SELECTOR, "div.solution.dropdown")
    if not solutions:
        return [], 0
    solution = solutions[0]
    name = f"solution #{solution.get_attribute('id')}"
    body = solution.find_elements(By.XPATH, "./*[not(contains(@class, 'admonition-title'))]")
    button = solution.find_elements(By.CSS_SELECTOR, ".admonition-title")
    if not body or not button:
        return [f"{name}: no title to click or no body to show"], 1
    body, button = body[0], button[0]
    if body.is_displayed():
        return [f"{name}: shown before any click (it should be folded)"], 1
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
    button.click()
    try:
        WebDriverWait(driver, 5).until(lambda d: body.is_displayed())
    except Exception:
        return [f"{name}: still folded after a click on its title"], 1
    button.click()
    try:
        WebDriverWait(driver, 5).until(lambda d: not body.is_displayed())
    except Exception:
        return [f"{name}: still shown after a second click"], 1
    return [], 1


def on_screen(driver, root):
    return set(driver.execute_script(CHECKS_JS + "\nreturn chapterLinksOnScreen(arguments[0], arguments[1]);",
                                     CHAPTERS, root))


def visible_button(driver, selector):
    buttons = [b for b in driver.find_elements(By.CSS_SELECTOR, selector) if b.is_displayed()]
    return buttons[0] if buttons else None


def check_navigation(driver, page, width):
    """The visible ☰ button shows the chapter list; the visible contents button the page's
    contents; the landing page lists every chapter in its text. Returns (problems, clicks)."""
    problems, clicks = [], 0
    if page == "book/intro.html":
        missing = [c for c in CHAPTERS if c not in on_screen(driver, "article.bd-article")]
        if missing:
            problems.append(f"the landing page's text links to no {', '.join(missing)}")
    menu = visible_button(driver, ".primary-toggle")
    if menu is None:
        return problems + ["no visible menu button (.primary-toggle)"], clicks
    everywhere = "#pst-primary-sidebar, #pst-primary-sidebar-modal"  # the sidebar, or the drawer it moves to
    all_chapters = set(CHAPTERS)
    try:
        if width == "phone":
            if on_screen(driver, everywhere) & all_chapters == all_chapters:
                problems.append("the chapter list is on screen before the menu button is clicked")
            menu.click()
            clicks += 1
            WebDriverWait(driver, 5).until(lambda d: on_screen(d, everywhere) >= all_chapters)
            driver.switch_to.active_element.send_keys(Keys.ESCAPE)
            WebDriverWait(driver, 5).until(lambda d: not on_screen(d, everywhere))
        else:
            WebDriverWait(driver, 5).until(lambda d: on_screen(d, everywhere) >= all_chapters)
            menu.click()
            clicks += 1
            WebDriverWait(driver, 5).until(lambda d: not on_screen(d, everywhere))
            menu.click()
            clicks += 1
            WebDriverWait(driver, 5).until(lambda d: on_screen(d, everywhere) >= all_chapters)
    except Exception:
        shown = sorted(all_chapters & on_screen(driver, everywhere))
        problems.append(f"the menu button at {WIDTHS[width]} px: {len(shown)} of {len(all_chapters)} "
                        "chapter links on screen at the wrong moment (it opens or folds nothing)")
        return problems, clicks
    contents = visible_button(driver, ".secondary-toggle")
    if contents is not None:  # below 1200 px, on a page with sections
        contents.click()
        clicks += 1
        try:
            WebDriverWait(driver, 5).until(lambda d: d.execute_script(
                "const m = document.querySelector('#pst-secondary-sidebar-modal');"
                "return !!m && m.open && [...m.querySelectorAll('a')].some(a => a.getClientRects().length > 0);"))
            driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        except Exception:
            problems.append(f"the contents button at {WIDTHS[width]} px opens no list of the page's sections")
    return problems, clicks


def save_screenshot(driver, page):
    """The whole page, top to bottom, as one JPEG named after the page (smaller than a PNG)."""
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "jpeg", "quality": 80, "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}})
    (SHOTS / (page.replace("/", "__").removesuffix(".html") + ".jpg")).write_bytes(base64.b64decode(shot["data"]))


def add(counts):
    for key, value in counts.items():
        TOTALS[key] = TOTALS.get(key, 0) + value


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("page", PAGES)
def test_page(page, width, server, browser):
    if page is None:
        pytest.fail(f"no pages in {BUILD}: run `make book` first")
    driver = browser
    driver.set_window_size(WIDTHS[width], HEIGHT)
    driver.get("about:blank")
    driver.get_log("browser"), driver.get_log("performance")  # drop what came before this page
    BuildFolderHandler.requests.clear()

    driver.get(f"{server}/{page}")
    wait_for_page(driver)
    add({"pages": 1})
    problems, clicks = check_navigation(driver, page, width)
    add({"menu buttons clicked": clicks})
    more, toggled = check_solution(driver, page)
    problems += more
    add({"solutions toggled": toggled})
    # then with every solution and hidden cell unfolded, as a reader may read the page
    narrow = "true" if width == "phone" else "false"
    checks = ["openAll()", "checkMath()", f"checkWidths({narrow})", f"checkImages({narrow}, {SMALLEST_TEXT_PX})",
              "checkOutputs()",
              "checkNoWrap()", "checkSource()"] + ([] if width == "phone" else ["checkCodeFits()"])
    for check in checks:
        result = run(driver, check)
        problems += result["problems"]
        add(result["count"])
    problems += browser_log_problems(driver, server)
    problems += [f"the server has no {path} (status {status})"
                 for path, status in list(BuildFolderHandler.requests) if status not in (200, 304)]
    save_screenshot(driver, page if width == "laptop" else f"{page.removesuffix('.html')}-{width}.html")
    assert not problems, f"{page} at {WIDTHS[width]} px:\n  " + "\n  ".join(problems)
