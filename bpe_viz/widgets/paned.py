"""PanedExplorer: an explorer whose steps are shown by a :class:`~bpe_viz.widgets.step_pane.StepPane`
(the steps kept in the page), and what the kernel does for it: show a step, send the page the
step it asks for, send the next steps ahead when idle (:class:`~bpe_viz.widgets.warm.Warmer`),
and leave the values a drag passes to the page (rendered in the kernel once the slider rests).

The Merge, Compare and Unigram explorers are paned explorers (through
:class:`~bpe_viz.widgets.training.TrainingExplorer`). A subclass makes a ``_pane`` (StepPane),
``_steps`` (StepCache) and ``_warmer`` (Warmer), and provides ``_step_key()``,
``_step_parts(k)``, ``_compose(parts)``, ``_last_step()``, ``_has_steps()``, ``_view_parts()``
and ``_after_render(k)``; :meth:`PanedExplorer._render` does the rest.
"""

from __future__ import annotations

import asyncio

from .explorer import Explorer
from .step_pane import StepPane

__all__ = ["PanedExplorer"]


class PanedExplorer(Explorer):
    """An :class:`~bpe_viz.widgets.explorer.Explorer` whose steps a StepPane shows (see the
    module's docstring)."""

    def _render(self):
        """Show the step the slider is on: its parts (from the kernel's cache, or rendered), in
        the pane and in the kernel's :class:`~bpe_viz.widgets.step_pane.ViewPart` s; then
        :meth:`_after_render`. An error in the step shows in place of the view."""
        if self._hold or not self._has_steps() or self._bad_input is not None:
            return  # (a bad input shows its message until it is fixed, whatever the slider does)
        if self._render_later():  # (a step the page moved to: rendered when it settles)
            return
        try:
            k = self._steps_at()
            fresh = self._steps.key != self._step_key()  # a new trace, size, chart...
            parts = self._step_parts(k)
        except Exception as exc:
            self._show_error(exc)
            return
        for part, value in zip(self._view_parts(), parts):
            part.value = value
        self._pane_show(k, parts, fresh)
        self._clear_error()
        self._after_render(k)

    def _has_steps(self) -> bool:
        """Whether there are steps to show (a trace with at least one step)."""
        raise NotImplementedError

    def _view_parts(self) -> tuple:
        """The ViewParts of a step, in the order of :meth:`_step_parts`'s HTML."""
        raise NotImplementedError

    def _after_render(self, k: int):
        """Step ``k`` is shown: what goes with it (the steps to send ahead, most often)."""

    def _pane_show(self, k: int, parts, fresh: bool):
        """Step ``k`` (its ``parts``) is the one shown now; ``fresh``: every step the page kept is
        out of date (a new trace, size, chart...)."""
        with self._pane.hold_sync():
            if fresh or self._pane.generation == 0:
                self._warmer.drop_background()  # (the page sends the new generation's track)
                self._pane.new_generation()
            self._pane.set_step(k, self._compose(parts))

    def _track_steps(self, steps):
        """The page says which steps a click on the slider's track can reach (one per pixel):
        send them ahead, compressed, while the learner is idle (issue 20: a jump, or the end of
        a drag, then shows a step the page has, with no round trip to the kernel). The steps
        nearest the one shown go first."""
        last = self._last_step()
        if last is None or self._hold or self._bad_input is not None:
            return
        at = self._steps_at()
        wanted = sorted({k for k in steps if 0 <= k <= last and not self._pane.has(k)}, key=lambda k: (abs(k - at), k))
        self._warmer.background([lambda k=k: self._pack_step(k) for k in wanted])

    def _pack_step(self, k: int):
        """Send step ``k`` ahead compressed (:meth:`StepPane.pack`), rendered without taking a
        place among the steps the kernel keeps for the slider's neighbours."""
        last = self._last_step()
        if self._hold or last is None or self._bad_input is not None or not 0 <= k <= last:
            return
        if self._steps.key != self._step_key() or self._pane.has(k):
            return
        kept = self._steps.get(k) is not None
        parts = self._step_parts(k)
        if not kept:
            self._steps.drop(k)
        self._pane.pack(k, self._compose(parts))

    def _asked_for(self, k: int):
        """The page asks for step ``k`` (the slider is there, or a pointer rests over it): send
        it now; the steps being sent ahead around the last step can wait (a new step starts them
        again, once the page has painted this one)."""
        self._warmer.asked()
        self._send_step(k)

    def _send_step(self, k: int):
        """Send step ``k`` to the page ahead of need (or because the page asked for it)."""
        last = self._last_step()
        if self._hold or last is None or self._bad_input is not None or not 0 <= k <= last:
            return
        if self._steps.key != self._step_key() or self._pane.has(k):
            return
        self._pane.push(k, self._compose(self._step_parts(k)))

    def _render_later(self) -> bool:
        """Whether the render of the step the slider is on waits until the slider settles (then
        it is scheduled, ``StepPane.SETTLE`` seconds after the last move).

        It waits when the page moved the slider to a step the kernel has not rendered (a drag
        passes many), while a page is there (the pane asked for a step) and a kernel's loop
        runs: the page shows what it keeps and asks the kernel for the step it lacks, one at a
        time (:class:`~bpe_viz.widgets.step_pane.StepPane`). Why (issue 20): each value a drag
        passed cost the kernel a whole step (60-100 ms for the CompareExplorer under load) that
        the page never showed, and the step the drag ended on waited behind them. What the
        kernel shows (:attr:`view_html`, :meth:`save`...) renders a waiting step first."""
        self._settle_cancel()
        slider = getattr(self, "_slider", None)
        if (not self._pane.page or slider is None or not slider.from_page
                or self._steps.key != self._step_key() or self._steps.get(self._steps_at()) is not None):
            return False
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        self._settle_handle = loop.call_later(StepPane.SETTLE, self._settled)
        return True

    def _steps_at(self) -> int:
        """The step the slider is on (the trait the step controls drive)."""
        return getattr(self, self._step_trait)

    def _settled(self):
        self._settle_handle = None
        self._render()

    def _settle_cancel(self):
        handle = getattr(self, "_settle_handle", None)
        if handle is not None:
            handle.cancel()
        self._settle_handle = None

    def _settle(self):
        """A render that waits for the slider to settle, done now (before the view is read)."""
        if getattr(self, "_settle_handle", None) is not None:
            self._settle_cancel()
            self._render()
