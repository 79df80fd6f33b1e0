"""The explorers that train (:class:`~bpe_viz.widgets.merge.MergeExplorer`,
:class:`~bpe_viz.widgets.compare.CompareExplorer`, :class:`~bpe_viz.widgets.unigram.UnigramExplorer`):
what they do the same way around training. Their training controls (the corpus picker, Train,
the progress bar) in rows, the wiring that trains again when the corpus changes, the progress
bar shown while training, and a new run put in place of the old one.

A control moved in the page trains a moment later (:meth:`TrainingExplorer._retrain_soon`), so
that settings changed in quick succession train once, with the latest of them; code (a cell, a
test) trains at once.

What each trains, with which controls, is its own (``retrain``); the step controls and the view
are :class:`~bpe_viz.widgets.explorer.Explorer`'s, the steps kept in the page
:class:`~bpe_viz.widgets.paned.PanedExplorer`'s. Encoder and quiz explorers train nothing
here: they build on :class:`~bpe_viz.widgets.explorer.Explorer` directly.
"""

from __future__ import annotations

import asyncio
import contextlib

import ipywidgets as widgets

from ..view import message_html
from .controls import CorpusPicker
from .paned import PanedExplorer
from .inputs import from_the_page

__all__ = ["TrainingExplorer", "WRAP", "merge_ticker", "no_merges_message"]

#: The layout of a row of controls that wraps on a narrow screen (or at a large size).
WRAP = {"flex_flow": "row wrap"}


class TrainingExplorer(PanedExplorer):
    """An :class:`~bpe_viz.widgets.explorer.Explorer` that trains from its controls.

    A subclass calls :meth:`_setup_training` (the corpus picker, Train and the progress bar),
    lays them out with :meth:`_lay_out_training`, calls :meth:`_wire_training` once its traits are
    set, and defines ``retrain()``; inside it, :meth:`_showing_progress` around the training,
    and :meth:`_trained` when the new run is put in place.
    """

    #: seconds a training asked for from the page waits for newer settings (the messages that
    #: queued up while the kernel was busy arrive within milliseconds of each other)
    RETRAIN_DELAY = 0.2
    _retrain_handle = None

    def _setup_training(self, corpus, given_label: str | None = None, *, progress_max: int = 1,
                        tooltip: str | None = None):
        """The corpus picker (``corpus``; ``given_label``: a trace was passed in), the Train
        button and the progress bar (hidden until training)."""
        self._picker = CorpusPicker(corpus, given_label=given_label)
        self._train_btn = widgets.Button(description="Train", icon="play", tooltip=tooltip)
        self._progress = widgets.IntProgress(value=0, min=0, max=progress_max, description="training",
                                             layout=widgets.Layout(display="none"))

    def _lay_out_training(self, beside_source: list, settings: list, *, source_layout=WRAP,
                       settings_layout=WRAP) -> list:
        """The rows of the training controls: the corpus dropdown and ``beside_source``, the text
        box, the upload button, then ``settings`` (with Train and the progress bar)."""
        return [widgets.HBox([self._picker.source, *beside_source], layout=source_layout),
                self._picker.textarea, self._picker.upload, widgets.HBox(settings, layout=settings_layout)]

    def _wire_training(self):
        """Train again on Train, on another corpus, on a new text (or file) when it is the one chosen."""
        self._train_btn.on_click(lambda _b: self._retrain_soon())
        self._picker.source.observe(self._source_changed, "value")
        self._picker.textarea.observe(lambda _c: self._retrain_if("text"), "value")
        self._picker.upload.observe(lambda _c: self._retrain_if("upload"), "value")

    def _controls_with(self, settings: dict, after: dict | None = None) -> dict:
        """The control widgets by name: the corpus controls, ``settings``, Train and the
        progress bar, the step controls and the size, then ``after``."""
        return {
            "corpus": self._picker.source, "text": self._picker.textarea, "upload": self._picker.upload,
            **settings, "train": self._train_btn, "progress": self._progress, "play": self._play,
            "slider": self._slider, "size": self._size_dd, **(after or {}),
        }

    def _source_changed(self, change):
        self._retrain_soon()

    def _retrain_if(self, source):
        if self._picker.source.value == source:
            self._retrain_soon()

    def _retrain_soon(self):
        """Train again because a setting changed. From the page (a control moved, the kernel
        handling its message) the training waits :attr:`RETRAIN_DELAY` in the kernel's event loop
        and a newer request replaces it: settings changed fast (while a long training ran, their
        messages queued up) train once, with the latest settings, and an error shown meanwhile
        gives way to a note. Code (a cell, a test, a script) trains at once."""
        if self._hold:
            return
        self._cancel_retrain()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or not from_the_page():
            self.retrain()
            return
        if self._error is not None:  # not the old settings' error while the new ones wait
            self._error = "Training again with the new settings…"
            self._error_view.value = message_html(self._error, size=self.size)
        self._retrain_handle = loop.call_later(self.RETRAIN_DELAY, self._retrain_due)

    def _retrain_due(self):
        self._retrain_handle = None
        self.retrain()

    def _cancel_retrain(self):
        """A training starts now: one still waiting (:meth:`_retrain_soon`) is not needed."""
        if self._retrain_handle is not None:
            self._retrain_handle.cancel()
            self._retrain_handle = None

    def retrain(self):
        """Train again from the controls (each explorer says how)."""
        raise NotImplementedError

    @contextlib.contextmanager
    def _showing_progress(self, maximum: int | None = None, note=None):
        """The progress bar, from 0 (to ``maximum``), shown while the block trains and hidden
        after it, whatever happens (``note``: an HTML widget beside it, emptied after)."""
        progress = self._progress
        if maximum is not None:
            progress.max = maximum
        progress.value = 0
        progress.layout.display = ""
        try:
            yield progress
        finally:
            progress.layout.display = "none"
            if note is not None:
                note.value = ""

    def _trained(self, last: int):
        """A new run is in place: whatever was wrong is fixed, the step controls come back and
        reach step ``last`` (a new slider when the range changes: the End key)."""
        self._bad_input = None
        self._set_stepping(True)
        self._set_step_max(last)


def merge_ticker(progress, n: int, parts: int, offset: int = 0):
    """A training callback that moves ``progress`` to ``offset`` plus the merge's step, about
    ``parts`` times in ``n`` merges (setting a widget on every merge would cost more than the
    merge).

    Example::

        >>> from types import SimpleNamespace
        >>> bar = SimpleNamespace(value=0)
        >>> tick = merge_ticker(bar, 100, 25, offset=100)
        >>> tick(SimpleNamespace(step=7)); bar.value
        0
        >>> tick(SimpleNamespace(step=8)); bar.value
        108
    """
    every = max(1, n // parts)

    def tick(merge):
        if merge.step % every == 0:
            progress.value = offset + merge.step

    return tick


def no_merges_message(trace) -> str:
    """Why a trace has no merge, said to a learner (and what to do about it).

    Example::

        >>> from bpe_viz import train_bpe
        >>> no_merges_message(train_bpe("a b c", 3))
        'No merge was learned: no pair occurs at least min_frequency times. A pair must occur at least 2 times; use a longer text or repeat some words.'
    """
    msg = f"No merge was learned: {trace.stopped_because}."
    if not trace.words:
        return "The text is empty: type or paste some words first."
    if trace.stop_reason == "no_pairs":
        msg += " Every word is a single character; use words of two or more letters."
    elif trace.stop_reason == "min_frequency":
        msg += (f" A pair must occur at least {trace.convention.min_frequency} times; "
                "use a longer text or repeat some words.")
    return msg
