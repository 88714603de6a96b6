// The book's live tokenizer: byte-level BPE with tiktoken's rank rule, in the page.
//
// window.bpeLesson:
//   vocabularies()        the names of the vocabularies the book ships, e.g. ["ours_4096", ...]
//   load(name)            a Promise: inserts the vocabulary's script (_static/live/NAME.js),
//                         which calls bpeLesson._register(NAME, {...}) (src/bpe_lesson/teaching/live.py
//                         writes it); a <script src> works from file:// where fetch() does not
//   encode(name, text)    the ids of text (special tokens allowed), once load(name) has resolved
//   mergeSteps(name, word) the rank loop on the first chunk of word: [{parts, pair, rank}, ...]
// Each <div class="live-tokenizer" data-vocab=".." data-word=".."> on a page becomes a widget.
//
// What this does not do: train, decode ids typed in, or know any pattern but the three the
// vocabulary files carry (already rewritten for RegExp's v flag).
(function () {
  "use strict";
  // the vocabularies the build writes (name -> label), in the selector's order
  const NAMES = {"ours_4096": "ours (4,096 ids)", "cl100k_base": "GPT-4 (cl100k_base)",
                 "o200k_base": "GPT-4o (o200k_base)"};
  // the book's token-row colours (src/bpe_lesson/teaching/viz.py PALETTE)
  const PALETTE = ["#ffd6a5", "#caffbf", "#9bf6ff", "#bdb2ff", "#ffc6ff", "#fdffb6", "#a0c4ff", "#ffadad"];
  const here = document.currentScript ? document.currentScript.src : "";
  const base = here.slice(0, here.lastIndexOf("/") + 1) + "live/";  // .../_static/live/
  const vocabs = {};   // name -> {ranks: Map(latin1 bytes -> id), tokens: [latin1], regex, specials}
  const loading = {};  // name -> Promise
  const ASCII = /^[\x00-\x7f]*$/;

  // ---- decoding a vocabulary file -------------------------------------------------
  function latin1(b64) { return atob(b64); }  // one char per byte

  function register(name, v) {
    const lengths = latin1(v.lengths), data = latin1(v.tokens);
    const ranks = new Map(), tokens = new Array(lengths.length);
    for (let id = 0, at = 0; id < lengths.length; id++) {
      const n = lengths.charCodeAt(id);
      if (n === 0) continue;  // an unused id
      const t = data.slice(at, at + n);
      at += n;
      tokens[id] = t;
      ranks.set(t, id);
    }
    const specials = Object.keys(v.specials).sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    const escaped = specials.map(s => s.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&"));
    vocabs[name] = {label: v.label, size: v.size, ranks, tokens, specialIds: v.specials,
                    regex: new RegExp(v.pattern, "gv"), asciiRegex: new RegExp(v.ascii_pattern, "gv"),
                    cut: new RegExp(v.cut, "g"),
                    specialRegex: specials.length ? new RegExp(escaped.join("|"), "g") : null,
                    cache: new Map()};
  }

  function load(name) {
    if (!(name in NAMES)) {
      return Promise.reject(new Error(`no vocabulary ${name}; the book has ${Object.keys(NAMES).join(", ")}`));
    }
    if (vocabs[name]) return Promise.resolve(vocabs[name]);
    if (!loading[name]) {
      loading[name] = new Promise((resolve, reject) => {
        const s = document.createElement("script");
        s.src = base + name + ".js";
        s.onload = () => vocabs[name] ? resolve(vocabs[name]) : reject(new Error(`${s.src} did not register ${name}`));
        s.onerror = () => { delete loading[name]; reject(new Error(`cannot load ${s.src}`)); };
        document.head.appendChild(s);
      });
    }
    return loading[name];
  }

  function loaded(name) {
    const v = vocabs[name];
    if (!v) throw new Error(`vocabulary ${name} is not loaded: await bpeLesson.load("${name}") first`);
    return v;
  }

  // ---- encoding ---------------------------------------------------------------------
  // a chunk's UTF-8 bytes as a latin1 string (one char per byte): the key of `ranks`
  function utf8(chunk) {
    return ASCII.test(chunk) ? chunk : unescape(encodeURIComponent(chunk));
  }

  // tiktoken's _byte_pair_merge: start from single bytes; join, again and again, the
  // adjacent pair whose joined bytes have the lowest rank, until no pair is a token.
  // starts: where each part begins; rank[k]: the rank of parts k and k+1 joined.
  function bytePairMerge(ranks, bytes, onStep) {
    const starts = [];
    for (let k = 0; k <= bytes.length; k++) starts.push(k);
    const pairRank = k => k + 2 < starts.length
      ? (ranks.get(bytes.slice(starts[k], starts[k + 2])) ?? Infinity) : Infinity;
    const rank = starts.map((_, k) => pairRank(k));
    for (;;) {
      let best = Infinity, at = -1;
      for (let k = 0; k < rank.length - 2; k++) if (rank[k] < best) { best = rank[k]; at = k; }  // the first lowest
      if (at < 0) break;
      if (onStep) onStep(starts.slice(), at, best);
      starts.splice(at + 1, 1);  // parts at and at+1 become one
      rank.splice(at + 1, 1);
      rank[at] = pairRank(at);
      if (at > 0) rank[at - 1] = pairRank(at - 1);
    }
    const ids = [];
    for (let k = 0; k + 1 < starts.length; k++) ids.push(ranks.get(bytes.slice(starts[k], starts[k + 1])));
    return {ids, starts};
  }

  function encodeChunk(v, chunk) {
    let ids = v.cache.get(chunk);
    if (ids) return ids;
    const bytes = utf8(chunk);
    const whole = v.ranks.get(bytes);
    ids = whole !== undefined ? [whole] : bytePairMerge(v.ranks, bytes).ids;
    if (v.cache.size > 50000) v.cache.clear();
    v.cache.set(chunk, ids);
    return ids;
  }

  // the text between special tokens, and the specials: [[piece, isSpecial], ...]
  function splitSpecials(v, text) {
    if (!v.specialRegex) return [[text, false]];
    const out = [];
    let start = 0;
    for (const m of text.matchAll(v.specialRegex)) {
      if (m.index > start) out.push([text.slice(start, m.index), false]);
      out.push([m[0], true]);
      start = m.index + m[0].length;
    }
    if (start < text.length) out.push([text.slice(start), false]);
    return out;
  }

  // text cut where each side splits alone into the chunks of the whole (the vocabulary's
  // `cut`: after a newline that a visible ASCII character follows), in stretches of 256
  // characters or more (short enough that most of a page of English prose is all ASCII)
  function* safeParts(v, text) {
    let start = 0;
    for (const m of text.matchAll(v.cut)) {
      const end = m.index + m[0].length;
      if (end - start >= 256) { yield text.slice(start, end); start = end; }
    }
    if (start < text.length) yield text.slice(start);
  }

  function encode(name, text) {
    const v = loaded(name);
    // subtle: a lone surrogate is no character; tiktoken (and the package) replace it
    // with U+FFFD before splitting, as toWellFormed does
    text = String(text).toWellFormed();
    const ids = [];
    for (const [piece, special] of splitSpecials(v, text)) {
      if (special) { ids.push(v.specialIds[piece]); continue; }
      for (const part of safeParts(v, piece)) {
        // subtle: ASCII text splits the same under the classes' ASCII members, twice as fast
        const regex = ASCII.test(part) ? v.asciiRegex : v.regex;
        for (const m of part.matchAll(regex)) for (const id of encodeChunk(v, m[0])) ids.push(id);
      }
    }
    return ids;
  }

  // the rank loop on the first chunk of `word`, step by step:
  // [{parts: [latin1 bytes, ...], pair: k or -1 (the last step), rank}]
  function mergeSteps(name, word) {
    const v = loaded(name);
    const m = String(word).toWellFormed().match(new RegExp(v.regex.source, "v"));
    if (!m) return [];
    const bytes = utf8(m[0]), steps = [];
    const parts = starts => starts.slice(0, -1).map((s, k) => bytes.slice(s, starts[k + 1]));
    const end = bytePairMerge(v.ranks, bytes, (starts, at, rank) => steps.push({parts: parts(starts), pair: at, rank}));
    steps.push({parts: parts(end.starts), pair: -1, rank: null});
    return steps;
  }

  // ---- drawing ------------------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, val] of Object.entries(attrs || {})) {
      if (k === "class") e.className = val; else if (k === "style") e.style.cssText = val; else e.setAttribute(k, val);
    }
    for (const c of children) e.append(c);
    return e;
  }

  function show(bytes) {  // latin1 bytes -> text, "↵" before a newline; null if not whole UTF-8
    try {
      return decodeURIComponent(escape(bytes)).replace(/\n/g, "\u21b5\n");
    } catch (e) {
      return null;
    }
  }

  function hex(bytes) { return [...bytes].map(c => "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0")).join(""); }

  // a token row as the book draws one (viz.token_spans_html): a label, one coloured
  // span per token, its id beneath; a token ending inside a character joins the next
  function tokenRow(label, pieces) {  // pieces: [[latin1 bytes, id or null, marked], ...]
    const row = el("div", {"class": "token-row live-row"}, el("span", {"class": "token-row-label"}, label));
    let pending = "", pendingIds = [], marked = false, n = 0;
    const flush = force => {
      const text = show(pending) ?? (force ? hex(pending) : null);
      if (text === null) return;
      const ids = pendingIds.filter(i => i !== null).join(" ");
      const span = el("span", {"class": "live-token" + (marked ? " live-pair" : ""),
                               style: `background:${PALETTE[n++ % PALETTE.length]}`},
                      el("span", {"class": "live-text"}, text));
      if (ids) { span.title = ids; span.append(el("span", {"class": "live-id"}, ids)); }
      row.append(span);
      pending = "";
      pendingIds = [];
      marked = false;
    };
    for (const [bytes, id, mark] of pieces) { pending += bytes; pendingIds.push(id); marked ||= !!mark; flush(false); }
    if (pending) flush(true);
    return row;
  }

  function widget(box) {
    const first = box.dataset.vocab in NAMES ? box.dataset.vocab : "cl100k_base";
    box.textContent = "";
    const select = el("select", {"class": "live-select", "aria-label": "vocabulary"});
    for (const [name, label] of Object.entries(NAMES)) select.append(el("option", {value: name}, label));
    select.value = first;
    const text = el("textarea", {"class": "live-text-input", rows: "3", "aria-label": "text to tokenize"});
    text.value = box.dataset.text || "Tokenizers don't read text: they read ids. 12345 \u{1F44B}";
    const status = el("p", {"class": "live-status"});
    const rows = el("div", {"class": "live-rows"});
    const word = el("input", {"class": "live-word-input", type: "text", "aria-label": "word to merge"});
    word.value = box.dataset.word || " lowest";
    const back = el("button", {type: "button"}, "\u25c0 back"), next = el("button", {type: "button"}, "step \u25b6");
    const all = el("button", {type: "button"}, "all");
    const steps = el("ol", {"class": "live-steps"});
    box.append(el("div", {"class": "live-controls"}, el("label", {}, "Vocabulary ", select)), text, status, rows,
               el("p", {"class": "live-merge-head"}, "Merges applied to one word (the first chunk of):"),
               el("div", {"class": "live-controls"}, word, back, next, all), steps);
    let shown = 1, plan = [];

    function drawSteps() {
      const v = vocabs[select.value];
      steps.textContent = "";
      plan.slice(0, shown).forEach((s, k) => {
        const text = p => JSON.stringify(show(p) ?? hex(p));
        const label = s.pair < 0 ? "done: no two adjacent parts join into a token" :
          `next: join ${text(s.parts[s.pair])} + ${text(s.parts[s.pair + 1])} (rank ${s.rank}, ` +
          `the lowest of the adjacent pairs)`;
        const joined = j => s.pair >= 0 && (j === s.pair || j === s.pair + 1);  // outlined
        const pieces = s.parts.map((p, j) => [p, v.ranks.get(p) ?? null, joined(j)]);
        steps.append(el("li", {}, tokenRow(k === 0 ? "bytes" : `after ${k}`, pieces),
                        el("span", {"class": "live-step-label"}, label)));
      });
      back.disabled = shown <= 1;
      next.disabled = all.disabled = shown >= plan.length;
    }

    function redraw() {
      const name = select.value;
      status.textContent = `loading ${NAMES[name]}\u2026`;
      load(name).then(v => {
        const ids = encode(name, text.value);
        const bytes = utf8(text.value.toWellFormed()).length;
        status.textContent = `${ids.length} tokens for ${bytes} bytes; ids: ${ids.join(", ")}`;
        rows.textContent = "";
        const special = i => utf8(Object.keys(v.specialIds).find(s => v.specialIds[s] === i));
        rows.append(tokenRow(NAMES[name], ids.map(i => [v.tokens[i] ?? special(i), i])));
        plan = mergeSteps(name, word.value);
        shown = Math.min(shown, plan.length) || 1;
        drawSteps();
      }, err => { status.textContent = String(err.message); });
    }

    select.addEventListener("change", () => { shown = 1; redraw(); });
    text.addEventListener("input", redraw);
    word.addEventListener("input", () => { shown = 1; redraw(); });
    next.addEventListener("click", () => { shown = Math.min(shown + 1, plan.length); drawSteps(); });
    back.addEventListener("click", () => { shown = Math.max(shown - 1, 1); drawSteps(); });
    all.addEventListener("click", () => { shown = plan.length; drawSteps(); });
    redraw();
  }

  window.bpeLesson = {vocabularies: () => Object.keys(NAMES), load, encode, mergeSteps, _register: register};
  const start = () => document.querySelectorAll("div.live-tokenizer").forEach(widget);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
