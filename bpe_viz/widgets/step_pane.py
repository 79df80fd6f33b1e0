"""StepPane: the part of an explorer's view that changes on every step, kept in the page.

Why (issue 11, a stepper that stays instant on a projector and on Binder): moving the slider used
to cost a round trip to the kernel on every step, then five widgets' updates in the page: 100-250 ms
in JupyterLab on the 10,000-merge docs trace, more on Binder, where every round trip crosses the
network. A :class:`StepPane` is one small `anywidget <https://anywidget.dev>`_ whose front end
(``step_pane.js``, shipped in this package: nothing is fetched) keeps the steps the kernel has
rendered, and shows the one the slider asks for **in the page**, without asking the kernel:

* the explorer renders step k as one piece of HTML (the same :mod:`bpe_viz.view` functions, so
  a step looks the same whichever way it reached the page) and :meth:`set_step` sends it;
* when the kernel is idle, the explorer renders the steps next to k (what an arrow key, a Play
  tick or the step buttons ask for next) and :meth:`push` sends them ahead;
* the pane's ``step`` follows the explorer's slider in the page (``jsdlink``), so a move shows a
  step the pane has at once; a step it lacks (a jump) is asked of the kernel by a custom message,
  which ipywidgets does not hold back while the kernel is busy, as it does a slider's value;
* a pointer resting over the slider's track (no button down) asks for the step under it
  (``hover``), so that a click there finds it in the page (as a browser prefetches a link under
  the pointer);
* the page asks for one step of its slider at a time (the steps a drag passes while one is on its
  way are not asked for: the last one would wait behind them); the kernel answers the slider's
  step first, then the pointer's;
* the page tells the kernel which steps a click on the slider's track can reach (one per pixel:
  ``track``), and the kernel sends them when the learner is idle, compressed (:meth:`pack`, about
  5 kB a step), so that a jump or a drag shows a step the page has (issue 20: a click anywhere on
  the track then costs no round trip).

The HTML is the explorer's, escaped by :mod:`bpe_viz.view`; the front end only swaps it in.

:class:`ViewPart` is one part of a step's view (the header, the merge, the tables, the chart),
kept in the kernel: what :attr:`Explorer.view_html`, the static fallback and ``save`` read.

Example (no front end here: messages go nowhere, the state is what a page would get)::

    >>> pane = StepPane()
    >>> pane.set_step(3, "<p>step 3</p>")
    >>> pane.html_step, pane.html
    (3, '<p>step 3</p>')
    >>> pane.push(4, "<p>step 4</p>"), pane.push(4, "<p>step 4</p>")  # sent once per generation
    (True, False)
    >>> pane.new_generation(); pane.push(4, "<p>step 4</p>")
    True
"""

from __future__ import annotations

import asyncio
import threading
import uuid
import zlib
from collections import OrderedDict
from pathlib import Path

import anywidget
import ipywidgets as widgets
import traitlets

__all__ = ["StepCache", "StepPane", "StepSlider", "ViewPart"]


class ViewPart:
    """One part of a step's view, kept in the kernel (a :class:`StepPane` shows the parts of a
    step together). ``value``: its HTML; ``shown``: whether it is part of the view now."""

    __slots__ = ("value", "shown")

    def __init__(self, value: str = "", shown: bool = True):
        self.value = value
        self.shown = shown

    def __repr__(self) -> str:
        return f"ViewPart({len(self.value)} characters{'' if self.shown else ', hidden'})"


class StepCache:
    """The parts of the steps rendered last, for one ``key`` (what every step's HTML depends on
    besides the step: the trace, the size, the chart...). :meth:`for_` a new key forgets them.

    Example::

        >>> c = StepCache(size=2)
        >>> c.for_("a"), c.for_("a")
        (True, False)
        >>> c.put(1, "one"); c.put(2, "two"); c.put(3, "three")
        >>> c.get(1), c.get(3)
        (None, 'three')
    """

    def __init__(self, size: int = 64):
        self.size = size
        self.key = object()
        self._steps: OrderedDict = OrderedDict()

    def for_(self, key) -> bool:
        """Use the cache for ``key``; returns whether it is new (then the cache was emptied)."""
        if key == self.key:
            return False
        self.key = key
        self._steps.clear()
        return True

    def get(self, step: int):
        parts = self._steps.get(step)
        if parts is not None:
            self._steps.move_to_end(step)
        return parts

    def put(self, step: int, parts):
        self._steps[step] = parts
        self._steps.move_to_end(step)
        while len(self._steps) > self.size:
            self._steps.popitem(last=False)

    def drop(self, step: int):
        """Forget ``step`` (a step rendered for the background: it leaves the slider's kept)."""
        self._steps.pop(step, None)


class StepSlider(widgets.IntSlider):
    """An ``IntSlider`` that says whether the value being set now came from the page
    (``from_page``: true while the observers of a value the learner moved run), so that an
    explorer leaves the values a drag passes to its :class:`StepPane`."""

    from_page = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        # (how step_pane.js tells the step slider's track from the explorer's other sliders)
        self.add_class("bpe-step-slider")

    def set_state(self, sync_data):
        # (ipywidgets calls this with the state a page sent; the kernel's own sets never pass here)
        self.from_page = True
        try:
            super().set_state(sync_data)
        finally:
            self.from_page = False


class StepPane(anywidget.AnyWidget):
    """Shows one explorer's step; keeps, in the page, the steps the kernel sent it.

    ``want`` (optional, a callable ``(step) -> None``): called when the page asks for a step it
    does not have (a jump of the slider); the explorer renders it and calls :meth:`push`.
    ``track`` (optional, a callable ``(steps) -> None``): called with the steps a click on the
    slider's track can reach, as the page measures them; the explorer sends them with
    :meth:`pack` when it has time.
    """

    _esm = (Path(__file__).with_name("step_pane.js")).read_text(encoding="utf-8")
    # (a step on its way shows as a busy pointer: a change of opacity made the browser paint the
    # whole pane twice per jump, before and after the step came)
    _css = ".bpe-step-pane[aria-busy=true] { cursor: progress; }"

    pane_id = traitlets.Unicode("").tag(sync=True)
    #: the step the page shows: set in the page by the explorer's slider (``jsdlink``), never
    #: by the kernel (an older step answered late would pull a dragged handle back)
    step = traitlets.Int(0).tag(sync=True)
    #: what the steps were rendered for; a new one makes the page forget the steps it kept
    generation = traitlets.Int(0).tag(sync=True)
    #: the step the kernel shows now, and its HTML (what a stored notebook shows, too)
    html = traitlets.Unicode("").tag(sync=True)
    html_step = traitlets.Int(-1).tag(sync=True)
    html_generation = traitlets.Int(0).tag(sync=True)

    def __init__(self, want=None, track=None, **kwargs):
        super().__init__(pane_id=uuid.uuid4().hex, **kwargs)
        self._want = want
        self._track = track
        self._sent: OrderedDict = OrderedDict()  # the steps of this generation the page was sent
        self._packed: set = set()  # ... and those it was sent compressed (:meth:`pack`), kept apart
        self.asked = 0  # how many steps the page asked for (a test reads it)
        self._wanted: OrderedDict = OrderedDict()  # asked for, not yet answered
        self._serving = None
        #: whether a page has asked for a step (a view of the pane is live)
        self.page = False
        self._pending = self._pending_handle = None  # a step's HTML to write into the state soon
        self._state_lock = threading.Lock()
        self.on_msg(self._on_msg)

    #: how many steps the page keeps (the oldest go first), as step_pane.js's LIMIT
    LIMIT = 400

    def new_generation(self):
        """What is shown changes for every step (a new trace, size, chart or sentence): the page
        forgets the steps it kept."""
        with self._state_lock:
            self._drop_pending()
        self._sent.clear()
        self._packed.clear()
        self.generation += 1

    def _mark_sent(self, step: int):
        self._sent[step] = True
        self._sent.move_to_end(step)
        while len(self._sent) > self.LIMIT:
            self._sent.popitem(last=False)

    def has(self, step: int) -> bool:
        """Whether the page was sent ``step`` in this generation."""
        return step in self._sent or step in self._packed

    #: seconds the kernel waits before it writes a step the page already has into the model's
    #: state (below)
    SETTLE = 0.25

    def set_step(self, step: int, html: str):
        """``step`` is the one shown now: its HTML is ``html`` (the page shows it when its
        slider is there, and keeps it).

        A step the page was sent already (it asked for it, or it came ahead), while a page is
        there (it has asked for a step) and a kernel's event loop runs: the page shows it from
        what it keeps, and the state (``html``: what a new view and a saved notebook show) is
        written :attr:`SETTLE` seconds later, the latest step only. Why (issue 20): the same
        57-87 kB again, right after the step the page is waiting to paint, slowed that paint down
        on two cores, and a drag or Play sent it for every step."""
        try:
            loop = asyncio.get_running_loop() if self.has(step) and self.page else None
        except RuntimeError:  # (no kernel around: a script, nbconvert without a page, a test)
            loop = None
        with self._state_lock:
            self._drop_pending()
            if loop is None:
                self._write(step, html)
                return
            self._pending = (self.generation, step, html)
            self._pending_handle = loop.call_later(self.SETTLE, self._write_pending)
            self._mark_sent(step)

    def _write(self, step: int, html: str):
        with self.hold_sync():
            self.html_generation = self.generation
            self.html_step = step
            self.html = html
        self._mark_sent(step)

    def _write_pending(self):
        # (the lock: a control's handler on another thread may show a newer step meanwhile)
        with self._state_lock:
            pending, self._pending, self._pending_handle = self._pending, None, None
            if pending is not None and pending[0] == self.generation:
                self._write(*pending[1:])

    def _drop_pending(self):
        if self._pending_handle is not None:
            self._pending_handle.cancel()
        self._pending = self._pending_handle = None

    def push(self, step: int, html: str) -> bool:
        """Send ``step`` ahead, for the page to keep; returns whether it was sent (once per
        generation: not if the page has it, packed or not)."""
        if self.has(step):
            return False
        self.send({"kind": "steps", "generation": self.generation, "steps": [[step, html]]})
        self._mark_sent(step)
        return True

    def pack(self, step: int, html: str) -> bool:
        """Send ``step`` ahead compressed (zlib: about a twelfth of the HTML), for the page to keep
        apart and unpack when its slider gets there; returns whether it was sent (once per
        generation, and not if the page has it already). For the many steps sent ahead of a
        click anywhere on the track: as HTML they would be 20-40 MB of the page's memory."""
        if self.has(step):
            return False
        data = zlib.compress(html.encode("utf-8"), 6)
        self.send({"kind": "packed", "generation": self.generation, "packed": [step]}, buffers=[data])
        self._packed.add(step)
        return True

    def _on_msg(self, _widget, content, _buffers):
        if isinstance(content, dict) and content.get("kind") == "track":
            self._on_track(content)
            return
        if not isinstance(content, dict) or content.get("kind") != "want":
            return
        step, generation = content.get("step"), content.get("generation")
        if generation != self.generation or not isinstance(step, int) or isinstance(step, bool):
            return  # (an old generation's step: the page asks again for the new one)
        self.page = True
        self._sent.pop(step, None)  # the page lacks it (never sent, or no longer kept): send it
        self._packed.discard(step)
        self.asked += 1
        # (a step under a resting pointer the slider is on too is the slider's)
        self._wanted[step] = self._wanted.get(step, True) and content.get("hover") is True
        self._wanted.move_to_end(step)
        if self._serving is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no kernel around (a script, a test): answer at once
            self._serve()
            return
        # answered on the next turn of the kernel's loop, with the requests that came meanwhile
        self._serving = loop.call_soon(self._serve)

    #: at most this many steps of a track are taken (a 4K screen's track at twice the pixels)
    TRACK_LIMIT = 8000

    def _on_track(self, content):
        """The page says which steps a click on its slider's track can reach (in the order to
        send them)."""
        steps = content.get("steps")
        if content.get("generation") != self.generation or not isinstance(steps, list):
            return  # (an old generation's track: the page sends the new one)
        steps = [k for k in steps[:self.TRACK_LIMIT] if isinstance(k, int) and not isinstance(k, bool)]
        self.page = True
        if self._track is not None:
            self._track(steps)

    #: how many steps under a resting pointer are answered at once (it asks for two steps at once)
    ANSWER = 2

    def _serve(self):
        """The step the slider is on first (the latest the page asked for: it asks for one at a
        time, and the steps a drag passed are behind the handle), then the latest steps under a
        resting pointer (``hover``), latest first."""
        self._serving = None
        wanted, self._wanted = self._wanted, OrderedDict()
        slider = [k for k, hover in wanted.items() if not hover][-1:]
        hovered = [k for k, hover in wanted.items() if hover and k not in slider][-self.ANSWER:]
        for step in slider + hovered[::-1]:
            if self._want is not None:
                self._want(step)
