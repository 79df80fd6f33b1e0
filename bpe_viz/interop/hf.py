"""Hugging Face ``tokenizers``: a trace as a real ``tokenizers.Tokenizer``, and back.

:func:`from_hf_tokenizer` reads a ``tokenizers.Tokenizer`` (or its ``tokenizer.json``) into a
tokenizer of bpe-viz that encodes as ``Tokenizer.encode(text, add_special_tokens=False)`` does (ids,
tokens, offsets) and decodes as ``Tokenizer.decode``; it picks the reader by ``model.type``
(:data:`HF_READERS`): BPE, byte-level (GPT-2) or SentencePiece style (Llama, Mistral: ``▁`` and
byte fallback; :mod:`.hf_bpe`), WordPiece (BERT; :mod:`.hf_wordpiece`) and Unigram (T5, ALBERT;
:mod:`.hf_unigram`). The pipeline around the model (normalizers, pre-tokenizers, added tokens,
decoders) is :mod:`.hf_pipeline` and :mod:`.hf_components`; a component they cannot reproduce
exactly is a ``ValueError`` naming the file and the field. :func:`to_hf_tokenizer` builds a BPE model from a trace's vocabulary and merges; its encodings
equal :func:`bpe_viz.encode`'s where the conventions agree (marker glued to the last character,
or no marker). The ``tokenizers`` package is needed only when this is called.
"""

from __future__ import annotations

import json
import os

from ..engine.bpe.model import BPE
from ..engine.text.markers import EndOfWord
from ..engine.text.pretokenize import AsciiSpace, Whitespace
from ..engine.merges.trace import Trace
from ..engine.merges.training import check_num_merges
from .hf_bpe import from_hf_bpe
from .hf_components import serde_float
from .hf_unigram import from_hf_unigram
from .hf_wordpiece import from_hf_wordpiece

__all__ = ["to_hf_tokenizer", "from_hf_tokenizer"]


def to_hf_tokenizer(trace: Trace, num_merges: int | None = None):
    """A Hugging Face ``tokenizers.Tokenizer`` (BPE model, whitespace split) from a trace.

    Ids are the trace's ids. Works where the conventions agree: the marker glued to the last
    character (``end_of_word_suffix``) or no marker. Hugging Face's BPE has no separate
    end-of-word *symbol*, so a trace with ``attach_end_of_word=False`` is refused.
    """
    try:
        from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("to_hf_tokenizer needs the 'tokenizers' package: pip install tokenizers") from exc
    if not isinstance(trace, Trace):
        raise TypeError(f"trace must be a Trace, got {type(trace).__name__}")
    c = trace.convention
    if not isinstance(trace.model, BPE):
        raise ValueError("trace: only BPE traces can become a Hugging Face BPE model")
    if not isinstance(c.pre_tokenizer, (Whitespace, AsciiSpace)):
        raise ValueError("trace: only traces split at whitespace (or subword-nmt's ASCII space) are supported here")
    if c.byte_level:
        raise ValueError("trace: byte-level traces are not supported here (use the tokenizers ByteLevel pre-tokenizer directly)")
    if isinstance(trace.marker, EndOfWord) and not trace.marker.glued:
        raise ValueError(
            "trace: Hugging Face BPE has no separate end-of-word symbol; train with "
            "attach_end_of_word=True (end_of_word_suffix) or end_of_word=None"
        )
    if trace.remaps_marker:
        raise ValueError("trace: a corpus word contains the marker text; Hugging Face BPE would confuse the two")
    k = len(trace.merges) if num_merges is None else check_num_merges(num_merges)
    if k > len(trace.merges):
        raise ValueError(f"num_merges must be between 0 and {len(trace.merges)}, got {k}")
    table = trace.id_to_token
    n_fixed = 1 + len(trace.base_symbols) + len(trace.completion_symbols)
    vocab: dict[str, int] = {}
    for i, tok in enumerate(table[: n_fixed + k]):
        vocab.setdefault(tok, i)
    merges = [m.pair for m in trace.merges[:k]]
    # subtle: tokenizers rejects end_of_word_suffix=None; leave it out when there is no marker
    suffix = {"end_of_word_suffix": c.end_of_word} if c.end_of_word is not None else {}
    model = models.BPE(vocab=vocab, merges=merges, unk_token=trace.unk_token, fuse_unk=False, **suffix)
    tok = Tokenizer(model)
    if c.normalization:
        tok.normalizer = getattr(normalizers, c.normalization)()
    if isinstance(c.pre_tokenizer, AsciiSpace):
        # subword-nmt's rule: lines split at the ASCII space only ("\r" at a line's end dropped)
        tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"\r?\n| "), behavior="removed")
    else:
        tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return tok


def from_hf_tokenizer(tokenizer_or_path):
    """A tokenizer from a Hugging Face ``tokenizers.Tokenizer`` or the path of its
    ``tokenizer.json``, encoding as it does (``add_special_tokens=False``; pass
    ``add_special_tokens=True`` to ``encode`` for the post-processor's [CLS] ... [SEP]). Each
    model type has its reader: BPE (:func:`~bpe_viz.interop.hf_bpe.from_hf_bpe`), WordPiece
    (:func:`~bpe_viz.interop.hf_wordpiece.from_hf_wordpiece`), Unigram
    (:func:`~bpe_viz.interop.hf_unigram.from_hf_unigram`). A component it cannot express is named
    in a ``ValueError``, with the file.

    Example::

        >>> from_hf_tokenizer({"model": {}})
        Traceback (most recent call last):
        ...
        TypeError: tokenizer_or_path must be a tokenizers.Tokenizer or the path of a tokenizer.json, got dict
    """
    data = read_tokenizer_json(tokenizer_or_path)
    where = os.fspath(tokenizer_or_path) if isinstance(tokenizer_or_path, (str, os.PathLike)) else "tokenizer"
    kind = (data.get("model") or {}).get("type")
    if not isinstance(kind, str) or kind not in HF_READERS:
        raise ValueError(f"{where}: model.type {kind!r} is not supported; supported: {sorted(HF_READERS)}")
    return HF_READERS[kind](data, where)


def read_tokenizer_json(tokenizer_or_path) -> dict:
    """A ``tokenizer.json``'s content, from its path or a ``tokenizers.Tokenizer``."""
    if isinstance(tokenizer_or_path, (str, os.PathLike)):
        try:
            with open(tokenizer_or_path, encoding="utf-8") as f:
                # subtle: numbers as Tokenizer.from_file reads them (serde_json), not Python's json
                data = json.load(f, parse_float=serde_float)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{os.fspath(tokenizer_or_path)}: not a tokenizer.json ({exc})") from None
        except RecursionError:
            raise ValueError(f"{os.fspath(tokenizer_or_path)}: not a tokenizer.json (nested too deeply)") from None
    elif hasattr(tokenizer_or_path, "to_str"):
        data = json.loads(tokenizer_or_path.to_str())
    else:
        raise TypeError("tokenizer_or_path must be a tokenizers.Tokenizer or the path of a tokenizer.json, "
                        f"got {type(tokenizer_or_path).__name__}")
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        where = os.fspath(tokenizer_or_path) if isinstance(tokenizer_or_path, (str, os.PathLike)) else "tokenizer_or_path"
        raise ValueError(f"{where}: not a tokenizer.json (no \"model\" object)")
    return data


#: model.type -> the reader of a tokenizer.json with that model
HF_READERS = {"BPE": from_hf_bpe, "WordPiece": from_hf_wordpiece, "Unigram": from_hf_unigram}
