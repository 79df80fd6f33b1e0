"""The Unigram language model (Kudo 2018): start from many candidate pieces and prune them.

BPE and WordPiece build a vocabulary bottom up, one merge at a time. Unigram goes the other way:
it starts from a large *seed* vocabulary (every character plus many frequent substrings), gives
each piece a probability, and then, round by round, removes the pieces the corpus misses least.
A word is cut into the pieces whose probabilities multiply to the most (the Viterbi
segmentation); the corpus *loss* is ``sum(count * -log P(word))``; a piece's *removal loss* is
how much that loss would grow without it. Single characters are never removed, so every word
can still be cut.

Two flavours, each exact against its source: ``flavour="hf-course"``, the Hugging Face course's
code (:mod:`.course`), and ``flavour="sentencepiece"``, sentencepiece 0.2.3's trainer
(:mod:`.sentencepiece`). The other files: :mod:`.train` (``train_unigram`` and its checks),
:mod:`.trace` (the rounds kept, encoding and decoding), :mod:`.lattice` (Viterbi and the
lattice), :mod:`.sp_encoder` (sentencepiece's encoder, each word's cut cached), :mod:`.words`
(text into ``▁``-words, the corpus argument), :mod:`.sampling` (subword regularization: every
cut's probability, random cuts), :mod:`.from_pieces` (a model read from a file,
``unigram_from_pieces``: no training, the file's ids and encoder).

Example (the course's toy corpus, with its 15 seed pieces)::

    >>> toy = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    >>> seeds = ["h", "u", "g", "hu", "ug", "p", "pu", "n", "un", "b", "bu", "s", "hug", "gs", "ugs"]
    >>> t = train_unigram(toy, vocab_size=12, initial_vocab=seeds)
    >>> round(t[0].loss, 1), t[0].segmentation["pug"], t[0].segmentation.tied("pug")
    (169.8, ('p', 'ug'), True)
    >>> round(t[1].removal_losses["hug"], 1), [r.piece for r in t[1].removed]
    (23.5, ['hu'])
"""

from ..text.scripts import MARK
from .trace import Removed, UnigramEncoding, UnigramSnapshot, UnigramTrace, UnigramWalkthrough
from .from_pieces import PieceUnigram, PieceUnigramEncoding, unigram_from_pieces
from .sampling import cut_distribution, sample_cuts
from .train import FLAVOURS, train_unigram
from .words import metaspace_words

__all__ = ["FLAVOURS", "MARK", "Removed", "UnigramEncoding", "UnigramSnapshot", "UnigramTrace", "UnigramWalkthrough",
           "metaspace_words", "train_unigram", "PieceUnigram", "PieceUnigramEncoding", "unigram_from_pieces",
           "cut_distribution", "sample_cuts"]
