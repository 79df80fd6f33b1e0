"""The compare explorer writes a byte-level token one way everywhere (issue 19, item 18).

Its tables always wrote a byte-level token as the text its bytes spell, with ``␣`` for a space
and ``<ed 95>`` for bytes that are not a whole character; its chart (the count-against-score
scatter and the merge-sequences table, "first difference at merge N") wrote GPT-2's byte
symbols instead (``(í, ķ)``, ``íķľ``), and its "same?" column compared tokens in that spelling,
so a byte-level ``한국`` was "not in WP" although WordPiece had made ``한국``. Here, on Korean and
emoji text, both BPE presets with bytes as the alphabet (``bytes``: no pre-tokenizer space;
``cs336``: GPT-2's pattern, spaces as ``Ġ``), every step, the live SVG chart and the matplotlib one.
"""

from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")

import pytest
from matplotlib.figure import Figure

from bpe_viz.engine.text import bytes_to_symbols, symbols_to_bytes
from bpe_viz.view import merge_sequences, merge_sequences_svg, plot_bpe_vs_wordpiece, plot_merge_sequences, svg_texts
from bpe_viz.widgets import CompareExplorer
from bpe_viz.widgets.inputs import plain_text

TEXT = "한국 " * 6 + "한글 " * 3 + "😀😀 " * 4 + "🎉 안녕 " * 2


def stand_ins(text: str) -> set[str]:
    """GPT-2's symbols for the bytes of ``text``'s characters beyond ASCII (``한`` -> ``í ķ ľ``):
    none of them is in ``TEXT``, so none may show. (``·`` is also the symbol of byte b7, and the
    header's "count(a)·count(b)" has it: left out.)"""
    return {s for ch in text if not ch.isascii() for s in bytes_to_symbols(ch)} - {"·"}


LEAKS = stand_ins(TEXT)


def leaked(shown: str) -> list[str]:
    return sorted({w for w in re.split(r"\s+", shown) if any(c in LEAKS for c in w)})


@pytest.fixture(scope="module", params=["bytes", "cs336"])
def explorer(request):
    return CompareExplorer(TEXT, 10, bpe_preset=request.param)


def test_the_text_is_what_the_test_says():
    assert not set(TEXT) & LEAKS and {"í", "ķ", "ð", "Ł"} <= LEAKS


def test_no_step_shows_gpt2_byte_symbols(explorer):
    """The view and its chart, as the learner reads them (tags and hover titles aside: a token's
    hover text still says how GPT-2 spells it), at every step."""
    assert explorer.trace_bpe.convention.byte_level
    for k in range(explorer._last_step() + 1):
        explorer.step = k
        page = explorer.standalone_html()  # the view and the chart, as inline SVG (as it shows)
        assert len(svg_texts(page)) > 20  # (the chart's texts are read)
        assert leaked(plain_text(page)) == [], k


def readable(symbols: str) -> str:
    """A byte-level token written by hand as the tables write it: the text of its bytes, a space
    as ␣, bytes that are not whole characters in hex."""
    data = symbols_to_bytes(symbols)
    try:
        return data.decode("utf-8").replace(" ", "␣")
    except UnicodeDecodeError:
        return "<" + " ".join(f"{b:02x}" for b in data) + ">"


def test_the_scatter_writes_a_pair_as_the_pairs_table_does(explorer):
    explorer.step = 0
    (a, b), _count = explorer.trace_bpe[0].top_pairs(1)[0]
    shown = f"({readable(a)}, {readable(b)})"
    assert "<" in shown  # (half a character: the case GPT-2's symbols showed as "(í, ķ)")
    chart = svg_texts(explorer.standalone_html())
    assert f"BPE: {shown}" in chart or f"both: {shown}" in chart, chart
    assert shown in plain_text(explorer.view_html)  # the pairs table's first row


def test_first_difference_table_compares_what_it_shows():
    """``한국``: WordPiece's second merge, byte-level BPE's eighth. Before, BPE's row said
    "íķľêµŃ  (not in WP)" and WordPiece's "한국  (not in BPE)"."""
    ex = CompareExplorer(TEXT, 10, bpe_preset="bytes")
    tb, tw = ex.trace_bpe, ex.trace_wp
    k_bpe = next(i for i, m in enumerate(tb.merges, 1) if m.token == bytes_to_symbols("한국"))
    k_wp = next(i for i, m in enumerate(tw.merges, 1) if m.token == "한국")
    rows = merge_sequences(tb, tw)
    assert rows[k_bpe - 1][4] == k_wp and rows[k_wp - 1][5] == k_bpe
    texts = svg_texts(merge_sequences_svg(tb, tw, upto=10))
    assert f"한국  (WP @{k_wp})" in texts and f"한국  (BPE @{k_bpe})" in texts
    assert "<ed 95>  (not in WP)" in texts and leaked(" ".join(texts)) == []


def test_the_matplotlib_chart_writes_the_same(explorer):
    """``chart_png`` and ``save("x.png")`` draw the chart with matplotlib: the same notation."""
    trace_bpe, trace_wp = explorer.trace_bpe, explorer.trace_wp
    fig = Figure()
    ax1, ax2 = fig.subplots(1, 2)
    plot_bpe_vs_wordpiece(trace_bpe[0], ax=ax1)
    plot_merge_sequences(trace_bpe, trace_wp, upto=10, ax=ax2)
    texts = [t.get_text() for ax in (ax1, ax2) for t in ax.texts]
    assert any(t.startswith(("BPE: (", "both: (")) for t in texts)
    assert leaked(" ".join(texts)) == [] and any("<ed 95>" in t or "한" in t for t in texts), texts
