"""MergeExplorer: drag a slider (or press Play) through the merges of one training run.

A step shows the merge just made (and "tie!"), the words, pairs and vocabulary tables, a sample
sentence colored with the merges so far, and a chart. Controls choose the corpus (bundled
examples, Python's documentation, your own text or an uploaded file), the preset, the tie rule
and the number of merges; only those retrain. A slider step only reads the trace.

Example::

    >>> from bpe_viz import train_bpe
    >>> ex = MergeExplorer.from_trace(train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10))
    >>> ex.step = 2
    >>> "merge 2:" in ex.view_html
    True
"""

from __future__ import annotations

import ipywidgets as widgets
import traitlets

from ..engine import bpe
from ..engine.merges.encoder import encode_head
from ..view import (
    MAX_CHIPS,
    MAX_SENTENCE_TOKENS,
    compression_svg,
    error_html,
    figure_png,
    merge_counts_svg,
    merge_html,
    merge_tree_html,
    no_tree_html,
    pair_counts_svg,
    pair_labels,
    pairs_table_html,
    plot_compression,
    plot_merge_counts,
    plot_pair_counts,
    segments_html,
    step_header_html,
    vocab_table_html,
    words_table_html,
)
from .controls import (CHART_CHOICES, PRESET_CHOICES, PROJECTOR, TIE_CHOICES, MergesBox, options_with, sample_from,
                       settings_of)
from .explorer import CHART_DPI
from .inputs import check_merges, check_whole
from .step_pane import StepCache, StepPane, ViewPart
from .training import WRAP, TrainingExplorer, merge_ticker, no_merges_message
from .warm import Warmer

__all__ = ["MergeExplorer"]


class MergeExplorer(TrainingExplorer):
    """Step through the merges of one training run with a slider (or Play).

    ``MergeExplorer("sennrich2016", 10)`` trains on a bundled corpus (a name from
    :mod:`bpe_viz.engine.text.corpora`, your own text, or a word-count dict); a textbook corpus comes with its
    textbook's preset unless you pass ``preset``. ``MergeExplorer.from_trace(trace)`` shows a trace
    you already have. Set ``explorer.step = k`` to move the slider from code; set ``preset``,
    ``tie_break`` or ``num_merges`` (or use the controls) to train again.

    Example::

        >>> ex = MergeExplorer("sennrich2016", 10)
        >>> ex.step = 2
        >>> ex.trace[2].merge.token, "(es, t)" in ex.text
        ('est', True)
    """

    step = traitlets.Int(0)
    preset = traitlets.Unicode("sennrich2016")
    tie_break = traitlets.Unicode("preset")
    num_merges = traitlets.Int(10)
    chart = traitlets.Unicode("pairs")
    sentence = traitlets.Unicode("")

    def __init__(self, corpus="sennrich2016", num_merges: int = 10, *, preset: str | None = None,
                 tie_break: str | None = None, trace=None, sentence: str | None = None,
                 size: float = 1.0, max_rows: int = 8, chart: str = "pairs", controls: bool = True):
        super().__init__()
        check_whole("num_merges", num_merges)  # (a number out of range shows in the view instead)
        if preset is None:
            # a textbook corpus comes with its textbook's convention (they share names)
            preset = corpus if isinstance(corpus, str) and corpus in PRESET_CHOICES else "sennrich2016"
        self.trace = None
        self.max_rows = max_rows
        self._hold = True
        self._setup_common(size)
        self._fig = None
        self._warmer = Warmer(self._send_step)  # sends the next steps ahead when the kernel is idle
        self._pane = StepPane(want=self._asked_for, track=self._track_steps)  # before the slider: they are linked
        self._steps = StepCache()
        if trace is not None:
            # the controls show what the trace was trained with: Train with no change trains it again
            conv, tie_break = trace.convention, None
            settings = settings_of(conv)
            if settings is not None:
                preset, tie_break = settings
            elif conv.byte_level:
                preset = "bytes"
            elif conv.preset in PRESET_CHOICES:
                preset = conv.preset
            num_merges = max(1, len(trace.merges))
        self.preset = preset
        self.tie_break = tie_break or "preset"
        self.num_merges = num_merges
        self.chart = chart

        step_row = self._make_controls(corpus, trace)
        self._make_view()
        self._training_rows = self._lay_out_training(
            [self._preset_dd], [self._tie_dd, self._merges_box, self._train_btn, self._progress]) if controls else []
        self.children = [*self._training_rows, step_row, self._error_view, self._view]
        self.observe(lambda _c: self._arrange(), "size")
        self._arrange()

        # -- wiring: these retrain; step / size / chart / sentence only re-read the trace --
        self._wire_training()
        self.observe(lambda _c: self._retrain_soon(), ["preset", "tie_break", "num_merges"])
        self.observe(lambda _c: self._render(), ["step", "size"])
        self.observe(lambda _c: self._render(), ["chart", "sentence"])

        self._hold = False
        self._sample = None  # the sentence the explorer picked (a corpus's sample), until one is typed
        if trace is not None:
            self._set_trace(trace, sentence, sample_from(dict(zip(trace.words, trace.counts))))
        else:
            self.retrain(sentence=sentence)

    def _make_controls(self, corpus, trace):
        """The training controls (corpus, preset, ties, merges, Train) and the step controls
        (Play, back, slider, forward, reset, speed; chart, sentence); returns the step row."""
        self._setup_training(corpus, "The trace you passed in" if trace is not None else None,
                             tooltip="train again with these settings")
        self._preset_dd = widgets.Dropdown(
            options=options_with([(label, key) for key, (label, _) in PRESET_CHOICES.items()], self.preset),
            value=self.preset, description="preset", layout=widgets.Layout(width="32em"))
        self._tie_dd = widgets.Dropdown(options=options_with(TIE_CHOICES, self.tie_break), value=self.tie_break,
                                        description="ties", layout=widgets.Layout(width="20em"))
        self._merges_box = MergesBox(self).widget  # text: "2.5" and "abc" get a message
        self._link_choice(self._preset_dd, "preset")
        self._link_choice(self._tie_dd, "tie_break")

        self._chart_dd = widgets.Dropdown(options=options_with(CHART_CHOICES, self.chart), value=self.chart,
                                          description="chart", layout=widgets.Layout(width="16em"))
        self._link_choice(self._chart_dd, "chart")
        step_row = self._make_step_controls("step", "step", interval=900)
        self._sentence_box = widgets.Text(description="sentence", continuous_update=False,
                                          layout=widgets.Layout(width="40em"))
        traitlets.link((self._sentence_box, "value"), (self, "sentence"))
        return step_row

    def _make_view(self):
        """The parts of a step, shown together by one StepPane, which keeps the steps it was
        sent in the page (a slider move there costs no round trip); the sentence and tree boxes."""
        self._header, self._merge_view = ViewPart(), ViewPart()
        self._sentence_view, self._tables_view, self._chart_view = ViewPart(), ViewPart(), ViewPart()
        self._view.children = [self._pane, self._sentence_box]
        self._setup_tree()

    @classmethod
    def from_trace(cls, trace, **kwargs) -> "MergeExplorer":
        """An explorer showing a trace you already trained (no training here)."""
        return cls(trace=trace, **kwargs)

    @property
    def controls(self) -> dict:
        """The control widgets by name (to hide some in a lesson, or to drive them from code)."""
        return self._controls_with({"preset": self._preset_dd, "ties": self._tie_dd, "merges": self._merges_box},
                                   {"chart": self._chart_dd, "sentence": self._sentence_box})

    # -- training ----------------------------------------------------------------------------
    def _source_changed(self, change):
        if change["new"] in PRESET_CHOICES and self.preset != change["new"]:
            # the textbook's own convention, set quietly so that training runs once
            with self._held():
                self.preset = change["new"]
        self._retrain_soon()

    def _train_kwargs(self) -> dict:
        if self.preset not in PRESET_CHOICES:
            raise ValueError(f"Unknown preset {self.preset!r}: choose one of {list(PRESET_CHOICES)}.")
        kwargs = dict(PRESET_CHOICES[self.preset][1])
        if self.tie_break != "preset":
            kwargs["tie_break"] = self.tie_break
        return kwargs

    def retrain(self, sentence: str | None = None):
        """Train again from the controls (corpus, preset, tie rule, merges). Shows progress.

        The sentence stays, unless the explorer picked it (the corpus's sample: then the new
        corpus's sample) or it is empty; ``sentence``: this one instead."""
        if self._hold:
            return
        self._cancel_retrain()
        fallback = dict(zip(self.trace.words, self.trace.counts)) if self.trace is not None else None
        try:
            corpus, sample = self._picker.corpus(fallback)
            n = check_merges(self.num_merges)
            kwargs = self._train_kwargs()
            with self._showing_progress(n) as progress:
                trace = bpe.train_bpe(corpus, n, callback=merge_ticker(progress, n, 50), **kwargs)
        except Exception as exc:  # a learner's input: show it, never a traceback; it stays until fixed
            self._show_error(exc, blocking=True)
            return
        self._set_trace(trace, sentence, sample)

    def _set_trace(self, trace, sentence, sample):
        """Show ``trace``, with ``sentence`` (given) or else the sentence shown, unless that one
        is empty or was the explorer's pick: then ``sample``."""
        with self._held():
            self.trace = trace
            self._trained(len(trace) - 1)
            if sentence is not None:
                self.sentence, self._sample = sentence, None
            elif sample is not None and (not self.sentence.strip() or self.sentence == self._sample):
                self.sentence = self._sample = sample
        if not trace.merges:
            self._show_error(no_merges_message(trace), title="Nothing to show yet")
            return
        self._render()

    # -- rendering: one slider step only reads the trace -------------------------------------
    def _html_widgets(self):
        return [self._header, self._merge_view, self._sentence_view, self._tables_view]

    def _extra_step_widgets(self):
        return [self._size_dd, self._chart_dd, self._save_btn, self._save_link]

    def _arrange(self):
        """On a projector (a 1024×768 screen) the steps come first and the training controls and
        the sentence box last, so that the merge, the colored sentence and the pair table are
        on the first screen; otherwise the controls on top, as they are used."""
        projector = self.size >= PROJECTOR
        training = list(self._training_rows)
        if not hasattr(self, "_settings_row"):
            self._settings_row = widgets.HBox(layout=widgets.Layout(flex_flow="row wrap"))
        self._settings_row.children = self._extra_step_widgets() if projector else []
        settings = [self._settings_row]
        rest = [self._step_row, self._error_view, self._view]
        self.children = [*rest, *settings, *training] if projector else [*training, *rest]
        self._step_row.children = self._step_row_children() + ([] if projector else self._extra_step_widgets())

    _save_stem = "merge-step"

    def _title(self) -> str:
        if self.trace is None or not self.trace.merges:
            return "MergeExplorer"
        k, m = self.step, self.trace[self.step].merge
        what = "no merge yet" if m is None else f"merge {k}: ({m.pair[0]}, {m.pair[1]}) → {m.token}"
        return f"MergeExplorer, step {k} of {len(self.trace) - 1}: {what}"

    def _chart_alt(self) -> str:
        label = dict((v, lab) for lab, v in CHART_CHOICES).get(self.chart, self.chart)
        return f"chart at step {self.step}: {label}"

    def _static_body(self, chart: str) -> str:
        body = super()._static_body(chart)
        tree = getattr(self, "_tree_view", None)  # a merge tree asked for under the view
        return body + "\n" + tree.value if tree is not None and tree.value else body

    def _has_steps(self) -> bool:
        return self.trace is not None and bool(self.trace.merges)

    def _view_parts(self):
        return (self._header, self._merge_view, self._sentence_view, self._tables_view, self._chart_view)

    def _after_render(self, k: int):
        self._chart_view.shown = self.chart != "none"
        self._render_tree()
        # what an arrow key, Play or the step buttons ask for next, sent ahead when the kernel is
        # idle; then what the trace's first late jump would build (issue 20: ~50 ms, once)
        self._warmer.after_step([k + 1, k - 1, k + 2, k + 3, k - 2, k + 4, k + 5, k + 6, k - 3, k + 7, k + 8,
                                 self.trace.prepare_ranking])

    def _step_key(self):
        """What every step's HTML depends on besides the step: a change renders every step anew."""
        return (id(self.trace), self.size, self.chart, self.sentence, self.max_rows)

    def _step_parts(self, k: int) -> tuple[str, ...]:
        """The HTML of step ``k``'s parts (header, merge, sentence, tables, chart), kept for the
        steps last rendered (:class:`~bpe_viz.widgets.step_pane.StepCache`)."""
        self._steps.for_(self._step_key())
        parts = self._steps.get(k)
        if parts is not None:
            return parts
        trace, size = self.trace, self.size
        snap = trace[k]
        header = step_header_html(trace, k, asked=self.num_merges, size=size, compact=size >= PROJECTOR)
        rows = min(self.max_rows, 4) if size >= PROJECTOR else self.max_rows
        words = words_table_html(snap, rows, size=size)
        pairs = pairs_table_html(snap, rows, size=size)
        vocab = vocab_table_html(snap, rows, order="newest", size=size)
        # after the tables: the ties of the merge are then read off this step's state, not rebuilt
        merge = merge_html(snap.merge, trace=trace, size=size)
        if size >= PROJECTOR:
            # on a projector the pair table (what wins next) comes first, on the first screen
            words, pairs = pairs, words
        tables = '<div style="display:flex;flex-wrap:wrap;align-items:flex-start">' + words + pairs + vocab + "</div>"
        try:
            # a long sentence: only the words the view shows are encoded (issue 20)
            enc = encode_head(trace, self.sentence, k, max_tokens=MAX_SENTENCE_TOKENS, per_word=MAX_CHIPS)
            highlight = snap.merge.token if snap.merge is not None else None
            sentence = segments_html(enc, size=size, highlight=highlight)
        except Exception as exc:  # the sentence is the learner's: its error shows in its place
            sentence = error_html(exc, size=size)
        chart = "" if self.chart == "none" else self._chart_svg(k)
        parts = (header, merge, sentence, tables, chart)
        self._steps.put(k, parts)
        return parts

    @staticmethod
    def _compose(parts) -> str:
        header, merge, sentence, tables, chart = parts
        chart = f'<div style="align-self:flex-start;max-width:100%;overflow-x:auto">{chart}</div>' if chart else ""
        return header + merge + sentence + tables + chart

    def _last_step(self):
        return None if self.trace is None else len(self.trace) - 1

    def _chart_svg(self, k: int) -> str:
        """The chart of step ``k`` as inline SVG (:mod:`bpe_viz.view.merges.svg`).

        Speed (issue 11): a slider step used to draw the chart with matplotlib and send a PNG,
        60-75 ms of the kernel's time per step on a real text, more than the rest of the step;
        the SVG string takes about 2 ms and the browser draws it. The matplotlib chart is still
        there: :attr:`chart_png` and ``save("x.png")`` draw it when asked (:meth:`_chart_png`)."""
        size = self.size
        if self.chart == "pairs":
            return pair_counts_svg(self.trace[k], top=8, size=size)
        if self.chart == "merges":
            return merge_counts_svg(self.trace, upto=k, size=size)
        if self.chart == "compression":
            return compression_svg(self.trace, upto=k, size=size)
        raise ValueError(f"chart must be one of {[v for _, v in CHART_CHOICES]}, got {self.chart!r}")

    def _chart_png(self) -> bytes:
        """The chart shown now drawn by matplotlib, as PNG bytes (``b""`` for no chart); drawn
        when asked for, and kept until the step, the chart or the size changes."""
        if self.trace is None or not self.trace.merges or self.chart == "none" or self._error is not None:
            return b""
        key = (id(self.trace), self.step, self.chart, self.size)
        cached = getattr(self, "_png_cache", None)
        if cached is None or cached[0] != key or cached[2] is not self.trace:
            fig = self._draw_chart_figure()
            self._png_cache = (key, figure_png(fig, dpi=CHART_DPI * self.size), self.trace)
        return self._png_cache[1]

    def _draw_chart_figure(self):
        """The chart of this step on the explorer's matplotlib Figure (for :meth:`_chart_png`)."""
        fig = self._chart_figure()
        if self._fig_chart == self.chart and len(fig.axes) == 1:
            ax = fig.axes[0]
            if self.chart == "pairs":
                # bars and texts only, no ticks: removing them is far cheaper than ax.clear(),
                # which rebuilds both axes' tick machinery on every slider step
                for artist in [*ax.patches, *ax.texts, *ax.lines, *ax.collections]:
                    artist.remove()
            else:
                ax.clear()  # same kind of chart as last step: reuse its Axes (cheaper)
        else:
            # another kind: a fresh Axes (ax.clear() keeps a few settings, e.g. spines, and a twin axis)
            fig.clear()
            ax = fig.add_subplot()
            self._fig_chart = self.chart
        k = self.step
        if self.chart == "pairs":
            plot_pair_counts(self.trace[k], top=8, ax=ax)
            _fit_left_margin(fig, ax)
        elif self.chart == "merges":
            plot_merge_counts(self.trace, upto=k, ax=ax)
            fig.subplots_adjust(left=0.12, right=0.96, top=0.9, bottom=0.15)
        elif self.chart == "compression":
            plot_compression(self.trace, upto=k, ax=ax)
            fig.subplots_adjust(left=0.1, right=0.86, top=0.9, bottom=0.15)
        else:
            raise ValueError(f"chart must be one of {[v for _, v in CHART_CHOICES]}, got {self.chart!r}")
        return fig

    def _chart_figure(self):
        # one Figure for the explorer's life, no layout engine (constrained layout measures every
        # text twice per draw: it would double the cost of a slider step)
        if self._fig is None:
            from matplotlib.figure import Figure

            self._fig = Figure(figsize=(6.4, 3.4))
            self._fig_chart = None
        return self._fig

    # -- on demand: the merge tree of a token ---------------------------------------------------
    def _setup_tree(self):
        """A "tree of" box under the view: type a token, see how the merges so far built it."""
        self._tree_box = widgets.Text(description="tree of", placeholder="a token, e.g. est</w>",
                                      continuous_update=False, layout=widgets.Layout(width="24em"))
        self._tree_view = widgets.HTML()
        self._view.children = [*self._view.children, self._tree_box, self._tree_view]
        self._tree_box.observe(lambda _c: self._render_tree(), "value")  # (and every _render)

    def _render_tree(self):
        token = self._tree_box.value.strip()
        if not token or self.trace is None or not self.trace.merges:
            self._tree_view.value = ""
            return
        try:
            self._tree_view.value = merge_tree_html(self.trace, token, upto=self.step, size=self.size)
        except (ValueError, TypeError) as exc:
            self._tree_view.value = no_tree_html(exc, size=self.size)

    def show_tree(self, token: str):
        """Show how ``token`` was built by the merges so far (as typing it in the "tree of" box)."""
        self._tree_box.value = token

    @property
    def tree_html(self) -> str:
        """The merge tree shown under the view (``""`` when the "tree of" box is empty)."""
        self._settle()
        return self._tree_view.value


def _fit_left_margin(fig, ax, fontsize_pt=10.0):
    """Room on the left for the longest y tick label (monospace: ~0.6 em per character)."""
    longest = max((len(t) for t in pair_labels(ax)), default=4)
    inches = 0.15 + longest * 0.6 * fontsize_pt / 72
    left = min(0.55, inches / fig.get_figwidth())
    fig.subplots_adjust(left=left, right=0.96, top=0.9, bottom=0.15)
