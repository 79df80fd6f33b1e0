"""bpe_viz.view.merges.charts: matplotlib helpers return Axes, highlight what the engine chose, and are
deterministic. Toy values: Sennrich, Haddow & Birch (2016), Algorithm 1's dictionary; the
Hugging Face NLP course (chapter 6) word counts for BPE vs WordPiece."""

from __future__ import annotations

import time

import matplotlib

matplotlib.use("Agg")

import pytest
from matplotlib.axes import Axes
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from bpe_viz import train_bpe, train_wordpiece
from bpe_viz.view import (
    BLUE,
    bar_notes,
    pair_labels,
    ORANGE,
    VERMILLION,
    bpe_wordpiece_picks,
    compression_curve,
    figure_png,
    merge_sequences,
    plot_bpe_vs_wordpiece,
    plot_compression,
    plot_merge_counts,
    plot_merge_sequences,
    plot_pair_counts,
)

from helpers import HF_COURSE, SENNRICH


@pytest.fixture(scope="module")
def toy():
    return train_bpe(SENNRICH, 10)


def new_ax(w=6.4, h=3.6):
    return Figure(figsize=(w, h)).add_subplot()


def test_pair_counts_highlights_the_winner_and_hatches_ties(toy):
    ax = plot_pair_counts(toy[0], top=6, ax=new_ax())
    assert isinstance(ax, Axes)
    labels = pair_labels(ax)
    assert labels == [f"({a}, {b})" for (a, b), _ in toy[0].ranked_pairs[:6]]
    bars = ax.patches
    assert [b.get_width() for b in bars] == [c for _, c in toy[0].ranked_pairs[:6]]
    assert to_hex(bars[0].get_facecolor()).upper() == VERMILLION.upper()
    # (s, t) and (t, </w>) tie with (e, s) at 9: hatched, and labelled in text too
    assert [bool(b.get_hatch()) for b in bars] == [False, True, True, False, False, False]
    assert all(to_hex(b.get_facecolor()).upper() == ORANGE.upper() for b in bars[1:3])
    notes = bar_notes(ax)
    assert notes[0].endswith("← next merge") and notes[1].endswith("tie") and notes[3] == "8"
    assert "3 pairs tie" in ax.get_title()


def test_pair_counts_wordpiece_uses_scores():
    trace = train_wordpiece(HF_COURSE, 3)
    ax = plot_pair_counts(trace[0], top=4, ax=new_ax())
    first = trace[0].ranked_pairs[0][0]
    assert pair_labels(ax)[0] == f"({first[0]}, {first[1]})"
    assert ax.patches[0].get_width() == pytest.approx(float(trace[0].scores()[first]))
    assert "score" in ax.get_xlabel()


def test_pair_counts_with_no_pairs_says_so():
    trace = train_bpe("a b c", 5, end_of_word=None)
    ax = plot_pair_counts(trace[0], ax=new_ax())
    assert "no pairs left" in ax.texts[0].get_text()


def test_merge_counts_marks_the_current_step(toy):
    ax = plot_merge_counts(toy, upto=4, ax=new_ax())
    assert isinstance(ax, Axes)
    assert [int(y) for y in ax.lines[0].get_ydata()] == [m.count for m in toy.merges]
    marker = ax.lines[1]
    assert list(marker.get_xdata()) == [4] and list(marker.get_ydata()) == [7]
    assert "merge 4: lo (7)" in ax.texts[0].get_text()
    with pytest.raises(ValueError):
        plot_merge_counts(toy, upto=11, ax=new_ax())


def test_compression_curve_equals_a_recount(toy):
    sizes, tpw = compression_curve(toy)
    total_words = sum(SENNRICH.values())
    for k in range(len(toy)):
        snap = toy[k]
        symbols = sum(snap.word_counts[w] * len(s) for w, s in snap.segmentation.items())
        assert tpw[k] == pytest.approx(symbols / total_words)
        assert sizes[k] == len(snap.vocab)


def test_compression_curve_counts_overlapping_pairs_once():
    # "a a a": merging (a, a) removes one symbol, not two (the pair occurred twice, overlapping)
    trace = train_bpe({"aaa": 1}, 1, end_of_word=None, min_frequency=1)
    assert trace.merges[0].count == 2
    sizes, tpw = compression_curve(trace)
    assert tpw == [3.0, 2.0]


def test_plot_compression(toy):
    ax = plot_compression(toy, upto=4, ax=new_ax())
    assert isinstance(ax, Axes)
    assert ax.get_ylabel() == "tokens per word"
    assert "Step 4" in ax.get_title()


def test_compression_is_fast_on_a_long_trace(docs_text):
    trace = train_bpe(docs_text, 3000, preset="subword-nmt")
    t0 = time.perf_counter()
    compression_curve(trace)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    compression_curve(trace)
    again = time.perf_counter() - t0
    # generous bounds (shared CI machines); typical: a few ms, then microseconds
    assert first < 0.5 and again < 0.05
    sizes, tpw = compression_curve(trace)
    snap = trace[1234]
    symbols = sum(snap.word_counts[w] * len(s) for w, s in snap.segmentation.items())
    assert tpw[1234] == pytest.approx(symbols / sum(trace.counts))


def test_bpe_vs_wordpiece_marks_both_picks():
    snap = train_bpe(HF_COURSE, 0, preset="hf-course")[0]
    assert bpe_wordpiece_picks(snap) == (("u", "g"), ("g", "s"))
    ax = plot_bpe_vs_wordpiece(snap, ax=new_ax())
    assert isinstance(ax, Axes)
    assert sorted(t.get_text() for t in ax.texts) == ["BPE: (u, g)", "WordPiece: (g, s)"]
    # the highlighted points sit at the picks' count and score
    counts = snap.pair_counts
    bpe_pt = ax.collections[1].get_offsets()[0]
    wp_pt = ax.collections[2].get_offsets()[0]
    assert bpe_pt[0] == counts[("u", "g")] == 20
    assert wp_pt[1] == pytest.approx(float(snap.scores()[("g", "s")]))
    assert to_hex(ax.collections[1].get_facecolor()[0]).upper() == VERMILLION.upper()
    assert to_hex(ax.collections[2].get_facecolor()[0]).upper() == BLUE.upper()


def test_bpe_vs_wordpiece_picks_agree_with_the_trainers():
    bpe = train_bpe(HF_COURSE, 1, preset="hf-course")
    wp = train_wordpiece(HF_COURSE, 1)
    assert bpe_wordpiece_picks(bpe[0])[0] == bpe.merges[0].pair
    assert bpe_wordpiece_picks(wp[0])[1] == wp.merges[0].pair
    # from a trace (step 0 by default); the view never trains, so a corpus is refused
    ax = plot_bpe_vs_wordpiece(bpe, ax=new_ax())
    assert "BPE: (u, g)" in [t.get_text() for t in ax.texts]
    with pytest.raises(TypeError, match="Snapshot or a Trace"):
        plot_bpe_vs_wordpiece(HF_COURSE, ax=new_ax())


def test_merge_sequences_find_where_they_diverge():
    bpe = train_bpe(HF_COURSE, 6, preset="hf-course", min_frequency=1)
    wp = train_wordpiece(HF_COURSE, 6)
    rows = merge_sequences(bpe, wp)
    assert rows[0][:3] == (1, "ug", "##gs")
    assert rows[0][3] is False
    ax = plot_merge_sequences(bpe, wp, upto=3, ax=new_ax())
    assert ax.get_title() == "BPE vs WordPiece: first difference at merge 1"
    texts = [t.get_text() for t in ax.texts]
    assert "ug  (not in WP)" in texts and "≠" in texts
    same = plot_merge_sequences(bpe, bpe, ax=new_ax())
    assert "the same letters for all" in same.get_title()


def test_dollar_signs_in_tokens_are_not_mathtext():
    trace = train_bpe("$a$ $a$ $a$ x$y$z x$y$z", 3, min_frequency=1)
    ax = plot_pair_counts(trace[0], ax=new_ax())
    assert figure_png(ax.figure)[:4] == b"\x89PNG"


def test_figure_png_is_deterministic(toy):
    def draw():
        fig = Figure(figsize=(5, 3))
        plot_pair_counts(toy[1], top=5, ax=fig.add_subplot())
        return figure_png(fig, dpi=60)

    a, b = draw(), draw()
    assert a[:8] == b"\x89PNG\r\n\x1a\n"
    assert a == b
    assert figure_png(Figure(figsize=(1, 1)).add_subplot(), dpi=20)[:4] == b"\x89PNG"
    with pytest.raises(TypeError):
        figure_png("not a figure")


def test_without_ax_a_new_figure_is_made(toy):
    import matplotlib.pyplot as plt

    ax = plot_merge_counts(toy)
    try:
        assert isinstance(ax, Axes) and ax.figure is not None
    finally:
        plt.close(ax.figure)
