"""Tiny pure helpers on symbol tuples, shared by training, encoding and the reference.

Merges walk symbol lists; nothing here joins symbols into a string and runs a regex over it
(the 2016 paper's ``re.sub`` version mangles backslashes and can merge across symbols).

Example::

    >>> merge_symbols(("a", "a", "a"), ("a", "a"), "aa")
    ('aa', 'a')
"""

from __future__ import annotations

from itertools import accumulate

__all__ = ["merge_symbols", "pairs_of", "pair_offsets"]


def merge_symbols(symbols: tuple[str, ...], pair: tuple[str, str], token: str) -> tuple[str, ...]:
    """Replace every occurrence of ``pair`` by ``token``, left to right, non-overlapping.

    Example::

        >>> merge_symbols(("l", "o", "w", "</w>"), ("o", "w"), "ow")
        ('l', 'ow', '</w>')
    """
    a, b = pair
    out = []
    i = 0
    n = len(symbols)
    last = n - 1
    while i < n:
        s = symbols[i]
        # subtle: (a, a) on "a a a" merges the first two only -> ("aa", "a")
        if i < last and s == a and symbols[i + 1] == b:
            out.append(token)
            i += 2
        else:
            out.append(s)
            i += 1
    return tuple(out)


def pairs_of(symbols: tuple[str, ...]):
    """Adjacent pairs, left to right (overlapping, as BPE counts them).

    Example::

        >>> list(pairs_of(("a", "b", "c")))
        [('a', 'b'), ('b', 'c')]
    """
    return zip(symbols, symbols[1:])


def pair_offsets(symbols: tuple[str, ...], size=len) -> list[int]:
    """Offset, in the joined word, where each pair's left symbol starts; ``size`` measures a
    symbol (by default its characters).

    These offsets survive merges (a merge never moves a symbol's start) as long as a merged
    symbol's size is the sum of its parts' — true of characters for BPE; WordPiece measures
    symbols without their "##", which a merge drops. The "first pair met" rule needs that.

    Example::

        >>> pair_offsets(("lo", "w", "</w>"))
        [0, 2]
    """
    return [0, *accumulate(map(size, symbols[:-2]))] if len(symbols) > 1 else []
