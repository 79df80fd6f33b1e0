"""Ranking: which pair wins. The tie rules and the WordPiece score, in one place.

On real text most merges are decided by a tie, and sources break ties differently, so the choice
is an object of its own. A :class:`TieRule` orders pairs that have the same count (or score):

* ``"first"`` (:class:`FirstMet`): the pair met first, reading the words in order of first
  appearance, each left to right — what ``max()`` over a freshly counted dict returns (the 2016
  paper's Algorithm 1, SLP3, the Hugging Face course);
* ``"lexicographic"`` (:class:`Greatest`): the greatest ``(left, right)`` by code points —
  subword-nmt's ``max(stats, key=lambda x: (stats[x], x))``;
* ``"bytes"`` (:class:`GreatestBytes`): the greatest pair as UTF-8 byte strings — CS336;
* ``"hf"`` (:class:`SmallestIds`): the pair of the smallest token ids — Hugging Face's BpeTrainer.

Every trainer, every snapshot's ranked pair table and the "tie!" notes use these rules; a new
rule is a new class here plus an entry in :data:`TIE_RULES`.

The primary key is the model's: BPE ranks by count, WordPiece by the exact score
``count(ab) / (count(a)·count(b))`` (:func:`wordpiece_score`).

Example::

    >>> best_pair({("e", "s"): 9, ("s", "t"): 9, ("l", "o"): 7})
    (('e', 's'), (('s', 't'),))
    >>> best_pair({("e", "s"): 9, ("s", "t"): 9}, tie_break="lexicographic")
    (('s', 't'), (('e', 's'),))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction

__all__ = [
    "TieRule", "FirstMet", "Greatest", "GreatestBytes", "SmallestIds", "ShorterPiece", "TIE_RULES", "TIE_BREAKS", "get_tie_rule",
    "best_pair", "rank", "wordpiece_score", "best_by_score",
]


class TieRule:
    """Orders pairs of equal count or score. ``key(pair, position)`` is smaller for the pair
    preferred; ``position`` is where the pair is first met (used by positional rules only)."""

    name = "?"
    #: whether the rule needs each pair's first position (training then keeps it up to date)
    positional = False
    #: how the explainer says what the rule took, e.g. "the first pair met"
    takes = "?"

    def keyer(self, show: Callable[[str], str] = str, int_keys: bool = False, to_bytes=None, token_id=None) -> Callable:
        """A function ``(pair, position) -> key``; ``show`` gives a symbol's public spelling,
        ``to_bytes`` the bytes a public symbol stands for (rules that compare bytes),
        ``token_id`` a symbol's token id as Hugging Face numbers them (rules that compare ids)."""
        raise NotImplementedError

    def symbol_keyer(self, show: Callable[[str], str] = str, int_keys: bool = False, to_bytes=None, token_id=None):
        """A function ``symbol -> key`` such that a pair's key is ``(key(left), key(right))``
        (arguments as :meth:`keyer`'s), or ``None`` when the rule does not compare pairs symbol
        by symbol: a trace can then place all its pairs by sorting its symbols once.

        Example::

            >>> key = get_tie_rule("lexicographic").symbol_keyer()
            >>> sorted(["a", "ab", "b"], key=key), get_tie_rule("shorter").symbol_keyer()
            (['b', 'ab', 'a'], None)
        """

    def _pair_keyer(self, *args, **kwargs) -> Callable:
        sym_key = self.symbol_keyer(*args, **kwargs)
        return lambda pair, position=None: (sym_key(pair[0]), sym_key(pair[1]))

    def describe(self) -> str:
        return f"ties: {self.takes}"

    def __repr__(self):
        return f"<tie rule {self.name!r}>"


class FirstMet(TieRule):
    """The pair met first: by ``(word index, position in the word)`` during training, by the
    rank of its first occurrence in a fresh scan of a snapshot."""

    name = "first"
    positional = True
    takes = "first pair met"

    def keyer(self, show=str, int_keys=False, to_bytes=None, token_id=None):
        return lambda pair, position: position


def _lex_transform(s: str) -> str:
    # subtle: smaller must mean greater. Map each code point c to 0x10FFFE - c and end with
    # U+10FFFF, so "abc" sorts before its prefix "ab" (as "abc" > "ab").
    return "".join([chr(0x10FFFE - ord(c)) for c in s]) + "\U0010ffff"


class Greatest(TieRule):
    """The greatest ``(left, right)`` by code points of the public spelling (subword-nmt)."""

    name = "lexicographic"
    takes = "greatest pair by code points (as subword-nmt)"

    keyer = TieRule._pair_keyer

    def symbol_keyer(self, show=str, int_keys: bool = False, to_bytes=None, token_id=None):
        # int_keys: some symbol holds U+10FFFF, which the string transform needs for itself
        cache: dict = {}

        def sym_key(sym):
            k = cache.get(sym)
            if k is None:
                pub = show(sym)
                k = cache[sym] = tuple([-ord(c) for c in pub] + [1]) if int_keys else _lex_transform(pub)
            return k

        return sym_key


class GreatestBytes(TieRule):
    """The greatest ``(left, right)`` compared as UTF-8 byte strings (Stanford CS336: ``max``
    over ``(count, (bytes, bytes))``). For a byte-level trace a symbol's bytes are the bytes it
    stands for, so a space (0x20, shown ``Ġ`` = U+0120) sorts below every letter, as in bytes."""

    name = "bytes"
    takes = "greatest pair as UTF-8 bytes (as CS336)"

    keyer = TieRule._pair_keyer

    def symbol_keyer(self, show=str, int_keys=False, to_bytes=None, token_id=None):
        to_bytes = to_bytes or (lambda s: s.encode("utf-8", "surrogatepass"))
        cache: dict = {}

        def sym_key(sym):
            k = cache.get(sym)
            if k is None:
                # smaller must mean greater: invert each byte, end with a mark above them all
                k = cache[sym] = "".join([chr(255 - x) for x in to_bytes(show(sym))]) + "\u0100"
            return k

        return sym_key


class SmallestIds(TieRule):
    """The pair of the smallest token ids (Hugging Face ``tokenizers``' BpeTrainer,
    ``impl Ord for Merge`` in ``trainer.rs``): ids number the alphabet sorted by character,
    then each new token in the order it was made."""

    name = "hf"
    takes = "smallest pair of token ids (as Hugging Face tokenizers)"

    keyer = TieRule._pair_keyer

    def symbol_keyer(self, show=str, int_keys=False, to_bytes=None, token_id=None):
        if token_id is None:
            raise ValueError("the 'hf' tie rule needs the token ids of a trace")
        return token_id


class ShorterPiece(TieRule):
    """The pair that makes the shorter piece (in characters), then the smaller piece by code
    points (SentencePiece's BPE trainer, ``bpe_model_trainer.cc``). Two pairs that make the same
    piece (``aa a`` and ``a aa``) tie on both; SentencePiece then keeps the first made and skips
    the other for good (see :class:`~bpe_viz.engine.bpe.sentencepiece.SentencePieceBPE`)."""

    name = "shorter"
    takes = "shorter piece, then the smaller string (as SentencePiece)"

    def keyer(self, show=str, int_keys=False, to_bytes=None, token_id=None):
        cache: dict = {}

        def key(pair, position=None):
            k = cache.get(pair)
            if k is None:
                piece = show(pair[0]) + show(pair[1])
                k = cache[pair] = (len(piece), piece)
            return k

        return key


#: Tie rules by name.
TIE_RULES: dict[str, TieRule] = {"first": FirstMet(), "lexicographic": Greatest(), "bytes": GreatestBytes(),
                                 "hf": SmallestIds(), "shorter": ShorterPiece()}
TIE_BREAKS = tuple(TIE_RULES)


def get_tie_rule(name) -> TieRule:
    if isinstance(name, TieRule):
        return name
    rule = TIE_RULES.get(name) if isinstance(name, str) else None
    if rule is None:
        choices = " or ".join(repr(n) for n in TIE_RULES)
        raise ValueError(f"tie_break must be {choices}, got {name!r}")
    return rule


def best_pair(counts: Mapping, tie_break: str = "first", order: Mapping | None = None, to_bytes=None):
    """The pair the next BPE merge takes from a pair-count table, and the pairs it tied with.

    ``tie_break="first"``: of the pairs with the top count, the one met first (``order`` gives
    each pair's first-met rank; by default the mapping's own order, as a fresh recount makes it).
    ``"lexicographic"``: the greatest ``(left, right)`` by code points, as subword-nmt's
    ``max(stats, key=lambda x: (stats[x], x))``. Returns ``(None, ())`` for an empty table.
    """
    rule = get_tie_rule(tie_break)
    if not counts:
        return None, ()
    top = max(counts.values())
    tied = [p for p, c in counts.items() if c == top]
    if order is None:
        order = {p: i for i, p in enumerate(counts)}
    key = rule.keyer(int_keys=any("\U0010ffff" in a + b for a, b in tied), to_bytes=to_bytes)
    tied.sort(key=lambda p: key(p, order[p] if rule.positional else None))
    return tied[0], tuple(tied[1:])


def rank(items, primary: Mapping, rule: TieRule, positions: Mapping | None = None, show=str, to_bytes=None,
         token_id=None):
    """``(pair, count)`` items sorted best first: by ``primary[pair]`` (larger is better), then
    by the tie rule (``positions``: each pair's first-met rank, for positional rules)."""
    if rule.positional:
        return sorted(items, key=lambda t: (-primary[t[0]], positions[t[0]]))
    key = rule.keyer(show, int_keys=any("\U0010ffff" in a + b for (a, b), _ in items), to_bytes=to_bytes,
                     token_id=token_id)
    return sorted(items, key=lambda t: (-primary[t[0]], key(t[0])))


def wordpiece_score(count: int, count_a: int, count_b: int) -> Fraction:
    """WordPiece's score of a pair, exact: count(ab) / (count(a)·count(b)).

    Example::

        >>> wordpiece_score(5, 20, 5)
        Fraction(1, 20)
    """
    return Fraction(count, count_a * count_b)


def best_by_score(counts: Mapping, token_counts: Mapping, near=None):
    """``(top score, the pairs that have it, in ``counts`` order)``: floats find the near-best
    quickly, exact Fractions decide, so ties are real ties and never float accidents. ``near``:
    the pairs whose float score is within 1e-9 of the best, in ``counts`` order, when the caller
    has them already (a chart computed every score)."""
    if near is None:
        best = 0.0
        fl = {}
        for p, c in counts.items():
            s = c / (token_counts[p[0]] * token_counts[p[1]])
            fl[p] = s
            if s > best:
                best = s
        near = [p for p, s in fl.items() if s >= best * (1 - 1e-9)]
    exact = {p: wordpiece_score(counts[p], token_counts[p[0]], token_counts[p[1]]) for p in near}
    top = max(exact.values())
    return top, [p for p in near if exact[p] == top]
