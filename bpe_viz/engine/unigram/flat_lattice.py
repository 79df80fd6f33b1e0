"""The sentencepiece trainer's lattices as flat numpy arrays: forward-backward and Viterbi over
every word at once.

:class:`~.lattice.SPCorpus` keeps the corpus (its words and counts, the piece trie, which
pieces live); :class:`FlatLattices` holds every word's nodes one after another and walks them
(:func:`find_nodes` finds them, for many words at once). A word of ``n`` characters owns the
positions ``off .. off + n`` of one long position axis, and a node is ``(global start, length,
piece k)``. Nodes are kept in the order the per-word loops meet them (by start, then length, a
start's unknown node last), so sums over nodes (expected counts) run in that order too.

The walks go by *level* instead of node by node (see the comment in the class): one numpy step
takes, across all words, nodes that lead to different places and need only what earlier steps
computed, and the nodes meeting at one place are added in the per-word loop's order (by
start). So ``alpha``, ``beta`` and Viterbi's best scores are the same sums as the C++'s, in the
same order, to the bit; only words with far more levels than the rest are walked alone in
plain Python (:func:`forward_backward`, :func:`viterbi_table`). Its sibling :mod:`.flat_seeds`
counts the seed pieces the same way.

numpy is imported when a :class:`FlatLattices` is made, never at ``import bpe_viz``.

Example (pieces ``▁`` 0, ``a`` 1, ``▁a`` 2; the words ``▁a`` twice and ``▁`` once)::

    >>> flat = FlatLattices([2, 1], [2, 1], [0, 0, 1, 3], [1, 2, 1, 1], [0, 2, 1, 0], unk=3)
    >>> scores = [-1.0, -2.0, -2.5, -12.0]
    >>> [round(x, 4) for x in flat.expected(scores, first=0)]  # ▁a: e^-2.5 against ▁ + a's e^-3
    [1.7551, 0.7551, 1.2449, 0.0]
    >>> flat.loss(scores), flat.freq(scores, first=0), flat.word_nodes(1)
    (6.0, [1.0, 0.0, 2.0, 0.0], [(0, 1, 0)])
"""

from __future__ import annotations

import math
from itertools import pairwise

__all__ = ["HASH_BASE", "FlatLattices", "find_nodes", "forward_backward", "text_codes", "viterbi_table",
           "word_levels"]

NEG = -math.inf
# the walk's cost model, to decide which words are too long to walk by position (seconds)
STEP_COST = 30e-6  # one level of a walk (two numpy steps)
NODE_COST = 1.5e-6  # one node walked in Python
LONG = 256  # a word longer than this is always walked in Python
HASH_BASE = 0x9E3779B97F4A7C15  # an odd 64-bit multiplier: substrings are hashed mod 2**64


def _np():
    import numpy  # lazy: the engine imports without numpy

    return numpy


def _argsort(np, key):
    """A stable argsort (small keys as 16-bit numbers: the fastest)."""
    if len(key) and int(key.max()) < 65536:
        key = key.astype(np.uint16)
    return np.argsort(key, kind="stable")


def _steps(np, perm, keys):
    """A walk: node indexes, their keys (level x 2, + 1 unless first), where each step starts,
    and whether it sets."""
    cuts = [0, *(np.flatnonzero(keys[1:] != keys[:-1]) + 1).tolist(), len(perm)]
    return perm, keys, cuts, (keys[cuts[:-1]] % 2 == 0).tolist() if len(perm) else []


class FlatLattices:
    """Every word's lattice, one array per field. ``lengths``/``counts``: per word; ``starts``,
    ``lens``, ``ks``: the nodes (global start position, length, piece number), every word's in
    turn, in the per-word loops' order; ``unk``: the piece number of an unknown character."""

    def __init__(self, lengths, counts, starts, lens, ks, unk: int):
        np = self.np = _np()
        self.unk = unk
        self.wlen = np.asarray(lengths, dtype=np.int64)
        self.off = np.zeros(len(self.wlen) + 1, dtype=np.int64)
        np.cumsum(self.wlen + 1, out=self.off[1:])
        self.first_pos, self.end_pos = self.off[:-1], self.off[1:] - 1
        self.f = np.asarray(counts, dtype=np.float64)
        self.positions = int(self.off[-1])
        self._set(np.asarray(starts, dtype=np.int64), np.asarray(lens, dtype=np.int64),
                  np.asarray(ks, dtype=np.int64))
        self.levels = self._levels()
        self.long = self._long_words()  # the words walked in Python
        self._walks()

    # -- the nodes ------------------------------------------------------------------------------
    # subtle: a node's *level* is one more than the levels of the nodes before it that it needs
    # (forward: those ending where it starts, and those ending where it ends that the per-word
    # loop meets first; backward the same from the right), so the nodes of one level lead to
    # different places and one numpy step takes them all. The first node met at a place is set,
    # not added: a level is two steps. Dropping nodes keeps every level right (a node that
    # becomes first is added to nothing, which gives it back unchanged).

    def _set(self, gs, ln, k, wid=None):
        self.gs, self.ln, self.k = gs, ln, k
        self.ge = gs + ln
        self.wid = self.np.searchsorted(self.off, gs, side="right") - 1 if wid is None else wid

    def _levels(self):
        """Per node: forward level, first met where it ends, backward level, first met where
        it starts; for every word at once, by place then the per-word loop's order there (a
        word over ``LONG`` characters is walked in Python: its nodes get level 0)."""
        np = self.np
        sel = np.flatnonzero(self.wlen[self.wid] <= LONG)
        gs, ge, ln = self.gs[sel], self.ge[sel], self.ln[sel]
        span = int(ln.max(initial=1)) + 2  # lengths are 1 .. span - 2
        rs = gs - self.off[self.wid[sel]]
        longest = span - 1 - ln  # longest first
        fwd = self._level((rs + ln) * span + longest, gs, ge)
        back_key = (rs.max(initial=0) - rs) * span + np.where(self.k[sel] == self.unk, 0, longest)
        out = []
        for part in (*fwd, *self._level(back_key, ge, gs)):
            full = np.zeros(len(self.gs), dtype=part.dtype)
            full[sel] = part
            out.append(full)
        return tuple(out)

    def _level(self, key, src, dst):
        np = self.np
        order = _argsort(np, key)
        keys = key[order]
        cuts = [0, *(np.flatnonzero(keys[1:] != keys[:-1]) + 1).tolist(), len(order)]
        src, dst = src[order], dst[order]
        at = np.zeros(self.positions, dtype=np.int64)
        lev = np.empty(len(key), dtype=np.int64)
        first = np.empty(len(key), dtype=bool)
        for a, b in pairwise(cuts):
            d, o = dst[a:b], order[a:b]
            was = at[d]
            first[o] = was == 0
            lv = np.maximum(at[src[a:b]], was)
            lv += 1
            at[d] = lv
            lev[o] = lv
        return lev, first

    def _long_words(self) -> list:
        """The words walked in Python: those over ``LONG`` characters, and the ones with the
        most levels, as many as the cost model says pay."""
        np = self.np
        top = np.zeros(len(self.wlen), dtype=np.int64)
        np.maximum.at(top, self.wid, np.maximum(self.levels[0], self.levels[2]))
        top[self.wlen > LONG] = top.max(initial=0) + 1
        per_word = np.bincount(self.wid, minlength=len(self.wlen))
        by_top = np.argsort(-top, kind="stable")
        nodes_over = np.cumsum(per_word[by_top])  # nodes in the i+1 words with the most levels
        best_i, best_cost = -1, int(top.max(initial=0)) * STEP_COST
        for i in range(min(len(by_top) - 1, 512)):
            cost = int(top[by_top[i + 1]]) * STEP_COST + int(nodes_over[i]) * NODE_COST
            if cost < best_cost:
                best_i, best_cost = i, cost
        chosen = set(by_top[:best_i + 1].tolist()) | set(np.flatnonzero(self.wlen > LONG).tolist())
        return sorted(chosen)

    def _walks(self):
        """Both walks' orders over the words walked by position, from the levels."""
        np = self.np
        lev_f, first_f, lev_b, first_b = self.levels
        idx = np.flatnonzero(~np.isin(self.wid, np.asarray(self.long, dtype=np.int64)))
        self.fwd, self.bwd = (_steps(np, idx[o], key[o]) for key in (lev_f[idx] * 2 + ~first_f[idx],
                                                                     lev_b[idx] * 2 + ~first_b[idx])
                              for o in (_argsort(np, key),))

    def keep(self, live) -> None:
        """Drop the nodes whose piece no longer lives (``live``: a bool per piece number)."""
        np = self.np
        m = np.asarray(live, dtype=bool)[self.k]
        if m.all():
            return
        new_index = np.cumsum(m) - 1
        self._set(self.gs[m], self.ln[m], self.k[m], self.wid[m])
        self.levels = tuple(a[m] for a in self.levels)
        self.fwd, self.bwd = (_steps(np, new_index[perm[m[perm]]], keys[m[perm]])
                              for perm, keys, _, _ in (self.fwd, self.bwd))

    def rebuild(self, wids, starts, lens, ks) -> None:
        """Replace the nodes of the words ``wids`` (in order) with these: global starts, lengths,
        pieces, each word's in the per-word loop's order."""
        np = self.np
        m = ~np.isin(self.wid, np.asarray(wids, dtype=np.int64))
        gs, starts, lens = self.gs[m], np.asarray(starts, dtype=np.int64), np.asarray(lens, dtype=np.int64)
        at = np.searchsorted(gs, starts)  # a word's nodes go where its old ones were, in order
        if len(wids) * 8 > len(self.wlen):  # many words: every level again, at once
            self._set(np.insert(gs, at, starts), np.insert(self.ln[m], at, lens), np.insert(self.k[m], at, ks))
            self.levels = self._levels()
            self._walks()
            return
        levels = []
        for w in wids:
            o = int(self.off[w])
            a, b = np.searchsorted(starts, self.off[w:w + 2]).tolist()
            levels += word_levels(int(self.wlen[w]), [s - o for s in starts[a:b].tolist()], lens[a:b].tolist())
        new = tuple(zip(*levels)) if levels else ((),) * 4
        self._set(np.insert(gs, at, starts), np.insert(self.ln[m], at, lens), np.insert(self.k[m], at, ks))
        self.levels = tuple(np.insert(old[m], at, np.asarray(x, dtype=old.dtype)) for old, x in zip(self.levels, new))
        self._walks()

    def word_nodes(self, w: int) -> list:
        """Word ``w``'s nodes as ``(start, end, k)``, in its own positions."""
        a, b = self.np.searchsorted(self.gs, self.off[w:w + 2])
        o = int(self.off[w])
        return [(s - o, e - o, k) for s, e, k in zip(self.gs[a:b].tolist(), self.ge[a:b].tolist(),
                                                      self.k[a:b].tolist())]

    def _long_nodes(self, w: int):
        a = int(self.np.searchsorted(self.gs, self.off[w]))
        return a, self.word_nodes(w)

    # -- the walks ------------------------------------------------------------------------------

    def expected(self, score, first: int) -> list[float]:
        """Each piece number's expected count: forward-backward over every word, each node's
        share ``count * exp(alpha + score + beta - z)`` added in node order (an unknown node's to
        ``first``). ``score``: per piece number (``unk`` last)."""
        np = self.np
        sc = np.asarray(score, dtype=np.float64)
        alpha = np.full(self.positions, NEG)
        alpha[self.first_pos] = 0.0
        beta = np.full(self.positions, NEG)
        beta[self.end_pos] = 0.0
        with np.errstate(invalid="ignore", over="ignore"):
            self._sweep(alpha, self.fwd, self.gs, self.ge, sc)
            self._sweep(beta, self.bwd, self.ge, self.gs, sc)
            for w in self.long:
                _, nodes = self._long_nodes(w)
                o, n = int(self.off[w]), int(self.wlen[w])
                alpha[o:o + n + 1], beta[o:o + n + 1] = forward_backward(n, nodes, score)
            z = alpha[self.end_pos]
            x = alpha[self.gs] + sc[self.k] + beta[self.ge] - z[self.wid]
            share = self.f[self.wid] * np.exp(x)
        a = np.where(self.k == self.unk, first, self.k)
        return np.bincount(a, weights=share, minlength=len(sc)).tolist()

    def _sweep(self, acc, steps, src, dst, sc):
        """``acc[dst] = logaddexp(acc[dst], acc[src] + score)`` step by step, cut off at
        exp(-50) as sentencepiece's ``LogSumExp`` (a step of first nodes only sets)."""
        np = self.np
        perm, _, cuts, sets = steps
        src, dst, sc = src[perm], dst[perm], sc[self.k[perm]]
        maximum, minimum, where, log1p, exp = np.maximum, np.minimum, np.where, np.log1p, np.exp
        careful = np.isneginf(sc).any()
        for a, b, first in zip(cuts, cuts[1:], sets):
            d = dst[a:b]
            y = acc[src[a:b]]
            y += sc[a:b]
            if first:
                acc[d] = y
                continue
            x = acc[d]
            hi = maximum(x, y)
            lo = minimum(x, y, out=y)
            far = hi > lo + 50
            if careful:
                far |= lo == NEG
            x = lo - hi
            acc[d] = where(far, hi, hi + log1p(exp(x, out=x), out=x))

    def best_cuts(self, score, exclude=None):
        """Viterbi over every word: each position's best score and the node (index) that ends
        its best cut; the first strictly better candidate wins, in node order. A position's first
        candidate always counts (when a score is -inf, as the careful per-word loop).
        ``exclude``: a bool per node, the nodes to leave out."""
        np = self.np
        sc = np.asarray(score, dtype=np.float64)
        best = np.full(self.positions, NEG)
        best[self.first_pos] = 0.0
        back = np.zeros(self.positions, dtype=np.int64)
        seen = np.zeros(self.positions, dtype=bool) if exclude is not None or np.isneginf(sc).any() else None
        perm, _, cuts, sets = self.fwd
        gs, ge, scp = self.gs[perm], self.ge[perm], sc[self.k[perm]]
        ok = None if exclude is None else ~exclude[perm]
        for a, b, first in zip(cuts, cuts[1:], sets):
            d, at = ge[a:b], perm[a:b]
            cand = best[gs[a:b]]
            cand += scp[a:b]
            if ok is not None:
                o = ok[a:b]
                d, at, cand = d[o], at[o], cand[o]
            if first:
                best[d] = cand
                back[d] = at
                if seen is not None:
                    seen[d] = True
                continue
            win = cand > best[d]
            if seen is not None:
                win |= ~seen[d]
                seen[d] = True
            d = d[win]
            best[d] = cand[win]
            back[d] = at[win]
        for w in self.long:
            at, nodes = self._long_nodes(w)
            o, n = int(self.off[w]), int(self.wlen[w])
            skip = () if exclude is None else set(np.flatnonzero(exclude[at:at + len(nodes)]).tolist())
            b_w, k_w = viterbi_table(n, nodes, score, seen is not None, skip)
            best[o:o + n + 1] = b_w
            back[o + 1:o + n + 1] = [at + j for j in k_w[1:]]
        return best, back

    def loss(self, score) -> float:
        """``sum(count * -best score)`` over the words, in word order."""
        best, _ = self.best_cuts(score)
        total = 0.0
        for x in (self.f * best[self.end_pos]).tolist():
            total -= x
        return total

    def freq(self, score, first: int) -> list[float]:
        """How often each piece number is on a word's best cut, weighted by the word's count
        (whole numbers, so the order of the sums does not matter)."""
        np = self.np
        _, back = self.best_cuts(score)
        cur, words = self.end_pos, np.arange(len(self.wlen))
        live = self.wlen > 0
        cur, words = cur[live], words[live]
        hits, weights = [], []
        while len(cur):
            j = back[cur]
            hits.append(j)
            weights.append(self.f[words])
            cur = self.gs[j]
            more = cur > self.off[words]
            cur, words = cur[more], words[more]
        j = np.concatenate(hits) if hits else np.zeros(0, dtype=np.int64)
        a = np.where(self.k[j] == self.unk, first, self.k[j])
        w = np.concatenate(weights) if weights else np.zeros(0)
        return np.bincount(a, weights=w, minlength=len(score)).tolist()


def _log_add(x: float, y: float) -> float:
    """sentencepiece's ``LogSumExp`` of two log values (``x`` the running one)."""
    if x == NEG:
        return y
    if x < y:
        x, y = y, x
    return x if y == NEG or x > y + 50 else x + math.log1p(math.exp(y - x))


def forward_backward(n: int, nodes, score):
    """One word's ``alpha`` and ``beta`` (``n + 1`` positions each), node by node in Python;
    ``nodes``: ``(start, end, k)`` in node order."""
    alpha = [NEG] * (n + 1)
    alpha[0] = 0.0
    for s, e, k in nodes:
        alpha[e] = _log_add(alpha[e], alpha[s] + score[k])
    beta = [NEG] * (n + 1)
    beta[n] = 0.0
    for s, e, k in reversed(nodes):
        beta[s] = _log_add(beta[s], score[k] + beta[e])
    return alpha, beta


def viterbi_table(n: int, nodes, score, careful: bool, skip=()):
    """One word's Viterbi in Python: best score per position and the index (in ``nodes``) of
    the node ending each position's best cut; ``careful``: a position's first candidate always
    counts (a score may be -inf); ``skip``: indexes of nodes to leave out."""
    best = [NEG] * (n + 1)
    back = [0] * (n + 1)
    seen = [False] * (n + 1)
    best[0] = 0.0
    for j, (s, e, k) in enumerate(nodes):
        if j in skip:
            continue
        cand = best[s] + score[k]
        if cand > best[e] or (careful and not seen[e]):
            best[e], back[e] = cand, j
            seen[e] = True
    return best, back


def word_levels(n: int, starts, lens) -> list:
    """One word's nodes' levels (see :class:`FlatLattices`), in Python: per node (forward level,
    first where it ends, backward level, first where it starts); the nodes' starts and lengths
    in the per-word loop's order."""
    at = [0] * (n + 1)
    fwd = []
    for s, ln in zip(starts, lens):  # by start: whatever ends at s came before
        e = s + ln
        lv = max(at[s], at[e]) + 1
        fwd.append((lv, at[e] == 0))
        at[e] = lv
    at = [0] * (n + 1)
    bwd = []
    for s, ln in zip(reversed(starts), reversed(lens)):
        lv = max(at[s + ln], at[s]) + 1
        bwd.append((lv, at[s] == 0))
        at[s] = lv
    bwd.reverse()
    return [(lf, ff, lb, fb) for (lf, ff), (lb, fb) in zip(fwd, bwd)]



def find_nodes(words, pieces, live, unk: int, offsets=None):
    """Every word's nodes at once, in the per-word loops' order: ``(start, length, k)`` as three
    arrays, for every live piece (``live[k]``) found in a word, and an unknown node (``unk``)
    where no live piece covers a character alone. A start is ``offsets[i] + s`` for the ``i``-th
    word (default: one word after another, each followed by one place, as
    :class:`FlatLattices` lays them out). ``None`` when two pieces' hashes collide (then build
    in Python).

    Each substring of length ``l`` is hashed from the one of length ``l - 1``, looked up among
    the pieces' hashes and then compared character by character, so a hash collision with the
    text never makes a node.

    Example::

        >>> s, n, k = find_nodes(["▁ab", "▁a"], ["▁", "a", "▁a", "x"], [True, True, True, False], 4)
        >>> list(zip(s.tolist(), n.tolist(), k.tolist()))  # "b" is unknown; "▁a" starts at 4
        [(0, 1, 0), (0, 2, 2), (1, 1, 1), (2, 1, 4), (4, 1, 0), (4, 2, 2), (5, 1, 1)]
    """
    np = _np()
    lengths = np.asarray([len(w) for w in words], dtype=np.int64)
    off = np.zeros(len(words) + 1, dtype=np.int64)
    np.cumsum(lengths + 1, out=off[1:])
    codes = text_codes(np, "\0".join(words) + "\0")
    word_of = np.repeat(np.arange(len(words)), lengths + 1)
    room = off[1:][word_of] - 1 - np.arange(len(codes))  # characters from here to the word's end
    ks = [k for k, p in enumerate(pieces) if live[k]]
    plen = np.asarray([len(pieces[k]) for k in ks], dtype=np.int64)
    top = int(plen.max(initial=1))
    table = np.zeros((len(ks), top), dtype=np.uint64)  # each piece's characters
    flat = text_codes(np, "".join(pieces[k] for k in ks))
    table[np.repeat(np.arange(len(ks)), plen), np.arange(len(flat)) - np.repeat(np.cumsum(plen) - plen, plen)] = flat
    ks = np.asarray(ks, dtype=np.int64)
    base = np.uint64(HASH_BASE)
    ph = np.zeros(len(ks), dtype=np.uint64)
    h = np.zeros(len(codes), dtype=np.uint64)
    found = []
    with np.errstate(over="ignore"):
        for ln in range(1, top + 1):
            grows = plen >= ln
            ph[grows] = ph[grows] * base + table[grows, ln - 1]
            h[:len(codes) - ln + 1] = h[:len(codes) - ln + 1] * base + codes[ln - 1:]
            mine = np.flatnonzero(plen == ln)
            if not len(mine):
                continue
            order = np.argsort(ph[mine])
            hashes, mine = ph[mine][order], mine[order]
            if (hashes[1:] == hashes[:-1]).any():
                return None
            at = np.flatnonzero(room >= ln)
            j = np.minimum(np.searchsorted(hashes, h[at]), len(hashes) - 1)
            hit = hashes[j] == h[at]
            at, j = at[hit], mine[j[hit]]
            same = np.ones(len(at), dtype=bool)
            for c in range(ln):
                same &= codes[at + c] == table[j, c]
            found.append((at[same], ln, ks[j[same]]))
    single = np.zeros(len(codes), dtype=bool)
    for at, ln, _ in found:
        if ln == 1:
            single[at] = True
    lone = np.flatnonzero(~single & (room > 0))
    span = top + 2
    key = np.concatenate([at * span + ln for at, ln, _ in found] + [lone * span + span - 1])
    k = np.concatenate([k for _, _, k in found] + [np.full(len(lone), unk, dtype=np.int64)])
    order = np.argsort(key, kind="stable")
    key, k = key[order], k[order]
    at, ln = key // span, key % span
    ln[ln == span - 1] = 1
    if offsets is not None:
        w = word_of[at]
        at = np.asarray(offsets, dtype=np.int64)[w] + (at - off[w])
    return at, ln, k


def text_codes(np, text: str):
    """The code points of ``text`` as an array (a lone surrogate as itself)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.uint64)
