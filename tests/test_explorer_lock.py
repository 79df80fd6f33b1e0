"""Two threads driving one explorer at once: its handlers run one at a time.

Why: JupyterLab (4.4 on) sends widget messages over a kernel subshell, and ipykernel 7 runs a
control's handlers on the thread its messages come in on, so two controls of one explorer (the
slider and the sentence box, a step button and Train) can call back at the same moment on two
threads. Before the lock moved into :class:`~bpe_viz.widgets.explorer.Explorer`, only
SideBySideExplorer had one: a render started first could write its step's parts last, or into
the step cache of the other thread's sentence, and the view showed a step and a sentence that
were never set together.

The first test makes the race happen every time: thread A's render pauses inside a view
function until thread B has changed another setting (or, when B waits for A's lock, until a short
timeout), then writes what it drew. The others are stress rounds of two threads switching as
often as Python can. After each round (threads joined) the view must be exactly what one thread
alone shows for the final settings, and no thread may have raised.
"""

from __future__ import annotations

import asyncio
import functools
import random
import sys
import threading

import pytest
import traitlets

from bpe_viz import train_bpe, train_unigram, train_wordpiece
from bpe_viz.widgets import (CompareExplorer, MergeExplorer, SideBySideExplorer, UnigramExplorer, compare, merge,
                             side_by_side, training, unigram)
from bpe_viz.widgets.explorer import Explorer

CORPUS = "low lower lowest newest widest newer wider " * 4
SENTENCES = ["low newest", "lowest wider", "newer widest low", "lower"]
ROUNDS, MOVES = 6, 30


@pytest.fixture(autouse=True)
def switch_often():
    """Threads switch every 10 microseconds (the default 5 ms hides most races)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(before)


def run_together(*jobs) -> list[BaseException]:
    """Run each job in a thread of its own, all started at once; the exceptions they raised."""
    errors: list[BaseException] = []
    start = threading.Barrier(len(jobs))

    def body(job):
        try:
            start.wait()
            job()
        except BaseException as exc:  # noqa: BLE001 (the test reports it)
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(job,)) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "a thread is still running after 60 s: a deadlock?"
    return errors


def setter(ex, name: str, values):
    """A job: set ``ex.<name>`` to each value in turn (as a control's handler does)."""
    def job():
        for v in values:
            setattr(ex, name, v)
    return job


# -- the race, made to happen --------------------------------------------------------------------


def setup(which: str):
    """(explorer, the module and view function its render calls, the setting thread A changes,
    the one thread B changes) for each kind of explorer."""
    bpe = train_bpe(CORPUS, 10)
    if which == "merge":
        return (MergeExplorer.from_trace(bpe, sentence="low"), merge, "segments_html", ("step", 4),
                ("sentence", "newest"))
    if which == "compare":
        return (CompareExplorer.from_traces(bpe, train_wordpiece(CORPUS, 10)), compare, "segmentation_html",
                ("step", 4), ("size", 1.4))
    if which == "unigram":
        return (UnigramExplorer.from_trace(train_unigram(CORPUS, 24), word="low"), unigram, "lattice_html",
                ("step", 3), ("word", "newest"))
    return (SideBySideExplorer({"bpe": bpe, "wordpiece": train_wordpiece(CORPUS, 10)}, text="lowest newer"),
            side_by_side, "why_html", ("token", 2), ("text", "newest lower low"))


@pytest.mark.parametrize("which", ["merge", "compare", "unigram", "side_by_side"])
def test_a_render_never_writes_over_a_newer_one(monkeypatch, which):
    """Thread A sets a step (its render starts and pauses inside a view function); thread B sets
    another setting meanwhile. Without the lock B rendered at once and A then wrote its older
    picture over B's: the view showed a state no one had set. With it, B waits for A."""
    ex, module, name, (a_name, a_value), (b_name, b_value) = setup(which)
    original = getattr(module, name)
    a_drawing, b_done = threading.Event(), threading.Event()

    def paused(*args, **kwargs):
        if threading.current_thread().name == "A" and not a_drawing.is_set():
            a_drawing.set()
            b_done.wait(0.3)  # B sets its value now (or waits for the lock until this times out)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, paused)
    errors = []

    def run(job):
        try:
            job()
        except BaseException as exc:  # noqa: BLE001 (the test reports it)
            errors.append(exc)

    def b():
        a_drawing.wait(5)
        setattr(ex, b_name, b_value)
        b_done.set()

    threads = [threading.Thread(target=run, args=(setter(ex, a_name, [a_value]),), name="A"),
               threading.Thread(target=run, args=(b,), name="B")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    monkeypatch.setattr(module, name, original)
    assert errors == [] and a_drawing.is_set()
    assert (getattr(ex, a_name), getattr(ex, b_name)) == (a_value, b_value)
    assert ex.error is None
    drawn = ex.view_html
    ex.size = 2.0
    ex.size = 1.4 if b_name == "size" else 1.0  # the same settings drawn again, by one thread
    assert drawn == ex.view_html


# -- stress: two threads moving controls at once ------------------------------------------------


def test_step_and_sentence_at_once_merge_explorer():
    trace = train_bpe(CORPUS, 14)
    ex = MergeExplorer.from_trace(trace, sentence=SENTENCES[0])
    rng = random.Random(7)
    for _ in range(ROUNDS):
        steps = setter(ex, "step", [rng.randrange(len(trace)) for _ in range(MOVES)])
        sentences = setter(ex, "sentence", [rng.choice(SENTENCES) for _ in range(MOVES)])
        assert run_together(steps, sentences) == []
        alone = MergeExplorer.from_trace(trace, sentence=ex.sentence)
        alone.step = ex.step
        assert ex.error is None
        assert ex.view_html == alone.view_html, (ex.step, ex.sentence)


def test_step_buttons_and_train_at_once_merge_explorer():
    """Step buttons clicked while another thread trains again (fewer merges, then more): no
    exception (a step button never sets a step the new run lacks), and the view is the new
    run's."""
    ex = MergeExplorer(CORPUS, 12)
    ex.step = 12
    for r in range(ROUNDS):
        def step_buttons():
            for i in range(MOVES):
                (ex._fwd_btn if i % 2 else ex._back_btn).click()

        assert run_together(step_buttons, setter(ex, "num_merges", [4 + r, 12 + r])) == []  # code trains at once
        assert ex.error is None and len(ex.trace.merges) == 12 + r
        alone = MergeExplorer.from_trace(ex.trace, sentence=ex.sentence)
        alone.step = ex.step
        assert ex.view_html == alone.view_html


def held_elsewhere(ex) -> bool:
    """Whether another thread holds ``ex``'s lock now (a thread of its own tries to take it)."""
    got = []

    def try_it():
        got.append(ex._lock.acquire(blocking=False))
        if got[0]:
            ex._lock.release()

    t = threading.Thread(target=try_it)
    t.start()
    t.join()
    return not got[0]


def test_the_lock_is_reentrant_and_held_by_observers_and_handlers():
    """An observer that sets another trait runs nested observers on the same thread (the lock is
    re-entrant: no deadlock); observers run holding it, from code or from a button's handler;
    it is released after a refused value."""
    ex = MergeExplorer.from_trace(train_bpe(CORPUS, 6))
    held = []
    ex.observe(lambda _c: held.append(held_elsewhere(ex)), "sentence")
    ex.observe(lambda c: setattr(ex, "sentence", f"low {c['new']}"), "step")  # nested: step -> sentence
    ex.step = 3
    ex._fwd_btn.click()  # the step button's handler: step 4, then the sentence
    assert held == [True, True] and ex.sentence == "low 4"
    with pytest.raises(traitlets.TraitError):
        ex.step = 99  # refused as before
    assert not held_elsewhere(ex)
    assert issubclass(MergeExplorer, Explorer) and not held_elsewhere(ex)


def test_a_waiting_retrain_does_not_hold_the_lock(monkeypatch):
    """Settings moved in the page train 0.2 s later (TrainingExplorer.RETRAIN_DELAY): meanwhile
    another thread's handlers run (the lock is not held while the timer waits), and the training
    comes when it is due."""
    monkeypatch.setattr(training, "from_the_page", lambda: True)
    ex = MergeExplorer(CORPUS, 8)
    seen = {}

    async def page():
        ex.num_merges = 10  # from the page: trains in 0.2 s
        other = threading.Thread(target=setter(ex, "step", [2]))
        other.start()
        other.join(5)
        seen["other thread done"] = not other.is_alive()
        seen["step"], seen["merges before"] = ex.step, len(ex.trace.merges)
        await asyncio.sleep(ex.RETRAIN_DELAY + 0.3)
        seen["merges after"] = len(ex.trace.merges)

    worker = threading.Thread(target=lambda: asyncio.run(page()))
    worker.start()
    worker.join(30)
    assert seen == {"other thread done": True, "step": 2, "merges before": 8, "merges after": 10}
