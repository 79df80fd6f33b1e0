"""Why a token: where one token of an encoding came from, for any tokenizer.

:func:`explain_token` takes a tokenizer, the encoding it made of a text and a token's index in
it, and gathers what a learner asks about that token: which characters (and bytes) it covers,
which pre-token it belongs to, how the encoder cut that pre-token (the family's own
walkthrough: merges applied by rank for BPE and tiktoken-style vocabularies, greedy longest
matches for WordPiece, the Viterbi table for Unigram), which of those steps built this token,
and its merge tree down to the initial symbols. Nothing is built per merge: the walkthrough
encodes one pre-token and the tree follows the token's own merges, so a 200,000-merge
vocabulary answers as fast as a toy one.

The view (:func:`bpe_viz.view.why.why_html`) draws the result; this module only computes it.

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
    >>> enc = trace.encode("lowest")
    >>> why = explain_token(trace, enc, 0)
    >>> why.token, why.kind, why.word, [why.walkthrough.steps[i].pair for i in why.steps]
    ('low', 'merged', 'lowest', [('l', 'o'), ('lo', 'w')])
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate

from .checks import check_int
from .merges.quiz import merge_tree
from .merges.trace import Trace
from .protocol import check_tokenizer

__all__ = ["TokenWhy", "explain_token", "fallback_byte", "KINDS"]

#: what a token is, in the words the view uses
KINDS = {
    "merged": "made by merges",
    "initial": "an initial symbol (no merge made it)",
    "piece": "a piece of the vocabulary, chosen by its score",
    "byte": "a byte: the character is not in the vocabulary, so it is spelled in UTF-8 bytes",
    "unknown": "unknown: the character is not in the vocabulary",
    "special": "a special token: matched whole, before any splitting",
}

_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")


def fallback_byte(token: str) -> int | None:
    """The byte a byte-fallback piece stands for (``"<0xE4>"`` -> 228), else ``None``."""
    m = _BYTE_PIECE.fullmatch(token)
    return int(m.group(1), 16) if m else None


@dataclass(frozen=True)
class TokenWhy:
    """One token of an encoding, with what made it (see :func:`explain_token`)."""

    index: int  # in the encoding
    token: str  # the vocabulary string
    id: int | None
    kind: str  # a key of KINDS
    span: tuple[int, int] | None  # characters of the text it covers
    covers: str  # those characters
    raw: bytes | None  # the bytes it stands for (byte-level and byte pieces)
    word: str  # the pre-token it belongs to
    word_index: int
    position: int  # its place among the word's tokens
    word_tokens: tuple[str, ...]  # all the word's tokens
    walkthrough: object  # the family's walkthrough of the word (None for a special token)
    steps: tuple[int, ...]  # the walkthrough steps that built this token
    tree: tuple | None  # merge_tree(tokenizer, token) for merge-built tokens
    step: int  # the training step the encoding used

    def describe(self) -> str:
        """The token's story in one line."""
        made = f" in {len(self.steps)} of the word's {len(self.walkthrough.steps)} steps" if self.steps else ""
        return (f"token {self.index} {self.token!r} (id {self.id}) of the pre-token {self.word!r}: "
                f"{KINDS[self.kind]}{made}")


def _word_position(encoding, index: int) -> tuple[int, int, list[int]]:
    """(word index, position in the word, the encoding indices of the word's tokens)."""
    word_ids = encoding.word_ids
    w = word_ids[index]
    same = [i for i in range(len(word_ids)) if word_ids[i] == w] if len(word_ids) < 4096 else None
    if same is None:  # a long text: walk out from the token instead of over every token
        lo = index
        while lo > 0 and word_ids[lo - 1] == w:
            lo -= 1
        hi = index
        while hi + 1 < len(word_ids) and word_ids[hi + 1] == w:
            hi += 1
        same = list(range(lo, hi + 1))
    return w, index - same[0], same


def _merge_steps(walkthrough, position: int) -> tuple[int, ...]:
    """The walkthrough steps whose merged symbol lies inside the ``position``-th final symbol."""
    if walkthrough.longest_match:
        return (position,) if position < len(walkthrough.steps) else ()
    ends = list(accumulate(map(len, walkthrough.final), initial=0))
    lo, hi = ends[position], ends[position + 1]
    out = []
    for i, s in enumerate(walkthrough.steps):
        starts = list(accumulate(map(len, s.symbols), initial=0))
        j = 0
        while j < len(s.symbols) - 1:  # every occurrence of the pair merged in this step
            if (s.symbols[j], s.symbols[j + 1]) == s.pair:
                if lo <= starts[j] and starts[j + 2] <= hi:
                    out.append(i)
                    break
                j += 2
            else:
                j += 1
    return tuple(out)


def _raw_bytes(tokenizer, token: str, kind: str) -> bytes | None:
    if kind == "byte":
        return bytes([fallback_byte(token)])
    if isinstance(tokenizer, Trace) and tokenizer.convention.byte_level and kind != "special":
        return tokenizer.to_bytes(token)
    return None


def _kind(tokenizer, encoding, index: int, token: str) -> str:
    if token in getattr(tokenizer, "special_tokens", ()):
        return "special"
    unknown = getattr(encoding, "unknown", None)
    if unknown is not None and unknown[index]:
        return "unknown"
    if fallback_byte(token) is not None and getattr(tokenizer, "byte_fallback", False):
        return "byte"
    if not isinstance(tokenizer, Trace):
        return "piece"
    made = encoding.made_at[index] if hasattr(encoding, "made_at") else None
    return "merged" if made else "initial"


def explain_token(tokenizer, encoding, index: int) -> TokenWhy:
    """Why token ``index`` of ``encoding`` (made by ``tokenizer.encode``) is what it is: the
    characters it covers, its pre-token, the encoder's walkthrough of that pre-token, the steps
    of it that built the token, and its merge tree (see :class:`TokenWhy`).

    Example::

        >>> from bpe_viz import train_unigram
        >>> uni = train_unigram("low low low lower newest newest widest", 14)
        >>> why = explain_token(uni, uni.encode("newest"), 0)
        >>> why.token, why.kind, why.tree is None
        ('▁newest', 'piece', True)
        >>> explain_token(uni, uni.encode("newest"), 9)
        Traceback (most recent call last):
        ...
        ValueError: index must be between 0 and 0 (the encoding's tokens), got 9
    """
    tokenizer = check_tokenizer(tokenizer, "tokenizer")
    for name in ("ids", "tokens", "word_ids", "words"):
        if not hasattr(encoding, name):
            raise TypeError(f"encoding must be what tokenizer.encode(text) returned, got {type(encoding).__name__}")
    if getattr(encoding, "trace", tokenizer) is not tokenizer:
        raise ValueError("encoding was made by another tokenizer than the one given")
    n = len(encoding.ids)
    index = check_int("index", index, 0)
    if index >= n:
        raise ValueError(f"index must be between 0 and {n - 1} (the encoding's tokens), got {index}")
    token = encoding.tokens[index]
    tid = encoding.ids[index]
    w, position, same = _word_position(encoding, index)
    word = encoding.words[w]
    step = getattr(encoding, "num_merges", tokenizer.last_step)
    kind = _kind(tokenizer, encoding, index, token)
    walkthrough, steps, tree = None, (), None
    if kind != "special":
        walkthrough = tokenizer.encode_word(word, step)
        final = getattr(walkthrough, "final", None)
        if isinstance(tokenizer, Trace) and final is not None and len(final) == len(same):
            steps = _merge_steps(walkthrough, position)
        if kind == "merged":
            try:
                tree = merge_tree(tokenizer, token, upto=step)
            except ValueError:  # not made by this trace's merges (a loaded vocabulary's odd entry)
                tree = None
    offsets = getattr(encoding, "offsets", None)
    span = tuple(offsets[index]) if offsets is not None else None
    covers = encoding.text[span[0]:span[1]] if span is not None else ""
    return TokenWhy(index=index, token=token, id=tid, kind=kind, span=span, covers=covers,
                    raw=_raw_bytes(tokenizer, token, kind), word=word, word_index=w, position=position,
                    word_tokens=tuple(encoding.tokens[i] for i in same), walkthrough=walkthrough, steps=steps,
                    tree=tree, step=step)
