"""Text preparation shared by every family: what a corpus is, how text is cut into words, the
symbols a word starts from.

``corpus`` (text, word lists or counts -> ordered word counts), ``pretokenize`` (whitespace, a
regex, SentencePiece's spaces; ``fast_split`` runs its GPT patterns with ``re``; ``regex_compat``
is ``regex``, or ``re`` with rewritten patterns where ``regex`` is missing), ``alphabet`` (GPT-2's byte symbols), ``markers`` (``</w>``,
``##``, ``▁``), ``symbols`` (merging symbol tuples), ``scripts`` (SentencePiece's character
rules and 32-bit floats, used by its BPE and its Unigram), ``corpora`` (the bundled texts) and
``languages`` (one paragraph in many languages, to compare tokenizers on).
Nothing here trains or encodes.
"""

from . import corpora
from .alphabet import BYTE_SET, BYTE_SYMBOLS, bytes_to_symbols, symbols_to_bytes
from .corpus import NORMALIZATIONS, SymbolCorpus, WordCounts, from_symbol_dict, normalize, word_counts
from .languages import LANGUAGES, language_lines
from .markers import BeginOfWord, ContinuingPrefix, EndOfWord, Marker, NoMarker, marker_from
from .pretokenize import (PRE_TOKENIZERS, AsciiSpace, Pattern, PreTokenizer, SentencePieceSpace, Whitespace,
                          get_pre_tokenizer, split_specials)
from .scripts import f32, required_characters, script_of, valid_piece
from .symbols import merge_symbols, pairs_of

__all__ = [
    "corpora", "BYTE_SET", "BYTE_SYMBOLS", "bytes_to_symbols", "symbols_to_bytes", "NORMALIZATIONS",
    "SymbolCorpus", "WordCounts", "from_symbol_dict", "normalize", "word_counts", "BeginOfWord",
    "ContinuingPrefix", "EndOfWord", "Marker", "NoMarker", "marker_from", "PRE_TOKENIZERS", "AsciiSpace",
    "Pattern", "PreTokenizer", "SentencePieceSpace", "Whitespace", "get_pre_tokenizer", "split_specials",
    "f32", "required_characters", "script_of", "valid_piece", "merge_symbols", "pairs_of", "LANGUAGES",
    "language_lines",
]
