"""The model interface: what differs between subword algorithms, behind one object each.

Every layer asks the trace's model instead of testing an algorithm name: how pairs are ranked
(BPE by count, WordPiece by score), how a word is encoded (apply the learned merges, or greedy
longest match) and how the convention reads in words. The models live in their family's folder
(:mod:`~bpe_viz.engine.bpe`, with SentencePiece-BPE as a subclass, and
:mod:`~bpe_viz.engine.wordpiece`) and register here, so a third merge model is a third folder.
Families that are not built from merges (Unigram, SubwordTextEncoder) need no model: they
answer the :class:`~bpe_viz.engine.protocol.Tokenizer` protocol directly.

Shared by all models: :func:`initial_symbols`, the symbols a word starts from (its characters or
UTF-8 byte symbols, then the convention's marker).

Example::

    >>> from bpe_viz.engine.merges.trace import Convention
    >>> initial_symbols("low", Convention(end_of_word="</w>", attach_end_of_word=True))
    ('l', 'o', 'w</w>')
    >>> initial_symbols("low", Convention(end_of_word="_"))
    ('l', 'o', 'w', '_')
"""

from __future__ import annotations

from ..text.alphabet import bytes_to_symbols

__all__ = ["Model", "MODELS", "register", "initial_symbols"]


class Model:
    """One subword algorithm. Subclasses set the names and implement the hooks."""

    #: the name a Convention stores (``convention.algorithm``)
    name = "?"
    #: how ``Convention.describe()`` names it
    title = "?"
    #: ranks pairs by a score (``merge.score``, ``snapshot.scores()``) rather than by count
    scored = False
    #: what the ranking value is, for tables and charts
    rank_label = "count"

    # -- training rules a model may add (SentencePiece's: engine/bpe/sentencepiece.py) ----
    #: a pair that would make a string already made is skipped for good
    one_piece_per_string = False
    #: when no pair occurs any more, go on with the pairs seen before (count 0)
    zero_count_tail = False
    #: a ``vocab_size`` the corpus cannot reach is an error, not an early stop
    hard_vocab_limit = False
    #: the encoder shows a run of unknown characters as one piece (one unknown id)
    merges_unknown_runs = False
    #: its tokens can be split back along the learned pairs (subword-nmt's vocabulary filter)
    splits_by_merges = False
    #: the id layout the model's source uses (``None``: the convention's)
    id_layout = None

    def tail_merges(self, trace, state, recorder, heap, step: int, num_merges: int):
        """Merges made after no pair occurs any more (a generator of merges that returns the stop
        reason; SentencePiece's zero-count tail). Most models make none."""
        return "no_pairs"
        yield  # pragma: no cover - makes this a generator

    def prepare_trace(self, trace) -> None:
        """Called once on a new trace, before training (e.g. to choose its alphabet)."""

    def pair_filter(self, trace):
        """``None`` (every pair may merge) or a function ``internal pair -> bool``."""
        return None

    def exact(self, tc, tindex):
        """A function ``(pair, count) -> rank value`` (larger is better) on token counts ``tc``."""
        return lambda pair, count: count

    def approx(self, tc, tindex):
        """A cheap float version of :meth:`exact`, to shortlist (exact decides)."""
        return lambda pair, count: count

    def approx_all(self, items, tc, slot_of) -> list:
        """:meth:`approx` of every ``(pair, count)`` of ``items``, in order; ``slot_of``: a dict
        symbol -> slot in ``tc`` (a subclass may compute them at C speed)."""
        approx = self.approx(tc, slot_of.__getitem__)
        return [approx(p, c) for p, c in items]

    def approx_arrays(self, snapshot):
        """``(pair ids, counts, approx values)`` of every pair of ``snapshot`` with a count, as
        numpy arrays in pair-id order (:meth:`approx` of each at C speed), or ``None``: the
        pairs are then valued one by one (:meth:`approx_all`). A count is its own value, and
        a counts-only trace reads its counts array directly: ``None`` here."""
        return None

    def prepare(self, trace) -> None:
        """Build what the model keeps per trace for a cold step (:meth:`Trace.prepare_ranking`
        calls this in a kernel's idle time); nothing by default."""

    def describe(self, convention) -> list[str]:
        """The model's own parts of ``Convention.describe()``, after the marker and tie rule."""
        return []

    def segmenter(self, trace, k: int):
        """A function ``word -> internal symbols`` that encodes one pre-token with ``k`` merges."""
        raise NotImplementedError

    def dropout_segmenter(self, trace, k: int, p: float, rng):
        """Like :meth:`segmenter`, but each candidate merge is skipped with probability ``p``
        (BPE-dropout, Provilkov et al. 2020), drawing from ``rng``."""
        raise ValueError(f"dropout: {self.title} has no merges to drop; use a BPE trace")

    def walkthrough(self, word: str, trace, k: int):
        """The encoder's steps on one (normalized) word, as a ``WordWalkthrough``."""
        raise NotImplementedError

    def __repr__(self):
        return f"<model {self.name}>"


#: Models by name (filled by the model modules as they are imported).
MODELS: dict[str, Model] = {}


def register(model: Model) -> Model:
    MODELS[model.name] = model
    return model


def initial_symbols(word: str, convention, marker: str | None = None) -> tuple[str, ...]:
    """Split one word into the symbols training starts from, by the convention.

    ``marker`` is the internal spelling of the marker (the convention's by default).
    """
    mk = convention.marker
    units = bytes_to_symbols(word) if convention.byte_level else word
    return mk.initial(units, mk.text if marker is None else marker)
