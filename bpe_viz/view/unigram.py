"""A Unigram training run as HTML: the round's header, the Δloss table with its cut line, and
the lattice of one word (every way to cut it, the Viterbi path, the ties).

The sibling of :mod:`.html` for :func:`~bpe_viz.engine.unigram.model.train_unigram` traces: BPE's
views show the pair a merge takes, these show the pieces a round *removes*. Same rules: pure
functions of engine objects, inline styles, every piece and message escaped, a piece keeps its
color (:func:`~bpe_viz.view.html.token_color`) and its border, ``▁`` drawn dimmed. The charts
(probabilities, loss by round) are in :mod:`.unigram_charts`.

Reading a round only reads the trace; the sorting a table needs is done once per round and
kept (a slider step stays fast on a SentencePiece run with thousands of candidates).

Example (the Hugging Face course's toy corpus and its 15 seed pieces)::

    >>> from bpe_viz import train_unigram
    >>> toy = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    >>> seeds = ["h", "u", "g", "hu", "ug", "p", "pu", "n", "un", "b", "bu", "s", "hug", "gs", "ugs"]
    >>> trace = train_unigram(toy, vocab_size=12, initial_vocab=seeds)
    >>> ranking = removal_ranking(trace[1])
    >>> ranking.cut, [r.piece for r in ranking.rows[:2]], ranking.rows[-1]
    (1, ['hu', 'ug'], RankedPiece(piece='hug', loss=23.513752571634768, removed=False, tied=False))
    >>> paths = lattice_paths(trace[0], "pug")
    >>> [(" ".join(p.pieces), p.viterbi, p.tied) for p in paths.paths[:3]]
    [('p ug', True, True), ('pu g', False, True), ('p u g', False, False)]
"""

from __future__ import annotations

import math
import weakref
from typing import NamedTuple

from ..engine.text.markers import BeginOfWord
from .html import (
    _CHOSEN_STYLE,
    _TIE_BADGE_STYLE,
    _box,
    _check_rows,
    _check_size,
    _e,
    _more_html,
    _table,
    short_label,
    token_color,
    token_html,
)

__all__ = [
    "MAX_LATTICE_CHARS",
    "RankedPiece",
    "RemovalRanking",
    "removal_ranking",
    "LatticePath",
    "Lattice",
    "lattice_paths",
    "round_header_html",
    "removal_table_html",
    "lattice_html",
    "cuts_table_html",
]


class _Convention:
    """What :func:`~bpe_viz.view.html.token_html` needs to dim the ``▁`` of a Unigram piece."""

    marker = BeginOfWord("\u2581")
    byte_level = False


_CONV = _Convention()

#: The longest word whose lattice is drawn (the per-prefix table re-cuts every prefix).
MAX_LATTICE_CHARS = 60
_TIE_TOL = 1e-12  # relative: a product equal to another up to float rounding is a tie


def _tie_badge(text: str = "tie") -> str:
    return (f'<span class="bpe-tie" style="border:1px solid #333;border-radius:0.3em;padding:0 0.3em;'
            f'font-size:0.85em;background:#FFF">{_e(text)}</span>')


def _chip(piece: str, **kw) -> str:
    return token_html(piece, convention=_CONV, **kw)


def _check_snapshot(snapshot, name="snapshot"):
    if not all(hasattr(snapshot, a) for a in ("pieces", "removal_losses", "removed", "kept_at_cut", "round")):
        raise TypeError(f"{name} must be a round of a Unigram trace (trace[k] from train_unigram), "
                        f"got {type(snapshot).__name__}")
    return snapshot


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
    size = _check_size(size)
    snap = _check_snapshot(trace[k], "trace[k]")
    last = len(trace) - 1
    parts = [f'<span class="bpe-step" style="font-weight:700">Round {snap.round:,} of {last:,}</span> &mdash; '
             f'<span class="bpe-convention">{_e(trace.describe())}</span>']
    line = f"{len(snap.pieces):,} pieces, corpus loss {snap.loss:,.4f}"
    if snap.course_loss is not None:
        line += f" (the course prints {snap.course_loss:,.4f}: +1 per word)"
    if snap.round == 0:
        line += " — the seed vocabulary"
    elif snap.removed:
        line += f" — this round removed {len(snap.removed):,}"
    parts.append(f'<div class="bpe-round-line">{_e(line)}</div>')
    if snap.note and snap.round:
        parts.append(f'<div class="bpe-note" style="color:#555">{_e(snap.note)}</div>')
    if snap.round == last:
        parts.append(f'<div class="bpe-stop" style="font-weight:600">Training stopped here: {_e(trace.stop_reason)}.'
                     "</div>")
    return _box("".join(parts), "bpe-message bpe-header", size, "color:#333;padding:0.3em 0")


# -- the Δloss table --------------------------------------------------------------------------


class RankedPiece(NamedTuple):
    """One row of the Δloss table: the piece, its removal loss, whether the round removed it,
    whether its loss equals the one at the cut (and the order among equals decided)."""

    piece: str
    loss: float
    removed: bool
    tied: bool


class RemovalRanking(NamedTuple):
    """The pieces a round ranked, the smallest removal loss first: ``rows[:cut]`` were
    removed, ``rows[cut:]`` kept. ``others``: pieces the round removed for another reason
    (:class:`~bpe_viz.engine.unigram.model.Removed` with ``loss`` ``None``)."""

    rows: tuple
    cut: int
    others: tuple


_RANKINGS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def removal_ranking(snapshot) -> RemovalRanking:
    """The round's removal losses as a table: smallest first, the removed pieces above the cut.

    Among equal losses the removed pieces come first, so one line separates removed from kept
    (the round decided that order: hf-course removes the earlier piece, SentencePiece keeps it).
    Computed once per round.
    """
    _check_snapshot(snapshot)
    cached = _RANKINGS.get(snapshot)
    if cached is not None:
        return cached
    by_loss = {r.piece: r for r in snapshot.removed if r.loss is not None}
    others = tuple(r for r in snapshot.removed if r.loss is None)
    kept_tied = set(snapshot.kept_at_cut)
    order = sorted(
        enumerate(snapshot.removal_losses.items()),
        key=lambda t: (t[1][1], t[1][0] not in by_loss, t[0]),
    )
    rows = []
    for _, (piece, loss) in order:
        r = by_loss.get(piece)
        if r is not None:
            rows.append(RankedPiece(piece, loss, True, bool(r.tied)))
        else:
            rows.append(RankedPiece(piece, loss, False, piece in kept_tied))
    cut = sum(1 for r in rows if r.removed)
    if any(r.removed for r in rows[cut:]):
        # subtle: cannot happen if the engine removed the smallest losses; say so loudly if it did
        raise ValueError(f"round {snapshot.round}: a removed piece has a larger loss than a kept one")
    result = RemovalRanking(tuple(rows), cut, others)
    try:
        _RANKINGS[snapshot] = result
    except TypeError:
        pass
    return result


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
            chips += _more_html(len(pieces) - max_chips, "more")
        items.append(f'<li class="bpe-other-removal" style="margin:0.15em 0"><span style="font-weight:600">'
                     f"{_e(reason)}</span> ({len(pieces):,}): {chips}</li>")
    return ('<div class="bpe-others" style="margin-top:0.3em"><div class="bpe-table-title" style="font-weight:700">'
            f'Also removed this round, not by their loss</div><ul style="margin:0.1em 0;padding-left:1.4em">'
            f'{"".join(items)}</ul></div>')


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
    size = _check_size(size)
    max_rows = _check_rows(max_rows)
    ranking = removal_ranking(snapshot)
    rows, cut = ranking.rows, ranking.cut
    k = snapshot.round
    flavour = _flavour(snapshot)
    if not rows:
        if k == 0:
            msg = "Round 0: the seed vocabulary, nothing removed yet. Move to round 1 to see the first pruning."
        else:
            msg = f"Round {k:,} ranked no piece by its loss"
            msg += f": {snapshot.note}." if snapshot.note else "."
        inner = f'<div class="bpe-message" style="color:#333">{_e(msg)}</div>' + _others_html(ranking.others)
        return _box(inner, "bpe-removal", size)
    # the window: rows around the cut
    n = len(rows)
    if max_rows is None or n <= max_rows:
        start, end = 0, n
    else:
        above = min(cut, max(1, max_rows // 2))
        start = cut - above
        end = min(n, start + max_rows)
        start = max(0, end - max_rows)
    headers = ["#", "piece", "Δloss", "this round"]
    body, classes, styles = [], [], []
    tie_value = rows[cut - 1].loss if cut and any(r.tied for r in rows) else None
    for i in range(start, end):
        r = rows[i]
        note = ('<span class="bpe-removed" style="font-weight:700">removed</span>' if r.removed
                else '<span class="bpe-kept">kept</span>')
        if r.tied:
            note += " " + _tie_badge()
        body.append([f"{i + 1:,}", _chip(r.piece), _e(_fmt(r.loss)), note])
        cls = ["bpe-removal-row", "bpe-removed-row" if r.removed else "bpe-kept-row"]
        if r.tied:
            cls.append("bpe-tied")
        style = _CHOSEN_STYLE if r.removed else ""
        if i == cut - 1:
            cls.append("bpe-cut-line")
            style += ";border-bottom:3px dashed #000"
        classes.append(" ".join(cls))
        styles.append(style)
    if cut == 0 and start == 0:  # nothing removed by loss: the cut line above the first row
        styles[0] += ";border-top:3px dashed #000"
        classes[0] += " bpe-cut-line"
    if flavour == "hf-course":
        what = ("Δloss: how much the corpus loss would grow without the piece (each word cut again its best "
                "way). The course removes the 10% with the smallest Δloss (never a single character); among "
                "equal losses the piece met first goes.")
    else:
        what = ("Δloss: the likelihood the corpus loses if each use of the piece is cut its second-best way, "
                "weighted by the piece's frequency (SentencePiece's pruning). The largest are kept, "
                "max(1.1 × vocab_size, 0.75 × size) pieces; among equal losses the earlier piece stays. "
                "Pieces with only one way to be cut are kept without a ranking.")
    caption = _e(what) + f" — {cut:,} removed above the dashed line, {n - cut:,} kept below."
    if tie_value is not None:
        n_tied = sum(1 for r in rows if r.tied)
        caption += (f' <span class="bpe-tie-note" style="font-weight:600">{n_tied:,} pieces tie at the cut '
                    f"(Δloss {_e(_fmt(tie_value))}): which of them go is decided by their order, "
                    "not by their loss.</span>")
    top_more = ""
    if start > 0:
        top_more = (f'<div class="bpe-more" style="color:#555;font-style:italic">… {start:,} more '
                    f"{'removed' if start <= cut else 'ranked'} above (smaller Δloss)</div>")
    table = _table(f"Round {k:,}: what removing each piece would cost", headers, body, cls="bpe-removal-table",
                   more=n - end, caption=caption, row_classes=classes, row_styles=styles, numeric=(0, 2))
    if top_more:
        # the "… more above" note just under the caption, before the first row
        table = table.replace("<table ", top_more + "<table ", 1)
    return _box(table + _others_html(ranking.others), "bpe-removal", size)


# -- the lattice of one word ------------------------------------------------------------------


class LatticePath(NamedTuple):
    """One way to cut a word: its pieces, log-probability (the sum of the pieces'), whether it
    is the path Viterbi kept, whether another path has exactly the same probability."""

    pieces: tuple
    score: float
    viterbi: bool
    tied: bool


class Lattice(NamedTuple):
    """Every way to cut ``word`` with the round's pieces: ``total`` of them; ``paths``: the most
    probable ones (best first, Viterbi's at the top of its tie), at most the number asked for;
    ``walkthrough``: the engine's per-prefix table."""

    word: str
    round: int
    total: int
    paths: tuple
    walkthrough: object


def _pieces_info(snapshot):
    """(log-probability of each piece, the longest piece's length), computed once per round."""
    info = snapshot.__dict__.get("_lattice_info")
    if info is None:
        scores = snapshot.scores
        info = snapshot.__dict__["_lattice_info"] = (scores, max(map(len, scores), default=1))
    return info


def lattice_paths(snapshot, word: str, max_paths: int = 12) -> Lattice:
    """The ``max_paths`` most probable ways to cut ``word`` with the pieces of a round, and how
    many ways there are in all (a word of n letters has up to 2^(n-1)).

    Paths are ranked by the sum of their pieces' log-probabilities, kept per prefix (the
    k best cuts of a prefix extend to the k best of the next: no path is enumerated twice).
    The path the engine's Viterbi chose (``encode_word``) is marked; paths exactly as probable
    as another are marked tied. A character no piece covers is an unknown piece
    (SentencePiece) or makes the word uncuttable (hf-course: no paths).

    Example::

        >>> from bpe_viz import train_unigram
        >>> toy = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
        >>> seeds = ["h", "u", "g", "hu", "ug", "p", "pu", "n", "un", "b", "bu", "s", "hug", "gs", "ugs"]
        >>> lat = lattice_paths(train_unigram(toy, 12, initial_vocab=seeds)[0], "unhug", max_paths=2)
        >>> lat.total, [" ".join(p.pieces) for p in lat.paths]
        (8, ['un hug', 'u n hug'])
    """
    _check_snapshot(snapshot)
    if isinstance(max_paths, bool) or not isinstance(max_paths, int) or max_paths < 1:
        raise ValueError(f"max_paths must be an int >= 1, got {max_paths!r}")
    if not isinstance(word, str) or not word.strip() or any(c.isspace() for c in word):
        raise ValueError(f"word must be one word (no spaces), got {word!r}")
    if len(word) > MAX_LATTICE_CHARS:
        raise ValueError(f"word: the lattice is drawn for words of at most {MAX_LATTICE_CHARS} characters, "
                         f"got {len(word):,}")
    trace = snapshot.trace
    walk = trace._encode_word(word, snapshot.round)
    word = walk.word  # the engine may put "▁" in front, as the word was seen in training
    scores, maxlen = _pieces_info(snapshot)
    unk = trace._unk_score(snapshot)
    n = len(word)
    keep = max_paths + 1
    count = [0] * (n + 1)
    count[0] = 1
    tops: list = [[] for _ in range(n + 1)]  # per end: up to `keep` (score, pieces), best first
    tops[0] = [(0.0, ())]
    for s in range(n):
        if not count[s]:
            continue
        single = False
        for e in range(s + 1, min(n, s + maxlen) + 1):
            sc = scores.get(word[s:e])
            if sc is None:
                continue
            single = single or e == s + 1
            _extend(tops, count, s, e, sc, word[s:e], keep)
        if not single and unk is not None:
            _extend(tops, count, s, s + 1, unk, word[s], keep)
    best = walk.final
    found = tops[n]
    if best is not None and all(p != best for _, p in found):
        found = [(walk.score, best), *found]  # a tie wider than the list: Viterbi's path still shows
    ranked = sorted(found, key=lambda t: (-t[0], t[1] != best))
    paths = []
    for sc, pieces in ranked[:max_paths]:
        tied = sum(1 for other, _ in found if math.isclose(other, sc, rel_tol=_TIE_TOL, abs_tol=_TIE_TOL)) > 1
        paths.append(LatticePath(pieces, sc, pieces == best, tied))
    return Lattice(word, snapshot.round, count[n], tuple(paths), walk)


def _extend(tops, count, s, e, sc, piece, keep):
    count[e] += count[s]
    cur = tops[e]
    for base, pieces in tops[s]:
        cur.append((base + sc, pieces + (piece,)))
    if len(cur) > keep:
        cur.sort(key=lambda t: -t[0])  # stable: among equals the path found first stays first
        del cur[keep:]
    else:
        cur.sort(key=lambda t: -t[0])


def _cell(piece: str) -> str:
    """A piece on the lattice's character grid: exactly as wide as its letters (1.3 em each), so
    the cuts of every path line up under each other. Colored and bordered like a chip."""
    if piece.startswith("\u2581"):
        inner = (f'<span class="bpe-marker" style="color:#555;opacity:0.7">\u2581</span>{_e(piece[1:])}')
    else:
        inner = _e(piece)
    return (f'<span class="bpe-token bpe-lattice-cell" title="{_e(piece)}" style="display:inline-block;'
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
    size = _check_size(size)
    k = len(trace) - 1 if k is None else k
    snap = trace[k]
    lat = lattice_paths(snap, word, max_paths)
    walk = lat.walkthrough
    course = trace.flavour == "hf-course"
    head = (f'<div class="bpe-lattice-title" style="font-weight:700">Every way to cut &ldquo;{short_label(lat.word)}&rdquo;'
            f" at round {lat.round:,}: {lat.total:,} way{'s' if lat.total != 1 else ''}</div>")
    rule = ("P(cut) = the product of its pieces' probabilities; Viterbi finds the most probable cut "
            "prefix by prefix (the best cut of each prefix is the best cut of a shorter prefix plus one piece).")
    parts = [head, f'<div style="color:#555;font-size:0.85em">{_e(rule)}</div>']
    # 1. the prefix table (Viterbi's work)
    prow = []
    for prefix, cut, score, tied in walk.prefixes:
        if cut is None:
            prow.append([_e(prefix), '<span style="color:#555">no cut</span>', "", ""])
            continue
        prow.append([short_label(prefix), "".join(_chip(p) for p in cut), _e(f"{math.exp(score):.6g}"),
                     _tie_badge() if tied else ""])
    parts.append(_table("Viterbi, prefix by prefix: the best cut of each", ["prefix", "best cut", "P", ""], prow,
                        cls="bpe-prefix-table", numeric=(2,)))
    # 2. the full cuts
    if lat.total == 0 or not lat.paths:
        missing = sorted({c for c in lat.word if c not in snap.pieces})
        msg = (f"No way to cut it: no piece of this vocabulary holds {', '.join(missing)}"
               if missing else "No way to cut it with these pieces")
        parts.append(f'<div class="bpe-message bpe-no-cut" style="color:#C00000;font-weight:600">{_e(msg)}'
                     " (the engine gives &lt;unk&gt;).</div>")
        return _box("".join(parts), "bpe-lattice", size)
    best_score = lat.paths[0].score
    headers = ["#", "cut", "P", "−log P"] + (["the course prints"] if course else []) + [""]
    rows, classes, styles = [], [], []
    for i, p in enumerate(lat.paths, 1):
        notes = []
        if p.viterbi:
            notes.append('<span class="bpe-keeps" style="font-weight:700">&larr; Viterbi keeps this</span>')
        if p.tied:
            notes.append(_tie_badge())
        cells = [str(i), _aligned_chips(p.pieces), _e(f"{math.exp(p.score):.6g}"), _e(f"{-p.score:.4f}")]
        if course:
            cells.append(_e(f"{1 - p.score:.4f}"))
        cells.append(" ".join(notes))
        rows.append(cells)
        classes.append("bpe-lattice-path" + (" bpe-viterbi" if p.viterbi else "") + (" bpe-tied" if p.tied else ""))
        styles.append(_CHOSEN_STYLE if p.viterbi else "")
    n_best = sum(1 for p in lat.paths if math.isclose(p.score, best_score, rel_tol=_TIE_TOL, abs_tol=_TIE_TOL))
    caption = f"the {len(lat.paths):,} most probable of {lat.total:,}"
    if n_best > 1:
        caption += (f'; <span class="bpe-tie-note" style="font-weight:600">{n_best} ways tie for the best: '
                    "Viterbi keeps the first it found (at each position it meets the longest last piece first).</span>")
    if course:
        caption += ". The course's encode_word prints 1 + (−log P): it starts each word's score at 1."
    parts.append(_table("The cuts, most probable first", headers, rows, cls="bpe-lattice-table",
                        more=lat.total - len(lat.paths), caption=caption, row_classes=classes,
                        row_styles=styles, numeric=(0, 2, 3, 4) if course else (0, 2, 3)))
    if walk.tied:
        parts.append(f'<div class="bpe-lattice-final" style="margin-top:0.3em"><span style="font-weight:700">'
                     f'Viterbi:</span> {"".join(_chip(p) for p in walk.final)}'
                     f'<span class="bpe-tie" style="{_TIE_BADGE_STYLE}">tie!</span></div>')
    elif walk.final is not None:
        parts.append(f'<div class="bpe-lattice-final" style="margin-top:0.3em"><span style="font-weight:700">'
                     f'Viterbi:</span> {"".join(_chip(p) for p in walk.final)}</div>')
    return _box("".join(parts), "bpe-lattice", size)


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
    size = _check_size(size)
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
    return _box(_table(title, headers, rows, cls="bpe-cuts-table", caption="(n): the number of tokens"),
                "bpe-cuts", size)
