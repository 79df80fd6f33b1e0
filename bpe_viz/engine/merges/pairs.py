"""The training state every trainer shares: each word's symbols, pair counts, and where pairs are.

The idea is subword-nmt's learn_bpe (without its regex): a table of pair counts plus an index
from each pair to the words that contain it, so a merge touches only the words it changes and the
counts next to its occurrences::

    "A B C", merge "B C":  (A, B) loses, (A, BC) gains

Two representations of a word, chosen once per word by its length:

* a short word (most words of a text) is a tuple of symbols, rewritten whole when a merge
  touches it; only the pairs next to each merged occurrence change counts. The usual word holds
  the merged pair once: it only notes its neighbours "X" and "Y", and the count changes and the
  index are updated once per merge for all the words that share a neighbour (:class:`_Batch`);
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
from collections import defaultdict, deque
from itertools import chain, repeat

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


def _index_pairs(seg: list, freqs) -> tuple[dict, dict]:
    """(pair -> weighted count, pair -> the words holding it) of the words ``seg``, both in
    first-met order, built in C loops: one pass lists each pair's words (a word once per
    occurrence), then a sum of word counts and a set per distinct pair."""
    index: defaultdict = defaultdict(list)
    rests = [s[1:] for s in seg]
    pairs = chain.from_iterable(map(zip, seg, rests))
    owners = chain.from_iterable(map(repeat, range(len(seg)), map(len, rests)))
    deque(map(list.append, map(index.__getitem__, pairs), owners), maxlen=0)
    del rests, pairs, owners
    count_of = freqs.__getitem__
    counts = {p: sum(map(count_of, ws)) for p, ws in index.items()}
    for p, ws in index.items():  # each list let go of as its set is made
        index[p] = set(ws)
    return counts, dict(index)


def _find(syms: tuple, i: int, a, b) -> int:
    """Where the first ``a`` followed by ``b`` is in ``syms`` from index ``i`` on (-1: nowhere)."""
    try:
        while True:
            i = syms.index(a, i) + 1
            if i < len(syms) and syms[i] == b:
                return i - 1
    except ValueError:
        return -1


def _met(x, y, pair, tok) -> tuple:
    """The count changes of merging ``pair`` in "X A B Y" (no X or Y: None), in order."""
    a, b = pair
    if x is None:
        return (pair,) if y is None else (pair, (b, y), (tok, y))
    return ((x, a), pair, (x, tok)) if y is None else ((x, a), pair, (b, y), (x, tok), (tok, y))


class _Batch:
    """One merge's changes to the short words it merges once (the usual word), gathered per
    neighbour and applied at the end: ``left[x]`` lists the words where "X A B" became "X AB",
    ``right[y]`` those where "A B Y" became "AB Y"; ``keep`` the (pair, word) whose pair left
    there but still occurs in the new word; ``other`` the count changes of the other words;
    ``met`` every pair changed, in the order met (the order of :attr:`Change.deltas`)."""

    __slots__ = ("left", "right", "keep", "other", "met", "merged")

    def __init__(self):
        self.left: dict = {}
        self.right: dict = {}
        self.keep: list = []
        self.other: dict = {}
        self.met: list = []
        self.merged = 0  # the weighted occurrences merged in the usual words

    def add_other(self, changes: dict):
        """Count changes of one other word (a pair met twice, a long word), in its order."""
        self.met.extend(changes)
        other = self.other
        for p, v in changes.items():
            other[p] = other.get(p, 0) + v

    def deltas(self, pair, tok, freqs) -> dict:
        """pair -> change of its count, in the order the pairs were met."""
        a, b = pair
        dd = dict.fromkeys(self.met, 0)
        count_of = freqs.__getitem__
        for x, ws in self.left.items():
            f = sum(map(count_of, ws))
            dd[(x, a)] -= f
            dd[(x, tok)] += f
        for y, ws in self.right.items():
            f = sum(map(count_of, ws))
            dd[(b, y)] -= f
            dd[(tok, y)] += f
        if self.merged:
            dd[pair] -= self.merged
        for p, v in self.other.items():
            dd[p] += v
        return dd

    def reindex(self, where: dict, pair, tok):
        """The index after the merge: each pair that left, without the words that lost it (but
        those where it still occurs); each pair that came, with the words that gained it."""
        a, b = pair
        left, right = self.left, self.right
        for p, ws in chain(zip(zip(left, repeat(a)), left.values()), zip(zip(repeat(b), right), right.values())):
            s = where.get(p)
            if s is not None:
                s.difference_update(ws)
        for p, w in self.keep:
            s = where.get(p)
            if s is not None:
                s.add(w)
        for p, ws in chain(zip(zip(left, repeat(tok)), left.values()), zip(zip(repeat(tok), right), right.values())):
            s = where.get(p)
            if s is None:
                where[p] = set(ws)
            else:
                s.update(ws)


class PairIndex:
    """Mutable training state: the current symbols of every word, pair counts, an index pair ->
    words containing it, and (``track_first``) each pair's first position."""

    #: words with more initial symbols than this are kept as linked lists
    LONG = 64

    def __init__(self, initial, freqs, track_first: bool, size=len):
        self.seg = list(initial)
        self.size_of = size  # how long a symbol is, for positions (see symbols.pair_offsets)
        self.freqs = freqs
        long_limit = self.LONG
        self.long: dict[int, _Long] = {w: _Long(s) for w, s in enumerate(self.seg) if len(s) > long_limit}
        self.counts, self.where = _index_pairs(self.seg, freqs)
        self.first = None
        if track_first:
            position = self._first_position
            firsts = map(min, map(self.where.__getitem__, self.counts))  # the first word holding each
            self.first = {p: (w, position(w, p)) for p, w in zip(self.counts, firsts)}

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
        a, b = pair
        j = syms.index(a) if a in syms else -1
        while j >= 0 and j + 1 < len(syms):
            if syms[j + 1] == b:
                return sum(map(self.size_of, syms[:j]))
            j = syms.index(a, j + 1) if a in syms[j + 1:] else -1
        return None

    # -- merging -----------------------------------------------------------------------------
    def apply(self, pair, tok) -> Change:
        """Merge ``pair`` into ``tok`` in every word that has it; update counts, index and first
        positions."""
        dirty, moved = set(), set()  # pairs whose first occurrence left / that have a new one
        batch = _Batch()
        words, new, occurrences, work = self._merge_words(sorted(self.where.pop(pair, ())), pair, tok, batch,
                                                          dirty, moved)
        dd = batch.deltas(pair, tok, self.freqs)
        batch.reindex(self.where, pair, tok)
        self._settle(dd, dirty, moved)
        return Change(words, new, dd, moved, occurrences, work)

    def _merge_words(self, words, pair, tok, batch: _Batch, dirty, moved):
        """Merge ``pair`` in each of ``words`` (in order); (words changed, their new symbols,
        occurrences merged weighted, work). subtle: the usual word stays inline (a call per word
        costs ~4% of training): it holds the pair once, where its first ``a`` is, and ``a`` or
        ``b`` only there, so no overlaps and no search for more; it only notes its neighbours
        (``batch``). The others go to :meth:`_merge_word` (a long word: :meth:`_apply_long`)."""
        seg, freqs, first_rule, long = self.seg, self.freqs, self.first is not None, self.long
        changed, new_syms, occ_total, work, usual = [], [], 0, 0, []  # usual: the usual words merged
        (a, b), left, right, met, keep = pair, batch.left, batch.right, batch.met, batch.keep
        left_get, right_get, find = left.get, right.get, _find
        fast = tok != a and tok != b
        once = 2 if a == b else 1
        for w in words:
            old = seg[w]
            try:
                j = old.index(a) if fast and not (long and w in long) else -1
            except ValueError:
                continue  # the index may name a word that no longer has the pair
            n = len(old)
            if j >= 0 and (j + 1 == n or old[j + 1] != b):
                j = find(old, j + 1, a, b)
            if j >= 0:  # the first (A, B); is it the only one? (A, A) must not overlap: "A A A"
                alone = old.count(a) == once  # then (X, A) cannot stay
                if not (alone or old.count(b) == once or (a != b and find(old, j + 2, a, b) < 0)):
                    j = -1
            if j >= 0:
                # "X A B Y" -> "X AB Y": (X, A), (A, B), (B, Y) leave, (X, AB), (AB, Y) arrive, in
                # that order (``met`` notes each the first time); a pair that left may still occur
                new = old[:j] + (tok,) + old[j + 2:]
                if first_rule:
                    self._move_first(w, old, j, tok, dirty, moved)
                x = old[j - 1] if j else None
                y = old[j + 2] if j + 2 < n else None
                xs = left_get(x) if j else ()
                ys = right_get(y) if y is not None else ()
                if xs is None or ys is None or not usual:  # a pair met for the first time
                    met += _met(x, y, pair, tok)
                    if xs is None:
                        xs = left[x] = []
                    if ys is None:
                        ys = right[y] = []
                if j:
                    xs.append(w)
                    if not alone and x in new and (x, a) in set(zip(new, new[1:])):
                        keep.append(((x, a), w))
                if y is not None:
                    ys.append(w)
                    if b in new and y in new and (b, y) in set(zip(new, new[1:])):
                        keep.append(((b, y), w))
                usual.append(w)
                seg[w] = new
            else:
                new, k = self._merge_other(w, old, pair, tok, batch, dirty, moved)
                if not k:
                    continue  # the index may name a word that no longer has the pair
                occ_total += k * freqs[w]
                work += 2 * k if type(new) is MergeAt else len(old) + len(new)
                if type(new) is tuple:
                    seg[w] = new
            changed.append(w)
            new_syms.append(new)
        batch.merged = merged = sum(map(freqs.__getitem__, usual))
        work += 2 * sum(map(len, map(seg.__getitem__, usual))) + len(usual)  # n + n - 1 each
        return changed, new_syms, occ_total + merged, work

    def _merge_other(self, w, old, pair, tok, batch: _Batch, dirty, moved):
        """Merge ``pair`` in a word that is not the usual one (a long word, a pair met twice or
        overlapping): (new symbols or :class:`MergeAt`, occurrences merged)."""
        changes: dict = {}
        lw = self.long.get(w) if self.long else None
        if lw is not None:
            new = self._apply_long(w, lw, pair, tok, self.freqs[w], changes, dirty, moved)
            k = 0 if new is None else len(new.left)
        else:
            new, k = self._merge_word(w, old, self.freqs[w], pair, tok, changes, dirty, moved)
        batch.add_other(changes)
        return new, k

    def _move_first(self, w, old, j, tok, dirty, moved):
        """The "first pair met" bookkeeping of merging ``old[j], old[j + 1]`` once in word ``w``:
        pairs whose first occurrence was there leave (``dirty``), pairs made there may come first."""
        first, size = self.first, self.size_of
        a, b = old[j], old[j + 1]
        oj = sum(map(size, old[:j]))  # where ``a`` starts
        came = []
        if j:
            x = old[j - 1]
            if first.get((x, a)) == (w, oj - size(x)):
                dirty.add((x, a))
            came.append(((x, tok), (w, oj - size(x))))
        if j + 2 < len(old):
            y = old[j + 2]
            if first.get((b, y)) == (w, oj + size(a)):
                dirty.add((b, y))
            came.append(((tok, y), (w, oj)))
        for p, k in came:
            cur = first.get(p)
            if cur is None or k < cur:
                first[p] = k
                moved.add(p)

    def _merge_word(self, w, old, f, pair, tok, dd, dirty, moved):
        """Merge ``pair`` in short word ``w`` (symbols ``old``, count ``f``) wherever it occurs:
        (new symbols, occurrences merged)."""
        a, b = pair
        first, where, size = self.first, self.where, self.size_of
        first_rule, dd_get, where_get = first is not None, dd.get, self.where.get
        new = old
        # left to right, non-overlapping; tuple.index and slicing run in C. subtle: (a, a) on
        # "a a a" -> "aa a"
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
            return old, 0
        # Only pairs next to a merge change: "X A B Y", merge "A B": (X, A), (A, B), (B, Y)
        # leave; (X, AB), (AB, Y) arrive. In the new word the k-th merge sits at at[k] - k.
        if len(at) == 1:  # one occurrence, no overlaps to remove
            gone, came = (at[0] - 1, at[0], at[0] + 1), (at[0] - 1, at[0])
        else:  # subtle: the sets' order is the order the changes are written in
            gone = {k for i in at for k in (i - 1, i, i + 1)}
            came = {k for j, i in enumerate(at) for k in (i - j - 1, i - j)}
        if first_rule:
            off_old, off_new = pair_offsets(old, size), pair_offsets(new, size)
        # a pair that left may still occur elsewhere in the word; it can only if both of its
        # symbols are still there
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
                s = where_get(p)
                if s is not None:
                    s.discard(w)
        for k in came:
            if 0 <= k < m:
                p = (new[k], new[k + 1])
                dd[p] = dd_get(p, 0) + f
                if first_rule and (first.get(p) is None or (w, off_new[k]) < first[p]):
                    first[p] = (w, off_new[k])
                    moved.add(p)
                s = where_get(p)
                if s is None:
                    where[p] = {w}
                else:
                    s.add(w)
        return new, len(at)

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
