"""A Unigram model from a fixed piece list: a SentencePiece ``.model`` or a ``tokenizer.json``.

Training (:mod:`.train`) makes a :class:`~.trace.UnigramTrace` round by round; a model read from
a file has only its final pieces and scores. :func:`unigram_from_pieces` makes a one-round
:class:`PieceUnigram` of them that encodes exactly as the model's own code does:

* the caller's ``split`` normalizes the text (and, for Hugging Face, pre-tokenizes it) into
  stretches; each stretch is cut by Viterbi in one go, as ``EncodeOptimized`` in sentencepiece's
  ``unigram_model.cc`` does: candidates met by start, shorter first, the first strictly better
  kept; an ``UNUSED`` piece is never a candidate; a character no piece starts with is unknown
  (scored the lowest piece's score minus 10); a user-defined piece scores
  ``bytes × max score − 0.1``, so it is always taken;
* ``float32=True`` adds scores as sentencepiece does, each sum rounded to 32 bits before it is
  compared (this decides exact ties between cuts made of the same pieces in another order);
  ``False`` adds in 64 bits (Hugging Face ``tokenizers``). subtle: on one very long sentence
  (running sums beyond about 10^5, e.g. 100,000 characters without a break) sentencepiece
  settles a few 32-bit ties otherwise (12 pieces of 132,000 on the docs text in 100,000-character
  pieces; none in pieces of 20,000 characters or in any line), by rounding not reproduced here;
* an unknown character becomes its UTF-8 byte pieces with ``byte_fallback``, else the unknown
  piece (a run of them one piece);
* ``decode`` (the caller's) turns ``(piece, kind)`` pairs back into text.

Offsets point into the original text (the ``split`` hook says where each normalized character
came from). How it differs from :mod:`.lattice`'s encoders: those serve training (no kinds, no
bytes, sums as the trainer's); this is the file's model at encode time.

Example::

    >>> pieces = [("<unk>", 0.0, "unknown"), ("▁hug", -1.0, "normal"), ("s", -2.5, "normal"),
    ...           ("▁", -3.0, "normal"), ("h", -4.0, "normal"), ("u", -4.0, "normal"), ("g", -4.0, "normal")]
    >>> t = unigram_from_pieces(pieces)
    >>> e = t.encode("▁hugs▁hugz")
    >>> e.pieces, e.ids, e.offsets
    (['▁hug', 's', '▁hug', 'z'], [1, 2, 1, 0], [(0, 4), (4, 5), (5, 9), (9, 10)])
"""

from __future__ import annotations

from dataclasses import dataclass

from ..protocol import check_plain_encode, check_step
from ..text.precompiled import BYTE_PIECES, SPACE, check_pieces, decode_pieces, id_items
from ..text.scripts import f32
from .lattice import UNK_PENALTY, PrefixCuts
from .trace import UnigramEncoding, UnigramSnapshot, UnigramTrace, UnigramWalkthrough

__all__ = ["PieceUnigram", "PieceUnigramEncoding", "unigram_from_pieces"]

FLT_MIN = 1.1754943508222875e-38  # where sentencepiece starts its max score (C's FLT_MIN)


@dataclass(eq=False)
class _Pieces(UnigramSnapshot):
    """The one round of a model read from a file: its ids are the file's."""

    @property
    def id_to_token(self) -> list[str]:
        return list(self.trace.id_to_piece)


class PieceUnigramEncoding(UnigramEncoding):
    """A :class:`~.trace.UnigramEncoding` with ``offsets`` (character spans in the original
    text; a byte piece but the last of its character has an empty one) and ``made_at``."""

    def __init__(self, text, trace, words, spans, entries, offsets):
        super().__init__(text, trace, 0, words, spans, entries)
        self.offsets = offsets
        unk = trace.unk_id
        self.unknown = [i == unk for i in self.ids]
        self.made_at = [None if u else 0 for u in self.unknown]


class PieceUnigram(UnigramTrace):
    """A Unigram model read from a piece list (see the module docstring): one round, the file's
    ids, its kinds of piece, its normalizer and decoder."""

    def __repr__(self):
        return (f"<PieceUnigram {self.name or 'Unigram'}: {len(self.id_to_piece)} pieces, byte fallback "
                f"{'on' if self.byte_fallback else 'off'}>")

    def describe(self) -> str:
        return self.description or (f"Unigram LM read from a piece list: {len(self.id_to_piece)} pieces, Viterbi by "
                                    f"score, byte fallback {'on' if self.byte_fallback else 'off'}")

    @property
    def unk_token(self) -> str:
        return self.id_to_piece[self.unk_id]

    def token_to_id(self, token: str, k: int | None = None) -> int | None:
        check_step(self, k, "num_merges (the round)", "rounds")
        return self.piece_index.get(token)

    # -- Viterbi ---------------------------------------------------------------------------------
    def viterbi(self, s: str, table: list | None = None) -> list[tuple[int, int, int]]:
        """The best cut of ``s``: ``(start, end, id)`` per piece (``unk_id`` for an unknown
        character). ``table`` receives ``(best score, start of its last piece, False, its id)`` per
        prefix (:class:`~bpe_viz.engine.unigram.lattice.PrefixCuts` reads it)."""
        n = len(s)
        score = [0.0] * (n + 1)
        start = [-1] * (n + 1)
        ident = [0] * (n + 1)
        get, prefixes, rounded = self.candidates.get, self.prefixes, self.float32
        unk_id, unk_score = self.unk_id, self.unk_score_value
        for i in range(n):
            base = score[i]
            single = False
            j = i + 1
            while j <= n:
                piece = s[i:j]
                if piece not in prefixes:
                    break
                hit = get(piece)
                if hit is not None:
                    cand = f32(hit[0] + base) if rounded else hit[0] + base
                    if start[j] < 0 or cand > score[j]:
                        score[j], start[j], ident[j] = cand, i, hit[1]
                    if j == i + 1:
                        single = True
                j += 1
            if not single:
                cand = f32(unk_score + base) if rounded else unk_score + base
                if start[i + 1] < 0 or cand > score[i + 1]:
                    score[i + 1], start[i + 1], ident[i + 1] = cand, i, unk_id
        if table is not None:
            table.extend(zip(score[1:], start[1:], [False] * n, ident[1:]))
        out, e = [], n
        while e > 0:
            out.append((start[e], e, ident[e]))
            e = start[e]
        out.reverse()
        return out

    # -- the Tokenizer protocol ------------------------------------------------------------------
    def encode(self, text: str, step: int | None = None, **options) -> PieceUnigramEncoding:
        """``text`` normalized by the model's ``split``, each stretch cut by Viterbi, unknown
        characters as bytes or the unknown piece; ``step`` must be 0 or ``None`` (one round)."""
        check_plain_encode(self, text, options)
        check_step(self, step, "num_merges (the round)", "rounds")
        words, spans, entries, offsets = [], [], [], []
        for normalized, origin in self.split(text):
            rows = self._rows(normalized, origin)
            for a, b, group in self._words(normalized, rows):
                words.append(normalized[a:b])
                spans.append((origin[a], origin[b]))
                entries.append(([r[0] for r in group], [r[1] for r in group]))
                offsets.extend((r[2], r[3]) for r in group)
        return PieceUnigramEncoding(text, self, words, spans, entries, offsets)

    def _rows(self, s: str, origin: list[int]) -> list[tuple]:
        """(piece, id, start, end, position in ``s``, its end) per token of one stretch."""
        pieces, ids, unk = self.id_to_piece, self.piece_index, self.unk_id
        rows: list[tuple] = []
        for a, b, i in self.viterbi(s):
            if i != unk:
                rows.append((pieces[i], i, origin[a], origin[b], a, b))
            elif self.byte_fallback:
                raw = s[a:b].encode("utf-8", "surrogatepass")
                for j, byte in enumerate(raw):
                    last = j == len(raw) - 1
                    rows.append((BYTE_PIECES[byte], ids[BYTE_PIECES[byte]], origin[a], origin[b] if last else origin[a],
                                 a, b))
            elif rows and rows[-1][1] == unk:  # a run of unknowns is one piece
                p = rows[-1]
                rows[-1] = (p[0] + s[a:b], unk, p[2], origin[b], p[4], b)
            else:
                rows.append((s[a:b], unk, origin[a], origin[b], a, b))
        return rows

    def _words(self, s: str, rows):
        """The tokens of one stretch grouped into words: a word starts with a token that starts
        with ``▁`` after one that does not end with it (``space_suffix``: ends after one that
        ends with it)."""
        space, suffix = self.space, self.space_suffix
        group: list = []
        for r in rows:
            if group:
                prev, cur = s[group[-1][4]:group[-1][5]], s[r[4]:r[5]]
                new = (prev.endswith(space) and not cur.startswith(space)) if suffix else \
                    (cur.startswith(space) and not prev.endswith(space))
                if new:
                    yield group[0][4], group[-1][5], group
                    group = []
            group.append(r)
        if group:
            yield group[0][4], group[-1][5], group

    def encode_word(self, word: str, step: int | None = None) -> UnigramWalkthrough:
        """How Viterbi cuts ``word`` (normalized text, ``▁`` for a space, as ``encode(text).words``
        shows it): the best cut of every prefix, with its score."""
        if not isinstance(word, str) or not word:
            raise ValueError(f"word must be a non-empty str, got {word!r}")
        check_step(self, step, "num_merges (the round)", "rounds")
        word = word.replace(" ", self.space)
        table: list = []
        best = self.viterbi(word, table)
        names, unk = self.id_to_piece, self.unk_id

        def piece(a, b):
            i = table[b - 1][3]
            return word[a:b] if i == unk else names[i]

        rows = PrefixCuts(word, table, piece=piece)
        final = tuple(piece(a, b) for a, b, _ in best)
        return UnigramWalkthrough(word, 0, rows, final, table[-1][0], False, "sentencepiece")

    def decode(self, ids) -> str:
        """Ids (or an encoding of this model) back to text, by the model's decoder."""
        if isinstance(ids, UnigramEncoding):
            ids = ids.ids
        return self.decoder(id_items(ids, self.id_to_piece, self.kinds))


def _check(pieces, unk_id) -> tuple[list[str], list[float], list[str], int]:
    """The pieces as texts, scores and kinds (``(piece, score)`` is a normal piece) and the
    unknown piece's id, checked."""
    texts, scores, kinds = check_pieces(pieces, default_kind="normal")
    if unk_id is None:
        found = [i for i, kd in enumerate(kinds) if kd == "unknown"]
        if len(found) != 1:
            raise ValueError(f"pieces: give unk_id, or exactly one piece of kind 'unknown' (got {len(found)})")
        unk_id = found[0]
    if isinstance(unk_id, bool) or not isinstance(unk_id, int) or not 0 <= unk_id < len(texts):
        raise ValueError(f"unk_id must be the id of a piece (0 to {len(texts) - 1}), got {unk_id!r}")
    kinds[unk_id] = "unknown"
    return texts, scores, kinds, unk_id


def unigram_from_pieces(pieces, *, unk_id: int | None = None, byte_fallback: bool = False, split=None,
                        decode=None, float32: bool = True, space: str = SPACE, space_suffix: bool = False,
                        name: str | None = None, description: str | None = None) -> PieceUnigram:
    """A :class:`PieceUnigram` that encodes with ``pieces`` exactly as sentencepiece (or, with
    ``float32=False``, Hugging Face ``tokenizers``) does.

    ``pieces``: ``(piece, score)`` or ``(piece, score, kind)`` in id order, kinds from
    :data:`~bpe_viz.engine.text.precompiled.KINDS`; ``unk_id``: the unknown piece (default: the
    one of kind ``"unknown"``); ``byte_fallback``: an unknown character becomes its bytes (the ``<0x00>`` .. ``<0xFF>``
    pieces must exist). ``split(text)``: the normalizer and pre-tokenizer, a list of
    ``(normalized stretch, origin)``, ``origin[i]`` the original position of character ``i``
    plus one entry for the end (default: the text as it is, one stretch). ``decode(items)``:
    ``(piece, kind)`` per id -> text (default: :func:`~bpe_viz.engine.text.precompiled.decode_pieces`
    without the dummy space). ``space``/``space_suffix``: how tokens are grouped into words.
    """
    texts, scores, kinds, unk_id = _check(pieces, unk_id)
    index = {t: i for i, t in enumerate(texts)}
    if byte_fallback and any(p not in index for p in BYTE_PIECES):
        missing = next(p for p in BYTE_PIECES if p not in index)
        raise ValueError(f"pieces: byte_fallback needs the 256 byte pieces <0x00> .. <0xFF>; {missing} is missing")
    normal = [s for s, kd in zip(scores, kinds) if kd == "normal"]
    rounded = bool(float32)
    low = min(normal, default=3.4028234663852886e38)
    high = max([FLT_MIN, *normal]) if rounded else max(normal, default=0.0)
    candidates: dict[str, tuple[float, int]] = {}
    for i, (t, s, kd) in enumerate(zip(texts, scores, kinds)):
        if kd == "normal":
            candidates[t] = (s, i)
        elif kd == "user_defined":  # always taken: sentencepiece's bonus, in bytes
            size = len(t.encode("utf-8", "surrogatepass"))
            candidates[t] = (f32(f32(size * high) - 0.1) if rounded else size * high - 0.1, i)
    snap = _Pieces(0, {t: s for t, s, kd in zip(texts, scores, kinds) if kd in ("normal", "user_defined")}, 0.0,
                   note="read from a model file: its final pieces, no training rounds")
    trace = PieceUnigram("sentencepiece", {}, [snap], vocab_size=len(texts), stop_reason="read from a file",
                         options={})
    trace.name, trace.description, trace.byte_fallback, trace.float32 = name, description, bool(byte_fallback), rounded
    trace.id_to_piece, trace.kinds, trace.piece_index, trace.unk_id = tuple(texts), tuple(kinds), index, unk_id
    trace.candidates = candidates  # piece -> (score Viterbi adds, id)
    trace.prefixes = {t[:j] for t in candidates for j in range(1, len(t) + 1)}
    trace.unk_score_value = f32(low - UNK_PENALTY) if rounded else low - UNK_PENALTY
    trace.split = split or (lambda text: [(text, list(range(len(text) + 1)))] if text else [])
    trace.decoder = decode or (lambda items: decode_pieces(items, strip_dummy_space=False, space=space))
    trace.space, trace.space_suffix = space, bool(space_suffix)
    return trace
