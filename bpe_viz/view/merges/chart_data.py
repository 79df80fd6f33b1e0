"""What the merge families' charts show, as plain data: the compression curve, the two merge
sequences side by side, each algorithm's pick, the notes beside a pair's bar, a pair's label.

One home for the numbers and words that :mod:`.charts` (matplotlib) and :mod:`.svg` (inline SVG,
the explorers' live charts) both draw, so that the PNG and the SVG chart say the same.

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=2)
    >>> compression_curve(trace)[0], pair_label(("es", "t"))
    ([11, 12, 13], '(es, t)')
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

from ..kit import chart_label, display_text, visible_chars

__all__ = ["chart_token", "pair_label", "pair_notes", "PairChart", "pair_chart", "compression_curve",
           "bpe_wordpiece_picks", "merge_sequences", "sequences_window", "sequence_cell"]


def chart_token(token: str, convention=None) -> str:
    """A token as a chart writes it with ``convention`` (its trace's): a byte-level token as the
    text its bytes spell, in the tables' notation (a space ``␣``, bytes that are not a whole
    character ``<ed 95>``), never GPT-2's byte symbols; any other token as it is.

    Example::

        >>> from bpe_viz import train_bpe
        >>> conv = train_bpe("한 한", 1, preset="cs336").convention
        >>> chart_token("íķ", conv), chart_token("Ġíķľ", conv), chart_token("íķ")
        ('<ed 95>', '␣한', 'íķ')
    """
    if convention is not None and convention.byte_level:
        return display_text(token, convention)
    return token


def pair_label(pair, cut: bool = False, convention=None) -> str:
    """``(a, b)`` as a chart writes a pair; ``cut``: each token cut like a chart label
    (:func:`~bpe_viz.view.kit.chips.chart_label`); characters that draw as nothing are named;
    ``convention``: byte-level tokens as :func:`chart_token` writes them."""
    a, b = chart_token(pair[0], convention), chart_token(pair[1], convention)
    a, b = (chart_label(a), chart_label(b)) if cut else (visible_chars(a), visible_chars(b))
    return f"({a}, {b})"


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


class PairChart(NamedTuple):
    """What the pair chart of a step shows: the ``top`` best ``ranked`` pairs, the value each is
    ranked by (``keys``: counts, or exact scores) and drawn at (``values``), the bar of the next
    merge (``chosen``: 0, or ``None``), how many drawn bars share the top key (``n_top``), the
    title (with the tie and the stop), the bars' notes."""

    ranked: list
    keys: list
    values: list
    chosen: int | None
    n_top: int
    title: str
    notes: list
    scored: bool

    @property
    def xlabel(self) -> str:
        """What the bars' length is."""
        return ("score = count(ab) / (count(a)·count(b))" if self.scored
                else "count (occurrences, weighted by word frequency)")

    def tied(self, i: int) -> bool:
        """Bar ``i`` shares the top key with others (hatched, noted "tie" unless chosen)."""
        return self.n_top > 1 and self.keys[i] == self.keys[0]


def pair_chart(snapshot, top: int) -> PairChart:
    """The :class:`PairChart` of ``snapshot``'s ``top`` best pairs (no bars: no pairs left).

    Example::

        >>> from bpe_viz import train_bpe
        >>> chart = pair_chart(train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)[0], 4)
        >>> chart.title, chart.notes[:2], chart.tied(3)
        ('Best pairs at step 0: 3 pairs tie', ['9  ← next merge', '9  tie'], False)
    """
    trace = snapshot.trace
    scored = trace.model.scored
    ranked = snapshot.top_pairs(top)
    title = f"Best pairs at step {snapshot.step}"
    if not ranked:
        return PairChart(ranked, [], [], None, 0, title, [], scored)
    keys = [snapshot.rank_value(p, c) for p, c in ranked]  # counts, or exact scores
    values = [float(k) for k in keys] if scored else keys
    nxt = snapshot.next_merge
    chosen = 0 if nxt is not None and nxt.pair == ranked[0][0] else None
    n_top = sum(1 for k in keys if k == keys[0])
    if chosen == 0:
        n_tied = 1 + nxt.trace.tied_head(nxt.step, 0)[1]  # every pair tied at the top, not only the ones drawn
    else:
        n_tied = sum(1 for p, c in snapshot.ranked_pairs if snapshot.rank_value(p, c) == keys[0])
    if n_tied > 1:
        title += f": {n_tied:,} pairs tie"
    if nxt is None and snapshot.step == len(trace.merges):
        title += f" (training stopped: {trace.stop_reason})"
    return PairChart(ranked, keys, values, chosen, n_top, title, pair_notes(values, keys, chosen, scored), scored)


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


# -- BPE versus WordPiece --------------------------------------------------------------------------


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


def _letters(token: str, convention) -> str:
    """A token without its convention's markers, as the chart writes it, to compare BPE and
    WordPiece tokens.

    Example: "est</w>" (BPE) -> "est"; "##est" (WordPiece) -> "est"; byte-level "íķľ" -> "한".
    """
    return chart_token(convention.marker.letters(token), convention)


def merge_sequences(trace_bpe, trace_wp):
    """Rows ``(k, bpe_token, wp_token, same, bpe_in_wp_at, wp_in_bpe_at)`` for both runs.

    Tokens compare by their letters (markers stripped: ``est</w>`` and ``##est`` are "est"; a
    byte-level token by the text its bytes spell, :func:`chart_token`).
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


def sequences_window(table, upto: int | None, rows: int) -> tuple[str, int, int]:
    """``(title, start, end)`` of the merge-sequences chart of ``table`` (:func:`merge_sequences`):
    ``table[start:end]`` are the ``rows`` merges ending at ``upto`` (default: the first ``rows``).

    Example::

        >>> sequences_window([(1, "ug", "##gs", False, None, None)], None, 12)
        ('BPE vs WordPiece: first difference at merge 1', 0, 1)
    """
    n = len(table)
    if upto is not None and upto > n:
        raise ValueError(f"upto must be between 0 and {n} (the longer trace's merges), got {upto}")
    first_diff = next((r[0] for r in table if not r[3]), None)
    title = (f"BPE vs WordPiece: the same letters for all {n} merges" if first_diff is None
             else f"BPE vs WordPiece: first difference at merge {first_diff}")
    end = rows if upto is None else max(upto, min(rows, n))
    end = min(end, n)
    return title, max(0, end - rows), end


def sequence_cell(tok: str, same: bool, where: int | None, other: str, convention=None) -> str:
    """A token in the merge-sequences chart (as :func:`chart_token` writes it with
    ``convention``), cut to 12 characters; where the two differ, where the ``other`` algorithm
    made the same letters ("WP @7") or that it never did.

    Example::

        >>> sequence_cell("ug", False, None, "WP"), sequence_cell("##gs", False, 7, "BPE")
        ('ug  (not in WP)', '##gs  (BPE @7)')
    """
    tok = chart_token(tok, convention)
    text = tok if len(tok) <= 12 else tok[:11] + "…"
    if not same:
        text += f"  ({other} @{where})" if where is not None else f"  (not in {other})"
    return text
