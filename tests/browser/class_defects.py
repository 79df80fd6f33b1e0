"""What a teacher and students did that broke the explorers (issue 19, items 13, 14, 16 and 17),
as checks on an explorer's output area in any page: JupyterLab (test_class_defects_lab.py, on a
scratch notebook) and Voilà (test_voila.py's ``NOTEBOOK_CHECKS``, on the real notebooks, after
their explorers were exercised). Kernel-side twins: tests/test_widget_defects.py and
tests/test_view_defects.py.

* 13: a sentence typed in the explorer stays through every retrain (merges, ties, Train);
* 14: an explorer on a trace shows the trace's own settings, and Train with no change trains
  the same run (lesson 04: preset "cs336", 743 merges, 999 tokens in the table);
* 16: the quiz's words table grows with the size option (the projector);
* 17: invisible characters (ZWJ, VS16) show as visible, named chips: ``<U+200D>``.

What the page should show comes from the engine (``train_bpe`` / ``encode``), never from the page.
"""

from __future__ import annotations

import re
import time

import browser_support as bs
from bpe_viz import corpora, encode, train_bpe
from bpe_viz.view.kit import BASE_PX, display_text
from bpe_viz.widgets.controls import PRESET_CHOICES, SIZE_CHOICES, TIE_CHOICES, settings_of

#: what a student typed (lesson 01's explorer: words of the corpus and letters it never saw)
TYPED = "the lowest newer widget"
#: a family emoji (joined by ZWJ) and a red heart with VS16
INVISIBLE_SENTENCE = "low 👨\u200d👩 ❤\ufe0f"
RETRAINING = "Training again with the new settings…"
#: tie rule -> the label the ties dropdown shows for it
TIE_LABEL = {rule: label for label, rule in TIE_CHOICES}

if not bs.SKIP_REASON:  # (imported by test modules that skip without a browser)
    from playwright.sync_api import expect


def sennrich(n: int = 10, **kw):
    return train_bpe(corpora.load("sennrich2016"), n, preset="sennrich2016", **kw)


def docs_trace():
    """Lesson 04's run: byte-level BPE (CS336's preset) on Python's documentation."""
    return train_bpe(corpora.python_docs_text(), vocab_size=1000, preset="cs336")


# -- reading an explorer ---------------------------------------------------------------------------


def sentence_box(out):
    return bs.control(out, "text", "sentence").locator("input")


def slider(out):
    return bs.control(out, "slider", "step")


def header(out):
    return out.locator(".bpe-header").first


def expected_chips(sentence: str, trace, step: int) -> list[tuple[str, bool]]:
    """(text, unknown?) of each chip of ``sentence`` encoded with the first ``step`` merges."""
    enc = encode(sentence, trace, num_merges=step)
    return [(display_text(p, trace.convention), u) for p, u in zip(enc.pieces, enc.unknown)]


def wait_chips(out, sentence: str, trace, what: str, timeout: float = 15.0):
    """Poll until the sentence's chips are the engine's at the slider's step."""
    seg = out.locator(".bpe-segments").first
    deadline = time.monotonic() + timeout
    while True:
        step = bs.slider_value(slider(out))
        expected, got = expected_chips(sentence, trace, step), bs.tokens(seg)
        if got == expected or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert got == expected, f"{what}: at step {step} the page shows {got!r}, the engine {expected!r}"


def wait_trained(out, trace):
    """A retrain asked for from the page is done (it waits 0.2 s for newer settings): no
    "training again" note, the header names ``trace``'s settings and last step."""
    expect(out.get_by_text(RETRAINING)).to_have_count(0, timeout=30_000)
    expect(header(out)).to_contain_text(re.compile(rf"^Step \d+ of {len(trace) - 1} — "), timeout=30_000)
    expect(header(out)).to_contain_text(trace.convention.describe(), timeout=30_000)


def choose(out, description: str, label: str):
    """Choose the option of the dropdown ``description`` that reads ``label``."""
    select = bs.control(out, "dropdown", description).locator("select")
    options = [o for o in select.locator("option").all_inner_texts() if o.replace("\xa0", " ") == label]
    assert len(options) == 1, f"no option {label!r} in {description}: {select.locator('option').all_inner_texts()}"
    select.select_option(value=options[0])


def shown_option(out, description: str) -> str:
    select = bs.control(out, "dropdown", description).locator("select")
    return select.evaluate("s => s.options[s.selectedIndex].text").replace("\xa0", " ")


def enter_sentence(page, out, sentence: str):
    box = sentence_box(out)
    box.scroll_into_view_if_needed()
    box.fill(sentence)  # (fill, not key by key: the emoji and the ZWJ as one paste would bring them)
    box.press("Enter")


# -- 13: the typed sentence stays ----------------------------------------------------------------


def check_typed_sentence_stays(page, out, before, changes):
    """Type :data:`TYPED`, Enter: the chips follow the engine. Then each of ``changes`` (a label,
    what to do in the page, the trace it trains): after the retrain the sentence box still holds
    the typed sentence and its chips are the new trace's."""
    enter_sentence(page, out, TYPED)
    wait_chips(out, TYPED, before, "the typed sentence")
    for label, act, trace in changes:
        act()
        wait_trained(out, trace)
        expect(sentence_box(out)).to_have_value(TYPED)
        wait_chips(out, TYPED, trace, f"the typed sentence after {label}")


def settings_changes(page, out):
    """Fewer merges (the merges box), another tie rule (the ties dropdown), Train with no change."""
    lexicographic = TIE_LABEL["lexicographic"]

    def merges():
        box = bs.control(out, "text", "merges").locator("input")
        box.fill("6")
        box.press("Enter")

    def train():
        out.get_by_role("button", name="Train").click()
        page.wait_for_timeout(800)  # its 0.2 s wait and the training (a few ms) are over

    return [("6 merges", merges, sennrich(6)),
            ("the lexicographic tie rule", lambda: choose(out, "ties", lexicographic),
             sennrich(6, tie_break="lexicographic")),
            ("Train", train, sennrich(6, tie_break="lexicographic"))]


# -- 14: a trace's own settings -------------------------------------------------------------------


def check_trace_settings(page, out, trace, sentence: str):
    """The controls read what ``trace`` was trained with; Train with no change trains the same
    run again (same settings, merges and vocabulary size); the given sentence stays whole."""
    preset, ties = settings_of(trace.convention)
    assert shown_option(out, "preset") == PRESET_CHOICES[preset][0]
    assert shown_option(out, "ties") == TIE_LABEL[ties]
    expect(bs.control(out, "text", "merges").locator("input")).to_have_value(str(len(trace.merges)))
    expect(sentence_box(out)).to_have_value(sentence)
    out.get_by_role("button", name="Train").click()
    page.wait_for_timeout(1500)  # its 0.2 s wait, then the training (about a second on this text)
    expect(out.locator(".widget-progress:visible")).to_have_count(0, timeout=60_000)
    wait_trained(out, trace)
    expect(sentence_box(out)).to_have_value(sentence)  # not garbled
    handle = slider(out).locator(".noUi-handle")
    assert int(float(handle.get_attribute("aria-valuemax"))) == len(trace) - 1
    handle.focus()
    page.keyboard.press("End")
    last = len(trace) - 1
    expect(out.locator(".bpe-vocab-table .bpe-caption")).to_contain_text(f"; {len(trace[last].vocab):,} tokens")
    wait_chips(out, sentence, trace, "the trace's sentence after Train")


# -- 16: the quiz at projector size -----------------------------------------------------------------

_WORDS_JS = """
(el) => [parseFloat(getComputedStyle(el).fontSize),
         parseFloat(getComputedStyle(el.querySelector('td')).fontSize),
         el.getBoundingClientRect().height]
"""


def check_quiz_scales(page, out):
    """At size "normal" the words table students count is in 14 px text; choose "projector":
    its text is 1.75 times that, and the table that much taller."""
    words = out.locator(".bpe-words").first
    choose(out, "size", "normal")
    expect(words).to_have_css("font-size", css_px(1.0))
    small, small_cell, small_height = words.evaluate(_WORDS_JS)
    choose(out, "size", "projector")
    big_size = dict(SIZE_CHOICES)["projector"]
    expect(words).to_have_css("font-size", css_px(big_size))
    big, big_cell, big_height = words.evaluate(_WORDS_JS)
    assert big == small * big_size and big_cell == small_cell * big_size, (small, small_cell, big, big_cell)
    assert big_height > 1.5 * small_height, (small_height, big_height)


def css_px(size: float) -> str:
    """The views' text size at ``size`` as the browser reports it: "14px" at 1.0 (``BASE_PX``)."""
    return f"{BASE_PX * size:g}px"


# -- 17: invisible characters --------------------------------------------------------------------


def check_invisible_chips(page, out, trace):
    """Type :data:`INVISIBLE_SENTENCE`: the chips are the engine's, and each invisible character
    the engine's chips name (the ZWJ at least: ``<U+200D>``) shows in a visible chip of a real
    width, not a blank tile."""
    enter_sentence(page, out, INVISIBLE_SENTENCE)
    wait_chips(out, INVISIBLE_SENTENCE, trace, "the sentence with a ZWJ and a VS16")
    step = bs.slider_value(slider(out))
    names = sorted({n for text, _unk in expected_chips(INVISIBLE_SENTENCE, trace, step)
                    for n in re.findall(r"<U\+[0-9A-F]{4,6}>", text)})
    assert "<U+200D>" in names, names
    seg = out.locator(".bpe-segments").first
    for name in names:
        chip = seg.locator(".bpe-token", has_text=name).first
        expect(chip).to_be_visible()
        width = chip.evaluate("e => e.getBoundingClientRect().width")
        assert width > 20, f"the chip of {name} is {width} px wide"


# -- Voilà: the real notebooks, after test_voila.py exercised their explorers ----------------------


def voila_notebook_01(page, exercised):
    """16 in lesson 01's quiz (the paper's, at its end), then 13 and 17 in its first explorer."""
    check_quiz_scales(page, exercised["QuizExplorer"])
    out = exercised["MergeExplorer"]
    sample = sentence_box(out).input_value()
    check_typed_sentence_stays(page, out, sennrich(10), settings_changes(page, out))
    check_invisible_chips(page, out, sennrich(6, tie_break="lexicographic"))
    # as the notebook left it: the README's voila.png is taken from this explorer next
    choose(out, "ties", TIE_LABEL["preset"])
    box = bs.control(out, "text", "merges").locator("input")
    box.fill("10")
    box.press("Enter")
    wait_trained(out, sennrich(10))
    enter_sentence(page, out, sample)
    wait_chips(out, sample, sennrich(10), "the notebook's sentence again")


def voila_notebook_04(page, exercised):
    """14 (and 13: the given sentence whole after Train) in lesson 04's explorer."""
    check_trace_settings(page, exercised["MergeExplorer"], docs_trace(), "Use “print()” to show a value.")


#: notebook -> the checks above, for test_voila.py's NOTEBOOK_CHECKS
VOILA_CHECKS = {
    "01_from_compression_to_subwords": voila_notebook_01,
    "04_the_bpe_inside_gpt": voila_notebook_04,
}
