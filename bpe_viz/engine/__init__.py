"""The engine: pure Python (the standard library only), no HTML, no widgets.

Read it in this order: :mod:`.corpus` and :mod:`.pretokenize` (text -> words), :mod:`.alphabet`
and :mod:`.markers` (word -> initial symbols), :mod:`.pairs` (the training state),
:mod:`.ranking` (which pair wins), :mod:`.recorder` and :mod:`.trace` (the history and its read
side), the models :mod:`.bpe` and :mod:`.wordpiece` (each: train, replay, encode one word), then
:mod:`.encoding` (encode/decode any text with any trace). :mod:`.reference` is the literal
textbook loop the tests compare against; :mod:`.corpora` the bundled example texts.

The layers above (:mod:`bpe_viz.view`, :mod:`bpe_viz.widgets`) import from here; nothing here
imports them.
"""

from .text import corpora
from .text.alphabet import BYTE_SYMBOLS, bytes_to_symbols, symbols_to_bytes
from .bpe import PRESETS, BPE, iter_bpe, replay_bpe, train_bpe
from .text.corpus import SymbolCorpus, WordCounts, from_symbol_dict, normalize, word_counts
from .encoding import Encoding, EncodeStep, WordWalkthrough, decode, encode, encode_word
from .text.markers import ContinuingPrefix, EndOfWord, Marker, NoMarker, marker_from
from .merges.model import MODELS, Model, initial_symbols
from .text.pretokenize import PRE_TOKENIZERS, Pattern, PreTokenizer, Whitespace, get_pre_tokenizer
from .merges.ranking import TIE_BREAKS, TIE_RULES, TieRule, best_pair, wordpiece_score
from .text.symbols import merge_symbols
from .merges.trace import STOP_REASONS, Convention, Merge, Snapshot, Trace, VocabEntry
from .merges.training import Training
from .wordpiece import WordPiece, iter_wordpiece, train_wordpiece
from .bpe import SentencePieceBPE
from .unigram import UnigramTrace, train_unigram
from .subword_text_encoder import SubwordTextEncoderTrace, train_subword_text_encoder
from .merges.quiz import Question, merge_tree, quiz_questions

__all__ = [
    "corpora", "BYTE_SYMBOLS", "bytes_to_symbols", "symbols_to_bytes",
    "PRESETS", "BPE", "iter_bpe", "replay_bpe", "train_bpe",
    "SymbolCorpus", "WordCounts", "from_symbol_dict", "normalize", "word_counts",
    "Encoding", "EncodeStep", "WordWalkthrough", "decode", "encode", "encode_word",
    "ContinuingPrefix", "EndOfWord", "Marker", "NoMarker", "marker_from",
    "MODELS", "Model", "initial_symbols",
    "PRE_TOKENIZERS", "Pattern", "PreTokenizer", "Whitespace", "get_pre_tokenizer",
    "TIE_BREAKS", "TIE_RULES", "TieRule", "best_pair", "wordpiece_score",
    "merge_symbols",
    "STOP_REASONS", "Convention", "Merge", "Snapshot", "Trace", "VocabEntry",
    "Training", "WordPiece", "iter_wordpiece", "train_wordpiece", "SentencePieceBPE",
    "UnigramTrace", "train_unigram",
    "SubwordTextEncoderTrace", "train_subword_text_encoder",
    "Question", "merge_tree", "quiz_questions",
]
