"""The step pane (bpe_viz/widgets/step_pane.py): what the kernel sends the page, and when.

The page's side (step_pane.js: a step it has is shown without the kernel) is tested in a real
browser by tests/browser/test_classroom_lab.py::test_step_pane_moves_without_the_kernel and
tests/browser/test_step_pane_page.py (one step asked for at a time, against a fake kernel), and
timed by tests/browser/test_latency.py.
"""

from __future__ import annotations

import asyncio
import zlib
from pathlib import Path

import pytest

from bpe_viz import corpora, train_bpe, train_wordpiece
from loop_support import without_a_running_loop
from bpe_viz.widgets import CompareExplorer, MergeExplorer
from bpe_viz.widgets.controls import PROJECTOR
from bpe_viz.widgets import step_pane
from bpe_viz.widgets.step_pane import StepCache, StepPane
from bpe_viz.widgets.warm import Warmer


class Sent(list):
    """Stands in for the page: what a pane sends, as (generation, step, html); the steps sent
    packed (compressed, in the message's buffers) go to ``packed``, unpacked."""

    def __init__(self, pane):
        super().__init__()
        self.packed = []
        pane.send = self._send

    def _send(self, content, buffers=None):
        if content["kind"] == "packed":
            assert len(buffers) == len(content["packed"])
            self.packed.extend((content["generation"], k, zlib.decompress(b).decode("utf-8"))
                               for k, b in zip(content["packed"], buffers))
        else:
            self.extend((content["generation"], k, html) for k, html in content["steps"])


@pytest.fixture(scope="module")
def docs_trace():
    return train_bpe(corpora.load("python-docs"), 300, preset="subword-nmt")


@without_a_running_loop
def test_pane_sends_each_step_once_per_generation():
    asked = []
    pane = StepPane(want=asked.append)
    sent = Sent(pane)
    pane.set_step(2, "<p>2</p>")
    assert (pane.html_step, pane.html, pane.html_generation) == (2, "<p>2</p>", 0)
    assert pane.push(3, "<p>3</p>") and not pane.push(3, "<p>3</p>") and not pane.push(2, "<p>2</p>")
    assert sent == [(0, 3, "<p>3</p>")]
    # the page asks for a step it lacks: the explorer is told (also for one sent before: the page
    # keeps the latest LIMIT steps only); not for an old generation's step
    pane._on_msg(pane, {"kind": "want", "generation": 0, "step": 9}, [])
    pane._on_msg(pane, {"kind": "want", "generation": 0, "step": 3}, [])
    pane._on_msg(pane, {"kind": "want", "generation": 5, "step": 10}, [])
    pane._on_msg(pane, {"kind": "something else"}, [])
    assert asked == [9, 3] and pane.asked == 2 and not pane.has(3)
    pane.new_generation()
    assert pane.generation == 1 and not pane.has(3) and pane.push(3, "<p>3 again</p>")
    assert sent[-1] == (1, 3, "<p>3 again</p>")


def test_pane_forgets_what_the_page_no_longer_keeps():
    pane = StepPane()
    Sent(pane)
    for k in range(StepPane.LIMIT + 5):
        pane.push(k, "x")
    assert not pane.has(0) and not pane.has(4) and pane.has(5) and pane.has(StepPane.LIMIT + 4)
    js = (Path(step_pane.__file__).with_name("step_pane.js")).read_text(encoding="utf-8")
    assert f"const LIMIT = {StepPane.LIMIT};" in js


def test_step_cache_keeps_the_latest_steps_of_one_key():
    c = StepCache(size=3)
    assert c.for_(("trace", 1.0)) and not c.for_(("trace", 1.0))
    for k in range(5):
        c.put(k, (str(k),))
    assert [c.get(k) for k in range(5)] == [None, None, ("2",), ("3",), ("4",)]
    assert c.for_(("trace", PROJECTOR)) and c.get(4) is None


def test_a_step_sent_ahead_is_the_step_shown_later(docs_trace):
    """What the page keeps for step k is exactly what the explorer shows at k (and what a fresh
    explorer shows): a step looks the same whichever way it reached the page."""
    ex = MergeExplorer.from_trace(docs_trace)
    sent = Sent(ex._pane)
    ex.step = 100
    ex._send_step(101)
    ex._send_step(250)
    ex._send_step(100)  # shown already: not sent again
    ex._send_step(len(docs_trace))  # past the end: nothing
    assert [(g, k) for g, k, _ in sent] == [(ex._pane.generation, 101), (ex._pane.generation, 250)]
    for _g, k, html in sent:
        fresh = MergeExplorer.from_trace(docs_trace)
        fresh.step = k
        assert html == fresh._pane.html
        ex.step = k
        assert ex._pane.html == html and ex._pane.html_step == k
    assert "Step 250 of" in sent[1][2] and "Step 101 of" in sent[0][2]


@pytest.mark.parametrize("change", ["size", "chart", "sentence", "retrain"])
def test_what_every_step_depends_on_starts_a_new_generation(change):
    ex = MergeExplorer("sennrich2016", 10)
    sent = Sent(ex._pane)
    ex.step = 4
    ex._send_step(5)
    before = ex._pane.generation
    if change == "size":
        ex.size = PROJECTOR
    elif change == "chart":
        ex.chart = "compression"
    elif change == "sentence":
        ex.sentence = "lowest newer"
    else:
        ex.num_merges = 8
    assert ex._pane.generation == before + 1 and ex._pane.html_generation == ex._pane.generation
    assert not ex._pane.has(5)
    ex._send_step(5)
    assert sent[-1][0] == ex._pane.generation and (sent[-1][1], sent[0][1]) == (5, 5)
    if change != "retrain":  # (8 merges of the same corpus: step 5 is the same, its header is not)
        assert sent[-1][2] != sent[0][2]


@without_a_running_loop
def test_the_page_asks_for_a_jump_and_gets_it():
    ex = CompareExplorer("hf-course", 8)
    sent = Sent(ex._pane)
    ex.step = 1
    ex._pane._on_msg(ex._pane, {"kind": "want", "generation": ex._pane.generation, "step": 6}, [])
    assert [k for _g, k, _h in sent] == [6]
    fresh = CompareExplorer("hf-course", 8)
    fresh.step = 6
    assert sent[0][2] == fresh._pane.html and 'data-bpe-chart-step="6"' in sent[0][2]


@without_a_running_loop
def test_idle_time_sends_the_next_steps_ahead(docs_trace):
    """In a running event loop (a kernel's), after showing k the explorer sends k+1, k-1, k+2...
    (what arrow keys and Play ask next), one step per turn of the loop."""
    ex = MergeExplorer.from_trace(docs_trace)
    sent = Sent(ex._pane)

    async def step_then_idle():
        ex.step = 150
        await asyncio.sleep(1.0)

    asyncio.run(step_then_idle())
    ahead = [k for _g, k, _h in sent]
    assert ahead[:3] == [151, 149, 152] and set(ahead) >= {151, 149, 152, 153, 148, 154}
    assert all(g == ex._pane.generation for g, _k, _h in sent)


@without_a_running_loop
def test_a_bad_input_sends_nothing():
    ex = MergeExplorer("sennrich2016", 10)
    sent = Sent(ex._pane)
    ex.step = 3
    ex.num_merges = 0  # a message in place of the view; the steps wait
    assert ex.error is not None
    ex._send_step(4)
    ex._pane._on_msg(ex._pane, {"kind": "want", "generation": ex._pane.generation, "step": 5}, [])
    assert sent == []


def test_wordpiece_and_bpe_panes_have_their_own_ids():
    text = corpora.load("hf-course")
    a = CompareExplorer.from_traces(train_bpe(text, 5, preset="hf-course"), train_wordpiece(text, 5))
    b = MergeExplorer("sennrich2016", 5)
    assert a._pane.pane_id != b._pane.pane_id and len(a._pane.pane_id) == 32


@without_a_running_loop
def test_a_burst_of_requests_is_answered_by_the_sliders_latest_first():
    """In a kernel (a running event loop), requests that arrive together are answered on the
    loop's next turn: the slider's latest step first (the page asks for one at a time; older ones
    are behind the handle), then the latest two under a resting pointer (``hover``: it asks for
    two at once), latest first. A step both asked for is the slider's."""
    asked = []
    pane = StepPane(want=asked.append)

    def want(k, **more):
        pane._on_msg(pane, {"kind": "want", "generation": 0, "step": k, **more}, [])

    async def burst():
        for k in (10, 20, 30, 40, 50):
            want(k)
        assert asked == []
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert asked == [50]
        want(7, hover=True), want(8, hover=True), want(60), want(9, hover=True), want(61, hover=True)
        want(62, hover=True), want(62)
        await asyncio.sleep(0)
        await asyncio.sleep(0)

    asyncio.run(burst())
    assert asked == [50, 62, 61, 9] and pane.asked == 12


@pytest.fixture(scope="module")
def unigram_trace():
    """The sentencepiece flavour on the docs' first 30,000 characters: a few rounds."""
    from bpe_viz.engine.unigram import train_unigram

    return train_unigram(corpora.load("python-docs")[:30_000], 800, flavour="sentencepiece")


@without_a_running_loop
def test_unigram_rounds_are_all_sent_ahead_and_equal_a_fresh_view(unigram_trace):
    """The UnigramExplorer (issue 20): after showing a round, idle time sends every other round
    (nearest first), so a jump of its slider never waits for the kernel; what the page keeps for
    round k is what an explorer shows at round k, lattice included."""
    from bpe_viz.widgets import UnigramExplorer

    last = len(unigram_trace) - 1
    assert last >= 2
    ex = UnigramExplorer(unigram_trace, word="tokenizer")
    sent = Sent(ex._pane)

    async def show_then_idle():
        ex.step = 1
        await asyncio.sleep(0.5 + 0.05 * last)

    asyncio.run(show_then_idle())
    ahead = [k for _g, k, _h in sent]
    # (round 0 was shown, so sent, when the explorer was made)
    assert sorted(ahead) == list(range(2, last + 1)) and ahead[0] == 2
    for _g, k, html in sent:
        fresh = UnigramExplorer(unigram_trace, word="tokenizer")
        fresh.step = k
        assert html == fresh._pane.html and f"Round {k} of {last}" in html and "at round" in html
        assert fresh.lattice_html in html and fresh._chart_view.value in html


@without_a_running_loop
def test_unigram_word_and_size_start_a_new_generation(unigram_trace):
    from bpe_viz.widgets import UnigramExplorer

    ex = UnigramExplorer(unigram_trace, word="tokenizer")
    sent = Sent(ex._pane)
    ex._send_step(1)
    before, html = ex._pane.generation, sent[-1][2]
    ex.word = "function"
    assert ex._pane.generation == before + 1 and "function" in ex._pane.html and not ex._pane.has(1)
    ex._send_step(1)
    assert sent[-1][2] != html and "function" in sent[-1][2]
    ex.size = PROJECTOR
    assert ex._pane.generation == before + 2
    ex.word = "two words"  # a readable message in the lattice's place; the rounds still show
    assert "one word" in ex.lattice_html and "bpe-error" in ex._pane.html and "Round 0 of" in ex._pane.html


@without_a_running_loop
def test_a_step_the_page_has_goes_into_the_state_once_the_kernel_settles():
    """With a page there (it has asked for a step) and a kernel's loop running, a step the page
    was sent is shown there from what it keeps; its HTML goes into the model's state (what a new
    view and a saved notebook show) SETTLE seconds later, the latest only (issue 20: the same
    57-87 kB again slowed the paint of a jump, and went out for every step of a drag)."""
    pane = StepPane(want=lambda k: pane.push(k, f"<p>{k}</p>"))
    sent = Sent(pane)
    pane.set_step(0, "<p>0</p>")

    async def page_then_idle():
        pane.push(3, "<p>3</p>")
        pane.set_step(3, "<p>3</p>")  # no page yet (a notebook run by nbconvert): written at once
        assert (pane.html_step, pane.html) == (3, "<p>3</p>")
        pane._on_msg(pane, {"kind": "want", "generation": pane.generation, "step": 7}, [])  # a jump
        await asyncio.sleep(0)
        pane.set_step(7, "<p>7</p>")  # then the slider's value comes: the page has step 7
        assert (pane.html_step, pane.html) == (3, "<p>3</p>")
        pane.set_step(9, "<p>9</p>")  # a step the page lacks: at once
        assert (pane.html_step, pane.html) == (9, "<p>9</p>")
        pane.push(10, "<p>10</p>")
        pane.set_step(10, "<p>10</p>")
        pane.push(11, "<p>11</p>")
        pane.set_step(11, "<p>11</p>")
        assert pane.html_step == 9
        await asyncio.sleep(pane.SETTLE + 0.1)
        assert (pane.html_step, pane.html, pane.html_generation) == (11, "<p>11</p>", pane.generation)
        pane.push(12, "<p>12</p>")
        pane.set_step(12, "<p>12</p>")
        pane.new_generation()  # (a new size: the kernel shows a step of the new generation next)
        await asyncio.sleep(pane.SETTLE + 0.1)
        assert pane.html_step == 11

    asyncio.run(page_then_idle())
    assert [k for _, k, _ in sent] == [3, 7, 10, 11, 12]


@without_a_running_loop
def test_after_a_jump_the_next_steps_wait_until_the_page_painted_it():
    """Steps prepared ahead start Warmer.AFTER_ASKED seconds after the page asked for one it
    lacked (on two cores, preparing them at once slowed the paint of the jump)."""
    times = []

    async def jump():
        loop = asyncio.get_running_loop()
        warmer = Warmer(lambda k: times.append((k, loop.time())))
        t0 = loop.time()
        warmer.asked()
        warmer.after_step([5, 3])
        await asyncio.sleep(Warmer.AFTER_ASKED / 2)
        assert times == []
        await asyncio.sleep(Warmer.AFTER_ASKED)
        assert [k for k, _ in times] == [5, 3] and times[0][1] >= t0 + Warmer.AFTER_ASKED - 0.01
        times.clear()
        warmer.after_step([6])  # (a step after that: the usual short wait)
        await asyncio.sleep(Warmer.DELAY + 0.05)
        assert [k for k, _ in times] == [6]

    asyncio.run(jump())


def two_explorers(kind: str, docs_trace, merges: int):
    """Two explorers of the same traces (one to drive, one fresh to compare with): a stepper of
    ``docs_trace``, or a compare explorer of ``merges`` merges on the docs."""
    if kind == "merge":
        return MergeExplorer.from_trace(docs_trace), MergeExplorer.from_trace(docs_trace)
    text = corpora.load("python-docs")
    pair = train_bpe(text, merges, preset="hf-course"), train_wordpiece(text, merges)
    return CompareExplorer.from_traces(*pair), CompareExplorer.from_traces(*pair)


@without_a_running_loop
@pytest.mark.parametrize("kind", ["merge", "compare"])
def test_a_step_the_page_moved_to_is_rendered_when_the_slider_settles(docs_trace, kind):
    """The values a drag passes (the page's slider sets them; the kernel has not rendered them)
    are rendered only once the slider rests (SETTLE s): the page asks for the step it lacks
    itself, one at a time. Whatever reads the view meanwhile gets the step the slider is on."""
    ex, fresh = two_explorers(kind, docs_trace, 60)
    Sent(ex._pane)
    rendered = []
    parts = ex._step_parts
    ex._step_parts = lambda k: rendered.append(k) or parts(k)

    async def drag():
        ex._pane._on_msg(ex._pane, {"kind": "want", "generation": ex._pane.generation, "step": 3}, [])
        await asyncio.sleep(0)  # (a page is there: it asked for step 3, the kernel sent it)
        assert rendered == [3]
        for k in (5, 6, 7):  # a drag: the page sends the slider's values
            ex._slider.set_state({"value": k})
            assert ex.step == k
        assert rendered == [3]  # none rendered yet...
        fresh.step = 7
        assert ex.view_html == fresh.view_html  # ... but reading the view renders the one it is on
        assert rendered == [3, 7]
        await asyncio.sleep(1.0)  # (the steps next to 7 are sent ahead meanwhile)
        rendered.clear()
        ex._slider.set_state({"value": 40})
        await asyncio.sleep(0.05)
        assert rendered == []
        ex._slider.set_state({"value": 25})
        await asyncio.sleep(StepPane.SETTLE + 0.05)  # the slider rests: step 25 rendered, then its neighbours
        assert rendered[0] == 25 and 40 not in rendered
        fresh.step = 25
        assert ex.view_html == fresh.view_html and ex._pane.html_step == 25
        await asyncio.sleep(1.0)
        rendered.clear()
        ex._slider.set_state({"value": 26})  # (sent ahead meanwhile: kept, so shown at once)
        fresh.step = 26
        assert rendered == [26] and ex._header.value == fresh._header.value
        ex.step = 12  # from code: at once
        assert rendered[-1] == 12

    asyncio.run(drag())


# -- the steps under the slider's track (issue 20: a click anywhere on it costs no round trip) ----

@without_a_running_loop
def test_the_track_is_packed_once_and_forgotten_with_its_generation():
    tracks = []
    pane = StepPane(track=tracks.append)
    sent = Sent(pane)
    html = "<p>step 7, " + "é" * 500 + "</p>"
    assert pane.pack(7, html) and not pane.pack(7, html) and pane.has(7)
    assert sent.packed == [(0, 7, html)] and sent == []
    assert not pane.push(7, html)  # (the page has it, packed)
    # the page sends its track: whole numbers of this generation only, for the explorer
    pane._on_msg(pane, {"kind": "track", "generation": 0, "steps": [1, 2, True, "3", 2.5, 9]}, [])
    pane._on_msg(pane, {"kind": "track", "generation": 4, "steps": [5]}, [])
    pane._on_msg(pane, {"kind": "track", "generation": 0, "steps": "1,2"}, [])
    assert tracks == [[1, 2, 9]] and pane.page
    # a step the page asks for is one it lost: sent again, as HTML
    pane._on_msg(pane, {"kind": "want", "generation": 0, "step": 7}, [])
    assert not pane.has(7) and pane.push(7, html)
    pane.pack(8, html)
    pane.new_generation()
    assert not pane.has(8) and pane.pack(8, html) and sent.packed[-1] == (1, 8, html)


@without_a_running_loop
def test_background_jobs_wait_for_an_idle_learner():
    """Background jobs (the track's steps) run after the neighbours of the step shown, and only
    once no step was shown or asked for during Warmer.IDLE seconds; a new step pauses them."""
    done = []

    async def run():
        loop = asyncio.get_running_loop()
        warmer = Warmer(lambda k: done.append(("near", k, loop.time())))
        warmer.IDLE = 0.2
        t0 = loop.time()
        warmer.after_step([5, 4])
        warmer.background([lambda k=k: done.append(("track", k, loop.time())) for k in (100, 200, 300)])
        await asyncio.sleep(0.1)
        assert [(w, k) for w, k, _ in done] == [("near", 5), ("near", 4)]
        await asyncio.sleep(0.2)
        assert [(w, k) for w, k, _ in done][2:] == [("track", 100), ("track", 200), ("track", 300)]
        assert done[2][2] >= t0 + 0.2 - 0.01
        done.clear()
        warmer.background([lambda k=k: done.append(("track", k, loop.time())) for k in (400, 500)])
        warmer.after_step([9])  # the learner moved: the background waits again
        t1 = loop.time()
        await asyncio.sleep(0.1)
        assert [(w, k) for w, k, _ in done] == [("near", 9)]
        warmer.asked()  # ... and again, after a step the page asked for
        await asyncio.sleep(0.15)
        assert [(w, k) for w, k, _ in done] == [("near", 9)]
        await asyncio.sleep(0.2)
        assert [(w, k) for w, k, _ in done] == [("near", 9), ("track", 400), ("track", 500)]
        assert done[1][2] >= t1 + 0.3 - 0.01
        assert warmer.background_done == 5

    asyncio.run(run())


@without_a_running_loop
@pytest.mark.parametrize("kind", ["merge", "compare"])
def test_the_tracks_steps_are_sent_packed_and_are_the_steps_shown(docs_trace, kind, monkeypatch):
    """The page sends the steps under its track; the idle kernel sends each packed (nearest the
    slider's step first), and each unpacks to exactly what a fresh explorer shows at that step.
    The steps the kernel keeps for the slider's neighbours stay kept."""
    monkeypatch.setattr(Warmer, "IDLE", 0.05)
    ex, fresh = two_explorers(kind, docs_trace, 120)
    sent = Sent(ex._pane)
    track = [0, 9, 19, 28, 38, 47, 57, 66, 76, 85, 95, 104, 114, 120, 999, -1]

    async def idle():
        ex.step = 60
        await asyncio.sleep(1.5)  # the neighbours go first
        kept = {k for k in range(ex._last_step() + 1) if ex._steps.get(k) is not None}
        assert {59, 61, 62} <= kept
        ex._pane._on_msg(ex._pane, {"kind": "track", "generation": ex._pane.generation, "steps": track}, [])
        await asyncio.sleep(3.0)
        assert {k for k in range(ex._last_step() + 1) if ex._steps.get(k) is not None} == kept

    asyncio.run(idle())
    packed = [k for _g, k, _h in sent.packed]
    # the page has these already: the first step shown (0, in the state) and the neighbours sent
    # ahead as HTML (for the stepper, 66 and 57 among them)
    ahead = {0} | {k for _g, k, _h in sent}
    assert kind == "compare" or {57, 66} <= ahead, "the neighbours were not all sent: the test waits too little"
    assert packed == [k for k in (57, 66, 47, 76, 38, 85, 28, 95, 19, 104, 9, 114, 0, 120) if k not in ahead]
    for _g, k, html in sent.packed:
        fresh.step = k
        assert html == fresh._pane.html
