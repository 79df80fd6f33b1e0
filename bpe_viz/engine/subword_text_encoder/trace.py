"""The tries of one SubwordTextEncoder build, and what they answer: encodings, walkthroughs.

:class:`SubwordTextEncoderTrace` keeps every try of the binary search (:mod:`.build` makes them)
and is a :class:`~bpe_viz.engine.protocol.Tokenizer`: ``encode``, ``encode_word`` and ``decode``
take a try (``step``) and use its vocabulary through a :class:`~.encoder.SubwordEncoder`; the
default is the try the search chose, not the last one. :class:`SubwordEncoding` and
:class:`SubwordWalkthrough` (made of :class:`GreedyMatch` choices) are what they return.

Example::

    >>> from bpe_viz.engine import corpora
    >>> from bpe_viz.engine.subword_text_encoder import train_subword_text_encoder
    >>> trace = train_subword_text_encoder(corpora.load("slp3"), 265)
    >>> print(trace.encode_word("newer").describe())
    'newer': token 'newer', greedy longest match from the left
      1. at 0: new (not in the vocabulary: newer, newe) -> id 6
      2. at 3: nothing matches (not in the vocabulary: er, e); 'e' as bytes [108]
      3. at 4: nothing matches (not in the vocabulary: r); 'r' as bytes [121]
    >>> enc = trace.encode("low newer", step=0)  # the first try's vocabulary
    >>> enc.pieces, trace.decode(enc)
    (['low_', 'n', 'e', 'w', 'e', 'r'], 'low newer')
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from ..protocol import Tokenizer, check_plain_encode
from .encoder import NUM_BYTES, SubwordEncoder
from .tokens import UNDERSCORE_REPLACEMENT

__all__ = ["GreedyMatch", "SubwordWalkthrough", "SubwordEncoding", "SubwordTextEncoderTrace"]


@dataclass(frozen=True)
class GreedyMatch:
    """One choice of the greedy longest match: at ``start``, the candidates ``tried`` (longest
    first) until ``match`` was found; ``match is None``: nothing matched, the character alone
    is the piece (spelled in bytes)."""

    start: int
    tried: tuple[str, ...]
    match: str | None
    piece: str
    ids: tuple[int, ...]


@dataclass(frozen=True)
class SubwordWalkthrough:
    """How one word was encoded: its token (escaped, ``_`` for a following space) and each
    greedy match."""

    word: str
    token: str
    steps: tuple[GreedyMatch, ...]
    step: int
    algorithm: str = "subword_text_encoder"
    longest_match: bool = True

    @property
    def pieces(self) -> list[str]:
        return [s.piece for s in self.steps]

    @property
    def final(self) -> tuple[str, ...]:
        return tuple(self.pieces)

    @property
    def ids(self) -> list[int]:
        return [i for s in self.steps for i in s.ids]

    def describe(self) -> str:
        lines = [f"{self.word!r}: token {self.token!r}, greedy longest match from the left"]
        for k, s in enumerate(self.steps, 1):
            missed = [t for t in s.tried if t != s.match]
            tried = f" (not in the vocabulary: {', '.join(missed)})" if missed else ""
            if s.match is None:
                lines.append(f"  {k}. at {s.start}: nothing matches{tried}; {s.piece!r} as bytes {list(s.ids)}")
            elif s.match == UNDERSCORE_REPLACEMENT:
                lines.append(f"  {k}. at {s.start}: {s.piece} (an escaped underscore) -> id {s.ids[0]}")
            else:
                lines.append(f"  {k}. at {s.start}: {s.piece}{tried} -> id {s.ids[0]}")
        return "\n".join(lines)


class SubwordEncoding:
    """The result of :meth:`SubwordTextEncoderTrace.encode`: parallel lists, one entry per id.

    ``ids``: TFDS's ids; ``tokens``: their names in :attr:`SubwordTextEncoderTrace.id_to_token`
    (``<0xF0>`` for a byte); ``pieces``: the piece of the greedy segmentation each id spells (a
    piece spelled in bytes is repeated for each of its bytes); ``byte_fallback`` (also
    ``unknown``): the id is a byte; ``word_ids``: which token of :attr:`words` (the encoder's
    tokens) it belongs to; ``offsets``: ``(start, end)`` character spans in the text (each byte
    of a piece spelled in bytes has the piece's span; a final ``_`` covers the space it stands
    for). ``segments``: ``(piece, ids)`` once per piece.
    """

    def __init__(self, text: str, trace, step: int, words, segments):
        self.text = text
        self.trace = trace
        self.step = step
        self.words: list[str] = words
        self.segments: list[tuple[str, tuple[int, ...]]] = [(p, ids) for _, p, ids in segments]
        self._word_of = [w for w, _, _ in segments]

    @cached_property
    def ids(self) -> list[int]:
        return [i for _, ids in self.segments for i in ids]

    @cached_property
    def pieces(self) -> list[str]:
        return [p for p, ids in self.segments for _ in ids]

    @cached_property
    def word_ids(self) -> list[int]:
        return [w for w, (_, ids) in zip(self._word_of, self.segments) for _ in ids]

    @cached_property
    def tokens(self) -> list[str]:
        table = self.trace._id_table(self.step)
        return [table[i] for i in self.ids]

    @cached_property
    def offsets(self) -> list[tuple[int, int]]:
        text, out, pos, at = self.text, [], 0, -1
        for w, (piece, ids) in zip(self._word_of, self.segments):
            if w != at:  # a new token: where its raw text starts
                at, token = w, self.words[w]
                raw = (token[:-1] + " " if token.endswith("_") else token).replace(UNDERSCORE_REPLACEMENT, "_")
                # subtle: TFDS encodes the space after a literal "\&undsc" twice (see
                # tokens.prepare_tokens); the second one is in no text, so it has an empty span
                start, end = (pos, pos + len(raw)) if text.startswith(raw, pos) else (pos, pos)
                pos = end
            n = len(piece) - (len(UNDERSCORE_REPLACEMENT) - 1) * piece.count(UNDERSCORE_REPLACEMENT)
            span = (start, min(start + n, end))
            start = span[1]
            out.extend(span for _ in ids)
        return out

    @cached_property
    def byte_fallback(self) -> list[bool]:
        first_byte = len(self.trace._encoder(self.step).subwords) + 1
        return [i >= first_byte for i in self.ids]

    @property
    def unknown(self) -> list[bool]:
        return self.byte_fallback

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self):
        return f"SubwordEncoding(tokens={self.tokens!r}, ids={self.ids!r})"


class SubwordTextEncoderTrace(Tokenizer):
    """Every try of the binary search of :func:`~.build.train_subword_text_encoder`.

    ``len(trace)`` tries; ``trace[k]`` is a :class:`~.build.SearchStep`; ``trace.chosen`` the
    index of the try the search returned, whose vocabulary is ``trace.subwords``
    (``trace.vocab_size``, ``trace.id_to_token``, ``trace.token_to_id``). ``trace.token_counts``:
    the corpus's tokens. ``encode``, ``encode_word`` and ``decode`` take ``step=k`` to use try
    k's vocabulary (``None``: the chosen try).
    """

    algorithm = "subword_text_encoder"
    #: every text has ids (byte fallback): nothing is unknown
    unk_token = None

    def __init__(self, steps, token_counts, *, target_vocab_size, max_subword_length, reserved_tokens):
        self.steps: tuple = tuple(steps)  # SearchStep s (build.py makes them)
        self.token_counts: dict[str, int] = token_counts
        self.target_vocab_size = target_vocab_size
        self.max_subword_length = max_subword_length
        self.reserved_tokens = tuple(reserved_tokens)
        self.chosen: int = next(s.index for s in self.steps if s.chosen)
        self._encoders: dict[int, SubwordEncoder] = {}

    # -- the search, step by step ------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return list(self.steps[k])
        return self.steps[self._check_step(k, IndexError)]

    def __iter__(self):
        return iter(self.steps)

    def _check_step(self, step, error=ValueError) -> int:
        """``None`` -> the chosen try; a negative step counts from the end, as for a list."""
        if step is None:
            return self.chosen
        if isinstance(step, bool) or not isinstance(step, int):
            raise TypeError(f"step must be an int or None, got {type(step).__name__} {step!r}")
        n = len(self.steps)
        if not -n <= step < n:
            raise error(f"step must be between 0 and {n - 1} (the tries of this search), got {step}")
        return step % n

    def _encoder(self, step=None) -> SubwordEncoder:
        k = self._check_step(step)
        enc = self._encoders.get(k)
        if enc is None:
            enc = self._encoders[k] = SubwordEncoder(self.steps[k].subwords)
        return enc

    # -- the chosen vocabulary -----------------------------------------------------------------
    @property
    def subwords(self) -> list[str]:
        """The subwords of the chosen try, in id order (id = position + 1)."""
        return self.steps[self.chosen].subwords

    @property
    def vocab_size(self) -> int:
        """Padding + subwords + 256 bytes (TFDS's ``vocab_size``)."""
        return self.steps[self.chosen].vocab_size

    def _id_table(self, step=None) -> list[str]:
        subwords = self._encoder(step).subwords
        return ["<pad>", *subwords, *(f"<0x{b:02X}>" for b in range(NUM_BYTES))]

    @property
    def id_to_token(self) -> list[str]:
        """Token strings by id: ``<pad>``, the subwords, then the bytes ``<0x00>`` ... ``<0xFF>``.

        Example::

            >>> from bpe_viz.engine.subword_text_encoder import train_subword_text_encoder
            >>> t = train_subword_text_encoder("ab ab ab", 259)
            >>> t.id_to_token[:3], t.id_to_token[-1], len(t.id_to_token) == t.vocab_size
            (['<pad>', 'ab_', 'ab'], '<0xFF>', True)
        """
        return self._id_table()

    def token_to_id(self, token: str, step=None) -> int | None:
        """The id of a subword (or ``<pad>``, ``<0x41>``), ``None`` if not in the vocabulary.

        subtle: a subword listed twice (a reserved token also found as a candidate) has two
        ids; like TFDS's encoder, this gives the later one.
        """
        enc = self._encoder(step)
        i = enc.subword_id(token)
        if i is not None:
            return i
        if token == "<pad>":
            return 0
        m = re.fullmatch(r"<0x([0-9A-F]{2})>", token) if isinstance(token, str) else None
        return len(enc.subwords) + 1 + int(m.group(1), 16) if m else None

    # -- the Tokenizer protocol (bpe_viz.encode / encode_word / decode ask these) --------------
    def encode(self, text: str, step=None, **options) -> SubwordEncoding:
        """Encode text with try ``step``'s vocabulary (default: the chosen one), as TFDS.
        ``allowed_special`` is accepted and changes nothing (reserved tokens are always
        whole); the merge families' other options are refused."""
        check_plain_encode(self, text, options)
        k = self._check_step(step)
        enc = self._encoder(k)
        words = enc.tokens(text)
        segments = [(w, piece, ids) for w, token in enumerate(words) for piece, ids in enc.encode_token(token)]
        return SubwordEncoding(text, self, k, words, segments)

    def encode_word(self, word: str, step=None) -> SubwordWalkthrough:
        """The greedy longest match on one word, candidate by candidate.

        ``word`` is one token of raw text (``"lowest"``; ``"lowest "`` for the word met before a
        space, token ``lowest_``; ``"snake_case"``, escaped to ``snake\\&undsccase``).
        """
        if not isinstance(word, str):
            raise TypeError(f"word must be a str, got {type(word).__name__}")
        k = self._check_step(step)
        enc = self._encoder(k)
        tokens = enc.tokens(word)
        if len(tokens) != 1:
            raise ValueError(
                f"word must be one token for SubwordTextEncoder (a run of letters/digits/_ or of "
                f"other characters, optionally with one space after it); {word!r} is "
                f"{len(tokens)} tokens: {tokens}"
            )
        record: list = []
        enc.segment(tokens[0], record)
        steps = tuple(GreedyMatch(start, tried, match, match if match is not None else tokens[0][start],
                                  tuple(enc.piece_ids(match if match is not None else tokens[0][start])))
                      for start, tried, match in record)
        return SubwordWalkthrough(word, tokens[0], steps, k)

    def decode(self, ids, step=None) -> str:
        """Text from ids, as TFDS's ``decode`` (trailing padding dropped). ``ids`` may be a
        :class:`SubwordEncoding`: then its own step's vocabulary decodes it."""
        if isinstance(ids, SubwordEncoding):
            ids, step = ids.ids, ids.step if step is None else step
        if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
            raise TypeError(f"ids must be a list of int, got {type(ids).__name__}")
        ids = list(ids)
        enc = self._encoder(step)
        for i in ids:
            if isinstance(i, bool) or not isinstance(i, int):
                raise TypeError(f"ids must be a list of int, got {type(i).__name__} {i!r}")
            if not 0 <= i < enc.vocab_size:
                raise ValueError(f"ids: {i} is not an id of this vocabulary (0..{enc.vocab_size - 1})")
        return enc.decode(ids)

    # -- words ---------------------------------------------------------------------------------------
    def describe(self) -> str:
        """The search in plain lines.

        Example::

            >>> from bpe_viz.engine.subword_text_encoder import train_subword_text_encoder
            >>> words = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
            >>> print(train_subword_text_encoder(words, 265).describe())
            SubwordTextEncoder (TFDS build_from_corpus): target vocab size 265, 5 distinct tokens, max_subword_length 20
              step 0: min_count 8 (interval 4..12): vocab sizes 263 -> 260 -> 260 -> 260; 260 <= 265: try a lower min_count
              step 1: min_count 5 (interval 4..7): vocab sizes 268 -> 261 -> 261 -> 261; 261 <= 265: try a lower min_count
              step 2: min_count 4 (interval 4..4): vocab sizes 269 -> 262 -> 262 -> 262; stop: the interval is used up  <- chosen
            chosen: step 2, 5 subwords + padding + 256 bytes = 262 ids
        """
        head = (f"SubwordTextEncoder (TFDS build_from_corpus): target vocab size {self.target_vocab_size}, "
                f"{len(self.token_counts)} distinct tokens, max_subword_length {self.max_subword_length}")
        if self.reserved_tokens:
            head += ", reserved tokens " + " ".join(self.reserved_tokens)
        lines = [head, *("  " + s.describe() for s in self.steps)]
        lines.append(f"chosen: step {self.chosen}, {len(self.subwords)} subwords + padding + 256 bytes "
                     f"= {self.vocab_size} ids")
        return "\n".join(lines)

    def __repr__(self):
        return (f"<SubwordTextEncoderTrace: {len(self.steps)} search steps, chosen step {self.chosen} "
                f"(min_count {self.steps[self.chosen].min_count}): {len(self.subwords)} subwords, "
                f"vocab_size {self.vocab_size} (target {self.target_vocab_size})>")
