"""BPE: training by frequency with incremental pair counts, replaying given merges, and
encoding by learned-merge rank (subword-nmt's apply-bpe).

Training (Sennrich, Haddow & Birch 2016, Algorithm 1): count every adjacent pair, weighted by
word frequency; merge the most frequent everywhere; repeat. The counts are kept up to date
incrementally (:mod:`~bpe_viz.engine.merges.pairs`); the best pair comes from a heap keyed on
(count, tie rule), with stale entries skipped when they surface.

Encoding (apply-bpe, and the 2016 paper's encoder): split a word into its initial symbols, then
repeatedly take the *lowest-rank* learned pair present and merge all its non-overlapping
occurrences left to right, until no learned pair remains. (It is not "replay every merge in
order": a word skips merges it has no pair for.) Ranks are merge numbers, 1-based.

How it differs from its sibling :mod:`~bpe_viz.engine.wordpiece.model`: BPE picks the most *frequent*
pair and encodes by merge rank; WordPiece picks the best count(ab) / (count(a)·count(b)) and
encodes by greedy longest match.
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from itertools import islice
from collections.abc import Callable, Iterable
from dataclasses import replace

from ..text.corpus import SymbolCorpus
from ..merges.encoding import EncodeStep, WordWalkthrough
from ..merges.model import Model, register
from ..merges.pairs import PairIndex
from ..merges.ranking import TIE_BREAKS, best_pair
from ..merges.recorder import Recorder
from ..merges.training import (UNSET as _UNSET, Training, check_num_merges, check_vocab_size, merges_for, prepare,
                       resolve_convention)
from ..merges.convention import unchanged_merges
from ..merges.trace import Merge, Trace
from ..text.markers import Marker, check_unambiguous_merges

__all__ = ["train_bpe", "iter_bpe", "replay_bpe", "best_pair", "PRESETS", "PRESET_TITLES", "TIE_BREAKS", "Training", "BPE"]

#: Named conventions. A preset sets what it names; an argument you pass explicitly wins.
PRESETS: dict[str, dict] = {
    # Sennrich, Haddow & Birch (2016), Algorithm 1: "</w>" is a symbol of its own; the paper's
    # max() over a freshly counted dict returns the first pair met among equals.
    "sennrich2016": dict(end_of_word="</w>", attach_end_of_word=False, tie_break="first"),
    # subword-nmt >= 0.2 learn_bpe: "</w>" glued to the last character,
    # max(stats, key=lambda x: (stats[x], x)) -> the greatest pair among equals; min frequency 2.
    # It splits lines at the ASCII space only (a tab or U+00A0 stays inside a word).
    "subword-nmt": dict(end_of_word="</w>", attach_end_of_word=True, tie_break="lexicographic", min_frequency=2,
                        pre_tokenizer="subword-nmt"),
    # Jurafsky & Martin, Speech and Language Processing (3rd ed. draft), section 2.5.2: "_".
    "slp3": dict(end_of_word="_", attach_end_of_word=False, tie_break="first"),
    # Hugging Face NLP course, chapter 6: no end-of-word marker, first pair met.
    "hf-course": dict(end_of_word=None, attach_end_of_word=False, tie_break="first"),
    # Stanford CS336 assignment 1 (train_bpe): split out "<|endoftext|>", the GPT-2 pattern, all
    # 256 bytes from the start; ids: specials, the bytes in byte order, merges; ties: the
    # greater pair of byte strings; every pair counts (min_frequency 1).
    "cs336": dict(end_of_word=None, byte_level=True, initial_alphabet="bytes", pre_tokenizer="gpt2",
                  special_tokens=("<|endoftext|>",), tie_break="bytes", min_frequency=1,
                  id_layout="specials-first"),
    # Karpathy's minbpe RegexTokenizer: the GPT-4 pattern, ids = byte values then merges from
    # 256 (specials registered after), ties to the first pair met, min_frequency 1.
    "minbpe": dict(end_of_word=None, byte_level=True, initial_alphabet="bytes", pre_tokenizer="gpt4",
                   tie_break="first", min_frequency=1, id_layout="specials-last"),
    # Hugging Face tokenizers' BpeTrainer with a plain BPE model and WhitespaceSplit: no marker,
    # ties to the pair of the smallest token ids (trainer.rs, `impl Ord for Merge`); no minimum
    # frequency unless one is given (its BpeTrainer default is 0).
    "hf-tokenizers": dict(end_of_word=None, tie_break="hf", min_frequency=1),
    # SentencePiece 0.2.3, model_type="bpe", normalization_rule_name="identity", other options
    # default: "▁" in front of each word, each line a sentence, pieces of one script and at most
    # 16 characters, 99.95 % character coverage, ties to the shorter piece, ids <unk> <s> </s>,
    # pieces, characters; a piece-based encoder (see engine/bpe/sentencepiece.py).
    "sentencepiece": dict(algorithm="sentencepiece-bpe", end_of_word=None, begin_of_word="\u2581",
                          tie_break="shorter", min_frequency=1, pre_tokenizer="sentencepiece",
                          character_coverage=0.9995, max_piece_length=16, id_layout="sentencepiece"),
}

#: A short title for each preset (the explorers' dropdown shows these).
PRESET_TITLES: dict[str, str] = {
    "sennrich2016": "Sennrich et al. 2016: </w> as its own symbol",
    "subword-nmt": "subword-nmt: </w> glued to the last letter",
    "slp3": "Jurafsky & Martin (SLP3): _ marks the end",
    "hf-course": "Hugging Face course: no end marker",
    "cs336": "Stanford CS336: GPT-2 pattern, 256 bytes, <|endoftext|>",
    "minbpe": "minbpe: GPT-4 pattern, 256 bytes, ids = byte values",
    "hf-tokenizers": "Hugging Face tokenizers: no end marker, ties by token id",
    "sentencepiece": "SentencePiece (Llama, T5): ▁ in front, ties to the shorter piece",
}


class BPE(Model):
    """Byte Pair Encoding: rank pairs by count; encode by learned-merge rank."""

    name = "bpe"
    title = "BPE"
    splits_by_merges = True

    def describe(self, convention):
        return [f"min_frequency {convention.min_frequency}"]

    def segmenter(self, trace, k):
        ranks = _ranks(trace, k)
        m = trace.internal_marker
        c = trace.convention
        if c.byte_level or c.begin_of_word is not None:
            initial = trace.initial_symbols
        elif c.end_of_word is None:
            initial = tuple
        elif c.attach_end_of_word:
            initial = lambda w: (*w[:-1], w[-1] + m)  # noqa: E731  (the common cases, inlined)
        else:
            initial = lambda w: (*w, m)  # noqa: E731
        return lambda w: _apply(initial(w), ranks)

    def dropout_segmenter(self, trace, k, p, rng):
        ranks = _ranks(trace, k)
        initial = trace.initial_symbols
        # subtle: subword-nmt leaves a one-character word alone (no draws for it)
        return lambda w: initial(w) if len(w) == 1 else _apply_dropout(initial(w), ranks, p, rng)

    #: the encoder's rule for the walkthrough (None: apply-bpe's, the view's default sentence)
    encoder_rule: str | None = None

    def encode_recorded(self, initial, trace, k, record):
        """The encoder on one word's initial symbols, appending each iteration to ``record``."""
        return _apply(initial, _ranks(trace, k), record)

    def walkthrough(self, word, trace, k):
        initial = trace.initial_symbols(word)
        record: list = []
        final = self.encode_recorded(initial, trace, k, record)
        show = trace.show_tuple if trace.remaps_marker else tuple
        sh = trace.show
        steps = tuple(
            EncodeStep(show(before), tuple(((sh(a), sh(b)), r) for (a, b), r in cands),
                       (sh(pair[0]), sh(pair[1])), rank, show(after))
            for before, cands, pair, rank, after in record
        )
        return WordWalkthrough(word, show(initial), steps, show(final), k, rule=self.encoder_rule)


register(BPE())


#: the convention keywords train_bpe takes (the ones a preset may set)
CONVENTION_KEYWORDS = ("end_of_word", "attach_end_of_word", "tie_break", "min_frequency", "byte_level",
                       "normalization", "pre_tokenizer", "special_tokens", "initial_alphabet", "begin_of_word",
                       "character_coverage", "max_piece_length")


def iter_bpe(corpus, num_merges=_UNSET, *, vocab_size=None, preset: str | None = None, **convention) -> Training:
    """Like :func:`train_bpe`, but returns a :class:`Training` to iterate merge by merge."""
    unknown = sorted(set(convention) - set(CONVENTION_KEYWORDS))
    if unknown:
        raise TypeError(f"iter_bpe() got unexpected keyword arguments {unknown}; conventions are {list(CONVENTION_KEYWORDS)}")
    vocab_size = check_vocab_size(vocab_size, num_merges)
    if vocab_size is None:
        num_merges = check_num_merges(10 if num_merges is _UNSET else num_merges)
    conv = resolve_convention(preset, PRESETS, {}, **convention)
    if isinstance(corpus, SymbolCorpus):
        # the pre-split dictionary says where its marker is
        conv = replace(conv, end_of_word=corpus.end_of_word, attach_end_of_word=corpus.attach_end_of_word)
    words, counts, initial, marker = prepare(corpus, conv)
    trace = Trace(words, counts, initial, conv, internal_marker=marker)
    trace.model.prepare_trace(trace)
    if vocab_size is not None:
        num_merges = merges_for(trace, vocab_size)
    return Training(trace, _steps(trace, initial, counts, num_merges, vocab_size), num_merges)


def train_bpe(
    corpus,
    num_merges: int = _UNSET,
    *,
    vocab_size: int | None = None,
    end_of_word=_UNSET,
    attach_end_of_word=_UNSET,
    tie_break=_UNSET,
    min_frequency=_UNSET,
    preset: str | None = None,
    byte_level=_UNSET,
    normalization=_UNSET,
    pre_tokenizer=_UNSET,
    special_tokens=_UNSET,
    initial_alphabet=_UNSET,
    begin_of_word=_UNSET,
    character_coverage=_UNSET,
    max_piece_length=_UNSET,
    callback: Callable[[Merge], object] | None = None,
) -> Trace:
    """Train BPE and keep a snapshot after every merge.

    ``corpus``: raw text (cut by the pre-tokenizer), an iterable of words, a mapping word ->
    count, or the paper's pre-split dictionary through :func:`bpe_viz.from_symbol_dict`. Corpus
    order is the order of first appearance. ``num_merges`` [10] or ``vocab_size`` (special tokens
    + alphabet + merges, as CS336 and Hugging Face count it) says how long to train.

    Conventions (defaults in brackets; ``preset`` sets several at once, see :data:`PRESETS`):

    * ``end_of_word`` ["</w>"]: the marker string, or ``None`` for no marker;
    * ``attach_end_of_word`` [False]: ``False`` keeps it a symbol of its own (``l o w </w>``,
      the 2016 paper; SLP3 uses ``_``), ``True`` glues it to the last character
      (``l o w</w>``, subword-nmt >= 0.2);
    * ``tie_break`` ["first"]: ``"first"`` takes, of the pairs with the top count, the one met
      first reading the words in order of first appearance, each left to right;
      ``"lexicographic"`` the greatest ``(left, right)`` by code points, as subword-nmt;
      ``"bytes"`` the greatest as UTF-8 byte strings, as CS336;
    * ``min_frequency`` [2]: stop when the best pair occurs fewer times than this;
    * ``byte_level`` [False]: start from UTF-8 bytes (GPT-2's printable byte symbols);
    * ``initial_alphabet`` [None]: ``"bytes"`` puts all 256 bytes in the vocabulary from the
      start, so no text is ever unknown (byte-level only);
    * ``special_tokens`` [()]: texts cut out before pre-tokenization, never merged, one id each;
    * ``normalization`` [None]: Unicode form applied first ("NFC", "NFD", ...);
    * ``pre_tokenizer`` ["whitespace"]: how raw text is cut into words: a name ("whitespace",
      "gpt2", "gpt4", "subword-nmt", "sentencepiece"), a regular expression or a function (see
      :mod:`bpe_viz.engine.text.pretokenize`);
    * ``begin_of_word`` [None]: a marker in front of each word instead (SentencePiece's "▁");
    * ``character_coverage`` [1.0]: the share of the text's characters the alphabet covers;
      rarer characters are unknown and never merged (SentencePiece: 0.9995);
    * ``max_piece_length`` [None]: the longest token a merge may make (SentencePiece: 16).

    ``preset="sentencepiece"`` is SentencePiece's BPE (``model_type="bpe"``, identity
    normalization), merge for merge and id for id: see :mod:`bpe_viz.engine.bpe.sentencepiece`.
    There ``vocab_size`` counts ``<unk> <s> </s>``, and one above what SentencePiece accepts for
    the corpus is a ValueError naming the largest it accepts.

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
    given = dict(end_of_word=end_of_word, attach_end_of_word=attach_end_of_word, tie_break=tie_break,
                 min_frequency=min_frequency, byte_level=byte_level, normalization=normalization,
                 pre_tokenizer=pre_tokenizer, special_tokens=special_tokens, initial_alphabet=initial_alphabet,
                 begin_of_word=begin_of_word, character_coverage=character_coverage, max_piece_length=max_piece_length)
    run = iter_bpe(corpus, num_merges, vocab_size=vocab_size, preset=preset,
                   **{k: v for k, v in given.items() if v is not _UNSET})
    return run.run(callback)


class PairHeap:
    """The pairs a BPE trainer may merge next, best first: a heap of ``(-count, tie key, pair)``
    whose entries go stale when a pair's count (or, for a positional tie rule, its first
    position) changes; stale entries are skipped when met and dropped now and then.

    It also keeps the model's pair rules: a ``pair_filter`` (pairs that may never merge) and,
    for SentencePiece, one piece per string (a pair that would make a string already made is
    skipped for good) and every pair ever seen (its zero-count tail draws from them)."""

    def __init__(self, trace: Trace, state: PairIndex):
        rule, model, show = trace.tie_rule, trace.model, trace.show
        self.counts, self.first, self.positional = state.counts, state.first, rule.positional
        int_keys = any("\U0010ffff" in show(s) for s in trace.base_symbols)
        self.key = rule.keyer(show, int_keys, trace.to_bytes, trace.hf_id)
        self.allowed = model.pair_filter(trace)
        self.unique = model.one_piece_per_string
        self.keep_seen = model.zero_count_tail and not self.positional
        self.made: set = set()  # the strings made so far (one piece per string)
        self.skipped: set = set()  # pairs that would make a string already made
        self.seen: set = set()  # every pair pushed
        self.join, self.marker = trace.marker.join, trace.internal_marker
        self.rebuild()

    def entries(self, pairs):
        """Heap entries of the ``pairs`` that occur and may merge."""
        if self.allowed is not None:
            pairs = [p for p in pairs if self.allowed(p) and p not in self.skipped]
        if self.keep_seen:
            self.seen.update(pairs)
        counts, first, key = self.counts, self.first, self.key
        if self.positional:
            return [(-counts[p], first[p], p) for p in pairs if counts.get(p)]
        return [(-counts[p], key(p, None), p) for p in pairs if counts.get(p)]

    def rebuild(self):
        self.heap = self.entries(list(self.counts))
        heapq.heapify(self.heap)

    def best(self):
        """``(pair, count)`` of the best live entry (left on the heap), or ``None``."""
        heap, counts, first = self.heap, self.counts, self.first
        while heap:
            negc, k, p = heap[0]
            if counts.get(p) == -negc and (not self.positional or first[p] == k):
                if self.unique and self.join(p[0], p[1], self.marker) in self.made:
                    self.skipped.add(p)  # SentencePiece: this string was made by another pair already
                    heapq.heappop(heap)
                    continue
                return p, -negc
            heapq.heappop(heap)
        return None

    def taken(self, tok, change):
        """The best entry was merged into ``tok``: drop it, push the pairs ``change`` touched."""
        heapq.heappop(self.heap)
        if self.unique:
            self.made.add(tok)
        changed = (change.deltas.keys() | change.moved) if self.positional else change.deltas
        for e in self.entries([p for p in changed if self.counts.get(p)]):
            heapq.heappush(self.heap, e)
        if len(self.heap) > 4 * len(self.counts) + 1000:  # stale entries pile up
            self.rebuild()


def _steps(trace: Trace, initial, freqs, num_merges: int, vocab_size: int | None = None):
    """The BPE training loop, as a generator of merges; fills ``trace`` as it goes.

    The model may add rules (SentencePiece's): pairs that may never merge, one piece per string
    (both kept by :class:`PairHeap`), merges after the pairs run out (``model.tail_merges``),
    and an error instead of an early stop when ``vocab_size`` cannot be reached."""
    state = PairIndex(initial, freqs, trace.tie_rule.positional)
    rec = Recorder(trace, state)
    heap = PairHeap(trace, state)
    show, join, m = trace.show, trace.marker.join, trace.internal_marker
    reason, step = "num_merges", 0
    while step < num_merges:
        best = heap.best()
        if best is None:
            reason = "no_pairs"
            break
        pair, count = best
        if count < trace.convention.min_frequency:
            reason = "min_frequency"
            break
        step += 1
        a, b = pair
        tok = join(a, b, m)
        change = state.apply(pair, tok)
        merge = Merge(step, (show(a), show(b)), show(tok), count, None, trace, pair, tok)
        rec.record(merge, change)  # first: a tie rule may number the new token (the "hf" rule)
        heap.taken(tok, change)
        yield merge
    if reason == "no_pairs" and heap.keep_seen:
        reason = yield from trace.model.tail_merges(trace, state, rec, heap, step, num_merges)
    rec.finish(reason)
    if reason == "no_pairs" and trace.model.hard_vocab_limit and vocab_size is not None:
        raise ValueError(
            f"vocab_size: {vocab_size} is more than {trace.model.title} can make from this corpus; set it to a "
            f"value <= {trace.vocab_size} (every word is one piece by then, and no pair is left to merge)")


def replay_bpe(corpus, merges: Iterable[tuple[str, str]], *, preset: str | None = None, **convention) -> Trace:
    """Apply ``merges`` to ``corpus`` in the given order and return the full trace.

    A merge whose pair does not occur is still recorded (count 0, nothing changes), so step
    numbers match the list. Conventions as in :func:`train_bpe`.

    When a word of the corpus contains the marker text itself (``</w>`` typed in a word), a
    pair that spells that text is ambiguous (the marker, or those characters?): it raises a
    ValueError (:class:`~bpe_viz.engine.text.markers.MarkerAmbiguityError`) naming the item,
    rather than replay differently from the training it came from. Other lists replay exactly.

    Example::

        >>> t = replay_bpe({"low": 5, "lower": 2}, [("l", "o"), ("x", "y")])
        >>> [(m.token, m.count) for m in t.merges]
        [('lo', 7), ('xy', 0)]
        >>> t[2].segmentation == t[1].segmentation
        True
    """
    merges = list(merges)
    if not all_str_pairs(merges):
        for i, p in enumerate(merges):
            if not (isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) and isinstance(p[1], str)
                    and p[0] and p[1]):
                raise TypeError(f"merges: item {i} must be a pair of non-empty str, got {p!r}")
    unknown = sorted(set(convention) - set(CONVENTION_KEYWORDS) - {"id_layout", "algorithm", "prefix"})
    if unknown:
        raise TypeError(f"replay_bpe() got unexpected keyword arguments {unknown}")
    conv = resolve_convention(preset, PRESETS, {}, **{**convention, "min_frequency": 1})
    words, counts, initial, marker = prepare(corpus, conv)
    trace = Trace(words, counts, initial, conv, internal_marker=marker)
    if trace.remaps_marker:  # the marker text typed inside a word: a pair spelling it is ambiguous
        check_unambiguous_merges(merges, trace.marker.text, words, byte_level=conv.byte_level)
    trace.model.prepare_trace(trace)
    state = PairIndex(initial, counts, False)
    rec = Recorder(trace, state)
    join = trace.marker.join
    if not state.counts:  # no pair occurs (a vocabulary read from a file, no corpus): nothing to apply
        internal = trace.internal
        pairs = [(internal(a), internal(b)) for a, b in merges] if trace.remaps_marker else merges
        if type(trace.marker).join is Marker.join:  # plain concatenation, in one go
            tokens = list(map(str.__add__, *zip(*pairs))) if pairs else []
        else:
            tokens = [join(a, b, marker) for a, b in pairs]
        shown = list(map(trace.show, tokens)) if trace.remaps_marker else tokens
        rec.record_unchanged(unchanged_merges(trace, merges, shown, pairs, tokens))
        rec.finish("num_merges")
        return trace
    for step, (a, b) in enumerate(merges, 1):
        pair = (trace.internal(a), trace.internal(b))
        tok = join(pair[0], pair[1], marker)
        count = state.counts.get(pair, 0)
        change = state.apply(pair, tok)
        rec.record(Merge(step, (a, b), trace.show(tok), count, None, trace, pair, tok), change)
    rec.finish("num_merges")
    return trace


def all_str_pairs(merges: list) -> bool:
    """Whether every item is a tuple of two non-empty str, checked in bulk (a 200,000-merge
    vocabulary read from a file notices a Python loop); the loop in :func:`replay_bpe` finds the
    first item that is not."""
    if not merges:
        return True
    if set(map(type, merges)) != {tuple} or set(map(len, merges)) != {2}:
        return False
    lefts, rights = zip(*merges)
    return set(map(type, lefts)) == set(map(type, rights)) == {str} and all(lefts) and all(rights)


# -- encoding ---------------------------------------------------------------------------------


def per_k(trace: Trace, name: str, k: int, key) -> dict:
    """``key(merge) -> rank`` for the first ``k`` merges (the first merge wins a repeated key),
    cached on the trace under ``name`` for a few values of ``k``.

    One table of every merge is kept per trace (its keys in rank order, since the first merge of
    a key wins); the table of ``k`` merges is its first entries, copied at C speed: a slider jump
    to a new step costs no loop over its merges."""
    cache = trace.__dict__.setdefault(name, {})
    r = cache.get(k)
    if r is None:
        if len(cache) > 8:
            cache.clear()
        full = trace.__dict__.get(name + "_all")
        if full is None or full[0] != len(trace.merges):  # (merges are only ever appended)
            table: dict = {}
            for m in trace.merges:
                table.setdefault(key(m), m.step)
            full = trace.__dict__[name + "_all"] = (len(trace.merges), table, list(table.values()))
        _, table, ranks = full
        r = cache[k] = table.copy() if k >= len(trace.merges) else dict(islice(table.items(), bisect_right(ranks, k)))
    return r


def _ranks(trace: Trace, k: int) -> dict:
    """internal pair -> 1-based rank, for the first k merges (a replayed list may repeat a pair:
    its first rank)."""
    return per_k(trace, "_rank_cache", k, lambda m: m.pair_internal)


def _apply(symbols: tuple, ranks: dict, record: list | None = None) -> tuple:
    """Lowest-rank learned pair first, all its occurrences, until none is left."""
    word = symbols
    get = ranks.get
    while len(word) > 1:
        found = list(map(get, zip(word, word[1:])))  # rank or None per position (ranks start at 1)
        best_rank = min(filter(None, found), default=0)
        if not best_rank:
            break
        i = found.index(best_rank)
        a, b = word[i], word[i + 1]
        tok = a + b
        if found.count(best_rank) == 1:  # one occurrence: the usual case
            new = (*word[:i], tok, *word[i + 2:])
        else:
            # several: left to right, non-overlapping ((a, a) on "a a a" -> "aa a")
            out = list(word[:i])
            n = len(word)
            while i < n:
                if i + 1 < n and word[i] == a and word[i + 1] == b:
                    out.append(tok)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            new = tuple(out)
        if record is not None:
            cands = sorted({(p, r) for p, r in zip(zip(word, word[1:]), found) if r}, key=lambda t: t[1])
            record.append((word, tuple(cands), (a, b), best_rank, new))
        word = new
    return word


def _apply_dropout(symbols: tuple, ranks: dict, p: float, rng) -> tuple:
    """BPE-dropout as subword-nmt's ``apply_bpe --dropout`` does it, draw for draw: every pass
    draws one number for *every* adjacent pair (learned or not), keeps the learned pairs whose
    draw is above ``p``, merges the lowest-rank one of those at the positions that survived
    (left to right, non-overlapping), and stops when no pair survives.

    Hugging Face ``tokenizers`` (``BPE(dropout=p)``) skips a merge in the same way, but
    SentencePiece's sampling (``enable_sampling``) drops a candidate for that step only and
    tries the others; neither draws for pairs that are not learned merges.
    """
    word = list(symbols)
    while len(word) > 1:
        cands = [(ranks[pair], i, pair) for i, pair in enumerate(zip(word, word[1:]))
                 if rng.random() > p and pair in ranks]
        if not cands:
            break
        best = min(cands)[2]
        tok = best[0] + best[1]
        out, i = [], 0
        for _, j, pair in cands:
            if pair != best or j < i:  # j < i: overlaps the previous merge ("x x x" -> "xx x")
                continue
            out.extend(word[i:j])
            out.append(tok)
            i = j + 2
        out.extend(word[i:])
        word = out
    return tuple(word)
