"""Unigram LM: start from many pieces, remove those the corpus misses least, round by round;
encode by Viterbi over the word's lattice. Two flavours: the Hugging Face course's code and
sentencepiece 0.2.3's trainer."""

from .model import FLAVOURS, MARK, Removed, UnigramEncoding, UnigramSnapshot, UnigramTrace, UnigramWalkthrough, \
    metaspace_words, train_unigram

__all__ = ["FLAVOURS", "MARK", "Removed", "UnigramEncoding", "UnigramSnapshot", "UnigramTrace", "UnigramWalkthrough",
           "metaspace_words", "train_unigram"]
