"""The merge machinery BPE, WordPiece and SentencePiece-BPE share.

``pairs`` (the pair index: counts and where each pair occurs), ``ranking`` (tie rules and
scores: the one place a pair is chosen), ``recorder`` (what a trainer writes down per merge, and
how any step is rebuilt), ``trace`` (Trace / Snapshot / Merge / Convention, the read side),
``model`` (the interface a merge family implements), ``training`` (argument checks, conventions,
step-by-step training), ``vocab`` (stable token ids), ``encoder`` (encode / decode text with a
merge trace), ``applyopts`` (subword-nmt's apply-bpe options) and ``quiz`` (questions about a
trace's merges). The families (:mod:`~bpe_viz.engine.bpe`, :mod:`~bpe_viz.engine.wordpiece`)
plug in a :class:`~bpe_viz.engine.merges.model.Model`.
"""

from .model import MODELS, Model, initial_symbols, register
from .ranking import TIE_BREAKS, TIE_RULES, TieRule, best_pair, wordpiece_score
from .trace import STOP_REASONS, Convention, Merge, Snapshot, Trace, VocabEntry
from .training import Training
from .quiz import MAX_CHOICES, Question, merge_tree, quiz_questions

__all__ = ["MODELS", "Model", "initial_symbols", "register", "TIE_BREAKS", "TIE_RULES", "TieRule", "best_pair",
           "wordpiece_score", "STOP_REASONS", "Convention", "Merge", "Snapshot", "Trace", "VocabEntry", "Training",
           "MAX_CHOICES", "Question", "merge_tree", "quiz_questions"]
