"""bpe_viz.view.merges.svg: the explorers' live charts as inline SVG say what the matplotlib charts say.

Each SVG chart is compared with its matplotlib twin (:mod:`bpe_viz.view.merges.charts`) drawn from
the same engine objects: same title, pair labels, value notes, picks and merge sequences. Toy
values: Sennrich, Haddow & Birch (2016), Algorithm 1's dictionary; the Hugging Face NLP course
(chapter 6) word counts; and Python's documentation text (``corpora.load("python-docs")``).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import matplotlib

matplotlib.use("Agg")

import pytest

from bpe_viz import corpora, train_bpe, train_wordpiece
from bpe_viz.view import (
    bar_notes,
    bpe_wordpiece_picks,
    compression_curve,
    merge_sequences,
    pair_labels,
    plot_pair_counts,
)
from bpe_viz.view import (
    bpe_vs_wordpiece_svg,
    compression_svg,
    merge_counts_svg,
    merge_sequences_svg,
    pair_counts_svg,
    svg_texts,
)
from helpers import HF_COURSE, SENNRICH
from loop_support import without_a_running_loop

NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    """The SVG parsed as XML: it must be well formed (the browser would show nothing else)."""
    return ET.fromstring(svg)


@pytest.fixture(scope="module")
def docs():
    text = corpora.load("python-docs")
    return train_bpe(text, 2000, preset="subword-nmt")


def test_pair_chart_says_what_the_matplotlib_chart_says(docs):
    """Same title, the same pair labels top to bottom and the same notes ("← next merge",
    "tie") as plot_pair_counts, at every step of the paper's example and at steps of a real
    text (where ties are everywhere)."""
    sennrich = train_bpe(SENNRICH, 10)
    for trace, steps in ((sennrich, range(len(sennrich))), (docs, (1, 17, 500, 1999, 2000))):
        for k in steps:
            ax = plot_pair_counts(trace[k], top=8)
            texts = svg_texts(pair_counts_svg(trace[k], top=8))
            assert texts[0] == ax.get_title() and texts[-1] == ax.get_xlabel()
            assert texts[1:-1:2] == pair_labels(ax), f"step {k}"
            assert texts[2:-1:2] == bar_notes(ax), f"step {k}"
            matplotlib.pyplot.close(ax.figure)


def test_pair_chart_marks_the_next_merge_and_the_ties():
    """Step 0 of the paper's example: (e, s), (s, t) and (t, </w>) all count 9; (e, s) is the
    next merge (vermillion, thick border), the two others tie (orange, hatched)."""
    svg = pair_counts_svg(train_bpe(SENNRICH, 10)[0], top=5)
    root = parse(svg)
    bars = root.findall(f"{NS}rect")
    assert [b.get("fill") for b in bars[:3]] == ["#D55E00", "#E69F00", "#E69F00"]
    assert bars[0].get("stroke-width") == "2.0" and bars[3].get("fill") == "#9A9A9A"
    hatches = [p for p in root.findall(f"{NS}path") if p.get("d", "").count("M") > 1]
    assert len(hatches) == 2, "each tied bar hatched (a second cue besides its color)"
    for bar, hatch in zip(bars[1:3], hatches):  # the hatch lines stay inside their bar
        x, y, w, h = (float(bar.get(a)) for a in ("x", "y", "width", "height"))
        segments = re.findall(r"M(-?[\d.]+) (-?[\d.]+)l(-?[\d.]+) (-?[\d.]+)", hatch.get("d"))
        assert len(segments) > 3
        for x0, y0, dx, dy in ((float(v) for v in seg) for seg in segments):
            for px, py in ((x0, y0), (x0 + dx, y0 + dy)):  # both ends inside the bar
                assert x - 0.11 <= px <= x + w + 0.11 and y - 0.11 <= py <= y + h + 0.11


def test_chart_carries_its_step_and_scales_with_size():
    trace = train_bpe(SENNRICH, 10)
    small, big = (parse(pair_counts_svg(trace[3], size=s)) for s in (1.0, 1.75))
    assert small.get("data-bpe-chart-step") == "3" and small.get("class").startswith("bpe-chart")
    assert small.get("viewBox") == big.get("viewBox")  # drawn once, shown larger
    assert float(big.get("width")) == pytest.approx(1.75 * float(small.get("width")))
    assert pair_counts_svg(trace[3]) == pair_counts_svg(trace[3])  # deterministic (nbval, caches)


def test_text_is_escaped_and_any_script_is_kept():
    """A "<" or "&" in a corpus is text, never markup; Korean and emoji are written as they are
    (the browser picks a font that has them: no boxes, unlike matplotlib's default font)."""
    trace = train_bpe({"a<b&c": 5, "a<b": 4, "한국어": 6, "한국": 3, "🙂🙂": 4}, 6, preset="hf-course")
    svg = pair_counts_svg(trace[0], top=8)
    parse(svg)  # well formed: "<" and "&" escaped
    assert "<b" not in svg.replace("<b>", "")
    labels = svg_texts(svg)[1:-1:2]
    assert "(<, b)" in labels and any("한" in t for t in labels) and "(🙂, 🙂)" in labels


def test_merge_counts_and_compression_follow_the_step(docs):
    for upto in (1, 250, 2000):
        m = docs.merges[upto - 1]
        mc = merge_counts_svg(docs, upto=upto)
        parse(mc)
        assert f"merge {upto}: {m.token} ({m.count:,})" in svg_texts(mc)
        sizes, tpw = compression_curve(docs)
        cs = compression_svg(docs, upto=upto)
        parse(cs)
        assert svg_texts(cs)[0] == f"Step {upto}: {tpw[upto]:.2f} tokens per word, vocabulary {sizes[upto]:,}"
    # the whole run's curve is drawn once per trace, at most a few points per pixel
    assert len(merge_counts_svg(docs, upto=5)) < 40_000
    with pytest.raises(ValueError, match="upto must be between 0 and 2000"):
        merge_counts_svg(docs, upto=2001)
    with pytest.raises(TypeError, match="trace must be a Trace"):
        compression_svg(docs[3])


def test_bpe_vs_wordpiece_picks_equal_the_engines():
    """The square and the diamond mark the pairs bpe_wordpiece_picks names (the quick path
    must agree with Snapshot.pick), on the course's counts and on a real text."""
    course = train_bpe(HF_COURSE, 0, preset="hf-course")[0]
    texts = svg_texts(bpe_vs_wordpiece_svg(course))
    assert "BPE: (u, g)" in texts and "WordPiece: (g, s)" in texts
    text = corpora.load("python-docs")
    trace = train_bpe(text, 600, preset="hf-course")
    for k in (0, 1, 150, 600):
        snap = trace[k]
        bpe, wp = bpe_wordpiece_picks(snap)
        texts = svg_texts(bpe_vs_wordpiece_svg(trace[k]))
        if bpe == wp:
            assert f"both: ({bpe[0]}, {bpe[1]})" in texts
        else:
            assert f"BPE: ({bpe[0]}, {bpe[1]})" in texts and f"WordPiece: ({wp[0]}, {wp[1]})" in texts, k


def test_merge_sequences_rows_match_the_table():
    tb, tw = train_bpe(HF_COURSE, 4, preset="hf-course"), train_wordpiece(HF_COURSE, 4)
    rows = merge_sequences(tb, tw)
    svg = merge_sequences_svg(tb, tw, upto=3)
    parse(svg)
    texts = svg_texts(svg)
    assert texts[0] == "BPE vs WordPiece: first difference at merge 1"
    for k, ta, tb_, same, *_ in rows:
        assert str(k) in texts and ("=" if same else "≠") in texts
        assert any(t.startswith(ta) for t in texts) and any(t.startswith(tb_) for t in texts)
    boxed = [r for r in parse(svg).findall(f"{NS}rect") if r.get("stroke") == "#000"]
    assert len(boxed) == 1, "the row of the current step is boxed"


# -- in the explorers ------------------------------------------------------------------------------


def widget_tree(w):
    yield w
    for child in getattr(w, "children", ()):
        yield from widget_tree(child)


def live_charts(ex) -> list[str]:
    """The charts the page is sent for the step shown: the chart part of the step its StepPane
    shows (and no chart widget of another kind anywhere in the explorer)."""
    import ipywidgets as widgets

    assert not [w for w in widget_tree(ex) if isinstance(w, (widgets.Image, widgets.HTML)) and "data-bpe-chart-step" in
                str(w.value)]
    part = ex._chart_view
    if not part.shown or not part.value:
        assert "data-bpe-chart-step" not in ex._pane.html
        return []
    assert part.value in ex._pane.html and ex._pane.html_step == ex.step
    return [part.value]


def test_explorers_draw_svg_live_and_png_on_demand():
    """The stepper's chart is the SVG of its step (no PNG sent per step); chart_png still
    gives the matplotlib chart of the step shown."""
    from bpe_viz.widgets import CompareExplorer, MergeExplorer

    ex = MergeExplorer.from_trace(train_bpe(SENNRICH, 10))
    for k in (1, 4):
        ex.step = k
        (svg,) = live_charts(ex)
        assert svg == pair_counts_svg(ex.trace[k], top=8, size=ex.size)
        assert ex.chart_png.startswith(b"\x89PNG")
    ex.chart = "compression"
    assert live_charts(ex) == [compression_svg(ex.trace, upto=4, size=ex.size)]
    ex.chart = "none"
    assert live_charts(ex) == [] and ex.chart_png == b""
    cx = CompareExplorer("hf-course", 4)
    cx.step = 2
    (both,) = live_charts(cx)
    assert 'data-bpe-chart-step="2"' in both and "From BPE's state at step 2: what each would merge next" in svg_texts(both)
    assert cx.chart_png.startswith(b"\x89PNG")


@without_a_running_loop
def test_warmer_prepares_the_next_steps_in_idle_time():
    """In a running event loop (as in a kernel) the explorer renders k+1 and k-1 after showing
    k and sends them to the page ahead (its StepPane keeps them: a move there needs no kernel)."""
    import asyncio

    from bpe_viz.widgets import MergeExplorer

    trace = train_bpe(corpora.load("python-docs"), 300, preset="subword-nmt")
    ex = MergeExplorer.from_trace(trace)

    async def step_then_idle():
        ex.step = 150
        await asyncio.sleep(0.5)

    trace._cache.clear()
    asyncio.run(step_then_idle())
    assert ex._warmer.prepared >= 2
    for k in (149, 151):
        assert ex._pane.has(k), f"step {k} was not sent to the page ahead"
    # (the trace itself keeps only its last few snapshots, issue 20's memory target: the page has the steps)
    ex.step = 151  # the view of a prepared step is the one a fresh explorer shows
    fresh = MergeExplorer.from_trace(train_bpe(corpora.load("python-docs"), 300, preset="subword-nmt"))
    fresh.step = 151
    assert ex.view_html == fresh.view_html and live_charts(ex) == live_charts(fresh)


def idle_after_step(ex, k: int, done, timeout: float = 5.0):
    """Show step ``k`` inside a running event loop (as in a kernel), then leave the kernel idle
    until ``done()`` or ``timeout`` seconds."""
    import asyncio

    async def step_then_idle():
        ex.step = k
        for _ in range(int(timeout / 0.05)):
            await asyncio.sleep(0.05)
            if done():
                return

    asyncio.run(step_then_idle())


@without_a_running_loop
def test_warmer_builds_the_traces_tie_order_after_the_neighbours():
    """Issue 20: the first jump on a trace built the kept tie order (39-92 ms of CPU on the docs
    at 10,000 merges); now the kernel's idle time builds it, after the steps next to the one shown."""
    from bpe_viz.widgets import MergeExplorer

    trace = train_bpe(corpora.load("python-docs"), 300, preset="subword-nmt")
    ex = MergeExplorer.from_trace(trace)
    assert "_tie_places" not in trace.__dict__

    idle_after_step(ex, 150, lambda: "_tie_places" in trace.__dict__)
    assert ex._warmer.prepared >= 11  # the neighbours came first
    places = trace.__dict__["_tie_places"]
    assert sorted(places) == list(range(len(trace.history.pairs)))  # a place for every pair


@without_a_running_loop
def test_compare_warmer_prepares_both_traces_and_the_steps_read_the_same():
    """The CompareExplorer's idle time builds each trace's per-trace parts of a cold step after
    the neighbour steps (step 0, shown first, builds most of them; the token spellings that a
    chart's tie at the best WordPiece score reads are left); a step rendered after that is the
    one a fresh explorer renders."""
    from bpe_viz.widgets import CompareExplorer

    text = corpora.load("python-docs")
    tb, tw = train_bpe(text, 400, preset="hf-course"), train_wordpiece(text, 400)
    ex = CompareExplorer.from_traces(tb, tw)
    built = ("_token_spellings", "_spelling_index")
    assert not any(name in t.__dict__ for name in built for t in (tb, tw))

    idle_after_step(ex, 200, lambda: "_spelling_index" in tw.__dict__)
    assert ex._warmer.prepared >= 5  # the neighbours came first
    assert all(name in t.__dict__ for name in built for t in (tb, tw))
    assert all(name in t.__dict__ for name in ("_pair_finder", "_ids_cache", "_wp_pair_slots") for t in (tb, tw))
    ex.step = 321
    fresh = CompareExplorer.from_traces(train_bpe(text, 400, preset="hf-course"), train_wordpiece(text, 400))
    fresh.step = 321
    assert ex.view_html == fresh.view_html


def test_pair_charts_write_byte_level_pairs_as_the_tables_do():
    """A GPT-2-style (byte-level) trace: both pair charts (SVG and matplotlib) name a pair by the
    text its bytes spell, as the tables do (``␣t``, ``<ed 95>``), never by GPT-2's byte symbols
    (``Ġt``, ``íķ``)."""
    from bpe_viz.view.merges.chart_data import chart_token

    trace = train_bpe("the cat sat on the mat 한국어 한국 한", 12, preset="cs336")
    conv = trace.convention
    for k in (0, 3, 8):
        snap = trace[k]
        ranked = [p for p, _ in snap.top_pairs(8)]
        want = [f"({chart_token(a, conv)}, {chart_token(b, conv)})" for a, b in ranked]
        assert any("␣" in w or "<" in w for w in want)  # (the test means something)
        svg = svg_texts(pair_counts_svg(snap, top=8))
        assert [t for t in svg if t.startswith("(")][:len(want)] == want
        ax = plot_pair_counts(snap, top=8)
        assert pair_labels(ax) == want
        matplotlib.pyplot.close(ax.figure)
        assert not any("Ġ" in t or "í" in t for t in svg)


def test_compare_steps_past_bpes_end_make_its_column_once(monkeypatch):
    """Issue 20: BPE often stops before WordPiece (its pairs run out); each step after that shows
    BPE's last state, once made, not again at the cost of a cold step. What the steps show is
    what a fresh explorer shows."""
    from bpe_viz.widgets import CompareExplorer
    from bpe_viz.widgets import compare

    text = corpora.load("python-docs")[:3000]
    tb, tw = train_bpe(text, 400, preset="hf-course"), train_wordpiece(text, 400)
    assert len(tb) < len(tw) - 100  # (the test means something: steps past BPE's end)
    made = []
    real_table, real_scatter = compare.pairs_table_html, compare.bpe_vs_wordpiece_svg
    monkeypatch.setattr(compare, "pairs_table_html", lambda snap, *a, **k: made.append(snap.trace) or real_table(snap, *a, **k))
    monkeypatch.setattr(compare, "bpe_vs_wordpiece_svg", lambda snap, **k: made.append("chart") or real_scatter(snap, **k))
    ex = CompareExplorer.from_traces(tb, tw)
    shown = {}
    for k in (len(tb) - 1, len(tb), len(tb) + 7, len(tw) - 1):
        made.clear()
        ex.step = k
        shown[k] = ex.view_html
        assert made.count(tw) == 1
        assert made.count(tb) == (1 if k in (len(tb) - 1, len(tb)) else 0)  # (at its last step, no "stopped" note)
        assert made.count("chart") == (1 if k == len(tb) - 1 else 0)
    monkeypatch.undo()
    for k, html in shown.items():
        fresh = CompareExplorer.from_traces(tb, tw)
        fresh.step = k
        assert fresh.view_html == html
