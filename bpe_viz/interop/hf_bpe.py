"""Hugging Face BPE ``tokenizer.json`` files read into traces: byte-level (GPT-2 style).

:func:`from_hf_bpe` takes the parsed JSON (:func:`~bpe_viz.interop.hf.from_hf_tokenizer` reads
the file and picks the reader by ``model.type``). Merges, ids and added (special) tokens are kept,
so ``encode`` gives the tokenizer's tokens and ids.
"""

from __future__ import annotations

from .gpt2 import read_merges

__all__ = ["from_hf_bpe"]


def from_hf_bpe(data: dict):
    """A trace from a parsed Hugging Face byte-level BPE ``tokenizer.json`` (ByteLevel
    pre-tokenizer, GPT-2 pattern)."""
    model = data.get("model") or {}
    if model.get("type") != "BPE":
        raise ValueError(f"tokenizer_or_path: only BPE models are supported, this one is {model.get('type')!r}")
    if model.get("end_of_word_suffix") or model.get("continuing_subword_prefix"):
        raise ValueError("tokenizer_or_path: a BPE model with end_of_word_suffix or continuing_subword_prefix "
                         "is not byte-level; use read_codes / to_hf_tokenizer for those")
    pre = data.get("pre_tokenizer") or {}
    steps = pre.get("pretokenizers", [pre]) if pre.get("type") == "Sequence" else [pre]
    if [s.get("type") for s in steps] != ["ByteLevel"]:
        raise ValueError("tokenizer_or_path: only a ByteLevel pre-tokenizer is supported, found "
                         f"{[s.get('type') for s in steps]}")
    if steps[0].get("add_prefix_space") or not steps[0].get("use_regex", True):
        raise ValueError("tokenizer_or_path: ByteLevel with add_prefix_space=True or use_regex=False is not supported")
    merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges", [])]
    specials = [t["content"] for t in data.get("added_tokens", []) if t.get("special", True)]
    return read_merges(merges, vocab=model["vocab"], special_tokens=specials)
