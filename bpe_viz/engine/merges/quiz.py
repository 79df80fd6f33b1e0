"""Quiz questions and merge trees: the data behind "predict the next merge" and "how was this
token built?", as plain values a view, a widget or a test can use.

How it differs from its neighbours: :mod:`.trace` answers "what happened at step k";
this module turns that history into *questions*. :func:`quiz_questions` picks steps of a trace,
preferring ties (where the answer depends on the tie rule, the best questions), and offers
every pair tied for the top plus a near miss; :func:`merge_tree` unfolds a token into the
merges that built it.

Example (Sennrich, Haddow & Birch 2016, Algorithm 1's dictionary)::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
    >>> q = quiz_questions(trace, n=10)[0]
    >>> q.step, q.answer, q.tied
    (1, ('e', 's'), (('e', 's'), ('s', 't'), ('t', '</w>')))
    >>> q.reason
    '3 pairs occur 9 times: (e, s), (s, t) and (t, </w>). A tie: the tie rule takes the first pair met, (e, s), in "newest".'
    >>> merge_tree(trace, "est</w>")
    ('est</w>', 3, ('est', 2, ('es', 1, ('e', 0, None, None), ('s', 0, None, None)), ('t', 0, None, None)), ('</w>', 0, None, None))
"""

from __future__ import annotations

import random
import weakref
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from ..checks import check_int
from .trace import Trace

__all__ = ["Question", "quiz_questions", "merge_tree", "MAX_CHOICES"]

#: The most buttons a question offers: every pair tied for the top plus a near miss must fit.
MAX_CHOICES = 8
#: Buttons a question aims for when there is no big tie (the winner, its ties, near misses).
_AIM = 4


@dataclass(frozen=True)
class Question:
    """One quiz question: which pair does merge ``step`` take?

    * ``step``: the merge asked about; the learner sees the state before it, ``trace[step - 1]``;
    * ``choices``: the pairs offered (shuffled), every pair tied for the top among them;
    * ``answer``: the pair the trace merged at ``step``;
    * ``tied``: the choices with the winner's count (WordPiece: its score), the winner first,
      then in the order the tie rule ranks them; one pair when there is no tie;
    * ``reason``: a sentence saying why the answer wins (its count, or the tie rule);
    * ``counts``: each choice's count before the merge, in the order of ``choices``;
    * ``scores``: each choice's WordPiece score (exact), or ``None`` for a model that ranks by count.
    """

    step: int
    choices: tuple[tuple[str, str], ...]
    answer: tuple[str, str]
    tied: tuple[tuple[str, str], ...]
    reason: str
    counts: tuple[int, ...]
    scores: tuple[Fraction, ...] | None = None

    @property
    def is_tie(self) -> bool:
        """Whether another pair had the winner's count (or score)."""
        return len(self.tied) > 1

    @property
    def answer_number(self) -> int:
        """The answer's number among the choices, from 1 (the key a learner presses)."""
        return self.choices.index(self.answer) + 1

    def value(self, pair):
        """What the model ranked ``pair`` by: its count, or its exact WordPiece score."""
        i = self.choices.index(tuple(pair))
        return self.scores[i] if self.scores is not None else self.counts[i]


def _check_trace(trace) -> Trace:
    if not isinstance(trace, Trace):
        raise TypeError(
            "trace must be a Trace (from train_bpe or train_wordpiece), "
            f"got {type(trace).__name__} {trace!r:.60}"
        )
    return trace


def _pair_text(pair) -> str:
    return f"({pair[0]}, {pair[1]})"


def _and_list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n:,} times"


def _first_word_with(snap, pair) -> str | None:
    """The first word (corpus order) whose current symbols hold ``pair`` side by side."""
    a, b = pair
    for word, syms in snap.segmentation.items():
        for x, y in zip(syms, syms[1:]):
            if x == a and y == b:
                return word
    return None


def _tie_detail(trace, snap, winner) -> str:
    """A few words that point at why the rule picks ``winner`` (only where it helps)."""
    rule = trace.tie_rule
    if rule.positional:
        word = _first_word_with(snap, winner)
        return f', in "{word}"' if word is not None else ""
    if rule.name == "shorter":
        piece = trace.marker.join(winner[0], winner[1], trace.marker.text)
        return f' ("{piece}", {len(piece)} characters)'
    return ""


def _reason(trace, snap, group, values, near) -> str:
    """The sentence a learner reads after answering. ``group``: the top pairs, winner first;
    ``values``: pair -> (count, score or None); ``near``: the best pair below the top, or None."""
    winner = group[0]
    count, score = values[winner]
    scored = score is not None
    if scored:
        tc = snap.token_counts
        formula = (f"{count:,} / ({tc[winner[0]]:,} · {tc[winner[1]]:,}) = {score}"
                   if len(group) == 1 else f"{score}")
    if len(group) == 1:
        if scored:
            head = (f"{_pair_text(winner)} has the best score, count(ab) / (count(a) · count(b)) = "
                    f"{formula}")
            if near is not None:
                head += f"; the next best, {_pair_text(near)}, scores {values[near][1]}"
        else:
            head = f"{_pair_text(winner)} occurs {_times(count)}, more than any other pair"
            if near is not None:
                head += f"; the next, {_pair_text(near)}, occurs {_times(values[near][0])}"
        return head + "."
    listed = _and_list([_pair_text(p) for p in group])
    if scored:
        head = f"{len(group)} pairs have the best score, {formula}: {listed}."
    else:
        head = f"{len(group)} pairs occur {_times(count)}: {listed}."
    rule = trace.tie_rule
    return (f"{head} A tie: the tie rule takes the {rule.takes}, {_pair_text(winner)}"
            f"{_tie_detail(trace, snap, winner)}.")


def _refused_note(snap, count: int) -> str:
    """A note when a pair that occurs more often than the winner may not merge (SentencePiece
    refuses pieces across scripts, too long, or made already): a learner would pick it."""
    more = [(c, p) for p, c in snap.pair_counts.items() if c > count]
    if not more:
        return ""
    c, p = max(more, key=lambda t: t[0])
    if len(more) == 1:
        return f" {_pair_text(p)} occurs more often, {_times(c)}, but this trace's rules do not let it merge."
    return (f" {_pair_text(p)} and {len(more) - 1} other pair{'s' if len(more) > 2 else ''} occur more often "
            f"(up to {_times(c)}), but this trace's rules do not let them merge.")


def _candidates(trace, step: int, max_choices: int):
    """(group, near misses, values, snapshot) for merge ``step``, or a str saying why it makes
    no question."""
    merge = trace.merges[step - 1]
    if merge.count <= 0:
        # SentencePiece's last pieces occur 0 times: nothing to predict
        return f"it merges a pair that occurs {merge.count} times (nothing to count)"
    group = (merge.pair, *merge.tied)
    if len(group) > max_choices - 1:
        # a tie too big for the buttons (and the near miss) to fit
        return f"{len(group)} pairs tie for it, more than {max_choices - 1} (raise max_choices)"
    snap = trace[step - 1]
    want = min(max(_AIM - len(group), 1), max_choices - len(group))
    top = snap.top_pairs(len(group) + want)
    if not top or top[0][0] != merge.pair:
        # a replayed merge that was not the best pair here (codes from elsewhere)
        return "its pair was not the best pair of its step (merges replayed from elsewhere)"
    in_group = set(group)
    near = [p for p, _c in top if p not in in_group][:want]
    if len(group) + len(near) < 2:
        return "a single pair is left: there is no choice to make"
    counts = dict(top)
    scored = trace.model.scored
    values = {}
    for p in (*group, *near):
        c = counts.get(p)
        if c is None:
            c = snap.pair_counts[p]
        values[p] = (c, snap.rank_value(p, c) if scored else None)
    return group, tuple(near), values, snap


def quiz_questions(trace, n: int = 10, seed: int = 0, *, steps=None, max_choices: int = MAX_CHOICES) -> list[Question]:
    """Up to ``n`` questions "which pair does merge k take?" on a trace, ordered by step; or,
    with ``steps``, one question on each of those merges, in that order (``n`` is then unused).

    Steps where pairs tie for the top are preferred (the answer then depends on the tie rule);
    the other steps fill up. A question offers the winner, every pair tied with it and near
    misses (pairs just below), up to 4 choices unless a tie needs more, never more than
    ``max_choices`` (a step with a bigger tie is not asked). Works for BPE (ranked by count,
    every preset) and WordPiece (by score). The same ``seed`` gives the same questions and the
    same order of choices (``random.Random(seed)``), so a whole class sees the same quiz.

    On a long trace only some steps are looked at (a few per question asked, in a random order,
    the merges whose count a few others share first: the likely small ties), so that ten
    questions on 10,000 merges of real text take one to three seconds, not minutes.

    ``steps=[1]`` asks exactly about merge 1, at the moment a lesson needs it; a step that makes
    no question (beyond the trace, or a tie too big for ``max_choices`` buttons) is a ValueError
    that names it and says why.

    Example::

        >>> from bpe_viz import train_wordpiece
        >>> trace = train_wordpiece({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 5)
        >>> q = quiz_questions(trace, n=1)[0]
        >>> q.step, q.answer, len(q.choices), q.is_tie
        (2, ('h', '##u'), 6, True)
        >>> q.reason.split(":")[0]
        '6 pairs have the best score, 1/36'
        >>> [q.step for q in quiz_questions(trace, steps=[4, 2])]
        [4, 2]
    """
    trace = _check_trace(trace)
    n = check_int("n", n, 1)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__} {seed!r:.60}")
    max_choices = check_int("max_choices", max_choices, 2)
    total = len(trace.merges)
    if total == 0:
        raise ValueError(f"trace has no merges, so there is nothing to ask: {trace.stopped_because}")
    rng = random.Random(seed)
    if steps is not None:
        return [_question(trace, step, found, rng) for step, found in _asked_steps(trace, steps, max_choices)]
    order = list(range(1, total + 1))
    rng.shuffle(order)
    # subtle: looking at a step rebuilds its state (0.1 s on 10,000 merges of real text), so
    # look at a bounded number of steps, the likely small ties first. A merge whose count (or
    # score) a few other merges share was probably tied with them; one that thousands share
    # (count 2, late in training) is a tie too big for the buttons. Both the order and the bound
    # depend on the trace, n and the seed only, so the result stays deterministic.
    value = [m.score if m.score is not None else m.count for m in trace.merges]
    sharing = Counter(value)
    likely = [k for k in order if 2 <= sharing[value[k - 1]] <= max_choices]
    order = likely + [k for k in order if not 2 <= sharing[value[k - 1]] <= max_choices]
    budget = max(5 * n, 40)
    ties, plain = [], []
    for step in order[:budget]:
        found = _candidates(trace, step, max_choices)
        if isinstance(found, str):
            continue
        (ties if len(found[0]) > 1 else plain).append((step, found))
        if len(ties) >= n:
            break
    picked = sorted(ties[:n] + plain[: max(0, n - len(ties))])
    if not picked:
        raise ValueError(
            "trace has no step to ask about: every merge either ties with more than "
            f"{max_choices - 1} pairs (raise max_choices) or was not the best pair of its step")
    return [_question(trace, step, found, rng) for step, found in picked]


def _asked_steps(trace, steps, max_choices: int) -> list:
    """``[(step, candidates)]`` for the steps a caller asked for, in their order; a ValueError
    naming the first one that makes no question."""
    if isinstance(steps, (str, bytes)) or not hasattr(steps, "__iter__"):
        raise TypeError(f"steps must be a list of merge numbers, like [1, 5], got {type(steps).__name__} {steps!r:.60}")
    steps = list(steps)
    if not steps:
        raise ValueError("steps must name at least one merge, like [1], got an empty list")
    total = len(trace.merges)
    asked = []
    for i, step in enumerate(steps):
        step = check_int(f"steps[{i}]", step, 1, maximum=total, what=" (the trace's merges)")
        if step in steps[:i]:
            raise ValueError(f"steps: merge {step} is listed twice")
        found = _candidates(trace, step, max_choices)
        if isinstance(found, str):
            raise ValueError(f"steps: merge {step} makes no question: {found}")
        asked.append((step, found))
    return asked


def _question(trace, step: int, found, rng) -> Question:
    """The question on merge ``step`` from its candidates (:func:`_candidates`), its choices
    shuffled by ``rng``."""
    group, near, values, snap = found
    choices = [*group, *near]
    rng.shuffle(choices)
    scored = trace.model.scored
    return Question(
        step=step,
        choices=tuple(choices),
        answer=group[0],
        tied=tuple(group),
        reason=_reason(trace, snap, group, values, near[0] if near else None)
        + ("" if scored else _refused_note(snap, values[group[0]][0])),
        counts=tuple(values[p][0] for p in choices),
        scores=tuple(values[p][1] for p in choices) if scored else None,
    )


_MADE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _first_made(trace) -> tuple[dict[str, int], set]:
    """(public token -> the first merge that made it, the public initial symbols), per trace."""
    cached = _MADE.get(trace)
    if cached is None or cached[0] != len(trace.merges):  # a trace still training grows
        made: dict[str, int] = {}
        for m in trace.merges:
            made.setdefault(m.token, m.step)
        cached = (len(trace.merges), made, {trace.show(s) for s in trace.base_symbols})
        _MADE[trace] = cached
    return cached[1], cached[2]


def merge_tree(trace, token: str, *, upto: int | None = None):
    """How ``token`` was built: ``(token, step, left, right)``, where ``step`` is the merge that
    made it and ``left`` / ``right`` are the trees of its two parts; an initial symbol is a leaf
    ``(symbol, 0, None, None)``. ``upto`` uses only the first ``upto`` merges (a stepper's step).

    A token spelled by two different merges (``ab`` + ``c`` and ``a`` + ``bc``) is taken from the
    first merge that made it, as its id is.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
        >>> tree = merge_tree(trace, "newest</w>")
        >>> tree[:2], tree[2][:2], tree[3][:2]
        (('newest</w>', 8), ('new', 7), ('est</w>', 3))
        >>> merge_tree(trace, "w")
        ('w', 0, None, None)
    """
    trace = _check_trace(trace)
    if not isinstance(token, str):
        raise TypeError(f"token must be a str, got {type(token).__name__} {token!r:.60}")
    last = len(trace.merges) if upto is None else check_int("upto", upto, 0)
    if last > len(trace.merges):
        raise ValueError(f"upto must be at most {len(trace.merges)} (the trace's merges), got {upto}")
    made, base = _first_made(trace)
    made_at = made.get(token)
    if token not in base and (made_at is None or made_at > last):
        tid = trace.token_to_id(token)
        step = trace.made_at_of_id(tid) if tid is not None else None
        if tid is not None and step == 0:
            return (token, 0, None, None)  # in the alphabet, though training never saw it alone
        if tid is not None and step is None:
            raise ValueError(f"token {token!r} is a special token: it is cut out first and never merged")
        if tid is not None:
            raise ValueError(f"token {token!r} is made by merge {step}, after the first {last} merges (upto)")
        raise ValueError(f"token {token!r} is not in this trace's vocabulary (made by no merge, not an initial symbol)")

    # built bottom-up without recursion: a token of a pasted 20,000-letter word can be thousands
    # of merges deep; a part used twice (aaaa = aa + aa) is one shared tuple. (Only the token
    # itself needs the upto check: its parts existed before the merge that joined them.)
    merges = trace.merges
    done: dict[str, tuple] = {}
    stack = [token]
    while stack:
        tok = stack[-1]
        if tok in done:
            stack.pop()
            continue
        if tok in base or tok not in made:
            done[tok] = (tok, 0, None, None)
            stack.pop()
            continue
        m = merges[made[tok] - 1]
        todo = [part for part in m.pair if part not in done]
        if todo:
            stack.extend(todo)
            continue
        done[tok] = (tok, m.step, done[m.pair[0]], done[m.pair[1]])
        stack.pop()
    return done[token]
