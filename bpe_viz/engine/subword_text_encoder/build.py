"""train_subword_text_encoder: TFDS's ``build_from_corpus``, one search step at a time.

Steps 2 to 5 of the build (step 1, the tokens, is :mod:`.tokens`):

2. **Count every substring.** Each token is split by the current vocabulary (greedy longest
   match, left to right; at first the vocabulary is empty, so every character is a piece). From
   every piece boundary, *every* substring starting there (up to ``max_subword_length``
   characters) is counted, weighted by the token's count: ``low_`` ×5 counts ``l lo low low_ o
   ow ow_ w w_ _`` five times each (:func:`count_substrings`).
3. **Keep, longest first.** Substrings counted at least ``min_count`` times are taken from the
   longest to the shortest; when one is kept, the count of each of its prefixes is lowered by
   its count (those occurrences are already covered by the longer piece). Single bytes are
   never kept: all 256 are in the vocabulary anyway (byte fallback) (:func:`keep_subwords`).
4. **Repeat** steps 2-3 four times with the new vocabulary: once long pieces exist, substrings
   starting inside them are no longer counted, and the counts settle (:class:`BuildIteration`).
5. **Binary search** on ``min_count`` (between the smallest and the largest token count): a
   high threshold keeps few pieces, a low one many. Each try (a :class:`SearchStep`) builds
   a complete vocabulary with steps 2-4; the search stops within 1% of ``target_vocab_size``
   (or when the interval is used up) and keeps the try closest to the target.

The tries are kept in a :class:`~.trace.SubwordTextEncoderTrace`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..checks import check_int
from ..text.corpus import WordCounts
from .encoder import NUM_BYTES, SubwordEncoder
from .tokens import UNDERSCORE_REPLACEMENT, is_mixed_alphanum, prepare_tokens, reserved_regex, tokenize
from .trace import SubwordTextEncoderTrace

__all__ = ["NUM_ITERATIONS", "BuildIteration", "SearchStep", "count_substrings", "keep_subwords",
           "train_subword_text_encoder"]

#: the number of count-and-keep rounds per candidate vocabulary (TFDS: ``num_iterations=4``)
NUM_ITERATIONS = 4


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
    regex = reserved_regex(reserved)
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
                               reserved_tokens=None) -> SubwordTextEncoderTrace:
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
    target_vocab_size = check_int("target_vocab_size", target_vocab_size, NUM_BYTES + 2,
                                  what=" (padding, the 256 bytes and one subword)")
    max_subword_length = check_int("max_subword_length", max_subword_length, 1)
    max_corpus_chars = check_int("max_corpus_chars", max_corpus_chars, 1, allow_none=True,
                                 what=" (or None: the whole corpus)")
    reserved = _check_reserved(reserved_tokens)
    token_counts = dict(_count_tokens(corpus, max_corpus_chars, reserved))
    if not token_counts:
        raise ValueError("corpus: no text to build a vocabulary from (the corpus is empty)")
    steps = _search(token_counts, target_vocab_size, reserved, max_subword_length)
    return SubwordTextEncoderTrace(steps, token_counts, target_vocab_size=target_vocab_size,
                                   max_subword_length=max_subword_length, reserved_tokens=reserved)


def _search(token_counts, target_vocab_size, reserved, max_subword_length) -> tuple[SearchStep, ...]:
    """The binary search on ``min_count``: every try, the one TFDS returns marked ``chosen``."""
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
    return tuple(
        SearchStep(k, mc, lo, hi, its, target_vocab_size, d, s, k == chosen)
        for k, (mc, lo, hi, its, d, s) in enumerate(rows)
    )
