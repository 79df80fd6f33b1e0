"""Interop with the real tools: subword-nmt codes files, GPT-2 merge files, tiktoken rank files
(GPT-2, GPT-4, GPT-4o, from installed packages), SentencePiece ``.model`` files (Mistral 7B's
installed too) and Hugging Face ``tokenizers``.

Engine objects in, files or the other tool's objects out (and back). Nothing here is needed to
train, encode or draw; it exists so a learner can check bpe-viz against the tool they will use.
"""

from .gpt2 import read_merges, write_merges
from .hf import from_hf_tokenizer, to_hf_tokenizer
from .installed import load_tokenizer
from .sentencepiece_model import from_sentencepiece
from .tiktoken_ranks import from_tiktoken
from .subword_nmt import read_codes, replay_codes, to_apply_bpe, write_codes

__all__ = ["write_codes", "read_codes", "replay_codes", "to_hf_tokenizer", "from_hf_tokenizer",
           "read_merges", "write_merges", "to_apply_bpe", "from_tiktoken", "load_tokenizer", "from_sentencepiece"]
