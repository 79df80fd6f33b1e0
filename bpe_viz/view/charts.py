"""matplotlib charts of a training run: ``plot_x(..., ax=None) -> Axes``, plus :func:`figure_png`.

The sibling of :mod:`bpe_viz.view.html` (which makes HTML): same inputs (snapshots and traces),
pictures instead of tables. Every function draws on the ``ax`` you give it (or on a new figure)
with the object-oriented API and returns the Axes; nothing calls ``plt.show()``. The explorers
reuse one Figure and turn it into PNG bytes with :func:`figure_png`.

Readable on a projector and color-blind safe: colors come from the Okabe–Ito palette, and the
highlighted things (the next merge, ties, each algorithm's pick) also differ by hatch, marker
shape or a text label, never by color alone. Token text is drawn with ``parse_math=False`` so
a ``$`` in a corpus is shown as it is, and with a list of fonts (:func:`font_families`): DejaVu
for Latin, Greek and Cyrillic, then Noto Sans CJK for Korean, Japanese and Chinese, then Symbola
for emoji, where installed (``binder/apt.txt``, ``.ci/run``); a glyph no font has draws as a box
*and* matplotlib's "Glyph ... missing" warning says so. Output is deterministic (no randomness, no timestamps in
the PNG), so notebooks with stored outputs compare equal.

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
    >>> ax = plot_pair_counts(trace[0], top=5)
    >>> pair_labels(ax)[0]
    '(e, s)'
"""

from __future__ import annotations

import io
import logging
import weakref

from ..engine.merges.trace import Snapshot, Trace

__all__ = [
    "font_families",
    "plot_pair_counts",
    "pair_labels",
    "bar_notes",
    "plot_merge_counts",
    "plot_compression",
    "compression_curve",
    "plot_bpe_vs_wordpiece",
    "bpe_wordpiece_picks",
    "plot_merge_sequences",
    "merge_sequences",
    "figure_png",
]

# Okabe & Ito (2008), "Color Universal Design": distinguishable with every common color-vision
# deficiency. Each use below is paired with a second cue (hatch, marker shape, text).
VERMILLION = "#D55E00"  # the next merge / BPE's pick
ORANGE = "#E69F00"  # tied pairs (with hatching)
BLUE = "#0072B2"  # WordPiece's pick / main curve
SKY = "#56B4E9"
GREY = "#9A9A9A"  # everything else
DIFF_BG = "#FBE3C8"  # rows where the two merge sequences differ (with a "≠" mark)

_TEXT = dict(parse_math=False)  # a "$" in a token is a dollar sign, not mathtext

# Fonts tried after matplotlib's own (DejaVu), glyph by glyph (matplotlib >= 3.6 falls back
# through a family list). Noto Color Emoji is not among them: its glyphs are color bitmaps,
# which matplotlib does not load (the browser draws them in the HTML views); Symbola has
# outline emoji matplotlib can draw.
_FALLBACKS = {
    "sans-serif": ("Noto Sans CJK JP", "Symbola"),
    "monospace": ("Noto Sans Mono CJK JP", "Noto Sans CJK JP", "Symbola"),
}
_INSTALLED: dict = {}


def _regular_face_is_fine(record) -> bool:
    """A logging filter: a bold label falling back to Symbola (which has no bold face) uses its
    regular face, as it should; matplotlib would print a warning under the chart for it."""
    args = record.args if isinstance(record.args, tuple) else ()
    return not (str(record.msg).startswith("findfont: Failed to find font weight")
                and len(args) > 1 and any(args[1] in names for names in _FALLBACKS.values()))


logging.getLogger("matplotlib.font_manager").addFilter(_regular_face_is_fine)


def font_families(generic: str = "sans-serif") -> list[str]:
    """The fonts a chart's text uses, in order: matplotlib's first installed font for
    ``generic`` ("sans-serif" or "monospace"), then the installed fallbacks for the scripts it
    lacks (Hangul, kana, Han; emoji).

    Example::

        >>> font_families("sans-serif")[0], font_families("monospace")[0]
        ('DejaVu Sans', 'DejaVu Sans Mono')
    """
    if generic not in _FALLBACKS:
        raise ValueError(f"generic must be one of {sorted(_FALLBACKS)}, got {generic!r}")
    from matplotlib import font_manager, rcParams

    fm = font_manager.fontManager
    names = _INSTALLED.get(id(fm))
    if names is None:
        names = _INSTALLED[id(fm)] = frozenset(f.name for f in fm.ttflist)
    first = next((f for f in rcParams[f"font.{generic}"] if f in names), None)
    out = [first] if first else []
    return out + [f for f in _FALLBACKS[generic] if f in names and f not in out]


def _use_fallback_fonts(fig):
    """Give every text of ``fig`` still on a generic family ("sans-serif", "monospace") its
    list of fonts (:func:`font_families`), so that Korean, Chinese and emoji labels draw."""
    from matplotlib.text import Text

    lists = {}
    for text in fig.findobj(Text):
        family = text.get_fontfamily()
        if len(family) == 1 and family[0] in _FALLBACKS:
            fams = lists.get(family[0])
            if fams is None:
                fams = lists[family[0]] = font_families(family[0])
            if len(fams) > 1:
                text.set_fontfamily(fams)
    return fig


def _new_axes(figsize):
    # pyplot only when the caller gave no Axes: then the figure shows in a notebook like any
    # other matplotlib call. The explorers pass Axes of their own Figure (no pyplot state).
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _check_int(name, value, minimum=0, allow_none=True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def _plain_log(ax, which: str, fmt: str):
    """A log scale with plain labels ("1,000", "1e-05") and no minor ticks: easier to read, and
    much faster to draw than mathtext 10³ labels (the explorers redraw a chart per slider step)."""
    from matplotlib.ticker import FuncFormatter, NullLocator

    if which == "x":
        ax.set_xscale("log")
        axis = ax.xaxis
    else:
        ax.set_yscale("log")
        axis = ax.yaxis
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt.format(v)))
    axis.set_minor_locator(NullLocator())


def _pair_label(pair) -> str:
    return f"({_short(pair[0])}, {_short(pair[1])})"


def _short(token: str, n: int = 16) -> str:
    """A token cut for a chart label (a long token would squeeze the bars off the chart)."""
    return token if len(token) <= n else token[: n - 1] + "…"


def _empty(ax, message: str):
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, wrap=True, **_TEXT)
    ax.set_xticks([])
    ax.set_yticks([])
    return ax


def pair_labels(ax) -> list[str]:
    """The pair names written beside the bars of :func:`plot_pair_counts`, top to bottom."""
    return [t.get_text() for t in ax.texts if t.get_gid() == "bpe-pair-label"]


def bar_notes(ax) -> list[str]:
    """The value notes at the end of the bars of :func:`plot_pair_counts` ("9  ← next merge")."""
    return [t.get_text() for t in ax.texts if t.get_gid() == "bpe-note"]


def pair_notes(values, keys, chosen, scored: bool) -> list[str]:
    """The note beside each bar of a pair chart: its count (or score), "← next merge" on the pair
    chosen, "tie" on the others that share the top key (the PNG and the SVG chart say the same)."""
    n_top = sum(1 for k in keys if k == keys[0])
    notes = []
    for i, v in enumerate(values):
        note = f"{v:.3g}" if scored else f"{v:,}"
        if i == chosen:
            note += "  ← next merge"
        elif n_top > 1 and keys[i] == keys[0]:
            note += "  tie"
        notes.append(note)
    return notes


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
    top = _check_int("top", top, 1, allow_none=False)
    if ax is None:
        ax = _new_axes((6.4, 0.9 + 0.28 * min(top, 40)))
    trace = snapshot.trace
    scored = trace.model.scored
    ranked = snapshot.top_pairs(top)
    title = f"Best pairs at step {snapshot.step}"
    if not ranked:
        ax.set_title(title, **_TEXT)
        return _empty(ax, "no pairs left: every word is a single symbol")
    keys = [snapshot.rank_value(p, c) for p, c in ranked]  # counts, or exact scores
    values = [float(k) for k in keys] if scored else keys
    nxt = snapshot.next_merge
    chosen = 0 if nxt is not None and nxt.pair == ranked[0][0] else None
    n_top = sum(1 for k in keys if k == keys[0])
    y = list(range(len(ranked)))
    bars = ax.barh(y, values, color=GREY, edgecolor="#333333", linewidth=0.8)
    for i, bar in enumerate(bars):
        if i == chosen:
            bar.set_facecolor(VERMILLION)
            bar.set_linewidth(2.0)
        elif n_top > 1 and keys[i] == keys[0]:
            bar.set_facecolor(ORANGE)
            bar.set_hatch("//")
    vmax = max(values)
    for i, (v, note) in enumerate(zip(values, pair_notes(values, keys, chosen, scored))):
        ax.text(v + vmax * 0.01, i, note, va="center", fontsize="small", gid="bpe-note", **_TEXT)
    # pair names as plain texts beside the bars, not tick labels: matplotlib rebuilds tick
    # objects on every redraw, which would cost a slider step more than the whole rest
    ax.set_yticks([])
    label_at = ax.get_yaxis_transform()  # x in axes fractions, y in data units
    for i, (p, _) in enumerate(ranked):
        ax.text(-0.01, i, _pair_label(p), transform=label_at, ha="right", va="center",
                family="monospace", gid="bpe-pair-label", **_TEXT)
    ax.set_ylim(len(ranked) - 0.5, -0.5)  # best pair at the top
    ax.set_xlim(0, vmax * 1.3)
    # every bar carries its value as text, so the x tick labels would only repeat them
    ax.set_xticks([])
    ax.set_xlabel("score = count(ab) / (count(a)·count(b))" if scored
                  else "count (occurrences, weighted by word frequency)")
    if chosen == 0:
        n_tied = 1 + len(nxt.tied)  # every pair tied at the top, not only the ones drawn
    else:
        n_tied = sum(1 for p, c in snapshot.ranked_pairs if snapshot.rank_value(p, c) == keys[0])
    if n_tied > 1:
        title += f": {n_tied:,} pairs tie"
    if nxt is None and snapshot.step == len(trace.merges):
        title += f" (training stopped: {trace.stop_reason})"
    ax.set_title(title, **_TEXT)
    ax.spines[["top", "right", "bottom"]].set_visible(False)
    _use_fallback_fonts(ax.figure)
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
    upto = _check_int("upto", upto)
    if upto is not None and upto > n:
        raise ValueError(f"upto must be between 0 and {n} (the merges this trace has), got {upto}")
    if ax is None:
        ax = _new_axes((6.4, 3.4))
    ax.set_title("Frequency of each merged pair", **_TEXT)
    if n == 0:
        return _empty(ax, "no merges yet")
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
                    textcoords="offset points", fontsize="small", **_TEXT)
    lo, hi = min(counts), max(counts)
    if lo > 0 and hi / lo >= 100:
        _plain_log(ax, "y", "{:,.0f}")
    ax.set_xlabel("merge number")
    ax.set_ylabel("count")
    ax.set_xlim(0.5, n + 0.5)
    ax.spines[["top", "right"]].set_visible(False)
    _use_fallback_fonts(ax.figure)
    return ax


# -- compression: tokens per word as merges grow -------------------------------------------------

_CURVES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def compression_curve(trace):
    """``(vocab_sizes, tokens_per_word)``: two lists indexed by step 0..len(trace.merges).

    ``vocab_sizes[k]`` is ``len(trace[k].vocab)`` (initial symbols + k merged tokens);
    ``tokens_per_word[k]`` is ``sum(count·len(symbols)) / sum(count)`` over the words at step k.
    Computed in one pass and cached per trace: a merge removes as many symbols as the
    occurrences it merged (``"a a a"`` merging ``(a, a)`` removes one, not two), so
    total(k) = total(k−1) − occurrences merged at step k.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
        >>> sizes, tpw = compression_curve(trace)
        >>> sizes, [round(v, 3) for v in tpw]
        ([11, 12, 13, 14], [5.938, 5.375, 4.812, 4.25])
    """
    n = len(trace.merges)
    cached = _CURVES.get(trace)
    if cached is not None and cached[0] == n:
        return cached[1]
    words = sum(trace.counts)
    base = trace[0].vocab
    n0 = len(base)
    total = sum(e.count for e in base)  # weighted symbol occurrences before any merge
    merged = trace.merged_occurrences
    if merged is None or len(merged) != n:
        # no per-merge record: recount from snapshots (slow, but always right)
        merged = []
        prev = total
        for k in range(1, n + 1):
            cur = sum(e.count for e in trace[k].vocab)
            merged.append(prev - cur)
            prev = cur
    sizes = list(range(n0, n0 + n + 1))
    tpw = [0.0] * (n + 1)
    if words:
        tpw[0] = total / words
        for k, occ in enumerate(merged, 1):
            total -= occ
            tpw[k] = total / words
    result = (sizes, tpw)
    try:
        _CURVES[trace] = (n, result)
    except TypeError:  # not weak-referenceable: just do not cache
        pass
    return result


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
    upto = _check_int("upto", upto)
    if upto is not None and upto > n:
        raise ValueError(f"upto must be between 0 and {n} (the merges this trace has), got {upto}")
    if ax is None:
        ax = _new_axes((6.4, 3.4))
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
    ax.set_title(title, **_TEXT)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="lower left", fontsize="small", framealpha=0.9)
    _use_fallback_fonts(ax.figure)
    return ax


# -- BPE versus WordPiece --------------------------------------------------------------------------


def _resolve_snapshot(source, step):
    if isinstance(source, Snapshot):
        if step is not None and step != source.step:
            raise ValueError(f"step: a Snapshot is one step ({source.step}); pass its trace to choose another")
        return source
    if isinstance(source, Trace):
        return source[0 if step is None else _check_int("step", step, 0, allow_none=False)]
    raise TypeError(
        "source must be a Snapshot or a Trace (train one first: train_bpe(corpus, 0, "
        f"preset='hf-course')); got {type(source).__name__}"
    )


def bpe_wordpiece_picks(snapshot):
    """``(bpe_pair, wordpiece_pair)``: what each algorithm would merge from this state.

    Example::

        >>> from bpe_viz import train_bpe
        >>> snap = train_bpe({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 0, preset="hf-course")[0]
        >>> bpe_wordpiece_picks(snap)
        (('u', 'g'), ('g', 's'))
    """
    if not snapshot.pair_counts:
        return None, None
    return snapshot.pick("count"), snapshot.pick("score")


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
        ax = _new_axes((6.4, 4.2))
    ax.set_title(f"Count vs WordPiece score, every pair at step {snapshot.step}", **_TEXT)
    counts = snapshot.pair_counts
    if not counts:
        return _empty(ax, "no pairs left: every word is a single symbol")
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
    if bpe == wp:
        ax.annotate(f"both: {_pair_label(bpe)}", (counts[bpe], score(bpe)), xytext=(-10, 10),
                    textcoords="offset points", ha="right", fontsize="small", **_TEXT)
    else:
        ax.annotate(f"BPE: {_pair_label(bpe)}", (counts[bpe], score(bpe)), xytext=(-10, -16),
                    textcoords="offset points", ha="right", fontsize="small", **_TEXT)
        ax.annotate(f"WordPiece: {_pair_label(wp)}", (counts[wp], score(wp)), xytext=(10, 6),
                    textcoords="offset points", ha="left", fontsize="small", **_TEXT)
    if max(xs) / min(xs) >= 30:
        _plain_log(ax, "x", "{:,.0f}")
    if max(ys) / min(ys) >= 30:
        _plain_log(ax, "y", "{:.0e}")
    ax.margins(0.15)
    ax.set_xlabel("count of the pair (BPE picks the largest)")
    ax.set_ylabel("score = count(ab) / (count(a)·count(b))")
    ax.legend(loc="best", fontsize="small")
    ax.spines[["top", "right"]].set_visible(False)
    _use_fallback_fonts(ax.figure)
    return ax


def _letters(token: str, convention) -> str:
    """A token without its convention's markers, to compare BPE and WordPiece tokens.

    Example: "est</w>" (BPE) -> "est"; "##est" (WordPiece) -> "est".
    """
    return convention.marker.letters(token)


def merge_sequences(trace_bpe, trace_wp):
    """Rows ``(k, bpe_token, wp_token, same, bpe_in_wp_at, wp_in_bpe_at)`` for both runs.

    Tokens compare by their letters (markers stripped: ``est</w>`` and ``##est`` are "est").
    ``bpe_in_wp_at``: the merge at which WordPiece made the same letters (None if never).

    Example::

        >>> from bpe_viz import train_bpe, train_wordpiece
        >>> c = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
        >>> merge_sequences(train_bpe(c, 2, preset="hf-course"), train_wordpiece(c, 2))[0]
        (1, 'ug', '##gs', False, None, None)
    """
    ca, cb = trace_bpe.convention, trace_wp.convention
    la = [_letters(m.token, ca) for m in trace_bpe.merges]
    lb = [_letters(m.token, cb) for m in trace_wp.merges]
    first_a: dict = {}
    first_b: dict = {}
    for i, t in enumerate(la, 1):
        first_a.setdefault(t, i)
    for i, t in enumerate(lb, 1):
        first_b.setdefault(t, i)
    rows = []
    for k in range(1, max(len(la), len(lb)) + 1):
        ta = trace_bpe.merges[k - 1].token if k <= len(la) else None
        tb = trace_wp.merges[k - 1].token if k <= len(lb) else None
        same = ta is not None and tb is not None and la[k - 1] == lb[k - 1]
        rows.append((k, ta, tb, same,
                     first_b.get(la[k - 1]) if ta is not None else None,
                     first_a.get(lb[k - 1]) if tb is not None else None))
    return rows


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
    rows = _check_int("rows", rows, 1, allow_none=False)
    table = merge_sequences(trace_bpe, trace_wp)
    n = len(table)
    upto = _check_int("upto", upto)
    if upto is not None and upto > n:
        raise ValueError(f"upto must be between 0 and {n} (the longer trace's merges), got {upto}")
    if ax is None:
        ax = _new_axes((6.4, 0.8 + 0.3 * rows))
    first_diff = next((r[0] for r in table if not r[3]), None)
    if first_diff is None:
        title = f"BPE vs WordPiece: the same letters for all {n} merges"
    else:
        title = f"BPE vs WordPiece: first difference at merge {first_diff}"
    ax.set_title(title, **_TEXT)
    ax.set_axis_off()
    if n == 0:
        ax.text(0.5, 0.5, "no merges", ha="center", va="center", transform=ax.transAxes, **_TEXT)
        return ax
    end = rows if upto is None else max(upto, min(rows, n))
    end = min(end, n)
    start = max(0, end - rows)
    window = table[start:end]
    ax.set_xlim(0, 1)
    ax.set_ylim(rows + 0.6, -0.6)
    # columns: merge number | BPE token (+ where WordPiece made it) | WordPiece token (+ where BPE did) | =/≠
    cols = (0.02, 0.11, 0.53, 0.96)
    for x, h in zip(cols, ("#", "BPE", "WordPiece", "same?")):
        ax.text(x, -0.05, h, fontweight="bold", ha="center" if h == "same?" else "left", va="center", **_TEXT)
    ax.plot([0, 1], [0.4, 0.4], color="#333333", linewidth=1.2)
    from matplotlib.patches import Rectangle

    def short(tok):
        return tok if len(tok) <= 12 else tok[:11] + "…"

    for i, (k, ta, tb, same, a_in_b, b_in_a) in enumerate(window, 1):
        current = upto is not None and k == upto
        if not same or current:
            ax.add_patch(Rectangle((0.005, i - 0.45), 0.99, 0.9, facecolor=DIFF_BG if not same else "none",
                                   edgecolor="#000000" if current else "none",
                                   linewidth=1.6 if current else 0, zorder=0))
        weight = "bold" if current else "normal"
        ax.text(cols[0], i, f"{k}", va="center", fontweight=weight, **_TEXT)
        for x, tok, where, other in ((cols[1], ta, a_in_b, "WP"), (cols[2], tb, b_in_a, "BPE")):
            if tok is None:
                ax.text(x, i, "—", va="center", color="#555555", **_TEXT)
                continue
            text = short(tok)
            if not same:
                text += f"  ({other} @{where})" if where is not None else f"  (not in {other})"
            ax.text(x, i, text, va="center", family="monospace", fontweight=weight, **_TEXT)
        ax.text(cols[3], i, "=" if same else "≠", ha="center", va="center", fontweight="bold", **_TEXT)
    _use_fallback_fonts(ax.figure)
    return ax


# -- PNG bytes --------------------------------------------------------------------------------------


def figure_png(fig, dpi: float | None = None) -> bytes:
    """PNG bytes of a Figure (or of an Axes' figure), for ``widgets.Image(value=...)``.

    Deterministic: the PNG carries no software version or date. Texts get the fallback fonts
    (:func:`font_families`); a character no installed font has still draws as a box, and
    matplotlib's "Glyph ... missing from font(s)" warning is let through, to say so.

    Example::

        >>> from matplotlib.figure import Figure
        >>> fig = Figure(figsize=(2, 1)); _ = fig.add_subplot().plot([1, 2])
        >>> figure_png(fig)[:8] == b"\\x89PNG\\r\\n\\x1a\\n", figure_png(fig) == figure_png(fig)
        (True, True)
    """
    fig = getattr(fig, "figure", fig) if not hasattr(fig, "savefig") else fig
    if not hasattr(fig, "savefig"):
        raise TypeError(f"fig must be a matplotlib Figure or Axes, got {type(fig).__name__}")
    import matplotlib

    buf = io.BytesIO()
    # no font hinting: a third faster to draw (text dominates these small charts, and an explorer
    # redraws one per slider step), and at these sizes it looks as crisp
    _use_fallback_fonts(fig)
    with matplotlib.rc_context({"text.hinting": "no_hinting"}):
        fig.savefig(buf, format="png", dpi=dpi if dpi is not None else "figure", metadata={"Software": None})
    return buf.getvalue()
