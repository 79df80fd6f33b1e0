// The front end of StepPane (step_pane.py): the steps of an explorer's view, kept in the page.
//
// The kernel renders every step (the HTML comes from bpe_viz.view, escaped there); this file
// only keeps the steps it was sent and swaps the one the slider asks for into the page. A step
// the page already has costs no round trip to the kernel; one it lacks is asked for at once
// (a custom message is not held back while the kernel is busy, as a widget's state is).
//
// Model: step (jslinked to the explorer's slider in the page), generation (what the steps were
// rendered for: a new trace, size, chart or sentence is a new generation), html / html_step /
// html_generation (the step the kernel shows now: also what a saved notebook displays).
// Messages from the kernel: {kind: "steps", generation, steps: [[k, html], ...]}, or
// {kind: "packed", generation, packed: [k, ...]} with one zlib-compressed HTML per step in the
// message's buffers (the steps under the slider's track, below).
// Messages to the kernel: {kind: "want", generation, step}: a step the slider is on and the page
// lacks (a jump), or {kind: "want", generation, step, hover: true}: the step under a pointer
// resting on the slider's track (so that a click there finds it in the page, as a browser
// prefetches the link under the pointer). The kernel answers the slider's first.
//
// One step asked for at a time (issue 20): the kernel renders what it is asked in order, so a
// drag that asked for every step it passed made the last one wait behind all the others. While
// a step the slider was on is out (asked for, not come), the steps the slider passes are not
// asked for; when it comes (or, if it is lost, later), the step the slider is on then is, if
// the page lacks it. A step that comes after the slider left it is kept, never shown over the
// slider's.
// A pointer dragging the handle asks for nothing while it moves: for the step under it once it
// rests (DRAG_REST_MS), for the step it ends on as soon as the button is let go.
//
// The track (issue 20): a click on the slider's track lands on one of a few hundred steps, one
// per pixel (noUiSlider reads the pointer's whole-pixel position). The page tells the kernel
// which ({kind: "track", generation, steps}), and the kernel sends them when the learner is idle,
// compressed ("packed": ~5 kB a step, a 344-pixel track ~2 MB). They are kept apart, unpacked
// (inflate, below) when the slider gets there: a jump or a drag then costs no round trip.

const LIMIT = 400; // steps kept per pane (a step is 10-60 kB of HTML)
const PANES = new Map(); // pane_id -> {steps: Map("generation:step" -> html), views: Set(show), ...}
// what the panes of this page did, for the browser tests (and a curious learner's console)
const STATS = (globalThis.__bpeStepPane = globalThis.__bpeStepPane || {
  shown: 0, asked: 0, hovered: 0, received: 0, passed: 0, log: [],
});
STATS.passed = STATS.passed || 0; // (a page that loaded an older version of this file first)
const note = (what, step) => {
  STATS.log.push([what, step, Math.round(performance.now())]);
  if (STATS.log.length > 200) STATS.log.shift();
};

function paneOf(model) {
  const id = model.get("pane_id");
  let pane = PANES.get(id);
  if (!pane) {
    // out: {k, t} the step the slider asked the kernel for and has not got yet (at most one);
    // rtt: how long the last one took to come (ms)
    // packed: "generation:step" -> the step's compressed HTML (a DataView); track: what the last
    // track sent was measured on
    pane = { steps: new Map(), views: new Set(), hovered: new Set(), out: null, rtt: 0,
             packed: new Map(), track: "" };
    PANES.set(id, pane);
  }
  return pane;
}

const key = (generation, step) => `${generation}:${step}`;
const HOVER_MS = 40; // a pointer resting this long over the track asks for the step under it
const DRAG_REST_MS = 120; // a dragging pointer resting this long asks for the step it is on
const TRACK_MS = 1000; // how often the page looks whether its track's steps changed
const RETRY_MS = 300; // a step asked for and not come after this long is asked for again...
// ... or after twice the last one's round trip, if longer (a kernel slowed down by other work
// would otherwise be asked twice for every step)
const patience = (pane) => Math.max(RETRY_MS, 2 * pane.rtt);

function keep(pane, k, html) {
  pane.steps.delete(k);
  pane.steps.set(k, html);
  if (pane.steps.size > LIMIT) pane.steps.delete(pane.steps.keys().next().value); // the oldest
}

// The HTML of a step sent packed, unpacked (and kept in pane.steps, so that it is unpacked once);
// undefined if it does not unpack (then it is asked of the kernel as if never sent).
function unpack(pane, k) {
  try {
    const html = UTF8.decode(inflate(pane.packed.get(k)));
    keep(pane, k, html);
    STATS.unpacked = (STATS.unpacked || 0) + 1;
    note("unpacked", Number(k.slice(k.indexOf(":") + 1)));
    return html;
  } catch (err) {
    pane.packed.delete(k);
    console.warn("bpe-viz: a step sent ahead did not unpack; asking the kernel for it", err);
    return undefined;
  }
}

const UTF8 = new TextDecoder();

// -- inflate: a zlib stream (RFC 1950: Python's zlib.compress) to its bytes, at once ---------------
// Why here (issue 20): DecompressionStream hands its bytes back a few tasks later, and a jump's
// step then waited behind the frame the click started (10-30 ms); this takes ~0.3 ms for a 57 kB
// step once the browser has compiled it (3-5 ms the first time), inside the click's own task.
// After Mark Adler's "puff" (zlib's contrib/puff), with a table for the codes of up to FAST bits
// (the longer ones are decoded a bit at a time).
const LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
  163, 195, 227, 258];
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
  2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const CODE_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]; // code length codes

const FAST = 9; // codes this long or shorter are read from a table, in one step

// a canonical Huffman code from its symbols' code lengths: how many codes of each length, the
// symbols in code order, and the table of the short codes (indexed by the next FAST bits as they
// come: a code's bits come first bit first, so reversed; symbol << 4 | length, 0: not there)
function huffman(lengths) {
  const count = new Uint16Array(16);
  const offset = new Uint16Array(16);
  const symbol = new Uint16Array(lengths.length);
  const fast = new Uint16Array(1 << FAST);
  for (const n of lengths) count[n] += 1;
  count[0] = 0;
  for (let n = 1; n < 16; n++) offset[n] = offset[n - 1] + count[n - 1];
  for (let s = 0; s < lengths.length; s++) if (lengths[s]) symbol[offset[lengths[s]]++] = s;
  let code = 0;
  let i = 0;
  for (let len = 1; len <= FAST; len++, code <<= 1) {
    for (let j = 0; j < count[len]; j++, code++, i++) {
      let rev = 0;
      for (let b = 0; b < len; b++) rev |= ((code >> b) & 1) << (len - 1 - b);
      for (let at = rev; at < 1 << FAST; at += 1 << len) fast[at] = (symbol[i] << 4) | len;
    }
  }
  return { count, symbol, fast };
}

const FIXED_LIT = huffman(Array.from({ length: 288 }, (_, s) => (s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8)));
const FIXED_DIST = huffman(new Array(30).fill(5));

export function inflate(data) {
  const src = data instanceof Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (src.length < 6 || (src[0] & 0x0f) !== 8 || ((src[0] << 8) | src[1]) % 31 !== 0 || src[1] & 0x20) {
    throw new Error("not a zlib stream");
  }
  let pos = 2; // the next byte of src
  let buf = 0; // bits read from src and not used yet (fewer than 8 between reads), and how many
  let cnt = 0;
  let out = new Uint8Array(Math.max(1024, src.length * 12));
  let n = 0; // bytes in out
  const room = (k) => {
    if (n + k <= out.length) return;
    const bigger = new Uint8Array(Math.max(2 * out.length, n + k));
    bigger.set(out.subarray(0, n));
    out = bigger;
  };
  const bits = (k) => { // the next k bits (k <= 13), first bit lowest
    while (cnt < k) {
      if (pos >= src.length) throw new Error("zlib stream cut short");
      buf |= src[pos++] << cnt;
      cnt += 8;
    }
    const v = buf & ((1 << k) - 1);
    buf >>>= k;
    cnt -= k;
    return v;
  };
  const decode = (h) => { // one symbol of code h
    while (cnt < FAST && pos < src.length) {
      buf |= src[pos++] << cnt;
      cnt += 8;
    }
    const e = h.fast[buf & ((1 << FAST) - 1)];
    if (e !== 0 && (e & 15) <= cnt) {
      buf >>>= e & 15;
      cnt -= e & 15;
      return e >> 4;
    }
    let code = 0; // a longer code, a bit at a time: the bits so far, and the first code and
    // symbol index of this length
    let first = 0;
    let index = 0;
    for (let len = 1; len < 16; len++) {
      code |= bits(1);
      const c = h.count[len];
      if (code - c < first) return h.symbol[index + (code - first)];
      index += c;
      first = (first + c) << 1;
      code <<= 1;
    }
    throw new Error("zlib stream: no such code");
  };
  for (let last = 0; !last;) {
    last = bits(1);
    const type = bits(2);
    if (type === 0) { // stored: from the next byte on, its length, the length's complement, the bytes
      buf = cnt = 0;
      if (pos + 4 > src.length) throw new Error("zlib stream cut short");
      const len = src[pos] | (src[pos + 1] << 8);
      pos += 4;
      if (pos + len > src.length) throw new Error("zlib stream cut short");
      room(len);
      out.set(src.subarray(pos, pos + len), n);
      n += len;
      pos += len;
      continue;
    }
    if (type === 3) throw new Error("zlib stream: no such block type");
    let lit = FIXED_LIT;
    let dist = FIXED_DIST;
    if (type === 2) { // the block's own codes, themselves Huffman-coded
      const nlit = bits(5) + 257;
      const ndist = bits(5) + 1;
      const ncode = bits(4) + 4;
      const codeLengths = new Uint8Array(19);
      for (let i = 0; i < ncode; i++) codeLengths[CODE_ORDER[i]] = bits(3);
      const lencode = huffman(codeLengths);
      const lengths = new Uint8Array(nlit + ndist);
      for (let i = 0; i < lengths.length;) {
        const sym = decode(lencode);
        if (sym < 16) {
          lengths[i++] = sym;
          continue;
        }
        if (sym === 16 && i === 0) throw new Error("zlib stream: a repeat with nothing before");
        const value = sym === 16 ? lengths[i - 1] : 0;
        const times = sym === 16 ? 3 + bits(2) : sym === 17 ? 3 + bits(3) : 11 + bits(7);
        if (i + times > lengths.length) throw new Error("zlib stream: too many lengths");
        lengths.fill(value, i, i + times);
        i += times;
      }
      lit = huffman(lengths.subarray(0, nlit));
      dist = huffman(lengths.subarray(nlit));
    }
    for (;;) {
      const sym = decode(lit);
      if (sym < 256) {
        room(1);
        out[n++] = sym;
      } else if (sym === 256) {
        break;
      } else { // a copy of len bytes from back bytes before
        if (sym > 285) throw new Error("zlib stream: no such length");
        const len = LEN_BASE[sym - 257] + bits(LEN_EXTRA[sym - 257]);
        const d = decode(dist);
        if (d > 29) throw new Error("zlib stream: no such distance");
        const back = DIST_BASE[d] + bits(DIST_EXTRA[d]);
        if (back > n) throw new Error("zlib stream: a distance too far back");
        room(len);
        for (let i = 0; i < len; i++, n++) out[n] = out[n - back];
      }
    }
  }
  return out.subarray(0, n);
}

// The steps a click on this explorer's step slider can reach: the one under each whole pixel of
// its track (noUiSlider reads the pointer's whole-pixel position; on a screen of 2 device pixels
// per CSS pixel, each half pixel), in the order the kernel is to send them. null: no track shown.
function trackSteps(el) {
  const explorer = el.closest(".bpe-explorer");
  const base = explorer && [...explorer.querySelectorAll(".bpe-step-slider .noUi-base")]
    .find((b) => b.closest(".bpe-explorer") === explorer);
  const handle = base && base.querySelector(".noUi-handle");
  if (!handle) return null;
  const lo = Number(handle.getAttribute("aria-valuemin"));
  const hi = Number(handle.getAttribute("aria-valuemax"));
  const box = base.getBoundingClientRect();
  if (!(hi >= lo) || box.width <= 0) return null;
  const per = Math.max(1, Math.round(globalThis.devicePixelRatio || 1)); // positions per CSS pixel
  const steps = new Set();
  for (let x = Math.floor(box.left * per) / per; x <= box.right + 1; x += 1 / per) {
    steps.add(Math.round(lo + Math.min(Math.max((x - box.left) / box.width, 0), 1) * (hi - lo)));
  }
  return { steps: [...steps], sig: `${lo}:${hi}:${box.width}:${box.left % 1}:${per}` };
}

function keepCurrent(model, pane) {
  if (model.get("html_step") >= 0) {
    keep(pane, key(model.get("html_generation"), model.get("html_step")), model.get("html"));
  }
}

// The slider is on a step the page lacks: ask the kernel for it, unless a step is out already
// (its answer, or its patience running out, asks for whatever step the slider is on by then).
//
// ``atOnce``: the drag has ended (its button let go), so the slider's step is the one wanted: it is
// asked for at once, even while another is out. The kernel renders it next, instead of a round
// trip later, once the answer of the step the drag passed has come back to the page.
function ask(model, pane, atOnce = false) {
  const g = model.get("generation");
  const step = model.get("step");
  const k = key(g, step);
  const now = performance.now();
  // (one asked for in an older generation is not waited for: the kernel does not answer it)
  const out = pane.out !== null && pane.out.k.startsWith(`${g}:`) ? pane.out : null;
  if (out !== null && out.k === k && atOnce) return; // (on its way already)
  if (out !== null && now - out.t <= patience(pane) && !atOnce) {
    if (out.k !== k) {
      STATS.passed += 1; // (the slider passes it; asked for only if it is still there later)
      note("passed", step);
    }
    return;
  }
  pane.out = { k, t: now };
  if (pane.hovered.has(k) && (out === null || atOnce)) return; // on its way (a pointer rested over it)
  STATS.asked += 1;
  note("asked", step);
  model.send({ kind: "want", generation: g, step: step });
}

// The steps under a pointer over a step slider's track (ipywidgets 8 draws its slider with
// noUiSlider: the value is linear in the position along .noUi-base, rounded to a whole step).
// subtle: Chrome gives a pointermove fractional coordinates and may give the click that follows
// whole ones (0.6 px is 5 steps of 3,000 on a 344 px track): both steps are asked for.
function stepsUnder(event) {
  const base = event.target.closest && event.target.closest(".noUi-base");
  const handle = base && base.querySelector(".noUi-handle");
  if (!handle) return [];
  const lo = Number(handle.getAttribute("aria-valuemin"));
  const hi = Number(handle.getAttribute("aria-valuemax"));
  const box = base.getBoundingClientRect();
  if (!(hi > lo) || box.width <= 0) return [];
  const at = (x) => Math.round(lo + Math.min(Math.max((x - box.left) / box.width, 0), 1) * (hi - lo));
  return [...new Set([at(event.clientX), at(Math.floor(event.clientX))])];
}

export default {
  initialize({ model }) {
    const pane = paneOf(model);
    keepCurrent(model, pane);
    const onHtml = () => keepCurrent(model, pane);
    const onMsg = (msg, buffers) => {
      if (msg && msg.kind === "packed" && msg.generation === model.get("generation")) {
        msg.packed.forEach((k, i) => buffers && buffers[i] && pane.packed.set(key(msg.generation, k), buffers[i]));
        STATS.packed = (STATS.packed || 0) + msg.packed.length;
        for (const show of pane.views) show(); // (the slider may be waiting for one of them)
        return;
      }
      if (!msg || msg.kind !== "steps") return;
      for (const [k, html] of msg.steps) {
        keep(pane, key(msg.generation, k), html);
        pane.hovered.delete(key(msg.generation, k));
        if (pane.out !== null && pane.out.k === key(msg.generation, k)) {
          pane.rtt = performance.now() - pane.out.t;
          pane.out = null;
        }
        STATS.received += 1;
        note("received", k);
      }
      for (const show of pane.views) show(); // (the slider's step now: shown, or asked for)
    };
    // a new generation: the packed steps of the old one go (the steps kept go as LIMIT says)
    const onGeneration = () => {
      const g = `${model.get("generation")}:`;
      for (const k of [...pane.packed.keys()]) if (!k.startsWith(g)) pane.packed.delete(k);
      pane.track = "";
    };
    model.on("change:html", onHtml);
    model.on("msg:custom", onMsg);
    model.on("change:generation", onGeneration);
    return () => {
      model.off("change:html", onHtml);
      model.off("msg:custom", onMsg);
      model.off("change:generation", onGeneration);
      PANES.delete(model.get("pane_id"));
    };
  },

  render({ model, el }) {
    const pane = paneOf(model);
    el.classList.add("bpe-step-pane");
    let shown = null; // the key of the step in el
    let retry = null;
    // this explorer's slider under a button held down (drag.down), and when the pointer last
    // moved with it (drag.moved)
    const drag = { down: false, moved: -Infinity };
    const show = () => {
      const step = model.get("step");
      const k = key(model.get("generation"), step);
      let html = pane.steps.get(k);
      if (html === undefined && pane.packed.has(k)) html = unpack(pane, k); // (sent ahead packed)
      if (html === undefined) {
        el.setAttribute("aria-busy", "true"); // the step before stays until this one comes
        // a pointer dragging the handle asks for the step it is on only once it rests (or lets
        // go): a step asked for on the way kept the kernel busy when the drag ended, and the
        // step it ended on waited behind it (issue 20: 250-350 ms at the end of one drag in ten)
        const moving = performance.now() - drag.moved;
        if (drag.down && moving < DRAG_REST_MS) {
          clearTimeout(retry);
          retry = setTimeout(show, DRAG_REST_MS - moving + 5);
          return;
        }
        ask(model, pane);
        // a busy kernel answers only the latest requests of a burst: ask again if need be
        clearTimeout(retry);
        retry = setTimeout(show, patience(pane) + 10);
        return;
      }
      clearTimeout(retry);
      el.removeAttribute("aria-busy");
      if (shown !== k) {
        STATS.shown += 1;
        note("shown", step);
        if (shownGeneration !== model.get("generation")) {
          el.style.minHeight = ""; // (a new size, chart or sentence: the steps' heights start again)
          shownGeneration = model.get("generation");
        }
        el.innerHTML = html;
        el.setAttribute("data-bpe-step", String(step));
        shown = k;
      }
    };
    // The pane never shrinks while its steps are the same kind (issue 20): a step shorter than
    // the one before kept the page below it moving up and down as the slider moved, and made
    // JupyterLab lay out the whole notebook again on every step (its cells watch their heights).
    let shownGeneration = null;
    const grow = new ResizeObserver(() => {
      const h = el.getBoundingClientRect().height;
      if (h > (parseFloat(el.style.minHeight) || 0)) el.style.minHeight = `${h}px`;
    });
    grow.observe(el);
    // subtle: the model's own change:html listener (initialize) runs first, so the step it
    // brings is kept before show looks for it
    const onChange = () => show();
    model.on("change:step", onChange);
    model.on("change:generation", onChange);
    model.on("change:html", onChange);
    pane.views.add(show);
    show();

    // the steps under the track, sent to the kernel when they change (a new slider, size or
    // generation; the page laid out anew): looked at now and then, as the slider may be drawn
    // after this pane, and on every resize of the page
    const sendTrack = () => {
      if (!el.isConnected || document.hidden) return;
      const got = trackSteps(el);
      if (got === null) return;
      const sig = `${model.get("generation")}:${got.sig}`;
      if (sig === pane.track) return;
      pane.track = sig;
      // the steps near the slider's first, as the kernel sends them (it orders them again)
      STATS.tracks = (STATS.tracks || 0) + 1;
      model.send({ kind: "track", generation: model.get("generation"), steps: got.steps });
    };
    const trackTimer = setInterval(sendTrack, TRACK_MS);
    const onResize = () => setTimeout(sendTrack, 50);
    globalThis.addEventListener("resize", onResize);

    // a pointer resting over this explorer's step slider (no button down) asks for the step under it
    let timer = null;
    const onPointer = (event) => {
      if (drag.down && event.buttons) drag.moved = performance.now();
      const explorer = el.closest(".bpe-explorer");
      const slider = event.target.closest && event.target.closest(".widget-slider");
      if (!explorer || !slider || slider.closest(".bpe-explorer") !== explorer) return;
      clearTimeout(timer);
      // subtle: not while a button is down (a drag: the slider asks for its own steps; the steps
      // under a pointer that paused mid-drag kept a busy kernel from the final one, seconds long)
      if (event.buttons) return;
      timer = setTimeout(() => {
        const out = pane.out;
        if (out !== null && performance.now() - out.t <= patience(pane)) return; // (the slider's first)
        const g = model.get("generation");
        for (const step of stepsUnder(event)) {
          const k = key(g, step);
          if (pane.steps.has(k) || pane.hovered.has(k) || (pane.out !== null && pane.out.k === k)) continue;
          if (pane.hovered.size > 100) pane.hovered.clear(); // (answers lost: the slider's own path remains)
          pane.hovered.add(k);
          STATS.hovered += 1;
          note("hovered", step);
          model.send({ kind: "want", generation: g, step: step, hover: true });
        }
      }, HOVER_MS);
    };
    document.addEventListener("pointermove", onPointer, true);
    // a drag of this explorer's step slider: when its button is let go, the step it ended on is
    // asked for at once if the page lacks it (issue 20: the last step of a drag waited a round trip)
    const onDown = (event) => {
      const explorer = el.closest(".bpe-explorer");
      const slider = event.target.closest && event.target.closest(".widget-slider");
      drag.down = Boolean(explorer && slider && slider.closest(".bpe-explorer") === explorer);
      drag.moved = -Infinity; // (a click on the track is a jump: asked for at once)
    };
    const onUp = () => {
      if (!drag.down) return;
      drag.down = false;
      const k = key(model.get("generation"), model.get("step"));
      if (!pane.steps.has(k) && !pane.packed.has(k)) ask(model, pane, true);
    };
    document.addEventListener("pointerdown", onDown, true);
    document.addEventListener("pointerup", onUp, true);
    return () => {
      clearInterval(trackTimer);
      globalThis.removeEventListener("resize", onResize);
      document.removeEventListener("pointerdown", onDown, true);
      document.removeEventListener("pointerup", onUp, true);
      clearTimeout(timer);
      clearTimeout(retry);
      document.removeEventListener("pointermove", onPointer, true);
      grow.disconnect();
      pane.views.delete(show);
      model.off("change:step", onChange);
      model.off("change:generation", onChange);
      model.off("change:html", onChange);
    };
  },
};
