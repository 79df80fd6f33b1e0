"""A Unigram training run as HTML: the round's header, the Δloss table with its cut line, the
lattice of one word (every way to cut it, the Viterbi path, the ties), and several tokenizers'
cuts of the same words side by side.

The Unigram family's counterpart of the merge views (:mod:`bpe_viz.view.merges`): BPE's views
show the pair a merge takes, these show the pieces a round *removes*. Same rules, the same kit
(:mod:`bpe_viz.view.kit`): pure functions of engine objects, inline styles, every piece and
message escaped, a piece keeps its color and its border, ``▁`` drawn dimmed. The data they show
is computed in :mod:`.rounds`; the charts are in :mod:`.charts` and :mod:`.svg`.

Example::

    >>> from bpe_viz import train_unigram
    >>> trace = train_unigram({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 14)
    >>> "Round 1 of 5" in round_header_html(trace, 1)
    True
"""

from __future__ import annotations

import math

from ...engine.text import BeginOfWord
from ..kit import (CHOSEN_STYLE, box, check_rows, check_size, esc, more_html, short_label, table_html, tie_badge,
                   tie_flag, token_color, token_html)
from .rounds import check_round, lattice_paths, removal_ranking, same_score

__all__ = ["round_header_html", "removal_table_html", "lattice_html", "cuts_table_html"]


class _Convention:
    """What :func:`~bpe_viz.view.kit.chips.token_html` needs to dim the ``▁`` of a Unigram piece."""

    marker = BeginOfWord("\u2581")
    byte_level = False


_CONV = _Convention()


def _chip(piece: str, **kw) -> str:
    return token_html(piece, convention=_CONV, **kw)


def _fmt(x: float) -> str:
    """A loss or probability, readable: 23.51, 0, 0.00544, 1.2e-05."""
    if x == 0:
        return "0"
    if abs(x) >= 1000:
        return f"{x:,.1f}"
    return f"{x:.4g}"


# -- the round header ---------------------------------------------------------------------------


def round_header_html(trace, k: int, *, size: float = 1.0) -> str:
    """"Round k of N — flavour", the pieces left, the loss (and the course's printed loss).

    Example::

        >>> from bpe_viz import train_unigram
        >>> trace = train_unigram({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 14)
        >>> out = round_header_html(trace, 1)
        >>> "Round 1 of 5" in out, "18 pieces" in out, "the course prints" in out
        (True, True, True)
    """
    size = check_size(size)
    snap = check_round(trace[k], "trace[k]")
    last = len(trace) - 1
    parts = [f'<span class="bpe-step" style="font-weight:700">Round {snap.round:,} of {last:,}</span> &mdash; '
             f'<span class="bpe-convention">{esc(trace.describe())}</span>']
    line = f"{len(snap.pieces):,} pieces, corpus loss {snap.loss:,.4f}"
    if snap.course_loss is not None:
        line += f" (the course prints {snap.course_loss:,.4f}: +1 per word)"
    if snap.round == 0:
        line += " — the seed vocabulary"
    elif snap.removed:
        line += f" — this round removed {len(snap.removed):,}"
    parts.append(f'<div class="bpe-round-line">{esc(line)}</div>')
    if snap.note and snap.round:
        parts.append(f'<div class="bpe-note" style="color:#555">{esc(snap.note)}</div>')
    if snap.round == last:
        parts.append(f'<div class="bpe-stop" style="font-weight:600">Training stopped here: {esc(trace.stop_reason)}.'
                     "</div>")
    return box("".join(parts), "bpe-message bpe-header", size, "color:#333;padding:0.3em 0")


# -- the Δloss table --------------------------------------------------------------------------


def _flavour(snapshot) -> str:
    trace = getattr(snapshot, "trace", None)
    return getattr(trace, "flavour", "hf-course")


def _others_html(others, max_chips: int = 16) -> str:
    """Pieces removed for another reason than their loss, grouped by reason."""
    if not others:
        return ""
    groups: dict = {}
    for r in others:
        groups.setdefault(r.reason, []).append(r.piece)
    items = []
    for reason, pieces in groups.items():
        chips = "".join(_chip(p) for p in pieces[:max_chips])
        if len(pieces) > max_chips:
            chips += more_html(len(pieces) - max_chips, "more")
        items.append(f'<li class="bpe-other-removal" style="margin:0.15em 0"><span style="font-weight:600">'
                     f"{esc(reason)}</span> ({len(pieces):,}): {chips}</li>")
    return ('<div class="bpe-others" style="margin-top:0.3em"><div class="bpe-table-title" style="font-weight:700">'
            f'Also removed this round, not by their loss</div><ul style="margin:0.1em 0;padding-left:1.4em">'
            f'{"".join(items)}</ul></div>')


def _empty_table_html(snapshot, others) -> str:
    """A round that ranked no piece: round 0 (the seeds), or a round that removed by other rules."""
    k = snapshot.round
    if k == 0:
        msg = "Round 0: the seed vocabulary, nothing removed yet. Move to round 1 to see the first pruning."
    else:
        msg = f"Round {k:,} ranked no piece by its loss"
        msg += f": {snapshot.note}." if snapshot.note else "."
    return f'<div class="bpe-message" style="color:#333">{esc(msg)}</div>' + _others_html(others)


def _window(n: int, cut: int, max_rows: int | None) -> tuple[int, int]:
    """(start, end) of the rows shown: all of them, or ``max_rows`` around the cut."""
    if max_rows is None or n <= max_rows:
        return 0, n
    above = min(cut, max(1, max_rows // 2))
    start = cut - above
    end = min(n, start + max_rows)
    return max(0, end - max_rows), end


def _removal_rows(rows, start: int, end: int, cut: int):
    """The table's cells, row classes and row styles for ``rows[start:end]``, the cut line drawn."""
    body, classes, styles = [], [], []
    for i in range(start, end):
        r = rows[i]
        note = ('<span class="bpe-removed" style="font-weight:700">removed</span>' if r.removed
                else '<span class="bpe-kept">kept</span>')
        if r.tied:
            note += " " + tie_badge()
        body.append([f"{i + 1:,}", _chip(r.piece), esc(_fmt(r.loss)), note])
        cls = ["bpe-removal-row", "bpe-removed-row" if r.removed else "bpe-kept-row"]
        if r.tied:
            cls.append("bpe-tied")
        style = CHOSEN_STYLE if r.removed else ""
        if i == cut - 1:
            cls.append("bpe-cut-line")
            style += ";border-bottom:3px dashed #000"
        classes.append(" ".join(cls))
        styles.append(style)
    if cut == 0 and start == 0:  # nothing removed by loss: the cut line above the first row
        styles[0] += ";border-top:3px dashed #000"
        classes[0] += " bpe-cut-line"
    return body, classes, styles


def _removal_caption(snapshot, rows, cut: int) -> str:
    """What Δloss means in this flavour, how many were removed and kept, and the tie at the cut."""
    if _flavour(snapshot) == "hf-course":
        what = ("Δloss: how much the corpus loss would grow without the piece (each word cut again its best "
                "way). The course removes the 10% with the smallest Δloss (never a single character); among "
                "equal losses the piece met first goes.")
    else:
        what = ("Δloss: the likelihood the corpus loses if each use of the piece is cut its second-best way, "
                "weighted by the piece's frequency (SentencePiece's pruning). The largest are kept, "
                "max(1.1 × vocab_size, 0.75 × size) pieces; among equal losses the earlier piece stays. "
                "Pieces with only one way to be cut are kept without a ranking.")
    caption = esc(what) + f" — {cut:,} removed above the dashed line, {len(rows) - cut:,} kept below."
    tie_value = rows[cut - 1].loss if cut and any(r.tied for r in rows) else None
    if tie_value is not None:
        n_tied = sum(1 for r in rows if r.tied)
        caption += (f' <span class="bpe-tie-note" style="font-weight:600">{n_tied:,} pieces tie at the cut '
                    f"(Δloss {esc(_fmt(tie_value))}): which of them go is decided by their order, "
                    "not by their loss.</span>")
    return caption


def removal_table_html(snapshot, max_rows: int | None = 16, *, size: float = 1.0) -> str:
    """The Δloss table of a round: every ranked piece, smallest removal loss first, the removed
    ones highlighted above a cut line, ties at the cut flagged "tie"; then the pieces the round
    removed for another reason, with the reason.

    A long table shows the rows around the cut (half above, half below), with "… N more" at
    both ends.

    Example::

        >>> from bpe_viz import train_unigram
        >>> toy = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
        >>> seeds = ["h", "u", "g", "hu", "ug", "p", "pu", "n", "un", "b", "bu", "s", "hug", "gs", "ugs"]
        >>> out = removal_table_html(train_unigram(toy, 12, initial_vocab=seeds)[1])
        >>> out.count("bpe-removed-row"), out.count("bpe-cut-line"), out.count(">tie<")
        (1, 1, 7)
    """
    size = check_size(size)
    max_rows = check_rows(max_rows)
    ranking = removal_ranking(snapshot)
    rows, cut = ranking.rows, ranking.cut
    if not rows:
        return box(_empty_table_html(snapshot, ranking.others), "bpe-removal", size)
    n = len(rows)
    start, end = _window(n, cut, max_rows)
    body, classes, styles = _removal_rows(rows, start, end, cut)
    table = table_html(f"Round {snapshot.round:,}: what removing each piece would cost",
                       ["#", "piece", "Δloss", "this round"], body, cls="bpe-removal-table", more=n - end,
                       caption=_removal_caption(snapshot, rows, cut), row_classes=classes, row_styles=styles,
                       numeric=(0, 2))
    if start > 0:
        # the "… more above" note just under the caption, before the first row
        top_more = (f'<div class="bpe-more" style="color:#555;font-style:italic">… {start:,} more '
                    f"{'removed' if start <= cut else 'ranked'} above (smaller Δloss)</div>")
        table = table.replace("<table ", top_more + "<table ", 1)
    return box(table + _others_html(ranking.others), "bpe-removal", size)


# -- the lattice of one word ------------------------------------------------------------------


def _cell(piece: str) -> str:
    """A piece on the lattice's character grid: exactly as wide as its letters (1.3 em each), so
    the cuts of every path line up under each other. Colored and bordered like a chip."""
    if piece.startswith("\u2581"):
        inner = (f'<span class="bpe-marker" style="color:#555;opacity:0.7">\u2581</span>{esc(piece[1:])}')
    else:
        inner = esc(piece)
    return (f'<span class="bpe-token bpe-lattice-cell" title="{esc(piece)}" style="display:inline-block;'
            f"box-sizing:border-box;width:{len(piece) * 1.3:.1f}em;background:{token_color(piece)};color:#000;"
            "border:1px solid #333;border-radius:0.25em;text-align:center;font-family:monospace,monospace;"
            f'white-space:pre;overflow:hidden;line-height:1.5;margin:0.1em 0;vertical-align:middle">{inner}</span>')


def _aligned_chips(pieces) -> str:
    return f'<span class="bpe-lattice-cut" style="white-space:nowrap">{"".join(_cell(p) for p in pieces)}</span>'


def lattice_html(trace, word: str, k: int | None = None, *, max_paths: int = 12, size: float = 1.0) -> str:
    """Every way to cut ``word`` at round ``k`` (default: the last): the best cut of each
    prefix (what Viterbi computes, left to right), then the most probable full cuts with their
    probabilities, the one Viterbi keeps highlighted and ties flagged; "… N more ways" after
    ``max_paths``.

    Example::

        >>> from bpe_viz import train_unigram
        >>> toy = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
        >>> seeds = ["h", "u", "g", "hu", "ug", "p", "pu", "n", "un", "b", "bu", "s", "hug", "gs", "ugs"]
        >>> out = lattice_html(train_unigram(toy, 12, initial_vocab=seeds), "pug", 0)
        >>> out.count("bpe-lattice-path"), out.count("bpe-viterbi"), "2 ways tie for the best" in out
        (3, 1, True)
    """
    size = check_size(size)
    k = len(trace) - 1 if k is None else k
    snap = trace[k]
    lat = lattice_paths(snap, word, max_paths)
    walk = lat.walkthrough
    course = trace.flavour == "hf-course"
    head = (f'<div class="bpe-lattice-title" style="font-weight:700">Every way to cut &ldquo;{short_label(lat.word)}&rdquo;'
            f" at round {lat.round:,}: {lat.total:,} way{'s' if lat.total != 1 else ''}</div>")
    rule = ("P(cut) = the product of its pieces' probabilities; Viterbi finds the most probable cut "
            "prefix by prefix (the best cut of each prefix is the best cut of a shorter prefix plus one piece).")
    parts = [head, f'<div style="color:#555;font-size:0.85em">{esc(rule)}</div>']
    # 1. the prefix table (Viterbi's work)
    prow = []
    for prefix, cut, score, tied in walk.prefixes:
        if cut is None:
            prow.append([esc(prefix), '<span style="color:#555">no cut</span>', "", ""])
            continue
        prow.append([short_label(prefix), "".join(_chip(p) for p in cut), esc(f"{math.exp(score):.6g}"),
                     tie_badge() if tied else ""])
    parts.append(table_html("Viterbi, prefix by prefix: the best cut of each", ["prefix", "best cut", "P", ""], prow,
                            cls="bpe-prefix-table", numeric=(2,)))
    # 2. the full cuts
    if lat.total == 0 or not lat.paths:
        missing = sorted({c for c in lat.word if c not in snap.pieces})
        msg = (f"No way to cut it: no piece of this vocabulary holds {', '.join(missing)}"
               if missing else "No way to cut it with these pieces")
        parts.append(f'<div class="bpe-message bpe-no-cut" style="color:#C00000;font-weight:600">{esc(msg)}'
                     " (the engine gives &lt;unk&gt;).</div>")
        return box("".join(parts), "bpe-lattice", size)
    best_score = lat.paths[0].score
    headers = ["#", "cut", "P", "−log P"] + (["the course prints"] if course else []) + [""]
    rows, classes, styles = [], [], []
    for i, p in enumerate(lat.paths, 1):
        notes = []
        if p.viterbi:
            notes.append('<span class="bpe-keeps" style="font-weight:700">&larr; Viterbi keeps this</span>')
        if p.tied:
            notes.append(tie_badge())
        cells = [str(i), _aligned_chips(p.pieces), esc(f"{math.exp(p.score):.6g}"), esc(f"{-p.score:.4f}")]
        if course:
            cells.append(esc(f"{1 - p.score:.4f}"))
        cells.append(" ".join(notes))
        rows.append(cells)
        classes.append("bpe-lattice-path" + (" bpe-viterbi" if p.viterbi else "") + (" bpe-tied" if p.tied else ""))
        styles.append(CHOSEN_STYLE if p.viterbi else "")
    n_best = sum(1 for p in lat.paths if same_score(p.score, best_score))
    caption = f"the {len(lat.paths):,} most probable of {lat.total:,}"
    if n_best > 1:
        caption += (f'; <span class="bpe-tie-note" style="font-weight:600">{n_best} ways tie for the best: '
                    "Viterbi keeps the first it found (at each position it meets the longest last piece first).</span>")
    if course:
        caption += ". The course's encode_word prints 1 + (−log P): it starts each word's score at 1."
    parts.append(table_html("The cuts, most probable first", headers, rows, cls="bpe-lattice-table",
                            more=lat.total - len(lat.paths), caption=caption, row_classes=classes,
                            row_styles=styles, numeric=(0, 2, 3, 4) if course else (0, 2, 3)))
    if walk.tied or walk.final is not None:
        parts.append(f'<div class="bpe-lattice-final" style="margin-top:0.3em"><span style="font-weight:700">'
                     f'Viterbi:</span> {"".join(_chip(p) for p in walk.final)}{tie_flag() if walk.tied else ""}</div>')
    return box("".join(parts), "bpe-lattice", size)


# -- several models, the same words ---------------------------------------------------------------


def cuts_table_html(words, cuts: dict, *, conventions: dict | None = None, title: str = "How each cuts the same words",
                    size: float = 1.0) -> str:
    """A table: one row per word, one column per tokenizer, each cell the word's pieces as chips.

    ``cuts``: column name -> one list of pieces per word (e.g. ``encode(word, trace).pieces``).
    ``conventions``: column name -> a trace's convention (to dim its markers: ``</w>``, ``##``);
    Unigram's ``▁`` is dimmed by default.

    Example::

        >>> out = cuts_table_html(["hugs"], {"BPE": [["hug", "s</w>"]], "Unigram": [["▁hug", "s"]]})
        >>> out.count('class="bpe-token'), "&lt;/w&gt;" in out
        (4, True)
    """
    size = check_size(size)
    words = list(words)
    conventions = conventions or {}
    for name, column in cuts.items():
        if len(column) != len(words):
            raise ValueError(f"cuts[{name!r}] must hold one cut per word ({len(words)}), got {len(column)}")
    headers = ["word", *cuts]
    rows = []
    for i, w in enumerate(words):
        cells = [short_label(w)]
        for name, column in cuts.items():
            conv = conventions.get(name, _CONV)
            pieces = list(column[i])
            cells.append("".join(token_html(p, convention=conv) for p in pieces)
                         + f' <span style="color:#555;font-size:0.85em">({len(pieces)})</span>')
        rows.append(cells)
    return box(table_html(title, headers, rows, cls="bpe-cuts-table", caption="(n): the number of tokens"),
               "bpe-cuts", size)
