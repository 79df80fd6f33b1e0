"""Encode and decode text with a merge trace (BPE, WordPiece, SentencePiece-BPE).

What is common to the merge families lives here: cutting the text with the trace's
pre-tokenizer (special tokens first), Unicode normalization, token ids, character offsets,
unknown characters and decoding. How one word is segmented is the model's (``trace.model``):
BPE applies the learned merges by rank (:mod:`~bpe_viz.engine.bpe`), WordPiece takes the
greedy longest match (:mod:`~bpe_viz.engine.wordpiece`). Where a word ends is the marker's
(:mod:`~bpe_viz.engine.text.markers`). :class:`~bpe_viz.engine.merges.trace.Trace` answers the
protocol's ``encode`` / ``encode_word`` / ``decode`` with these functions; the results are in
:mod:`~bpe_viz.engine.merges.encoding`.

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
    >>> encode_text(trace, "lowest").pieces
    ['low', 'est</w>']
    >>> decode_ids(trace, encode_text(trace, "newest lower").ids)
    'newest lower'
"""

from __future__ import annotations

import dataclasses
import random
from bisect import bisect_right
from collections import Counter
from itertools import accumulate, filterfalse

from ..protocol import check_step
from ..text.alphabet import BYTE_SET, surrogate_error, symbols_to_bytes
from ..text.corpus import normalize, pre_tokenized
from ..text.markers import EndOfWord
from ..text.pretokenize import split_specials
from .applyopts import check_glossaries, check_vocabulary, isolate_glossaries, vocabulary_splitter
from .encoding import Encoding, WordWalkthrough, made_at_table, word_rows

__all__ = ["encode_text", "encode_head", "encode_one_word", "decode_ids"]

#: distinct words an encoding cache keeps per trace (a real text has tens of thousands)
WORDS_CACHED = 200_000
#: a text up to this long that encode_head encodes whole is read off recorded encodings
REPLAYED_TEXT = 5_000


def encode_one_word(trace, word: str, k: int | None = None) -> WordWalkthrough:
    """``word`` encoded with the first ``k`` merges, every iteration recorded (the model's
    walkthrough: apply-bpe's candidates and ranks, or WordPiece's longest matches)."""
    if not isinstance(word, str):
        raise TypeError(f"word must be a str, got {type(word).__name__} {word!r}")
    conv = trace.convention
    if not word or pre_tokenized(conv.pre_tokenizer, "words", word) != [word]:
        raise ValueError(
            f"word must be one non-empty word as the trace's pre-tokenizer cuts text "
            f"({conv.pre_tokenizer.describe()}), got {word!r}"
        )
    k = check_step(trace, k)
    walk = trace.model.walkthrough(normalize(word, conv.normalization), trace, k)
    return walk if walk.word == word else dataclasses.replace(walk, word=word)


def encode_text(trace, text: str, k: int | None = None, *, allowed_special="all", dropout: float = 0.0,
                seed: int | None = None, glossaries=None, vocabulary=None,
                vocabulary_threshold: int | None = None) -> Encoding:
    """``text`` encoded with the first ``k`` merges of ``trace`` (see :func:`bpe_viz.encode`
    for the options)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    k = check_step(trace, k)
    specials = _allowed_specials(trace, allowed_special)
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1:
        raise ValueError(f"dropout must be a probability between 0 and 1, got {dropout!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise TypeError(f"seed must be an int or None, got {type(seed).__name__} {seed!r}")
    glossaries = check_glossaries(glossaries)
    vocab = check_vocabulary(vocabulary, vocabulary_threshold)
    segment = _segmenter(trace, k, float(dropout), seed, vocab)
    word_entry = _word_encoder(trace, k, segment)
    if glossaries:
        word_entry = _glossary_encoder(trace, k, word_entry, glossaries)
    entries_of = _entries_reader(trace, k, word_entry, cached=not (dropout or glossaries or vocab is not None))
    try:
        return _encode_pieces(trace, text, k, specials, entries_of)
    except UnicodeEncodeError:  # only a lone surrogate has no UTF-8 bytes: say where it is
        raise surrogate_error(text, "text") from None


def encode_head(trace, text: str, k: int | None = None, *, max_tokens: int, per_word: int) -> Encoding:
    """The first words of ``text`` encoded with the first ``k`` merges, as a view draws them:
    word after word while fewer than ``max_tokens`` tokens are drawn, each word drawing at most
    ``per_word`` of its tokens. What follows is only counted: the result's ``more_words`` and
    ``more_tokens`` (0 and 0 when every word is there).

    Speed (issue 20): a slider step with a long sample sentence (70 KB) encoded every word of it
    again at each step. Here the words are cut once per text, and the number of tokens of the
    whole text at every step is worked out once (:func:`_token_totals`), so a step encodes only
    the words shown. A model that is not plain BPE (WordPiece, SentencePiece's, tiktoken's)
    encodes the whole text, as :func:`encode_text` does.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> head = encode_head(trace, "lowest newest " * 100, 4, max_tokens=5, per_word=40)
        >>> head.words, head.more_words, head.more_tokens
        (['lowest', 'newest'], 198, 693)
        >>> full = encode_text(trace, "lowest newest " * 100, 4)
        >>> len(full) == len(head) + head.more_tokens
        True
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    k = check_step(trace, k)
    try:
        prep = _head_prepared(trace, text, max_tokens)
        if prep is None:
            # a short text (a sample sentence) read off its words' recorded encodings
            segment = _replayed(trace, k) if len(text) <= REPLAYED_TEXT else None
            if segment is None:
                enc = encode_text(trace, text, k)
            else:
                entries_of = _entries_reader(trace, k, _word_encoder(trace, k, segment), cached=True)
                enc = _encode_pieces(trace, text, k, _allowed_specials(trace, "all"), entries_of)
            enc.more_words = enc.more_tokens = 0
            return enc
        words, spans, special_ids, totals = prep
        segment = _replayed(trace, k) or _segmenter(trace, k, 0.0, None, None)
        entries_of = _entries_reader(trace, k, _word_encoder(trace, k, segment), cached=True)
        entries, drawn, shown_tokens = [], 0, 0
        for w in words:
            if drawn >= max_tokens:
                break
            tid = special_ids.get(len(entries))
            e = ((w,), (tid,), ((0, len(w)),), (None,)) if tid is not None else entries_of([w])[0]
            entries.append(e)
            drawn += min(len(e[1]), per_word, max_tokens - drawn)
            shown_tokens += len(e[1])
    except UnicodeEncodeError:  # only a lone surrogate has no UTF-8 bytes: say where it is
        raise surrogate_error(text, "text") from None
    n = len(entries)
    enc = Encoding(text, trace, k, words[:n], entries, spans[:n])
    enc.more_words, enc.more_tokens = len(words) - n, totals[k] - shown_tokens
    return enc


def _head_prepared(trace, text: str, max_tokens: int):
    """(words, spans, {word index: special token id}, tokens of the whole text at every step)
    for :func:`encode_head`, kept on the trace for the last few texts; ``None`` when the whole
    text is encoded anyway (it has few words, or the model is not plain BPE)."""
    model = trace.model
    if not model.splits_by_merges or model.merges_unknown_runs or not hasattr(model, "encode_recorded"):
        return None
    cache = trace.__dict__.setdefault("_head_cache", {})
    key = (text, len(trace.merges))
    if key in cache:
        return cache[key]
    conv = trace.convention
    specials = _allowed_specials(trace, "all")
    words, spans, special_ids = [], [], {}
    parts = split_specials(text, specials) if specials and any(sp in text for sp in specials) else [(text, False, 0)]
    for part, special, start in parts:
        if special:
            special_ids[len(words)] = trace.id_table.specials[part]
            words.append(part)
            spans.append((start, start + len(part)))
            continue
        for p, (a, b) in pre_tokenized(conv.pre_tokenizer, "split", part):
            words.append(p)
            spans.append((start + a, start + b))
    prep = None
    if len(words) > max_tokens:
        plain = Counter(w for i, w in enumerate(words) if i not in special_ids)
        prep = (words, spans, special_ids, _token_totals(trace, plain, len(special_ids)))
    if len(cache) >= 2:
        cache.clear()
    cache[key] = prep
    return prep


def _replayed(trace, k: int):
    """BPE's segmenter at step ``k`` read off each word's encoding with every merge, recorded
    once per trace (see :func:`_token_totals`: the iterations at step ``k`` are those whose rank,
    and every rank before it, is ``<= k``); a cold slider step then makes no table of the first
    ``k`` merges' ranks. ``None`` when the model's segmenter is not the one that records.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> [_replayed(trace, k)("lowest") == trace.model.segmenter(trace, k)("lowest") for k in (0, 2, 10)]
        [True, True, True]
    """
    model = type(trace.model)
    if not trace.model.splits_by_merges:
        return None
    owner = {next((c for c in model.__mro__ if name in c.__dict__), None) for name in ("segmenter", "encode_recorded")}
    if len(owner) != 1 or None in owner:  # (a subclass's own segmenter: it may not record)
        return None
    last = len(trace.merges)
    kept = trace.__dict__.get("_replayed_words")
    if kept is None or kept[0] != last or len(kept[1]) > WORDS_CACHED:
        kept = trace.__dict__["_replayed_words"] = (last, {})
    words = kept[1]

    def segment(word):
        steps = words.get(word)
        if steps is None:
            record: list = []
            initial = trace.initial_symbols(word)
            trace.model.encode_recorded(initial, trace, last, record)
            steps = words[word] = (initial, list(accumulate((r[3] for r in record), max)), [r[4] for r in record])
        initial, since, after = steps
        j = bisect_right(since, k)
        return after[j - 1] if j else initial

    return segment


def _token_totals(trace, counts: Counter, fixed: int) -> list[int]:
    """How many tokens the words ``counts`` (word -> how often) make after each number of
    merges (index ``k``), plus ``fixed`` tokens that never change (special tokens).

    Each distinct word is encoded once with every merge, each iteration of the encoder
    recorded: merging the pair of rank ``r`` (all its occurrences) removes as many tokens from
    the count of every step ``k >= r``... unless an earlier iteration needed a later merge:
    an iteration happens at step ``k`` only when every iteration before it does (its rank and
    theirs ``<= k``), so it counts from the largest rank so far. ``a b c`` with ranks
    ``(a, b): 3`` then ``(ab, c): 2`` (a merge list read from a file): both count from step 3."""
    last = len(trace.merges)
    removed = [0] * (last + 2)
    total = fixed
    form, model = trace.convention.normalization, trace.model
    for w, c in counts.items():
        initial = trace.initial_symbols(normalize(w, form))
        total += c * len(initial)
        record: list = []
        model.encode_recorded(initial, trace, last, record)
        since = 0
        for before, _cands, _pair, rank, after in record:
            since = max(since, rank)
            removed[since] += c * (len(before) - len(after))
    return [total - r for r in accumulate(removed[:last + 1])]


def _encode_pieces(trace, text: str, k: int, specials, entries_of) -> Encoding:
    conv = trace.convention
    if not (specials and any(sp in text for sp in specials)):
        words = pre_tokenized(conv.pre_tokenizer, "words", text)
        return Encoding(text, trace, k, words, entries_of(words))
    # special tokens first: each is a "word" of its own, one token, never merged
    words, spans, entries = [], [], []
    for part, special, start in split_specials(text, specials):
        if special:
            words.append(part)
            spans.append((start, start + len(part)))
            entries.append(((part,), (trace.id_table.specials[part],), ((0, len(part)),), (None,)))
            continue
        pieces = pre_tokenized(conv.pre_tokenizer, "split", part)
        words.extend(p for p, _ in pieces)
        spans.extend((start + a, start + b) for _, (a, b) in pieces)
        entries.extend(entries_of([p for p, _ in pieces]))
    return Encoding(text, trace, k, words, entries, spans)


def _segmenter(trace, k: int, dropout: float, seed, vocab):
    """The model's function ``word -> symbols`` for this call (dropout draws afresh per word;
    the vocabulary filter splits rare units back)."""
    if vocab is not None and not (isinstance(trace.marker, EndOfWord) and trace.marker.glued
                                  and not trace.convention.byte_level and trace.model.splits_by_merges):
        raise ValueError("vocabulary: the vocabulary filter is subword-nmt's; it needs a BPE trace with the end-of-word "
                         "marker glued to the last character (preset='subword-nmt')")
    if dropout:
        # every word is drawn afresh, in text order: no cache
        segment = trace.model.dropout_segmenter(trace, k, dropout, random.Random(seed))
    else:
        segment = trace.model.segmenter(trace, k)
    if vocab is None:
        return segment
    vsplit = vocabulary_splitter(trace, k, vocab)
    return lambda w: segment(w) if len(w) == 1 else vsplit(segment(w))  # one character: untouched


def _word_encoder(trace, k: int, segment):
    """A function ``word -> (pieces, ids, offsets within the word or None, made_at or None)``."""
    ids = trace.id_table
    limit = ids.limit(k)  # token ids below it are valid with k merges (None: ask made_at)
    marker, byte_level, remap, show = trace.internal_marker, trace.convention.byte_level, trace.remaps_marker, trace.show
    made_at_of = made_at_table(trace)
    body, unk_id = trace.marker.body, ids.unk_id
    unk_runs = trace.model.merges_unknown_runs
    form = trace.convention.normalization
    simple = form is None and not remap and limit is not None
    ids_get = ids.ids.get

    def word_entry(ow):
        if simple:
            # the common case (no normalization, no remapped marker): C loops only; offsets
            # and made_at are worked out when asked for
            syms = segment(ow)
            tids = tuple(map(ids_get, syms))
            if None not in tids and max(tids, default=-1) < limit:
                return syms, tids, None, None
        nw, nmap = _norm_map(ow, form)
        syms = segment(nw)
        rows = word_rows(nw, nmap, syms, ids.ids, limit, body, marker, byte_level, made_at_of, k)
        if unk_runs:
            rows = _join_unknown_runs(rows)
        if unk_id is None and any(r[1] is None for r in rows):  # pragma: no cover - a byte alphabet covers all
            raise ValueError(f"text: {ow!r} has a symbol with no id in this trace")
        return (
            tuple(show(r[0]) for r in rows) if remap else tuple(r[0] for r in rows),
            tuple(unk_id if r[1] is None else r[1] for r in rows),
            tuple(r[2] for r in rows),
            tuple(r[3] for r in rows),
        )

    return word_entry


def _glossary_encoder(trace, k: int, plain_entry, glossaries):
    """``plain_entry`` with subword-nmt's glossaries: a match is one unit, kept whole; the parts
    around it are words of their own."""
    ids = trace.id_table
    limit = ids.limit(k)
    made_at_of = made_at_table(trace)
    body, marker, remap, unk_id = trace.marker.body, trace.internal_marker, trace.remaps_marker, ids.unk_id
    gloss_made: dict = {}

    def glossary_id(seg):
        tid = ids.public.get(seg)
        if tid is not None and ids.kinds[tid] not in ("base", "merge"):
            return None
        if tid is not None and tid >= (limit if limit is not None else len(ids.internal)):
            return None
        return tid

    def word_entry(ow):
        parts = isolate_glossaries(ow, glossaries)
        if len(parts) == 1 and not parts[0][1]:
            return plain_entry(ow)
        pieces, tids, offs, made = [], [], [], []
        pos = 0
        for seg, whole in parts:
            if whole:
                tid = glossary_id(seg)
                pieces.append(seg)
                tids.append(unk_id if tid is None else tid)
                offs.append((pos, pos + len(seg)))
                made.append(None if tid is None else gloss_made.setdefault(seg, made_at_of.get(trace.internal(seg), 0)))
            else:
                e = plain_entry(seg)
                rel = e[2]
                if rel is None:
                    lens = [len(body(sym if not remap else trace.internal(sym), marker, i == 0))
                            for i, sym in enumerate(e[0])]
                    ends = list(accumulate(lens, initial=0))
                    rel = list(zip(ends, ends[1:]))
                pieces.extend(e[0])
                tids.extend(e[1])
                offs.extend((pos + a, pos + b) for a, b in rel)
                made.extend(e[3] if e[3] is not None else map(made_at_of.get, e[0]))
            pos += len(seg)
        return tuple(pieces), tuple(tids), tuple(offs), tuple(made)

    return word_entry


def _entries_reader(trace, k: int, word_entry, cached: bool):
    """A function ``words -> entries``: each new distinct word is segmented once, repeats come
    from a cache kept on the trace for step ``k`` (not with dropout or apply-bpe's options)."""
    if not cached:
        return lambda words: [word_entry(w) for w in words]
    cache = trace.__dict__.setdefault("_encode_cache", {})
    if cache.get("k") != k:
        cache.clear()
        cache["k"] = k
    words_cache = cache.setdefault("words", {})

    def entries_of(words):
        # the new distinct words, in order of first occurrence (C loops: a text has ~100k words)
        fresh = dict.fromkeys(filterfalse(words_cache.__contains__, words))
        if fresh:
            for w in fresh:
                fresh[w] = word_entry(w)
            if len(words_cache) + len(fresh) > WORDS_CACHED:
                get = words_cache.get
                return [fresh[w] if (e := get(w)) is None else e for w in words]
            words_cache.update(fresh)
        return list(map(words_cache.__getitem__, words))

    return entries_of


def _norm_map(orig: str, form: str | None) -> tuple[str, list[int] | None]:
    """The normalized word and, if it differs, a map from each normalized char index to the
    original char index it came from (plus one entry for the end)."""
    nw = normalize(orig, form)
    if nw == orig:
        return nw, None
    if len(orig) > 200:
        # long words: spread spans proportionally rather than normalizing every prefix
        m = [min(len(orig) - 1, i * len(orig) // max(1, len(nw))) for i in range(len(nw))]
        return nw, m + [len(orig)]
    m = []
    done = 0
    for j in range(1, len(orig) + 1):
        ln = len(normalize(orig[:j], form))
        while done < ln and done < len(nw):
            m.append(j - 1)
            done += 1
    while len(m) < len(nw):
        m.append(len(orig) - 1)
    return nw, m + [len(orig)]


def _allowed_specials(trace, allowed_special) -> tuple[str, ...]:
    own = trace.convention.special_tokens
    if allowed_special == "all":
        return own
    if allowed_special == "none" or allowed_special is None:
        return ()
    if isinstance(allowed_special, str) or not hasattr(allowed_special, "__iter__"):
        raise TypeError(f"allowed_special must be 'all', 'none' or a set of special tokens, got {allowed_special!r}")
    allowed = set(allowed_special)
    unknown = allowed - set(own)
    if unknown:
        raise ValueError(f"allowed_special: {sorted(unknown)} are not special tokens of this trace (it has {list(own)})")
    return tuple(t for t in own if t in allowed)


def _join_unknown_runs(rows):
    """Neighbouring unknown pieces as one (SentencePiece shows ``zz`` rather than ``z z``)."""
    out: list = []
    for r in rows:
        if r[1] is None and out and out[-1][1] is None:
            p = out[-1]
            out[-1] = (p[0] + r[0], None, (p[2][0], r[2][1]), None)
        else:
            out.append(r)
    return tuple(out)


# -- decoding -------------------------------------------------------------------------------

def decode_ids(trace, ids) -> str:
    """Token ids (or an :class:`Encoding` of this trace) back into text; the pre-tokenizer
    joins the words again (see :func:`bpe_viz.decode`)."""
    join = trace.convention.pre_tokenizer.join
    if isinstance(ids, Encoding):
        if ids.trace is not trace:
            raise ValueError("ids: this Encoding was made with another trace")
        return join([_join_word(trace, ps) for ps in ids.word_pieces()])
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
        raise TypeError(f"ids must be a list of int token ids or an Encoding, got {type(ids).__name__}")
    seq = _internal_texts(trace, ids)
    m = trace.internal_marker
    if trace.convention.pre_tokenizer.concatenates:
        # the pieces are the text itself (a pattern that keeps whitespace): no need to know
        # where words end, only to drop markers and decode the bytes
        body = trace.marker.body
        return _join_internal(trace, [t if t is None or isinstance(t, _Special) else body(t, m, False)
                                      for t in seq])
    out, run = [], []
    for t in seq:
        if isinstance(t, _Special):  # a special token is a word of its own
            out.extend(_join_internal(trace, w) for w in trace.marker.group(run, m))
            out.append(t.text)
            run = []
        else:
            run.append(t)
    out.extend(_join_internal(trace, w) for w in trace.marker.group(run, m))
    return join(out)


def _internal_texts(trace, ids) -> list:
    """Each id's internal token text (``None``: unknown; :class:`_Special`: a special token)."""
    tab = trace.id_table
    n = len(tab.internal)
    seq: list = []
    for i in ids:
        if isinstance(i, bool) or not isinstance(i, int):
            raise TypeError(f"ids must contain ints, got {type(i).__name__} {i!r}")
        if not 0 <= i < n or tab.kinds[i] == "unused":
            raise ValueError(f"ids: {i} is not a token id of this trace (ids run from 0 to {n - 1})")
        seq.append(_Special(tab.internal[i]) if tab.kinds[i] == "special" else tab.internal[i])
    return seq


class _Special:
    """A special token's text among decoded tokens (never byte-decoded, never joined)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


def _join_internal(trace, parts) -> str:
    """One word's marker-free internal texts (``None``: unknown) as text."""
    unk = trace.unk_token
    if trace.convention.byte_level:
        out, buf = [], []
        for p in parts:
            if p is None or isinstance(p, _Special):
                if buf:
                    out.append(symbols_to_bytes("".join(buf)).decode("utf-8", errors="replace"))
                    buf = []
                out.append(unk if p is None else p.text)
            else:
                buf.append(p)
        if buf:
            out.append(symbols_to_bytes("".join(buf)).decode("utf-8", errors="replace"))
        return "".join(out)
    return "".join(unk if p is None else p.text if isinstance(p, _Special) else trace.show(p) for p in parts)


def _join_word(trace, pieces: list[str]) -> str:
    """Join one word's public pieces back into the word (markers removed)."""
    s = "".join(trace.marker.strip(pieces))
    if trace.convention.byte_level and all(ch in BYTE_SET for ch in s):
        return symbols_to_bytes(s).decode("utf-8", errors="replace")
    return s
