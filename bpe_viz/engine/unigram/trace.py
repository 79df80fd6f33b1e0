"""A Unigram training run kept round by round, and what it answers: encodings, walkthroughs.

The trace keeps every round: ``trace[0]`` is the seed vocabulary, ``trace[k]`` the vocabulary
after round ``k`` with what decided it (``removal_losses``, ``removed``). Reading a round only
reads stored data; a word's segmentation at a round is worked out when first asked for (with
:mod:`.lattice`). The trainers (:mod:`.course`, :mod:`.sentencepiece`) make the rounds; this
file only stores and reads them. :class:`UnigramTrace` is a
:class:`~bpe_viz.engine.protocol.Tokenizer`: ``encode``, ``encode_word`` and ``decode`` take a
round where the merge families take a number of merges.

Example::

    >>> from bpe_viz.engine.unigram import train_unigram
    >>> t = train_unigram("hug hug pug pun pun bun hugs", vocab_size=12)
    >>> e = t.encode("hugs pun", 0)
    >>> e.pieces, t.decode(e), t.encode("hugs pun").pieces
    (['▁hugs', '▁pun'], 'hugs pun', ['▁hug', 's', '▁pun'])
    >>> print(t.encode_word("▁bun").describe())
    '▁bun' at round 12: the best cut of every prefix
      ▁: ▁  (P = 0.194444)
      ▁b: ▁ b  (P = 0.00540123)
      ▁bu: ▁ b u  (P = 0.00105024)
      ▁bun: ▁bun  (P = 0.0277778)
      -> ▁bun
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, compress, count, repeat
from operator import add, itemgetter
from typing import NamedTuple

from ..protocol import Tokenizer, check_plain_encode
from ..text.pretokenize import SentencePieceSpace
from ..text.scripts import MARK, f32
from .lattice import UNK_PENALTY, PrefixCuts, best_cut, course_cut
from .sp_encoder import sp_encode_text
from .words import metaspace_words

__all__ = ["SP_META", "Removed", "UnigramSnapshot", "UnigramTrace", "UnigramEncoding", "UnigramWalkthrough"]

SP_META = ("<unk>", "<s>", "</s>")  # sentencepiece's first ids


class Removed(NamedTuple):
    """One piece a round removed: ``loss`` is its removal loss (``None`` when it went for another
    ``reason``); ``tied``: its loss equals that of a piece the round kept (the cut went through a
    tie, and the order among equals decided)."""

    piece: str
    loss: float | None
    tied: bool
    reason: str


@dataclass(eq=False)
class UnigramSnapshot:
    """The vocabulary after one round (``trace[k]``), and what decided that round.

    ``pieces``: piece -> probability (hf-course) or log-probability score (sentencepiece), in the
    vocabulary's order; ``loss``: ``sum(count * -log P(word))`` over the corpus, each word cut
    its best way; ``removal_losses``: piece -> how much the corpus loses without it, as this
    round computed it (what decided the pruning; empty for the seeds); ``removed``: the pieces
    this round removed (:class:`Removed`); ``kept_at_cut``: pieces the round kept whose loss
    equals that of a removed one; ``segmentation``: word -> its best segmentation now.
    """

    round: int
    pieces: dict
    loss: float
    removal_losses: dict = field(default_factory=dict)
    removed: tuple = ()
    kept_at_cut: tuple = ()
    note: str = ""
    #: the course's printed loss (its words start at score 1); ``None`` for sentencepiece
    course_loss: float | None = None
    trace: UnigramTrace | None = field(default=None, repr=False)

    @property
    def scores(self) -> dict:
        """piece -> log-probability (what Viterbi adds up)."""
        cache = self.__dict__.get("_scores")
        if cache is None:
            if self.trace is not None and self.trace.flavour == "hf-course":
                cache = {p: math.log(q) for p, q in self.pieces.items()}
            else:
                cache = self.pieces
            self.__dict__["_scores"] = cache
        return cache

    @property
    def segmentation(self) -> _Segmentation:
        seg = self.__dict__.get("_segmentation")
        if seg is None:
            seg = self.__dict__["_segmentation"] = _Segmentation(self)
        return seg

    @property
    def id_to_token(self) -> list[str]:
        """The vocabulary in id order at this round (see :attr:`UnigramTrace.id_to_token`)."""
        ids = self.__dict__.get("_ids")
        if ids is None:
            ids = self.__dict__["_ids"] = self.trace._layout(self)
        return ids

    def __len__(self) -> int:
        return len(self.pieces)

    def __repr__(self):
        return (f"<UnigramSnapshot round {self.round}: {len(self.pieces)} pieces, loss {self.loss:.2f}, "
                f"{len(self.removed)} removed>")


class _Segmentation(Mapping):
    """word -> best segmentation at one round, worked out per word when asked for."""

    def __init__(self, snap):
        self._snap = snap
        self._done: dict = {}

    def __getitem__(self, word):
        got = self._done.get(word)
        if got is None:
            if word not in self._snap.trace.word_counts:
                raise KeyError(word)
            got = self._done[word] = self._snap.trace._cut(word, self._snap)[0]
        return got

    def __iter__(self):
        return iter(self._snap.trace.word_counts)

    def __len__(self):
        return len(self._snap.trace.word_counts)

    def tied(self, word) -> bool:
        """Whether another segmentation of ``word`` scores exactly as well (the first found is kept)."""
        return self._snap.trace._cut(word, self._snap)[2]


class UnigramTrace(Tokenizer):
    """Every round of one Unigram training run: ``trace[0]`` the seeds, ``trace[k]`` after round k.

    ``word_counts``: the words training saw (with ``▁`` where a space was) and their counts;
    ``stop_reason``: why training ended; ``id_to_token``: the final vocabulary in id order
    (sentencepiece: ``<unk> <s> </s>`` then the pieces by score; hf-course: ``<unk>`` then the
    pieces in the course's order).
    """

    def __init__(self, flavour, word_counts, rounds, *, vocab_size, stop_reason, options):
        self.flavour = flavour
        self.word_counts = word_counts
        self.rounds = rounds
        self.vocab_size = vocab_size
        self.stop_reason = stop_reason
        self.options = options
        for s in rounds:
            s.trace = self

    def __len__(self) -> int:
        return len(self.rounds)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return self.rounds[k]
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(f"round must be an int, got {type(k).__name__} {k!r}")
        if not -len(self.rounds) <= k < len(self.rounds):
            raise IndexError(f"round {k} out of range: this trace has rounds 0 to {len(self.rounds) - 1}")
        return self.rounds[k]

    def __iter__(self):
        return iter(self.rounds)

    @property
    def final(self) -> UnigramSnapshot:
        return self.rounds[-1]

    @property
    def id_to_token(self) -> list[str]:
        return self.final.id_to_token

    @property
    def unk_token(self) -> str:
        return "<unk>"

    def token_to_id(self, token: str, k: int | None = None) -> int | None:
        """``token``'s id at round ``k`` (the last by default), ``None`` when it is not a piece then."""
        return self._index(self._snap(k)).get(token)

    @staticmethod
    def _index(snap) -> dict:
        index = snap.__dict__.get("_index")
        if index is None:
            index = snap.__dict__["_index"] = {t: i for i, t in enumerate(snap.id_to_token)}
        return index

    def _layout(self, snap) -> list[str]:
        if self.flavour == "sentencepiece":
            order = sorted(snap.pieces.items(), key=lambda t: (-t[1], t[0]))
            return [*SP_META, *(p for p, _ in order)]
        return ["<unk>", *snap.pieces]

    def _snap(self, k) -> UnigramSnapshot:
        if k is None:
            return self.rounds[-1]
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(f"num_merges (the round) must be an int or None, got {type(k).__name__} {k!r}")
        if not 0 <= k < len(self.rounds):
            raise ValueError(f"num_merges (the round) must be between 0 and {len(self.rounds) - 1} "
                             f"(the rounds this trace has), got {k}")
        return self.rounds[k]

    # -- one word at one round --
    def unk_score(self, snapshot) -> float | None:
        """The score of a character no piece holds at ``snapshot`` (sentencepiece: the lowest
        piece's score minus 10, in 32 bits; with no piece at all, -10); ``None`` for hf-course,
        where such a word has no cut."""
        if self.flavour != "sentencepiece":
            return None
        lo = snapshot.__dict__.get("_min")
        if lo is None:
            lo = snapshot.__dict__["_min"] = min(snapshot.pieces.values(), default=0.0)
        return f32(lo - UNK_PENALTY)

    def _maxlen(self, snap) -> int:
        m = snap.__dict__.get("_maxlen")
        if m is None:
            m = snap.__dict__["_maxlen"] = max(map(len, snap.pieces), default=1)
        return m

    def _cut(self, word, snap, table=None):
        """(pieces, log-probability, tied) of ``word`` at ``snap``."""
        if self.flavour == "hf-course":
            neg = snap.__dict__.get("_neg")
            if neg is None:
                neg = snap.__dict__["_neg"] = {p: -math.log(q) for p, q in snap.pieces.items()}
            pieces, score, tied = course_cut(word, neg, self._maxlen(snap), 0.0, table=table)
            return pieces, (None if score is None else -score), tied
        return best_cut(word, snap.pieces.get, self._maxlen(snap), 0.0, self.unk_score(snap), table=table)

    # -- the Tokenizer protocol (bpe_viz.encode / encode_word / decode ask these) --
    @staticmethod
    def _split(text):
        """hf-course's words and their spans (sentencepiece's: :meth:`_cut_lines`)."""
        out, pos = [], 0
        for line in text.split("\n"):  # each line a sentence, as in training
            for w in metaspace_words(line):
                body = w[1:] if w.startswith(MARK) else w
                start = text.find(body, pos) if body else pos
                start = pos if start < 0 else start
                out.append((w, (start, start + len(body))))
                pos = start + len(body)
        return out

    def encode(self, text: str, step: int | None = None, **options) -> UnigramEncoding:
        """``text`` cut into pieces with round ``step``'s vocabulary (the last by default), each
        word its best way. ``allowed_special`` is accepted and changes nothing (there are no
        special tokens); the merge families' other options are refused."""
        check_plain_encode(self, text, options)
        snap = self._snap(step)
        index = self._index(snap)
        if self.flavour == "sentencepiece":
            return self._cut_lines(text, snap, index)
        split = self._split(text)
        words, spans, entries = [], [], []
        cut: dict = {}  # a word met again is cut once and shares its entry (as _cut_lines shares them)
        for w, span in split:
            words.append(w)
            spans.append(span)
            entry = cut.get(w)
            if entry is None:
                pieces = self._cut(w, snap)[0] or ("<unk>",)
                entry = cut[w] = (list(pieces), [index.get(p, 0) for p in pieces])
            entries.append(entry)
        return UnigramEncoding(text, self, snap.round, words, spans, entries)

    def _cut_lines(self, text, snap, index) -> UnigramEncoding:
        """``text`` encoded as SentencePiece cuts a whole line at once, its running 32-bit sums
        carrying across words, which decides exact ties (:func:`~.sp_encoder.sp_encode_text`
        gives each word's share)."""
        tokens, cuts = sp_encode_text(text, snap.pieces, self._maxlen(snap), self.unk_score(snap))
        return UnigramEncoding._from_tokens(text, self, snap.round, tokens, cuts, index)

    def encode_word(self, word: str, step: int | None = None) -> UnigramWalkthrough:
        """How Viterbi cuts ``word`` at round ``step`` (the last by default): every prefix's best cut."""
        if not isinstance(word, str) or not word:
            raise ValueError(f"word must be a non-empty str, got {word!r}")
        snap = self._snap(step)
        if self.flavour == "sentencepiece" and not word.startswith(MARK):
            word = MARK + word  # SentencePiece puts the space marker in front of every word
        table: list = []
        pieces, score, tied = self._cut(word, snap, table)
        rows = PrefixCuts(word, table, -1.0 if self.flavour == "hf-course" else 1.0)
        return UnigramWalkthrough(word, snap.round, rows, pieces, score, tied, self.flavour)

    def decode(self, ids) -> str:
        """Ids (or a :class:`UnigramEncoding`, decoded with its own round) back to text; ``<unk>``
        comes back as `` ⁇ ``, as SentencePiece writes it."""
        toks = self.id_to_token
        if isinstance(ids, UnigramEncoding):  # decoded with the round it was encoded with
            toks = self[ids.num_merges].id_to_token
            ids = ids.ids
        elif isinstance(ids, (str, bytes, bytearray)) or not hasattr(ids, "__iter__"):
            raise TypeError(f"ids must be a list of int token ids or an encoding of this tokenizer, "
                            f"got {type(ids).__name__} {ids!r}")
        out = []
        for i in ids:
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(toks):
                raise ValueError(f"ids: {i!r} is not an id of this vocabulary (0 to {len(toks) - 1})")
            t = toks[i]
            if t == "<unk>":
                out.append(" \u2047 ")
            elif t in ("<s>", "</s>"):
                continue
            else:
                out.append(t)
        text = "".join(out).replace(MARK, " ")
        return text[1:] if text.startswith(" ") else text

    def describe(self) -> str:
        o = self.options
        if self.flavour == "hf-course":
            seeds = "the pieces given" if o.get("initial_vocab") else f"characters + the {o['seed_size']} most frequent substrings"
            return (f"Unigram LM, the Hugging Face course's code: seeds {seeds}; probabilities = frequencies "
                    f"(no EM); each round removes 10% of the pieces (lowest removal loss first) until at most "
                    f"{self.vocab_size} remain")
        return (f"Unigram LM, sentencepiece 0.2.3 (identity normalization): {o['num_sub_iterations']} EM steps "
                f"per round, keep max(1.1 x vocab_size, 0.75 x size), character_coverage "
                f"{o['character_coverage']:g}, vocab_size {self.vocab_size}")

    def __repr__(self):
        return (f"<UnigramTrace {self.flavour}: {len(self.rounds) - 1} rounds, {len(self.rounds[0].pieces)} seeds -> "
                f"{len(self.final.pieces)} pieces ({self.stop_reason})>")


class UnigramEncoding:
    """The result of ``encode(text, unigram_trace)``: parallel lists, one entry per token
    (``pieces``, ``ids``, ``tokens``, ``unknown``, ``word_ids``, ``offsets``), and the words.

    ``offsets``: ``(start, end)`` character spans in the text, as the merge families give them:
    the ``▁`` in front of a word covers no character (a ``▁`` alone has an empty span at the
    word's start), and an unknown word of the hf-course flavour (one ``<unk>``) covers the word.
    """

    def __init__(self, text, trace, round_, words, spans, entries):
        """``entries``: ``(pieces, ids)`` of each word; ``spans``: each word's ``(start, end)``."""
        self.text = text
        self.trace = trace
        self.num_merges = round_
        self.words = words
        self.word_spans = spans
        self._cuts = list(map(itemgetter(0), entries))
        self.pieces = list(chain.from_iterable(self._cuts))
        self.ids = list(chain.from_iterable(map(itemgetter(1), entries)))

    @classmethod
    def _from_tokens(cls, text, trace, round_, tokens, cuts, index) -> UnigramEncoding:
        """The encoding of ``text`` split into ``tokens`` (its words without their ``▁``, a
        ``"\\n"`` between lines: :meth:`~bpe_viz.engine.text.pretokenize.SentencePieceSpace.flat_words`)
        cut into ``cuts`` (a pieces tuple per token), ids from ``index`` (``<unk>``'s 0 for no
        piece); the words and their spans are made when first read."""
        self = cls.__new__(cls)
        self.text, self.trace, self.num_merges = text, trace, round_
        self._tokens, self._token_cuts = tokens, cuts
        self.pieces = list(chain.from_iterable(cuts))
        self.ids = list(map(index.get, self.pieces, repeat(0)))
        return self

    # made when first read: most callers want only the pieces or the ids
    @cached_property
    def words(self) -> list[str]:
        return list(map(MARK.__add__, compress(self._tokens, map("\n".__ne__, self._tokens))))

    @cached_property
    def _cuts(self) -> list[tuple]:
        return list(compress(self._token_cuts, map("\n".__ne__, self._tokens)))

    @cached_property
    def word_spans(self) -> list[tuple[int, int]]:
        starts = SentencePieceSpace().split_flat(self.text)[1]  # each word's span: its characters after the "▁"
        return list(zip(starts, map(add, starts, map((-1).__add__, map(len, self.words)))))

    @cached_property
    def tokens(self) -> list[str]:
        return list(map(self.trace[self.num_merges].id_to_token.__getitem__, self.ids))

    @cached_property
    def unknown(self) -> list[bool]:
        return list(map((0).__eq__, self.ids))

    @cached_property
    def word_ids(self) -> list[int]:
        return list(chain.from_iterable(map(repeat, count(), map(len, self._cuts))))

    def word_pieces(self) -> list[list[str]]:
        return list(map(list, self._cuts))

    @cached_property
    def offsets(self) -> list[tuple[int, int]]:
        out = []
        for word, (start, end), pieces in zip(self.words, self.word_spans, self._cuts):
            if "".join(pieces) != word:  # hf-course: a word with no cut is one <unk>
                out.extend((start, end) for _ in pieces)
                continue
            pos = start - (len(word) - (end - start))  # the "▁" in front is in no text span
            for p in pieces:
                out.append((min(max(pos, start), end), min(max(pos + len(p), start), end)))
                pos += len(p)
        return out

    def walkthrough(self, i: int) -> UnigramWalkthrough:
        if not 0 <= i < len(self.words):
            raise IndexError(f"word index {i} out of range: the text has {len(self.words)} words")
        return self.trace.encode_word(self.words[i], self.num_merges)

    def __len__(self):
        return len(self.ids)

    def __repr__(self):
        return f"UnigramEncoding(tokens={self.tokens!r}, ids={self.ids!r})"


@dataclass(frozen=True)
class UnigramWalkthrough:
    """How Viterbi cut one word: for each prefix, its best segmentation and score.

    ``prefixes``: ``(prefix, best pieces, log-probability, tied)`` per prefix (a
    :class:`~bpe_viz.engine.unigram.lattice.PrefixCuts`: each row is read from Viterbi's one
    table when asked for); ``tied``: another
    cut of that prefix scored exactly the same (the first found was kept). ``final``: the word's
    pieces; ``score``: its log-probability (:attr:`course_score`: as the course prints it).
    """

    word: str
    round: int
    prefixes: tuple
    final: tuple | None
    score: float | None
    tied: bool
    flavour: str

    def probability(self, score) -> float:
        """A log-probability as a probability."""
        return math.exp(score)

    @property
    def course_score(self) -> float | None:
        """The score the course's ``encode_word`` prints: ``-log P`` plus the 1 it starts from."""
        return None if self.score is None or self.flavour != "hf-course" else 1 - self.score

    def describe(self) -> str:
        lines = [f"{self.word!r} at round {self.round}: the best cut of every prefix"]
        for prefix, cut, score, tied in self.prefixes:
            if cut is None:
                lines.append(f"  {prefix}: no cut")
                continue
            lines.append(f"  {prefix}: {' '.join(cut)}  (P = {self.probability(score):.6g})" + ("  tie!" if tied else ""))
        lines.append(f"  -> {' '.join(self.final) if self.final else '<unk>'}")
        return "\n".join(lines)
