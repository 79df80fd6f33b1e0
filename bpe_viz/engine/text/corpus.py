"""Corpus preparation: raw text, word lists or word counts -> ordered word counts.

This module knows nothing about merges. It turns what a learner pastes (text, a list of words,
a ``{word: count}`` mapping, or the paper's pre-split ``{"l o w </w>": 5}`` dictionary) into one
shape, :class:`WordCounts`: distinct words in order of first appearance with their counts. Text is cut into words by a
pre-tokenizer (:mod:`~bpe_viz.engine.text.pretokenize`) after an optional Unicode normalization
(NFC keeps a Hangul syllable whole, NFD splits it into jamo); the byte view of a word is in
:mod:`~bpe_viz.engine.text.alphabet`.

Example::

    >>> wc = word_counts("low low lower")
    >>> list(wc.items())
    [('low', 2), ('lower', 1)]
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .pretokenize import get_pre_tokenizer, split_specials

__all__ = [
    "WordCounts",
    "SymbolCorpus",
    "word_counts",
    "from_symbol_dict",
    "normalize",
    "pre_tokenized",
    "NORMALIZATIONS",
]

NORMALIZATIONS = (None, "NFC", "NFD", "NFKC", "NFKD")


def _is_span_piece(p) -> bool:
    return (type(p) is tuple and len(p) == 2 and isinstance(p[0], str) and type(p[1]) is tuple and len(p[1]) == 2
            and all(isinstance(i, int) for i in p[1]))


def pre_tokenized(pre_tokenizer, method: str, text: str) -> list:
    """``pre_tokenizer.<method>(text)`` (``words``, ``training_words`` or ``split``), checked when
    the pre-tokenizer is not one of bpe_viz's own: a list of str, or of ``(str, (start, end))``
    for ``split``; anything else is a TypeError naming the pre-tokenizer.

    Example::

        >>> pre_tokenized(get_pre_tokenizer("whitespace"), "words", "low  lower")
        ['low', 'lower']
    """
    out = getattr(pre_tokenizer, method)(text)
    if type(pre_tokenizer).__module__.startswith("bpe_viz."):
        return out  # ours return the right shape (a function given by the user is checked there)
    ok = _is_span_piece if method == "split" else (lambda p: isinstance(p, str))
    if not isinstance(out, list) or not all(map(ok, out)):
        shape = "(str, (start, end)) pairs" if method == "split" else "str"
        bad = out if not isinstance(out, list) else next(p for p in out if not ok(p))
        label = f"<pre-tokenizer {getattr(pre_tokenizer, 'name', type(pre_tokenizer).__name__)}>"
        raise TypeError(f"pre_tokenizer: {label}.{method}(text) must return a list of {shape}, "
                        f"got {type(bad).__name__} {bad!r:.60}" + (" in the list" if bad is not out else ""))
    return out


@dataclass(frozen=True)
class WordCounts:
    """Distinct words in order of first appearance, each with its count (a positive int)."""

    words: tuple[str, ...]
    counts: tuple[int, ...]

    def items(self):
        return zip(self.words, self.counts)

    def __len__(self) -> int:
        return len(self.words)

    @property
    def total(self) -> int:
        """Number of running words (the sum of the counts)."""
        return sum(self.counts)


@dataclass(frozen=True)
class SymbolCorpus:
    """A word-frequency dictionary already split into symbols, as the 2016 paper writes it.

    Made by :func:`from_symbol_dict`; :func:`bpe_viz.train_bpe` accepts it directly and starts
    from exactly these symbols (the marker convention is read off the dictionary).
    """

    words: tuple[str, ...]
    counts: tuple[int, ...]
    symbols: tuple[tuple[str, ...], ...]
    end_of_word: str | None
    attach_end_of_word: bool


def normalize(text: str, form: str | None) -> str:
    """Apply a Unicode normalization form (``None`` leaves the text as it is).

    Example::

        >>> len(normalize("한", "NFD")), len(normalize("한", "NFC"))
        (3, 1)
    """
    if form is None:
        return text
    if form not in NORMALIZATIONS:
        raise ValueError(
            f"normalization must be one of None, 'NFC', 'NFD', 'NFKC', 'NFKD', got {form!r}"
        )
    return unicodedata.normalize(form, text)


def _check_count(word, count, argname: str) -> int:
    if isinstance(count, bool) or not isinstance(count, int):
        raise TypeError(
            f"{argname}: the count of {word!r} must be an int, got {type(count).__name__} {count!r}"
        )
    if count <= 0:
        raise ValueError(f"{argname}: the count of {word!r} must be >= 1, got {count}")
    return count


def _check_word(word, argname: str) -> str:
    if not isinstance(word, str):
        raise TypeError(
            f"{argname}: every word must be a str, got {type(word).__name__} {word!r}"
        )
    if word == "":
        raise ValueError(f"{argname}: words must not be empty strings")
    return word


def word_counts(corpus, normalization: str | None = None, argname: str = "corpus", pre_tokenizer=None,
                special_tokens=()) -> WordCounts:
    """Turn raw text, an iterable of words, or a mapping word -> count into :class:`WordCounts`.

    Raw text is cut by ``pre_tokenizer`` (default: split on whitespace, ``str.split()``, so words
    never contain whitespace; see :mod:`~bpe_viz.engine.text.pretokenize`), after the
    ``special_tokens`` are cut out (they are not words). Words of an iterable or
    mapping are taken as they are (they may contain spaces).

    Example::

        >>> word_counts(["b", "a", "b"]).words
        ('b', 'a')
        >>> word_counts({"low": 5, "lower": 2}).counts
        (5, 2)
    """
    if isinstance(corpus, WordCounts):
        pairs = list(corpus.items())
    elif isinstance(corpus, str):
        pretok = get_pre_tokenizer(pre_tokenizer)

        def words(part):
            return pre_tokenized(pretok, "training_words", part)

        text = normalize(corpus, normalization)
        if special_tokens:
            # special tokens are cut out first and never counted: no word spans across one
            counts = Counter()
            for part, special, _ in split_specials(text, special_tokens):
                if not special:
                    counts.update(words(part))
        else:
            counts = Counter(words(text))
        return WordCounts(tuple(counts), tuple(counts.values()))  # Counter keeps first-seen order
    elif isinstance(corpus, (bytes, bytearray)):
        raise TypeError(
            f"{argname} must be text (str), an iterable of words or a mapping word -> count; "
            f"got bytes: decode it first, e.g. data.decode('utf-8')"
        )
    elif isinstance(corpus, Mapping):
        pairs = [(_check_word(w, argname), _check_count(w, c, argname)) for w, c in corpus.items()]
    elif isinstance(corpus, Iterable):
        pairs = [(_check_word(w, argname), 1) for w in corpus]
    else:
        raise TypeError(
            f"{argname} must be text (str), an iterable of words or a mapping word -> count, "
            f"got {type(corpus).__name__}"
        )
    counts = {}
    for w, c in pairs:
        w = normalize(w, normalization)
        counts[w] = counts.get(w, 0) + c
    return WordCounts(tuple(counts), tuple(counts.values()))


def from_symbol_dict(vocab: Mapping[str, int], end_of_word: str | None = "</w>") -> SymbolCorpus:
    """Read the paper's pre-split dictionary ``{"l o w </w>": 5, ...}`` (symbols split by spaces).

    The marker convention is read off the keys: a last symbol equal to ``end_of_word`` means the
    marker is its own symbol; a last symbol ending with it means it is attached (subword-nmt
    >= 0.2); no marker at all means ``end_of_word=None``. All keys must agree.

    Example::

        >>> sc = from_symbol_dict({"l o w </w>": 5, "l o w e r </w>": 2})
        >>> sc.words, sc.symbols[0], sc.attach_end_of_word
        (('low', 'lower'), ('l', 'o', 'w', '</w>'), False)
    """
    if not isinstance(vocab, Mapping):
        raise TypeError(
            f"vocab must be a mapping like {{'l o w </w>': 5}}, got {type(vocab).__name__}"
        )
    if end_of_word is not None and (not isinstance(end_of_word, str) or not end_of_word):
        raise ValueError(f"end_of_word must be a non-empty str or None, got {end_of_word!r}")
    words, counts, symbols, styles = [], [], [], set()
    for key, count in vocab.items():
        if not isinstance(key, str):
            raise TypeError(f"vocab: every key must be a str, got {type(key).__name__} {key!r}")
        syms = tuple(key.split())
        if not syms:
            raise ValueError(f"vocab: the key {key!r} has no symbols")
        _check_count(key, count, "vocab")
        if end_of_word is not None and syms[-1] == end_of_word:
            style = "own"
            word = "".join(syms[:-1])
            if not word:
                raise ValueError(f"vocab: the key {key!r} is only the end-of-word marker")
        elif end_of_word is not None and syms[-1].endswith(end_of_word):
            style = "attached"
            word = "".join(syms)[: -len(end_of_word)]
        else:
            style = "none"
            word = "".join(syms)
        styles.add(style)
        if word in words:
            raise ValueError(f"vocab: the word {word!r} appears twice ({key!r})")
        words.append(word)
        counts.append(count)
        symbols.append(syms)
    if len(styles) > 1:
        raise ValueError(
            "vocab: the keys disagree on the end-of-word marker "
            f"(found {sorted(styles)}); use one convention for every word"
        )
    style = styles.pop() if styles else "none"
    return SymbolCorpus(
        tuple(words),
        tuple(counts),
        tuple(symbols),
        None if style == "none" else end_of_word,
        style == "attached",
    )
