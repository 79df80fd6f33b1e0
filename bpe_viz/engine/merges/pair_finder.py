"""Where a few pairs first occur in a state, found by searching text instead of reading every
word: the fast path of a positional tie rule ("first pair met") when a step ranks only a few
pairs (issue 20, a cold slider jump).

:class:`~bpe_viz.engine.merges.pair_ranking.PairRanking` reads first-met order by scanning a
state's words in corpus order (every pair of every word, until the pairs asked for are met): a
rare pair tied at the top (late in a run most ties are such) sends the scan through most of the
corpus. :class:`PairFinder` instead keeps, per trace, the corpus's words as one string of base
symbols (one character each) and every token's base symbols; a pair's first occurrence is then
the first word whose text holds the pair's letters (``str.find``, at C speed) and whose state
really has the two tokens side by side. It gives up (``None``: the caller scans) on a long word
or when too many words hold the letters but not the pair.
"""

from __future__ import annotations

from bisect import bisect_right

__all__ = ["PairFinder"]


class PairFinder:
    """The first occurrence ``(word id, position)`` of pairs in a state of one trace's history;
    positions order pairs as the first-met scan's ranks do.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 3)
        >>> finder = PairFinder(trace.history)
        >>> seg = trace.history.rebuild(0)[0]
        >>> finder.first(seg, [("e", "s"), ("l", "o")]) == {("e", "s"): (2, 3), ("l", "o"): (0, 0)}
        True
    """

    LONG = 4096  # symbols: a longer word is left to the scan (it reads such a word in pieces)
    MISSES = 48  # words holding a pair's letters but not the pair before the search gives up

    def __init__(self, history):
        self.history = history
        code = {s: chr(i + 1) for i, s in enumerate(history.base_symbols)}  # (chr(0) parts words)
        words = ["".join(map(code.__getitem__, w)) for w in history.rebuild(0)[0]]
        starts, at = [], 1
        for w in words:
            starts.append(at)
            at += len(w) + 1
        starts.append(at)
        self.text, self.starts, self.code, self.done = "\0" + "\0".join(words) + "\0", starts, code, 0

    def _letters(self, sym: str):
        """The base symbols of token ``sym`` as text, ``None`` if unknown or made two ways."""
        h = self.history
        if self.done < len(h.merged_tokens):  # merges are only ever appended
            code = self.code
            for (l, r), tok in zip(h.merged_pairs[self.done:], h.merged_tokens[self.done:]):
                a, b = code.get(l), code.get(r)
                spelled = None if a is None or b is None else a + b
                code[tok] = spelled if code.setdefault(tok, spelled) == spelled else None
            self.done = len(h.merged_tokens)
        return self.code.get(sym)

    def find(self, seg, pair):
        """``(word id, position)`` of ``pair``'s first occurrence in segmentation ``seg``
        (reading words in order, each left to right); ``None``: not found this way."""
        a, b = pair
        la, lb = self._letters(a), self._letters(b)
        if not la or not lb:
            return None
        text, starts, needle = self.text, self.starts, la + lb
        pos, misses = text.find(needle), 0
        while pos >= 0:
            w = bisect_right(starts, pos) - 1
            syms = seg[w]
            if len(syms) > self.LONG:
                return None
            i = _adjacent(syms, a, b)
            if i is not None:
                return w, i
            misses += 1
            if misses > self.MISSES:
                return None
            pos = text.find(needle, starts[w + 1])
        return None

    def first(self, seg, pairs):
        """``{pair: (word id, position)}`` for every pair of ``pairs``, or ``None`` if one of
        them is not found this way."""
        out = {}
        for p in pairs:
            at = self.find(seg, p)
            if at is None:
                return None
            out[p] = at
        return out


def _adjacent(syms, a: str, b: str):
    """The first ``i`` with ``syms[i:i + 2] == (a, b)``, or ``None``."""
    index, last, i = syms.index, len(syms) - 1, -1
    while True:
        try:
            i = index(a, i + 1)
        except ValueError:
            return None
        if i < last and syms[i + 1] == b:
            return i
