"""The quiz as HTML: a question (the state before a merge, pair counts hidden) and its answer
(the choices with their counts revealed, the winner, the reason), and the end of a quiz. Pure
functions of a merge trace and a :class:`~bpe_viz.engine.merges.quiz.Question`, built like the
step's tables (:mod:`.tables`, the kit's chips); the :class:`~bpe_viz.widgets.QuizExplorer` puts
them on screen, a notebook can show them as they are.

Example::

    >>> from bpe_viz import train_bpe
    >>> from bpe_viz import quiz_questions
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
    >>> q = quiz_questions(trace)[0]
    >>> "which pair does merge 1 take?" in question_html(trace, q)
    True
    >>> "first pair met" in answer_html(trace, q, picked=q.answer)
    True
"""

from __future__ import annotations

from ..kit import (CHOSEN_STYLE, box, check_rows, check_size, esc, fraction_text, table_html, tie_badge, tie_flag,
                   token_html)
from .tables import words_table_html

__all__ = ["question_html", "answer_html", "summary_html", "pair_chips"]

_RIGHT_COLOR = "#1B7A3A"
_WRONG_COLOR = "#B00020"


def pair_chips(pair, conv) -> str:
    """``(a, b)`` as two token chips, markers dimmed."""
    return f"({token_html(pair[0], convention=conv)}, {token_html(pair[1], convention=conv)})"


def _check_question(trace, question):
    if not all(hasattr(question, a) for a in ("step", "choices", "answer", "tied", "reason")):
        raise TypeError(f"question must be a Question (from quiz_questions), got {type(question).__name__}")
    if not 1 <= question.step <= len(trace.merges) or trace.merges[question.step - 1].pair != question.answer:
        raise ValueError(f"question is about merge {question.step} of another trace: ask quiz_questions(trace)")


def _task(trace) -> str:
    """What the learner has to do, in the model's terms."""
    rule = trace.tie_rule
    if trace.model.scored:
        what = ("WordPiece merges the pair with the best score, count(ab) / (count(a) &middot; count(b)). "
                "Count each pair and each token in the words below (a word counts as often as it occurs).")
    else:
        what = ("BPE merges the most frequent pair of neighbouring symbols. The pair counts are hidden: "
                "count them in the words below (a word counts as often as it occurs).")
    return f"{what} When pairs tie, this trace takes the {esc(rule.takes)}."


def question_html(trace, question, *, number: int | None = None, of: int | None = None,
                  show_choices: bool = True, max_rows: int | None = 12, size: float = 1.0) -> str:
    """A question: "which pair does merge k take?", the words (with their counts and symbols)
    at step k - 1, and the numbered choices (``show_choices=False`` when buttons show them).
    The pair counts are not shown. ``number`` / ``of`` add "Question 2 of 10".

    Example::

        >>> from bpe_viz import train_bpe
        >>> from bpe_viz import quiz_questions
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
        >>> out = question_html(trace, quiz_questions(trace)[3], number=4, of=10)
        >>> "Question 4 of 10" in out, "Words at step 3" in out, "Pairs at step" in out
        (True, True, False)
    """
    size = check_size(size)
    max_rows = check_rows(max_rows)
    _check_question(trace, question)
    conv = trace.convention
    k = question.step
    label = f"Question {number} of {of}: " if number is not None and of is not None else ""
    head = (f'<div class="bpe-quiz-title" style="font-weight:700;font-size:1.1em">{esc(label)}'
            f"which pair does merge {k:,} take?</div>"
            f'<div class="bpe-quiz-task" style="color:#333;font-size:0.9em;max-width:48em">{_task(trace)}</div>')
    parts = [head, words_table_html(trace[k - 1], max_rows, size=size)]
    if show_choices:
        items = "".join(
            f'<li class="bpe-quiz-choice" style="margin:0.15em 0">{pair_chips(p, conv)}</li>'
            for p in question.choices
        )
        parts.append(f'<ol class="bpe-quiz-choices" style="margin:0.2em 0;padding-left:1.8em">{items}</ol>')
    return box("".join(parts), "bpe-quiz-question", size)


def answer_html(trace, question, picked=None, *, size: float = 1.0) -> str:
    """The answer: right or not (when ``picked`` is given), the reason, and the choices ranked
    as the trace ranks them, with their counts (WordPiece: scores), the winner highlighted, the
    pairs tied with it marked "tie", the learner's pick marked. The "#" column is the choice's
    number (the key to press).

    Example::

        >>> from bpe_viz import train_bpe
        >>> from bpe_viz import quiz_questions
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
        >>> q = quiz_questions(trace)[0]
        >>> wrong = next(p for p in q.choices if p != q.answer)
        >>> out = answer_html(trace, q, picked=wrong)
        >>> "Not this one" in out, out.count(">tie<")
        (True, 3)
    """
    size = check_size(size)
    _check_question(trace, question)
    conv = trace.convention
    if picked is not None:
        picked = tuple(picked)
        if picked not in question.choices:
            raise ValueError(f"picked must be one of the question's choices {list(question.choices)}, got {picked!r}")
    merge = trace.merges[question.step - 1]
    result = (f"merge {question.step:,} took {pair_chips(question.answer, conv)} &rarr; "
              f"{token_html(merge.token, convention=conv, emphasize=True)}")
    if picked is None:
        verdict = f'<span class="bpe-quiz-verdict" style="font-weight:700">The answer:</span> {result}'
    elif picked == question.answer:
        verdict = (f'<span class="bpe-quiz-verdict bpe-quiz-right" style="font-weight:700;color:{_RIGHT_COLOR}">'
                   f"Right!</span> {result}")
    else:
        verdict = (f'<span class="bpe-quiz-verdict bpe-quiz-wrong" style="font-weight:700;color:{_WRONG_COLOR}">'
                   f"Not this one.</span> You picked {pair_chips(picked, conv)}; {result}")
    if question.is_tie:
        verdict += tie_flag()
    reason = f'<div class="bpe-quiz-reason" style="margin:0.3em 0;max-width:48em">{esc(question.reason)}</div>'

    scored = question.scores is not None
    value = {p: question.value(p) for p in question.choices}
    tied = set(question.tied)
    # ranked as the trace ranks them: by value, the tie group in the rule's order first
    order = sorted(range(len(question.choices)),
                   key=lambda i: (-value[question.choices[i]],
                                  question.tied.index(question.choices[i]) if question.choices[i] in tied else 0))
    rows, classes, styles = [], [], []
    for i in order:
        p = question.choices[i]
        notes = []
        win = p == question.answer
        if win:
            notes.append('<span class="bpe-quiz-winner" style="font-weight:700">&larr; merged</span>')
        if question.is_tie and p in tied:
            notes.append(tie_badge())
        if picked is not None and p == picked:
            notes.append('<span class="bpe-quiz-pick" style="font-style:italic">your answer</span>')
        cells = [str(i + 1), pair_chips(p, conv), f"{question.counts[i]:,}"]
        if scored:
            s = question.scores[i]
            cells.append(f'<span title="{esc(f"{s.numerator}/{s.denominator}")}">'
                         f"{esc(f'{s.numerator}/{s.denominator}')} &asymp; {fraction_text(s)}</span>")
        cells.append(" ".join(notes))
        rows.append(cells)
        classes.append(" ".join(c for c in ("bpe-quiz-row", "bpe-chosen" if win else "",
                                            "bpe-tied" if question.is_tie and p in tied else "",
                                            "bpe-quiz-picked" if picked is not None and p == picked else "") if c))
        styles.append(CHOSEN_STYLE if win else "")
    headers = ["#", "pair", "count"] + (["score"] if scored else []) + ["note"]
    caption = ("best score first" if scored else "most frequent first") + f"; counted at step {question.step - 1:,}"
    table = table_html(f"The choices at step {question.step - 1:,}", headers, rows, cls="bpe-quiz-table",
                       caption=caption, row_classes=classes, row_styles=styles,
                       numeric=(0, 2, 3) if scored else (0, 2))
    return box(f'<div class="bpe-quiz-result">{verdict}</div>{reason}{table}', "bpe-quiz-answer", size)


def summary_html(trace, questions, picks, *, size: float = 1.0) -> str:
    """The end of a quiz: the score, then one row per question (the merge, its answer, the
    learner's pick, right or not, tie or not). ``picks``: the picked pair per question, in
    order (``None`` where a question was not answered).

    Example::

        >>> from bpe_viz import train_bpe
        >>> from bpe_viz import quiz_questions
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
        >>> qs = quiz_questions(trace, n=2)
        >>> out = summary_html(trace, qs, [qs[0].answer, None])
        >>> "1 of 2 right" in out
        True
    """
    size = check_size(size)
    questions, picks = list(questions), list(picks)
    if len(picks) != len(questions):
        raise ValueError(f"picks must have one entry per question ({len(questions)}), got {len(picks)}")
    conv = trace.convention
    rows, classes = [], []
    right = 0
    for i, (q, p) in enumerate(zip(questions, picks)):
        _check_question(trace, q)
        ok = p is not None and tuple(p) == q.answer
        right += ok
        if p is None:
            mark = '<span class="bpe-quiz-skipped" style="color:#555">not answered</span>'
        elif ok:
            mark = f'<span class="bpe-quiz-right" style="color:{_RIGHT_COLOR};font-weight:700">right</span>'
        else:
            mark = f'<span class="bpe-quiz-wrong" style="color:{_WRONG_COLOR};font-weight:700">not this one</span>'
        rows.append([str(i + 1), f"{q.step:,}", pair_chips(q.answer, conv),
                     pair_chips(p, conv) if p is not None else "", mark, "tie" if q.is_tie else ""])
        classes.append("bpe-quiz-summary-row" + (" bpe-quiz-ok" if ok else ""))
    head = (f'<div class="bpe-quiz-score" style="font-weight:700;font-size:1.2em">'
            f"{right} of {len(questions)} right</div>")
    table = table_html("Your answers", ["#", "merge", "answer", "your answer", "", "tie?"], rows,
                       cls="bpe-quiz-summary", row_classes=classes, numeric=(0, 1))
    return box(head + table, "bpe-quiz-end", size)
