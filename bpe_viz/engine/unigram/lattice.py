"""Unigram's lattice: every way to cut a word into pieces, and the best (Viterbi) cut.

This file only answers "how is this word cut, given these piece scores": the trace
(:mod:`.trace`) asks it to segment and encode, the two trainers (:mod:`.course`,
:mod:`.sentencepiece`) ask it to score the corpus. Nothing here trains or keeps rounds.

* :func:`best_cut`: the exact, readable Viterbi both flavours' encoders agree with (64-bit sums);
* :func:`course_cut`: the Hugging Face course's ``encode_word`` (lowest ``-log p`` wins);
* :class:`SPModel` and :func:`sp_two_best`: the lattice sentencepiece's trainer builds (nodes,
  Viterbi, the two best cuts), one word at a time, readable;
* :class:`SPCorpus`: the trainer's whole corpus under one model, walked over every word at once
  by :mod:`.flat_lattice` (numpy), with the same sums in the same order.

SentencePiece's encoder (32-bit sums, a line at once, each word's cut cached) is
:mod:`.sp_encoder`.

Example::

    >>> scores = {"h": -3.0, "u": -3.0, "g": -3.0, "hu": -2.5, "ug": -2.5, "hug": -6.0}
    >>> best_cut("hug", scores.get, 3)  # h+ug and hu+g both score -5.5: the first found is kept
    (('h', 'ug'), -5.5, True)
"""

from __future__ import annotations

from collections.abc import Sequence

from ..text.scripts import f32
from .flat_lattice import FlatLattices, find_nodes

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


class SPCorpus:
    """The trainer's corpus: each ``▁``-word's count and its lattice under the current
    :class:`SPModel`, kept from model to model, and the walks over every lattice:
    forward-backward (:meth:`expected`) and Viterbi (:meth:`loss`, :meth:`freq`), run over every
    word at once by :class:`~.flat_lattice.FlatLattices` (numpy).

    A node is ``(start, end, k)``: ``k`` the piece's fixed number (its place among every piece
    this corpus has seen; ``len(self.pieces)`` for an unknown character), whose score the
    current model gives; an unknown character's counts go to the model's first piece, as the
    C++ trainer's, whose model has no unknown id. Training only removes pieces, so a new model's
    lattice is the old one without the removed pieces' nodes; a word holding a character that no
    piece covers any more (or again) is built afresh. The sums run in the order
    :meth:`SPModel.viterbi` and the C++ add them.

    Example::

        >>> c = SPCorpus([("▁ab", 2), ("▁a", 1)], SPModel([("▁", -1.0), ("a", -2.0), ("▁a", -2.5)]))
        >>> c.loss(), c.freq()
        (32.5, [2.0, 0.0, 3.0])
        >>> c.piece_cuts()  # "▁a" beats "▁" + "a" (-3.0), its runner-up: what sp_two_best says
        ([False, False, False], [None, None, [0, 1]], [-inf, -inf, -3.0])
        >>> [[nd[2] for nd in cut] for cut in sp_two_best("▁a", c.model)]
        [[2], [0, 1]]
        >>> c.update(SPModel([("▁a", -1.0), ("a", -2.0)]))  # "▁" and "b" are unknown now
        >>> c.word_nodes(0), [round(x, 3) for x in c.expected()]  # their counts go to the first piece
        ([(0, 2, 2), (0, 1, 3), (1, 2, 1), (2, 3, 3)], [5.0, 0.0])
    """

    def __init__(self, corpus, model: SPModel):
        self.words = [w for w, _ in corpus]
        self.counts = [f for _, f in corpus]
        self.chars = set().union(*self.words)
        self.base = [0]  # where each word's positions start (one more than its length apart)
        for w in self.words:
            self.base.append(self.base[-1] + len(w) + 1)
        self.pieces: list[str] = []  # k -> piece
        self.number: dict = {}  # piece -> k
        self.trie: dict = {}  # the pieces seen: a character -> [its k (-1: no piece ends here), what may follow]
        self.live: list = []
        self.missing: set = set()
        self.first = -1  # k of the model's first piece (where unknown characters count)
        self.flat = None  # every word's nodes (FlatLattices)
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
        back = [k for k in order if k < len(self.live) and not self.live[k]]
        dead = any(was and not live[k] for k, was in enumerate(self.live))
        # words whose unknown nodes come or go are built afresh (where they count is read per walk)
        touched = (missing ^ self.missing) | {self.pieces[k] for k in back}
        self.model, self.live, self.score, self.order = model, live, score, order
        self.position = {k: i for i, k in enumerate(order)}
        self.missing, self.first = missing, order[0] if order else unk
        if grew or any(len(self.pieces[k]) > 1 for k in back) or self.flat is None:
            everything = self._build_words(range(len(self.words)))
            self.flat = FlatLattices([len(w) for w in self.words], self.counts, *everything, unk=unk)
            return
        if dead:
            self.flat.keep(live)
        if touched:
            wids = [i for i, w in enumerate(self.words) if not touched.isdisjoint(w)]
            if wids:
                self.flat.rebuild(wids, *self._build_words(wids))

    def _build_words(self, wids):
        """The nodes of the words ``wids`` (in order) as global start, length, piece number (a
        word's positions start where :class:`~.flat_lattice.FlatLattices` puts them)."""
        return self._nodes_of([self.words[i] for i in wids], [self.base[i] for i in wids])

    def _nodes_of(self, strings, offsets=None):
        """The nodes of these strings under the current model (start, length, piece number; a
        string's starts from its offset, default one after another, one place apart): many
        strings at once in numpy, a few in Python."""
        if offsets is None:
            offsets = [0]
            for w in strings[:-1]:
                offsets.append(offsets[-1] + len(w) + 1)
        if len(strings) > 64:
            got = find_nodes(strings, self.pieces, self.live, len(self.pieces), offsets)
            if got is not None:
                return got
        starts, lens, ks = [], [], []
        for w, base in zip(strings, offsets):
            self._build(w, base, starts.append, lens.append, ks.append)
        return starts, lens, ks

    def _build(self, word: str, base: int, put_start, put_len, put_k) -> None:
        """``word``'s nodes under the current model, by start then length (a start's unknown node
        last), given to the three ``put_`` functions; ``base``: where the word's positions start."""
        get, live = self.trie.get, self.live
        unk = len(self.pieces)
        n = len(word)
        for s in range(n):
            at = base + s
            hit = get(word[s])
            if hit is None:
                put_start(at), put_len(1), put_k(unk)
                continue
            k, t = hit
            single = k >= 0 and live[k]
            if single:
                put_start(at), put_len(1), put_k(k)
            e = s + 1
            while e < n:  # the longer pieces starting at s, shortest first
                hit = t.get(word[e])
                if hit is None:
                    break
                e += 1
                k, t = hit
                if k >= 0 and live[k]:
                    put_start(at), put_len(e - s), put_k(k)
            if not single:
                put_start(at), put_len(1), put_k(unk)

    def word_nodes(self, i: int) -> list:
        """The ``i``-th word's lattice as kept: ``(start, end, k)``, by start then length."""
        return self.flat.word_nodes(i)

    def piece_cuts(self):
        """Each model piece's own lattice (``Lattice::NBest(2)`` on the piece's string), in the
        model's order: ``(splits, alternative, alternative_score)`` lists. ``splits``: the
        piece's best cut is not the piece itself; ``alternative``: when it is, the model indexes
        along the best cut without it (``None`` for a character: it has no other cut);
        ``alternative_score``: that cut's score (-inf: there is none).

        subtle: ``NBest(2)`` keeps two candidates per place, the first of equals first; when the
        piece itself wins, the runner-up at the end is the first best cut without it, which is
        Viterbi with the piece's own node left out (the same sums, in the same order)."""
        pieces = [p for p, _ in self.model.pieces]
        flat = FlatLattices([len(p) for p in pieces], [1] * len(pieces), *self._nodes_of(pieces), unk=len(self.pieces))
        whole = flat.ln == flat.wlen[flat.wid]
        _, back = flat.best_cuts(self.score)
        splits = (~whole[back[flat.end_pos]]).tolist()
        best, back = flat.best_cuts(self.score, exclude=whole)
        alt_score = best[flat.end_pos].tolist()
        back, gs, ks, starts = back.tolist(), flat.gs.tolist(), flat.k.tolist(), flat.first_pos.tolist()
        at, unk, first = self.position, len(self.pieces), self.first
        alternative = []
        for p, split, e, start in zip(pieces, splits, flat.end_pos.tolist(), starts):
            if split or len(p) == 1:
                alternative.append(None)
                continue
            path = []
            while e > start:
                j = back[e]
                path.append(at[first if ks[j] == unk else ks[j]])
                e = gs[j]
            path.reverse()
            alternative.append(path)
        return splits, alternative, alt_score

    def _by_model(self, acc) -> list[float]:
        return [acc[k] for k in self.order]

    def expected(self) -> list[float]:
        """Each piece's expected count (forward-backward over every word, weighted by its count),
        in the model's order."""
        return self._by_model(self.flat.expected(self.score, self.first))

    def loss(self) -> float:
        """``sum(count * -best score)`` over the words."""
        return self.flat.loss(self.score)

    def freq(self) -> list[float]:
        """How often each piece is on a word's best cut (weighted by the word's count), in the
        model's order."""
        return self._by_model(self.flat.freq(self.score, self.first))


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
