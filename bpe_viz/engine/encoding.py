"""encode / decode / encode_word: any text through any trained tokenizer.

The three functions a notebook calls. Each checks what every family shares and asks the
tokenizer through the :class:`~bpe_viz.engine.protocol.Tokenizer` protocol; nothing here
knows a family. A merge trace (BPE, WordPiece, SentencePiece-BPE) encodes with
:mod:`~bpe_viz.engine.merges.encoder` into an :class:`Encoding`; Unigram and
SubwordTextEncoder bring encodings of their own. ``Encoding``, ``WordWalkthrough`` and
``EncodeStep`` are re-exported from :mod:`~bpe_viz.engine.merges.encoding`.

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
    >>> encode("lowest", trace).pieces
    ['low', 'est</w>']
    >>> decode(encode("newest lower", trace).ids, trace)
    'newest lower'
"""

from __future__ import annotations

from .merges.encoding import Encoding, EncodeStep, WordWalkthrough
from .protocol import Tokenizer, check_tokenizer

__all__ = ["encode", "decode", "encode_word", "Encoding", "WordWalkthrough", "EncodeStep"]

#: encode's options and their defaults: only those a caller changed reach the tokenizer
_OPTION_DEFAULTS = {"allowed_special": "all", "dropout": 0.0, "seed": None, "glossaries": None, "vocabulary": None,
                    "vocabulary_threshold": None}


def encode_word(word: str, trace: Tokenizer, num_merges: int | None = None):
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
    return check_tokenizer(trace).encode_word(word, num_merges)


def encode(text: str, trace: Tokenizer, num_merges: int | None = None, *, allowed_special="all",
           dropout: float = 0.0, seed: int | None = None, glossaries=None, vocabulary=None,
           vocabulary_threshold: int | None = None):
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
    apply-bpe options (:mod:`~bpe_viz.engine.merges.applyopts`): a glossary match is kept whole and
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
    given = dict(allowed_special=allowed_special, dropout=dropout, seed=seed, glossaries=glossaries,
                 vocabulary=vocabulary, vocabulary_threshold=vocabulary_threshold)
    options = {k: v for k, v in given.items() if not _is_default(v, _OPTION_DEFAULTS[k])}
    return check_tokenizer(trace).encode(text, num_merges, **options)


def decode(ids, trace: Tokenizer) -> str:
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
    return check_tokenizer(trace).decode(ids)


def _is_default(value, default) -> bool:
    # subtle: dropout=False is not the default 0.0 (the tokenizer's own check refuses a bool)
    return value is default or (default is not None and type(value) in (int, float, str) and value == default)
