"""CompareExplorer: BPE and WordPiece side by side on the same corpus, one slider for both.

Example::

    >>> ex = CompareExplorer("hf-course", num_merges=3)
    >>> ex.step = 1
    >>> "BPE" in ex.text and "WordPiece" in ex.text
    True
"""

from __future__ import annotations

import ipywidgets as widgets
import traitlets

from ..engine import bpe as _bpe, wordpiece as _wordpiece
from ..view.charts import figure_png, plot_bpe_vs_wordpiece, plot_merge_sequences
from ..view.html import merge_html, message_html, pairs_table_html, segmentation_html
from .common import _CHART_DPI, PRESET_CHOICES, CorpusPicker, Explorer, check_merges, no_merges_message, options_with

__all__ = ["CompareExplorer"]


class CompareExplorer(Explorer):
    """BPE and WordPiece trained on the same corpus, side by side, following one slider.

    BPE is trained with ``bpe_preset`` (default: the Hugging Face course's, no end marker, so
    both algorithms start from the same letters). The chart shows, at BPE's state, every pair's
    count against its WordPiece score, and the two merge sequences up to the step.

    Example::

        >>> ex = CompareExplorer("hf-course", 6)
        >>> ex.step = 1
        >>> ex.trace_bpe.merges[0].pair, ex.trace_wp.merges[0].pair
        (('u', 'g'), ('##g', '##s'))
    """

    step = traitlets.Int(0)
    num_merges = traitlets.Int(10)
    bpe_preset = traitlets.Unicode("hf-course")

    def __init__(self, corpus="hf-course", num_merges: int = 10, *, bpe_preset: str = "hf-course",
                 trace_bpe=None, trace_wp=None, words=None, size: float = 1.0, max_rows: int = 6,
                 controls: bool = True, chart: bool = True):
        super().__init__()
        self._hold = True
        self._setup_common(size)
        self.trace_bpe = self.trace_wp = None
        self.max_rows = max_rows
        self.words = words
        self.show_chart = chart
        self._fig = None
        given = trace_bpe is not None or trace_wp is not None
        if given and (trace_bpe is None or trace_wp is None):
            raise ValueError("Pass both trace_bpe and trace_wp (or neither, and a corpus).")
        if given:
            num_merges = max(1, len(trace_bpe.merges), len(trace_wp.merges))
            if trace_bpe.convention.preset in PRESET_CHOICES:
                bpe_preset = trace_bpe.convention.preset
        self.num_merges = num_merges
        self.bpe_preset = bpe_preset
        self._picker = CorpusPicker(corpus, given_label="The traces you passed in" if given else None)
        self._merges_box = widgets.IntText(value=self.num_merges, description="merges",
                                           layout=widgets.Layout(width="12em"))
        self._preset_dd = widgets.Dropdown(
            options=options_with([(label, key) for key, (label, _) in PRESET_CHOICES.items()], self.bpe_preset),
            value=self.bpe_preset, description="BPE preset", layout=widgets.Layout(width="32em"),
            style={"description_width": "initial"})
        self._train_btn = widgets.Button(description="Train", icon="play")
        self._progress = widgets.IntProgress(value=0, min=0, max=1, description="training",
                                             layout=widgets.Layout(display="none"))
        traitlets.link((self._merges_box, "value"), (self, "num_merges"))
        traitlets.link((self._preset_dd, "value"), (self, "bpe_preset"))
        self._slider = widgets.IntSlider(value=0, min=0, max=0, description="step",
                                         layout=widgets.Layout(width="40em"))
        self._play = widgets.Play(value=0, min=0, max=0, interval=1200, description="play")
        widgets.jslink((self._play, "value"), (self._slider, "value"))
        traitlets.link((self._slider, "value"), (self, "step"))
        self._header = widgets.HTML()
        self._bpe_view = widgets.HTML(layout=widgets.Layout(width="50%"))
        self._wp_view = widgets.HTML(layout=widgets.Layout(width="50%"))
        # shown at its own pixel size: a flex column would stretch it wide and blurry
        self._chart_view = widgets.Image(format="png", layout=widgets.Layout(align_self="flex-start"))
        self._view.children = [self._header, widgets.HBox([self._bpe_view, self._wp_view]), self._chart_view]
        rows = []
        if controls:
            rows.append(widgets.HBox([self._picker.source, self._preset_dd]))
            rows.append(self._picker.textarea)
            rows.append(self._picker.upload)
            rows.append(widgets.HBox([self._merges_box, self._train_btn, self._progress]))
        rows.append(widgets.HBox([self._play, self._slider, self._size_dd]))
        self.children = [*rows, self._error_view, self._view]

        self._train_btn.on_click(lambda _b: self.retrain())
        self._picker.source.observe(lambda _c: self.retrain(), "value")
        self._picker.textarea.observe(lambda _c: self._picker.source.value == "text" and self.retrain(), "value")
        self._picker.upload.observe(lambda _c: self._picker.source.value == "upload" and self.retrain(), "value")
        self.observe(lambda _c: self.retrain(), ["num_merges", "bpe_preset"])
        self.observe(lambda _c: self._render(), ["step", "size"])
        self._hold = False
        if given:
            self._set_traces(trace_bpe, trace_wp)
        else:
            self.retrain()

    @classmethod
    def from_traces(cls, trace_bpe, trace_wp, **kwargs) -> "CompareExplorer":
        """An explorer comparing two traces you already trained (on the same corpus)."""
        return cls(trace_bpe=trace_bpe, trace_wp=trace_wp, **kwargs)

    from_trace = from_traces

    @property
    def controls(self) -> dict:
        """The control widgets by name."""
        return {
            "corpus": self._picker.source, "text": self._picker.textarea, "upload": self._picker.upload,
            "preset": self._preset_dd, "merges": self._merges_box, "train": self._train_btn,
            "progress": self._progress, "play": self._play, "slider": self._slider, "size": self._size_dd,
        }

    @traitlets.validate("step")
    def _valid_step(self, proposal):
        k = proposal["value"]
        last = self._last()
        if last is not None and not 0 <= k <= last:
            raise traitlets.TraitError(f"step must be between 0 and {last}, got {k}")
        return k

    def _last(self):
        if self.trace_bpe is None:
            return None
        return max(len(self.trace_bpe), len(self.trace_wp)) - 1

    def retrain(self):
        """Train both algorithms again on the chosen corpus."""
        if self._hold:
            return
        fallback = dict(zip(self.trace_bpe.words, self.trace_bpe.counts)) if self.trace_bpe is not None else None
        try:
            corpus, _sample = self._picker.corpus(fallback)
            n = check_merges(self.num_merges)
            if self.bpe_preset not in PRESET_CHOICES:
                raise ValueError(f"Unknown preset {self.bpe_preset!r}: choose one of {list(PRESET_CHOICES)}.")
            progress = self._progress
            progress.max, progress.value = 2 * n, 0
            progress.layout.display = None
            every = max(1, n // 25)

            def tick(offset):
                def cb(m):
                    if m.step % every == 0:
                        progress.value = offset + m.step
                return cb

            tb = _bpe.train_bpe(corpus, n, callback=tick(0), **PRESET_CHOICES[self.bpe_preset][1])
            tw = _wordpiece.train_wordpiece(corpus, n, callback=tick(n))
        except Exception as exc:
            self._show_error(exc)
            return
        finally:
            self._progress.layout.display = "none"
        self._set_traces(tb, tw)

    def _set_traces(self, tb, tw):
        self._hold = True
        try:
            self.trace_bpe, self.trace_wp = tb, tw
            last = self._last()
            self._slider.max = self._play.max = last
            if self.step > last:
                self.step = last
        finally:
            self._hold = False
        if not tb.merges and not tw.merges:
            self._show_error(no_merges_message(tb), title="Nothing to show yet")
            return
        self._render()

    def _html_widgets(self):
        return [self._header, self._bpe_view, self._wp_view]

    def _column(self, trace, title, k, size):
        snap = trace[min(k, len(trace) - 1)]
        words = self.words if self.words is not None else list(trace.words[: self.max_rows])
        note = "" if k < len(trace) else message_html(
            f"(stopped after {len(trace) - 1} merges: {trace.stopped_because})", size=size)
        return (
            message_html(title, size=size)
            + note
            + merge_html(snap.merge, trace=trace, size=size)
            + segmentation_html(snap, words, size=size)
            + pairs_table_html(snap, self.max_rows, size=size)
        )

    def _render(self):
        if self._hold or self.trace_bpe is None:
            return
        try:
            k, size = self.step, self.size
            tb, tw = self.trace_bpe, self.trace_wp
            self._header.value = message_html(
                f"Step {k}: BPE merges the most frequent pair; WordPiece the pair with the best "
                "count(ab) / (count(a)·count(b))", size=size)
            self._bpe_view.value = self._column(tb, f"BPE — {tb.convention.describe()}", k, size)
            self._wp_view.value = self._column(tw, f"WordPiece — {tw.convention.describe()}", k, size)
            if self.show_chart:
                self._render_chart(k)
        except Exception as exc:
            self._show_error(exc)
            return
        self._clear_error()

    def _render_chart(self, k):
        if self._fig is None:
            from matplotlib.figure import Figure

            self._fig = Figure(figsize=(12.0, 4.2))  # no layout engine: it doubles the drawing time
        fig = self._fig
        fig.clear()
        ax1, ax2 = fig.subplots(1, 2, width_ratios=[1, 1.2])
        fig.subplots_adjust(left=0.07, right=0.99, bottom=0.13, top=0.9, wspace=0.22)
        tb = self.trace_bpe
        plot_bpe_vs_wordpiece(tb[min(k, len(tb) - 1)], ax=ax1)
        ax1.set_title(f"From BPE's state at step {min(k, len(tb) - 1)}: what each would merge next",
                      parse_math=False)
        plot_merge_sequences(tb, self.trace_wp, upto=k or None, ax=ax2)
        self._chart_view.value = figure_png(fig, dpi=_CHART_DPI * self.size)
