"""What encoding text with a merge trace gives back: :class:`Encoding`, and for one word a
:class:`WordWalkthrough` of :class:`EncodeStep` s.

The results only; :mod:`~bpe_viz.engine.merges.encoder` computes them. An Encoding keeps, per
word, the pieces and ids the encoder found, and works out offsets, tokens and the merge step
that made each token only when asked (most callers read ``pieces`` or ``ids`` alone).
Unigram and SubwordTextEncoder have encodings of their own
(:mod:`~bpe_viz.engine.unigram`, :mod:`~bpe_viz.engine.subword_text_encoder`).

Example::

    >>> from bpe_viz import train_bpe, encode
    >>> e = encode("lowest", train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10))
    >>> e.tokens, e.offsets, e.made_at
    (['low', 'est</w>'], [(0, 3), (3, 6)], [5, 3])
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate, chain
from operator import itemgetter

__all__ = ["Encoding", "WordWalkthrough", "EncodeStep", "made_at_table", "word_rows"]


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
        # ``entries``: per word, (pieces, ids, offsets within the word or None, made_at or None)
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
        return list(chain.from_iterable(map(itemgetter(i), self._entries)))

    @cached_property
    def pieces(self) -> list[str]:
        return self._flat(0)

    @cached_property
    def ids(self) -> list[int]:
        return self._flat(1)

    @cached_property
    def tokens(self) -> list[str]:
        return list(map(self.trace.id_to_token.__getitem__, self.ids))

    @cached_property
    def unknown(self) -> list[bool]:
        unk = self.trace.unk_id
        return [i == unk for i in self.ids] if unk is not None else [False] * len(self.ids)

    @cached_property
    def made_at(self) -> list:
        made_get = made_at_table(self.trace).get
        return list(chain.from_iterable(
            e[3] if e[3] is not None else map(made_get, e[0]) for e in self._entries))

    @cached_property
    def offsets(self) -> list[tuple[int, int]]:
        t = self.trace
        body, m = t.marker.body, t.internal_marker
        byte_level = t.convention.byte_level
        ids_all, made_at_of = t.id_table.ids, made_at_table(t)
        out = []
        for (st, _), word, e in zip(self.word_spans, self.words, self._entries):
            rel = e[2]
            if rel is None and byte_level:
                # byte symbols -> the characters they belong to (worked out only when asked)
                rows = word_rows(word, None, e[0], ids_all, None, body, m, True, made_at_of, self.num_merges)
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
        return self.trace.encode_word(self.words[i], self.num_merges)

    @cached_property
    def walkthroughs(self) -> list[WordWalkthrough]:
        return [self.walkthrough(i) for i in range(len(self.words))]

    def word_pieces(self) -> list[list[str]]:
        """The pieces grouped by word."""
        return [list(e[0]) for e in self._entries]


def made_at_table(trace) -> dict:
    """Internal token text -> the merge step that made it (0: the alphabet), for the trace's
    current merges; kept on the trace until it learns more."""
    d = trace.__dict__.get("_made_at_cache")
    if d is None or d[0] != len(trace.merges):
        t = {s: 0 for s in trace.base_symbols}
        for s in trace.completion_symbols:
            t.setdefault(s, 0)
        for m in trace.merges:
            t.setdefault(m.token_internal, m.step)
        d = (len(trace.merges), t)
        trace.__dict__["_made_at_cache"] = d
    return d[1]


def word_rows(nw, nmap, syms, ids_all, limit, body_of, marker, byte_level, made_at_of, k):
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
