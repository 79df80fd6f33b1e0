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

from ..engine import bpe, wordpiece
from ..view import (bpe_vs_wordpiece_svg, figure_png, merge_html, merge_sequences_svg, message_html, pairs_table_html,
                    plot_bpe_vs_wordpiece, plot_merge_sequences, segmentation_html)
from .controls import PRESET_CHOICES, PROJECTOR, MergesBox, options_with, settings_of
from .explorer import CHART_DPI
from .inputs import check_merges, check_whole
from .step_pane import StepCache, StepPane, ViewPart
from .training import TrainingExplorer, merge_ticker, no_merges_message
from .warm import Warmer

__all__ = ["CompareExplorer"]


class CompareExplorer(TrainingExplorer):
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
        check_whole("num_merges", num_merges)  # (a number out of range shows in the view instead)
        self._hold = True
        self._setup_common(size)
        self._warmer = Warmer(self._send_step)  # sends the next steps ahead when the kernel is idle
        self._pane = StepPane(want=self._asked_for, track=self._track_steps)  # before the slider: they are linked
        self._steps = StepCache()
        # what every step past a trace's end shows of it (its last state): made once (_at_end)
        self._ends = StepCache(size=4)
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
            settings = settings_of(trace_bpe.convention)  # the preset that trains BPE's trace again
            if settings is not None and settings[1] == "preset":
                bpe_preset = settings[0]
            elif trace_bpe.convention.preset in PRESET_CHOICES:
                bpe_preset = trace_bpe.convention.preset
        self.num_merges = num_merges
        self.bpe_preset = bpe_preset
        self._setup_training(corpus, "The traces you passed in" if given else None)
        self._merges_box = MergesBox(self).widget  # text: "2.5" and "abc" get a message
        self._preset_dd = widgets.Dropdown(
            options=options_with([(label, key) for key, (label, _) in PRESET_CHOICES.items()], self.bpe_preset),
            value=self.bpe_preset, description="BPE preset", layout=widgets.Layout(width="32em"),
            style={"description_width": "initial"})
        self._link_choice(self._preset_dd, "bpe_preset")
        step_row = self._make_step_controls("step", "step", interval=1200)
        # the view: header, two columns (BPE, WordPiece) and the chart, the parts of a step shown
        # together by one StepPane, which keeps the steps it was sent in the page
        self._header, self._bpe_view, self._wp_view, self._chart_view = ViewPart(), ViewPart(), ViewPart(), ViewPart()
        self._chart_view.shown = self.show_chart
        self._view.children = [self._pane]
        rows = self._lay_out_training([self._preset_dd], [self._merges_box, self._train_btn, self._progress]) \
            if controls else []
        self.children = [*rows, step_row, self._error_view, self._view]

        self._wire_training()
        self.observe(lambda _c: self._retrain_soon(), ["num_merges", "bpe_preset"])
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
        return self._controls_with({"preset": self._preset_dd, "merges": self._merges_box})

    def _last_step(self):
        if self.trace_bpe is None:
            return None
        return max(len(self.trace_bpe), len(self.trace_wp)) - 1

    def retrain(self):
        """Train both algorithms again on the chosen corpus."""
        if self._hold:
            return
        self._cancel_retrain()
        fallback = dict(zip(self.trace_bpe.words, self.trace_bpe.counts)) if self.trace_bpe is not None else None
        try:
            corpus, _sample = self._picker.corpus(fallback)
            n = check_merges(self.num_merges)
            if self.bpe_preset not in PRESET_CHOICES:
                raise ValueError(f"Unknown preset {self.bpe_preset!r}: choose one of {list(PRESET_CHOICES)}.")
            with self._showing_progress(2 * n) as progress:
                tb = bpe.train_bpe(corpus, n, callback=merge_ticker(progress, n, 25),
                                   **PRESET_CHOICES[self.bpe_preset][1])
                tw = wordpiece.train_wordpiece(corpus, n, callback=merge_ticker(progress, n, 25, offset=n))
        except Exception as exc:  # a learner's input: it stays until fixed
            self._show_error(exc, blocking=True)
            return
        self._set_traces(tb, tw)

    def _set_traces(self, tb, tw):
        with self._held():
            self.trace_bpe, self.trace_wp = tb, tw
            self._trained(self._last_step())
        if not tb.merges and not tw.merges:
            self._show_error(no_merges_message(tb), title="Nothing to show yet")
            return
        self._render()

    def _html_widgets(self):
        return [self._header, self._bpe_view, self._wp_view]

    _save_stem = "compare-step"

    def _title(self) -> str:
        if self.trace_bpe is None:
            return "CompareExplorer"
        return f"CompareExplorer, step {self.step} of {self._last_step()}: BPE and WordPiece side by side"

    def _chart_alt(self) -> str:
        return f"BPE and WordPiece at step {self.step}: count against score, and the two merge sequences"

    def _static_body(self, chart: str) -> str:
        cols = "".join(f'<div style="flex:1 1 0;min-width:20em">{v.value}</div>' for v in (self._bpe_view, self._wp_view))
        body = f'{self._header.value}\n<div style="display:flex;flex-wrap:wrap;gap:1em">{cols}</div>'
        return body + "\n" + chart if chart else body

    def _at_end(self, key, make):
        """``make()``, kept under ``key`` for the steps past a trace's end: the BPE trace often stops
        before WordPiece's (its pairs run out: 8,997 of 10,000 merges on the docs), and each of the
        steps after that showed BPE's last state again at the cost of a cold step (a scan of every
        pair's first occurrence among them, issue 20)."""
        kept = self._ends.get(key)
        if kept is None:
            kept = make()
            self._ends.put(key, kept)
        return kept

    def _column(self, trace, title, k, size):
        if k >= len(trace):  # (past its end: its last state, the same at every step)
            return self._at_end(("column", id(trace)), lambda: self._make_column(trace, title, k, size))
        return self._make_column(trace, title, k, size)

    def _make_column(self, trace, title, k, size):
        snap = trace[min(k, len(trace) - 1)]
        rows = min(self.max_rows, 4) if size >= PROJECTOR else self.max_rows  # a projector's screen is short
        words = self.words if self.words is not None else list(trace.words[:rows])
        note = "" if k < len(trace) else message_html(
            f"(stopped after {len(trace) - 1} merges: {trace.stopped_because})", size=size)
        segments = segmentation_html(snap, words, size=size)
        pairs = pairs_table_html(snap, rows, size=size)
        # after the step's own state is built: the merge's ties then read the state before it
        # undone from this one (no second rebuild)
        return message_html(title, size=size) + note + merge_html(snap.merge, trace=trace, size=size) + segments + pairs

    def _has_steps(self) -> bool:
        return self.trace_bpe is not None

    def _view_parts(self):
        return (self._header, self._bpe_view, self._wp_view, self._chart_view)

    def _after_render(self, k: int):
        self._chart_view.shown = self.show_chart
        # what an arrow key, Play or the step buttons ask for next, sent ahead when the kernel is
        # idle (fewer than the stepper: a step of two traces and their chart costs 60-100 ms on a
        # real text, and a jump asked meanwhile waits for the step in hand); then what the
        # traces' first jump would build (issue 20)
        self._warmer.after_step([k + 1, k - 1, k + 2, k + 3, k - 2,
                                 self.trace_bpe.prepare_ranking, self.trace_wp.prepare_ranking])

    def _step_key(self):
        """What every step's HTML depends on besides the step: a change renders every step anew."""
        return (id(self.trace_bpe), id(self.trace_wp), self.size, self.max_rows, self.show_chart,
                None if self.words is None else tuple(self.words))

    def _step_parts(self, k: int) -> tuple[str, str, str, str]:
        """The HTML of step ``k``'s parts (header, BPE's column, WordPiece's, the chart), kept for
        the steps last rendered."""
        self._steps.for_(self._step_key())
        self._ends.for_(self._step_key())
        parts = self._steps.get(k)
        if parts is not None:
            return parts
        size = self.size
        tb, tw = self.trace_bpe, self.trace_wp
        header = message_html(
            f"Step {k}: BPE merges the most frequent pair; WordPiece the pair with the best "
            "count(ab) / (count(a)·count(b))", size=size)
        bpe_column = self._column(tb, f"BPE — {tb.convention.describe()}", k, size)
        wp_column = self._column(tw, f"WordPiece — {tw.convention.describe()}", k, size)
        chart = self._chart_svg(k) if self.show_chart else ""
        parts = (header, bpe_column, wp_column, chart)
        self._steps.put(k, parts)
        return parts

    def _compose(self, parts) -> str:
        """One step's HTML: the two columns side by side at normal sizes; on a projector one
        above the other, each at full width (a long row scrolls inside its column instead of
        pushing the other one off the screen)."""
        header, bpe_column, wp_column, chart = parts
        projector = self.size >= PROJECTOR
        flow, basis = ("row wrap", "100%") if projector else ("row", "0")
        col = f"flex:1 1 {basis};min-width:0;overflow:auto"
        return (f'{header}<div class="bpe-columns" style="display:flex;flex-flow:{flow}">'
                f'<div class="bpe-column" style="{col}">{bpe_column}</div>'
                f'<div class="bpe-column" style="{col}">{wp_column}</div></div>'
                + (f'<div style="max-width:100%;overflow-x:auto">{chart}</div>' if chart else ""))

    def _chart_svg(self, k) -> str:
        """The chart of step ``k`` as inline SVG (:mod:`bpe_viz.view.merges.svg`): BPE's state with
        what each algorithm would merge next, and the two merge sequences.

        Speed (issue 11): matplotlib took 0.3-0.6 s per slider step to draw this chart as a PNG
        (thousands of pairs on a real text); the SVG takes a few milliseconds beyond what the
        engine computes. :attr:`chart_png` draws the matplotlib version when asked."""
        tb = self.trace_bpe
        kb = min(k, len(tb) - 1)

        def scatter_svg():
            return bpe_vs_wordpiece_svg(tb[kb], title=f"From BPE's state at step {kb}: what each would merge next",
                                        size=self.size)
        scatter = self._at_end(("scatter", kb), scatter_svg) if kb == len(tb) - 1 else scatter_svg()
        sequences = merge_sequences_svg(tb, self.trace_wp, upto=k or None, size=self.size)
        return (f'<div class="bpe-chart-pair" data-bpe-chart-step="{k}" '
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
            self._png_cache = (key, figure_png(fig, dpi=CHART_DPI * self.size), self.trace_bpe, self.trace_wp)
        return self._png_cache[1]
