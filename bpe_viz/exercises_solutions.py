"""Answers to the "build it yourself" exercises: BPE written out by hand, in minbpe's order.

Plain Python with no imports, what a learner writes (after Karpathy's minbpe, ``base.py`` and
``basic.py``): count the adjacent pairs, merge one pair, train by merging the most frequent pair
again and again, encode new text by merge rank; then the same on UTF-8 bytes with integer ids
(bytes 0..255, merge ``i`` makes id ``256 + i``). The notebook's collapsed "show solution" cell
shows these functions.

How it differs from its sibling :mod:`bpe_viz.exercises`: this file is one answer; that one is the
checker, which compares any answer with the engine (``bpe_viz.train_bpe``), never with this file.

Example (Gage's 1994 example, as minbpe's tests use it)::

    >>> merges = train("aaabdaaabac", 3)
    >>> merges
    [('a', 'a'), ('aa', 'a'), ('aaa', 'b')]
    >>> encode("aaabdaaabac", merges)
    ['aaab', 'd', 'aaab', 'a', 'c']
    >>> train_bytes("aaabdaaabac", 3)
    {(97, 97): 256, (256, 97): 257, (257, 98): 258}
"""

__all__ = ["count_pairs", "merge", "train", "encode", "train_bytes", "encode_bytes"]


def count_pairs(ids):
    """How often each adjacent pair occurs (overlapping), in order of first appearance.

    Example::

        >>> count_pairs(["a", "a", "a", "b"])
        {('a', 'a'): 2, ('a', 'b'): 1}
    """
    counts = {}
    for pair in zip(ids, ids[1:]):  # a a a b -> (a, a) (a, a) (a, b)
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def merge(ids, pair, new):
    """A new list with every occurrence of ``pair`` replaced by ``new``, left to right.

    Example::

        >>> merge(["a", "a", "a", "b"], ("a", "a"), "aa")
        ['aa', 'a', 'b']
    """
    out = []
    i = 0
    while i < len(ids):
        # subtle: in "a a a" the pair (a, a) merges once: after a merge, go on past both symbols
        if i < len(ids) - 1 and (ids[i], ids[i + 1]) == pair:
            out.append(new)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def train(text, num_merges):
    """The pairs BPE merges, in order, on the characters of ``text`` (one sequence, spaces and
    newlines included, as minbpe's ``BasicTokenizer``); stops early when no pair is left.

    Example::

        >>> train("aaaa", 3)
        [('a', 'a'), ('aa', 'aa')]
    """
    symbols = list(text)
    merges = []
    for _ in range(num_merges):
        counts = count_pairs(symbols)
        if not counts:
            break  # one symbol left: nothing to merge
        # max() returns the first pair met among equal counts: the tie rule
        best = max(counts, key=counts.get)
        symbols = merge(symbols, best, best[0] + best[1])
        merges.append(best)
    return merges


def encode(text, merges):
    """``text`` cut into tokens: again and again merge, of the learned pairs present, the one
    learned first (the lowest rank), until none is left.

    Example::

        >>> encode("abcd", [("c", "d"), ("a", "b"), ("b", "c")])
        ['ab', 'cd']
    """
    rank = {pair: i for i, pair in enumerate(merges)}
    symbols = list(text)
    while len(symbols) >= 2:
        counts = count_pairs(symbols)
        best = min(counts, key=lambda p: rank.get(p, float("inf")))
        if best not in rank:
            break  # no learned pair is left
        symbols = merge(symbols, best, best[0] + best[1])
    return symbols


def train_bytes(text, num_merges):
    """minbpe's ``BasicTokenizer.train``: the merges ``{(a, b): new_id}`` learned on the UTF-8
    bytes of ``text``; the first merge makes id 256, the next 257, ...

    Example::

        >>> train_bytes("héhé", 2)
        {(104, 195): 256, (256, 169): 257}
    """
    ids = list(text.encode("utf-8"))
    merges = {}
    for i in range(num_merges):
        counts = count_pairs(ids)
        if not counts:
            break
        best = max(counts, key=counts.get)
        merges[best] = 256 + i
        ids = merge(ids, best, 256 + i)
    return merges


def encode_bytes(text, merges):
    """minbpe's ``encode``: the ids of ``text``, merging by ``merges`` (lowest new id first).

    Example::

        >>> encode_bytes("héhé!", {(104, 195): 256, (256, 169): 257})
        [257, 257, 33]
    """
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        counts = count_pairs(ids)
        best = min(counts, key=lambda p: merges.get(p, float("inf")))
        if best not in merges:
            break
        ids = merge(ids, best, merges[best])
    return ids
