"""Trace, Snapshot, Merge, Convention: the read side of a training run.

A :class:`Trace` is a sequence: ``trace[0]`` is the state before any merge, ``trace[k]`` the
state after ``k`` merges. What it stores, and how a step is rebuilt, is the recorder's business
(:mod:`bpe_viz.engine.merges.recorder`); a :class:`Snapshot` is a read-only view of one step, computed
lazily and cached. What differs between algorithms is asked of ``trace.model`` (ranking and
encoding), ``trace.marker`` (the marker convention) and ``trace.tie_rule``.

Symbols are stored in an *internal* spelling. Normally that is the spelling you see. When a word
of the corpus contains the end-of-word marker text itself (``snake_case`` with the marker ``_``),
the trace spells the marker internally with a private character instead, so a literal ``_``
inside a word and the marker never count as the same symbol; everything public shows the marker.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from functools import cached_property

from . import ranking
from ..checks import check_int
from ..text.alphabet import BYTE_SET, BYTE_SYMBOLS, symbols_to_bytes
from ..text.markers import Marker
from ..protocol import Tokenizer
from .encoder import decode_ids, encode_one_word, encode_text
from .model import Model, initial_symbols
from .recorder import History
from .vocab import IdTable
from .convention import STOP_REASONS, Convention, Merge, VocabEntry
from .pair_ranking import PairRanking
from .snapshot import HTML_RENDERERS, Snapshot, set_html_renderer

__all__ = ["Convention", "Merge", "Snapshot", "Trace", "VocabEntry", "STOP_REASONS", "set_html_renderer"]


class Trace(PairRanking, Sequence, Tokenizer):
    """The whole history of one training run: ``trace[k]`` is the :class:`Snapshot` after k merges.

    ``len(trace) == len(trace.merges) + 1``. ``trace.stop_reason`` says why training stopped
    (a key of :data:`STOP_REASONS`), ``trace.convention`` which conventions were used.
    Token ids are stable: see :meth:`token_to_id`.
    """

    #: steps whose snapshots (and all they computed) a trace keeps after you let go of them
    SNAPSHOTS_KEPT = 4

    def __init__(self, words, counts, initial, convention: Convention, internal_marker=None):
        self.words: tuple[str, ...] = tuple(words)
        self.counts: tuple[int, ...] = tuple(counts)
        self.convention = convention
        self.model: Model = convention.model
        self.marker: Marker = convention.marker
        self.tie_rule: ranking.TieRule = convention.tie_rule
        self.merges: list[Merge] = []
        self.stop_reason = "running"
        marker = self.marker.text
        self.internal_marker = internal_marker if internal_marker is not None else marker
        self.remaps_marker = marker is not None and self.internal_marker != marker
        alphabet = BYTE_SYMBOLS if convention.initial_alphabet == "bytes" else ()
        self.history = History(initial, self.counts, alphabet)
        self.explicit_vocab = None  # a {token: id} mapping read with the merges, if any
        #: the alphabet in id order when the model chooses it (SentencePiece), else None
        self.alphabet: tuple[str, ...] | None = None
        #: initial symbols that are never merged and have no id (below character_coverage)
        self.unknown_chars: frozenset = frozenset()
        #: initial symbols in order of first appearance (internal spelling)
        self.base_symbols: tuple[str, ...] = self.history.base_symbols
        # the last few steps read, kept (most recent last); any other step still held somewhere
        # is found again, so trace[k] is trace[k] while you keep it (each costs ~1 MB on a real text)
        self._cache: dict[int, Snapshot] = {}
        self._held: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

    # -- spelling ------------------------------------------------------------------------
    def show(self, s: str) -> str:
        return s.replace(self.internal_marker, self.marker.text) if self.remaps_marker else s

    def show_tuple(self, syms):
        r = self.internal_marker
        m = self.marker.text
        return tuple(s.replace(r, m) for s in syms)

    def internal(self, token: str) -> str:
        if self.remaps_marker:
            return token.replace(self.marker.text, self.internal_marker)
        return token

    def to_bytes(self, public: str) -> bytes:
        """The bytes a public symbol stands for (byte symbols, or the UTF-8 of characters)."""
        if self.convention.byte_level and all(c in BYTE_SET for c in public):
            return symbols_to_bytes(public)
        return public.encode("utf-8", "surrogatepass")

    def hf_id(self, sym: str) -> int:
        """A symbol's token id as Hugging Face's BpeTrainer numbers them: the alphabet sorted,
        then each new token string in the order it was made (the "hf" tie rule compares these)."""
        ids = self.__dict__.get("_hf_ids")
        if ids is None:
            ids = self.__dict__["_hf_ids"] = {s: i for i, s in enumerate(sorted(self.base_symbols))}
            self.__dict__["_hf_seen"] = 0
        i = ids.get(sym)
        if i is None:
            h = self.history
            for tok in h.merged_tokens[self.__dict__["_hf_seen"]:]:
                ids.setdefault(tok, len(ids))
            self.__dict__["_hf_seen"] = len(h.merged_tokens)
            i = ids[sym]
        return i

    def internal_pair(self, pair):
        return (self.internal(pair[0]), self.internal(pair[1])) if self.remaps_marker else pair

    def append_merge(self, merge: "Merge"):
        """Called by the recorder for every merge."""
        self.merges.append(merge)
        self._cache.pop(len(self.merges), None)
        self._held.pop(len(self.merges), None)

    def extend_merges(self, merges: list) -> None:
        """Called by the recorder for many merges at once."""
        self.merges.extend(merges)
        self._cache.clear()
        self._held.clear()

    # -- Sequence --------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.merges) + 1

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if isinstance(k, bool) or not isinstance(k, int):
            try:
                import operator

                k = operator.index(k)
            except TypeError:
                raise TypeError(f"step must be an int, got {type(k).__name__} {k!r}") from None
        n = len(self)
        if not -n <= k < n:
            raise IndexError(f"step {k} is out of range: this trace has steps 0..{n - 1} "
                             f"(or -{n}..-1, counted from the end)")
        if k < 0:
            k += n
        cache = self._cache
        snap = cache.pop(k, None)
        if snap is None:
            snap = self._held.get(k)
            if snap is None:
                snap = self._held[k] = Snapshot(self, k)
            if len(cache) >= self.SNAPSHOTS_KEPT:
                del cache[next(iter(cache))]  # the least recently read
        cache[k] = snap
        return snap

    def __iter__(self):
        for k in range(len(self)):
            yield self[k]

    def __repr__(self):
        return (
            f"<Trace {self.convention.algorithm}: {len(self.merges)} merges on {len(self.words)} "
            f"distinct words; stopped: {self.stop_reason}>"
        )

    def _repr_html_(self):
        render = HTML_RENDERERS["trace"]
        return None if render is None else render(self)

    @property
    def stopped_because(self) -> str:
        """Why training stopped, in words."""
        return STOP_REASONS[self.stop_reason]

    # -- the Tokenizer protocol --------------------------------------------------------------
    def encode(self, text: str, step: int | None = None, **options):
        """``text`` encoded with the first ``step`` merges (all by default); the options are
        :func:`bpe_viz.encode`'s (``allowed_special``, ``dropout``, ``seed``, ``glossaries``,
        ``vocabulary``, ``vocabulary_threshold``)."""
        return encode_text(self, text, step, **options)

    def encode_word(self, word: str, step: int | None = None):
        """One word encoded with the first ``step`` merges, every iteration recorded."""
        return encode_one_word(self, word, step)

    def decode(self, ids) -> str:
        """Token ids (or an Encoding of this trace) back into text."""
        return decode_ids(self, ids)

    def describe(self) -> str:
        """The conventions in one sentence (``convention.describe()``)."""
        return self.convention.describe()

    # -- tokens and ids -------------------------------------------------------------------
    @property
    def id_table(self) -> IdTable:
        cached = self.__dict__.get("_ids_cache")
        if cached is None or cached[0] != len(self.merges):
            layout = self.explicit_vocab if self.explicit_vocab is not None else self.convention.id_layout
            cached = self.__dict__["_ids_cache"] = (len(self.merges), IdTable(self, layout))
        return cached[1]

    unk_token = "<unk>"

    @cached_property
    def completion_symbols(self) -> tuple[str, ...]:
        """Other spellings of the seen characters that get an id after the initial symbols
        (``x</w>`` when only ``x`` was seen, ``##x`` for WordPiece), so decoding stays exact."""
        return self.marker.completions(self.base_symbols, self.internal_marker)

    @property
    def id_to_token(self) -> list[str]:
        """Token strings by id. Ids are stable and documented (:mod:`~bpe_viz.engine.merges.vocab`);
        by default 0 is ``unk_token``; then the initial symbols in order of first appearance;
        then (marker glued to the last character only) the missing plain/final spelling of each
        seen character; then merged tokens in the order they were made; then special tokens.
        ``encode`` with fewer merges uses the same ids."""
        return list(self.id_table.tokens)

    def token_to_id(self, token: str, made_at: int | None = None) -> int | None:
        """The id of a token (public spelling), or ``None`` if it is not in the vocabulary.
        ``made_at`` picks, among tokens spelled alike, the one made at that step (0: initial)."""
        ids = self.id_table
        if made_at is not None:
            check_int("made_at", made_at, 0, maximum=len(self.merges), what=" (a step of this trace; 0: the alphabet)")
            if made_at == 0:
                return ids.ids.get(self.internal(token))
            return ids.merge_ids[made_at - 1]
        # subtle: when a word held the marker text, two tokens can be spelled alike; the first id wins
        return ids.public.get(token)

    def made_at_of_id(self, token_id: int) -> int | None:
        """The merge step that made the token with this id (0: the alphabet; ``None``: the
        unknown or a special token)."""
        ids = self.id_table
        kind = ids.kinds[check_int("token_id", token_id, 0, maximum=len(ids.kinds) - 1,
                                   what=" (the ids of this vocabulary)")]
        if kind == "merge":
            return ids.merge_step[token_id]
        return 0 if kind == "base" else None

    @property
    def special_tokens(self) -> tuple[str, ...]:
        return self.convention.special_tokens

    @property
    def unk_id(self) -> int | None:
        """The unknown token's id, or ``None`` when every text has an id (a byte alphabet)."""
        return self.id_table.unk_id

    @property
    def vocab_size(self) -> int:
        """Number of ids: the unknown token (if any), the alphabet, completions, merged tokens
        and special tokens."""
        return sum(k != "unused" for k in self.id_table.kinds)

    def initial_symbols(self, word: str) -> tuple[str, ...]:
        """How training splits ``word`` before any merge (internal spelling), by its convention."""
        if not isinstance(word, str):
            raise TypeError(f"word must be a str, got {type(word).__name__} {word!r:.60}")
        return initial_symbols(word, self.convention, self.internal_marker)
