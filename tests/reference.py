"""A small, literal, obviously-correct reference BPE trainer for differential tests.

It does everything the slow way, straight from the description of the algorithm
(Sennrich, Haddow & Birch 2016, Algorithm 1; subword-nmt's tie rule):

* every word starts as its characters (or its GPT-2 byte symbols), with the end-of-word marker
  appended as its own symbol, glued to the last symbol, or absent;
* at every step *every* pair is recounted from scratch, reading the words in corpus order
  (order of first appearance), each left to right, weighted by the word's count;
* the best pair is picked by the tie rule ("first": the first pair met among the top counts,
  which is what ``max()`` over a freshly filled dict returns; "lexicographic": subword-nmt's
  ``max(stats, key=lambda x: (stats[x], x))`` on the public spelling);
* training stops on the merge budget, then on "no pairs", then on min_frequency;
* a merge walks each word left to right and replaces non-overlapping occurrences.

The marker is never confused with literal text: a symbol is a tuple of *atoms*, each atom
either a one-character string or the unique object :data:`MARKER`. Only the public view
(:func:`show`) spells the marker as its text. So a word ``"snake_case"`` with the marker ``"_"``
keeps its literal underscore apart from the marker, exactly as the engine promises.

Nothing here imports the rest of the engine except :func:`bpe_viz.engine.text.alphabet.bytes_to_symbols` (the GPT-2 byte
table, which is data, not algorithm).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bpe_viz.engine.text.alphabet import bytes_to_symbols

__all__ = ["MARKER", "RefResult", "reference_bpe", "recount_bpe", "ref_word_counts", "show", "initial_atoms"]


class _Marker:
    """The end-of-word marker as an atom of its own (never equal to any character)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return "MARKER"


MARKER = _Marker()


def show(symbol: tuple, marker_text: str | None) -> str:
    """Public spelling of an internal symbol (a tuple of atoms)."""
    return "".join(marker_text if atom is MARKER else atom for atom in symbol)


def ref_word_counts(corpus) -> list[tuple[str, int]]:
    """(word, count) in order of first appearance, for raw text, a list of words or a mapping."""
    if isinstance(corpus, str):
        items = [(w, 1) for w in corpus.split()]
    elif isinstance(corpus, dict):
        items = list(corpus.items())
    else:
        items = [(w, 1) for w in corpus]
    out: dict[str, int] = {}
    for w, c in items:
        out[w] = out.get(w, 0) + c
    return list(out.items())


def initial_atoms(word: str, end_of_word: str | None, attach: bool, byte_level: bool) -> list[tuple]:
    """The symbols a word starts from: one atom per character (or byte symbol), plus the marker."""
    chars = bytes_to_symbols(word) if byte_level else word
    symbols = [(ch,) for ch in chars]
    if end_of_word is None or not symbols:
        return symbols
    if attach:
        symbols[-1] = symbols[-1] + (MARKER,)
    else:
        symbols.append((MARKER,))
    return symbols


def count_pairs(seg: list[list[tuple]], counts: list[int]) -> dict:
    """All adjacent pairs, counted from scratch: corpus order, each word left to right."""
    stats: dict = {}
    for symbols, c in zip(seg, counts):
        for i in range(len(symbols) - 1):
            pair = (symbols[i], symbols[i + 1])
            stats[pair] = stats.get(pair, 0) + c
    return stats


def merge_word(symbols: list[tuple], pair: tuple) -> list[tuple]:
    """Left-to-right, non-overlapping replacement of ``pair`` by the concatenated symbol."""
    out = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
            out.append(pair[0] + pair[1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


@dataclass
class RefResult:
    """What the reference run produced, all in public spelling.

    * ``merges``: list of (pair, count)
    * ``segmentations[k]``: word -> tuple of symbols after k merges (corpus order)
    * ``pair_tables[k]``: pair -> count after k merges, summed over pairs whose public spelling
      coincides (that is what a recount of the public segmentation gives)
    * ``collisions[k]``: True if at step k two different internal pairs share a public spelling
      (only possible when a word contains the marker text)
    * ``ambiguous_at``: the first merge (1-based) whose lexicographic pick tied with a different
      internal pair of the same public spelling (the rule cannot tell them apart), else None
    * ``internal_tables[k]``: the pair table in internal spelling (tuples of atoms)
    """

    words: list[str]
    merges: list[tuple[tuple[str, str], int]] = field(default_factory=list)
    segmentations: list[dict] = field(default_factory=list)
    pair_tables: list[dict] = field(default_factory=list)
    collisions: list[bool] = field(default_factory=list)
    internal_tables: list[dict] = field(default_factory=list)
    stop_reason: str = "running"
    ambiguous_at: int | None = None
    marker_in_text: bool = False


def reference_bpe(
    corpus,
    num_merges: int,
    *,
    end_of_word: str | None = "</w>",
    attach_end_of_word: bool = False,
    tie_break: str = "first",
    min_frequency: int = 2,
    byte_level: bool = False,
) -> RefResult:
    """Train BPE the slow, literal way (see the module docstring)."""
    assert tie_break in ("first", "lexicographic")
    wc = ref_word_counts(corpus)
    words = [w for w, _ in wc]
    counts = [c for _, c in wc]
    seg = [initial_atoms(w, end_of_word, attach_end_of_word, byte_level) for w in words]
    res = RefResult(words)
    if end_of_word is not None:
        views = [bytes_to_symbols(w) if byte_level else w for w in words]
        res.marker_in_text = any(end_of_word in v for v in views)

    def pub(sym):
        return show(sym, end_of_word)

    def record(stats):
        res.segmentations.append({w: tuple(pub(s) for s in syms) for w, syms in zip(words, seg)})
        table: dict = {}
        for (a, b), c in stats.items():
            key = (pub(a), pub(b))
            table[key] = table.get(key, 0) + c
        res.pair_tables.append(table)
        res.collisions.append(len(table) != len(stats))
        res.internal_tables.append(dict(stats))

    stats = count_pairs(seg, counts)
    record(stats)
    while True:
        if len(res.merges) >= num_merges:
            res.stop_reason = "num_merges"
            break
        if not stats:
            res.stop_reason = "no_pairs"
            break
        if tie_break == "first":
            best = max(stats, key=stats.get)  # max() keeps the first of equal keys
        else:
            best = max(stats, key=lambda p: (stats[p], pub(p[0]), pub(p[1])))
            top = (stats[best], pub(best[0]), pub(best[1]))
            if res.ambiguous_at is None and any(
                p != best and (stats[p], pub(p[0]), pub(p[1])) == top for p in stats
            ):
                res.ambiguous_at = len(res.merges) + 1
        if stats[best] < min_frequency:
            res.stop_reason = "min_frequency"
            break
        res.merges.append(((pub(best[0]), pub(best[1])), stats[best]))
        seg = [merge_word(syms, best) for syms in seg]
        stats = count_pairs(seg, counts)
        record(stats)
    return res


def recount_bpe(symbols, num_merges: int) -> tuple[list, list]:
    """minbpe's ``BasicTokenizer.train``, literally, on one sequence of strings: each step
    recounts every adjacent pair into a fresh dict (in order), takes ``max`` by count (the first
    pair met among equals, as ``tie_break="first"``) and merges it left to right,
    non-overlapping. Returns ``([(pair, count), ...], the symbols after the last merge)``.

    The tokens are the merged strings rather than minbpe's integer ids, so a token made by two
    different merges is one token, as in the engine. The tests and the benchmark compare the
    engine's one-long-word training against it.

    Example (Gage 1994, as minbpe's tests use it)::

        >>> merges, final = recount_bpe("aaabdaaabac", 3)
        >>> [a + b for (a, b), _ in merges], final
        (['aa', 'aaa', 'aaab'], ['aaab', 'd', 'aaab', 'a', 'c'])
    """
    ids = list(symbols)
    merges = []
    for _ in range(num_merges):
        stats: dict = {}
        for pair in zip(ids, ids[1:]):
            stats[pair] = stats.get(pair, 0) + 1
        if not stats:
            break
        pair = max(stats, key=stats.get)
        a, b = pair
        out, i, n = [], 0, len(ids)
        while i < n:
            if i < n - 1 and ids[i] == a and ids[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
        merges.append((pair, stats[pair]))
    return merges, ids
