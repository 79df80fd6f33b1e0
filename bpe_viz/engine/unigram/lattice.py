"""Unigram's lattice: every way to cut a word into pieces, and the best (Viterbi) cut.

This file only answers "how is this word cut, given these piece scores": the trace
(:mod:`.trace`) asks it to segment and encode, the two trainers (:mod:`.course`,
:mod:`.sentencepiece`) ask it to score the corpus. Nothing here trains or keeps rounds.

* :func:`best_cut`: the exact, readable Viterbi both flavours' encoders agree with (64-bit sums);
* :func:`course_cut`: the Hugging Face course's ``encode_word`` (lowest ``-log p`` wins);
* :func:`sp_encode_word`: SentencePiece's encoder (32-bit sums, runs of unknowns as one piece);
* :class:`SPModel` and :func:`sp_two_best`: the lattice sentencepiece's trainer builds (nodes,
  Viterbi, the two best cuts).

Example::

    >>> scores = {"h": -3.0, "u": -3.0, "g": -3.0, "hu": -2.5, "ug": -2.5, "hug": -6.0}
    >>> best_cut("hug", scores.get, 3)  # h+ug and hu+g both score -5.5: the first found is kept
    (('h', 'ug'), -5.5, True)
    >>> sp_encode_word("hugz", scores, 3, -13.0)
    ('h', 'ug', 'z')
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

from ..text.scripts import f32

__all__ = ["UNK_PENALTY", "best_cut", "course_cut", "sp_encode_word", "SPModel", "sp_two_best", "PrefixCuts"]

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


def sp_encode_word(word, scores, maxlen, unk):
    """SentencePiece's encoder on one ``▁word`` (or a line of them): Viterbi in 32-bit floats (as
    ``EncodeOptimized`` adds them), an unknown character scoring ``unk``, a run of unknown
    characters one piece."""
    n = len(word)
    best = [None] * (n + 1)
    back = [0] * (n + 1)
    isunk = [False] * (n + 1)
    best[0] = 0.0
    get = scores.get
    F = array("f", [0.0])  # a 32-bit float cell: sums round as the C++ rounds them
    for s in range(n):
        base = best[s]
        single = False
        for e in range(s + 1, min(n, s + maxlen) + 1):
            sc = get(word[s:e])
            if sc is None:
                continue
            if e == s + 1:
                single = True
            F[0] = sc + base
            cand = F[0]
            cur = best[e]
            if cur is None or cand > cur:
                best[e], back[e], isunk[e] = cand, s, False
        if not single:
            F[0] = unk + base
            cand = F[0]
            cur = best[s + 1]
            if cur is None or cand > cur:
                best[s + 1], back[s + 1], isunk[s + 1] = cand, s, True
    pieces, e = [], n
    while e > 0:
        s = back[e]
        if isunk[e] and pieces and pieces[-1][1]:
            pieces[-1] = (word[s:e] + pieces[-1][0], True)  # a run of unknowns is one piece
        else:
            pieces.append((word[s:e], isunk[e]))
        e = s
    pieces.reverse()
    return tuple(p for p, _ in pieces)


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


def sp_two_best(word, model):
    """The best and second-best segmentations of a piece's own string (``Lattice::NBest(2)``),
    as lists of nodes; one entry when only one segmentation exists."""
    nodes = model.nodes(word)
    n = len(word)
    tops: list = [[] for _ in range(n + 1)]  # per end position: up to 2 (score, node, previous entry)
    tops[0] = [(0.0, None, None)]
    for node in nodes:
        s, e, _, sc = node
        for entry in tops[s]:
            cand = (entry[0] + sc, node, entry)
            cur = tops[e]
            if len(cur) < 2:
                cur.append(cand)
                cur.sort(key=lambda t: -t[0])
            elif cand[0] > cur[1][0]:
                cur[1] = cand
                cur.sort(key=lambda t: -t[0])
    out = []
    for entry in tops[n][:2]:
        path = []
        while entry[1] is not None:
            path.append(entry[1])
            entry = entry[2]
        path.reverse()
        out.append(path)
    return out
