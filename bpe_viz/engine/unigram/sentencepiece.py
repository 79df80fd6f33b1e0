"""Unigram training as sentencepiece 0.2.3's trainer runs it (``flavour="sentencepiece"``).

``unigram_model_trainer.cc`` as **sentencepiece 0.2.3** ships it (0.2.0 differs: its seeds
come from a character suffix array, and it stops before pruning). Each line is a sentence
(``normalization_rule_name="identity"``), carried with a weight: a mapping's word count is how
many lines it stands for, never written out; rare characters become unknown
(``character_coverage``). Seeds are the substrings that repeat in the UTF-8 text and branch
there (the nodes of its suffix tree), at most 16 characters, valid pieces only (see
:func:`~bpe_viz.engine.text.scripts.valid_piece`), scored frequency x length, with the
characters first. A round runs two EM steps (expected counts by forward-backward; pieces
expected less than 0.5 times are dropped; the M-step uses ``digamma(count) - digamma(total)``),
then prunes: a piece whose own best cut splits it, or that no word uses, goes; the others are
ranked by how much likelihood the corpus loses if each occurrence is cut the piece's
second-best way, and the top ``max(1.1 x vocab_size, 0.75 x size)`` stay. At the end, pieces
that can never win are dropped, the required characters are put back and the best-scoring
pieces fill ``vocab_size``; ids are ``<unk> <s> </s>`` then the pieces by score.

Its sibling :mod:`.course` is the Hugging Face course's simpler recipe (no EM, 10 % a round);
the lattice both walk is :mod:`.lattice` (:class:`~.lattice.SPModel` and
:class:`~.lattice.SPCorpus` here); the seeds are counted in numpy by :mod:`.flat_seeds` (a few
words, or a hash collision, by :func:`_seed_stats` in Python).

Example::

    >>> sentences = sp_normalized(sp_lines("low low low lower\\nnewest widest"))
    >>> sentences
    [('▁low▁low▁low▁lower', 1), ('▁newest▁widest', 1)]
    >>> rounds, corpus, required = sp_rounds(sentences, 14, 0.9995, 16, 2, None)
    >>> [len(r.pieces) for r in rounds], rounds[-1].note[:6]
    ([17, 9, 11], 'final:')
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping

from ..text.pretokenize import SentencePieceSpace
from ..text.scripts import (
    MARK,
    NOT_CHARACTERS,
    f32,
    f32_all,
    required_characters,
    script_of,
)
from .flat_seeds import seed_stats
from .lattice import SPCorpus, SPModel
from .trace import SP_META, Removed, UnigramSnapshot
from .words import sentences as read_sentences
from .words import word_count_items

__all__ = ["sp_lines", "sp_normalized", "sp_rounds"]

UNK_CHAR = "\u2585"  # ▅ : SentencePiece's stand-in for a character it does not keep


def _digamma(x: float) -> float:
    """The digamma function, by the recurrence and asymptotic series SentencePiece uses."""
    result = 0.0
    while x < 7:
        if x == 0:  # C++'s 1 / 0.0 is infinity (every piece's expected count fell below 0.5)
            return -math.inf
        result -= 1 / x
        x += 1
    x -= 0.5
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    return result + math.log(x) + xx2 / 24.0 - 7.0 / 960.0 * xx4 + 31.0 / 8064.0 * xx4 * xx2 - 127.0 / 30720.0 * xx4 * xx4


# -- the corpus as sentencepiece reads it --------------------------------------------------------
# subtle: a sentence comes with a weight (how many lines it stands for): a mapping word -> count
# is ``count`` lines of that word, and a count of 10**9 must not become 10**9 strings. Only the
# multiset of sentences and which one comes last decide the training, so runs keep both.

def sp_lines(corpus, argname="corpus") -> list[tuple[str, int]]:
    """The corpus argument as ``(line, how many times)`` runs, in order: text by line, a list as
    given (once each), a mapping word -> count as each word on a line of its own, ``count`` times.

    Example::

        >>> sp_lines({"low": 2, "lower": 1}), sp_lines("a b\\nc")
        ([('low', 2), ('lower', 1)], [('a b', 1), ('c', 1)])
    """
    if isinstance(corpus, Mapping):
        return word_count_items(corpus, argname)
    return [(line, 1) for line in read_sentences(corpus, argname)]


def sp_normalized(lines: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The sentences SentencePiece trains on, in its order, as ``(▁w1▁w2..., weight)`` runs.

    Lines it skips (over 4,192 bytes, holding ``▅``) are left out; ``<unk>``, ``<s>`` and ``</s>``
    read as spaces; a line that normalizes to nothing is removed the way the C++ removes it
    (swapped with the last one), which moves the last sentence.
    """
    out = []
    for line, n in lines:
        if not line or UNK_CHAR in line or len(line.encode("utf-8", "surrogatepass")) > SentencePieceSpace.MAX_LINE_BYTES:
            continue
        if "<" in line:
            line = line.replace("<unk>", " ").replace("<s>", " ").replace("</s>", " ")
        words = [w for w in line.split(" ") if w]
        out.append(("".join(MARK + w for w in words), n))
    return _drop_empty(out)


def _drop_empty(runs: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Remove the empty sentences as the C++ does, one line at a time: scanning from the front,
    an empty one is overwritten by the last line, which is popped (``[A, "", B, C] -> [A, C, B]``).

    With ``m`` non-empty lines, the first ``m`` positions stay and their holes take, in order,
    the non-empty lines after position ``m``, last one first; so runs are cut at ``m``.
    """
    m = sum(n for s, n in runs if s)
    head, tail, pos = [], [], 0
    for s, n in runs:
        if pos + n <= m:
            head.append((s, n))
        elif pos >= m:
            tail.append((s, n))
        else:
            head.append((s, m - pos))
            tail.append((s, pos + n - m))
        pos += n
    fill = [[s, n] for s, n in reversed(tail) if s]  # taken from the end
    out, j = [], 0
    for s, n in head:
        if s:
            out.append((s, n))
            continue
        while n:  # n holes in a row take n lines from the end
            take = min(n, fill[j][1])
            out.append((fill[j][0], take))
            fill[j][1] -= take
            n -= take
            if not fill[j][1]:
                j += 1
    return out


_FIRST_BYTE: dict = {}


def _first_byte(ch: str) -> int:
    b = _FIRST_BYTE.get(ch)
    if b is None:
        b = _FIRST_BYTE[ch] = ch.encode("utf-8", "surrogatepass")[0]
    return b


# -- seeds ---------------------------------------------------------------------------------------

def _split_words(s: str) -> list[str]:
    """A sentence's words as sentencepiece's ``SplitIntoWords`` makes them: a word starts at the
    sentence's start and at every ``▁`` (a sentence whose ``▁`` became ``▅`` is one word)."""
    parts = s.split(MARK)
    words = [MARK + w for w in parts[1:]]
    if parts[0]:
        words.insert(0, parts[0])
    return words


_BREAK = "break"  # the script code of a character no piece may hold


_CODES: dict = {}  # a character -> its script, or _BREAK when no piece may hold it (▁ aside)


def _code(ch: str) -> str:
    code = _CODES[ch] = _BREAK if ch in NOT_CHARACTERS or ch == UNK_CHAR else script_of(ch)
    return code


def _piece_ends(word: str, max_len: int) -> list[int]:
    """For each start ``i``, where the valid pieces starting there end at the latest (exclusive):
    a ``▁`` only first, no ``▅`` or control character, one script (a combining mark takes the
    script before it), at most ``max_len`` characters.

    Read from the right: a piece starting at ``i`` runs until the next character no piece
    holds, or the next character of another script than its first scripted one."""
    n = len(word)
    body = word[1:] if word.startswith(MARK) else word
    if MARK not in body:  # the common case first: one script throughout
        kinds = {_CODES.get(ch) or _code(ch) for ch in set(body)}
        if len(kinds) <= 1 and _BREAK not in kinds:
            return [min(n, i + max_len) for i in range(n)]
    codes = [_CODES.get(ch) or _code(ch) for ch in word]
    if MARK in word[1:]:
        codes = [_BREAK if j and ch == MARK else c for j, (ch, c) in enumerate(zip(word, codes))]
    ends = [0] * n
    stop = n  # the next character no piece holds
    first = None  # the next scripted character before it: (its script, where the script changes)
    for j in range(n - 1, -1, -1):
        sc = codes[j]
        if sc is _BREAK:
            stop, first = j, None
            ends[j] = j
            continue
        if sc != "INHERITED":
            change = stop if first is None else (first[1] if first[0] == sc else first[2])
            first = (sc, change, j)
        ends[j] = stop if first is None else first[1]
    if word.startswith(MARK):
        ends[0] = ends[1] if n > 1 else 1
    return [min(e, i + max_len) for i, e in enumerate(ends)]


def _word_counts(sentences: list[tuple[str, int]]) -> tuple[Counter, Counter]:
    """How often each word (``SplitIntoWords``) occurs inside a sentence, and how often last."""
    inner: Counter = Counter()
    last: Counter = Counter()
    for s, weight in sentences:
        parts = _split_words(s)
        if weight == 1:
            inner.update(parts[:-1])
            last[parts[-1]] += 1
        else:
            for w in parts[:-1]:
                inner[w] += weight
            last[parts[-1]] += weight
    return inner, last


def _seeds(words: tuple[Counter, Counter], last_sentence: str | None, max_len: int, seed_size: int = 1_000_000):
    """The seed pieces (longer than one character) and their frequencies, as sentencepiece 0.2.3
    finds them: the nodes of the suffix tree of the UTF-8 text (every sentence followed by a NUL
    byte) that are valid pieces, counted by how often they occur. ``words``: from
    :func:`_word_counts`; ``last_sentence``: the corpus's last sentence.

    A substring is a node when it occurs twice or more and the bytes after its occurrences are
    not all the same. A node ``piece + NUL`` (the piece ends several sentences, one of them the
    last) counts for the piece too, once more (the C++ trims the NUL and adds the counts).
    """
    inner, last = words
    vocab = list(inner.keys() | last.keys())
    ends = [_piece_ends(word, max_len) for word in vocab]
    got = None
    if len(vocab) > 64:  # numpy: every substring at once
        got = seed_stats(vocab, [inner.get(w, 0) for w in vocab], [last.get(w, 0) for w in vocab], ends,
                         _first_byte(MARK))
    freq, valid = got if got is not None else _seed_stats(vocab, inner, last, ends)
    if last_sentence is not None:
        _count_last_ends(last_sentence, last, valid, freq)
    ranked = sorted(((p, f32(float(f) * len(p))) for p, f in freq.items() if f >= 2),
                    key=lambda t: (-t[1], -len(t[0].encode("utf-8", "surrogatepass")), t[0]))
    return ranked[:seed_size]


def _seed_stats(vocab, inner, last, ends):
    """:func:`~.flat_seeds.seed_stats` in Python, word by word: ``(freq, valid)``."""
    # every sentence is a run of words; a piece never crosses a word's start. A word is read
    # once: after its end comes a ``▁`` (inside a sentence) or a NUL (last), both when it is both
    stats: dict = {}
    get = stats.get
    mark_byte = _first_byte(MARK)
    for word, word_ends in zip(vocab, ends):
        m_inner, m_last = inner.get(word, 0), last.get(word, 0)
        m = m_inner + m_last
        nexts = [_FIRST_BYTE.get(ch) or _first_byte(ch) for ch in word[1:]]
        nexts.append(mark_byte if m_inner else 0)  # the byte after word[j] is nexts[j]
        for i, end in enumerate(word_ends):
            for j in range(i + 2, end + 1):
                piece = word[i:j]
                st = get(piece)
                if st is None:
                    stats[piece] = [m, nexts[j - 1], False]
                else:
                    st[0] += m
                    if not st[2] and st[1] != nexts[j - 1]:
                        st[2] = True
        if m_inner and m_last:  # the word's ends are followed by both
            n = len(word)
            for i in range(n - 1):
                if word_ends[i] == n:
                    stats[word[i:]][2] = True
    return {p: st[0] for p, st in stats.items() if st[0] >= 2 and st[2]}, stats


def _count_last_ends(sentence: str, last_words: Counter, valid, freq: dict) -> None:
    """The nodes ``piece + NUL``: suffixes of the very last sentence that end other sentences
    too (each counted once more, into ``freq``); ``valid``: every valid piece the words hold."""
    last = _split_words(sentence)[-1]
    shared = [0] * (len(last) + 1)  # shared[k]: how many sentences end with last's last k characters
    for word, m in last_words.items():
        k = 0
        for a, b in zip(reversed(word), reversed(last)):
            if a != b:
                break
            k += 1
        shared[k] += m
    for k in range(len(last) - 1, -1, -1):  # at least k characters in common
        shared[k] += shared[k + 1]
    for i in range(len(last) - 1):
        piece = last[i:]
        n_end = shared[len(piece)]
        if piece in valid and n_end >= 2:
            freq[piece] = freq.get(piece, 0) + n_end


def _char_counts(sentences: list[tuple[str, int]]) -> Counter:
    """How often each character occurs in the weighted sentences."""
    counts: Counter = Counter()
    for s, weight in sentences:
        if weight == 1:
            counts.update(s)
        else:
            for c, k in Counter(s).items():
                counts[c] += k * weight
    return counts


def _alphabet(sentences, vocab_size, coverage):
    """The characters covering ``coverage`` of the text (the others become ▅ in the sentences),
    and their counts; a ``vocab_size`` too small for them is refused."""
    char_counts = _char_counts(sentences)
    required = required_characters({c: n for c, n in char_counts.items() if c not in NOT_CHARACTERS}, coverage)
    if vocab_size < len(required) + len(SP_META):
        raise ValueError(f"vocab_size must be at least {len(required) + len(SP_META)} (the {len(required)} characters "
                         f"this corpus needs plus <unk>, <s> and </s>), got {vocab_size}")
    keep = set(required)
    if len(keep) != len(char_counts):
        rare = {c for c in char_counts if c not in keep}
        table = str.maketrans({c: UNK_CHAR for c in rare})
        sentences = [(s if rare.isdisjoint(s) else s.translate(table), n) for s, n in sentences]
    return sentences, {c: char_counts[c] for c in required}


def _seed_model(sentences, words, max_len, char_counts) -> SPModel:
    """The characters (most frequent first; ``char_counts``: those the sentences hold, ``▅``
    aside), then the seeds, scored ``log(score / total)``."""
    seeds = [(c, float(n)) for c, n in sorted(char_counts.items(), key=lambda t: (-t[1], t[0]))]
    seeds += _seeds(words, sentences[-1][0] if sentences else None, max_len)
    logsum = math.log(sum(s for _, s in seeds))
    return SPModel(list(zip([p for p, _ in seeds], f32_all(math.log(s) - logsum for _, s in seeds))))


def _word_corpus(words: tuple[Counter, Counter]) -> list[tuple[str, int]]:
    """The words (``SplitIntoWords``) and their counts, most frequent first."""
    inner, last = words
    total = inner.copy()
    total.update(last)
    return sorted(total.items(), key=lambda t: (-t[1], t[0]))


# -- the rounds ----------------------------------------------------------------------------------

def sp_rounds(sentences, vocab_size, coverage, max_len, sub_iterations, callback):
    """The rounds (seeds, one per EM-and-prune round, the final layout), the ``▁``-words with
    their counts, and the required characters with theirs. ``sentences``: ``(sentence, weight)``
    runs from :func:`sp_normalized`, at least one."""
    sentences, req_counts = _alphabet(sentences, vocab_size, coverage)
    words = _word_counts(sentences)
    model = _seed_model(sentences, words, max_len, req_counts)
    corpus = _word_corpus(words)
    lattices = SPCorpus(corpus, model)
    desired = int(vocab_size * 1.1)
    rounds = [UnigramSnapshot(0, dict(model.pieces), lattices.loss(), note="seeds")]
    while True:
        removed: list = []
        for _ in range(sub_iterations):
            model, dropped = _em_step(lattices)
            removed += [Removed(p, None, False, "EM: expected count below 0.5") for p in dropped]
        model, em_removed, losses, kept_at_cut = _prune(lattices, desired)
        removed += em_removed
        rounds.append(UnigramSnapshot(len(rounds), dict(model.pieces), lattices.loss(), removal_losses=losses,
                                      removed=tuple(removed), kept_at_cut=kept_at_cut))
        if callback is not None:
            callback(len(rounds) - 1, len(model.pieces))
        if len(model.pieces) <= desired:
            break
    rounds.append(_final_round(len(rounds), lattices, req_counts, vocab_size))
    return rounds, corpus, req_counts


def _final_round(k, lattices, req_counts, vocab_size) -> UnigramSnapshot:
    """The end: drop pieces that can never win, put the required characters back, fill vocab_size."""
    model = lattices.model
    reachable, unreachable = [], []
    _, _, alt_scores = lattices.piece_cuts()  # PruneUnreachableSentencePieces: another cut beats the piece
    for (p, s), alt in zip(model.pieces, alt_scores):
        (unreachable if len(p) > 1 and alt > s else reachable).append((p, s))
    model = SPModel(reachable)
    final: dict = {}
    penalty = 0.0
    scores = dict(model.pieces)
    lo = min(scores.values())
    for c, _ in sorted(req_counts.items(), key=lambda t: (-t[1], t[0])):
        if c in scores:
            final[c] = scores[c]
        else:
            final[c] = f32(lo + penalty)
            penalty = f32(penalty + 0.0001)
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
    lattices.update(SPModel(list(ordered.items())))
    return UnigramSnapshot(k, ordered, lattices.loss(), removed=tuple(removed),
                           note="final: unreachable pieces dropped, required characters back, best scores")


def _em_step(lattices):
    """One EM step: expected counts (E), pieces under 0.5 dropped, digamma scores (M); the
    lattices move to the new model, which is returned with the dropped pieces."""
    model = lattices.model
    expected = f32_all(lattices.expected())
    kept, dropped = [], []
    total = 0.0
    for (p, _), x in zip(model.pieces, expected):
        if x < 0.5:
            dropped.append(p)
            continue
        kept.append((p, x))
        total += x
    dg = f32(_digamma(f32(total)))
    model = SPModel(list(zip([p for p, _ in kept], f32_all(_digamma(x) - dg for _, x in kept))))
    lattices.update(model)
    return model, dropped


def _prune(lattices, desired):
    """Keep the pieces that lose the corpus the most likelihood when cut their second-best way;
    the lattices move to the new model."""
    model = lattices.model
    pieces = model.pieces
    splits, alternatives, _ = lattices.piece_cuts()  # each piece's two best cuts (NBest(2))
    always_keep = [not x for x in splits]
    freq = lattices.freq()
    total = f32(sum(freq))
    logsum = f32(math.log(total))
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
            logprob_sp = f32(math.log(fi) - logsum)
            logsum_alt = f32(math.log(f32(total + f32(fi * (len(alternatives[i]) - 1)))))
            logprob_alt = 0.0
            for n in alternatives[i]:
                logprob_alt = f32(logprob_alt + (math.log(f32(freq[n] + fi)) - logsum_alt))
            F = f32(fi / total)
            loss = f32(F * f32(logprob_sp - logprob_alt))
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
    model = SPModel(new)
    lattices.update(model)
    return model, removed, losses, kept_at_cut
