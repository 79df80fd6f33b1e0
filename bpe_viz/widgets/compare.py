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
from ..view.svg import bpe_vs_wordpiece_svg, merge_sequences_svg
from ..view.html import merge_html, message_html, pairs_table_html, segmentation_html
from .common import (_CHART_DPI, PRESET_CHOICES, PROJECTOR, CorpusPicker, Explorer, MergesBox, check_merges,
                     no_merges_message, options_with)
from .warm import Warmer

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
        self._warmer = Warmer(self._prepare_step)  # prepares the next steps when the kernel is idle
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
        self._merges_box = MergesBox(self).widget  # text: "2.5" and "abc" get a message
        self._preset_dd = widgets.Dropdown(
            options=options_with([(label, key) for key, (label, _) in PRESET_CHOICES.items()], self.bpe_preset),
            value=self.bpe_preset, description="BPE preset", layout=widgets.Layout(width="32em"),
            style={"description_width": "initial"})
        self._train_btn = widgets.Button(description="Train", icon="play")
        self._progress = widgets.IntProgress(value=0, min=0, max=1, description="training",
                                             layout=widgets.Layout(display="none"))
        traitlets.link((self._preset_dd, "value"), (self, "bpe_preset"))
        step_row = self._make_step_controls("step", "step", interval=1200)
        self._header = widgets.HTML()
        # two columns that share the width (min_width 0: a long row scrolls inside its column
        # instead of pushing the other one off the screen); on a projector they wrap, one
        # above the other (see _layout_columns)
        self._bpe_view = widgets.HTML(layout=widgets.Layout(flex="1 1 0", min_width="0", overflow="auto"))
        self._wp_view = widgets.HTML(layout=widgets.Layout(flex="1 1 0", min_width="0", overflow="auto"))
        self._columns = widgets.HBox([self._bpe_view, self._wp_view])
        # the chart as inline SVG (see _render_chart), never wider than the screen
        self._chart_view = widgets.HTML(layout=widgets.Layout(align_self="flex-start", max_width="100%"))
        self._view.children = [self._header, self._columns, self._chart_view]
        self.observe(lambda _c: self._layout_columns(), "size")
        self._layout_columns()
        rows = []
        if controls:
            rows.append(widgets.HBox([self._picker.source, self._preset_dd], layout={"flex_flow": "row wrap"}))
            rows.append(self._picker.textarea)
            rows.append(self._picker.upload)
            rows.append(widgets.HBox([self._merges_box, self._train_btn, self._progress], layout={"flex_flow": "row wrap"}))
        rows.append(step_row)
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
        except Exception as exc:  # a learner's input: it stays until fixed
            self._show_error(exc, blocking=True)
            return
        finally:
            self._progress.layout.display = "none"
        self._set_traces(tb, tw)

    def _set_traces(self, tb, tw):
        self._hold = True
        try:
            self.trace_bpe, self.trace_wp = tb, tw
            self._bad_input = None  # trained: whatever was wrong is fixed
            self._set_stepping(True)
            self._set_step_max(self._last())  # a new slider when the range changes (the End key)
        finally:
            self._hold = False
        if not tb.merges and not tw.merges:
            self._show_error(no_merges_message(tb), title="Nothing to show yet")
            return
        self._render()

    def _html_widgets(self):
        return [self._header, self._bpe_view, self._wp_view]

    _save_stem = "compare-step"

    def _layout_columns(self):
        # side by side at normal sizes; on a projector one above the other (each at full width)
        self._columns.layout.flex_flow = "row wrap" if self.size >= PROJECTOR else "row"
        basis = "100%" if self.size >= PROJECTOR else "0"
        for view in (self._bpe_view, self._wp_view):
            view.layout.flex = f"1 1 {basis}"

    def _title(self) -> str:
        if self.trace_bpe is None:
            return "CompareExplorer"
        return f"CompareExplorer, step {self.step} of {self._last()}: BPE and WordPiece side by side"

    def _chart_alt(self) -> str:
        return f"BPE and WordPiece at step {self.step}: count against score, and the two merge sequences"

    def _static_body(self, chart: str) -> str:
        cols = "".join(f'<div style="flex:1 1 0;min-width:20em">{v.value}</div>' for v in (self._bpe_view, self._wp_view))
        body = f'{self._header.value}\n<div style="display:flex;flex-wrap:wrap;gap:1em">{cols}</div>'
        return body + "\n" + chart if chart else body

    def _column(self, trace, title, k, size):
        snap = trace[min(k, len(trace) - 1)]
        rows = min(self.max_rows, 4) if size >= PROJECTOR else self.max_rows  # a projector's screen is short
        words = self.words if self.words is not None else list(trace.words[:rows])
        note = "" if k < len(trace) else message_html(
            f"(stopped after {len(trace) - 1} merges: {trace.stopped_because})", size=size)
        return (
            message_html(title, size=size)
            + note
            + merge_html(snap.merge, trace=trace, size=size)
            + segmentation_html(snap, words, size=size)
            + pairs_table_html(snap, rows, size=size)
        )

    def _render(self):
        if self._hold or self.trace_bpe is None or self._bad_input is not None:
            return  # (a bad input shows its message until it is fixed, whatever the slider does)
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
        self._warmer.after_step([self.step + 1, self.step - 1])  # what an arrow key or Play asks next

    def _prepare_step(self, k: int):
        """Do the engine's work of step ``k`` ahead for both traces (states, pair ranking, ties,
        the chart's picks): showing ``k`` later only writes HTML. Called by the
        :class:`~bpe_viz.widgets.warm.Warmer` when the kernel is idle."""
        last = self._last()
        if last is None or not 0 <= k <= last:
            return
        for trace in (self.trace_bpe, self.trace_wp):
            snap = trace[min(k, len(trace) - 1)]
            snap.top_pairs(self.max_rows)
            for m in (snap.merge, snap.next_merge):
                if m is not None:
                    m.tied
        if self.show_chart:
            tb = self.trace_bpe
            bpe_vs_wordpiece_svg(tb[min(k, len(tb) - 1)], size=self.size)  # its picks are kept

    def _render_chart(self, k):
        """The chart of step ``k`` as inline SVG (:mod:`bpe_viz.view.svg`): BPE's state with
        what each algorithm would merge next, and the two merge sequences.

        Speed (issue 11): matplotlib took 0.3-0.6 s per slider step to draw this chart as a PNG
        (thousands of pairs on a real text); the SVG takes a few milliseconds beyond what the
        engine computes. :attr:`chart_png` draws the matplotlib version when asked."""
        tb = self.trace_bpe
        kb = min(k, len(tb) - 1)
        scatter = bpe_vs_wordpiece_svg(tb[kb], title=f"From BPE's state at step {kb}: what each would merge next",
                                       size=self.size)
        sequences = merge_sequences_svg(tb, self.trace_wp, upto=k or None, size=self.size)
        self._chart_view.value = (
            f'<div class="bpe-chart-pair" data-bpe-chart-step="{k}" '
            f'style="display:flex;flex-wrap:wrap;align-items:flex-start;gap:0 1.5em">{scatter}{sequences}</div>')

    def _chart_png(self) -> bytes:
        """The chart shown now drawn by matplotlib, as PNG bytes (``b""`` when there is none);
        drawn when asked for, and kept until the step or the size changes."""
        if not self.show_chart or self.trace_bpe is None or self._error is not None:
            return b""
        key = (id(self.trace_bpe), id(self.trace_wp), self.step, self.size)
        cached = getattr(self, "_png_cache", None)
        if cached is None or cached[0] != key or cached[2] is not self.trace_bpe or cached[3] is not self.trace_wp:
            k = self.step
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
            self._png_cache = (key, figure_png(fig, dpi=_CHART_DPI * self.size), self.trace_bpe, self.trace_wp)
        return self._png_cache[1]
