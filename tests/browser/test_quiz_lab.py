"""The quiz and the merge trees in JupyterLab, in Debian's Chromium, used as a learner would:
answer by keyboard only (the "keys" box: a number, then Enter) and by mouse (the pair buttons,
Next), the teacher toggle, and the stepper's "tree of" box. (The same quiz in Voilà is
exercised by test_voila.py on lesson 01, lesson 05 and deep dive 01.)

What the page should show is computed here from the engine (``quiz_questions``,
``merge_tree``), never copied from the page.
"""

from __future__ import annotations

import re

import pytest

from browser_support import SKIP_REASON

if not SKIP_REASON:  # else conftest.py marks every test here skipped, with the reason
    from playwright.sync_api import expect

import browser_support as bs  # noqa: E402
from bpe_viz import corpora, quiz_questions, train_bpe, train_wordpiece  # noqa: E402

SCRATCH = "scratch/quiz.ipynb"
CELLS = {
    "imports": "from bpe_viz import QuizExplorer, MergeExplorer, corpora, train_bpe, train_wordpiece",
    "keys": 'keys_quiz = QuizExplorer(train_bpe(corpora.load("sennrich2016"), 10, preset="sennrich2016"), n=10)\n'
            "keys_quiz",
    "mouse": 'mouse_quiz = QuizExplorer(train_wordpiece(corpora.load("hf-course"), 9), n=8, seed=2)\nmouse_quiz',
    "teacher": 'teacher_quiz = QuizExplorer("slp3", n=8, seed=1, tie_break="lexicographic")\nteacher_quiz',
    "stepper": 'stepper = MergeExplorer("sennrich2016", 10)\nstepper',
}


@pytest.fixture(scope="module")
def quiz_nb(lab, lab_app):
    """The scratch notebook (written with nbformat into the repo copy), run once in this module's
    JupyterLab page; yields (page, {cell name: output locator})."""
    with bs.run_scratch_notebook(lab_app, lab, SCRATCH, CELLS) as run:
        yield run.page, run.outputs


def test_ten_questions_by_keyboard_only(quiz_nb):
    """The paper's example: all ten questions answered with number keys and Enter, 10 of 10."""
    page, outs = quiz_nb
    trace = train_bpe(corpora.load("sennrich2016"), 10, preset="sennrich2016")
    bs.answer_quiz_by_keys(page, outs["keys"], quiz_questions(trace, n=10))


def test_answer_by_mouse_wordpiece(quiz_nb):
    """WordPiece: a wrong pick, then Next, then a right one, all by mouse clicks; scores shown."""
    page, outs = quiz_nb
    questions = quiz_questions(train_wordpiece(corpora.load("hf-course"), 9), n=8, seed=2)
    bs.answer_quiz_by_mouse(page, outs["mouse"], questions)
    expect(outs["mouse"].locator(".bpe-quiz-table")).to_contain_text("score")


def test_teacher_toggle_shows_the_answer(quiz_nb):
    """The teacher button: the answer, its reason (subword-nmt's tie rule) and the right button
    show before anyone answers; off again, they are hidden."""
    page, outs = quiz_nb
    out = outs["teacher"]
    trace = train_bpe(corpora.load("slp3"), 10, preset="slp3", tie_break="lexicographic")
    q = quiz_questions(trace, n=8, seed=1)[0]
    assert q.answer == ("r", "_") and q.is_tie  # SLP3's first tie, taken by the greatest pair
    expect(out.locator(".bpe-quiz-verdict")).to_have_count(0)
    out.get_by_role("button", name="teacher").click()
    expect(out.locator(".bpe-quiz-verdict")).to_have_text("The answer:")
    expect(out.locator(".bpe-quiz-reason")).to_have_text(q.reason)
    expect(out.locator(".bpe-quiz-reason")).to_contain_text("greatest pair by code points")
    right = out.locator(".widget-button", has_text=re.compile(rf"^{q.answer_number}: \("))
    expect(right).to_have_class(re.compile(r"mod-success"))
    out.get_by_role("button", name="teacher").click()
    expect(out.locator(".bpe-quiz-verdict")).to_have_count(0)
    expect(right).not_to_have_class(re.compile(r"mod-success"))


def test_stepper_tree_of_a_token(quiz_nb):
    """The stepper's "tree of" box: type newest</w> + Enter at the last step: nested boxes with
    the engine's merge numbers; step back below merge 8: a note that the token is not made yet."""
    page, outs = quiz_nb
    out = outs["stepper"]
    from bpe_viz import merge_tree

    trace = train_bpe(corpora.load("sennrich2016"), 10)
    tree = merge_tree(trace, "newest</w>")
    handle = bs.control(out, "slider", "step").locator(".noUi-handle")
    handle.focus()
    page.keyboard.press("End")
    box = bs.control(out, "text", "tree of").locator("input")
    box.click()
    page.keyboard.type("newest</w>", delay=10)
    page.keyboard.press("Enter")
    nodes = out.locator(".bpe-tree-node")
    expect(nodes).to_have_count(6)
    assert sorted(_preorder_steps(tree)) == [1, 2, 3, 6, 7, 8]  # the paper's merges for n, e, w, e, s, t
    expect(out.locator(".bpe-tree-step")).to_have_text([f"merge {k}" for k in _preorder_steps(tree)])
    handle.focus()
    page.keyboard.press("Home")
    expect(out.locator(".bpe-tree-note")).to_contain_text("made by merge 8, after the first 0 merges")
    expect(nodes).to_have_count(0)


def _preorder_steps(tree) -> list[int]:
    """The merge numbers of a tree's boxes in document order (a box, then its left, then right)."""
    if tree[1] == 0:
        return []
    return [tree[1], *_preorder_steps(tree[2]), *_preorder_steps(tree[3])]
