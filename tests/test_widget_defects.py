"""Issue 19, "nothing a class or a hostile input can break": the explorers' defects, each driven
kernel-side (no browser) by setting traits and clicking buttons as a learner's page would.

* Save never destroys the file it replaces, and the Save button never raises (item 7);
* a bad value set from code shows a readable message in place of the view, and a valid one
  brings the view back (item 12);
* retraining keeps the sentence the learner typed (item 13);
* an explorer on a trace shows the trace's own settings, and Train with no change trains the
  same trace again (item 14);
* a quiz on a text too short for it says what to do (item 20);
* controls moved fast in the page train once, with the latest settings (item 23).
"""

from __future__ import annotations

import asyncio
import os
import stat
import types

import matplotlib

matplotlib.use("Agg")

import IPython
import pytest
import traitlets

from bpe_viz import corpora, encode, train_bpe, train_wordpiece
from bpe_viz.widgets import CompareExplorer, MergeExplorer, QuizExplorer, UnigramExplorer
from loop_support import without_a_running_loop

SENNRICH = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
SURROGATE_TEXT = "a\ud800b a\ud800b low low"


# -- item 7: Save -----------------------------------------------------------------------------------


def test_save_keeps_the_old_file_when_the_page_cannot_be_written(tmp_path):
    """A lone surrogate cannot be written as UTF-8: the error names it, and the file that was
    there before is untouched (it used to be truncated to 0 bytes first)."""
    old = tmp_path / "existing.html"
    old.write_text("<p>my slide from yesterday</p>", encoding="utf-8")
    ex = MergeExplorer(SURROGATE_TEXT, 10)
    assert ex.error is None
    with pytest.raises(ValueError, match=r"UTF-8.*U\+D800"):
        ex.save(old)
    assert old.read_text(encoding="utf-8") == "<p>my slide from yesterday</p>"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["existing.html"]  # no temporary file left


def test_save_button_shows_the_error_in_its_message_box():
    ex = MergeExplorer(SURROGATE_TEXT, 10)
    ex._save_btn.click()  # used to raise UnicodeEncodeError out of the click handler
    assert "bpe-save-error" in ex._save_link.value and "U+D800" in ex._save_link.value
    assert "href=" not in ex._save_link.value


def test_save_writes_a_new_file_then_renames_it(tmp_path, monkeypatch):
    """The page goes to a temporary file beside the target, renamed over it: a failure on the
    way (here the rename) leaves the old file whole and no temporary file behind."""
    old = tmp_path / "step.html"
    old.write_text("old page", encoding="utf-8")
    ex = MergeExplorer("sennrich2016", 10)

    def fail(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="No space left"):
        ex.save(old)
    assert old.read_text(encoding="utf-8") == "old page"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["step.html"]
    monkeypatch.undo()
    old.chmod(0o640)
    assert ex.save(old) == old and "merge" in old.read_text(encoding="utf-8")
    assert stat.S_IMODE(old.stat().st_mode) == 0o640  # the file keeps its permissions
    assert ex.save(tmp_path / "chart.png").read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chart.png", "step.html"]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_save_through_a_symlink_writes_its_target_and_keeps_the_link(tmp_path):
    """Decision: save(path) writes where the path the caller named leads; a link stays a link."""
    target = tmp_path / "slides" / "step.html"
    target.parent.mkdir()
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "link.html"
    link.symlink_to(target)
    ex = MergeExplorer("sennrich2016", 10)
    ex.save(link)
    assert link.is_symlink() and "merge" in target.read_text(encoding="utf-8")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_save_button_writes_no_file(tmp_path, monkeypatch):
    """The Save button offers a download link (a data: URI): it writes nothing beside the
    notebook, so a link named like its page can never have its target overwritten."""
    monkeypatch.chdir(tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_text("precious", encoding="utf-8")
    (tmp_path / "merge-step-0.html").symlink_to(outside)
    before = sorted(p.name for p in tmp_path.iterdir())
    ex = MergeExplorer("sennrich2016", 10)
    ex._save_btn.click()
    assert 'download="merge-step-0.html"' in ex._save_link.value
    assert outside.read_text(encoding="utf-8") == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == before


# -- item 12: a bad value from code -----------------------------------------------------------------


@pytest.mark.parametrize("trait, bad, words", [
    ("step", -1, "step must be between 0 and 10, got -1"),
    ("step", 10**6, "step must be between 0 and 10"),
    ("step", "x", "expected an int"),
    ("size", 0, "size must be between 0.25 and 6"),
    ("size", float("nan"), "got nan"),
    ("preset", "nope", "preset must be one of"),
    ("tie_break", "nope", "tie_break must be one of"),
    ("chart", "pie", "chart must be one of"),
])
def test_a_bad_value_from_code_shows_a_message_then_recovers(trait, bad, words):
    ex = MergeExplorer("sennrich2016", 10)
    ex.step = 3
    good = getattr(ex, trait)
    trace = ex.trace
    with pytest.raises(traitlets.TraitError):
        setattr(ex, trait, bad)
    assert getattr(ex, trait) == good and ex.trace is trace  # nothing changed
    assert ex.error is not None and words in ex.error
    assert "bpe-error" in ex.view_html and ex._view.layout.display == "none"
    setattr(ex, trait, good)  # the same valid value as before: the view comes back
    assert ex.error is None and ex._view.layout.display != "none" and "merge 3:" in ex.text


def test_a_bad_step_then_another_valid_one():
    ex = MergeExplorer("sennrich2016", 10)
    with pytest.raises(traitlets.TraitError):
        ex.step = 11
    assert "between 0 and 10" in ex.error
    ex.controls["slider"].value = 4
    assert ex.error is None and "merge 4:" in ex.text


def test_a_refused_value_leaves_the_message_that_was_there():
    """A bad input (the merges box) keeps its own message; "nothing to show yet" comes back
    after a refused step."""
    ex = MergeExplorer("sennrich2016", 10)
    ex.controls["merges"].value = "abc"
    with pytest.raises(traitlets.TraitError):
        ex.step = -1
    assert "whole number" in ex.error
    empty = MergeExplorer("a b c", 3, preset="hf-course")
    before = empty.error
    assert "single character" in before
    with pytest.raises(traitlets.TraitError):
        empty.step = 2
    assert "between 0 and 0" in empty.error
    empty.step = 0
    assert empty.error == before


def test_other_explorers_show_a_refused_value_too():
    uni = UnigramExplorer("hf-course", vocab_size=14)
    with pytest.raises(traitlets.TraitError):
        uni.flavour = "nope"
    assert "flavour must be one of" in uni.error
    uni.flavour = "hf-course"
    assert uni.error is None and "Round 0" in uni.text
    cmp = CompareExplorer("hf-course", 4)
    with pytest.raises(traitlets.TraitError):
        cmp.bpe_preset = "nope"
    assert "bpe_preset must be one of" in cmp.error
    cmp.step = 1
    assert cmp.error is None


@pytest.mark.parametrize("cls", [MergeExplorer, CompareExplorer])
@pytest.mark.parametrize("bad", ["10", 2.5, None])
def test_num_merges_of_the_wrong_kind_is_a_type_error(cls, bad):
    with pytest.raises(TypeError, match="num_merges must be a whole number"):
        cls("sennrich2016", num_merges=bad)


# -- item 13: the learner's sentence --------------------------------------------------------------


def test_retraining_keeps_the_sentence_typed():
    ex = MergeExplorer("sennrich2016", num_merges=10)
    sample = ex.sentence
    ex.controls["sentence"].value = "the lowest newer widget"
    for change in (lambda: setattr(ex, "num_merges", 6), lambda: setattr(ex, "tie_break", "lexicographic"),
                   lambda: setattr(ex, "preset", "slp3"), ex._train_btn.click):
        change()
        assert ex.sentence == "the lowest newer widget" != sample
    ex.step = 6
    assert ex._sentence_view.value.count('class="bpe-token') == len(
        encode("the lowest newer widget", ex.trace, num_merges=6).pieces)


def test_a_sample_sentence_follows_the_corpus():
    """A sentence the explorer chose (not typed) is the new corpus's sample after a retrain."""
    ex = MergeExplorer("sennrich2016", num_merges=10)
    ex.controls["corpus"].value = "hf-course"
    assert ex.sentence == corpora.SAMPLES["hf-course"]


def test_a_sentence_given_with_the_trace_stays():
    docs = corpora.python_docs_text()[:20_000]
    trace = train_bpe(docs, vocab_size=300, preset="cs336")
    mine = "Use “print()” to show a value."
    ex = MergeExplorer.from_trace(trace, sentence=mine)
    ex._train_btn.click()
    assert ex.sentence == mine
    ex.tie_break = "first"
    assert ex.sentence == mine and ex.error is None


# -- item 14: a trace's own settings --------------------------------------------------------------


def test_a_trace_shows_its_own_preset_and_train_gives_it_again():
    docs = corpora.python_docs_text()[:20_000]
    trace = train_bpe(docs, vocab_size=400, preset="cs336")
    ex = MergeExplorer.from_trace(trace)
    assert ex.preset == "cs336" and ex.controls["preset"].value == "cs336"
    assert ex.tie_break == "preset"
    ex._train_btn.click()
    assert ex.error is None and ex.trace is not trace
    assert ex.trace.convention == trace.convention
    assert [m.pair for m in ex.trace.merges] == [m.pair for m in trace.merges]
    assert len(ex.trace[len(ex.trace) - 1].vocab) == len(trace[len(trace) - 1].vocab)


@pytest.mark.parametrize("kwargs, preset, ties", [
    (dict(preset="sennrich2016", tie_break="lexicographic"), "sennrich2016", "lexicographic"),
    (dict(preset="hf-course", byte_level=True), "bytes", "preset"),
    (dict(preset="minbpe"), "minbpe", "preset"),
    (dict(preset="slp3"), "slp3", "preset"),
])
def test_the_controls_read_what_the_trace_was_trained_with(kwargs, preset, ties):
    trace = train_bpe("low lower newest widest lowest newer wider " * 3, 8, **kwargs)
    ex = MergeExplorer.from_trace(trace)
    assert (ex.preset, ex.tie_break) == (preset, ties)
    assert (ex.controls["preset"].value, ex.controls["ties"].value) == (preset, ties)
    ex._train_btn.click()
    assert ex.trace.convention == trace.convention
    assert [m.pair for m in ex.trace.merges] == [m.pair for m in trace.merges]


def test_compare_explorer_reads_the_preset_of_its_bpe_trace():
    text = corpora.load("hf-course")
    tb, tw = train_bpe(text, 5, preset="hf-course", byte_level=True), train_wordpiece(text, 5)
    cmp = CompareExplorer.from_traces(tb, tw)
    assert cmp.bpe_preset == "bytes"  # (was "hf-course": Train then dropped the bytes)
    cmp._train_btn.click()
    assert cmp.trace_bpe.convention == tb.convention
    assert [m.pair for m in cmp.trace_bpe.merges] == [m.pair for m in tb.merges]


# -- item 20: a quiz on a short text ---------------------------------------------------------------


def test_a_quiz_on_a_short_text_says_what_to_do():
    quiz = QuizExplorer("your text here", num_merges=20)
    assert quiz.error.startswith("This text is too short for a quiz on 20 merges")
    assert "longer text" in quiz.error and "sennrich2016" in quiz.error
    assert "min_frequency times" not in quiz.error.split(":")[0]


@pytest.mark.parametrize("text", ["", "   \n "])
def test_a_quiz_on_an_empty_text_says_it_is_empty(text):
    assert QuizExplorer(text).error.startswith("The text is empty")


# -- item 23: controls moved fast in the page -------------------------------------------------------


class PageMessage:
    """IPython's kernel as it handles a message from the page (a control moved): what
    ``get_ipython().kernel.get_parent()`` says there."""

    def __init__(self, msg_type="comm_msg"):
        self.kernel = types.SimpleNamespace(get_parent=lambda *a: {"header": {"msg_type": msg_type}})


def spy_on_unigram(monkeypatch):
    import bpe_viz.engine.unigram as engine

    calls, real = [], engine.train_unigram

    def spy(corpus, vocab_size, **kw):
        calls.append((vocab_size, kw.get("flavour")))
        return real(corpus, vocab_size, **kw)

    monkeypatch.setattr(engine, "train_unigram", spy)
    return calls


@without_a_running_loop
def test_fast_changes_in_the_page_train_once_with_the_latest_settings(monkeypatch):
    calls = spy_on_unigram(monkeypatch)
    ex = UnigramExplorer("hf-course", vocab_size=14)
    assert calls == [(14, "hf-course")]
    monkeypatch.setattr(IPython, "get_ipython", lambda: PageMessage())

    async def fast():
        ex.controls["vocab size"].value = "13"
        ex.controls["vocab size"].value = "12"
        ex.controls["flavour"].value = "sentencepiece"
        ex.controls["vocab size"].value = "13"
        assert calls == [(14, "hf-course")]  # nothing trained yet: newer settings may follow
        await asyncio.sleep(ex.RETRAIN_DELAY + 0.3)

    asyncio.run(fast())
    assert calls[1:] == [(13, "sentencepiece")]
    assert ex.error is None and ex.trace.flavour == "sentencepiece"


@without_a_running_loop
def test_an_old_error_gives_way_to_the_latest_settings(monkeypatch):
    calls = spy_on_unigram(monkeypatch)
    ex = UnigramExplorer("hf-course", vocab_size=14)
    monkeypatch.setattr(IPython, "get_ipython", lambda: PageMessage())

    async def fix_it():
        ex.controls["vocab size"].value = "3"  # fewer than the corpus's characters
        await asyncio.sleep(ex.RETRAIN_DELAY + 0.3)
        assert "at least the 7 characters" in ex.error
        ex.controls["vocab size"].value = "4"
        ex.controls["vocab size"].value = "12"
        assert "at least the 7 characters" not in ex.error  # no stale message while it trains again
        assert "Training again" in ex.view_html
        await asyncio.sleep(ex.RETRAIN_DELAY + 0.3)

    asyncio.run(fix_it())
    assert calls[1:] == [(3, "hf-course"), (12, "hf-course")]
    assert ex.error is None and len(ex.trace.final.pieces) == 12


@without_a_running_loop
def test_code_in_a_cell_trains_at_once(monkeypatch):
    """A cell's code (an execute_request) sets a trait and reads the result in the same cell."""
    calls = spy_on_unigram(monkeypatch)
    ex = UnigramExplorer("hf-course", vocab_size=14)
    monkeypatch.setattr(IPython, "get_ipython", lambda: PageMessage("execute_request"))

    async def cell():
        ex.vocab_size = 12
        assert calls[-1] == (12, "hf-course") and len(ex.trace.final.pieces) == 12

    asyncio.run(cell())


def test_a_control_shown_again_is_set_to_an_empty_string_not_none():
    """JupyterLite's Pyodide kernel sends a trait set to None as JavaScript ``undefined``, and the
    front end drops the update: a view, a button or a box hidden with ``display="none"`` and shown
    again with ``None`` would stay hidden there (the predictions' and the quiz's buttons did)."""
    from bpe_viz import Predict, next_merge_question, train_bpe

    ex = MergeExplorer("sennrich2016", 10)
    with pytest.raises(traitlets.TraitError):
        ex.step = -5
    assert ex._view.layout.display == "none"
    ex.step = 3
    assert ex._view.layout.display == ""
    q = Predict(next_merge_question(train_bpe("aaabdaaabac", 3, end_of_word=None), 2))
    q.answer(1)
    q.reset()
    shown = q.controls["choices"][:len(q.question.choices)]
    assert shown and [b.layout.display for b in shown] == [""] * len(shown)
