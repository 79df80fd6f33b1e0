"""The :class:`Predict` widget: one "predict before you see" question in a notebook cell, any
kind (:mod:`bpe_viz.engine.predictions`), answered by a click or from code.

How it differs from :class:`~bpe_viz.widgets.QuizExplorer`: the quiz trains (or takes) a trace
and asks ten merges in a row, with keys, a score and a summary; ``Predict`` asks the one
question a lesson has just built, about whatever it asks (a merge, the encoder's first merge, WordPiece's
pick, a Unigram cut), and then the lesson goes on. Wiring only: both views come from
:mod:`bpe_viz.view.predictions`.
"""

from __future__ import annotations

import functools

import ipywidgets as widgets
import traitlets

from ..engine.merges import MAX_CHOICES, Question
from ..engine.predictions import Prediction, from_quiz_question
from ..view import message_html, prediction_answer_html, prediction_html
from .explorer import Explorer

__all__ = ["Predict"]


class Predict(Explorer):
    """One question, one button per choice; after a click, right or wrong and the reason.

    ``Predict(first_merge_question(trace, "lowest"))`` asks it; a question of the merge quiz
    needs its trace: ``Predict(quiz_questions(trace, steps=[1])[0], trace=trace)``. The "show
    me" toggle (``teacher=True``) shows the answer without answering, for a teacher at the
    front. From code: ``p.answer(2)`` picks choice 2 (from 1, as the buttons are numbered) and
    says whether it is right; ``p.picked``; ``p.reset()`` to ask again.

    A question that cannot be shown (not a question, a quiz question without its trace) shows
    the message in place of the view.

    Example::

        >>> from bpe_viz import corpora, train_bpe
        >>> from bpe_viz.engine.predictions import first_merge_question
        >>> p = Predict(first_merge_question(train_bpe(corpora.load("sennrich2016"), 10), "lowest"))
        >>> p.answer(p.question.answer_number), "Right!" in p.text
        (True, True)
    """

    teacher = traitlets.Bool(False)

    def __init__(self, question, *, trace=None, teacher: bool = False, size: float = 1.0):
        super().__init__()
        self._hold = True
        self._setup_common(size)
        self.add_class("bpe-predict")  # a handle for browser tests and page styles
        self.question: Prediction | None = None
        self._picked: int | None = None
        self.teacher = bool(teacher)
        self._question_view, self._answer_view, self._status = widgets.HTML(), widgets.HTML(), widgets.HTML()
        self._choice_btns = []  # one per choice: shown or hidden as the question needs
        for number in range(1, MAX_CHOICES + 1):
            button = widgets.Button(layout=widgets.Layout(width="auto", display="none"))
            button.on_click(functools.partial(self._on_button, number))
            self._choice_btns.append(button)
        self._teacher_btn = widgets.ToggleButton(value=self.teacher, description="show me", icon="eye",
                                                 tooltip="show the answer (for the teacher)")
        traitlets.link((self._teacher_btn, "value"), (self, "teacher"))
        self._view.children = [
            self._question_view,
            widgets.HBox(self._choice_btns, layout=widgets.Layout(flex_flow="row wrap")),
            widgets.HBox([self._teacher_btn, self._size_dd]),
            self._status, self._answer_view,
        ]
        self.children = [self._error_view, self._view]
        self.observe(lambda _c: self._render(), ["teacher", "size"])
        self._hold = False
        try:
            self.question = self._prediction(question, trace)
        except Exception as exc:  # a learner's input: show it, never a traceback
            self._show_error(exc)
            return
        self._render()

    @staticmethod
    def _prediction(question, trace) -> Prediction:
        if isinstance(question, Question):
            if trace is None:
                raise TypeError("question is a question of the merge quiz: give its trace too, "
                                "Predict(question, trace=trace)")
            return from_quiz_question(trace, question)
        if not isinstance(question, Prediction):
            raise TypeError("question must be a Prediction (from first_merge_question, wordpiece_vs_bpe_question, "
                            "unigram_cut_question or next_merge_question in bpe_viz.engine.predictions), got "
                            f"{type(question).__name__}")
        if len(question.choices) > MAX_CHOICES:
            raise ValueError(f"question has {len(question.choices)} choices, more than the {MAX_CHOICES} buttons")
        return question

    @property
    def controls(self) -> dict:
        """The control widgets by name."""
        return {"choices": list(self._choice_btns), "teacher": self._teacher_btn, "size": self._size_dd}

    @property
    def picked(self) -> str | None:
        """The choice picked (its label), or ``None`` before an answer."""
        return None if self._picked is None else self.question.choices[self._picked - 1]

    @property
    def right(self) -> bool | None:
        """Whether the pick is the answer (``None`` before an answer)."""
        return None if self._picked is None else self.picked == self.question.answer

    def answer(self, number: int) -> bool:
        """Pick choice ``number`` (from 1, as the buttons); ``True`` when it is right. The first
        answer stays (:meth:`reset` to ask again)."""
        q = self.question
        if q is None:
            raise ValueError(f"there is no question to answer: {self.error}")
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(q.choices):
            raise ValueError(f"number must be a choice from 1 to {len(q.choices)}, got {number!r:.60}")
        if self._picked is None:
            self._picked = number
            self._status.value = ""
            self._render()
        return self.right

    def reset(self):
        """Forget the answer: ask again."""
        self._picked = None
        self._status.value = ""
        self._render()

    def _on_button(self, number: int, _button):
        try:
            self.answer(number)
        except ValueError as exc:
            self._status.value = message_html(str(exc), size=self.size)

    # -- rendering ---------------------------------------------------------------------------------
    _save_stem = "prediction"

    def _save_name(self) -> str:
        return f"{self._save_stem}-{self.question.kind if self.question is not None else 'none'}"

    def _title(self) -> str:
        return f"Predict: {self.question.prompt}" if self.question is not None else "Predict"

    def _html_widgets(self):
        return [self._question_view, self._status, self._answer_view]

    def _static_body(self, chart: str) -> str:
        # stored output (an untrusted notebook, GitHub): the buttons are gone, so list the choices
        q = self.question
        if q is None:
            return ""
        reveal = self._picked is not None or self.teacher
        parts = [prediction_html(q, show_choices=True, size=self.size),
                 prediction_answer_html(q, self._picked, size=self.size) if reveal else ""]
        return "\n".join(part for part in parts if part)

    def _render(self):
        if self._hold or self.question is None:
            return
        try:
            q, size, picked = self.question, self.size, self._picked
            done = picked is not None
            reveal = done or self.teacher
            self._question_view.value = prediction_html(q, show_choices=False, size=size)
            for j, b in enumerate(self._choice_btns):
                if j >= len(q.choices):
                    b.layout.display = "none"
                    continue
                b.layout.display = ""
                b.description = f"{j + 1}: {q.choices[j]}"
                b.tooltip = q.choices[j]
                b.disabled = done
                right = q.choices[j] == q.answer
                b.button_style = ("success" if reveal and right else "danger" if done and j + 1 == picked else "")
            self._answer_view.value = prediction_answer_html(q, picked, size=size) if reveal else ""
        except Exception as exc:
            self._show_error(exc)
            return
        self._clear_error()
