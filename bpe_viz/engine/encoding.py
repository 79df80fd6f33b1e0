"""encode / decode: segment new text with learned merges, step by step; token ids; unknowns.

BPE encoding here is the one subword-nmt's apply-bpe and the 2016 paper's encoder use: split a
word into its initial symbols, then repeatedly take the *lowest-rank* learned pair present and
merge all its non-overlapping occurrences left to right, until no learned pair remains. (It is
not "replay every merge in order": a word skips merges it has no pair for.)

WordPiece traces encode differently, greedy longest match first (see :mod:`bpe_viz.wordpiece`);
:func:`encode` picks the right one from the trace.

Ranks are merge numbers, 1-based: rank 1 is the first merge learned.

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
    >>> encode("lowest", trace).pieces
    ['low', 'est</w>']
    >>> decode(encode("newest lower", trace).ids, trace)
    'newest lower'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate, chain
from functools import cached_property

from .corpus import BYTE_SYMBOLS, normalize, symbols_to_bytes
from .trace import Trace

__all__ = ["encode", "decode", "encode_word", "Encoding", "WordWalkthrough", "EncodeStep"]

_WORD = re.compile(r"\S+")


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
    ``None``: unknown). ``words`` and ``word_spans`` describe the whitespace-split words.
    """

    def __init__(self, text, trace, num_merges, words, entries):
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
        return [m.span() for m in _WORD.finditer(self.text)]

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
        return list(map(self.trace._id_table[0].__getitem__, self.ids))

    @cached_property
    def unknown(self) -> list[bool]:
        return [i == 0 for i in self.ids]  # id 0 is unk_token and nothing else

    @cached_property
    def made_at(self) -> list:
        made_get = _made_at_table(self.trace).get
        return list(chain.from_iterable(
            e[3] if e[3] is not None else map(made_get, e[0]) for e in self._entries))

    @cached_property
    def offsets(self) -> list[tuple[int, int]]:
        c = self.trace.convention
        mlen = len(self.trace._internal_marker) if c.end_of_word is not None else 0
        out = []
        for (st, _), e in zip(self.word_spans, self._entries):
            rel = e[2]
            if rel is None:
                lens = list(map(len, e[0]))
                if mlen:
                    lens[-1] -= mlen
                ends = list(accumulate(lens, initial=st))
                rel_abs = zip(ends, ends[1:])
                out.extend(rel_abs)
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


def _check_trace(trace, argname="trace") -> Trace:
    if not isinstance(trace, Trace):
        raise TypeError(
            f"{argname} must be a Trace from train_bpe or train_wordpiece, got {type(trace).__name__}"
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


def _ranks(trace: Trace, k: int) -> dict:
    """internal pair -> 1-based rank, for the first k merges (cached on the trace)."""
    cache = trace.__dict__.setdefault("_rank_cache", {})
    r = cache.get(k)
    if r is None:
        if len(cache) > 8:
            cache.clear()
        r = cache[k] = {m._pair_internal: m.step for m in trace.merges[:k]}
    return r


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
    trace = _check_trace(trace)
    if not isinstance(word, str):
        raise TypeError(f"word must be a str, got {type(word).__name__} {word!r}")
    if not word or any(ch.isspace() for ch in word):
        raise ValueError(f"word must be one non-empty word without whitespace, got {word!r}")
    k = _check_k(trace, num_merges)
    conv = trace.convention
    nw = normalize(word, conv.normalization)
    if conv.algorithm == "wordpiece":
        from .wordpiece import wordpiece_walkthrough

        return wordpiece_walkthrough(nw, trace, k)
    initial = trace.initial_symbols(nw)
    record: list = []
    final = _apply(initial, _ranks(trace, k), record)
    show = trace._show_tuple if trace._remap else tuple
    steps = tuple(
        EncodeStep(
            show(before),
            tuple(((trace._show(a), trace._show(b)), r) for (a, b), r in cands),
            (trace._show(pair[0]), trace._show(pair[1])),
            rank,
            show(after),
        )
        for before, cands, pair, rank, after in record
    )
    return WordWalkthrough(word, show(initial), steps, show(final), k)


def encode(text: str, trace: Trace, num_merges: int | None = None) -> Encoding:
    """Encode text with the first ``num_merges`` merges of ``trace`` (all by default).

    Text is split on whitespace, like training. Characters never seen in training become
    ``trace.unk_token`` (id 0) but stay visible in ``pieces``.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> e = encode("loki", trace)
        >>> e.pieces, e.tokens
        (['lo', 'k', 'i', '</w>'], ['lo', '<unk>', 'i', '</w>'])
        >>> e.offsets
        [(0, 2), (2, 3), (3, 4), (4, 4)]
    """
    trace = _check_trace(trace)
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    k = _check_k(trace, num_merges)
    conv = trace.convention
    if conv.algorithm == "wordpiece":
        from .wordpiece import wordpiece_encode_pieces

        segment = lambda w: wordpiece_encode_pieces(w, trace, k)  # noqa: E731
    else:
        ranks = _ranks(trace, k)
        initial_symbols = _splitter(trace)
        segment = lambda w: _apply(initial_symbols(w), ranks)  # noqa: E731
    # token ids valid at k merges: unk, initial symbols, completions, tokens of merges <= k
    table, ids_all, _, _ = trace._id_table
    n_fixed = 1 + len(trace.base_symbols) + len(trace._completion_symbols)
    limit = n_fixed + k
    cache = trace.__dict__.setdefault("_encode_cache", {})
    if cache.get("k") != k:
        cache.clear()
        cache["k"] = k
    words_cache = cache.setdefault("words", {})

    marker = trace._internal_marker if conv.end_of_word is not None else None
    pub_marker = conv.end_of_word
    byte_level = conv.byte_level
    remap = trace._remap
    show = trace._show
    unk = trace.unk_token
    made_at_of = _made_at_table(trace)
    prefix = conv.prefix if conv.algorithm == "wordpiece" else None

    form = conv.normalization
    simple = not byte_level and form is None and not remap and prefix is None
    ids_get = ids_all.get
    made_get = made_at_of.get
    mlen = len(marker) if marker is not None else 0
    def word_entry(ow):
        """Per word: (pieces, tokens, ids, offsets within the word, unknown, made_at)."""
        if simple:
            # the common case (characters, no normalization, no remapped marker): C loops only
            syms = segment(ow)
            tids = tuple(map(ids_get, syms))
            if None not in tids and max(tids) < limit:
                return syms, tids, None, None
        nw, nmap = _norm_map(ow, form)
        syms = segment(nw)
        rows = _word_entry(nw, nmap, syms, ids_all, limit, marker, byte_level, prefix, made_at_of)
        return (
            tuple(show(r[0]) for r in rows) if remap else tuple(r[0] for r in rows),
            tuple(0 if r[1] is None else r[1] for r in rows),
            tuple(r[2] for r in rows),
            tuple(r[3] for r in rows),
        )

    words = text.split()
    entries = list(map(words_cache.get, words))
    if None in entries:
        # each new distinct word is segmented once; repeats come from the cache
        fresh = {w: word_entry(w) for w in dict.fromkeys(w for w, e in zip(words, entries) if e is None)}
        entries = [fresh[w] if e is None else e for w, e in zip(words, entries)]
        if len(words_cache) + len(fresh) <= 200_000:
            words_cache.update(fresh)
    return Encoding(text, trace, k, words, entries)


def _splitter(trace: Trace):
    """A fast word -> initial symbols function for the trace's convention."""
    c = trace.convention
    m = trace._internal_marker
    if c.byte_level or c.algorithm != "bpe":
        return trace.initial_symbols
    if c.end_of_word is None:
        return tuple
    if c.attach_end_of_word:
        return lambda w: (*w[:-1], w[-1] + m)
    return lambda w: (*w, m)


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


def _word_entry(nw, nmap, syms, ids_all, limit, marker, byte_level, prefix, made_at_of):
    """For one word: (symbol, id or None, (start, end) relative to the word, made_at) per piece."""
    out = []
    if byte_level:
        # byte index -> char index in the normalized word
        char_of_byte = []
        for ci, ch in enumerate(nw):
            char_of_byte.extend([ci] * len(ch.encode("utf-8")))
        nbytes = len(char_of_byte)
    pos = 0  # in chars (or bytes for byte-level) of the normalized word
    for sym in syms:
        tid = ids_all.get(sym)
        if tid is not None and tid >= limit:
            tid = None
        body = sym
        if marker is not None and body.endswith(marker):
            body = body[: -len(marker)]
        if prefix is not None and pos > 0 and body.startswith(prefix):
            body = body[len(prefix):]
        n = len(body)
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
    """Turn token ids (or an :class:`Encoding`) back into text, words separated by one space.

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
    trace = _check_trace(trace)
    conv = trace.convention
    if isinstance(ids, Encoding):
        if ids.trace is not trace:
            raise ValueError("ids: this Encoding was made with another trace")
        return " ".join(_join_word(trace, ps) for ps in ids.word_pieces())
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
        raise TypeError(f"ids must be a list of int token ids or an Encoding, got {type(ids).__name__}")
    internal = trace._id_table[3]
    n = len(internal)
    toks = []
    for i in ids:
        if isinstance(i, bool) or not isinstance(i, int):
            raise TypeError(f"ids must contain ints, got {type(i).__name__} {i!r}")
        if not 0 <= i < n:
            raise ValueError(f"ids: {i} is not a token id of this trace (ids run from 0 to {n - 1})")
        toks.append(internal[i] if i else None)
    if conv.algorithm == "wordpiece":
        words: list[list] = []
        for t in toks:
            if t is not None and t.startswith(conv.prefix) and words:
                words[-1].append(t[len(conv.prefix):])
            else:
                words.append([t if t is not None else trace.unk_token])
        return " ".join("".join(w) for w in words)
    if conv.end_of_word is None:
        if not toks:
            return ""
        raise ValueError(
            "ids: this trace has no end-of-word marker, so token ids alone do not say where one word "
            "ends and the next begins; decode the Encoding itself instead: decode(encoding, trace)"
        )
    marker = trace._internal_marker
    words, cur = [], []
    for t in toks:
        if t is None:
            cur.append(None)
            continue
        if t.endswith(marker):
            cur.append(t[: -len(marker)])
            words.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        words.append(cur)
    return " ".join(_join_internal(trace, w) for w in words)


def _join_internal(trace: Trace, parts) -> str:
    unk = trace.unk_token
    if trace.convention.byte_level:
        out, buf = [], []
        for p in parts:
            if p is None:
                if buf:
                    out.append(symbols_to_bytes("".join(buf)).decode("utf-8", errors="replace"))
                    buf = []
                out.append(unk)
            else:
                buf.append(p)
        if buf:
            out.append(symbols_to_bytes("".join(buf)).decode("utf-8", errors="replace"))
        return "".join(out)
    return "".join(unk if p is None else p for p in parts)


def _join_word(trace: Trace, pieces: list[str]) -> str:
    """Join one word's public pieces back into the word (markers and prefixes removed)."""
    conv = trace.convention
    parts = []
    for i, p in enumerate(pieces):
        if conv.algorithm == "wordpiece":
            if i > 0 and p.startswith(conv.prefix):
                p = p[len(conv.prefix):]
        elif conv.end_of_word is not None and i == len(pieces) - 1 and p.endswith(conv.end_of_word):
            p = p[: -len(conv.end_of_word)]
        parts.append(p)
    if conv.byte_level:
        s = "".join(parts)
        if all(ch in _BYTE_SET for ch in s):
            return symbols_to_bytes(s).decode("utf-8", errors="replace")
        return s
    return "".join(parts)


_BYTE_SET = frozenset(BYTE_SYMBOLS)
