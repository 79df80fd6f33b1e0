"""Issue 19, "what trips a class", items 13, 14, 16 and 17 in JupyterLab in Chromium, as a
student does them: type a sentence then retrain, Train an explorer made from a trace, put the
quiz on the projector, type an emoji joined by ZWJ. The checks are :mod:`class_defects`' (the
Voilà app runs them on the real notebooks: test_voila.py); here they run on one scratch notebook
(written with nbformat into the repo copy, run once per module), each test on its own explorer.
Item 15 (stored outputs untrusted) is test_untrusted_lab.py's.
"""

from __future__ import annotations

import pytest

import browser_support as bs
import class_defects as cd

#: words with invisible characters in them: each is a token of its own at step 0
INVISIBLE_WORDS = {"👨\u200d👩": 4, "❤\ufe0f": 3, "co\u00adop": 2}

SCRATCH = "scratch/class_defects.ipynb"
CELLS = {
    "imports": "from bpe_viz import corpora, train_bpe\nfrom bpe_viz.widgets import MergeExplorer, QuizExplorer",
    "typed": 'typed_ex = MergeExplorer("sennrich2016", 10)\ntyped_ex',
    "traced": ('docs_trace = train_bpe(corpora.python_docs_text(), vocab_size=1000, preset="cs336")\n'
               'MergeExplorer.from_trace(docs_trace, sentence="Use “print()” to show a value.")'),
    "quiz": 'QuizExplorer("sennrich2016", n=5)',
    "invisible": f"MergeExplorer({INVISIBLE_WORDS!r}, 3)",
    "unseen": 'unseen_ex = MergeExplorer("sennrich2016", 10)\nunseen_ex',
}


@pytest.fixture(scope="module")
def defects_nb(lab, lab_app):
    with bs.run_scratch_notebook(lab_app, lab, SCRATCH, CELLS, shown_timeout=60_000) as run:
        yield run.page, run.outputs


def test_13_a_typed_sentence_stays_through_retrains(defects_nb):
    page, outs = defects_nb
    out = outs["typed"]
    cd.check_typed_sentence_stays(page, out, cd.sennrich(10), cd.settings_changes(page, out))


def test_14_an_explorer_on_a_trace_trains_it_again(defects_nb):
    """Notebook 05's explorer: preset "cs336" in the dropdown (it read "byte-level (GPT-2)"),
    and Train with no change keeps 743 merges and the vocabulary table's 999 tokens (it retrained
    as "hf-course": 218)."""
    page, outs = defects_nb
    cd.check_trace_settings(page, outs["traced"], cd.docs_trace(), "Use “print()” to show a value.")


def test_16_the_quiz_words_table_on_a_projector(defects_nb):
    page, outs = defects_nb
    cd.check_quiz_scales(page, outs["quiz"])


def test_17_invisible_characters_are_named(defects_nb):
    """Known invisible tokens (in the words table and the pair chart) and an unknown one (typed
    in the sentence) show their code points: ``<U+200D>``, dimmed like a marker."""
    from playwright.sync_api import expect

    from bpe_viz import train_bpe

    page, outs = defects_nb
    out = outs["invisible"]
    trace = train_bpe(INVISIBLE_WORDS, 3)
    words = out.locator(".bpe-words")
    for name in ("<U+200D>", "<U+FE0F>", "<U+00AD>"):
        marker = words.locator(".bpe-marker", has_text=name).first
        expect(marker).to_be_visible()
        assert float(marker.evaluate("e => getComputedStyle(e).opacity")) < 1  # dimmed, as </w> is
    expect(out.locator("svg text", has_text="U+200D").first).to_be_visible()  # the chart's labels
    cd.check_invisible_chips(page, out, trace)
    # a ZWJ the run never saw is an "unk" chip that names it too
    cd.check_invisible_chips(page, outs["unseen"], cd.sennrich(10))
