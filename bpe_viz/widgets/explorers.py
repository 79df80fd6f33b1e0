"""ipywidgets explorers: wiring only. Every picture and table comes from :mod:`bpe_viz.render`
and :mod:`bpe_viz.charts`; every number from the trace.

* :class:`MergeExplorer` — drag a slider (or press Play) through the merges of one training run:
  the merge just made (and "tie!"), the words, pairs and vocabulary tables, a sample sentence
  colored with the merges so far, and a chart. Controls choose the corpus (bundled examples,
  Python's documentation, your own text or an uploaded file), the preset, the tie rule and the
  number of merges; only those retrain. A slider step only reads the trace.
* :class:`EncoderExplorer` — type a word and step through the encoder's iterations, using only
  the first k merges.
* :class:`CompareExplorer` — BPE and WordPiece side by side on the same corpus.

The pattern (ipywidgets' own examples): a container subclass with a ``step`` trait;
``Play`` ↔ slider by ``widgets.jslink`` (smooth in the browser), slider ↔ ``step`` by
``traitlets.link`` (so a test or a notebook cell can set ``explorer.step = 5`` and read the
view). Bad input shows a readable message in place of the view, never a traceback; nothing is
printed or displayed from here.

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

from .render import (
    error_html,
    merge_html,
    message_html,
    pairs_table_html,
    segmentation_html,
    segments_html,
    vocab_table_html,
    walkthrough_html,
    words_table_html,
)

__all__ = ["MergeExplorer", "EncoderExplorer", "CompareExplorer", "MAX_MERGES", "PRESET_CHOICES"]

#: The most merges an explorer trains (Python's documentation text: about 2 s for 20,000).
MAX_MERGES = 20_000
#: The largest upload an explorer reads.
MAX_UPLOAD_BYTES = 20_000_000

#: Preset dropdown: key -> (label, train_bpe keyword arguments).
PRESET_CHOICES: dict[str, tuple[str, dict]] = {
    "sennrich2016": ("Sennrich et al. 2016: </w> as its own symbol", {"preset": "sennrich2016"}),
    "subword-nmt": ("subword-nmt: </w> glued to the last letter", {"preset": "subword-nmt"}),
    "slp3": ("Jurafsky & Martin (SLP3): _ marks the end", {"preset": "slp3"}),
    "hf-course": ("Hugging Face course: no end marker", {"preset": "hf-course"}),
    "bytes": ("byte-level (GPT-2): UTF-8 bytes, no marker", {"preset": "hf-course", "byte_level": True}),
}

TIE_CHOICES = (
    ("as the preset says", "preset"),
    ("first pair met", "first"),
    ("greatest pair (subword-nmt)", "lexicographic"),
)

SIZE_CHOICES = (("normal", 1.0), ("large", 1.4), ("projector", 2.0))

CHART_CHOICES = (
    ("best pairs", "pairs"),
    ("merge frequencies", "merges"),
    ("compression", "compression"),
    ("no chart", "none"),
)

_CHART_DPI = 64  # modest: a slider step must stay fast; scaled by the size option


# -- corpora ------------------------------------------------------------------------------------


def _corpora():
    """(name -> label, load(name), name -> sample sentence) from :mod:`bpe_viz.corpora`."""
    from . import corpora

    labels = {n: corpora.describe(n) for n in corpora.CORPUS_NAMES}
    return labels, corpora.load, dict(corpora.SAMPLES)


def _sample_from(corpus) -> str:
    """A sample sentence when the corpus has none: its first words."""
    if isinstance(corpus, str):
        return " ".join(corpus.split()[:10])
    if isinstance(corpus, dict):
        return " ".join(list(corpus)[:8])
    try:
        return " ".join(list(corpus)[:8])
    except TypeError:
        return ""


def _check_merges(n) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise ValueError(f"The number of merges must be a whole number, got {n!r}.")
    if n < 1:
        raise ValueError(f"The number of merges must be at least 1, got {n}.")
    if n > MAX_MERGES:
        raise ValueError(
            f"{n:,} merges is more than this explorer trains (at most {MAX_MERGES:,}). "
            "Choose a smaller number."
        )
    return n


def _decode_upload(value) -> tuple[str, str]:
    """(text, file name) of the first uploaded file, or a readable ValueError."""
    if not value:
        raise ValueError("No file yet: choose a plain-text file (UTF-8) with the upload button.")
    f = value[0]
    name = f.get("name", "the file") if isinstance(f, dict) else getattr(f, "name", "the file")
    content = f.get("content") if isinstance(f, dict) else getattr(f, "content", None)
    data = bytes(content or b"")
    if len(data) > MAX_UPLOAD_BYTES:
        raise ValueError(f"“{name}” is {len(data):,} bytes; this explorer reads files up to {MAX_UPLOAD_BYTES:,} bytes.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"“{name}” is not UTF-8 text (byte 0x{data[exc.start]:02x} at position {exc.start:,} "
            "does not fit). Save it as UTF-8 (plain text) and upload it again."
        ) from None
    return text, name


def _no_merges_message(trace) -> str:
    msg = f"No merge was learned: {trace.stopped_because}."
    if not trace.words:
        return "The text is empty: type or paste some words first."
    if trace.stop_reason == "no_pairs":
        msg += " Every word is a single character; use words of two or more letters."
    elif trace.stop_reason == "min_frequency":
        msg += (f" A pair must occur at least {trace.convention.min_frequency} times; "
                "use a longer text or repeat some words.")
    return msg


class _CorpusPicker:
    """The corpus controls shared by the explorers: source dropdown, text box, file upload."""

    def __init__(self, corpus, *, given_label=None):
        self.labels, self._load, self.samples = _corpora()
        options = [(label, name) for name, label in self.labels.items()]
        options.append(("Your own text (type or paste below)", "text"))
        options.append(("A file you upload (UTF-8 text)", "upload"))
        self.given = None
        value = None
        if given_label is not None:
            options.insert(0, (given_label, "given"))
            value = "given"
        self.textarea = widgets.Textarea(
            placeholder="Type or paste a text here (words are split at spaces)",
            continuous_update=False,
            layout=widgets.Layout(width="100%", height="7em"),
        )
        if value is None:
            if isinstance(corpus, str) and corpus in self.labels:
                value = corpus
            elif isinstance(corpus, str):
                value = "text"
                self.textarea.value = corpus
            else:
                self.given = corpus
                options.insert(0, ("The corpus you passed in", "given"))
                value = "given"
        self.source = widgets.Dropdown(options=options, value=value, description="corpus",
                                       layout=widgets.Layout(width="32em"))
        self.upload = widgets.FileUpload(accept=".txt,text/plain", multiple=False,
                                         description="Upload a text file")
        self.source.observe(self._toggle, "value")
        self._toggle()

    def _toggle(self, change=None):
        src = self.source.value
        self.textarea.layout.display = None if src == "text" else "none"
        self.upload.layout.display = None if src == "upload" else "none"

    def widgets(self):
        return [self.source, self.textarea, self.upload]

    def corpus(self, fallback=None):
        """(corpus, sample sentence) for the chosen source, or a readable ValueError."""
        src = self.source.value
        if src == "given":
            corpus = self.given if self.given is not None else fallback
            if corpus is None:
                raise ValueError("There is no corpus to retrain on: choose one from the list.")
            return corpus, _sample_from(corpus)
        if src == "text":
            text = self.textarea.value
            if not text.strip():
                raise ValueError("The text is empty: type or paste some words first.")
            return text, _sample_from(text)
        if src == "upload":
            text, name = _decode_upload(self.upload.value)
            if not text.strip():
                raise ValueError(f"“{name}” is empty: upload a file with some words in it.")
            return text, _sample_from(text)
        corpus = self._load(src)
        return corpus, self.samples.get(src) or _sample_from(corpus)


def _options_with(choices, value):
    """Dropdown options, with ``value`` added if it is not one of them."""
    options = list(choices)
    if value not in [v for _, v in options]:
        options.append((str(value), value))
    return options


class _Explorer(widgets.VBox):
    """What the three explorers share: a size option, an error box in place of the view."""

    size = traitlets.Float(1.0)

    def _setup_common(self, size):
        self.size = float(size)
        self._size_dd = widgets.Dropdown(options=_options_with(SIZE_CHOICES, self.size), value=self.size,
                                         description="size", layout=widgets.Layout(width="14em"))
        traitlets.link((self._size_dd, "value"), (self, "size"))
        self._error_view = widgets.HTML(layout=widgets.Layout(display="none"))
        self._view = widgets.VBox()
        self._error: str | None = None

    def _show_error(self, exc, title="This needs a fix"):
        message = exc if isinstance(exc, str) else (str(exc) or type(exc).__name__)
        if not isinstance(exc, (str, ValueError, TypeError, IndexError, KeyError)):
            message = f"{type(exc).__name__}: {message}"
        self._error = message
        self._error_view.value = error_html(message, title=title, size=self.size)
        self._error_view.layout.display = None
        self._view.layout.display = "none"

    def _clear_error(self):
        self._error = None
        self._error_view.value = ""
        self._error_view.layout.display = "none"
        self._view.layout.display = None

    @property
    def error(self) -> str | None:
        """The message shown instead of the view, or ``None`` when the view is shown."""
        return self._error

    def _html_widgets(self):
        return []

    @property
    def view_html(self) -> str:
        """The HTML the learner sees now (the error box, or every HTML part of the view)."""
        if self._error is not None:
            return self._error_view.value
        return "\n".join(w.value for w in self._html_widgets())


def _plain(fragment: str) -> str:
    """HTML -> the text a reader sees (tags removed, entities decoded)."""
    import html as _html
    import re

    return _html.unescape(re.sub(r"<[^>]+>", "", fragment))


class MergeExplorer(_Explorer):
    """Step through the merges of one training run with a slider (or Play).

    ``MergeExplorer("sennrich2016", 10)`` trains on a bundled corpus (a name from
    :mod:`bpe_viz.corpora`, your own text, or a word-count dict); a textbook corpus comes with its
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
        if preset is None:
            # a textbook corpus comes with its textbook's convention (they share names)
            preset = corpus if isinstance(corpus, str) and corpus in PRESET_CHOICES else "sennrich2016"
        self.trace = None
        self.max_rows = max_rows
        self._hold = True
        self._setup_common(size)
        self._fig = None
        if trace is not None:
            conv = trace.convention
            if conv.byte_level:
                preset = "bytes"
            elif conv.preset in PRESET_CHOICES:
                preset = conv.preset
            num_merges = max(1, len(trace.merges))
            tie_break = None
        self.preset = preset
        self.tie_break = tie_break or "preset"
        self.num_merges = num_merges
        self.chart = chart

        # -- controls (retrain) --
        self._picker = _CorpusPicker(corpus, given_label="The trace you passed in" if trace is not None else None)
        self._preset_dd = widgets.Dropdown(
            options=_options_with([(label, key) for key, (label, _) in PRESET_CHOICES.items()], self.preset),
            value=self.preset, description="preset", layout=widgets.Layout(width="32em"))
        self._tie_dd = widgets.Dropdown(options=_options_with(TIE_CHOICES, self.tie_break), value=self.tie_break,
                                        description="ties", layout=widgets.Layout(width="20em"))
        self._merges_box = widgets.IntText(value=self.num_merges, description="merges",
                                           layout=widgets.Layout(width="12em"))
        self._train_btn = widgets.Button(description="Train", icon="play", tooltip="train again with these settings")
        self._progress = widgets.IntProgress(value=0, min=0, max=1, description="training",
                                             layout=widgets.Layout(display="none"))
        traitlets.link((self._preset_dd, "value"), (self, "preset"))
        traitlets.link((self._tie_dd, "value"), (self, "tie_break"))
        traitlets.link((self._merges_box, "value"), (self, "num_merges"))

        # -- the slider (read only) --
        self._slider = widgets.IntSlider(value=0, min=0, max=0, description="step",
                                         continuous_update=True, layout=widgets.Layout(width="40em"))
        self._play = widgets.Play(value=0, min=0, max=0, interval=900, description="play")
        widgets.jslink((self._play, "value"), (self._slider, "value"))
        traitlets.link((self._slider, "value"), (self, "step"))
        self._chart_dd = widgets.Dropdown(options=_options_with(CHART_CHOICES, self.chart), value=self.chart,
                                          description="chart", layout=widgets.Layout(width="16em"))
        traitlets.link((self._chart_dd, "value"), (self, "chart"))
        self._sentence_box = widgets.Text(description="sentence", continuous_update=False,
                                          layout=widgets.Layout(width="40em"))
        traitlets.link((self._sentence_box, "value"), (self, "sentence"))

        # -- the view --
        self._header = widgets.HTML()
        self._merge_view = widgets.HTML()
        self._tables_view = widgets.HTML()
        self._sentence_view = widgets.HTML()
        # shown at its own pixel size: a flex column would stretch it wide and blurry
        self._chart_view = widgets.Image(format="png", layout=widgets.Layout(align_self="flex-start"))
        self._view.children = [self._header, self._merge_view, self._sentence_box, self._sentence_view,
                               self._tables_view, self._chart_view]

        rows = []
        if controls:
            rows.append(widgets.HBox([self._picker.source, self._preset_dd]))
            rows.append(self._picker.textarea)
            rows.append(self._picker.upload)
            rows.append(widgets.HBox([self._tie_dd, self._merges_box, self._train_btn, self._progress]))
        rows.append(widgets.HBox([self._play, self._slider, self._size_dd, self._chart_dd]))
        self.children = [*rows, self._error_view, self._view]

        # -- wiring: these retrain; step / size / chart / sentence only re-read the trace --
        self._train_btn.on_click(lambda _b: self.retrain())
        self._picker.source.observe(self._source_changed, "value")
        self._picker.textarea.observe(lambda _c: self._retrain_if("text"), "value")
        self._picker.upload.observe(lambda _c: self._retrain_if("upload"), "value")
        self.observe(lambda _c: self.retrain(), ["preset", "tie_break", "num_merges"])
        self.observe(lambda _c: self._render(), ["step", "size"])
        self.observe(lambda _c: self._render_chart(), "chart")
        self.observe(lambda _c: self._render_sentence(), "sentence")

        self._hold = False
        if trace is not None:
            sample = sentence if sentence is not None else _sample_from(dict(zip(trace.words, trace.counts)))
            self._set_trace(trace, sample)
        else:
            self.retrain(sentence=sentence)

    @classmethod
    def from_trace(cls, trace, **kwargs) -> "MergeExplorer":
        """An explorer showing a trace you already trained (no training here)."""
        return cls(trace=trace, **kwargs)

    @property
    def controls(self) -> dict:
        """The control widgets by name (to hide some in a lesson, or to drive them from code)."""
        return {
            "corpus": self._picker.source, "text": self._picker.textarea, "upload": self._picker.upload,
            "preset": self._preset_dd, "ties": self._tie_dd, "merges": self._merges_box,
            "train": self._train_btn, "progress": self._progress, "play": self._play,
            "slider": self._slider, "size": self._size_dd, "chart": self._chart_dd,
            "sentence": self._sentence_box,
        }

    @traitlets.validate("step")
    def _valid_step(self, proposal):
        k = proposal["value"]
        if self.trace is not None and not 0 <= k < len(self.trace):
            raise traitlets.TraitError(f"step must be between 0 and {len(self.trace) - 1}, got {k}")
        return k

    # -- training ----------------------------------------------------------------------------
    def _source_changed(self, change):
        if change["new"] in PRESET_CHOICES and self.preset != change["new"]:
            # the textbook's own convention, set quietly so that training runs once
            self._hold = True
            try:
                self.preset = change["new"]
            finally:
                self._hold = False
        self.retrain()

    def _retrain_if(self, source):
        if self._picker.source.value == source:
            self.retrain()

    def _train_kwargs(self) -> dict:
        if self.preset not in PRESET_CHOICES:
            raise ValueError(f"Unknown preset {self.preset!r}: choose one of {list(PRESET_CHOICES)}.")
        kwargs = dict(PRESET_CHOICES[self.preset][1])
        if self.tie_break != "preset":
            kwargs["tie_break"] = self.tie_break
        return kwargs

    def retrain(self, sentence: str | None = None):
        """Train again from the controls (corpus, preset, tie rule, merges). Shows progress."""
        if self._hold:
            return
        from .bpe import train_bpe

        fallback = dict(zip(self.trace.words, self.trace.counts)) if self.trace is not None else None
        try:
            corpus, sample = self._picker.corpus(fallback)
            n = _check_merges(self.num_merges)
            kwargs = self._train_kwargs()
            every = max(1, n // 50)
            progress = self._progress
            progress.max, progress.value = n, 0
            progress.layout.display = None

            def tick(merge):
                if merge.step % every == 0:
                    progress.value = merge.step

            trace = train_bpe(corpus, n, callback=tick, **kwargs)
        except Exception as exc:  # a learner's input: show it, never a traceback
            self._show_error(exc)
            return
        finally:
            self._progress.layout.display = "none"
        self._set_trace(trace, sentence if sentence is not None else sample)

    def _set_trace(self, trace, sample):
        self._hold = True
        try:
            self.trace = trace
            last = len(trace) - 1
            self._slider.max = self._play.max = max(last, 0)
            if self.step > last:
                self.step = last
            if sample is not None:
                self.sentence = sample
        finally:
            self._hold = False
        if not trace.merges:
            self._show_error(_no_merges_message(trace), title="Nothing to show yet")
            return
        self._render()

    # -- rendering: one slider step only reads the trace -------------------------------------
    def _html_widgets(self):
        return [self._header, self._merge_view, self._sentence_view, self._tables_view]

    @property
    def text(self) -> str:
        """The view as plain text (tags removed), for quick checks."""
        return _plain(self.view_html)

    @property
    def chart_png(self) -> bytes:
        """The chart currently shown, as PNG bytes (empty if none)."""
        return bytes(self._chart_view.value)

    def _render(self):
        if self._hold or self.trace is None or not self.trace.merges:
            return
        try:
            trace, k, size = self.trace, self.step, self.size
            snap = trace[k]
            self._header.value = message_html(
                f"Step {k} of {len(trace) - 1} — {trace.convention.describe()}", size=size)
            self._merge_view.value = merge_html(snap.merge, trace=trace, size=size)
            rows = self.max_rows
            self._tables_view.value = (
                '<div style="display:flex;flex-wrap:wrap;align-items:flex-start">'
                + words_table_html(snap, rows, size=size)
                + pairs_table_html(snap, rows, size=size)
                + vocab_table_html(snap, rows, order="newest", size=size)
                + "</div>"
            )
            self._render_sentence()
            self._render_chart()
        except Exception as exc:
            self._show_error(exc)
            return
        self._clear_error()

    def _render_sentence(self):
        if self._hold or self.trace is None or not self.trace.merges:
            return
        from .encode import encode

        try:
            snap = self.trace[self.step]
            enc = encode(self.sentence, self.trace, num_merges=self.step)
            highlight = snap.merge.token if snap.merge is not None else None
            self._sentence_view.value = segments_html(enc, size=self.size, highlight=highlight)
        except Exception as exc:
            self._sentence_view.value = error_html(exc, size=self.size)

    def _render_chart(self):
        if self._hold or self.trace is None or not self.trace.merges:
            return
        if self.chart == "none":
            self._chart_view.value = b""
            self._chart_view.layout.display = "none"
            return
        from .charts import figure_png, plot_compression, plot_merge_counts, plot_pair_counts

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
        self._chart_view.value = figure_png(fig, dpi=_CHART_DPI * self.size)
        self._chart_view.layout.display = None

    def _chart_figure(self):
        # one Figure for the explorer's life, no layout engine (constrained layout measures every
        # text twice per draw: it would double the cost of a slider step)
        if self._fig is None:
            from matplotlib.figure import Figure

            self._fig = Figure(figsize=(6.4, 3.4))
            self._fig_chart = None
        return self._fig


def _fit_left_margin(fig, ax, fontsize_pt=10.0):
    """Room on the left for the longest y tick label (monospace: ~0.6 em per character)."""
    from .charts import pair_labels

    longest = max((len(t) for t in pair_labels(ax)), default=4)
    inches = 0.15 + longest * 0.6 * fontsize_pt / 72
    left = min(0.55, inches / fig.get_figwidth())
    fig.subplots_adjust(left=left, right=0.96, top=0.9, bottom=0.15)


class EncoderExplorer(_Explorer):
    """Type a word and step through how the encoder segments it with the first k merges.

    Each iteration lists the learned pairs present with their ranks (merge numbers) and merges
    the lowest-rank one (WordPiece traces: the pieces tried, longest first).

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
        >>> ex = EncoderExplorer(trace, "lowest")
        >>> ex.walkthrough.final
        ('low', 'est</w>')
        >>> ex.num_merges = 3
        >>> ex.walkthrough.final
        ('l', 'o', 'w', 'est</w>')
    """

    word = traitlets.Unicode("lowest")
    num_merges = traitlets.Int(0)
    iteration = traitlets.Int(0)

    def __init__(self, trace=None, word: str = "lowest", num_merges: int | None = None, *,
                 corpus="sennrich2016", preset: str = "sennrich2016", train_merges: int = 10,
                 size: float = 1.0):
        super().__init__()
        self._hold = True
        self._setup_common(size)
        if trace is None:
            from .bpe import train_bpe

            labels, load, _ = _corpora()
            trace = train_bpe(load(corpus) if isinstance(corpus, str) and corpus in labels else corpus,
                              train_merges, **PRESET_CHOICES.get(preset, (None, {"preset": preset}))[1])
        self.trace = trace
        self.walkthrough = None
        n = len(trace.merges)
        self.num_merges = n if num_merges is None else num_merges
        self.word = word
        self._word_box = widgets.Text(value=word, description="word", continuous_update=True,
                                      layout=widgets.Layout(width="24em"))
        self._k_slider = widgets.IntSlider(value=self.num_merges, min=0, max=n,
                                           description="use merges", continuous_update=True,
                                           layout=widgets.Layout(width="36em"),
                                           style={"description_width": "initial"})
        self._it_slider = widgets.IntSlider(value=0, min=0, max=0, description="iteration",
                                            layout=widgets.Layout(width="36em"))
        self._play = widgets.Play(value=0, min=0, max=0, interval=1000, description="play")
        widgets.jslink((self._play, "value"), (self._it_slider, "value"))
        traitlets.link((self._word_box, "value"), (self, "word"))
        traitlets.link((self._k_slider, "value"), (self, "num_merges"))
        traitlets.link((self._it_slider, "value"), (self, "iteration"))
        self._walk_view = widgets.HTML()
        self._final_view = widgets.HTML()
        self._view.children = [self._walk_view, self._final_view]
        self.children = [
            widgets.HBox([self._word_box, self._size_dd]),
            self._k_slider,
            widgets.HBox([self._play, self._it_slider]),
            self._error_view,
            self._view,
        ]
        self.observe(lambda _c: self._recompute(), ["word", "num_merges"])
        self.observe(lambda _c: self._render(), ["iteration", "size"])
        self._hold = False
        self._recompute()

    @classmethod
    def from_trace(cls, trace, word: str = "lowest", **kwargs) -> "EncoderExplorer":
        """An explorer on a trace you already trained."""
        return cls(trace, word, **kwargs)

    @property
    def controls(self) -> dict:
        """The control widgets by name."""
        return {"word": self._word_box, "merges": self._k_slider, "iteration": self._it_slider,
                "play": self._play, "size": self._size_dd}

    @property
    def text(self) -> str:
        """The view as plain text (tags removed), for quick checks."""
        return _plain(self.view_html)

    @traitlets.validate("num_merges")
    def _valid_k(self, proposal):
        k = proposal["value"]
        n = len(self.trace.merges) if getattr(self, "trace", None) is not None else None
        if n is not None and not 0 <= k <= n:
            raise traitlets.TraitError(f"num_merges must be between 0 and {n}, got {k}")
        return k

    @traitlets.validate("iteration")
    def _valid_iteration(self, proposal):
        i = proposal["value"]
        w = getattr(self, "walkthrough", None)
        if w is not None and not 0 <= i <= len(w.steps):
            raise traitlets.TraitError(f"iteration must be between 0 and {len(w.steps)}, got {i}")
        return i

    def _html_widgets(self):
        return [self._walk_view, self._final_view]

    def _recompute(self):
        if self._hold:
            return
        from .encode import encode_word

        word = self.word.strip()
        try:
            if not word:
                raise ValueError("Type a word to encode.")
            if any(ch.isspace() for ch in word):
                raise ValueError(f"Type one word, without spaces (got “{word}”).")
            self.walkthrough = encode_word(word, self.trace, self.num_merges)
        except Exception as exc:
            self.walkthrough = None
            self._show_error(exc)
            return
        steps = len(self.walkthrough.steps)
        self._hold = True
        try:
            self._it_slider.max = self._play.max = steps
            self.iteration = steps  # show the whole walkthrough; drag back to replay it
        finally:
            self._hold = False
        self._render()

    def _render(self):
        if self._hold or self.walkthrough is None:
            return
        from .encode import encode

        try:
            size = self.size
            self._walk_view.value = walkthrough_html(self.walkthrough, trace=self.trace,
                                                     upto=self.iteration, size=size)
            enc = encode(self.walkthrough.word, self.trace, self.num_merges)
            ids = ", ".join(str(i) for i in enc.ids)
            self._final_view.value = (
                message_html(f"tokens and ids with the first {self.num_merges} merges: [{ids}]", size=size)
                + segments_html(enc, size=size)
            )
        except Exception as exc:
            self._show_error(exc)
            return
        self._clear_error()


class CompareExplorer(_Explorer):
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
        self._picker = _CorpusPicker(corpus, given_label="The traces you passed in" if given else None)
        self._merges_box = widgets.IntText(value=self.num_merges, description="merges",
                                           layout=widgets.Layout(width="12em"))
        self._preset_dd = widgets.Dropdown(
            options=_options_with([(label, key) for key, (label, _) in PRESET_CHOICES.items()], self.bpe_preset),
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
        from .bpe import train_bpe

        try:
            from .wordpiece import train_wordpiece
        except ImportError:  # pragma: no cover
            self._show_error("The WordPiece trainer (bpe_viz.wordpiece) is not available.")
            return
        fallback = dict(zip(self.trace_bpe.words, self.trace_bpe.counts)) if self.trace_bpe is not None else None
        try:
            corpus, _sample = self._picker.corpus(fallback)
            n = _check_merges(self.num_merges)
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

            tb = train_bpe(corpus, n, callback=tick(0), **PRESET_CHOICES[self.bpe_preset][1])
            tw = train_wordpiece(corpus, n, callback=tick(n))
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
            self._show_error(_no_merges_message(tb), title="Nothing to show yet")
            return
        self._render()

    def _html_widgets(self):
        return [self._header, self._bpe_view, self._wp_view]

    @property
    def text(self) -> str:
        """The view as plain text (tags removed), for quick checks."""
        return _plain(self.view_html)

    @property
    def chart_png(self) -> bytes:
        return bytes(self._chart_view.value)

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
        from .charts import figure_png, plot_bpe_vs_wordpiece, plot_merge_sequences

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
