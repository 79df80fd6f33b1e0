"""Unigram's input: text cut into ``▁``-words, and a corpus argument read and checked.

The trace (:mod:`.trace`) cuts new text with :func:`metaspace_words` (hf-course) as training
did; :func:`sentences` and :func:`word_count_items` read the ``corpus`` argument of
:func:`~bpe_viz.engine.unigram.train_unigram` for both flavours (:mod:`.course`,
:mod:`.sentencepiece`), with the same error messages.

Example::

    >>> sentences("hug pug\\npun")
    ['hug pug', 'pun']
    >>> word_count_items({"▁hug": 3})
    [('▁hug', 3)]
"""

from __future__ import annotations

from collections.abc import Iterable

from ..text.scripts import MARK

__all__ = ["metaspace_words", "sentences", "word_count_items"]


def metaspace_words(text: str) -> list[str]:
    """Cut text as Hugging Face's ``Metaspace`` pre-tokenizer does (``prepend_scheme="always"``):
    each space becomes ``▁``, a ``▁`` is put in front, and a word starts at every ``▁``.

    Example::

        >>> metaspace_words("This is the Hugging Face Course.")
        ['▁This', '▁is', '▁the', '▁Hugging', '▁Face', '▁Course.']
    """
    s = text.replace(" ", MARK)
    if not s:
        return []
    if not s.startswith(MARK):
        s = MARK + s
    out, start = [], 0
    for i in range(1, len(s)):
        if s[i] == MARK:
            out.append(s[start:i])
            start = i
    out.append(s[start:])
    return out


def sentences(corpus, argname="corpus") -> list[str]:
    """Text -> its lines; a list of sentences as given. (Mappings are handled by the callers.)"""
    if isinstance(corpus, str):
        return corpus.split("\n")
    if isinstance(corpus, (bytes, bytearray)):
        raise TypeError(f"{argname} must be text (str), a list of sentences or a mapping word -> count; "
                        f"got bytes: decode it first, e.g. data.decode('utf-8')")
    if isinstance(corpus, Iterable):
        out = []
        for s in corpus:
            if not isinstance(s, str):
                raise TypeError(f"{argname}: every sentence must be a str, got {type(s).__name__} {s!r}")
            out.append(s)
        return out
    raise TypeError(f"{argname} must be text (str), a list of sentences or a mapping word -> count, "
                    f"got {type(corpus).__name__}")


def word_count_items(corpus, argname="corpus") -> list[tuple[str, int]]:
    """A mapping word -> count as ``(word, count)`` pairs, each checked (a non-empty str, a
    positive int)."""
    out = []
    for w, c in corpus.items():
        if not isinstance(w, str) or not w:
            raise ValueError(f"{argname}: every word must be a non-empty str, got {w!r}")
        if isinstance(c, bool) or not isinstance(c, int) or c < 1:
            raise ValueError(f"{argname}: the count of {w!r} must be a positive int, got {c!r}")
        out.append((w, c))
    return out
