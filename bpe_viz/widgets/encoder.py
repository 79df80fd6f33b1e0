"""EncoderExplorer: type a word and step through the encoder's iterations, using only the
first k merges of a trace (BPE: the lowest-rank learned pair each time; WordPiece: the greedy
longest match).

Example::

    >>> from bpe_viz import train_bpe
    >>> ex = EncoderExplorer(train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10), word="lowest")
    >>> "lowest" in ex.text
    True
"""

from __future__ import annotations

import ipywidgets as widgets
import traitlets

from ..engine import bpe as _bpe
from ..engine.encoding import encode, encode_word
from ..view.html import message_html, segments_html, walkthrough_html
from .common import PRESET_CHOICES, Explorer, corpus_choices

__all__ = ["EncoderExplorer"]


class EncoderExplorer(Explorer):
    """Type a word and step through how the encoder segments it with the first k merges.

    Each iteration lists the learned pairs present with their ranks (merge numbers) and merges
    the lowest-rank one (WordPiece traces: the pieces tried, longest first).

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = _bpe.train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
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
            labels, load, _ = corpus_choices()
            trace = _bpe.train_bpe(load(corpus) if isinstance(corpus, str) and corpus in labels else corpus,
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
