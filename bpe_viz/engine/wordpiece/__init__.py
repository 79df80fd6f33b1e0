"""WordPiece: merge the pair with the best score (count of the pair over the counts of its
parts), encode by greedy longest match with BERT's ``##``. Built on :mod:`~bpe_viz.engine.merges`."""

from .model import (MAX_CHARS_PER_WORD, WordPiece, iter_wordpiece, longest_match, score_arrays, train_wordpiece,
                    wordpiece_encode_pieces)

__all__ = ["MAX_CHARS_PER_WORD", "WordPiece", "iter_wordpiece", "train_wordpiece", "wordpiece_encode_pieces",
           "longest_match", "score_arrays"]
