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

import ipywidgets as widgets
import traitlets

from ..engine import unigram as unigram_engine
from ..view import (error_html, figure_png, lattice_html, loss_svg, mark_round, message_html, piece_probabilities_svg,
                    plot_loss, plot_piece_probabilities, removal_table_html, round_header_html)
from .controls import NumberBox, options_with
from .explorer import CHART_DPI
from .inputs import check_count, parse_count
from .step_pane import StepCache, StepPane, ViewPart
from .training import TrainingExplorer
from .warm import Warmer

__all__ = ["UnigramExplorer", "FLAVOUR_CHOICES", "MAX_VOCAB_SIZE", "parse_vocab_size", "check_vocab_size"]

#: Flavour dropdown: the engine's flavours, each with what it is.
FLAVOUR_CHOICES = tuple(
    (label, name) for name, label in (
        ("hf-course", "Hugging Face course (frequencies, no EM, 10% per round)"),
        ("sentencepiece", "SentencePiece 0.2.3 (EM, keeps 75% per round)"),
    ) if name in unigram_engine.FLAVOURS
)

#: The largest vocabulary an explorer trains.
MAX_VOCAB_SIZE = 20_000

#: how many rounds besides the one shown are sent to the page ahead of need (all of them, for
#: every training run but the longest: the sentencepiece flavour on the docs at 4,000 pieces has
#: 3 rounds, the Hugging Face course's 10% a round a few dozen)
WARM = 64


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
    return parse_count(text, "The vocabulary size", "100", check_vocab_size)


def check_vocab_size(n) -> int:
    """``n`` as a vocabulary size an explorer trains (1 to :data:`MAX_VOCAB_SIZE`), or a ValueError.

    Example::

        >>> check_vocab_size(50_000)
        Traceback (most recent call last):
        ...
        ValueError: 50,000 pieces is more than this explorer trains (at most 20,000).
    """
    return check_count(n, "The vocabulary size", "pieces", MAX_VOCAB_SIZE)


class UnigramExplorer(TrainingExplorer):
    """Step through the rounds of a Unigram training run with a slider (or Play).

    ``UnigramExplorer(corpus, vocab_size=12, flavour="hf-course")`` trains on a bundled corpus
    (a name from :mod:`bpe_viz.engine.text.corpora`), your text, or a word-count dict;
    ``UnigramExplorer(trace)`` shows a trace you already trained. ``initial_vocab`` and
    ``seed_size`` go to :func:`~bpe_viz.engine.unigram.train_unigram` (hf-course, the corpus
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
        self._warmer = Warmer(self._send_step)  # sends the other rounds ahead when the kernel is idle
        self._pane = StepPane(want=self._asked_for, track=self._track_steps)  # before the slider: they are linked
        self._steps = StepCache()
        self.trace = None
        self._fig = None
        self._loss_drawn = None
        self.max_rows, self.top, self.max_paths = max_rows, top, max_paths
        self._seed_size = seed_size
        given = corpus_or_trace if isinstance(corpus_or_trace, unigram_engine.UnigramTrace) else None
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

        step_row = self._make_controls(corpus_or_trace, given)
        self._make_view()
        rows = self._lay_out_training(
            [self._flavour_dd], [self._vocab_box, self._train_btn, self._progress, self._progress_note],
            source_layout={}, settings_layout=widgets.Layout(flex_flow="row wrap", align_items="center"),
        ) if controls else []
        self.children = [*rows, step_row, self._error_view, self._view]

        # -- wiring: these retrain; step / size / word only re-read the trace --
        self._wire_training()
        self.observe(lambda _c: self._retrain_soon(), ["vocab_size", "flavour"])
        self.observe(lambda _c: self._render(), ["step", "size", "word"])

        self._hold = False
        if self._vocab_error is not None:
            self._show_error(self._vocab_error, blocking=True)
        elif given is not None:
            self._set_trace(given, word)
        else:
            self.retrain(word=word)

    def _make_controls(self, corpus_or_trace, given):
        """The training controls (corpus, flavour, vocabulary size, Train) and the step controls
        (Play, back, slider, forward, reset, speed; the word box); returns the step row."""
        self._setup_training(None if given is not None else corpus_or_trace,
                             "The trace you passed in" if given is not None else None,
                             progress_max=100, tooltip="train again with these settings")
        self._first_source = self._picker.source.value
        self._given_trace = given
        self._flavour_dd = widgets.Dropdown(options=options_with(FLAVOUR_CHOICES, self.flavour), value=self.flavour,
                                            description="flavour", layout=widgets.Layout(width="32em"))
        self._link_choice(self._flavour_dd, "flavour")
        self._vocab_box = NumberBox(self, "vocab_size", parse_vocab_size, description="vocab size",
                                    width="14em").widget  # text: "2.5" and "abc" get a message
        self._progress_note = widgets.HTML()

        step_row = self._make_step_controls("step", "round", interval=1800)
        self._word_box = widgets.Text(description="word", continuous_update=False, placeholder="a word to cut",
                                      layout=widgets.Layout(width="24em"))
        traitlets.link((self._word_box, "value"), (self, "word"))
        return step_row

    def _make_view(self):
        """The word box, then the round: its header, its charts, its Δloss table and the word's
        lattice, the parts of a round shown together by one StepPane (issue 20: the page keeps
        every round it was sent, so a jump of the slider shows one without asking the kernel)."""
        # the charts as inline SVG: written in a millisecond per step (matplotlib's PNG took
        # hundreds); chart_png and save("x.png") still draw them with matplotlib
        self._header, self._chart_view, self._table_view, self._lattice_view = (ViewPart(), ViewPart(), ViewPart(),
                                                                                ViewPart())
        self._view.children = [self._word_box, self._pane]

    @classmethod
    def from_trace(cls, trace, **kwargs) -> "UnigramExplorer":
        """An explorer showing a trace you already trained (no training here)."""
        return cls(trace, **kwargs)

    @property
    def controls(self) -> dict:
        """The control widgets by name (to hide some in a lesson, or to drive them from code)."""
        return self._controls_with({"flavour": self._flavour_dd, "vocab size": self._vocab_box},
                                   {"word": self._word_box})

    def _last_step(self):
        return None if self.trace is None else len(self.trace) - 1

    # -- training ----------------------------------------------------------------------------
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
            w = w[1:] if w.startswith(unigram_engine.MARK) else w
            if w:
                out[w] = out.get(w, 0) + c
        return out

    def retrain(self, word: str | None = None):
        """Train again from the controls (corpus, flavour, vocabulary size). Shows progress."""
        if self._hold:
            return
        self._cancel_retrain()
        try:
            corpus, _sample = self._picker.corpus(self._fallback_corpus())
            if self.flavour not in unigram_engine.FLAVOURS:
                raise ValueError(f"Unknown flavour {self.flavour!r}: choose one of "
                                 f"{', '.join(map(repr, unigram_engine.FLAVOURS))}.")
            n = check_vocab_size(self.vocab_size)
            kwargs = {"flavour": self.flavour}
            if self.flavour == "hf-course":
                kwargs["seed_size"] = self._seed_size
                if self._initial_vocab is not None and self._picker.source.value == self._first_source:
                    kwargs["initial_vocab"] = self._initial_vocab
            with self._showing_progress(note=self._progress_note) as progress:
                trace = unigram_engine.train_unigram(corpus, n, callback=self._round_ticker(progress, n), **kwargs)
        except Exception as exc:  # a learner's input: show it, never a traceback; it stays until fixed
            self._show_error(exc, blocking=True)
            return
        if not trace.word_counts:
            self._show_error("The text is empty: type or paste some words first.", blocking=True)
            return
        self._set_trace(trace, word)

    def _round_ticker(self, progress, n: int):
        """A training callback that moves ``progress`` (0 to 100) and says the round in the note."""
        note = self._progress_note
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

        return tick

    def _set_trace(self, trace, word=None):
        with self._held():
            self.trace = trace
            self._trained(len(trace) - 1)
            if word is not None:
                self.word = word
            elif not self.word or not self._word_fits(self.word):
                self.word = _default_word(trace)
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

    def _has_steps(self) -> bool:
        return self.trace is not None

    def _view_parts(self):
        return (self._header, self._chart_view, self._table_view, self._lattice_view)

    def _after_render(self, k: int):
        # the other rounds, nearest first, sent ahead when the kernel is idle: a training run has
        # a few rounds to a few dozen (a round costs a few milliseconds), so the page soon has
        # every one and no move of the slider waits for the kernel
        last = len(self.trace) - 1
        self._warmer.after_step(sorted((j for j in range(last + 1) if j != k), key=lambda j: (abs(j - k), j))[:WARM])

    def _step_key(self):
        """What every round's HTML depends on besides the round: a change renders every one anew."""
        return (id(self.trace), self.size, self.word.strip(), self.max_rows, self.top, self.max_paths)

    def _step_parts(self, k: int) -> tuple[str, str, str, str]:
        """The HTML of round ``k``'s parts (header, charts, Δloss table, the word's lattice), kept
        for the rounds last rendered."""
        self._steps.for_(self._step_key())
        parts = self._steps.get(k)
        if parts is not None:
            return parts
        trace, size = self.trace, self.size
        header = round_header_html(trace, k, size=size)
        table = removal_table_html(trace[k], self.max_rows, size=size)
        chart = ('<div class="bpe-charts" style="display:flex;flex-wrap:wrap;align-items:flex-start;gap:0.5em">'
                 + piece_probabilities_svg(trace[k], top=self.top, size=size) + loss_svg(trace, k, size=size)
                 + "</div>")
        parts = (header, chart, table, self._lattice_part(k))
        self._steps.put(k, parts)
        return parts

    def _lattice_part(self, k: int) -> str:
        """The typed word's lattice at round ``k`` (a message when there is no word, a readable
        error when it cannot be cut)."""
        word = self.word.strip()
        if not word:
            return message_html("Type a word above to see every way to cut it.", size=self.size)
        try:
            return lattice_html(self.trace, word, k, max_paths=self.max_paths, size=self.size)
        except (ValueError, TypeError) as exc:
            return error_html(exc, title="No lattice for this word", size=self.size)

    @staticmethod
    def _compose(parts) -> str:
        header, chart, table, lattice = parts
        return header + f'<div style="max-width:100%;overflow-x:auto">{chart}</div>' + table + lattice

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
            self._png_cache = (key, figure_png(fig, dpi=CHART_DPI * self.size), self.trace)
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
        body = w[1:] if w.startswith(unigram_engine.MARK) else w
        if len(body) >= 4 and body.isalpha() and len(body) <= 20:
            return body
    return (words[0][0].lstrip(unigram_engine.MARK) or words[0][0]) if words else ""
