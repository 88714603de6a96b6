// Checks run inside each page of the built book (tests/browser/check_pages.py).
// check(kind) returns {count: {...}, problems: ["<element>: <what is wrong>", ...]}.
// Each element is named by its tag, id/classes, the section it sits in and its first words.

function describe(el) {
  let name = el.tagName.toLowerCase();
  if (el.id) name += "#" + el.id;
  const cls = [...el.classList].filter(c => !c.startsWith("MathJax")).slice(0, 3);
  if (cls.length) name += "." + cls.join(".");
  // the nearest section with a heading of its own (a proof's body is a section too)
  let section = el.closest("section");
  while (section && !section.querySelector(":scope > h1, :scope > h2, :scope > h3, :scope > h4")) {
    section = section.parentElement.closest("section");
  }
  const heading = section && section.querySelector(":scope > h1, :scope > h2, :scope > h3, :scope > h4");
  const where = heading ? ` in section #${section.id} ("${heading.textContent.replace(/[#¶]/g, "").trim().slice(0, 50)}")` : "";
  // a formula by its TeX source, an image by its file, anything else by its first words
  const tex = el.querySelector && el.querySelector('script[type^="math/tex"]');
  const text = ((tex && tex.textContent) || el.textContent || el.getAttribute("src") || "")
    .replace(/\s+/g, " ").trim().slice(0, 60);
  return `<${name}>${where} "${text}"`;
}

function visible(el) {
  return el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
}

const article = document.querySelector("article.bd-article") || document.body;

// Every expression typeset by MathJax, none in error, no TeX delimiters left in the text,
// and inline math on the baseline of the line it sits in.
function checkMath() {
  const problems = [];
  const count = {"inline math": 0, "display math": 0, "inline math on the baseline (measured)": 0};
  const maths = [...article.querySelectorAll("span.math, div.math")]
    .filter(el => !el.closest(".MathJax, .MathJax_Display, .MathJax_Preview"));
  for (const el of maths) {
    const display = el.tagName === "DIV";
    count[display ? "display math" : "inline math"] += 1;
    const frame = el.querySelector(display ? ".MathJax_Display .MathJax, .MathJax_Display" : ".MathJax");
    if (!el.querySelector('script[type^="math/tex"]') || !frame) {
      problems.push(`${describe(el)}: not typeset by MathJax`);
      continue;
    }
    if (el.querySelector(".MathJax_Error, .noError, .merror")) {
      problems.push(`${describe(el)}: MathJax reports an error`);
      continue;
    }
    if (display || !visible(frame)) continue;
    // The line's baseline: the bottom of an empty inline-block put just before the
    // formula. The formula's baseline: the same probe inside MathJax's box.
    const inner = frame.querySelector("span.math");
    if (!inner) {
      problems.push(`${describe(el)}: no MathJax box inside the formula`);
      continue;
    }
    const probe = () => {
      const p = document.createElement("span");
      p.style.cssText = "display:inline-block;width:0;height:0;vertical-align:baseline;margin:0;padding:0;border:0";
      return p;
    };
    const outside = probe(), inside = probe();
    el.parentNode.insertBefore(outside, el);
    inner.insertBefore(inside, inner.firstChild);
    const line = outside.getBoundingClientRect(), mine = inside.getBoundingClientRect();
    const box = frame.getBoundingClientRect();
    outside.remove();
    inside.remove();
    if (Math.abs(line.left - box.left) > 3) continue;  // the line broke between probe and formula
    count["inline math on the baseline (measured)"] += 1;
    const off = line.bottom - mine.bottom;
    if (Math.abs(off) > 1.5) {
      problems.push(`${describe(el)}: inline math sits ${off.toFixed(1)} px ${off > 0 ? "above" : "below"} the text's baseline`);
    }
  }
  // raw TeX left in the prose (code, scripts and typeset math excluded)
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      return node.parentElement.closest("pre, code, script, style, textarea, .MathJax, .MathJax_Display, .MathJax_Preview, .highlight")
        ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
    },
  });
  const raw = /\\\(|\\\)|\\\[|\\\]|\$\$|\\begin\{|\\frac|\\mathrm|\\text\{/;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const m = node.textContent.match(raw);
    if (m) problems.push(`${describe(node.parentElement)}: raw TeX "${m[0]}" left in the text`);
  }
  return {count, problems};
}

// No pre block, output, table, formula or token row wider than its box.
// Code (cells and listings) and printed output may scroll sideways in their own boxes at any
// width: they never wrap (checkNoWrap), which would lose indentation and columns. narrow
// (a phone's width): display math and wide tables may scroll in their boxes too.
function checkWidths(narrow) {
  const problems = [];
  const count = {"pre blocks": 0, "cell outputs": 0, tables: 0, "token rows": 0};
  if (article.scrollWidth > article.clientWidth + 1) {
    problems.push(`${describe(article)}: the article is ${article.scrollWidth} px wide in a ${article.clientWidth} px column`);
  }
  const boxes = article.querySelectorAll("pre, div.cell_output, div.output, div.math, .token-row, div.highlight, div.pst-scrollable-table-container");
  for (const el of boxes) {
    if (!visible(el)) continue;
    if (el.tagName === "PRE") count["pre blocks"] += 1;
    if (el.matches("div.cell_output")) count["cell outputs"] += 1;
    if (el.matches(".token-row")) count["token rows"] += 1;
    const output = el.closest("div.cell_output");
    if (el.closest("div.cell_input, div.highlight")) continue;  // code and printed lines scroll by design
    if (narrow && (el.closest("div.pst-scrollable-table-container") || (!output && el.closest("div.math")))) continue;
    if (el.scrollWidth > el.clientWidth + 1) {
      problems.push(`${describe(el)}: content ${el.scrollWidth} px wide in a ${el.clientWidth} px box (clipped or scrolled)`);
    }
  }
  for (const table of article.querySelectorAll("table")) {
    if (!visible(table) || (narrow && table.closest("div.pst-scrollable-table-container"))) continue;
    count.tables += 1;
    const room = table.parentElement.clientWidth;
    const width = table.getBoundingClientRect().width;
    if (width > room + 1 || table.scrollWidth > table.clientWidth + 1) {
      problems.push(`${describe(table)}: table ${Math.round(width)} px wide in a ${room} px box`);
    }
  }
  return {count, problems};
}

// Printed output keeps its lines: each output <pre> is set white-space: pre, and it shows
// as many line boxes as its text has lines (a wrapped line would add boxes).
function checkNoWrap() {
  const problems = [];
  const count = {"output blocks (no line wrapped)": 0};
  for (const pre of article.querySelectorAll("div.cell_output pre")) {
    if (!visible(pre)) continue;
    count["output blocks (no line wrapped)"] += 1;
    const ws = getComputedStyle(pre).whiteSpace;
    if (ws !== "pre") {
      problems.push(`${describe(pre)}: printed output set white-space: ${ws} (it wraps; want pre)`);
      continue;
    }
    const lines = pre.textContent.replace(/\n+$/, "").split("\n").length;
    const range = document.createRange();
    range.selectNodeContents(pre);
    // the line boxes' tops, spans on one line merged (their tops differ by a pixel or two)
    const half = parseFloat(getComputedStyle(pre).lineHeight) / 2 || 8;
    const tops = [...range.getClientRects()].filter(r => r.height > 0).map(r => r.top).sort((a, b) => a - b);
    let shown = 0, last = -Infinity;
    for (const top of tops) {
      if (top - last > half) { shown += 1; last = top; }
    }
    if (shown > lines) {
      problems.push(`${describe(pre)}: ${lines} printed lines shown on ${shown} lines (wrapped)`);
    }
  }
  return {count, problems};
}

// At a laptop's width every code cell's lines fit its box: none scrolls sideways.
function checkCodeFits() {
  const problems = [];
  const count = {"code cells (fit at 1280 px)": 0};
  for (const pre of article.querySelectorAll("div.cell_input pre")) {
    if (!visible(pre)) continue;
    count["code cells (fit at 1280 px)"] += 1;
    if (pre.scrollWidth > pre.clientWidth + 1) {
      const longest = Math.max(...pre.textContent.split("\n").map(l => l.length));
      problems.push(`${describe(pre)}: code ${pre.scrollWidth} px wide in a ${pre.clientWidth} px box ` +
                    `(its longest line: ${longest} characters)`);
    }
  }
  return {count, problems};
}

// Every image loaded; each figure's smallest text (smallestPx where the PNG is drawn at the
// width it declares) drawn at >= 12 px on a laptop (3/4 of the body's 16 px) and >= 9 px on
// a phone, and a figure wider than its box scrolls in it (nothing cut off). At 1280 px a
// figure is in a figure with a numbered caption.
function checkImages(narrow, smallestPx) {
  const problems = [];
  const count = {images: 0, "figures (text size checked)": 0};
  const least = narrow ? 9 : 12;
  for (const img of document.querySelectorAll("img")) {
    count.images += 1;
    if (!img.complete || img.naturalWidth === 0) {
      problems.push(`${describe(img)}: image did not load (${img.getAttribute("src")})`);
      continue;
    }
    if (!article.contains(img) || /\.svg(\?|$)/.test(img.currentSrc) || !visible(img)) continue;
    count["figures (text size checked)"] += 1;
    const figure = img.closest("figure");
    if (!narrow && (!figure || !figure.querySelector("figcaption .caption-number"))) {
      problems.push(`${describe(img)}: a figure without a numbered caption`);
    }
    const shown = img.getBoundingClientRect().width;
    // a sharp (retina) PNG is stored at twice the width it declares: its text is sized for
    // the declared width, so that is the width it is meant to be drawn at
    const declared = parseFloat(img.dataset.declaredWidth || img.style.width) || parseFloat(img.getAttribute("width")) || 0;
    const meant = declared > 0 && Math.abs(img.naturalWidth - 2 * declared) <= 2 ? declared : img.naturalWidth;
    const text = smallestPx * shown / meant;
    if (text < least) {
      problems.push(`${describe(img)}: figure meant for ${Math.round(meant)} px drawn at ${Math.round(shown)} px: ` +
                    `its smallest text is ${text.toFixed(1)} px (at least ${least})`);
    }
    const box = img.closest("a") || img.parentElement;
    const overflowX = getComputedStyle(box).overflowX;
    if (box.scrollWidth > box.clientWidth + 1 && !["auto", "scroll"].includes(overflowX)) {
      problems.push(`${describe(img)}: figure ${Math.round(shown)} px wide in a ${box.clientWidth} px box that does not scroll`);
    }
    if (shown > article.clientWidth + 1 && box.scrollWidth <= box.clientWidth + 1) {
      problems.push(`${describe(img)}: figure ${Math.round(shown)} px wide spills out of the ${article.clientWidth} px column`);
    }
  }
  return {count, problems};
}

// Outputs a reader can use: an intended error shows its last line (the exception and
// its message), no output names a path on the machine that built the book, and every
// token row says what it shows.
function checkOutputs() {
  const problems = [];
  const count = {"error outputs": 0};
  const buildPath = /(\/work\/|\/home\/|\/root\/|\/tmp\/|site-packages|\.venv\/)/;
  for (const out of article.querySelectorAll("div.cell_output")) {
    const m = out.textContent.match(buildPath);
    if (m) problems.push(`${describe(out)}: output names a path on the build machine ("${m[0]}")`);
  }
  for (const tb of article.querySelectorAll("div.cell_output .traceback, div.cell_output .output.error")) {
    count["error outputs"] += 1;
    const lines = tb.textContent.trim().split("\n").filter(l => l.trim());
    if (lines.length > 2) {
      problems.push(`${describe(tb)}: an error output of ${lines.length} lines (show the last line only)`);
    }
  }
  // a power of ten is written with a superscript, never as "10^12" in the prose or a table
  const prose = article.cloneNode(true);
  for (const el of prose.querySelectorAll("pre, code, .highlight, script, .MathJax, mjx-container")) el.remove();
  const caret = prose.textContent.match(/\b10\^-?\d+/);
  if (caret) problems.push(`the page writes a power of ten as "${caret[0]}" (use a superscript)`);
  for (const row of article.querySelectorAll(".token-row")) {
    const label = row.querySelector(".token-row-label");
    if (!label || !label.textContent.trim()) problems.push(`${describe(row)}: a token row without its label`);
  }
  return {count, problems};
}

// MyST that was not rendered: a directive's fence, a role, a glue reference left in the
// prose (code and outputs excluded), and a callout under a generic title ("Tip") instead of
// its own (``{tip} Title`` puts the title in the body; a titled callout is an admonition).
function checkSource() {
  const problems = [];
  const count = {"callouts titled": 0};
  const prose = article.cloneNode(true);
  for (const el of prose.querySelectorAll("pre, code, .highlight, .cell_output, script, style, .MathJax, mjx-container")) el.remove();
  const source = /```\{|:::\{|\{(glue|glue:text|glue:figure|doc|numref|ref|eval|term|prf:ref|cite|download)\}`/;
  const m = prose.textContent.match(source);
  if (m) problems.push(`the page shows MyST source "${m[0]}"`);
  const generic = /^(tip|note|warning|important|caution|hint|attention|danger|error|see also)$/i;
  for (const title of article.querySelectorAll(".admonition > .admonition-title")) {
    count["callouts titled"] += 1;
    if (generic.test(title.textContent.trim())) {
      problems.push(`${describe(title.parentElement)}: a callout titled only "${title.textContent.trim()}"`);
    }
  }
  return {count, problems};
}

// Unfold everything a reader can unfold (solutions, hidden cells), so the checks see it.
function openAll() {
  let opened = 0;
  for (const el of document.querySelectorAll(".toggle-hidden")) {
    const button = el.querySelector(".toggle-button") || document.querySelector(`[data-target="${el.id}"]`);
    if (button) { button.click(); opened += 1; }
  }
  for (const d of article.querySelectorAll("details:not([open])")) { d.open = true; opened += 1; }
  return {count: {"folded blocks opened": opened}, problems: []};
}

// Links to the book's chapters on screen: shown and inside the window's width.
// chapters: the chapters' paths ("book/the_merge_rule.html"); rootSelector: where to look.
function chapterLinksOnScreen(chapters, rootSelector) {
  const seen = new Set();
  for (const a of document.querySelectorAll(rootSelector.split(",").map(r => r + " a[href]").join(","))) {
    const r = a.getBoundingClientRect();
    if (!visible(a) || r.width === 0 || r.right <= 0 || r.left >= window.innerWidth) continue;
    const path = new URL(a.href).pathname;
    for (const c of chapters) if (path.endsWith("/" + c)) seen.add(c);
  }
  return [...seen];
}
