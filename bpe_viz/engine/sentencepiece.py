"""SentencePiece's BPE (``model_type="bpe"``), as sentencepiece 0.2.3 trains and encodes it.

The same algorithm as :mod:`~bpe_viz.engine.bpe` (merge the most frequent pair), with the rules
that make Llama's or T5's vocabulary differ from the textbook's on the same text:

* **the marker is in front**: each word starts with ``▁`` (U+2581, "a space was here") as a
  symbol of its own (:class:`~bpe_viz.engine.markers.BeginOfWord`), so ``▁t`` and ``▁the``
  are merges like any other; each line is a sentence (:class:`~bpe_viz.engine.pretokenize.
  SentencePieceSpace`);
* **not every pair may merge** (``IsValidSentencePiece``): ``▁`` only at the start of a piece,
  one Unicode script per piece (digits and punctuation are "Common", so ``a1`` and ``e.`` are
  refused; Hiragana and Katakana count as Han; a combining mark takes its neighbour's script),
  at most ``max_piece_length`` (16) characters;
* **rare characters are unknown**: the alphabet is the most frequent characters that together
  cover ``character_coverage`` (99.95 %) of the text; the rest never pair;
* **ties go to the shorter piece**, then the smaller string (tie rule ``"shorter"``);
* **one piece per string**: when a second pair would make a string already made (``a aa``
  after ``aa a``), it is skipped for good;
* **pieces that no longer occur still count**: when every word is one symbol, SentencePiece
  goes on with the pairs it has seen whose count fell to 0 (shortest first), and a
  ``vocab_size`` above what it can make is an error (it names the largest size it accepts);
* **ids**: ``<unk> <s> </s>``, the merged pieces in order, then the alphabet by frequency;
* **the encoder is piece-based** (``bpe_model.cc``): it merges any two neighbours whose
  concatenation is in the vocabulary, the piece made earliest first (leftmost among equals), one
  occurrence at a time; not the learned *pairs* by rank as apply-bpe does. A run of unknown
  characters is one piece (its id is ``<unk>``).

Checked against ``sentencepiece`` 0.2.3 (``normalization_rule_name="identity"``, other options
default) in ``tests/test_sentencepiece.py``.

Example::

    >>> from bpe_viz import train_bpe, encode
    >>> t = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, vocab_size=20, preset="sentencepiece")
    >>> t.id_to_token[:8]
    ['<unk>', '<s>', '</s>', 'es', 'est', 'lo', 'low', '▁low']
    >>> encode("lowest", t).pieces
    ['▁low', 'est']
"""

from __future__ import annotations

import heapq
import struct
from functools import lru_cache

import regex

from .bpe import BPE, per_k
from .model import register

__all__ = ["SentencePieceBPE", "script_of", "valid_piece", "required_characters"]


# -- which pieces may exist -------------------------------------------------------------------

def _script_pattern():
    import regex._regex_core as core  # the Unicode script names the regex module knows

    names: dict[int, str] = {}
    for name, value in core.PROPERTIES["SCRIPT"][1].items():
        if value and name.isidentifier():
            names.setdefault(value, name)  # the first name of each script is its long name
    return regex.compile("|".join(f"(?P<{n}>\\p{{Script={n}}})" for n in names.values()))


# sentencepiece 0.2.3 neither counts nor keeps these: they stay unknown (found by comparison)
_NOT_CHARACTERS = frozenset("\x00\x1f")

_SCRIPTS = None
_ANY = None
_HAN_LIKE = {"HIRAGANA", "KATAKANA"}


@lru_cache(maxsize=65536)
def script_of(ch: str) -> str:
    """The Unicode script of one character (``"LATIN"``, ``"COMMON"``, ``"HAN"``, ...), as
    SentencePiece groups them: Hiragana, Katakana and the long vowel mark ``ー`` count as Han."""
    global _SCRIPTS
    if _SCRIPTS is None:
        _SCRIPTS = _script_pattern()
    if ch == "\u30fc":
        return "HAN"
    m = _SCRIPTS.match(ch)
    name = m.lastgroup if m else "UNKNOWN"
    return "HAN" if name in _HAN_LIKE else name


def valid_piece(piece: str, max_length: int | None = 16, marker: str = "\u2581") -> bool:
    """Whether SentencePiece may make ``piece``: ``marker`` only at its start, one script (a
    combining mark takes the script before it), at most ``max_length`` characters.

    Example::

        >>> valid_piece("▁the"), valid_piece("the▁"), valid_piece("e."), valid_piece("..")
        (True, False, False, True)
    """
    if max_length is not None and len(piece) > max_length:
        return False
    prev = _ANY
    for i, ch in enumerate(piece):
        if ch == marker:
            if i:
                return False
            continue
        if ch in _NOT_CHARACTERS or ch == "\u2585":
            return False
        s = script_of(ch)
        if s == "INHERITED":
            s = prev
        if prev is not _ANY and s is not _ANY and s != prev:
            return False
        prev = s
    return True


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def required_characters(counts: dict, coverage: float, show=str) -> list:
    """The alphabet SentencePiece keeps: characters by count (then code point), taken while the
    share covered so far is below ``coverage`` (in 32-bit floats, as the C++ compares them).

    Example::

        >>> required_characters({"a": 5, "b": 3, "c": 1, "d": 1}, 0.9)
        ['a', 'b', 'c']
    """
    total = sum(counts.values())
    target = _f32(coverage)
    out, acc = [], 0
    for ch, n in sorted(counts.items(), key=lambda t: (-t[1], show(t[0]))):
        if total and _f32(acc / total) >= target:
            break
        acc += n
        out.append(ch)
    return out


# -- the model --------------------------------------------------------------------------------

class SentencePieceBPE(BPE):
    """BPE as SentencePiece trains and encodes it (see the module docstring)."""

    name = "sentencepiece-bpe"
    title = "BPE (SentencePiece)"
    one_piece_per_string = True
    zero_count_tail = True
    hard_vocab_limit = True
    merges_unknown_runs = True
    splits_by_merges = False  # its encoder works on pieces, not on learned pairs
    id_layout = "sentencepiece"

    def describe(self, convention):
        return [f"character_coverage {convention.character_coverage:g}",
                f"pieces of at most {convention.max_piece_length} characters, one script each",
                "encodes by piece (earliest piece first)"]

    def prepare_trace(self, trace):
        h = trace._history
        seen = dict(zip(h.base_symbols, h.base_counts))
        counts = {c: n for c, n in seen.items() if c not in _NOT_CHARACTERS}
        required = required_characters(counts, trace.convention.character_coverage, trace._show)
        trace._alphabet = tuple(required)
        trace._unknown_chars = frozenset(seen) - set(required)

    def pair_filter(self, trace):
        unknown = trace._unknown_chars
        limit = trace.convention.max_piece_length
        show = trace._show
        marker = trace.marker.text
        cache: dict = {}

        def allowed(pair):
            ok = cache.get(pair)
            if ok is None:
                a, b = pair
                ok = cache[pair] = a not in unknown and b not in unknown and valid_piece(show(a) + show(b), limit, marker)
            return ok

        return allowed

    def segmenter(self, trace, k):
        ranks = _piece_ranks(trace, k)
        initial = trace.initial_symbols
        return lambda w: _merge_pieces(initial(w), ranks)

    def dropout_segmenter(self, trace, k, p, rng):
        """SentencePiece's BPE-dropout (``enable_sampling=True, alpha=p``): each candidate the
        encoder takes is dropped with probability ``p`` and never retried (its neighbours may
        still merge); draws come from ``rng`` (the C++ uses its own generator, so the samples
        agree in distribution, not draw for draw)."""
        ranks = _piece_ranks(trace, k)
        initial = trace.initial_symbols
        return lambda w: _merge_pieces(initial(w), ranks, p, rng)

    def encode_recorded(self, initial, trace, k, record):
        return _merge_pieces(initial, _piece_ranks(trace, k), record=record)


register(SentencePieceBPE())

#: how the piece-based encoder works, in one sentence (the walkthrough view shows it)
PIECE_RULE = ("each iteration merges the two neighbours that make the earliest piece of the vocabulary "
              "(the leftmost if several), one place at a time: pieces, not learned pairs")
SentencePieceBPE.encoder_rule = PIECE_RULE


def _piece_ranks(trace, k: int) -> dict:
    """internal piece -> the step that made it, for the first ``k`` merges (cached)."""
    return per_k(trace, "_piece_rank_cache", k, lambda m: m._token_internal)


def _merge_pieces(symbols: tuple, ranks: dict, p: float = 0.0, rng=None, record: list | None = None) -> tuple:
    """SentencePiece's encoder on one word: an agenda of neighbour pairs whose concatenation is
    a piece, the earliest piece first and the leftmost among equals; a merge makes new pairs
    with its neighbours. With ``p``, each candidate taken is dropped with that probability."""
    syms = list(symbols)
    n = len(syms)
    if n < 2:
        return tuple(syms)
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    prv = list(range(-1, n - 1))
    get = ranks.get
    heap = []
    for i in range(n - 1):
        r = get(syms[i] + syms[i + 1])
        if r is not None:
            heap.append((r, i, i + 1, len(syms[i]) + len(syms[i + 1])))
    if not heap:
        return tuple(syms)
    heapq.heapify(heap)
    push, pop = heapq.heappush, heapq.heappop
    while heap:
        r, i, j, size = pop(heap)
        a, b = syms[i], syms[j]
        if a is None or b is None or len(a) + len(b) != size:
            continue  # one side was merged since: stale
        if p and rng.random() < p:
            continue  # dropped (BPE-dropout), for good
        if record is not None:
            before = tuple(s for s in syms if s is not None)
            cands = sorted({(pair, get(pair[0] + pair[1])) for pair in zip(before, before[1:])
                            if get(pair[0] + pair[1]) is not None}, key=lambda t: t[1])
        syms[i] = a + b
        syms[j] = None
        nxt[i] = nxt[j]
        if nxt[j] != -1:
            prv[nxt[j]] = i
        if record is not None:
            record.append((before, tuple(cands), (a, b), r, tuple(s for s in syms if s is not None)))
        left, right = prv[i], nxt[i]
        if left != -1:
            rr = get(syms[left] + syms[i])
            if rr is not None:
                push(heap, (rr, left, i, len(syms[left]) + len(syms[i])))
        if right != -1:
            rr = get(syms[i] + syms[right])
            if rr is not None:
                push(heap, (rr, i, right, len(syms[i]) + len(syms[right])))
    return tuple(s for s in syms if s is not None)
