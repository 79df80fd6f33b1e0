"""Hugging Face Unigram ``tokenizer.json`` files (T5, ALBERT, XLNet, ``SentencePieceUnigramTokenizer``)
read into Unigram tokenizers that encode as ``tokenizers`` does.

:func:`from_hf_unigram` takes the parsed JSON (:func:`~bpe_viz.interop.hf.from_hf_tokenizer`
reads the file). The pieces and scores become a one-round Unigram model of the engine
(:func:`~bpe_viz.engine.unigram.from_pieces.unigram_from_pieces`, with 64-bit sums as
``tokenizers`` adds them); the pipeline around it (``Precompiled`` / ``Nmt`` / ``NFKC`` ...
normalizers, ``Metaspace``, the decoder) is :mod:`.hf_pipeline`'s. :class:`HFUnigram` then cuts
each pre-token as ``tokenizers``' ``Unigram`` model does:

* Viterbi over **every** piece of the vocabulary (the unknown piece's own text included), the
  candidates met by start position, shorter first, the first strictly better kept (ties go to
  the cut found first); a character no piece starts with is unknown, scored the lowest score of
  the vocabulary minus 10;
* a run of unknown characters is **one** token, shown as its text (``tokens`` says ``中文``, the
  id is ``unk_id``); with ``byte_fallback`` it becomes the UTF-8 bytes of the run as ``<0xE4>``
  pieces (all with the run's offsets) when every byte has a piece;
* a model with ``unk_id: null`` cannot encode an unknown character: ``tokenizers`` raises, so
  does this (a ``ValueError``).

How it differs from :mod:`bpe_viz.engine.unigram.from_pieces`' own encoder: that one follows
sentencepiece's conventions (32-bit sums, offsets, unknown pieces shown as ``<unk>``); this one
``tokenizers``'.

Example::

    >>> data = {"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["▁", -2.0], ["a", -3.0],
    ...                   ["b", -3.0], ["▁a", -2.5], ["ab", -4.0]]},
    ...         "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"},
    ...         "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"}}
    >>> t = from_hf_unigram(data)
    >>> e = t.encode("ab 中文x b")
    >>> e.tokens, e.ids, e.offsets
    (['▁a', 'b', '▁', '中文x', '▁', 'b'], [4, 3, 1, 0, 1, 3], [(0, 1), (1, 2), (2, 3), (3, 6), (6, 7), (7, 8)])
    >>> t.decode(e.ids)
    'ab <unk> b'
"""

from __future__ import annotations

from ..engine.protocol import check_step, reject_options
from ..engine.unigram.from_pieces import PieceUnigram, PieceUnigramEncoding, unigram_from_pieces
from ..engine.unigram.lattice import UNK_PENALTY
from .hf_components import get_field
from .hf_pipeline import Pipeline

__all__ = ["from_hf_unigram", "HFUnigram"]

NO_UNK = "\x00no unk_id\x00"  # a stand-in unknown piece for a model with unk_id null (never matched)


class HFUnigram(PieceUnigram):
    """A Unigram model read from a ``tokenizer.json`` (see the module docstring)."""

    pipeline = None
    hf_byte_fallback = False
    has_unk = True

    @property
    def unk_token(self) -> str | None:
        return self.id_to_piece[self.unk_id] if self.has_unk else None

    def encode(self, text: str, step: int | None = None, *, add_special_tokens: bool = False,
               allowed_special="all", **options) -> PieceUnigramEncoding:
        """``text`` as ``Tokenizer.encode(text, add_special_tokens=False)`` encodes it;
        ``add_special_tokens=True`` adds the post-processor's tokens with empty offsets."""
        reject_options(self, options)
        if allowed_special != "all":
            raise ValueError("allowed_special: a tokenizer.json's added tokens are always recognized; only 'all' is supported")
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        check_step(self, step, "num_merges (the round)", "rounds")
        before, after = self.pipeline.post_tokens(add_special_tokens)
        words, spans, entries, offsets, shown = [], [], [], [], []
        for tid, tok in before:
            words.append(tok), spans.append((0, 0)), entries.append(([tok], [tid])), offsets.append((0, 0))
            shown.append(tok)
        for piece, added in self.pipeline.split(text):
            words.append(piece.text)
            spans.append(piece.orig)
            if added is not None:
                entries.append(([piece.text], [added]))
                offsets.append(piece.orig)
                shown.append(self.id_to_piece[added])
                continue
            toks = self.tokenize(piece.text)
            entries.append(([p for _, p, _, _ in toks], [i for i, _, _, _ in toks]))
            offsets.extend(piece.span(a, b) for _, _, a, b in toks)
            shown.extend(p for _, p, _, _ in toks)
        for tid, tok in after:
            words.append(tok), spans.append((0, 0)), entries.append(([tok], [tid]))
            offsets.append((0, 0)), shown.append(tok)
        enc = PieceUnigramEncoding(text, self, words, spans, entries, offsets)
        enc.tokens = shown  # tokenizers shows an unknown run as its text
        return enc

    def tokenize(self, s: str) -> list[tuple[int, str, int, int]]:
        """``(id, token text, start, end)`` per token of one pre-token (positions in characters)."""
        unk, index = self.unk_id, self.piece_index
        path: list = []
        for a, b, i in self.viterbi(s):
            if i == unk and path and path[-1][2] == unk:
                path[-1] = (path[-1][0], b, unk)  # a run of unknowns is one token
            else:
                path.append((a, b, i))
        out = []
        for a, b, i in path:
            piece = s[a:b]
            tid = index.get(piece)
            if tid is not None:
                out.append((tid, piece, a, b))
                continue
            if not self.has_unk:
                raise ValueError(f"text: {piece!r} has no piece and this model has no unk_id "
                                 "(tokenizers raises 'Encountered an unknown token but `unk_id` is missing')")
            if self.hf_byte_fallback:
                ids = [index.get(f"<0x{x:02X}>") for x in piece.encode("utf-8", "surrogatepass")]
                if None not in ids:
                    out.extend((j, self.id_to_piece[j], a, b) for j in ids)
                    continue
            out.append((unk, piece, a, b))
        return out

    def decode(self, ids) -> str:
        """``Tokenizer.decode(ids)``: special tokens skipped, then the file's decoder."""
        if isinstance(ids, PieceUnigramEncoding):
            ids = ids.ids
        if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
            raise TypeError(f"ids must be a list of int token ids or an encoding, got {type(ids).__name__}")
        return self.pipeline.decode(self.id_to_piece, list(ids))


def _vocab(model: dict, where: str) -> list[tuple[str, float]]:
    out = []
    for i, item in enumerate(get_field(model, "vocab", list, where, "model")):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
                and isinstance(item[1], (int, float)) and not isinstance(item[1], bool)):
            raise TypeError(f"{where}: model.vocab[{i}] must be [piece (str), score (number)], got {item!r:.80}")
        out.append((item[0], float(item[1])))
    if not out:
        raise ValueError(f"{where}: model.vocab is empty")
    return out


def from_hf_unigram(data: dict, where: str = "tokenizer.json") -> HFUnigram:
    """A Unigram tokenizer from a parsed Hugging Face Unigram ``tokenizer.json`` (see the module
    docstring)."""
    model = get_field(data, "model", dict, where, "")
    if model.get("type") != "Unigram":
        raise ValueError(f"{where}: only Unigram models are supported here, this one is {model.get('type')!r}")
    vocab = _vocab(model, where)
    unk_id = get_field(model, "unk_id", int, where, "model", None)
    if unk_id is not None and not 0 <= unk_id < len(vocab):
        raise ValueError(f"{where}: model.unk_id must be the id of a piece (0 to {len(vocab) - 1}), got {unk_id}")
    byte_fallback = get_field(model, "byte_fallback", bool, where, "model", False)
    pipeline = Pipeline(data, where)
    pieces = [(p, s, "normal") for p, s in vocab]
    for text, tid in sorted(pipeline.added_ids.items(), key=lambda t: t[1]):
        if tid >= len(pieces):  # an added token the model does not have: an id of its own after the vocabulary
            if tid != len(pieces):
                raise ValueError(f"{where}: added token {text!r} has id {tid}; ids after the vocabulary must follow "
                                 f"it without gaps (expected {len(pieces)})")
            pieces.append((text, 0.0, "control"))
    has_unk = unk_id is not None
    if not has_unk:
        unk_id = len(pieces)
        pieces.append((NO_UNK, 0.0, "unknown"))
    desc = "; ".join([f"Unigram LM read from {where}: {len(vocab)} pieces, Viterbi by score (64-bit sums, as "
                      f"tokenizers), unknown runs as one token{', byte fallback' if byte_fallback else ''}",
                      *pipeline.describe()])
    t = unigram_from_pieces(pieces, unk_id=unk_id, float32=False, name=where, description=desc)
    # subtle: tokenizers' lattice holds every piece, the unknown one too, and its unknown score
    # is the lowest score of the whole vocabulary minus 10
    t.unk_score_value = min(s for _, s in vocab) - UNK_PENALTY
    if has_unk:
        unk_text, unk_score = vocab[unk_id]
        t.candidates[unk_text] = (unk_score, unk_id)
        t.prefixes.update(unk_text[:j] for j in range(1, len(unk_text) + 1))
    else:
        t.id_to_piece, t.kinds = t.id_to_piece[:-1], t.kinds[:-1]
        t.piece_index.pop(NO_UNK, None)
    t.__class__ = HFUnigram  # subtle: switched, not copied: its one round still points at this object
    t.pipeline, t.hf_byte_fallback, t.byte_fallback, t.has_unk = pipeline, byte_fallback, byte_fallback, has_unk
    return t
