"""How a merge trace ranks the pairs of a step: the tie rule, the model's score, and the
shortcuts that keep a slider step fast on a real text.

:class:`PairRanking` is a part of :class:`~bpe_viz.engine.merges.trace.Trace` (a mixin): it
reads a snapshot's ``state`` and keeps, per trace, what several steps share (the first-met order
of the last few steps, the model's pair filter, the token slots of the merges). What a pair is
worth is the model's (``model.exact`` / ``model.approx``); which of equals goes first is the tie
rule's (:mod:`~bpe_viz.engine.merges.ranking`).
"""

from __future__ import annotations

import heapq
from itertools import chain, compress

from . import ranking
from .convention import Merge
from .snapshot import Snapshot


__all__ = ["PairRanking"]


class _KeptKeys:
    """A tie rule whose sort keys are kept for a trace's life (a symbol's key never changes): a
    slider step on a real text ranks thousands of tied pairs, and spelling every symbol's key
    anew cost most of it."""

    def __init__(self, rule):
        self.rule, self.positional, self.keys = rule, rule.positional, {}

    def keyer(self, show=str, int_keys=False, to_bytes=None, token_id=None):
        key = self.keys.get(int_keys)
        if key is None:
            key = self.keys[int_keys] = self.rule.keyer(show, int_keys=int_keys, to_bytes=to_bytes, token_id=token_id)
        return key


class PairRanking:
    """The ranking half of a :class:`~bpe_viz.engine.merges.trace.Trace` (see the module)."""

    _FIRST_MET_KEEP = 6  # steps whose whole first-met order a trace keeps (see first_met)

    def first_met(self, snap: Snapshot, targets=None) -> dict:
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
            seen = dict.fromkeys(chain.from_iterable(zip(syms, syms[1:]) for syms in snap.state[0]))
            full = cache[snap.step] = dict(zip(seen, range(len(seen))))
            while len(cache) > self._FIRST_MET_KEEP:
                del cache[next(iter(cache))]  # the oldest (about 1 MB each on a real text)
            return full
        order: dict = {}
        left = set(targets)
        n = 0
        for syms in snap.state[0]:
            for p in zip(syms, syms[1:]):
                if p in left:
                    order[p] = n
                    left.discard(p)
                    if not left:
                        return order
                n += 1
        return order

    def merge_slots(self) -> list[int]:
        """Per merge, the slot of its token in the token-count arrays (the same at every step:
        kept, so that a step's vocabulary is one pass over the counts)."""
        cached = self.__dict__.setdefault("_merge_slots_cache", [])
        if len(cached) < len(self.merges):  # merges are only ever appended (iter_bpe)
            tindex = self.history.token_index
            cached.extend(tindex(m.token_internal) for m in self.merges[len(cached):])
        return cached

    def rank_function(self, snap: Snapshot):
        return self.model.exact(snap.state[2], self.history.token_index)

    def rank_items(self, snap: Snapshot, items):
        """Sort (internal pair, count) items best first by the trace's rule; public spelling out."""
        exact = self.rank_function(snap)
        primary = {p: exact(p, c) for p, c in items}
        rule = self.__dict__.get("_kept_rule") or self.__dict__.setdefault("_kept_rule", _KeptKeys(self.tie_rule))
        order = self.first_met(snap, primary) if rule.positional else None
        ranked = ranking.rank(items, primary, rule, order, self.show, self.to_bytes, self.hf_id)
        if self.remaps_marker:
            show = self.show
            ranked = [((show(a), show(b)), c) for (a, b), c in ranked]
        return ranked

    def counts_only(self) -> bool:
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

    def pair_items(self, snap: Snapshot):
        """(internal pair, count) of every pair present at the snapshot's step (cached there)."""
        items = snap.__dict__.get("_items")
        if items is None:
            counts = snap.state[1]
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

    def ranked_items(self, snap: Snapshot):
        return self.rank_items(snap, self.pair_items(snap))

    def approx_values(self, snap: Snapshot) -> list:
        """The cheap rank value (a float score, or the count itself) of every item of
        :meth:`pair_items`, in the same order; computed once per snapshot (the top pairs and the
        ties of the next merge both read it)."""
        values = snap.__dict__.get("_approx_values")
        if values is None:
            approx = self.model.approx(snap.state[2], self.history.token_index)
            values = snap.__dict__["_approx_values"] = [approx(p, c) for p, c in self.pair_items(snap)]
        return values

    def top_items(self, snap: Snapshot, n: int):
        if "_items" not in snap.__dict__ and n and self.counts_only():
            # the n-th largest count, then every pair with at least that count, ranked: no list
            # of every (pair, count) is made (a slider step on a real text does this once)
            counts = snap.state[1]
            if len(counts) - counts.count(0) > n:
                cut = heapq.nlargest(n, counts)[-1]
                pairs = self.history.pairs
                shortlist = [(pairs[i], counts[i]) for i in compress(range(len(counts)), map(cut.__le__, counts))]
                return self.rank_items(snap, shortlist)[:n]
        items = self.pair_items(snap)
        if len(items) <= n:
            return self.rank_items(snap, items)
        # shortlist with the cheap value (a float score, or the count itself), rank exactly
        values = self.approx_values(snap)
        cut = heapq.nlargest(n, values)[-1]
        cut = cut * (1 - 1e-9) if isinstance(cut, float) else cut
        return self.rank_items(snap, [it for it, v in zip(items, values) if v >= cut])[:n]

    def tied_pairs(self, step: int):
        """Pairs other than merge ``step``'s that had its top count (or score) just before it."""
        m = self.merges[step - 1]
        fast = self._tied_from_after(step, m)
        if fast is not None:
            return fast
        before = self[step - 1]
        if "_items" not in before.__dict__ and self.counts_only():
            # the pairs with the merge's count, read off the counts array (no list of every pair)
            counts, pairs, top = before.state[1], self.history.pairs, m.count
            cands = [(pairs[i], top) for i in compress(range(len(counts)), map(top.__eq__, counts))]
            return tuple(p for p, _ in self.rank_items(before, cands) if p != m.pair)
        items = self.pair_items(before)
        value = m.score if self.model.scored else m.count
        exact = self.rank_function(before)
        near = float(value) * (1 - 1e-9)
        cands = [(p, c) for (p, c), v in zip(items, self.approx_values(before)) if v >= near and exact(p, c) == value]
        return tuple(p for p, _ in self.rank_items(before, cands) if p != m.pair)

    def _tied_from_after(self, step: int, m: Merge):
        """:meth:`_tied` read off the state *after* the merge, when that state is at hand and the
        one before is not (a jump of the slider): the counts before are the counts after minus
        the merge's own deltas, so the state before need not be rebuilt. Only for counts ranked
        by a rule that needs no positions (not "first pair met") and no pair filter; ``None``
        otherwise. Example: merge (e, s) with count 9 changes (e, s) by -9 and (s, t) by -9, and
        a pair (t, </w>) it left alone still counts 9 after it: tied."""
        after = self._cache.get(step)
        before = self._cache.get(step - 1)
        if (after is None or "state" not in after.__dict__ or (before is not None and "state" in before.__dict__)
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
        counts = after.state[1]
        top = m.count
        # pair ids whose count before the merge was ``top``, in id order (the order pair_items keeps)
        ids = {i for i in compress(range(len(counts)), map(top.__eq__, counts)) if i not in delta}
        ids.update(i for i, d in delta.items() if (counts[i] if i < len(counts) else 0) - d == top)
        cands = [(h.pairs[i], top) for i in sorted(ids)]
        rule = self.__dict__.get("_kept_rule") or self.__dict__.setdefault("_kept_rule", _KeptKeys(self.tie_rule))
        ranked = ranking.rank(cands, {p: top for p, _ in cands}, rule, None, self.show, self.to_bytes,
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

