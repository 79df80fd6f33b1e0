"""Unigram training as the Hugging Face course's code runs it (``flavour="hf-course"``).

The course, chapter 6, section 7. Seeds are every character plus the ``seed_size`` (300) most
frequent substrings of length 2 or more (whole words included), or the pieces you pass as
``initial_vocab``. A piece's probability is its substring frequency over the total, computed
once (no EM). Each round removes the 10 % of pieces whose removal raises the loss least
(``sorted`` is stable, so among equal losses the earlier piece goes first) and stops when at
most ``vocab_size`` pieces are left (the course's loop: ``vocab_size=100`` ends at 98) or a
round would remove nothing. The course's ``encode_word`` starts every word's score at 1
instead of 0, so the losses it prints are one higher per word than the definition:
``snapshot.loss`` is the definition, ``snapshot.course_loss`` the printed figure (removal
losses are differences, the same either way).

The course's loops, made linear and kept to the bit (``tests/test_unigram_scaling.py`` runs
them literally against these):

* the seeds: it counts every substring of every word (a word of ``n`` characters has
  ``n²/2``); here one suffix automaton of the distinct words counts each substring class once
  (:func:`top_substrings`), ties in first-seen order as the course's stable ``sorted`` leaves them;
* a cut: Viterbi walks a radix tree of the pieces (:func:`piece_tree`, :func:`tree_cut`), so a
  position costs the pieces that start there, not ``maxlen`` slices;
* a removal loss: the course re-adds the whole corpus's loss for every piece; only the words
  whose best cut uses the piece change, so the sum before the first of them is read from the
  running totals and the rest is added in C (``functools.reduce``), in the course's order.

Its sibling :mod:`.sentencepiece` trains the same kind of model the way sentencepiece 0.2.3
does (EM, other seeds, another pruning rule); the trace (:mod:`.trace`) cuts words with
:mod:`.lattice`'s ``course_cut``, which :func:`tree_cut` agrees with.

Example::

    >>> rounds, stop = course_rounds({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 12, 300, None, None)
    >>> [len(r.pieces) for r in rounds], stop
    ([19, 18, 17, 16, 15, 14, 13, 12], 'vocab_size reached')
"""

from __future__ import annotations

import heapq
import math
from functools import reduce
from itertools import accumulate
from operator import add

from .trace import Removed, UnigramSnapshot

__all__ = ["course_rounds", "piece_tree", "top_substrings", "tree_cut"]


def course_rounds(word_counts: dict, vocab_size: int, seed_size: int, initial_vocab, callback):
    """The rounds (:class:`~.trace.UnigramSnapshot`, seeds first) and why training stopped."""
    if initial_vocab is None:
        token_freqs = _seed_freqs(word_counts, seed_size)
    else:
        token_freqs = _given_freqs(word_counts, initial_vocab)
    chars = sum(1 for t in token_freqs if len(t) == 1)
    if vocab_size < chars:
        raise ValueError(f"vocab_size must be at least the {chars} characters of the corpus (single characters are "
                         f"never removed), got {vocab_size}")
    words = list(word_counts.items())
    neg, total = _model_of(token_freqs)
    tree = piece_tree(neg)
    cuts = _cut_all(words, tree)
    rounds = [_snapshot(0, words, token_freqs, total, tree, cuts, note="seeds")]
    stop = "no corpus" if not words else "vocab_size reached"
    while len(neg) > vocab_size:
        scores = _removal_losses(words, cuts, neg, tree)
        ranked = sorted(scores.items(), key=lambda x: x[1])
        n_remove = min(int(len(neg) * 0.1), len(ranked))
        if n_remove == 0:
            stop = "nothing left to remove" if not ranked else "a round would remove no piece"
            break
        cut_value = ranked[n_remove - 1][1]
        tied_cut = n_remove < len(ranked) and ranked[n_remove][1] == cut_value
        removed = tuple(Removed(t, s, tied_cut and s == cut_value, "lowest removal loss") for t, s in ranked[:n_remove])
        kept_at_cut = tuple(t for t, s in ranked[n_remove:] if tied_cut and s == cut_value)
        for t, _ in ranked[:n_remove]:
            token_freqs.pop(t)
        neg, total = _model_of(token_freqs)
        tree = piece_tree(neg)
        cuts = _cut_all(words, tree)
        rounds.append(_snapshot(len(rounds), words, token_freqs, total, tree, cuts, removal_losses=scores,
                                removed=removed, kept_at_cut=kept_at_cut))
        if callback is not None:
            callback(len(rounds) - 1, len(neg))
    return rounds, stop


def _seed_freqs(word_counts: dict, seed_size: int) -> dict:
    """The course's seeds: every character (first seen first), then the most frequent longer substrings."""
    char_freqs: dict = {}
    for word, freq in word_counts.items():
        for c in word:
            char_freqs[c] = char_freqs.get(c, 0) + freq
    return dict([*char_freqs.items(), *top_substrings(word_counts, seed_size - len(char_freqs))])


def top_substrings(word_counts: dict, m: int) -> list[tuple[str, int]]:
    """The ``m`` most frequent substrings of 2 or more characters of the words, with their counts
    (each occurrence, overlapping ones too, weighs its word's count): most frequent first, and
    among equal counts the first seen first (by word, then start, then length), as the course's
    stable sort of its substring dict orders them.

    One suffix automaton of all the words (each word started afresh from the root) holds every
    substring in a class of substrings that end at the same places; a class's count is the
    weight of its end positions, and its substrings are its longest one's suffixes down to one
    longer than its suffix link's. Linear in the characters of the words, where listing every
    substring is quadratic per word.

    Example::

        >>> top_substrings({"hug": 10, "pug": 5, "hugs": 5}, 4)
        [('ug', 20), ('hu', 15), ('hug', 15), ('pu', 5)]
    """
    if m <= 0 or not word_counts:
        return []
    link, length, first, cnt = _automaton(word_counts)
    for v in sorted(range(1, len(length)), key=length.__getitem__, reverse=True):
        cnt[link[v]] += cnt[v]  # a class's end positions include those of the longer classes linking to it
    groups: dict = {}
    for v in range(1, len(length)):
        hi, lo = length[v], max(2, length[link[v]] + 1)
        if hi >= lo:  # (start of its first occurrence, length, shortest length): longest first
            groups.setdefault(cnt[v], []).append((first[v] - hi + 1, hi, lo))
    text = "".join(word_counts)
    out: list = []
    for count in sorted(groups, reverse=True):
        heap = groups[count]
        heapq.heapify(heap)  # by first occurrence; a class's next shorter substring starts one later
        while heap:
            start, n, lo = heapq.heappop(heap)
            out.append((text[start:start + n], count))
            if len(out) == m:
                return out
            if n > lo:
                heapq.heappush(heap, (start + 1, n - 1, lo))
    return out


def _automaton(word_counts: dict):
    """A generalized suffix automaton of the words: per state its suffix link, longest length,
    first end position (in the words written one after another) and the weight of the prefixes
    ending there (not yet summed up the links)."""
    nxt: list = [{}]
    link, length, first, cnt = [-1], [0], [0], [0]

    def clone(q, p, c, n):
        k = len(length)
        nxt.append(dict(nxt[q]))
        link.append(link[q])
        length.append(n)
        first.append(first[q])
        cnt.append(0)
        while p != -1 and nxt[p].get(c) == q:
            nxt[p][c] = k
            p = link[p]
        link[q] = k
        return k

    pos = 0
    for word, f in word_counts.items():
        last = 0
        for c in word:
            p = last
            q = nxt[p].get(c)
            if q is None:
                last = len(length)
                nxt.append({})
                link.append(0)
                length.append(length[p] + 1)
                first.append(pos)
                cnt.append(0)
                while p != -1 and c not in nxt[p]:
                    nxt[p][c] = last
                    p = link[p]
                if p != -1:
                    q = nxt[p][c]
                    link[last] = q if length[q] == length[p] + 1 else clone(q, p, c, length[p] + 1)
            elif length[q] == length[p] + 1:
                last = q
            else:  # the word so far was seen before, inside a longer class: split it off
                last = clone(q, p, c, length[p] + 1)
            cnt[last] += f
            pos += 1
    return link, length, first, cnt


def _given_freqs(word_counts: dict, initial_vocab) -> dict:
    """The pieces given as ``initial_vocab``, with their substring frequencies."""
    token_freqs = {}
    for p in initial_vocab:
        n = sum(f * _occurrences(w, p) for w, f in word_counts.items())
        if n == 0:
            raise ValueError(f"initial_vocab: the piece {p!r} never occurs in the corpus")
        token_freqs[p] = n
    missing = sorted({c for w in word_counts for c in w} - set(token_freqs))
    if missing:
        raise ValueError(f"initial_vocab must hold every character of the corpus (single characters are never "
                         f"removed, so every word can be cut); missing: {' '.join(missing[:20])}")
    return token_freqs


def _model_of(freqs):
    """piece -> ``-log p`` (the course's scores) and the total frequency."""
    total = sum([f for f in freqs.values()])
    return {t: -math.log(f / total) for t, f in freqs.items()}, total


def piece_tree(neg: dict) -> dict:
    """The pieces as a radix tree: ``{first character: (length, label, score or None, children)}``,
    a label running down to the next piece or branching (no chain of one-child nodes), so a
    walk along a word meets only the nodes that matter. ``children`` is the same kind of dict.

    Example::

        >>> piece_tree({"h": 3.0, "hug": 2.5, "hugs": 4.0})
        {'h': (1, 'h', 3.0, {'u': (2, 'ug', 2.5, {'s': (1, 's', 4.0, {})})})}
    """
    root: list = [None, {}]
    for piece, score in neg.items():
        node = root
        for c in piece:
            node = node[1].setdefault(c, [None, {}])
        node[0] = score
    stack = [root]
    while stack:
        kids = stack.pop()[1]
        for c, child in kids.items():
            label = c
            while child[0] is None and len(child[1]) == 1:
                (c2, child), = child[1].items()
                label += c2
            kids[c] = (len(label), label, child[0], child[1])
            stack.append(child)
    return root[1]


def tree_cut(word: str, tree: dict, start, exclude: str | None = None):
    """The course's ``encode_word`` over a :func:`piece_tree`: ``(pieces, score)``, the lowest sum
    of ``-log p`` from ``start``, the first found kept among equals (candidates met by start,
    shorter first, as the course's loops meet them); ``exclude``: a piece to leave out.
    The same sums and comparisons as :func:`~.lattice.course_cut`, so the same result to the bit.

    Example::

        >>> tree = piece_tree({"h": 3.0, "u": 3.0, "g": 3.0, "s": 3.0, "hug": 2.5})
        >>> tree_cut("hugs", tree, 0.0), tree_cut("hugs", tree, 1, exclude="hug")
        ((('hug', 's'), 5.5), (('h', 'u', 'g', 's'), 13.0))
    """
    skip = _children_of(tree, exclude) if exclude is not None else None
    chars = list(word)
    n = len(chars)
    inf = math.inf
    best = [inf] * (n + 1)
    back = [0] * (n + 1)
    best[0] = start
    for s in range(n):
        base = best[s]
        if base == inf:
            continue
        kids, e = tree, s
        while e < n:
            edge = kids.get(chars[e])
            if edge is None:
                break
            size, label, sc, kids = edge
            if size > 1 and not word.startswith(label, e):
                break
            e += size
            if sc is not None and kids is not skip:  # a node is known by its children dict
                cand = base + sc
                if cand < best[e]:
                    best[e] = cand
                    back[e] = s
    if best[n] == inf:
        return None, None
    pieces, e = [], n
    while e > 0:
        s = back[e]
        pieces.append(word[s:e])
        e = s
    pieces.reverse()
    return tuple(pieces), best[n]


def _children_of(tree, piece):
    """The children dict of ``piece``'s node (what :func:`tree_cut` knows a node by)."""
    kids, i = tree, 0
    while i < len(piece):
        edge = kids.get(piece[i])
        if edge is None or not piece.startswith(edge[1], i):
            return None  # not a piece: nothing to leave out
        size, _, _, kids = edge
        i += size
    return kids


def _cut_all(words, tree):
    """Every word's best cut, scored from 1 as the course's ``encode_word`` scores it."""
    return [tree_cut(w, tree, 1) for w, _ in words]


def _snapshot(k, words, freqs, total, tree, cuts1, **kw):
    """Round ``k``: the loss by the definition (words scored from 0) and as the course prints it."""
    loss0 = 0.0
    course = 0
    for (w, f), (_, s1) in zip(words, cuts1):
        course += f * s1
    for (w, f) in words:
        loss0 += f * tree_cut(w, tree, 0.0)[1]
    return UnigramSnapshot(k, {t: f / total for t, f in freqs.items()}, loss0, course_loss=course, **kw)


def _removal_losses(words, cuts, neg, tree) -> dict:
    """piece -> how much the corpus loss grows without it (single characters are never removed).

    The course re-adds every word's loss for each piece; the words whose cut does not use the
    piece add what they added before, so the sum up to the first word that changes is the
    running total there, and only the rest is added again (in order: the same float)."""
    terms = [f * c[1] for (_, f), c in zip(words, cuts)]
    running = list(accumulate(terms, initial=0))  # running[i]: the course's sum before word i
    model_loss = running[-1]
    users: dict = {}
    for i, c in enumerate(cuts):
        for p in set(c[0]):
            users.setdefault(p, []).append(i)
    scores = {}
    for token in neg:
        if len(token) == 1:
            continue  # the course always keeps single characters
        loss = model_loss
        at = users.get(token)
        if at:
            tail = terms[at[0]:]
            for i in at:
                w, f = words[i]
                tail[i - at[0]] = f * tree_cut(w, tree, 1, exclude=token)[1]
            loss = reduce(add, tail, running[at[0]])
        scores[token] = loss - model_loss
    return scores


def _occurrences(word: str, piece: str) -> int:
    """Occurrences of ``piece`` in ``word``, overlapping ones included (as the course counts)."""
    n, i = 0, word.find(piece)
    while i >= 0:
        n += 1
        i = word.find(piece, i + 1)
    return n
