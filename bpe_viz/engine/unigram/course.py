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

Its sibling :mod:`.sentencepiece` trains the same kind of model the way sentencepiece 0.2.3
does (EM, other seeds, another pruning rule); both cut words with :mod:`.lattice`.

Example::

    >>> rounds, stop = course_rounds({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 12, 300, None, None)
    >>> [len(r.pieces) for r in rounds], stop
    ([19, 18, 17, 16, 15, 14, 13, 12], 'vocab_size reached')
"""

from __future__ import annotations

import math

from .lattice import course_cut
from .trace import Removed, UnigramSnapshot

__all__ = ["course_rounds"]


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
    cuts = _cut_all(words, neg)
    rounds = [_snapshot(0, words, token_freqs, neg, total, cuts, note="seeds")]
    stop = "no corpus" if not words else "vocab_size reached"
    while len(neg) > vocab_size:
        scores = _removal_losses(words, cuts, neg)
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
        cuts = _cut_all(words, neg)
        rounds.append(_snapshot(len(rounds), words, token_freqs, neg, total, cuts, removal_losses=scores,
                                removed=removed, kept_at_cut=kept_at_cut))
        if callback is not None:
            callback(len(rounds) - 1, len(neg))
    return rounds, stop


def _seed_freqs(word_counts: dict, seed_size: int) -> dict:
    """The course's seeds: every character, then the most frequent longer substrings."""
    char_freqs: dict = {}
    sub: dict = {}
    for word, freq in word_counts.items():
        for i in range(len(word)):
            char_freqs[word[i]] = char_freqs.get(word[i], 0) + freq
            for j in range(i + 2, len(word) + 1):
                sub[word[i:j]] = sub.get(word[i:j], 0) + freq
    ranked = sorted(sub.items(), key=lambda x: x[1], reverse=True)  # stable: first seen first
    return dict([*char_freqs.items(), *ranked[:max(0, seed_size - len(char_freqs))]])


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


def _maxlen_of(neg):
    return max(map(len, neg), default=1)


def _cut_all(words, neg):
    """Every word's best cut, scored from 1 as the course's ``encode_word`` scores it."""
    maxlen = _maxlen_of(neg)
    return [course_cut(w, neg, maxlen, 1) for w, _ in words]


def _snapshot(k, words, freqs, neg, total, cuts1, **kw):
    """Round ``k``: the loss by the definition (words scored from 0) and as the course prints it."""
    loss0 = 0.0
    course = 0
    for (w, f), (_, s1, _) in zip(words, cuts1):
        course += f * s1
    maxlen = _maxlen_of(neg)
    for (w, f) in words:
        loss0 += f * course_cut(w, neg, maxlen, 0.0)[1]
    return UnigramSnapshot(k, {t: f / total for t, f in freqs.items()}, loss0, course_loss=course, **kw)


def _removal_losses(words, cuts, neg) -> dict:
    """piece -> how much the corpus loss grows without it (single characters are never removed)."""
    maxlen = _maxlen_of(neg)
    model_loss = 0
    for (w, f), c in zip(words, cuts):
        model_loss += f * c[1]
    users: dict = {}
    for i, c in enumerate(cuts):
        for p in set(c[0]):
            users.setdefault(p, []).append(i)
    scores = {}
    for token in neg:
        if len(token) == 1:
            continue  # the course always keeps single characters
        changed = {i: course_cut(words[i][0], neg, maxlen, 1, exclude=token)[1] for i in users.get(token, ())}
        loss = 0
        for i, ((w, f), c) in enumerate(zip(words, cuts)):
            loss += f * changed.get(i, c[1])
        scores[token] = loss - model_loss
    return scores


def _occurrences(word: str, piece: str) -> int:
    """Occurrences of ``piece`` in ``word``, overlapping ones included (as the course counts)."""
    n, i = 0, word.find(piece)
    while i >= 0:
        n += 1
        i = word.find(piece, i + 1)
    return n
