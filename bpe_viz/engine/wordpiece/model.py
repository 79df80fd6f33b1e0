"""train_wordpiece: WordPiece training by score, with exact Fraction scores; WordPiece encoding.

How it differs from its sibling :mod:`bpe_viz.engine.bpe.model`: BPE merges the most *frequent* pair.
WordPiece, as the Hugging Face NLP course teaches it (chapter 6), merges the pair with the best

    score(a, b) = count(ab) / (count(a) * count(b))

so a pair of rare tokens that nearly always occur together beats a pair of common ones. Words
start as their first character plus ``##``-prefixed continuation characters (``w ##i ##d``).
Scores are exact (:class:`fractions.Fraction`), so ties are real ties, not float accidents.

Encoding is BERT's: greedy longest match first, continuation pieces carry ``##``, and a word
with a piece missing from the vocabulary becomes the unknown token as a whole.

Note: Hugging Face ``tokenizers``' own ``WordPieceTrainer`` does *not* train by this score: it
trains BPE by frequency and only writes the result in WordPiece form. This module follows the
course's description of Google's (unpublished) training algorithm.

Example (Jurafsky & Martin SLP3 §2.5.2 corpus)::

    >>> text = "low " * 5 + "lowest " * 2 + "newer " * 6 + "wider " * 3 + "new " * 2
    >>> trace = train_wordpiece(text, num_merges=5)
    >>> [(m.token, str(m.score)) for m in trace.merges]
    [('##st', '1/2'), ('wi', '1/3'), ('wid', '1/3'), ('lo', '1/7'), ('low', '1/15')]
"""

from __future__ import annotations

from collections.abc import Callable

from ..merges.encoding import EncodeStep, WordWalkthrough
from ..merges.model import Model, register
from ..merges.pairs import PairIndex
from ..merges.ranking import best_by_score, rank, wordpiece_score
from ..merges.recorder import Recorder, numpy_or_none
from ..merges.training import UNSET as _UNSET, Training, check_num_merges, prepare, resolve_convention
from ..merges.trace import Merge, Trace

__all__ = ["train_wordpiece", "iter_wordpiece", "wordpiece_encode_pieces", "WordPiece", "longest_match", "score_arrays"]

MAX_CHARS_PER_WORD = 100  # as BERT: longer words become the unknown token


class WordPiece(Model):
    """WordPiece: rank pairs by the exact score; encode by greedy longest match."""

    name = "wordpiece"
    title = "WordPiece (score = count(ab) / (count(a)·count(b)))"
    scored = True
    rank_label = "score"

    def exact(self, tc, tindex):
        return lambda p, c: wordpiece_score(c, tc[tindex(p[0])], tc[tindex(p[1])])

    def approx(self, tc, tindex):
        return lambda p, c: c / (tc[tindex(p[0])] * tc[tindex(p[1])])

    def approx_all(self, items, tc, slot_of) -> list:
        # approx over every pair of a step (a cold slider step reads it): one comprehension,
        # 2-3x faster than a chain of maps on Python 3.11
        return [c / (tc[slot_of[a]] * tc[slot_of[b]]) for (a, b), c in items]

    def approx_arrays(self, snapshot):
        return score_arrays(snapshot)

    def prepare(self, trace):
        if numpy_or_none() is not None:
            _pair_slots(trace)  # the pairs' token slots, read by every step's score_arrays

    def segmenter(self, trace, k):
        return lambda w: wordpiece_encode_pieces(w, trace, k)

    def walkthrough(self, word, trace, k):
        record: list = []
        pieces = longest_match(word, _vocab(trace, k), trace.marker.text, record)
        steps = []
        for before, tried, cur in record:
            after = before + ((cur,) if cur is not None else ())
            steps.append(EncodeStep(before, tuple((t, i + 1) for i, t in enumerate(tried)), None, None, after))
        initial = trace.initial_symbols(word)
        final = (word,) if pieces is None else pieces
        return WordWalkthrough(word, initial, tuple(steps), final, k, algorithm="wordpiece", longest_match=True)


register(WordPiece())


def iter_wordpiece(corpus, num_merges: int = 10, *, prefix: str = "##", tie_break: str = "first",
                   normalization=_UNSET, pre_tokenizer=_UNSET):
    """Like :func:`train_wordpiece`, but returns a :class:`~bpe_viz.engine.merges.training.Training`."""
    num_merges = check_num_merges(num_merges)
    if prefix is None:  # None would mean "no marker": WordPiece needs its continuation prefix
        raise ValueError("prefix must be a non-empty str without whitespace (the continuation prefix, '##' as "
                         "BERT's), got None")
    conv = resolve_convention(None, {}, {}, algorithm="wordpiece", end_of_word=None, prefix=prefix,
                              tie_break=tie_break, min_frequency=1, normalization=normalization,
                              pre_tokenizer=pre_tokenizer)
    words, counts, initial, _ = prepare(corpus, conv)
    trace = Trace(words, counts, initial, conv, internal_marker=conv.marker.text)
    return Training(trace, _wp_steps(trace, initial, counts, num_merges), num_merges)


def train_wordpiece(
    corpus,
    num_merges: int = 10,
    *,
    prefix: str = "##",
    tie_break: str = "first",
    normalization=_UNSET,
    pre_tokenizer=_UNSET,
    callback: Callable[[Merge], object] | None = None,
) -> Trace:
    """Train WordPiece by score count(ab) / (count(a)·count(b)); the same trace shape as BPE.

    Each merge has ``.score`` (a Fraction) and ``.count`` (the pair's frequency); each snapshot
    has ``.scores()``. ``tie_break="first"`` takes, among equal best scores, the pair met first
    (the course's loop over a freshly built dict); ``"lexicographic"`` the greatest pair.

    Hugging Face ``tokenizers``' ``WordPieceTrainer`` trains by frequency (BPE), not by this
    score; this follows the Hugging Face course's account of WordPiece training.

    Example::

        >>> t = train_wordpiece({"hug": 10, "pug": 5, "hugs": 5}, num_merges=1)
        >>> t.merges[0].pair, t.merges[0].score
        (('h', '##u'), Fraction(1, 20))
    """
    run = iter_wordpiece(corpus, num_merges, prefix=prefix, tie_break=tie_break, normalization=normalization,
                         pre_tokenizer=pre_tokenizer)
    return run.run(callback)


def _wp_steps(trace: Trace, initial, freqs, num_merges: int):
    """The WordPiece training loop: rescore every pair each step (scores change with the token
    counts, so a heap would not stay valid), pick by the exact score and the tie rule."""
    rule = trace.tie_rule
    prefix = trace.marker.text
    plen = len(prefix)
    # positions count characters without the "##", which merging drops, so they survive merges
    state = PairIndex(initial, freqs, rule.positional,
                      size=lambda s: len(s) - plen if s.startswith(prefix) else len(s))
    rec = Recorder(trace, state)
    counts, first = state.counts, state.first
    tokc: dict = dict(zip(trace.base_symbols, trace.history.base_counts))
    join = trace.marker.join
    m = trace.internal_marker
    reason = "num_merges"
    step = 0
    while step < num_merges:
        if not counts:
            reason = "no_pairs"
            break
        top, tied = best_by_score(counts, tokc)
        if len(tied) > 1:
            tied = [p for p, _ in rank([(p, 0) for p in tied], dict.fromkeys(tied, 0), rule, first, trace.show, trace.to_bytes,
                                         trace.hf_id)]
        pair = tied[0]
        step += 1
        a, b = pair
        tok = join(a, b, m)
        count = counts[pair]
        change = state.apply(pair, tok)
        occ = change.occurrences
        tokc[a] -= occ
        tokc[b] -= occ
        tokc[tok] = tokc.get(tok, 0) + occ
        merge = Merge(step, pair, tok, count, top, trace, pair, tok)
        rec.record(merge, change)
        yield merge
    rec.finish(reason)


def score_arrays(snapshot):
    """Every pair of ``snapshot`` (a state of any merge trace) with its count and its WordPiece
    score as numpy arrays, in :attr:`~bpe_viz.engine.merges.snapshot.Snapshot.pair_counts` order:
    ``(ids, counts, scores)``, ``ids`` indexing ``trace.history.pairs``; the scores the same floats
    as ``count / (token_counts[a] * token_counts[b])``. ``None`` when the arrays cannot say the
    same as those dicts (a trace that spells two symbols alike, or counts too large for exact
    float division): read the dicts then.

    Why: a cold slider step of the compare explorer charts every pair of a real text (10,000 or
    more); one array division is ~50 times cheaper than a dict lookup per pair.

    Example::

        >>> from bpe_viz import train_bpe
        >>> snap = train_bpe({"hug": 10, "pug": 5, "hugs": 5}, 0, preset="hf-course")[0]
        >>> ids, counts, scores = score_arrays(snap)
        >>> [snap.trace.history.pairs[i] for i in ids][:2], counts.tolist()[:2], scores.tolist()[:2]
        ([('h', 'u'), ('u', 'g')], [15, 20], [0.05, 0.05])
    """
    import numpy as np  # (only here: never at import bpe_viz)

    trace = snapshot.trace
    slots = _pair_slots(trace)
    if slots is None:
        return None
    counts = np.asarray(snapshot.state[1], dtype=np.int64)
    ids = np.flatnonzero(counts)
    counts = counts[ids]
    tc = np.asarray(snapshot.state[2], dtype=np.int64)
    den = tc[slots[0][ids]] * tc[slots[1][ids]]
    if len(ids) and (den.max() >= 2 ** 53 or counts.max() >= 2 ** 53 or den.min() <= 0):
        return None  # (float division would round twice, or divide by zero as no dict does)
    return ids, counts, counts / den


def _pair_slots(trace):
    """The token-count slots of the two sides of every pair of ``trace.history.pairs`` (numpy
    arrays), kept per trace until it grows; ``None`` when a token's public spelling is not its
    own slot's (a trace that remaps its marker, or a merged token spelled as a base symbol)."""
    import numpy as np

    h = trace.history
    key = (len(h.pairs), len(h.merged_tokens))
    kept = trace.__dict__.get("_wp_pair_slots")
    if kept is None or kept[0] != key:
        plain = not trace.remaps_marker and set(h.merged_tokens).isdisjoint(h.base_symbols)
        slots = None
        if plain:
            index = h.token_index
            try:
                slots = (np.fromiter((index(a) for a, _ in h.pairs), np.intp, len(h.pairs)),
                         np.fromiter((index(b) for _, b in h.pairs), np.intp, len(h.pairs)))
            except KeyError:  # (a symbol with no slot: the dicts know what to do)
                slots = None
        kept = trace.__dict__["_wp_pair_slots"] = (key, slots)
    return kept[1]


def _vocab(trace: Trace, k: int) -> set:
    cache = trace.__dict__.setdefault("_wp_vocab_cache", {})
    v = cache.get(k)
    if v is None:
        if len(cache) > 8:
            cache.clear()
        v = set(trace.base_symbols) | set(trace.completion_symbols)
        v.update(m.token_internal for m in trace.merges[:k])
        cache[k] = v
    return v


def longest_match(word: str, vocab, prefix: str, record: list | None = None,
                  max_chars: int = MAX_CHARS_PER_WORD) -> tuple[str, ...] | None:
    """WordPiece's encoder on one word: the longest entry of ``vocab`` that starts the rest of
    the word (``prefix`` in front after the first piece), again and again; ``None`` when some
    rest has no entry or the word is over ``max_chars`` (the whole word is then unknown).
    ``record`` gets ``(pieces so far, pieces tried, piece found)`` per choice.

    Example::

        >>> longest_match("lowest", {"low", "##est", "##e"}, "##")
        ('low', '##est')
    """
    if len(word) > max_chars:
        return None
    pieces = []
    start = 0
    n = len(word)
    while start < n:
        end = n
        cur = None
        tried = []
        while start < end:
            sub = word[start:end]
            if start > 0:
                sub = prefix + sub
            tried.append(sub)
            if sub in vocab:
                cur = sub
                break
            end -= 1
        if record is not None:
            record.append((tuple(pieces), tuple(tried), cur))
        if cur is None:
            return None
        pieces.append(cur)
        start = end
    return tuple(pieces)


def wordpiece_encode_pieces(word: str, trace: Trace, k: int) -> tuple[str, ...]:
    """Greedy longest-match-first pieces of one word with the first ``k`` merges; a word with a
    missing piece comes back whole (it will be the unknown token).

    Example::

        >>> t = train_wordpiece({"hug": 10, "pug": 5, "hugs": 5}, num_merges=3)
        >>> wordpiece_encode_pieces("hugs", t, 3)
        ('hug', '##s')
        >>> wordpiece_encode_pieces("bug", t, 3)  # no "b" in the vocabulary: the whole word is unknown
        ('bug',)
    """
    pieces = longest_match(word, _vocab(trace, k), trace.convention.prefix)
    return (word,) if pieces is None else pieces
