"""The first-met order of a state's pairs: the order in which a fresh recount meets them,
reading the words in corpus order, each left to right. A positional tie rule ("first pair
met", Hugging Face's and the course's) breaks ties by it.

:class:`FirstMetScan` reads that order as far as it is asked and no further (issue 20: a cold
slider step needs the ranks of a few tied pairs, not of every pair of the corpus), and goes on
from where it stopped when asked for more. Its sibling
:class:`~bpe_viz.engine.merges.pair_finder.PairFinder` finds the first occurrence of a few pairs
by text search instead; :class:`~bpe_viz.engine.merges.pair_ranking.PairRanking` picks one.
"""

from __future__ import annotations

from itertools import chain, compress, count, islice
from operator import itemgetter

__all__ = ["FirstMetScan"]

_TAIL = itemgetter(slice(1, None))  # syms -> syms[1:]


class FirstMetScan:
    """The first-met order of the pairs of ``words`` (a state's segmented words, in corpus
    order), read as far as asked: words in growing chunks, each chunk's pairs at C speed
    (``dict.fromkeys`` keeps each pair's first occurrence, in order), a long word (a text
    without spaces is one) in growing pieces of its own. ``ranks`` maps every pair met so far
    to its rank among distinct pairs.

    Example::

        >>> scan = FirstMetScan([("l", "o", "w"), ("l", "o", "t"), ("o", "w")])
        >>> scan.until(lambda ranks: ("o", "t") in ranks)[("o", "t")]
        2
        >>> scan.until(None)
        {('l', 'o'): 0, ('o', 'w'): 1, ('o', 't'): 2}
    """

    LONG = 4096  # symbols: a longer word is read in pieces (the scan may stop inside it)
    MAX_CHUNK = 512  # words read between two checks

    def __init__(self, words, start: int = 0):
        # start: the first word read (the ranks then order only pairs that no word before it holds)
        self.seg, self.seen, self.ranks, self.lo, self.size = words, {}, {}, start, 256
        self.pos, self.piece = 0, self.LONG  # where in seg[lo] a long word's reading stands

    def until(self, enough) -> dict:
        """Read on until ``enough(ranks)`` holds (``None``: to the end); ``ranks``."""
        seg, seen, ranks = self.seg, self.seen, self.ranks
        while self.lo < len(seg) and (enough is None or not enough(ranks)):
            if self.pos or len(seg[self.lo]) > self.LONG:
                self._read_piece()
            else:
                chunk = seg[self.lo:self.lo + self.size]
                # stop before the chunk's first long word: it is read in pieces
                cut = next(compress(count(), map(self.LONG.__lt__, map(len, chunk))), len(chunk))
                chunk = chunk[:cut]
                # growing chunks, up to MAX_CHUNK words: a doubling chunk overshoots by up to the
                # whole corpus when a rare tied pair is met late (a slider step's ties often are)
                self.lo, self.size = self.lo + len(chunk), min(self.size * 2, self.MAX_CHUNK)
                # each word's pairs: zip(syms, syms[1:]), mapped over the chunk at C speed
                seen.update(dict.fromkeys(chain.from_iterable(map(zip, chunk, map(_TAIL, chunk)))))
            ranks.update(zip(islice(seen, len(ranks), None), count(len(ranks))))
        return ranks

    def _read_piece(self) -> None:
        word, pos = self.seg[self.lo], self.pos
        piece = word[pos:pos + self.piece + 1]  # one symbol more: the pair across the cut
        self.seen.update(dict.fromkeys(zip(piece, piece[1:])))
        self.pos, self.piece = pos + self.piece, self.piece * 2
        if self.pos >= len(word) - 1:
            self.lo, self.pos, self.piece = self.lo + 1, 0, self.LONG
