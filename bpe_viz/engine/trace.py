"""Trace, Snapshot, Merge: the history of a training run, kept as per-merge changes.

A :class:`Trace` is a sequence: ``trace[0]`` is the state before any merge, ``trace[k]`` the
state after ``k`` merges. It does **not** copy the word dictionary after every merge (on Python's
documentation text that is about 1.6 MB a merge). It stores

* for every merge, which words it changed and their new symbols (each word changes at most
  ``len(word)`` times in a whole run, so this is small),
* for every merge, the pair-count changes as compact ``(pair id, delta)`` arrays,
* every so often a checkpoint: the segmentation list and the pair and token counts as arrays,

and rebuilds a step on demand from the nearest checkpoint before it. A :class:`Snapshot` is a
read-only view of one step, computed lazily and cached.

Symbols are stored in an *internal* spelling. Normally that is the spelling you see. When a word
of the corpus contains the end-of-word marker text itself (``snake_case`` with the marker ``_``),
the trace spells the marker internally with a private character instead, so a literal ``_``
inside a word and the marker never count as the same symbol; everything public shows the marker.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

from .symbols import pair_offsets, pairs_of

__all__ = ["Convention", "Merge", "Snapshot", "Trace", "VocabEntry", "STOP_REASONS"]

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

    ``describe()`` says them in words, e.g. for the notebooks' "which convention?" line.
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

    def describe(self) -> str:
        """One line in plain words.

        Example::

            >>> Convention().describe()
            'BPE; end-of-word marker "</w>" as its own symbol; ties: first pair met; min_frequency 2'
        """
        parts = ["BPE" if self.algorithm == "bpe" else "WordPiece (score = count(ab) / (count(a)·count(b)))"]
        if self.preset:
            parts[0] += f' (preset "{self.preset}")'
        if self.algorithm == "wordpiece":
            parts.append(f'continuation prefix "{self.prefix}"')
        elif self.end_of_word is None:
            parts.append("no end-of-word marker")
        elif self.attach_end_of_word:
            parts.append(f'end-of-word marker "{self.end_of_word}" glued to the last character')
        else:
            parts.append(f'end-of-word marker "{self.end_of_word}" as its own symbol')
        parts.append(
            "ties: first pair met"
            if self.tie_break == "first"
            else "ties: greatest pair by code points (as subword-nmt)"
        )
        if self.algorithm == "bpe":
            parts.append(f"min_frequency {self.min_frequency}")
        if self.byte_level:
            parts.append("byte-level (UTF-8 bytes as symbols)")
        if self.normalization:
            parts.append(f"Unicode {self.normalization}")
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
    _trace: "Trace" = field(default=None, repr=False, compare=False)
    _pair_internal: tuple = field(default=None, repr=False, compare=False)
    _token_internal: str = field(default=None, repr=False, compare=False)

    @cached_property
    def tied(self) -> tuple[tuple[str, str], ...]:
        return self._trace._tied(self.step) if self._trace is not None else ()

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
        return self.trace._rebuild(self.step)

    @cached_property
    def segmentation(self) -> dict[str, tuple[str, ...]]:
        seg = self._state[0]
        t = self.trace
        if t._remap:
            show = t._show_tuple
            return dict(zip(t.words, (show(s) for s in seg)))
        return dict(zip(t.words, seg))

    @cached_property
    def word_counts(self) -> dict[str, int]:
        return dict(zip(self.trace.words, self.trace.counts))

    @cached_property
    def pair_counts(self) -> dict[tuple[str, str], int]:
        counts = self._state[1]
        pairs = self.trace._pairs
        table = {pairs[i]: c for i, c in enumerate(counts) if c}
        if self.trace._remap:
            # subtle: a literal "_" and the marker "_" are different symbols inside, but spelled
            # alike here; their pairs add up, as a recount of the shown segmentation would.
            # ranked_pairs keeps them apart.
            show = self.trace._show
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
        for tok_internal, idx in t._token_slots(self.step):
            if idx in seen:
                continue
            seen.add(idx)
            pub = t._show(tok_internal)
            out[pub] = out.get(pub, 0) + counts[idx]
        return out

    @cached_property
    def vocab(self) -> tuple[VocabEntry, ...]:
        t = self.trace
        counts = self._state[2]
        show = t._show
        n0 = len(t.base_symbols)
        entries = [VocabEntry(show(tok), 0, counts[i]) for i, tok in enumerate(t.base_symbols)]
        tindex = t._token_index
        for m in t.merges[: self.step]:
            entries.append(VocabEntry(m.token, m.step, counts[tindex(m._token_internal)]))
        return tuple(entries)

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

    def scores(self) -> dict[tuple[str, str], Fraction]:
        """WordPiece score of every pair at this step: count(ab) / (count(a) * count(b))."""
        tc = self.token_counts
        return {p: Fraction(c, tc[p[0]] * tc[p[1]]) for p, c in self.pair_counts.items()}

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
        if self.trace.convention.algorithm == "wordpiece":
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

    def _repr_html_(self) -> str:
        from .render import snapshot_html

        return snapshot_html(self)


class Trace(Sequence):
    """The whole history of one training run: ``trace[k]`` is the :class:`Snapshot` after k merges.

    ``len(trace) == len(trace.merges) + 1``. ``trace.stop_reason`` says why training stopped
    (a key of :data:`STOP_REASONS`), ``trace.convention`` which conventions were used.
    Token ids are stable: see :meth:`token_to_id`.
    """

    # a checkpoint every CHECKPOINT_WORK changed symbols keeps a rebuild in the low milliseconds
    CHECKPOINT_WORK = 60_000

    def __init__(self, words, counts, initial, convention: Convention, internal_marker=None):
        self.words: tuple[str, ...] = tuple(words)
        self.counts: tuple[int, ...] = tuple(counts)
        self.convention = convention
        self.merges: list[Merge] = []
        self.stop_reason = "running"
        marker = convention.end_of_word
        self._internal_marker = internal_marker if internal_marker is not None else marker
        self._remap = marker is not None and self._internal_marker != marker
        self._initial: list[tuple[str, ...]] = [tuple(s) for s in initial]
        # initial symbols in order of first appearance
        seen: dict[str, int] = {}
        for syms, c in zip(self._initial, self.counts):
            for s in syms:
                seen[s] = seen.get(s, 0) + c
        self.base_symbols: tuple[str, ...] = tuple(seen)  # internal spelling
        self._base_counts: list[int] = list(seen.values())
        self._index: dict[str, int] = {s: i for i, s in enumerate(self.base_symbols)}
        # per merge: the words it changed and their new symbols
        self._chg_words = array("i")
        self._chg_syms: list[tuple[str, ...]] = []
        self._chg_off = [0]
        # per merge: pair-count deltas (pair id, delta), and weighted occurrences merged
        self._pairs: list[tuple[str, str]] = []
        self._pair_id: dict[tuple[str, str], int] = {}
        self._d_pid = array("i")
        self._d_val = array("q")
        self._d_off = [0]
        self._merged_occ: list[int] = []
        # checkpoints: (step, seg tuple, pair counts array, token counts array)
        self._ckpt_steps: list[int] = []
        self._ckpts: list[tuple] = []
        self._work = 0
        self._next_ckpt = self.CHECKPOINT_WORK
        self._cache: dict[int, Snapshot] = {}
        self._final_state = None

    # -- spelling ------------------------------------------------------------------------
    def _show(self, s: str) -> str:
        return s.replace(self._internal_marker, self.convention.end_of_word) if self._remap else s

    def _show_tuple(self, syms):
        r = self._internal_marker
        m = self.convention.end_of_word
        return tuple(s.replace(r, m) for s in syms)

    # -- building (called by the trainers) --------------------------------------------
    def _pid(self, pair) -> int:
        i = self._pair_id.get(pair)
        if i is None:
            i = self._pair_id[pair] = len(self._pairs)
            self._pairs.append(pair)
        return i

    def _checkpoint(self, seg, pair_counts: dict, token_counts: list):
        pc = array("q", bytes(8 * len(self._pairs)))
        pid = self._pair_id
        for p, c in pair_counts.items():
            pc[pid[p]] = c
        self._ckpt_steps.append(len(self.merges))
        self._ckpts.append((tuple(seg), pc, array("q", token_counts)))
        self._work = 0
        # a checkpoint costs memory in proportion to the pairs and words; wait for at least
        # that much replay work before the next one, so checkpoints never outweigh the changes
        self._next_ckpt = max(self.CHECKPOINT_WORK, 2 * (len(self._pairs) + len(seg)))

    def _record(self, merge: Merge, changed_words, changed_syms, deltas, occurrences: int, work: int):
        """Append one merge: ``deltas`` is a list of (pair, delta) on the pair counts."""
        self.merges.append(merge)
        self._chg_words.extend(changed_words)
        self._chg_syms.extend(changed_syms)
        self._chg_off.append(len(self._chg_words))
        pid = self._pid
        dp, dv = self._d_pid, self._d_val
        for p, d in deltas:
            dp.append(pid(p))
            dv.append(d)
        self._d_off.append(len(dp))
        self._merged_occ.append(occurrences)
        self._cache.pop(len(self.merges), None)
        self._work += work

    def _finish(self, reason: str):
        self.stop_reason = reason

    # -- rebuilding a step ---------------------------------------------------------------
    def _rebuild(self, step: int):
        """(segmentation list, pair counts array, token counts array) after ``step`` merges."""
        j = bisect.bisect_right(self._ckpt_steps, step) - 1
        k0 = self._ckpt_steps[j]
        seg0, pc0, tc0 = self._ckpts[j]
        seg = list(seg0)
        a, b = self._chg_off[k0], self._chg_off[step]
        for w, s in zip(self._chg_words[a:b], self._chg_syms[a:b]):
            seg[w] = s
        npairs = len(self._pairs)
        pc = pc0 + array("q", bytes(8 * (npairs - len(pc0)))) if len(pc0) < npairs else array("q", pc0)
        a, b = self._d_off[k0], self._d_off[step]
        for i, d in zip(self._d_pid[a:b], self._d_val[a:b]):
            pc[i] += d
        n0 = len(self.base_symbols)
        tc = array("q", tc0)
        tc.frombytes(bytes(8 * (n0 + step - len(tc))))
        tindex = self._token_index
        for m, occ in zip(self.merges[k0:step], self._merged_occ[k0:step]):
            l, r = m._pair_internal
            tc[tindex(l)] -= occ
            tc[tindex(r)] -= occ
            tc[tindex(m._token_internal)] += occ
        return seg, pc, tc

    def _token_index(self, sym: str) -> int:
        """Index in the token-count array of internal symbol ``sym`` (its first making)."""
        i = self._index.get(sym)
        if i is None:
            i = self._merge_index[sym]
        return i

    @property
    def _merge_index(self) -> dict[str, int]:
        # internal token -> index in the token-count array (tokens are unique: a pair is merged once,
        # and a token string made twice would need two pairs joining to the same string; we keep
        # the first, as the vocabulary does)
        n0 = len(self.base_symbols)
        cached = self.__dict__.get("_merge_index_cache")
        if cached is None or cached[1] != len(self.merges):
            d = cached[0] if cached is not None else {}
            start = cached[1] if cached is not None else 0
            for m in self.merges[start:]:
                d.setdefault(m._token_internal, n0 + m.step - 1)
            cached = self.__dict__["_merge_index_cache"] = (d, len(self.merges))
        return cached[0]

    def _token_slots(self, step: int):
        """(internal token, its slot in the token-count array) for the vocabulary at ``step``."""
        for i, tok in enumerate(self.base_symbols):
            yield tok, i
        tindex = self._token_index
        for m in self.merges[:step]:
            yield m._token_internal, tindex(m._token_internal)

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

    @property
    def stopped_because(self) -> str:
        """Why training stopped, in words."""
        return STOP_REASONS[self.stop_reason]

    # -- ties and ranking ------------------------------------------------------------------
    def _first_met(self, snap: Snapshot, targets=None) -> dict:
        """pair (internal spelling) -> rank of its first occurrence, reading words in corpus
        order, each left to right (the order a fresh recount meets them). With ``targets``,
        only those pairs, and the scan stops once all are found."""
        order: dict = {}
        if targets is None:
            for syms in snap._state[0]:
                for p in zip(syms, syms[1:]):
                    if p not in order:
                        order[p] = len(order)
            return order
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

    def _score_of(self, snap: Snapshot):
        tc = snap._state[2]
        tindex = self._token_index
        return lambda p, c: Fraction(c, tc[tindex(p[0])] * tc[tindex(p[1])])

    def _rank(self, snap: Snapshot, items):
        """Sort (internal pair, count) items best first by the trace's rule; public spelling out."""
        wp = self.convention.algorithm == "wordpiece"
        first = self.convention.tie_break == "first"
        show = self._show
        if wp:
            score = self._score_of(snap)
            primary = {p: score(p, c) for p, c in items}
        else:
            primary = {p: c for p, c in items}
        if first:
            order = self._first_met(snap, primary)
            ranked = sorted(items, key=lambda t: (-primary[t[0]], order[t[0]]))
        else:
            ranked = sorted(items, key=lambda t: (show(t[0][0]), show(t[0][1])), reverse=True)
            ranked.sort(key=lambda t: primary[t[0]], reverse=True)
        if self._remap:
            ranked = [((show(a), show(b)), c) for (a, b), c in ranked]
        return ranked

    def _items(self, snap: Snapshot):
        """(internal pair, count) of every pair present at the snapshot's step (cached there)."""
        items = snap.__dict__.get("_items")
        if items is None:
            pairs = self._pairs
            items = snap.__dict__["_items"] = [(pairs[i], c) for i, c in enumerate(snap._state[1]) if c]
        return items

    def _ranked(self, snap: Snapshot):
        return self._rank(snap, self._items(snap))

    def _top(self, snap: Snapshot, n: int):
        items = self._items(snap)
        if len(items) <= n:
            return self._rank(snap, items)
        if self.convention.algorithm == "wordpiece":
            tc = snap._state[2]
            tindex = self._token_index
            fl = [(c / (tc[tindex(p[0])] * tc[tindex(p[1])]), p, c) for p, c in items]
            fl.sort(key=lambda t: t[0], reverse=True)
            cut = fl[n - 1][0] * (1 - 1e-9)
            cands = [(p, c) for f, p, c in fl if f >= cut]
        else:
            cs = sorted((c for _, c in items), reverse=True)
            cut = cs[n - 1]
            cands = [(p, c) for p, c in items if c >= cut]
        return self._rank(snap, cands)[:n]

    def _tied(self, step: int):
        """Pairs other than merge ``step``'s that had its top count (or score) just before it."""
        m = self.merges[step - 1]
        before = self[step - 1]
        items = self._items(before)
        if self.convention.algorithm == "wordpiece":
            score = self._score_of(before)
            tc = before._state[2]
            tindex = self._token_index
            approx = float(m.score) * (1 - 1e-9)
            cands = [
                (p, c) for p, c in items
                if c / (tc[tindex(p[0])] * tc[tindex(p[1])]) >= approx and score(p, c) == m.score
            ]
        else:
            cands = [(p, c) for p, c in items if c == m.count]
        return tuple(p for p, _ in self._rank(before, cands) if p != m.pair)

    @property
    def merged_occurrences(self) -> list[int]:
        """Per merge, how many occurrences it merged, weighted by word counts (the number of
        symbols it saved in the whole corpus)."""
        return list(self._merged_occ)

    # -- tokens and ids -------------------------------------------------------------------
    @property
    def _id_table(self):
        cached = self.__dict__.get("_id_table_cache")
        if cached is None or cached[0] != len(self.merges):
            cached = self.__dict__["_id_table_cache"] = (len(self.merges), self._build_id_table())
        return cached[1]

    def _build_id_table(self):
        """(tokens by id (public spelling), {internal token: id}, {public token: first id})."""
        unk = self.unk_token
        internal = [unk]
        internal.extend(self.base_symbols)
        internal.extend(self._completion_symbols)
        for m in self.merges:
            internal.append(m._token_internal)
        ids: dict[str, int] = {}
        for i, tok in enumerate(internal):
            ids.setdefault(tok, i)
        public = [self._show(t) if i else t for i, t in enumerate(internal)]
        ids_public: dict[str, int] = {}
        for i, tok in enumerate(public):
            ids_public.setdefault(tok, i)
        return public, ids, ids_public, internal

    unk_token = "<unk>"

    @cached_property
    def _completion_symbols(self) -> tuple[str, ...]:
        """With the marker glued to the last character, "x</w>" can be missing from the
        training text although "x" is there (or the other way round). Both spellings of every
        seen character get an id, after the initial symbols, so decoding stays exact."""
        c = self.convention
        if c.algorithm == "wordpiece":
            pre = c.prefix
            base = set(self.base_symbols)
            chars: dict[str, None] = {}
            for s in self.base_symbols:
                chars[s[len(pre):] if s.startswith(pre) and len(s) > len(pre) else s] = None
            return tuple(f for ch in chars for f in (ch, pre + ch) if f not in base)
        if c.end_of_word is None or not c.attach_end_of_word:
            return ()
        m = self._internal_marker
        base = set(self.base_symbols)
        chars: dict[str, None] = {}
        for s in self.base_symbols:
            chars[s[: -len(m)] if s.endswith(m) and len(s) > len(m) else s] = None
        out = []
        for ch in chars:
            for form in (ch, ch + m):
                if form not in base:
                    out.append(form)
        return tuple(out)

    @property
    def id_to_token(self) -> list[str]:
        """Token strings by id. Ids are stable and documented: 0 is ``unk_token``; then the
        initial symbols in order of first appearance; then (marker glued to the last character
        only) the missing plain/final spelling of each seen character; then merged tokens in the
        order they were made. ``encode`` with fewer merges uses the same ids."""
        return list(self._id_table[0])

    def token_to_id(self, token: str, made_at: int | None = None) -> int | None:
        """The id of a token (public spelling), or ``None`` if it is not in the vocabulary."""
        table, _, ids_public, _ = self._id_table
        if made_at is not None:
            if made_at == 0:
                i = self._index.get(self._internal(token))
                return None if i is None else i + 1
            return 1 + len(self.base_symbols) + len(self._completion_symbols) + made_at - 1
        # subtle: when a word held the marker text, two tokens can be spelled alike; the first id wins
        return ids_public.get(token)

    def _internal(self, token: str) -> str:
        if self._remap:
            return token.replace(self.convention.end_of_word, self._internal_marker)
        return token

    @property
    def vocab_size(self) -> int:
        """Number of ids (unk, initial symbols, completions, merged tokens)."""
        return 1 + len(self.base_symbols) + len(self._completion_symbols) + len(self.merges)

    def initial_symbols(self, word: str) -> tuple[str, ...]:
        """How training splits ``word`` before any merge (internal spelling), by its convention."""
        from .bpe import initial_symbols

        return initial_symbols(word, self.convention, self._internal_marker)
