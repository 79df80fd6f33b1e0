"""SentencePiece's BPE (``model_type="bpe"``), as sentencepiece 0.2.3 trains and encodes it.

The same algorithm as :mod:`~bpe_viz.engine.bpe.model` (merge the most frequent pair), with the rules
that make Llama's or T5's vocabulary differ from the textbook's on the same text:

* **the marker is in front**: each word starts with ``▁`` (U+2581, "a space was here") as a
  symbol of its own (:class:`~bpe_viz.engine.text.markers.BeginOfWord`), so ``▁t`` and ``▁the``
  are merges like any other; each line is a sentence (:class:`~bpe_viz.engine.text.pretokenize.
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
* **pieces that no longer occur still count**: when no pair occurs any more, SentencePiece
  goes on with every pair it has met whose count fell to 0 (shortest first) — also the ones a
  merge showed for a moment, as it merges occurrences one at a time, left to right
  (:func:`met_pairs`: ``.. .`` while ``. .`` becomes ``..`` in ``....``) — and a ``vocab_size``
  above what it can make is an error (it names the largest size it accepts);
* **a typed ``▁`` is a space**: SentencePiece's normalizer writes every space as ``▁``, so one
  in the text starts a word (:class:`~bpe_viz.engine.text.pretokenize.SentencePieceSpace`);
* **ids**: ``<unk> <s> </s>``, the merged pieces in order, then the alphabet by frequency;
* **the encoder is piece-based** (``bpe_model.cc``): it merges any two neighbours whose
  concatenation is in the vocabulary, the piece made earliest first (leftmost among equals), one
  occurrence at a time; not the learned *pairs* by rank as apply-bpe does. A run of unknown
  characters is one piece (its id is ``<unk>``).

Checked against ``sentencepiece`` 0.2.3 (``normalization_rule_name="identity"``, other options
default) in ``tests/test_sentencepiece.py`` and, on generated odd texts at every vocabulary size,
``tests/test_sentencepiece_exact.py``.

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

from .model import BPE, per_k
from ..merges.convention import Merge
from ..merges.model import register
from ..text.scripts import NOT_CHARACTERS, required_characters, valid_piece

__all__ = ["SentencePieceBPE", "PIECE_RULE", "merge_pieces", "piece_ranks", "met_pairs"]


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

    def tail_merges(self, trace, state, recorder, heap, step, num_merges):
        """When no pair occurs any more, SentencePiece goes on with every pair it ever met whose
        count fell to 0 (:func:`met_pairs`: including the ones a merge showed only for a moment),
        in tie-rule order (shortest first), one piece per string."""
        merged = set(trace.history.merged_pairs)
        allowed = heap.allowed or (lambda pair: True)
        show, join, m = trace.show, trace.marker.join, trace.internal_marker
        pending = [p for p in met_pairs(trace) if p not in merged and allowed(p)]
        for pair in sorted(pending, key=lambda p: (heap.key(p, None), p)):
            if step >= num_merges:
                return "num_merges"
            a, b = pair
            tok = join(a, b, m)
            if tok in heap.made:
                continue
            heap.made.add(tok)
            step += 1
            change = state.apply(pair, tok)
            merge = Merge(step, (show(a), show(b)), show(tok), 0, None, trace, pair, tok)
            recorder.record(merge, change)
            yield merge
        return "num_merges" if step >= num_merges else "no_pairs"

    def prepare_trace(self, trace):
        h = trace.history
        seen = dict(zip(h.base_symbols, h.base_counts))
        counts = {c: n for c, n in seen.items() if c not in NOT_CHARACTERS}
        required = required_characters(counts, trace.convention.character_coverage, trace.show)
        trace.alphabet = tuple(required)
        trace.unknown_chars = frozenset(seen) - set(required)

    def pair_filter(self, trace):
        unknown = trace.unknown_chars
        limit = trace.convention.max_piece_length
        show = trace.show
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
        ranks = piece_ranks(trace, k)
        initial = trace.initial_symbols
        return lambda w: merge_pieces(initial(w), ranks)

    def dropout_segmenter(self, trace, k, p, rng):
        """SentencePiece's BPE-dropout (``enable_sampling=True, alpha=p``): each candidate the
        encoder takes is dropped with probability ``p`` and never retried (its neighbours may
        still merge); draws come from ``rng`` (the C++ uses its own generator, so the samples
        agree in distribution, not draw for draw)."""
        ranks = piece_ranks(trace, k)
        initial = trace.initial_symbols
        return lambda w: merge_pieces(initial(w), ranks, p, rng)

    def encode_recorded(self, initial, trace, k, record):
        return merge_pieces(initial, piece_ranks(trace, k), record=record)


register(SentencePieceBPE())

#: how the piece-based encoder works, in one sentence (the walkthrough view shows it)
PIECE_RULE = ("each iteration merges the two neighbours that make the earliest piece of the vocabulary "
              "(the leftmost if several), one place at a time: pieces, not learned pairs")
SentencePieceBPE.encoder_rule = PIECE_RULE


def met_pairs(trace) -> set:
    """Every internal pair SentencePiece's trainer met in the merges of ``trace`` so far: the
    neighbours in each word before any merge and after each merge, and the ones a merge showed
    only for a moment.

    subtle: ``AcceptSymbol`` (``bpe_model_trainer.cc``) merges the occurrences of a pair one at
    a time, left to right, and after each one registers the new neighbour pairs
    (``AddNewPair(sid, pos.left, next)``). When two occurrences touch, the right-hand one is not
    merged yet, so it meets ``(token, left)``: merging ``(. .)`` in ``. . . .`` shows ``.. . .``
    (the pair ``.. .``) before ``.. ..``. Such a pair keeps a place in the trainer's queue with
    count 0 and becomes a piece once the pairs that occur run out (``...`` for ``....``).

    Example::

        >>> from bpe_viz import train_bpe
        >>> t = train_bpe("....", num_merges=1, preset="sentencepiece")
        >>> sorted(met_pairs(t))
        [('.', '.'), ('..', '.'), ('..', '..'), ('▁', '.'), ('▁', '..')]
    """
    h = trace.history
    words = list(h.initial)
    met = {p for syms in words for p in zip(syms, syms[1:])}
    for step, ((a, b), tok) in enumerate(zip(h.merged_pairs, h.merged_tokens), 1):
        for w in h.changed_words(step):
            syms, out, i, end = words[w], [], 0, -1
            while i < len(syms):
                if syms[i] == a and i + 1 < len(syms) and syms[i + 1] == b:
                    if i == end:  # touches the occurrence just merged: "tok a b" for a moment
                        met.add((tok, a))
                    out.append(tok)
                    i = end = i + 2
                else:
                    out.append(syms[i])
                    i += 1
            words[w] = new = tuple(out)
            met.update(zip(new, new[1:]))
    return met


def piece_ranks(trace, k: int) -> dict:
    """internal piece -> the step that made it, for the first ``k`` merges (cached)."""
    return per_k(trace, "_piece_rank_cache", k, lambda m: m.token_internal)


def merge_pieces(symbols: tuple, ranks: dict, p: float = 0.0, rng=None, record: list | None = None) -> tuple:
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
