"""A click anywhere on the step slider's track, in JupyterLab in Chromium (issue 20).

The page tells the kernel which steps a click on the track can reach (one per whole pixel:
noUiSlider reads the pointer's whole-pixel position), and the idle kernel sends them ahead,
compressed (bpe_viz/widgets/step_pane.js, StepPane.pack). Checked here on a real text whose
3,000 merges outnumber the track's pixels:

* every step the track can reach comes to the page, and no other;
* with the kernel busy (a cell sleeps), clicks at random places of the track, the pointer never
  resting first, each show that step at once: the right merge, and nothing asked of the kernel;
* a drag ends on a step the page has too.

Its timing is tests/test_latency.py's (the "jump" and "drag" ways); the kernel's side (what it
sends, in which order, that each step unpacks to the step shown) is tests/test_step_pane.py's.
"""

from __future__ import annotations

import random

import pytest

from browser_support import SKIP_REASON

if not SKIP_REASON:  # else conftest.py marks every test here skipped, with the reason
    from playwright.sync_api import expect

import browser_support as bs  # noqa: E402
from bpe_viz import corpora, train_bpe  # noqa: E402

MERGES = 3000
SCRATCH = "scratch/track.ipynb"
CELLS = {
    "imports": "from bpe_viz import corpora, train_bpe\nfrom bpe_viz.widgets import MergeExplorer",
    "merge": f'ex = MergeExplorer.from_trace(train_bpe(corpora.load("python-docs"), {MERGES}, preset="subword-nmt"))\nex',
    # a button that keeps the kernel busy for 8 s, then says so
    "busy": ("import time, ipywidgets as w\nbusy_btn, busy_out = w.Button(description='busy'), w.Label('idle')\n"
             "def busy(_b):\n    busy_out.value = 'busy'\n    time.sleep(8)\n    busy_out.value = 'done'\n"
             "busy_btn.on_click(busy)\nw.HBox([busy_btn, busy_out])"),
}

# what the page's panes did (step_pane.js keeps the counts in globalThis.__bpeStepPane)
STATS_JS = "() => { const s = globalThis.__bpeStepPane || {}; return {asked: s.asked || 0, packed: s.packed || 0, tracks: s.tracks || 0}; }"
# the steps the page was sent packed, for the explorer's pane (by its output's element)
TRACK_JS = r"""
(root) => {
  const base = root.querySelector('.bpe-step-slider .noUi-base');
  const handle = base.querySelector('.noUi-handle');
  const box = base.getBoundingClientRect();
  const hi = Number(handle.getAttribute('aria-valuemax'));
  const steps = new Set();
  for (let x = Math.floor(box.left); x <= box.right + 1; x += 1) {
    steps.add(Math.round(Math.min(Math.max((x - box.left) / box.width, 0), 1) * hi));
  }
  return {steps: [...steps], width: box.width};
}
"""


@pytest.fixture(scope="module")
def track_nb(lab, lab_app):
    with bs.run_scratch_notebook(lab_app, lab, SCRATCH, CELLS, shown=".bpe-explorer", no_widget=("imports", "busy"),
                                 viewport={"width": 1366, "height": 1000}, timeout=150_000) as run:
        yield run.page, run.outputs


@pytest.fixture(scope="module")
def trace():
    return train_bpe(corpora.load("python-docs"), MERGES, preset="subword-nmt")


def header(out):
    return out.locator(".bpe-message").first


def moved_from(page, slider, before: int) -> int:
    """The slider's value once it is no longer ``before`` (its readout follows the input)."""
    for _ in range(100):
        k = bs.slider_value(slider)
        if k != before:
            return k
        page.wait_for_timeout(10)
    raise AssertionError(f"the slider stayed at {before}")


def test_a_click_anywhere_on_the_track_shows_its_step_without_the_kernel(track_nb, trace):
    page, outs = track_nb
    out, busy = outs["merge"], outs["busy"]
    slider = bs.control(out, "slider", "step")
    slider.scroll_into_view_if_needed()
    reach = page.evaluate(TRACK_JS, out.element_handle())
    assert 200 < len(reach["steps"]) < MERGES, reach  # (fewer pixels than steps: the pixels decide)
    # the idle kernel sends the track's steps (a step of this trace: 5-20 ms, so about 5 s)
    page.wait_for_function(f"() => (globalThis.__bpeStepPane || {{}}).packed >= {len(reach['steps']) - 20}",
                           timeout=90_000)
    stats = page.evaluate(STATS_JS)
    assert stats["tracks"] >= 1 and stats["packed"] <= len(reach["steps"]), stats  # that track's steps, once

    button = busy.locator("button", has_text="busy")
    button.scroll_into_view_if_needed()
    button.click()
    expect(busy.locator(".widget-label").first).to_have_text("busy", timeout=5000)
    slider.scroll_into_view_if_needed()
    asked = page.evaluate(STATS_JS)["asked"]
    rng = random.Random(20)
    box = slider.locator(".noUi-base").bounding_box()
    seen = []
    for _ in range(6):
        h = slider.locator(".noUi-handle").bounding_box()
        x = box["x"] + box["width"] * rng.uniform(0.05, 0.95)
        while abs(x - (h["x"] + h["width"] / 2)) < h["width"] * 1.5:  # on the handle: no jump
            x = box["x"] + box["width"] * rng.uniform(0.05, 0.95)
        before = bs.slider_value(slider)
        page.mouse.click(x, box["y"] + box["height"] / 2)  # no rest first: a jump
        k = moved_from(page, slider, before)
        assert k in reach["steps"]
        expect(header(out)).to_contain_text(f"Step {k} of {MERGES}", timeout=1500)
        m = trace.merges[k - 1]
        expect(out.locator(".bpe-merge").first).to_contain_text(f"merge {k}: ({m.pair[0]}, {m.pair[1]}) → {m.token}")
        seen.append(k)
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] - 200)  # off the track again
        page.wait_for_timeout(400)  # (noUiSlider's handle glides there meanwhile)
    # a drag of the handle, let go at once: its last step is in the page too
    handle = slider.locator(".noUi-handle").bounding_box()
    x, y = handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    for i in range(1, 8):
        page.mouse.move(x - 7 * i, y)
    page.mouse.up()
    k = moved_from(page, slider, seen[-1])
    expect(header(out)).to_contain_text(f"Step {k} of {MERGES}", timeout=1500)
    assert len(set(seen)) >= 4 and k != seen[-1]
    # all of it while the kernel slept: nothing was asked of it, and it was still busy after
    assert page.evaluate(STATS_JS)["asked"] == asked
    assert busy.locator(".widget-label").first.inner_text() == "busy", "the kernel was not busy: nothing shown"
    expect(busy.locator(".widget-label").first).to_have_text("done", timeout=15_000)
