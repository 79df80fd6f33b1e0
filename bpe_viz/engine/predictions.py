"""Predict before you see: four kinds of question a lesson asks at the moment they matter, each
answered by what the engine then does, as one plain value, a :class:`Prediction`.

How it differs from its neighbours: :mod:`.merges.quiz` picks merges of one trace to ask about
(a whole quiz, ties first); this module asks *one* question of a given kind, about the word or
the step a lesson is at, and spells every kind the same way (a prompt, choices as strings, the
answer, a reason), so that one widget (:class:`~bpe_viz.widgets.Predict`) asks any of them:

* :func:`next_merge_question` — which pair does merge k take? (the quiz's question, one step);
* :func:`first_merge_question` — which merge does the encoder apply first to a new word?
* :func:`wordpiece_vs_bpe_question` — BPE merges (a, b) first; which pair does WordPiece pick?
* :func:`unigram_cut_question` — how does Unigram cut a word?
* :func:`pretokenize_question` — how does GPT-2's (or GPT-4's) pre-tokenizer cut a text?
* :func:`token_count_question` — how many tokens does a tokenizer make of a text?
* :func:`fewest_tokens_question` — which of several tokenizers needs the fewest tokens?

Example (Sennrich, Haddow & Birch 2016, Algorithm 1's dictionary)::

    >>> from bpe_viz import corpora, train_bpe
    >>> trace = train_bpe(corpora.load("sennrich2016"), 10)
    >>> q = first_merge_question(trace, "lowest")
    >>> q.prompt
    'Which merge does the encoder apply first to "lowest"?'
    >>> q.answer, q.answer_option, sorted(q.choices)
    ('(e, s)', ('e', 's'), ['(e, s)', '(l, o)', '(s, t)'])
"""

from __future__ import annotations

import heapq
import math
import random
import re
from dataclasses import dataclass, field

from .bpe import train_bpe
from .checks import check_int
from .merges.quiz import MAX_CHOICES, Question, quiz_questions
from .merges.trace import Trace
from .text.pretokenize import get_pre_tokenizer
from .text.scripts import MARK
from .unigram import UnigramTrace
from .wordpiece import train_wordpiece

__all__ = ["Prediction", "KINDS", "next_merge_question", "from_quiz_question", "first_merge_question", "wordpiece_vs_bpe_question",
           "unigram_cut_question", "best_cuts", "pretokenize_question", "token_count_question", "fewest_tokens_question"]

#: The kinds of question, in the order a course meets them.
KINDS = ("next_merge", "first_merge", "wordpiece_pick", "unigram_cut", "pre_tokens", "token_count", "fewest_tokens")
_AIM = 4  # choices a question offers unless told otherwise
_CONTEXT_ROWS = 12  # words (or pieces) listed in a question's context


@dataclass(frozen=True)
class Prediction:
    """One "predict before you see" question, whatever its kind.

    * ``kind``: one of :data:`KINDS`;
    * ``prompt``: the question, one sentence;
    * ``choices``: the buttons' labels (distinct strings, shuffled by the seed);
    * ``answer``: the right choice, one of ``choices``: what the engine does;
    * ``reason``: why, with the numbers the model compared (a rank, a score, log-probabilities);
    * ``options``: the value behind each choice (a pair, a cut as a tuple of pieces), in the
      order of ``choices``;
    * ``measures``: what the model ranked each choice by, in the order of ``choices`` (``None``
      for a choice the model never ranked, e.g. a pair that is no merge); ``measure``: its name;
    * ``context``: lines the learner reads before answering (the word's symbols, the words);
    * ``tokenizer``: the tokenizer asked about; ``detail``: the engine's record behind the
      question (the quiz Question, the word's walkthrough, the BPE trace compared with).
    """

    kind: str
    prompt: str
    choices: tuple[str, ...]
    answer: str
    reason: str
    options: tuple = ()
    measures: tuple = ()
    measure: str = ""
    context: tuple[str, ...] = ()
    tokenizer: object = field(default=None, compare=False, repr=False)
    detail: object = field(default=None, compare=False, repr=False)

    @property
    def answer_number(self) -> int:
        """The answer's number among the choices, from 1 (as the buttons are numbered)."""
        return self.choices.index(self.answer) + 1

    @property
    def answer_option(self):
        """The value behind the answer (a pair, a cut)."""
        return self.options[self.answer_number - 1]

    def is_right(self, choice) -> bool:
        """Whether ``choice`` (a label, or a number from 1) is the answer."""
        if isinstance(choice, int) and not isinstance(choice, bool):
            return 1 <= choice <= len(self.choices) and self.choices[choice - 1] == self.answer
        return choice == self.answer


# -- shared helpers --------------------------------------------------------------------------------


def _pair_text(pair) -> str:
    return f"({pair[0]}, {pair[1]})"


def _labels(options, label) -> tuple[str, ...]:
    """Distinct labels for ``options``: ``label(option)``, or their reprs if two would read alike
    (a pair ``("a, b", "c")`` beside ``("a", "b, c")``)."""
    texts = tuple(label(o) for o in options)
    return texts if len(set(texts)) == len(texts) else tuple(repr(o) for o in options)


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__} {seed!r:.60}")
    return seed


def _check_word(word) -> str:
    if not isinstance(word, str):
        raise TypeError(f"word must be a str, got {type(word).__name__} {word!r:.60}")
    if not word or any(c.isspace() for c in word):
        raise ValueError(f"word must be one word (not empty, no spaces), got {word!r:.60}")
    return word


def _build(kind, prompt, answer, ranked, reason, *, seed, measure, context, tokenizer, detail, label):
    """A :class:`Prediction` from ``ranked``: ``[(option, measure)]``, the answer among them;
    the choices shuffled with ``random.Random(seed)`` (the same seed, the same order)."""
    order = list(ranked)
    random.Random(seed).shuffle(order)
    options = tuple(o for o, _m in order)
    labels = _labels(options, label)
    return Prediction(kind=kind, prompt=prompt, choices=labels, answer=labels[options.index(answer)],
                      reason=reason, options=options, measures=tuple(m for _o, m in order), measure=measure,
                      context=tuple(context), tokenizer=tokenizer, detail=detail)


# -- which pair does merge k take? ---------------------------------------------------------------


def next_merge_question(trace, step: int, *, seed: int = 0, max_choices: int = MAX_CHOICES) -> Prediction:
    """"Which pair does merge ``step`` take?": the quiz's question on one merge
    (:func:`~bpe_viz.engine.merges.quiz.quiz_questions` with ``steps=[step]``), the words at the
    step before as its context. ``detail`` is the quiz's Question.

    Example::

        >>> from bpe_viz import corpora, train_bpe
        >>> q = next_merge_question(train_bpe(corpora.load("sennrich2016"), 10), 1)
        >>> q.answer, len(q.choices), q.reason.split(".")[0]
        ('(e, s)', 4, '3 pairs occur 9 times: (e, s), (s, t) and (t, </w>)')
    """
    return from_quiz_question(trace, quiz_questions(trace, seed=_check_seed(seed), steps=[step],
                                                    max_choices=max_choices)[0])


def from_quiz_question(trace, question) -> Prediction:
    """A question of the merge quiz (:func:`~bpe_viz.engine.merges.quiz.quiz_questions`) as a
    :class:`Prediction`, its choices in the same order.

    Example::

        >>> from bpe_viz import corpora, quiz_questions, train_bpe
        >>> trace = train_bpe(corpora.load("sennrich2016"), 10)
        >>> quiz = quiz_questions(trace, steps=[1])[0]
        >>> from_quiz_question(trace, quiz).options == quiz.choices
        True
    """
    if not isinstance(trace, Trace):
        raise TypeError(f"trace must be a Trace (from train_bpe or train_wordpiece), got {type(trace).__name__}")
    if not isinstance(question, Question):
        raise TypeError(f"question must be a Question (from quiz_questions), got {type(question).__name__}")
    if not 1 <= question.step <= len(trace.merges) or trace.merges[question.step - 1].pair != question.answer:
        raise ValueError(f"question is about merge {question.step} of another trace: ask quiz_questions(trace)")
    quiz = question
    snap = trace[quiz.step - 1]
    counts = snap.word_counts
    context = [f"{word} ×{counts[word]:,}: {' '.join(syms)}"
               for word, syms in list(snap.segmentation.items())[:_CONTEXT_ROWS]]
    if len(counts) > _CONTEXT_ROWS:
        context.append(f"… and {len(counts) - _CONTEXT_ROWS:,} more words")
    values = quiz.scores if quiz.scores is not None else quiz.counts
    options = tuple(quiz.choices)  # already shuffled by the quiz's seed
    labels = _labels(options, _pair_text)
    return Prediction(kind="next_merge", prompt=f"Which pair does merge {quiz.step:,} take?", choices=labels,
                      answer=labels[options.index(quiz.answer)], reason=quiz.reason, options=options,
                      measures=tuple(values), measure="score" if quiz.scores is not None else "count",
                      context=tuple(context), tokenizer=trace, detail=quiz)


# -- which merge does the encoder apply first? -------------------------------------------------------


def first_merge_question(trace, word: str, step: int | None = None, *, seed: int = 0,
                         max_choices: int = _AIM) -> Prediction:
    """"Which merge does the encoder apply first to ``word``?": the learned pairs in the word's
    first symbols (the earliest learned ones, up to ``max_choices - 1``) and a near miss (a pair
    of neighbours that is no merge: the most frequent one in training). The answer is the first
    step of ``encode_word(word, trace, step)``: the pair learned earliest (the lowest rank), not
    the one most frequent in the word. ``step``: use the first ``step`` merges (all by default).

    Example::

        >>> from bpe_viz import corpora, train_bpe
        >>> q = first_merge_question(train_bpe(corpora.load("sennrich2016"), 10), "lowest")
        >>> q.reason
        '(e, s) is merge 1, learned before (l, o) (merge 4): the encoder applies the pair learned first, wherever it is in the word. (s, t) was not learned in the first 10 merges.'
    """
    if not isinstance(trace, Trace):
        raise TypeError(f"trace must be a BPE trace (from train_bpe), got {type(trace).__name__} {trace!r:.60}")
    word = _check_word(word)
    step = check_int("step", step, 0, maximum=len(trace.merges), allow_none=True,
                     what=" (the merges this trace learned)")
    max_choices = check_int("max_choices", max_choices, 2, maximum=MAX_CHOICES)
    walk = trace.encode_word(word, step)
    if walk.longest_match:
        raise ValueError("trace: WordPiece encodes by longest match, not by applying merges; "
                         "ask first_merge_question of a BPE trace (train_bpe)")
    known = walk.num_merges
    symbols = walk.steps[0].symbols if walk.steps else walk.initial
    if not walk.steps:
        raise ValueError(f"word: no learned pair occurs in {word!r:.60} (symbols {' '.join(symbols)}) within the "
                         f"first {known:,} merges, so the encoder applies none: try another word or more merges")
    learned = sorted(walk.steps[0].candidates, key=lambda c: c[1])[: max_choices - 1]
    answer = walk.steps[0].pair
    seen = {p for p, _r in walk.steps[0].candidates}
    others = [p for p in dict.fromkeys(zip(symbols, symbols[1:])) if p not in seen]
    near = None
    if others:
        counts = trace[0].pair_counts
        near = max(others, key=lambda p: counts.get(p, 0))  # max keeps the first of equals: word order
    ranked = [*learned, *([(near, None)] if near is not None else [])]
    if len(ranked) < 2:
        raise ValueError(f"word: {word!r:.60} offers a single pair of symbols ({' '.join(symbols)}): "
                         "no choice to make, try a longer word")
    reason = f"{_pair_text(answer)} is merge {walk.steps[0].rank:,}"
    if len(learned) > 1:
        later = ", ".join(f"{_pair_text(p)} (merge {r:,})" for p, r in learned[1:])
        reason += f", learned before {later}: the encoder applies the pair learned first, wherever it is in the word."
    else:
        reason += ", the only learned pair among the word's symbols."
    if near is not None:
        reason += f" {_pair_text(near)} was not learned in the first {known:,} merges."
    return _build("first_merge", f'Which merge does the encoder apply first to "{word}"?', answer, ranked, reason,
                  seed=_check_seed(seed), measure="merge (rank)", tokenizer=trace, detail=walk, label=_pair_text,
                  context=[f"Its symbols: {' '.join(symbols)}",
                           f"The encoder knows the first {known:,} merges of the trace, in the order they were learned."])


# -- BPE's pick against WordPiece's -------------------------------------------------------------------


def _as_wordpiece(pair, bpe_marker, snap):
    """BPE's ``pair`` spelled in WordPiece's symbols (``(e, r)`` -> ``(##e, ##r)``): the pair of
    the WordPiece state with the same letters, the most frequent if several; ``None`` if none."""
    letters = (bpe_marker.letters(pair[0]), bpe_marker.letters(pair[1]))
    wp_marker = snap.trace.marker
    same = [(c, p) for p, c in snap.pair_counts.items()
            if (wp_marker.letters(p[0]), wp_marker.letters(p[1])) == letters]
    return max(same, key=lambda t: t[0])[1] if same else None


def wordpiece_vs_bpe_question(corpus, *, bpe_preset: str = "hf-course", seed: int = 0,
                              max_choices: int = _AIM) -> Prediction:
    """"BPE merges (a, b) first; which pair does WordPiece pick?": both trained on ``corpus`` (a
    text or a word-count dict; BPE with ``bpe_preset``, no end-of-word marker by default, as
    WordPiece has none). The choices: WordPiece's pick (``train_wordpiece(corpus).merges[0]``),
    BPE's pair in WordPiece's symbols, and the next best pairs by WordPiece's score
    count(ab) / (count(a) · count(b)), which the reason spells out. ``detail`` is the BPE trace.

    Example (SLP3 §2.5's corpus, as notebook 03 trains it)::

        >>> from bpe_viz import corpora
        >>> q = wordpiece_vs_bpe_question(corpora.load("slp3"))
        >>> q.prompt, q.answer
        ('BPE merges (e, r) first. Which pair does WordPiece merge first?', '(##s, ##t)')
        >>> q.reason.split(";")[0]
        'WordPiece merges the pair with the best score, count(ab) / (count(a) · count(b)): (##s, ##t) scores 2 / (2 · 2) = 1/2'
    """
    max_choices = check_int("max_choices", max_choices, 2, maximum=MAX_CHOICES)
    seed = _check_seed(seed)
    wp = train_wordpiece(corpus, 1)
    bpe = train_bpe(corpus, 1, preset=bpe_preset)
    if not wp.merges or not bpe.merges:
        raise ValueError(f"corpus: no pair of symbols to merge ({(wp if not wp.merges else bpe).stopped_because}); "
                         "use a longer text")
    snap = wp[0]
    answer, bpe_pair = wp.merges[0].pair, bpe.merges[0].pair
    counts, tc = snap.pair_counts, snap.token_counts
    as_wp = _as_wordpiece(bpe_pair, bpe.marker, snap)
    picked = [answer] + ([as_wp] if as_wp not in (None, answer) else [])
    for p, _c in snap.top_pairs(max_choices + len(picked)):
        if len(picked) >= max_choices:
            break
        if p not in picked:
            picked.append(p)

    def formula(p):
        score = snap.rank_value(p, counts[p])
        near = f" ≈ {float(score):.3g}" if score.denominator > 1000 else ""
        return f"{counts[p]:,} / ({tc[p[0]]:,} · {tc[p[1]]:,}) = {score}{near}"

    reason = (f"WordPiece merges the pair with the best score, count(ab) / (count(a) · count(b)): "
              f"{_pair_text(answer)} scores {formula(answer)}")
    tied = wp.merges[0].tied
    if tied:
        reason += (f", tied with {len(tied)} other pair{'s' if len(tied) > 1 else ''} (the tie rule takes the "
                   f"{wp.tie_rule.takes})")
    if as_wp == answer:
        reason += f"; BPE's pair {_pair_text(bpe_pair)} is the same one here."
    elif as_wp is not None:
        more = (f"occurs more often ({counts[as_wp]:,} times against {counts[answer]:,}) but "
                if counts[as_wp] > counts[answer] else "")
        reason += (f"; BPE's pair {_pair_text(bpe_pair)}, {_pair_text(as_wp)} in WordPiece's symbols, {more}"
                   f"scores only {formula(as_wp)}: its parts are frequent on their own.")
    else:
        reason += "."
    return _build("wordpiece_pick", f"BPE merges {_pair_text(bpe_pair)} first. Which pair does WordPiece merge first?",
                  answer, [(p, snap.rank_value(p, counts[p])) for p in picked], reason, seed=seed, measure="score",
                  tokenizer=wp, detail=bpe, label=_pair_text,
                  context=[f"BPE merges the most frequent pair: {_pair_text(bpe_pair)}, {bpe.merges[0].count:,} times.",
                           ("WordPiece writes a symbol inside a word with ##, and merges the pair with the best "
                            "score count(ab) / (count(a) · count(b)).")])


# -- how does Unigram cut a word? -------------------------------------------------------------------


def best_cuts(word: str, scores: dict, n: int, unk: float | None = None) -> list[tuple[tuple, float]]:
    """The ``n`` most probable cuts of ``word``: ``[(pieces, log-probability)]``, best first
    (equal ones in the order found). ``scores``: piece -> log-probability; ``unk``: the score of
    a character no piece holds (``None``: such a word has no cut). Each prefix keeps its ``n``
    best cuts, and the best of a longer prefix extend them: no cut is enumerated twice.

    Example::

        >>> best_cuts("hug", {"h": -3.0, "u": -3.0, "g": -3.0, "hu": -2.5, "ug": -2.5}, 3)
        [(('h', 'ug'), -5.5), (('hu', 'g'), -5.5), (('h', 'u', 'g'), -9.0)]
    """
    maxlen = max(map(len, scores), default=1)
    best: list = [[((), 0.0)]] + [[] for _ in word]  # per end of a prefix: its best cuts
    for end in range(1, len(word) + 1):
        found = []
        for start in range(max(0, end - maxlen), end):
            piece = word[start:end]
            score = scores.get(piece)
            if score is None and end == start + 1 and unk is not None:
                score = unk  # subtle: an unknown character is a piece of its own (sentencepiece)
            if score is not None:
                found.extend((cut + (piece,), total + score) for cut, total in best[start])
        best[end] = heapq.nlargest(n, found, key=lambda t: t[1])  # stable: first found first
    return best[-1]


def _cut_score(pieces, scores: dict, unk) -> float:
    return sum(scores.get(p, unk if unk is not None else -math.inf) for p in pieces)


def _unigram_answer(trace, word: str, k: int):
    """(the word as the encoder cuts it, its pieces, the walkthrough). A trace trained on text
    has "▁" pieces: the word is cut as :func:`~bpe_viz.engine.encoding.encode` cuts it ("▁" in
    front); one trained on a word-count dict (the course's) never saw "▁": the word as given."""
    scores = trace[k].scores
    if not any(MARK in p for p in scores):
        walk = trace.encode_word(word, k)
        return walk.word, walk.final, walk
    enc = trace.encode(word, k)
    if len(enc.words) != 1:
        raise ValueError(f"word must be one word as the tokenizer splits text, got {word!r:.60} "
                         f"({len(enc.words)} words: {enc.words!r:.80})")
    walk = trace.encode_word(enc.words[0], k)
    return walk.word, tuple(enc.pieces) if walk.final is not None else None, walk


def unigram_cut_question(unigram_trace, word: str, round: int | None = None, *, seed: int = 0,
                         max_choices: int = _AIM) -> Prediction:
    """"How does Unigram cut ``word``?": the cut Viterbi keeps at ``round`` (the last by
    default), as ``encode(word, unigram_trace, round).pieces`` has it, and the other most
    probable cuts of the lattice (:func:`best_cuts`). The reason adds up each cut's
    log-probabilities. ``detail`` is the word's walkthrough (``encode_word``).

    Example (the Hugging Face course's corpus)::

        >>> from bpe_viz import corpora, train_unigram
        >>> uni = train_unigram(corpora.load("hf-course"), vocab_size=12)
        >>> q = unigram_cut_question(uni, "hugs")
        >>> q.answer, sorted(q.choices)
        ('hugs', ['h u g s', 'hug s', 'hugs'])
        >>> q.reason
        'Unigram keeps the cut whose log-probabilities add up to the most: hugs = -3.43; hug s = -2.33 + -3.43 = -5.76; h u g s = -2.33 + -1.45 + -2.04 + -3.43 = -9.25.'
    """
    if not isinstance(unigram_trace, UnigramTrace):
        raise TypeError(f"unigram_trace must be a Unigram trace (from train_unigram), got "
                        f"{type(unigram_trace).__name__} {unigram_trace!r:.60}")
    word = _check_word(word)
    last = len(unigram_trace) - 1
    k = last if round is None else check_int("round", round, 0, maximum=last, what=" (the rounds of this trace)")
    max_choices = check_int("max_choices", max_choices, 2, maximum=MAX_CHOICES)
    form, answer, walk = _unigram_answer(unigram_trace, word, k)
    if answer is None:
        raise ValueError(f"word: no piece of round {k} covers every character of {word!r:.60}, so Unigram "
                         "has no cut of it (hf-course has no unknown piece): try another word")
    scores = unigram_trace[k].scores
    unk = unigram_trace.unk_score(unigram_trace[k])
    others = [c for c, _s in best_cuts(form, scores, max_choices, unk) if c != answer]
    if not others:
        raise ValueError(f"word: {word!r:.60} has a single cut with the pieces of round {k}: no choice to make")
    ranked = [(c, _cut_score(c, scores, unk)) for c in (answer, *others[: max_choices - 1])]

    def spelled(cut, total):
        parts = " + ".join(f"{scores.get(p, unk):.2f}" for p in cut)
        return f"{' '.join(cut)} = {parts} = {total:.2f}" if len(cut) > 1 else f"{cut[0]} = {total:.2f}"

    reason = (f"Unigram keeps the cut whose log-probabilities add up to the most: {spelled(*ranked[0])}; "
              + "; ".join(spelled(c, s) for c, s in ranked[1:]) + ".")
    if walk.tied:
        reason += " Another cut scores exactly the same: the first one found is kept."
    used = sorted({p for c, _s in ranked for p in c if p in scores}, key=lambda p: (-scores[p], p))
    return _build("unigram_cut", f'How does Unigram cut "{word}"?', answer, ranked, reason, seed=_check_seed(seed),
                  measure="log-probability", tokenizer=unigram_trace, detail=walk, label=" ".join,
                  context=[f"The pieces of round {k} it may use, with their log-probabilities:",
                           *(f"{p}: {scores[p]:.2f}" for p in used[:_CONTEXT_ROWS])])


# -- questions about real text: pre-tokens and token counts ----------------------------------------

#: how a question names each pattern of :data:`~bpe_viz.engine.text.pretokenize.NAMED_PATTERNS`
PATTERN_NAMES = {"gpt2": "GPT-2", "gpt4": "GPT-4", "cl100k": "GPT-4 (cl100k_base)", "o200k": "GPT-4o (o200k_base)"}
_PATTERN_RULES = {
    "gpt2": "letters, digits and other characters each make their own runs, a space stays at the front "
            "of the run after it, and 's 't 're 've 'm 'll 'd split off",
    "gpt4": "digits go in groups of at most three, one non-letter may lead a run of letters, and "
            "contractions split off whatever their case",
    "o200k": "a capital may start a run of lower-case letters (a new capital starts a new run), digits go "
             "in groups of at most three, and a contraction stays with its word",
}
_PATTERN_RULES["cl100k"] = _PATTERN_RULES["gpt4"]


def _check_text(text) -> str:
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__} {text!r:.60}")
    if not text:
        raise ValueError("text must not be empty")
    return text


def _sizes(text: str, *, words: bool = True) -> str:
    """``text``'s size for a question's context: characters, bytes in UTF-8 and words."""
    n, b, w = len(text), len(text.encode()), len(text.split())
    out = f"{n:,} character{'s' * (n != 1)}, {b:,} byte{'s' * (b != 1)} in UTF-8"
    return out + (f", {w:,} word{'s' * (w != 1)} separated by spaces." if words else ".")


def _shown(pieces) -> str:
    """Pre-tokens as one label: a space is ``␣``, a newline ``↵``, pieces joined by ``|``."""
    return " | ".join(p.replace(" ", "␣").replace("\n", "↵").replace("\t", "→") for p in pieces)


def pretokenize_question(text: str, pattern: str = "gpt2", *, seed: int = 0) -> Prediction:
    """"How does GPT-2's pre-tokenizer cut ``text``?": the pieces the pattern's regular expression
    finds (``pattern`` is one of ``"gpt2"``, ``"gpt4"``, ``"cl100k"``, ``"o200k"``), beside the
    cuts a learner might expect instead: at the spaces, with each space kept at the end of the
    word before it, one piece per word or punctuation mark, and another GPT pattern's cut. Spaces
    show as ``␣``, newlines as ``↵``.

    Example::

        >>> q = pretokenize_question("I'm 12345")
        >>> q.answer
        "I | 'm | ␣12345"
        >>> len(q.choices) >= 3
        True
    """
    text = _check_text(text)
    if pattern not in PATTERN_NAMES:
        raise ValueError(f"pattern must be one of {sorted(PATTERN_NAMES)}, got {pattern!r:.60}")
    answer = tuple(get_pre_tokenizer(pattern).words(text))

    other = "gpt4" if pattern == "gpt2" else "gpt2"
    guesses = [tuple(text.split()), tuple(re.findall(r"\S+\s*|\s+", text)),
               tuple(re.findall(r"\w+|[^\w\s]|\s+", text)), tuple(get_pre_tokenizer(other).words(text))]
    options = list(dict.fromkeys([answer, *(g for g in guesses if g)]))[:_AIM]
    if len(options) < 2:
        raise ValueError(f"text: every way to cut {text!r:.60} gives the same pieces: no choice to make, "
                         "try a text with spaces, digits or punctuation")
    name = PATTERN_NAMES[pattern]
    reason = (f"{name}'s pattern finds {len(answer)} pieces: {_shown(answer)}. Its rules: "
              f"{_PATTERN_RULES[pattern]}. A merge never crosses the edge of a piece.")
    return _build("pre_tokens", f"How does {name}'s pre-tokenizer cut \"{text}\"?", answer,
                  [(o, None) for o in options], reason, seed=_check_seed(seed), measure="",
                  context=[f"Spaces show as ␣, newlines as ↵; | separates the pieces.",
                           _sizes(text)],
                  tokenizer=None, detail=answer, label=_shown)


def _count_tokens(tokenizer, text, argument) -> int:
    encode = getattr(tokenizer, "encode", None)
    if isinstance(tokenizer, (str, bytes)) or not callable(encode):
        raise TypeError(f"{argument} must be a tokenizer with an encode method (load_tokenizer(name) or a "
                        f"trainer's result), got {type(tokenizer).__name__} {tokenizer!r:.60}")
    return len(encode(text).ids)


def token_count_question(tokenizer, text: str, *, name: str | None = None, seed: int = 0) -> Prediction:
    """"How many tokens does ``name`` cut ``text`` into?": the number of ids ``tokenizer.encode``
    gives, beside the counts a learner might guess: one token per word, per character, per byte.

    Example (the Sennrich et al. dictionary)::

        >>> from bpe_viz import corpora, train_bpe
        >>> q = token_count_question(train_bpe(corpora.load("sennrich2016"), 10), "newest lowest", name="BPE")
        >>> q.answer, q.reason.split(":")[0]
        ('3', 'BPE cuts it into 3 tokens')
    """
    text = _check_text(text)
    count = _count_tokens(tokenizer, text, "tokenizer")
    name = name if name is not None else type(tokenizer).__name__
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__} {name!r:.60}")
    tokens = getattr(tokenizer.encode(text), "tokens", None)
    guesses = {"one per word": len(text.split()), "one per character": len(text), "one per byte": len(text.encode())}
    numbers = list(dict.fromkeys([count, *guesses.values()]))
    for delta in (1, -1, 2, 3):  # keep at least three numbers to choose from
        if len(numbers) >= 3:
            break
        if count + delta > 0 and count + delta not in numbers:
            numbers.append(count + delta)
    spelled = f": {' | '.join(tokens)}" if tokens is not None else ""
    reason = (f"{name} cuts it into {count:,} token{'s' if count != 1 else ''}{spelled}. For comparison: "
              + ", ".join(f"{k}: {v:,}" for k, v in guesses.items()) + ".")
    return _build("token_count", f'How many tokens does {name} cut "{text}" into?', count,
                  [(n, n) for n in numbers[:_AIM]], reason, seed=_check_seed(seed), measure="tokens",
                  context=[_sizes(text)],
                  tokenizer=tokenizer, detail=tokens, label=str)


def fewest_tokens_question(tokenizers: dict, text: str, *, seed: int = 0) -> Prediction:
    """"Which tokenizer needs the fewest tokens for ``text``?": ``tokenizers`` maps a name to a
    tokenizer (2 to 4 of them); the answer is the one whose ``encode`` gives the fewest ids
    (a ``ValueError`` if two share the fewest: no single answer).

    Example::

        >>> from bpe_viz import corpora, train_bpe
        >>> few, many = train_bpe(corpora.load("sennrich2016"), 2), train_bpe(corpora.load("sennrich2016"), 10)
        >>> fewest_tokens_question({"2 merges": few, "10 merges": many}, "newest").answer
        '10 merges'
    """
    text = _check_text(text)
    if not isinstance(tokenizers, dict) or not 2 <= len(tokenizers) <= MAX_CHOICES:
        raise TypeError(f"tokenizers must be a dict of 2 to {MAX_CHOICES} name -> tokenizer, got "
                        f"{type(tokenizers).__name__} {tokenizers!r:.60}")
    counts = {}
    for key, tok in tokenizers.items():
        if not isinstance(key, str):
            raise TypeError(f"tokenizers: every name must be a str, got {type(key).__name__} {key!r:.60}")
        counts[key] = _count_tokens(tok, text, f"tokenizers[{key!r}]")
    best = min(counts.values())
    winners = [k for k, v in counts.items() if v == best]
    if len(winners) > 1:
        raise ValueError(f"text: {' and '.join(winners)} both need {best:,} tokens for {text!r:.60}: "
                         "no single answer, try another text")
    reason = (f"{winners[0]} needs {best:,}: " + ", ".join(f"{k} {v:,}" for k, v in counts.items())
              + f" tokens for {len(text)} characters. A vocabulary holds long tokens for the text it was trained on.")
    return _build("fewest_tokens", f'Which tokenizer needs the fewest tokens for "{text}"?', winners[0],
                  list(counts.items()), reason, seed=_check_seed(seed), measure="tokens",
                  context=[_sizes(text, words=False)],
                  tokenizer=tokenizers, detail=counts, label=str)
