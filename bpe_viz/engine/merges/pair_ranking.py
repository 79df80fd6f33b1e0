"""How a merge trace ranks the pairs of a step: the tie rule, the model's score, and the
shortcuts that keep a slider step fast on a real text.

:class:`PairRanking` is a part of :class:`~bpe_viz.engine.merges.trace.Trace` (a mixin): it
reads a snapshot's ``state`` and keeps, per trace, what several steps share (the first-met order
of the last few steps, the model's pair filter, the token slots of the merges). What a pair is
worth is the model's (``model.exact`` / ``model.approx``); which of equals goes first is the tie
rule's (:mod:`~bpe_viz.engine.merges.ranking`).

A cold slider step (issue 20) ranks only what it shows: the first rows of the pair table and the
first tied pairs of a merge (:meth:`PairRanking.rank_head`, :meth:`PairRanking.tied_head`), reads
first-met positions only as far as it needs them (:mod:`~bpe_viz.engine.merges.first_met`, a
long word in pieces), and gets the state before a merge by undoing the merge on the state after
it (:meth:`PairRanking.state_before`) rather than by a second rebuild. A step's largest counts
and the ids of the pairs at or above them are found once per step, by numpy over its counts
array, and serve its top pairs and the ties of the merges before and after it. When thousands
of pairs tie (late in a run most pairs left count 2), a rule that needs no positions places them
by the trace's kept tie order (:meth:`PairRanking._best_ids`), with no sort key made per pair.
``tests/test_cold_step.py`` checks every shortcut against the full ranking.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from itertools import chain, compress

from . import ranking
from .convention import Merge
from .first_met import FirstMetScan
from .pair_finder import PairFinder
from .recorder import counts_view, numpy_or_none
from .snapshot import Snapshot, prepare_token_lookup


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


def _ids_at_least(counts, cut: int) -> list[int]:
    """Ids (ascending) of the entries of ``counts`` that are ``>= cut``: an array is compared by
    numpy (``compress`` over the whole array makes two ints per entry: 60 ms for a step's
    460,000 pairs; a byte-level scan, the way before, 5 ms for 30,000 pairs tied at count 2).

    Example::

        >>> from array import array
        >>> _ids_at_least(array("i", [3, 256, 0, 1, 70000, 255]), 3), _ids_at_least([3, 1, 3], 2)
        ([0, 1, 4, 5], [0, 2])
    """
    view = counts_view(counts)
    if view is None:
        return _ids_where(counts, cut.__le__)
    return (view >= cut).nonzero()[0].tolist()


def _largest(counts, n: int) -> list[int]:
    """``heapq.nlargest(n, counts)``; a long array by numpy's partition (no Python int per entry).

    Example::

        >>> from array import array
        >>> _largest(array("i", range(5000)), 3), _largest([2, 9, 4], 2)
        ([4999, 4998, 4997], [9, 4])
    """
    view = counts_view(counts) if len(counts) >= 1024 and n < len(counts) else None
    if view is None:
        return heapq.nlargest(n, counts)
    part = view.copy()
    part.partition(len(part) - n)  # (in place)
    return sorted(part[len(part) - n:].tolist(), reverse=True)


def _ids_where(counts, test) -> list[int]:
    """Ids (ascending) of the entries of ``counts`` for which ``test`` holds: one pass."""
    return list(compress(range(len(counts)), map(test, counts)))


def _split_back(syms, tok: str, pair: tuple) -> tuple:
    """``syms`` with every ``tok`` split back into ``pair``: the runs between occurrences are
    copied as slices (``tuple.index`` finds the next one), not symbol by symbol, which a word of
    a million symbols makes slow. Example: ``("n", "es", "t"), "es", ("e", "s")`` ->
    ``("n", "e", "s", "t")``."""
    out: list = []
    start, index = 0, syms.index
    while True:
        try:
            i = index(tok, start)
        except ValueError:
            out += syms[start:]
            return tuple(out)
        out += syms[start:i]
        out += pair
        start = i + 1


class PairRanking:
    """The ranking half of a :class:`~bpe_viz.engine.merges.trace.Trace` (see the module)."""

    _FIRST_MET_KEEP = 6  # steps whose whole first-met order a trace keeps (see first_met)
    _FIND_AT_MOST = 128  # pairs that first_met_some finds by text search rather than a scan
    _ORDER_FROM = 256  # more candidate pairs than this are ranked by the kept tie order (_best_ids)

    def first_met(self, snap: Snapshot, targets=None) -> dict:
        """pair (internal spelling) -> rank of its first occurrence, reading words in corpus
        order, each left to right (the order a fresh recount meets them): every pair, or with
        ``targets``, at least those (the scan stops once all are found). Only the order of the
        ranks counts. The scan of a step is kept for the last few steps and goes on where it
        stopped when asked for more (an explorer asks several times per step)."""
        scan = self._first_met_scan(snap)
        if targets is None:
            return scan.until(None)
        return scan.until(set(targets).issubset)

    def first_met_some(self, snap: Snapshot, must, others=(), want: int = 0, start: int = 0) -> dict:
        """First-met ranks (as :meth:`first_met`'s) of every pair of ``must`` and of the first
        ``want`` pairs met among ``others`` (and of any pair met before them). Example:
        ``must={(e, s)}``, ``others`` = 900 pairs tied at count 2, ``want=7``: the scan stops
        in the chunk of words where the 7th of them is met. A few pairs (at most
        ``_FIND_AT_MOST``) are found by :class:`~bpe_viz.engine.merges.pair_finder.PairFinder`
        instead: then every pair of ``must`` and ``others`` maps to ``(word, position)`` of its
        first occurrence, which orders them as their ranks do (compare within one answer only).
        ``start``: no word before this one holds a pair of ``must`` or ``others``
        (:meth:`tie_start`), so the scan starts there."""
        must, rest = set(must), set(others)
        want = min(want, len(rest))
        if want <= 0:
            enough = must.issubset
        else:
            def enough(ranks):
                # (counted over rest: a set & dict_keys walks every key met so far)
                return must.issubset(ranks) and sum(map(ranks.__contains__, rest)) >= want
        scan = self.__dict__.get("_first_met_orders", {}).get((snap.step, start))
        if len(must) + len(rest) <= self._FIND_AT_MOST and (scan is None or not enough(scan.ranks)):
            # a few pairs (a rare tie is read late by a scan): found by text search, as
            # (word, position), which orders them as their ranks would
            found = self._finder().first(snap.state[0], must | (rest if want > 0 else set()))
            if found is not None:
                return found
        return self._first_met_scan(snap, start).until(enough)

    def _first_met_scan(self, snap: Snapshot, start: int = 0) -> FirstMetScan:
        cache = self.__dict__.setdefault("_first_met_orders", {})  # (step, start) -> its scan, oldest first
        scan = cache.get((snap.step, start))
        if scan is None:
            scan = cache[snap.step, start] = FirstMetScan(snap.state[0], start)
            while len(cache) > self._FIRST_MET_KEEP:
                del cache[next(iter(cache))]  # the oldest (about 1 MB each on a real text, read to the end)
        return scan

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
        order = self.first_met_some(snap, primary) if rule.positional else None
        return self._public(ranking.rank(items, primary, rule, order, self.show, self.to_bytes, self.hf_id))

    def _public(self, ranked: list) -> list:
        """(internal pair, count) items with their pairs in public spelling."""
        if self.remaps_marker:
            show = self.show
            return [((show(a), show(b)), c) for (a, b), c in ranked]
        return ranked

    def rank_head(self, snap: Snapshot, items, n: int):
        """``rank_items(snap, items)[:n]`` without ranking every item: a step's top rows and the
        first few pairs of a tie among thousands (late in a run on a real text, most pairs left
        tie at count 2). The same rows in the same order: positional rules place only the pairs
        needed (:meth:`first_met_some`), the others keep the n smallest keys (``heapq.nsmallest``
        is ``sorted(...)[:n]``, ties in input order included)."""
        if len(items) <= n or (len(items) <= max(4 * n, 32) and not self.tie_rule.positional):
            return self.rank_items(snap, items)[:n]
        exact = self.rank_function(snap)
        primary = {p: exact(p, c) for p, c in items}
        return self._head(items, primary, n, snap)

    def _head(self, items, primary: dict, n: int, snap: Snapshot | None):
        """The first ``n`` of ``items`` ranked by ``primary`` then the tie rule (public spelling);
        ``snap``: where a positional rule reads first-met ranks (``None`` for other rules)."""
        rule = self.__dict__.get("_kept_rule") or self.__dict__.setdefault("_kept_rule", _KeptKeys(self.tie_rule))
        if rule.positional:
            # those better than the n-th best value all come first; then the first met of those equal to it
            cut = heapq.nlargest(n, primary.values())[-1] if n else None
            better = [p for p, v in primary.items() if v > cut] if n else []
            equal = [p for p, v in primary.items() if v == cut] if n else []
            start = 0 if better else self.tie_start(snap, cut)
            order = self.first_met_some(snap, better, equal, n - len(better), start)
            head = [it for it in items if it[0] in order]
            ranked = ranking.rank(head, primary, rule, order)[:n]
        else:
            key = rule.keyer(self.show, int_keys=any("\U0010ffff" in a + b for (a, b), _ in items),
                             to_bytes=self.to_bytes, token_id=self.hf_id)
            ranked = heapq.nsmallest(n, items, key=lambda t: (-primary[t[0]], key(t[0])))
        return self._public(ranked)

    def tie_start(self, snap: Snapshot, value) -> int:
        """The first word a first-met scan must read to rank the pairs of rank value ``value`` in
        state ``snap`` when that is the state's best count: the word where the next merge (made
        from this state) first occurs, else 0 (read from the first word).

        Why it holds: a positional rule merged that pair because no other pair of the best count
        is met before it. Late in a run on a real text most pairs tie at count 2, and the rule has
        merged the ties met early already, so the rest are first met far into the corpus: the
        scan read ~80% of the docs, twice a cold step (the step's ties and its merge's), ~11 ms
        each (issue 20). Only where the rule chose among every pair that occurs (no pair filter,
        not one piece per string: a pick among all pairs would then see pairs the rule never
        could); for a scored model (WordPiece) the value is the next merge's score in this state."""
        m = self.merges[snap.step] if snap.step < len(self.merges) else None
        if m is None:
            return 0
        self.counts_only()  # (reads the model's pair filter once)
        if (self.__dict__["_pair_filter"] is not None or self.model.one_piece_per_string
                or self.rank_function(snap)(m.pair_internal, m.count) != value):
            return 0
        at = self._finder().find(snap.state[0], m.pair_internal)
        return 0 if at is None else at[0]

    def prepare_ranking(self) -> None:
        """Build now what a cold step needs once per trace, so that no slider jump pays it (an
        explorer calls this in the kernel's idle time; on the docs at 10,000 merges the first
        late jump cost ~50 ms of CPU more than the next ones with subword-nmt's rule, ~7 ms with
        the course's): the kept tie order (not for a positional
        rule), the model's pair filter, the text search for tied pairs (only for a positional
        rule), the token spellings and ids, and whatever the model keeps per trace
        (:meth:`~bpe_viz.engine.merges.model.Model.prepare`). Nothing while training runs (the
        pairs still grow)."""
        if self.stop_reason == "running":
            return
        self._tie_order()
        self.counts_only()
        if self.tie_rule.positional:
            self._finder()
        prepare_token_lookup(self)
        self.id_table
        self.model.prepare(self)

    def _finder(self) -> PairFinder:
        """The text search for a few pairs' first occurrence, kept per trace."""
        return self.__dict__.get("_pair_finder") or self.__dict__.setdefault("_pair_finder", PairFinder(self.history))

    def _tie_order(self):
        """pair id -> its place among all the trace's pairs by the tie rule (a numpy array; equal
        keys in id order), kept for the trace's life: a pair's key never changes. ``None`` for a
        positional rule, or while training runs (the pairs still grow)."""
        pairs = self.history.pairs
        kept = self.__dict__.get("_tie_places")
        if kept is not None and len(kept) == len(pairs):
            return kept
        np = numpy_or_none()  # (no numpy, as in a JupyterLite site offline: the items are ranked)
        if self.tie_rule.positional or self.stop_reason == "running" or np is None:
            return None

        rule, places = self.tie_rule, np.empty(len(pairs), np.intp)
        syms = list(dict.fromkeys(chain.from_iterable(pairs)))
        options = {"int_keys": any("\U0010ffff" in s for s in syms), "to_bytes": self.to_bytes, "token_id": self.hf_id}
        sym_key = rule.symbol_keyer(self.show, **options)
        if sym_key is None:  # the key of a pair as a whole: sorted once (stable: equal keys in id order)
            key = rule.keyer(self.show, **options)
            places[sorted(range(len(pairs)), key=lambda i: key(pairs[i]))] = np.arange(len(pairs))
        else:  # each symbol's place (alike keys, alike places), then the pairs by numpy's stable lexsort
            keys = list(map(sym_key, syms))
            by_key = sorted(range(len(syms)), key=keys.__getitem__)
            place, last = {}, object()
            for n, i in enumerate(by_key):
                if keys[i] != last:
                    rank, last = n, keys[i]
                place[syms[i]] = rank
            left, right = map(np.fromiter, (map(place.__getitem__, side) for side in zip(*pairs)), (np.intp, np.intp))
            places[np.lexsort((right, left))] = np.arange(len(pairs))
        self.__dict__["_tie_places"] = places
        return places

    def _best_ids(self, ids: list, n: int, counts=None):
        """The first ``n`` of the pair ids ``ids`` (ascending) ranked best first by their count in
        ``counts`` (``None``: all equal), then the tie rule, as ``_head`` ranks their items: the
        count decides first, and only the pairs tied at the ``n``-th count are placed by the
        trace's kept tie order (numpy, no key made per pair). ``None`` when that order does not
        serve (a few ids, a positional rule, a trace still training): rank the items then."""
        if len(ids) <= self._ORDER_FROM or n <= 0:
            return None
        places = self._tie_order()
        if places is None:
            return None
        import numpy as np

        ids = np.array(ids, np.intp)
        if counts is None:
            better, equal, k = ids[:0], ids, n
        else:
            vals = counts_view(counts)[ids]
            cut = np.partition(vals, len(vals) - n)[len(vals) - n] if n < len(vals) else vals.min()
            better, equal = ids[vals > cut], ids[vals == cut]
            k = n - len(better)
        if k < len(equal):
            equal = equal[np.argpartition(places[equal], k - 1)[:k]] if k > 0 else equal[:0]
        head = np.concatenate([better, equal])
        if counts is None:
            return head[np.argsort(places[head])].tolist()
        return head[np.lexsort((places[head], -counts_view(counts)[head].astype(np.int64)))].tolist()

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
            # count > 0 only (two compresses: no (pair, count) tuple made for an absent pair)
            items = list(zip(compress(self.history.pairs, counts), compress(counts, counts)))
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
            h = self.history
            slots = self.__dict__.get("_slot_of")
            if slots is None or slots[0] != len(h.merged_tokens):  # symbol -> slot, as h.token_index
                slots = self.__dict__["_slot_of"] = (len(h.merged_tokens), {**h._made, **h._index})
            values = snap.__dict__["_approx_values"] = self.model.approx_all(self.pair_items(snap), snap.state[2],
                                                                             slots[1])
        return values

    def _approx_arrays(self, snap: Snapshot):
        """``(ids, counts, approx values)`` of every item of :meth:`pair_items`, in its order, as
        numpy arrays (``ids`` index ``history.pairs``), when the model computes them at C speed
        and no pair is filtered out (WordPiece's scores: a cold compare step shortlists its top
        pairs and the ties of a merge by score from ~10,000 pairs); ``None`` otherwise. The
        values are the floats of :meth:`approx_values`. Kept per snapshot."""
        kept = snap.__dict__.get("_approx_arrays", False)
        if kept is False:
            kept = None
            allowed = self.__dict__.get("_pair_filter", False)
            if allowed is False:
                allowed = self.__dict__["_pair_filter"] = self.model.pair_filter(self)
            if allowed is None and not self.model.one_piece_per_string and numpy_or_none() is not None:
                kept = self.model.approx_arrays(snap)
            snap.__dict__["_approx_arrays"] = kept
        return kept

    def top_items(self, snap: Snapshot, n: int):
        """The ``n`` best (pair, count) items of ``snap``, ranked (``rank_items(...)[:n]``). The
        best 8 at least are ranked and kept on the snapshot: a step's table (4 rows on a projector)
        and its chart (8 bars) then rank once."""
        kept = snap.__dict__.get("_head")
        if kept is None or kept[0] < n:
            m = max(n, 8)
            kept = snap.__dict__["_head"] = (m, self._top_items(snap, m))
        return kept[1][:n]

    def _top_items(self, snap: Snapshot, n: int):
        if "_items" not in snap.__dict__ and n and self.counts_only():
            # the n-th largest count, then every pair with at least that count, ranked: no list
            # of every (pair, count) is made (a slider step on a real text does this once)
            top = self._largest_counts(snap, n + 1)
            if len(top) > n and top[n] > 0:  # more than n pairs occur
                ids = self._count_ids(snap, top[n - 1], at_least=True)
                counts, pairs = snap.state[1], self.history.pairs
                best = self._best_ids(ids, n, counts) if counts_view(counts) is not None else None
                if best is not None:
                    return self._public([(pairs[i], counts[i]) for i in best])
                return self.rank_head(snap, [(pairs[i], counts[i]) for i in ids], n)
        arrays = self._approx_arrays(snap) if n else None
        if arrays is not None and len(arrays[0]) > n:
            # the same shortlist from the model's arrays: no (pair, count) item per pair
            ids, counts, values = arrays
            cut = float(values[values.argpartition(len(values) - n)[len(values) - n]]) * (1 - 1e-9)
            near = values >= cut
            pairs = self.history.pairs
            return self.rank_head(snap, [(pairs[i], c) for i, c in zip(ids[near].tolist(), counts[near].tolist())], n)
        items = self.pair_items(snap)
        if len(items) <= n:
            return self.rank_items(snap, items)
        # shortlist with the cheap value (a float score, or the count itself), rank exactly
        values = self.approx_values(snap)
        cut = heapq.nlargest(n, values)[-1]
        cut = cut * (1 - 1e-9) if isinstance(cut, float) else cut
        return self.rank_head(snap, [it for it, v in zip(items, values) if v >= cut], n)

    def _largest_counts(self, snap: Snapshot, n: int) -> list[int]:
        """The ``n`` largest pair counts of ``snap``, largest first: one pass over its counts,
        kept per step (the top pairs of a step and the ties of its merges read the same pass)."""
        kept = snap.__dict__.get("_largest")
        if kept is None or kept[0] < n:
            m = max(n, 9)
            kept = snap.__dict__["_largest"] = (m, _largest(snap.state[1], m))
        return kept[1][:n]

    def _count_ids(self, snap: Snapshot, value: int, at_least: bool = False, head: bool = True) -> list[int]:
        """Ids of the pairs whose count at ``snap`` is ``value`` (or ``>= value``), ascending. One
        scan per step: the ids at or above the lowest of ``value`` and the 9th largest count are
        kept (the step's top pairs, the ties of the merge that made it and of the next one ask);
        ``head=False``: no pass for the largest counts if not made yet (a step not shown)."""
        counts = snap.state[1]
        kept = snap.__dict__.get("_ids_from")
        if kept is None or value < kept[0]:
            largest = self._largest_counts(snap, 9) if head or "_largest" in snap.__dict__ else [value]
            if not largest or value > largest[0]:  # nothing counts more than the largest
                return []
            if value <= 0:  # (no pair the ranking asks for) no shortcut
                return _ids_where(counts, value.__le__ if at_least else value.__eq__)
            cut = min(value, largest[-1]) if largest[-1] > 0 else value
            kept = snap.__dict__["_ids_from"] = (cut, _ids_at_least(counts, cut))
        if at_least:
            return kept[1] if value == kept[0] else [i for i in kept[1] if counts[i] >= value]
        return [i for i in kept[1] if counts[i] == value]

    def tied_pairs(self, step: int):
        """Pairs other than merge ``step``'s that had its top count (or score) just before it."""
        m = self.merges[step - 1]
        snap, cands = self._tied_candidates(step, m)
        if snap is None:  # read off the state after the merge: a rule that needs no positions
            ranked = self._head(cands, {p: m.count for p, _ in cands}, len(cands), None)
        else:
            ranked = self.rank_items(snap, cands)
        return tuple(p for p, _ in ranked if p != m.pair)

    def tied_head(self, step: int, n: int) -> tuple[tuple, int]:
        """``(merge.tied[:n], len(merge.tied))`` of merge ``step``, without ranking every tied
        pair when ``merge.tied`` was not asked for yet: what a step's view shows (the first few
        tied pairs and how many tie).

        Example::

            >>> from bpe_viz import train_bpe
            >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 3)
            >>> trace.tied_head(1, 1), trace.merges[0].tied
            (((('s', 't'),), 2), (('s', 't'), ('t', '</w>')))
        """
        m = self.merges[step - 1]
        done = m.__dict__.get("tied")
        if done is not None:
            return done[:n], len(done)
        kept = m.__dict__.get("_tied_head")  # (n, its head, how many): a step asks more than once
        if kept is not None and kept[0] >= n:
            return kept[1][:n], kept[2]
        snap, ids = self._tied_candidate_ids(step, m)
        fast = self._tied_by_ids(step, ids, n) if ids is not None else None
        if fast is not None:
            m.__dict__["_tied_head"] = (n, *fast)
            return fast
        snap, cands = self._tied_candidates(step, m, (snap, ids))
        show = self.show
        same = [p for p, _ in cands if (show(p[0]), show(p[1])) == m.pair] if self.remaps_marker else \
            [p for p, _ in cands if p == m.pair]
        if n <= 0:
            head = []
        elif snap is None:
            head = self._head(cands, {p: m.count for p, _ in cands}, n + len(same), None)
        else:
            head = self.rank_head(snap, cands, n + len(same))
        kept = m.__dict__["_tied_head"] = (n, tuple(p for p, _ in head if p != m.pair)[:n], len(cands) - len(same))
        return kept[1], kept[2]

    def _tied_by_ids(self, step: int, ids: list, n: int):
        """``tied_head(step, n)`` from the ids of the pairs tied with merge ``step`` (its own
        included) by the kept tie order (:meth:`_best_ids`), no (pair, count) item made per
        tied pair; ``None`` when that order does not serve or the marker is remapped."""
        if self.remaps_marker or len(ids) <= self._ORDER_FROM or self._tie_order() is None:
            return None
        h = self.history
        pair, a, b = h.merged_pairs[step - 1], h._d_off[step - 1], h._d_off[step]
        own = next((i for i in h._d_pid[a:b] if h.pairs[i] == pair), None)  # its count changed
        if own is None:
            return None
        head = self._best_ids(ids, n + 1) if n > 0 else []
        pairs = h.pairs
        same = ids[min(bisect_left(ids, own), len(ids) - 1)] == own
        return tuple(pairs[i] for i in head if i != own)[:n], len(ids) - same

    def _tied_candidate_ids(self, step: int, m: Merge):
        """``(snapshot before merge step or None, the ids of its candidates)`` when
        :meth:`_tied_candidates` reads them off a counts array; ``(snapshot, None)`` otherwise."""
        fast = self._tied_from_after(step, m)
        if fast is not None:
            return None, fast
        before = self[step - 1]
        shown = "state" in before.__dict__  # else made here, likely for this question only
        if not shown:
            state = self.state_before(step)
            if state is not None:
                before.__dict__["state"] = state  # (Snapshot.state is a cached property)
        if "_items" not in before.__dict__ and self.counts_only():
            # the pairs with the merge's count, read off the counts array (no list of every pair)
            return before, self._count_ids(before, m.count, head=shown)
        return before, None

    def _tied_candidates(self, step: int, m: Merge, known=None):
        """``(snapshot before merge step, or None, [(internal pair, value)...])``: the pairs that
        had merge ``step``'s top count (or score) just before it, the merge's own included, in
        pair-id order. ``None``: read off the state after the merge (see _tied_from_after).
        ``known``: what :meth:`_tied_candidate_ids` answered for this merge."""
        before, ids = known or self._tied_candidate_ids(step, m)
        if ids is not None:
            pairs, top = self.history.pairs, m.count
            return before, [(pairs[i], top) for i in ids]
        value = m.score if self.model.scored else m.count
        exact = self.rank_function(before)
        near = float(value) * (1 - 1e-9)
        arrays = self._approx_arrays(before)
        if arrays is not None:
            ids, counts, values = arrays
            close, pairs = values >= near, self.history.pairs
            return before, [(pairs[i], c) for i, c in zip(ids[close].tolist(), counts[close].tolist())
                            if exact(pairs[i], c) == value]
        items = self.pair_items(before)
        return before, [(p, c) for (p, c), v in zip(items, self.approx_values(before))
                        if v >= near and exact(p, c) == value]

    def state_before(self, step: int):
        """The state before merge ``step`` (as ``history.rebuild(step - 1)``) undone from the state
        after it, when that one is at hand and undoing is exact: merge ``step`` made its token
        first (no occurrence of it was there before, so every one of it splits back); ``None``
        otherwise. Undoing copies three arrays; a rebuild
        replays up to a checkpoint's worth of changes. Example: merge (e, s) -> es changed
        "n e w es t": before it, "n e w e s t"; (e, s) counts its occurrences again."""
        after = self._cache.get(step)
        h = self.history
        if after is None or "state" not in after.__dict__:
            return None
        (l, r), tok = h.merged_pairs[step - 1], h.merged_tokens[step - 1]
        slot = len(h.base_symbols) + step - 1
        if h.token_index(tok) != slot:
            return None
        seg, pc, tc = after.state
        seg = list(seg)
        a, b = h._chg_off[step - 1], h._chg_off[step]
        for w in set(h._chg_words[a:b]):  # (a long word's symbols are a tuple in a state too)
            seg[w] = _split_back(seg[w], tok, (l, r))
        pc = pc[:]
        a, b = h._d_off[step - 1], h._d_off[step]
        for i, d in zip(h._d_pid[a:b], h._d_val[a:b]):
            pc[i] -= d
        tc = tc[:slot]
        occ = h.merged_occurrences[step - 1]
        if occ:
            tc[h.token_index(l)] += occ
            tc[h.token_index(r)] += occ
        return seg, pc, tc

    def _tied_from_after(self, step: int, m: Merge):
        """The candidates of :meth:`_tied_candidates` read off the state *after* the merge, when
        that state is at hand and the one before is not (a jump of the slider): the counts before
        are the counts after minus the merge's own deltas, so the state before need not be
        rebuilt. Only for counts ranked by a rule that needs no positions (not "first pair met")
        and no pair filter; ``None`` otherwise. Example: merge (e, s) with count 9 changes (e, s)
        by -9 and (s, t) by -9, and a pair (t, </w>) it left alone still counts 9 after it: tied."""
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
        ids = set(self._count_ids(after, top)).difference(delta)
        ids.update(i for i, d in delta.items() if (counts[i] if i < len(counts) else 0) - d == top)
        return sorted(ids)

    @property
    def merged_occurrences(self) -> list[int]:
        """Per merge, how many occurrences it merged, weighted by word counts (the number of
        symbols it saved in the whole corpus)."""
        return list(self.history.merged_occurrences)

