"""Unigram's lattice: every way to cut a word into pieces, and the best (Viterbi) cut.

This file only answers "how is this word cut, given these piece scores": the trace
(:mod:`.trace`) asks it to segment and encode, the two trainers (:mod:`.course`,
:mod:`.sentencepiece`) ask it to score the corpus. Nothing here trains or keeps rounds.

* :func:`best_cut`: the exact, readable Viterbi both flavours' encoders agree with (64-bit sums);
* :func:`course_cut`: the Hugging Face course's ``encode_word`` (lowest ``-log p`` wins);
* :class:`SPModel` and :func:`sp_two_best`: the lattice sentencepiece's trainer builds (nodes,
  Viterbi, the two best cuts).

SentencePiece's encoder (32-bit sums, a line at once, each word's cut cached) is
:mod:`.sp_encoder`.

Example::

    >>> scores = {"h": -3.0, "u": -3.0, "g": -3.0, "hu": -2.5, "ug": -2.5, "hug": -6.0}
    >>> best_cut("hug", scores.get, 3)  # h+ug and hu+g both score -5.5: the first found is kept
    (('h', 'ug'), -5.5, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import compress
from operator import itemgetter

from ..text.scripts import f32

__all__ = ["UNK_PENALTY", "best_cut", "course_cut", "SPModel", "SPCorpus", "sp_two_best", "PrefixCuts"]

UNK_PENALTY = 10.0  # an unknown character scores the lowest piece's score minus this


def best_cut(word: str, score_of, maxlen: int, start: float = 0.0, unk=None, exclude=None,
             table: list | None = None):
    """The best segmentation of ``word``: ``(pieces, score, tied)``, maximizing the sum of scores.

    ``score_of``: piece -> score (``dict.get``); ``unk``: the score of an unknown character where
    no single-character piece exists (``None``: such a word has no segmentation, ``(None, None,
    False)``); ``exclude``: a piece to leave out. Candidates are met by start position, shorter
    first, and the first strictly better one wins, as both sources' loops do; ``tied`` says a
    later candidate equalled the winner somewhere on the path. ``table`` (a list) receives, for
    each prefix, ``(best score, start of its last piece, tied)``.
    """
    n = len(word)
    best = [None] * (n + 1)
    back = [0] * (n + 1)
    tie = [False] * (n + 1)
    best[0] = start
    for s in range(n):
        base = best[s]
        if base is None:
            continue
        single = False
        for e in range(s + 1, min(n, s + maxlen) + 1):
            p = word[s:e]
            if p == exclude:
                continue
            sc = score_of(p)
            if sc is None:
                continue
            if e == s + 1:
                single = True
            cand = base + sc
            cur = best[e]
            if cur is None or cand > cur:
                best[e], back[e], tie[e] = cand, s, False
            elif cand == cur:
                tie[e] = True
        if not single and unk is not None:
            cand = base + unk
            cur = best[s + 1]
            if cur is None or cand > cur:
                best[s + 1], back[s + 1], tie[s + 1] = cand, s, False
            elif cand == cur:
                tie[s + 1] = True
    if table is not None:
        table.extend(zip(best[1:], back[1:], tie[1:]))
    if best[n] is None:
        return None, None, False
    pieces, e, tied = [], n, False
    while e > 0:
        s = back[e]
        tied = tied or tie[e]
        pieces.append(word[s:e])
        e = s
    pieces.reverse()
    return tuple(pieces), best[n], tied


class PrefixCuts(Sequence):
    """Viterbi's table read as rows ``(prefix, best cut, log-probability, tied)``, one per
    prefix of ``word``, each built when asked for by following the table's back-pointers.

    Viterbi's best cut of a prefix is the cut its own run would find (every candidate ending
    inside the prefix is met in the same order), so one table answers for every prefix: the
    table is linear in the word's length, and reading a row costs that row's length. ``table``:
    per prefix, ``(best score or None, start of its last piece, tied, ...)``; ``sign`` turns a score
    into a log-probability (-1 for the course's ``-log p`` sums); ``piece(start, end)`` names
    a piece (default: the word's characters there).

    Example::

        >>> table = []
        >>> best_cut("hug", {"h": -3.0, "u": -3.0, "g": -3.0, "ug": -2.5}.get, 2, table=table)[0]
        ('h', 'ug')
        >>> rows = PrefixCuts("hug", table)
        >>> len(rows), rows[1], rows[-1]
        (3, ('hu', ('h', 'u'), -6.0, False), ('hug', ('h', 'ug'), -5.5, False))
    """

    __slots__ = ("word", "table", "sign", "piece")

    def __init__(self, word: str, table: list, sign: float = 1.0, piece=None):
        self.word, self.table, self.sign = word, table, sign
        self.piece = piece if piece is not None else (lambda a, b: word[a:b])

    def __len__(self) -> int:
        return len(self.table)

    def cut(self, end: int) -> tuple | None:
        """The best cut of ``word[:end]`` (None when it has none)."""
        table, piece = self.table, self.piece
        if end == 0 or table[end - 1][0] is None:
            return None
        out, e = [], end
        while e > 0:
            s = table[e - 1][1]
            out.append(piece(s, e))
            e = s
        out.reverse()
        return tuple(out)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        n = len(self.table)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"prefix row {i} is out of range (the word has {n} characters)")
        best, _, tie = self.table[i][:3]
        if best is None:
            return (self.word[:i + 1], None, None, False)
        return (self.word[:i + 1], self.cut(i + 1), self.sign * best, bool(tie))

    def __eq__(self, other):
        if isinstance(other, (PrefixCuts, tuple, list)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __hash__(self):
        return hash(tuple(self))

    def __repr__(self):
        return f"PrefixCuts({self.word!r}, {len(self)} prefixes)"


def course_cut(word, neg, maxlen, start, exclude=None, table=None):
    """The course's ``encode_word``: scores are ``-log p`` and the lowest sum wins, the first found
    among equals kept. That is :func:`best_cut` on the negated scores (IEEE negation is exact,
    so every sum and comparison is the course's). Returns (pieces, score, tied).

    Example::

        >>> course_cut("hug", {"h": 3.0, "u": 3.0, "g": 3.0, "ug": 2.5}, 2, 0.0)
        (('h', 'ug'), 5.5, False)
    """
    get = neg.get

    def score_of(p):
        sc = get(p)
        return None if sc is None else -sc

    inner = [] if table is not None else None
    pieces, score, tied = best_cut(word, score_of, maxlen, -start, exclude=exclude, table=inner)
    if table is not None:
        table.extend((None if b is None else -b, back, tie) for b, back, tie in inner)
    return pieces, (None if score is None else -score), tied


class SPModel:
    """The trainer's model: pieces in order with their (32-bit) scores. An unknown character is
    a node of id 0 (the trainer's model never sets its unknown id) scoring min - 10.

    Example::

        >>> m = SPModel([("▁", -1.0), ("a", -2.0), ("▁a", -2.5)])
        >>> m.nodes("▁ab")
        [(0, 1, 0, -1.0), (0, 2, 2, -2.5), (1, 2, 1, -2.0), (2, 3, 0, -12.5)]
        >>> m.viterbi("▁a")
        ([(0, 2, 2, -2.5)], -2.5)
    """

    def __init__(self, pieces: list[tuple[str, float]]):
        self.pieces = pieces
        self.index = {p: (i, s) for i, (p, s) in enumerate(pieces)}
        self.maxlen = max((len(p) for p, _ in pieces), default=1)
        self.unk = f32(min((s for _, s in pieces), default=0.0) - UNK_PENALTY)

    def nodes(self, word):
        """Lattice nodes (start, end, index, score), by start then length."""
        out = []
        get = self.index.get
        n = len(word)
        for s in range(n):
            single = False
            for e in range(s + 1, min(n, s + self.maxlen) + 1):
                hit = get(word[s:e])
                if hit is not None:
                    out.append((s, e, hit[0], hit[1]))
                    if e == s + 1:
                        single = True
            if not single:
                out.append((s, s + 1, 0, self.unk))
        return out

    def viterbi(self, word, nodes=None):
        """Best path as a list of node indexes into the model, and its score."""
        nodes = self.nodes(word) if nodes is None else nodes
        n = len(word)
        best = [None] * (n + 1)
        back = [None] * (n + 1)
        best[0] = 0.0
        for node in nodes:
            s, e, _, sc = node
            base = best[s]
            if base is None:
                continue
            cand = base + sc
            if best[e] is None or cand > best[e]:
                best[e], back[e] = cand, node
        path, e = [], n
        while e > 0:
            node = back[e]
            path.append(node)
            e = node[0]
        path.reverse()
        return path, best[n]


_THIRD = itemgetter(2)


class SPCorpus:
    """The trainer's corpus: each ``▁``-word's count and its lattice under the current
    :class:`SPModel`, kept from model to model, and the walks over every lattice:
    forward-backward (:meth:`expected`) and Viterbi (:meth:`loss`, :meth:`freq`).

    A node is ``(start, end, k, a)``: ``k`` the piece's fixed number (its place among every
    piece this corpus has seen; ``len(self.pieces)`` for an unknown character), whose score the
    current model gives; ``a`` the number its counts go to (an unknown character's go to the
    model's first piece, as the C++ trainer's, whose model has no unknown id). Training only
    removes pieces, so a new model's lattice is the old one without the removed pieces' nodes;
    a word holding a character that no piece covers any more (or again) is built afresh. The
    sums run in the order :meth:`SPModel.viterbi` and the C++ add them.

    Example::

        >>> c = SPCorpus([("▁ab", 2), ("▁a", 1)], SPModel([("▁", -1.0), ("a", -2.0), ("▁a", -2.5)]))
        >>> c.loss(), c.freq()
        (32.5, [2.0, 0.0, 3.0])
        >>> c.update(SPModel([("▁a", -1.0), ("a", -2.0)]))  # "▁" and "b" are unknown now
        >>> c.nodes[0], [round(x, 3) for x in c.expected()]  # their counts go to the first piece
        ([(0, 2, 2, 2), (0, 1, 3, 2), (1, 2, 1, 1), (2, 3, 3, 2)], [5.0, 0.0])
    """

    def __init__(self, corpus, model: SPModel):
        self.words = [w for w, _ in corpus]
        self.counts = [f for _, f in corpus]
        self.chars = set().union(*self.words)
        self.pieces: list[str] = []  # k -> piece
        self.number: dict = {}  # piece -> k
        self.trie: dict = {}  # the pieces seen: a character -> [its k (-1: no piece ends here), what may follow]
        self.live: list = []
        self.missing: set = set()
        self.first = -1  # k of the model's first piece (where unknown characters count)
        self.nodes: list = []
        self.piece_nodes: dict = {}  # a piece -> its nodes, no unknown ones, as last built
        self.update(model)

    def _learn(self, pieces) -> bool:
        """Number the pieces never seen before; True when there were some."""
        new = [p for p in pieces if p not in self.number]
        for p in new:
            self.number[p] = len(self.pieces)
            t, hit = self.trie, None
            for c in p:
                hit = t.get(c)
                if hit is None:
                    hit = t[c] = [-1, {}]
                t = hit[1]
            if hit is not None:
                hit[0] = len(self.pieces)
            self.pieces.append(p)
        return bool(new)

    def update(self, model: SPModel) -> None:
        """Move every lattice to ``model``."""
        grew = self._learn([p for p, _ in model.pieces])
        unk = len(self.pieces)
        order = [self.number[p] for p, _ in model.pieces]
        live = [False] * (unk + 1)
        score = [0.0] * (unk + 1)
        for k, (_, sc) in zip(order, model.pieces):
            live[k], score[k] = True, sc
        live[unk], score[unk] = True, model.unk
        number = self.number
        missing = {c for c in self.chars if c not in number or not live[number[c]]}
        first = order[0] if order else unk
        back = [k for k in order if k < len(self.live) and not self.live[k]]
        dead = [k for k, was in enumerate(self.live) if was and not live[k]]
        # words whose unknown nodes move or change where they count are built afresh
        touched = missing ^ self.missing if first == self.first else missing | self.missing
        touched |= {self.pieces[k] for k in back}
        self.model, self.live, self.score, self.order = model, live, score, order
        self.position = {k: i for i, k in enumerate(order)}
        self.missing, self.first = missing, first
        if grew or back:  # a piece's lattice kept is one without the pieces gone since
            self.piece_nodes.clear()
        if grew or any(len(self.pieces[k]) > 1 for k in back) or not self.nodes:
            self.nodes = [self._build(w) for w in self.words]
            return
        if not touched and not dead:
            return
        out = []
        for w, nodes in zip(self.words, self.nodes):
            if touched and not touched.isdisjoint(w):
                out.append(self._build(w))
            elif dead:
                out.append(list(compress(nodes, map(live.__getitem__, map(_THIRD, nodes)))))
            else:
                out.append(nodes)
        self.nodes = out

    def _build(self, word: str) -> list:
        """``word``'s nodes under the current model, by start then length."""
        out = []
        get, live = self.trie.get, self.live
        unk, first = len(self.pieces), self.first
        n = len(word)
        for s in range(n):
            hit = get(word[s])
            if hit is None:
                out.append((s, s + 1, unk, first))
                continue
            k, t = hit
            single = k >= 0 and live[k]
            if single:
                out.append((s, s + 1, k, k))
            e = s + 1
            while e < n:  # the longer pieces starting at s, shortest first
                hit = t.get(word[e])
                if hit is None:
                    break
                e += 1
                k, t = hit
                if k >= 0 and live[k]:
                    out.append((s, e, k, k))
            if not single:
                out.append((s, s + 1, unk, first))
        return out

    def model_nodes(self, word: str) -> list:
        """``word``'s lattice as :meth:`SPModel.nodes` gives it: ``(start, end, index in the
        model, score)``. A piece's own lattice is kept (the trainer asks for it every round)."""
        score, at, live = self.score, self.position, self.live
        if not self.missing.isdisjoint(word):  # unknown nodes
            return [(s, e, at[a], score[k]) for s, e, k, a in self._build(word)]
        kept = self.piece_nodes.get(word)
        kept = self.piece_nodes[word] = self._build(word) if kept is None else [nd for nd in kept if live[nd[2]]]
        return [(s, e, at[k], score[k]) for s, e, k, _ in kept]

    def _by_model(self, acc) -> list[float]:
        return [acc[k] for k in self.order]

    def expected(self) -> list[float]:
        """Each piece's expected count (forward-backward over every word, weighted by its count),
        in the model's order."""
        acc = [0.0] * len(self.score)
        score = self.score
        log1p, exp, neg = math.log1p, math.exp, -math.inf
        for w, f, nodes in zip(self.words, self.counts, self.nodes):
            n = len(w)
            alpha = [neg] * (n + 1)
            alpha[0] = 0.0
            for s, e, k, _ in nodes:  # logaddexp, cut off at exp(-50) as sentencepiece does
                x, y = alpha[e], alpha[s] + score[k]
                if x == neg:  # the first path to e
                    alpha[e] = y
                    continue
                if x < y:
                    x, y = y, x
                alpha[e] = x if y == neg or x > y + 50 else x + log1p(exp(y - x))
            beta = [neg] * (n + 1)
            beta[n] = 0.0
            for s, e, k, _ in reversed(nodes):
                x, y = beta[s], score[k] + beta[e]
                if x == neg:
                    beta[s] = y
                    continue
                if x < y:
                    x, y = y, x
                beta[s] = x if y == neg or x > y + 50 else x + log1p(exp(y - x))
            z = alpha[n]
            for s, e, k, a in nodes:
                acc[a] += f * exp(alpha[s] + score[k] + beta[e] - z)
        return self._by_model(acc)

    def _best_cuts(self):
        """Viterbi over every word: (count, nodes, best score per position, the node that ends
        each position's best cut). Every position is reached (a character no piece covers is an
        unknown node), so a start's best score is always there."""
        score = self.score
        if -math.inf in score:  # a score of -inf (every expected count fell below 0.5)
            yield from self._best_cuts_careful()
            return
        neg = -math.inf
        for w, f, nodes in zip(self.words, self.counts, self.nodes):
            best = [neg] * (len(w) + 1)
            back = [0] * (len(w) + 1)
            best[0] = 0.0
            for j, (s, e, k, _) in enumerate(nodes):
                cand = best[s] + score[k]
                if cand > best[e]:
                    best[e], back[e] = cand, j
            yield f, nodes, best, back

    def _best_cuts_careful(self):
        """:meth:`_best_cuts` where a sum may be -inf: a position's first candidate always counts."""
        score = self.score
        for w, f, nodes in zip(self.words, self.counts, self.nodes):
            n = len(w)
            best = [None] * (n + 1)
            back = [0] * (n + 1)
            best[0] = 0.0
            for j, (s, e, k, _) in enumerate(nodes):
                base = best[s]
                if base is None:
                    continue
                cand = base + score[k]
                cur = best[e]
                if cur is None or cand > cur:
                    best[e], back[e] = cand, j
            yield f, nodes, best, back

    def loss(self) -> float:
        """``sum(count * -best score)`` over the words."""
        total = 0.0
        for f, _, best, _ in self._best_cuts():
            total -= f * best[-1]
        return total

    def freq(self) -> list[float]:
        """How often each piece is on a word's best cut (weighted by the word's count), in the
        model's order."""
        acc = [0.0] * len(self.score)
        for f, nodes, best, back in self._best_cuts():
            n = len(best) - 1
            while n > 0:
                node = nodes[back[n]]
                acc[node[3]] += f
                n = node[0]
        return self._by_model(acc)


def sp_two_best(word, model, nodes=None):
    """The best and second-best segmentations of a piece's own string (``Lattice::NBest(2)``),
    as lists of nodes; one entry when only one segmentation exists. ``nodes``: the piece's
    lattice when already built (default: ``model.nodes(word)``)."""
    nodes = model.nodes(word) if nodes is None else nodes
    n = len(word)
    tops: list = [[] for _ in range(n + 1)]  # per end position: up to 2 (score, node, previous entry), best first
    tops[0] = [(0.0, None, None)]
    for node in nodes:
        s, e, _, sc = node
        cur = tops[e]
        for entry in tops[s]:
            cand = (entry[0] + sc, node, entry)
            if len(cur) < 2:
                cur.append(cand)
            elif cand[0] > cur[1][0]:
                cur[1] = cand
            else:
                continue
            if len(cur) == 2 and cur[1][0] > cur[0][0]:  # a stable sort, best first
                cur[0], cur[1] = cur[1], cur[0]
    out = []
    for entry in tops[n][:2]:
        path = []
        while entry[1] is not None:
            path.append(entry[1])
            entry = entry[2]
        path.reverse()
        out.append(path)
    return out
