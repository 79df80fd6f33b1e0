"""matplotlib charts of a merge trace: ``plot_x(..., ax=None) -> Axes``.

For the merge families (BPE, WordPiece, SentencePiece-BPE): the best pairs at a step, the count
of each merge, compression by step, BPE's pick against WordPiece's, the two merge sequences. The
same pictures as :mod:`.svg` (which the explorers draw live); the data both draw is in
:mod:`.chart_data`, the fonts, empty charts and PNG bytes in the kit (:mod:`bpe_viz.view.kit.mpl`).
Every function draws on the ``ax`` you give it (or on a new figure) with the object-oriented
API and returns the Axes; nothing calls ``plt.show()``.

Readable on a projector and color-blind safe: colors come from the Okabe–Ito palette, and the
highlighted things (the next merge, ties, each algorithm's pick) also differ by hatch, marker
shape or a text label, never by color alone.

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
    >>> ax = plot_pair_counts(trace[0], top=5)
    >>> pair_labels(ax)[0]
    '(e, s)'
"""

from __future__ import annotations

from ...engine.checks import check_int
from ...engine.merges import Snapshot, Trace
from ..kit import (BLUE, DIFF_BG, GREY, ORANGE, PLAIN_TEXT, SKY, VERMILLION, empty_axes, new_axes, plain_log,
                   use_fallback_fonts)
from .chart_data import (bpe_wordpiece_picks, compression_curve, merge_sequences, pair_chart, pair_label,
                         sequence_cell, sequences_window)

__all__ = ["plot_pair_counts", "pair_labels", "bar_notes", "plot_merge_counts", "plot_compression",
           "plot_bpe_vs_wordpiece", "plot_merge_sequences"]


def pair_labels(ax) -> list[str]:
    """The pair names written beside the bars of :func:`plot_pair_counts`, top to bottom."""
    return [t.get_text() for t in ax.texts if t.get_gid() == "bpe-pair-label"]


def bar_notes(ax) -> list[str]:
    """The value notes at the end of the bars of :func:`plot_pair_counts` ("9  ← next merge")."""
    return [t.get_text() for t in ax.texts if t.get_gid() == "bpe-note"]


def plot_pair_counts(snapshot, top: int = 20, ax=None):
    """Bar chart of the ``top`` best pairs at a step; the next merge highlighted, ties hatched.

    BPE traces rank by count; WordPiece traces by score (the bars then show the score).

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> ax = plot_pair_counts(trace[1], top=3)
        >>> pair_labels(ax)
        ['(es, t)', '(t, </w>)', '(l, o)']
    """
    top = check_int("top", top, 1)
    if ax is None:
        ax = new_axes((6.4, 0.9 + 0.28 * min(top, 40)))
    chart = pair_chart(snapshot, top)
    ranked = chart.ranked
    if not ranked:
        ax.set_title(chart.title, **PLAIN_TEXT)
        return empty_axes(ax, "no pairs left: every word is a single symbol")
    y = list(range(len(ranked)))
    bars = ax.barh(y, chart.values, color=GREY, edgecolor="#333333", linewidth=0.8)
    for i, bar in enumerate(bars):
        if i == chart.chosen:
            bar.set_facecolor(VERMILLION)
            bar.set_linewidth(2.0)
        elif chart.tied(i):
            bar.set_facecolor(ORANGE)
            bar.set_hatch("//")
    vmax = max(chart.values)
    for i, (v, note) in enumerate(zip(chart.values, chart.notes)):
        ax.text(v + vmax * 0.01, i, note, va="center", fontsize="small", gid="bpe-note", **PLAIN_TEXT)
    # pair names as plain texts beside the bars, not tick labels: matplotlib rebuilds tick
    # objects on every redraw, which would cost a slider step more than the whole rest
    ax.set_yticks([])
    label_at = ax.get_yaxis_transform()  # x in axes fractions, y in data units
    conv = snapshot.trace.convention  # (byte-level pairs as the tables write them, not GPT-2's symbols)
    for i, (p, _) in enumerate(ranked):
        ax.text(-0.01, i, pair_label(p, cut=True, convention=conv), transform=label_at, ha="right", va="center",
                family="monospace", gid="bpe-pair-label", **PLAIN_TEXT)
    ax.set_ylim(len(ranked) - 0.5, -0.5)  # best pair at the top
    ax.set_xlim(0, vmax * 1.3)
    # every bar carries its value as text, so the x tick labels would only repeat them
    ax.set_xticks([])
    ax.set_xlabel(chart.xlabel)
    ax.set_title(chart.title, **PLAIN_TEXT)
    ax.spines[["top", "right", "bottom"]].set_visible(False)
    use_fallback_fonts(ax.figure)
    return ax


def plot_merge_counts(trace, upto: int | None = None, ax=None):
    """How often each merged pair occurred, by merge number; ``upto`` marks the current step.

    Counts fall quickly (Zipf): the y axis turns logarithmic when they span two decades.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> ax = plot_merge_counts(trace, upto=3)
        >>> [int(y) for y in ax.lines[0].get_ydata()][:4]
        [9, 9, 9, 7]
    """
    merges = trace.merges
    n = len(merges)
    upto = check_int("upto", upto, allow_none=True)
    if upto is not None and upto > n:
        raise ValueError(f"upto must be between 0 and {n} (the merges this trace has), got {upto}")
    if ax is None:
        ax = new_axes((6.4, 3.4))
    ax.set_title("Frequency of each merged pair", **PLAIN_TEXT)
    if n == 0:
        return empty_axes(ax, "no merges yet")
    x = list(range(1, n + 1))
    counts = [m.count for m in merges]
    ax.plot(x, counts, color=SKY, linewidth=1.2, label="merged pair's count")
    if upto:
        c = counts[upto - 1]
        m = merges[upto - 1]
        ax.plot([upto], [c], marker="o", markersize=9, color=VERMILLION, markeredgecolor="#000",
                linestyle="none", label=f"merge {upto}")
        ax.axvline(upto, color=VERMILLION, linewidth=0.8, linestyle=":")
        ax.annotate(f"merge {upto}: {m.token} ({c:,})", (upto, c), xytext=(8, 8),
                    textcoords="offset points", fontsize="small", **PLAIN_TEXT)
    lo, hi = min(counts), max(counts)
    if lo > 0 and hi / lo >= 100:
        plain_log(ax, "y", "{:,.0f}")
    ax.set_xlabel("merge number")
    ax.set_ylabel("count")
    ax.set_xlim(0.5, n + 0.5)
    ax.spines[["top", "right"]].set_visible(False)
    use_fallback_fonts(ax.figure)
    return ax


def plot_compression(trace, upto: int | None = None, ax=None):
    """Vocabulary size (dashed, right axis) and tokens per word (solid, left axis) by step.

    The trade-off BPE makes: every merge adds one token to the vocabulary and makes the text
    shorter. ``upto`` marks the current step. Fast on long traces (see :func:`compression_curve`).

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> ax = plot_compression(trace, upto=4)
        >>> ax.get_ylabel()
        'tokens per word'
    """
    n = len(trace.merges)
    upto = check_int("upto", upto, allow_none=True)
    if upto is not None and upto > n:
        raise ValueError(f"upto must be between 0 and {n} (the merges this trace has), got {upto}")
    if ax is None:
        ax = new_axes((6.4, 3.4))
    sizes, tpw = compression_curve(trace)
    steps = list(range(n + 1))
    ax.plot(steps, tpw, color=BLUE, linewidth=1.8, label="tokens per word")
    ax.set_xlabel("merges")
    ax.set_ylabel("tokens per word", color=BLUE)
    ax.set_ylim(0, max(tpw) * 1.08 if any(tpw) else 1)
    ax2 = ax.twinx()
    ax2.plot(steps, sizes, color=VERMILLION, linewidth=1.5, linestyle="--", label="vocabulary size")
    ax2.set_ylabel("vocabulary size", color=VERMILLION)
    ax2.set_ylim(0, max(sizes) * 1.08)
    title = "Compression: shorter text, bigger vocabulary"
    if upto is not None:
        ax.axvline(upto, color="#333333", linewidth=0.9, linestyle=":")
        ax.plot([upto], [tpw[upto]], marker="o", color=BLUE, markeredgecolor="#000", linestyle="none")
        ax2.plot([upto], [sizes[upto]], marker="s", color=VERMILLION, markeredgecolor="#000",
                 linestyle="none")
        title = f"Step {upto}: {tpw[upto]:.2f} tokens per word, vocabulary {sizes[upto]:,}"
    ax.set_xlim(0, max(n, 1))
    ax.set_title(title, **PLAIN_TEXT)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="lower left", fontsize="small", framealpha=0.9)
    use_fallback_fonts(ax.figure)
    return ax


def _resolve_snapshot(source, step):
    if isinstance(source, Snapshot):
        if step is not None and step != source.step:
            raise ValueError(f"step: a Snapshot is one step ({source.step}); pass its trace to choose another")
        return source
    if isinstance(source, Trace):
        return source[0 if step is None else check_int("step", step, 0)]
    raise TypeError(
        "source must be a Snapshot or a Trace (train one first: train_bpe(corpus, 0, "
        f"preset='hf-course')); got {type(source).__name__}"
    )


def plot_bpe_vs_wordpiece(source, step: int | None = None, ax=None):
    """Every candidate pair at one state: its count (x) against its WordPiece score (y).

    BPE takes the pair furthest right (most frequent, square marker); WordPiece the pair
    highest up (best count(ab)/(count(a)·count(b)), diamond marker). ``source``: a Snapshot, or a
    Trace (with ``step``, default 0).

    Example::

        >>> from bpe_viz import train_bpe
        >>> ax = plot_bpe_vs_wordpiece(train_bpe({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 0, preset="hf-course"))
        >>> sorted(t.get_text() for t in ax.texts)
        ['BPE: (u, g)', 'WordPiece: (g, s)']
    """
    snapshot = _resolve_snapshot(source, step)
    if ax is None:
        ax = new_axes((6.4, 4.2))
    ax.set_title(f"Count vs WordPiece score, every pair at step {snapshot.step}", **PLAIN_TEXT)
    counts = snapshot.pair_counts
    if not counts:
        return empty_axes(ax, "no pairs left: every word is a single symbol")
    tc = snapshot.token_counts
    pairs = list(counts)
    xs = [counts[p] for p in pairs]
    ys = [counts[p] / (tc[p[0]] * tc[p[1]]) for p in pairs]
    ax.scatter(xs, ys, s=14, color=GREY, alpha=0.6, edgecolors="none", label="a pair", rasterized=len(xs) > 5000)
    bpe, wp = bpe_wordpiece_picks(snapshot)

    def score(p):
        return counts[p] / (tc[p[0]] * tc[p[1]])

    ax.scatter([counts[bpe]], [score(bpe)], s=130, marker="s", color=VERMILLION, edgecolors="#000",
               linewidths=1.2, label="BPE's pick (max count)", zorder=3)
    ax.scatter([counts[wp]], [score(wp)], s=130, marker="D", color=BLUE, edgecolors="#000",
               linewidths=1.2, label="WordPiece's pick (max score)", zorder=4)
    conv = snapshot.trace.convention  # (byte-level pairs as the tables write them)
    if bpe == wp:
        ax.annotate(f"both: {pair_label(bpe, cut=True, convention=conv)}", (counts[bpe], score(bpe)),
                    xytext=(-10, 10), textcoords="offset points", ha="right", fontsize="small", **PLAIN_TEXT)
    else:
        ax.annotate(f"BPE: {pair_label(bpe, cut=True, convention=conv)}", (counts[bpe], score(bpe)),
                    xytext=(-10, -16), textcoords="offset points", ha="right", fontsize="small", **PLAIN_TEXT)
        ax.annotate(f"WordPiece: {pair_label(wp, cut=True, convention=conv)}", (counts[wp], score(wp)),
                    xytext=(10, 6), textcoords="offset points", ha="left", fontsize="small", **PLAIN_TEXT)
    if max(xs) / min(xs) >= 30:
        plain_log(ax, "x", "{:,.0f}")
    if max(ys) / min(ys) >= 30:
        plain_log(ax, "y", "{:.0e}")
    ax.margins(0.15)
    ax.set_xlabel("count of the pair (BPE picks the largest)")
    ax.set_ylabel("score = count(ab) / (count(a)·count(b))")
    ax.legend(loc="best", fontsize="small")
    ax.spines[["top", "right"]].set_visible(False)
    use_fallback_fonts(ax.figure)
    return ax


def plot_merge_sequences(trace_bpe, trace_wp, upto: int | None = None, ax=None, *, rows: int = 12):
    """The two merge sequences side by side, as a table: where do BPE and WordPiece diverge?

    Shows ``rows`` merges ending at ``upto`` (default: the first ``rows``). Rows where the
    tokens differ are shaded and marked "≠"; a note says where the other algorithm learned the
    same letters ("WP @7"). Tokens compare without markers (see :func:`merge_sequences`).

    Example::

        >>> from bpe_viz import train_bpe
        >>> from bpe_viz import train_wordpiece
        >>> c = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
        >>> ax = plot_merge_sequences(train_bpe(c, 3, preset="hf-course"), train_wordpiece(c, 3))
        >>> ax.get_title()
        'BPE vs WordPiece: first difference at merge 1'
    """
    rows = check_int("rows", rows, 1)
    table = merge_sequences(trace_bpe, trace_wp)
    upto = check_int("upto", upto, allow_none=True)
    title, start, end = sequences_window(table, upto, rows)
    if ax is None:
        ax = new_axes((6.4, 0.8 + 0.3 * rows))
    ax.set_title(title, **PLAIN_TEXT)
    ax.set_axis_off()
    if not table:
        ax.text(0.5, 0.5, "no merges", ha="center", va="center", transform=ax.transAxes, **PLAIN_TEXT)
        return ax
    window = table[start:end]
    ax.set_xlim(0, 1)
    ax.set_ylim(rows + 0.6, -0.6)
    # columns: merge number | BPE token (+ where WordPiece made it) | WordPiece token (+ where BPE did) | =/≠
    cols = (0.02, 0.11, 0.53, 0.96)
    for x, h in zip(cols, ("#", "BPE", "WordPiece", "same?")):
        ax.text(x, -0.05, h, fontweight="bold", ha="center" if h == "same?" else "left", va="center", **PLAIN_TEXT)
    ax.plot([0, 1], [0.4, 0.4], color="#333333", linewidth=1.2)
    from matplotlib.patches import Rectangle

    for i, (k, ta, tb, same, a_in_b, b_in_a) in enumerate(window, 1):
        current = upto is not None and k == upto
        if not same or current:
            ax.add_patch(Rectangle((0.005, i - 0.45), 0.99, 0.9, facecolor=DIFF_BG if not same else "none",
                                   edgecolor="#000000" if current else "none",
                                   linewidth=1.6 if current else 0, zorder=0))
        weight = "bold" if current else "normal"
        ax.text(cols[0], i, f"{k}", va="center", fontweight=weight, **PLAIN_TEXT)
        for x, tok, where, other, conv in ((cols[1], ta, a_in_b, "WP", trace_bpe.convention),
                                           (cols[2], tb, b_in_a, "BPE", trace_wp.convention)):
            if tok is None:
                ax.text(x, i, "—", va="center", color="#555555", **PLAIN_TEXT)
                continue
            ax.text(x, i, sequence_cell(tok, same, where, other, conv), va="center", family="monospace",
                    fontweight=weight, **PLAIN_TEXT)
        ax.text(cols[3], i, "=" if same else "≠", ha="center", va="center", fontweight="bold", **PLAIN_TEXT)
    use_fallback_fonts(ax.figure)
    return ax
