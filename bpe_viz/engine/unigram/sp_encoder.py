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

:func:`sp_encode_words` (flat words and line ends; :func:`sp_encode_lines`, the same on a list
of lines) does that for many lines at once: each distinct word cut once (sorted, so a word reuses
the Viterbi figures of the prefix it shares with the one before); a word whose margin holds for
any running score the heaviest line can reach is taken from its cached cut, and only the lines
holding another word are looked at closer.

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
from bisect import bisect_right
from itertools import accumulate, chain, compress, count, islice, repeat
from operator import gt, itemgetter, sub

from ..text.scripts import MARK

__all__ = ["MODELS_KEPT", "WORDS_KEPT", "CHARS_KEPT", "LONGEST_CACHED", "sp_encode_word", "sp_encode_line",
           "sp_encode_lines", "sp_encode_words", "clear_sp_encode_cache"]

MODELS_KEPT = 4  # piece dicts whose tables (and word caches) are kept
WORDS_KEPT = 1 << 14  # words cached per model, at most (then its cache starts afresh) ...
CHARS_KEPT = 1 << 17  # ... and characters in them: at most about 8 MB per model
LONGEST_CACHED = 128  # longer words are cut anew each time
LINE_WORDS = 1 << 13  # a longer line is cut word by word (see _line_bound)

_MODELS: dict = {}  # id(scores) -> _Model, the last MODELS_KEPT used


def _trie(items) -> dict:
    """``(key, score)`` pairs as a trie: a character -> ``[score or None when the prefix is no
    key, the trie of what may follow]``."""
    root: dict = {}
    for p, sc in items:
        t, hit = root, None
        for c in p:
            hit = t.get(c)
            if hit is None:
                hit = t[c] = [None, {}]
            t = hit[1]
        if hit is not None:
            hit[0] = sc
    return root


class _Model:
    """What encoding with one piece dict needs: the pieces as a trie (:func:`_trie`; ``rtrie``:
    each piece read backwards), the longest piece, whether words cut apart (no piece holds an
    inner ``▁``), the largest ``|score|``, and the cached words (``(unk, maxlen)`` they were cut
    with)."""

    __slots__ = ("scores", "size", "trie", "rtrie", "longest", "apart", "largest", "words", "chars", "key")

    def __init__(self, scores: dict):
        self.scores, self.size = scores, len(scores)
        self.trie = _trie(scores.items())
        self.rtrie = _trie((p[::-1], sc) for p, sc in scores.items())
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


def _two_best(words, rtrie, maxlen, unk, largest):
    """Each of ``words`` (sorted) -> its best cut from 0 in 64 bits, for the cache: (pieces, the
    scores its nodes add in order, ``limit``, their ``|score|`` summed): the cut is the line's
    wherever the running score ``B`` at the word's start has ``|B| < limit`` (see the module
    docstring; ``limit`` <= 0 when two cuts tie). ``rtrie``: :attr:`_Model.rtrie`.

    One Viterbi pass per word keeps, at each position, the best score and the best of the other
    candidates ending there; the gap between the best cut and the second-best is the smallest
    such difference along the best cut (the second-best cut leaves the best one at one of its
    positions, and from any position's runner-up the best cut's rest makes a whole cut). A
    position's figures depend only on the characters before it, so a word keeps those of the
    prefix it shares with the word before. The candidates ending at a position come from the
    nearest start back, and ``>=`` keeps the farthest of equals: the first found going forward,
    as :func:`_viterbi32` keeps it."""
    neg = -math.inf
    top1, top2, back, node = [0.0], [neg], [0], [None]  # per position: the best path score, the
    prev, out = "", {}  # best other candidate's, the best path's last node start and score
    add1, add2, add3, add4 = top1.append, top2.append, back.append, node.append
    for word in words:
        keep = 0
        for x, y in zip(prev, word):
            if x != y:
                break
            keep += 1
        del top1[keep + 1:], top2[keep + 1:], back[keep + 1:], node[keep + 1:]
        for e in range(keep + 1, len(word) + 1):
            s = e - 1
            lo = e - maxlen
            hit = rtrie.get(word[s])
            if hit is None or hit[0] is None:  # no single-character piece: the unknown node
                best, second, start, last = top1[s] + unk, neg, s, None
            else:
                best, second, start, last = top1[s] + hit[0], neg, s, hit[0]
            while s > 0 and s > lo and hit is not None:  # the longer pieces ending at e
                s -= 1
                hit = hit[1].get(word[s])
                if hit is not None:
                    sc = hit[0]
                    if sc is not None:
                        c = top1[s] + sc
                        if c >= best:
                            second, best, start, last = best, c, s, sc
                        elif c > second:
                            second = c
            add1(best)
            add2(second)
            add3(start)
            add4(last)
        out[word] = _best_path(word, top1, top2, back, node, unk, largest)
        prev = word
    return out


def _best_path(word, top1, top2, back, node, unk, largest):
    """(pieces, steps, limit, mass: the sum of the steps' ``|score|``) from :func:`_two_best`'s
    figures for ``word``."""
    e = n = len(word)
    gap, run, out, steps = math.inf, False, [], []
    while e:
        d = top1[e] - top2[e]
        if d < gap:
            gap = d
        s = back[e]
        sc = node[e]
        if sc is None:  # an unknown character; a run of them is one piece
            if run:
                out[-1] = word[s:e] + out[-1]
            else:
                out.append(word[s:e])
                run = True
            steps.append(unk)
        else:
            out.append(word[s:e])
            steps.append(sc)
            run = False
        e = s
    out.reverse()
    steps.reverse()
    limit = gap * 2.0 ** 22 / (n or 1) - n * max(largest, abs(unk))
    return tuple(out), tuple(steps), limit, sum(map(abs, steps))


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
    return sp_encode_lines([words], scores, maxlen, unk)


def sp_encode_lines(lines, scores, maxlen, unk) -> list[tuple]:
    """:func:`sp_encode_line` on each line of ``lines`` (a list of lists of ``▁``-words), its
    words' pieces one after another (:func:`sp_encode_words` on the lines one after another).

    Example::

        >>> scores = {"▁": -2.0, "a": -3.0, "b": -3.0, "▁ab": -4.0}
        >>> sp_encode_lines([["▁ab", "▁b"], [], ["▁ab"]], scores, 3, -13.0)
        [('▁ab',), ('▁', 'b'), ('▁ab',)]
    """
    return sp_encode_words(list(chain.from_iterable(lines)), list(accumulate(map(len, lines))), scores, maxlen, unk)


def sp_encode_words(words, ends, scores, maxlen, unk) -> list[tuple]:
    """Each of ``words`` cut as SentencePiece cuts its line, the lines one after another:
    ``ends`` holds each line's end (the number of words up to it). Each distinct word is cut once
    (a word met again, on any line, shares the pieces tuple of its first cut); a line where a
    word's margin may not hold for a running score the text can reach (:func:`_line_bound` of the
    heaviest line) is checked against its own bound, and the lines that fail go word by word
    from their running score.

    Example::

        >>> scores = {"▁": -2.0, "a": -3.0, "b": -3.0, "▁ab": -4.0}
        >>> sp_encode_words(["▁ab", "▁b", "▁ab"], [2, 2, 3], scores, 3, -13.0)
        [('▁ab',), ('▁', 'b'), ('▁ab',)]
    """
    model = _model(scores)
    distinct = set(words)
    if not model.apart or not all(map(str.startswith, distinct, repeat(MARK))):
        return [p for a, b in zip(chain((0,), ends), ends) for p in _line_apart(words[a:b], model, maxlen, unk)]
    hits = _distinct_cuts(model, distinct, maxlen, unk)
    pieces_of = dict(zip(hits, map(itemgetter(0), hits.values())))
    mass_of = dict(zip(hits, map(itemgetter(3), hits.values())))
    for w in distinct.difference(hits):  # too long to cache: cut below
        pieces_of[w], mass_of[w] = None, 0.0
    out = list(map(pieces_of.__getitem__, words))
    # the heaviest line's bound on |B| (a line over LINE_WORDS words: none); the words whose
    # limit is below it send their lines to a closer look
    starts = [0, *ends]
    mass = list(accumulate(map(mass_of.__getitem__, words), initial=0.0))
    line_mass = list(map(sub, map(mass.__getitem__, ends), map(mass.__getitem__, starts)))
    huge = any(map(gt, map(sub, ends, starts), repeat(LINE_WORDS)))
    top = math.inf if huge else _line_bound(max(line_mass, default=0.0))
    risky = {w for w, h in hits.items() if h[2] <= top} | distinct.difference(hits)
    done = 0
    for i in compress(count(), map(risky.__contains__, words)) if risky else ():
        if i >= done:
            line = bisect_right(ends, i)
            a, done = starts[line], ends[line]
            bound = math.inf if done - a > LINE_WORDS else _line_bound(line_mass[line])
            if any(w not in hits or hits[w][2] <= bound for w in words[a:done]):
                out[a:done] = _line_exact(words[a:done], hits, model.trie, maxlen, unk)
    return out


def _line_apart(words, model, maxlen, unk) -> list[tuple]:
    """One line of ``words`` when words need not cut apart: Viterbi over the whole line, shared
    out (a line whose words, but the first, all start with ``▁`` is cut word by word)."""
    if model.apart and all(map(str.startswith, islice(words, 1, None), repeat(MARK))):
        hits = _distinct_cuts(model, set(words), maxlen, unk)
        return _line_exact(words, hits, model.trie, maxlen, unk)
    return _share_out(words, _viterbi32("".join(words), model.trie, maxlen, unk)[0])


def _line_bound(mass: float) -> float:
    """A bound on ``|B|`` anywhere in a line of at most :data:`LINE_WORDS` words whose nodes'
    ``|score|`` add up to ``mass``: every 32-bit sum of ``k <= LINE_WORDS * LONGEST_CACHED <=
    2**20`` terms is within ``(1 + 2**-24 + 2**-53)**k - 1 < 0.07`` of ``mass``, relatively."""
    return (mass + 1.0) * 1.125  # 1.0: the prefix sums' own rounding, many times over


def _distinct_cuts(model, words: set, maxlen, unk) -> dict:
    """word -> (pieces, steps, limit, mass) (:func:`_two_best`, through the model's cache) for each
    of ``words`` up to :data:`LONGEST_CACHED` characters."""
    cache = model.cache(unk, maxlen)
    hits, new = {}, []
    for w in words:
        if len(w) <= LONGEST_CACHED:
            hit = hits[w] = cache.get(w)
            if hit is None:
                new.append(w)
    new.sort()  # neighbours share prefixes
    for w, hit in _two_best(new, model.rtrie, maxlen, unk, model.largest).items():
        hits[w] = hit
        model.keep(w, hit)
    return hits


def _line_exact(words, hits, trie, maxlen, unk) -> list[tuple]:
    """One line word by word: a cached cut where its margin holds at the running 32-bit score,
    else Viterbi from that score (``hits``: :func:`_distinct_cuts`)."""
    out = []
    F = array("f", [0.0])  # the line's running score B, in 32 bits
    for w in words:
        hit = hits.get(w)
        if hit is not None and abs(F[0]) < hit[2]:
            for sc in hit[1]:
                F[0] += sc
            out.append(hit[0])
        else:
            pieces, F[0] = _viterbi32(w, trie, maxlen, unk, F[0])
            out.append(pieces)
    return out
