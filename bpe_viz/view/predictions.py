"""A "predict before you see" question as HTML: the question (its prompt, what the learner
needs to answer it, the numbered choices) and its answer (right or not, the reason, the
choices ranked as the model ranked them, with its numbers). Pure functions of a
:class:`~bpe_viz.engine.predictions.Prediction`, any kind.

How it differs from :mod:`.merges.quiz`: that module draws the merge quiz (the words table of
one step); this one draws every kind the same way, and hands a "which pair does merge k
take?" question to that module's views, so it looks as it does in the quiz.
:class:`~bpe_viz.widgets.Predict` puts these on screen.

Example::

    >>> from bpe_viz import corpora, train_bpe
    >>> from bpe_viz.engine.predictions import first_merge_question
    >>> q = first_merge_question(train_bpe(corpora.load("sennrich2016"), 10), "lowest")
    >>> "Which merge does the encoder apply first to &quot;lowest&quot;?" in prediction_html(q)
    True
    >>> "Right!" in prediction_answer_html(q, picked=q.answer)
    True
"""

from __future__ import annotations

from fractions import Fraction

from ..engine.predictions import Prediction
from .kit import CHOSEN_STYLE, box, check_size, esc, fraction_text, table_html
from .merges.quiz import answer_html, question_html

__all__ = ["prediction_html", "prediction_answer_html", "measure_text"]

_RIGHT = "#1B7A3A"
_WRONG = "#B00020"


def _check(prediction) -> Prediction:
    if not isinstance(prediction, Prediction):
        raise TypeError("prediction must be a Prediction (from first_merge_question, wordpiece_vs_bpe_question, "
                        f"unigram_cut_question or next_merge_question), got {type(prediction).__name__}")
    return prediction


def _picked_number(prediction, picked) -> int | None:
    """``picked`` (a choice's label, or its number from 1) as a number, or a ValueError."""
    if picked is None:
        return None
    if isinstance(picked, int) and not isinstance(picked, bool):
        if 1 <= picked <= len(prediction.choices):
            return picked
    elif picked in prediction.choices:
        return prediction.choices.index(picked) + 1
    raise ValueError(f"picked must be one of the choices {list(prediction.choices)} or their number "
                     f"(1 to {len(prediction.choices)}), got {picked!r:.60}")


def measure_text(value) -> str:
    """A choice's measure as a table shows it: a count or rank with thousands separators, a
    WordPiece score as a fraction and a decimal, a log-probability with two decimals.

    Example::

        >>> from fractions import Fraction
        >>> measure_text(1234), measure_text(Fraction(1, 19)), measure_text(-5.873), measure_text(None)
        ('1,234', '1/19 ≈ 0.05263', '-5.87', '—')
    """
    if value is None:
        return "—"
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator} ≈ {fraction_text(value)}"
    if isinstance(value, float):
        return f"{value:.2f}"
    return f"{value:,}"


def prediction_html(prediction, *, show_choices: bool = True, size: float = 1.0) -> str:
    """The question: its prompt, the lines the learner needs (the word's symbols, the words and
    their counts, the pieces' log-probabilities) and the numbered choices (``show_choices=False``
    when buttons show them). A "which pair does merge k take?" question shows the words table
    of the merge quiz.

    Example::

        >>> from bpe_viz import corpora
        >>> from bpe_viz.engine.predictions import wordpiece_vs_bpe_question
        >>> out = prediction_html(wordpiece_vs_bpe_question(corpora.load("slp3")))
        >>> out.count('class="bpe-predict-choice"'), "(##s, ##t)" in out
        (4, True)
    """
    size = check_size(size)
    p = _check(prediction)
    if p.kind == "next_merge":
        return question_html(p.tokenizer, p.detail, show_choices=show_choices, size=size)
    parts = [f'<div class="bpe-predict-prompt" style="font-weight:700;font-size:1.1em">{esc(p.prompt)}</div>']
    if p.context:
        lines = "".join(f'<div class="bpe-predict-line">{esc(line)}</div>' for line in p.context)
        parts.append(f'<div class="bpe-predict-context" style="color:#333;margin:0.2em 0;max-width:48em">{lines}</div>')
    if show_choices:
        items = "".join(f'<li class="bpe-predict-choice" style="margin:0.15em 0">{esc(c)}</li>' for c in p.choices)
        parts.append(f'<ol class="bpe-predict-choices" style="margin:0.2em 0;padding-left:1.8em">{items}</ol>')
    return box("".join(parts), f"bpe-predict-question bpe-predict-{p.kind.replace('_', '-')}", size)


def _order(p: Prediction) -> list[int]:
    """The choices' indexes as the model ranked them: the lowest rank first, else the highest
    count, score or log-probability first; a choice the model never ranked last."""
    ascending = p.measure.startswith("merge")

    def key(i):
        m = p.measures[i] if i < len(p.measures) else None
        if m is None:
            return (1, 0)
        return (0, m if ascending else -m)

    return sorted(range(len(p.choices)), key=key)


def prediction_answer_html(prediction, picked=None, *, size: float = 1.0) -> str:
    """The answer: right or not (when ``picked``, a choice or its number from 1, is given), the
    reason, and the choices ranked as the model ranked them with its numbers, the answer
    highlighted, the learner's pick marked. "#" is the choice's number (its button).

    Example::

        >>> from bpe_viz import corpora, train_unigram
        >>> from bpe_viz.engine.predictions import unigram_cut_question
        >>> q = unigram_cut_question(train_unigram(corpora.load("hf-course"), vocab_size=12), "hugs")
        >>> wrong = next(c for c in q.choices if c != q.answer)
        >>> out = prediction_answer_html(q, picked=wrong)
        >>> "Not this one." in out, "your answer" in out, "log-probability" in out
        (True, True, True)
    """
    size = check_size(size)
    p = _check(prediction)
    number = _picked_number(p, picked)
    if p.kind == "next_merge":
        return answer_html(p.tokenizer, p.detail, None if number is None else p.options[number - 1], size=size)
    answer = f'<b class="bpe-predict-answer">{esc(p.answer)}</b>'
    if number is None:
        verdict = f'<span class="bpe-predict-verdict" style="font-weight:700">The answer:</span> {answer}'
    elif p.choices[number - 1] == p.answer:
        verdict = (f'<span class="bpe-predict-verdict bpe-predict-right" style="font-weight:700;color:{_RIGHT}">'
                   f"Right!</span> {answer}")
    else:
        verdict = (f'<span class="bpe-predict-verdict bpe-predict-wrong" style="font-weight:700;color:{_WRONG}">'
                   f"Not this one.</span> You picked {esc(p.choices[number - 1])}; the answer: {answer}")
    reason = f'<div class="bpe-predict-reason" style="margin:0.3em 0;max-width:48em">{esc(p.reason)}</div>'
    rows, styles, classes = [], [], []
    for i in _order(p):
        notes = []
        if p.choices[i] == p.answer:
            notes.append('<span style="font-weight:700">&larr; the answer</span>')
        if number == i + 1:
            notes.append('<span class="bpe-predict-pick" style="font-style:italic">your answer</span>')
        measure = p.measures[i] if i < len(p.measures) else None
        rows.append([str(i + 1), esc(p.choices[i]), esc(measure_text(measure)), " ".join(notes)])
        win = p.choices[i] == p.answer
        styles.append(CHOSEN_STYLE if win else "")
        classes.append("bpe-predict-row" + (" bpe-chosen" if win else ""))
    table = table_html("The choices", ["#", "choice", p.measure or "value", "note"], rows, cls="bpe-predict-table",
                       row_classes=classes, row_styles=styles, numeric=(0, 2))
    return box(f'<div class="bpe-predict-result">{verdict}</div>{reason}{table}', "bpe-predict-answer", size)
