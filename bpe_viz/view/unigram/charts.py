"""matplotlib charts of a Unigram training run: the pieces' probabilities at a round, and the
corpus loss round by round. ``plot_x(..., ax=None) -> Axes``, like the merge families' charts
(:mod:`bpe_viz.view.merges.charts`): the same palette, fonts and rules from the kit (a second cue
besides color, no ``plt.show()``, deterministic). The data is computed in :mod:`.rounds`; the
explorers draw the SVG twins (:mod:`.svg`).

Example::

    >>> from bpe_viz import train_unigram
    >>> trace = train_unigram({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 14)
    >>> ax = plot_piece_probabilities(trace[0], top=3)
    >>> piece_labels(ax)
    ['u', 'g', 'ug']
"""

from __future__ import annotations

from ...engine.checks import check_int
from ..kit import BLUE, PLAIN_TEXT, VERMILLION, chart_label, empty_axes, new_axes, use_fallback_fonts
from .rounds import check_round, loss_curve, piece_probabilities, removed_next

__all__ = ["plot_piece_probabilities", "piece_labels", "plot_loss", "mark_round"]


def piece_labels(ax) -> list[str]:
    """The pieces written beside the bars of :func:`plot_piece_probabilities`, top to bottom."""
    return [t.get_text() for t in ax.texts if t.get_gid() == "bpe-piece-label"]


def plot_piece_probabilities(snapshot, top: int = 12, ax=None):
    """Bar chart of the ``top`` most probable pieces at a round; the pieces the next round
    removes are hatched and labelled "removed next"; "… N more pieces" below.

    Example::

        >>> from bpe_viz import train_unigram
        >>> toy = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
        >>> seeds = ["h", "u", "g", "hu", "ug", "p", "pu", "n", "un", "b", "bu", "s", "hug", "gs", "ugs"]
        >>> ax = plot_piece_probabilities(train_unigram(toy, 12, initial_vocab=seeds)[0], top=5)
        >>> [t.get_text() for t in ax.texts if t.get_gid() == "bpe-note"]
        ['0.171', '0.0952', '0.0952', '0.081', '0.081']
    """
    check_round(snapshot, charted=True)
    top = check_int("top", top, 1)
    if ax is None:
        ax = new_axes((6.4, 0.9 + 0.28 * min(top, 40)))
    ranked = piece_probabilities(snapshot)
    shown = ranked[:top]
    title = f"Round {snapshot.round}: {len(ranked):,} pieces" + (f", the {len(shown)} most probable" if len(ranked) > top else "")
    if not shown:
        ax.set_title(title, **PLAIN_TEXT)
        return empty_axes(ax, "no pieces")
    going = removed_next(snapshot)
    values = [q for _, q in shown]
    y = list(range(len(shown)))
    bars = ax.barh(y, values, color=BLUE, edgecolor="#333333", linewidth=0.8)
    vmax = max(values)
    for i, ((piece, q), bar) in enumerate(zip(shown, bars)):
        note = f"{q:.3g}"
        if piece in going:
            bar.set_facecolor(VERMILLION)
            bar.set_hatch("//")
            note += "  ← removed next"
        ax.text(q + vmax * 0.01, i, note, va="center", fontsize="small", gid="bpe-note", **PLAIN_TEXT)
    ax.set_yticks([])  # labels as texts: cheaper to redraw than tick labels (see merges/charts.py)
    label_at = ax.get_yaxis_transform()
    for i, (piece, _) in enumerate(shown):
        ax.text(-0.01, i, chart_label(piece), transform=label_at, ha="right", va="center", family="monospace",
                gid="bpe-piece-label", **PLAIN_TEXT)
    if len(ranked) > top:
        ax.text(-0.01, len(shown) - 0.1, f"… {len(ranked) - top:,} more", transform=label_at, ha="right",
                va="top", fontsize="small", color="#555555", gid="bpe-more", **PLAIN_TEXT)
    ax.set_ylim(len(shown) - 0.5 + (0.6 if len(ranked) > top else 0), -0.5)
    ax.set_xlim(0, vmax * 1.45)
    ax.set_xticks([])
    ax.set_xlabel("probability" + ("  (hatched: removed in the next round)" if going else ""))
    ax.set_title(title, **PLAIN_TEXT)
    ax.spines[["top", "right", "bottom"]].set_visible(False)
    use_fallback_fonts(ax.figure)
    return ax


def plot_loss(trace, upto: int | None = None, ax=None):
    """The corpus loss, −Σ count·log P(word), round by round; ``upto`` marks the current round.
    hf-course traces add the course's printed loss, dashed, and say why it is higher.

    Example::

        >>> from bpe_viz import train_unigram
        >>> ax = plot_loss(train_unigram({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 14), upto=2)
        >>> [line.get_label() for line in ax.lines][:2]
        ['loss (the definition)', 'as the course prints it']
    """
    n = len(trace)
    upto = check_int("upto", upto, allow_none=True)
    if upto is not None and upto >= n:
        raise ValueError(f"upto must be between 0 and {n - 1} (the rounds this trace has), got {upto}")
    if ax is None:
        ax = new_axes((6.4, 3.4))
    rounds, losses, course, sizes = loss_curve(trace)
    ax.plot(rounds, losses, color=BLUE, linewidth=1.8, marker="o", markersize=4, label="loss (the definition)")
    if course is not None:
        ax.plot(rounds, course, color=VERMILLION, linewidth=1.5, linestyle="--", marker="s", markersize=3,
                label="as the course prints it")
        words = sum(trace.word_counts.values())
        ax.text(0.01, 0.02, f"dashed = loss + {words:,}: the course's encode_word starts each of the "
                f"{words:,} words at score 1, not 0", transform=ax.transAxes, fontsize="x-small",
                color="#333333", va="bottom", gid="bpe-caption", **PLAIN_TEXT)
    title = mark_round(ax, trace, upto) if upto is not None else "Corpus loss by round"
    lo = min(losses + (course or []))
    hi = max(losses + (course or []))
    pad = (hi - lo) * 0.12 or max(abs(hi) * 0.05, 1.0)
    ax.set_ylim(lo - pad * (2.5 if course is not None else 1), hi + pad)
    ax.set_xlim(-0.3, max(n - 1, 1) + 0.3)
    ax.set_xlabel("round (pieces left: " + " → ".join(f"{s:,}" for s in (sizes if n <= 6 else [sizes[0], sizes[-1]]))
                  + ")")
    ax.set_ylabel("−Σ count · log P(word)")
    if upto is None:
        ax.set_title(title, **PLAIN_TEXT)
    if n > 1:
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(loc="upper right", fontsize="small", framealpha=0.9)
    ax.spines[["top", "right"]].set_visible(False)
    use_fallback_fonts(ax.figure)
    return ax


def mark_round(ax, trace, k: int) -> str:
    """Mark round ``k`` on a chart made by :func:`plot_loss` (a dot on the curve, a dotted
    line, the title); moves the mark if there is one already, so an explorer redraws nothing
    else when the slider moves. Returns the title.

    Example::

        >>> from bpe_viz import train_unigram
        >>> trace = train_unigram({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 14)
        >>> ax = plot_loss(trace, upto=0)
        >>> mark_round(ax, trace, 3)
        'Round 3: 16 pieces, loss 109.00'
    """
    k = check_int("k", k, 0)
    if k >= len(trace):
        raise ValueError(f"k must be between 0 and {len(trace) - 1} (the rounds this trace has), got {k}")
    snap = trace[k]
    dot = next((ln for ln in ax.lines if ln.get_gid() == "bpe-current"), None)
    if dot is None:
        ax.axvline(k, color="#333333", linewidth=0.9, linestyle=":", gid="bpe-current-line")
        ax.plot([k], [snap.loss], marker="o", markersize=9, color=BLUE, markeredgecolor="#000", linestyle="none",
                gid="bpe-current")
    else:
        dot.set_data([k], [snap.loss])
        line = next(ln for ln in ax.lines if ln.get_gid() == "bpe-current-line")
        line.set_xdata([k, k])
    title = f"Round {k}: {len(snap.pieces):,} pieces, loss {snap.loss:,.2f}"
    ax.set_title(title, **PLAIN_TEXT)
    return title
