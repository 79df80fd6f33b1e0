"""bpe_viz.widgets: thin widgets. Set a trait the way a slider would and read what is shown.

Expected values: Sennrich, Haddow & Birch (2016), Algorithm 1's dictionary (low×5, lower×2,
newest×6, widest×3): merge 2 is (es, t) -> est at count 9, tied with (t, </w>); merge 5 is
(lo, w) -> low.
"""

from __future__ import annotations

import ast
import datetime
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest
import traitlets

from bpe_viz import encode, train_bpe, train_wordpiece
from bpe_viz.widgets import MAX_MERGES, CompareExplorer, EncoderExplorer, MergeExplorer

SENNRICH = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
HF_COURSE = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def toy():
    return train_bpe(SENNRICH, 10)


def upload(data: bytes, name="notes.txt"):
    return ({"name": name, "type": "text/plain", "size": len(data), "content": memoryview(data),
             "last_modified": datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)},)


# -- MergeExplorer ------------------------------------------------------------------------------


def test_step_shows_what_the_engine_says(toy):
    ex = MergeExplorer.from_trace(toy)
    assert ex.error is None
    ex.step = 2
    m = toy[2].merge
    assert (m.pair, m.token, m.count) == (("es", "t"), "est", 9)
    assert "merge 2: (es, t) → est, count 9" in ex.text
    assert "tie!" in ex.text
    assert "Step 2 of 10" in ex.text
    assert "Pairs at step 2" in ex.view_html and "Vocabulary at step 2" in ex.view_html
    ex.step = 5
    assert "merge 5: (lo, w) → low, count 7" in ex.text
    # the sample sentence is colored with the first 5 merges, as encode says
    pieces = encode(ex.sentence, toy, num_merges=5).pieces
    sentence_html = ex._sentence_view.value
    shown = [re.sub(r"<[^>]+>", "", t) for t in re.findall(
        r'<span class="bpe-token[^"]*" style="[^"]*" title="[^"]*">(.*?)</span>(?=<|$)', sentence_html, re.S)]
    assert [s.replace("&lt;", "<").replace("&gt;", ">").replace("unk", "") for s in shown] == pieces


def test_slider_and_step_are_linked(toy):
    ex = MergeExplorer.from_trace(toy)
    slider = ex.controls["slider"]
    assert (slider.min, slider.max) == (0, 10)
    assert ex.controls["play"].max == 10
    slider.value = 3
    assert ex.step == 3 and "merge 3:" in ex.text
    ex.step = 7
    assert slider.value == 7
    with pytest.raises(traitlets.TraitError, match="between 0 and 10"):
        ex.step = 11


def test_a_step_never_retrains(toy, monkeypatch):
    ex = MergeExplorer.from_trace(toy)
    import bpe_viz.engine.bpe

    def boom(*a, **k):
        raise AssertionError("a slider step retrained")

    monkeypatch.setattr(bpe_viz.engine.bpe, "train_bpe", boom)
    for k in (1, 4, 10, 0):
        ex.step = k
    assert ex.trace is toy and ex.error is None


def test_chart_follows_the_step(toy):
    ex = MergeExplorer.from_trace(toy)
    ex.step = 1
    first = ex.chart_png
    assert first.startswith(PNG)
    ex.step = 2
    assert ex.chart_png.startswith(PNG) and ex.chart_png != first
    ex.step = 1
    assert ex.chart_png == first  # deterministic
    for chart in ("merges", "compression"):
        ex.chart = chart
        assert ex.chart_png.startswith(PNG)
    ex.chart = "none"
    assert ex.chart_png == b""


def test_changing_the_preset_retrains():
    ex = MergeExplorer("sennrich2016", 10)
    assert ex.trace.convention.end_of_word == "</w>" and not ex.trace.convention.attach_end_of_word
    ex.step = 3
    ex.preset = "slp3"
    assert ex.trace.convention.end_of_word == "_"
    assert ex.step == 3 and "_" in ex.text
    ex.controls["preset"].value = "subword-nmt"  # the dropdown does the same
    assert ex.trace.convention.attach_end_of_word is True
    assert ex.controls["progress"].max == 10


def test_tie_rule_and_merge_count_retrain():
    ex = MergeExplorer("sennrich2016", 10)
    assert ex.trace.merges[0].pair == ("e", "s")
    ex.tie_break = "lexicographic"  # greatest of (e, s), (s, t), (t, </w>)
    assert ex.trace.merges[0].pair == ("t", "</w>")
    ex.num_merges = 4
    assert len(ex.trace.merges) == 4 and ex.controls["slider"].max == 4


def test_a_textbook_corpus_comes_with_its_convention(monkeypatch):
    ex = MergeExplorer("slp3", 5)
    assert ex.preset == "slp3" and ex.trace.convention.end_of_word == "_"
    import bpe_viz.engine.bpe

    calls = []
    real = bpe_viz.engine.bpe.train_bpe
    monkeypatch.setattr(bpe_viz.engine.bpe, "train_bpe", lambda *a, **k: calls.append(k) or real(*a, **k))
    ex.controls["corpus"].value = "hf-course"
    assert ex.preset == "hf-course" and ex.trace.convention.end_of_word is None
    assert len(calls) == 1  # switching corpus and convention trains once
    assert MergeExplorer("slp3", 5, preset="sennrich2016").trace.convention.end_of_word == "</w>"


def test_a_trace_given_then_retrained_keeps_its_words(toy):
    ex = MergeExplorer.from_trace(toy)
    ex.preset = "hf-course"
    assert ex.error is None
    assert ex.trace is not toy and ex.trace.words == toy.words
    assert ex.trace.convention.end_of_word is None


def test_corpus_sources():
    ex = MergeExplorer("sennrich2016", 5)
    ex.controls["text"].value = "banana bandana banana"
    ex.controls["corpus"].value = "text"
    assert ex.error is None and ex.trace.words == ("banana", "bandana")
    ex.controls["upload"].value = upload("hello hello yellow".encode("utf-8"))
    ex.controls["corpus"].value = "upload"
    assert ex.error is None and ex.trace.words == ("hello", "yellow")
    ex.controls["corpus"].value = "slp3"
    assert ex.error is None and "lowest" in ex.trace.words


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(corpus=""), "The text is empty"),
        (dict(corpus="   \n "), "The text is empty"),
        (dict(corpus="a b c a b c", preset="hf-course"), "single character"),
        (dict(corpus="x y z", preset="slp3"), "at least 2 times"),  # (x, _) occurs once: below min_frequency
        (dict(corpus="sennrich2016", num_merges=10**9), "at most 20,000"),
        (dict(corpus="sennrich2016", num_merges=0), "at least 1"),
    ],
)
def test_bad_input_shows_a_readable_message(kwargs, message):
    ex = MergeExplorer(**kwargs)
    assert ex.error is not None
    assert ex.view_html.startswith('<div class="bpe-error"')
    assert "Traceback" not in ex.view_html
    if message:
        assert message in ex.error
    assert ex._view.layout.display == "none"


def test_non_utf8_upload_shows_a_message_then_recovers():
    ex = MergeExplorer("sennrich2016", 5)
    ex.controls["upload"].value = upload(b"caf\xe9 \xff\xfe", name="latin1.txt")
    ex.controls["corpus"].value = "upload"
    assert "“latin1.txt” is not UTF-8" in ex.error
    assert "bpe-error" in ex.view_html
    ex.controls["corpus"].value = "sennrich2016"
    assert ex.error is None and ex._view.layout.display != "none"
    assert "merge" in ex.text


def test_upload_without_a_file_asks_for_one():
    ex = MergeExplorer("sennrich2016", 5)
    ex.controls["corpus"].value = "upload"
    assert "choose a plain-text file" in ex.error


def test_python_docs_text_is_offered():
    ex = MergeExplorer("sennrich2016", 5)
    assert "python-docs" in [v for _, v in ex.controls["corpus"].options]


def test_size_option_scales_the_view(toy):
    ex = MergeExplorer.from_trace(toy)
    assert "font-size:14px" in ex.view_html
    ex.size = 2.0
    assert "font-size:28px" in ex.view_html and "font-size:14px" not in ex.view_html


def test_sentence_is_encoded_with_the_merges_so_far(toy):
    ex = MergeExplorer.from_trace(toy, sentence="lowest loki")
    ex.step = 10
    assert "bpe-unk" in ex._sentence_view.value  # "k" was never seen
    ex.sentence = "newest"
    assert ex._sentence_view.value.count('class="bpe-token') == len(encode("newest", toy).pieces)


def test_same_input_same_view():
    a, b = MergeExplorer("sennrich2016", 8), MergeExplorer("sennrich2016", 8)
    a.step = b.step = 4
    assert a.view_html == b.view_html and a.chart_png == b.chart_png


# -- EncoderExplorer ----------------------------------------------------------------------------


def test_encoder_explorer_steps_through_iterations(toy):
    ex = EncoderExplorer(toy, "lowest")
    assert ex.walkthrough.final == ("low", "est</w>")
    assert ex.iteration == len(ex.walkthrough.steps) == 5
    assert "(e, s) rank 1" in ex.text
    ex.iteration = 1
    assert ex.view_html.count('<li class="bpe-iteration"') == 1
    assert "iteration 1 of 5" in ex.text
    ex.num_merges = 3  # use only the first 3 merges
    assert ex.walkthrough.final == ("l", "o", "w", "est</w>")
    assert ex.controls["iteration"].max == 3
    assert f"[{', '.join(map(str, encode('lowest', toy, 3).ids))}]" in ex.text
    ex.word = "widest"
    assert ex.walkthrough.word == "widest" and ex.error is None


@pytest.mark.parametrize("word, message", [("", "Type a word"), ("two words", "one word")])
def test_encoder_explorer_bad_words(toy, word, message):
    ex = EncoderExplorer(toy, "lowest")
    ex.word = word
    assert message in ex.error and "bpe-error" in ex.view_html
    ex.word = "low"
    assert ex.error is None


def test_encoder_explorer_one_character_word(toy):
    ex = EncoderExplorer(toy, "w")
    assert ex.error is None
    assert ex.walkthrough.final == ("w", "</w>")


def test_encoder_explorer_trains_a_default_corpus():
    ex = EncoderExplorer(word="lowest")
    assert len(ex.trace.merges) == 10 and ex.walkthrough.final == ("low", "est</w>")


def test_encoder_explorer_wordpiece():
    trace = train_wordpiece(HF_COURSE, 5)
    ex = EncoderExplorer.from_trace(trace, "hugs")
    assert ex.error is None and "tried, longest first" in ex.text


# -- CompareExplorer ----------------------------------------------------------------------------


def test_compare_explorer_side_by_side():
    ex = CompareExplorer("hf-course", 6)
    assert ex.error is None
    ex.step = 1
    assert ex.trace_bpe.merges[0].pair == ("u", "g")
    assert ex.trace_wp.merges[0].pair == ("##g", "##s")
    assert "merge 1: (u, g) → ug" in ex.text
    assert "merge 1: (##g, ##s) → ##gs" in ex.text
    assert ex.chart_png.startswith(PNG)
    ex.step = 0
    assert "step 0" in ex.text


def test_compare_explorer_from_traces_and_retrain():
    tb = train_bpe(HF_COURSE, 4, preset="hf-course", min_frequency=1)
    tw = train_wordpiece(HF_COURSE, 4)
    ex = CompareExplorer.from_traces(tb, tw, chart=False)
    ex.step = 4
    assert f"merge 4: ({tb.merges[3].pair[0]}, {tb.merges[3].pair[1]})" in ex.text
    ex.num_merges = 2
    assert len(ex.trace_bpe.merges) == 2 and len(ex.trace_wp.merges) == 2
    with pytest.raises(ValueError):
        CompareExplorer(trace_bpe=tb)


def test_compare_explorer_bad_input():
    ex = CompareExplorer("", 5)
    assert "The text is empty" in ex.error
    ex = CompareExplorer("hf-course", MAX_MERGES + 1)
    assert "at most" in ex.error


# -- the package never prints, displays or shows ------------------------------------------------


def test_visual_layer_never_prints_or_displays(capsys, toy):
    ex = MergeExplorer.from_trace(toy)
    for k in range(len(toy)):
        ex.step = k
    EncoderExplorer(toy, "lowest").num_merges = 2
    CompareExplorer("hf-course", 3).step = 2
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    root = Path(__file__).resolve().parent.parent / "bpe_viz"
    files = sorted((root / "view").rglob("*.py")) + sorted((root / "widgets").glob("*.py"))
    assert len(files) >= 6
    for path in files:
        name = path.name
        tree = ast.parse(path.read_text(encoding="utf-8"))
        called = {
            getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            for node in ast.walk(tree) if isinstance(node, ast.Call)
        }
        assert not called & {"print", "display", "show"}, name


def test_dropdown_choices_come_from_the_engine_tables():
    """Every engine preset and tie rule is offered; a new one shows up without widget code."""
    from bpe_viz import PRESETS
    from bpe_viz.engine.merges.ranking import TIE_RULES
    from bpe_viz.widgets.controls import PRESET_CHOICES, TIE_CHOICES

    assert set(PRESETS) <= set(PRESET_CHOICES)
    assert {v for _, v in TIE_CHOICES} == {"preset", *TIE_RULES}
    ex = MergeExplorer("sennrich2016", 3)
    assert {v for _, v in ex.controls["ties"].options} >= set(TIE_RULES)


def test_encoder_explorer_shows_gpt_pre_tokenizer_pieces():
    """A GPT-style trace cuts the typed text into pieces that keep their spaces; the explorer
    offers them (drawn with visible spaces) and walks through the one chosen."""
    trace = train_bpe("the cat sat on the mat. the cat ran.", 20, preset="cs336")
    ex = EncoderExplorer(trace, word="the cat  sat.")
    assert ex.error is None
    assert ex.pieces == ["the", " cat", " ", " sat", "."]
    assert [o.split(": ", 1)[1] for o in ex.controls["piece"].options] == ["the", "␣cat", "␣", "␣sat", "."]
    ex.controls["piece"].index = 1
    assert ex.walkthrough.word == " cat" and "".join(ex.walkthrough.final) == "Ġcat"
    ex.word = "hat"
    assert ex.pieces == ["hat"] and ex.piece == 0 and ex.controls["piece"].layout.display == "none"
    ex.word = "   "
    assert ex.error is None and ex.pieces == ["   "]  # whitespace is a piece of its own here
