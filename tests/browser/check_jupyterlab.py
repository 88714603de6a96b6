"""Chapters opened in a real JupyterLab (with jupyterlab-myst), read in headless Chromium.

The learner runs the chapters cell by cell in JupyterLab, so its rendered markdown must read
as the book does: no MyST source left in a rendered cell or markdown output (a role such
as {eval}`...` or {doc}`...`, a directive fence such as ```{admonition} or a listing's
::::{tab-set}), no "Unknown Directive" box
(except for {glue:figure}, a known gap: KNOWN_UNKNOWN), and the numbers the prose quotes
(the {eval} roles, whose values `make execute` stores in each markdown cell's
``user_expressions``) shown as text, without running anything. For each chapter in
CHAPTERS the test starts from the notebook file on disk: the expected numbers are the
stored results, and the text must show each of them.

The server: ``jupyter lab`` as a subprocess on a free port, with its own settings,
workspace and runtime folders in a temporary folder (nothing of the user's JupyterLab is
read or written); readiness is its /api/status answering, never a sleep. Notebooks open
with windowing off, so every cell is rendered, not only those on screen. One screenshot per
chapter goes to _build/screenshots/jupyterlab-CHAPTER.png.

Run: ``python -m pytest tests/browser/check_jupyterlab.py`` (``make test-browser`` does).
Needs Debian's chromium and chromium-driver, selenium and jupyterlab-myst (requirements.txt).
Once, on a two-cell notebook put on the server (not a chapter): running the glue cell and
then the markdown cell replaces the stored results with the kernel's, which are the text
{glue:text} shows ("1.23", "32,768").

What this does not do: run a chapter's cells (its kernel stays idle), or check the built
book; the file name keeps it out of ``pytest tests``.
"""

import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import nbformat
import pytest
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / "_build" / "screenshots"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM = "/usr/bin/chromium"
TOKEN = "bpe-lesson-check"
# chapters with many glued numbers, one with proofs and exercises, and one whose outputs
# are MyST (Training fast: its Python and Cython listings are a tab-set) and tables
CHAPTERS = ["what_a_vocabulary_costs", "your_own_tokenizer", "what_tokenization_does_to_a_model",
            "training_fast"]
# MyST source that must not survive rendering: a role, or a directive fence
MYST_SOURCE = [r"\{glue(:\w+)?\}`", r"\{eval\}`", r"```\{", r":::\{", r"\{doc\}`", r"\{numref\}`",
               r"\{ref\}`", r"\{cite\}`", r"\{prf:\w+\}`", r"\{term\}`", r"\{download\}`"]
# what jupyterlab-myst draws for a directive or role it does not know: "glue:figure - Unknown Directive"
UNKNOWN = re.compile(r"(\S+) - Unknown (?:Directive|Role)")
# known gaps, allowed: myst-nb's {glue:figure} (the figure is glued hidden, display=False;
# jupyterlab-myst has no glue directives, so JupyterLab shows this box where the book shows the figure)
KNOWN_UNKNOWN = {"glue:figure"}
# JupyterLab settings for the test: windowing off (every cell rendered), no news or update checks
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    # subtle: autosave would write JupyterLab's view of a chapter back to disk; the server also
    # serves a copy of book/, so nothing it does can touch the chapters
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                         "checkForUpdates": False},
}


def free_port():
    """A TCP port nothing listens on now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_ready(proc, url, log, timeout=180):
    """Poll the server's /api/status until it answers 200; fail with its log if it exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"jupyter lab exited with {proc.returncode} before answering:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=5) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        proc_wait = min(0.2, max(0.0, deadline - time.monotonic()))
        try:
            proc.wait(timeout=proc_wait)  # a short wait on the process itself, not a blind sleep
        except subprocess.TimeoutExpired:
            pass
    pytest.fail(f"jupyter lab did not answer at {url} within {timeout} s:\n{log.read_text()}")


@pytest.fixture(scope="module")
def lab():
    """A JupyterLab server on a copy of book/, isolated in a temporary folder: its base URL."""
    home = pathlib.Path(tempfile.mkdtemp(prefix="bpe-lesson-lab-"))
    for rel, values in SETTINGS.items():
        path = home / "settings" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    shutil.copytree(ROOT / "book", home / "book")
    port = free_port()
    log = home / "lab.log"
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(home / "runtime"), JUPYTER_CONFIG_DIR=str(home / "config"),
               PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
             "--ServerApp.port_retries=0", f"--IdentityProvider.token={TOKEN}",
             f"--ServerApp.root_dir={home / 'book'}", f"--LabApp.user_settings_dir={home / 'settings'}",
             f"--LabApp.workspaces_dir={home / 'workspaces'}", "--LabApp.news_url=",
             "--LabApp.extension_manager=readonly",
             *(["--allow-root"] if os.geteuid() == 0 else [])],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(proc, url, log)
        yield url
    finally:
        # the server, its kernels and anything else in its process group
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    if not os.access(CHROMEDRIVER, os.X_OK):
        pytest.fail(f"{CHROMEDRIVER} is missing: apt-get install chromium chromium-driver (make test does)")
    profile = tempfile.mkdtemp(prefix="bpe-lesson-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run",
                "--window-size=1280,900", f"--user-data-dir={profile}"]:
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(60)
    driver.set_page_load_timeout(120)
    SHOTS.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def markdown_cells(chapter):
    """The chapter's markdown cells, in order, as stored."""
    nb = json.loads((ROOT / "book" / f"{chapter}.ipynb").read_text())
    return [c for c in nb["cells"] if c["cell_type"] == "markdown"]


def stored_expressions(chapter):
    """Per markdown cell (in order), the stored {eval} results: [(expression, text), ...]."""
    return [[(e["expression"], e["result"]["data"]["text/plain"]) for e in c.get("metadata", {}).get("user_expressions", [])]
            for c in markdown_cells(chapter)]


def shown(text_plain):
    """What jupyterlab-myst shows for a text/plain result: one pair of matching quotes off."""
    return re.sub(r"""^(["'])(.*)\1$""", r"\2", text_plain)


def shows_text(chapter):
    """Per markdown cell, whether it renders any text: a cell that is only a directive's
    fence (```{solution-end}\n```) renders empty."""
    fence = re.compile(r"^\s*(```|:::)\S*\s*$")
    return [any(line.strip() and not fence.match(line) for line in "".join(c["source"]).splitlines())
            for c in markdown_cells(chapter)]


# the rendered markdown cells, once each has been rendered by jupyterlab-myst (its
# .myst class), with their text; null while the notebook is still loading
RENDERED_JS = """
const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
if (!panel) return null;
const cells = [...panel.querySelectorAll('.jp-Cell')];
if (cells.length === 0) return null;
const md = cells.filter(c => c.classList.contains('jp-MarkdownCell'));
const out = [];
for (const c of md) {
  const myst = c.querySelector('.myst');
  if (!c.classList.contains('jp-mod-rendered') || !myst) return null;
  out.push(myst.innerText);
}
return out;
"""


# the markdown outputs (a Table, the tab-set of a listing), rendered by jupyterlab-myst:
# their text, or null while one is not rendered yet
OUTPUTS_JS = """
const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
if (!panel) return null;
const outs = [...panel.querySelectorAll('.jp-OutputArea-output[data-mime-type="text/markdown"]')];
if (outs.some(o => !o.classList.contains('myst'))) return null;
return outs.map(o => o.innerText);
"""


def problems_in(texts, expected, has_text):
    """MyST source in the rendered cells, and stored numbers they do not show: ["markdown cell 3: ...", ...]."""
    if len(texts) != len(expected):
        return [f"{len(texts)} markdown cells rendered, the file has {len(expected)}"]
    problems = [f"markdown cell {i}: rendered empty" for i, (t, h) in enumerate(zip(texts, has_text)) if h and not t.strip()]
    for i, (text, exprs) in enumerate(zip(texts, expected)):
        for pattern in MYST_SOURCE:
            for m in re.finditer(pattern, text):
                problems.append(f"markdown cell {i}: MyST source {text[max(0, m.start() - 30):m.end() + 30]!r}")
        for m in UNKNOWN.finditer(text):
            if m.group(1) not in KNOWN_UNKNOWN:
                problems.append(f"markdown cell {i}: jupyterlab-myst does not know {m.group(0)!r}")
        for expression, value in exprs:
            if shown(value) not in text:
                problems.append(f"markdown cell {i}: {expression} should show {shown(value)!r}; "
                                f"the cell reads {text[:300]!r}")
    return problems


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_renders_in_jupyterlab(chapter, lab, browser):
    expected, has_text = stored_expressions(chapter), shows_text(chapter)
    numbers = sum(len(e) for e in expected)
    assert numbers >= 5, f"{chapter}: only {numbers} stored {{eval}} numbers to check; was `make execute` run?"
    browser.get(f"{lab}/lab/tree/{chapter}.ipynb?token={TOKEN}&reset")
    WebDriverWait(browser, 120, poll_frequency=0.25).until(
        lambda d: d.execute_script(RENDERED_JS),
        message=f"{chapter}: JupyterLab did not render the markdown cells with MyST (is jupyterlab-myst installed?)")
    # a cell's text and its inline results render after the cell is marked rendered (React):
    # wait until every cell with text shows text and every number, then report what is still wrong
    last = {}

    def clean(d):
        last["problems"] = problems_in(d.execute_script(RENDERED_JS) or [], expected, has_text)
        outputs = d.execute_script(OUTPUTS_JS)
        if outputs is None:
            last["problems"].append("the markdown outputs are not all rendered by jupyterlab-myst")
        for i, text in enumerate(outputs or []):
            last["problems"] += [f"markdown output {i}: MyST source {m.group(0)!r}"
                                 for pattern in MYST_SOURCE for m in re.finditer(pattern, text)]
            last["problems"] += [f"markdown output {i}: jupyterlab-myst does not know {m.group(0)!r}"
                                 for m in UNKNOWN.finditer(text)]
        return not last["problems"]
    try:
        WebDriverWait(browser, 60, poll_frequency=0.25).until(clean)
    except TimeoutException:
        pass
    first = next(i for i, e in enumerate(expected) if e)  # the screenshot shows the first quoted numbers
    browser.execute_script("document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell')"
                           f"[{first}].scrollIntoView()")
    browser.save_screenshot(str(SHOTS / f"jupyterlab-{chapter}.png"))
    assert not last["problems"], f"{chapter} in JupyterLab:\n" + "\n".join(last["problems"])


def test_a_markdown_cell_run_in_jupyterlab_asks_the_kernel(lab, browser):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell('from bpe_lesson.teaching.glue import glue, glued\n'
                                          'glue("x", 1.234)\nglue("n", 32768)'),
                nbformat.v4.new_markdown_cell('Live: {eval}`glued("x:.2f")` of {eval}`glued("n:,")`.')]
    # stored results that a kernel would not give, so the text shows which one it came from
    nb.cells[1].metadata["user_expressions"] = [
        {"expression": e, "result": {"status": "ok", "data": {"text/plain": t}, "metadata": {}}}
        for e, t in [('glued("x:.2f")', "STORED-X"), ('glued("n:,")', "STORED-N")]]
    body = json.dumps({"type": "notebook", "format": "json", "content": json.loads(nbformat.writes(nb))})
    put = urllib.request.Request(f"{lab}/api/contents/live_glue.ipynb?token={TOKEN}", data=body.encode(),
                                 method="PUT", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(put, timeout=30) as r:
        assert r.status in (200, 201)
    browser.get(f"{lab}/lab/tree/live_glue.ipynb?token={TOKEN}&reset")
    markdown_text = ("const m = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell .myst');"
                     "return m ? m.innerText : '';")
    WebDriverWait(browser, 120, poll_frequency=0.25).until(
        lambda d: "STORED-X of STORED-N" in d.execute_script(markdown_text),
        message="the stored results are not shown")
    WebDriverWait(browser, 120, poll_frequency=0.25).until(
        lambda d: "Idle" in d.find_element(By.ID, "jp-main-statusbar").text, message="the kernel did not start")
    first = browser.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell")[0]
    first.find_element(By.CSS_SELECTOR, ".jp-InputPrompt").click()
    for _ in range(2):  # Shift+Enter: the glue cell, then the markdown cell
        ActionChains(browser).key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(Keys.SHIFT).perform()
    try:
        WebDriverWait(browser, 60, poll_frequency=0.25).until(
            lambda d: "Live: 1.23 of 32,768." in d.execute_script(markdown_text))
    except TimeoutException:
        pass
    assert browser.execute_script(markdown_text).strip() == "Live: 1.23 of 32,768."
