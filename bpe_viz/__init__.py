"""bpe-viz: learn Byte Pair Encoding by stepping through it.

The notebook-facing API. Training keeps a snapshot after every merge::

    >>> from bpe_viz import train_bpe, encode, decode
    >>> trace = train_bpe("low low lower newest newest widest", num_merges=4)
    >>> trace[1].merge.pair
    ('l', 'o')

The package has three layers, imported in one direction only (a test checks it):
:mod:`bpe_viz.engine` (pure Python: training, traces, encoding) -> :mod:`bpe_viz.view` (HTML
strings and matplotlib charts) -> :mod:`bpe_viz.widgets` (ipywidgets explorers); plus
:mod:`bpe_viz.interop` (subword-nmt, Hugging Face ``tokenizers``, tiktoken rank files). Every trained tokenizer
(BPE, WordPiece, Unigram, SubwordTextEncoder) is a :class:`Tokenizer`: ``encode``, ``decode``
and ``encode_word`` work on any of them. The explorers are
importable from here too (``from bpe_viz import MergeExplorer``), loaded on first use so that
``import bpe_viz`` does not need ipywidgets.
"""

from . import view as _view  # noqa: F401  (registers the HTML a Snapshot shows in a notebook)
from .engine import (PRE_TOKENIZERS, PRESETS, STOP_REASONS, TIE_BREAKS, Convention, Encoding, EncodeStep, Merge,
                     Question, Snapshot, SubwordTextEncoderTrace, Tokenizer, TokenWhy, Trace, Training, UnigramTrace, VocabEntry,
                     WordWalkthrough, best_pair, bytes_to_symbols, corpora, decode, encode, encode_word,
                     explain_token, from_symbol_dict, not_from_own_text, partial_character_tokens, text_costs, TextCost, iter_bpe, iter_wordpiece, merge_symbols, merge_tree, quiz_questions, replay_bpe,
                     symbols_to_bytes, train_bpe, train_subword_text_encoder, train_unigram, train_wordpiece,
                     word_counts)
from .engine import (Prediction, fewest_tokens_question, first_merge_question, from_quiz_question, next_merge_question,
                     pretokenize_question, token_count_question, unigram_cut_question, wordpiece_vs_bpe_question)
from .engine.unigram import cut_distribution, sample_cuts
from .interop import (from_hf_tokenizer, from_sentencepiece, from_tiktoken, load_tokenizer, read_codes, read_merges,
                      replay_codes, to_apply_bpe, to_hf_tokenizer, write_codes, write_merges)

_WIDGETS = ("MergeExplorer", "EncoderExplorer", "CompareExplorer", "QuizExplorer", "UnigramExplorer",
            "SideBySideExplorer", "Predict")

__all__ = [
    "train_bpe",
    "iter_bpe",
    "train_wordpiece",
    "iter_wordpiece",
    "train_unigram",
    "UnigramTrace",
    "cut_distribution",
    "sample_cuts",
    "train_subword_text_encoder",
    "SubwordTextEncoderTrace",
    "quiz_questions",
    "merge_tree",
    "explain_token",
    "partial_character_tokens",
    "not_from_own_text",
    "text_costs",
    "TextCost",
    "TokenWhy",
    "Question",
    "Prediction",
    "next_merge_question",
    "from_quiz_question",
    "first_merge_question",
    "wordpiece_vs_bpe_question",
    "unigram_cut_question",
    "pretokenize_question",
    "token_count_question",
    "fewest_tokens_question",
    "encode",
    "encode_word",
    "decode",
    "Encoding",
    "EncodeStep",
    "WordWalkthrough",
    "Training",
    "best_pair",
    "merge_symbols",
    "from_symbol_dict",
    "word_counts",
    "bytes_to_symbols",
    "symbols_to_bytes",
    "write_codes",
    "read_codes",
    "replay_bpe",
    "replay_codes",
    "to_apply_bpe",
    "to_hf_tokenizer",
    "from_hf_tokenizer",
    "read_merges",
    "write_merges",
    "from_tiktoken",
    "from_sentencepiece",
    "load_tokenizer",
    "corpora",
    "PRESETS",
    "PRE_TOKENIZERS",
    "TIE_BREAKS",
    "STOP_REASONS",
    "Convention",
    "Merge",
    "Snapshot",
    "Trace",
    "VocabEntry",
    "Tokenizer",
    *_WIDGETS,
]

__version__ = "0.1.0"


def __getattr__(name):
    # the explorers need ipywidgets: import them only when asked for
    if name in _WIDGETS:
        from . import widgets

        return getattr(widgets, name)
    raise AttributeError(f"module 'bpe_viz' has no attribute {name!r}")
