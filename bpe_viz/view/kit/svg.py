"""The parts every inline SVG chart is made of: the outer ``<svg>``, texts, scales (linear or
logarithmic), axes with ticks and labels, hatching; and :func:`svg_texts` to read a chart back.

The kit's SVG half (:mod:`.mpl` is its matplotlib half): the families' SVG charts
(:mod:`bpe_viz.view.merges.svg`, :mod:`bpe_viz.view.unigram.svg`) are drawn with these. The
rules they keep: every text escaped, no ``<script>``, no ids (hatching is drawn as lines, not an
SVG pattern, so that two charts on one page never share an id), deterministic output, and one
``<svg class="bpe-chart" data-bpe-chart-step="k">`` per chart, sized by ``size`` like the HTML
views.

Example::

    >>> ys = Scale(0, 10, 100, 0)   # data 0..10 onto pixels 100..0 (y grows downwards)
    >>> ys(5), ys.ticks()
    (50.0, [0, 2, 4, 6, 8, 10])
    >>> svg_texts(svg_chart("demo", 3, 100, 50, 1.0, "a <title>", svg_text(5, 5, "x & y")))
    ['x & y']
"""

from __future__ import annotations

import html
import math
import re
import unicodedata

from .html import esc

__all__ = ["FONT", "MONO", "FS", "INK", "EDGE", "coord", "svg_text", "width_em", "svg_chart", "hatch", "Scale",
           "svg_axes", "svg_texts"]

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"
FS = 12  # base font size (px at size 1)
INK = "#222222"
EDGE = "#333333"


def coord(v: float) -> str:
    """A coordinate, one decimal: "12.5", "3" (short strings keep the SVG small)."""
    s = f"{v:.1f}"
    return s[:-2] if s.endswith(".0") else s


def svg_text(x, y, s, *, size=FS, anchor="start", weight=None, fill=None, mono=False, baseline="central",
             italic=False, extra="") -> str:
    """A ``<text>`` at (x, y), escaped; ``extra``: more attributes, as written."""
    attrs = f'x="{coord(x)}" y="{coord(y)}" font-size="{coord(size)}"'
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
    return f"<text {attrs}{extra}>{esc(s)}</text>"


def width_em(s: str) -> float:
    """Width of ``s`` in a monospace font, in em (wide East Asian characters and emoji count
    double)."""
    return sum(1.2 if unicodedata.east_asian_width(ch) in "WF" else 0.6 for ch in s)


def svg_chart(kind: str, step, width: float, height: float, size: float, title: str, body: str) -> str:
    """The outer element: drawn in base units (``width`` × ``height`` at size 1), shown ``size``
    times larger, never wider than its container (then scaled down, still sharp)."""
    return (
        f'<svg class="bpe-chart bpe-chart-{kind}" data-bpe-chart-step="{step}" '
        f'xmlns="http://www.w3.org/2000/svg" width="{coord(width * size)}" height="{coord(height * size)}" '
        f'viewBox="0 0 {coord(width)} {coord(height)}" role="img" aria-label="{esc(title)}" '
        f'font-family="{FONT}" fill="{INK}" style="display:block;max-width:100%;height:auto;'
        f'background:#FFFFFF;margin-top:0.4em"><title>{esc(title)}</title>{body}</svg>'
    )


def hatch(x: float, y: float, w: float, h: float, gap: float = 6.0) -> str:
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


class Scale:
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


def _tick_labels(scale: Scale, fmt: str) -> list[tuple[float, str]]:
    """The ticks of ``scale`` and their labels, distinct: an "int" axis (counts, merge numbers)
    gets only its whole ticks, so a small range never reads "2, 2, 3"; when no whole number
    falls in it (a loss moving by less than 1), its ticks are written as decimals."""
    ticks = scale.ticks()
    if fmt == "int":
        whole = [v for v in ticks if abs(v - round(v)) < 1e-9]
        ticks, fmt = (whole, fmt) if whole else (ticks, "g")
    out, seen = [], set()
    for v in ticks:
        label = _axis_label(v, fmt)
        if label not in seen:
            seen.add(label)
            out.append((v, label))
    return out


def svg_axes(xs: Scale | None, ys: Scale | None, box, *, xfmt="int", yfmt="int", yside="left",
             xlabel="", ylabel="", color=None) -> str:
    """Axis lines, ticks and labels of one plot area ``box`` = (left, top, right, bottom)."""
    left, top, right, bottom = box
    out = []
    if xs is not None:
        out.append(f'<path d="M{coord(left)} {coord(bottom)}H{coord(right)}" stroke="{EDGE}" fill="none"/>')
        for v, label in _tick_labels(xs, xfmt):
            x = xs(v)
            if left - 0.5 <= x <= right + 0.5:
                out.append(f'<path d="M{coord(x)} {coord(bottom)}v4" stroke="{EDGE}"/>')
                out.append(svg_text(x, bottom + 12, label, size=FS - 2, anchor="middle"))
        if xlabel:
            out.append(svg_text((left + right) / 2, bottom + 28, xlabel, size=FS - 1, anchor="middle"))
    if ys is not None:
        x_axis = left if yside == "left" else right
        sign = -1 if yside == "left" else 1
        out.append(f'<path d="M{coord(x_axis)} {coord(top)}V{coord(bottom)}" stroke="{color or EDGE}" fill="none"/>')
        for v, label in _tick_labels(ys, yfmt):
            y = ys(v)
            if top - 0.5 <= y <= bottom + 0.5:
                out.append(f'<path d="M{coord(x_axis)} {coord(y)}h{sign * 4}" stroke="{color or EDGE}"/>')
                out.append(svg_text(x_axis + sign * 6, y, label, size=FS - 2,
                                    anchor="end" if yside == "left" else "start", fill=color))
        if ylabel:
            x = left - 50 if yside == "left" else right + 56
            cy = (top + bottom) / 2
            out.append(svg_text(x, cy, ylabel, size=FS - 1, anchor="middle", fill=color,
                                extra=f' transform="rotate({-90 if yside == "left" else 90} {coord(x)} {coord(cy)})"'))
    return "".join(out)


def svg_texts(svg: str) -> list[str]:
    """The texts written in an SVG chart, in order (the title element excluded), unescaped: what
    a test (or a screen reader) reads.

    Example::

        >>> svg_texts('<svg><title>t</title><text x="0">a &amp; b</text><text>c</text></svg>')
        ['a & b', 'c']
    """
    return [html.unescape(t) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg, flags=re.S)]
