// The book's live tokenizer: byte-level BPE with tiktoken's rank rule, in the page.
//
// window.bpeLesson:
//   vocabularies()        the names of the vocabularies the book ships, e.g. ["ours_4096", ...]
//   load(name)            a Promise: inserts the vocabulary's script (_static/live/NAME.js),
//                         which calls bpeLesson._register(NAME, {...}) (src/bpe_lesson/teaching/live.py
//                         writes it); a <script src> works from file:// where fetch() does not
//   encode(name, text)    the ids of text (special tokens allowed), once load(name) has resolved
//   mergeSteps(name, word) the rank loop on the first chunk of word: [{parts, pair, rank, hidden}, ...]
//                         (its first steps only, when they would hold over 5,000 parts)
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
  // adjacent pair whose joined bytes have the lowest rank (the leftmost on a tie), until
  // no pair is a token. Returns where each final part starts, and where the bytes end.
  // onStep(rank, view), if given, is called before each join; view() is {starts, at}:
  // where each part starts then, and the index of the first part of the pair joined.
  //
  // Two loops with one rule, as the package's ranks.py has: the plain loop scans every
  // pair at each step, quadratic in the chunk's length, and is fastest on the short
  // chunks that are nearly all of any text; a chunk longer than LONG_CHUNK bytes takes
  // the heap, O(n log n). Measured in Chromium (benchmarks/live_tokenizer_speed.py): the
  // plain loop took 28 s on one chunk of 200,000 letters and over two minutes on
  // "ab" * 100,000; the heap 0.4-0.9 s on either (0.3-0.5 s in Node, the same V8), on a
  // 2-core machine shared five times over, where tiktoken took 0.2-0.7 s.
  const LONG_CHUNK = 128;  // bytes (the package's ranks.LONG_PIECE)

  function bytePairMerge(ranks, bytes, onStep) {
    return bytes.length > LONG_CHUNK ? mergeLong(ranks, bytes, onStep) : mergeShort(ranks, bytes, onStep);
  }

  // the plain loop. starts: where each part begins; rank[k]: the rank of parts k and k+1 joined.
  function mergeShort(ranks, bytes, onStep) {
    const starts = [];
    for (let k = 0; k <= bytes.length; k++) starts.push(k);
    const pairRank = k => k + 2 < starts.length
      ? (ranks.get(bytes.slice(starts[k], starts[k + 2])) ?? Infinity) : Infinity;
    const rank = starts.map((_, k) => pairRank(k));
    for (;;) {
      let best = Infinity, at = -1;
      for (let k = 0; k < rank.length - 2; k++) if (rank[k] < best) { best = rank[k]; at = k; }  // the first lowest
      if (at < 0) break;
      if (onStep) onStep(best, () => ({starts: starts.slice(), at}));
      starts.splice(at + 1, 1);  // parts at and at+1 become one
      rank.splice(at + 1, 1);
      rank[at] = pairRank(at);
      if (at > 0) rank[at - 1] = pairRank(at - 1);
    }
    return starts;
  }

  // the heap: the parts are a linked list of start offsets (part s is bytes s..end[s],
  // the part before it starts at prev[s]), and each joinable pair waits in a binary heap
  // as (rank, s, t, u) (parts s..t and t..u), lowest rank first, then leftmost. A join
  // pushes the two new pairs beside the joined part; the entries it made stale (one of
  // their parts is gone: end[s] != t or end[t] != u) are skipped when they come up.
  // bytes="abcd", ranks ab:256 bc:257 abc:258 -> heap (256,0,1,2), (257,1,2,3);
  // join (256,0,1,2): end[0] = 2, push (258,0,2,3); (257,1,2,3) is now stale.
  // subtle: the entries live in typed arrays and the heap holds their numbers; a heap of
  // [rank, s, t, u] arrays was 3-5 times slower (1.4 s on 200,000 letters in Chromium).
  function mergeLong(ranks, bytes, onStep) {
    const n = bytes.length;
    const end = new Int32Array(n + 1), prev = new Int32Array(n + 1);  // start -> end, start -> start before
    for (let s = 0; s <= n; s++) { end[s] = s + 1; prev[s] = s - 1; }
    // the pairs: entry e is parts S[e]..T[e] and T[e]..U[e], of rank R[e]; at most n - 1
    // at the start and two a join, so 3n entries; the heap holds entry numbers
    const size = 3 * n + 1;
    const R = new Float64Array(size), S = new Int32Array(size), T = new Int32Array(size), U = new Int32Array(size);
    const heap = new Int32Array(size);
    let entries = 0, len = 0;
    const before = (a, b) => R[a] < R[b] || (R[a] === R[b] && S[a] < S[b]);  // lowest rank, then leftmost
    const down = k => {  // sift heap[k] down to its place
      const e = heap[k];
      for (;;) {
        const l = 2 * k + 1, r = l + 1;
        let m = e, at = k;
        if (l < len && before(heap[l], m)) { m = heap[l]; at = l; }
        if (r < len && before(heap[r], m)) { m = heap[r]; at = r; }
        if (at === k) break;
        heap[k] = m;
        k = at;
      }
      heap[k] = e;
    };
    const add = (s, t, u, sift) => {  // the pair s..t..u into the heap, if its bytes are a token
      const rank = ranks.get(bytes.slice(s, u));
      if (rank === undefined) return;
      const e = entries++;
      R[e] = rank; S[e] = s; T[e] = t; U[e] = u;
      let k = len++;
      if (sift) while (k > 0 && before(e, heap[(k - 1) >> 1])) { heap[k] = heap[(k - 1) >> 1]; k = (k - 1) >> 1; }
      heap[k] = e;
    };
    for (let s = 0; s + 1 < n; s++) add(s, s + 1, s + 2, false);
    for (let k = (len >> 1) - 1; k >= 0; k--) down(k);  // heapify once
    const view = s => () => {  // the parts now, and which of them starts at s: O(n), for onStep only
      const starts = [];
      for (let p = 0; p < n; p = end[p]) starts.push(p);
      const at = starts.indexOf(s);
      starts.push(n);
      return {starts, at};
    };
    while (len) {
      const e = heap[0];
      heap[0] = heap[--len];
      if (len) down(0);
      const s = S[e], t = T[e], u = U[e];
      if (end[s] !== t || end[t] !== u) continue;  // stale: a part of it was joined since
      if (onStep) onStep(R[e], view(s));
      end[s] = u;
      end[t] = -1;  // subtle: no part starts at t any more, so every entry naming t is stale
      if (u < n) { prev[u] = s; add(s, u, end[u], true); }
      if (s > 0) add(prev[s], s, u, true);
    }
    const starts = [];
    for (let p = 0; p < n; p = end[p]) starts.push(p);
    starts.push(n);
    return starts;
  }

  // the ids of the parts that start at `starts` (the last entry: where the bytes end)
  function partIds(ranks, bytes, starts) {
    const ids = [];
    for (let k = 0; k + 1 < starts.length; k++) ids.push(ranks.get(bytes.slice(starts[k], starts[k + 1])));
    return ids;
  }

  function encodeChunk(v, chunk) {
    let ids = v.cache.get(chunk);
    if (ids) return ids;
    const bytes = utf8(chunk);
    const whole = v.ranks.get(bytes);
    ids = whole !== undefined ? [whole] : partIds(v.ranks, bytes, bytePairMerge(v.ranks, bytes));
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
  // [{parts: [latin1 bytes, ...], pair: k or -1 (the last step), rank, hidden}]
  // Only the first steps are kept, while all the parts they hold number STEP_PARTS or
  // fewer (every step of a word up to ~100 bytes); the last entry is always the end, and
  // its `hidden` says how many joins before it were not kept (0 when all were).
  // word=" lowest" with ours: [" ", "l", "o", ...] ... -> the end [" low", "est"], hidden 0;
  // 8,000 letters: their first step (8,000 parts), then the end, hidden ~3,600.
  const STEP_PARTS = 5000;

  function mergeSteps(name, word) {
    const v = loaded(name);
    const m = String(word).toWellFormed().match(new RegExp(v.regex.source, "v"));
    if (!m) return [];
    const bytes = utf8(m[0]), steps = [];
    const parts = starts => starts.slice(0, -1).map((s, k) => bytes.slice(s, starts[k + 1]));
    let kept = 0, hidden = 0;  // parts held by the steps kept; joins not kept
    const starts = bytePairMerge(v.ranks, bytes, (rank, view) => {
      // subtle: a step is kept only while every one before it was (view() costs O(n))
      if (hidden === 0 && kept + bytes.length - steps.length <= STEP_PARTS) {  // its parts: n - (steps so far)
        const {starts, at} = view();
        kept += starts.length - 1;
        steps.push({parts: parts(starts), pair: at, rank, hidden: 0});
      } else {
        hidden++;
      }
    });
    steps.push({parts: parts(starts), pair: -1, rank: null, hidden});
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
  // span per token, its id beneath; a token ending inside a character joins the next.
  // pieces: [[latin1 bytes, id or null, marked], ...], the first of `total` (a prefix is
  // enough: the row draws DRAWN spans at most, then says how many of `total` it left out,
  // "… and 280,618 more tokens"; a page of 440,000 spans took 40 s to draw, and 2,000
  // spans with 2,000 ids in the status line still took 0.07-0.25 s to lay out after a
  // 1 MB paste; 500 fill a phone's screen several times over)
  const DRAWN = 500;

  function tokenRow(label, pieces, total = pieces.length, noun = "tokens") {
    const row = el("div", {"class": "token-row live-row"}, el("span", {"class": "token-row-label"}, label));
    let pending = "", pendingIds = [], marked = false, n = 0, used = 0;
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
    for (const [bytes, id, mark] of pieces) {
      if (n >= DRAWN && !pending) break;
      pending += bytes; pendingIds.push(id); marked ||= !!mark; used++;
      flush(false);
    }
    if (pending) flush(true);
    if (used < total) {
      row.append(el("span", {"class": "live-more"}, `\u2026 and ${(total - used).toLocaleString("en-US")} more ${noun}`));
    }
    return row;
  }

  // run f once, `ms` after the last of a burst of calls (typing); .now() runs it at once,
  // dropping a call still waiting
  function debounce(f, ms) {
    let timer = null;
    const later = () => { clearTimeout(timer); timer = setTimeout(f, ms); };
    later.now = () => { clearTimeout(timer); f(); };
    return later;
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
        const label = s.pair < 0 ? (s.hidden ? `done, ${s.hidden.toLocaleString("en-US")} joins later ` +
                                    `(the steps between are not kept): ` : "done: ") +
                                   "no two adjacent parts join into a token" :
          `next: join ${text(s.parts[s.pair])} + ${text(s.parts[s.pair + 1])} (rank ${s.rank}, ` +
          `the lowest of the adjacent pairs)`;
        const joined = j => s.pair >= 0 && (j === s.pair || j === s.pair + 1);  // outlined
        const pieces = s.parts.slice(0, DRAWN + 8).map((p, j) => [p, v.ranks.get(p) ?? null, joined(j)]);
        const joins = k + s.hidden;  // joins made before this step (the end may count some not kept)
        steps.append(el("li", {}, tokenRow(joins === 0 ? "bytes" : `after ${joins.toLocaleString("en-US")}`,
                                           pieces, s.parts.length, "parts"),
                        el("span", {"class": "live-step-label"}, label)));
      });
      back.disabled = shown <= 1;
      next.disabled = all.disabled = shown >= plan.length;
    }

    function redraw() {
      const name = select.value;
      status.textContent = `loading ${NAMES[name]}\u2026`;
      load(name).then(v => {
        const value = text.value;  // subtle: read once; each read of a 1 MB box copies it
        const ids = encode(name, value);
        const bytes = new TextEncoder().encode(value).length;  // subtle: a lone surrogate counts as U+FFFD
        // the count exact, the ids as many as the row draws (280,000 of them took a second to lay out)
        const more = ids.length > DRAWN ? `, \u2026 and ${(ids.length - DRAWN).toLocaleString("en-US")} more` : "";
        status.textContent = `${ids.length.toLocaleString("en-US")} tokens for ` +
                             `${bytes.toLocaleString("en-US")} bytes; ids: ${ids.slice(0, DRAWN).join(", ")}${more}`;
        rows.textContent = "";
        const special = i => utf8(Object.keys(v.specialIds).find(s => v.specialIds[s] === i));
        const pieces = ids.slice(0, DRAWN + 8).map(i => [v.tokens[i] ?? special(i), i]);
        rows.append(tokenRow(NAMES[name], pieces, ids.length));
        plan = mergeSteps(name, word.value);
        shown = Math.min(shown, plan.length) || 1;
        drawSteps();
      }, err => { status.textContent = String(err.message); });
    }

    // subtle: typing waits for a pause, so a burst of keys is encoded once; a paste or a
    // drop is one change, drawn at once, so the new row is laid out in the frame that
    // shows the pasted text. 1.08 MB pasted with Ctrl+V (benchmarks/live_tokenizer_speed.py):
    // 2.16 s to the frame that shows it with the wait and 2,000 tokens, 0.85 s without
    // the wait and with 500, of which 0.53 s is the browser putting the text in the box
    const later = debounce(redraw, 150);
    const whole = new Set(["insertFromPaste", "insertFromDrop"]);
    select.addEventListener("change", () => { shown = 1; redraw(); });
    text.addEventListener("input", e => whole.has(e.inputType) ? later.now() : later());
    word.addEventListener("input", () => { shown = 1; later(); });
    next.addEventListener("click", () => { shown = Math.min(shown + 1, plan.length); drawSteps(); });
    back.addEventListener("click", () => { shown = Math.max(shown - 1, 1); drawSteps(); });
    all.addEventListener("click", () => { shown = plan.length; drawSteps(); });
    redraw();
  }

  window.bpeLesson = {vocabularies: () => Object.keys(NAMES), load, encode, mergeSteps, _register: register};
  const start = () => document.querySelectorAll("div.live-tokenizer").forEach(widget);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
