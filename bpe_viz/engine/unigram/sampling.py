"""Unigram's subword regularization (Kudo 2018): cut a word at random, not always its best way.

:mod:`.lattice` finds the *best* cut of a word (Viterbi); this file gives *every* cut its
probability and draws cuts from it, as SentencePiece does when it encodes with
``enable_sampling=True, nbest_size=-1``: a cut's probability is ``P(cut)^alpha`` normalized over
all cuts of the word (``P(cut)`` the product of its pieces' probabilities). ``alpha = 1`` samples
from the model itself; a small ``alpha`` flattens the distribution (more varied cuts); a large
one sharpens it towards the Viterbi cut.

* :func:`cut_distribution`: the exact distribution, by enumerating every path of the lattice
  (small words only: ``limit`` caps the number of cuts);
* :func:`sample_cuts`: draws, by forward filtering then backward sampling over the lattice (the
  algorithm of sentencepiece's ``Lattice::Sample``): the forward pass sums, for every prefix, the
  weights of all its cuts; a draw walks back from the end, picking the last piece in proportion
  to ``forward(start) * P(piece)^alpha``. Linear in the word, however many cuts it has.

The lattice is the one the trace's encoder uses (its scores at ``round``, an unknown character a
piece of its own in the sentencepiece flavour), so the most probable cut is ``encode_word``'s.

Example (the Hugging Face course's corpus)::

    >>> from bpe_viz import corpora, train_unigram
    >>> uni = train_unigram(corpora.load("hf-course"), vocab_size=12)
    >>> [(" ".join(c), round(p, 3)) for c, p in cut_distribution("pug", uni, round=0)]
    [('pug', 0.617), ('p ug', 0.178), ('pu g', 0.178), ('p u g', 0.027)]
    >>> [(" ".join(c), round(p, 3)) for c, p in cut_distribution("pug", uni, round=0, alpha=0.2)]
    [('pug', 0.323), ('p ug', 0.252), ('pu g', 0.252), ('p u g', 0.173)]
    >>> sample_cuts("pug", uni, 5, alpha=0.2, round=0, seed=1)
    [('pug',), ('p', 'u', 'g'), ('p', 'ug'), ('p', 'u', 'g'), ('pug',)]
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from itertools import accumulate

from ..checks import check_int
from ..text.scripts import MARK
from .from_pieces import PieceUnigram
from .trace import UnigramTrace

__all__ = ["cut_distribution", "sample_cuts"]

LIMIT = 100_000  # cut_distribution's default cap on the number of cuts it lists


def _lattice(word, unigram_trace, alpha, round):
    """(the word as the encoder sees it, per end position the pieces ending there as
    ``(start, piece, alpha * score)``, the log of the forward sums per position)."""
    if not isinstance(unigram_trace, UnigramTrace):
        raise TypeError(f"unigram_trace must be a Unigram trace (train_unigram, unigram_from_pieces), got "
                        f"{type(unigram_trace).__name__} {unigram_trace!r:.60}")
    if not isinstance(word, str):
        raise TypeError(f"word must be a str, got {type(word).__name__} {word!r:.60}")
    if not word:
        raise ValueError("word must be a non-empty str, got ''")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise TypeError(f"alpha must be a float > 0, got {type(alpha).__name__} {alpha!r:.60}")
    if not 0 < alpha < math.inf:
        raise ValueError(f"alpha must be a finite float > 0, got {alpha!r}")
    last = len(unigram_trace) - 1
    k = last if round is None else check_int("round", round, 0, maximum=last, what=" (the rounds of this trace)")
    snap = unigram_trace[k]
    if isinstance(unigram_trace, PieceUnigram):  # a model file: its candidates (user-defined pieces scored)
        form = word.replace(" ", unigram_trace.space)
        scores = {p: s for p, (s, _) in unigram_trace.candidates.items()}
        unk = unigram_trace.unk_score_value
    else:
        form = MARK + word if unigram_trace.flavour == "sentencepiece" and not word.startswith(MARK) else word
        scores, unk = snap.scores, unigram_trace.unk_score(snap)
    return (form, *_forward(form, scores, unk, float(alpha), word))


def _forward(form, scores, unk, alpha, word):
    """The lattice of ``form`` (pieces by end) and the forward log-sums: ``forward[e]`` is the
    log of the summed weights ``P(cut)^alpha`` of every cut of ``form[:e]``."""
    n, score_of = len(form), scores.get
    maxlen = max(map(len, scores), default=1)
    ending: list = [[] for _ in range(n + 1)]
    for s in range(n):
        single = False
        for e in range(s + 1, min(n, s + maxlen) + 1):
            sc = score_of(form[s:e])
            if sc is not None:
                ending[e].append((s, form[s:e], alpha * sc))
                single = single or e == s + 1
        if not single and unk is not None:  # subtle: an unknown character is a piece (sentencepiece)
            ending[s + 1].append((s, form[s], alpha * unk))
    forward = [-math.inf] * (n + 1)
    forward[0] = 0.0
    for e in range(1, n + 1):
        terms = [forward[s] + w for s, _, w in ending[e] if forward[s] > -math.inf]
        if terms:
            top = max(terms)
            forward[e] = top + math.log(sum(math.exp(t - top) for t in terms))
    if forward[n] == -math.inf:
        raise ValueError(f"word: no piece covers every character of {word!r:.60}, so it has no cut "
                         "(the hf-course flavour has no unknown piece)")
    return ending, forward


def cut_distribution(word: str, unigram_trace, *, alpha: float = 1.0, round: int | None = None,
                     limit: int = LIMIT) -> list[tuple[tuple[str, ...], float]]:
    """Every cut of ``word`` with its probability under subword regularization, most probable
    first (equal ones in the order found): ``[(pieces, probability)]``, the probabilities summing
    to 1. A cut's probability is ``P(cut)^alpha`` over the sum of that over all cuts, ``P`` by the
    pieces of ``round`` (the last by default). The word is cut as ``encode_word`` cuts it (the
    sentencepiece flavour puts ``▁`` in front), so the first cut is Viterbi's (unless tied).
    Raises ``ValueError`` when ``word`` has more than ``limit`` cuts (use :func:`sample_cuts`).

    Example::

        >>> from bpe_viz import corpora, train_unigram
        >>> uni = train_unigram(corpora.load("hf-course"), vocab_size=12)
        >>> [(" ".join(c), round(p, 2)) for c, p in cut_distribution("hugs", uni, alpha=0.5)]
        [('hugs', 0.73), ('hug s', 0.23), ('h u g s', 0.04)]
    """
    limit = check_int("limit", limit, 1)
    form, ending, forward = _lattice(word, unigram_trace, alpha, round)
    n = len(form)
    count = [1] + [0] * n  # how many cuts each prefix has
    for e in range(1, n + 1):
        count[e] = sum(count[s] for s, _, _ in ending[e])
    if count[n] > limit:
        raise ValueError(f"word: {word!r:.60} has {count[n]:,} cuts, more than limit={limit:,}: "
                         "raise the limit or draw cuts with sample_cuts")
    cuts = [((), 0.0)]  # the cuts of each prefix, built left to right: (pieces, weight)
    by_end: list = [cuts] + [[] for _ in range(n)]
    for e in range(1, n + 1):
        by_end[e] = [(c + (p,), w + pw) for s, p, pw in ending[e] for c, w in by_end[s]]
    z = forward[n]
    out = [(c, math.exp(w - z)) for c, w in by_end[n]]
    out.sort(key=lambda t: -t[1])
    return out


def sample_cuts(word: str, unigram_trace, n: int, *, alpha: float = 1.0, round: int | None = None,
                seed: int = 0) -> list[tuple[str, ...]]:
    """``n`` cuts of ``word`` drawn at random, each with the probability :func:`cut_distribution`
    gives it (``P(cut)^alpha``, normalized), by forward filtering and backward sampling: linear in
    the word's length per draw. The same ``seed`` gives the same draws.

    Example::

        >>> from bpe_viz import corpora, train_unigram
        >>> uni = train_unigram(corpora.load("hf-course"), vocab_size=12)
        >>> sample_cuts("pug", uni, 4, alpha=0.2, round=0, seed=3)
        [('pug',), ('p', 'ug'), ('p', 'u', 'g'), ('pug',)]
    """
    n = check_int("n", n, 0)
    seed = check_int("seed", seed, 0)
    form, ending, forward = _lattice(word, unigram_trace, alpha, round)
    choices = []  # per end: the pieces ending there and their cumulative probabilities
    for e, nodes in enumerate(ending):
        weights = [math.exp(forward[s] + w - forward[e]) if forward[s] > -math.inf else 0.0 for s, _, w in nodes]
        choices.append((nodes, list(accumulate(weights))))
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        cut, e = [], len(form)
        while e > 0:
            nodes, cum = choices[e]
            i = min(bisect_right(cum, rng.random() * cum[-1]), len(cum) - 1)
            s, piece, _ = nodes[i]
            cut.append(piece)
            e = s
        cut.reverse()
        out.append(tuple(cut))
    return out
