"""encode / decode: segment new text with a trace, step by step; token ids; unknowns.

What is common to every model lives here: cutting the text with the trace's pre-tokenizer,
Unicode normalization, token ids (``trace.id_to_token``), character offsets, unknown characters
and decoding. How one word is segmented is the model's (``trace.model``): BPE applies the learned
merges by rank (:mod:`~bpe_viz.engine.bpe.model`), WordPiece takes the greedy longest match
(:mod:`~bpe_viz.engine.wordpiece.model`). Where a word ends is the marker's
(:mod:`~bpe_viz.engine.text.markers`).

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
    >>> encode("lowest", trace).pieces
    ['low', 'est</w>']
    >>> decode(encode("newest lower", trace).ids, trace)
    'newest lower'
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from itertools import accumulate, chain
from functools import cached_property

from .text.alphabet import BYTE_SET, symbols_to_bytes
from .text.corpus import normalize
from .text.pretokenize import split_specials
from .bpe.applyopts import check_glossaries, check_vocabulary, isolate_glossaries, vocabulary_splitter
from .text.markers import EndOfWord
from .merges.trace import Trace

__all__ = ["encode", "decode", "encode_word", "Encoding", "WordWalkthrough", "EncodeStep"]


@dataclass(frozen=True)
class EncodeStep:
    """One iteration of the encoder on one word."""

    symbols: tuple[str, ...]  # before this iteration
    candidates: tuple[tuple[tuple[str, str], int], ...]  # learned pairs present, with ranks, best first
    pair: tuple[str, str]  # the lowest-rank pair: merged everywhere in the word
    rank: int
    result: tuple[str, ...]  # after


@dataclass(frozen=True)
class WordWalkthrough:
    """How one word was encoded: its initial symbols, every iteration, the final symbols.

    For a WordPiece trace, ``steps`` are the greedy longest-match choices instead (each
    :class:`EncodeStep` then has ``pair=None``; ``candidates`` lists the pieces tried).
    """

    word: str
    initial: tuple[str, ...]
    steps: tuple[EncodeStep, ...]
    final: tuple[str, ...]
    num_merges: int
    algorithm: str = "bpe"
    #: the steps are greedy longest-match choices (WordPiece) rather than merges
    longest_match: bool = False
    #: the encoder's rule in one sentence, when it is not apply-bpe's (SentencePiece's by piece)
    rule: str | None = None

    def describe(self) -> str:
        """The walkthrough in plain lines (what the 2016 paper's encoder would print)."""
        lines = [f"{self.word!r}: start from {' '.join(self.initial)}"]
        for i, s in enumerate(self.steps, 1):
            if s.pair is None:
                lines.append(f"  {i}. {s.candidates[-1][0] if s.candidates else ''}")
                continue
            cands = ", ".join(f"({a} {b}) rank {r}" for (a, b), r in s.candidates)
            lines.append(
                f"  {i}. candidates: {cands}; merge ({s.pair[0]} {s.pair[1]}) -> {' '.join(s.result)}"
            )
        lines.append(f"  no learned pair left: {' '.join(self.final)}")
        return "\n".join(lines)


class Encoding:
    """The result of :func:`encode`: parallel lists, one entry per token.

    ``tokens``: vocabulary strings (``unk_token`` for unknown characters); ``pieces``: what the
    text was cut into (markers included, unknown characters as they are); ``ids``;
    ``offsets``: ``(start, end)`` character spans in the original text (a marker-only token has
    an empty span at the word's end); ``word_ids``: which word each token belongs to;
    ``unknown``; ``made_at``: the merge step that made each token (0: initial symbol,
    ``None``: unknown). ``words`` and ``word_spans`` describe the pre-tokenizer's pieces.
    """

    def __init__(self, text, trace, num_merges, words, entries, spans=None):
        if spans is not None:
            self.word_spans = spans  # known already (special tokens were cut out)
        self.text = text
        self.trace = trace
        self.num_merges = num_merges
        self.words = words
        # per word: (pieces, ids, offsets within the word or None, made_at or None); the
        # Nones (plain character traces) are worked out only when asked for
        self._entries = entries

    @cached_property
    def word_spans(self) -> list[tuple[int, int]]:
        """(start, end) of each word in the text."""
        return [span for _, span in self.trace.convention.pre_tokenizer.split(self.text)]

    def _flat(self, i):
        return list(chain.from_iterable(e[i] for e in self._entries))

    @cached_property
    def pieces(self) -> list[str]:
        return self._flat(0)

    @cached_property
    def ids(self) -> list[int]:
        return self._flat(1)

    @cached_property
    def tokens(self) -> list[str]:
        return list(map(self.trace._ids.tokens.__getitem__, self.ids))

    @cached_property
    def unknown(self) -> list[bool]:
        unk = self.trace.unk_id
        return [i == unk for i in self.ids] if unk is not None else [False] * len(self.ids)

    @cached_property
    def made_at(self) -> list:
        made_get = _made_at_table(self.trace).get
        return list(chain.from_iterable(
            e[3] if e[3] is not None else map(made_get, e[0]) for e in self._entries))

    @cached_property
    def offsets(self) -> list[tuple[int, int]]:
        t = self.trace
        body, m = t.marker.body, t._internal_marker
        byte_level = t.convention.byte_level
        ids_all, made_at_of = t._ids.ids, _made_at_table(t)
        out = []
        for (st, _), word, e in zip(self.word_spans, self.words, self._entries):
            rel = e[2]
            if rel is None and byte_level:
                # byte symbols -> the characters they belong to (worked out only when asked)
                rows = _word_entry(word, None, e[0], ids_all, None, body, m, True, made_at_of, self.num_merges)
                rel = [r[2] for r in rows]
            if rel is None:
                lens = [len(body(s, m, i == 0)) for i, s in enumerate(e[0])]
                ends = list(accumulate(lens, initial=st))
                out.extend(zip(ends, ends[1:]))
            else:
                out.extend((st + a, st + b) for a, b in rel)
        return out

    @cached_property
    def word_ids(self) -> list[int]:
        return [wi for wi, ent in enumerate(self._entries) for _ in ent[1]]

    def __len__(self) -> int:
        return sum(len(e[1]) for e in self._entries)

    def __repr__(self):
        return f"Encoding(tokens={self.tokens!r}, ids={self.ids!r})"

    def walkthrough(self, i: int) -> WordWalkthrough:
        """The step-by-step encoding of word ``i`` of the text."""
        if not 0 <= i < len(self.words):
            raise IndexError(f"word index {i} out of range: the text has {len(self.words)} words")
        return encode_word(self.words[i], self.trace, self.num_merges)

    @cached_property
    def walkthroughs(self) -> list[WordWalkthrough]:
        return [self.walkthrough(i) for i in range(len(self.words))]

    def word_pieces(self) -> list[list[str]]:
        """The pieces grouped by word."""
        return [list(e[0]) for e in self._entries]


def _encodes_itself(trace) -> bool:
    """A trace of a model that is not built from merges (Unigram, SubwordTextEncoder) carries its
    own encoder: ``_encode(text, k)``, ``_encode_word(word, k)`` and ``_decode(ids)``."""
    return not isinstance(trace, Trace) and callable(getattr(trace, "_encode", None))


def _check_trace(trace, argname="trace") -> Trace:
    if not isinstance(trace, Trace):
        raise TypeError(
            f"{argname} must be a trace from train_bpe, train_wordpiece or train_unigram, got {type(trace).__name__}"
        )
    return trace


def _check_k(trace: Trace, num_merges) -> int:
    n = len(trace.merges)
    if num_merges is None:
        return n
    if isinstance(num_merges, bool) or not isinstance(num_merges, int):
        raise TypeError(f"num_merges must be an int or None, got {type(num_merges).__name__} {num_merges!r}")
    if not 0 <= num_merges <= n:
        raise ValueError(f"num_merges must be between 0 and {n} (the merges this trace learned), got {num_merges}")
    return num_merges


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


def encode_word(word: str, trace: Trace, num_merges: int | None = None) -> WordWalkthrough:
    """Encode one word and record every iteration (for the explainer).

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> w = encode_word("lowest", trace)
        >>> [s.pair for s in w.steps]
        [('e', 's'), ('es', 't'), ('est', '</w>'), ('l', 'o'), ('lo', 'w')]
        >>> w.steps[0].candidates[:2]
        ((('e', 's'), 1), (('l', 'o'), 4))
    """
    if _encodes_itself(trace):
        return trace._encode_word(word, num_merges)
    trace = _check_trace(trace)
    if not isinstance(word, str):
        raise TypeError(f"word must be a str, got {type(word).__name__} {word!r}")
    conv = trace.convention
    if not word or conv.pre_tokenizer.words(word) != [word]:
        raise ValueError(
            f"word must be one non-empty word as the trace's pre-tokenizer cuts text "
            f"({conv.pre_tokenizer.describe()}), got {word!r}"
        )
    k = _check_k(trace, num_merges)
    walk = trace.model.walkthrough(normalize(word, conv.normalization), trace, k)
    return walk if walk.word == word else dataclasses.replace(walk, word=word)


def encode(text: str, trace: Trace, num_merges: int | None = None, *, allowed_special="all",
           dropout: float = 0.0, seed: int | None = None, glossaries=None, vocabulary=None,
           vocabulary_threshold: int | None = None) -> Encoding:
    """Encode text with the first ``num_merges`` merges of ``trace`` (all by default).

    Text is cut by the trace's pre-tokenizer, like training, after its special tokens are cut
    out: ``allowed_special`` says which count as special here (``"all"``: the trace's own;
    ``"none"``: none, the text is encoded as plain characters, as tiktoken's
    ``encode_ordinary``; or a set of them). Characters never seen in training become
    ``trace.unk_token`` but stay visible in ``pieces`` (a byte alphabet has no unknowns).

    ``dropout`` (BPE-dropout, Provilkov et al. 2020): each candidate merge is skipped with this
    probability, draw for draw as subword-nmt's ``apply_bpe --dropout`` after
    ``random.seed(seed)`` (one stream across the whole text; ``seed=None``: unseeded). The
    global ``random`` state is never touched. On a SentencePiece trace, dropout follows
    SentencePiece's sampling instead (see :mod:`~bpe_viz.engine.bpe.sentencepiece`).

    ``glossaries`` (regular expressions) and ``vocabulary`` (``{unit: count}`` as
    ``subword-nmt get-vocab`` writes it) with ``vocabulary_threshold`` are subword-nmt's
    apply-bpe options (:mod:`~bpe_viz.engine.bpe.applyopts`): a glossary match is kept whole and
    the parts around it are encoded as words of their own; a unit counted fewer than
    ``vocabulary_threshold`` times is split back along its merges.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> e = encode("loki", trace)
        >>> e.pieces, e.tokens
        (['lo', 'k', 'i', '</w>'], ['lo', '<unk>', 'i', '</w>'])
        >>> e.offsets
        [(0, 2), (2, 3), (3, 4), (4, 4)]
    """
    if _encodes_itself(trace):
        if dropout or glossaries is not None or vocabulary is not None:
            raise ValueError(f"dropout, glossaries and vocabulary are options of the merge-based encoders; "
                             f"a {type(trace).__name__} has no merges")
        return trace._encode(text, num_merges)
    trace = _check_trace(trace)
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    k = _check_k(trace, num_merges)
    specials = _allowed_specials(trace, allowed_special)
    conv = trace.convention
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1:
        raise ValueError(f"dropout must be a probability between 0 and 1, got {dropout!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise TypeError(f"seed must be an int or None, got {type(seed).__name__} {seed!r}")
    glossaries = check_glossaries(glossaries)
    vocab = check_vocabulary(vocabulary, vocabulary_threshold)
    if vocab is not None and not (isinstance(trace.marker, EndOfWord) and trace.marker.glued
                                  and not conv.byte_level and trace.model.splits_by_merges):
        raise ValueError("vocabulary: the vocabulary filter is subword-nmt's; it needs a BPE trace with the end-of-word "
                         "marker glued to the last character (preset='subword-nmt')")
    if dropout:
        # every word is drawn afresh, in text order: no cache
        segment = trace.model.dropout_segmenter(trace, k, float(dropout), random.Random(seed))
    else:
        segment = trace.model.segmenter(trace, k)
    if vocab is not None:
        inner, vsplit = segment, vocabulary_splitter(trace, k, vocab)
        segment = lambda w: inner(w) if len(w) == 1 else vsplit(inner(w))  # noqa: E731  (one character: untouched)
    ids = trace._ids
    limit = ids.limit(k)  # token ids below it are valid with k merges (None: ask made_at)
    cache = trace.__dict__.setdefault("_encode_cache", {})
    if cache.get("k") != k:
        cache.clear()
        cache["k"] = k
    words_cache = cache.setdefault("words", {})

    marker = trace._internal_marker
    byte_level = conv.byte_level
    remap = trace._remap
    show = trace._show
    made_at_of = _made_at_table(trace)
    body = trace.marker.body
    unk_id = ids.unk_id

    unk_runs = trace.model.merges_unknown_runs
    form = conv.normalization
    simple = form is None and not remap and limit is not None
    ids_get = ids.ids.get

    def word_entry(ow):
        """Per word: (pieces, ids, offsets within the word or None, made_at or None)."""
        if simple:
            # the common case (no normalization, no remapped marker): C loops only; offsets
            # and made_at are worked out when asked for
            syms = segment(ow)
            tids = tuple(map(ids_get, syms))
            if None not in tids and max(tids) < limit:
                return syms, tids, None, None
        nw, nmap = _norm_map(ow, form)
        syms = segment(nw)
        rows = _word_entry(nw, nmap, syms, ids.ids, limit, body, marker, byte_level, made_at_of, k)
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

    if glossaries:
        plain_entry = word_entry
        gloss_made = {}

        def word_entry(ow):  # noqa: F811  (glossary segments, each its own word)
            parts = isolate_glossaries(ow, glossaries)
            if len(parts) == 1 and not parts[0][1]:
                return plain_entry(ow)
            pieces, tids, offs, made = [], [], [], []
            pos = 0
            for seg, whole in parts:
                if whole:
                    tid = ids.public.get(seg)
                    if tid is not None and ids.kinds[tid] not in ("base", "merge"):
                        tid = None
                    if tid is not None and tid >= (limit if limit is not None else len(ids.internal)):
                        tid = None
                    pieces.append(seg)
                    tids.append(unk_id if tid is None else tid)
                    offs.append((pos, pos + len(seg)))
                    made.append(None if tid is None else gloss_made.setdefault(seg, made_at_of.get(trace._internal(seg), 0)))
                else:
                    e = plain_entry(seg)
                    rel = e[2]
                    if rel is None:
                        lens = [len(body(sym if not remap else trace._internal(sym), marker, i == 0))
                                for i, sym in enumerate(e[0])]
                        ends = list(accumulate(lens, initial=0))
                        rel = list(zip(ends, ends[1:]))
                    pieces.extend(e[0])
                    tids.extend(e[1])
                    offs.extend((pos + a, pos + b) for a, b in rel)
                    made.extend(e[3] if e[3] is not None else map(made_at_of.get, e[0]))
                pos += len(seg)
            return tuple(pieces), tuple(tids), tuple(offs), tuple(made)

    def entries_of(words):
        if dropout or glossaries or vocab is not None:
            return [word_entry(w) for w in words]
        entries = list(map(words_cache.get, words))
        if None in entries:
            # each new distinct word is segmented once; repeats come from the cache
            fresh = {w: word_entry(w) for w in dict.fromkeys(w for w, e in zip(words, entries) if e is None)}
            entries = [fresh[w] if e is None else e for w, e in zip(words, entries)]
            if len(words_cache) + len(fresh) <= 200_000:
                words_cache.update(fresh)
        return entries

    if not (specials and any(sp in text for sp in specials)):
        words = conv.pre_tokenizer.words(text)
        return Encoding(text, trace, k, words, entries_of(words))
    # special tokens first: each is a "word" of its own, one token, never merged
    words, spans, entries = [], [], []
    for part, special, start in split_specials(text, specials):
        if special:
            words.append(part)
            spans.append((start, start + len(part)))
            entries.append(((part,), (ids.specials[part],), ((0, len(part)),), (None,)))
            continue
        pieces = conv.pre_tokenizer.split(part)
        words.extend(p for p, _ in pieces)
        spans.extend((start + a, start + b) for _, (a, b) in pieces)
        entries.extend(entries_of([p for p, _ in pieces]))
    return Encoding(text, trace, k, words, entries, spans)


def _allowed_specials(trace: Trace, allowed_special) -> tuple[str, ...]:
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


def _made_at_table(trace: Trace) -> dict:
    d = trace.__dict__.get("_made_at_cache")
    if d is None or d[0] != len(trace.merges):
        t = {s: 0 for s in trace.base_symbols}
        for s in trace._completion_symbols:
            t.setdefault(s, 0)
        for m in trace.merges:
            t.setdefault(m._token_internal, m.step)
        d = (len(trace.merges), t)
        trace.__dict__["_made_at_cache"] = d
    return d[1]


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


def _word_entry(nw, nmap, syms, ids_all, limit, body_of, marker, byte_level, made_at_of, k):
    """For one word: (symbol, id or None, (start, end) relative to the word, made_at) per piece."""
    out = []
    if byte_level:
        # byte index -> char index in the normalized word
        char_of_byte = []
        for ci, ch in enumerate(nw):
            char_of_byte.extend([ci] * len(ch.encode("utf-8")))
        nbytes = len(char_of_byte)
    pos = 0  # in chars (or bytes for byte-level) of the normalized word
    for i, sym in enumerate(syms):
        tid = ids_all.get(sym)
        if tid is not None and (tid >= limit if limit is not None else made_at_of.get(sym, 0) > k):
            tid = None
        n = len(body_of(sym, marker, i == 0))
        if byte_level:
            if n:
                s = char_of_byte[pos] if pos < nbytes else len(nw)
                e = char_of_byte[pos + n - 1] + 1 if pos + n - 1 < nbytes else len(nw)
            else:
                s = e = char_of_byte[pos - 1] + 1 if pos else 0
        else:
            s, e = pos, pos + n
        pos += n
        if nmap is not None:
            s, e = nmap[s] if s < len(nmap) - 1 else nmap[-1], (nmap[e - 1] + 1 if e > s else nmap[s] if s < len(nmap) else nmap[-1])
        out.append((sym, tid, (s, e), None if tid is None else made_at_of.get(sym, 0)))
    return tuple(out)


def decode(ids, trace: Trace) -> str:
    """Turn token ids (or an :class:`Encoding`) back into text; the pre-tokenizer joins the
    words again (whitespace-split words with one space).

    ``decode(encode(t, trace).ids, trace) == " ".join(t.split())`` whenever every character of
    ``t`` was seen in training (unknown characters come back as ``unk_token``; decoding the
    :class:`Encoding` itself keeps them). Without an end-of-word marker, ids alone do not say
    where words end: pass the Encoding.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe("low lower", num_merges=3, preset="subword-nmt", min_frequency=1)
        >>> e = encode("lower  low", trace)
        >>> e.tokens
        ['lo', 'wer</w>', 'lo', 'w</w>']
        >>> decode(e.ids, trace)
        'lower low'
    """
    if _encodes_itself(trace):
        return trace._decode(ids)  # an encoding of its own is passed whole: it knows its step
    trace = _check_trace(trace)
    join = trace.convention.pre_tokenizer.join
    if isinstance(ids, Encoding):
        if ids.trace is not trace:
            raise ValueError("ids: this Encoding was made with another trace")
        return join([_join_word(trace, ps) for ps in ids.word_pieces()])
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
        raise TypeError(f"ids must be a list of int token ids or an Encoding, got {type(ids).__name__}")
    tab = trace._ids
    n = len(tab.internal)
    m = trace._internal_marker
    seq: list = []  # internal token texts; None: unknown; _Special: a special token's text
    for i in ids:
        if isinstance(i, bool) or not isinstance(i, int):
            raise TypeError(f"ids must contain ints, got {type(i).__name__} {i!r}")
        if not 0 <= i < n or tab.kinds[i] == "unused":
            raise ValueError(f"ids: {i} is not a token id of this trace (ids run from 0 to {n - 1})")
        kind = tab.kinds[i]
        seq.append(_Special(tab.internal[i]) if kind == "special" else tab.internal[i])
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


class _Special:
    """A special token's text among decoded tokens (never byte-decoded, never joined)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


def _join_internal(trace: Trace, parts) -> str:
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
    return "".join(unk if p is None else p.text if isinstance(p, _Special) else trace._show(p) for p in parts)


def _join_word(trace: Trace, pieces: list[str]) -> str:
    """Join one word's public pieces back into the word (markers removed)."""
    s = "".join(trace.marker.strip(pieces))
    if trace.convention.byte_level and all(ch in BYTE_SET for ch in s):
        return symbols_to_bytes(s).decode("utf-8", errors="replace")
    return s
