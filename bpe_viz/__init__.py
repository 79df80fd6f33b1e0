"""bpe-viz: learn Byte Pair Encoding by stepping through it.

The notebook-facing API. Training keeps a snapshot after every merge::

    >>> from bpe_viz import train_bpe, encode, decode
    >>> trace = train_bpe("low low lower newest newest widest", num_merges=4)
    >>> trace[1].merge.pair
    ('l', 'o')
"""

from . import corpora
from .bpe import PRESETS, TIE_BREAKS, Training, best_pair, iter_bpe, train_bpe
from .corpus import bytes_to_symbols, from_symbol_dict, symbols_to_bytes, word_counts
from .encode import Encoding, EncodeStep, WordWalkthrough, decode, encode, encode_word
from .symbols import merge_symbols
from .interop import read_codes, replay_bpe, replay_codes, to_hf_tokenizer, write_codes
from .trace import STOP_REASONS, Convention, Merge, Snapshot, Trace, VocabEntry
from .wordpiece import iter_wordpiece, train_wordpiece

__all__ = [
    "train_bpe",
    "iter_bpe",
    "train_wordpiece",
    "iter_wordpiece",
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
    "to_hf_tokenizer",
    "corpora",
    "PRESETS",
    "TIE_BREAKS",
    "STOP_REASONS",
    "Convention",
    "Merge",
    "Snapshot",
    "Trace",
    "VocabEntry",
]

__version__ = "0.1.0"
