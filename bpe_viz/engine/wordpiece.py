"""train_wordpiece: WordPiece training by score, with exact Fraction scores; WordPiece encoding.

How it differs from its sibling :mod:`bpe_viz.bpe`: BPE merges the most *frequent* pair.
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
from dataclasses import replace
from fractions import Fraction

from .bpe import _PairIndex, _prepare, _UNSET, check_num_merges, resolve_convention
from .trace import Merge, Trace

__all__ = ["train_wordpiece", "iter_wordpiece", "wordpiece_encode_pieces", "wordpiece_walkthrough"]

MAX_CHARS_PER_WORD = 100  # as BERT: longer words become the unknown token


def _check_prefix(prefix) -> str:
    if not isinstance(prefix, str) or not prefix or any(c.isspace() for c in prefix):
        raise ValueError(f"prefix must be a non-empty str without whitespace, got {prefix!r}")
    return prefix


def iter_wordpiece(corpus, num_merges: int = 10, *, prefix: str = "##", tie_break: str = "first", normalization=_UNSET):
    """Like :func:`train_wordpiece`, but returns a :class:`~bpe_viz.bpe.Training` to iterate."""
    from .bpe import Training

    num_merges = check_num_merges(num_merges)
    prefix = _check_prefix(prefix)
    conv = resolve_convention(None, algorithm="wordpiece", end_of_word=None, tie_break=tie_break, min_frequency=1, normalization=normalization)
    conv = replace(conv, prefix=prefix)
    words, counts, initial, _ = _prepare(corpus, conv)
    trace = Trace(words, counts, initial, conv, internal_marker=None)
    return Training(trace, _wp_steps(trace, initial, counts, num_merges), num_merges)


def train_wordpiece(
    corpus,
    num_merges: int = 10,
    *,
    prefix: str = "##",
    tie_break: str = "first",
    normalization=_UNSET,
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
    run = iter_wordpiece(corpus, num_merges, prefix=prefix, tie_break=tie_break, normalization=normalization)
    return run.run(callback)


def _wp_steps(trace: Trace, initial, freqs, num_merges: int):
    conv = trace.convention
    first_rule = conv.tie_break == "first"
    prefix = conv.prefix
    plen = len(prefix)
    state = _PairIndex(initial, freqs, first_rule)
    counts, first = state.counts, state.first
    for p in counts:
        trace._pid(p)
    tokc: dict = dict(zip(trace.base_symbols, trace._base_counts))
    tcounts = list(trace._base_counts)
    trace._checkpoint(state.seg, counts, tcounts)
    tindex = trace._token_index
    reason = "num_merges"
    step = 0
    while step < num_merges:
        if not counts:
            reason = "no_pairs"
            break
        # float scores find the best quickly; exact Fractions decide among the near-best
        best = 0.0
        fl = {}
        for p, c in counts.items():
            s = c / (tokc[p[0]] * tokc[p[1]])
            fl[p] = s
            if s > best:
                best = s
        near = [p for p, s in fl.items() if s >= best * (1 - 1e-9)]
        exact = {p: Fraction(counts[p], tokc[p[0]] * tokc[p[1]]) for p in near}
        top = max(exact.values())
        tied = [p for p in near if exact[p] == top]
        if first_rule:
            pair = min(tied, key=first.__getitem__)
        else:
            pair = max(tied)
        step += 1
        a, b = pair
        tok = a + (b[plen:] if b.startswith(prefix) else b)
        count = counts[pair]
        ws, new_syms, dd, _moved, occ, work = state.apply(pair, tok)
        merge = Merge(step, pair, tok, count, top, trace, pair, tok)
        tcounts.append(0)
        trace._record(merge, ws, new_syms, [(p, d) for p, d in dd.items() if d], occ, work)
        tokc[a] -= occ
        tokc[b] -= occ
        tokc[tok] = tokc.get(tok, 0) + occ
        tcounts[tindex(a)] -= occ
        tcounts[tindex(b)] -= occ
        tcounts[tindex(tok)] += occ
        if trace._work >= trace._next_ckpt:
            trace._checkpoint(state.seg, counts, tcounts)
        yield merge
    trace._finish(reason)


def _vocab(trace: Trace, k: int) -> set:
    cache = trace.__dict__.setdefault("_wp_vocab_cache", {})
    v = cache.get(k)
    if v is None:
        if len(cache) > 8:
            cache.clear()
        v = set(trace.base_symbols) | set(trace._completion_symbols)
        v.update(m._token_internal for m in trace.merges[:k])
        cache[k] = v
    return v


def _greedy(word: str, vocab: set, prefix: str, record: list | None = None):
    if len(word) > MAX_CHARS_PER_WORD:
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
    pieces = _greedy(word, _vocab(trace, k), trace.convention.prefix)
    return (word,) if pieces is None else pieces


def wordpiece_walkthrough(word: str, trace: Trace, k: int):
    """The greedy longest-match choices for one word, as a WordWalkthrough."""
    from .encode import EncodeStep, WordWalkthrough

    record: list = []
    pieces = _greedy(word, _vocab(trace, k), trace.convention.prefix, record)
    steps = []
    for before, tried, cur in record:
        after = before + ((cur,) if cur is not None else ())
        steps.append(EncodeStep(before, tuple((t, i + 1) for i, t in enumerate(tried)), None, None, after))
    initial = trace.initial_symbols(word)
    final = (word,) if pieces is None else pieces
    return WordWalkthrough(word, initial, tuple(steps), final, k, algorithm="wordpiece")
