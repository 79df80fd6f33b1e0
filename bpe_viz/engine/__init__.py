"""The engine: pure Python (the standard library and ``regex``), no HTML, no widgets.

One folder per tokenizer family, on two shared parts, behind one protocol:

* :mod:`.protocol`: what every trained tokenizer answers (encode a text, one word with its
  walkthrough, decode, id <-> token, describe); :mod:`.encoding` (``encode`` / ``decode`` /
  ``encode_word``) asks it and nothing else; :mod:`.checks`: argument checks every layer shares.
* :mod:`.text` (shared): text -> words -> initial symbols: corpus, pre-tokenizers, the byte
  alphabet, markers, symbols, SentencePiece's character rules, the bundled corpora.
* :mod:`.merges` (shared by the merge families): the pair index, ranking and tie rules, the
  recorder and the trace (every step of a run), ids, the merge encoder, the quiz.
* :mod:`.predictions`: one "predict before you see" question of any kind (a merge, the encoder's
  first merge, WordPiece's pick against BPE's, a Unigram cut), answered by the engine.
* the families: :mod:`.bpe` (every classic convention, GPT-style byte-level, SentencePiece-BPE),
  :mod:`.wordpiece`, :mod:`.unigram` (the Hugging Face course's and sentencepiece's),
  :mod:`.subword_text_encoder` (TensorFlow Datasets'). A family imports the shared parts, never
  another family.

The layers above (:mod:`bpe_viz.view`, :mod:`bpe_viz.widgets`) import from here; nothing here
imports them. The literal textbook loop the tests compare the engine with is ``tests/reference.py``.
"""

from .bpe import BPE, PRESETS, SentencePieceBPE, iter_bpe, replay_bpe, train_bpe
from .encoding import Encoding, EncodeStep, WordWalkthrough, decode, encode, encode_word
from .merges import (MODELS, STOP_REASONS, TIE_BREAKS, TIE_RULES, Convention, Merge, Model, Snapshot, TieRule,
                     Trace, Training, VocabEntry, best_pair, initial_symbols, wordpiece_score)
from .merges.quiz import Question, merge_tree, quiz_questions
from .predictions import (Prediction, fewest_tokens_question, first_merge_question, from_quiz_question,
                          next_merge_question, pretokenize_question, token_count_question, unigram_cut_question,
                          wordpiece_vs_bpe_question)
from .protocol import Tokenizer
from .text_costs import TextCost, cost_steps, text_costs
from .vocab_facts import not_from_own_text, partial_character_tokens
from .why import TokenWhy, explain_token
from .subword_text_encoder import SubwordTextEncoderTrace, train_subword_text_encoder
from .text import (PRE_TOKENIZERS, BYTE_SYMBOLS, ContinuingPrefix, EndOfWord, Marker, NoMarker, Pattern,
                   PreTokenizer, SymbolCorpus, Whitespace, WordCounts, bytes_to_symbols, corpora, from_symbol_dict,
                   get_pre_tokenizer, marker_from, merge_symbols, normalize, symbols_to_bytes, word_counts)
from .unigram import UnigramTrace, train_unigram
from .wordpiece import WordPiece, iter_wordpiece, train_wordpiece

__all__ = [
    "Tokenizer", "TokenWhy", "explain_token", "partial_character_tokens", "not_from_own_text",
    "TextCost", "text_costs", "cost_steps",
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
    "Prediction", "next_merge_question", "from_quiz_question", "first_merge_question", "wordpiece_vs_bpe_question",
    "unigram_cut_question", "pretokenize_question", "token_count_question", "fewest_tokens_question",
]
