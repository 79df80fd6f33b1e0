"""The inputs the exercise checkers run a learner's functions on, with the engine's answers.

From tiny to realistic, in order of difficulty: empty, one symbol, a run (``aaaa``), Gage's
``aaabdaaabac``, ties, spaces, seeded random strings, then a few sentences of the bundled corpora
(:mod:`bpe_viz.engine.text.corpora`) and, for bytes, non-ASCII text. Every answer comes from the
engine trained as minbpe's ``BasicTokenizer``: the whole text one sequence (``WHOLE_TEXT``),
ties to the first pair met, pairs seen once merge too; bytes through ``preset="minbpe"`` (ids =
byte values, then ``256 + i``).

How it differs from its sibling :mod:`bpe_viz.exercises`: this module only builds the inputs
(deterministic, cached); that one runs the learner's function on them and explains a difference.

Example::

    >>> [c.label for c in train_cases(False)][:4]
    ['an empty text', 'one character', 'two characters', 'a run: aaaa']
    >>> train_cases(False)[4].args, train_cases(False)[4].expected
    (('aaabdaaabac', 3), [('a', 'a'), ('aa', 'a'), ('aaa', 'b')])
    >>> byte_merges(engine_trace("aaabdaaabac", 3, byte_level=True))
    {(97, 97): 256, (256, 97): 257, (257, 98): 258}
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from .engine import corpora, merge_symbols, symbols_to_bytes, train_bpe

__all__ = ["Case", "WHOLE_TEXT", "GAGE", "engine_trace", "segmentation", "pair_counts", "byte_merges", "bytes_of",
           "count_cases", "merge_cases", "train_cases", "encode_cases"]

#: the engine's pre-tokenizer for the exercises: the whole text is one "word" (minbpe's
#: BasicTokenizer has none), so pairs across spaces and newlines count
WHOLE_TEXT = r"[\s\S]+"


@dataclass(frozen=True)
class Case:
    """One input: the learner's arguments, the engine's answer, how the input reads, a label for
    the success line and what a diagnosis may ask (``context``)."""
    args: tuple
    expected: object
    label: str
    context: object = None


# -- the engine's side --------------------------------------------------------------------------

@lru_cache(maxsize=64)
def engine_trace(text: str, num_merges: int, byte_level: bool = False):
    """The engine trained as minbpe's BasicTokenizer: characters (``hf-course``: no marker, first
    pair met) or bytes (``minbpe``: ids = byte values, then 256 + i); the whole text one word."""
    if byte_level:
        return train_bpe(text, num_merges, preset="minbpe", pre_tokenizer=WHOLE_TEXT)
    return train_bpe(text, num_merges, preset="hf-course", min_frequency=1, pre_tokenizer=WHOLE_TEXT)


def segmentation(trace, text: str, step: int) -> list:
    """The text's symbols after ``step`` merges (ids for a byte-level trace).

    Example::

        >>> segmentation(engine_trace("aaab", 1), "aaab", 1)
        ['aa', 'a', 'b']
    """
    seg = trace[step].segmentation.get(text, ())
    return [trace.token_to_id(s) for s in seg] if trace.convention.byte_level else list(seg)


def pair_counts(trace, step: int) -> dict:
    """The engine's pair counts after ``step`` merges (pairs of ids for a byte-level trace), in
    order of first appearance in the (one-word) training text.

    Example::

        >>> pair_counts(engine_trace("aaab", 1, byte_level=True), 1)
        {(256, 97): 1, (97, 98): 1}
    """
    counts = dict(trace[step].pair_counts)
    if trace.convention.byte_level:
        tid = trace.token_to_id
        counts = {(tid(a), tid(b)): c for (a, b), c in counts.items()}
    # in order of first appearance, as a dict filled left to right lists them
    seq = segmentation(trace, trace.words[0], step) if trace.words else []
    first = {p: i for i, p in reversed(list(enumerate(zip(seq, seq[1:]))))}
    return dict(sorted(counts.items(), key=lambda kv: first.get(kv[0], len(first))))


def byte_merges(trace) -> dict:
    """The trace's merges as minbpe writes them: ``{(id_a, id_b): new_id}``."""
    tid = trace.token_to_id
    return {(tid(m.pair[0]), tid(m.pair[1])): tid(m.token, made_at=m.step) for m in trace.merges}


def bytes_of(trace, token_id) -> bytes | None:
    """The bytes a byte-level token id spells, or ``None`` for an id outside the vocabulary.

    Example::

        >>> bytes_of(engine_trace("hé", 1, byte_level=True), 256)
        b'h\\xc3'
    """
    table = trace.id_to_token
    return symbols_to_bytes(table[token_id]) if isinstance(token_id, int) and 0 <= token_id < len(table) else None


# -- the inputs ---------------------------------------------------------------------------------

GAGE = "aaabdaaabac"  # Gage (1994), minbpe's test string


def _random_texts(alphabet: str, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(6, 30))) for _ in range(count)]


def _docs() -> str:
    return corpora.python_docs_text()[:1500]


def _english() -> str:
    return corpora.LANGUAGES["English"]


_DOCS_LABEL = "Python's documentation (1,500 characters)"


def _steps_of(text: str, num_merges: int, label: str, byte_level: bool = False, steps=None):
    """(trace, step, label) for the given steps (default: every step) of one training."""
    trace = engine_trace(text, num_merges, byte_level)
    return [(trace, k, label) for k in (range(len(trace)) if steps is None else steps) if k < len(trace)]


def _states() -> list:
    """Training states, tiny to realistic: what count_pairs and merge are run on."""
    out = [*_steps_of("", 0, "an empty list"), *_steps_of("a", 0, "one symbol"), *_steps_of("ab", 0, "two symbols"),
           *_steps_of("aaaa", 0, "a run: aaaa"), *_steps_of(GAGE, 3, f"Gage's {GAGE}"),
           *_steps_of(GAGE, 3, f"{GAGE} as bytes", byte_level=True, steps=(0, 2, 3))]
    for i, text in enumerate(_random_texts("ab c", 3, seed=21)):
        out += _steps_of(text, 6, f"random text {i + 1}", steps=(2, 5))
    out += _steps_of(_english(), 15, "an English paragraph", steps=(0, 15))
    out += _steps_of(corpora.LANGUAGES["Russian"], 10, "a Russian paragraph as bytes", byte_level=True, steps=(10,))
    out += _steps_of(_docs(), 30, _DOCS_LABEL, steps=(30,))
    return out


@lru_cache(maxsize=1)
def count_cases() -> tuple[Case, ...]:
    """count_pairs: ``(symbols,)`` -> the engine's pair counts, at steps of its training."""
    return tuple(Case((segmentation(t, t.words[0] if t.words else "", k),), pair_counts(t, k), label)
                 for t, k, label in _states())


def _merge_case(seq, pair, new, label) -> Case:
    return Case((list(seq), pair, new), list(merge_symbols(tuple(seq), pair, new)), label)


@lru_cache(maxsize=1)
def merge_cases() -> tuple[Case, ...]:
    """merge: ``(symbols, pair, new)`` -> the symbols after; the traps first (overlap, a pair
    inside a symbol, a space symbol), then the engine's own merges."""
    cases = [_merge_case([], ("a", "b"), "ab", "an empty list"), _merge_case(["a"], ("a", "b"), "ab", "one symbol"),
             _merge_case(["a", "b"], ("a", "b"), "ab", "one pair"),
             _merge_case(["a", "b", "c"], ("b", "c"), "bc", "a pair at the end"),
             _merge_case(["a", "a", "a"], ("a", "a"), "aa", "overlapping pairs: aaa"),
             _merge_case(list("aaaa"), ("a", "a"), "aa", "overlapping pairs: aaaa"),
             _merge_case(["x", "ab", "c"], ("b", "c"), "bc", "a pair inside a symbol"),
             _merge_case(list("a b"), ("a", " "), "a ", "a space symbol"),
             _merge_case([1, 2, 1, 2, 3], (1, 2), 256, "ids")]
    for t, k, label in _states():
        if k >= 1:
            text, m = t.words[0], t.merges[k - 1]
            pair, new = m.pair, m.token
            if t.convention.byte_level:
                pair, new = (t.token_to_id(pair[0]), t.token_to_id(pair[1])), t.token_to_id(m.token, made_at=m.step)
            cases.append(Case((segmentation(t, text, k - 1), pair, new), segmentation(t, text, k), label))
    return tuple(cases)


def _train_inputs(byte_level: bool) -> list[tuple[str, int, str]]:
    """(text, num_merges, label) for train and train_bytes."""
    out = [("", 3, "an empty text"), ("a", 3, "one character"), ("ab", 1, "two characters"),
           ("aaaa", 3, "a run: aaaa"), (GAGE, 3, f"Gage's {GAGE}"), ("cdab", 1, "a tie: every pair once"),
           ("a b a b a b", 2, "spaces count")]
    if byte_level:
        out += [("héé hé", 4, "non-ASCII: héé hé")]
    out += [(t, 5, f"random text {i + 1}") for i, t in enumerate(_random_texts("ab c", 4, seed=23))]
    out += [(_english(), 20, "an English paragraph")]
    if byte_level:
        out += [(corpora.LANGUAGES["Greek"], 20, "a Greek paragraph"),
                (corpora.LANGUAGES["Chinese"], 10, "a Chinese paragraph")]
    out.append((_docs(), 40, _DOCS_LABEL))
    return out


def _encode_inputs(byte_level: bool) -> list[tuple[str, int, str, str]]:
    """(training text, num_merges, text to encode, label) for encode and encode_bytes."""
    out = [("", 0, "", "an empty text (no merges)"), (GAGE, 3, "a", "one character"),
           (GAGE, 3, GAGE, f"Gage's {GAGE}"), (GAGE, 3, "abaaabc aa", "a new text"),
           ("bcbcbc abab", 3, "abc", "lowest rank first"), ("xyxy zzxyzz", 3, "zzxyzzx", "lowest rank first, again")]
    if byte_level:
        out += [(GAGE, 3, "é", "a byte never seen"), (_english(), 20, "héllo wörld 😉", "non-ASCII text")]
    rnd = _random_texts("abc ", 6, seed=25)
    out += [(rnd[i], 6, rnd[i + 1], f"random text {i // 2 + 1}") for i in range(0, 6, 2)]
    out += [(_docs(), 60, _english(), "an English paragraph, merges from Python's documentation"),
            (_docs(), 60, corpora.python_docs_text()[1500:2500],
             "1,000 more characters of Python's documentation")]
    if byte_level:
        out.append((_english(), 30, corpora.LANGUAGES["Korean"], "a Korean paragraph"))
    return out


@lru_cache(maxsize=2)
def train_cases(byte_level: bool) -> tuple[Case, ...]:
    """train (pairs in order) or train_bytes (``{(a, b): id}``): ``(text, num_merges)`` -> the
    engine's merges; ``context`` is the engine's trace."""
    cases = []
    for text, n, label in _train_inputs(byte_level):
        t = engine_trace(text, n, byte_level)
        expected = byte_merges(t) if byte_level else [m.pair for m in t.merges]
        cases.append(Case((text, n), expected, label, t))
    return tuple(cases)


@lru_cache(maxsize=2)
def encode_cases(byte_level: bool) -> tuple[Case, ...]:
    """encode (tokens) or encode_bytes (ids): ``(text, merges)`` with the engine's merges of a
    training text -> the engine's encoding; ``context`` is the engine's trace."""
    cases = []
    for train_text, n, text, label in _encode_inputs(byte_level):
        t = engine_trace(train_text, n, byte_level)
        merges = byte_merges(t) if byte_level else [m.pair for m in t.merges]
        enc = t.encode(text)
        cases.append(Case((text, merges), list(enc.ids if byte_level else enc.pieces), label, t))
    return tuple(cases)

