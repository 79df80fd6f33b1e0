"""One SubwordTextEncoder vocabulary at work: greedy longest match, ids with byte fallback, decoding.

:class:`SubwordEncoder` is TFDS's ``SubwordTextEncoder(vocab_list=subwords)``: it cuts text into
tokens (:mod:`.tokens`), segments each token by greedy longest match, left to right, and spells
a piece missing from the vocabulary in UTF-8 bytes, so nothing is ever unknown. The build
(:mod:`.build`) segments the corpus with it between rounds; the trace (:mod:`.trace`) keeps one
per try of the search.

Example::

    >>> enc = SubwordEncoder(["low_", "low", "est_"])
    >>> enc.tokens("lowest lowz"), enc.encode("lowest lowz")  # z: no subword, its byte's id
    (['lowest_', 'lowz'], [2, 3, 2, 126])
"""

from __future__ import annotations

from functools import cached_property

from .tokens import UNDERSCORE_REPLACEMENT, is_mixed_alphanum, prepare_tokens, reserved_regex, tokenize

__all__ = ["NUM_BYTES", "SubwordEncoder"]

#: every byte has an id after the subwords: nothing is ever unknown
NUM_BYTES = 256


class SubwordEncoder:
    """One SubwordTextEncoder vocabulary (TFDS's ``SubwordTextEncoder(vocab_list=subwords)``).

    Ids: 0 padding, ``1..len(subwords)`` the subwords, then the 256 bytes.

    Example (the vocabulary of TFDS's own unit test)::

        >>> enc = SubwordEncoder(["foo_", "bar_", "foo", "bar", "<EOS>"])
        >>> enc.encode("foobar foo bar<EOS>bar")
        [3, 2, 1, 4, 5, 4]
        >>> enc.segment("foobar_"), enc.encode("a_b!")
        (['foo', 'bar_'], [103, 101, 104, 39])
        >>> enc.decode([103, 101, 104, 39])
        'a_b!'
    """

    def __init__(self, subwords):
        # TFDS drops empty strings; a subword listed twice keeps both ids, the later one is used
        self.subwords: tuple[str, ...] = tuple(s for s in subwords if s)
        self._ids = {s: i for i, s in enumerate(self.subwords)}
        # the greedy match never tries a piece longer than the longest subword (or the escape)
        self.max_len = max(len(UNDERSCORE_REPLACEMENT), max(map(len, self.subwords), default=1))
        self._cache: dict = {}  # token -> its pieces and ids (see encode_token)

    @property
    def vocab_size(self) -> int:
        """Padding + subwords + 256 bytes."""
        return 1 + len(self.subwords) + NUM_BYTES

    def subword_id(self, subword: str) -> int | None:
        """A subword's id (``None``: not a subword). subtle: a subword listed twice (a reserved
        token also found as a candidate) has two ids; like TFDS's encoder, this is the later one.

        Example::

            >>> SubwordEncoder(["<E>", "ab", "<E>"]).subword_id("<E>")
            3
        """
        i = self._ids.get(subword)
        return None if i is None else i + 1

    @cached_property
    def _longest_from(self) -> dict[str, int]:
        """The length of the longest subword starting with each character (the escape too)."""
        longest = {UNDERSCORE_REPLACEMENT[0]: len(UNDERSCORE_REPLACEMENT)}
        for s in self.subwords:
            if len(s) > longest.get(s[0], 0):
                longest[s[0]] = len(s)
        return longest

    @cached_property
    def reserved_tokens(self) -> tuple[str, ...]:
        """The subwords that mix word and non-word characters (``<EOS>``, ``._``), plus the
        underscore escape: the tokenizer never cuts them.

        subtle: TFDS keeps them in a ``set``, so where two start at the same place (``\\&u`` and
        ``\\&un`` in a text that spells them) which one wins depends on Python's string hashing;
        here the longest is listed first (the greedy rule), then the alphabetical order.
        """
        reserved = {UNDERSCORE_REPLACEMENT, *(s for s in self.subwords if is_mixed_alphanum(s))}
        return tuple(sorted(reserved, key=lambda s: (-len(s), s)))

    @cached_property
    def _regex(self):
        return reserved_regex(self.reserved_tokens)

    def tokens(self, text: str) -> list[str]:
        """The text's tokens as the encoder sees them (escaped, ``_`` for a following space)."""
        return prepare_tokens(tokenize(text, self.reserved_tokens, self._regex))

    def segment(self, token: str, record: list | None = None) -> list[str]:
        """Greedy longest match, left to right; a character matching nothing is a piece alone.

        ``record`` (a list) receives one ``(start, tried, match)`` per piece: the candidates
        tried, longest first, and the one that matched (``None``: none did).

        Example::

            >>> SubwordEncoder(["low", "lo", "est_"]).segment("lowest_")
            ['low', 'est_']
            >>> SubwordEncoder(["low", "lowe", "est_"]).segment("lowest_")  # greedy, not fewest
            ['lowe', 's', 't', '_']
        """
        ids, longest = self._ids, self._longest_from
        pieces = []
        start, n = 0, len(token)
        while start < n:
            tried = [] if record is not None else None
            # TFDS tries every length up to max_len; lengths no subword starting with this
            # character has cannot match, so only a walkthrough (record) lists them
            limit = self.max_len if record is not None else longest.get(token[start], 0)
            for end in range(min(n, start + limit), start, -1):
                candidate = token[start:end]
                if tried is not None:
                    tried.append(candidate)
                # the escape always matches, vocabulary or not: it is one character, "_"
                if candidate in ids or candidate == UNDERSCORE_REPLACEMENT:
                    pieces.append(candidate)
                    if record is not None:
                        record.append((start, tuple(tried), candidate))
                    start = end
                    break
            else:
                pieces.append(token[start])
                if record is not None:
                    record.append((start, tuple(tried), None))
                start += 1
        return pieces

    def piece_ids(self, piece: str) -> list[int]:
        """The ids of one piece of a segmentation: its own id, or its UTF-8 bytes' ids."""
        offset = len(self.subwords) + 1  # + 1: id 0 is padding
        if piece == UNDERSCORE_REPLACEMENT:
            return [offset + ord("_")]  # subtle: even if the escape is a subword
        i = self._ids.get(piece)
        if i is not None:
            return [i + 1]
        if piece == "_":  # the end-of-token marker alone: it stands for a space
            return [offset + ord(" ")]
        return [offset + b for b in piece.encode("utf-8", "surrogatepass")]

    def encode_token(self, token: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """``(piece, ids)`` for each piece of one token; remembered, as TFDS's encoder does."""
        cache = self._cache
        out = cache.get(token)
        if out is None:
            if len(cache) >= 1 << 16:
                cache.clear()
            out = cache[token] = tuple((p, tuple(self.piece_ids(p))) for p in self.segment(token))
        return out

    def encode(self, text: str) -> list[int]:
        """Token ids of a text (TFDS's ``encode``): never 0."""
        return [i for token in self.tokens(text) for _, ids in self.encode_token(token) for i in ids]

    def id_to_subword(self, token_id: int):
        """A subword (str), a byte (bytes) or ``None`` for padding."""
        if token_id == 0:
            return None
        if 1 <= token_id <= len(self.subwords):
            return self.subwords[token_id - 1]
        if token_id < self.vocab_size:
            return bytes([token_id - len(self.subwords) - 1])
        raise ValueError(f"ids: {token_id} is not an id of this vocabulary (0..{self.vocab_size - 1})")

    def decode(self, ids) -> str:
        """Text from ids (TFDS's ``decode``): trailing padding is dropped, a subword ending in
        ``_`` is followed by a space, runs of byte ids are decoded as UTF-8 (invalid: U+FFFD).

        subtle: like TFDS, a subword holding the escape (``\\&undsc``) is *not* unescaped: a
        vocabulary that learned ``\\&undsc\\&undsc`` (from ``__init__``) decodes it as written.
        """
        ids = list(ids)
        while ids and ids[-1] == 0:
            ids.pop()
        out, run = [], bytearray()
        for position, token_id in enumerate(ids):
            if token_id == 0:
                raise ValueError(
                    f"ids: padding (0) at position {position} is followed by tokens; "
                    "only trailing padding can be dropped"
                )
            piece = self.id_to_subword(token_id)
            if isinstance(piece, bytes):
                run += piece
                continue
            if run:
                out.append(run.decode("utf-8", "replace"))
                run = bytearray()
            out.append(piece[:-1] + " " if piece.endswith("_") else piece)
        if run:
            out.append(run.decode("utf-8", "replace"))
        return "".join(out)
