"""Idle time in the kernel, used to prepare the steps next to the one shown.

Why (issue 11, a stepper that stays instant): one slider step costs the kernel tens of
milliseconds on a real text, most of it in the engine (rebuilding the state after k merges,
ranking its pairs, finding the ties of the merge). When the kernel has nothing to do after
showing step k, a :class:`Warmer` asks the explorer to prepare k+1 and k-1, the steps that an
arrow key, a Play tick or the step buttons ask for next; the engine keeps what it computed
(its snapshot cache), so the next step only writes HTML. A jump (a click on the track) lands
farther: for it, the steps under every pixel of the slider's track are background work (issue 20).

How: ``after_step(neighbours)`` schedules one step's preparation at a time on the kernel's
event loop (``asyncio``), a short moment after the step was sent; a new message from the
browser never waits for more than one step's preparation. Background work
(:meth:`Warmer.background`) waits its turn behind the neighbours, and for the learner: it goes
on only once no step was shown or asked for during :attr:`Warmer.IDLE` seconds, one job per
turn of the loop. Outside a running kernel (a script, a test, ``nbconvert``) there is no event
loop to use and it does nothing, so what an explorer shows never depends on it: warming only
fills caches and sends steps ahead.

Example (whether anything is scheduled depends on a running event loop: a kernel has one, a
plain script does not)::

    >>> w = Warmer(lambda k: None)
    >>> w.after_step([3, 1]) in (True, False)
    True
"""

from __future__ import annotations

import asyncio
from collections import deque

__all__ = ["Warmer"]


class Warmer:
    """Prepares steps in the kernel's idle time: ``prepare(k)`` for each k given to
    :meth:`after_step`, one per turn of the event loop, until the next :meth:`after_step`."""

    #: seconds between sending a step and starting to prepare the next ones (the browser's
    #: reply to the step, if any, comes first)
    DELAY = 0.03

    #: seconds the preparing waits after a step the page asked for (a jump): the page is then
    #: still to receive and paint it, and on two cores a kernel preparing the next steps at once
    #: slowed that paint down (jumps 140-210 ms median instead of 125-135, issue 20)
    AFTER_ASKED = 0.15

    def __init__(self, prepare):
        self._prepare = prepare
        self._todo: list = []
        self._handle = None
        self._loop = None
        self._quiet_until = 0.0  # the loop's time before which nothing is prepared
        self._background: deque = deque()  # jobs for when the learner is idle (background)
        self._idle_from = 0.0  # the loop's time from which the background jobs may run
        self.prepared = 0  # how many steps were prepared (for tests and curiosity)
        self.background_done = 0  # how many background jobs ran (for tests and curiosity)

    def after_step(self, neighbours) -> bool:
        """Forget what was left to prepare; prepare ``neighbours`` (in order) when idle: each a
        step, or a callable (a job of its own, called with no argument in its turn). Returns
        whether anything was scheduled (only inside a running event loop)."""
        self.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        self._loop, self._todo = loop, list(neighbours)
        self._idle_from = loop.time() + self.IDLE
        delay = max(self.DELAY, self._quiet_until - loop.time())
        self._handle = loop.call_later(delay, self._next)
        return True

    #: seconds with no step shown or asked for before background jobs run (a learner moving
    #: the slider, arrows or Play comes first: a background job holds the kernel 5-70 ms)
    IDLE = 1.0

    def background(self, jobs) -> bool:
        """Run ``jobs`` (callables, in order) when the learner is idle, one per turn of the
        loop, behind the neighbours of the step shown; they replace the ones left. Returns
        whether anything was scheduled (only inside a running event loop)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        self._loop, self._background = loop, deque(jobs)
        if self._handle is None and self._background:
            self._handle = loop.call_later(self._wait(), self._next)
        return bool(self._background)

    def drop_background(self):
        """Forget the background jobs left (what they were for changed)."""
        self._background.clear()

    def _wait(self) -> float:
        """Seconds until the next job may run."""
        now = self._loop.time()
        if self._todo:
            return max(0.0, self._quiet_until - now)
        return max(0.0, self._quiet_until - now, self._idle_from - now)

    def asked(self):
        """The page asked for a step it lacks (a jump): stop preparing, and start again only
        :attr:`AFTER_ASKED` seconds from now, once the page has painted it."""
        self.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._loop = loop
        self._quiet_until = loop.time() + self.AFTER_ASKED
        self._idle_from = max(self._idle_from, loop.time() + self.IDLE)
        if self._background:  # (what the page asked for is sent; the background goes on later)
            self._handle = loop.call_later(self._wait(), self._next)

    def cancel(self):
        """Stop preparing the neighbours (the background jobs stay, for the next turn)."""
        if self._handle is not None:
            self._handle.cancel()
        self._handle = None
        self._todo = []

    def _next(self):
        self._handle = None
        if not self._todo and not self._background:
            return
        wait = self._wait()
        if wait > 0:  # (the learner was busy meanwhile: the background waits)
            self._handle = self._loop.call_later(wait, self._next)
            return
        try:
            if self._todo:
                k = self._todo.pop(0)
                if callable(k):
                    k()
                else:
                    self._prepare(k)
                    self.prepared += 1
            else:
                self._background.popleft()()
                self.background_done += 1
        except Exception:  # only a help: the real step reports any error in the view
            self._todo = []
            self._background.clear()
            return
        if self._todo or self._background:
            self._handle = self._loop.call_later(0, self._next)  # let waiting messages go first
