"""tiktoken's BPE encoder (GPT-2's ``r50k_base``, GPT-4's ``cl100k_base``, GPT-4o's ``o200k_base``).

A tiktoken vocabulary is a rank per token, with no merge list; its encoder
(``byte_pair_merge`` in tiktoken's ``src/lib.rs``) works on ranks, not on learned pairs:

* **a whole pre-token that is a token is that token**, with no merging at all (a shortcut: for a
  token whose merge can be recovered from lower ranks, merging reaches it too);
* otherwise, from the pre-token's bytes, it merges the two neighbours whose *concatenation* has
  the lowest rank (the leftmost if several), one place at a time, until no concatenation is a
  token.

How it differs from its siblings: apply-bpe (:mod:`~bpe_viz.engine.bpe.model`) merges a learned
*pair* everywhere at once; SentencePiece (:mod:`~bpe_viz.engine.bpe.sentencepiece`) merges by
piece like tiktoken but has no whole-word rule. The merges of a trace built from a rank file
(:func:`bpe_viz.from_tiktoken`) are recovered from the ranks; this encoder needs only their
tokens, in rank order.

Example::

    >>> from bpe_viz import from_tiktoken, encode
    >>> ranks = {bytes([b]): b for b in range(256)}
    >>> ranks.update({b"ab": 256, b"bc": 257, b"abc": 258})
    >>> t = from_tiktoken(ranks, pattern="gpt2")
    >>> encode("abc abcbc", t).tokens
    ['abc', 'Ġ', 'abc', 'bc']
"""

from __future__ import annotations

from ..text.alphabet import bytes_to_symbols
from ..text.markers import Marker
from .model import BPE
from .sentencepiece import merge_pieces, piece_ranks
from ..merges.model import register

__all__ = ["TiktokenBPE", "RANK_RULE", "rank_merge"]

#: how the encoder works, in one sentence (the walkthrough view shows it)
RANK_RULE = ("a pre-token that is a token is kept whole; otherwise each iteration merges the two neighbours "
             "whose concatenation has the lowest rank (the leftmost if several), one place at a time")


#: pre-tokens up to this many symbols are merged by :func:`rank_merge`; longer ones by the heap
SHORT = 48
_NEVER = float("inf")


def rank_merge(symbols, ranks: dict) -> tuple:
    """tiktoken's ``byte_pair_merge`` on one short pre-token: a list of the ranks of neighbour
    concatenations; merge at the lowest (the leftmost of equals), update its two neighbours,
    again. Quadratic, but ``min`` and ``index`` run in C, which beats a heap on the few symbols
    of a usual word; :func:`~bpe_viz.engine.bpe.sentencepiece.merge_pieces` (same result) takes
    the long ones.

    Example::

        >>> rank_merge("abcd", {"ab": 1, "bc": 0, "abc": 3, "bcd": 2})
        ('a', 'bcd')
    """
    parts = list(symbols)
    get = ranks.get
    rk = [get(a + b, _NEVER) for a, b in zip(parts, parts[1:])]
    while rk:
        low = min(rk)
        if low == _NEVER:
            break
        i = rk.index(low)
        parts[i] += parts.pop(i + 1)
        del rk[i]
        if i < len(rk):
            rk[i] = get(parts[i] + parts[i + 1], _NEVER)
        if i:
            rk[i - 1] = get(parts[i - 1] + parts[i], _NEVER)
    return tuple(parts)


class TiktokenBPE(BPE):
    """BPE as tiktoken encodes it (see the module docstring)."""

    name = "tiktoken-bpe"
    title = "BPE (tiktoken)"
    splits_by_merges = False  # its encoder works on ranks of tokens, not on learned pairs
    encoder_rule = RANK_RULE

    def describe(self, convention):
        return ["encodes by rank (a whole pre-token first, then the lowest-rank concatenation)"]

    def segmenter(self, trace, k):
        ranks = piece_ranks(trace, k)
        initial = trace.initial_symbols
        if trace.convention.byte_level and type(trace.marker).initial is Marker.initial:
            def segment_bytes(word):  # every symbol is one character: no tuple until one is needed
                s = bytes_to_symbols(word)
                if len(s) == 1 or s in ranks:
                    return (s,)
                return rank_merge(s, ranks) if len(s) <= SHORT else merge_pieces(tuple(s), ranks)

            return segment_bytes

        def segment(word):
            syms = initial(word)
            if len(syms) > 1 and "".join(syms) in ranks:
                return ("".join(syms),)
            return merge_pieces(syms, ranks)

        return segment

    def dropout_segmenter(self, trace, k, p, rng):
        raise ValueError("dropout: tiktoken's encoder has no BPE-dropout; use a trace trained with train_bpe")

    def encode_recorded(self, initial, trace, k, record):
        # merging reaches a whole pre-token that is a token whenever its merge can be recovered
        # (from_tiktoken refuses the others), so the walkthrough shows the merges
        return merge_pieces(initial, piece_ranks(trace, k), record=record)


register(TiktokenBPE())
