"""subword-nmt's two apply-bpe options: glossaries and the vocabulary filter.

* **Glossaries** (``apply_bpe --glossaries``): regular expressions for strings that must never
  be split (names, tags, numbers). A glossary match is cut out of any word that holds it, kept
  whole, and each part around it is encoded as a word of its own: with the glossary ``like``,
  ``wordlikeword`` becomes ``wo@@ rd@@ like@@ wo@@ rd``.
* **Vocabulary filter** (``--vocabulary F --vocabulary-threshold N``, Sennrich et al.'s advice
  for a joint BPE): units of the encoding that occur fewer than N times in the training text
  (``subword-nmt get-vocab`` counts them, spelled ``ir@@`` inside a word and ``on`` at its end)
  are split back by undoing their merges, until every unit is frequent enough or a character.

Both behave as ``subword_nmt.apply_bpe`` 0.3.8 does; ``tests/test_subword_nmt.py`` runs it.

Example::

    >>> isolate_glossaries("wordlikeword", ["like"])
    [('word', False), ('like', True), ('word', False)]
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["check_glossaries", "isolate_glossaries", "check_vocabulary", "vocabulary_splitter"]


def check_glossaries(glossaries) -> tuple[str, ...]:
    """The glossaries as a tuple of valid regular expressions (ValueError/TypeError otherwise)."""
    if glossaries is None:
        return ()
    if isinstance(glossaries, str) or not hasattr(glossaries, "__iter__"):
        raise TypeError(f"glossaries must be a list of str (regular expressions), got {type(glossaries).__name__} "
                        f"{glossaries!r}")
    out = []
    for g in glossaries:
        if not isinstance(g, str):
            raise TypeError(f"glossaries: each must be a str (a regular expression), got {type(g).__name__} {g!r}")
        if not g:
            raise ValueError("glossaries: an empty string would match everywhere; remove it")
        try:
            re.compile(g)
        except re.error as e:
            raise ValueError(f"glossaries: {g!r} is not a valid regular expression ({e})") from None
        out.append(g)
    return tuple(out)


def _isolate(word: str, gloss: str) -> list[str]:
    # subword-nmt's isolate_glossary, step for step
    if re.match("^" + gloss + "$", word) or not re.search(gloss, word):
        return [word]
    segments = re.split(r"({})".format(gloss), word)
    segments, ending = segments[:-1], segments[-1]
    segments = list(filter(None, segments))
    return segments + [ending.strip("\r\n ")] if ending != "" else segments


def isolate_glossaries(word: str, glossaries) -> list[tuple[str, bool]]:
    """``word`` cut around each glossary match, in order: ``(segment, is_glossary)``."""
    segments = [word]
    for g in glossaries:
        segments = [out for seg in segments for out in _isolate(seg, g)]
    whole = re.compile("^({})$".format("|".join(glossaries)))
    return [(s, bool(whole.match(s))) for s in segments]


def check_vocabulary(vocabulary, threshold) -> frozenset | None:
    """The units kept: the keys of ``vocabulary`` counted at least ``threshold`` times."""
    if vocabulary is None:
        if threshold is not None:
            raise ValueError("vocabulary_threshold needs a vocabulary={unit: count} to filter")
        return None
    if isinstance(vocabulary, Mapping):
        items = list(vocabulary.items())
    elif isinstance(vocabulary, (str, bytes)) or not hasattr(vocabulary, "__iter__"):
        raise TypeError(f"vocabulary must be a mapping unit -> count (as subword-nmt get-vocab writes it), "
                        f"got {type(vocabulary).__name__}")
    else:
        items = [(u, None) for u in vocabulary]
    if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, int)):
        raise TypeError(f"vocabulary_threshold must be an int or None, got {type(threshold).__name__} {threshold!r}")
    kept = set()
    for unit, count in items:
        if not isinstance(unit, str):
            raise TypeError(f"vocabulary: units must be str (like 'ir@@' or 'on'), got {type(unit).__name__} {unit!r}")
        if threshold is not None:
            if not isinstance(vocabulary, Mapping):
                raise ValueError("vocabulary_threshold needs counts: pass vocabulary as a mapping unit -> count")
            if isinstance(count, bool) or not isinstance(count, (int, float)):
                raise TypeError(f"vocabulary: the count of {unit!r} must be a number (how often subword-nmt's "
                                f"get-vocab saw it), got {type(count).__name__} {count!r:.60}")
            if count < threshold:
                continue
        kept.add(unit)
    return frozenset(kept)


def vocabulary_splitter(trace, k: int, vocab: frozenset, separator: str = "@@"):
    """A function ``internal symbols of one word -> symbols`` that splits units missing from
    ``vocab`` back along their merges (subword-nmt's ``check_vocab_and_split``)."""
    reverse: dict = {}
    for m in reversed(trace.merges[:k]):  # the earliest merge making a string wins
        reverse[m.token_internal] = m.pair_internal
    mk = trace.internal_marker
    show = trace.show

    def plain(s):  # the unit as get-vocab spells it, without the end-of-word marker
        p = show(s)
        return p[: -len(trace.marker.text)] if p.endswith(trace.marker.text) else p

    def rsplit(seg, final):
        pair = reverse.get(seg)
        if pair is None:
            yield seg
            return
        left, right = pair
        if plain(left) + separator in vocab:
            yield left
        else:
            yield from rsplit(left, False)
        if (final and plain(right) in vocab) or (not final and plain(right) + separator in vocab):
            yield right
        else:
            yield from rsplit(right, final)

    def split(syms):
        out = []
        for s in syms[:-1]:
            if plain(s) + separator in vocab:
                out.append(s)
            else:
                out.extend(rsplit(s, False))
        last = syms[-1]
        if plain(last) in vocab:
            out.append(last)
        else:
            out.extend(rsplit(last, last.endswith(mk)))
        return tuple(out)

    return split
