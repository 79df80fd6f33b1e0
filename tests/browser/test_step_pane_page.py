"""The step pane's front end (bpe_viz/widgets/step_pane.js) in Chromium, against a fake kernel.

No JupyterLab here: the module is loaded in a blank page and given a stand-in for its widget
model (``get``/``set``/``on``/``off``/``send``) and a kernel that answers each "want" after a
fixed render time, one after the other, as a real kernel does. What is checked is the page's
side of issue 20's drag: at most one step is asked for at a time, the step the slider is on
when an answer comes is asked next, a late answer is kept but never shown over the slider's
step, a lost answer is asked for again, a new generation asks at once, and a pointer asks for
the step under it only when it rests with no button down.

The real pane in JupyterLab: tests/browser/test_classroom_lab.py (moves without the kernel) and
tests/browser/test_latency.py (timed).
"""

from __future__ import annotations

import base64
import random
import zlib

import pytest

import browser_support as bs

SOURCE = bs.ROOT / "bpe_viz" / "widgets" / "step_pane.js"
RENDER_MS = 100  # the fake kernel's time per step asked for
RETRY_MS = 300  # as step_pane.js's

# The fake model and kernel. ``pane.wants``: every message the page sent, with its time;
# ``pane.shown``: every step put in the pane's element, with its time; ``kernel.drop``: how many
# of the next requests the kernel loses.
SETUP = """async ([url, renderMs]) => {
  const mod = (await import(url)).default;
  const handlers = new Map();
  const state = {pane_id: "pane-" + Math.random(), step: 0, generation: 1,
                 html: "<p>step 0</p>", html_step: 0, html_generation: 1};
  const wants = [], shown = [], kernel = {drop: 0, busyUntil: 0};
  const model = {
    get: (name) => state[name],
    on: (event, f) => handlers.set(event, [...(handlers.get(event) || []), f]),
    off: (event, f) => handlers.set(event, (handlers.get(event) || []).filter((g) => g !== f)),
    emit: (event, ...args) => (handlers.get(event) || []).slice().forEach((f) => f(...args)),
    set: (name, value) => { state[name] = value; model.emit("change:" + name); },
    send: (msg) => {
      wants.push({...msg, t: performance.now()});
      if (kernel.drop > 0) { kernel.drop -= 1; return; }
      const now = performance.now();  // one step after the other, renderMs each
      kernel.busyUntil = Math.max(kernel.busyUntil, now) + renderMs;
      const steps = [[msg.step, `<p>step ${msg.step}</p>`]];
      setTimeout(() => model.emit("msg:custom", {kind: "steps", generation: msg.generation, steps}),
                 kernel.busyUntil - now);
    },
  };
  mod.initialize({model});
  // (an explorer: its step slider as ipywidgets 8 draws it, steps 0-100 over 500 px, and the pane)
  document.body.innerHTML = `<div class="bpe-explorer"><div class="widget-slider" style="margin:0;padding:0">
    <div class="noUi-base" style="position:absolute;left:0;top:0;width:500px;height:20px">
    <div class="noUi-handle" aria-valuemin="0" aria-valuemax="100"></div></div></div>
    <div id="pane" style="margin-top:40px"></div></div>`;
  const el = document.getElementById("pane");
  new MutationObserver(() => shown.push({k: Number(el.getAttribute("data-bpe-step")), t: performance.now()}))
    .observe(el, {attributes: true, attributeFilter: ["data-bpe-step"]});
  mod.render({model, el});
  window.pane = {model, el, wants, shown, kernel, t0: performance.now()};
}"""

DRAG = """async ([to, everyMs]) => {
  for (let k = pane.model.get("step") + 1; k <= to; k++) {
    pane.model.set("step", k);
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return performance.now() - everyMs;
}"""


def module_url() -> str:
    return "data:text/javascript;base64," + base64.b64encode(SOURCE.read_bytes()).decode()


@pytest.fixture(scope="module")
def docs_steps() -> list[str]:
    """Three steps of a stepper on Python's documentation, as the kernel renders them."""
    from bpe_viz import corpora, train_bpe
    from bpe_viz.widgets import MergeExplorer
    ex = MergeExplorer.from_trace(train_bpe(corpora.load("python-docs"), 400, preset="subword-nmt"),
                                  sentence=corpora.SAMPLES["python-docs"])
    return [ex._compose(ex._step_parts(k)) for k in (0, 1, 399)]


@pytest.fixture
def page(browser):
    ps = bs.Pages(browser, "step_pane_page")
    failed = True
    try:
        page = ps.new()
        page.set_content("<!doctype html><title>step pane</title><body></body>")
        page.evaluate(SETUP, [module_url(), RENDER_MS])
        page.wait_for_function("pane.el.getAttribute('data-bpe-step') === '0'")
        yield page
        failed = False
    finally:
        ps.close(failed=failed)


def wants(page) -> list:
    return page.evaluate("pane.wants")


def test_a_drag_asks_for_one_step_at_a_time(page):
    """20 steps the page lacks, one every 16 ms, against a kernel taking 100 ms a step: asking for
    each (20 requests, the last one answered 2 s later) would make the final step wait behind the
    others; the page asks for the first, then for the slider's step each time an answer comes."""
    last_move = page.evaluate(DRAG, [20, 16])
    page.wait_for_function("pane.el.getAttribute('data-bpe-step') === '20'", timeout=5_000)
    asked = wants(page)
    shown = page.evaluate("pane.shown")
    assert [w["step"] for w in asked][0] == 1 and asked[-1]["step"] == 20
    assert 2 <= len(asked) <= 7, asked  # (~320 ms of drag / 100 ms a step, + the last)
    # one at a time: each asked for once the one before had come
    assert all(b["t"] - a["t"] >= RENDER_MS - 5 for a, b in zip(asked, asked[1:])), asked
    assert all(w["generation"] == 1 and "hover" not in w for w in asked)
    # the steps that came after the slider left them were never shown: only the last one
    assert [s["k"] for s in shown] == [0, 20], shown
    assert shown[-1]["t"] - last_move <= 2 * RENDER_MS + 150, (shown, last_move)
    # ... but kept: going back to one shows it at once, nothing asked
    page.evaluate("pane.model.set('step', 1)")
    assert page.evaluate("pane.el.getAttribute('data-bpe-step')") == "1"
    assert len(wants(page)) == len(asked) and page.evaluate("pane.el.hasAttribute('aria-busy')") is False


def test_a_late_step_never_shows_over_the_sliders(page):
    """The slider leaves a step it asked for for one the page has: the answer comes, is kept,
    and the pane stays on the slider's step."""
    page.evaluate("pane.model.set('step', 7)")
    assert page.evaluate("pane.el.getAttribute('aria-busy')") == "true"
    page.evaluate("pane.model.set('step', 0)")  # the page has it
    assert page.evaluate("pane.el.getAttribute('data-bpe-step')") == "0"
    page.wait_for_timeout(RENDER_MS + 100)  # step 7 has come
    assert page.evaluate("pane.el.getAttribute('data-bpe-step')") == "0"
    page.evaluate("pane.model.set('step', 7)")
    assert page.evaluate("pane.el.getAttribute('data-bpe-step')") == "7"
    assert [w["step"] for w in wants(page)] == [7]


def test_a_lost_answer_is_asked_for_again(page):
    page.evaluate("pane.kernel.drop = 1")
    page.evaluate("pane.model.set('step', 5)")
    page.wait_for_timeout(50)
    page.evaluate("pane.model.set('step', 6)")  # (one is out: not asked yet)
    page.wait_for_function("pane.el.getAttribute('data-bpe-step') === '6'", timeout=5_000)
    asked = wants(page)
    assert [w["step"] for w in asked] == [5, 6], asked
    assert RETRY_MS - 10 <= asked[1]["t"] - asked[0]["t"] <= RETRY_MS + 250, asked


def test_a_new_generation_asks_at_once(page):
    """A step asked for in the old generation (a new size, chart, trace...) is not waited for."""
    page.evaluate("pane.model.set('step', 5)")
    page.evaluate("pane.model.set('generation', 2)")
    page.wait_for_function("pane.el.getAttribute('data-bpe-step') === '5'", timeout=5_000)
    asked = wants(page)
    assert [(w["generation"], w["step"]) for w in asked] == [(1, 5), (2, 5)]
    assert asked[1]["t"] - asked[0]["t"] < RENDER_MS / 2
    assert page.evaluate("pane.el.innerHTML") == "<p>step 5</p>"


def test_a_resting_pointer_asks_a_dragging_one_does_not(page):
    """A pointer resting over the slider's track asks for the step under it (``hover``); one
    moving with a button down (a drag) never does: those requests kept a busy kernel from the
    drag's final step for seconds."""
    page.mouse.move(200, 10)  # step 40
    page.wait_for_timeout(150)
    assert [(w["step"], w.get("hover")) for w in wants(page)] == [(40, True)]
    page.mouse.down()
    for x in range(205, 300, 5):
        page.mouse.move(x, 10)
        page.wait_for_timeout(60)  # (longer than the 40 ms a pointer must rest)
    page.mouse.up()
    assert len(wants(page)) == 1


def test_the_pane_does_not_shrink_within_a_generation(page):
    """A shorter step keeps the pane's height (the page below does not move up and down as the
    slider moves, and JupyterLab does not lay the notebook out again); a new generation (a new
    size, chart, sentence...) starts from its own steps' heights."""
    send = """([g, steps]) => pane.model.emit("msg:custom", {kind: "steps", generation: g, steps})"""
    tall, short = '<div style="height:300px">tall</div>', '<div style="height:20px">short</div>'
    page.evaluate(send, [1, [[10, tall], [11, short]]])
    height = "() => pane.el.getBoundingClientRect().height"
    page.evaluate("pane.model.set('step', 10)")
    page.wait_for_function("pane.el.style.minHeight === '300px'")
    page.evaluate("pane.model.set('step', 11)")
    page.wait_for_timeout(50)
    assert page.evaluate("pane.el.textContent") == "short" and page.evaluate(height) == 300
    page.evaluate(send, [2, [[11, short]]])
    page.evaluate("pane.model.set('generation', 2)")
    page.wait_for_function("pane.el.getBoundingClientRect().height === 20")
    assert page.evaluate("pane.el.textContent") == "short" and wants(page) == []


def test_the_end_of_a_drag_is_asked_for_at_once(page):
    """A drag over steps the page lacks, with a step out (asked for, not come: the kernel is
    busy) when the button is let go: the step the drag ended on is asked for at once, not a
    round trip after the answer of the step it passed; that answer asks for nothing more."""
    page.mouse.move(2, 10)
    page.mouse.down()
    page.evaluate("pane.kernel.busyUntil = performance.now() + 80")  # (busy with something else)
    page.evaluate(DRAG, [3, 10])  # steps 1..3 while the button is down: 1 is out
    page.mouse.up()
    up = page.evaluate("performance.now()")
    page.wait_for_function("pane.el.getAttribute('data-bpe-step') === '3'", timeout=5_000)
    page.wait_for_timeout(RETRY_MS + 100)
    asked = [(w["step"], w["t"]) for w in wants(page)]
    assert [k for k, _t in asked] == [1, 3], asked
    assert asked[1][1] - up < 50, (asked, up)  # at the button's release (else ~150 ms later)
    assert [s["k"] for s in page.evaluate("pane.shown")] == [0, 3]


def test_a_moving_drag_asks_only_where_it_rests_and_ends(page):
    """A pointer dragging over steps the page lacks asks for none while it moves (each would
    keep the kernel busy when the drag ends: the last step waited behind it), the step it rests
    on after DRAG_REST_MS (120), and the step it ends on when the button is let go; a click on
    the track (no move) asks at once."""
    moves = []

    def move_to(k):
        page.mouse.move(2 + 5 * k, 10)
        moves.append(page.evaluate("k => (pane.model.set('step', k), performance.now())", k))
        page.wait_for_timeout(16)

    page.mouse.move(2, 10)
    page.mouse.down()
    for k in range(1, 6):  # five steps, 16 ms apart, the pointer moving with them
        move_to(k)
    page.wait_for_timeout(200)  # it rests on step 5
    for k in range(6, 9):
        move_to(k)
    page.mouse.up()
    up = page.evaluate("performance.now()")
    page.wait_for_function("pane.el.getAttribute('data-bpe-step') === '8'", timeout=5_000)
    asked = [(w["step"], w["t"]) for w in wants(page)]
    # (a loaded machine may space two moves over 120 ms: only a pointer at rest may ask)
    during = [(k, t) for k, t in asked[:-1] if t < up]  # (the last: the release's)
    assert all(t - max(m for m in moves if m <= t) >= 110 for k, t in during), (asked, moves)
    assert 5 in [k for k, _t in during], (asked, moves)
    assert asked[-1][0] == 8 and asked[-1][1] - up < 50, (asked, up)
    page.mouse.move(300, 10)  # a click further on (a jump): asked for at once
    page.mouse.down()
    page.evaluate("pane.model.set('step', 60)")
    assert [w["step"] for w in wants(page)][-1] == 60
    page.mouse.up()


# -- the steps under the track, sent packed (issue 20) ---------------------------------------------

INFLATE = """async ([url, cases]) => {
  const {inflate} = await import(url);
  const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  return cases.map(([z, raw]) => {
    try {
      const out = inflate(bytes(z));
      const want = bytes(raw);
      return out.length === want.length && out.every((b, i) => b === want[i]) ? "same" : `differs (${out.length} bytes)`;
    } catch (err) {
      return "error: " + err.message;
    }
  });
}"""


def test_inflate_reads_what_pythons_zlib_writes(page, docs_steps):
    """step_pane.js's inflate against Python's zlib: real steps (non-ASCII text in them) at every
    level (0: stored blocks; 1: fixed and dynamic codes; 9), random bytes (codes over 9 bits long),
    a long run (copies reaching back over themselves), nothing; a cut or foreign stream fails."""
    rng = random.Random(11)
    raws = [h.encode("utf-8") for h in docs_steps] + [bytes(rng.randrange(256) for _ in range(5000)),
                                                      b"ab" * 40_000, b""]
    cases = [(zlib.compress(raw, level), raw) for raw in raws for level in (0, 1, 6, 9)]
    b64 = [[base64.b64encode(z).decode(), base64.b64encode(raw).decode()] for z, raw in cases]
    assert page.evaluate(INFLATE, [module_url(), b64]) == ["same"] * len(cases)
    z = zlib.compress(raws[0], 6)
    bad = [[base64.b64encode(x).decode(), ""] for x in (z[:len(z) // 2], b"\x00" * 8, zlib.compress(b"x")[:2] + b"\xff" * 6)]
    assert all(r.startswith("error: ") for r in page.evaluate(INFLATE, [module_url(), bad]))


PACKED = """([steps, b64s]) => {
  const buffers = b64s.map((b) => { const a = Uint8Array.from(atob(b), (c) => c.charCodeAt(0)); return new DataView(a.buffer); });
  pane.model.emit("msg:custom", {kind: "packed", generation: pane.model.get("generation"), packed: steps}, buffers);
}"""


def test_a_packed_step_is_shown_at_once_and_a_broken_one_is_asked_for(page):
    steps = {5: "<p>step 5 — ünïcödé ▁</p>", 9: "<p>step 9</p>"}
    b64 = [base64.b64encode(zlib.compress(h.encode("utf-8"))).decode() for h in steps.values()]
    page.evaluate(PACKED, [list(steps), b64])
    page.evaluate(PACKED, [[12], [base64.b64encode(b"\x78\x9c\xff\xff\xff\xff").decode()]])
    page.evaluate("pane.model.set('step', 5)")  # at once, in the same task: nothing asked
    assert page.evaluate("pane.el.innerHTML") == steps[5]
    page.evaluate("pane.model.set('step', 9)")
    assert page.evaluate("pane.el.innerHTML") == steps[9] and wants(page) == []
    page.evaluate("pane.model.set('step', 12)")  # it does not unpack: the kernel is asked
    page.wait_for_function("pane.el.getAttribute('data-bpe-step') === '12'", timeout=5_000)
    assert [w["step"] for w in wants(page)] == [12]
    # a new generation: the old one's packed steps go
    page.evaluate("pane.model.set('generation', 2)")
    page.evaluate("pane.model.set('step', 5)")
    page.wait_for_function("pane.el.getAttribute('data-bpe-step') === '5'", timeout=5_000)
    assert [(w["step"], w["generation"]) for w in wants(page)][-1] == (5, 2)


def test_the_page_sends_the_steps_under_its_step_sliders_track(page):
    """One step per whole pixel of the track (steps 0-100 over 500 px: all of them), sent once per
    generation and size of the track; a slider that is not the step slider is left out."""
    page.evaluate("""() => {
      const slider = document.querySelector('.widget-slider');
      slider.classList.add('bpe-step-slider');
      slider.querySelector('.noUi-base').style.width = '50px';  // 50 px for 101 steps
      window.dispatchEvent(new Event('resize'));
    }""")
    page.wait_for_function("pane.wants.some((w) => w.kind === 'track')", timeout=5_000)
    track = [w for w in wants(page) if w["kind"] == "track"]
    assert len(track) == 1 and track[0]["generation"] == 1
    # noUiSlider's value at each whole pixel x of the track (0 to 50 px): round(x / 50 * 100)
    assert sorted(track[0]["steps"]) == sorted({round(x / 50 * 100) for x in range(51)})
    page.wait_for_timeout(1500)  # (looked at again each second: the same track is not sent again)
    assert len([w for w in wants(page) if w["kind"] == "track"]) == 1
    page.evaluate("pane.model.set('generation', 2)")
    page.wait_for_function("pane.wants.filter((w) => w.kind === 'track').length === 2", timeout=5_000)
    assert [w for w in wants(page) if w["kind"] == "track"][-1]["generation"] == 2
