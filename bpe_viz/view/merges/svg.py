"""The merge explorers' charts as inline SVG strings: the same pictures as :mod:`.charts`
(matplotlib), drawn by the browser.

Why a second way to draw them: an explorer redraws its chart on every slider step, and
matplotlib takes 60-75 ms to draw and PNG-encode the pair chart (0.5 s for the BPE-vs-WordPiece
chart of a real text) before the browser sees anything. An SVG string takes a millisecond or
two to write, is sharp at every size (a projector too) and the browser picks fonts for any
script (Korean, emoji) by itself. The matplotlib versions stay: notebooks call them, and an
explorer's ``chart_png`` / ``save("x.png")`` still draw them.

For the merge families (BPE, WordPiece, SentencePiece-BPE); the parts (scales, axes, texts,
hatching) and the rules (every text escaped, no ids, no ``<script>``, deterministic output) are
the kit's (:mod:`bpe_viz.view.kit.svg`), the data is shared with the matplotlib charts
(:mod:`.chart_data`), and the same color-blind-safe cues are kept (Okabe-Ito colors plus
hatching, marker shapes or a text label). Every chart is one ``<svg class="bpe-chart"
data-bpe-chart-step="k">`` (the step it shows, for tests and for the browser's latency probe).

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
    >>> out = pair_counts_svg(trace[1], top=3)
    >>> out.startswith("<svg") and 'data-bpe-chart-step="1"' in out, svg_texts(out)[:2]
    (True, ['Best pairs at step 1: 2 pairs tie', '(es, t)'])
"""

from __future__ import annotations

import math
import weakref

from ...engine.checks import check_int
from ...engine.merges import Snapshot, Trace
from ...engine.wordpiece import score_arrays
from ..kit import (BLUE, DIFF_BG, EDGE, FS, GREY, ORANGE, SKY, VERMILLION, Scale, check_size, coord, hatch, svg_axes,
                   svg_chart, svg_text, width_em)
from ..kit import svg_texts  # noqa: F401  (the examples read the charts with it)
from .chart_data import compression_curve, merge_sequences, pair_chart, pair_label, sequence_cell, sequences_window

__all__ = ["pair_counts_svg", "merge_counts_svg", "compression_svg", "bpe_vs_wordpiece_svg", "merge_sequences_svg"]


# -- the pair chart (MergeExplorer's default) ----------------------------------------------------


def pair_counts_svg(snapshot, top: int = 8, *, size: float = 1.0) -> str:
    """The ``top`` best pairs at a step as bars: the next merge in vermillion with a thick border
    and "← next merge", pairs tied with it orange and hatched with "tie", the others grey; the
    SVG twin of :func:`~bpe_viz.view.merges.charts.plot_pair_counts` (same title, labels and notes).

    BPE traces rank by count; WordPiece traces by score (the bars then show the score).

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> texts = svg_texts(pair_counts_svg(trace[0], top=4))
        >>> texts[0]
        'Best pairs at step 0: 3 pairs tie'
        >>> texts[1:7]   # each pair's label, then the note at the end of its bar
        ['(e, s)', '9  ← next merge', '(s, t)', '9  tie', '(t, </w>)', '9  tie']
    """
    if not isinstance(snapshot, Snapshot):
        raise TypeError(f"snapshot must be a Snapshot (trace[k]), got {type(snapshot).__name__}")
    top = check_int("top", top, 1)
    size = check_size(size)
    chart = pair_chart(snapshot, top)
    ranked, title = chart.ranked, chart.title
    width = 560.0
    if not ranked:
        body = (svg_text(10, 16, title, size=FS + 1, weight="700")
                + svg_text(width / 2, 60, "no pairs left: every word is a single symbol", anchor="middle"))
        return svg_chart("pairs", snapshot.step, width, 100, size, title, body)
    conv = snapshot.trace.convention  # (byte-level pairs as the tables write them, not GPT-2's symbols)
    labels = [pair_label(p, convention=conv) for p, _ in ranked]
    label_w = min(0.45 * width, 8 + FS * max(width_em(s) for s in labels))
    x0 = 10 + label_w + 6
    bar_h, pitch, top_y = 18.0, 26.0, 34.0
    vmax = max(chart.values) or 1
    notes = chart.notes
    # the longest bar leaves room for its note (at least like matplotlib's xlim = 1.3 * max)
    note_w = 10 + 0.62 * (FS - 1) * max(len(n) for n in notes)
    room = min((width - 10 - x0) / 1.3, width - 10 - x0 - note_w)
    parts = [svg_text(10, 16, title, size=FS + 1, weight="700")]
    for i, v in enumerate(chart.values):
        y = top_y + i * pitch
        w = max(1.0, room * v / vmax)
        tie = chart.tied(i) and i != chart.chosen
        if i == chart.chosen:
            fill, stroke_w = VERMILLION, 2.0
        elif tie:
            fill, stroke_w = ORANGE, 0.8
        else:
            fill, stroke_w = GREY, 0.8
        parts.append(f'<rect x="{coord(x0)}" y="{coord(y)}" width="{coord(w)}" height="{coord(bar_h)}" '
                     f'fill="{fill}" stroke="{EDGE}" stroke-width="{stroke_w}"/>')
        if tie:
            parts.append(hatch(x0, y, w, bar_h))
        parts.append(svg_text(x0 - 6, y + bar_h / 2, labels[i], anchor="end", mono=True))
        parts.append(svg_text(x0 + w + 5, y + bar_h / 2, notes[i], size=FS - 1, extra=' xml:space="preserve"'))
    bottom = top_y + len(ranked) * pitch
    parts.append(f'<path d="M{coord(x0)} {coord(top_y - 4)}V{coord(bottom - pitch + bar_h + 4)}" '
                 f'stroke="{EDGE}" fill="none"/>')
    parts.append(svg_text(x0 + room / 2, bottom + 10, chart.xlabel, size=FS - 1, anchor="middle"))
    return svg_chart("pairs", snapshot.step, width, bottom + 22, size, title, "".join(parts))


# -- lines over the whole run: merge frequencies, compression -------------------------------------

_LINES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _envelope(values: list[float], xs: Scale, ys: Scale, x_of) -> str:
    """A line through many points as a path with at most two points per pixel column (its
    lowest and highest value there): the same picture as every point, a few KB instead of
    hundreds."""
    cols: dict[int, list] = {}
    order = []
    for i, v in enumerate(values):
        px = round(xs(x_of(i)))
        py = ys(v)
        c = cols.get(px)
        if c is None:
            cols[px] = [py, py, py, py]  # first, min, max, last
            order.append(px)
        else:
            c[1] = min(c[1], py)
            c[2] = max(c[2], py)
            c[3] = py
    d = []
    for px in order:
        first, lo, hi, last = cols[px]
        pts = [first, lo, hi, last] if lo != hi else [first]
        for py in pts:
            d.append(f"{'M' if not d else 'L'}{px} {coord(py)}")
    return "".join(d)


def _cached_line(trace, key, make):
    """A per-trace cache of the parts of a chart that do not change with the step (the curve)."""
    try:
        per = _LINES.setdefault(trace, {})
    except TypeError:
        return make()
    n = len(trace.merges)
    hit = per.get(key)
    if hit is None or hit[0] != n:
        hit = per[key] = (n, make())
    return hit[1]


def merge_counts_svg(trace, upto: int | None = None, *, size: float = 1.0) -> str:
    """How often each merged pair occurred, by merge number, ``upto`` marked (a dot, a dotted
    line and "merge k: token (count)"); the SVG twin of
    :func:`~bpe_viz.view.merges.charts.plot_merge_counts`. The y axis is logarithmic when the counts
    span two decades (Zipf). The curve is drawn once per trace, at most two points per pixel.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> [t for t in svg_texts(merge_counts_svg(trace, upto=3)) if t.startswith("merge 3")]
        ['merge 3: est</w> (9)']
    """
    if not isinstance(trace, Trace):
        raise TypeError(f"trace must be a Trace, got {type(trace).__name__}")
    size = check_size(size)
    merges = trace.merges
    n = len(merges)
    upto = check_int("upto", upto, allow_none=True)
    if upto is not None and upto > n:
        raise ValueError(f"upto must be between 0 and {n} (the merges this trace has), got {upto}")
    title = "Frequency of each merged pair"
    width, height = 560.0, 300.0
    step = upto if upto is not None else 0
    if n == 0:
        body = (svg_text(10, 16, title, size=FS + 1, weight="700")
                + svg_text(width / 2, 150, "no merges yet", anchor="middle"))
        return svg_chart("merges", step, width, height, size, title, body)
    box = (70.0, 34.0, width - 20, height - 46)

    def static():
        counts = [m.count for m in merges]
        lo, hi = min(counts), max(counts)
        log = lo > 0 and hi / lo >= 100
        xs = Scale(0.5, n + 0.5, box[0], box[2])
        ys = Scale(lo, hi * 1.3, box[3], box[1], log=True) if log else Scale(0, hi * 1.05, box[3], box[1])
        path = _envelope(counts, xs, ys, lambda i: i + 1)
        drawn = (f'<path d="{path}" stroke="{SKY}" stroke-width="1.4" fill="none"/>'
                 + svg_axes(xs, ys, box, xlabel="merge number", ylabel="count"))
        return counts, xs, ys, drawn

    counts, xs, ys, drawn = _cached_line(trace, "merges", static)
    parts = [svg_text(10, 16, title, size=FS + 1, weight="700"), drawn]
    if upto:
        c = counts[upto - 1]
        m = merges[upto - 1]
        x, y = xs(upto), ys(c)
        parts.append(f'<path d="M{coord(x)} {coord(box[1])}V{coord(box[3])}" stroke="{VERMILLION}" '
                     'stroke-dasharray="2 3" fill="none"/>')
        parts.append(f'<circle cx="{coord(x)}" cy="{coord(y)}" r="5.5" fill="{VERMILLION}" stroke="#000"/>')
        label = f"merge {upto}: {m.token} ({c:,})"
        right = x + 10 + FS * 0.6 * len(label) > box[2]
        parts.append(svg_text(x - 9 if right else x + 9, max(box[1] + 8, y - 12), label, size=FS - 1,
                              anchor="end" if right else "start"))
    return svg_chart("merges", step, width, height, size, title, "".join(parts))


def compression_svg(trace, upto: int | None = None, *, size: float = 1.0) -> str:
    """Tokens per word (solid, left axis) and vocabulary size (dashed, right axis) by step, with
    ``upto`` marked; the SVG twin of :func:`~bpe_viz.view.merges.charts.plot_compression`.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> svg_texts(compression_svg(trace, upto=4))[0]
        'Step 4: 3.81 tokens per word, vocabulary 15'
    """
    if not isinstance(trace, Trace):
        raise TypeError(f"trace must be a Trace, got {type(trace).__name__}")
    size = check_size(size)
    n = len(trace.merges)
    upto = check_int("upto", upto, allow_none=True)
    if upto is not None and upto > n:
        raise ValueError(f"upto must be between 0 and {n} (the merges this trace has), got {upto}")
    sizes, tpw = compression_curve(trace)
    width, height = 560.0, 300.0
    box = (70.0, 34.0, width - 76, height - 64)
    xs = Scale(0, max(n, 1), box[0], box[2])
    yl = Scale(0, (max(tpw) * 1.08) if any(tpw) else 1, box[3], box[1])
    yr = Scale(0, max(sizes) * 1.08, box[3], box[1])

    def static():
        left = _envelope(tpw, xs, yl, lambda i: i)
        right = _envelope(sizes, xs, yr, lambda i: i)
        legend_y = box[3] + 44
        return (f'<path d="{left}" stroke="{BLUE}" stroke-width="1.8" fill="none"/>'
                f'<path d="{right}" stroke="{VERMILLION}" stroke-width="1.5" stroke-dasharray="6 3" fill="none"/>'
                + svg_axes(xs, yl, box, xlabel="merges", ylabel="tokens per word", yfmt="g", color=BLUE)
                + svg_axes(None, yr, box, yside="right", ylabel="vocabulary size", color=VERMILLION)
                + f'<path d="M{coord(box[0])} {coord(legend_y)}h22" stroke="{BLUE}" stroke-width="1.8"/>'
                + svg_text(box[0] + 28, legend_y, "tokens per word", size=FS - 1)
                + f'<path d="M{coord(box[0] + 160)} {coord(legend_y)}h22" stroke="{VERMILLION}" stroke-width="1.5" '
                'stroke-dasharray="6 3"/>'
                + svg_text(box[0] + 188, legend_y, "vocabulary size", size=FS - 1))

    title = "Compression: shorter text, bigger vocabulary"
    parts = []
    if upto is not None:
        title = f"Step {upto}: {tpw[upto]:.2f} tokens per word, vocabulary {sizes[upto]:,}"
    parts.append(svg_text(10, 16, title, size=FS + 1, weight="700"))
    parts.append(_cached_line(trace, "compression", static))
    if upto is not None:
        x = xs(upto)
        parts.append(f'<path d="M{coord(x)} {coord(box[1])}V{coord(box[3])}" stroke="{EDGE}" stroke-dasharray="2 3" '
                     'fill="none"/>')
        parts.append(f'<circle cx="{coord(x)}" cy="{coord(yl(tpw[upto]))}" r="4.5" fill="{BLUE}" stroke="#000"/>')
        y = yr(sizes[upto])
        parts.append(f'<rect x="{coord(x - 4.5)}" y="{coord(y - 4.5)}" width="9" height="9" fill="{VERMILLION}" '
                     'stroke="#000"/>')
    return svg_chart("compression", upto if upto is not None else 0, width, height, size, title, "".join(parts))


# -- BPE against WordPiece ----------------------------------------------------------------------


def _marker(kind: str, x: float, y: float, fill: str, r: float = 7.0) -> str:
    if kind == "square":
        return (f'<rect x="{coord(x - r)}" y="{coord(y - r)}" width="{coord(2 * r)}" height="{coord(2 * r)}" '
                f'fill="{fill}" stroke="#000" stroke-width="1.2"/>')
    if kind == "diamond":
        return (f'<path d="M{coord(x)} {coord(y - r * 1.2)}L{coord(x + r)} {coord(y)}L{coord(x)} {coord(y + r * 1.2)}'
                f'L{coord(x - r)} {coord(y)}Z" '
                f'fill="{fill}" stroke="#000" stroke-width="1.2"/>')
    return f'<circle cx="{coord(x)}" cy="{coord(y)}" r="{coord(r * 0.3)}" fill="{fill}" fill-opacity="0.6"/>'


_PICKS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # snapshot -> (bpe pick, wp pick) indexes


def _scatter_data(snapshot):
    """``(pair_at, counts, scores)``: every pair of ``snapshot`` in
    :attr:`~bpe_viz.engine.merges.snapshot.Snapshot.pair_counts` order, its count and its
    WordPiece score as numpy arrays, ``pair_at(i)`` the ``i``-th pair. From the engine's arrays
    (:func:`~bpe_viz.engine.wordpiece.score_arrays`) when they can say it, else from the dicts."""
    import numpy as np  # (only here: never at import bpe_viz)

    fast = score_arrays(snapshot)
    if fast is not None:
        ids, counts, scores = fast
        pairs = snapshot.trace.history.pairs  # (its symbols spelled as in public: score_arrays says so)
        return (lambda i: pairs[ids[i]]), counts, scores
    table = snapshot.pair_counts
    tc = snapshot.token_counts
    counts = np.fromiter(table.values(), np.int64, len(table))
    scores = np.array([c / (tc[a] * tc[b]) for (a, b), c in table.items()], dtype=np.float64)
    return list(table).__getitem__, counts, scores


def _quick_picks(snapshot, pair_at, counts, scores):
    """The indexes of :func:`~bpe_viz.view.merges.chart_data.bpe_wordpiece_picks` without its
    costly part when it can: a unique best count (or score) is the pick; a tie at the top count
    that the trace's own next merge already ranked (``next_merge.tied``: the same pairs) is
    decided as it was. Otherwise (a tie the trace never ranked) the engine ranks it
    (``Snapshot.pick``)."""
    import numpy as np

    top = counts.max()
    tied_at = np.flatnonzero(counts == top).tolist()
    tied = [pair_at(i) for i in tied_at]
    if len(tied) == 1:
        bpe = 0
    else:
        nxt = snapshot.next_merge
        scored = snapshot.trace.model.scored
        if (nxt is not None and not scored and nxt.count == top and "tied" in nxt.__dict__
                and set(tied) == {nxt.pair, *nxt.tied} and len(tied) == 1 + len(nxt.tied)):
            bpe = tied.index(nxt.pair)
        else:
            bpe = tied.index(snapshot.pick("count", dict.fromkeys(tied, int(top))))
    near_at = np.flatnonzero(scores >= scores.max() * (1 - 1e-9)).tolist()
    if len(near_at) == 1:
        return tied_at[bpe], near_at[0]
    near = dict(zip(map(pair_at, near_at), counts[near_at].tolist()))  # (with their counts: no table of all)
    return tied_at[bpe], near_at[list(near).index(snapshot.pick("score", near))]


def _padded(lo, hi, log):
    """An axis' range with 15% margins, like matplotlib's ``ax.margins(0.15)``."""
    if log:
        a, b = math.log10(lo), math.log10(hi)
        m = (b - a) * 0.15 or 0.5
        return 10 ** (a - m), 10 ** (b + m)
    m = (hi - lo) * 0.15 or (abs(hi) * 0.15 or 0.5)
    return lo - m, hi + m


def _pixels(scale: Scale, values):
    """``round(scale(v))`` of every value of a numpy array, as Python computes it: the same
    float operations, rounded half to even (as ``np.rint``); numpy's log10 may differ from
    ``math.log10`` in the last bit, so a pixel within a hair of half is computed again by ``math``."""
    import numpy as np

    lo, k, p0 = scale.lo, scale.k, scale.p0
    at = p0 + ((np.log10(values) if scale.log else values) - lo) * k
    px = np.rint(at)
    if scale.log:
        for i in np.flatnonzero(np.abs(at - np.floor(at) - 0.5) < 1e-6).tolist():
            px[i] = round(scale(values[i].item()))
    return px.astype(np.int64)


def _dots(xs: Scale, ys: Scale, counts, scores) -> str:
    """Every pair as a dot, one per pixel (thousands of pairs share a few hundred counts), as
    one path, first met first."""
    import numpy as np

    px, py = _pixels(xs, counts), _pixels(ys, scores)
    ylo = int(py.min())
    _, first = np.unique((px - int(px.min())) * (int(py.max()) - ylo + 1) + (py - ylo), return_index=True)
    first.sort()
    d = [f"M{a} {b}h0" for a, b in zip(px[first].tolist(), py[first].tolist())]
    return (f'<path d="{"".join(d)}" stroke="{GREY}" stroke-opacity="0.6" stroke-width="3.6" '
            'stroke-linecap="round" fill="none"/>')


def _picks_legend(ly: float = 36.0) -> str:
    """The legend, in a row under the title (never over the points)."""
    return (f'<circle cx="80" cy="{coord(ly)}" r="3" fill="{GREY}" fill-opacity="0.6"/>'
            + svg_text(88, ly, "a pair", size=FS - 1)
            + _marker("square", 150, ly, VERMILLION, 5) + svg_text(160, ly, "BPE's pick (max count)", size=FS - 1)
            + _marker("diamond", 318, ly, BLUE, 5) + svg_text(328, ly, "WordPiece's pick (max score)", size=FS - 1))


def _pick_note(x, y, s, dx, dy, width) -> str:
    """A pick's label beside its marker, on the side where the text fits."""
    w = FS * 0.6 * len(s)
    if dx < 0 and x + dx - w < 4 or dx > 0 and x + dx + w > width - 4:
        dx = -dx
    # a white outline under the letters keeps them readable over the dots
    return svg_text(x + dx, y + dy, s, size=FS - 1, anchor="end" if dx < 0 else "start",
                    extra=' stroke="#FFFFFF" stroke-width="3" paint-order="stroke"')


def bpe_vs_wordpiece_svg(snapshot, *, title: str | None = None, size: float = 1.0) -> str:
    """Every candidate pair at one state: its count (x) against its WordPiece score (y); BPE's
    pick (the largest count: a vermillion square) and WordPiece's (the best
    count(ab)/(count(a)·count(b)): a blue diamond), each labelled; the SVG twin of
    :func:`~bpe_viz.view.merges.charts.plot_bpe_vs_wordpiece`. Axes turn logarithmic when the values
    span 30 times or more. Thousands of pairs are drawn as dots merged per pixel (one path).

    Example::

        >>> from bpe_viz import train_bpe
        >>> snap = train_bpe({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 0, preset="hf-course")[0]
        >>> sorted(t for t in svg_texts(bpe_vs_wordpiece_svg(snap)) if ": (" in t)
        ['BPE: (u, g)', 'WordPiece: (g, s)']
    """
    if not isinstance(snapshot, Snapshot):
        raise TypeError(f"snapshot must be a Snapshot (trace[k]), got {type(snapshot).__name__}")
    size = check_size(size)
    width, height = 560.0, 340.0
    title = title if title is not None else f"Count vs WordPiece score, every pair at step {snapshot.step}"
    head = svg_text(10, 16, title, size=FS + 1, weight="700")
    pair_at, counts, scores = _scatter_data(snapshot)
    if not len(counts):
        body = head + svg_text(width / 2, height / 2, "no pairs left: every word is a single symbol", anchor="middle")
        return svg_chart("bpe-wp", snapshot.step, width, height, size, title, body)
    picks = _PICKS.get(snapshot)
    if picks is None:
        picks = _PICKS[snapshot] = _quick_picks(snapshot, pair_at, counts, scores)
    bi, wi = picks
    bpe, wp = pair_at(bi), pair_at(wi)

    box = (74.0, 52.0, width - 24, height - 48)
    xlo, xhi, ylo, yhi = int(counts.min()), int(counts.max()), float(scores.min()), float(scores.max())
    xlog, ylog = xhi / xlo >= 30, yhi / ylo >= 30
    xs = Scale(*_padded(xlo, xhi, xlog), box[0], box[2], log=xlog)
    ys = Scale(*_padded(ylo, yhi, ylog), box[3], box[1], log=ylog)
    parts = [head, _picks_legend(), _dots(xs, ys, counts, scores)]
    parts.append(svg_axes(xs, ys, box, xfmt="int", yfmt="exp" if ylog else "g",
                          xlabel="count of the pair (BPE picks the largest)",
                          ylabel="score = count(ab) / (count(a)·count(b))"))
    bx, by = xs(int(counts[bi])), ys(float(scores[bi]))
    wx, wy = xs(int(counts[wi])), ys(float(scores[wi]))
    parts.append(_marker("square", bx, by, VERMILLION))
    parts.append(_marker("diamond", wx, wy, BLUE))
    conv = snapshot.trace.convention  # (byte-level pairs as the tables write them)
    if bpe == wp:
        parts.append(_pick_note(bx, by, f"both: {pair_label(bpe, convention=conv)}", -10, -12, width))
    else:
        parts.append(_pick_note(bx, by, f"BPE: {pair_label(bpe, convention=conv)}", -10, 14, width))
        parts.append(_pick_note(wx, wy, f"WordPiece: {pair_label(wp, convention=conv)}", 10, -10, width))
    return svg_chart("bpe-wp", snapshot.step, width, height, size, title, "".join(parts))


_SEQUENCES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _sequences(trace_bpe, trace_wp):
    """:func:`~bpe_viz.view.merges.chart_data.merge_sequences`, cached for the pair of traces (it reads
    every merge of both: the same for every step)."""
    key = (len(trace_bpe.merges), len(trace_wp.merges))
    try:
        hit = _SEQUENCES.get(trace_bpe)
    except TypeError:
        return merge_sequences(trace_bpe, trace_wp)
    if hit is not None and hit[0]() is trace_wp and hit[1] == key:
        return hit[2]
    table = merge_sequences(trace_bpe, trace_wp)
    _SEQUENCES[trace_bpe] = (weakref.ref(trace_wp), key, table)
    return table


def merge_sequences_svg(trace_bpe, trace_wp, upto: int | None = None, *, rows: int = 12, size: float = 1.0) -> str:
    """The two merge sequences side by side, ``rows`` merges ending at ``upto`` (its row boxed);
    rows where the tokens differ shaded and marked "≠", with where the other algorithm learned
    the same letters ("WP @7"); the SVG twin of
    :func:`~bpe_viz.view.merges.charts.plot_merge_sequences` (see
    :func:`~bpe_viz.view.merges.chart_data.merge_sequences`).

    Example::

        >>> from bpe_viz import train_bpe, train_wordpiece
        >>> c = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
        >>> svg_texts(merge_sequences_svg(train_bpe(c, 3, preset="hf-course"), train_wordpiece(c, 3)))[0]
        'BPE vs WordPiece: first difference at merge 1'
    """
    size = check_size(size)
    rows = check_int("rows", rows, 1)
    table = _sequences(trace_bpe, trace_wp)
    upto = check_int("upto", upto, allow_none=True)
    title, start, end = sequences_window(table, upto, rows)
    width = 520.0
    pitch = 22.0
    height = 58 + rows * pitch
    parts = [svg_text(10, 16, title, size=FS + 1, weight="700")]
    cols = (12.0, 70.0, 290.0, 500.0)
    for x, h in zip(cols, ("#", "BPE", "WordPiece", "same?")):
        parts.append(svg_text(x, 38, h, weight="700", anchor="middle" if h == "same?" else "start"))
    parts.append(f'<path d="M4 {coord(48)}H{coord(width - 4)}" stroke="{EDGE}" stroke-width="1.2"/>')
    if not table:
        parts.append(svg_text(width / 2, 80, "no merges", anchor="middle"))
        return svg_chart("sequences", upto or 0, width, height, size, title, "".join(parts))
    for i, (k, ta, tb, same, a_in_b, b_in_a) in enumerate(table[start:end]):
        y = 60 + i * pitch
        current = upto is not None and k == upto
        if not same or current:
            parts.append(f'<rect x="4" y="{coord(y - pitch / 2 + 1)}" width="{coord(width - 8)}" '
                         f'height="{coord(pitch - 2)}" '
                         f'fill="{DIFF_BG if not same else "none"}" stroke="{"#000" if current else "none"}" '
                         f'stroke-width="{1.6 if current else 0}"/>')
        weight = "700" if current else None
        parts.append(svg_text(cols[0], y, f"{k}", weight=weight))
        for x, tok, where, other, conv in ((cols[1], ta, a_in_b, "WP", trace_bpe.convention),
                                           (cols[2], tb, b_in_a, "BPE", trace_wp.convention)):
            if tok is None:
                parts.append(svg_text(x, y, "—", fill="#555555"))
                continue
            parts.append(svg_text(x, y, sequence_cell(tok, same, where, other, conv), mono=True, weight=weight,
                                  extra=' xml:space="preserve"'))
        parts.append(svg_text(cols[3], y, "=" if same else "≠", weight="700", anchor="middle"))
    return svg_chart("sequences", upto or 0, width, height, size, title, "".join(parts))
