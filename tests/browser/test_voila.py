"""Voilà in Debian's Chromium: each notebook renders as an app (no code, no error output) and its
explorers respond to the keyboard and the mouse. The README's voila.png comes from the first
notebook (into test-artifacts/browser/pictures/; ``make pictures`` copies it to docs/).

Every core lesson and every deep dive is an app, but for the exercise lesson (``NOT_APPS``): the
deep dives show implementer detail, yet their prose and outputs read without the code, as a
lesson's do. A test is named by the notebook's path under notebooks/ (``deep-dives/01_...``).
"""

from __future__ import annotations

import re
import time
from functools import partial

import pytest

from browser_support import SKIP_REASON

if not SKIP_REASON:  # else conftest.py marks every test here skipped, with the reason
    from playwright.sync_api import expect

import browser_support as bs  # noqa: E402
from bpe_viz.view import language_table  # noqa: E402
from bpe_viz.view.compare_tokenizers import visible  # noqa: E402
from class_defects import VOILA_CHECKS  # noqa: E402
from helpers import real_tokenizer  # noqa: E402

NOTEBOOK_FILES = bs.NOTEBOOK_FILES

#: Voilà renders every output as this script first, then the page's JavaScript replaces it.
UNRENDERED = 'script[type="application/vnd.voila.cell-output+json"]'


#: notebooks that are not apps: the learner writes code in them, which Voilà hides
NOT_APPS = {"07_build_bpe_yourself": "an exercise notebook: the learner writes the code, which a Voilà app hides"}


def code_lines(nb_path, min_len: int = 25) -> list[str]:
    """Distinctive source lines of the notebook's code cells (none may show in the app)."""
    import nbformat

    nb = nbformat.read(nb_path, as_version=4)
    lines = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            for line in cell.source.splitlines():
                line = line.strip()
                if len(line) >= min_len and not line.startswith("#"):
                    lines.append(line)
    return lines


def wait_app(page):
    """Wait until Voilà has sent every cell and the page has rendered every output and widget."""
    page.wait_for_load_state("load", timeout=150_000)  # Voilà streams cells as they run
    page.wait_for_function(f"() => document.querySelectorAll('{UNRENDERED}').length === 0", timeout=30_000)
    expect(page.locator("#rendered_cells")).to_be_visible()
    bs.wait_widgets_loaded(page.locator("#rendered_cells"))


def explorer_outputs(page, *, merges: int | None = None, has=None):
    """Output areas holding an explorer: ``merges`` .bpe-merge views, and/or a part ``has``."""
    outs = page.locator(".jp-OutputArea-output").filter(has=page.locator(".widget-vbox"))
    if has is not None:
        outs = outs.filter(has=page.locator(has))
    found = outs.all()
    if merges is not None:
        found = [o for o in found if o.locator(".bpe-merge").count() == merges
                 and bs.control(o, "slider", "step").count() == 1]
    return found


def handle_and_last(slider):
    """The slider's handle (scrolled into view) and the slider's last value."""
    handle = slider.locator(".noUi-handle")
    handle.scroll_into_view_if_needed()
    return handle, int(float(handle.get_attribute("aria-valuemax")))


def exercise_stepper(page, out) -> int:
    """A MergeExplorer: keyboard (Home, ArrowRight, End) and mouse move the step; the merge
    just made and the header follow. Returns the last step."""
    slider = bs.control(out, "slider", "step")
    handle, last = handle_and_last(slider)
    assert last >= 2
    merge = out.locator(".bpe-merge")
    handle.focus()
    page.keyboard.press("Home")
    expect(merge).to_contain_text("step 0: no merge yet")
    seen = {merge.inner_text()}
    for k in (1, 2):
        page.keyboard.press("ArrowRight")
        expect(merge).to_contain_text(re.compile(rf"^merge {k}:"))
        expect(out.locator(".bpe-message").first).to_contain_text(f"Step {k} of {last}")
        seen.add(merge.inner_text())
    page.keyboard.press("End")
    expect(merge).to_contain_text(re.compile(rf"^merge {last}:"))
    seen.add(merge.inner_text())
    assert len(seen) == 4, "the merge just made did not change from step to step"
    bs.drag_handle(page, slider, 0.0)
    expect(merge).to_contain_text("step 0: no merge yet")
    assert bs.slider_value(slider) == 0
    return last


def exercise_compare(page, out):
    """A CompareExplorer: one step slider, both columns show that merge."""
    handle = bs.control(out, "slider", "step").locator(".noUi-handle")
    handle.scroll_into_view_if_needed()
    handle.focus()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    expect(out.locator(".bpe-message").first).to_contain_text("Step 1:")
    for i in range(2):
        expect(out.locator(".bpe-merge").nth(i)).to_contain_text(re.compile(r"^merge 1:"))


def exercise_encoder(page, out):
    """An EncoderExplorer: type a word, see its walkthrough; two words get a readable message."""
    box = bs.control(out, "text", "word").locator("input")
    box.scroll_into_view_if_needed()
    before = box.input_value()
    for word in ("lowest", "two words", before or "newer"):
        box.click()
        box.press("Control+a")
        page.keyboard.type(word, delay=10)
        if " " in word:
            expect(out.locator(".bpe-error")).to_be_visible()
            expect(out.locator(".bpe-error")).to_contain_text("one word")
        else:
            expect(out.locator(".bpe-error")).to_be_hidden()
            expect(out.locator(".bpe-walk-title")).to_contain_text(f"“{word}”")
            expect(out.locator(".bpe-walk-final .bpe-token").first).to_be_visible()


def quiz_of(nb_id: str) -> list:
    """The questions of the notebook's first QuizExplorer, made by the engine as the notebook makes
    them: lesson 01 ends with the paper's example (ten questions, seed 0), lesson 05 asks about
    WordPiece on the course's words, deep dive 01 about the tie rule subword-nmt takes."""
    from bpe_viz import corpora, quiz_questions, train_bpe, train_wordpiece

    quizzes = {  # notebook -> (its trace, n, seed)
        "01_from_compression_to_subwords": (lambda: train_bpe(corpora.load("sennrich2016"), 10,
                                                              preset="sennrich2016"), 10, 0),
        "05_wordpiece": (lambda: train_wordpiece(corpora.load("hf-course"), num_merges=9), 8, 2),
        "deep-dives/01_traps_and_tie_rules": (lambda: train_bpe(corpora.load("slp3"), 8, preset="slp3",
                                                                tie_break="lexicographic"), 8, 1),
    }
    assert nb_id in quizzes, f"{nb_id} holds a QuizExplorer: say in quiz_of which questions it asks"
    trace, n, seed = quizzes[nb_id]
    return quiz_questions(trace(), n=n, seed=seed)


def exercise_quiz(page, out, questions):
    """A QuizExplorer (the notebook's first, ``questions`` from :func:`quiz_of`): all of them
    answered with the keyboard only, then a wrong and a right pick by mouse. The questions,
    answers and reasons come from the engine."""
    out.scroll_into_view_if_needed()
    bs.answer_quiz_by_keys(page, out, questions)
    bs.answer_quiz_by_mouse(page, out, questions)


def exercise_unigram(page, out):
    """A UnigramExplorer: the keyboard moves the round (header, Δloss table title follow); a word
    typed shows its lattice; two words get a readable message in place of the lattice."""
    handle, last = handle_and_last(bs.control(out, "slider", "round"))
    assert last >= 1
    header = out.locator(".bpe-header .bpe-step")
    handle.focus()
    page.keyboard.press("Home")
    expect(header).to_have_text(f"Round 0 of {last}")
    page.keyboard.press("ArrowRight")
    expect(header).to_have_text(f"Round 1 of {last}")
    expect(out.locator(".bpe-removal-table .bpe-table-title")).to_contain_text("Round 1:")
    page.keyboard.press("End")
    expect(header).to_have_text(f"Round {last} of {last}")
    box = bs.control(out, "text", "word").locator("input")
    box.scroll_into_view_if_needed()
    for word, ok in (("two words", False), ("ab", True)):
        box.click()
        box.press("Control+a")
        page.keyboard.type(word, delay=10)
        box.press("Enter")
        if ok:
            expect(out.locator(".bpe-lattice-title")).to_contain_text(f"{word}”")
        else:
            expect(out.locator(".bpe-error")).to_contain_text("one word")


#: what exercise_side_by_side types (lesson 03's check compares its rows with the real tokenizers)
TYPED = "Typed in Voilà: 12345 pieces, naïve café 🦙"


def exercise_side_by_side(page, out):
    """A SideBySideExplorer: a text typed in the box replaces every row (a moment after the last
    key); the second token of each row, chosen in the two dropdowns, gets its why."""
    before = bs.compare_rows(out)
    assert before and all(n > 0 for _name, n, _chips in before), before
    bs.type_into(page, out.locator(".widget-textarea textarea"), TYPED)
    expect(out.locator(".bpe-compare-text")).to_contain_text(visible(TYPED))
    after = bs.compare_rows(out)
    assert [r[0] for r in after] == [r[0] for r in before] and after != before, (before, after)
    assert all(n == chips for _name, n, chips in after), f"one chip a token: {after}"
    for name, _n, _chips in after:
        bs.control(out, "dropdown", "why:").locator("select").select_option(label=name)
        # as a reader does: wait for the row's first token to be chosen (the kernel refills the
        # token list), then choose its second
        expect(out.locator(f'.bpe-compare-row[data-tokenizer="{name}"] .bpe-new')).to_have_count(1)
        expect(out.locator(".bpe-why-head")).to_contain_text(re.compile(r"^Token 1\b"))
        bs.control(out, "dropdown", "token").locator("select").select_option(index=1)
        expect(out.locator(".bpe-why-head")).to_contain_text(re.compile(r"^Token 2\b"))


def check_why_notebook(page, exercised):
    """Lesson 03: every comparison (the two drawn once, and the explorer's after
    exercise_side_by_side) counts what the real tokenizers count for its text, and the language
    table shows their counts and ratios for every bundled language."""
    real = {name: real_tokenizer(name) for name in ("gpt2", "cl100k_base", "o200k_base", "mistral-7b")}

    def rows(text):
        return [(name, n, n) for name, n in ((name, len(tok.encode(text).ids)) for name, tok in real.items())]

    drawn = page.locator(".jp-OutputArea-output").filter(has_not=page.locator(".widget-vbox")).locator(".bpe-compare")
    assert drawn.count() == 2, f"{drawn.count()} comparisons drawn outside the explorer, expected 2"
    for comparison in drawn.all():
        shown = comparison.locator(".bpe-compare-text > div").nth(1).text_content()
        text = shown.replace("␣", " ").replace("↵", "\n").replace("⇥", "\t")
        expect(comparison.locator(".bpe-compare-text")).to_contain_text(f"{len(text):,} characters")
        assert bs.compare_rows(comparison) == rows(text), f"the comparison of {text!r}"
    assert bs.compare_rows(exercised["SideBySideExplorer"]) == rows(TYPED)

    table = page.locator("table.dataframe").filter(has_text="vs English")
    expect(table).to_be_visible()
    shown = table.locator("tbody tr").evaluate_all("trs => trs.map(tr => [...tr.children].map(c => c.textContent))")
    expected = language_table(real).round(2)
    assert [r[0] for r in shown] == list(expected.index)
    for row, (language, values) in zip(shown, expected.iterrows()):
        assert [float(x) for x in row[1:]] == pytest.approx(list(values), abs=0.006), language


#: notebook -> what else its app must show (after its explorers were exercised); issue 19's
#: items 13, 14, 16 and 17 as a class meets them: class_defects.py
NOTEBOOK_CHECKS = {"03_why_tokenization_matters": check_why_notebook, **VOILA_CHECKS}

#: explorer -> (how ``explorer_outputs`` finds its outputs, what a learner does with the first)
EXERCISES = {
    "MergeExplorer": ({"merges": 1}, exercise_stepper),
    "CompareExplorer": ({"merges": 2}, exercise_compare),
    "EncoderExplorer": ({"has": ".bpe-walkthrough"}, exercise_encoder),
    "QuizExplorer": ({"has": ".bpe-quiz-explorer"}, exercise_quiz),
    "UnigramExplorer": ({"has": ".bpe-removal"}, exercise_unigram),
    "SideBySideExplorer": ({"has": ".bpe-compare-row"}, exercise_side_by_side),
}


@pytest.mark.skipif(not NOTEBOOK_FILES, reason="no notebooks in notebooks/ yet")
@pytest.mark.parametrize("nb_path", NOTEBOOK_FILES, ids=[bs.notebook_id(p) for p in NOTEBOOK_FILES])
def test_voila_app(nb_path, voila_page):
    """The notebook as a Voilà app: no code, no error output, widgets displayed; its explorers
    follow the keyboard, the mouse and typing. Screenshot: test-artifacts/browser/."""
    nb_id = bs.notebook_id(nb_path)
    if nb_id in NOT_APPS:
        pytest.skip(f"{nb_id}: {NOT_APPS[nb_id]}")
    t0 = time.monotonic()
    page = voila_page(f"{nb_id}.ipynb")
    wait_app(page)
    timing = {"page until every output and widget rendered": time.monotonic() - t0}

    # an app: no code cells, no prompts, no source text
    expect(page.locator(".jp-CodeCell .jp-InputArea")).to_have_count(0)
    expect(page.locator(".jp-InputPrompt, .jp-InputArea-editor, .cm-editor")).to_have_count(0)
    text = page.locator("#rendered_cells").inner_text()
    shown = [line for line in code_lines(nb_path) if line in text]
    assert not shown, f"source code visible in the Voilà app: {shown[:3]}"
    # ... so the prose must not point at code, and no bare repr may stand alone
    assert "<Trace " not in text, "a bare <Trace ...> repr shows in the app: give the trace its sentence"
    pointing = re.findall(r"[^.\n]*\b(?:(?:a|the|next|this) cell|from code)\b[^.\n]*", text, re.I)
    assert not pointing, f"the prose points at code the app hides: {pointing[:3]}"

    # every cell ran clean and every widget rendered
    assert "There was an error when executing cell" not in text
    problems = bs.cell_problems(page.locator("#rendered_cells"))
    assert not problems, "\n\n".join(problems)
    page.screenshot(path=str(bs.ARTIFACTS / f"voila-{nb_path.stem}.png"))

    # the explorers respond
    exercised = {}  # explorer -> the output exercised
    for name, (where, exercise) in EXERCISES.items():
        found = explorer_outputs(page, **where)
        if found:
            if exercise is exercise_quiz:
                exercise = partial(exercise_quiz, questions=quiz_of(nb_id))
            exercise(page, found[0])
            exercised[name] = found[0]
    if re.search(r"Explorer(\.from_\w+)?\(", "\n".join(code_lines(nb_path, min_len=0))):
        assert exercised, "the notebook makes an explorer, but none was found on the page"
    if nb_id in NOTEBOOK_CHECKS:
        NOTEBOOK_CHECKS[nb_id](page, exercised)
    timing["checks and " + (", ".join(exercised) or "no explorer")] = time.monotonic() - t0 - sum(timing.values())
    (bs.ARTIFACTS / f"voila-{nb_path.stem}.txt").write_text("".join(f"{k}: {s:.1f} s\n" for k, s in timing.items()))

    if nb_path == NOTEBOOK_FILES[0] and "MergeExplorer" in exercised:
        # the README's voila.png: the app around its first stepper, at step 2
        out = exercised["MergeExplorer"]
        bs.control(out, "slider", "step").locator(".noUi-handle").focus()
        page.keyboard.press("Home")
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        expect(out.locator(".bpe-merge")).to_contain_text(re.compile(r"^merge 2:"))
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        page.mouse.move(0, 0)
        out.evaluate("""(o) => {
            const cell = o.closest('.jp-Cell') || o;
            const prev = cell.closest('[cell-index]')?.previousElementSibling;
            (prev || cell).scrollIntoView({block: 'start'});
        }""")
        page.wait_for_timeout(300)
        bs.PICTURES.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(bs.PICTURES / "voila.png"), animations="disabled")
