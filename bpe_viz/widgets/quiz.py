"""QuizExplorer: predict the next merge. The learner sees the words before a merge (pair counts
hidden), picks a pair, then sees the counts, the winner and why (its count, or the tie rule).

The questions come from :func:`bpe_viz.engine.merges.quiz.quiz_questions` (ties first, a seed for
the order, so a whole class gets the same quiz); the pictures from :mod:`bpe_viz.view.merges.quiz`.

Keyboard: the "keys" box takes 1–4 (up to 8 when a tie needs more buttons) to answer and Enter
for the next question, so a quiz runs without a mouse (Tab to the box, then keys only). It is
a plain ipywidgets ``Text``: no JavaScript of our own, so it works the same in JupyterLab,
Voilà and on Binder.

Example::

    >>> from bpe_viz import train_bpe
    >>> quiz = QuizExplorer(train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10), n=10)
    >>> quiz.question.step, "which pair does merge 1 take?" in quiz.text
    (1, True)
    >>> quiz.answer(quiz.question.answer_number)
    True
    >>> quiz.score, "Right!" in quiz.text
    (1, True)
"""

from __future__ import annotations

import ipywidgets as widgets
import traitlets

from ..engine import bpe
from ..engine.merges import MAX_CHOICES, Trace, quiz_questions
from ..engine.text import corpora
from ..view import answer_html, display_text, message_html, question_html, summary_html
from .controls import PRESET_CHOICES
from .explorer import Explorer
from .inputs import check_merges
from .training import no_merges_message

__all__ = ["QuizExplorer"]


class QuizExplorer(Explorer):
    """Predict the next merge: questions on a trace, answered by a click or a key.

    ``QuizExplorer(trace)`` asks about a trace you trained (BPE with any preset, or WordPiece:
    then the pair with the best score wins); ``QuizExplorer("sennrich2016")`` trains on a
    bundled corpus (or your text, or a word-count dict) with ``num_merges`` merges and the
    corpus's own preset unless you pass ``preset`` (and ``tie_break``). ``n`` questions, ``seed``
    for their order; ``steps=[1, 5]`` asks about exactly those merges, in that order, instead;
    ``teacher=True`` shows the answers from the start (the "teacher" button).

    From code: ``quiz.answer(2)`` picks choice 2, ``quiz.next()`` moves on, ``quiz.score``.

    Example::

        >>> quiz = QuizExplorer("slp3", n=2, seed=1, tie_break="lexicographic")
        >>> quiz.trace.tie_rule.name, len(quiz.questions)
        ('lexicographic', 2)
    """

    #: which question is shown (0-based); ``len(questions)`` shows the summary
    index = traitlets.Int(0)
    teacher = traitlets.Bool(False)

    def __init__(self, trace_or_corpus="sennrich2016", n: int = 10, seed: int = 0, teacher: bool = False, *,
                 preset: str | None = None, tie_break: str | None = None, num_merges: int = 10,
                 steps=None, size: float = 1.0, max_rows: int = 12):
        super().__init__()
        self._hold = True
        self._setup_common(size)
        self.add_class("bpe-quiz-explorer")  # a handle for browser tests and page styles
        self.trace: Trace | None = None
        self.questions: list = []
        self._picks: dict[int, tuple] = {}
        self.max_rows = max_rows
        self.teacher = bool(teacher)

        self._header = widgets.HTML()
        self._question_view = widgets.HTML()
        self._answer_view = widgets.HTML()
        # a fixed pool of buttons, shown or hidden per question (no widgets made per question)
        self._choice_btns = [widgets.Button(layout=widgets.Layout(width="auto", display="none"))
                             for _ in range(MAX_CHOICES)]
        for i, b in enumerate(self._choice_btns):
            b.on_click(lambda _b, number=i + 1: self._clicked(number))
        self._keys = widgets.Text(description="keys", placeholder="1–4 answers, Enter: next",
                                  continuous_update=True, layout=widgets.Layout(width="22em"))
        self._next_btn = widgets.Button(description="Next", icon="arrow-right",
                                        tooltip="the next question (Enter in the keys box)")
        self._teacher_btn = widgets.ToggleButton(value=self.teacher, description="teacher", icon="eye",
                                                 tooltip="show the answers")
        self._status = widgets.HTML()
        traitlets.link((self._teacher_btn, "value"), (self, "teacher"))
        self._view.children = [
            self._header, self._question_view,
            widgets.HBox(self._choice_btns, layout=widgets.Layout(flex_flow="row wrap")),
            widgets.HBox([self._keys, self._next_btn, self._teacher_btn, self._size_dd]),
            self._status, self._answer_view,
        ]
        self.children = [self._error_view, self._view]

        self._keys.observe(self._key_typed, "value")
        self._keys.on_msg(self._key_message)  # Enter sends {"event": "submit"}
        self._next_btn.on_click(lambda _b: self.next())
        self.observe(lambda _c: self._render(), ["index", "teacher", "size"])
        self._hold = False
        try:
            self.trace = self._trace_from(trace_or_corpus, preset, tie_break, num_merges)
            if not self.trace.merges:
                raise ValueError(_why_no_quiz(self.trace, isinstance(trace_or_corpus, Trace), num_merges))
            self.questions = quiz_questions(self.trace, n, seed, steps=steps)
        except Exception as exc:  # a learner's input: show it, never a traceback
            self._show_error(exc)
            return
        self._render()

    @staticmethod
    def _trace_from(source, preset, tie_break, num_merges) -> Trace:
        if isinstance(source, Trace):
            return source
        if isinstance(source, str) and source in corpora.CORPUS_NAMES:
            corpus = corpora.load(source)
            preset = preset or (source if source in PRESET_CHOICES else "sennrich2016")
        else:
            corpus = source
            preset = preset or "sennrich2016"
        if preset not in PRESET_CHOICES:
            raise ValueError(f"preset must be one of {list(PRESET_CHOICES)}, got {preset!r}")
        kwargs = dict(PRESET_CHOICES[preset][1])
        if tie_break is not None:
            kwargs["tie_break"] = tie_break
        return bpe.train_bpe(corpus, check_merges(num_merges), **kwargs)

    @property
    def controls(self) -> dict:
        """The control widgets by name."""
        return {"choices": list(self._choice_btns), "keys": self._keys, "next": self._next_btn,
                "teacher": self._teacher_btn, "size": self._size_dd}

    # -- the state -----------------------------------------------------------------------------
    @property
    def question(self):
        """The question shown, or ``None`` on the summary (or when there is none)."""
        return self.questions[self.index] if 0 <= self.index < len(self.questions) else None

    @property
    def picks(self) -> list:
        """The pair picked for each question, in order (``None``: not answered yet)."""
        return [self._picks.get(i) for i in range(len(self.questions))]

    @property
    def score(self) -> int:
        """How many questions were answered right."""
        return sum(1 for i, p in self._picks.items() if p == self.questions[i].answer)

    @property
    def answered(self) -> int:
        return len(self._picks)

    @traitlets.validate("index")
    def _valid_index(self, proposal):
        i = proposal["value"]
        if not 0 <= i <= len(self.questions):
            raise traitlets.TraitError(f"index must be between 0 and {len(self.questions)}, got {i}")
        return i

    # -- actions ---------------------------------------------------------------------------------
    def answer(self, number: int) -> bool:
        """Pick choice ``number`` (from 1, as the keys) for the question shown; ``True`` when it
        is right. A question keeps its first answer."""
        q = self.question
        if q is None:
            raise ValueError("there is no question to answer: the quiz is over (next() starts again)")
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(q.choices):
            raise ValueError(f"number must be a choice from 1 to {len(q.choices)}, got {number!r}")
        if self.index not in self._picks:
            self._picks[self.index] = q.choices[number - 1]
            self._status.value = ""
            self._render()
        return self._picks[self.index] == q.answer

    def next(self):
        """The next question (after the last one, the summary; after the summary, start again)."""
        if not self.questions:
            return
        if self.index >= len(self.questions):
            self.restart()
            return
        if self.index not in self._picks and not self.teacher:
            self._hint(f"Answer first: press 1 to {len(self.question.choices)}, or click a pair.")
            return
        self._status.value = ""
        self.index += 1

    def restart(self):
        """Forget the answers and go back to the first question."""
        self._picks.clear()
        self._status.value = ""
        if self.index == 0:
            self._render()
        else:
            self.index = 0

    def _hint(self, text: str):
        self._status.value = message_html(text, size=self.size)

    def _clicked(self, number: int):
        try:
            self.answer(number)
        except ValueError as exc:
            self._hint(str(exc))
        self._keys.focus()  # so that Enter, in the keys box, goes on from here

    def _key_typed(self, change):
        text = change["new"]
        if not text:
            return
        self._keys.value = ""  # the box is a key catcher: empty it for the next key
        key = text.strip()[-1:]
        q = self.question
        if q is None:
            self._hint("The quiz is over: press Enter (or Next) to start again.")
        elif key.isdigit() and 1 <= int(key) <= len(q.choices):
            self.answer(int(key))
        else:
            self._hint(f"Press a number from 1 to {len(q.choices)} to answer, Enter for the next question.")

    def _key_message(self, _widget, content, _buffers):
        if content.get("event") == "submit":
            self.next()

    # -- rendering ---------------------------------------------------------------------------------
    _save_stem = "quiz-question"  # explorer.save("q3.html"): this question (or answer) on a slide

    def _save_name(self) -> str:
        return f"{self._save_stem}-{self.index + 1}"

    def _title(self) -> str:
        if self.trace is None or not self.questions:
            return "QuizExplorer"
        return f"Quiz: {len(self.questions)} questions on merges of {self.trace.convention.describe()}"

    def _html_widgets(self):
        return [self._header, self._question_view, self._status, self._answer_view]

    def _render(self):
        if self._hold or self.trace is None or not self.questions:
            return
        try:
            size, total, i = self.size, len(self.questions), self.index
            if i >= total:
                self._header.value = message_html(f"The end: {self.score} of {total} right", size=size)
                self._question_view.value = summary_html(self.trace, self.questions, self.picks, size=size)
                self._answer_view.value = ""
                for b in self._choice_btns:
                    b.layout.display = "none"
                self._next_btn.description = "Start again"
                self._keys.placeholder = "Enter: start again"
            else:
                self._render_question(i, total, size)
        except Exception as exc:
            self._show_error(exc)
            return
        self._clear_error()

    def _render_question(self, i: int, total: int, size: float):
        q = self.questions[i]
        picked = self._picks.get(i)
        done = picked is not None
        self._header.value = message_html(
            f"Question {i + 1} of {total} — score {self.score} of {self.answered}", size=size)
        self._question_view.value = question_html(self.trace, q, number=i + 1, of=total, show_choices=False,
                                                  max_rows=self.max_rows, size=size)
        conv = self.trace.convention
        reveal = done or self.teacher
        for j, b in enumerate(self._choice_btns):
            if j >= len(q.choices):
                b.layout.display = "none"
                continue
            pair = q.choices[j]
            b.layout.display = ""
            b.description = f"{j + 1}: ({display_text(pair[0], conv)}, {display_text(pair[1], conv)})"
            b.tooltip = f"press {j + 1}"
            b.disabled = done
            if reveal and pair == q.answer:
                b.button_style = "success"
            elif done and pair == picked:
                b.button_style = "danger"
            else:
                b.button_style = ""
        self._next_btn.description = "Next" if i + 1 < total else "Finish"
        self._keys.placeholder = f"1–{len(q.choices)} answers, Enter: next"
        self._answer_view.value = answer_html(self.trace, q, picked, size=size) if reveal else ""


def _why_no_quiz(trace, given: bool, num_merges) -> str:
    """Why a trace with no merge makes no quiz, said to a learner, with what to do."""
    if not trace.words:
        return "The text is empty: type or paste some words first (a paragraph or more makes a good quiz)."
    why = no_merges_message(trace)
    if given:
        return f"This trace has no merges, so there is nothing to ask. {why}"
    if trace.stop_reason == "min_frequency":
        return (f"This text is too short for a quiz on {num_merges} merges: no pair of symbols occurs "
                f"{trace.convention.min_frequency} times or more, so not one merge was learned. Use a longer "
                'text (a paragraph or more) or repeat some words, or a bundled corpus: QuizExplorer("sennrich2016").')
    return f"There is nothing to ask. {why}"
