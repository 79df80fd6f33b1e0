"""SubwordTextEncoder: TensorFlow Datasets' subword vocabulary, built top down by a search.

How it differs from its siblings. :mod:`~bpe_viz.engine.bpe.model` and
:mod:`~bpe_viz.engine.wordpiece.model` build a vocabulary *bottom up*: start from characters,
glue the best pair, repeat, one new token per step. SubwordTextEncoder (tensor2tensor's, by Noam
Shazeer; kept in TensorFlow Datasets as ``tfds.deprecated.text.SubwordTextEncoder``) works *top
down*: the text is cut into tokens (:mod:`.tokens`), every substring starting at a piece
boundary is counted, the frequent ones are kept longest first, four times over, and a binary
search on the minimum count looks for the vocabulary closest to the target size
(:mod:`.build`). Each try of the search is kept (:mod:`.trace`).

Ids: 0 is padding, then the subwords (most frequent first, reserved tokens in front), then the
256 bytes: any text can be encoded, a piece missing from the vocabulary is spelled in UTF-8
bytes. Encoding is greedy longest match (:mod:`.encoder`).

This package reproduces ``SubwordTextEncoder.build_from_corpus``, ``encode`` and ``decode`` of
``tensorflow-datasets`` 4.9.10 (``tensorflow_datasets/core/deprecated/text/``) exactly: the same
tries, the same subwords in the same order, the same ids (the tests run TFDS's own module on the
bundled corpora and Python's documentation). TFDS's traps are kept, and named:

* a learned subword holding the escape (``\\&undsc\\&undsc``, from ``__init__``) is decoded
  as written, not unescaped: with such a vocabulary ``__init__`` does not come back;
* the text ``\\&undsc`` followed by a space decodes with two spaces;
* which of two reserved tokens starting at the same place wins is, in TFDS, an accident of
  Python's string hashing (a ``set``); here the longer one (see
  :attr:`SubwordEncoder.reserved_tokens`).

Example::

    >>> from bpe_viz.engine import corpora
    >>> corpora.load("slp3")[:40]
    'low low low low low lowest lowest newer '
    >>> trace = train_subword_text_encoder(corpora.load("slp3"), 265)
    >>> [(s.min_count, s.vocab_size, s.direction) for s in trace]
    [(3, 260, 'down'), (1, 263, None)]
    >>> trace.subwords
    ['newer_', 'low_', 'wider_', 'lowest_', 'new_', 'new']
    >>> enc = trace.encode("lowest newer")
    >>> enc.pieces, enc.ids
    (['lowest_', 'new', 'e', 'r'], [4, 6, 108, 121])
    >>> trace.decode(enc.ids)
    'lowest newer'

On a corpus this small whole words win (the longest substrings are kept first); the last
``newer`` is not followed by a space, so it is ``new`` plus two bytes. On real text (Python's
documentation) the vocabulary holds short words with their space (``the_``), word endings
(``ing_``, ``ed_``), pieces of words (``ke``) and punctuation with its spaces (``", "``).
"""

from .build import BuildIteration, SearchStep, count_substrings, keep_subwords, train_subword_text_encoder
from .encoder import NUM_BYTES, SubwordEncoder
from .tokens import UNDERSCORE_REPLACEMENT, prepare_tokens, tokenize
from .trace import GreedyMatch, SubwordEncoding, SubwordTextEncoderTrace, SubwordWalkthrough

__all__ = [
    "train_subword_text_encoder",
    "SubwordTextEncoderTrace",
    "SearchStep",
    "BuildIteration",
    "count_substrings",
    "keep_subwords",
    "SubwordEncoder",
    "SubwordEncoding",
    "SubwordWalkthrough",
    "GreedyMatch",
    "tokenize",
    "prepare_tokens",
    "UNDERSCORE_REPLACEMENT",
    "NUM_BYTES",
]
