"""SentencePiece's encoder for a trained Unigram model: a line cut at once in 32-bit sums, each
word's cut kept for the next time the word comes.

``EncodeOptimized`` (sentencepiece's ``unigram_model.cc``) runs Viterbi over a whole line,
storing each position's best score as a 32-bit float, and keeps a candidate only when its
rounded sum is strictly better (the first found wins a tie). :func:`sp_encode_word` is that loop
(reading the pieces that end at each position from a trie of the pieces written backwards, the
one trie this file builds, and keeping the same candidates); :func:`sp_encode_line` gives the same
cuts for a line of ``▁``-words, faster:

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
holding another word are looked at closer. :func:`sp_encode_text` does it for a whole text (what
``encode`` calls), bounding every line by the longest line's characters instead of adding up
each word.

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
from operator import gt, is_, itemgetter, sub

from ..text.pretokenize import SentencePieceSpace
from ..text.scripts import MARK

__all__ = ["MODELS_KEPT", "WORDS_KEPT", "CHARS_KEPT", "LONGEST_CACHED", "sp_encode_word", "sp_encode_line",
           "sp_encode_lines", "sp_encode_words", "sp_encode_text", "clear_sp_encode_cache"]

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
    """What encoding with one piece dict needs: the pieces read backwards as a trie (:func:`_trie`:
    the pieces ending at a position, shortest first), the longest piece, whether words cut apart
    (no piece holds an inner ``▁``), the largest ``|score|``, whether no score is positive, and the
    cached words (``(unk, maxlen)`` they were cut with)."""

    __slots__ = ("scores", "size", "rtrie", "longest", "apart", "largest", "nonpositive", "words", "chars", "key")

    def __init__(self, scores: dict):
        self.scores, self.size = scores, len(scores)
        self.rtrie = _trie((p[::-1], sc) for p, sc in scores.items())
        self.longest = max(map(len, scores), default=0)
        self.apart = not any(p.find(MARK, 1) > 0 for p in scores)
        self.largest = max(map(abs, scores.values()), default=0.0)
        self.nonpositive = not any(map((0.0).__lt__, scores.values()))
        self.words: dict = {}
        self.chars = 0
        self.key = None

    def cache(self, unk: float, maxlen: int) -> dict:
        """The word cache for cuts with ``unk`` and ``maxlen`` (emptied when they change)."""
        if self.key != (unk, maxlen):
            self.words.clear()
            self.chars, self.key = 0, (unk, maxlen)
        return self.words

    def keep_all(self, cuts: dict) -> None:
        """Cache each of ``cuts`` (word -> cut): at once when they all fit, else one by one."""
        chars = sum(map(len, cuts))
        if len(self.words) + len(cuts) <= WORDS_KEPT and self.chars + chars <= CHARS_KEPT:
            self.words.update(cuts)
            self.chars += chars
        else:
            for w, cut in cuts.items():
                self.keep(w, cut)

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


def _viterbi32(word, rtrie, maxlen, unk, start=0.0):
    """SentencePiece's Viterbi over ``word`` from the running score ``start`` (a 32-bit value):
    (pieces, the 32-bit score at the end). ``rtrie``: :attr:`_Model.rtrie`, the pieces ending at
    each position read backwards. Each candidate is rounded to 32 bits; the best kept is the
    first found going forward (the nearest start back, ``>=`` keeping the farthest of equals),
    and the unknown node only when strictly better, as ``EncodeOptimized`` keeps them."""
    n = len(word)
    best = [start] * (n + 1)
    back = [0] * (n + 1)
    isunk = [False] * (n + 1)
    F = array("f", [0.0])  # a 32-bit float cell: sums round as the C++ rounds them
    for e in range(1, n + 1):
        s = e - 1
        hit = rtrie.get(word[s])
        unknown = hit is None or hit[0] is None  # no single-character piece: the unknown node
        F[0] = (unk if unknown else hit[0]) + best[s]
        cur, at = F[0], s
        t = {} if hit is None else hit[1]
        for s in range(e - 2, (e - maxlen if e > maxlen else 0) - 1, -1):  # the longer pieces
            hit = t.get(word[s])
            if hit is None:
                break
            sc, t = hit
            if sc is not None:
                F[0] = sc + best[s]
                if F[0] >= cur:
                    cur, at, unknown = F[0], s, False
        best[e], back[e], isunk[e] = cur, at, unknown
    return _pieces(word, back, isunk), best[n]


def sp_encode_word(word, scores, maxlen, unk):
    """SentencePiece's encoder on one ``▁word`` (or a line of them): Viterbi in 32-bit floats (as
    ``EncodeOptimized`` adds them), an unknown character scoring ``unk``, a run of unknown
    characters one piece.

    Example::

        >>> sp_encode_word("hugz", {"h": -3.0, "u": -3.0, "g": -3.0, "hu": -2.5, "ug": -2.5}, 2, -13.0)
        ('h', 'ug', 'z')
    """
    return _viterbi32(word, _model(scores).rtrie, maxlen, unk)[0]


def _two_best(words, model, maxlen, unk):
    """Each of ``words`` (sorted) -> its best cut from 0 in 64 bits, for the cache: (pieces, the
    scores its nodes add in order (``None`` when every node is a piece: their scores, read from
    the model), ``limit``, ``mass``: at least their ``|score|`` summed): the cut is the line's
    wherever the running score ``B`` at the word's start has ``|B| < limit`` (see the module
    docstring; ``limit`` <= 0 when two cuts tie). ``model``: a :class:`_Model`.

    One Viterbi pass per word keeps, at each position, the best score and the best of the other
    candidates ending there; the gap between the best cut and the second-best is the smallest
    such difference along the best cut (the second-best cut leaves the best one at one of its
    positions, and from any position's runner-up the best cut's rest makes a whole cut). A
    position's figures depend only on the characters before it, so a word keeps those of the
    prefix it shares with the word before. The candidates ending at a position come from the
    nearest start back, and ``>=`` keeps the farthest of equals: the first found going forward,
    as :func:`_viterbi32` keeps it."""
    neg, rtrie = -math.inf, model.rtrie
    size = max(map(len, words), default=0) + 1  # per position: the best path score, the best
    top1, top2, back = [0.0] * size, [neg] * size, [0] * size  # other candidate's, the best
    prev, out = "", {}  # path's last node start (~start for the unknown node)
    big, nonpositive = max(model.largest, abs(unk)), model.nonpositive and unk <= 0
    for word in words:
        keep = 0
        for x, y in zip(prev, word):
            if x != y:
                break
            keep += 1
        for e in range(keep + 1, len(word) + 1):
            s = e - 1
            hit = rtrie.get(word[s])
            if hit is None:  # no piece ends with this character: the unknown node alone
                top1[e], top2[e], back[e] = top1[s] + unk, neg, ~s
                continue
            sc, t = hit  # no single-character piece (sc is None): the unknown node first
            best, second, start = (top1[s] + unk, neg, ~s) if sc is None else (top1[s] + sc, neg, s)
            for s in range(e - 2, (e - maxlen if e > maxlen else 0) - 1, -1):  # longer pieces
                hit = t.get(word[s])
                if hit is None:
                    break
                sc, t = hit
                if sc is not None:
                    c = top1[s] + sc
                    if c >= best:
                        second, best, start = best, c, s
                    elif c > second:
                        second = c
            top1[e], top2[e], back[e] = best, second, start
        out[word] = _best_path(word, top1, top2, back, model.scores, unk, big, nonpositive)
        prev = word
    return out


def _best_path(word, top1, top2, back, scores, unk, big, nonpositive):
    """(pieces, None, limit, mass) from :func:`_two_best`'s figures for ``word`` (its tables,
    ``big``: the largest ``|score|``, ``unk``'s included); with no score above 0 the mass is the
    path's score negated, else ``len(word) * big`` bounds it. A path through an unknown character
    is read by :func:`_unknown_path`."""
    e = n = len(word)
    gap, out = math.inf, []
    while e:
        d = top1[e] - top2[e]
        if d < gap:
            gap = d
        s = back[e]
        if s < 0:
            return _unknown_path(word, top1, top2, back, scores, unk, big)
        out.append(word[s:e])
        e = s
    out.reverse()
    return tuple(out), None, gap * 2.0 ** 22 / (n or 1) - n * big, -top1[n] if nonpositive else n * big


def _unknown_path(word, top1, top2, back, scores, unk, big):
    """:func:`_best_path` for a path through an unknown character: a run of them is one piece,
    and the steps (each character ``unk``) are kept."""
    e = n = len(word)
    gap, run, out, steps = math.inf, False, [], []
    while e:
        d = top1[e] - top2[e]
        if d < gap:
            gap = d
        s = back[e]
        if s < 0:  # an unknown character; a run of them is one piece
            s = ~s
            if run:
                out[-1] = word[s:e] + out[-1]
            else:
                out.append(word[s:e])
                run = True
            steps.append(unk)
        else:
            out.append(word[s:e])
            steps.append(scores[out[-1]])
            run = False
        e = s
    out.reverse()
    steps.reverse()
    return tuple(out), tuple(steps), gap * 2.0 ** 22 / (n or 1) - n * big, sum(map(abs, steps))


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
            out[a:done] = _line_cuts(words[a:done], hits, model, maxlen, unk)
    return out


def sp_encode_text(text, scores, maxlen, unk) -> tuple[list, list]:
    """Every line of ``text`` cut as SentencePiece cuts it, split by
    :meth:`~bpe_viz.engine.text.pretokenize.SentencePieceSpace.flat_words`: (the words without
    their ``▁`` and a ``"\\n"`` after each line but the last; each one's pieces, ``()`` for a
    ``"\\n"``). :func:`sp_encode_words` for a whole text, cheaper: each distinct word is cut once
    and ``▁`` is put only in front of those; a word whose margin holds in a line as long as the
    text's longest (each node covers a character, so a line of ``n`` characters adds at most ``n
    + 1`` of them) is taken as cut, and only the lines holding another word are looked at closer.

    Example::

        >>> scores = {"▁": -2.0, "a": -3.0, "b": -3.0, "▁ab": -4.0}
        >>> sp_encode_text("ab b\\n ab", scores, 3, -13.0)
        (['ab', 'b', '\\n', 'ab'], [('▁ab',), ('▁', 'b'), (), ('▁ab',)])
    """
    tokens = SentencePieceSpace().flat_words(text)
    model = _model(scores)
    if not model.apart:
        return tokens, _tokens_apart(tokens, model, maxlen, unk)
    plain = list(set(tokens).difference(("\n",)))
    marked = list(map(MARK.__add__, plain))
    hits = _distinct_cuts(model, marked, maxlen, unk)
    chars = max(map(len, text.split("\n"))) + 1  # what a line's "▁"-words add up to, at most
    top = _line_bound(chars * max(model.largest, abs(unk))) if chars <= 1 << 20 else math.inf
    safe = {w: h[0] for w, h in zip(plain, map(hits.get, marked)) if h is not None and h[2] > top}
    safe["\n"] = ()
    out = list(map(safe.get, tokens))
    done = 0
    for i in compress(count(), map(is_, out, repeat(None))):  # a word not safe: its line closer
        if i >= done:
            a, done = _line_of(tokens, i)
            out[a:done] = _line_cuts(list(map(MARK.__add__, tokens[a:done])), hits, model, maxlen, unk)
    return tokens, out


def _line_of(tokens, i) -> tuple[int, int]:
    """The line holding ``tokens[i]``: (where it starts, where it ends) in ``tokens``."""
    a = i
    while a and tokens[a - 1] != "\n":
        a -= 1
    try:
        return a, tokens.index("\n", i)
    except ValueError:
        return a, len(tokens)


def _tokens_apart(tokens, model, maxlen, unk) -> list[tuple]:
    """:func:`sp_encode_text`'s cuts when words need not cut apart: each line by
    :func:`_line_apart`."""
    out, a = [], 0
    for b in chain(compress(count(), map("\n".__eq__, tokens)), (len(tokens),)):
        out.extend(_line_apart(list(map(MARK.__add__, tokens[a:b])), model, maxlen, unk))
        out.append(())
        a = b + 1
    out.pop()
    return out


def _line_cuts(words, hits, model, maxlen, unk) -> list[tuple]:
    """One line of ``words`` (``▁``-words): their cached cuts when every margin holds for any
    running score the line can reach (:func:`_line_bound` of its mass), else :func:`_line_exact`."""
    got = list(map(hits.get, words))
    if len(words) > LINE_WORDS or any(map(is_, got, repeat(None))):
        return _line_exact(words, hits, model, maxlen, unk)
    bound = _line_bound(sum(map(itemgetter(3), got)))
    if any(h[2] <= bound for h in got):
        return _line_exact(words, hits, model, maxlen, unk)
    return list(map(itemgetter(0), got))


def _line_apart(words, model, maxlen, unk) -> list[tuple]:
    """One line of ``words`` when words need not cut apart: Viterbi over the whole line, shared
    out (a line whose words, but the first, all start with ``▁`` is cut word by word)."""
    if model.apart and all(map(str.startswith, islice(words, 1, None), repeat(MARK))):
        hits = _distinct_cuts(model, set(words), maxlen, unk)
        return _line_exact(words, hits, model, maxlen, unk)
    return _share_out(words, _viterbi32("".join(words), model.rtrie, maxlen, unk)[0])


def _line_bound(mass: float) -> float:
    """A bound on ``|B|`` anywhere in a line of at most ``2**20`` nodes (:data:`LINE_WORDS` words
    of at most :data:`LONGEST_CACHED` characters, or ``2**20`` characters) whose ``|score|`` add up
    to ``mass``: every 32-bit sum of ``k <= 2**20`` terms is within ``(1 + 2**-24 + 2**-53)**k - 1
    < 0.07`` of ``mass``, relatively."""
    return (mass + 1.0) * 1.125  # 1.0: the prefix sums' own rounding, many times over


def _distinct_cuts(model, words, maxlen, unk) -> dict:
    """word -> (pieces, steps, limit, mass) (:func:`_two_best`, through the model's cache) for each
    of ``words`` (distinct) up to :data:`LONGEST_CACHED` characters."""
    cache = model.cache(unk, maxlen)
    words = [w for w in words if len(w) <= LONGEST_CACHED]
    got = list(map(cache.get, words))
    hits = dict(zip(words, got))
    new = sorted(compress(words, map(is_, got, repeat(None))))  # sorted: neighbours share prefixes
    cut = _two_best(new, model, maxlen, unk)
    hits.update(cut)
    model.keep_all(cut)
    return hits


def _line_exact(words, hits, model, maxlen, unk) -> list[tuple]:
    """One line word by word: a cached cut where its margin holds at the running 32-bit score,
    else Viterbi from that score (``hits``: :func:`_distinct_cuts`)."""
    out = []
    F = array("f", [0.0])  # the line's running score B, in 32 bits
    for w in words:
        hit = hits.get(w)
        if hit is not None and abs(F[0]) < hit[2]:
            for sc in map(model.scores.__getitem__, hit[0]) if hit[1] is None else hit[1]:
                F[0] += sc
            out.append(hit[0])
        else:
            pieces, F[0] = _viterbi32(w, model.rtrie, maxlen, unk, F[0])
            out.append(pieces)
    return out
