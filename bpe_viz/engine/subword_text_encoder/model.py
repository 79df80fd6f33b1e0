"""train_subword_text_encoder: TFDS's SubwordTextEncoder, built top down, one search step at a time.

How it differs from its siblings. :mod:`~bpe_viz.engine.bpe.model` and
:mod:`~bpe_viz.engine.wordpiece.model` build a vocabulary *bottom up*: start from characters, glue the
best pair, repeat, one new token per step. SubwordTextEncoder (tensor2tensor's, by Noam Shazeer;
kept in TensorFlow Datasets as ``tfds.deprecated.text.SubwordTextEncoder``) works *top down*:

1. **Tokens.** The text is cut into runs of word characters (``\\w``: letters, digits, ``_``) and
   runs of everything else; a token followed by a single space gets ``_`` appended and the space
   is dropped (``"low low."`` -> ``low_`` ``low`` ``.``). A real underscore is escaped first as
   ``\\&undsc``, so ``_`` only ever means "a space follows".
2. **Count every substring.** Each token is split by the current vocabulary (greedy longest
   match, left to right; at first the vocabulary is empty, so every character is a piece). From
   every piece boundary, *every* substring starting there (up to ``max_subword_length``
   characters) is counted, weighted by the token's count: ``low_`` ×5 counts ``l lo low low_ o
   ow ow_ w w_ _`` five times each.
3. **Keep, longest first.** Substrings counted at least ``min_count`` times are taken from the
   longest to the shortest; when one is kept, the count of each of its prefixes is lowered by
   its count (those occurrences are already covered by the longer piece). Single bytes are
   never kept: all 256 are in the vocabulary anyway (byte fallback).
4. **Repeat** steps 2-3 four times with the new vocabulary: once long pieces exist, substrings
   starting inside them are no longer counted, and the counts settle.
5. **Binary search** on ``min_count`` (between the smallest and the largest token count): a
   high threshold keeps few pieces, a low one many. Each try (a :class:`SearchStep` here) builds
   a complete vocabulary with steps 2-4; the search stops within 1% of ``target_vocab_size``
   (or when the interval is used up) and keeps the try closest to the target.

Ids: 0 is padding, then the subwords (most frequent first, reserved tokens in front), then the
256 bytes: any text can be encoded, a piece missing from the vocabulary is spelled in UTF-8 bytes.
Encoding is greedy longest match, as in step 2.

This module reproduces ``SubwordTextEncoder.build_from_corpus``, ``encode`` and ``decode`` of
``tensorflow-datasets`` 4.9.10 (``tensorflow_datasets/core/deprecated/text/``) exactly: the same
tries, the same subwords in the same order, the same ids (the tests run TFDS's own module on the
bundled corpora and Python's documentation). TFDS's traps are kept, and named:

* a learned subword holding the escape (``\\&undsc\\&undsc``, from ``__init__``) is decoded
  as written, not unescaped: with such a vocabulary ``__init__`` does not come back;
* the text ``\\&undsc`` followed by a space decodes with two spaces;
* which of two reserved tokens starting at the same place wins is, in TFDS, an accident of
  Python's string hashing (a ``set``); here the longer one (see
  :attr:`SubwordEncoder.reserved_tokens`).

Example::

    >>> from bpe_viz.engine import corpora
    >>> corpora.load("slp3")[:40]
    'low low low low low lowest lowest newer '
    >>> trace = train_subword_text_encoder(corpora.load("slp3"), 265)
    >>> [(s.min_count, s.vocab_size, s.direction) for s in trace]
    [(3, 260, 'down'), (1, 263, None)]
    >>> trace.subwords
    ['newer_', 'low_', 'wider_', 'lowest_', 'new_', 'new']
    >>> enc = trace._encode("lowest newer")
    >>> enc.pieces, enc.ids
    (['lowest_', 'new', 'e', 'r'], [4, 6, 108, 121])
    >>> trace._decode(enc.ids)
    'lowest newer'

On a corpus this small whole words win (the longest substrings are kept first); the last
``newer`` is not followed by a space, so it is ``new`` plus two bytes. On real text (Python's
documentation) the vocabulary holds short words with their space (``the_``), word endings
(``ing_``, ``ed_``), pieces of words (``ke``) and punctuation with its spaces (``", "``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

from ..text.corpus import WordCounts

__all__ = [
    "train_subword_text_encoder",
    "SubwordTextEncoderTrace",
    "SearchStep",
    "BuildIteration",
    "count_substrings",
    "keep_subwords",
    "SubwordEncoder",
    "SubwordEncoding",
    "SubwordWalkthrough",
    "GreedyMatch",
    "tokenize",
    "prepare_tokens",
    "UNDERSCORE_REPLACEMENT",
    "NUM_BYTES",
]

#: how a real underscore is spelled inside a token (``_`` itself means "a space follows")
UNDERSCORE_REPLACEMENT = "\\&undsc"
#: every byte has an id after the subwords: nothing is ever unknown
NUM_BYTES = 256
#: the number of count-and-keep rounds per candidate vocabulary (TFDS: ``num_iterations=4``)
NUM_ITERATIONS = 4

_RUNS = re.compile(r"(\W+)")  # split into word / non-word runs, keeping both (\w includes "_")


# -- text -> tokens ----------------------------------------------------------------------------
def is_mixed_alphanum(token: str) -> bool:
    """Whether a token mixes word and non-word characters (then it is never cut in two).

    Example::

        >>> is_mixed_alphanum("<EOS>"), is_mixed_alphanum("low_"), is_mixed_alphanum("._")
        (True, False, True)
    """
    return sum(1 for s in _RUNS.split(token) if s) > 1


def _reserved_regex(reserved: Iterable[str]):
    reserved = list(reserved)
    if not reserved:
        return None
    return re.compile("(%s)" % "|".join(map(re.escape, reserved)))


def tokenize(text: str, reserved_tokens=(), _regex=None) -> list[str]:
    """Cut text into reserved tokens, runs of word characters and runs of other characters.

    Nothing is dropped: ``"".join(tokenize(text)) == text`` (TFDS's ``Tokenizer`` with
    ``alphanum_only=False``). A reserved token is cut out first, and the first one listed wins
    where two start at the same place.

    Example::

        >>> tokenize("Hello, world!<EOS> snake_case")
        ['Hello', ', ', 'world', '!<', 'EOS', '> ', 'snake_case']
        >>> tokenize("Hello, world!<EOS> snake_case", ["<EOS>"])
        ['Hello', ', ', 'world', '!', '<EOS>', ' ', 'snake_case']
    """
    regex = _regex if _regex is not None else _reserved_regex(reserved_tokens)
    if regex is None:
        parts = _RUNS.split(text)
    else:
        reserved = set(reserved_tokens)
        parts = []
        for part in regex.split(text):
            if part in reserved:
                parts.append(part)
            else:
                parts.extend(_RUNS.split(part))
    return [p for p in parts if p]


def prepare_tokens(tokens: list[str]) -> list[str]:
    """Escape underscores and fold a following single space into a ``_`` at the token's end.

    Example::

        >>> prepare_tokens(["low", " ", "snake_case", ", ", "end"])
        ['low_', 'snake\\\\&undsccase', ', ', 'end']

    (the backslash is doubled in the doctest's output.) A token spelling the escape itself,
    ``\\&undsc``, is cut in two, ``\\&`` and ``undsc``, so that it decodes back unharmed.
    """
    out = []
    skip = False
    for i, token in enumerate(tokens):
        if skip:  # the single space folded into the previous token
            skip = False
            continue
        follows = tokens[i + 1] if i + 1 < len(tokens) else None
        if token == UNDERSCORE_REPLACEMENT:
            # subtle: TFDS gives the second half the "_" of a following space but does not drop
            # that space token, so it is counted (and encoded) twice: "\&undsc x" decodes as
            # "\&undsc  x". Reproduced as is (a test against TFDS pins it).
            out.append(UNDERSCORE_REPLACEMENT[:2])
            out.append(UNDERSCORE_REPLACEMENT[2:] + ("_" if follows == " " else ""))
            continue
        token = token.replace("_", UNDERSCORE_REPLACEMENT)
        if follows == " ":
            token += "_"
            skip = True
        out.append(token)
    return out


# -- one vocabulary: segment, encode, decode --------------------------------------------------
class SubwordEncoder:
    """One SubwordTextEncoder vocabulary (TFDS's ``SubwordTextEncoder(vocab_list=subwords)``).

    Ids: 0 padding, ``1..len(subwords)`` the subwords, then the 256 bytes.

    Example (the vocabulary of TFDS's own unit test)::

        >>> enc = SubwordEncoder(["foo_", "bar_", "foo", "bar", "<EOS>"])
        >>> enc.encode("foobar foo bar<EOS>bar")
        [3, 2, 1, 4, 5, 4]
        >>> enc.segment("foobar_"), enc.encode("a_b!")
        (['foo', 'bar_'], [103, 101, 104, 39])
        >>> enc.decode([103, 101, 104, 39])
        'a_b!'
    """

    def __init__(self, subwords):
        # TFDS drops empty strings; a subword listed twice keeps both ids, the later one is used
        self.subwords: tuple[str, ...] = tuple(s for s in subwords if s)
        self._ids = {s: i for i, s in enumerate(self.subwords)}
        # the greedy match never tries a piece longer than the longest subword (or the escape)
        self.max_len = max(len(UNDERSCORE_REPLACEMENT), max(map(len, self.subwords), default=1))
        self._cache: dict = {}  # token -> its pieces and ids (see encode_token)

    @property
    def vocab_size(self) -> int:
        """Padding + subwords + 256 bytes."""
        return 1 + len(self.subwords) + NUM_BYTES

    @cached_property
    def _longest_from(self) -> dict[str, int]:
        """The length of the longest subword starting with each character (the escape too)."""
        longest = {UNDERSCORE_REPLACEMENT[0]: len(UNDERSCORE_REPLACEMENT)}
        for s in self.subwords:
            if len(s) > longest.get(s[0], 0):
                longest[s[0]] = len(s)
        return longest

    @cached_property
    def reserved_tokens(self) -> tuple[str, ...]:
        """The subwords that mix word and non-word characters (``<EOS>``, ``._``), plus the
        underscore escape: the tokenizer never cuts them.

        subtle: TFDS keeps them in a ``set``, so where two start at the same place (``\\&u`` and
        ``\\&un`` in a text that spells them) which one wins depends on Python's string hashing;
        here the longest is listed first (the greedy rule), then the alphabetical order.
        """
        reserved = {UNDERSCORE_REPLACEMENT, *(s for s in self.subwords if is_mixed_alphanum(s))}
        return tuple(sorted(reserved, key=lambda s: (-len(s), s)))

    @cached_property
    def _regex(self):
        return _reserved_regex(self.reserved_tokens)

    def tokens(self, text: str) -> list[str]:
        """The text's tokens as the encoder sees them (escaped, ``_`` for a following space)."""
        return prepare_tokens(tokenize(text, self.reserved_tokens, self._regex))

    def segment(self, token: str, record: list | None = None) -> list[str]:
        """Greedy longest match, left to right; a character matching nothing is a piece alone.

        ``record`` (a list) receives one ``(start, tried, match)`` per piece: the candidates
        tried, longest first, and the one that matched (``None``: none did).

        Example::

            >>> SubwordEncoder(["low", "lo", "est_"]).segment("lowest_")
            ['low', 'est_']
            >>> SubwordEncoder(["low", "lowe", "est_"]).segment("lowest_")  # greedy, not fewest
            ['lowe', 's', 't', '_']
        """
        ids, longest = self._ids, self._longest_from
        pieces = []
        start, n = 0, len(token)
        while start < n:
            tried = [] if record is not None else None
            # TFDS tries every length up to max_len; lengths no subword starting with this
            # character has cannot match, so only a walkthrough (record) lists them
            limit = self.max_len if record is not None else longest.get(token[start], 0)
            for end in range(min(n, start + limit), start, -1):
                candidate = token[start:end]
                if tried is not None:
                    tried.append(candidate)
                # the escape always matches, vocabulary or not: it is one character, "_"
                if candidate in ids or candidate == UNDERSCORE_REPLACEMENT:
                    pieces.append(candidate)
                    if record is not None:
                        record.append((start, tuple(tried), candidate))
                    start = end
                    break
            else:
                pieces.append(token[start])
                if record is not None:
                    record.append((start, tuple(tried), None))
                start += 1
        return pieces

    def piece_ids(self, piece: str) -> list[int]:
        """The ids of one piece of a segmentation: its own id, or its UTF-8 bytes' ids."""
        offset = len(self.subwords) + 1  # + 1: id 0 is padding
        if piece == UNDERSCORE_REPLACEMENT:
            return [offset + ord("_")]  # subtle: even if the escape is a subword
        i = self._ids.get(piece)
        if i is not None:
            return [i + 1]
        if piece == "_":  # the end-of-token marker alone: it stands for a space
            return [offset + ord(" ")]
        return [offset + b for b in piece.encode("utf-8", "surrogatepass")]

    def encode_token(self, token: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """``(piece, ids)`` for each piece of one token; remembered, as TFDS's encoder does."""
        cache = self._cache
        out = cache.get(token)
        if out is None:
            if len(cache) >= 1 << 16:
                cache.clear()
            out = cache[token] = tuple((p, tuple(self.piece_ids(p))) for p in self.segment(token))
        return out

    def encode(self, text: str) -> list[int]:
        """Token ids of a text (TFDS's ``encode``): never 0."""
        return [i for token in self.tokens(text) for _, ids in self.encode_token(token) for i in ids]

    def id_to_subword(self, token_id: int):
        """A subword (str), a byte (bytes) or ``None`` for padding."""
        if token_id == 0:
            return None
        if 1 <= token_id <= len(self.subwords):
            return self.subwords[token_id - 1]
        if token_id < self.vocab_size:
            return bytes([token_id - len(self.subwords) - 1])
        raise ValueError(f"ids: {token_id} is not an id of this vocabulary (0..{self.vocab_size - 1})")

    def decode(self, ids) -> str:
        """Text from ids (TFDS's ``decode``): trailing padding is dropped, a subword ending in
        ``_`` is followed by a space, runs of byte ids are decoded as UTF-8 (invalid: U+FFFD).

        subtle: like TFDS, a subword holding the escape (``\\&undsc``) is *not* unescaped: a
        vocabulary that learned ``\\&undsc\\&undsc`` (from ``__init__``) decodes it as written.
        """
        ids = list(ids)
        while ids and ids[-1] == 0:
            ids.pop()
        out, run = [], bytearray()
        for position, token_id in enumerate(ids):
            if token_id == 0:
                raise ValueError(
                    f"ids: padding (0) at position {position} is followed by tokens; "
                    "only trailing padding can be dropped"
                )
            piece = self.id_to_subword(token_id)
            if isinstance(piece, bytes):
                run += piece
                continue
            if run:
                out.append(run.decode("utf-8", "replace"))
                run = bytearray()
            out.append(piece[:-1] + " " if piece.endswith("_") else piece)
        if run:
            out.append(run.decode("utf-8", "replace"))
        return "".join(out)


# -- building one candidate vocabulary -------------------------------------------------------
@dataclass(frozen=True)
class BuildIteration:
    """One of the four count-and-keep rounds that build a candidate vocabulary."""

    #: the subword list this round made (reserved tokens first, then by count, high to low)
    subwords: tuple[str, ...]
    #: how many distinct substrings were counted (all lengths, before the threshold)
    counted: int
    #: how many substrings reached ``min_count`` before prefixes were discounted
    above_threshold: int

    @property
    def vocab_size(self) -> int:
        return 1 + len(self.subwords) + NUM_BYTES


def count_substrings(token_counts, subwords, max_subword_length) -> dict[str, int]:
    """Segment every token with ``subwords``; count each substring starting at a piece boundary.

    TFDS ``SubwordTextEncoder._build_from_token_counts``, the first half of its loop body.

    Example::

        >>> count_substrings({"low_": 5}, ["lo"], 20)
        {'l': 5, 'lo': 5, 'low': 5, 'low_': 5, 'w': 5, 'w_': 5, '_': 5}
    """
    # the substrings starting at a boundary are the prefixes of what follows it: gather those
    # tails first (many tokens share them: "ing_", "s_"), then count each tail's prefixes once
    segment = SubwordEncoder(subwords).segment
    tails: dict[str, int] = defaultdict(int)
    for token, count in token_counts.items():
        start = 0
        for piece in segment(token):
            tails[token[start:start + max_subword_length]] += count
            start += len(piece)
    # "low_" x5 split "lo w _": tails low_, w_, _ -> l lo low low_, w w_, _ (+5 each)
    counts: dict[str, int] = defaultdict(int)
    for tail, count in tails.items():
        for end in range(1, len(tail) + 1):
            counts[tail[:end]] += count
    return dict(counts)


def keep_subwords(counts, min_count, reserved_tokens, max_subword_length) -> BuildIteration:
    """Keep the substrings counted ``min_count`` times or more, longest first, discounting prefixes.

    TFDS ``SubwordTextEncoder._build_from_token_counts``, the second half of its loop body.

    Example::

        >>> keep_subwords({"l": 5, "lo": 5, "low": 5, "low_": 5, "w": 5, "w_": 5, "_": 5}, 5, (), 20).subwords
        ('w_', 'low_')
    """
    counts = dict(counts)  # the discount below changes it
    # group by length, dropping rare ones and single bytes (all 256 bytes have ids anyway)
    longest = min(max_subword_length, max(map(len, counts), default=0))
    by_length: list[list[str]] = [[] for _ in range(longest + 1)]
    for sub, count in counts.items():
        if count >= min_count and len(sub.encode("utf-8", "surrogatepass")) > 1:
            by_length[len(sub)].append(sub)
    above = sum(map(len, by_length))

    # longest first: a kept subword's occurrences no longer count for its prefixes
    # ("lowest" kept 3 times: "l", "lo", "low", "lowe", "lowes" each lose 3)
    kept = []
    for length in range(longest, 0, -1):
        for sub in by_length[length]:  # subtle: order within a length does not matter
            count = counts[sub]
            if count < min_count:
                continue
            kept.append((count, sub))
            for end in range(1, length):
                counts[sub[:end]] -= count
    # by count, high to low; equal counts: the greater string (code points) first
    kept.sort(reverse=True)
    new = tuple(reserved_tokens) + tuple(s for _, s in kept)
    return BuildIteration(new, len(counts), above)


# -- the search --------------------------------------------------------------------------------
@dataclass(frozen=True)
class SearchStep:
    """One try of the binary search: a whole candidate vocabulary for one ``min_count``.

    ``low``/``high``: the search interval when this count was tried (``min_count`` is their
    midpoint). ``direction``: where the search went next, ``"up"`` (vocabulary too big: try
    a higher ``min_count``), ``"down"`` (too small) or ``None`` (it stopped here, ``stop``
    says why). ``chosen``: this is the vocabulary the search returned.
    """

    index: int
    min_count: int
    low: int
    high: int
    iterations: tuple[BuildIteration, ...]
    target_vocab_size: int
    direction: str | None
    stop: str | None
    chosen: bool

    @property
    def subwords(self) -> list[str]:
        """This candidate's subwords (the last iteration's), in id order."""
        return list(self.iterations[-1].subwords)

    @property
    def vocab_size(self) -> int:
        """Padding + subwords + 256 bytes."""
        return self.iterations[-1].vocab_size

    @property
    def distance(self) -> int:
        """How far the vocabulary size is from the target."""
        return abs(self.vocab_size - self.target_vocab_size)

    @property
    def within_target(self) -> bool:
        """Within 1% of the target (what ends the search)."""
        return self.distance * 100 < self.target_vocab_size

    def describe(self) -> str:
        sizes = " -> ".join(str(it.vocab_size) for it in self.iterations)
        line = (f"step {self.index}: min_count {self.min_count} (interval {self.low}..{self.high}): "
                f"vocab sizes {sizes}")
        if self.direction == "up":
            line += f"; {self.vocab_size} > {self.target_vocab_size}: try a higher min_count"
        elif self.direction == "down":
            line += f"; {self.vocab_size} <= {self.target_vocab_size}: try a lower min_count"
        else:
            line += f"; stop: {self.stop}"
        return line + ("  <- chosen" if self.chosen else "")


def _count_tokens(corpus, max_corpus_chars, reserved_tokens) -> dict[str, int]:
    """Token counts, as TFDS's ``_token_counts_from_generator`` (``max_chars``: the first
    characters of the corpus, each text of it tokenized on its own)."""
    items = _corpus_items(corpus)
    reserved = [*reserved_tokens, UNDERSCORE_REPLACEMENT]
    regex = _reserved_regex(reserved)
    counts: dict[str, int] = defaultdict(int)
    remaining = max_corpus_chars
    for text, repeat in items:
        if remaining is None:
            for t in prepare_tokens(tokenize(text, reserved, regex)):
                counts[t] += repeat
            continue
        for _ in range(repeat):
            part = text[:remaining]
            remaining -= len(part)
            for t in prepare_tokens(tokenize(part, reserved, regex)):
                counts[t] += 1
            if remaining == 0:
                return counts
    return counts


def _corpus_items(corpus) -> list[tuple[str, int]]:
    """``(text, times)`` pairs: the texts TFDS's ``corpus_generator`` would yield."""
    if isinstance(corpus, str):
        return [(corpus, 1)]
    if isinstance(corpus, (bytes, bytearray)):
        raise TypeError("corpus must be text (str), an iterable of str or a mapping word -> count; "
                        "got bytes: decode it first, e.g. data.decode('utf-8')")
    if isinstance(corpus, WordCounts):
        corpus = dict(corpus.items())
    if isinstance(corpus, Mapping):
        # each occurrence of a word is followed by a space: "low": 5 -> token "low_" x5
        items = []
        for word, count in corpus.items():
            if not isinstance(word, str):
                raise TypeError(f"corpus: every word must be a str, got {type(word).__name__} {word!r}")
            if isinstance(count, bool) or not isinstance(count, int):
                raise TypeError(f"corpus: the count of {word!r} must be an int, got {type(count).__name__} {count!r}")
            if count < 1:
                raise ValueError(f"corpus: the count of {word!r} must be >= 1, got {count}")
            items.append((word + " ", count))
        return items
    if isinstance(corpus, Iterable):
        items = []
        for i, text in enumerate(corpus):
            if not isinstance(text, str):
                raise TypeError(f"corpus: item {i} must be a str, got {type(text).__name__} {text!r}")
            items.append((text, 1))
        return items
    raise TypeError("corpus must be text (str), an iterable of str (lines, documents) or a mapping "
                    f"word -> count, got {type(corpus).__name__}")


def _check_int(value, name: str, minimum: int, what: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}{what}, got {value}")
    return value


def _check_reserved(reserved_tokens) -> tuple[str, ...]:
    if reserved_tokens is None:
        return ()
    if isinstance(reserved_tokens, str):
        raise TypeError(f"reserved_tokens must be a list of str, got the str {reserved_tokens!r}")
    out = []
    for t in reserved_tokens:
        if not isinstance(t, str):
            raise TypeError(f"reserved_tokens: every token must be a str, got {type(t).__name__} {t!r}")
        if t.endswith("_") or not is_mixed_alphanum(t):
            raise ValueError(
                "reserved_tokens: each must mix word and non-word characters and not end with _ "
                f"(like '<EOS>'), got {t!r}"
            )
        if t == UNDERSCORE_REPLACEMENT or t in out:
            raise ValueError(f"reserved_tokens: {t!r} is listed twice (or is the underscore escape)")
        out.append(t)
    return tuple(out)


def train_subword_text_encoder(corpus, target_vocab_size: int, *, max_subword_length: int = 20,
                               max_corpus_chars: int | None = None,
                               reserved_tokens=None) -> "SubwordTextEncoderTrace":
    """Build a SubwordTextEncoder vocabulary as TFDS's ``build_from_corpus``, keeping every try.

    ``corpus``: text (one ``str``), an iterable of texts (lines, documents: what TFDS's
    ``corpus_generator`` yields), or a mapping word -> count (each occurrence followed by a
    space, so ``{"low": 5}`` is the token ``low_`` five times). ``target_vocab_size``: the
    size to aim at, padding and the 256 bytes included (at least 258); the result is the
    closest try, usually within 1%. ``max_subword_length`` [20]: the longest subword.
    ``max_corpus_chars`` [None]: read only this many characters of the corpus.
    ``reserved_tokens``: strings like ``"<EOS>"`` kept whole, ids 1, 2, ... in order.

    Example::

        >>> trace = train_subword_text_encoder({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 265)
        >>> trace.subwords, trace.vocab_size
        (['newest_', 'low_', 'widest_', 'lower_'], 261)
        >>> [(s.min_count, s.low, s.high, s.vocab_size, s.direction) for s in trace]
        [(4, 2, 6, 259, 'down'), (2, 2, 3, 261, 'down'), (1, 2, 1, 261, None)]
        >>> trace.chosen, trace[-1].stop
        (2, 'the interval is used up')

    (The last try is TFDS's too: its interval 2..1 is empty, yet ``(2 + 1) // 2 = 1`` is tried.)
    """
    target_vocab_size = _check_int(target_vocab_size, "target_vocab_size", NUM_BYTES + 2,
                                   " (padding, the 256 bytes and one subword)")
    max_subword_length = _check_int(max_subword_length, "max_subword_length", 1)
    if max_corpus_chars is not None:
        max_corpus_chars = _check_int(max_corpus_chars, "max_corpus_chars", 1, " (or None: the whole corpus)")
    reserved = _check_reserved(reserved_tokens)
    token_counts = dict(_count_tokens(corpus, max_corpus_chars, reserved))
    if not token_counts:
        raise ValueError("corpus: no text to build a vocabulary from (the corpus is empty)")

    # the first iteration starts from the reserved tokens alone whatever min_count is tried:
    # its substring counts are the same every time, count them once
    first_counts = count_substrings(token_counts, reserved, max_subword_length)

    def build(min_count):
        iterations = []
        for i in range(NUM_ITERATIONS):
            if i == 0:
                counts = first_counts
            else:
                counts = count_substrings(token_counts, iterations[-1].subwords, max_subword_length)
            iterations.append(keep_subwords(counts, min_count, reserved, max_subword_length))
        return tuple(iterations)

    # TFDS recurses; a loop does the same: halve [low, high] toward the target size
    low, high = max(min(token_counts.values()), 1), max(token_counts.values())
    rows = []  # (min_count, low, high, iterations, direction, stop)
    while True:
        min_count = (low + high) // 2
        iterations = build(min_count)
        size = iterations[-1].vocab_size
        stop = None
        if abs(size - target_vocab_size) * 100 < target_vocab_size:
            stop = "within 1% of the target"
        elif low >= high:
            stop = "the interval is used up"
        elif min_count <= 1:
            stop = "min_count reached 1"
        if stop is not None:
            rows.append((min_count, low, high, iterations, None, stop))
            break
        direction = "up" if size > target_vocab_size else "down"
        rows.append((min_count, low, high, iterations, direction, None))
        if direction == "up":
            low = min_count + 1
        else:
            high = min_count - 1

    # as TFDS's recursion unwinds, a try replaces the deeper result only if strictly closer:
    # of the tries closest to the target, the last one wins
    chosen = len(rows) - 1
    for k in range(len(rows) - 2, -1, -1):
        if abs(rows[k][3][-1].vocab_size - target_vocab_size) < abs(rows[chosen][3][-1].vocab_size - target_vocab_size):
            chosen = k
    steps = tuple(
        SearchStep(k, mc, lo, hi, its, target_vocab_size, d, s, k == chosen)
        for k, (mc, lo, hi, its, d, s) in enumerate(rows)
    )
    return SubwordTextEncoderTrace(steps, token_counts, target_vocab_size=target_vocab_size,
                                   max_subword_length=max_subword_length, reserved_tokens=reserved)


# -- the trace -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class GreedyMatch:
    """One choice of the greedy longest match: at ``start``, the candidates ``tried`` (longest
    first) until ``match`` was found; ``match is None``: nothing matched, the character alone
    is the piece (spelled in bytes)."""

    start: int
    tried: tuple[str, ...]
    match: str | None
    piece: str
    ids: tuple[int, ...]


@dataclass(frozen=True)
class SubwordWalkthrough:
    """How one word was encoded: its token (escaped, ``_`` for a following space) and each
    greedy match."""

    word: str
    token: str
    steps: tuple[GreedyMatch, ...]
    step: int
    algorithm: str = "subword_text_encoder"
    longest_match: bool = True

    @property
    def pieces(self) -> list[str]:
        return [s.piece for s in self.steps]

    @property
    def final(self) -> tuple[str, ...]:
        return tuple(self.pieces)

    @property
    def ids(self) -> list[int]:
        return [i for s in self.steps for i in s.ids]

    def describe(self) -> str:
        lines = [f"{self.word!r}: token {self.token!r}, greedy longest match from the left"]
        for k, s in enumerate(self.steps, 1):
            missed = [t for t in s.tried if t != s.match]
            tried = f" (not in the vocabulary: {', '.join(missed)})" if missed else ""
            if s.match is None:
                lines.append(f"  {k}. at {s.start}: nothing matches{tried}; {s.piece!r} as bytes {list(s.ids)}")
            elif s.match == UNDERSCORE_REPLACEMENT:
                lines.append(f"  {k}. at {s.start}: {s.piece} (an escaped underscore) -> id {s.ids[0]}")
            else:
                lines.append(f"  {k}. at {s.start}: {s.piece}{tried} -> id {s.ids[0]}")
        return "\n".join(lines)


class SubwordEncoding:
    """The result of :meth:`SubwordTextEncoderTrace._encode`: parallel lists, one entry per id.

    ``ids``: TFDS's ids; ``tokens``: their names in :attr:`SubwordTextEncoderTrace.id_to_token`
    (``<0xF0>`` for a byte); ``pieces``: the piece of the greedy segmentation each id spells (a
    piece spelled in bytes is repeated for each of its bytes); ``byte_fallback`` (also
    ``unknown``): the id is a byte; ``word_ids``: which token of :attr:`words` (the encoder's
    tokens) it belongs to. ``segments``: ``(piece, ids)`` once per piece.
    """

    def __init__(self, text: str, trace, step: int, words, segments):
        self.text = text
        self.trace = trace
        self.step = step
        self.words: list[str] = words
        self.segments: list[tuple[str, tuple[int, ...]]] = [(p, ids) for _, p, ids in segments]
        self._word_of = [w for w, _, _ in segments]

    @cached_property
    def ids(self) -> list[int]:
        return [i for _, ids in self.segments for i in ids]

    @cached_property
    def pieces(self) -> list[str]:
        return [p for p, ids in self.segments for _ in ids]

    @cached_property
    def word_ids(self) -> list[int]:
        return [w for w, (_, ids) in zip(self._word_of, self.segments) for _ in ids]

    @cached_property
    def tokens(self) -> list[str]:
        table = self.trace._id_table(self.step)
        return [table[i] for i in self.ids]

    @cached_property
    def byte_fallback(self) -> list[bool]:
        first_byte = len(self.trace._encoder(self.step).subwords) + 1
        return [i >= first_byte for i in self.ids]

    @property
    def unknown(self) -> list[bool]:
        return self.byte_fallback

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self):
        return f"SubwordEncoding(tokens={self.tokens!r}, ids={self.ids!r})"


class SubwordTextEncoderTrace:
    """Every try of the binary search of :func:`train_subword_text_encoder`.

    ``len(trace)`` tries; ``trace[k]`` is a :class:`SearchStep`; ``trace.chosen`` the index of
    the try the search returned, whose vocabulary is ``trace.subwords`` (``trace.vocab_size``,
    ``trace.id_to_token``, ``trace.token_to_id``). ``trace.token_counts``: the corpus's tokens.
    ``_encode``, ``_encode_word`` and ``_decode`` take ``step=k`` to use try k's vocabulary.
    """

    algorithm = "subword_text_encoder"

    def __init__(self, steps, token_counts, *, target_vocab_size, max_subword_length, reserved_tokens):
        self.steps: tuple[SearchStep, ...] = tuple(steps)
        self.token_counts: dict[str, int] = token_counts
        self.target_vocab_size = target_vocab_size
        self.max_subword_length = max_subword_length
        self.reserved_tokens = tuple(reserved_tokens)
        self.chosen: int = next(s.index for s in self.steps if s.chosen)
        self._encoders: dict[int, SubwordEncoder] = {}

    # -- the search, step by step ------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return list(self.steps[k])
        return self.steps[self._check_step(k, IndexError)]

    def __iter__(self):
        return iter(self.steps)

    def _check_step(self, step, error=ValueError) -> int:
        """``None`` -> the chosen try; a negative step counts from the end, as for a list."""
        if step is None:
            return self.chosen
        if isinstance(step, bool) or not isinstance(step, int):
            raise TypeError(f"step must be an int or None, got {type(step).__name__} {step!r}")
        n = len(self.steps)
        if not -n <= step < n:
            raise error(f"step must be between 0 and {n - 1} (the tries of this search), got {step}")
        return step % n

    def _step(self, step) -> SearchStep:
        return self.steps[self._check_step(step)]

    def _encoder(self, step=None) -> SubwordEncoder:
        k = self._check_step(step)
        enc = self._encoders.get(k)
        if enc is None:
            enc = self._encoders[k] = SubwordEncoder(self.steps[k].subwords)
        return enc

    # -- the chosen vocabulary -----------------------------------------------------------------
    @property
    def subwords(self) -> list[str]:
        """The subwords of the chosen try, in id order (id = position + 1)."""
        return self.steps[self.chosen].subwords

    @property
    def vocab_size(self) -> int:
        """Padding + subwords + 256 bytes (TFDS's ``vocab_size``)."""
        return self.steps[self.chosen].vocab_size

    def _id_table(self, step=None) -> list[str]:
        subwords = self._encoder(step).subwords
        return ["<pad>", *subwords, *(f"<0x{b:02X}>" for b in range(NUM_BYTES))]

    @property
    def id_to_token(self) -> list[str]:
        """Token strings by id: ``<pad>``, the subwords, then the bytes ``<0x00>`` ... ``<0xFF>``.

        Example::

            >>> t = train_subword_text_encoder("ab ab ab", 259)
            >>> t.id_to_token[:3], t.id_to_token[-1], len(t.id_to_token) == t.vocab_size
            (['<pad>', 'ab_', 'ab'], '<0xFF>', True)
        """
        return self._id_table()

    def token_to_id(self, token: str, step=None) -> int | None:
        """The id of a subword (or ``<pad>``, ``<0x41>``), ``None`` if not in the vocabulary.

        subtle: a subword listed twice (a reserved token also found as a candidate) has two
        ids; like TFDS's encoder, this gives the later one.
        """
        enc = self._encoder(step)
        i = enc._ids.get(token)
        if i is not None:
            return i + 1
        if token == "<pad>":
            return 0
        m = re.fullmatch(r"<0x([0-9A-F]{2})>", token) if isinstance(token, str) else None
        return len(enc.subwords) + 1 + int(m.group(1), 16) if m else None

    # -- encoding ------------------------------------------------------------------------------------
    def _encode(self, text: str, step=None) -> SubwordEncoding:
        """Encode text with try ``step``'s vocabulary (default: the chosen one), as TFDS."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        k = self._check_step(step)
        enc = self._encoder(k)
        words = enc.tokens(text)
        segments = [(w, piece, ids) for w, token in enumerate(words) for piece, ids in enc.encode_token(token)]
        return SubwordEncoding(text, self, k, words, segments)

    def _encode_word(self, word: str, step=None) -> SubwordWalkthrough:
        """The greedy longest match on one word, candidate by candidate.

        ``word`` is one token of raw text (``"lowest"``; ``"lowest "`` for the word met before a
        space, token ``lowest_``; ``"snake_case"``, escaped to ``snake\\&undsccase``).
        """
        if not isinstance(word, str):
            raise TypeError(f"word must be a str, got {type(word).__name__}")
        k = self._check_step(step)
        enc = self._encoder(k)
        tokens = enc.tokens(word)
        if len(tokens) != 1:
            raise ValueError(
                f"word must be one token for SubwordTextEncoder (a run of letters/digits/_ or of "
                f"other characters, optionally with one space after it); {word!r} is "
                f"{len(tokens)} tokens: {tokens}"
            )
        record: list = []
        enc.segment(tokens[0], record)
        steps = tuple(GreedyMatch(start, tried, match, match if match is not None else tokens[0][start],
                                  tuple(enc.piece_ids(match if match is not None else tokens[0][start])))
                      for start, tried, match in record)
        return SubwordWalkthrough(word, tokens[0], steps, k)

    def _decode(self, ids, step=None) -> str:
        """Text from ids, as TFDS's ``decode`` (trailing padding dropped). ``ids`` may be a
        :class:`SubwordEncoding`: then its own step's vocabulary decodes it."""
        if isinstance(ids, SubwordEncoding):
            ids, step = ids.ids, ids.step if step is None else step
        if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
            raise TypeError(f"ids must be a list of int, got {type(ids).__name__}")
        ids = list(ids)
        enc = self._encoder(step)
        for i in ids:
            if isinstance(i, bool) or not isinstance(i, int):
                raise TypeError(f"ids must be a list of int, got {type(i).__name__} {i!r}")
            if not 0 <= i < enc.vocab_size:
                raise ValueError(f"ids: {i} is not an id of this vocabulary (0..{enc.vocab_size - 1})")
        return enc.decode(ids)

    # -- words ---------------------------------------------------------------------------------------
    def describe(self) -> str:
        """The search in plain lines.

        Example::

            >>> words = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
            >>> print(train_subword_text_encoder(words, 265).describe())
            SubwordTextEncoder (TFDS build_from_corpus): target vocab size 265, 5 distinct tokens, max_subword_length 20
              step 0: min_count 8 (interval 4..12): vocab sizes 263 -> 260 -> 260 -> 260; 260 <= 265: try a lower min_count
              step 1: min_count 5 (interval 4..7): vocab sizes 268 -> 261 -> 261 -> 261; 261 <= 265: try a lower min_count
              step 2: min_count 4 (interval 4..4): vocab sizes 269 -> 262 -> 262 -> 262; stop: the interval is used up  <- chosen
            chosen: step 2, 5 subwords + padding + 256 bytes = 262 ids
        """
        head = (f"SubwordTextEncoder (TFDS build_from_corpus): target vocab size {self.target_vocab_size}, "
                f"{len(self.token_counts)} distinct tokens, max_subword_length {self.max_subword_length}")
        if self.reserved_tokens:
            head += ", reserved tokens " + " ".join(self.reserved_tokens)
        lines = [head, *("  " + s.describe() for s in self.steps)]
        lines.append(f"chosen: step {self.chosen}, {len(self.subwords)} subwords + padding + 256 bytes "
                     f"= {self.vocab_size} ids")
        return "\n".join(lines)

    def __repr__(self):
        return (f"<SubwordTextEncoderTrace: {len(self.steps)} search steps, chosen step {self.chosen} "
                f"(min_count {self.steps[self.chosen].min_count}): {len(self.subwords)} subwords, "
                f"vocab_size {self.vocab_size} (target {self.target_vocab_size})>")
