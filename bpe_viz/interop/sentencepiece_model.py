"""SentencePiece ``.model`` files (Llama 2, Mistral, T5, ALBERT ...) as bpe-viz tokenizers.

A ``.model`` is a protobuf, ``ModelProto``: the pieces (text, score, type: NORMAL, UNKNOWN,
CONTROL, USER_DEFINED, BYTE, UNUSED), ``trainer_spec`` (``model_type``, ``byte_fallback``,
``treat_whitespace_as_suffix``, the unknown piece's surface) and ``normalizer_spec`` (its
``precompiled_charsmap``, ``add_dummy_prefix``, ``remove_extra_whitespaces``,
``escape_whitespaces``). It is parsed with the ``sentencepiece`` package's own definition
(``sentencepiece_model_pb2``, which needs ``protobuf``), checked as sentencepiece checks it when
it loads one, and turned into a tokenizer that encodes and decodes exactly as
``sentencepiece.SentencePieceProcessor(model_file=...)`` does, ids and pieces alike:

* ``model_type: BPE``: a :class:`~bpe_viz.engine.bpe.scored_pieces.ScoredPieceTrace`, each
  piece's merge recovered from the scores (merge trees, walkthroughs and explorers work);
* ``model_type: UNIGRAM``: a :class:`~bpe_viz.engine.unigram.from_pieces.PieceUnigram`.

The normalizer is :class:`~bpe_viz.engine.text.precompiled.SentencePieceNormalizer` (the
charsmap read by :class:`~bpe_viz.engine.text.precompiled.PrecompiledCharsmap`), the decoder
:func:`~bpe_viz.engine.text.precompiled.decode_pieces`. Mistral 7B's model, from an installed
package, is ``load_tokenizer("mistral-7b")`` (:mod:`~bpe_viz.interop.installed`).

How it differs from its siblings: :mod:`~bpe_viz.interop.tiktoken_ranks` reads byte-level rank
files, :mod:`~bpe_viz.interop.hf` Hugging Face's ``tokenizer.json``; this reads SentencePiece's
own format, normalizer included.

Example (a model trained on the spot)::

    >>> import io, sentencepiece as spm
    >>> from bpe_viz.engine.text.corpora import python_docs_text
    >>> buf = io.BytesIO()
    >>> spm.SentencePieceTrainer.train(sentence_iterator=iter(python_docs_text().splitlines()[:2000]),
    ...     model_writer=buf, model_type="bpe", vocab_size=300, minloglevel=2)
    >>> sp = from_sentencepiece(buf.getvalue())
    >>> ref = spm.SentencePieceProcessor(model_proto=buf.getvalue())
    >>> text = "The tokenizer splits  Ｕｎｉｃｏｄｅ text."
    >>> sp.encode(text).pieces == ref.encode(text, out_type=str), sp.encode(text).ids == ref.encode(text)
    (True, True)
    >>> sp.decode(sp.encode(text).ids) == ref.decode(ref.encode(text))
    True
"""

from __future__ import annotations

import os
from pathlib import Path

from ..engine.bpe.scored_pieces import ScoredPieceTrace, scored_piece_bpe
from ..engine.text.precompiled import BYTE_PIECES, PrecompiledCharsmap, SentencePieceNormalizer, decode_pieces
from ..engine.unigram.from_pieces import PieceUnigram, unigram_from_pieces

__all__ = ["from_sentencepiece", "read_model", "TYPES"]

#: ``ModelProto.SentencePiece.Type`` numbers -> the engine's kinds of piece
TYPES = {1: "normal", 2: "unknown", 3: "control", 4: "user_defined", 5: "unused", 6: "byte"}
MODEL_TYPES = {1: "UNIGRAM", 2: "BPE", 3: "WORD", 4: "CHAR"}
MAX_PIECE_BYTES = 8000  # sentencepiece refuses longer pieces ("piece is too long")
_BYTE_SET = frozenset(BYTE_PIECES)


def _model_proto():
    try:
        from sentencepiece import sentencepiece_model_pb2
    except ImportError as exc:  # protobuf or sentencepiece missing
        raise ImportError(f"reading a SentencePiece model needs the sentencepiece and protobuf packages "
                          f"(pip install sentencepiece protobuf; requirements.txt pins them): {exc}") from None
    return sentencepiece_model_pb2.ModelProto


def read_model(source, where: str | None = None):
    """A ``ModelProto`` from a ``.model`` file (a path) or its bytes, checked as sentencepiece
    checks a model it loads: a ValueError naming ``where`` (default: the path) and the field
    otherwise.

    Example::

        >>> read_model(b"not a model")
        Traceback (most recent call last):
        ...
        ValueError: SentencePiece model bytes: not a SentencePiece model (protobuf: Error parsing message ...)
    """
    return _read(source, where)[0]


def _read(source, where: str | None):
    """(the checked ``ModelProto``, its pieces as ``(piece, score, kind)``, what to call it)."""
    model_proto = _model_proto()
    if where is not None and not isinstance(where, str):
        raise TypeError(f"where must be a str or None, got {type(where).__name__}")
    if isinstance(source, model_proto):
        proto, where = source, where or "ModelProto"
    else:
        if isinstance(source, (str, os.PathLike)):
            where = where or str(source)
            path = Path(source)
            if not path.is_file():
                raise FileNotFoundError(f"SentencePiece model: no such file {str(source)!r}")
            data = path.read_bytes()
        elif isinstance(source, (bytes, bytearray, memoryview)):
            where, data = where or "SentencePiece model bytes", bytes(source)
        else:
            raise TypeError(f"path_or_bytes must be a path to a .model file, its bytes or a ModelProto, "
                            f"got {type(source).__name__}")
        proto = model_proto()
        try:
            proto.ParseFromString(data)
        except Exception as exc:  # google.protobuf.message.DecodeError, or a field that is not UTF-8
            raise ValueError(f"{where}: not a SentencePiece model (protobuf: {exc})") from None
    return proto, _check_model(proto, where), where


def _check_model(proto, where: str) -> list[tuple[str, float, str]]:
    """sentencepiece's ``InitializePieces`` checks (and the model factory's): the pieces as
    ``(piece, score, kind)``, or a ValueError naming ``where`` and the field."""
    mt = proto.trainer_spec.model_type
    if not proto.pieces:
        raise ValueError(f"{where}: not a SentencePiece model: it has no pieces (field 'pieces' is empty)")
    if mt not in (1, 2):
        raise ValueError(f"{where}: trainer_spec.model_type is {MODEL_TYPES.get(mt, mt)}; bpe-viz reads BPE and "
                         f"UNIGRAM models")
    byte_fallback = proto.trainer_spec.byte_fallback
    raw = [(sp.piece, sp.score, sp.type) for sp in proto.pieces]
    texts, _, types = zip(*raw)
    seen = dict(zip(texts, range(len(texts))))
    byte_texts = {t for t, k in zip(texts, types) if k == 6}
    bytes_ok = byte_texts == _BYTE_SET and types.count(6) == 256 if byte_fallback else not byte_texts
    if (bytes_ok and len(seen) == len(texts) and set(types) <= set(TYPES) and types.count(2) == 1 and all(texts)
            and not any("\0" in t for t in texts) and max(map(len, texts)) * 4 < MAX_PIECE_BYTES):
        return [(text, score, TYPES[kind]) for text, score, kind in raw]  # all right: no need to find what is not
    seen = {}
    unknown = []
    for i, (text, _, kind) in enumerate(raw):
        field = f"pieces[{i}]"
        if kind not in TYPES:
            raise ValueError(f"{where}: {field}.type is {kind}, not a piece type (1-6)")
        if not text:
            raise ValueError(f"{where}: {field}.piece is empty")
        if "\0" in text:
            raise ValueError(f"{where}: {field}.piece {text!r} holds a NUL character")
        if len(text) * 4 >= MAX_PIECE_BYTES and len(text.encode("utf-8", "surrogatepass")) >= MAX_PIECE_BYTES:
            raise ValueError(f"{where}: {field}.piece is {len(text.encode())} bytes long "
                             f"(at most {MAX_PIECE_BYTES - 1})")
        if text in seen:
            raise ValueError(f"{where}: {field}.piece {text!r} is already pieces[{seen[text]}]")
        seen[text] = i
        if kind == 2:
            unknown.append(i)
        elif kind == 6 and (not byte_fallback or text not in BYTE_PIECES):
            why = "trainer_spec.byte_fallback is false" if not byte_fallback else "it is not <0x00> .. <0xFF>"
            raise ValueError(f"{where}: {field} is the byte piece {text!r}, but {why}")
    if len(unknown) != 1:
        raise ValueError(f"{where}: a model has exactly one piece of type UNKNOWN; this one has {len(unknown)}")
    if byte_fallback:
        missing = [p for p in BYTE_PIECES if p not in seen or raw[seen[p]][2] != 6]
        if missing:
            raise ValueError(f"{where}: trainer_spec.byte_fallback is true but {len(missing)} of the 256 byte pieces "
                             f"are missing, e.g. {missing[0]}")
    return [(text, score, TYPES[kind]) for text, score, kind in raw]


def _normalizer(proto, pieces, where: str) -> SentencePieceNormalizer:
    ns = proto.normalizer_spec
    blob = ns.precompiled_charsmap
    charsmap = PrecompiledCharsmap(blob, f"{where}: normalizer_spec.precompiled_charsmap") if blob else None
    user = [text for text, _, kind in pieces if kind == "user_defined"]
    return SentencePieceNormalizer(charsmap, add_dummy_prefix=ns.add_dummy_prefix,
                                   remove_extra_whitespaces=ns.remove_extra_whitespaces,
                                   escape_whitespaces=ns.escape_whitespaces,
                                   treat_whitespace_as_suffix=proto.trainer_spec.treat_whitespace_as_suffix,
                                   protected=user)


def _decoder(proto, where: str):
    """``(piece, kind)`` per id -> text, as ``SentencePieceProcessor.decode`` (and its
    denormalizer, when the model has one)."""
    ns = proto.normalizer_spec
    strip = ns.add_dummy_prefix or ns.remove_extra_whitespaces
    rem, surface = ns.remove_extra_whitespaces, proto.trainer_spec.unk_surface
    denorm = None
    if proto.HasField("denormalizer_spec") and proto.denormalizer_spec.precompiled_charsmap:
        ds = proto.denormalizer_spec
        denorm = SentencePieceNormalizer(
            PrecompiledCharsmap(ds.precompiled_charsmap, f"{where}: denormalizer_spec.precompiled_charsmap"),
            add_dummy_prefix=ds.add_dummy_prefix, remove_extra_whitespaces=ds.remove_extra_whitespaces,
            escape_whitespaces=ds.escape_whitespaces)

    def decode(items) -> str:
        text = decode_pieces(items, strip_dummy_space=strip, remove_extra_whitespaces=rem, unk_surface=surface)
        return denorm.normalize(text) if denorm is not None else text

    return decode


def _describe(proto, pieces, name: str | None) -> str:
    ts, ns = proto.trainer_spec, proto.normalizer_spec
    kind = MODEL_TYPES[ts.model_type]
    flags = [f for f in ("add_dummy_prefix", "remove_extra_whitespaces") if getattr(ns, f)]
    if ts.treat_whitespace_as_suffix:
        flags.append("treat_whitespace_as_suffix")
    rule = ns.name or "identity"
    if not ns.precompiled_charsmap:
        rule = "identity"
    user = sum(kind == "user_defined" for _, _, kind in pieces)
    encoder = "merges by piece score" if kind == "BPE" else "Viterbi by piece score"
    return (f"SentencePiece {kind} model{f' {name!r}' if name else ''}: {len(pieces):,} pieces, {encoder}; "
            f"normalizer {rule}{' (' + ', '.join(flags) + ')' if flags else ''}; byte fallback "
            f"{'on' if ts.byte_fallback else 'off'}" + (f"; {user} user-defined pieces" if user else ""))


def from_sentencepiece(path_or_bytes, *, name: str | None = None,
                       where: str | None = None) -> ScoredPieceTrace | PieceUnigram:
    """A tokenizer from a SentencePiece ``.model`` (a path, its bytes or a ``ModelProto``) that
    encodes and decodes exactly as ``sentencepiece.SentencePieceProcessor`` with the same file:
    a BPE model gives a trace (merges recovered from the scores), a Unigram model a
    :class:`~bpe_viz.engine.unigram.from_pieces.PieceUnigram`. ``name`` is kept as ``.name``;
    ``where`` names the model in errors (default: the path). Bad input is a ValueError/TypeError
    naming the file and the field.
    """
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a str or None, got {type(name).__name__}")
    proto, pieces, where = _read(path_or_bytes, where)
    normalizer = _normalizer(proto, pieces, where)

    def split(text):
        normalized, origin = normalizer.normalize_with_offsets(text)
        return [(normalized, origin)] if normalized else []

    ts = proto.trainer_spec
    common = dict(split=split, decode=_decoder(proto, where), byte_fallback=ts.byte_fallback,
                  space="\u2581" if proto.normalizer_spec.escape_whitespaces else " ",
                  space_suffix=ts.treat_whitespace_as_suffix, name=name, description=_describe(proto, pieces, name))
    if ts.model_type == 2:
        return scored_piece_bpe(pieces, **common)
    return unigram_from_pieces(pieces, **common)
