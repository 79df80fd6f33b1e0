"""train_bpe: Byte Pair Encoding training with incremental pair counts, tie rules and stop reasons.

How it stays fast (the idea of subword-nmt's learn_bpe, without its regex): a table of pair
counts plus an index from each pair to the words that contain it, so a merge only touches the
words it changes and the counts next to its occurrences::

    "A B C", merge "B C":  (A, B) loses, (A, BC) gains

The best pair comes from a heap keyed on (count, tie rule), with stale entries skipped when they
surface. The result is a :class:`~bpe_viz.trace.Trace` that keeps what every merge changed.

How it differs from its sibling :mod:`bpe_viz.wordpiece`: BPE picks the most *frequent* pair;
WordPiece picks the pair with the best count(ab) / (count(a)·count(b)).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Mapping

from .corpus import SymbolCorpus, bytes_to_symbols, normalize, word_counts, NORMALIZATIONS
from .symbols import pair_offsets
from .trace import Convention, Merge, Trace

__all__ = ["train_bpe", "iter_bpe", "best_pair", "initial_symbols", "PRESETS", "TIE_BREAKS", "Training"]

TIE_BREAKS = ("first", "lexicographic")

#: Named conventions. A preset sets what it names; an argument you pass explicitly wins.
PRESETS: dict[str, dict] = {
    # Sennrich, Haddow & Birch (2016), Algorithm 1: "</w>" is a symbol of its own; the paper's
    # max() over a freshly counted dict returns the first pair met among equals.
    "sennrich2016": dict(end_of_word="</w>", attach_end_of_word=False, tie_break="first"),
    # subword-nmt >= 0.2 learn_bpe: "</w>" glued to the last character,
    # max(stats, key=lambda x: (stats[x], x)) -> the greatest pair among equals; min frequency 2.
    "subword-nmt": dict(end_of_word="</w>", attach_end_of_word=True, tie_break="lexicographic", min_frequency=2),
    # Jurafsky & Martin, Speech and Language Processing (3rd ed. draft), section 2.5.2: "_".
    "slp3": dict(end_of_word="_", attach_end_of_word=False, tie_break="first"),
    # Hugging Face NLP course, chapter 6: no end-of-word marker, first pair met.
    "hf-course": dict(end_of_word=None, attach_end_of_word=False, tie_break="first"),
}

_DEFAULTS = dict(
    end_of_word="</w>",
    attach_end_of_word=False,
    tie_break="first",
    min_frequency=2,
    byte_level=False,
    normalization=None,
)


class _Unset:
    def __repr__(self):
        return "<default>"


_UNSET = _Unset()


def resolve_convention(preset, algorithm="bpe", **given) -> Convention:
    """Combine defaults, a preset and explicit arguments into a :class:`Convention`, checking each."""
    values = dict(_DEFAULTS)
    if preset is not None:
        if not isinstance(preset, str) or preset not in PRESETS:
            raise ValueError(f"preset must be one of {sorted(PRESETS)} or None, got {preset!r}")
        values.update(PRESETS[preset])
    values.update({k: v for k, v in given.items() if v is not _UNSET})
    eow = values["end_of_word"]
    if eow is not None and (not isinstance(eow, str) or eow == "" or any(ch.isspace() for ch in eow)):
        raise ValueError(f"end_of_word must be a non-empty str without whitespace, or None; got {eow!r}")
    if not isinstance(values["attach_end_of_word"], bool):
        raise TypeError(f"attach_end_of_word must be True or False, got {values['attach_end_of_word']!r}")
    if values["tie_break"] not in TIE_BREAKS:
        raise ValueError(f"tie_break must be 'first' or 'lexicographic', got {values['tie_break']!r}")
    mf = values["min_frequency"]
    if isinstance(mf, bool) or not isinstance(mf, int):
        raise TypeError(f"min_frequency must be an int, got {type(mf).__name__} {mf!r}")
    if mf < 1:
        raise ValueError(f"min_frequency must be >= 1, got {mf}")
    if not isinstance(values["byte_level"], bool):
        raise TypeError(f"byte_level must be True or False, got {values['byte_level']!r}")
    if values["normalization"] not in NORMALIZATIONS:
        raise ValueError(
            f"normalization must be one of None, 'NFC', 'NFD', 'NFKC', 'NFKD', got {values['normalization']!r}"
        )
    return Convention(preset=preset, algorithm=algorithm, **values)


def check_num_merges(num_merges) -> int:
    if isinstance(num_merges, bool) or not isinstance(num_merges, int):
        raise TypeError(f"num_merges must be an int, got {type(num_merges).__name__} {num_merges!r}")
    if num_merges < 0:
        raise ValueError(f"num_merges must be >= 0, got {num_merges}")
    return num_merges


def initial_symbols(word: str, convention: Convention, marker: str | None = None) -> tuple[str, ...]:
    """Split one word into the symbols training starts from, by the convention.

    ``marker`` is the internal spelling of the end-of-word marker (the convention's by default).

    Example::

        >>> c = Convention(end_of_word="</w>", attach_end_of_word=True)
        >>> initial_symbols("low", c)
        ('l', 'o', 'w</w>')
        >>> initial_symbols("low", Convention(end_of_word="_"))
        ('l', 'o', 'w', '_')
    """
    if marker is None:
        marker = convention.end_of_word
    if convention.algorithm == "wordpiece":
        prefix = convention.prefix
        return (word[0], *(prefix + c for c in word[1:])) if word else ()
    chars = list(bytes_to_symbols(word) if convention.byte_level else word)
    if convention.end_of_word is None or not chars:
        return tuple(chars)
    if convention.attach_end_of_word:
        chars[-1] = chars[-1] + marker
    else:
        chars.append(marker)
    return tuple(chars)


def _pick_internal_marker(views: list[str], marker: str | None) -> str | None:
    """The marker's internal spelling: itself, unless some word contains the marker text (then a
    private-use character absent from every word, so the two never count as one symbol)."""
    if marker is None or not any(marker in v for v in views):
        return marker
    used = set().union(*map(set, views))
    for cp in range(0xE000, 0xF900):
        if chr(cp) not in used:
            return chr(cp)
    raise ValueError("corpus: no free private-use character to stand for the end-of-word marker")


def best_pair(counts: Mapping, tie_break: str = "first", order: Mapping | None = None):
    """The pair the next BPE merge takes from a pair-count table, and the pairs it tied with.

    ``tie_break="first"``: of the pairs with the top count, the one met first (``order`` gives
    each pair's first-met rank; by default the mapping's own order, as a fresh recount makes it).
    ``"lexicographic"``: the greatest ``(left, right)`` by code points, as subword-nmt's
    ``max(stats, key=lambda x: (stats[x], x))``. Returns ``(None, ())`` for an empty table.

    Example::

        >>> best_pair({("e", "s"): 9, ("s", "t"): 9, ("l", "o"): 7})
        (('e', 's'), (('s', 't'),))
        >>> best_pair({("e", "s"): 9, ("s", "t"): 9}, tie_break="lexicographic")
        (('s', 't'), (('e', 's'),))
    """
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"tie_break must be 'first' or 'lexicographic', got {tie_break!r}")
    if not counts:
        return None, ()
    top = max(counts.values())
    tied = [p for p, c in counts.items() if c == top]
    if tie_break == "first":
        if order is not None:
            tied.sort(key=order.__getitem__)
    else:
        tied.sort(reverse=True)
    return tied[0], tuple(tied[1:])


class Training:
    """A training run you can follow: iterate it to get each :class:`Merge` as it is made;
    ``.trace`` is the (growing, then final) :class:`Trace`.

    Example::

        >>> run = iter_bpe("low low lower", num_merges=2)
        >>> [m.token for m in run]
        ['lo', 'low']
        >>> len(run.trace)
        3
    """

    def __init__(self, trace: Trace, steps: Iterator[Merge], total: int):
        self.trace = trace
        self._steps = steps
        self.total = total  # the merge budget (an upper bound on the number of merges)

    def __iter__(self):
        return self._steps

    def run(self, callback: Callable[[Merge], object] | None = None) -> Trace:
        for m in self._steps:
            if callback is not None:
                callback(m)
        return self.trace


def _prepare(corpus, convention: Convention):
    """(words, counts, initial symbols, internal marker) for a corpus under a convention."""
    if isinstance(corpus, SymbolCorpus):
        return list(corpus.words), list(corpus.counts), [tuple(s) for s in corpus.symbols], corpus.end_of_word
    wc = word_counts(corpus, normalization=convention.normalization)
    views = [bytes_to_symbols(w) for w in wc.words] if convention.byte_level else list(wc.words)
    marker = _pick_internal_marker(views, convention.end_of_word)
    initial = [initial_symbols(w, convention, marker) for w in wc.words]
    return list(wc.words), list(wc.counts), initial, marker


def iter_bpe(
    corpus,
    num_merges: int = 10,
    *,
    end_of_word=_UNSET,
    attach_end_of_word=_UNSET,
    tie_break=_UNSET,
    min_frequency=_UNSET,
    preset: str | None = None,
    byte_level=_UNSET,
    normalization=_UNSET,
) -> Training:
    """Like :func:`train_bpe`, but returns a :class:`Training` to iterate merge by merge."""
    num_merges = check_num_merges(num_merges)
    convention = resolve_convention(
        preset,
        end_of_word=end_of_word,
        attach_end_of_word=attach_end_of_word,
        tie_break=tie_break,
        min_frequency=min_frequency,
        byte_level=byte_level,
        normalization=normalization,
    )
    if isinstance(corpus, SymbolCorpus):
        # the pre-split dictionary says where its marker is
        from dataclasses import replace

        convention = replace(
            convention, end_of_word=corpus.end_of_word, attach_end_of_word=corpus.attach_end_of_word
        )
    words, counts, initial, marker = _prepare(corpus, convention)
    trace = Trace(words, counts, initial, convention, internal_marker=marker)
    return Training(trace, _steps(trace, initial, counts, num_merges), num_merges)


def train_bpe(
    corpus,
    num_merges: int = 10,
    *,
    end_of_word=_UNSET,
    attach_end_of_word=_UNSET,
    tie_break=_UNSET,
    min_frequency=_UNSET,
    preset: str | None = None,
    byte_level=_UNSET,
    normalization=_UNSET,
    callback: Callable[[Merge], object] | None = None,
) -> Trace:
    """Train BPE and keep a snapshot after every merge.

    ``corpus``: raw text (split on whitespace), an iterable of words, a mapping word -> count,
    or the paper's pre-split dictionary through :func:`bpe_viz.from_symbol_dict`. Corpus order
    is the order of first appearance.

    Conventions (defaults in brackets; ``preset`` sets several at once, see :data:`PRESETS`):

    * ``end_of_word`` ["</w>"]: the marker string, or ``None`` for no marker;
    * ``attach_end_of_word`` [False]: ``False`` keeps it a symbol of its own (``l o w </w>``,
      the 2016 paper; SLP3 uses ``_``), ``True`` glues it to the last character
      (``l o w</w>``, subword-nmt >= 0.2);
    * ``tie_break`` ["first"]: ``"first"`` takes, of the pairs with the top count, the one met
      first reading the words in order of first appearance, each left to right;
      ``"lexicographic"`` the greatest ``(left, right)`` by code points, as subword-nmt;
    * ``min_frequency`` [2]: stop when the best pair occurs fewer times than this;
    * ``byte_level`` [False]: start from UTF-8 bytes (GPT-2's printable byte symbols);
    * ``normalization`` [None]: Unicode form applied first ("NFC", "NFD", ...).

    ``callback(merge)`` is called after every merge (for a progress bar); :func:`iter_bpe`
    gives the same run as an iterator.

    Example (Sennrich et al. 2016, Algorithm 1)::

        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> [m.token for m in trace.merges][:4]
        ['es', 'est', 'est</w>', 'lo']
        >>> trace[3].segmentation["newest"]
        ('n', 'e', 'w', 'est</w>')
        >>> len(trace), trace.stop_reason
        (11, 'num_merges')
    """
    run = iter_bpe(
        corpus,
        num_merges,
        end_of_word=end_of_word,
        attach_end_of_word=attach_end_of_word,
        tie_break=tie_break,
        min_frequency=min_frequency,
        preset=preset,
        byte_level=byte_level,
        normalization=normalization,
    )
    return run.run(callback)


def _lex_transform(s: str) -> str:
    # subtle: a min-heap must pop the *greatest* string first. Map each code point c to
    # 0x10FFFE - c and end with U+10FFFF, so "abc" sorts before its prefix "ab".
    return "".join([chr(0x10FFFE - ord(c)) for c in s]) + "\U0010ffff"


class _PairIndex:
    """Mutable training state shared by BPE and WordPiece: the current symbols of every word,
    pair counts, an index pair -> words containing it, and (for the "first" tie rule) each
    pair's first occurrence as (word index, character offset)."""

    def __init__(self, initial, freqs, track_first: bool):
        self.seg = list(initial)
        self.freqs = freqs
        counts: dict = {}
        where: dict = {}
        first: dict = {}
        for w, syms in enumerate(self.seg):
            f = freqs[w]
            off = 0
            for i in range(len(syms) - 1):
                p = (syms[i], syms[i + 1])
                counts[p] = counts.get(p, 0) + f
                ws = where.get(p)
                if ws is None:
                    where[p] = {w}
                    first[p] = (w, off)
                else:
                    ws.add(w)
                off += len(syms[i])
        self.counts, self.where = counts, where
        self.first = first if track_first else None

    def apply(self, pair, tok):
        """Merge ``pair`` into ``tok`` in every word that has it; update counts, index and first
        positions. Returns (changed words, their new symbols, {pair: count delta},
        pairs whose first position changed, weighted occurrences merged, work done)."""
        a, b = pair
        seg, freqs, where, first = self.seg, self.freqs, self.where, self.first
        first_rule = first is not None
        ws = sorted(where.pop(pair))
        dd: dict = {}
        dirty = set()
        moved = set()
        new_syms = []
        occ_total = 0
        work = 0
        for w in ws:
            old = seg[w]
            f = freqs[w]
            out = []
            i = 0
            n = len(old)
            last = n - 1
            while i < n:  # symbols.merge_symbols, inlined: this loop is the hot path
                s = old[i]
                # subtle: left to right, non-overlapping: (a, a) on "a a a" -> "aa a"
                if i < last and s == a and old[i + 1] == b:
                    out.append(tok)
                    i += 2
                else:
                    out.append(s)
                    i += 1
            new = tuple(out)
            # occurrences as (pair, offset): offsets survive merges, so set differences give
            # exactly what changed. "A B C", merge "B C": (A, B) leaves, (A, BC) arrives.
            oo = set(zip(zip(old, old[1:]), pair_offsets(old)))
            no = set(zip(zip(new, new[1:]), pair_offsets(new)))
            removed = oo - no
            added = no - oo
            newpairs = {p for p, _ in no}
            for p, off in removed:
                dd[p] = dd.get(p, 0) - f
                if first_rule and first.get(p) == (w, off):
                    dirty.add(p)
                if p not in newpairs:
                    s_ = where.get(p)
                    if s_ is not None:
                        s_.discard(w)
            for p, off in added:
                dd[p] = dd.get(p, 0) + f
                if first_rule:
                    k = (w, off)
                    cur = first.get(p)
                    if cur is None or k < cur:
                        first[p] = k
                        moved.add(p)
                s_ = where.get(p)
                if s_ is None:
                    where[p] = {w}
                else:
                    s_.add(w)
            occ_total += (n - len(new)) * f
            work += n + len(new)
            seg[w] = new
            new_syms.append(new)

        counts = self.counts
        for p, d in dd.items():
            if d:
                c = counts.get(p, 0) + d
                if c:
                    counts[p] = c
                else:
                    del counts[p]
                    where.pop(p, None)
                    if first_rule:
                        first.pop(p, None)
                        dirty.discard(p)
                        moved.discard(p)
        if first_rule:
            for p in dirty:
                if p in counts:
                    w0 = min(where[p])
                    syms = seg[w0]
                    off = 0
                    for i in range(len(syms) - 1):
                        if syms[i] == p[0] and syms[i + 1] == p[1]:
                            break
                        off += len(syms[i])
                    first[p] = (w0, off)
            moved |= dirty
        return ws, new_syms, dd, moved, occ_total, work


def _steps(trace: Trace, initial, freqs, num_merges: int):
    """The BPE training loop, as a generator of merges; fills ``trace`` as it goes."""
    conv = trace.convention
    first_rule = conv.tie_break == "first"
    min_frequency = conv.min_frequency
    state = _PairIndex(initial, freqs, first_rule)
    counts, first = state.counts, state.first
    for p in counts:  # pair ids in first-met order
        trace._pid(p)
    tcounts = list(trace._base_counts)
    trace._checkpoint(state.seg, counts, tcounts)

    show = trace._show
    use_int_keys = False
    if not first_rule:
        alphabet = {c for s in trace.base_symbols for c in show(s)}
        use_int_keys = "\U0010ffff" in alphabet
    tkey_cache: dict = {}

    def lexkey(sym):
        k = tkey_cache.get(sym)
        if k is None:
            pub = show(sym)
            k = tuple([-ord(c) for c in pub] + [1]) if use_int_keys else _lex_transform(pub)
            tkey_cache[sym] = k
        return k

    def entry(p, c):
        return (-c, *first[p], p) if first_rule else (-c, lexkey(p[0]), lexkey(p[1]), p)

    heap = [entry(p, c) for p, c in counts.items()]
    heapq.heapify(heap)
    heappop, heappush = heapq.heappop, heapq.heappush
    tindex = trace._token_index
    reason = "num_merges"

    step = 0
    while step < num_merges:
        # -- choose: skip stale heap entries (count or first position changed since pushed)
        pair = None
        while heap:
            negc, k1, k2, p = heap[0]
            if counts.get(p) == -negc and (not first_rule or first[p] == (k1, k2)):
                pair = p
                break
            heappop(heap)
        if pair is None:
            reason = "no_pairs"
            break
        count = -heap[0][0]
        if count < min_frequency:
            reason = "min_frequency"
            break
        heappop(heap)
        step += 1
        a, b = pair
        tok = a + b
        ws, new_syms, dd, moved, occ_total, work = state.apply(pair, tok)
        for p in (dd.keys() | moved) if first_rule else dd:
            c = counts.get(p)
            if c:
                heappush(heap, entry(p, c))

        merge = Merge(step, (show(a), show(b)), show(tok), count, None, trace, pair, tok)
        tcounts.append(0)
        trace._record(merge, ws, new_syms, [(p, d) for p, d in dd.items() if d], occ_total, work)
        tcounts[tindex(a)] -= occ_total
        tcounts[tindex(b)] -= occ_total
        tcounts[tindex(tok)] += occ_total
        if trace._work >= trace._next_ckpt:
            trace._checkpoint(state.seg, counts, tcounts)
        yield merge
        # stale entries pile up: rebuild the heap now and then
        if len(heap) > 4 * len(counts) + 1000:
            heap = [entry(p, c) for p, c in counts.items()]
            heapq.heapify(heap)
    trace._finish(reason)
