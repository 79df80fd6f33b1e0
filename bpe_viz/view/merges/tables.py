"""The three tables of a merge trace's step: the words (with their segmentation), the pairs
(best first, the next merge and its ties marked) and the vocabulary (ids, the merge that made
each token, its frequency now).

For the merge families (BPE, WordPiece, SentencePiece-BPE); built from the kit's
:func:`~bpe_viz.view.kit.html.table_html` and chips. :mod:`.steps` puts them side by side with the
merge of the step; Unigram's Δloss table is in :mod:`bpe_viz.view.unigram.html`.

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
    >>> "Words at step 3" in words_table_html(trace[3]), "just made" in vocab_table_html(trace[3])
    (True, True)
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping

from ..kit import (CHOSEN_STYLE, box, check_rows, check_size, display_text, esc, fraction_text, short_label,
                   table_html, tie_badge, token_html, token_infos, word_html)

__all__ = ["words_table_html", "pairs_table_html", "vocab_table_html", "segmentation_of"]

_BY_COUNT: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_WHERE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # trace -> {word: its index}
_COUNTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # trace -> {word: its count}


def _per_trace(cache, trace, make):
    """``cache[trace]``, made by ``make()`` when missing or made for another number of words; kept per trace
    (a trace's words and counts never change) where the trace can be weakly referenced."""
    kept = cache.get(trace)
    if kept is None or len(kept) != len(trace.words):
        kept = make()
        try:
            cache[trace] = kept
        except TypeError:
            pass
    return kept


def _word_counts(snapshot) -> Mapping:
    """``snapshot.word_counts``, read only: the same for every step, so a step not asked for it
    yet reads the trace's one copy (making it cost a cold slider step a millisecond)."""
    if "word_counts" in snapshot.__dict__:
        return snapshot.word_counts
    trace = snapshot.trace
    return _per_trace(_COUNTS, trace, lambda: dict(zip(trace.words, trace.counts)))


def _words_by_count(trace, words, counts):
    """Words, most frequent first (ties in corpus order); counts never change, so cache per trace."""
    # stable: equal counts keep corpus order
    return _per_trace(_BY_COUNT, trace, lambda: sorted(words, key=lambda w: -counts[w]))


def segmentation_of(snapshot, rows: int | None):
    """``snapshot.segmentation``, or, when only ``rows`` of a long word list are shown and the
    segmentation was not asked for yet, a read-only mapping that spells only the words looked up
    (a slider step on a real text shows 8 of thousands of words).

    Example::

        >>> from bpe_viz import train_bpe
        >>> snap = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 3)[3]
        >>> seg = segmentation_of(snap, 1)
        >>> seg["newest"], "newer" in seg, list(seg) == list(snap.segmentation)
        (('n', 'e', 'w', 'est</w>'), False, True)
    """
    trace = snapshot.trace
    if rows is None or "segmentation" in snapshot.__dict__ or len(trace.words) <= 4 * rows:
        return snapshot.segmentation
    where = _per_trace(_WHERE, trace, lambda: {w: i for i, w in enumerate(trace.words)})
    return _Spelled(where, snapshot.state[0], trace.show_tuple if trace.remaps_marker else tuple)


class _Spelled(Mapping):
    """word -> its symbols at a step (public spelling), each spelled when looked up."""

    def __init__(self, where: dict, seg: list, show):
        self.where, self.seg, self.spell = where, seg, show

    def __getitem__(self, word):
        return self.spell(self.seg[self.where[word]])

    def __contains__(self, word):
        return word in self.where

    def __iter__(self):
        return iter(self.where)

    def __len__(self):
        return len(self.where)


def words_table_html(snapshot, max_rows: int | None = 20, *, sort: str = "auto", size: float = 1.0) -> str:
    """The word dictionary at a step: word, count, colored segmentation, number of symbols.

    ``sort``: ``"corpus"`` (order of first appearance, as the 2016 paper lists it),
    ``"count"`` (most frequent first, ties in corpus order) or ``"auto"`` (corpus order when
    every word fits in ``max_rows``, else by count). Longer tables end with "… and N more".

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
        >>> "and 2 more" in words_table_html(trace[3], max_rows=2)
        True
    """
    size = check_size(size)
    max_rows = check_rows(max_rows)
    if sort not in ("auto", "corpus", "count"):
        raise ValueError(f"sort must be 'auto', 'corpus' or 'count', got {sort!r}")
    seg = segmentation_of(snapshot, max_rows)
    counts = _word_counts(snapshot)
    words = list(snapshot.trace.words)
    n = len(words)
    by_count = sort == "count" or (sort == "auto" and max_rows is not None and n > max_rows)
    if by_count:
        words = _words_by_count(snapshot.trace, words, counts)
    shown = words if max_rows is None else words[:max_rows]
    trace = snapshot.trace
    conv = trace.convention
    highlight = snapshot.merge.token if snapshot.merge is not None else None
    rows, classes = [], []
    for w in shown:
        syms = seg[w]
        changed = highlight is not None and highlight in syms
        rows.append([
            f'<span style="font-weight:600">{short_label(w)}</span>',
            f"{counts[w]:,}",
            word_html(syms, trace, conv, highlight),
            str(len(syms)),
        ])
        classes.append("bpe-word-row bpe-changed" if changed else "bpe-word-row")
    caption = "most frequent words first" if by_count else "in corpus order"
    if highlight is not None:
        caption += f"; thick border: the token just made ({esc(display_text(highlight, conv))})"
    return box(
        table_html(f"Words at step {snapshot.step}", ["word", "count", "segmentation", "symbols"], rows,
                   cls="bpe-words-table", more=n - len(shown), caption=caption, row_classes=classes,
                   numeric=(1, 3)),
        "bpe-words", size,
    )


def pairs_table_html(snapshot, max_rows: int | None = 20, *, size: float = 1.0) -> str:
    """The pair table at a step, best first (``snapshot.ranked_pairs``).

    The pair the next merge takes is highlighted and labelled "next merge"; every pair with
    the same top count (WordPiece: the same top score) is marked "tie".

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> out = pairs_table_html(trace[0], max_rows=5)
        >>> out.count(">tie<"), "next merge" in out
        (3, True)
    """
    size = check_size(size)
    max_rows = check_rows(max_rows)
    trace = snapshot.trace
    conv = trace.convention
    scored = trace.model.scored
    # only the rows shown are ranked (ranking every pair of a real text would cost a slider step)
    shown = snapshot.ranked_pairs if max_rows is None else snapshot.top_pairs(max_rows)
    n_pairs = snapshot.num_pairs
    nxt = snapshot.next_merge
    # what the model ranks by (count, or the exact score), only for the rows needed
    key_of = snapshot.rank_value
    top_key, n_top = None, 0
    if shown:
        top_key = key_of(*shown[0])
        if nxt is not None and nxt.pair == shown[0][0]:
            n_top = 1 + nxt.trace.tied_head(nxt.step, 0)[1]  # the engine knows how many tied with the next merge
        else:
            n_top = sum(1 for p, c in snapshot.ranked_pairs if key_of(p, c) == top_key)
    info = token_infos(trace)
    headers = ["#", "pair", "count"] + (["score"] if scored else []) + ["merges into", "note"]
    rows, classes, styles = [], [], []
    for i, (pair, count) in enumerate(shown):
        key = key_of(pair, count)
        chosen = i == 0 and nxt is not None and nxt.pair == pair
        tie = n_top > 1 and key == top_key
        notes = []
        if chosen:
            notes.append('<span class="bpe-next" style="font-weight:700">&larr; next merge</span>')
        if tie:
            notes.append(tie_badge())
        a, b = pair
        pair_cell = (
            "(" + token_html(a, convention=conv, title=info.describe(a)[0])
            + ", " + token_html(b, convention=conv, title=info.describe(b)[0]) + ")"
        )
        cells = [str(i + 1), pair_cell, f"{count:,}"]
        if scored:
            s = key
            cells.append(f'<span title="{esc(f"{s.numerator}/{s.denominator}")}">{fraction_text(s)}</span>')
        merged = conv.marker.join(a, b, conv.marker.text)
        cells.append(token_html(merged, convention=conv))
        cells.append(" ".join(notes))
        rows.append(cells)
        classes.append(" ".join(c for c in ("bpe-pair-row", "bpe-chosen" if chosen else "",
                                            "bpe-tied" if tie else "") if c))
        styles.append(CHOSEN_STYLE if chosen else "")
    what = "score = count(ab) / (count(a)&middot;count(b)), best first" if scored else "most frequent first"
    caption = what
    if nxt is None:
        if snapshot.step == len(trace.merges):
            caption += f"; no next merge: {esc(trace.stopped_because)}"
    elif n_top > 1:
        caption += f"; {n_top} pairs tie, the tie rule takes the {esc(conv.tie_rule.takes)}"
    return box(
        table_html(f"Pairs at step {snapshot.step}", headers, rows, cls="bpe-pairs-table",
                   more=n_pairs - len(shown), caption=caption, row_classes=classes,
                   row_styles=styles, numeric=(0, 2, 3) if scored else (0, 2)),
        "bpe-pairs", size,
    )


def vocab_table_html(snapshot, max_rows: int | None = 20, *, order: str = "id", size: float = 1.0) -> str:
    """The vocabulary at a step: id, token, the step that made it, its frequency now.

    Tokens merged away (they no longer occur: ``e`` and ``s`` inside every ``es``) stay listed,
    flagged "merged away". ``order="id"`` lists by id (initial symbols first);
    ``order="newest"`` puts the latest merges first. The token made at this step is marked.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
        >>> "merged away" in vocab_table_html(trace[3], max_rows=None)
        True
    """
    size = check_size(size)
    max_rows = check_rows(max_rows)
    if order not in ("id", "newest"):
        raise ValueError(f"order must be 'id' or 'newest', got {order!r}")
    trace = snapshot.trace
    conv = trace.convention
    if order == "newest" and max_rows is not None:
        # the newest few only: a stepper shows 8 of thousands on every step (speed, issue 11)
        n = len(trace.base_symbols) + snapshot.step  # len(snapshot.vocab), without making it
        entries = snapshot.newest_vocab(max_rows)
    else:
        vocab = snapshot.vocab
        n = len(vocab)
        indices = range(n - 1, -1, -1) if order == "newest" else range(n)
        entries = [vocab[i] for i in (indices if max_rows is None else indices[:max_rows])]
    info = token_infos(trace)
    rows, classes, styles = [], [], []
    for e in entries:
        tid = trace.token_to_id(e.token, made_at=e.made_at)
        new = e.made_at == snapshot.step and e.made_at > 0
        title = info.title(e.token, tid, e.made_at)
        made = "initial" if e.made_at == 0 else f"merge {e.made_at}"
        status = []
        if new:
            status.append('<span class="bpe-new-label" style="font-weight:700">just made</span>')
        if not e.occurs:
            status.append(
                '<span class="bpe-gone" style="color:#555;font-style:italic">merged away</span>'
            )
        rows.append([
            str(tid) if tid is not None else
            f'<span class="bpe-no-id" title="{esc(title.split(chr(10), 1)[-1])}" style="color:#555">&mdash;</span>',
            token_html(e.token, convention=conv, title=title, emphasize=new),
            made,
            f"{e.count:,}",
            " ".join(status),
        ])
        cls = "bpe-vocab-row"
        if new:
            cls += " bpe-chosen"
        if not e.occurs:
            cls += " bpe-merged-away"
        classes.append(cls)
        styles.append(CHOSEN_STYLE if new else ("color:#777" if not e.occurs else ""))
    caption = "newest first" if order == "newest" else "by id"
    caption += f"; {n:,} tokens"
    return box(
        table_html(f"Vocabulary at step {snapshot.step}", ["id", "token", "made at", "frequency", ""],
                   rows, cls="bpe-vocab-table", more=n - len(rows), caption=caption,
                   row_classes=classes, row_styles=styles, numeric=(0, 3)),
        "bpe-vocab", size,
    )
