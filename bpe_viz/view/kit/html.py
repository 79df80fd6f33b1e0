"""The HTML building blocks every view shares: escaping, the one size rule, the scaled box a view
sits in, tables, badges and the "… N more" note.

The kit is what the families' views (:mod:`bpe_viz.view.merges`, :mod:`bpe_viz.view.unigram`)
are made of; it knows nothing of merges, pieces or traces. Its siblings: :mod:`.colors` (the
palettes), :mod:`.chips` (a token as a chip, labels), :mod:`.pages` (error and message boxes,
images, whole pages), :mod:`.svg` (SVG charts' parts) and :mod:`.mpl` (matplotlib's).

Example::

    >>> esc('<b class="x">')
    '&lt;b class=&quot;x&quot;&gt;'
    >>> box("hi", "bpe-message", 2.0).startswith('<div class="bpe-message" style="font-size:28px;')
    True
"""

from __future__ import annotations

import html
import re
from fractions import Fraction

__all__ = ["BASE_PX", "esc", "check_size", "check_rows", "box", "more_html", "CHOSEN_STYLE", "TIE_BADGE_STYLE",
           "tie_badge", "tie_flag", "table_html", "fraction_text", "keep_quotes_whole"]

BASE_PX = 14  # font size at size=1.0; size=2.0 doubles everything (all other lengths are em)


def esc(value) -> str:
    """Escape any value as text (quotes included, so it is safe in attributes too)."""
    return html.escape(str(value), quote=True)


def check_size(size) -> float:
    """The one size rule of every view (HTML and SVG): a number from 0.25 to 6, 1.0 is normal
    (the explorers offer 1.0, 1.4 and 1.75, "projector").

    Example::

        >>> check_size(1.75)
        1.75
        >>> check_size(10)
        Traceback (most recent call last):
        ...
        ValueError: size must be between 0.25 and 6 (1.0 is normal), got 10
    """
    if isinstance(size, bool) or not isinstance(size, (int, float)):
        raise TypeError(f"size must be a number like 1.0 (normal) or 2.0 (projector), got {size!r}")
    if not 0.25 <= size <= 6:
        raise ValueError(f"size must be between 0.25 and 6 (1.0 is normal), got {size}")
    return float(size)


def check_rows(max_rows) -> int | None:
    """``max_rows`` of a table: an int >= 1, or ``None`` (every row)."""
    if max_rows is None:
        return None
    if isinstance(max_rows, bool) or not isinstance(max_rows, int):
        raise TypeError(f"max_rows must be an int or None, got {type(max_rows).__name__} {max_rows!r}")
    if max_rows < 1:
        raise ValueError(f"max_rows must be >= 1, got {max_rows}")
    return max_rows


def box(inner: str, cls: str, size: float, extra_style: str = "") -> str:
    """A container whose font size sets the scale of everything inside (all lengths are em)."""
    px = f"{BASE_PX * size:.1f}".rstrip("0").rstrip(".")
    return (
        f'<div class="{cls}" style="font-size:{px}px;line-height:1.45;'
        f'font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;{extra_style}">'
        f"{inner}</div>"
    )


def more_html(n: int, what: str) -> str:
    """The "… N more" note after a cut list (chips, tokens, letters)."""
    return (f'<span class="bpe-more" style="color:#555;font-style:italic;white-space:nowrap;'
            f'margin-left:0.2em">… {n:,} {esc(what)}</span>')


# -- tables and badges --------------------------------------------------------------------------

_TABLE_STYLE = "border-collapse:collapse;margin:0.2em 0.8em 0.6em 0;font-size:1em"
_TH_STYLE = "text-align:left;padding:0.15em 0.5em;border-bottom:2px solid #333;font-weight:600"
_TD_STYLE = "padding:0.1em 0.5em;border-bottom:1px solid #DDD;vertical-align:middle"
CHOSEN_STYLE = "background:#FFF3C4;font-weight:600"  # a pale yellow row + bold + a text label
TIE_BADGE_STYLE = (
    "display:inline-block;background:#FFF;color:#000;border:2px solid #000;border-radius:0.3em;"
    "padding:0 0.35em;margin-left:0.5em;font-weight:700"
)


def tie_badge(text: str = "tie") -> str:
    """The small "tie" mark in a table row (a pair or a piece tied with others)."""
    return (f'<span class="bpe-tie" style="border:1px solid #333;border-radius:0.3em;padding:0 0.3em;'
            f'font-size:0.85em;background:#FFF">{esc(text)}</span>')


def tie_flag() -> str:
    """The bold "tie!" after a choice the tie rule decided (a merge, a quiz answer, a cut)."""
    return f'<span class="bpe-tie" style="{TIE_BADGE_STYLE}">tie!</span>'


def table_html(title: str, headers, rows, *, cls: str, more: int = 0, caption: str = "",
               row_classes=None, row_styles=None, numeric=()) -> str:
    """One table: a title, a header row, body rows of ready HTML cells, then "… and N more"."""
    head = "".join(
        f'<th style="{_TH_STYLE}{";text-align:right" if i in numeric else ""}">{esc(h)}</th>'
        for i, h in enumerate(headers)
    )
    body = []
    for r, cells in enumerate(rows):
        rc = row_classes[r] if row_classes else ""
        rs = row_styles[r] if row_styles else ""
        tds = "".join(
            f'<td style="{_TD_STYLE}{";text-align:right" if i in numeric else ""}">{c}</td>'
            for i, c in enumerate(cells)
        )
        body.append(f'<tr class="{esc(rc)}" style="{rs}">{tds}</tr>' if rc or rs else f"<tr>{tds}</tr>")
    if more > 0:
        body.append(
            f'<tr class="bpe-more"><td colspan="{len(headers)}" style="{_TD_STYLE};color:#555;'
            f'font-style:italic">… and {more:,} more</td></tr>'
        )
    if not rows and not more:
        body.append(
            f'<tr class="bpe-empty"><td colspan="{len(headers)}" style="{_TD_STYLE};color:#555">'
            "(empty)</td></tr>"
        )
    # the caption keeps the table's right margin: wider than its table, it sets the block's width,
    # and the next table's caption (side by side) would touch it: "…was reachednewest first"
    cap = (f'<div class="bpe-caption" style="color:#555;font-size:0.85em;padding-right:0.95em">{caption}</div>'
           if caption else "")
    return (
        f'<div class="{cls}" style="display:inline-block;vertical-align:top">'
        f'<div class="bpe-table-title" style="font-weight:700;margin-top:0.3em">{esc(title)}</div>{cap}'
        f'<table style="{_TABLE_STYLE}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
        "</table></div>"
    )


def fraction_text(s: Fraction) -> str:
    """A WordPiece score as a short decimal (4 significant digits)."""
    return f"{float(s):.4g}"


def keep_quotes_whole(escaped: str) -> str:
    """Escaped text with every quoted part ("</w>", "sennrich2016") kept on one line: a browser
    may break a line after the "/" inside "</w>"."""
    return re.sub(r"&quot;.*?&quot;", lambda m: f'<span style="white-space:nowrap">{m.group(0)}</span>', escaped)
