"""How long a learner waits for a step, in JupyterLab in a real browser.

On the 10,000-merge trace of Python's documentation (the benchmark's trace: ``train_bpe(text,
10000, preset="subword-nmt")``; the CompareExplorer gets ``preset="hf-course"`` and WordPiece's
10,000 merges), every way of moving the step slider is timed from the input event (the key
press, the pointer down on the track; for a drag or Play, the moment the slider's readout shows
the new value) until the page has *painted* the new step: the header, the merge, every table
title and the chart all say step k, then one animation frame and a task later (so the browser's
style, layout and paint are in the figure, not only the kernel's reply).

Ways of moving: ArrowRight / ArrowLeft on the focused handle (consecutive steps), a click on the
track (a jump to a random step), a slow drag of the handle (each value the readout shows, until
the view shows it or a later one; ipywidgets sends only the latest value while the kernel is
busy), and Play (each tick, at the "fast" speed, 400 ms between steps, to collect ticks sooner;
a tick costs the same at any interval longer than a step). Each at the default size in a 1366×1000
window and at "projector" size in a 1024×768 window, for the MergeExplorer and the
CompareExplorer.

The figures go to ``test-artifacts/browser/latency.json`` (pass or fail; never into the source
tree); ``benchmarks/browser_latency.py`` turns them into ``docs/browser-latency.md``.

The target (issue 11): a median of at most 100 ms for every way of moving. The noise margin:
the machine has two cores shared with other test runs, so a median is taken over many steps,
and a way of moving whose median is over the target is measured once more, the better of the
two runs counting (both are recorded). A real slowdown fails both runs; a burst of other work
rarely hits both.
"""

from __future__ import annotations

import json
import os
import platform
import random
import statistics
import time

import pytest

from browser_support import SKIP_REASON

if not SKIP_REASON:  # else conftest.py marks every test here skipped, with the reason
    from playwright.sync_api import expect

import browser_support as bs  # noqa: E402

# opt-in: on a shared 2-core CI machine this times the machine's load more than the explorers, and
# some of its interactions (a drag across a re-rendered slider) still fail there now and then
pytestmark = pytest.mark.skipif(not os.environ.get("BPE_VIZ_LATENCY"),
                                reason="the step-latency measurement is opt-in: BPE_VIZ_LATENCY=1 "
                                       "(add BPE_VIZ_STRICT_LATENCY=1 to fail on a miss of the target)")

TARGET_MS = 100.0
MERGES = 10_000
NOTEBOOK = "scratch/latency.ipynb"
RESULTS = bs.ARTIFACTS / "latency.json"
PLAY_SPEED = ("fast", 400)  # the Play speed chosen for the test: (label, ms between steps)
PLAY_INTERVAL_MS = PLAY_SPEED[1]
SIZES = {"default": (1.0, {"width": 1366, "height": 1000}), "projector": (2.0, {"width": 1024, "height": 768})}
SAMPLES = {"arrows": 24, "click": 16, "drag_moves": 40, "play": 14}

CELLS = [
    "from bpe_viz import corpora, train_bpe, train_wordpiece\n"
    "from bpe_viz.widgets import MergeExplorer, CompareExplorer\n"
    'text = corpora.load("python-docs")',
    f'merge_ex = MergeExplorer.from_trace(train_bpe(text, {MERGES}, preset="subword-nmt"),\n'
    '                                     sentence=corpora.SAMPLES["python-docs"])\n'
    "merge_ex",
    f'cmp_ex = CompareExplorer.from_traces(train_bpe(text, {MERGES}, preset="hf-course"),\n'
    f"                                     train_wordpiece(text, {MERGES}))\n"
    "cmp_ex",
]
# The floor: a bare ipywidgets slider whose kernel callback writes "Step k of 10000" and nothing
# else (what JupyterLab, the kernel's round trip and this machine cost, whatever the explorer does)
CELLS.append(
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

#: explorer -> (the first line of its cell, the header's pattern with the step as group 1)
EXPLORERS = {
    "bare slider (floor)": ("import ipywidgets as w", r"^Step ([\d,]+) of"),
    "MergeExplorer": ("merge_ex = ", r"^Step ([\d,]+) of"),
    "CompareExplorer": ("cmp_ex = ", r"^Step ([\d,]+):"),
}

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
    start(root, headerRx) {
      this.stop();
      const rx = new RegExp(headerRx);
      const slider = [...root.querySelectorAll('.widget-slider')].find(
          s => (s.querySelector('.widget-label') || {}).textContent?.trim() === 'step');
      const readout = slider.querySelector('.widget-readout');
      const log = {inputs: [], readouts: [], texts: [], charts: [], shown: [], muts: []};
      const img = () => root.querySelector('img.widget-image');
      let lastSrc = img() ? img().src : null, pngStep = null;
      const textStep = () => {
        const h = root.querySelector('.bpe-message');
        const m = h && rx.exec(h.textContent.trim());
        if (!m) return null;
        const k = num(m[1]);
        for (const t of root.querySelectorAll('.bpe-merge-title')) {
          const mm = /^merge ([\d,]+):/.exec(t.textContent.trim());
          if (mm ? num(mm[1]) !== k : k !== 0) return null;
        }
        for (const t of root.querySelectorAll('.bpe-table-title')) {
          const mm = /at step ([\d,]+)/.exec(t.textContent);
          if (mm && num(mm[1]) !== k) return null;
        }
        return k;
      };
      const chartStep = (text) => {
        const c = root.querySelector('[data-bpe-chart-step]');
        if (c) return num(c.getAttribute('data-bpe-chart-step'));
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

    def __init__(self, page, out, header_rx: str):
        self.page, self.out, self.header_rx = page, out, header_rx
        self.root = out.element_handle()
        self.parts: list[dict] = []  # per sample: first reply, DOM done, then painted (ms)
        self.slider = bs.control(out, "slider", "step")
        page.evaluate(_PROBE_JS)

    def start(self):
        self.page.evaluate("([root, rx]) => window.__bpeLatency.start(root, rx)", [self.root, self.header_rx])

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

    def settle(self, ms: int = 150):
        """Let the kernel go idle and the page finish before the next input."""
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
        hi = MERGES
        x = box["x"] + box["width"] * k / hi
        self.page.mouse.click(x, box["y"] + box["height"] / 2)

    # -- the ways of moving ----------------------------------------------------------------------

    def arrows(self, n: int, rng) -> tuple[list, list]:
        texts, alls = [], []
        handle = self.slider.locator(".noUi-handle")
        self.go(rng.randrange(MERGES // 4, 3 * MERGES // 4))
        handle.focus()
        for i in range(n):
            key = "ArrowRight" if (i // 4) % 2 == 0 else "ArrowLeft"  # runs of four each way
            t, a = self.one(lambda: self.page.keyboard.press(key))
            texts.append(t)
            alls.append(a)
        return texts, alls

    def clicks(self, n: int, rng) -> tuple[list, list]:
        texts, alls = [], []
        for _ in range(n):
            box = self.track()
            h = self.slider.locator(".noUi-handle").bounding_box()
            x = box["x"] + box["width"] * rng.uniform(0.05, 0.95)
            while abs(x - (h["x"] + h["width"] / 2)) < h["width"] * 1.5:  # on the handle: no jump
                x = box["x"] + box["width"] * rng.uniform(0.05, 0.95)
            t, a = self.one(lambda: self.page.mouse.click(x, box["y"] + box["height"] / 2))
            texts.append(t)
            alls.append(a)
        return texts, alls

    def drag(self, moves: int, rng) -> list:
        """Drag the handle right by ``moves`` small steps, one every ~16 ms (a 60 Hz mouse); for
        each value the readout showed, the time until the page painted it or a later step."""
        self.go(rng.randrange(MERGES // 10, MERGES // 3))
        handle = self.slider.locator(".noUi-handle")
        h = handle.bounding_box()
        x, y = h["x"] + h["width"] / 2, h["y"] + h["height"] / 2
        self.start()
        self.page.mouse.move(x, y)
        self.page.mouse.down()
        for i in range(1, moves + 1):
            self.page.mouse.move(x + 3 * i, y)
            time.sleep(0.016)
        self.page.mouse.up()
        k = self.value()
        log = self.wait_shown(k)
        self.page.wait_for_timeout(100)
        log = self.stop()
        lags = []
        for r in log["readouts"]:
            caught = next((e for e in log["shown"] if e["k"] >= r["k"] and e["t"] >= r["t"] and "painted" in e), None)
            assert caught is not None, f"step {r['k']} (or later) never shown: {log}"
            lags.append(caught["painted"] - r["t"])
        self.settle()
        return lags

    def play(self, ticks: int, rng) -> tuple[list, list]:
        """Press Play; for each tick, the time from the readout's change to the painted step."""
        self.go(rng.randrange(MERGES // 10, MERGES // 2))
        play = self.out.locator(".widget-play button").first
        speed = bs.control(self.out, "dropdown", "speed").locator("select")
        if speed.count() and speed.input_value() != PLAY_SPEED[0]:  # (the bare slider: 400 ms)
            speed.select_option(label=PLAY_SPEED[0])
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


def measure(probe: Probe, way: str, seed: int) -> dict:
    rng = random.Random(seed)
    if way == "arrows":
        texts, alls = probe.arrows(SAMPLES["arrows"], rng)
    elif way == "click":
        texts, alls = probe.clicks(SAMPLES["click"], rng)
    elif way == "drag":
        alls = probe.drag(SAMPLES["drag_moves"], rng)
        texts = []
    else:
        texts, alls = probe.play(SAMPLES["play"], rng)
    parts = probe.parts
    probe.parts = []
    out = {"text": stats(texts), "all": stats(alls)}
    if parts:  # where the time goes: until the kernel's first reply, until the DOM is done, painting
        out["parts"] = {k: stats([p[k] for p in parts if p[k] is not None]) for k in ("reply", "dom", "paint")}
    return out


#: the ways of moving; BPE_LATENCY_WAYS="arrows,click" measures some only (a quick look)
WAYS = tuple(w for w in os.environ.get("BPE_LATENCY_WAYS", "arrows,click,drag,play").split(",") if w)


@pytest.fixture(scope="module")
def latency_nb(lab, browser):
    """The scratch notebook, run once in a fresh JupyterLab page; yields (page, outputs)."""
    ps = bs.Pages(browser, "latency")
    app = bs.LabApp(ps, lab.base)
    bs.write_notebook(lab.root / NOTEBOOK, CELLS)
    try:
        panel = app.open(NOTEBOOK)
        page = app.page
        bs.run_all(page)
        bs.wait_run_done(panel, timeout=240_000)
        bs.wait_widgets_loaded(panel)
        assert bs.cell_problems(panel) == []
        outs = {}
        for name, (first, _rx) in EXPLORERS.items():
            cell = panel.locator(".jp-CodeCell").filter(has=page.locator(".jp-InputArea", has_text=first))
            expect(cell).to_have_count(1)
            outs[name] = cell.locator(".jp-OutputArea-output").first
            try:
                outs[name].locator(".widget-vbox").first.wait_for(state="visible", timeout=180_000)
            except Exception:
                page.screenshot(path=str(bs.ARTIFACTS / f"FAILED-latency-{name}.png"))
                raise AssertionError(f"{name} not shown; its cell shows: {cell.inner_text()[:2000]}") from None
        yield page, outs
    finally:
        try:
            app.close(NOTEBOOK)
        finally:
            ps.close(failed=False)
            bs.shutdown_kernels(lab.base)


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
        "play_interval_ms": PLAY_INTERVAL_MS,
        "sizes": {k: {"size": v[0], "viewport": v[1]} for k, v in SIZES.items()},
        "runs": {},
    }
    yield data
    data["machine"]["load_end"] = os.getloadavg()[0]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(data, indent=1))


@pytest.mark.parametrize("size_name", list(SIZES))
@pytest.mark.parametrize("explorer", list(EXPLORERS))
def test_step_latency(latency_nb, results, explorer, size_name):
    """Every way of moving, median ≤ 100 ms from the input to the painted step (text and chart);
    a way over the target is measured again once (the better run counts, both are recorded)."""
    page, outs = latency_nb
    size, viewport = SIZES[size_name]
    out = outs[explorer]
    page.set_viewport_size(viewport)
    select = bs.control(out, "dropdown", "size").locator("select")
    label = {1.0: "normal", 2.0: "projector"}[size]
    if select.count() and select.input_value() != label:  # (the bare slider has no size)
        select.select_option(label=label)
    out.locator(".widget-slider").first.scroll_into_view_if_needed()
    probe = Probe(page, out, EXPLORERS[explorer][1])
    probe.go(1)  # the first render at this size (and any first-draw cost) is not timed
    key = f"{explorer}/{size_name}"
    runs = results["runs"].setdefault(key, {})
    failed = []
    for i, way in enumerate(WAYS):
        got = measure(probe, way, seed=i)
        runs[way] = got
        if got["all"]["median"] > TARGET_MS:
            again = measure(probe, way, seed=100 + i)
            best, other = (again, got) if again["all"]["median"] < got["all"]["median"] else (got, again)
            runs[way] = {**best, "other_run": other}
            if best["all"]["median"] > TARGET_MS:
                failed.append(f"{way}: median {got['all']['median']} ms, then {again['all']['median']} ms")
    runs["load"] = os.getloadavg()[0]
    print(key, json.dumps(runs))
    if failed and not os.environ.get("BPE_VIZ_STRICT_LATENCY"):
        # a shared CI machine cannot promise a browser's timing: the figures are recorded either
        # way (test-artifacts/browser/latency.json); BPE_VIZ_STRICT_LATENCY=1 makes a miss fail
        pytest.skip(f"{key}: over the {TARGET_MS:.0f} ms target on this machine (load "
                    f"{os.getloadavg()[0]:.1f}): " + "; ".join(failed))
    assert not failed, f"{key}: over the {TARGET_MS:.0f} ms target: " + "; ".join(failed)
