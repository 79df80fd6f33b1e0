"""The explorers' charts as inline SVG strings: the same pictures as :mod:`bpe_viz.view.charts`,
drawn by the browser instead of matplotlib.

Why a second way to draw them: an explorer redraws its chart on every slider step, and
matplotlib takes 60-75 ms to draw and PNG-encode the pair chart (0.5 s for the BPE-vs-WordPiece
chart of a real text) before the browser sees anything. An SVG string takes a millisecond or
two to write, is sharp at every size (a projector too) and the browser picks fonts for any
script (Korean, emoji) by itself. The matplotlib versions stay: notebooks call them, and an
explorer's ``chart_png`` / ``save("x.png")`` still draw them.

Same rules as the rest of :mod:`bpe_viz.view`: pure functions from engine objects to a string,
every text escaped, no ``<script>``, no ids (hatching is drawn as lines, not an SVG pattern, so
that two charts on one page never share an id), deterministic output, and the same
color-blind-safe cues as the matplotlib charts (Okabe-Ito colors plus hatching, marker shapes or
a text label). Every chart is one ``<svg class="bpe-chart" data-bpe-chart-step="k">`` (the step
it shows, for tests and for the browser's latency probe), sized by ``size`` like the HTML views.

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
    >>> out = pair_counts_svg(trace[1], top=3)
    >>> out.startswith("<svg") and 'data-bpe-chart-step="1"' in out, svg_texts(out)[:2]
    (True, ['Best pairs at step 1: 2 pairs tie', '(es, t)'])
"""

from __future__ import annotations

import html
import math
import re
import unicodedata
import weakref

from ..engine.merges.trace import Snapshot, Trace
from .charts import BLUE, DIFF_BG, GREY, ORANGE, SKY, VERMILLION, compression_curve, merge_sequences, pair_notes

__all__ = [
    "pair_counts_svg",
    "merge_counts_svg",
    "compression_svg",
    "bpe_vs_wordpiece_svg",
    "merge_sequences_svg",
    "svg_texts",
]

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"
FS = 12  # base font size (px at size 1)
INK = "#222222"
EDGE = "#333333"


# -- small pieces ------------------------------------------------------------------------------


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _f(v: float) -> str:
    """A coordinate, one decimal: "12.5", "3" (short strings keep the SVG small)."""
    s = f"{v:.1f}"
    return s[:-2] if s.endswith(".0") else s


def _check_size(size) -> float:
    if isinstance(size, bool) or not isinstance(size, (int, float)) or not 0.5 <= size <= 4:
        raise ValueError(f"size must be a number between 0.5 and 4, got {size!r}")
    return float(size)


def _check_int(name, value, minimum=0, allow_none=True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def _text(x, y, s, *, size=FS, anchor="start", weight=None, fill=None, mono=False, baseline="central",
          italic=False, extra="") -> str:
    attrs = f'x="{_f(x)}" y="{_f(y)}" font-size="{_f(size)}"'
    if anchor != "start":
        attrs += f' text-anchor="{anchor}"'
    if baseline:
        attrs += f' dominant-baseline="{baseline}"'
    if weight:
        attrs += f' font-weight="{weight}"'
    if fill:
        attrs += f' fill="{fill}"'
    if mono:
        attrs += f' font-family="{MONO}"'
    if italic:
        attrs += ' font-style="italic"'
    return f"<text {attrs}{extra}>{_e(s)}</text>"


def _width_em(s: str) -> float:
    """Width of ``s`` in a monospace font, in em (wide East Asian characters and emoji count
    double)."""
    return sum(1.2 if unicodedata.east_asian_width(ch) in "WF" else 0.6 for ch in s)


def _svg(kind: str, step, width: float, height: float, size: float, title: str, body: str) -> str:
    """The outer element: drawn in base units (``width`` × ``height`` at size 1), shown ``size``
    times larger, never wider than its container (then scaled down, still sharp)."""
    return (
        f'<svg class="bpe-chart bpe-chart-{kind}" data-bpe-chart-step="{step}" '
        f'xmlns="http://www.w3.org/2000/svg" width="{_f(width * size)}" height="{_f(height * size)}" '
        f'viewBox="0 0 {_f(width)} {_f(height)}" role="img" aria-label="{_e(title)}" '
        f'font-family="{FONT}" fill="{INK}" style="display:block;max-width:100%;height:auto;'
        f'background:#FFFFFF;margin-top:0.4em"><title>{_e(title)}</title>{body}</svg>'
    )


def _hatch(x: float, y: float, w: float, h: float, gap: float = 6.0) -> str:
    """Diagonal lines (like matplotlib's ``//``) filling a rectangle, as one path. Each line
    ``X + Y = c`` is cut to the rectangle by arithmetic, so no clipPath (and no id) is needed."""
    d = []
    c = x + y + gap / 2
    while c < x + w + y + h:
        lo, hi = max(x, c - (y + h)), min(x + w, c - y)
        if hi > lo:  # from (lo, c - lo) up-right to (hi, c - hi), as "M x y l dx -dy"
            d.append(f"M{lo:.1f} {c - lo:.1f}l{hi - lo:.1f} {lo - hi:.1f}")
        c += gap
    return f'<path d="{"".join(d)}" stroke="{EDGE}" stroke-width="1" fill="none"/>'


class _Scale:
    """Data -> pixel along one axis, linear or logarithmic (base 10)."""

    def __init__(self, lo: float, hi: float, p0: float, p1: float, log: bool = False):
        self.log = log
        if log:
            lo, hi = math.log10(lo), math.log10(hi)
        if hi <= lo:
            lo, hi = lo - 0.5, hi + 0.5
        self.lo, self.hi, self.p0, self.p1 = lo, hi, p0, p1
        self.k = (p1 - p0) / (hi - lo)

    def __call__(self, v: float) -> float:
        if self.log:
            v = math.log10(v)
        return self.p0 + (v - self.lo) * self.k

    def ticks(self, n: int = 5) -> list[float]:
        if self.log:
            return [10.0 ** e for e in range(math.ceil(self.lo - 1e-9), math.floor(self.hi + 1e-9) + 1)]
        return _nice_ticks(self.lo, self.hi, n)


def _nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About ``n`` round numbers between ``lo`` and ``hi`` (1, 2 or 5 times a power of ten apart)."""
    span = hi - lo
    if span <= 0:
        return [lo]
    raw = span / max(n, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    out = []
    v = first
    while v <= hi + step * 1e-9:
        out.append(round(v, 12))
        v += step
    return out


def _axis_label(v: float, fmt: str) -> str:
    if fmt == "int":
        return f"{v:,.0f}"
    if fmt == "exp":
        return f"{v:.0e}"
    return f"{v:g}"


def _axes(xs: _Scale | None, ys: _Scale | None, box, *, xfmt="int", yfmt="int", yside="left",
          xlabel="", ylabel="", color=None) -> str:
    """Axis lines, ticks and labels of one plot area ``box`` = (left, top, right, bottom)."""
    left, top, right, bottom = box
    out = []
    if xs is not None:
        out.append(f'<path d="M{_f(left)} {_f(bottom)}H{_f(right)}" stroke="{EDGE}" fill="none"/>')
        for v in xs.ticks():
            x = xs(v)
            if left - 0.5 <= x <= right + 0.5:
                out.append(f'<path d="M{_f(x)} {_f(bottom)}v4" stroke="{EDGE}"/>')
                out.append(_text(x, bottom + 12, _axis_label(v, xfmt), size=FS - 2, anchor="middle"))
        if xlabel:
            out.append(_text((left + right) / 2, bottom + 28, xlabel, size=FS - 1, anchor="middle"))
    if ys is not None:
        x_axis = left if yside == "left" else right
        sign = -1 if yside == "left" else 1
        out.append(f'<path d="M{_f(x_axis)} {_f(top)}V{_f(bottom)}" stroke="{color or EDGE}" fill="none"/>')
        for v in ys.ticks():
            y = ys(v)
            if top - 0.5 <= y <= bottom + 0.5:
                out.append(f'<path d="M{_f(x_axis)} {_f(y)}h{sign * 4}" stroke="{color or EDGE}"/>')
                out.append(_text(x_axis + sign * 6, y, _axis_label(v, yfmt), size=FS - 2,
                                 anchor="end" if yside == "left" else "start", fill=color))
        if ylabel:
            x = left - 50 if yside == "left" else right + 56
            cy = (top + bottom) / 2
            out.append(_text(x, cy, ylabel, size=FS - 1, anchor="middle", fill=color,
                             extra=f' transform="rotate({-90 if yside == "left" else 90} {_f(x)} {_f(cy)})"'))
    return "".join(out)


def svg_texts(svg: str) -> list[str]:
    """The texts written in an SVG chart, in order (the title element excluded), unescaped: what
    a test (or a screen reader) reads.

    Example::

        >>> svg_texts('<svg><title>t</title><text x="0">a &amp; b</text><text>c</text></svg>')
        ['a & b', 'c']
    """
    return [html.unescape(t) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg, flags=re.S)]


# -- the pair chart (MergeExplorer's default) ----------------------------------------------------


def _pair_label(pair) -> str:
    return f"({pair[0]}, {pair[1]})"


def pair_counts_svg(snapshot, top: int = 8, *, size: float = 1.0) -> str:
    """The ``top`` best pairs at a step as bars: the next merge in vermillion with a thick border
    and "← next merge", pairs tied with it orange and hatched with "tie", the others grey; the
    SVG twin of :func:`~bpe_viz.view.charts.plot_pair_counts` (same title, labels and notes).

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
    top = _check_int("top", top, 1, allow_none=False)
    size = _check_size(size)
    trace = snapshot.trace
    scored = trace.model.scored
    ranked = snapshot.top_pairs(top)
    title = f"Best pairs at step {snapshot.step}"
    width = 560.0
    if not ranked:
        body = (_text(10, 16, title, size=FS + 1, weight="700")
                + _text(width / 2, 60, "no pairs left: every word is a single symbol", anchor="middle"))
        return _svg("pairs", snapshot.step, width, 100, size, title, body)
    keys = [snapshot.rank_value(p, c) for p, c in ranked]  # counts, or exact scores
    values = [float(k) for k in keys] if scored else keys
    nxt = snapshot.next_merge
    chosen = 0 if nxt is not None and nxt.pair == ranked[0][0] else None
    n_top = sum(1 for k in keys if k == keys[0])
    if chosen == 0:
        n_tied = 1 + len(nxt.tied)  # every pair tied at the top, not only the ones drawn
    else:
        n_tied = sum(1 for p, c in snapshot.ranked_pairs if snapshot.rank_value(p, c) == keys[0])
    if n_tied > 1:
        title += f": {n_tied:,} pairs tie"
    if nxt is None and snapshot.step == len(trace.merges):
        title += f" (training stopped: {trace.stop_reason})"

    labels = [_pair_label(p) for p, _ in ranked]
    label_w = min(0.45 * width, 8 + FS * max(_width_em(s) for s in labels))
    x0 = 10 + label_w + 6
    bar_h, pitch, top_y = 18.0, 26.0, 34.0
    vmax = max(values) or 1
    notes = pair_notes(values, keys, chosen, scored)
    # the longest bar leaves room for its note (at least like matplotlib's xlim = 1.3 * max)
    note_w = 10 + 0.62 * (FS - 1) * max(len(n) for n in notes)
    room = min((width - 10 - x0) / 1.3, width - 10 - x0 - note_w)
    parts = [_text(10, 16, title, size=FS + 1, weight="700")]
    for i, ((pair, _c), v) in enumerate(zip(ranked, values)):
        y = top_y + i * pitch
        w = max(1.0, room * v / vmax)
        tie = n_top > 1 and keys[i] == keys[0] and i != chosen
        if i == chosen:
            fill, stroke_w = VERMILLION, 2.0
        elif tie:
            fill, stroke_w = ORANGE, 0.8
        else:
            fill, stroke_w = GREY, 0.8
        parts.append(f'<rect x="{_f(x0)}" y="{_f(y)}" width="{_f(w)}" height="{_f(bar_h)}" fill="{fill}" '
                     f'stroke="{EDGE}" stroke-width="{stroke_w}"/>')
        if tie:
            parts.append(_hatch(x0, y, w, bar_h))
        parts.append(_text(x0 - 6, y + bar_h / 2, labels[i], anchor="end", mono=True))
        parts.append(_text(x0 + w + 5, y + bar_h / 2, notes[i], size=FS - 1, extra=' xml:space="preserve"'))
    bottom = top_y + len(ranked) * pitch
    parts.append(f'<path d="M{_f(x0)} {_f(top_y - 4)}V{_f(bottom - pitch + bar_h + 4)}" stroke="{EDGE}" fill="none"/>')
    xlabel = ("score = count(ab) / (count(a)·count(b))" if scored
              else "count (occurrences, weighted by word frequency)")
    parts.append(_text(x0 + room / 2, bottom + 10, xlabel, size=FS - 1, anchor="middle"))
    return _svg("pairs", snapshot.step, width, bottom + 22, size, title, "".join(parts))


# -- lines over the whole run: merge frequencies, compression -------------------------------------

_LINES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _envelope(values: list[float], xs: _Scale, ys: _Scale, x_of) -> str:
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
            d.append(f"{'M' if not d else 'L'}{px} {_f(py)}")
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
    :func:`~bpe_viz.view.charts.plot_merge_counts`. The y axis is logarithmic when the counts
    span two decades (Zipf). The curve is drawn once per trace, at most two points per pixel.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> [t for t in svg_texts(merge_counts_svg(trace, upto=3)) if t.startswith("merge 3")]
        ['merge 3: est</w> (9)']
    """
    if not isinstance(trace, Trace):
        raise TypeError(f"trace must be a Trace, got {type(trace).__name__}")
    size = _check_size(size)
    merges = trace.merges
    n = len(merges)
    upto = _check_int("upto", upto)
    if upto is not None and upto > n:
        raise ValueError(f"upto must be between 0 and {n} (the merges this trace has), got {upto}")
    title = "Frequency of each merged pair"
    width, height = 560.0, 300.0
    step = upto if upto is not None else 0
    if n == 0:
        body = _text(10, 16, title, size=FS + 1, weight="700") + _text(width / 2, 150, "no merges yet", anchor="middle")
        return _svg("merges", step, width, height, size, title, body)
    box = (70.0, 34.0, width - 20, height - 46)

    def static():
        counts = [m.count for m in merges]
        lo, hi = min(counts), max(counts)
        log = lo > 0 and hi / lo >= 100
        xs = _Scale(0.5, n + 0.5, box[0], box[2])
        ys = _Scale(lo, hi * 1.3, box[3], box[1], log=True) if log else _Scale(0, hi * 1.05, box[3], box[1])
        path = _envelope(counts, xs, ys, lambda i: i + 1)
        drawn = (f'<path d="{path}" stroke="{SKY}" stroke-width="1.4" fill="none"/>'
                 + _axes(xs, ys, box, xlabel="merge number", ylabel="count"))
        return counts, xs, ys, drawn

    counts, xs, ys, drawn = _cached_line(trace, "merges", static)
    parts = [_text(10, 16, title, size=FS + 1, weight="700"), drawn]
    if upto:
        c = counts[upto - 1]
        m = merges[upto - 1]
        x, y = xs(upto), ys(c)
        parts.append(f'<path d="M{_f(x)} {_f(box[1])}V{_f(box[3])}" stroke="{VERMILLION}" '
                     'stroke-dasharray="2 3" fill="none"/>')
        parts.append(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="5.5" fill="{VERMILLION}" stroke="#000"/>')
        label = f"merge {upto}: {m.token} ({c:,})"
        right = x + 10 + FS * 0.6 * len(label) > box[2]
        parts.append(_text(x - 9 if right else x + 9, max(box[1] + 8, y - 12), label, size=FS - 1,
                           anchor="end" if right else "start"))
    return _svg("merges", step, width, height, size, title, "".join(parts))


def compression_svg(trace, upto: int | None = None, *, size: float = 1.0) -> str:
    """Tokens per word (solid, left axis) and vocabulary size (dashed, right axis) by step, with
    ``upto`` marked; the SVG twin of :func:`~bpe_viz.view.charts.plot_compression`.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> svg_texts(compression_svg(trace, upto=4))[0]
        'Step 4: 3.81 tokens per word, vocabulary 15'
    """
    if not isinstance(trace, Trace):
        raise TypeError(f"trace must be a Trace, got {type(trace).__name__}")
    size = _check_size(size)
    n = len(trace.merges)
    upto = _check_int("upto", upto)
    if upto is not None and upto > n:
        raise ValueError(f"upto must be between 0 and {n} (the merges this trace has), got {upto}")
    sizes, tpw = compression_curve(trace)
    width, height = 560.0, 300.0
    box = (70.0, 34.0, width - 76, height - 64)
    xs = _Scale(0, max(n, 1), box[0], box[2])
    yl = _Scale(0, (max(tpw) * 1.08) if any(tpw) else 1, box[3], box[1])
    yr = _Scale(0, max(sizes) * 1.08, box[3], box[1])

    def static():
        left = _envelope(tpw, xs, yl, lambda i: i)
        right = _envelope(sizes, xs, yr, lambda i: i)
        legend_y = box[3] + 44
        return (f'<path d="{left}" stroke="{BLUE}" stroke-width="1.8" fill="none"/>'
                f'<path d="{right}" stroke="{VERMILLION}" stroke-width="1.5" stroke-dasharray="6 3" fill="none"/>'
                + _axes(xs, yl, box, xlabel="merges", ylabel="tokens per word", yfmt="g", color=BLUE)
                + _axes(None, yr, box, yside="right", ylabel="vocabulary size", color=VERMILLION)
                + f'<path d="M{_f(box[0])} {_f(legend_y)}h22" stroke="{BLUE}" stroke-width="1.8"/>'
                + _text(box[0] + 28, legend_y, "tokens per word", size=FS - 1)
                + f'<path d="M{_f(box[0] + 160)} {_f(legend_y)}h22" stroke="{VERMILLION}" stroke-width="1.5" '
                'stroke-dasharray="6 3"/>'
                + _text(box[0] + 188, legend_y, "vocabulary size", size=FS - 1))

    title = "Compression: shorter text, bigger vocabulary"
    parts = []
    if upto is not None:
        title = f"Step {upto}: {tpw[upto]:.2f} tokens per word, vocabulary {sizes[upto]:,}"
    parts.append(_text(10, 16, title, size=FS + 1, weight="700"))
    parts.append(_cached_line(trace, "compression", static))
    if upto is not None:
        x = xs(upto)
        parts.append(f'<path d="M{_f(x)} {_f(box[1])}V{_f(box[3])}" stroke="{EDGE}" stroke-dasharray="2 3" '
                     'fill="none"/>')
        parts.append(f'<circle cx="{_f(x)}" cy="{_f(yl(tpw[upto]))}" r="4.5" fill="{BLUE}" stroke="#000"/>')
        y = yr(sizes[upto])
        parts.append(f'<rect x="{_f(x - 4.5)}" y="{_f(y - 4.5)}" width="9" height="9" fill="{VERMILLION}" '
                     'stroke="#000"/>')
    return _svg("compression", upto if upto is not None else 0, width, height, size, title, "".join(parts))


# -- BPE against WordPiece ----------------------------------------------------------------------


def _marker(kind: str, x: float, y: float, fill: str, r: float = 7.0) -> str:
    if kind == "square":
        return (f'<rect x="{_f(x - r)}" y="{_f(y - r)}" width="{_f(2 * r)}" height="{_f(2 * r)}" '
                f'fill="{fill}" stroke="#000" stroke-width="1.2"/>')
    if kind == "diamond":
        return (f'<path d="M{_f(x)} {_f(y - r * 1.2)}L{_f(x + r)} {_f(y)}L{_f(x)} {_f(y + r * 1.2)}'
                f'L{_f(x - r)} {_f(y)}Z" '
                f'fill="{fill}" stroke="#000" stroke-width="1.2"/>')
    return f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r * 0.3)}" fill="{fill}" fill-opacity="0.6"/>'


_PICKS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # snapshot -> (bpe pick, wp pick)


def _quick_picks(snapshot, counts, scores):
    """:func:`~bpe_viz.view.charts.bpe_wordpiece_picks` without its costly part when it can:
    a unique best count (or score) is the pick; a tie at the top count that the trace's own
    next merge already ranked (``next_merge.tied``: the same pairs) is decided as it was.
    Otherwise (a tie the trace never ranked) the engine ranks it (``Snapshot.pick``)."""
    top = max(counts.values())
    tied = [p for p, c in counts.items() if c == top]
    if len(tied) == 1:
        bpe = tied[0]
    else:
        nxt = snapshot.next_merge
        scored = snapshot.trace.model.scored
        if (nxt is not None and not scored and nxt.count == top
                and set(tied) == {nxt.pair, *nxt.tied} and len(tied) == 1 + len(nxt.tied)):
            bpe = nxt.pair
        else:
            bpe = snapshot.pick("count")
    best = max(scores)
    near = [p for p, s in zip(counts, scores) if s >= best * (1 - 1e-9)]
    wp = near[0] if len(near) == 1 else snapshot.pick("score")
    return bpe, wp


def bpe_vs_wordpiece_svg(snapshot, *, title: str | None = None, size: float = 1.0) -> str:
    """Every candidate pair at one state: its count (x) against its WordPiece score (y); BPE's
    pick (the largest count: a vermillion square) and WordPiece's (the best
    count(ab)/(count(a)·count(b)): a blue diamond), each labelled; the SVG twin of
    :func:`~bpe_viz.view.charts.plot_bpe_vs_wordpiece`. Axes turn logarithmic when the values
    span 30 times or more. Thousands of pairs are drawn as dots merged per pixel (one path).

    Example::

        >>> from bpe_viz import train_bpe
        >>> snap = train_bpe({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 0, preset="hf-course")[0]
        >>> sorted(t for t in svg_texts(bpe_vs_wordpiece_svg(snap)) if ": (" in t)
        ['BPE: (u, g)', 'WordPiece: (g, s)']
    """
    if not isinstance(snapshot, Snapshot):
        raise TypeError(f"snapshot must be a Snapshot (trace[k]), got {type(snapshot).__name__}")
    size = _check_size(size)
    width, height = 560.0, 340.0
    title = title if title is not None else f"Count vs WordPiece score, every pair at step {snapshot.step}"
    head = _text(10, 16, title, size=FS + 1, weight="700")
    counts = snapshot.pair_counts
    if not counts:
        body = head + _text(width / 2, height / 2, "no pairs left: every word is a single symbol", anchor="middle")
        return _svg("bpe-wp", snapshot.step, width, height, size, title, body)
    tc = snapshot.token_counts
    xs_v = list(counts.values())
    ys_v = [c / (tc[a] * tc[b]) for (a, b), c in counts.items()]
    picks = _PICKS.get(snapshot)
    if picks is None:
        picks = _PICKS[snapshot] = _quick_picks(snapshot, counts, ys_v)
    bpe, wp = picks

    def score(p):
        return counts[p] / (tc[p[0]] * tc[p[1]])

    box = (74.0, 52.0, width - 24, height - 48)
    xlo, xhi, ylo, yhi = min(xs_v), max(xs_v), min(ys_v), max(ys_v)
    xlog, ylog = xhi / xlo >= 30, yhi / ylo >= 30

    def padded(lo, hi, log):  # 15% margins, like ax.margins(0.15)
        if log:
            a, b = math.log10(lo), math.log10(hi)
            m = (b - a) * 0.15 or 0.5
            return 10 ** (a - m), 10 ** (b + m)
        m = (hi - lo) * 0.15 or (abs(hi) * 0.15 or 0.5)
        return lo - m, hi + m

    xs = _Scale(*padded(xlo, xhi, xlog), box[0], box[2], log=xlog)
    ys = _Scale(*padded(ylo, yhi, ylog), box[3], box[1], log=ylog)
    # every pair as a dot, one per pixel (thousands of pairs share a few hundred counts)
    px_of = {c: round(xs(c)) for c in set(xs_v)}
    if ys.log:
        lo, k, p0, log10 = ys.lo, ys.k, ys.p0, math.log10
        pys = [round(p0 + (log10(y) - lo) * k) for y in ys_v]
    else:
        pys = [round(ys(y)) for y in ys_v]
    dots = dict.fromkeys(zip((px_of[c] for c in xs_v), pys))
    d = [f"M{px} {py}h0" for px, py in dots]
    parts = [head]
    # the legend, in a row under the title (never over the points)
    ly = 36.0
    parts.append(f'<circle cx="80" cy="{_f(ly)}" r="3" fill="{GREY}" fill-opacity="0.6"/>'
                 + _text(88, ly, "a pair", size=FS - 1))
    parts.append(_marker("square", 150, ly, VERMILLION, 5) + _text(160, ly, "BPE's pick (max count)", size=FS - 1))
    parts.append(_marker("diamond", 318, ly, BLUE, 5) + _text(328, ly, "WordPiece's pick (max score)", size=FS - 1))
    parts.append(f'<path d="{"".join(d)}" stroke="{GREY}" stroke-opacity="0.6" stroke-width="3.6" '
                 'stroke-linecap="round" fill="none"/>')
    parts.append(_axes(xs, ys, box, xfmt="int", yfmt="exp" if ylog else "g",
                       xlabel="count of the pair (BPE picks the largest)",
                       ylabel="score = count(ab) / (count(a)·count(b))"))
    bx, by = xs(counts[bpe]), ys(score(bpe))
    wx, wy = xs(counts[wp]), ys(score(wp))
    parts.append(_marker("square", bx, by, VERMILLION))
    parts.append(_marker("diamond", wx, wy, BLUE))

    def note(x, y, s, dx, dy):
        # beside the marker, on the side where the text fits
        w = FS * 0.6 * len(s)
        if dx < 0 and x + dx - w < 4 or dx > 0 and x + dx + w > width - 4:
            dx = -dx
        # a white outline under the letters keeps them readable over the dots
        return _text(x + dx, y + dy, s, size=FS - 1, anchor="end" if dx < 0 else "start",
                     extra=' stroke="#FFFFFF" stroke-width="3" paint-order="stroke"')

    if bpe == wp:
        parts.append(note(bx, by, f"both: {_pair_label(bpe)}", -10, -12))
    else:
        parts.append(note(bx, by, f"BPE: {_pair_label(bpe)}", -10, 14))
        parts.append(note(wx, wy, f"WordPiece: {_pair_label(wp)}", 10, -10))
    return _svg("bpe-wp", snapshot.step, width, height, size, title, "".join(parts))


_SEQUENCES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _sequences(trace_bpe, trace_wp):
    """:func:`~bpe_viz.view.charts.merge_sequences`, cached for the pair of traces (it reads
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
    :func:`~bpe_viz.view.charts.plot_merge_sequences` (see
    :func:`~bpe_viz.view.charts.merge_sequences`).

    Example::

        >>> from bpe_viz import train_bpe, train_wordpiece
        >>> c = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
        >>> svg_texts(merge_sequences_svg(train_bpe(c, 3, preset="hf-course"), train_wordpiece(c, 3)))[0]
        'BPE vs WordPiece: first difference at merge 1'
    """
    size = _check_size(size)
    rows = _check_int("rows", rows, 1, allow_none=False)
    table = _sequences(trace_bpe, trace_wp)
    n = len(table)
    upto = _check_int("upto", upto)
    if upto is not None and upto > n:
        raise ValueError(f"upto must be between 0 and {n} (the longer trace's merges), got {upto}")
    first_diff = next((r[0] for r in table if not r[3]), None)
    title = (f"BPE vs WordPiece: the same letters for all {n} merges" if first_diff is None
             else f"BPE vs WordPiece: first difference at merge {first_diff}")
    width = 520.0
    pitch = 22.0
    height = 58 + rows * pitch
    parts = [_text(10, 16, title, size=FS + 1, weight="700")]
    cols = (12.0, 70.0, 290.0, 500.0)
    for x, h in zip(cols, ("#", "BPE", "WordPiece", "same?")):
        parts.append(_text(x, 38, h, weight="700", anchor="middle" if h == "same?" else "start"))
    parts.append(f'<path d="M4 {_f(48)}H{_f(width - 4)}" stroke="{EDGE}" stroke-width="1.2"/>')
    if n == 0:
        parts.append(_text(width / 2, 80, "no merges", anchor="middle"))
        return _svg("sequences", upto or 0, width, height, size, title, "".join(parts))
    end = rows if upto is None else max(upto, min(rows, n))
    end = min(end, n)
    start = max(0, end - rows)

    def short(tok):
        return tok if len(tok) <= 12 else tok[:11] + "…"

    for i, (k, ta, tb, same, a_in_b, b_in_a) in enumerate(table[start:end]):
        y = 60 + i * pitch
        current = upto is not None and k == upto
        if not same or current:
            parts.append(f'<rect x="4" y="{_f(y - pitch / 2 + 1)}" width="{_f(width - 8)}" height="{_f(pitch - 2)}" '
                         f'fill="{DIFF_BG if not same else "none"}" stroke="{"#000" if current else "none"}" '
                         f'stroke-width="{1.6 if current else 0}"/>')
        weight = "700" if current else None
        parts.append(_text(cols[0], y, f"{k}", weight=weight))
        for x, tok, where, other in ((cols[1], ta, a_in_b, "WP"), (cols[2], tb, b_in_a, "BPE")):
            if tok is None:
                parts.append(_text(x, y, "—", fill="#555555"))
                continue
            text = short(tok)
            if not same:
                text += f"  ({other} @{where})" if where is not None else f"  (not in {other})"
            parts.append(_text(x, y, text, mono=True, weight=weight, extra=' xml:space="preserve"'))
        parts.append(_text(cols[3], y, "=" if same else "≠", weight="700", anchor="middle"))
    return _svg("sequences", upto or 0, width, height, size, title, "".join(parts))
