"""The training state every trainer shares: each word's symbols, pair counts, and where pairs are.

The idea is subword-nmt's learn_bpe (without its regex): a table of pair counts plus an index
from each pair to the words that contain it, so a merge touches only the words it changes and the
counts next to its occurrences::

    "A B C", merge "B C":  (A, B) loses, (A, BC) gains

Two representations of a word, chosen once per word by its length:

* a short word (most words of a text) is a tuple of symbols, rewritten whole when a merge
  touches it; only the pairs next to each merged occurrence change counts;
* a long word (over :attr:`PairIndex.LONG` symbols: a whole text as one sequence, the 1994
  compression view, minbpe's BasicTokenizer) is a linked list with an index from each pair to
  its positions, so a merge costs in proportion to the occurrences it changes, not to the
  length of the word.

Positions name a symbol by where it starts, which a merge never moves: the character offset in a
short word, the index of the first initial symbol in a long word. The "first pair met" tie rule
keeps each pair's first position ``(word index, position)`` up to date from them.

How it differs from :mod:`bpe_viz.engine.merges.recorder`: this is the mutable present of one training
run; the recorder writes down what each merge changed, for the trace to replay.

Example::

    >>> state = PairIndex([("l", "o", "w"), ("l", "o", "t")], [5, 2], track_first=True)
    >>> state.counts[("l", "o")], state.first[("o", "t")]
    (7, (1, 1))
    >>> change = state.apply(("l", "o"), "lo")
    >>> state.symbols(0), change.deltas[("lo", "w")]
    (('lo', 'w'), 5)
"""

from __future__ import annotations

from array import array

from ..text.symbols import pair_offsets

__all__ = ["PairIndex", "Change", "MergeAt", "LongState"]


class MergeAt:
    """How a merge changed a long word: ``token`` now starts at each of ``left``, and the
    symbols that started at ``right`` are gone (positions as in the module docstring)."""

    __slots__ = ("token", "left", "right")

    def __init__(self, token, left, right):
        self.token = token
        self.left = array("q", left)
        self.right = array("q", right)


class LongState:
    """A long word at a checkpoint: the start position and text of each of its symbols."""

    __slots__ = ("starts", "symbols")

    def __init__(self, starts, symbols):
        self.starts = tuple(starts)
        self.symbols = tuple(symbols)


class Change:
    """What one merge changed: the words (``words``), each one's new symbols (a tuple) or, for
    a long word, a :class:`MergeAt`; pair-count ``deltas``; for the "first" rule, the pairs whose
    first position moved; the occurrences merged, weighted by word counts; the work done."""

    __slots__ = ("words", "new", "deltas", "moved", "occurrences", "work")

    def __init__(self, words, new, deltas, moved, occurrences, work):
        self.words, self.new, self.deltas = words, new, deltas
        self.moved, self.occurrences, self.work = moved, occurrences, work


class _Long:
    """A long word as a linked list: start -> symbol (in order), next and previous starts, and
    pair -> the starts of its left symbols."""

    __slots__ = ("sym", "nxt", "prv", "pos")

    def __init__(self, symbols):
        n = len(symbols)
        self.sym = dict(enumerate(symbols))
        self.nxt = {i: i + 1 for i in range(n - 1)}
        self.prv = {i + 1: i for i in range(n - 1)}
        pos: dict = {}
        for i in range(n - 1):
            p = (symbols[i], symbols[i + 1])
            s = pos.get(p)
            if s is None:
                pos[p] = {i}
            else:
                s.add(i)
        self.pos = pos


class PairIndex:
    """Mutable training state: the current symbols of every word, pair counts, an index pair ->
    words containing it, and (``track_first``) each pair's first position."""

    #: words with more initial symbols than this are kept as linked lists
    LONG = 64

    def __init__(self, initial, freqs, track_first: bool, size=len):
        self.seg = list(initial)
        self.size_of = size  # how long a symbol is, for positions (see symbols.pair_offsets)
        self.freqs = freqs
        self.long: dict[int, _Long] = {}
        counts: dict = {}
        where: dict = {}
        first: dict = {}
        long_limit = self.LONG
        counts_get, where_get = counts.get, where.get
        for w, syms in enumerate(self.seg):
            f = freqs[w]
            is_long = len(syms) > long_limit
            if is_long:
                self.long[w] = _Long(syms)
            if track_first:
                offs = range(len(syms) - 1) if is_long else pair_offsets(syms, size)
                for p, off in zip(zip(syms, syms[1:]), offs):
                    if p not in first:
                        first[p] = (w, off)
            for p in zip(syms, syms[1:]):
                counts[p] = counts_get(p, 0) + f
                ws = where_get(p)
                if ws is None:
                    where[p] = {w}
                else:
                    ws.add(w)
        self.counts, self.where = counts, where
        self.first = first if track_first else None

    # -- reading -----------------------------------------------------------------------------
    def symbols(self, w: int) -> tuple[str, ...]:
        """Word ``w``'s current symbols."""
        lw = self.long.get(w)
        return tuple(lw.sym.values()) if lw is not None else self.seg[w]

    def checkpoint(self) -> list:
        """Every word's state, cheap to keep: tuples, and a :class:`LongState` for long words."""
        seg = list(self.seg)
        for w, lw in self.long.items():
            seg[w] = LongState(lw.sym.keys(), lw.sym.values())
        return seg

    @property
    def size(self) -> int:
        """How many symbols a checkpoint copies beyond one slot per word (the long words)."""
        return sum(len(lw.sym) for lw in self.long.values())

    def _first_position(self, w: int, pair):
        """The position of ``pair``'s first occurrence in word ``w`` (None if it has none)."""
        lw = self.long.get(w)
        if lw is not None:
            s = lw.pos.get(pair)
            return min(s) if s else None
        syms = self.seg[w]
        off = 0
        size = self.size_of
        for i in range(len(syms) - 1):
            if syms[i] == pair[0] and syms[i + 1] == pair[1]:
                return off
            off += size(syms[i])
        return None

    # -- merging -----------------------------------------------------------------------------
    def apply(self, pair, tok) -> Change:
        """Merge ``pair`` into ``tok`` in every word that has it; update counts, index and first
        positions. subtle: the per-word merge stays inline (a call per word: ~4% slower training)."""
        seg, freqs, where, first, long = self.seg, self.freqs, self.where, self.first, self.long
        size, first_rule = self.size_of, first is not None
        dd: dict = {}  # pair -> change of its count
        dirty, moved = set(), set()  # pairs whose first occurrence left / that have a new one
        changed, new_syms, occ_total, work = [], [], 0, 0
        (a, b), dd_get, where_get = pair, dd.get, where.get
        # the usual word holds the pair once, where its first ``a`` is, and ``a`` or ``b`` only
        # there: no overlaps, no search for more (the general loop below does the rest)
        fast = not first_rule and tok != a and tok != b
        once = 2 if a == b else 1
        for w in sorted(where.pop(pair, ())):
            f = freqs[w]
            old = seg[w]
            if fast and (not long or w not in long):
                j = old.index(a) if a in old else -1
                n = len(old)
                fast_word = 0 <= j < n - 1 and old[j + 1] == b and (old.count(a) == once or old.count(b) == once)
            else:
                fast_word = False
            if fast_word:
                new = old[:j] + (tok,) + old[j + 2:]
                # "X A B Y" -> "X AB Y": the same count changes, in the same order, as below
                x = old[j - 1] if j else None
                if j + 2 < n:
                    y = old[j + 2]
                    gone = ((x, a), pair, (b, y)) if j else (pair, (b, y))
                    came = ((x, tok), (tok, y)) if j else ((tok, y),)
                else:
                    gone, came = ((x, a), pair) if j else (pair,), ((x, tok),) if j else ()
                for p in gone:
                    dd[p] = dd_get(p, 0) - f
                    if not (p[0] in new and p[1] in new and p in set(zip(new, new[1:]))):
                        s_ = where_get(p)
                        if s_ is not None:
                            s_.discard(w)
                for p in came:
                    dd[p] = dd_get(p, 0) + f
                    s_ = where_get(p)
                    if s_ is None:
                        where[p] = {w}
                    else:
                        s_.add(w)
                occ_total += f
                work += n + n - 1
                seg[w] = new
                changed.append(w)
                new_syms.append(new)
                continue
            lw = long.get(w)
            if lw is not None:
                at = self._apply_long(w, lw, pair, tok, f, dd, dirty, moved)
                if at is not None:
                    changed.append(w)
                    new_syms.append(at)
                    occ_total += len(at.left) * f
                    work += 2 * len(at.left)
                continue
            new = old
            # left to right, non-overlapping; tuple.index and slicing run in C, and a word
            # usually has one occurrence. subtle: (a, a) on "a a a" -> "aa a"
            at, j = [], 0  # at: where, in old, each merged occurrence starts
            while True:
                try:
                    j = new.index(a, j)
                except ValueError:
                    break
                if j + 1 < len(new) and new[j + 1] == b:
                    at.append(j + len(at))  # each earlier merge shifted this one left by one
                    new = new[:j] + (tok,) + new[j + 2:]
                j += 1
            if not at:
                continue  # the index may name a word that no longer has the pair
            # Only pairs next to a merge change: "X A B Y", merge "A B": (X, A), (A, B), (B, Y)
            # leave; (X, AB), (AB, Y) arrive. In the new word the k-th merge sits at at[k] - k.
            if len(at) == 1:  # the usual case: one occurrence, no overlaps to remove
                gone, came = (at[0] - 1, at[0], at[0] + 1), (at[0] - 1, at[0])
            else:
                gone = {k for i in at for k in (i - 1, i, i + 1)}
                came = {k for j, i in enumerate(at) for k in (i - j - 1, i - j)}
            if first_rule:
                off_old, off_new = pair_offsets(old, size), pair_offsets(new, size)
            # a pair that left may still occur elsewhere in the word; it can only if both of its
            # symbols are still there (usually a or b is not: no set of the new pairs needed)
            newpairs, last, m = None, len(old) - 1, len(new) - 1
            for k in gone:
                if 0 <= k < last:
                    p = (old[k], old[k + 1])
                    dd[p] = dd_get(p, 0) - f
                    if first_rule and first.get(p) == (w, off_old[k]):
                        dirty.add(p)
                    if p[0] in new and p[1] in new:
                        if newpairs is None:
                            newpairs = set(zip(new, new[1:]))
                        if p in newpairs:
                            continue
                    s_ = where_get(p)
                    if s_ is not None:
                        s_.discard(w)
            for k in came:
                if 0 <= k < m:
                    p = (new[k], new[k + 1])
                    dd[p] = dd_get(p, 0) + f
                    if first_rule and (first.get(p) is None or (w, off_new[k]) < first[p]):
                        first[p] = (w, off_new[k])
                        moved.add(p)
                    s_ = where_get(p)
                    if s_ is None:
                        where[p] = {w}
                    else:
                        s_.add(w)
            occ_total += len(at) * f
            work += len(old) + len(new)
            seg[w] = new
            changed.append(w)
            new_syms.append(new)
        self._settle(dd, dirty, moved)
        return Change(changed, new_syms, dd, moved, occ_total, work)

    def _settle(self, dd, dirty, moved):
        """Apply a merge's count deltas; find the new first occurrence of the ``dirty`` pairs."""
        counts, where, first = self.counts, self.where, self.first
        first_rule = first is not None
        for p, d in dd.items():
            if d:
                c = counts.get(p, 0) + d
                if c:
                    counts[p] = c
                else:
                    del counts[p]
                    where.pop(p, None)
                    if first_rule:
                        first.pop(p, None)
                        dirty.discard(p)
                        moved.discard(p)
        if first_rule:
            for p in dirty:
                if p in counts:
                    w0 = min(where[p])  # the index is exact: the first word has the pair
                    first[p] = (w0, self._first_position(w0, p))
            moved |= dirty

    def _apply_long(self, w, lw: _Long, pair, tok, f, dd, dirty, moved):
        """Merge ``pair`` in long word ``w``, occurrence by occurrence, left to right."""
        starts = lw.pos.pop(pair, None)
        if not starts:
            return None
        a, b = pair
        sym, nxt, prv, pos = lw.sym, lw.nxt, lw.prv, lw.pos
        first, where = self.first, self.where
        first_rule = first is not None

        def lose(p, x):
            dd[p] = dd.get(p, 0) - f
            s = pos.get(p)
            if s is not None:
                s.discard(x)
                if not s:
                    del pos[p]
                    ws = where.get(p)
                    if ws is not None:
                        ws.discard(w)
            if first_rule and first.get(p) == (w, x):
                dirty.add(p)

        def gain(p, x):
            dd[p] = dd.get(p, 0) + f
            s = pos.get(p)
            if s is None:
                pos[p] = {x}
                ws = where.get(p)
                if ws is None:
                    where[p] = {w}
                else:
                    ws.add(w)
            else:
                s.add(x)
            if first_rule:
                k = (w, x)
                cur = first.get(p)
                if cur is None or k < cur:
                    first[p] = k
                    moved.add(p)

        left, right = [], []
        for o in sorted(starts):
            # subtle: (a, a) on "a a a" lists starts 0 and 1; merging at 0 removes the symbol
            # at 1, so that occurrence is gone by the time we get there
            if sym.get(o) != a:
                continue
            q = nxt.get(o)
            if q is None or sym[q] != b:
                continue
            prev = prv.get(o)
            if prev is not None:  # "X A B": (X, A) leaves, (X, AB) arrives
                ps = sym[prev]
                lose((ps, a), prev)
                gain((ps, tok), prev)
            r = nxt.get(q)
            if r is not None:  # "A B Y": (B, Y) leaves, (AB, Y) arrives
                rs = sym[r]
                lose((b, rs), q)
                gain((tok, rs), o)
                nxt[o] = r
                prv[r] = o
                del nxt[q]
            else:
                del nxt[o]
            del prv[q]
            dd[pair] = dd.get(pair, 0) - f
            sym[o] = tok
            del sym[q]
            left.append(o)
            right.append(q)
        if not left:
            return None
        return MergeAt(tok, left, right)
