"""The sentencepiece trainer's seed counts in numpy: every valid substring of every word at once.

:func:`~.sentencepiece._seeds` finds the seed pieces the way sentencepiece 0.2.3 does (the
nodes of the text's suffix tree); its loop visits each substring of each distinct word in
Python. :func:`seed_stats` gives the same answer from arrays: for each length, every place
where a valid piece of that length starts is hashed (from the hash one character shorter),
the places are grouped by hash, and each group's count, and whether the bytes after it
differ, are read off at once. Every member of a group is compared with the group's first
character by character, so a hash collision is never taken for a repeat (the caller then
falls back to its loop). Its sibling :mod:`.flat_lattice` walks the lattices the same way.

numpy is imported when called, never at ``import bpe_viz``.

Example::

    >>> freq, valid = seed_stats(["▁ab", "▁abc"], [2, 1], [0, 0], [[3, 3, 3], [4, 4, 4, 4]], 0xE2)
    >>> sorted(freq.items()), "▁abc" in valid, "abd" in valid  # "ab": then ▁ (0xE2) or c
    ([('ab', 3), ('▁ab', 3)], True, False)
"""

from __future__ import annotations

from .flat_lattice import HASH_BASE, text_codes

__all__ = ["seed_stats"]

MASK = (1 << 64) - 1


def seed_stats(words, inner, last, ends, mark_byte: int):
    """``(freq, valid)``: ``freq`` piece -> count for every valid substring of two characters
    or more that occurs at least twice and is followed by different bytes (a node of the
    suffix tree), ``valid`` a container of every valid substring; ``None`` on a hash collision.

    ``words``: the distinct words; ``inner``/``last``: how often each occurs inside a sentence
    / last in one (after a word inside comes ``mark_byte``, after a last one a NUL, after a
    word that is both, both); ``ends``: per word, where the valid pieces starting at each
    character end at the latest (exclusive)."""
    import numpy as np  # lazy: the engine imports without numpy

    lengths = np.asarray([len(w) for w in words], dtype=np.int64)
    off = np.zeros(len(words) + 1, dtype=np.int64)
    np.cumsum(lengths + 1, out=off[1:])
    text = "\0".join(words) + "\0"
    codes = text_codes(np, text)
    size = len(codes)
    word_of = np.repeat(np.arange(len(words)), lengths + 1)
    inner, last = np.asarray(inner, dtype=np.int64), np.asarray(last, dtype=np.int64)
    weight = (inner + last)[word_of]
    word_end = off[1:] - 1  # where each word's separator sits
    nxt = np.empty(size, dtype=np.int64)  # the byte after each character
    nxt[:-1] = _first_bytes(np, codes[1:])
    nxt[word_end - 1] = np.where(inner > 0, mark_byte, 0)
    both = ((inner > 0) & (last > 0))[word_of]
    reach = np.asarray([e for w, row in enumerate(ends) for e in (*row, 0)], dtype=np.int64) + off[word_of]
    base = np.uint64(HASH_BASE)
    h = np.zeros(size, dtype=np.uint64)
    place = np.arange(size)
    freq, groups = {}, {}
    with np.errstate(over="ignore"):
        for ln in range(1, int((reach - place).max(initial=0)) + 1):
            h[:size - ln + 1] = h[:size - ln + 1] * base + codes[ln - 1:]
            if ln == 1:
                continue
            at = np.flatnonzero(reach[:size - ln + 1] >= place[:size - ln + 1] + ln)
            if not len(at):
                break
            keys = h[at]
            order = np.argsort(keys, kind="stable")
            at, keys = at[order], keys[order]
            starts = np.flatnonzero(np.append(True, keys[1:] != keys[:-1]))
            rep = at[starts]
            mine = np.repeat(rep, np.diff(np.append(starts, len(at))))
            for c in range(ln):
                if not (codes[at + c] == codes[mine + c]).all():
                    return None
            count = np.add.reduceat(weight[at], starts)
            after = nxt[at + ln - 1]
            branch = np.minimum.reduceat(after, starts) != np.maximum.reduceat(after, starts)
            branch |= np.maximum.reduceat(both[at] & (at + ln == word_end[word_of[at]]), starts)
            groups[ln] = (keys[starts], rep)
            for p, n in zip(rep[branch & (count >= 2)].tolist(), count[branch & (count >= 2)].tolist()):
                freq[text[p:p + ln]] = n
    return freq, _Substrings(np, text, groups)


def _first_bytes(np, codes):
    """The first UTF-8 byte of each code point (a lone surrogate as ``surrogatepass`` writes it)."""
    c = codes.astype(np.int64)
    return np.where(c < 0x80, c, np.where(c < 0x800, 0xC0 | (c >> 6),
                                          np.where(c < 0x10000, 0xE0 | (c >> 12), 0xF0 | (c >> 18))))


class _Substrings:
    """Every valid substring (two characters or more), asked by ``in``: its hash is looked up
    among those of its length, then the text there is compared."""

    def __init__(self, np, text: str, groups: dict):
        self.np, self.text, self.groups = np, text, groups

    def __contains__(self, piece) -> bool:
        got = self.groups.get(len(piece))
        if got is None:
            return False
        h = 0
        for ch in piece:
            h = (h * HASH_BASE + ord(ch)) & MASK
        keys, rep = got
        i = int(self.np.searchsorted(keys, self.np.uint64(h)))
        return i < len(keys) and int(keys[i]) == h and self.text[int(rep[i]):int(rep[i]) + len(piece)] == piece
