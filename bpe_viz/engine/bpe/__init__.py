"""Byte Pair Encoding: merge the most frequent pair, in every classic convention.

``model`` (the BPE model: apply-bpe's encoder by pair rank, BPE-dropout; ``train_bpe``,
``iter_bpe``, ``replay_bpe`` and the presets: Sennrich 2016, SLP3, subword-nmt, CS336, minbpe,
Hugging Face) and ``sentencepiece`` (SentencePiece's BPE as a variant: its piece rules, layout
and piece-based encoder) and ``tiktoken_bpe`` (tiktoken's encoder by rank, for vocabularies read
from rank files) and ``scored_pieces`` (a SentencePiece model's encoder by piece score, for
``.model`` files). Built on :mod:`~bpe_viz.engine.merges`.
"""

from .model import BPE, PRESET_TITLES, PRESETS, iter_bpe, replay_bpe, train_bpe
from .sentencepiece import SentencePieceBPE
from .tiktoken_bpe import TiktokenBPE
from .scored_pieces import ScoredPieceBPE, ScoredPieceTrace, scored_piece_bpe

__all__ = ["BPE", "PRESETS", "PRESET_TITLES", "iter_bpe", "replay_bpe", "train_bpe", "SentencePieceBPE", "TiktokenBPE",
           "ScoredPieceBPE", "ScoredPieceTrace", "scored_piece_bpe"]
