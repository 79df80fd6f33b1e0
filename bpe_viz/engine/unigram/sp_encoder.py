"""SentencePiece's encoder for a trained Unigram model: a line cut at once in 32-bit sums, each
word's cut kept for the next time the word comes.

``EncodeOptimized`` (sentencepiece's ``unigram_model.cc``) runs Viterbi over a whole line,
storing each position's best score as a 32-bit float, and keeps a candidate only when its
rounded sum is strictly better (the first found wins a tie). :func:`sp_encode_word` is that loop;
:func:`sp_encode_line` gives the same cuts for a line of ``▁``-words, faster:

* no piece holds ``▁`` after its first character (true of every trained model), so no lattice
  node crosses the ``▁`` a word starts with: every path passes there, and the line's best cut
  is each word's best cut from the running score ``B`` at the word's start;
* only the rounding depends on ``B``. Each 32-bit sum is off by at most ``2**-24 * M``
  (``M = |B| + len(word) * largest |score|`` bounds every sum within the word), a path has at
  most ``len(word)`` of them, and Viterbi's path scores at least the best path's exact score
  minus its own and the best path's errors. So when the word's best cut (exact, from 0) beats
  its second best by more than ``len(word) * M * 2**-22`` (twice that bound), the line takes that
  cut, whatever ``B``: the cut is cached with that margin, and the new ``B`` comes from adding
  the cut's scores to ``B`` in 32 bits, as the line's Viterbi adds them. A word whose margin is
  too small at this ``B`` (an exact tie, a very long line) is cut by Viterbi from ``B``, which is
  exactly what the line's Viterbi does over its positions.

The cache is per model (a round's piece dict, the last :data:`MODELS_KEPT` used) and bounded
(:data:`WORDS_KEPT` words, :data:`CHARS_KEPT` characters, none over :data:`LONGEST_CACHED`);
:func:`clear_sp_encode_cache` empties it. Its sibling :mod:`.lattice` serves training (its
Viterbi adds in 64 bits) and :mod:`.from_pieces` a model read from a file.

Example::

    >>> scores = {"▁": -2.0, "h": -3.0, "u": -3.0, "g": -3.0, "ug": -2.5, "▁hug": -4.0}
    >>> sp_encode_word("▁hugz▁ug", scores, 4, -13.0)
    ('▁hug', 'z', '▁', 'ug')
    >>> sp_encode_line(["▁hugz", "▁ug"], scores, 4, -13.0)
    [('▁hug', 'z'), ('▁', 'ug')]
"""

from __future__ import annotations

import math
from array import array
from itertools import islice, repeat

from ..text.scripts import MARK

__all__ = ["MODELS_KEPT", "WORDS_KEPT", "CHARS_KEPT", "LONGEST_CACHED", "sp_encode_word", "sp_encode_line",
           "clear_sp_encode_cache"]

MODELS_KEPT = 4  # piece dicts whose tables (and word caches) are kept
WORDS_KEPT = 1 << 14  # words cached per model, at most (then its cache starts afresh) ...
CHARS_KEPT = 1 << 17  # ... and characters in them: at most about 8 MB per model
LONGEST_CACHED = 128  # longer words are cut anew each time

_MODELS: dict = {}  # id(scores) -> _Model, the last MODELS_KEPT used


class _Model:
    """What encoding with one piece dict needs: the pieces as a trie (a character -> ``[score or
    None when the prefix is no piece, the trie of what may follow]``), the longest piece, whether
    words cut apart (no piece holds an inner ``▁``), the largest ``|score|``, and the cached words
    (``(unk, maxlen)`` they were cut with)."""

    __slots__ = ("scores", "size", "trie", "longest", "apart", "largest", "words", "chars", "key")

    def __init__(self, scores: dict):
        self.scores, self.size = scores, len(scores)
        root: dict = {}
        for p, sc in scores.items():
            t, hit = root, None
            for c in p:
                hit = t.get(c)
                if hit is None:
                    hit = t[c] = [None, {}]
                t = hit[1]
            if hit is not None:
                hit[0] = sc
        self.trie = root
        self.longest = max(map(len, scores), default=0)
        self.apart = not any(MARK in p[1:] for p in scores)
        self.largest = max(map(abs, scores.values()), default=0.0)
        self.words: dict = {}
        self.chars = 0
        self.key = None

    def cache(self, unk: float, maxlen: int) -> dict:
        """The word cache for cuts with ``unk`` and ``maxlen`` (emptied when they change)."""
        if self.key != (unk, maxlen):
            self.words.clear()
            self.chars, self.key = 0, (unk, maxlen)
        return self.words

    def keep(self, word: str, cut: tuple) -> None:
        """Cache ``word``'s cut, starting afresh when the cache is full."""
        if len(self.words) >= WORDS_KEPT or self.chars + len(word) > CHARS_KEPT:
            self.words.clear()
            self.chars = 0
        self.words[word] = cut
        self.chars += len(word)


def _model(scores: dict) -> _Model:
    got = _MODELS.get(id(scores))
    if got is not None and got.scores is scores and got.size == len(scores):
        return got
    if len(_MODELS) >= MODELS_KEPT:
        _MODELS.pop(next(iter(_MODELS)))
    got = _MODELS[id(scores)] = _Model(scores)
    return got


def clear_sp_encode_cache() -> None:
    """Forget every model's cached word cuts and piece tries (the next encode starts cold).

    Example::

        >>> clear_sp_encode_cache()
    """
    _MODELS.clear()


def _pieces(word, back, isunk) -> tuple:
    """The best path's pieces by its back-pointers, a run of unknown characters as one piece."""
    out, e, run = [], len(word), False
    while e > 0:
        s = back[e]
        if run and isunk[e]:
            out[-1] = word[s:e] + out[-1]
        else:
            out.append(word[s:e])
            run = isunk[e]
        e = s
    out.reverse()
    return tuple(out)


def _viterbi32(word, trie, maxlen, unk, start=0.0):
    """SentencePiece's Viterbi over ``word`` from the running score ``start`` (a 32-bit value):
    (pieces, the 32-bit score at the end). ``trie``: :attr:`_Model.trie`. A candidate is rounded
    to 32 bits only when its 64-bit sum beats the best so far (rounding never moves a sum past a
    32-bit value)."""
    n = len(word)
    best = [None] * (n + 1)
    back = [0] * (n + 1)
    isunk = [False] * (n + 1)
    best[0] = start
    F = array("f", [0.0])  # a 32-bit float cell: sums round as the C++ rounds them
    for s in range(n):
        base = best[s]
        hit = trie.get(word[s])
        e, top = s + 1, (s + maxlen if s + maxlen < n else n)
        if hit is None or hit[0] is None:  # no single-character piece: the unknown node first
            F[0] = unk + base
            cur = best[e]
            if cur is None or F[0] > cur:
                best[e], back[e], isunk[e] = F[0], s, True
        while hit is not None:  # the pieces starting at s, shortest first
            sc, t = hit
            if sc is not None:
                cur = best[e]
                if cur is None or sc + base > cur:
                    F[0] = sc + base
                    if cur is None or F[0] > cur:
                        best[e], back[e], isunk[e] = F[0], s, False
            if e >= top:
                break
            hit = t.get(word[e])
            e += 1
    return _pieces(word, back, isunk), best[n]


def sp_encode_word(word, scores, maxlen, unk):
    """SentencePiece's encoder on one ``▁word`` (or a line of them): Viterbi in 32-bit floats (as
    ``EncodeOptimized`` adds them), an unknown character scoring ``unk``, a run of unknown
    characters one piece.

    Example::

        >>> sp_encode_word("hugz", {"h": -3.0, "u": -3.0, "g": -3.0, "hu": -2.5, "ug": -2.5}, 2, -13.0)
        ('h', 'ug', 'z')
    """
    return _viterbi32(word, _model(scores).trie, maxlen, unk)[0]


def _two_best(word, trie, maxlen, unk, largest):
    """``word``'s best cut from 0 in 64 bits, for the cache: (pieces, the scores its nodes add in
    order, ``limit``): the cut is the line's wherever the running score ``B`` at the word's start
    has ``|B| < limit`` (see the module docstring; ``limit`` <= 0 when two cuts tie).

    One Viterbi pass keeps, at each position, the best score and the best of the other
    candidates ending there; the gap between the best cut and the second-best is the smallest
    such difference along the best cut (the second-best cut leaves the best one at one of its
    positions, and from any position's runner-up the best cut's rest makes a whole cut)."""
    n = len(word)
    neg = -math.inf
    top1 = [neg] * (n + 1)  # per position: the best path score and the best other candidate's
    top2 = [neg] * (n + 1)
    back = [0] * (n + 1)
    node = [None] * (n + 1)  # the score of the last node of the best path there (None: unknown)
    top1[0] = 0.0
    for s in range(n):
        x1 = top1[s]
        hit = trie.get(word[s])
        e, top = s + 1, (s + maxlen if s + maxlen < n else n)
        if hit is None or hit[0] is None:  # no single-character piece: the unknown node first
            c1, y1 = x1 + unk, top1[e]
            if c1 > y1:
                top2[e], top1[e], back[e], node[e] = y1, c1, s, None
            elif c1 > top2[e]:
                top2[e] = c1
        while hit is not None:  # the pieces starting at s, shortest first
            sc, t = hit
            if sc is not None:
                c1, y1 = x1 + sc, top1[e]
                if c1 > y1:
                    top2[e], top1[e], back[e], node[e] = y1, c1, s, sc
                elif c1 > top2[e]:
                    top2[e] = c1
            if e >= top:
                break
            hit = t.get(word[e])
            e += 1
    steps, out, e, gap, run = [], [], n, math.inf, False
    while e > 0:
        gap = min(gap, top1[e] - top2[e])
        s, sc = back[e], node[e]
        if sc is None and run:  # a run of unknown characters is one piece
            out[-1] = word[s:e] + out[-1]
        else:
            out.append(word[s:e])
        run = sc is None
        steps.append(unk if run else sc)
        e = s
    steps.reverse()
    out.reverse()
    limit = gap * 2.0 ** 22 / max(n, 1) - n * max(largest, abs(unk))
    return tuple(out), tuple(steps), limit


def _share_out(words, pieces) -> list[tuple]:
    """A line's pieces shared out to its words; a run of unknown characters across words (no
    ``▁`` piece) is cut at each word's end."""
    out, at, carry = [], 0, ""
    for w in words:
        mine, taken = [], 0
        while taken < len(w):
            p = carry or pieces[at]
            at += not carry
            carry = ""
            if taken + len(p) > len(w):
                p, carry = p[:len(w) - taken], p[len(w) - taken:]
            mine.append(p)
            taken += len(p)
        out.append(tuple(mine))
    return out


def sp_encode_line(words, scores, maxlen, unk) -> list[tuple]:
    """The pieces of each word of one line, as SentencePiece cuts the whole line
    (``sp_encode_word("".join(words), ...)`` shared out to the words, a run of unknown characters
    cut at each word's end). ``words``: ``▁``-words, each but the first starting with ``▁``.

    Example::

        >>> scores = {"▁": -2.0, "a": -3.0, "b": -3.0, "▁ab": -4.0}
        >>> sp_encode_line(["▁ab", "▁abc", "▁b"], scores, 3, -13.0)
        [('▁ab',), ('▁ab', 'c'), ('▁', 'b')]
    """
    model = _model(scores)
    trie = model.trie
    if not model.apart or not all(map(str.startswith, islice(words, 1, None), repeat(MARK))):
        return _share_out(words, _viterbi32("".join(words), trie, maxlen, unk)[0])
    cache, largest = model.cache(unk, maxlen), model.largest
    out = []
    F = array("f", [0.0])  # the line's running score B, in 32 bits
    for w in words:
        hit = cache.get(w)
        if hit is None:
            if len(w) > LONGEST_CACHED:
                pieces, F[0] = _viterbi32(w, trie, maxlen, unk, F[0])
                out.append(pieces)
                continue
            hit = _two_best(w, trie, maxlen, unk, largest)
            model.keep(w, hit)
        pieces, steps, limit = hit
        if abs(F[0]) < limit:
            for sc in steps:
                F[0] += sc
        else:
            pieces, F[0] = _viterbi32(w, trie, maxlen, unk, F[0])
        out.append(pieces)
    return out
