"""The Unigram language model (Kudo 2018): start from many candidate pieces and prune them.

BPE and WordPiece build a vocabulary bottom up, one merge at a time. Unigram goes the other way:
it starts from a large *seed* vocabulary (every character plus many frequent substrings), gives
each piece a probability, and then, round by round, removes the pieces the corpus misses least.
A word is cut into the pieces whose probabilities multiply to the most (the Viterbi
segmentation); the corpus *loss* is ``sum(count * -log P(word))``; a piece's *removal loss* is
how much that loss would grow without it. Single characters are never removed, so every word
can still be cut.

Two flavours, each exact against its source:

* ``flavour="hf-course"``: the Hugging Face course, chapter 6, section 7, as its code runs.
  Seeds are every character plus the ``seed_size`` (300) most frequent substrings of length 2 or
  more (whole words included), or the pieces you pass as ``initial_vocab``. A piece's
  probability is its substring frequency over the total, computed once (no EM). Each round
  removes the 10 % of pieces whose removal raises the loss least (``sorted`` is stable, so among
  equal losses the earlier piece goes first) and stops when at most ``vocab_size`` pieces are
  left (the course's loop: ``vocab_size=100`` ends at 98) or a round would remove nothing.
  The course's ``encode_word`` starts every word's score at 1 instead of 0, so the losses it
  prints are one higher per word than the definition: ``snapshot.loss`` is the definition,
  ``snapshot.course_loss`` the printed figure (removal losses are differences, the same either
  way).
* ``flavour="sentencepiece"``: SentencePiece's unigram trainer as **sentencepiece 0.2.3**
  ships it (``unigram_model_trainer.cc``; 0.2.0 differs: its seeds come from a character suffix
  array, and it stops before pruning). Each line is a sentence (``normalization_rule_name=
  "identity"``); rare characters become unknown (``character_coverage``). Seeds are the
  substrings that repeat in the UTF-8 text and branch there (the nodes of its suffix tree), at
  most 16 characters, valid pieces only (see :func:`~bpe_viz.engine.bpe.sentencepiece.valid_piece`),
  scored frequency x length, with the characters first. A round runs two EM steps (expected
  counts by forward-backward; pieces expected less than 0.5 times are dropped; the M-step uses
  ``digamma(count) - digamma(total)``), then prunes: a piece whose own best cut splits it, or
  that no word uses, goes; the others are ranked by how much likelihood the corpus loses if each
  occurrence is cut the piece's second-best way, and the top ``max(1.1 x vocab_size, 0.75 x
  size)`` stay. At the end, pieces that can never win are dropped, the required characters are
  put back and the best-scoring pieces fill ``vocab_size``; ids are ``<unk> <s> </s>`` then the
  pieces by score.

The trace keeps every round: ``trace[0]`` is the seed vocabulary, ``trace[k]`` the vocabulary
after round ``k`` with what decided it (``removal_losses``, ``removed``). Reading a round only
reads stored data; a word's segmentation at a round is worked out when first asked for.

Example (the course's toy corpus, with its 15 seed pieces)::

    >>> toy = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    >>> seeds = ["h", "u", "g", "hu", "ug", "p", "pu", "n", "un", "b", "bu", "s", "hug", "gs", "ugs"]
    >>> t = train_unigram(toy, vocab_size=12, initial_vocab=seeds)
    >>> round(t[0].loss, 1), t[0].segmentation["pug"], t[0].segmentation.tied("pug")
    (169.8, ('p', 'ug'), True)
    >>> round(t[1].removal_losses["hug"], 1), [r.piece for r in t[1].removed]
    (23.5, ['hu'])
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from ..text.pretokenize import SentencePieceSpace
from ..text.scripts import ANY_SCRIPT, NOT_CHARACTERS, f32 as _f32, f32_all as _f32_all, required_characters, script_of

__all__ = ["FLAVOURS", "train_unigram", "UnigramTrace", "UnigramSnapshot", "Removed", "UnigramEncoding",
           "UnigramWalkthrough", "metaspace_words"]

#: the flavours :func:`train_unigram` knows
FLAVOURS = ("hf-course", "sentencepiece")

MARK = "\u2581"  # ▁ : "a space was here"
UNK_CHAR = "\u2585"  # ▅ : SentencePiece's stand-in for a character it does not keep
UNK_PENALTY = 10.0  # an unknown character scores the lowest piece's score minus this
SP_META = ("<unk>", "<s>", "</s>")


def _digamma(x: float) -> float:
    """The digamma function, by the recurrence and asymptotic series SentencePiece uses."""
    result = 0.0
    while x < 7:
        result -= 1 / x
        x += 1
    x -= 0.5
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    return result + math.log(x) + xx2 / 24.0 - 7.0 / 960.0 * xx4 + 31.0 / 8064.0 * xx4 * xx2 - 127.0 / 30720.0 * xx4 * xx4


def _logaddexp(x: float, y: float) -> float:
    if x < y:
        x, y = y, x
    if y == -math.inf or x > y + 50:  # SentencePiece's cut-off: exp(-50) is nothing
        return x
    return x + math.log1p(math.exp(y - x))


# -- pre-tokenization ---------------------------------------------------------------------------

def metaspace_words(text: str) -> list[str]:
    """Cut text as Hugging Face's ``Metaspace`` pre-tokenizer does (``prepend_scheme="always"``):
    each space becomes ``▁``, a ``▁`` is put in front, and a word starts at every ``▁``.

    Example::

        >>> metaspace_words("This is the Hugging Face Course.")
        ['▁This', '▁is', '▁the', '▁Hugging', '▁Face', '▁Course.']
    """
    s = text.replace(" ", MARK)
    if not s:
        return []
    if not s.startswith(MARK):
        s = MARK + s
    out, start = [], 0
    for i in range(1, len(s)):
        if s[i] == MARK:
            out.append(s[start:i])
            start = i
    out.append(s[start:])
    return out


def _sentences(corpus, argname="corpus") -> list[str]:
    """Text -> its lines; a list of sentences as given. (Mappings are handled by the callers.)"""
    if isinstance(corpus, str):
        return corpus.split("\n")
    if isinstance(corpus, (bytes, bytearray)):
        raise TypeError(f"{argname} must be text (str), a list of sentences or a mapping word -> count; "
                        f"got bytes: decode it first, e.g. data.decode('utf-8')")
    if isinstance(corpus, Iterable):
        out = []
        for s in corpus:
            if not isinstance(s, str):
                raise TypeError(f"{argname}: every sentence must be a str, got {type(s).__name__} {s!r}")
            out.append(s)
        return out
    raise TypeError(f"{argname} must be text (str), a list of sentences or a mapping word -> count, "
                    f"got {type(corpus).__name__}")


def _word_count_items(corpus, argname="corpus") -> list[tuple[str, int]]:
    out = []
    for w, c in corpus.items():
        if not isinstance(w, str) or not w:
            raise ValueError(f"{argname}: every word must be a non-empty str, got {w!r}")
        if isinstance(c, bool) or not isinstance(c, int) or c < 1:
            raise ValueError(f"{argname}: the count of {w!r} must be a positive int, got {c!r}")
        out.append((w, c))
    return out


# -- Viterbi ------------------------------------------------------------------------------------

def _best_cut(word: str, score_of, maxlen: int, start: float = 0.0, unk=None, exclude=None,
              table: list | None = None):
    """The best segmentation of ``word``: ``(pieces, score, tied)``, maximizing the sum of scores.

    ``score_of``: piece -> score (``dict.get``); ``unk``: the score of an unknown character where
    no single-character piece exists (``None``: such a word has no segmentation, ``(None, None,
    False)``); ``exclude``: a piece to leave out. Candidates are met by start position, shorter
    first, and the first strictly better one wins, as both sources' loops do; ``tied`` says a
    later candidate equalled the winner somewhere on the path. ``table`` (a list) receives, for
    each prefix, ``(best score, start of its last piece, tied)``.
    """
    n = len(word)
    best = [None] * (n + 1)
    back = [0] * (n + 1)
    tie = [False] * (n + 1)
    best[0] = start
    for s in range(n):
        base = best[s]
        if base is None:
            continue
        single = False
        for e in range(s + 1, min(n, s + maxlen) + 1):
            p = word[s:e]
            if p == exclude:
                continue
            sc = score_of(p)
            if sc is None:
                continue
            if e == s + 1:
                single = True
            cand = base + sc
            cur = best[e]
            if cur is None or cand > cur:
                best[e], back[e], tie[e] = cand, s, False
            elif cand == cur:
                tie[e] = True
        if not single and unk is not None:
            cand = base + unk
            cur = best[s + 1]
            if cur is None or cand > cur:
                best[s + 1], back[s + 1], tie[s + 1] = cand, s, False
            elif cand == cur:
                tie[s + 1] = True
    if table is not None:
        table.extend(zip(best[1:], back[1:], tie[1:]))
    if best[n] is None:
        return None, None, False
    pieces, e, tied = [], n, False
    while e > 0:
        s = back[e]
        tied = tied or tie[e]
        pieces.append(word[s:e])
        e = s
    pieces.reverse()
    return tuple(pieces), best[n], tied


# -- the trace ----------------------------------------------------------------------------------

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
    trace: "UnigramTrace | None" = field(default=None, repr=False)

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
    def segmentation(self) -> "_Segmentation":
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


class UnigramTrace:
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
        snap = self._snap(k)
        index = snap.__dict__.get("_index")
        if index is None:
            index = snap.__dict__["_index"] = {t: i for i, t in enumerate(snap.id_to_token)}
        return index.get(token)

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
    def _unk_score(self, snap):
        if self.flavour != "sentencepiece" or not snap.pieces:
            return None
        lo = snap.__dict__.get("_min")
        if lo is None:
            lo = snap.__dict__["_min"] = min(snap.pieces.values())
        return _f32(lo - UNK_PENALTY)

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
            pieces, score, tied = _course_cut(word, neg, self._maxlen(snap), 0.0, table=table)
            return pieces, (None if score is None else -score), tied
        return _best_cut(word, snap.pieces.get, self._maxlen(snap), 0.0, self._unk_score(snap), table=table)

    # -- encoding (called by bpe_viz.encode / encode_word / decode) --
    def _split(self, text):
        if self.flavour == "sentencepiece":
            return [(MARK + w, span) for w, span in SentencePieceSpace().split(text)]
        out, pos = [], 0
        for line in text.split("\n"):  # each line a sentence, as in training
            for w in metaspace_words(line):
                body = w[1:] if w.startswith(MARK) else w
                start = text.find(body, pos) if body else pos
                start = pos if start < 0 else start
                out.append((w, (start, start + len(body))))
                pos = start + len(body)
        return out

    def _encode(self, text: str, k: int | None = None) -> "UnigramEncoding":
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        snap = self._snap(k)
        index = snap.__dict__.get("_index")
        if index is None:
            index = snap.__dict__["_index"] = {t: i for i, t in enumerate(snap.id_to_token)}
        words, spans, entries = [], [], []
        split = self._split(text)
        if self.flavour == "sentencepiece":
            # SentencePiece cuts a whole line at once: its running 32-bit sums carry across words,
            # which decides exact ties, so the line is cut as one string and shared out again
            maxlen, unk = self._maxlen(snap), self._unk_score(snap)
            i, line_end = 0, -1
            for line in text.split("\n"):
                line_end += len(line) + 1
                j = i
                while j < len(split) and split[j][1][0] < line_end:
                    j += 1
                if j == i:
                    continue
                pieces = _sp_encode_word("".join(w for w, _ in split[i:j]), snap.pieces, maxlen, unk)
                at = 0
                for w, span in split[i:j]:
                    mine, taken = [], 0
                    while taken < len(w):
                        mine.append(pieces[at])
                        taken += len(pieces[at])
                        at += 1
                    words.append(w)
                    spans.append(span)
                    entries.append((mine, [index.get(p, 0) for p in mine]))
                i = j
            return UnigramEncoding(text, self, snap.round, words, spans, entries)
        for w, span in split:
            words.append(w)
            spans.append(span)
            pieces = self._cut(w, snap)[0] or ("<unk>",)
            entries.append((list(pieces), [index.get(p, 0) for p in pieces]))
        return UnigramEncoding(text, self, snap.round, words, spans, entries)

    def _encode_word(self, word: str, k: int | None = None) -> "UnigramWalkthrough":
        if not isinstance(word, str) or not word:
            raise ValueError(f"word must be a non-empty str, got {word!r}")
        snap = self._snap(k)
        if self.flavour == "sentencepiece" and not word.startswith(MARK):
            word = MARK + word  # SentencePiece puts the space marker in front of every word
        table: list = []
        pieces, score, tied = self._cut(word, snap, table)
        rows = []
        for end, (best, start, tie) in enumerate(table, 1):
            if best is None:
                rows.append((word[:end], None, None, False))
                continue
            cut = self._cut(word[:end], snap)[0]
            value = -best if self.flavour == "hf-course" else best
            rows.append((word[:end], cut, value, tie))
        return UnigramWalkthrough(word, snap.round, tuple(rows), pieces, score, tied, self.flavour)

    def _decode(self, ids) -> str:
        toks = self.id_to_token
        if isinstance(ids, UnigramEncoding):  # decoded with the round it was encoded with
            toks = self[ids.num_merges].id_to_token
            ids = ids.ids
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


def _course_cut(word, neg, maxlen, start, exclude=None, table=None):
    """The course's ``encode_word``: scores are ``-log p`` and the lowest sum wins, the first found
    among equals kept. That is :func:`_best_cut` on the negated scores (IEEE negation is exact,
    so every sum and comparison is the course's). Returns (pieces, score, tied)."""
    get = neg.get

    def score_of(p):
        sc = get(p)
        return None if sc is None else -sc

    inner = [] if table is not None else None
    pieces, score, tied = _best_cut(word, score_of, maxlen, -start, exclude=exclude, table=inner)
    if table is not None:
        table.extend((None if b is None else -b, back, tie) for b, back, tie in inner)
    return pieces, (None if score is None else -score), tied


def _sp_encode_word(word, scores, maxlen, unk):
    """SentencePiece's encoder on one ``▁word`` (or a line of them): Viterbi in 32-bit floats (as
    ``EncodeOptimized`` adds them), an unknown character scoring ``unk``, a run of unknown
    characters one piece."""
    n = len(word)
    best = [None] * (n + 1)
    back = [0] * (n + 1)
    isunk = [False] * (n + 1)
    best[0] = 0.0
    get = scores.get
    F = array("f", [0.0])  # a 32-bit float cell: sums round as the C++ rounds them
    for s in range(n):
        base = best[s]
        single = False
        for e in range(s + 1, min(n, s + maxlen) + 1):
            sc = get(word[s:e])
            if sc is None:
                continue
            if e == s + 1:
                single = True
            F[0] = sc + base
            cand = F[0]
            cur = best[e]
            if cur is None or cand > cur:
                best[e], back[e], isunk[e] = cand, s, False
        if not single:
            F[0] = unk + base
            cand = F[0]
            cur = best[s + 1]
            if cur is None or cand > cur:
                best[s + 1], back[s + 1], isunk[s + 1] = cand, s, True
    pieces, e = [], n
    while e > 0:
        s = back[e]
        if isunk[e] and pieces and pieces[-1][1]:
            pieces[-1] = (word[s:e] + pieces[-1][0], True)  # a run of unknowns is one piece
        else:
            pieces.append((word[s:e], isunk[e]))
        e = s
    pieces.reverse()
    return tuple(p for p, _ in pieces)


class UnigramEncoding:
    """The result of ``encode(text, unigram_trace)``: parallel lists, one entry per token
    (``pieces``, ``ids``, ``tokens``, ``unknown``, ``word_ids``), and the words."""

    def __init__(self, text, trace, round_, words, spans, entries):
        self.text = text
        self.trace = trace
        self.num_merges = round_
        self.words = words
        self.word_spans = spans
        self._entries = entries
        self.pieces = [p for e in entries for p in e[0]]
        self.ids = [i for e in entries for i in e[1]]
        toks = trace[round_].id_to_token
        self.tokens = [toks[i] for i in self.ids]
        self.unknown = [i == 0 for i in self.ids]
        self.word_ids = [wi for wi, e in enumerate(entries) for _ in e[1]]

    def word_pieces(self) -> list[list[str]]:
        return [list(e[0]) for e in self._entries]

    def walkthrough(self, i: int) -> "UnigramWalkthrough":
        if not 0 <= i < len(self.words):
            raise IndexError(f"word index {i} out of range: the text has {len(self.words)} words")
        return self.trace._encode_word(self.words[i], self.num_merges)

    def __len__(self):
        return len(self.ids)

    def __repr__(self):
        return f"UnigramEncoding(tokens={self.tokens!r}, ids={self.ids!r})"


@dataclass(frozen=True)
class UnigramWalkthrough:
    """How Viterbi cut one word: for each prefix, its best segmentation and score.

    ``prefixes``: ``(prefix, best pieces, log-probability, tied)`` per prefix; ``tied``: another
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


# -- hf-course ----------------------------------------------------------------------------------

def _course_rounds(word_counts: dict, vocab_size: int, seed_size: int, initial_vocab, callback):
    if initial_vocab is None:
        char_freqs: dict = {}
        sub: dict = {}
        for word, freq in word_counts.items():
            for i in range(len(word)):
                char_freqs[word[i]] = char_freqs.get(word[i], 0) + freq
                for j in range(i + 2, len(word) + 1):
                    sub[word[i:j]] = sub.get(word[i:j], 0) + freq
        ranked = sorted(sub.items(), key=lambda x: x[1], reverse=True)  # stable: first seen first
        token_freqs = dict([*char_freqs.items(), *ranked[:max(0, seed_size - len(char_freqs))]])
    else:
        token_freqs = {}
        for p in initial_vocab:
            n = sum(f * _occurrences(w, p) for w, f in word_counts.items())
            if n == 0:
                raise ValueError(f"initial_vocab: the piece {p!r} never occurs in the corpus")
            token_freqs[p] = n
        missing = sorted({c for w in word_counts for c in w} - set(token_freqs))
        if missing:
            raise ValueError(f"initial_vocab must hold every character of the corpus (single characters are never "
                             f"removed, so every word can be cut); missing: {' '.join(missing[:20])}")
    chars = sum(1 for t in token_freqs if len(t) == 1)
    if vocab_size < chars:
        raise ValueError(f"vocab_size must be at least the {chars} characters of the corpus (single characters are "
                         f"never removed), got {vocab_size}")
    words = list(word_counts.items())

    def model_of(freqs):
        total = sum([f for f in freqs.values()])
        return {t: -math.log(f / total) for t, f in freqs.items()}, total

    def cut_all(neg, maxlen, start):
        return [_course_cut(w, neg, maxlen, start) for w, _ in words]

    def snapshot(k, freqs, neg, total, cuts1, **kw):
        loss0 = 0.0
        course = 0
        for (w, f), (_, s1, _) in zip(words, cuts1):
            course += f * s1
        for (w, f) in words:
            loss0 += f * _course_cut(w, neg, maxlen_of(neg), 0.0)[1]
        return UnigramSnapshot(k, {t: f / total for t, f in freqs.items()}, loss0, course_loss=course, **kw)

    def maxlen_of(neg):
        return max(map(len, neg), default=1)

    neg, total = model_of(token_freqs)
    cuts = cut_all(neg, maxlen_of(neg), 1)
    rounds = [snapshot(0, token_freqs, neg, total, cuts, note="seeds")]
    stop = "no corpus" if not words else "vocab_size reached"
    while len(neg) > vocab_size:
        maxlen = maxlen_of(neg)
        model_loss = 0
        for (w, f), c in zip(words, cuts):
            model_loss += f * c[1]
        users: dict = {}
        for i, c in enumerate(cuts):
            for p in set(c[0]):
                users.setdefault(p, []).append(i)
        scores = {}
        for token in neg:
            if len(token) == 1:
                continue  # the course always keeps single characters
            changed = {i: _course_cut(words[i][0], neg, maxlen, 1, exclude=token)[1] for i in users.get(token, ())}
            loss = 0
            for i, ((w, f), c) in enumerate(zip(words, cuts)):
                loss += f * changed.get(i, c[1])
            scores[token] = loss - model_loss
        ranked = sorted(scores.items(), key=lambda x: x[1])
        n_remove = min(int(len(neg) * 0.1), len(ranked))
        if n_remove == 0:
            stop = "nothing left to remove" if not ranked else "a round would remove no piece"
            break
        cut_value = ranked[n_remove - 1][1]
        tied_cut = n_remove < len(ranked) and ranked[n_remove][1] == cut_value
        removed = tuple(Removed(t, s, tied_cut and s == cut_value, "lowest removal loss") for t, s in ranked[:n_remove])
        kept_at_cut = tuple(t for t, s in ranked[n_remove:] if tied_cut and s == cut_value)
        for t, _ in ranked[:n_remove]:
            token_freqs.pop(t)
        neg, total = model_of(token_freqs)
        cuts = cut_all(neg, maxlen_of(neg), 1)
        rounds.append(snapshot(len(rounds), token_freqs, neg, total, cuts, removal_losses=scores, removed=removed,
                               kept_at_cut=kept_at_cut))
        if callback is not None:
            callback(len(rounds) - 1, len(neg))
    return rounds, stop


def _occurrences(word: str, piece: str) -> int:
    """Occurrences of ``piece`` in ``word``, overlapping ones included (as the course counts)."""
    n, i = 0, word.find(piece)
    while i >= 0:
        n += 1
        i = word.find(piece, i + 1)
    return n


# -- sentencepiece ------------------------------------------------------------------------------

def _sp_lines(corpus, argname="corpus") -> list[str]:
    if isinstance(corpus, Mapping):
        return [w for w, n in _word_count_items(corpus, argname) for _ in range(n)]
    return _sentences(corpus, argname)


def _sp_normalized(lines: list[str]) -> list[str]:
    """The sentences SentencePiece trains on, in its order: each kept line as ``▁w1▁w2...``.

    Lines it skips (over 4,192 bytes, holding ``▅``) are left out; ``<unk>``, ``<s>`` and ``</s>``
    read as spaces; a line that normalizes to nothing is removed the way the C++ removes it
    (swapped with the last one), which moves the last sentence.
    """
    out = []
    for line in lines:
        if not line or "\u2585" in line or len(line.encode("utf-8", "surrogatepass")) > SentencePieceSpace.MAX_LINE_BYTES:
            continue
        if "<" in line:
            line = line.replace("<unk>", " ").replace("<s>", " ").replace("</s>", " ")
        words = [w for w in line.split(" ") if w]
        out.append("".join(MARK + w for w in words))
    i = 0
    while i < len(out):
        if not out[i]:
            out[i] = out[-1]
            out.pop()
        else:
            i += 1
    return out


_FIRST_BYTE: dict = {}


def _first_byte(ch: str) -> int:
    b = _FIRST_BYTE.get(ch)
    if b is None:
        b = _FIRST_BYTE[ch] = ch.encode("utf-8", "surrogatepass")[0]
    return b


def _sp_seeds(sentences: list[str], max_len: int, seed_size: int = 1_000_000):
    """The seed pieces (longer than one character) and their frequencies, as sentencepiece 0.2.3
    finds them: the nodes of the suffix tree of the UTF-8 text (every sentence followed by a NUL
    byte) that are valid pieces, counted by how often they occur.

    A substring is a node when it occurs twice or more and the bytes after its occurrences are
    not all the same. A node ``piece + NUL`` (the piece ends several sentences, one of them the
    last) counts for the piece too, once more (the C++ trims the NUL and adds the counts).
    """
    # every sentence is a run of ▁-words; a piece never crosses a ▁ after its first character
    words: Counter = Counter()
    for s in sentences:
        parts = s.split(MARK)[1:]
        last = len(parts) - 1
        for i, w in enumerate(parts):
            words[(MARK + w, i == last)] += 1
    stats: dict = {}
    for (word, at_end), m in words.items():
        n = len(word)
        after_word = 0 if at_end else _first_byte(MARK)
        for i in range(n):
            prev = ANY_SCRIPT
            for j in range(i, min(n, i + max_len)):
                ch = word[j]
                if ch == MARK:
                    if j > i:
                        break
                else:
                    if ch in NOT_CHARACTERS or ch == UNK_CHAR:
                        break
                    sc = script_of(ch)
                    if sc == "INHERITED":
                        sc = prev
                    if prev is not ANY_SCRIPT and sc is not ANY_SCRIPT and sc != prev:
                        break
                    prev = sc
                if j == i:
                    continue
                piece = word[i:j + 1]
                nb = _first_byte(word[j + 1]) if j + 1 < n else after_word
                st = stats.get(piece)
                if st is None:
                    stats[piece] = [m, nb, False]
                else:
                    st[0] += m
                    if not st[2] and st[1] != nb:
                        st[2] = True
    freq = {p: st[0] for p, st in stats.items() if st[0] >= 2 and st[2]}
    if sentences:
        # pieces + NUL: suffixes of the very last sentence that end other sentences too
        last = sentences[-1].rsplit(MARK, 1)[-1]
        last = MARK + last
        ends: Counter = Counter()
        for (word, at_end), m in words.items():
            if at_end:
                ends[word] += m
        for i in range(len(last) - 1):
            piece = last[i:]
            if piece not in stats:
                continue  # not a valid piece
            n_end = sum(m for w, m in ends.items() if w.endswith(piece))
            if n_end >= 2:
                freq[piece] = freq.get(piece, 0) + n_end
    ranked = sorted(((p, _f32(float(f) * len(p))) for p, f in freq.items() if f >= 2),
                    key=lambda t: (-t[1], -len(t[0].encode("utf-8", "surrogatepass")), t[0]))
    return ranked[:seed_size]


class _SPModel:
    """The trainer's model: pieces in order with their (32-bit) scores. An unknown character is
    a node of id 0 (the trainer's model never sets its unknown id) scoring min - 10."""

    def __init__(self, pieces: list[tuple[str, float]]):
        self.pieces = pieces
        self.index = {p: (i, s) for i, (p, s) in enumerate(pieces)}
        self.maxlen = max((len(p) for p, _ in pieces), default=1)
        self.unk = _f32(min((s for _, s in pieces), default=0.0) - UNK_PENALTY)

    def nodes(self, word):
        """Lattice nodes (start, end, index, score), by start then length."""
        out = []
        get = self.index.get
        n = len(word)
        for s in range(n):
            single = False
            for e in range(s + 1, min(n, s + self.maxlen) + 1):
                hit = get(word[s:e])
                if hit is not None:
                    out.append((s, e, hit[0], hit[1]))
                    if e == s + 1:
                        single = True
            if not single:
                out.append((s, s + 1, 0, self.unk))
        return out

    def viterbi(self, word, nodes=None):
        """Best path as a list of node indexes into the model, and its score."""
        nodes = self.nodes(word) if nodes is None else nodes
        n = len(word)
        best = [None] * (n + 1)
        back = [None] * (n + 1)
        best[0] = 0.0
        for node in nodes:
            s, e, _, sc = node
            base = best[s]
            if base is None:
                continue
            cand = base + sc
            if best[e] is None or cand > best[e]:
                best[e], back[e] = cand, node
        path, e = [], n
        while e > 0:
            node = back[e]
            path.append(node)
            e = node[0]
        path.reverse()
        return path, best[n]


def _sp_two_best(word, model):
    """The best and second-best segmentations of a piece's own string (``Lattice::NBest(2)``),
    as lists of nodes; one entry when only one segmentation exists."""
    nodes = model.nodes(word)
    n = len(word)
    tops: list = [[] for _ in range(n + 1)]  # per end position: up to 2 (score, node, previous entry)
    tops[0] = [(0.0, None, None)]
    for node in nodes:
        s, e, _, sc = node
        for entry in tops[s]:
            cand = (entry[0] + sc, node, entry)
            cur = tops[e]
            if len(cur) < 2:
                cur.append(cand)
                cur.sort(key=lambda t: -t[0])
            elif cand[0] > cur[1][0]:
                cur[1] = cand
                cur.sort(key=lambda t: -t[0])
    out = []
    for entry in tops[n][:2]:
        path = []
        while entry[1] is not None:
            path.append(entry[1])
            entry = entry[2]
        path.reverse()
        out.append(path)
    return out


def _sp_rounds(sentences, vocab_size, coverage, max_len, sub_iterations, callback):
    # the alphabet: the characters covering `coverage` of the text; the others become ▅
    char_counts: Counter = Counter()
    for s in sentences:
        char_counts.update(s)
    required = required_characters({c: n for c, n in char_counts.items() if c not in NOT_CHARACTERS}, coverage)
    if vocab_size < len(required) + len(SP_META):
        raise ValueError(f"vocab_size must be at least {len(required) + len(SP_META)} (the {len(required)} characters "
                         f"this corpus needs plus <unk>, <s> and </s>), got {vocab_size}")
    keep = set(required)
    if len(keep) != len(char_counts):
        sentences = ["".join(c if c in keep else UNK_CHAR for c in s) for s in sentences]
    req_counts = {c: char_counts[c] for c in required}

    all_chars: Counter = Counter()
    for s in sentences:
        all_chars.update(s)
    all_chars.pop(UNK_CHAR, None)
    seeds = [(c, float(n)) for c, n in sorted(all_chars.items(), key=lambda t: (-t[1], t[0]))]
    seeds += _sp_seeds(sentences, max_len)
    logsum = math.log(sum(s for _, s in seeds))
    model = _SPModel(list(zip([p for p, _ in seeds], _f32_all(math.log(s) - logsum for _, s in seeds))))

    words: Counter = Counter()
    for s in sentences:
        for w in s.split(MARK)[1:]:
            words[MARK + w] += 1
    corpus = sorted(words.items(), key=lambda t: (-t[1], t[0]))
    desired = int(vocab_size * 1.1)

    def loss_of(m):
        total = 0.0
        for w, f in corpus:
            total -= f * m.viterbi(w)[1]
        return total

    rounds = [UnigramSnapshot(0, dict(model.pieces), loss_of(model), note="seeds")]
    while True:
        removed: list = []
        for _ in range(sub_iterations):
            model, dropped = _sp_em_step(model, corpus)
            removed += [Removed(p, None, False, "EM: expected count below 0.5") for p in dropped]
        model, em_removed, losses, kept_at_cut = _sp_prune(model, corpus, desired)
        removed += em_removed
        rounds.append(UnigramSnapshot(len(rounds), dict(model.pieces), loss_of(model), removal_losses=losses,
                                      removed=tuple(removed), kept_at_cut=kept_at_cut))
        if callback is not None:
            callback(len(rounds) - 1, len(model.pieces))
        if len(model.pieces) <= desired:
            break

    # the end: drop pieces that can never win, put the required characters back, fill vocab_size
    reachable, unreachable = [], []
    for p, s in model.pieces:
        path, alt = _unreachable_check(p, s, model)
        (unreachable if alt else reachable).append((p, s))
    model = _SPModel(reachable)
    final: dict = {}
    penalty = 0.0
    scores = dict(model.pieces)
    lo = min(scores.values())
    for c, _ in sorted(req_counts.items(), key=lambda t: (-t[1], t[0])):
        if c in scores:
            final[c] = scores[c]
        else:
            final[c] = _f32(lo + penalty)
            penalty = _f32(penalty + 0.0001)
    room = vocab_size - len(SP_META)
    for p, s in sorted(model.pieces, key=lambda t: (-t[1], t[0])):
        if p in final:
            continue
        if len(final) == room:
            break
        final[p] = s
    if len(final) + len(SP_META) != vocab_size:
        raise ValueError(f"vocab_size {vocab_size} is too high for this corpus: sentencepiece 0.2.3 accepts at most "
                         f"{len(final) + len(SP_META)} here")
    ordered = dict(sorted(final.items(), key=lambda t: (-t[1], t[0])))
    removed = [Removed(p, None, False, "can never win: its parts score higher") for p, _ in unreachable]
    removed += [Removed(p, None, False, "below the final cut") for p, _ in model.pieces if p not in ordered]
    last = _SPModel(list(ordered.items()))
    rounds.append(UnigramSnapshot(len(rounds), ordered, loss_of(last), removed=tuple(removed),
                                  note="final: unreachable pieces dropped, required characters back, best scores"))
    return rounds, corpus, req_counts


def _unreachable_check(piece, score, model):
    """Whether another cut of ``piece`` beats the piece itself (``PruneUnreachableSentencePieces``)."""
    me = model.index[piece][0]
    nodes = [nd for nd in model.nodes(piece) if not (nd[0] == 0 and nd[1] == len(piece) and nd[2] == me)]
    if len(piece) == 1 or not nodes:
        return None, False
    path, alt = model.viterbi(piece, nodes)
    return path, alt is not None and alt > score


def _sp_em_step(model, corpus):
    expected = [0.0] * len(model.pieces)
    for w, f in corpus:
        nodes = model.nodes(w)
        n = len(w)
        alpha = [-math.inf] * (n + 1)
        alpha[0] = 0.0
        for s, e, _, sc in nodes:
            alpha[e] = _logaddexp(alpha[e], alpha[s] + sc)
        beta = [-math.inf] * (n + 1)
        beta[n] = 0.0
        for s, e, _, sc in reversed(nodes):
            beta[s] = _logaddexp(beta[s], sc + beta[e])
        z = alpha[n]
        for s, e, i, sc in nodes:
            expected[i] += f * math.exp(alpha[s] + sc + beta[e] - z)
    expected = _f32_all(expected)
    kept, dropped = [], []
    total = 0.0
    for (p, _), x in zip(model.pieces, expected):
        if x < 0.5:
            dropped.append(p)
            continue
        kept.append((p, x))
        total += x
    dg = _f32(_digamma(_f32(total)))
    return _SPModel(list(zip([p for p, _ in kept], _f32_all(_digamma(x) - dg for _, x in kept)))), dropped


def _sp_prune(model, corpus, desired):
    pieces = model.pieces
    always_keep = [True] * len(pieces)
    alternatives: list = [[] for _ in pieces]
    for i, (p, _) in enumerate(pieces):
        nb = _sp_two_best(p, model)
        if len(nb) == 1:
            continue
        if len(nb[0]) >= 2:
            always_keep[i] = False
        elif len(nb[0]) == 1:
            alternatives[i] = [nd[2] for nd in nb[1]]
    freq = [0.0] * len(pieces)
    for w, f in corpus:
        for nd in model.viterbi(w)[0]:
            freq[nd[2]] += f
    total = _f32(sum(freq))
    logsum = _f32(math.log(total))
    kept, candidates, removed = [], [], []
    losses = {}
    for i, (p, s) in enumerate(pieces):
        if freq[i] == 0:
            removed.append(Removed(p, None, False, "no word's best cut uses it"))
        elif not always_keep[i]:
            removed.append(Removed(p, None, False, "its own best cut splits it"))
        elif not alternatives[i]:
            kept.append(i)
        else:
            fi = freq[i]
            logprob_sp = _f32(math.log(fi) - logsum)
            logsum_alt = _f32(math.log(_f32(total + _f32(fi * (len(alternatives[i]) - 1)))))
            logprob_alt = 0.0
            for n in alternatives[i]:
                logprob_alt = _f32(logprob_alt + (math.log(_f32(freq[n] + fi)) - logsum_alt))
            F = _f32(fi / total)
            loss = _f32(F * _f32(logprob_sp - logprob_alt))
            candidates.append((i, loss))
            losses[p] = loss
    pruned_size = max(desired, int(0.75 * len(pieces)))
    ranked = sorted(candidates, key=lambda t: (-t[1], t[0]))
    new = [pieces[i] for i in kept]
    taken = 0
    for i, _ in ranked:
        if len(new) == pruned_size:
            break
        new.append(pieces[i])
        taken += 1
    rest = ranked[taken:]
    cut_value = ranked[taken - 1][1] if taken else None
    tied_cut = bool(rest) and cut_value is not None and rest[0][1] == cut_value
    removed += [Removed(pieces[i][0], loss, tied_cut and loss == cut_value, "lowest likelihood loss") for i, loss in rest]
    kept_at_cut = tuple(pieces[i][0] for i, loss in ranked[:taken] if tied_cut and loss == cut_value)
    return _SPModel(new), removed, losses, kept_at_cut


# -- the entry point ----------------------------------------------------------------------------

def train_unigram(corpus, vocab_size: int = 100, *, flavour: str = "hf-course", seed_size: int = 300,
                  initial_vocab=None, character_coverage: float = 0.9995, max_piece_length: int = 16,
                  num_sub_iterations: int = 2, callback=None) -> UnigramTrace:
    """Train a Unigram LM vocabulary and keep every round (see the module docstring).

    ``corpus``: text (each line a sentence), a list of sentences, or a mapping word -> count
    (hf-course: the words as the course's pre-tokenizer made them, ``▁`` included; sentencepiece:
    each word is a line of its own, ``count`` times). ``flavour``: ``"hf-course"`` or
    ``"sentencepiece"``. hf-course options: ``seed_size`` (300), ``initial_vocab`` (a list of
    pieces instead of the seeds found). sentencepiece options: ``character_coverage``,
    ``max_piece_length``, ``num_sub_iterations``. ``callback(round, size)`` is called after each
    round (for a progress bar).

    Example::

        >>> t = train_unigram("low low low lower lowest newest newest widest", vocab_size=17, flavour="sentencepiece")
        >>> t.id_to_token[:6]
        ['<unk>', '<s>', '</s>', '▁low', 'est', '▁']
    """
    if not isinstance(flavour, str) or flavour not in FLAVOURS:
        raise ValueError(f"flavour must be one of {', '.join(map(repr, FLAVOURS))}, got {flavour!r}")
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int, got {type(vocab_size).__name__} {vocab_size!r}")
    if vocab_size < 1:
        raise ValueError(f"vocab_size must be at least 1, got {vocab_size}")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be a function (round, size) or None, got {type(callback).__name__}")
    if flavour == "hf-course":
        if isinstance(seed_size, bool) or not isinstance(seed_size, int) or seed_size < 1:
            raise ValueError(f"seed_size must be a positive int, got {seed_size!r}")
        if initial_vocab is not None:
            if isinstance(initial_vocab, str) or not isinstance(initial_vocab, Iterable):
                raise TypeError(f"initial_vocab must be a list of pieces, got {type(initial_vocab).__name__}")
            initial_vocab = list(initial_vocab)
            bad = [p for p in initial_vocab if not isinstance(p, str) or not p]
            if bad:
                raise ValueError(f"initial_vocab: every piece must be a non-empty str, got {bad[0]!r}")
        if isinstance(corpus, Mapping):
            wc = dict(_word_count_items(corpus))
        else:
            wc = {}
            for s in _sentences(corpus):
                for w in metaspace_words(s):
                    wc[w] = wc.get(w, 0) + 1
        rounds, stop = _course_rounds(wc, vocab_size, seed_size, initial_vocab, callback)
        options = dict(seed_size=seed_size, initial_vocab=initial_vocab)
        return UnigramTrace(flavour, wc, rounds, vocab_size=vocab_size, stop_reason=stop, options=options)

    if initial_vocab is not None:
        raise ValueError("initial_vocab is an hf-course option; sentencepiece finds its own seeds")
    if isinstance(character_coverage, bool) or not isinstance(character_coverage, (int, float)) \
            or not 0 < character_coverage <= 1:
        raise ValueError(f"character_coverage must be a number in (0, 1], got {character_coverage!r}")
    if isinstance(max_piece_length, bool) or not isinstance(max_piece_length, int) or max_piece_length < 1:
        raise ValueError(f"max_piece_length must be a positive int, got {max_piece_length!r}")
    if isinstance(num_sub_iterations, bool) or not isinstance(num_sub_iterations, int) or num_sub_iterations < 1:
        raise ValueError(f"num_sub_iterations must be a positive int, got {num_sub_iterations!r}")
    sentences = _sp_normalized(_sp_lines(corpus))
    options = dict(character_coverage=float(character_coverage), max_piece_length=max_piece_length,
                   num_sub_iterations=num_sub_iterations)
    if not sentences:
        empty = UnigramSnapshot(0, {}, 0.0, note="no corpus")
        return UnigramTrace(flavour, {}, [empty], vocab_size=vocab_size, stop_reason="no corpus", options=options)
    rounds, corpus_words, _ = _sp_rounds(sentences, vocab_size, float(character_coverage), max_piece_length,
                                         num_sub_iterations, callback)
    return UnigramTrace(flavour, dict(corpus_words), rounds, vocab_size=vocab_size, stop_reason="vocab_size reached",
                        options=options)
