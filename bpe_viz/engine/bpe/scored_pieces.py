"""BPE from a scored piece list: a SentencePiece ``.model`` (``model_type: BPE``) as a trace.

A SentencePiece BPE model holds no merge list, only pieces with scores (the trainer gives the
``i``-th merged piece the score ``-i``), and its encoder (``bpe_model.cc``) works on them:

* the normalized text is cut into characters, a **user-defined** piece (longest first) being
  one symbol that never merges;
* each iteration merges the two neighbours whose concatenation is the piece with the **highest
  score**, the leftmost among equal scores, one place at a time, until no concatenation is a
  piece; an ``UNUSED`` piece made that way is split back into the two parts it was made of;
* a character that is no piece is unknown: its UTF-8 bytes (``<0xE4>`` ...) with **byte
  fallback**, otherwise the unknown piece (a run of them shown as one);
* control pieces (``<s>``, ``</s>``) are never made from text.

Each piece's merge is recovered the way :mod:`~bpe_viz.interop.tiktoken_ranks` recovers
tiktoken's: BPE on the piece's characters with the pieces scored at least as high (itself left
out) ends in two parts, its pair; so merge trees and walkthroughs work as for a trained trace.
The merges are written in bulk, with no per-merge work.

How it differs from its siblings: :mod:`~bpe_viz.engine.bpe.sentencepiece` *trains* SentencePiece
BPE and encodes with the merges it made (the same encoder, :func:`merge_pieces`, ranked by step);
:mod:`~bpe_viz.engine.bpe.tiktoken_bpe` encodes by rank with GPT-2's byte symbols. The text
around the model (normalization, decoding) is given by the caller
(:func:`bpe_viz.interop.sentencepiece_model.from_sentencepiece` uses
:mod:`~bpe_viz.engine.text.precompiled`).

Example::

    >>> pieces = [("<unk>", 0.0, "unknown"), ("▁l", -1.0, "normal"), ("ow", -2.0, "normal"),
    ...           ("▁low", -3.0, "normal"), ("▁", -4.0, "normal"), ("l", -5.0, "normal"),
    ...           ("o", -6.0, "normal"), ("w", -7.0, "normal")]
    >>> t = scored_piece_bpe(pieces)
    >>> [m.pair for m in t.merges]
    [('▁', 'l'), ('o', 'w'), ('▁l', 'ow')]
    >>> t.encode("▁low▁lowz").pieces, t.encode("▁low▁lowz").ids
    (['▁low', '▁low', 'z'], [3, 3, 0])
"""

from __future__ import annotations

import random
import re

from .model import BPE
from .sentencepiece import merge_pieces
from ..merges.convention import Convention, Merge
from ..merges.encoding import Encoding, WordWalkthrough
from ..merges.model import register
from ..merges.pairs import PairIndex
from ..merges.recorder import Recorder
from ..merges.trace import Trace
from ..protocol import check_step
from ..text.precompiled import BYTE_PIECES, SPACE, check_pieces, decode_pieces, id_items
from ..text.pretokenize import PreTokenizer

__all__ = ["ScoredPieceBPE", "ScoredPieceTrace", "PieceSplitter", "scored_piece_bpe", "recover_piece_merges",
           "SCORE_RULE"]

#: the kinds the encoder may make (sentencepiece's ``pieces_``; the others are looked up only)
MERGEABLE = ("normal", "user_defined", "unused")

#: how the encoder works, in one sentence (the walkthrough view shows it)
SCORE_RULE = ("each iteration merges the two neighbours whose concatenation is the piece with the highest score "
              "(the leftmost if several), one place at a time; ranks are the pieces' places by score")


class ScoredPieceBPE(BPE):
    """BPE as a SentencePiece model encodes it (see the module docstring)."""

    name = "scored-pieces-bpe"
    title = "BPE (SentencePiece model)"
    splits_by_merges = False  # its encoder works on pieces, not on learned pairs
    merges_unknown_runs = True
    encoder_rule = SCORE_RULE

    def describe(self, convention):
        return ["encodes by piece score (highest first, the leftmost among equals)"]

    def segmenter(self, trace, k):
        ranks = trace.score_ranks(k)
        return lambda w: merge_pieces(tuple(w), ranks)

    def dropout_segmenter(self, trace, k, p, rng):
        """sentencepiece's BPE-dropout: each candidate the encoder takes is dropped with
        probability ``p`` (from ``rng``: the same distribution as the C++, not the same draws)."""
        ranks = trace.score_ranks(k)
        return lambda w: merge_pieces(tuple(w), ranks, p, rng)

    def encode_recorded(self, initial, trace, k, record):
        return merge_pieces(initial, trace.score_ranks(k), record=record)


register(ScoredPieceBPE())


class _Upto:
    """``ranks`` seen through ``get``, without the pieces ranked after ``limit`` and ``skip``."""

    __slots__ = ("ranks", "limit", "skip")

    def __init__(self, ranks):
        self.ranks = ranks

    def get(self, key):
        r = self.ranks.get(key)
        return None if r is None or r > self.limit or key == self.skip else r


def recover_piece_merges(ranks: dict[str, int], alphabet) -> tuple[list[tuple[str, str]], list[str]]:
    """(the merge pair of every piece of two characters or more that BPE can make, in the order
    they can be made; the pieces it never makes). ``ranks``: piece -> place by score (lowest
    first; equal scores share a place); ``alphabet``: the single characters that are pieces.

    A piece's pair: BPE on its characters with the pieces ranked at or above it, itself left
    out, ends in two parts. A piece whose run ends otherwise, or whose parts are not pieces
    (made earlier), is never made by the encoder as a whole: it is left out. While no two
    pieces share a place, the run is not needed (:func:`_survives`); after, it is run.

    Example::

        >>> recover_piece_merges({"ab": 0, "bc": 1, "abc": 2, "cd": 3}, "abc")
        ([('a', 'b'), ('b', 'c'), ('ab', 'c')], ['cd'])
    """
    chars = set(alphabet)
    seen: dict[int, int] = {}
    for r in ranks.values():
        seen[r] = seen.get(r, 0) + 1
    first_tie = min((r for r, c in seen.items() if c > 1), default=len(ranks) + 1)
    split: dict[str, tuple[str, str, int]] = {}  # piece -> (left, right, place)
    view = _Upto(ranks)
    get = ranks.get
    pairs: list[tuple[str, str]] = []
    never: list[str] = []
    for piece in sorted((p for p in ranks if len(p) > 1), key=lambda p: (ranks[p], len(p))):
        rank = ranks[piece]
        parts = None
        if rank < first_tie:
            for i in range(len(piece) - 1, 0, -1):
                a, b = piece[:i], piece[i:]
                if (a in split or a in chars) and (b in split or b in chars) and _survives(a, b, get, split):
                    parts = (a, b)
                    break
        else:  # places are shared from here on: run the encoder on the piece's characters
            view.limit, view.skip = rank, piece
            got = merge_pieces(tuple(piece), view)
            if len(got) == 2 and all(x in split or x in chars for x in got):
                parts = got
        if parts is None:
            never.append(piece)
        else:
            split[piece] = (*parts, rank)
            pairs.append(parts)
    return pairs, never


def _survives(x: str, y: str, get, split: dict) -> bool:
    """Whether BPE on the characters of ``x + y`` ends with ``[x, y]`` when no two pieces share
    a place: walk the boundary back down both merge trees, and at each state ask whether the two
    symbols meeting there make a piece the encoder would take before the next merge there (the
    check of :func:`bpe_viz.interop.tiktoken_ranks.recover_merges`, by place)."""
    while True:
        sx, sy = split.get(x), split.get(y)
        if sx is None:
            if sy is None:
                return True
            limit, y = sy[2] + 1, sy[0]  # y made last: a crossing pair left of it wins ties
        elif sy is None or sx[2] > sy[2]:
            limit, x = sx[2], sx[1]  # x made last: its own pair is left of the crossing one
        else:
            limit, y = sy[2] + 1, sy[0]
        c = get(x + y)
        if c is not None and c < limit:
            return False


class PieceSplitter(PreTokenizer):
    """Text -> the words a scored-piece model encodes one by one, with their spans.

    ``split`` (the caller's normalizer) gives stretches of normalized text, each with the
    original position of every character (and of its end). A stretch is cut into words where no
    piece can reach across: before each run of ``space`` that follows another character
    (``space_suffix``: after it), when no piece holds a character then ``space`` (or ``space``
    then another character); a user-defined piece is a word of its own. Words are the
    normalized text (``▁hello``); their spans point into the original.
    """

    name = "sentencepiece-model"
    keeps_whitespace = True

    def __init__(self, split, mergeable, user_defined=(), space: str = SPACE, space_suffix: bool = False):
        self.normalize = split
        self.space = space
        self.user_defined = sorted(set(user_defined), key=len, reverse=True)
        self._user = re.compile("|".join(map(re.escape, self.user_defined))) if self.user_defined else None
        # a piece holding another character then a space (space_suffix: a space then another
        # character) may reach across a cut
        with_space = [p for p in mergeable if space in p]
        if space_suffix:
            crossing = any(space in p.rstrip(space) for p in with_space)
        else:
            crossing = any(space in p.lstrip(space) for p in with_space)
        self.cut = None if crossing else ("after" if space_suffix else "before")
        sp, other = re.escape(space), f"[^{re.escape(space)}]"
        # a word: a run of spaces then other characters (space_suffix: other characters then spaces)
        self._cut_re = None if crossing else re.compile(f"{other}*{sp}+|{other}+" if space_suffix
                                                        else f"{sp}+{other}*|{other}+")

    def describe(self):
        where = {"before": "before each run of ▁", "after": "after each run of ▁", None: "nowhere"}[self.cut]
        return f"the model's normalizer, then words cut {where} (SentencePiece)"

    def stretches(self, text: str):
        """The normalized stretches of ``text``, each ``(normalized, origin, words)``; a word is
        ``(start, end, user-defined?)``, its place in the stretch."""
        return [(normalized, origin, self._words(normalized)) for normalized, origin in self.normalize(text)]

    def _words(self, s: str) -> list[tuple[int, int, bool]]:
        # subtle: regex alternation tried longest first at the leftmost place is sentencepiece's
        # scan (PrefixMatch at each character, the longest user-defined piece first)
        words: list[tuple[int, int, bool]] = []
        pos = 0
        for m in (self._user.finditer(s) if self._user is not None else ()):
            words.extend(self._plain(s, pos, m.start()))
            words.append((m.start(), m.end(), True))
            pos = m.end()
        words.extend(self._plain(s, pos, len(s)))
        return words

    def _plain(self, s: str, a: int, b: int):
        """The words of ``s[a:b]`` (no user-defined piece in it)."""
        if a == b:
            return []
        if self._cut_re is None:
            return [(a, b, False)]
        return [(m.start(), m.end(), False) for m in self._cut_re.finditer(s, a, b)]

    def split(self, text):
        return [(s[a:b], (origin[a], origin[b])) for s, origin, words in self.stretches(text) for a, b, _ in words]

    def join(self, pieces):
        return "".join(pieces).replace(self.space, " ")


class ScoredPieceTrace(Trace):
    """A trace read from a scored piece list (see the module and :func:`scored_piece_bpe`):
    ``encode`` runs the caller's normalizer, the piece encoder and byte fallback; ``decode``
    the caller's decoder; the merges are recovered from the scores."""

    def score_ranks(self, k: int) -> dict:
        """piece -> place by score, for the encoder with ``k`` merges (every mergeable piece at
        the last step: exactly the model's encoder)."""
        cache = self.__dict__.setdefault("_score_rank_cache", {})
        got = cache.get(k)
        if got is None:
            if k == len(self.merges):
                got = self.ranks
            else:
                got = {m.token_internal: self.ranks[m.token_internal] for m in self.merges[:k]}
            if len(cache) > 8:
                cache.clear()
            cache[k] = got
        return got

    def initial_symbols(self, word: str) -> tuple[str, ...]:
        return tuple(word)

    def __repr__(self):
        return (f"<ScoredPieceTrace {self.name or 'BPE'}: {len(self.kinds)} pieces, {len(self.merges)} merges "
                f"recovered, byte fallback {'on' if self.byte_fallback else 'off'}>")

    def describe(self) -> str:
        return self.description or self.convention.describe()

    # -- encoding ----------------------------------------------------------------------------
    def encode(self, text: str, step: int | None = None, **options) -> Encoding:
        """``text`` as the model encodes it with the first ``step`` merges (all by default):
        normalized, cut into words, each word encoded by piece score, unknown characters as
        bytes or the unknown piece. ``allowed_special`` changes nothing (user-defined pieces are
        always matched, control pieces never); ``dropout`` and ``seed``: BPE-dropout."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        k = check_step(self, step)
        dropout, seed = options.pop("dropout", 0.0), options.pop("seed", None)
        options.pop("allowed_special", None)
        if options:
            raise ValueError(f"{', '.join(sorted(options))}: subword-nmt's apply-bpe options; a SentencePiece model "
                             f"has no learned pairs to apply them to")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1:
            raise ValueError(f"dropout must be a probability between 0 and 1, got {dropout!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise TypeError(f"seed must be an int or None, got {type(seed).__name__} {seed!r}")
        if dropout:
            segment, cache = self.model.dropout_segmenter(self, k, float(dropout), random.Random(seed)), None
        else:
            segment, cache = self.model.segmenter(self, k), self._word_cache(k)
        words, spans, entries = [], [], []
        for normalized, origin, cuts in self.convention.pre_tokenizer.stretches(text):
            for a, b, frozen in cuts:
                word = normalized[a:b]
                got = cache.get(word) if cache is not None else None
                if got is None:
                    got = self._rows(word, frozen, segment, k)
                    if cache is not None and len(cache) < 200_000:
                        cache[word] = got
                base = origin[a]
                words.append(word)
                spans.append((base, origin[b]))
                ends = [origin[a + e] - base for e in got[4]]
                entries.append((got[0], got[1], tuple(zip([origin[a + s] - base for s in got[2]], ends)), got[3]))
        return Encoding(text, self, k, words, entries, spans)

    def _word_cache(self, k: int) -> dict:
        cache = self.__dict__.setdefault("_encode_cache", {})
        if cache.get("k") != k:
            cache.clear()
            cache["k"] = k
        return cache.setdefault("words", {})

    def _rows(self, word: str, frozen: bool, segment, k: int):
        """(pieces, ids, starts, made_at, ends) of one word; starts and ends are character
        positions in the word (a byte piece but the last of its character: an empty span)."""
        ids, unk = self.piece_ids, self.unk_id
        if frozen:
            return (word,), (ids[word],), (0,), (None,), (len(word),)
        syms = self._resegment(segment(word))
        pieces, tids, starts, made, ends = [], [], [], [], []
        made_at = self.made_at_piece
        pos = 0
        for sym in syms:
            end = pos + len(sym)
            tid = ids.get(sym)
            if tid is not None:
                pieces.append(sym), tids.append(tid), starts.append(pos), ends.append(end)
                made.append(made_at.get(sym, 0))
            elif self.byte_fallback:
                raw = sym.encode("utf-8", "surrogatepass")
                for j, b in enumerate(raw):
                    pieces.append(BYTE_PIECES[b]), tids.append(self.byte_ids[b]), made.append(0)
                    starts.append(pos), ends.append(end if j == len(raw) - 1 else pos)
            elif tids and tids[-1] == unk and made[-1] is None:  # a run of unknowns is one piece
                pieces[-1] += sym
                ends[-1] = end
            else:
                pieces.append(sym), tids.append(unk), starts.append(pos), ends.append(end), made.append(None)
            pos = end
        return tuple(pieces), tuple(tids), tuple(starts), tuple(made), tuple(ends)

    def _resegment(self, syms):
        """An ``UNUSED`` piece the encoder made, split back into the parts it was made of."""
        unused = self.unused
        if not unused or not any(s in unused for s in syms):
            return syms
        out: list[str] = []
        stack = list(reversed(syms))
        while stack:
            s = stack.pop()
            pair = unused.get(s)
            if pair is None:
                out.append(s)
            else:
                stack.extend((pair[1], pair[0]))
        return tuple(out)

    def encode_word(self, word: str, step: int | None = None) -> WordWalkthrough:
        """How the encoder merges one word of normalized text (``▁`` for a space, as
        ``encode(text).words`` shows them), iteration by iteration."""
        if not isinstance(word, str) or not word:
            raise ValueError(f"word must be a non-empty str, got {word!r}")
        k = check_step(self, step)
        word = word.replace(" ", self.convention.pre_tokenizer.space)
        if word in self.user_defined:
            return WordWalkthrough(word, (word,), (), (word,), k,
                                   rule="a user-defined piece: matched whole, never merged")
        inside = next((p for p in self.user_defined if p in word), None)
        if inside is not None:
            raise ValueError(f"word: {word!r} holds the user-defined piece {inside!r}, a word of its own; "
                             f"walk through the parts around it")
        return self.model.walkthrough(word, self, k)

    def decode(self, ids) -> str:
        """Token ids (or an Encoding of this trace) back into text, as the model decodes them."""
        if isinstance(ids, Encoding):
            if ids.trace is not self:
                raise ValueError("ids: this Encoding was made with another tokenizer")
            ids = ids.ids
        return self.decoder(id_items(ids, self.id_to_piece, self.kinds))


def scored_piece_bpe(pieces, *, split=None, decode=None, byte_fallback: bool = False, space: str = SPACE,
                     space_suffix: bool = False, name: str | None = None,
                     description: str | None = None) -> ScoredPieceTrace:
    """A :class:`ScoredPieceTrace` from ``pieces``: ``(piece, score, kind)`` in id order, kinds
    from :data:`~bpe_viz.engine.text.precompiled.KINDS` (exactly one ``"unknown"``; with
    ``byte_fallback``, the 256 byte pieces).

    ``split(text)``: the normalizer, a list of ``(normalized stretch, origin)`` where
    ``origin[i]`` is the original position of character ``i`` (one more entry: the end); by
    default the text as it is. ``decode(items)``: ``(piece, kind)`` per id -> text; by default
    :func:`~bpe_viz.engine.text.precompiled.decode_pieces` without the dummy space. ``space``
    and ``space_suffix``: where words may be cut (see :class:`PieceSplitter`).
    """
    texts, scores, kinds = check_pieces(pieces)
    if kinds.count("unknown") != 1:
        raise ValueError(f"pieces: exactly one piece must be of kind 'unknown', got {kinds.count('unknown')}")
    ids = dict(zip(texts, range(len(texts))))
    by_kind: dict[str, list[str]] = {}
    for t, kd in zip(texts, kinds):
        by_kind.setdefault(kd, []).append(t)
    bytes_ = {p: ids[p] for p in by_kind.get("byte", ())}
    if byte_fallback and any(p not in bytes_ for p in BYTE_PIECES):
        missing = next(p for p in BYTE_PIECES if p not in bytes_)
        raise ValueError(f"pieces: byte_fallback needs the 256 byte pieces <0x00> .. <0xFF>; {missing} is missing")
    mergeable = [t for t, kd in zip(texts, kinds) if kd in ("normal", "unused")]
    order = sorted(set(scores[ids[t]] for t in mergeable), reverse=True)
    place = {s: i for i, s in enumerate(order, 1)}  # from 1, like merge steps
    ranks = {t: place[scores[ids[t]]] for t in mergeable}

    def place_of(score):  # a user-defined piece's place among the others' (equal scores share it)
        return sum(1 for s in order if s > score) + (1 if score in place else 0.5)
    alphabet = [t for t in mergeable if len(t) == 1]
    pairs, _ = recover_piece_merges(ranks, alphabet)
    user_defined = tuple(by_kind.get("user_defined", ()))
    splitter = PieceSplitter(split or (lambda text: [(text, list(range(len(text) + 1)))] if text else []),
                             mergeable, user_defined, space, space_suffix)
    conv = Convention(end_of_word=None, min_frequency=1, algorithm=ScoredPieceBPE.name, pre_tokenizer=splitter,
                      special_tokens=(*by_kind.get("control", ()), *user_defined))
    initial = [(c,) for c in alphabet]
    trace = ScoredPieceTrace(alphabet, [1] * len(alphabet), initial, conv)
    trace.unk_token = by_kind["unknown"][0]
    trace.explicit_vocab = ids
    rec = Recorder(trace, PairIndex(initial, [1] * len(alphabet), False))
    rec.record_unchanged([Merge(step, (a, b), a + b, 0, None, trace, (a, b), a + b)
                          for step, (a, b) in enumerate(pairs, 1)])
    rec.finish("num_merges")
    trace.name, trace.description, trace.byte_fallback = name, description, bool(byte_fallback)
    # the encoder may also make a user-defined piece's string (only where it was not matched whole)
    trace.ranks = {**ranks, **{t: place_of(scores[ids[t]]) for t in user_defined}}
    trace.kinds, trace.id_to_piece, trace.user_defined = tuple(kinds), tuple(texts), frozenset(user_defined)
    trace.piece_ids = {t: i for t, i in ids.items() if kinds[i] in MERGEABLE}
    trace.byte_ids = [bytes_[p] for p in BYTE_PIECES] if byte_fallback else []
    trace.made_at_piece = {m.token_internal: m.step for m in trace.merges}
    trace.unused = {a + b: (a, b) for a, b in pairs if kinds[ids[a + b]] == "unused"}
    trace.decoder = decode or (lambda items: decode_pieces(items, strip_dummy_space=False, space=space))
    trace.id_table  # build now: a problem shows here, not at the first encode
    return trace
