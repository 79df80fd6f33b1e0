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

from ..engine import bpe
from ..engine.encoding import encode, encode_word
from ..view import message_html, segments_html, walkthrough_html, word_label
from .controls import PRESET_CHOICES, corpus_choices
from .explorer import Explorer

__all__ = ["EncoderExplorer"]


class EncoderExplorer(Explorer):
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
    piece = traitlets.Int(0)  # which pre-tokenizer piece of the text to walk through (GPT-style traces)
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
            trace = bpe.train_bpe(load(corpus) if isinstance(corpus, str) and corpus in labels else corpus,
                                   train_merges, **PRESET_CHOICES.get(preset, (None, {"preset": preset}))[1])
        self.trace = trace
        self.walkthrough = None
        n = len(trace.merges)
        self.num_merges = n if num_merges is None else num_merges
        self.word = word
        self._word_box = widgets.Text(value=word, description="word", continuous_update=True,
                                      layout=widgets.Layout(width="24em"))
        # a pre-tokenizer that keeps whitespace (GPT-2, GPT-4) cuts a typed text into pieces: pick one
        self.pieces: list[str] = []
        self._piece_dd = widgets.Dropdown(options=[], description="piece",
                                          layout=widgets.Layout(width="20em", display="none"))
        # not traitlets.link: an empty Dropdown's index is None, the trait an int
        self._piece_dd.observe(lambda c: c["new"] is not None and setattr(self, "piece", c["new"]), "index")
        self.observe(self._piece_to_dropdown, "piece")
        self._k_slider = widgets.IntSlider(value=self.num_merges, min=0, max=n,
                                           description="use merges", continuous_update=True,
                                           layout=widgets.Layout(width="36em"),
                                           style={"description_width": "initial"})
        # Play, back, the iteration slider, forward, reset, speed (a new slider per range: the End key)
        step_row = self._make_step_controls("iteration", "iteration", interval=1000, width="36em")
        traitlets.link((self._word_box, "value"), (self, "word"))
        traitlets.link((self._k_slider, "value"), (self, "num_merges"))
        self._walk_view = widgets.HTML()
        self._final_view = widgets.HTML()
        self._view.children = [self._walk_view, self._final_view]
        self.children = [
            widgets.HBox([self._word_box, self._piece_dd, self._size_dd]),
            self._k_slider,
            step_row,
            self._error_view,
            self._view,
        ]
        self.observe(lambda _c: self._recompute(), ["word", "num_merges", "piece"])
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
        return {"word": self._word_box, "piece": self._piece_dd, "merges": self._k_slider,
                "iteration": self._slider, "play": self._play, "size": self._size_dd}

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

    def _save_name(self) -> str:
        return f"encoder-{self.word.strip()[:30]}-{self.num_merges}-merges"

    def _title(self) -> str:
        w = self.walkthrough
        if w is None:
            return "EncoderExplorer"
        title = f"EncoderExplorer: “{w.word}” with the first {self.num_merges:,} merges → " + " ".join(w.final)
        return title if len(title) <= 160 else title[:159] + "…"

    def _extra_step_widgets(self):
        return [self._save_btn, self._save_link]  # (the size is in the first row)

    def _recompute(self):
        if self._hold:
            return
        pretok = self.trace.convention.pre_tokenizer
        word = self.word if pretok.keeps_whitespace else self.word.strip()
        try:
            if not word:
                raise ValueError("Type a word to encode.")
            if pretok.keeps_whitespace:
                self._set_pieces(pretok.words(word))
                if not self.pieces:
                    raise ValueError(f"The pre-tokenizer ({pretok.describe()}) finds no piece in “{word}”.")
                word = self.pieces[min(self.piece, len(self.pieces) - 1)]
            elif any(ch.isspace() for ch in word):
                raise ValueError(f"Type one word, without spaces (got “{word}”).")
            self.walkthrough = encode_word(word, self.trace, self.num_merges)
        except Exception as exc:
            self.walkthrough = None
            self._show_error(exc, blocking=True)
            return
        steps = len(self.walkthrough.steps)
        with self._held():
            self._set_step_max(steps)
            self.iteration = steps  # show the whole walkthrough; drag back to replay it
        self._render()

    def _piece_to_dropdown(self, change):
        if self._piece_dd.options and 0 <= change["new"] < len(self._piece_dd.options):
            self._piece_dd.index = change["new"]

    @traitlets.validate("piece")
    def _valid_piece(self, proposal):
        i = proposal["value"]
        pieces = getattr(self, "pieces", [])
        if pieces and not 0 <= i < len(pieces):
            raise traitlets.TraitError(f"piece must be between 0 and {len(pieces) - 1}, got {i}")
        return i

    def _set_pieces(self, pieces):
        """Offer the pre-tokenizer's pieces of the typed text (whitespace drawn visibly)."""
        if pieces == self.pieces:
            return
        self.pieces = pieces
        with self._held():
            self._piece_dd.options = [f"{i + 1}: {word_label(p)}" for i, p in enumerate(pieces)]
            self._piece_dd.index = 0 if pieces else None
            self.piece = 0
            self._piece_dd.layout.display = "" if len(pieces) > 1 else "none"

    def _render(self):
        if self._hold or self.walkthrough is None:
            return
        try:
            size = self.size
            self._walk_view.value = walkthrough_html(self.walkthrough, trace=self.trace,
                                                     upto=self.iteration, size=size)
            text = self.word if self.pieces else self.walkthrough.word
            enc = encode(text, self.trace, self.num_merges)
            ids = ", ".join(str(i) for i in enc.ids)
            self._final_view.value = (
                message_html(f"tokens and ids with the first {self.num_merges} merges: [{ids}]", size=size)
                + segments_html(enc, size=size)
            )
        except Exception as exc:
            self._show_error(exc)
            return
        self._clear_error()
