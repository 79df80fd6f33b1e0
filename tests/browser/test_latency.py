"""How long a learner waits for a step, in JupyterLab in a real browser (issue 11).

On the 10,000-merge trace of Python's documentation (the benchmark's trace: ``train_bpe(text,
10000, preset="subword-nmt")``; the CompareExplorer gets ``preset="hf-course"`` and WordPiece's
10,000 merges), every way of moving the step slider is timed from the input to the moment the
page has *painted* the new step: the header, every merge title, every table title and the chart
all say step k, then one animation frame and a task later (so the browser's style, layout and
paint are in the figure, not only the kernel's reply). A probe in the page (a MutationObserver
and capture listeners, ``performance.now()`` throughout) takes the times; Python only drives.

Ways of moving (each at the default size in a 1366×1000 window and at "projector" size in a
1024×768 window):

* arrows: ArrowRight / ArrowLeft on the focused handle, in runs of four (consecutive steps),
  from the keydown;
* click: a click on the track (a jump to a random step), from the pointerdown, after the
  pointer rested there for 250 ms, as a person's does before a click (the explorer's step pane
  asks the kernel for the step under a resting pointer: bpe_viz/widgets/step_pane.js);
* jump: the same click with no rest before it (the pointer teleports: nothing asks for the step
  under it first). Timed once the explorer has sent the steps under every pixel of its track
  (step_pane.js, issue 20: sent while the learner is idle, a few seconds after the explorer shows
  at a size; ``wait_for_the_track`` waits for them and the figures record how long); a jump
  before that costs a round trip to the kernel and its render of that step;
* drag: ten drags of the handle, each ten small moves 16 ms apart (a 60 Hz mouse), from the
  last move (when the readout shows the final value) until that step is painted: what a learner
  waits for after stopping. The lag of every value while dragging (until the page paints it or
  a step further along; ipywidgets sends only the latest value while the kernel is busy) is
  recorded too, not judged: it is at least two round trips whatever the explorer does;
* play: each tick of Play at the "fast" speed (400 ms; a tick costs the same at any interval
  longer than a step), from the readout's change.

The floor: a bare ipywidgets slider in the same notebook, whose kernel callback writes
"Step k of 10000" and nothing else, measured the same ways (first on its own, for the record,
then again just before each explorer's figure, with half the samples). It is what JupyterLab,
the kernel's round trip and the browser's paint cost on this machine at that moment.

The target: a median of at most 100 ms for every way of moving. The noise margin: this machine
has two cores shared with other test runs, and when it is busy everything is slower, the bare
slider too. So the allowance of a way of moving is the target plus however much slower than
quiet the floor is right now (``FLOOR_QUIET``: the floor measured when nothing else ran);
on a quiet machine that is the target itself. A way over its allowance is measured once more
(the better run counts, both are recorded): a burst of other work rarely hits both runs, a
real slowdown fails both. Where the target is not met yet (``NOT_YET``, with the reason) the
test is an expected failure that prints its figures, and turns XPASS once it is met.

The figures go to ``test-artifacts/browser/latency.json``, pass or fail (never into the source
tree); ``benchmarks/browser_latency.py`` turns them into ``docs/browser-latency.md``.
"""

from __future__ import annotations

import json
import os
import platform
import random
import statistics
import time

import pytest

import browser_support as bs
from bpe_viz.widgets.controls import SIZE_CHOICES

# Opt-in (BPE_VIZ_LATENCY=1; `make bench-browser` sets it): it takes about ten minutes, and on a
# shared 2-core CI machine it times the machine's load as much as the explorers. A miss of the
# target then skips with its figures (they are recorded either way); BPE_VIZ_STRICT_LATENCY=1
# makes a miss fail (`make bench-browser` sets that too).
pytestmark = pytest.mark.skipif(not os.environ.get("BPE_VIZ_LATENCY"),
                                reason="the step-latency measurement is opt-in: BPE_VIZ_LATENCY=1 "
                                       "(add BPE_VIZ_STRICT_LATENCY=1 to fail on a miss of the target)")

TARGET_MS = 100.0
#: the 90th percentile's target (issue 20): a slow step now and then, never a slow tenth of them
TARGET_P90_MS = 250.0
MERGES = 10_000
UNIGRAM_PIECES = 4_000
NOTEBOOK = "scratch/latency.ipynb"
RESULTS = bs.ARTIFACTS / "latency.json"
PLAY_SPEED = ("fast", 400)  # the Play speed chosen for the test: (label, ms between steps)
PLAY_INTERVAL_MS = PLAY_SPEED[1]
#: size name -> (the explorer's size option as its dropdown labels it, the browser window)
SIZES = {"default": ("normal", {"width": 1366, "height": 1000}), "projector": ("projector", {"width": 1024, "height": 768})}
SAMPLES = {"arrows": 24, "click": 16, "jump": 16, "drag": 10, "play": 14}  # the floor before each: half as many
#: how long the pointer rests on the track before a "click" (a person's pointer stops, then clicks)
HOVER_MS = 250
DRAG_MOVES = 10

FLOOR = "bare slider (floor)"
#: cell name (an explorer's: its name in the figures) -> source
CELLS = {
    "imports": "from bpe_viz import corpora, train_bpe, train_wordpiece\n"
               "from bpe_viz.engine.unigram import train_unigram\n"
               "from bpe_viz.widgets import MergeExplorer, CompareExplorer, UnigramExplorer\n"
               'text = corpora.load("python-docs")',
    "MergeExplorer": f'merge_ex = MergeExplorer.from_trace(train_bpe(text, {MERGES}, preset="subword-nmt"),\n'
                     '                                     sentence=corpora.SAMPLES["python-docs"])\n'
                     "merge_ex",
    "CompareExplorer": f'cmp_ex = CompareExplorer.from_traces(train_bpe(text, {MERGES}, preset="hf-course"),\n'
                       f"                                     train_wordpiece(text, {MERGES}))\n"
                       "cmp_ex",
    # (trained once per test session, in this cell: the sentencepiece flavour, as sentencepiece's trainer)
    "UnigramExplorer": f'uni_ex = UnigramExplorer(train_unigram(text, {UNIGRAM_PIECES}, flavour="sentencepiece"))\n'
                       "uni_ex",
}
# The floor: a bare ipywidgets slider whose kernel callback writes "Step k of 10000" and nothing
# else (what JupyterLab, the kernel's round trip and this machine cost, whatever the explorer does)
CELLS[FLOOR] = (
    "import ipywidgets as w\n"
    f'bare = w.IntSlider(description="step", max={MERGES}, continuous_update=True, layout=w.Layout(width="40em"))\n'
    "bare_view = w.HTML()\n"
    "def bare_show(change):\n"
    f"    bare_view.value = f'<div class=\"bpe-message\">Step {{change[\"new\"]}} of {MERGES}</div>'"
    " + f'<div data-bpe-chart-step=\"{change[\"new\"]}\"></div>'\n"
    'bare.observe(bare_show, "value")\n'
    "bare_play = w.Play(max=" + str(MERGES) + ", interval=" + "400" + ")\n"
    'w.jslink((bare_play, "value"), (bare, "value"))\n'
    "w.VBox([w.HBox([bare_play, bare]), bare_view])"
)

#: The floor on this machine when it is least busy (median ms per way of moving; see the module's
#: docstring): what JupyterLab, the kernel's round trip and the browser's paint cost before any
#: explorer does anything. The lowest medians of the bare slider over ten runs of 2026-11-22/23
#: (load average 0.4-4: this test's own browser, server and kernel, and other work). The kernel's
#: own round trip is ~5 ms (jupyter_client, no browser); the rest is the server and the page.
#: A drag's floor is over 100 ms by itself: ipywidgets sends a dragged value only once the
#: kernel has answered the previous one, so the last value waits up to two round trips.
FLOOR_QUIET = {"arrows": 59.0, "click": 63.0, "jump": 63.0, "drag": 103.0, "play": 36.0}

#: explorer (its cell's name) -> the header's pattern with the step as group 1
EXPLORERS = {
    FLOOR: r"^Step ([\d,]+) of",
    "MergeExplorer": r"^Step ([\d,]+) of",
    "CompareExplorer": r"^Step ([\d,]+):",
    "UnigramExplorer": r"^Round ([\d,]+) of",
}
#: the label of an explorer's step slider (the others': "step")
SLIDER_LABEL = {"UnigramExplorer": "round"}

# A probe in the page: a MutationObserver on one explorer's output logs, with performance.now()
# times, every value the step slider's readout shows, every step the text shows (header, merge
# titles and table titles agree), every step the chart shows (its data-bpe-chart-step; for a PNG
# chart: a new image after the text), and when the page painted each; capture listeners log
# the input events (event.timeStamp, the same clock).
_PROBE_JS = r"""
() => {
  if (window.__bpeLatency) return;
  const num = s => parseInt(String(s).replace(/[^\d]/g, ''), 10);
  const afterPaint = cb => requestAnimationFrame(() => setTimeout(() => cb(performance.now()), 0));
  window.__bpeLatency = {
    start(root, headerRx, label) {
      this.stop();
      const rx = new RegExp(headerRx);
      const slider = [...root.querySelectorAll('.widget-slider')].find(
          s => (s.querySelector('.widget-label') || {}).textContent?.trim() === label);
      const readout = slider.querySelector('.widget-readout');
      const log = {inputs: [], readouts: [], texts: [], charts: [], shown: [], muts: []};
      const img = () => root.querySelector('img.widget-image');
      let lastSrc = img() ? img().src : null, pngStep = null;
      const textStep = () => {
        const h = root.querySelector('.bpe-header') || root.querySelector('.bpe-message');
        const m = h && rx.exec(h.textContent.trim());
        if (!m) return null;
        const k = num(m[1]);
        // every merge title and table title says step k; a column whose training stopped
        // earlier (the CompareExplorer's BPE) shows its last step, below k
        const titles = root.querySelectorAll('.bpe-merge-title');
        let seen = k === 0 || titles.length === 0;
        for (const t of titles) {
          const mm = /^merge ([\d,]+):/.exec(t.textContent.trim());
          if (mm ? num(mm[1]) > k : k !== 0) return null;
          if (mm && num(mm[1]) === k) seen = true;
        }
        for (const t of root.querySelectorAll('.bpe-table-title')) {
          const mm = /at step ([\d,]+)/.exec(t.textContent);
          if (mm && num(mm[1]) > k) return null;
        }
        const stale = [...root.querySelectorAll('.bpe-merge-title')].some(t => {
          const mm = /^merge ([\d,]+):/.exec(t.textContent.trim());
          return mm && num(mm[1]) < k && !/stopped after/.test(t.closest('.bpe-column, .widget-html, .widget-box')?.textContent || '');
        });
        return seen && !stale ? k : null;
      };
      const chartStep = (text) => {
        const c = root.querySelector('[data-bpe-chart-step]');
        if (c) return num(c.getAttribute('data-bpe-chart-step'));
        // the Unigram explorer's two charts: each titled "Round k: ..."; both must say it
        const titles = [...root.querySelectorAll('.bpe-charts svg > title')].map(t => /^Round ([\d,]+):/.exec(t.textContent));
        if (titles.length) return titles.every(m => m && num(m[1]) === num(titles[0][1])) ? num(titles[0][1]) : null;
        const i = img();
        if (i && i.src !== lastSrc) { lastSrc = i.src; pngStep = text; }
        return pngStep;
      };
      let r0 = num(readout.textContent), t0 = textStep(), c0 = chartStep(t0), s0 = (t0 !== null && t0 === c0) ? t0 : null;
      const check = (records) => {
        const now = performance.now();
        if (records && records.some(m => !readout.contains(m.target))) log.muts.push(now);
        const r = num(readout.textContent);
        if (r !== r0) { log.readouts.push({k: r, t: now}); r0 = r; }
        const t = textStep();
        if (t !== null && t !== t0) { const e = {k: t, t: now}; log.texts.push(e); afterPaint(p => e.painted = p); }
        t0 = t;
        const c = chartStep(t);
        if (c !== null && c !== c0) { log.charts.push({k: c, t: now}); }
        c0 = c;
        const s = (t !== null && t === c) ? t : null;
        if (s !== null && s !== s0) { const e = {k: s, t: now}; log.shown.push(e); afterPaint(p => e.painted = p); }
        s0 = s;
      };
      const obs = new MutationObserver(check);
      obs.observe(root, {subtree: true, childList: true, characterData: true, attributes: true,
                         attributeFilter: ['src', 'data-bpe-chart-step']});
      const onInput = e => log.inputs.push({type: e.type, t: e.timeStamp});
      window.addEventListener('keydown', onInput, true);
      window.addEventListener('pointerdown', onInput, true);
      this.cur = {log, stop: () => { obs.disconnect();
        window.removeEventListener('keydown', onInput, true);
        window.removeEventListener('pointerdown', onInput, true); }};
    },
    log() { return this.cur ? this.cur.log : null; },
    stop() { if (this.cur) { this.cur.stop(); const l = this.cur.log; this.cur = null; return l; } return null; },
  };
}
"""


def stats(xs: list[float]) -> dict:
    ys = sorted(xs)
    if not ys:
        return {"n": 0}
    return {"n": len(ys), "median": round(statistics.median(ys), 1), "p90": round(ys[max(0, -(-9 * len(ys) // 10) - 1)], 1),
            "min": round(ys[0], 1), "max": round(ys[-1], 1)}


class Probe:
    """Drives one explorer's step slider in the page and times what the page shows."""

    def __init__(self, page, out, header_rx: str, label: str = "step"):
        self.page, self.out, self.header_rx, self.label = page, out, header_rx, label
        self.root = out.element_handle()
        self.parts: list[dict] = []  # per sample: first reply, DOM done, then painted (ms)
        self.slider = bs.control(out, "slider", label)
        self.hi = round(float(self.slider.locator(".noUi-handle").get_attribute("aria-valuemax")))  # the last step
        page.evaluate(_PROBE_JS)

    def start(self):
        self.page.evaluate("([root, rx, label]) => window.__bpeLatency.start(root, rx, label)",
                           [self.root, self.header_rx, self.label])

    def log(self):
        return self.page.evaluate("() => window.__bpeLatency.log()")

    def stop(self):
        return self.page.evaluate("() => window.__bpeLatency.stop()")

    def value(self) -> int:
        return bs.slider_value(self.slider)

    def wait_shown(self, k: int, timeout: float = 15.0) -> dict:
        """The log once the page has painted step ``k`` (text and chart)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            log = self.log()
            if any(e["k"] == k and "painted" in e for e in log["shown"]):
                return log
            time.sleep(0.01)
        raise AssertionError(f"the page never showed step {k} (text and chart): {self.log()}")

    def settle(self, ms: int = 300):
        """Let the kernel go idle and the page finish before the next input (a learner's pace:
        a few inputs a second; the explorer prepares the next steps meanwhile)."""
        self.page.wait_for_timeout(ms)

    def one(self, action) -> tuple[float, float]:
        """(ms to the text, ms to text and chart) for one input: from its event to the paint."""
        self.start()
        before = self.value()
        action()
        deadline = time.monotonic() + 5
        while self.value() == before and time.monotonic() < deadline:
            time.sleep(0.005)
        k = self.value()
        assert k != before, "the input did not move the slider"
        log = self.wait_shown(k)
        self.stop()
        t_in = log["inputs"][0]["t"]
        text = next(e for e in log["texts"] if e["k"] == k)
        shown = next(e for e in log["shown"] if e["k"] == k)
        first = next((t for t in log["muts"] if t >= t_in), None)
        self.parts.append({"reply": first - t_in if first else None, "dom": shown["t"] - t_in,
                           "paint": shown["painted"] - shown["t"]})
        # the text painted: it may be painted in the same frame as the chart
        t_text = text.get("painted", shown["painted"])
        self.settle()
        return t_text - t_in, shown["painted"] - t_in

    def go(self, k: int):
        """Put the slider near step ``k`` (a click on the track) and wait until it is shown."""
        self.start()
        before = self.value()
        self.click_at(k)
        self.page.wait_for_timeout(100)
        if self.value() != before:
            self.wait_shown(self.value())
        self.stop()
        self.settle(300)

    def track(self):
        """The track's box on screen (scrolled into view first)."""
        target = self.slider.locator(".noUi-target")
        target.scroll_into_view_if_needed()
        return target.bounding_box()

    def click_at(self, k: int):
        box = self.track()
        x = box["x"] + box["width"] * k / self.hi
        self.page.mouse.click(x, box["y"] + box["height"] / 2)

    # -- the ways of moving ----------------------------------------------------------------------

    def arrows(self, n: int, rng) -> tuple[list, list]:
        texts, alls = [], []
        handle = self.slider.locator(".noUi-handle")
        self.go(rng.randrange(self.hi // 4, max(3 * self.hi // 4, 1)))
        handle.focus()
        run = max(1, min(4, self.hi // 4))  # (a slider of a few steps: runs as long as it allows)
        for i in range(n):
            key = "ArrowRight" if (i // run) % 2 == 0 else "ArrowLeft"  # runs of four each way
            t, a = self.one(lambda: self.page.keyboard.press(key))
            texts.append(t)
            alls.append(a)
        return texts, alls

    def clicks(self, n: int, rng, hover_ms: int = 0) -> tuple[list, list]:
        """``n`` clicks on the track, each at a random place off the handle. ``hover_ms``: the
        pointer first rests there that long (a person's pointer comes to rest before it clicks;
        the explorer then asks for the step under it), else it clicks at once (a jump to a step
        nobody asked for: the worst case)."""
        texts, alls = [], []
        for _ in range(n):
            box = self.track()
            h = self.slider.locator(".noUi-handle").bounding_box()
            x = box["x"] + box["width"] * rng.uniform(0.05, 0.95)
            while abs(x - (h["x"] + h["width"] / 2)) < h["width"] * 1.5:  # on the handle: no jump
                x = box["x"] + box["width"] * rng.uniform(0.05, 0.95)
            if self.hi < 100:  # a slider of a few steps: on another step's place (nearer it than any other)
                now = self.value()
                k = rng.choice([j for j in range(self.hi + 1) if j != now])
                x = box["x"] + box["width"] * min(max((k + rng.uniform(-0.3, 0.3)) / self.hi, 0.02), 0.98)
            y = box["y"] + box["height"] / 2
            if hover_ms:
                self.page.mouse.move(x - 3, y)
                self.page.mouse.move(x, y, steps=3)
                self.page.wait_for_timeout(hover_ms)
            t, a = self.one(lambda: self.page.mouse.click(x, y))
            texts.append(t)
            alls.append(a)
            self.page.mouse.move(box["x"] + box["width"] / 2, box["y"] - 200)  # off the track again
        return texts, alls

    def drags(self, n: int, rng) -> tuple[list, list]:
        """``n`` drags of the handle, each ten small moves (6 px every 16 ms, a 60 Hz mouse),
        then the button let go. Returns (for each drag, the time from its last move, when the
        readout shows the final value, to the painted final step: what a learner waits for
        after stopping; for information, every value the readout showed during the drags and
        the time until the page painted it or a step further along)."""
        stops, lags = [], []
        for _ in range(n):
            box = self.track()
            handle = self.slider.locator(".noUi-handle")
            h = handle.bounding_box()
            x, y = h["x"] + h["width"] / 2, h["y"] + h["height"] / 2
            sign = 1 if x < box["x"] + box["width"] / 2 else -1  # towards the longer side
            # (a slider of a few steps: far enough to reach the next one)
            step_px = sign * max(rng.choice((4, 6, 8)), 1.2 * box["width"] / self.hi / DRAG_MOVES)
            self.start()
            self.page.mouse.move(x, y)
            self.page.mouse.down()
            for i in range(1, DRAG_MOVES + 1):
                self.page.mouse.move(x + step_px * i, y)
                time.sleep(0.016)
            self.page.mouse.up()
            k = self.value()
            self.wait_shown(k)
            self.page.wait_for_timeout(100)
            log = self.stop()
            assert log["readouts"], "the drag did not move the slider"
            last = log["readouts"][-1]
            assert last["k"] == k
            final = next(e for e in log["shown"] if e["k"] == k and e["t"] >= last["t"] and "painted" in e)
            stops.append(final["painted"] - last["t"])
            for r in log["readouts"]:
                caught = next((e for e in log["shown"] if sign * (e["k"] - r["k"]) >= 0 and e["t"] >= r["t"]
                               and "painted" in e), None)
                assert caught is not None, f"step {r['k']} (or one further) never shown: {log}"
                lags.append(caught["painted"] - r["t"])
            self.settle()
        return stops, lags

    def play(self, ticks: int, rng) -> tuple[list, list]:
        """Press Play; for each tick, the time from the readout's change to the painted step."""
        self.go(rng.randrange(self.hi // 10, max(self.hi // 2, 1)))
        play = self.out.locator(".widget-play button").first
        speed = bs.control(self.out, "dropdown", "speed").locator("select")
        if speed.count() and speed.input_value() != PLAY_SPEED[0]:  # (the bare slider: 400 ms)
            speed.select_option(label=PLAY_SPEED[0])
        ticks = max(1, min(ticks, self.hi - self.value()))  # (Play stops at the last step)
        self.start()
        play.click()
        deadline = time.monotonic() + ticks * PLAY_INTERVAL_MS / 1000 * 3 + 10
        while len(self.log()["readouts"]) < ticks and time.monotonic() < deadline:
            time.sleep(0.1)
        play.click()  # pause
        self.page.wait_for_timeout(PLAY_INTERVAL_MS + 300)
        k = self.value()
        self.wait_shown(k)
        log = self.stop()
        texts, alls = [], []
        for r in log["readouts"]:
            # that step, or a later one when ipywidgets sent only the latest value (kernel busy)
            text = next((e for e in log["texts"] if e["k"] >= r["k"] and e["t"] >= r["t"] and "painted" in e), None)
            shown = next((e for e in log["shown"] if e["k"] >= r["k"] and e["t"] >= r["t"] and "painted" in e), None)
            assert shown is not None, f"Play: step {r['k']} (or a later one) never shown: {log}"
            alls.append(shown["painted"] - r["t"])
            texts.append((text or shown)["painted"] - r["t"])
        self.settle()
        return texts, alls


def wait_for_the_track(page, quiet_s: float = 3.0, limit_s: float = 90.0) -> float:
    """Wait until the kernel has sent the steps under the slider's track (step_pane.js: sent
    while the learner is idle, about 2 s for the stepper's 344 pixels, 7 s for the compare
    explorer's): until no packed step came for ``quiet_s`` seconds. Returns the seconds waited,
    the quiet ones included. Before this, a jump costs a round trip to the kernel, as a jump
    the moment an explorer shows or retrains still does."""
    t0 = last = time.monotonic()
    seen = None
    while time.monotonic() - last < quiet_s and time.monotonic() - t0 < limit_s:
        n = page.evaluate("() => (globalThis.__bpeStepPane || {}).packed || 0")
        if n != seen:
            seen, last = n, time.monotonic()
        time.sleep(0.2)
    return round(time.monotonic() - t0, 1)


def measure(probe: Probe, way: str, seed: int, scale: float = 1.0) -> dict:
    """The figures of one way of moving (``scale``: a fraction of the usual samples)."""
    rng = random.Random(seed)
    n = max(4, round(SAMPLES[way] * scale))
    if way == "arrows":
        texts, alls = probe.arrows(n, rng)
    elif way == "click":
        texts, alls = probe.clicks(n, rng, hover_ms=HOVER_MS)
    elif way == "jump":
        texts, alls = probe.clicks(n, rng)
    elif way == "drag":
        alls, lags = probe.drags(n, rng)
        texts = []
    else:
        texts, alls = probe.play(n, rng)
    parts = probe.parts
    probe.parts = []
    out = {"text": stats(texts), "all": stats(alls)}
    if way == "drag":
        out["lag_while_dragging"] = stats(lags)
    if parts:  # where the time goes: until the kernel's first reply, until the DOM is done, painting
        out["parts"] = {k: stats([p[k] for p in parts if p[k] is not None]) for k in ("reply", "dom", "paint")}
    return out


#: the ways of moving; BPE_LATENCY_WAYS="arrows,click" measures some only (a quick look)
WAYS = tuple(w for w in os.environ.get("BPE_LATENCY_WAYS", "arrows,click,jump,drag,play").split(",") if w)


@pytest.fixture(scope="module")
def latency_nb(lab, lab_app):
    """The scratch notebook, run once in this module's JupyterLab page; yields (page, {explorer:
    its output})."""
    with bs.run_scratch_notebook(lab_app, lab, NOTEBOOK, CELLS, timeout=240_000, shown_timeout=180_000) as run:
        yield run.page, {name: run.outputs[name].first for name in EXPLORERS}


@pytest.fixture(scope="module")
def results():
    """Every figure of this module, written to test-artifacts/browser/latency.json at the end."""
    data = {
        "target_ms": TARGET_MS,
        "merges": MERGES,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version(), "load_start": os.getloadavg()[0]},
        "samples": SAMPLES,
        "drag_moves": DRAG_MOVES,
        "play_interval_ms": PLAY_INTERVAL_MS,
        "sizes": {k: {"size": dict(SIZE_CHOICES)[v[0]], "viewport": v[1]} for k, v in SIZES.items()},
        "runs": {},
    }
    yield data
    data["machine"]["load_end"] = os.getloadavg()[0]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(data, indent=1))


def floor_median(page, outs, way: str, seed: int) -> float:
    """The floor's median for ``way`` now (half the usual samples), measured on the bare slider
    of the same page; the page is left scrolled where it was."""
    floor_out = outs[FLOOR]
    floor_out.locator(".widget-slider").first.scroll_into_view_if_needed()
    got = measure(Probe(page, floor_out, EXPLORERS[FLOOR]), way, seed=1000 + seed, scale=0.5)
    return got["all"]["median"]


def allowed_ms(way: str, floor_now: float | None, target: float = TARGET_MS) -> float:
    """The median (or with ``target=TARGET_P90_MS``, the 90th percentile) a way of moving may
    take now: the target, plus however much slower than quiet the machine is at this moment, as
    the floor (the bare slider) measures it."""
    if floor_now is None:
        return target
    return target + max(0.0, floor_now - FLOOR_QUIET[way])


def within(got: dict, floor_now) -> bool:
    """Whether a way of moving met both targets (median and 90th percentile) with the noise margin."""
    return (got["all"]["median"] <= allowed_ms(got["way"], floor_now)
            and got["all"]["p90"] <= allowed_ms(got["way"], floor_now, TARGET_P90_MS))


#: Where the target is not met yet on this machine (see docs/browser-latency.md for the figures):
#: such a test is reported as an expected failure with its figures, and as XPASS once it is met.
NOT_YET: dict = {
    # (empty since issue 20's track: the steps under every pixel of the slider's track are sent
    # ahead, so a jump is in the page too; before, a jump cost the kernel's round trip and render:
    # 94-115 ms median for the stepper, 119-167 ms for the compare explorer)
}


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("size_name", list(SIZES))
@pytest.mark.parametrize("explorer", list(EXPLORERS))
def test_step_latency(latency_nb, results, explorer, size_name, way):
    """One way of moving: median ≤ 100 ms from the input to the painted step (text and chart),
    with the noise margin of the module's docstring (the floor's slowdown over quiet is added;
    a way over its allowance is measured again once, the better run counts, both are kept)."""
    page, outs = latency_nb
    label, viewport = SIZES[size_name]
    out = outs[explorer]
    if page.viewport_size != viewport:
        page.set_viewport_size(viewport)
    select = bs.control(out, "dropdown", "size").locator("select")
    if select.count() and select.input_value() != label:  # (the bare slider has no size)
        select.select_option(label=label)
        page.wait_for_timeout(1500)  # the explorer lays itself out again at that size
    out.locator(".widget-slider").first.scroll_into_view_if_needed()
    probe = Probe(page, out, EXPLORERS[explorer], SLIDER_LABEL.get(explorer, "step"))
    probe.go(1)  # the first render at this size (and any first-draw cost) is not timed
    key = f"{explorer}/{size_name}"
    runs = results["runs"].setdefault(key, {})
    if explorer != FLOOR:  # what a learner meets once the explorer has been idle a few seconds
        # (kept from the first way of moving at this size: the wait right after the size changed)
        waited = wait_for_the_track(page)
        runs.setdefault("track_wait_s", waited)
    floors = results.setdefault("floor", {}).setdefault(size_name, {})
    seed = WAYS.index(way)
    got = measure(probe, way, seed=seed)
    runs["load"] = os.getloadavg()[0]
    if explorer == FLOOR:
        runs[way] = got
        floors[way] = got["all"]["median"]
        print(key, way, json.dumps(got))
        return
    # the floor again, just before: the machine's load changes from minute to minute
    floor_now = floor_median(page, outs, way, seed)
    got["way"] = way
    if not within(got, floor_now):
        again = measure(probe, way, seed=100 + seed)
        again["way"] = way
        floor_again = floor_median(page, outs, way, seed + 100)
        # the better run counts (the one that passes, else the lower median), with its own floor
        if (within(again, floor_again), -again["all"]["median"]) > (False, -got["all"]["median"]):
            got, floor_now = {**again, "other_run": {**got, "floor_ms": floor_now}}, floor_again
        else:
            got = {**got, "other_run": {**again, "floor_ms": floor_again}}
    limit = allowed_ms(way, floor_now)
    got.update(allowed_ms=round(limit, 1), allowed_p90_ms=round(allowed_ms(way, floor_now, TARGET_P90_MS), 1),
               floor_ms=floor_now, **{"pass": within(got, floor_now)})
    runs[way] = got
    print(key, way, json.dumps(got))
    if not got["pass"]:
        msg = (f"{key} {way}: median {got['all']['median']} ms, allowed {limit:.0f} ms; p90 "
               f"{got['all']['p90']} ms, allowed {got['allowed_p90_ms']:.0f} ms (the floor is "
               f"{floors.get(way)} ms now, {FLOOR_QUIET[way]} ms when quiet)")
        why = NOT_YET.get((explorer, way)) or NOT_YET.get((explorer, "*"))
        if why:
            pytest.xfail(f"{msg}; not met yet: {why}")
        if not os.environ.get("BPE_VIZ_STRICT_LATENCY"):
            pytest.skip(f"{msg} (load {os.getloadavg()[0]:.1f}; BPE_VIZ_STRICT_LATENCY=1 makes this fail)")
        pytest.fail(msg)
