"""What a Unigram round shows, as plain data: the removal ranking (the Δloss table's rows and
its cut), the lattice of one word (every way to cut it, the most probable first), the pieces'
probabilities, the pieces the next round removes, the loss curve.

One home for the numbers :mod:`.html`, :mod:`.charts` (matplotlib) and :mod:`.svg` draw, so
they say the same. Reading a round only reads the trace; the sorting a table needs is done once
per round and kept (a slider step stays fast on a SentencePiece run with thousands of
candidates).

Example (the Hugging Face course's toy corpus and its 15 seed pieces)::

    >>> from bpe_viz import train_unigram
    >>> toy = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    >>> seeds = ["h", "u", "g", "hu", "ug", "p", "pu", "n", "un", "b", "bu", "s", "hug", "gs", "ugs"]
    >>> trace = train_unigram(toy, vocab_size=12, initial_vocab=seeds)
    >>> ranking = removal_ranking(trace[1])
    >>> ranking.cut, [r.piece for r in ranking.rows[:2]], ranking.rows[-1]
    (1, ['hu', 'ug'], RankedPiece(piece='hug', loss=23.513752571634768, removed=False, tied=False))
    >>> paths = lattice_paths(trace[0], "pug")
    >>> [(" ".join(p.pieces), p.viterbi, p.tied) for p in paths.paths[:3]]
    [('p ug', True, True), ('pu g', False, True), ('p u g', False, False)]
"""

from __future__ import annotations

import math
import weakref
from typing import NamedTuple

__all__ = ["MAX_LATTICE_CHARS", "check_round", "same_score", "RankedPiece", "RemovalRanking", "removal_ranking",
           "LatticePath", "Lattice", "lattice_paths", "piece_probabilities", "removed_next", "loss_curve"]

#: The longest word whose lattice is drawn (the per-prefix table re-cuts every prefix).
MAX_LATTICE_CHARS = 60
_TIE_TOL = 1e-12  # relative: a product equal to another up to float rounding is a tie

# what a round must have: for its tables, for its charts
_RANKED = ("pieces", "removal_losses", "removed", "kept_at_cut", "round")
_CHARTED = ("pieces", "loss", "round", "scores")


def check_round(snapshot, name: str = "snapshot", *, charted: bool = False):
    """``snapshot`` if it is a round of a Unigram trace (``trace[k]``), else a TypeError naming
    ``name``; ``charted``: check only what the charts read."""
    if not all(hasattr(snapshot, a) for a in (_CHARTED if charted else _RANKED)):
        raise TypeError(f"{name} must be a round of a Unigram trace (trace[k] from train_unigram), "
                        f"got {type(snapshot).__name__}")
    return snapshot


def same_score(a: float, b: float) -> bool:
    """Two log-probabilities equal up to float rounding: the paths tie."""
    return math.isclose(a, b, rel_tol=_TIE_TOL, abs_tol=_TIE_TOL)


# -- the Δloss table's rows -------------------------------------------------------------------


class RankedPiece(NamedTuple):
    """One row of the Δloss table: the piece, its removal loss, whether the round removed it,
    whether its loss equals the one at the cut (and the order among equals decided)."""

    piece: str
    loss: float
    removed: bool
    tied: bool


class RemovalRanking(NamedTuple):
    """The pieces a round ranked, the smallest removal loss first: ``rows[:cut]`` were
    removed, ``rows[cut:]`` kept. ``others``: pieces the round removed for another reason
    (:class:`~bpe_viz.engine.unigram.Removed` with ``loss`` ``None``)."""

    rows: tuple
    cut: int
    others: tuple


_RANKINGS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def removal_ranking(snapshot) -> RemovalRanking:
    """The round's removal losses as a table: smallest first, the removed pieces above the cut.

    Among equal losses the removed pieces come first, so one line separates removed from kept
    (the round decided that order: hf-course removes the earlier piece, SentencePiece keeps it).
    Computed once per round.
    """
    check_round(snapshot)
    cached = _RANKINGS.get(snapshot)
    if cached is not None:
        return cached
    by_loss = {r.piece: r for r in snapshot.removed if r.loss is not None}
    others = tuple(r for r in snapshot.removed if r.loss is None)
    kept_tied = set(snapshot.kept_at_cut)
    order = sorted(
        enumerate(snapshot.removal_losses.items()),
        key=lambda t: (t[1][1], t[1][0] not in by_loss, t[0]),
    )
    rows = []
    for _, (piece, loss) in order:
        r = by_loss.get(piece)
        if r is not None:
            rows.append(RankedPiece(piece, loss, True, bool(r.tied)))
        else:
            rows.append(RankedPiece(piece, loss, False, piece in kept_tied))
    cut = sum(1 for r in rows if r.removed)
    if any(r.removed for r in rows[cut:]):
        # subtle: cannot happen if the engine removed the smallest losses; say so loudly if it did
        raise ValueError(f"round {snapshot.round}: a removed piece has a larger loss than a kept one")
    result = RemovalRanking(tuple(rows), cut, others)
    try:
        _RANKINGS[snapshot] = result
    except TypeError:
        pass
    return result


# -- the lattice of one word ------------------------------------------------------------------


class LatticePath(NamedTuple):
    """One way to cut a word: its pieces, log-probability (the sum of the pieces'), whether it
    is the path Viterbi kept, whether another path has exactly the same probability."""

    pieces: tuple
    score: float
    viterbi: bool
    tied: bool


class Lattice(NamedTuple):
    """Every way to cut ``word`` with the round's pieces: ``total`` of them; ``paths``: the most
    probable ones (best first, Viterbi's at the top of its tie), at most the number asked for;
    ``walkthrough``: the engine's per-prefix table."""

    word: str
    round: int
    total: int
    paths: tuple
    walkthrough: object


def _pieces_info(snapshot):
    """(log-probability of each piece, the longest piece's length), computed once per round."""
    info = snapshot.__dict__.get("_lattice_info")
    if info is None:
        scores = snapshot.scores
        info = snapshot.__dict__["_lattice_info"] = (scores, max(map(len, scores), default=1))
    return info


def lattice_paths(snapshot, word: str, max_paths: int = 12) -> Lattice:
    """The ``max_paths`` most probable ways to cut ``word`` with the pieces of a round, and how
    many ways there are in all (a word of n letters has up to 2^(n-1)).

    Paths are ranked by the sum of their pieces' log-probabilities, kept per prefix (the
    k best cuts of a prefix extend to the k best of the next: no path is enumerated twice).
    The path the engine's Viterbi chose (``encode_word``) is marked; paths exactly as probable
    as another are marked tied. A character no piece covers is an unknown piece
    (SentencePiece) or makes the word uncuttable (hf-course: no paths).

    Example::

        >>> from bpe_viz import train_unigram
        >>> toy = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
        >>> seeds = ["h", "u", "g", "hu", "ug", "p", "pu", "n", "un", "b", "bu", "s", "hug", "gs", "ugs"]
        >>> lat = lattice_paths(train_unigram(toy, 12, initial_vocab=seeds)[0], "unhug", max_paths=2)
        >>> lat.total, [" ".join(p.pieces) for p in lat.paths]
        (8, ['un hug', 'u n hug'])
    """
    check_round(snapshot)
    if isinstance(max_paths, bool) or not isinstance(max_paths, int) or max_paths < 1:
        raise ValueError(f"max_paths must be an int >= 1, got {max_paths!r}")
    if not isinstance(word, str) or not word.strip() or any(c.isspace() for c in word):
        raise ValueError(f"word must be one word (no spaces), got {word!r}")
    if len(word) > MAX_LATTICE_CHARS:
        raise ValueError(f"word: the lattice is drawn for words of at most {MAX_LATTICE_CHARS} characters, "
                         f"got {len(word):,}")
    trace = snapshot.trace
    walk = trace.encode_word(word, snapshot.round)
    word = walk.word  # the engine may put "▁" in front, as the word was seen in training
    scores, maxlen = _pieces_info(snapshot)
    unk = trace.unk_score(snapshot)
    n = len(word)
    keep = max_paths + 1
    count = [0] * (n + 1)
    count[0] = 1
    tops: list = [[] for _ in range(n + 1)]  # per end: up to `keep` (score, pieces), best first
    tops[0] = [(0.0, ())]
    for s in range(n):
        if not count[s]:
            continue
        single = False
        for e in range(s + 1, min(n, s + maxlen) + 1):
            sc = scores.get(word[s:e])
            if sc is None:
                continue
            single = single or e == s + 1
            _extend(tops, count, s, e, sc, word[s:e], keep)
        if not single and unk is not None:
            _extend(tops, count, s, s + 1, unk, word[s], keep)
    best = walk.final
    found = tops[n]
    if best is not None and all(p != best for _, p in found):
        found = [(walk.score, best), *found]  # a tie wider than the list: Viterbi's path still shows
    ranked = sorted(found, key=lambda t: (-t[0], t[1] != best))
    paths = []
    for sc, pieces in ranked[:max_paths]:
        tied = sum(1 for other, _ in found if same_score(other, sc)) > 1
        paths.append(LatticePath(pieces, sc, pieces == best, tied))
    return Lattice(word, snapshot.round, count[n], tuple(paths), walk)


def _extend(tops, count, s, e, sc, piece, keep):
    count[e] += count[s]
    cur = tops[e]
    for base, pieces in tops[s]:
        cur.append((base + sc, pieces + (piece,)))
    if len(cur) > keep:
        cur.sort(key=lambda t: -t[0])  # stable: among equals the path found first stays first
        del cur[keep:]
    else:
        cur.sort(key=lambda t: -t[0])


# -- the charts' data ---------------------------------------------------------------------------


def piece_probabilities(snapshot) -> list[tuple[str, float]]:
    """``(piece, probability)`` for every piece of a round, most probable first (equal ones in
    the vocabulary's order). SentencePiece stores log-probabilities: they are exponentiated.

    Example::

        >>> from bpe_viz import train_unigram
        >>> trace = train_unigram({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 14)
        >>> [(p, round(q, 4)) for p, q in piece_probabilities(trace[0])[:2]]
        [('u', 0.1525), ('g', 0.0847)]
    """
    check_round(snapshot, charted=True)
    cached = snapshot.__dict__.get("_by_probability")
    if cached is None:
        trace = getattr(snapshot, "trace", None)
        if getattr(trace, "flavour", None) == "hf-course":
            probs = list(snapshot.pieces.items())  # already probabilities
        else:
            probs = [(p, math.exp(s)) for p, s in snapshot.scores.items()]
        cached = snapshot.__dict__["_by_probability"] = sorted(probs, key=lambda t: -t[1])
    return cached


def removed_next(snapshot) -> set:
    """The pieces the round after ``snapshot`` removes (none after the last round)."""
    trace = getattr(snapshot, "trace", None)
    k = snapshot.round
    if trace is None or k + 1 >= len(trace):
        return set()
    return {r.piece for r in trace[k + 1].removed}


def loss_curve(trace):
    """``(rounds, losses, course_losses, sizes)``: lists indexed by round. ``course_losses``
    (hf-course only, else ``None``) is what the course's code prints: its ``encode_word`` starts
    every word's score at 1, so each is ``loss + number of words``.

    Example::

        >>> from bpe_viz import train_unigram
        >>> toy = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
        >>> seeds = ["h", "u", "g", "hu", "ug", "p", "pu", "n", "un", "b", "bu", "s", "hug", "gs", "ugs"]
        >>> rounds, loss, course, sizes = loss_curve(train_unigram(toy, 12, initial_vocab=seeds))
        >>> rounds, [round(x, 2) for x in loss], round(course[0] - loss[0], 6), sizes
        ([0, 1, 2, 3], [169.8, 165.21, 158.5, 152.55], 36.0, [15, 14, 13, 12])
    """
    rounds = list(range(len(trace)))
    losses = [s.loss for s in trace]
    course = [s.course_loss for s in trace] if trace.flavour == "hf-course" else None
    sizes = [len(s.pieces) for s in trace]
    return rounds, losses, course, sizes
