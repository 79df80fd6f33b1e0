"""The UnigramExplorer's charts as inline SVG: the twins of :mod:`.charts` (the pieces'
probabilities at a round, the corpus loss by round), drawn by the browser.

Why twins: the explorer redraws its charts on every slider step, and matplotlib takes hundreds
of milliseconds to draw and PNG-encode these two; an SVG string takes about a millisecond. Drawn
with the kit's SVG parts (:mod:`bpe_viz.view.kit.svg`) and rules (every text escaped, no ids,
no ``<script>``, deterministic output, ``data-bpe-chart-step`` for tests), with the same
color-blind-safe cues as the matplotlib charts; the data is :mod:`.rounds`'. The matplotlib
versions stay for notebooks and for an explorer's ``chart_png`` / ``save("x.png")``.

Example::

    >>> from bpe_viz import train_unigram
    >>> toy = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    >>> seeds = ["h", "u", "g", "hu", "ug", "p", "pu", "n", "un", "b", "bu", "s", "hug", "gs", "ugs"]
    >>> trace = train_unigram(toy, 12, initial_vocab=seeds)
    >>> svg_texts(piece_probabilities_svg(trace[0], top=3))[:5]
    ['Round 0: 15 pieces, the 3 most probable', 'u', '0.171', 'g', '0.0952']
"""

from __future__ import annotations

import weakref

from ...engine.checks import check_int
from ..kit import (BLUE, EDGE, FS, VERMILLION, Scale, chart_label, check_size, coord, hatch, svg_axes, svg_chart,
                   svg_text, width_em)
from ..kit import svg_texts  # noqa: F401  (the examples read the charts with it)
from .rounds import check_round, loss_curve, piece_probabilities, removed_next

__all__ = ["piece_probabilities_svg", "loss_svg"]


def piece_probabilities_svg(snapshot, top: int = 12, *, size: float = 1.0) -> str:
    """The ``top`` most probable pieces of a round as bars; a piece the next round removes is
    vermillion, hatched and labelled "removed next"; "… N more" under the last bar. The SVG twin
    of :func:`~bpe_viz.view.unigram.charts.plot_piece_probabilities` (same title and notes).

    Example::

        >>> from bpe_viz import train_unigram
        >>> trace = train_unigram({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 14)
        >>> [t for t in svg_texts(piece_probabilities_svg(trace[0], top=30)) if "removed" in t]
        ['0.0847  ← removed next', 'probability  (hatched: removed in the next round)']
    """
    check_round(snapshot, charted=True)
    top = check_int("top", top, 1)
    size = check_size(size)
    ranked = piece_probabilities(snapshot)
    shown = ranked[:top]
    title = f"Round {snapshot.round}: {len(ranked):,} pieces" + (
        f", the {len(shown)} most probable" if len(ranked) > top else "")
    width = 420.0
    if not shown:
        body = (svg_text(10, 16, title, size=FS + 1, weight="700")
                + svg_text(width / 2, 60, "no pieces", anchor="middle"))
        return svg_chart("pieces", snapshot.round, width, 100, size, title, body)
    going = removed_next(snapshot)
    labels = [chart_label(p) for p, _ in shown]
    label_w = min(0.4 * width, 8 + FS * max(width_em(s) for s in labels))
    x0 = 10 + label_w + 6
    bar_h, pitch, top_y = 14.0, 19.0, 32.0
    vmax = shown[0][1] or 1.0
    room = (width - 10 - x0) / 1.45
    parts = [svg_text(10, 16, title, size=FS + 1, weight="700")]
    for i, ((piece, q), label) in enumerate(zip(shown, labels)):
        y = top_y + i * pitch
        w = max(1.0, room * q / vmax)
        gone = piece in going
        parts.append(f'<rect x="{coord(x0)}" y="{coord(y)}" width="{coord(w)}" height="{coord(bar_h)}" '
                     f'fill="{VERMILLION if gone else BLUE}" stroke="{EDGE}" stroke-width="0.8"/>')
        if gone:
            parts.append(hatch(x0, y, w, bar_h))
        parts.append(svg_text(x0 - 6, y + bar_h / 2, label, anchor="end", mono=True))
        note = f"{q:.3g}" + ("  ← removed next" if gone else "")
        parts.append(svg_text(x0 + w + 5, y + bar_h / 2, note, size=FS - 1, extra=' xml:space="preserve"'))
    bottom = top_y + len(shown) * pitch
    if len(ranked) > top:
        parts.append(svg_text(10, bottom + 4, f"… {len(ranked) - top:,} more", size=FS - 2, fill="#555555",
                              italic=True))
    parts.append(f'<path d="M{coord(x0)} {coord(top_y - 3)}V{coord(bottom - pitch + bar_h + 3)}" '
                 f'stroke="{EDGE}" fill="none"/>')
    xlabel = "probability" + ("  (hatched: removed in the next round)" if going else "")
    parts.append(svg_text(x0 + room / 2, bottom + 20, xlabel, size=FS - 1, anchor="middle",
                          extra=' xml:space="preserve"'))
    return svg_chart("pieces", snapshot.round, width, bottom + 32, size, title, "".join(parts))


_STATIC: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def loss_svg(trace, upto: int | None = None, *, size: float = 1.0) -> str:
    """The corpus loss round by round (solid), ``upto`` marked; for an hf-course trace also the
    course's printed loss (dashed) and why it is higher. The SVG twin of
    :func:`~bpe_viz.view.unigram.charts.plot_loss`; the curves are drawn once per trace.

    Example::

        >>> from bpe_viz import train_unigram
        >>> texts = svg_texts(loss_svg(train_unigram({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 14), 2))
        >>> texts[0], [t for t in texts if t.startswith("dashed")]
        ('Round 2: 17 pieces, loss 112.02', ["dashed = loss + 36: the course's encode_word starts each of the 36 words at 1"])
    """
    size = check_size(size)
    n = len(trace)
    upto = check_int("upto", upto, allow_none=True)
    if upto is not None and upto >= n:
        raise ValueError(f"upto must be between 0 and {n - 1} (the rounds this trace has), got {upto}")
    width, height = 420.0, 280.0
    box = (62.0, 44.0, width - 14, height - 70)
    rounds, losses, course, sizes = loss_curve(trace)

    def static():
        values = losses + (course or [])
        lo, hi = min(values), max(values)
        pad = (hi - lo) * 0.1 or max(abs(hi) * 0.05, 1.0)
        xs = Scale(-0.3, max(n - 1, 1) + 0.3, box[0], box[2])
        ys = Scale(lo - pad, hi + pad, box[3], box[1])
        out = [svg_text(10, 32, "corpus loss, −Σ count · log P(word)", size=FS - 1),
               svg_axes(xs, ys, box, yfmt="int",
                        xlabel="round (pieces left: " + " → ".join(
                         f"{s:,}" for s in (sizes if n <= 6 else [sizes[0], sizes[-1]])) + ")")]
        pts = "".join(f"{'M' if i == 0 else 'L'}{coord(xs(i))} {coord(ys(v))}" for i, v in enumerate(losses))
        out.append(f'<path d="{pts}" stroke="{BLUE}" stroke-width="1.8" fill="none"/>')
        out.extend(f'<circle cx="{coord(xs(i))}" cy="{coord(ys(v))}" r="2.5" fill="{BLUE}"/>'
                   for i, v in enumerate(losses))
        legend_y = box[3] + 48
        out.append(f'<path d="M{coord(box[0])} {coord(legend_y)}h22" stroke="{BLUE}" stroke-width="1.8"/>')
        out.append(svg_text(box[0] + 28, legend_y, "loss (the definition)", size=FS - 1))
        if course is not None:
            pts = "".join(f"{'M' if i == 0 else 'L'}{coord(xs(i))} {coord(ys(v))}" for i, v in enumerate(course))
            out.append(f'<path d="{pts}" stroke="{VERMILLION}" stroke-width="1.5" stroke-dasharray="6 3" fill="none"/>')
            out.extend(f'<rect x="{coord(xs(i) - 2.5)}" y="{coord(ys(v) - 2.5)}" width="5" height="5" '
                       f'fill="{VERMILLION}"/>' for i, v in enumerate(course))
            out.append(f'<path d="M{coord(box[0] + 160)} {coord(legend_y)}h22" stroke="{VERMILLION}" '
                       'stroke-width="1.5" stroke-dasharray="6 3"/>')
            out.append(svg_text(box[0] + 188, legend_y, "as the course prints it", size=FS - 1))
            words = sum(trace.word_counts.values())
            out.append(svg_text(10, legend_y + 16, f"dashed = loss + {words:,}: the course's encode_word starts each of "
                                f"the {words:,} words at 1", size=FS - 2, fill="#333333"))
        return xs, ys, "".join(out)

    try:
        cached = _STATIC.get(trace)
        if cached is None or cached[0] != n:
            cached = (n, static())
            _STATIC[trace] = cached
        xs, ys, drawn = cached[1]
    except TypeError:  # not weak-referenceable: draw it each time
        xs, ys, drawn = static()
    if upto is not None:
        title = f"Round {upto}: {sizes[upto]:,} pieces, loss {losses[upto]:,.2f}"
    else:
        title = "Corpus loss by round"
    parts = [svg_text(10, 16, title, size=FS + 1, weight="700"), drawn]
    if upto is not None:
        x = xs(upto)
        parts.append(f'<path d="M{coord(x)} {coord(box[1])}V{coord(box[3])}" stroke="{EDGE}" '
                     'stroke-dasharray="2 3" fill="none"/>')
        parts.append(f'<circle cx="{coord(x)}" cy="{coord(ys(losses[upto]))}" r="5.5" fill="{BLUE}" stroke="#000"/>')
    return svg_chart("loss", upto if upto is not None else 0, width, height, size, title, "".join(parts))
