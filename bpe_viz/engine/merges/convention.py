"""What a training run was and did, as plain records: :class:`Convention` (the choices it was
trained with), :class:`Merge` (one merge, with the pairs it tied with), :class:`VocabEntry`
and :data:`STOP_REASONS`. The trace (:mod:`~bpe_viz.engine.merges.trace`) holds them; they
hold no state of their own but a merge's reference back to its trace (to work out ``tied``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, partial
from typing import NamedTuple

from . import ranking
from ..text.markers import Marker, marker_from
from .model import MODELS, Model
from ..text.pretokenize import PreTokenizer, Whitespace

__all__ = ["Convention", "Merge", "VocabEntry", "STOP_REASONS", "unchanged_merges"]

#: Why training stopped, as ``Trace.stop_reason`` says it.
STOP_REASONS = {
    "num_merges": "the merge budget (num_merges) was reached",
    "min_frequency": "no pair occurs at least min_frequency times",
    "no_pairs": "nothing left to merge: every word is a single symbol",
    "running": "training is still running",
}


@dataclass(frozen=True)
class Convention:
    """The conventions a trace was trained with (each source picks its own).

    The fields are the keyword arguments of the trainers; the behaviour they select is an
    object each: ``marker`` (:mod:`~bpe_viz.engine.text.markers`, from ``end_of_word``,
    ``attach_end_of_word`` and ``prefix``), ``tie_rule`` (:mod:`~bpe_viz.engine.merges.ranking`),
    ``model`` (from ``algorithm``) and ``pre_tokenizer``. ``describe()`` says them in words.
    """

    end_of_word: str | None = "</w>"
    attach_end_of_word: bool = False
    tie_break: str = "first"
    min_frequency: int = 2
    byte_level: bool = False
    normalization: str | None = None
    preset: str | None = None
    algorithm: str = "bpe"
    prefix: str | None = None  # WordPiece continuation prefix ("##")
    pre_tokenizer: PreTokenizer = field(default_factory=Whitespace)
    #: texts that are never merged and get an id of their own (``<|endoftext|>``)
    special_tokens: tuple[str, ...] = ()
    #: ``None``: the symbols seen in training (unseen ones are unknown); ``"bytes"``: all 256
    initial_alphabet: str | None = None
    #: how ids are numbered (see :mod:`~bpe_viz.engine.merges.vocab`)
    id_layout: str = "unk-first"
    #: SentencePiece's ``▁`` in front of each word (instead of an end-of-word marker)
    begin_of_word: str | None = None
    #: the share of the corpus's characters the alphabet must cover; rarer ones are unknown
    #: and never merged (SentencePiece's ``character_coverage``; 1.0: every character)
    character_coverage: float = 1.0
    #: the longest token a merge may make, in characters (``None``: no limit)
    max_piece_length: int | None = None

    @cached_property
    def marker(self) -> Marker:
        return marker_from(self.end_of_word, self.attach_end_of_word, self.prefix, self.begin_of_word)

    @property
    def tie_rule(self) -> ranking.TieRule:
        return ranking.get_tie_rule(self.tie_break)

    @property
    def model(self) -> Model:
        return MODELS[self.algorithm]

    def describe(self) -> str:
        """One line in plain words.

        Example::

            >>> Convention().describe()
            'BPE; end-of-word marker "</w>" as its own symbol; ties: first pair met; min_frequency 2'
        """
        model = self.model
        head = model.title + (f' (preset "{self.preset}")' if self.preset else "")
        parts = [head, self.marker.describe(), self.tie_rule.describe(), *model.describe(self)]
        if self.byte_level:
            parts.append("byte-level (UTF-8 bytes as symbols)")
        if self.normalization:
            parts.append(f"Unicode {self.normalization}")
        if not isinstance(self.pre_tokenizer, Whitespace):
            parts.append(f"pre-tokenizer: {self.pre_tokenizer.describe()}")
        if self.initial_alphabet == "bytes":
            parts.append("all 256 bytes in the vocabulary from the start")
        if self.special_tokens:
            parts.append("special tokens " + ", ".join(self.special_tokens))
        return "; ".join(parts)


@dataclass(frozen=True, eq=False)
class Merge:
    """One merge: ``pair`` became ``token`` at ``step`` (1-based); ``count`` was its frequency.

    ``tied`` lists the other pairs that had the same top count (or, for WordPiece, score) when
    this merge was chosen, in the order the tie rule ranks them: the explainer says "tie!".
    It is computed when first asked for, from the state before the merge.
    """

    step: int
    pair: tuple[str, str]
    token: str
    count: int
    score: Fraction | None = None
    trace: "Trace" = field(default=None, repr=False, compare=False)
    pair_internal: tuple = field(default=None, repr=False, compare=False)
    token_internal: str = field(default=None, repr=False, compare=False)

    @cached_property
    def tied(self) -> tuple[tuple[str, str], ...]:
        return self.trace.tied_pairs(self.step) if self.trace is not None else ()

    def __eq__(self, other):
        if not isinstance(other, Merge):
            return NotImplemented
        return (self.step, self.pair, self.token, self.count, self.score) == (
            other.step, other.pair, other.token, other.count, other.score)

    def __hash__(self):
        return hash((self.step, self.pair, self.token, self.count))

    def __repr__(self):
        extra = f", score={self.score}" if self.score is not None else ""
        return f"Merge(step={self.step}, pair={self.pair!r}, token={self.token!r}, count={self.count}{extra})"


def unchanged_merges(trace, pairs: list, tokens: list, pairs_internal: list, tokens_internal: list) -> list:
    """Merges 1..n of ``trace`` that changed nothing (count 0: a vocabulary read from a file,
    replayed on no corpus), built without the dataclass ``__init__``: the same objects, made in
    half the time, which a 200,000-merge vocabulary notices."""
    new = object.__new__
    out = []
    append = out.append
    for step, pair, token, pi, ti in zip(range(1, len(pairs) + 1), pairs, tokens, pairs_internal, tokens_internal):
        m = new(Merge)
        d = m.__dict__
        d["step"] = step
        d["pair"] = pair
        d["token"] = token
        d["count"] = 0
        d["score"] = None
        d["trace"] = trace
        d["pair_internal"] = pi
        d["token_internal"] = ti
        append(m)
    return out


class VocabEntry(NamedTuple):
    """A vocabulary entry at some step: the token, the step that made it (0 = initial symbol),
    how often it occurs at that step, and whether it occurs at all (merged-away tokens stay
    listed, with ``occurs=False``). A named tuple (immutable, compared by value): a cold
    snapshot of a 10,000-merge trace lists 10,000 of them, made at C speed by
    :func:`vocab_entries` (issue 20: a frozen dataclass took 11 ms of a cold snapshot's 21)."""

    token: str
    made_at: int
    count: int

    @property
    def occurs(self) -> bool:
        return self.count > 0


def vocab_entries(tokens, made_at, counts):
    """``VocabEntry(token, made, count)`` for each ``(token, made, count)`` of the three
    iterables, made without a Python call per entry.

    Example::

        >>> list(vocab_entries(["a", "ab"], [0, 1], [3, 0])) == [VocabEntry("a", 0, 3), VocabEntry("ab", 1, 0)]
        True
    """
    return map(_NEW_ENTRY, zip(tokens, made_at, counts))


_NEW_ENTRY = partial(tuple.__new__, VocabEntry)  # (a tuple of three -> its VocabEntry, in C)
