"""UnigramExplorer: drag a slider (or press Play) through the rounds of a Unigram training run.

BPE's explorer shows the pair each step *adds*; this one shows the pieces each round *removes*.
A round shows the pieces' probabilities (a bar chart, the pieces the next round removes
hatched), the corpus loss round by round, the Δloss table that decided the round (the cut line,
the removed pieces highlighted, ties at the cut flagged) and the lattice of a word you type
(every way to cut it, the Viterbi path, tied paths). The controls choose the corpus, the
flavour (the Hugging Face course's code, or SentencePiece 0.2.3's trainer) and the vocabulary
size; only those train again. A slider step only reads the trace.

Example::

    >>> toy = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    >>> seeds = ["h", "u", "g", "hu", "ug", "p", "pu", "n", "un", "b", "bu", "s", "hug", "gs", "ugs"]
    >>> ex = UnigramExplorer(toy, vocab_size=12, initial_vocab=seeds, word="pug")
    >>> ex.step = 1
    >>> "Round 1 of 3" in ex.text, "2 ways tie for the best" in ex.text
    (True, True)
"""

from __future__ import annotations

import math
import re

import ipywidgets as widgets
import traitlets

from ..engine import unigram as _unigram
from ..view.charts import figure_png
from ..view.html import error_html, message_html
from ..view.unigram import lattice_html, removal_table_html, round_header_html
from ..view.unigram_charts import mark_round, plot_loss, plot_piece_probabilities
from ..view.unigram_svg import loss_svg, piece_probabilities_svg
from .common import _CHART_DPI, CorpusPicker, Explorer, options_with

__all__ = ["UnigramExplorer", "FLAVOUR_CHOICES", "MAX_VOCAB_SIZE"]

#: Flavour dropdown: the engine's flavours, each with what it is.
FLAVOUR_CHOICES = tuple(
    (label, name) for name, label in (
        ("hf-course", "Hugging Face course (frequencies, no EM, 10% per round)"),
        ("sentencepiece", "SentencePiece 0.2.3 (EM, keeps 75% per round)"),
    ) if name in _unigram.FLAVOURS
)

#: The largest vocabulary an explorer trains.
MAX_VOCAB_SIZE = 20_000


def parse_vocab_size(text) -> int:
    """What a learner typed in the "vocab size" box, as a number: ``"1,000"`` reads as 1000;
    ``"2.5"`` or ``"abc"`` is a readable ValueError.

    Example::

        >>> parse_vocab_size(" 1,000 ")
        1000
        >>> parse_vocab_size("lots")
        Traceback (most recent call last):
        ...
        ValueError: The vocabulary size must be a whole number like 100 or 1,000, got “lots”.
    """
    raw = str(text).strip()
    digits = re.sub(r"(?<=\d)[,_ \u00a0\u202f](?=\d{3}\b)", "", raw)
    if not re.fullmatch(r"[+-]?\d+", digits):
        if not raw:
            raise ValueError("The vocabulary size is empty: type a whole number like 100 or 1,000.")
        raise ValueError(f"The vocabulary size must be a whole number like 100 or 1,000, got “{raw}”.")
    return check_vocab_size(int(digits))


def check_vocab_size(n) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise ValueError(f"The vocabulary size must be a whole number, got {n!r}.")
    if n < 1:
        raise ValueError(f"The vocabulary size must be at least 1, got {n}.")
    if n > MAX_VOCAB_SIZE:
        raise ValueError(f"{n:,} pieces is more than this explorer trains (at most {MAX_VOCAB_SIZE:,}).")
    return n


class UnigramExplorer(Explorer):
    """Step through the rounds of a Unigram training run with a slider (or Play).

    ``UnigramExplorer(corpus, vocab_size=12, flavour="hf-course")`` trains on a bundled corpus
    (a name from :mod:`bpe_viz.engine.text.corpora`), your text, or a word-count dict;
    ``UnigramExplorer(trace)`` shows a trace you already trained. ``initial_vocab`` and
    ``seed_size`` go to :func:`~bpe_viz.engine.unigram.model.train_unigram` (hf-course, the corpus
    passed in). ``word``: the word whose lattice is shown. Set ``explorer.step = k`` to move the
    slider from code; set ``flavour`` or ``vocab_size`` (or use the controls) to train again.

    Example::

        >>> ex = UnigramExplorer("hf-course", vocab_size=14, word="hugs")
        >>> ex.step = 2
        >>> ex.trace[2].removed[0].piece in ex.text
        True
    """

    step = traitlets.Int(0)
    flavour = traitlets.Unicode("hf-course")
    vocab_size = traitlets.Int(12)
    word = traitlets.Unicode("")
    _save_stem = "round"

    def __init__(self, corpus_or_trace="hf-course", vocab_size: int | None = None, *, flavour: str | None = None,
                 word: str | None = None, initial_vocab=None, seed_size: int = 300, size: float = 1.0,
                 max_rows: int = 14, top: int = 12, max_paths: int = 10, controls: bool = True):
        super().__init__()
        self._hold = True
        self._setup_common(size)
        self.trace = None
        self._fig = None
        self._loss_drawn = None
        self.max_rows, self.top, self.max_paths = max_rows, top, max_paths
        self._seed_size = seed_size
        given = corpus_or_trace if isinstance(corpus_or_trace, _unigram.UnigramTrace) else None
        if given is not None:
            flavour = flavour or given.flavour
            vocab_size = vocab_size if vocab_size is not None else given.vocab_size
            initial_vocab = initial_vocab if initial_vocab is not None else given.options.get("initial_vocab")
        self._initial_vocab = initial_vocab
        self.flavour = flavour or "hf-course"
        self._vocab_error = None
        try:
            self.vocab_size = 12 if vocab_size is None else vocab_size
        except traitlets.TraitError:
            self._vocab_error = f"vocab_size must be a whole number, got {vocab_size!r}."

        # -- controls (train again) --
        self._picker = CorpusPicker(None if given is not None else corpus_or_trace,
                                    given_label="The trace you passed in" if given is not None else None)
        self._first_source = self._picker.source.value
        self._given_trace = given
        self._flavour_dd = widgets.Dropdown(options=options_with(FLAVOUR_CHOICES, self.flavour), value=self.flavour,
                                            description="flavour", layout=widgets.Layout(width="32em"))
        traitlets.link((self._flavour_dd, "value"), (self, "flavour"))
        self._vocab_box = widgets.Text(value=f"{self.vocab_size}", description="vocab size", continuous_update=False,
                                       placeholder="e.g. 100", layout=widgets.Layout(width="14em"))
        self._vocab_box.observe(self._vocab_typed, "value")
        self._train_btn = widgets.Button(description="Train", icon="play", tooltip="train again with these settings")
        self._progress = widgets.IntProgress(value=0, min=0, max=100, description="training",
                                             layout=widgets.Layout(display="none"))
        self._progress_note = widgets.HTML()

        # -- the step controls (read only) --
        step_row = self._make_step_controls("step", "round", interval=1800)
        self._word_box = widgets.Text(description="word", continuous_update=False, placeholder="a word to cut",
                                      layout=widgets.Layout(width="24em"))
        traitlets.link((self._word_box, "value"), (self, "word"))

        # -- the view --
        self._header = widgets.HTML()
        # the charts as inline SVG: written in a millisecond per step (matplotlib's PNG took
        # hundreds); chart_png and save("x.png") still draw them with matplotlib
        self._chart_view = widgets.HTML(layout=widgets.Layout(max_width="100%"))
        self._table_view = widgets.HTML()
        self._lattice_view = widgets.HTML()
        self._view.children = [self._header, self._chart_view, self._table_view, self._word_box, self._lattice_view]

        rows = []
        if controls:
            rows.append(widgets.HBox([self._picker.source, self._flavour_dd]))
            rows.append(self._picker.textarea)
            rows.append(self._picker.upload)
            rows.append(widgets.HBox([self._vocab_box, self._train_btn, self._progress, self._progress_note],
                                     layout=widgets.Layout(flex_flow="row wrap", align_items="center")))
        rows.append(step_row)
        self.children = [*rows, self._error_view, self._view]

        # -- wiring: these retrain; step / size / word only re-read the trace --
        self._train_btn.on_click(lambda _b: self.retrain())
        self._picker.source.observe(lambda _c: self.retrain(), "value")
        self._picker.textarea.observe(lambda _c: self._retrain_if("text"), "value")
        self._picker.upload.observe(lambda _c: self._retrain_if("upload"), "value")
        self.observe(self._vocab_changed, "vocab_size")
        self.observe(lambda _c: self.retrain(), "flavour")
        self.observe(lambda _c: self._render(), ["step", "size"])
        self.observe(lambda _c: self._render_lattice(), "word")

        self._hold = False
        if self._vocab_error is not None:
            self._show_error(self._vocab_error, blocking=True)
        elif given is not None:
            self._set_trace(given, word)
        else:
            self.retrain(word=word)

    @classmethod
    def from_trace(cls, trace, **kwargs) -> "UnigramExplorer":
        """An explorer showing a trace you already trained (no training here)."""
        return cls(trace, **kwargs)

    @property
    def controls(self) -> dict:
        """The control widgets by name (to hide some in a lesson, or to drive them from code)."""
        return {
            "corpus": self._picker.source, "text": self._picker.textarea, "upload": self._picker.upload,
            "flavour": self._flavour_dd, "vocab size": self._vocab_box, "train": self._train_btn,
            "progress": self._progress, "play": self._play, "slider": self._slider, "size": self._size_dd,
            "word": self._word_box,
        }

    @traitlets.validate("step")
    def _valid_step(self, proposal):
        k = proposal["value"]
        if self.trace is not None and not 0 <= k < len(self.trace):
            raise traitlets.TraitError(f"step must be between 0 and {len(self.trace) - 1}, got {k}")
        return k

    # -- training ----------------------------------------------------------------------------
    def _retrain_if(self, source):
        if self._picker.source.value == source:
            self.retrain()

    def _vocab_typed(self, change):
        try:
            n = parse_vocab_size(change["new"])
        except ValueError as exc:
            self._show_error(exc, blocking=True)
            return
        if n != self.vocab_size:
            self.vocab_size = n  # trains again
        elif self._bad_input is not None:
            self.retrain()  # "abc", then the old number again: the view comes back

    def _vocab_changed(self, change):
        if self._vocab_box.value.strip() != f"{change['new']}":
            try:
                same = parse_vocab_size(self._vocab_box.value) == change["new"]
            except ValueError:
                same = False
            if not same:
                self._hold, held = True, self._hold
                try:
                    self._vocab_box.value = f"{change['new']}"
                finally:
                    self._hold = held
        self.retrain()

    def _fallback_corpus(self):
        """The corpus of the trace passed in, for training it again: its words and counts
        (for SentencePiece each word a line of its own, without the ``▁`` it added)."""
        t = self._given_trace
        if t is None:
            return None
        if self.flavour == "hf-course":
            return dict(t.word_counts)
        out: dict = {}
        for w, c in t.word_counts.items():
            w = w[1:] if w.startswith(_unigram.MARK) else w
            if w:
                out[w] = out.get(w, 0) + c
        return out

    def retrain(self, word: str | None = None):
        """Train again from the controls (corpus, flavour, vocabulary size). Shows progress."""
        if self._hold:
            return
        try:
            corpus, _sample = self._picker.corpus(self._fallback_corpus())
            if self.flavour not in _unigram.FLAVOURS:
                raise ValueError(f"Unknown flavour {self.flavour!r}: choose one of "
                                 f"{', '.join(map(repr, _unigram.FLAVOURS))}.")
            n = check_vocab_size(self.vocab_size)
            kwargs = {"flavour": self.flavour}
            if self.flavour == "hf-course":
                kwargs["seed_size"] = self._seed_size
                if self._initial_vocab is not None and self._picker.source.value == self._first_source:
                    kwargs["initial_vocab"] = self._initial_vocab
            progress, note = self._progress, self._progress_note
            progress.value = 0
            progress.layout.display = None
            start: list = []
            shrink = 0.9 if self.flavour == "hf-course" else 0.75
            goal = n if self.flavour == "hf-course" else 1.1 * n

            def tick(k, pieces):
                # the rounds left are not known in advance: estimate from the sizes seen so far
                if not start:
                    start.append(pieces / shrink)
                s0 = start[0]
                done = math.log(s0 / pieces) / math.log(s0 / goal) if s0 > goal else 1.0
                progress.value = max(0, min(100, round(100 * done)))
                note.value = message_html(f"round {k:,}: {pieces:,} pieces", size=self.size)

            trace = _unigram.train_unigram(corpus, n, callback=tick, **kwargs)
        except Exception as exc:  # a learner's input: show it, never a traceback; it stays until fixed
            self._show_error(exc, blocking=True)
            return
        finally:
            self._progress.layout.display = "none"
            self._progress_note.value = ""
        if not trace.word_counts:
            self._show_error("The text is empty: type or paste some words first.", blocking=True)
            return
        self._set_trace(trace, word)

    def _set_trace(self, trace, word=None):
        self._hold = True
        try:
            self.trace = trace
            self._bad_input = None  # trained: whatever was wrong is fixed
            self._set_stepping(True)
            self._set_step_max(len(trace) - 1)
            if word is not None:
                self.word = word
            elif not self.word or not self._word_fits(self.word):
                self.word = _default_word(trace)
        finally:
            self._hold = False
        self._render()

    def _word_fits(self, word) -> bool:
        """Whether ``word``'s characters all occur in the corpus (else pick another one)."""
        chars = {c for w in self.trace.word_counts for c in w}
        return all(c in chars for c in word)

    # -- rendering: one slider step only reads the trace -------------------------------------
    def _html_widgets(self):
        return [self._header, self._table_view, self._lattice_view]

    def _title(self) -> str:
        if self.trace is None:
            return "UnigramExplorer"
        return f"UnigramExplorer: round {self.step} of {len(self.trace) - 1} ({self.trace.flavour})"

    def _chart_alt(self) -> str:
        return f"the pieces' probabilities and the corpus loss at round {self.step}"

    def _render(self):
        if self._hold or self.trace is None or self._bad_input is not None:
            return
        try:
            trace, k, size = self.trace, self.step, self.size
            self._header.value = round_header_html(trace, k, size=size)
            self._table_view.value = removal_table_html(trace[k], self.max_rows, size=size)
            self._render_lattice()
            self._render_chart()
        except Exception as exc:
            self._show_error(exc)
            return
        self._clear_error()

    def _render_lattice(self):
        if self._hold or self.trace is None:
            return
        word = self.word.strip()
        if not word:
            self._lattice_view.value = message_html("Type a word above to see every way to cut it.", size=self.size)
            return
        try:
            self._lattice_view.value = lattice_html(self.trace, word, self.step, max_paths=self.max_paths,
                                                    size=self.size)
        except (ValueError, TypeError) as exc:
            self._lattice_view.value = error_html(exc, title="No lattice for this word", size=self.size)

    def _render_chart(self):
        trace, k, size = self.trace, self.step, self.size
        self._chart_view.value = (
            '<div class="bpe-charts" style="display:flex;flex-wrap:wrap;align-items:flex-start;gap:0.5em">'
            + piece_probabilities_svg(trace[k], top=self.top, size=size) + loss_svg(trace, k, size=size) + "</div>")

    def _chart_png(self) -> bytes:
        """Both charts of this round drawn by matplotlib, as PNG bytes; drawn when asked for
        (``chart_png``, ``save``), kept until the round or the size changes."""
        if self.trace is None or self._error is not None:
            return b""
        key = (self.step, self.size)
        cached = getattr(self, "_png_cache", None)
        if cached is None or cached[0] != key or cached[2] is not self.trace:
            fig = self._chart_figure()
            bars, loss = fig.axes
            # bars and texts only (no ticks): removing them is far cheaper than ax.clear()
            for artist in [*bars.patches, *bars.texts, *bars.lines, *bars.collections]:
                artist.remove()
            plot_piece_probabilities(self.trace[self.step], top=self.top, ax=bars)
            if self._loss_drawn is not self.trace:
                loss.clear()  # a new trace: draw its curve once
                plot_loss(self.trace, upto=self.step, ax=loss)
                self._loss_drawn = self.trace
            else:
                mark_round(loss, self.trace, self.step)  # the curve stays: move the mark only
            self._png_cache = (key, figure_png(fig, dpi=_CHART_DPI * self.size), self.trace)
        return self._png_cache[1]

    def _chart_figure(self):
        # one Figure for the explorer's life, no layout engine (it measures every text twice)
        if self._fig is None:
            from matplotlib.figure import Figure

            self._fig = Figure(figsize=(11.5, 0.9 + 0.25 * min(self.top, 40)))
            self._fig.add_subplot(1, 2, 1)
            self._fig.add_subplot(1, 2, 2)
            self._fig.subplots_adjust(left=0.1, right=0.97, top=0.9, bottom=0.14, wspace=0.28)
        return self._fig

    @property
    def lattice_html(self) -> str:
        """The lattice shown under the word box."""
        return self._lattice_view.value


def _default_word(trace) -> str:
    """A word worth cutting: the most frequent word of four letters or more (else the first)."""
    words = sorted(trace.word_counts.items(), key=lambda t: -t[1])
    for w, _ in words:
        body = w[1:] if w.startswith(_unigram.MARK) else w
        if len(body) >= 4 and body.isalpha() and len(body) <= 20:
            return body
    return (words[0][0].lstrip(_unigram.MARK) or words[0][0]) if words else ""
