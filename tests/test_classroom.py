"""What a class trips over, checked without a browser (tests/browser/test_classroom.py has the
browser side): a step saved for a slide, the static HTML a stored notebook shows before it runs,
the merges box, an error that stays until it is fixed, a slider whose range follows retraining,
the step buttons, why training stopped, long words, the projector layout.

Expected values come from the engine (``train_bpe``) on the bundled corpora; the 2016 paper's
dictionary (low×5, lower×2, newest×6, widest×3) has nothing left to merge after 15 merges.
"""

from __future__ import annotations

import base64
import re

import matplotlib

matplotlib.use("Agg")

import pytest

from bpe_viz import corpora, train_bpe, train_wordpiece
from bpe_viz.view import MAX_CHIPS, MAX_LABEL_CHARS, MAX_SENTENCE_TOKENS
from bpe_viz.widgets import CompareExplorer, EncoderExplorer, MergeExplorer
from bpe_viz.widgets.controls import PROJECTOR, SIZE_CHOICES, SPEED_CHOICES
from bpe_viz.widgets.inputs import parse_merges, plain_text
from helpers import notebook_files, notebook_id

PNG = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(PNG)
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def merge_line(m) -> str:
    return f"merge {m.step}: ({m.pair[0]}, {m.pair[1]}) → {m.token}, count {m.count:,}"


# -- a step on a slide ----------------------------------------------------------------------------


def test_save_html_is_a_standalone_offline_page_of_the_current_step(tmp_path):
    ex = MergeExplorer("sennrich2016", 10)
    ex.step = 5
    trace = train_bpe(corpora.load("sennrich2016"), 10, preset="sennrich2016")
    written = ex.save(tmp_path / "step5.html")
    assert written == tmp_path / "step5.html"
    page = written.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page
    text = plain_text(page)
    assert merge_line(trace[5].merge) in text and "Step 5 of 10" in text
    assert "Pairs at step 5" in text and "Words at step 5" in text and "Vocabulary at step 5" in text
    # offline: no script, no stylesheet, every src / href is inline data
    assert "<script" not in page and "<link" not in page and "<style" not in page
    assert all(u.startswith("data:") for u in re.findall(r'(?:src|href)="([^"]*)"', page))
    # the chart: the very picture the widget shows (its inline SVG), nothing to fetch
    assert ex._chart_view.value.startswith("<svg") and ex._chart_view.value in page
    assert 'data-bpe-chart-step="5"' in page
    # the same step, the same bytes
    assert ex.save(tmp_path / "again.html").read_text(encoding="utf-8") == page


def test_save_png_is_the_chart_at_slide_resolution(tmp_path):
    ex = MergeExplorer("sennrich2016", 10, chart="merges")
    ex.step = 3
    png = ex.save(tmp_path / "step3.png", dpi=150).read_bytes()
    assert png_size(png) == (960, 510)  # the 6.4 × 3.4 in chart at 150 dpi
    assert png != ex.save(tmp_path / "step3-100.png", dpi=100).read_bytes()
    ex.chart = "none"
    with pytest.raises(ValueError, match="no chart"):
        ex.save(tmp_path / "none.png")


@pytest.mark.parametrize("path, exc, words", [
    ("step.txt", ValueError, "must end in .html or .png"),
    (5, TypeError, "path must be a file name"),
])
def test_save_says_what_it_expects(tmp_path, path, exc, words):
    ex = MergeExplorer("sennrich2016", 3)
    with pytest.raises(exc, match=words):
        ex.save(tmp_path / path if isinstance(path, str) else path)


def test_nothing_to_save_while_an_error_shows(tmp_path):
    ex = MergeExplorer("sennrich2016", 3)
    ex.controls["merges"].value = "abc"
    with pytest.raises(ValueError, match="Nothing to save"):
        ex.save(tmp_path / "x.html")
    assert not (tmp_path / "x.html").exists()


def test_compare_and_encoder_explorers_save_too(tmp_path):
    corpus = corpora.load("hf-course")
    tb, tw = train_bpe(corpus, 6, preset="hf-course"), train_wordpiece(corpus, 6)
    cmp = CompareExplorer("hf-course", 6)
    cmp.step = 3
    page = cmp.save(tmp_path / "compare.html").read_text(encoding="utf-8")
    assert merge_line(tb[3].merge) in plain_text(page) and merge_line(tw[3].merge) in plain_text(page)
    assert cmp._chart_view.value and cmp._chart_view.value in page and "<script" not in page
    assert png_size(cmp.save(tmp_path / "compare.png").read_bytes())[0] == 12 * 150
    enc = EncoderExplorer(word="lowest")
    page = enc.save(tmp_path / "lowest.html").read_text(encoding="utf-8")
    assert "Encoding “lowest” with the first 10 merges" in plain_text(page)
    with pytest.raises(ValueError, match="no chart"):
        enc.save(tmp_path / "lowest.png")


def test_save_button_offers_a_download_of_this_step():
    ex = MergeExplorer("sennrich2016", 10)
    ex.step = 5
    ex._save_btn.click()
    link = ex._save_link.value
    name, uri = re.search(r'download="([^"]+)" href="data:text/html;charset=utf-8;base64,([^"]+)"', link).groups()
    assert name == "merge-step-5.html"
    assert base64.b64decode(uri).decode("utf-8") == ex.standalone_html()
    ex.step = 6  # the link was for step 5: it goes
    assert ex._save_link.value == ""


# -- a stored notebook, before it runs ------------------------------------------------------------


def test_display_data_carries_the_step_as_static_html():
    """A notebook stored with outputs shows ``text/html`` where no widget manager runs (GitHub,
    nbviewer, an export): the current step, not ``MergeExplorer(children=(HBox(...``."""
    ex = MergeExplorer("sennrich2016", 10)
    ex.step = 2
    data = ex._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data  # the live widget, first choice
    html = data["text/html"]
    trace = train_bpe(corpora.load("sennrich2016"), 10, preset="sennrich2016")
    assert merge_line(trace[2].merge) in plain_text(html) and "tie!" in plain_text(html)
    # the chart as an image of the very SVG the widget shows (an untrusted notebook drops <svg>)
    assert "<script" not in html and "<svg" not in html
    src = re.search(r'<img class="bpe-chart[^"]*"[^>]* src="data:image/svg\+xml;base64,([^"]+)"', html).group(1)
    assert base64.b64decode(src).decode("utf-8") == ex._chart_view.value
    assert data["text/plain"] == ("MergeExplorer, step 2 of 10: merge 2: (es, t) → est "
                                  "(run the notebook to use the controls)")
    assert "children=" not in data["text/plain"]
    for other in (CompareExplorer("hf-course", 3), EncoderExplorer(word="newest")):
        bundle = other._repr_mimebundle_()
        assert "<script" not in bundle["text/html"] and "children=" not in bundle["text/plain"]


# -- the merges box -------------------------------------------------------------------------------


@pytest.mark.parametrize("typed, expected", [("10", 10), (" 1,000 ", 1000), ("1 000", 1000), ("20_000", 20_000)])
def test_parse_merges_reads_whole_numbers(typed, expected):
    assert parse_merges(typed) == expected


@pytest.mark.parametrize("typed, words", [
    ("2.5", "whole number like 10 or 1,000, got “2.5”"),
    ("abc", "got “abc”"),
    ("", "empty"),
    ("1,00", "got “1,00”"),
    ("0", "at least 1"),
    ("-3", "at least 1, got -3"),
    ("20001", "at most 20,000"),
])
def test_parse_merges_says_what_is_wrong(typed, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        parse_merges(typed)


@pytest.mark.parametrize("make", [lambda: MergeExplorer("sennrich2016", 10), lambda: CompareExplorer("hf-course", 6)],
                         ids=["MergeExplorer", "CompareExplorer"])
def test_a_bad_merges_entry_stays_on_screen_until_fixed(make):
    """"2.5" used to become 25 and "abc" was dropped; then a slider move hid the error box and
    showed the previous run while the box still read the bad value."""
    ex = make()
    before = ex.view_html
    for bad in ("2.5", "abc", "100000"):
        ex.controls["merges"].value = bad
        assert ex.error is not None and bad.replace("100000", "100,000") in ex.error
        assert ex.controls["slider"].disabled and ex.controls["play"].disabled
        ex.step = 1  # from code: the slider itself is off
        assert ex.error is not None and "This needs a fix" in ex.view_html
        assert ex.num_merges in (10, 6)  # nothing was trained
    ex.controls["merges"].value = "3"
    assert ex.error is None and not ex.controls["slider"].disabled
    assert ex.controls["slider"].max == 3 and "step 1" in ex.text.lower()
    assert ex.view_html != before
    ex.controls["merges"].value = "abc"
    ex.controls["merges"].value = "3"  # the same number as before the typo: the view comes back
    assert ex.error is None


# -- the slider's range follows retraining (the End key) ------------------------------------------


@pytest.mark.parametrize("make, grow", [
    (lambda: MergeExplorer("python-docs", 10), 100),
    (lambda: CompareExplorer("python-docs", 6), 40),
], ids=["MergeExplorer", "CompareExplorer"])
def test_retraining_gives_a_slider_with_the_new_range(make, grow):
    """The browser's slider keeps its first range for the End key when ``max`` changes in place
    (noUiSlider inside ipywidgets 8): a retrain with another range brings a new slider."""
    ex = make()
    old = ex.controls["slider"]
    old_max = old.max
    ex.step = old_max
    ex.num_merges = grow
    new = ex.controls["slider"]
    assert new is not old and old.comm is None  # the old one closed
    assert new.max == ex.controls["play"].max == grow and new.value == ex.step == old_max
    assert new in ex._step_row.children and old not in ex._step_row.children
    ex.step = grow  # the last step is reachable; the explorer follows the new slider
    assert new.value == grow
    new.value = 1
    assert ex.step == 1
    same = ex.controls["slider"]
    ex.preset = "hf-course" if isinstance(ex, MergeExplorer) else "sennrich2016"  # same range: same slider
    assert ex.controls["slider"] is same


# -- the step controls ----------------------------------------------------------------------------


def test_back_forward_reset_and_speed():
    ex = MergeExplorer("sennrich2016", 10)
    ex._fwd_btn.click()
    ex._fwd_btn.click()
    assert ex.step == 2 and "merge 2: (es, t) → est" in ex.text
    ex._back_btn.click()
    assert ex.step == 1
    ex.step = 10
    ex._fwd_btn.click()  # the last step: nowhere to go
    assert ex.step == 10
    ex._play.playing = True
    ex._reset_btn.click()
    assert ex.step == 0 and ex._play.playing is False
    ex._back_btn.click()
    assert ex.step == 0
    for label, ms in SPEED_CHOICES:
        ex._speed_dd.value = ms
        assert ex._play.interval == ms
    assert [label for label, _ in SPEED_CHOICES] == ["slow", "normal", "fast", "fastest"]


# -- why training stopped -------------------------------------------------------------------------


def test_the_stepper_says_why_training_stopped_early():
    trace = train_bpe(corpora.load("sennrich2016"), 100, preset="sennrich2016")
    assert trace.stop_reason == "no_pairs" and len(trace.merges) == 15  # every word one symbol
    ex = MergeExplorer("sennrich2016", 100)
    for k in (0, 7, 15):  # on every step: it explains why the slider ends at 15
        ex.step = k
        assert ("Training stopped after 15 of the 100 merges asked for: nothing left to merge: "
                "every word is a single symbol.") in ex.text
    ex.num_merges = 15
    assert "Training stopped" not in ex.text
    ex.controls["corpus"].value = "text"  # a pair must occur twice: this text runs out of such pairs
    ex.controls["text"].value = "low low lower lowest"
    ex.num_merges = 50
    text = train_bpe("low low lower lowest", 50, preset="sennrich2016")
    assert text.stop_reason == "min_frequency"
    assert (f"Training stopped after {len(text.merges)} of the 50 merges asked for: no pair occurs at least "
            f"min_frequency times (min_frequency {text.convention.min_frequency}).") in ex.text


# -- long words, text without spaces ------------------------------------------------------------

JAPANESE = ("バイトペア符号化は、もともと1994年にデータ圧縮の手法として考案された。最も頻繁に現れる隣り合った"
            "二つの記号を一つの新しい記号に置き換え、これを繰り返すことで文章を短くする。2016年にゼンリッヒらは"
            "この考え方を機械翻訳の語彙作りに応用し、珍しい単語もよく使われる部分に分けて表せるようにした。"
            "日本語の文には単語の間に空白がないため、空白で区切る前処理では文全体が一つの長い単語として扱われてしまう。")


def long_word(docs_text) -> str:
    return re.sub(r"\s+", "", docs_text)[:20_000]


@pytest.mark.parametrize("which", ["20,000-letter word", "Japanese paragraph"])
def test_text_without_spaces_is_cut_with_a_count(which, docs_text):
    """Before: 8.5-11.2 MB of HTML per step for the 20,000-letter word (135 KB for the
    Japanese paragraph), a table 178,575 px wide. Now every step stays under 60 KB."""
    text = long_word(docs_text) if which.startswith("20") else JAPANESE
    ex = MergeExplorer(text, 30, chart="none")
    assert ex.error is None and len(ex.trace.words) == 1
    word = ex.trace.words[0]
    for k in range(len(ex.trace)):
        ex.step = k
        html = ex.view_html
        assert len(html.encode("utf-8")) < 60_000, f"step {k}: {len(html):,} characters of HTML"
        symbols = len(ex.trace[k].segmentation[word])
        # the words table: the word cut to MAX_LABEL_CHARS letters, its chips to MAX_CHIPS
        assert f"… {len(word) - MAX_LABEL_CHARS:,} more letters" in plain_text(ex._tables_view.value)
        if symbols > MAX_CHIPS:
            assert f"… {symbols - MAX_CHIPS:,} more" in plain_text(ex._tables_view.value)
        chips = ex._sentence_view.value.count('class="bpe-token')
        assert chips <= min(MAX_CHIPS, MAX_SENTENCE_TOKENS)
    # the sample sentence is cut too: it is encoded again on every step
    assert len(ex.sentence) <= 300


# -- a projector ----------------------------------------------------------------------------------


def test_projector_layout_puts_what_the_class_watches_first():
    assert dict(SIZE_CHOICES)["projector"] == PROJECTOR
    ex = MergeExplorer("sennrich2016", 10)
    training = ex._training_rows
    assert list(ex.children[1:len(training) + 1]) == training  # controls on top (after the CSS)
    assert ex._css.value == ""
    ex.size = PROJECTOR
    ex.step = 2
    kids = list(ex.children)
    assert kids.index(ex._step_row) < kids.index(ex._view) < kids.index(training[0])
    view = list(ex._view.children)
    assert view.index(ex._pane) < view.index(ex._sentence_box)  # the step's parts first, in this order:
    step = ex._pane.html
    assert step.index(ex._sentence_view.value) < step.index(ex._tables_view.value) < step.index(ex._chart_view.value)
    tables = ex._tables_view.value
    assert tables.index("Pairs at step 2") < tables.index("Words at step 2")
    assert tables.count('class="bpe-pair-row') == 4
    # the controls scale too (half as much as the view), by ipywidgets' own CSS variables
    assert f"bpe-size-{round(PROJECTOR * 100)}" in ex._dom_classes
    assert "--jp-widgets-font-size:18px" in ex._css.value and "--jp-widgets-inline-height:38px" in ex._css.value
    # the header's quoted parts stay whole: no line break inside "</w>"
    assert '<span style="white-space:nowrap">&quot;&lt;/w&gt;&quot;</span>' in ex._header.value
    ex.size = 1.0
    assert list(ex.children[1:len(training) + 1]) == training and ex._css.value == ""


def test_compare_explorer_columns_wrap_on_a_projector():
    ex = CompareExplorer("hf-course", 6)
    assert 'class="bpe-columns" style="display:flex;flex-flow:row"' in ex._pane.html
    ex.size = PROJECTOR
    step = ex._pane.html
    assert 'class="bpe-columns" style="display:flex;flex-flow:row wrap"' in step
    assert step.count('<div class="bpe-column" style="flex:1 1 100%;') == 2
    assert '<div style="max-width:100%;overflow-x:auto"><div class="bpe-chart-pair"' in step  # never wider than the screen


# -- the stored notebooks, read without a kernel (GitHub) or as a Voilà app ----------------------

#: not an app: the exercise lesson's prose points at the cells the learner fills in (test_voila.py's
#: NOT_APPS); every other lesson and deep dive reads as an app does
EXERCISES = {"07_build_bpe_yourself"}
STORED = [p for p in notebook_files() if notebook_id(p) not in EXERCISES]
POINTING = re.compile(r"[^.\n]*\b(?:(?:a|the|next|this) cell|from code)\b[^.\n]*", re.I)


@pytest.mark.parametrize("path", STORED, ids=[notebook_id(p) for p in STORED])
def test_stored_notebooks_read_well_without_a_kernel(path):
    """Every explorer output carries its step as static HTML (not only
    ``MergeExplorer(children=(HBox(...``); a trace shows a sentence, not a bare ``<Trace ...>``;
    the prose never points at code that Voilà hides."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    explorers = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            assert not POINTING.findall(cell.source), POINTING.findall(cell.source)
            continue
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            plain = data.get("text/plain", "")
            ours = "Explorer" in plain or plain.startswith(("Quiz:", "Predict:"))  # (a widget of bpe_viz)
            if ours and "application/vnd.jupyter.widget-view+json" in data:
                explorers += 1
                assert 'class="bpe-static"' in data.get("text/html", ""), plain
                assert "children=" not in plain, plain
            if plain.startswith("<Trace "):
                assert "A BPE training run" in data.get("text/html", ""), plain
    if re.search(r"Explorer(\.from_\w+)?\(", "".join(c.source for c in nb.cells if c.cell_type == "code")):
        assert explorers, "the notebook makes an explorer, but no stored output shows one"
