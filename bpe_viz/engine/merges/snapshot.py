"""Snapshot: one step of a merge trace, a read-only view rebuilt on demand.

``trace[k]`` is a :class:`Snapshot`: the segmentation of every word after ``k`` merges, the pair
counts the next merge is chosen from, the token counts and the vocabulary, each computed on first
access from the recorder's ``state`` and cached. The ranking of a step's pairs is the trace's
(:mod:`~bpe_viz.engine.merges.pair_ranking`), which knows the tie rule and keeps what several steps
share. Notebooks show a snapshot as HTML through the renderer the view layer registers here
(:func:`set_html_renderer`: the engine never imports the view).
"""

from __future__ import annotations

from bisect import bisect_left
from fractions import Fraction
from functools import cached_property
from itertools import compress, repeat
from operator import attrgetter

from . import ranking
from .convention import Merge, VocabEntry, vocab_entries
from .recorder import counts_view

__all__ = ["Snapshot", "set_html_renderer", "HTML_RENDERERS"]

#: The HTML a snapshot (and a trace) shows in a notebook: set by bpe_viz.view when it is imported.
HTML_RENDERERS: dict = {"snapshot": None, "trace": None}


def set_html_renderer(fn, trace_fn=None) -> None:
    """Set the function ``snapshot -> HTML`` that ``Snapshot._repr_html_`` calls (and
    ``trace -> HTML`` for ``Trace._repr_html_``: a sentence, not a bare ``<Trace ...>``)."""
    HTML_RENDERERS["snapshot"] = fn
    if trace_fn is not None:
        HTML_RENDERERS["trace"] = trace_fn


_TOKEN = attrgetter("token")  # merge -> its token (public spelling)


def _token_spellings(trace):
    """``(public spellings, slots, positions)`` of the trace's tokens in
    :meth:`~bpe_viz.engine.merges.recorder.History.token_slots` order, each slot once (its first
    position); kept per trace until it grows. ``None`` when two slots share a spelling (a literal
    "_" and the marker "_": their counts add up, which the slow way does)."""
    h = trace.history
    kept = trace.__dict__.get("_token_spellings")
    n = len(h.merged_tokens)
    if kept is None or kept[0] != n:
        pubs, slots, ends, seen = [], [], [], set()
        show = trace.show
        for pos, (tok, idx) in enumerate(h.token_slots(n)):
            if idx not in seen:
                seen.add(idx)
                pubs.append(show(tok))
                slots.append(idx)
                ends.append(pos)
        kept = trace.__dict__["_token_spellings"] = (n, (pubs, slots, ends) if len(set(pubs)) == len(pubs) else None)
    return kept[1]


class _TokenLookup:
    """``snapshot.token_counts[token]`` for a few tokens, without the dict of every token (a
    cold chart step asks for the two tokens of each of a few pairs tied at the best score)."""

    def __init__(self, snapshot):
        self.snapshot, spelled = snapshot, _token_spellings(snapshot.trace)
        self.at = None if spelled is None else _spelling_index(snapshot.trace, spelled)

    def __getitem__(self, token: str) -> int:
        if self.at is None:
            return self.snapshot.token_counts[token]
        slot, pos = self.at[token]  # (KeyError: no such token, as the dict says)
        if pos >= len(self.snapshot.trace.base_symbols) + self.snapshot.step:
            raise KeyError(token)  # made after this step
        return self.snapshot.state[2][slot]


def _spelling_index(trace, spelled) -> dict:
    """public spelling -> (slot, position) of :func:`_token_spellings`, kept with it."""
    kept = trace.__dict__.get("_spelling_index")
    if kept is None or kept[0] is not spelled:
        pubs, slots, ends = spelled
        kept = trace.__dict__["_spelling_index"] = (spelled, dict(zip(pubs, zip(slots, ends))))
    return kept[1]


def prepare_token_lookup(trace) -> None:
    """Build the token spellings and their index that a cold step's token lookups read, kept
    per trace (:meth:`~bpe_viz.engine.merges.pair_ranking.PairRanking.prepare_ranking`)."""
    spelled = _token_spellings(trace)
    if spelled is not None:
        _spelling_index(trace, spelled)


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
    def state(self):
        return self.trace.history.rebuild(self.step)

    @cached_property
    def segmentation(self) -> dict[str, tuple[str, ...]]:
        seg = self.state[0]
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
        counts = self.state[1]
        pairs = self.trace.history.pairs
        table = dict(zip(compress(pairs, counts), compress(counts, counts)))  # the pairs that occur (count > 0)
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
        t = self.trace
        counts = self.state[2]
        spelled = _token_spellings(t)
        if spelled is not None:  # one spelling per slot: a zip (a cold slider step reads this)
            pubs, slots, ends = spelled
            cut = bisect_left(ends, len(t.base_symbols) + self.step)
            return dict(zip(pubs[:cut], map(counts.__getitem__, slots[:cut])))
        out: dict[str, int] = {}
        seen: set = set()
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
        counts = self.state[2]
        n = len(t.base_symbols)
        entries = list(vocab_entries(map(t.show, t.base_symbols), repeat(0, n), counts[:n]))
        slots = t.merge_slots()[:self.step]
        entries.extend(vocab_entries(map(_TOKEN, t.merges[:self.step]), range(1, self.step + 1),
                                     map(counts.__getitem__, slots)))
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
        counts = self.state[2]
        slots = t.merge_slots()
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
            memo[n] = self.trace.top_items(self, n) if n else []
        return list(memo[n])

    @cached_property
    def ranked_pairs(self) -> list[tuple[tuple[str, str], int]]:
        """All pairs of :attr:`pair_counts`, best first, in the order the tie rule ranks them:
        the first entry is the pair the next BPE merge takes (if it reaches min_frequency)."""
        return self.trace.ranked_items(self)

    def rank_value(self, pair, count: int):
        """What the trace's model ranks ``pair`` by at this step: its ``count`` (BPE) or its
        exact score (WordPiece). ``pair`` in public spelling."""
        if not (type(pair) is tuple and len(pair) == 2 and type(pair[0]) is str and type(pair[1]) is str):
            raise TypeError(f"pair must be a tuple of two str tokens, like ('l', 'o'), got {pair!r:.60}")
        if type(count) is not int:
            raise TypeError(f"count must be an int (how often the pair occurs), got {type(count).__name__} {count!r:.60}")
        t = self.trace
        exact = self.__dict__.get("_exact")
        if exact is None:
            exact = self.__dict__["_exact"] = t.rank_function(self)
        internal = t.internal_pair(pair)
        try:
            return exact(internal, count)  # subtle: checked after the fact, this is called for every pair shown
        except (KeyError, IndexError, ZeroDivisionError):
            pass
        for shown, sym in zip(pair, internal):
            try:
                slot = t.history.token_index(sym)
            except KeyError:
                slot = None
            if slot is None or slot >= len(self.state[2]):  # never made, or made after this step
                raise ValueError(f"pair: {shown!r} is not a token at step {self.step}") from None
        # WordPiece: a token merged away entirely has no score
        raise ValueError(f"pair: {pair!r} has no score at step {self.step}: a token of it no longer occurs")

    def encode(self, text: str):
        """``text`` encoded with the merges learned up to this step (an Encoding)."""
        return self.trace.encode(text, self.step)

    @property
    def num_pairs(self) -> int:
        """How many distinct pairs occur at this step (as :attr:`ranked_pairs` counts them)."""
        t = self.trace
        if "_items" not in self.__dict__ and t.counts_only():
            counts = self.state[1]
            view = counts_view(counts)  # no list of pairs needed
            return int(view.astype(bool).sum()) if view is not None else len(counts) - counts.count(0)
        arrays = t._approx_arrays(self) if "_items" not in self.__dict__ else None
        return len(arrays[0]) if arrays is not None else len(t.pair_items(self))

    def scores(self) -> dict[tuple[str, str], Fraction]:
        """WordPiece score of every pair at this step: count(ab) / (count(a) * count(b))."""
        tc = self.token_counts
        return {p: ranking.wordpiece_score(c, tc[p[0]], tc[p[1]]) for p, c in self.pair_counts.items()}

    def pick(self, by: str = "count", among=None):
        """The pair that a merge by count (BPE) or by score (WordPiece) would take from this
        state, with the trace's tie rule; ``None`` when no pair is left. ``among``: the
        candidates when the caller found them already, in :attr:`pair_counts` order (by count:
        the pairs with the top count; by score: those within 1e-9 of the best float score).

        Example::

            >>> from bpe_viz import train_bpe
            >>> snap = train_bpe({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 0, preset="hf-course")[0]
            >>> snap.pick("count"), snap.pick("score")
            (('u', 'g'), ('g', 's'))
        """
        # among as a dict {pair: count}: no table of every pair is built (a cold chart step)
        counts = among if isinstance(among, dict) else self.pair_counts
        if not counts:
            return None
        if by == "count":
            top = max(counts.values()) if among is None else None
            tied = [p for p, c in counts.items() if c == top] if among is None else list(among)
        elif by == "score":
            tc = self.token_counts if among is None or "token_counts" in self.__dict__ else _TokenLookup(self)
            tied = ranking.best_by_score(counts, tc, among)[1]
        else:
            raise ValueError(f"by must be 'count' or 'score', got {by!r}")
        if len(tied) == 1:
            return tied[0]
        t = self.trace
        internal = [t.internal_pair(p) for p in tied]
        if t.tie_rule.positional:  # the first met of them is all it needs
            # (a pick by count from a BPE state: its tied pairs are met from where its next merge is)
            start = t.tie_start(self, counts[tied[0]]) if by == "count" and not t.model.scored else 0
            order = t.first_met_some(self, (), internal, 1, start)
            internal = [p for p in internal if p in order]
        else:
            order = None
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
        render = HTML_RENDERERS["snapshot"]
        return None if render is None else render(self)
