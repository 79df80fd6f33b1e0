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

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from itertools import chain, compress

from . import ranking
from ..text.alphabet import BYTE_SET, BYTE_SYMBOLS, symbols_to_bytes
from ..text.markers import Marker, marker_from
from ..protocol import Tokenizer
from .encoder import decode_ids, encode_one_word, encode_text
from .model import MODELS, Model, initial_symbols
from ..text.pretokenize import PreTokenizer, Whitespace
from .recorder import History
from .vocab import IdTable

__all__ = ["Convention", "Merge", "Snapshot", "Trace", "VocabEntry", "STOP_REASONS", "set_html_renderer"]

# The HTML a snapshot shows in a notebook comes from the view layer, which the engine never
# imports: bpe_viz.view registers its renderer here when it is imported.
_HTML_RENDERER = None
_TRACE_HTML_RENDERER = None


def set_html_renderer(fn, trace_fn=None) -> None:
    """Set the function ``snapshot -> HTML`` that ``Snapshot._repr_html_`` calls (and
    ``trace -> HTML`` for ``Trace._repr_html_``: a sentence, not a bare ``<Trace ...>``)."""
    global _HTML_RENDERER, _TRACE_HTML_RENDERER
    _HTML_RENDERER = fn
    if trace_fn is not None:
        _TRACE_HTML_RENDERER = trace_fn

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


@dataclass(frozen=True)
class VocabEntry:
    """A vocabulary entry at some step: the token, the step that made it (0 = initial symbol),
    how often it occurs at that step, and whether it occurs at all (merged-away tokens stay
    listed, with ``occurs=False``)."""

    token: str
    made_at: int
    count: int

    @property
    def occurs(self) -> bool:
        return self.count > 0


class Snapshot:
    """The state after ``step`` merges: a read-only view, rebuilt on demand from the trace.

    Attributes (each computed on first access):

    * ``step``, ``merge`` (the merge that led here; ``None`` at step 0)
    * ``segmentation``: word -> tuple of its current symbols, corpus order, markers included
    * ``word_counts``: word -> count, corpus order
    * ``pair_counts``: pair -> count on this state (the table the next merge is chosen from)
    * ``vocab``: tuple of :class:`VocabEntry`: initial symbols, then merged tokens in order
    * ``next_merge``: the merge chosen from this state (``None`` at the last step)
    """

    def __init__(self, trace: "Trace", step: int):
        self.trace = trace
        self.step = step

    def __repr__(self):
        m = f", merge={self.merge.pair!r}->{self.merge.token!r}" if self.merge else ""
        return f"<Snapshot step={self.step} of {len(self.trace) - 1}{m}>"

    @property
    def merge(self) -> Merge | None:
        return self.trace.merges[self.step - 1] if self.step else None

    @property
    def next_merge(self) -> Merge | None:
        return self.trace.merges[self.step] if self.step < len(self.trace.merges) else None

    @cached_property
    def _state(self):
        return self.trace.history.rebuild(self.step)

    @cached_property
    def segmentation(self) -> dict[str, tuple[str, ...]]:
        seg = self._state[0]
        t = self.trace
        if t.remaps_marker:
            show = t.show_tuple
            return dict(zip(t.words, (show(s) for s in seg)))
        return dict(zip(t.words, seg))

    @cached_property
    def word_counts(self) -> dict[str, int]:
        return dict(zip(self.trace.words, self.trace.counts))

    @cached_property
    def pair_counts(self) -> dict[tuple[str, str], int]:
        counts = self._state[1]
        pairs = self.trace.history.pairs
        table = dict(compress(zip(pairs, counts), counts))  # the pairs that occur (count > 0)
        if self.trace.remaps_marker:
            # subtle: a literal "_" and the marker "_" are different symbols inside, but spelled
            # alike here; their pairs add up, as a recount of the shown segmentation would.
            # ranked_pairs keeps them apart.
            show = self.trace.show
            shown: dict = {}
            for (a, b), c in table.items():
                k = (show(a), show(b))
                shown[k] = shown.get(k, 0) + c
            table = shown
        return table

    @cached_property
    def token_counts(self) -> dict[str, int]:
        """Token -> how often it occurs at this step (0 for merged-away tokens). Tokens spelled
        alike (a literal "_" and the marker "_") add up."""
        out: dict[str, int] = {}
        seen: set = set()
        t = self.trace
        counts = self._state[2]
        for tok_internal, idx in t.history.token_slots(self.step):
            if idx in seen:
                continue
            seen.add(idx)
            pub = t.show(tok_internal)
            out[pub] = out.get(pub, 0) + counts[idx]
        return out

    @cached_property
    def vocab(self) -> tuple[VocabEntry, ...]:
        t = self.trace
        counts = self._state[2]
        show = t.show
        entries = [VocabEntry(show(tok), 0, counts[i]) for i, tok in enumerate(t.base_symbols)]
        slots = t._merge_slots()
        merges = t.merges
        entries.extend(VocabEntry(merges[j].token, j + 1, counts[slots[j]]) for j in range(self.step))
        return tuple(entries)

    def newest_vocab(self, n: int) -> tuple[VocabEntry, ...]:
        """The last ``n`` entries of :attr:`vocab`, newest first, without making the others
        (a stepper shows the newest few of thousands on every step).

        Example::

            >>> from bpe_viz import train_bpe
            >>> snap = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)[3]
            >>> snap.newest_vocab(2) == tuple(reversed(snap.vocab))[:2]
            True
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"n must be an int >= 0, got {n!r}")
        if "vocab" in self.__dict__:
            return tuple(reversed(self.vocab))[:n]
        t = self.trace
        counts = self._state[2]
        slots = t._merge_slots()
        merges = t.merges
        newest = range(self.step - 1, max(self.step - n, 0) - 1, -1)  # merge indexes, newest first
        out = [VocabEntry(merges[j].token, j + 1, counts[slots[j]]) for j in newest]
        if len(out) < n:  # then the initial symbols, last first
            base, show = t.base_symbols, t.show
            rest = range(len(base) - 1, max(len(base) - (n - len(out)), 0) - 1, -1)
            out += [VocabEntry(show(base[i]), 0, counts[i]) for i in rest]
        return tuple(out)

    def top_pairs(self, n: int = 20) -> list[tuple[tuple[str, str], int]]:
        """The first ``n`` entries of :attr:`ranked_pairs`, without ranking every pair."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"n must be an int >= 0, got {n!r}")
        if "ranked_pairs" in self.__dict__:
            return self.ranked_pairs[:n]
        memo = self.__dict__.setdefault("_top_memo", {})
        if n not in memo:
            memo[n] = self.trace._top(self, n) if n else []
        return list(memo[n])

    @cached_property
    def ranked_pairs(self) -> list[tuple[tuple[str, str], int]]:
        """All pairs of :attr:`pair_counts`, best first, in the order the tie rule ranks them:
        the first entry is the pair the next BPE merge takes (if it reaches min_frequency)."""
        return self.trace._ranked(self)

    def rank_value(self, pair, count: int):
        """What the trace's model ranks ``pair`` by at this step: its ``count`` (BPE) or its
        exact score (WordPiece). ``pair`` in public spelling."""
        exact = self.__dict__.get("_exact")
        if exact is None:
            exact = self.__dict__["_exact"] = self.trace._exact(self)
        return exact(self.trace.internal_pair(pair), count)

    def encode(self, text: str):
        """``text`` encoded with the merges learned up to this step (an Encoding)."""
        return self.trace.encode(text, self.step)

    @property
    def num_pairs(self) -> int:
        """How many distinct pairs occur at this step (as :attr:`ranked_pairs` counts them)."""
        t = self.trace
        if "_items" not in self.__dict__ and t._plain_counts():
            counts = self._state[1]
            return len(counts) - counts.count(0)  # no list of pairs needed
        return len(t._items(self))

    def scores(self) -> dict[tuple[str, str], Fraction]:
        """WordPiece score of every pair at this step: count(ab) / (count(a) * count(b))."""
        tc = self.token_counts
        return {p: ranking.wordpiece_score(c, tc[p[0]], tc[p[1]]) for p, c in self.pair_counts.items()}

    def pick(self, by: str = "count"):
        """The pair that a merge by count (BPE) or by score (WordPiece) would take from this
        state, with the trace's tie rule; ``None`` when no pair is left.

        Example::

            >>> from bpe_viz import train_bpe
            >>> snap = train_bpe({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 0, preset="hf-course")[0]
            >>> snap.pick("count"), snap.pick("score")
            (('u', 'g'), ('g', 's'))
        """
        counts = self.pair_counts
        if not counts:
            return None
        if by == "count":
            top = max(counts.values())
            tied = [p for p, c in counts.items() if c == top]
        elif by == "score":
            tied = ranking.best_by_score(counts, self.token_counts)[1]
        else:
            raise ValueError(f"by must be 'count' or 'score', got {by!r}")
        if len(tied) == 1:
            return tied[0]
        t = self.trace
        internal = [t.internal_pair(p) for p in tied]
        order = t._first_met(self, internal) if t.tie_rule.positional else None
        ranked = ranking.rank([(p, 0) for p in internal], dict.fromkeys(internal, 0), t.tie_rule, order,
                              t.show, t.to_bytes, t.hf_id)
        a, b = ranked[0][0]
        return (t.show(a), t.show(b))

    # -- pandas views ------------------------------------------------------------------
    def words_frame(self):
        """pandas DataFrame: word, count, segmentation (symbols joined by spaces), #symbols."""
        import pandas as pd

        seg = self.segmentation
        return pd.DataFrame(
            {
                "word": list(seg),
                "count": list(self.word_counts.values()),
                "segmentation": [" ".join(s) for s in seg.values()],
                "symbols": [len(s) for s in seg.values()],
            }
        )

    def pairs_frame(self):
        """pandas DataFrame of the pair table, ranked (the next merge's choice first)."""
        import pandas as pd

        ranked = self.ranked_pairs
        data = {
            "left": [p[0] for p, _ in ranked],
            "right": [p[1] for p, _ in ranked],
            "count": [c for _, c in ranked],
        }
        if self.trace.model.scored:
            sc = self.scores()
            data["score"] = [sc[p] for p, _ in ranked]
        return pd.DataFrame(data)

    def vocab_frame(self):
        """pandas DataFrame of the vocabulary: token, id, step made, count, occurs."""
        import pandas as pd

        t = self.trace
        return pd.DataFrame(
            {
                "token": [e.token for e in self.vocab],
                "id": [t.token_to_id(e.token, made_at=e.made_at) for e in self.vocab],
                "made_at": [e.made_at for e in self.vocab],
                "count": [e.count for e in self.vocab],
                "occurs": [e.occurs for e in self.vocab],
            }
        )

    def _repr_html_(self):
        return None if _HTML_RENDERER is None else _HTML_RENDERER(self)


class Trace(Sequence, Tokenizer):
    """The whole history of one training run: ``trace[k]`` is the :class:`Snapshot` after k merges.

    ``len(trace) == len(trace.merges) + 1``. ``trace.stop_reason`` says why training stopped
    (a key of :data:`STOP_REASONS`), ``trace.convention`` which conventions were used.
    Token ids are stable: see :meth:`token_to_id`.
    """

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
        self._cache: dict[int, Snapshot] = {}

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
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError(f"step {k} is out of range: this trace has steps 0..{n - 1}")
        snap = self._cache.get(k)
        if snap is None:
            if len(self._cache) > 64:
                self._cache.clear()
            snap = self._cache[k] = Snapshot(self, k)
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
        return None if _TRACE_HTML_RENDERER is None else _TRACE_HTML_RENDERER(self)

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

    # -- ties and ranking ------------------------------------------------------------------
    _FIRST_MET_KEEP = 6  # steps whose whole first-met order a trace keeps (see _first_met)

    def _first_met(self, snap: Snapshot, targets=None) -> dict:
        """pair (internal spelling) -> rank of its first occurrence, reading words in corpus
        order, each left to right (the order a fresh recount meets them). With a few
        ``targets``, at least those pairs: the scan stops once all are found. Only the order of
        the ranks counts (they are positions among pair occurrences or among distinct pairs)."""
        cache = self.__dict__.setdefault("_first_met_orders", {})  # step -> every pair's rank
        full = cache.get(snap.step)
        if full is not None:
            return full
        if targets is None or len(targets) > 16:
            # every pair at once, kept for the last few steps: ranking a step's pair table, the
            # ties of its merge and of the next one, or a pick among hundreds of tied pairs all
            # look here (an explorer asks several times per step). dict.fromkeys keeps each
            # pair's first occurrence, in order, at C speed.
            seen = dict.fromkeys(chain.from_iterable(zip(syms, syms[1:]) for syms in snap._state[0]))
            full = cache[snap.step] = dict(zip(seen, range(len(seen))))
            while len(cache) > self._FIRST_MET_KEEP:
                del cache[next(iter(cache))]  # the oldest (about 1 MB each on a real text)
            return full
        order: dict = {}
        left = set(targets)
        n = 0
        for syms in snap._state[0]:
            for p in zip(syms, syms[1:]):
                if p in left:
                    order[p] = n
                    left.discard(p)
                    if not left:
                        return order
                n += 1
        return order

    def _merge_slots(self) -> list[int]:
        """Per merge, the slot of its token in the token-count arrays (the same at every step:
        kept, so that a step's vocabulary is one pass over the counts)."""
        cached = self.__dict__.setdefault("_merge_slots_cache", [])
        if len(cached) < len(self.merges):  # merges are only ever appended (iter_bpe)
            tindex = self.history.token_index
            cached.extend(tindex(m.token_internal) for m in self.merges[len(cached):])
        return cached

    def _exact(self, snap: Snapshot):
        return self.model.exact(snap._state[2], self.history.token_index)

    def _rank(self, snap: Snapshot, items):
        """Sort (internal pair, count) items best first by the trace's rule; public spelling out."""
        exact = self._exact(snap)
        primary = {p: exact(p, c) for p, c in items}
        rule = self.tie_rule
        order = self._first_met(snap, primary) if rule.positional else None
        ranked = ranking.rank(items, primary, rule, order, self.show, self.to_bytes, self.hf_id)
        if self.remaps_marker:
            show = self.show
            ranked = [((show(a), show(b)), c) for (a, b), c in ranked]
        return ranked

    def _plain_counts(self) -> bool:
        """Whether the pairs are ranked by their count alone, every pair that occurs a candidate
        (no model filter): then the top pairs and their number are read off the counts array."""
        plain = self.__dict__.get("_plain")
        if plain is None:
            allowed = self.__dict__.get("_pair_filter", False)
            if allowed is False:
                allowed = self.__dict__["_pair_filter"] = self.model.pair_filter(self)
            plain = self.__dict__["_plain"] = (allowed is None and not self.model.scored
                                               and not self.model.one_piece_per_string)
        return plain

    def _items(self, snap: Snapshot):
        """(internal pair, count) of every pair present at the snapshot's step (cached there)."""
        items = snap.__dict__.get("_items")
        if items is None:
            counts = snap._state[1]
            items = list(compress(zip(self.history.pairs, counts), counts))  # count > 0 only
            allowed = self.__dict__.get("_pair_filter", False)
            if allowed is False:  # one filter per trace: it caches its answers
                allowed = self.__dict__["_pair_filter"] = self.model.pair_filter(self)
            if allowed is not None:
                items = [(p, c) for p, c in items if allowed(p)]
            if self.model.one_piece_per_string:
                made = set(self.history.merged_tokens[:snap.step])
                join = self.marker.join
                m = self.internal_marker
                items = [(p, c) for p, c in items if join(p[0], p[1], m) not in made]
            snap.__dict__["_items"] = items
        return items

    def _ranked(self, snap: Snapshot):
        return self._rank(snap, self._items(snap))

    def _approx_values(self, snap: Snapshot) -> list:
        """The cheap rank value (a float score, or the count itself) of every item of
        :meth:`_items`, in the same order; computed once per snapshot (the top pairs and the
        ties of the next merge both read it)."""
        values = snap.__dict__.get("_approx_values")
        if values is None:
            approx = self.model.approx(snap._state[2], self.history.token_index)
            values = snap.__dict__["_approx_values"] = [approx(p, c) for p, c in self._items(snap)]
        return values

    def _top(self, snap: Snapshot, n: int):
        if "_items" not in snap.__dict__ and n and self._plain_counts():
            # the n-th largest count, then every pair with at least that count, ranked: no list
            # of every (pair, count) is made (a slider step on a real text does this once)
            counts = snap._state[1]
            if len(counts) - counts.count(0) > n:
                cut = heapq.nlargest(n, counts)[-1]
                pairs = self.history.pairs
                shortlist = [(pairs[i], counts[i]) for i in compress(range(len(counts)), map(cut.__le__, counts))]
                return self._rank(snap, shortlist)[:n]
        items = self._items(snap)
        if len(items) <= n:
            return self._rank(snap, items)
        # shortlist with the cheap value (a float score, or the count itself), rank exactly
        values = self._approx_values(snap)
        cut = heapq.nlargest(n, values)[-1]
        cut = cut * (1 - 1e-9) if isinstance(cut, float) else cut
        return self._rank(snap, [it for it, v in zip(items, values) if v >= cut])[:n]

    def tied_pairs(self, step: int):
        """Pairs other than merge ``step``'s that had its top count (or score) just before it."""
        m = self.merges[step - 1]
        fast = self._tied_from_after(step, m)
        if fast is not None:
            return fast
        before = self[step - 1]
        if "_items" not in before.__dict__ and self._plain_counts():
            # the pairs with the merge's count, read off the counts array (no list of every pair)
            counts, pairs, top = before._state[1], self.history.pairs, m.count
            cands = [(pairs[i], top) for i in compress(range(len(counts)), map(top.__eq__, counts))]
            return tuple(p for p, _ in self._rank(before, cands) if p != m.pair)
        items = self._items(before)
        value = m.score if self.model.scored else m.count
        exact = self._exact(before)
        near = float(value) * (1 - 1e-9)
        cands = [(p, c) for (p, c), v in zip(items, self._approx_values(before)) if v >= near and exact(p, c) == value]
        return tuple(p for p, _ in self._rank(before, cands) if p != m.pair)

    def _tied_from_after(self, step: int, m: Merge):
        """:meth:`_tied` read off the state *after* the merge, when that state is at hand and the
        one before is not (a jump of the slider): the counts before are the counts after minus
        the merge's own deltas, so the state before need not be rebuilt. Only for counts ranked
        by a rule that needs no positions (not "first pair met") and no pair filter; ``None``
        otherwise. Example: merge (e, s) with count 9 changes (e, s) by -9 and (s, t) by -9, and
        a pair (t, </w>) it left alone still counts 9 after it: tied."""
        after = self._cache.get(step)
        before = self._cache.get(step - 1)
        if (after is None or "_state" not in after.__dict__ or (before is not None and "_state" in before.__dict__)
                or self.model.scored or self.tie_rule.positional or self.model.one_piece_per_string):
            return None
        allowed = self.__dict__.get("_pair_filter", False)
        if allowed is False:
            allowed = self.__dict__["_pair_filter"] = self.model.pair_filter(self)
        if allowed is not None:
            return None
        h = self.history
        delta: dict[int, int] = {}
        a, b = h._d_off[step - 1], h._d_off[step]
        for i, d in zip(h._d_pid[a:b], h._d_val[a:b]):
            delta[i] = delta.get(i, 0) + d
        counts = after._state[1]
        top = m.count
        # pair ids whose count before the merge was ``top``, in id order (the order _items keeps)
        ids = {i for i in compress(range(len(counts)), map(top.__eq__, counts)) if i not in delta}
        ids.update(i for i, d in delta.items() if (counts[i] if i < len(counts) else 0) - d == top)
        cands = [(h.pairs[i], top) for i in sorted(ids)]
        ranked = ranking.rank(cands, {p: top for p, _ in cands}, self.tie_rule, None, self.show, self.to_bytes,
                              self.hf_id)
        if self.remaps_marker:
            show = self.show
            ranked = [((show(x), show(y)), c) for (x, y), c in ranked]
        return tuple(p for p, _ in ranked if p != m.pair)

    @property
    def merged_occurrences(self) -> list[int]:
        """Per merge, how many occurrences it merged, weighted by word counts (the number of
        symbols it saved in the whole corpus)."""
        return list(self.history.merged_occurrences)

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
            if made_at == 0:
                return ids.ids.get(self.internal(token))
            return ids.merge_ids[made_at - 1]
        # subtle: when a word held the marker text, two tokens can be spelled alike; the first id wins
        return ids.public.get(token)

    def made_at_of_id(self, token_id: int) -> int | None:
        """The merge step that made the token with this id (0: the alphabet; ``None``: the
        unknown or a special token)."""
        ids = self.id_table
        kind = ids.kinds[token_id]
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
        return initial_symbols(word, self.convention, self.internal_marker)
