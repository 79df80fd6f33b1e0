"""Defects of the HTML/SVG views that a class (a projector, a real tokenizer's odd tokens) or a
hostile input would show: each test failed before its fix."""

from __future__ import annotations

import html
import re

from bpe_viz import quiz_questions, train_bpe
from bpe_viz.view.merges.quiz import question_html

WORDS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def _font_px(html: str) -> list[float]:
    return [float(x) for x in re.findall(r"font-size:([0-9.]+)px", html)]


def test_quiz_words_table_scales_with_size():
    trace = train_bpe(WORDS, 10)
    q = quiz_questions(trace)[0]
    small, big = question_html(trace, q), question_html(trace, q, size=2.0)
    assert sorted(_font_px(big)) == [2 * px for px in sorted(_font_px(small))]
    # the words table's own box is at the projector's size, not the default
    words_box = re.search(r'class="bpe-words" style="font-size:([0-9.]+)px', big)
    assert words_box and float(words_box.group(1)) == 2 * float(
        re.search(r'class="bpe-words" style="font-size:([0-9.]+)px', small).group(1))


# -- 17: invisible characters drawn visibly ---------------------------------------------------

# a family emoji (joined by ZWJ), a red heart with VS16, a soft hyphen, a word joiner, a BOM,
# and a combining acute accent that a tokenizer split off its base
INVISIBLE_WORDS = {"👨\u200d👩": 4, "❤\ufe0f": 3, "co\u00adop": 2, "a\u2060b": 2, "\ufeffhi": 2, "e\u0301": 2}
INVISIBLE = {"\u200d": "U+200D", "\ufe0f": "U+FE0F", "\u00ad": "U+00AD", "\u2060": "U+2060", "\ufeff": "U+FEFF",
             "\u0301": "U+0301"}


def _invisible_trace():
    return train_bpe(INVISIBLE_WORDS, 3)


def test_invisible_tokens_are_visible_chips():
    from bpe_viz.view.kit import token_html
    trace = _invisible_trace()
    for ch, name in INVISIBLE.items():
        assert trace.token_to_id(ch) is not None  # a real token of the trace, on its own
        chip = token_html(ch, convention=trace.convention)
        shown = re.search(r">([^<>]*)</span>$", re.sub(r'<span class="bpe-marker"[^>]*>', "", chip))
        assert name in chip and 'class="bpe-marker"' in chip, chip
        assert shown is None or ch not in shown.group(1)
    # every chip of every word at every step shows something
    from bpe_viz.view.merges.tables import words_table_html
    out = words_table_html(trace[0])
    for name in INVISIBLE.values():
        assert name in out


def test_invisible_characters_in_labels_and_charts():
    from bpe_viz.view.kit import chart_label, display_text, short_label, svg_texts
    from bpe_viz.view.merges.svg import pair_counts_svg
    trace = _invisible_trace()
    conv = trace.convention
    for ch, name in INVISIBLE.items():
        assert name in display_text(ch, conv)
        assert name in chart_label(ch)
        assert name in short_label(ch)
    texts = svg_texts(pair_counts_svg(trace[0], top=20))
    assert any("U+200D" in t for t in texts), texts
    assert not any(t.strip("(), ") == "" for t in texts)


def test_unigram_chart_labels_show_invisible_pieces():
    from bpe_viz import train_unigram
    from bpe_viz.view.kit import svg_texts
    from bpe_viz.view.unigram.svg import piece_probabilities_svg
    trace = train_unigram({"👨\u200d👩": 40, "\u200d": 9, "ab": 5}, vocab_size=8)
    texts = svg_texts(piece_probabilities_svg(trace[0], top=20))
    assert "\u200d" not in "".join(texts) and "<U+200D>" in texts, texts


def test_normal_text_and_joined_marks_unchanged():
    from bpe_viz.view.kit import chart_label, display_text, short_label, token_html
    trace = _invisible_trace()
    conv = trace.convention
    for tok in ("low", "e\u0301", "caf\u00e9", "안녕", "👩"):
        assert display_text(tok, conv) == tok
        assert chart_label(tok) == tok
        assert short_label(tok) == tok
        assert "U+" not in token_html(tok, convention=conv)


# -- 19: distinct tick labels, separated captions, no raw None / NaN ---------------------------

def _ticks_between(texts: list[str], start: int, label: str) -> list[str]:
    return texts[start:texts.index(label)]


def test_axis_ticks_are_distinct_integers_on_small_ranges():
    from bpe_viz.view.kit import Scale, svg_axes, svg_texts
    from bpe_viz.view.merges.svg import compression_svg, merge_counts_svg
    for lo, hi in ((0.5, 2.5), (0, 1), (2, 3), (0.5, 1.5), (0, 3.15)):
        ticks = svg_texts(svg_axes(Scale(lo, hi, 0, 100), None, (0, 0, 100, 100)))
        assert ticks and len(ticks) == len(set(ticks)), (lo, hi, ticks)
        assert all(float(t) == int(t) for t in ticks)
    texts = svg_texts(merge_counts_svg(train_bpe({"ab": 2, "cd": 3}, 2)))
    merge_numbers = _ticks_between(texts, 1, "merge number")
    assert merge_numbers == ["1", "2"], texts
    texts = svg_texts(compression_svg(train_bpe({"ab": 1}, 1)))
    assert _ticks_between(texts, 1, "merges") == ["0", "1"], texts
    # a loss that moves less than 1 still gets its ticks (as decimals), never "10, 10, 11"
    ticks = svg_texts(svg_axes(None, Scale(10.2, 10.8, 100, 0), (0, 0, 100, 100)))
    assert len(ticks) >= 2 and len(ticks) == len(set(ticks)), ticks


def test_unigram_loss_ticks_distinct():
    from bpe_viz import train_unigram
    from bpe_viz.view.kit import svg_texts
    from bpe_viz.view.unigram.svg import loss_svg
    texts = svg_texts(loss_svg(train_unigram({"ab": 3, "abc": 2}, vocab_size=4)))
    rounds = _ticks_between(texts, 2, next(t for t in texts if t.startswith("round")))
    assert rounds and len(rounds) == len(set(rounds)), texts


def test_side_by_side_captions_keep_a_gap():
    """The tables of a step sit side by side (inline blocks); a caption wider than its table
    widened the block up to its last letter, so the next caption touched it: "...(<e2 80>)most
    frequent first", "...was reachednewest first"."""
    from bpe_viz.view.merges.steps import snapshot_html
    trace = train_bpe(WORDS, 3)
    out = snapshot_html(trace[3])
    assert "was reached" in out
    captions = re.findall(r'<div class="bpe-caption" style="([^"]*)">', out)
    assert len(captions) == 3
    for style in captions:
        assert re.search(r"padding-right:\s*0?\.?[1-9][0-9]*em", style), style


def test_vocab_table_shows_no_raw_none_ids():
    """SentencePiece drops characters below character_coverage: they are in the vocabulary table
    (initial symbols) but have no id; old notebook 06 showed "None" in the id column and "id None"
    in the hover title."""
    from bpe_viz.view.merges.tables import vocab_table_html
    trace = train_bpe({"hello": 20, "world": 20, "°C": 1, "naïve": 1}, 5, preset="sentencepiece",
                      character_coverage=0.9)
    assert trace.unknown_chars
    out = vocab_table_html(trace[2], max_rows=None)
    assert ">None<" not in out and "None" not in out
    for ch in ("°", "ï"):
        row = re.search(r'<tr[^>]*><td[^>]*>(.*?)</td><td[^>]*><span class="bpe-token"[^>]*title="' + ch + r'\n([^"]*)"',
                        out)
        assert row, ch
        assert "&mdash;" in row.group(1) and 'title="no id' in row.group(1)
        assert "&lt;unk&gt; (id 0)" in row.group(2)


def _notebook_cell(name: str, needle: str) -> str:
    import json
    from pathlib import Path
    nb = json.loads((Path(__file__).resolve().parent.parent / "notebooks" / name).read_text(encoding="utf-8"))
    return next("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code" and needle in "".join(c["source"]))


def test_unigram_erratum_table_has_no_nan():
    """The course printed no probability for "p ug": the erratum table (once notebook 07's, now
    deep dive 04's) showed ``NaN`` there. The cell's table lines, run on the same shape of data
    (one cut the course did not print)."""
    import pandas as pd
    src = _notebook_cell("deep-dives/04_unigram_errata_and_four_trainers.ipynb", '"printed in the course"')
    lines = src.splitlines()
    start = next(i for i, line in enumerate(lines) if "pd.DataFrame(" in line)
    body = "\n".join(lines[start:])
    ns = {"pd": pd, "printed": {"p u g": 0.000389, "pu g": 0.0022676},
          "corrected": {"p u g": 0.0013217, "pu g": 0.0077098, "p ug": 0.0077098}}
    exec(compile("\n".join(body.splitlines()[:-1]), "cell", "exec"), ns)
    table = eval(body.splitlines()[-1].split("#")[0], ns)
    out = table._repr_html_()
    assert "NaN" not in out and "nan" not in out.lower().replace("dataframe", "")
    assert re.findall(r"<td>([^<]*)</td>", out) == ["0.000389", "0.001322", "0.002268", "0.007710", "—", "0.007710"]


def test_invisible_tokens_of_a_real_hf_tokenizer():
    """A Metaspace BPE trained by Hugging Face ``tokenizers`` on emoji text: its encoding of a
    family emoji holds a ZWJ token on its own, which the chips must name."""
    import pytest
    tk = pytest.importorskip("tokenizers")
    from bpe_viz import from_hf_tokenizer
    from bpe_viz.view.kit import convention_of, token_html
    tok = tk.Tokenizer(tk.models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = tk.pre_tokenizers.Metaspace()
    lines = ["the family 👨\u200d👩\u200d👧 is here", "a heart ❤\ufe0f and a co\u00adop"] * 20
    tok.train_from_iterator(lines, tk.trainers.BpeTrainer(vocab_size=40, special_tokens=["<unk>"], show_progress=False))
    ours = from_hf_tokenizer(tok)
    tokens = tok.encode("👨\u200d👩 ❤\ufe0f").tokens
    assert "\u200d" in tokens or any("\u200d" in t for t in tokens)
    for t in tokens:
        chip = token_html(t, convention=convention_of(ours))
        visible_text = html.unescape(re.sub(r"<[^>]+>", "", chip))
        assert visible_text.strip("\u2581") or t == "\u2581"
        for ch in ("\u200d", "\ufe0f"):
            if ch in t:
                assert f"U+{ord(ch):04X}" in chip, (t, chip)
