"""Pure HTML rendering: colored token segments, the merge just made, and the three tables.

Every function here takes plain engine values (a :class:`~bpe_viz.engine.merges.trace.Snapshot`, a
:class:`~bpe_viz.engine.merges.trace.Merge`, an :class:`~bpe_viz.engine.encoding.Encoding`, a tuple of symbols) and
returns an HTML **string**; nothing is displayed, printed or stored. :mod:`bpe_viz.view.charts` is the
matplotlib sibling; :mod:`bpe_viz.widgets` only puts these strings into widgets.

The HTML is plain and safe for a classroom projector and for nbval:

* inline styles only: no ``<script>``, no ``<style>`` block, no CDN, no random ids, so the same
  input always gives the same bytes;
* every token, word and message goes through :func:`html.escape` (text and attributes);
* a token's color comes from its identity (:func:`token_color`), so ``est`` keeps its color while
  the slider moves; every token also has a visible border, so color is never the only cue;
* markers (``</w>``, ``_``, WordPiece's ``##``) are dimmed, never hidden; a byte-level token
  shows the text its bytes spell, spaces and newlines as visible marks (``␣``, ``↵``) instead of
  GPT-2's ``Ġ`` and ``Ċ``, and bytes that are half a character as ``<e3 81>``;
* unknown characters get a red dashed outline and an "unk" label;
* class names (``bpe-token``, ``bpe-marker``, ``bpe-unk``, ``bpe-merge``, ``bpe-tie``,
  ``bpe-chosen``, ``bpe-more``, ``bpe-error`` ...) let browser tests find the parts.

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
    >>> out = segmentation_html(trace[3], ["widest"])
    >>> "est</w>" in out, "est&lt;/w&gt;" in out   # escaped, never raw HTML
    (False, True)
"""

from __future__ import annotations

import html
import hashlib
import re

from ..engine.text.alphabet import BYTE_SET, symbols_to_bytes
import weakref
from collections.abc import Sequence
from fractions import Fraction

__all__ = [
    "PALETTE",
    "token_color",
    "token_html",
    "segments_html",
    "segmentation_html",
    "words_table_html",
    "pairs_table_html",
    "vocab_table_html",
    "merge_html",
    "tied_pairs",
    "snapshot_html",
    "walkthrough_html",
    "error_html",
    "message_html",
    "step_header_html",
    "stop_note",
    "trace_html",
    "short_label",
    "image_html",
    "page_html",
]

#: Paul Tol's "light" qualitative scheme (https://personal.sron.nl/~pault/#sec:qualitative),
#: without its pale grey. Why this palette and not "a hash -> any hue":
#: it was designed for *labelled regions with black text on them* (our token chips), every color
#: keeps black text readable (contrast well above WCAG AA), and it stays distinguishable under
#: the common color-vision deficiencies. A free hue would give more colors, but neighbouring
#: hues look the same to many students and on a washed-out projector. With 8 colors two
#: different tokens can share one; that is fine because every token has a border too (and a
#: hover title), so color is a help for following a token across steps, never the only cue.
PALETTE: tuple[str, ...] = (
    "#77AADD",  # light blue
    "#99DDFF",  # light cyan
    "#44BB99",  # mint
    "#BBCC33",  # pear
    "#AAAA00",  # olive
    "#EEDD88",  # light yellow
    "#EE8866",  # orange
    "#FFAABB",  # pink
)

_BASE_PX = 14  # font size at size=1.0; size=2.0 doubles everything (all other lengths are em)

# Long input is cut, never drawn whole: a pasted text without spaces is a single "word", and
# 20,000 chips of it made 11 MB of HTML per slider step and a table 178,575 px wide.
#: Chips shown for one word (a table cell, a walkthrough line); then "… N more".
MAX_CHIPS = 40
#: Tokens shown for a sentence (:func:`segments_html`); then "… N more tokens".
MAX_SENTENCE_TOKENS = 200
#: Characters of a word label (:func:`short_label`); then "… N more letters".
MAX_LABEL_CHARS = 40
#: Characters drawn inside one chip; then "…+N" (the hover title has the token, cut at 120).
MAX_TOKEN_CHARS = 32
_MAX_TITLE_LINE = 120


def _clip_lines(title: str, n: int = _MAX_TITLE_LINE) -> str:
    """A hover title with every line cut to ``n`` characters."""
    return "\n".join(line if len(line) <= n else line[:n] + f"… ({len(line):,} characters)"
                     for line in title.split("\n"))


_MARKER_COLOR = "#555"
_BORDER = "1px solid #333"
_UNK_COLOR = "#C00000"


def token_color(token: str) -> str:
    """The background color of a token: a stable hash of its text picks a :data:`PALETTE` entry.

    The same token gets the same color at every step, in every table and in every session
    (``hashlib.blake2b`` is stable; Python's ``hash()`` is salted per process and would not be).

    Example::

        >>> token_color("est") == token_color("est")
        True
        >>> token_color("est") in PALETTE
        True
    """
    if not isinstance(token, str):
        raise TypeError(f"token must be a str, got {type(token).__name__} {token!r}")
    # subtle: not crc32. CRC is linear, so its low bits put whole families of one-letter tokens
    # on the same color (u, g, p and b all collide); a real hash mixes every bit.
    digest = hashlib.blake2b(token.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return PALETTE[int.from_bytes(digest, "big") % len(PALETTE)]


# -- small helpers --------------------------------------------------------------------------


def _e(value) -> str:
    """Escape any value as text (quotes included, so it is safe in attributes too)."""
    return html.escape(str(value), quote=True)


def _check_size(size) -> float:
    if isinstance(size, bool) or not isinstance(size, (int, float)):
        raise TypeError(f"size must be a number like 1.0 (normal) or 2.0 (projector), got {size!r}")
    if not 0.25 <= size <= 6:
        raise ValueError(f"size must be between 0.25 and 6 (1.0 is normal), got {size}")
    return float(size)


def _check_rows(max_rows) -> int | None:
    if max_rows is None:
        return None
    if isinstance(max_rows, bool) or not isinstance(max_rows, int):
        raise TypeError(f"max_rows must be an int or None, got {type(max_rows).__name__} {max_rows!r}")
    if max_rows < 1:
        raise ValueError(f"max_rows must be >= 1, got {max_rows}")
    return max_rows


def _box(inner: str, cls: str, size: float, extra_style: str = "") -> str:
    """A container whose font size sets the scale of everything inside (all lengths are em)."""
    px = f"{_BASE_PX * size:.1f}".rstrip("0").rstrip(".")
    return (
        f'<div class="{cls}" style="font-size:{px}px;line-height:1.45;'
        f'font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;{extra_style}">'
        f"{inner}</div>"
    )


def _convention_of(trace):
    if trace is None:
        return None
    return getattr(trace, "convention", None)


def _marker_parts(token: str, convention) -> list[tuple[str, bool]]:
    """Split a token for display into (text, is_marker) runs: the convention's marker says where
    its marker is; byte-level traces also dim the symbols that stand for raw bytes.

    Example: "est</w>" -> [("est", False), ("</w>", True)]; "##ing" -> [("##", True), ("ing", False)].
    """
    if convention is None:
        return [(token, False)]
    runs = convention.marker.parts(token)
    if not convention.byte_level:
        return runs
    out: list[tuple[str, bool]] = []
    for text, is_marker in runs:
        out.extend([(text, True)] if is_marker else byte_runs(text))
    return out


#: how a byte-level token shows whitespace: visible marks instead of GPT-2's "Ġ" and "Ċ"
_VISIBLE = {" ": "\u2423", "\n": "\u21b5", "\t": "\u21e5", "\r": "\u240d"}


def byte_runs(symbols: str) -> list[tuple[str, bool]]:
    """A byte-level token as (text, dimmed) runs: the characters its bytes spell, with spaces,
    newlines and tabs as visible marks (dimmed); bytes that are not valid UTF-8 on their own
    (half of a Korean syllable) as their hex values, e.g. ``<e3 81>``.

    Example::

        >>> byte_runs("Ġthe")
        [('␣', True), ('the', False)]
        >>> byte_runs("ìķ")  # the first two of the three bytes of "안"
        [('<ec 95>', True)]
    """
    if not all(c in BYTE_SET for c in symbols):
        return [(symbols, False)]
    data = symbols_to_bytes(symbols)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return [("<" + " ".join(f"{b:02x}" for b in data) + ">", True)]
    runs: list[tuple[str, bool]] = []
    for ch in text:
        shown, dim = _VISIBLE.get(ch, ch), ch in _VISIBLE or not ch.isprintable()
        if dim and shown == ch:
            shown = "<" + " ".join(f"{b:02x}" for b in ch.encode("utf-8")) + ">"
        if runs and runs[-1][1] == dim:
            runs[-1] = (runs[-1][0] + shown, dim)
        else:
            runs.append((shown, dim))
    return runs


def word_label(word: str) -> str:
    """A word (a pre-tokenizer's piece) with its whitespace made visible: GPT-style pieces keep
    their leading space (" the") and newlines.

    Example::

        >>> word_label(" the"), word_label("\\n\\n")
        ('␣the', '↵↵')
    """
    return "".join(_VISIBLE.get(ch, ch) for ch in word)


def display_text(token: str, convention) -> str:
    """A token as the view draws it (byte-level: what its bytes spell, e.g. ``␣the``)."""
    return "".join(t for t, _ in _marker_parts(token, convention))


def _byte_title(token: str) -> str:
    """Hover text for a byte-level token: its GPT-2 spelling and the bytes it stands for."""
    if not token or not all(c in BYTE_SET for c in token):
        return ""
    data = symbols_to_bytes(token)
    return f"\nbytes: {' '.join(f'{b:02x}' for b in data)} (GPT-2 spells them {token})"


def _chip_style(color: str, *, emphasize: bool = False) -> str:
    border = "2px solid #000" if emphasize else _BORDER
    return (
        f"display:inline-block;background:{color};color:#000;border:{border};border-radius:0.25em;"
        "padding:0 0.3em;margin:0.12em 0.06em;font-family:monospace,monospace;white-space:pre;line-height:1.5"
    )


_UNK_STYLE = (
    f"display:inline-block;background:#FFF;color:{_UNK_COLOR};border:2px dashed {_UNK_COLOR};"
    "border-radius:0.25em;padding:0 0.3em;margin:0.12em 0.06em;font-family:monospace,monospace;"
    "white-space:pre;line-height:1.5;font-weight:bold"
)


def token_html(
    token: str,
    *,
    convention=None,
    title: str | None = None,
    unknown: bool = False,
    emphasize: bool = False,
) -> str:
    """One token as a colored, bordered chip; markers inside it dimmed. Text is escaped.

    ``title`` is the hover text (default: the token itself). ``unknown=True`` draws the red
    dashed "unk" chip instead. ``emphasize=True`` thickens the border (the token just made).

    Example::

        >>> token_html("<b>").endswith('title="&lt;b&gt;">&lt;b&gt;</span>')
        True
    """
    if title is None:
        title = token
    if convention is not None and convention.byte_level and not unknown:
        title += _byte_title(token)
    if len(title) > _MAX_TITLE_LINE:
        title = _clip_lines(title)
    if unknown:
        shown = token if len(token) <= MAX_TOKEN_CHARS else token[:MAX_TOKEN_CHARS] + "…"
        return (
            f'<span class="bpe-token bpe-unk" style="{_UNK_STYLE}" title="{_e(title)}">{_e(shown)}'
            '<sup class="bpe-unk-label" style="font-size:0.6em;margin-left:0.15em">unk</sup></span>'
        )
    inner = []
    left = MAX_TOKEN_CHARS  # subtle: a token merged from a pasted 20,000-letter word can be that long
    for text, dim in _marker_parts(token, convention):
        if left <= 0:
            break
        if len(text) > left:
            text = text[:left]
        left -= len(text)
        if dim:
            inner.append(
                f'<span class="bpe-marker" style="color:{_MARKER_COLOR};opacity:0.7;font-size:0.85em">'
                f"{_e(text)}</span>"
            )
        else:
            inner.append(_e(text))
    if left <= 0 and len(display_text(token, convention)) > MAX_TOKEN_CHARS:
        hidden = len(display_text(token, convention)) - MAX_TOKEN_CHARS
        inner.append(f'<span class="bpe-cut" style="color:{_MARKER_COLOR};font-size:0.8em">'
                     f"…+{hidden:,}</span>")
    cls = "bpe-token bpe-new" if emphasize else "bpe-token"
    return (
        f'<span class="{cls}" style="{_chip_style(token_color(token), emphasize=emphasize)}" '
        f'title="{_e(title)}">{"".join(inner)}</span>'
    )


class _TokenInfo:
    """Ids and 'made at' steps of a trace's tokens, for hover titles (public API only: the id
    layout differs between sources, so the step comes from ``trace.made_at_of_id``)."""

    def __init__(self, trace):
        self.trace = trace

    def describe(self, token: str) -> tuple[str, int | None]:
        tid = self.trace.token_to_id(token)
        if tid is None:
            return f"{token}\nnot in the vocabulary", None
        step = self.trace.made_at_of_id(tid)
        return self.title(token, tid, 0 if step is None else step), tid

    def title(self, token: str, tid, step) -> str:
        if step is None and tid is not None and token in self.trace.special_tokens:
            return f"{token}\nid {tid}\na special token: cut out first, never merged"
        if step is None:
            what = "unknown character: not seen in training" if len(token) == 1 else "not in the vocabulary"
            if self.trace.unk_id is None:
                return f"{token}\n{what}"
            return f"{token}\n{what} -> {self.trace.unk_token} (id {self.trace.unk_id})"
        if step == 0:
            made = "an initial symbol (step 0)"
        else:
            m = self.trace.merges[step - 1]
            made = f"made by merge {step}: ({m.pair[0]}, {m.pair[1]})"
        return f"{token}\nid {tid}\n{made}"


def _token_infos(trace):
    return _TokenInfo(trace) if trace is not None else None


def _symbol_chips(symbols, trace, convention, highlight=None, limit: int | None = None) -> str:
    """The chips of a word's symbols; past ``limit`` (default :data:`MAX_CHIPS`) "… N more"."""
    limit = MAX_CHIPS if limit is None else limit
    info = _token_infos(trace)
    out = []
    for s in symbols[:limit]:
        if info is not None:
            title, tid = info.describe(s)
            unknown = tid is None and trace is not None
        else:
            title, unknown = s, False
        out.append(
            token_html(s, convention=convention, title=title, unknown=unknown,
                       emphasize=highlight is not None and s == highlight)
        )
    if len(symbols) > limit:
        out.append(_more_html(len(symbols) - limit, "more"))
    return "".join(out)


_WORD_STYLE = "display:inline-block;white-space:nowrap;margin:0 0.45em 0.2em 0"
# a long word's chips may wrap: kept on one line, a 40-chip word is wider than a projector
_LONG_WORD_STYLE = "display:inline;margin:0 0.45em 0.2em 0"
_NOWRAP_CHIPS = 12
_MAX_CANDIDATES = 12  # learned pairs listed per walkthrough iteration


def _word_html(symbols, trace, convention, highlight=None) -> str:
    """One word's chips in a ``bpe-word`` span: kept on one line when short, wrapping when long."""
    style = _WORD_STYLE if len(symbols) <= _NOWRAP_CHIPS else _LONG_WORD_STYLE
    return f'<span class="bpe-word" style="{style}">{_symbol_chips(symbols, trace, convention, highlight)}</span>'


def _more_html(n: int, what: str) -> str:
    """The "… N more" note after a cut list (chips, tokens, letters)."""
    return (f'<span class="bpe-more" style="color:#555;font-style:italic;white-space:nowrap;'
            f'margin-left:0.2em">… {n:,} {_e(what)}</span>')


def short_label(word: str, limit: int | None = None) -> str:
    """A word label as HTML, cut after ``limit`` characters (default :data:`MAX_LABEL_CHARS`)
    with "… N more letters": a text without spaces is one word, and a label 20,000 letters long
    would make a table wider than any screen.

    Example::

        >>> short_label("lowest")
        'lowest'
        >>> plain = short_label("a" * 50, limit=3)
        >>> plain.startswith("aaa<span"), "… 47 more letters" in plain
        (True, True)
    """
    limit = MAX_LABEL_CHARS if limit is None else limit
    label = word_label(word)
    if len(label) <= limit:
        return _e(label)
    return _e(label[:limit]) + _more_html(len(label) - limit, "more letters")


def _is_encoding(obj) -> bool:
    return all(hasattr(obj, a) for a in ("pieces", "tokens", "ids", "word_ids", "unknown", "made_at"))


def segments_html(source, trace=None, *, size: float = 1.0, highlight=None) -> str:
    """Colored segments of an :class:`~bpe_viz.engine.encoding.Encoding` (``encode(text,
    trace)``), or of a tuple of symbols (``trace`` then adds ids to the hover titles).

    Each token is a bordered chip colored by :func:`token_color`; hovering shows the token, its
    id and the merge that made it. Markers are dimmed, unknown characters outlined in red.
    ``highlight`` thickens the border of one token (e.g. the one just made). ``size`` scales
    everything (2.0 for a projector).

    Example::

        >>> from bpe_viz import encode, train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> out = segments_html(encode("lowest", trace))
        >>> out.count('class="bpe-token'), "made by merge 5: (lo, w)" in out
        (2, True)
    """
    size = _check_size(size)
    if isinstance(source, str):
        # subtle: a str is also a sequence of one-character strings; say what to do instead
        raise TypeError(
            "segments_html takes an Encoding, not text: encode the text first, "
            "segments_html(encode(text, trace)) (encode(text, trace, k) for the first k merges)"
        )
    if _is_encoding(source):
        enc = source
        trace = getattr(enc, "trace", trace)
        convention = _convention_of(trace)
        info = _token_infos(trace)
        words: list[tuple[list[str], list[int]]] = []  # (chips drawn, [tokens in the word])
        last = None
        drawn = 0
        for piece, tok, tid, wid, unk, made in zip(
            enc.pieces, enc.tokens, enc.ids, enc.word_ids, enc.unknown, enc.made_at
        ):
            if wid != last:
                words.append(([], [0]))
                last = wid
            chips, n = words[-1]
            n[0] += 1
            # long text: draw MAX_CHIPS per word and MAX_SENTENCE_TOKENS in all, count the rest
            if len(chips) >= MAX_CHIPS or drawn >= MAX_SENTENCE_TOKENS:
                continue
            drawn += 1
            if unk:
                title = info.title(piece, tid, None) if info else f"{piece}\nunknown character"
            else:
                title = info.title(tok, tid, made) if info else f"{tok}\nid {tid}"
            chips.append(
                token_html(piece, convention=convention, title=title, unknown=unk,
                           emphasize=highlight is not None and piece == highlight)
            )
        parts, hidden_words, hidden_tokens = [], 0, 0
        for chips, (n,) in words:
            if not chips:
                hidden_words += 1
                hidden_tokens += n
                continue
            style = _WORD_STYLE if n <= _NOWRAP_CHIPS else _LONG_WORD_STYLE
            more = _more_html(n - len(chips), "more") if n > len(chips) else ""
            parts.append(f'<span class="bpe-word" style="{style}">{"".join(chips)}{more}</span>')
        if hidden_words:
            parts.append(_more_html(hidden_tokens, f"more tokens in {hidden_words:,} more "
                                                   f"word{'s' if hidden_words != 1 else ''}"))
        inner = "".join(parts)
        if not words:
            inner = '<span class="bpe-empty" style="color:#666">(no tokens: the text has no words)</span>'
        return _box(inner, "bpe-segments", size)
    if isinstance(source, Sequence) and all(isinstance(s, str) for s in source):
        return _box(_word_html(source, trace, _convention_of(trace), highlight), "bpe-segments", size)
    raise TypeError(
        "segments_html takes an Encoding (from encode), a tuple of symbols, or text with a trace; "
        f"got {type(source).__name__}"
    )


def segmentation_html(snapshot, words=None, *, max_words: int = 30, size: float = 1.0) -> str:
    """How a snapshot splits some words: ``word  →  colored symbols``, one line each.

    ``words``: which words (default: the corpus's first ``max_words``). A word not in the
    corpus is encoded with the snapshot's merges (``snapshot.encode``: the learned merges up to
    this step).

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
        >>> segmentation_html(trace[3], ["newest"]).count('class="bpe-token')
        4
    """
    size = _check_size(size)
    trace = snapshot.trace
    seg = snapshot.segmentation
    if words is None:
        words = list(seg)[:max_words]
    elif isinstance(words, str):
        words = words.split()
    highlight = snapshot.merge.token if snapshot.merge is not None else None
    convention = trace.convention
    rows = []
    for w in words:
        if w in seg:
            chips = _word_html(seg[w], trace, convention, highlight)
            note = ""
        else:
            chips = segments_html(snapshot.encode(w), highlight=highlight)
            note = ' <span style="color:#666;font-size:0.85em">(not in the corpus: encoded)</span>'
        rows.append(
            f'<div class="bpe-seg-row"><span class="bpe-seg-word" style="display:inline-block;'
            f'min-width:6em;font-weight:600">{short_label(w)}</span> &rarr; '
            f'{chips}{note}</div>'
        )
    return _box("".join(rows), "bpe-segmentation", size)


# -- tables -----------------------------------------------------------------------------------

_TABLE_STYLE = "border-collapse:collapse;margin:0.2em 0.8em 0.6em 0;font-size:1em"
_TH_STYLE = "text-align:left;padding:0.15em 0.5em;border-bottom:2px solid #333;font-weight:600"
_TD_STYLE = "padding:0.1em 0.5em;border-bottom:1px solid #DDD;vertical-align:middle"
_CHOSEN_STYLE = "background:#FFF3C4;font-weight:600"  # a pale yellow row + bold + a text label


def _table(title: str, headers, rows, *, cls: str, more: int = 0, caption: str = "",
           row_classes=None, row_styles=None, numeric=()) -> str:
    """One table: a title, a header row, body rows of ready HTML cells, then "… and N more"."""
    head = "".join(
        f'<th style="{_TH_STYLE}{";text-align:right" if i in numeric else ""}">{_e(h)}</th>'
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
        body.append(f'<tr class="{_e(rc)}" style="{rs}">{tds}</tr>' if rc or rs else f"<tr>{tds}</tr>")
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
    cap = f'<div class="bpe-caption" style="color:#555;font-size:0.85em">{caption}</div>' if caption else ""
    return (
        f'<div class="{cls}" style="display:inline-block;vertical-align:top">'
        f'<div class="bpe-table-title" style="font-weight:700;margin-top:0.3em">{_e(title)}</div>{cap}'
        f'<table style="{_TABLE_STYLE}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
        "</table></div>"
    )


_BY_COUNT: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _words_by_count(trace, words, counts):
    """Words, most frequent first (ties in corpus order); counts never change, so cache per trace."""
    cached = _BY_COUNT.get(trace)
    if cached is None or len(cached) != len(words):
        cached = sorted(words, key=lambda w: -counts[w])  # stable: equal counts keep corpus order
        try:
            _BY_COUNT[trace] = cached
        except TypeError:
            pass
    return cached


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
    size = _check_size(size)
    max_rows = _check_rows(max_rows)
    if sort not in ("auto", "corpus", "count"):
        raise ValueError(f"sort must be 'auto', 'corpus' or 'count', got {sort!r}")
    seg = snapshot.segmentation
    counts = snapshot.word_counts
    words = list(seg)
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
            _word_html(syms, trace, conv, highlight),
            str(len(syms)),
        ])
        classes.append("bpe-word-row bpe-changed" if changed else "bpe-word-row")
    caption = "most frequent words first" if by_count else "in corpus order"
    if highlight is not None:
        caption += f"; thick border: the token just made ({_e(display_text(highlight, conv))})"
    return _box(
        _table(f"Words at step {snapshot.step}", ["word", "count", "segmentation", "symbols"], rows,
               cls="bpe-words-table", more=n - len(shown), caption=caption, row_classes=classes,
               numeric=(1, 3)),
        "bpe-words", size,
    )


def _fraction_text(s: Fraction) -> str:
    return f"{float(s):.4g}"


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
    size = _check_size(size)
    max_rows = _check_rows(max_rows)
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
            n_top = 1 + len(nxt.tied)  # the engine knows who tied with the next merge
        else:
            n_top = sum(1 for p, c in snapshot.ranked_pairs if key_of(p, c) == top_key)
    info = _token_infos(trace)
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
            notes.append(
                '<span class="bpe-tie" style="border:1px solid #333;border-radius:0.3em;'
                'padding:0 0.3em;font-size:0.85em;background:#FFF">tie</span>'
            )
        a, b = pair
        pair_cell = (
            "(" + token_html(a, convention=conv, title=info.describe(a)[0])
            + ", " + token_html(b, convention=conv, title=info.describe(b)[0]) + ")"
        )
        cells = [str(i + 1), pair_cell, f"{count:,}"]
        if scored:
            s = key
            cells.append(f'<span title="{_e(f"{s.numerator}/{s.denominator}")}">{_fraction_text(s)}</span>')
        merged = conv.marker.join(a, b, conv.marker.text)
        cells.append(token_html(merged, convention=conv))
        cells.append(" ".join(notes))
        rows.append(cells)
        classes.append(" ".join(c for c in ("bpe-pair-row", "bpe-chosen" if chosen else "",
                                            "bpe-tied" if tie else "") if c))
        styles.append(_CHOSEN_STYLE if chosen else "")
    what = "score = count(ab) / (count(a)&middot;count(b)), best first" if scored else "most frequent first"
    caption = what
    if nxt is None:
        if snapshot.step == len(trace.merges):
            caption += f"; no next merge: {_e(trace.stopped_because)}"
    elif n_top > 1:
        caption += f"; {n_top} pairs tie, the tie rule takes the {_e(conv.tie_rule.takes)}"
    return _box(
        _table(f"Pairs at step {snapshot.step}", headers, rows, cls="bpe-pairs-table",
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
    size = _check_size(size)
    max_rows = _check_rows(max_rows)
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
    info = _token_infos(trace)
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
            str(tid),
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
        styles.append(_CHOSEN_STYLE if new else ("color:#777" if not e.occurs else ""))
    caption = "newest first" if order == "newest" else "by id"
    caption += f"; {n:,} tokens"
    return _box(
        _table(f"Vocabulary at step {snapshot.step}", ["id", "token", "made at", "frequency", ""],
               rows, cls="bpe-vocab-table", more=n - len(rows), caption=caption,
               row_classes=classes, row_styles=styles, numeric=(0, 3)),
        "bpe-vocab", size,
    )


# -- the merge, a whole snapshot, the encoder walkthrough ---------------------------------------

_TIE_BADGE_STYLE = (
    "display:inline-block;background:#FFF;color:#000;border:2px solid #000;border-radius:0.3em;"
    "padding:0 0.35em;margin-left:0.5em;font-weight:700"
)


def _merge_trace(merge, trace):
    if trace is not None:
        return trace
    return getattr(merge, "_trace", None)


def tied_pairs(merge, trace=None) -> tuple:
    """The pairs that had the same top count (or score) as ``merge`` just before it, in
    tie-rule order: ``merge.tied`` (the engine orders only those pairs, so this is cheap).

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
        >>> tied_pairs(trace.merges[0])
        (('s', 't'), ('t', '</w>'))
    """
    return tuple(merge.tied)


def merge_html(merge, *, trace=None, max_tied: int = 6, size: float = 1.0) -> str:
    """The merge just made: "merge 3: (es, t) → est, count 9", with "tie!" and the tied pairs.

    ``merge`` may be ``None`` (step 0: no merge yet). WordPiece merges also show their score.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
        >>> out = merge_html(trace.merges[1])
        >>> "tie!" in out, "merge 2:" in out
        (True, True)
    """
    size = _check_size(size)
    if merge is None:
        inner = (
            '<span class="bpe-merge-title" style="font-weight:700">step 0:</span> no merge yet '
            "&mdash; every word is split into its initial symbols"
        )
        return _box(inner, "bpe-merge bpe-merge-none", size, "padding:0.3em 0")
    trace = _merge_trace(merge, trace)
    conv = _convention_of(trace)
    a, b = merge.pair
    parts = [
        f'<span class="bpe-merge-title" style="font-weight:700">merge {merge.step}:</span> (',
        token_html(a, convention=conv), ", ", token_html(b, convention=conv),
        ") &rarr; ", token_html(merge.token, convention=conv, emphasize=True),
        f', count <span class="bpe-count">{merge.count:,}</span>',
    ]
    if merge.score is not None:
        s = merge.score
        parts.append(
            f', score <span class="bpe-score" title="{_e(f"{s.numerator}/{s.denominator}")}">'
            f"{_e(f'{s.numerator}/{s.denominator}')} &asymp; {_fraction_text(s)}</span>"
        )
    tied = tied_pairs(merge, trace)
    if tied:
        what = "score" if merge.score is not None else f"count {merge.count:,}"
        shown = ", ".join(
            "(" + token_html(p[0], convention=conv) + ", " + token_html(p[1], convention=conv) + ")"
            for p in tied[:max_tied]
        )
        more = f" and {len(tied) - max_tied:,} more" if len(tied) > max_tied else ""
        rule = ""
        if conv is not None:
            rule = f" &mdash; the tie rule took the {_e(conv.tie_rule.takes)}"
        parts.append(
            f'<span class="bpe-tie" style="{_TIE_BADGE_STYLE}">tie!</span>'
            f'<div class="bpe-tied" style="font-size:0.9em;margin-top:0.2em">same top {what}: '
            f"{shown}{more}{rule}</div>"
        )
    return _box("".join(parts), "bpe-merge", size, "padding:0.3em 0")


def snapshot_html(snapshot, *, max_rows: int = 10, size: float = 1.0) -> str:
    """Everything about one step: the merge just made, then the words, pairs and vocabulary
    tables side by side (each cut to ``max_rows``). ``Snapshot._repr_html_`` uses this.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
        >>> out = snapshot_html(trace[2])
        >>> "merge 2:" in out and "Pairs at step 2" in out
        True
    """
    size = _check_size(size)
    trace = snapshot.trace
    last = len(trace) - 1
    head = (
        f'<div class="bpe-step" style="font-weight:700;font-size:1.1em">Step {snapshot.step} of {last}</div>'
        f'<div class="bpe-convention" style="color:#555;font-size:0.85em">{_e(trace.convention.describe())}</div>'
    )
    stop = ""
    if snapshot.step == last and trace.stop_reason != "running":
        stop = (f'<div class="bpe-stop" style="color:#555">training stopped here: '
                f"{_e(trace.stopped_because)}</div>")
    tables = (
        '<div class="bpe-tables" style="display:flex;flex-wrap:wrap;align-items:flex-start">'
        + words_table_html(snapshot, max_rows)
        + pairs_table_html(snapshot, max_rows)
        + vocab_table_html(snapshot, max_rows, order="newest")
        + "</div>"
    )
    return _box(head + merge_html(snapshot.merge, trace=trace) + stop + tables, "bpe-snapshot", size)


def _pair_candidate_html(cand, conv, chosen_pair) -> str:
    """One BPE encoder candidate ((a, b), rank); the chosen one highlighted."""
    (a, b), rank = cand
    chosen = chosen_pair is not None and (a, b) == tuple(chosen_pair)
    body = (f"({token_html(a, convention=conv)}, {token_html(b, convention=conv)}) "
            f'<span class="bpe-rank">rank {_e(rank)}</span>')
    if chosen:
        return f'<span class="bpe-candidate bpe-chosen" style="{_CHOSEN_STYLE};padding:0 0.2em">{body}</span>'
    return f'<span class="bpe-candidate">{body}</span>'


def _piece_candidates_html(step, conv) -> tuple[str, str]:
    """WordPiece encoder iteration: the pieces tried (longest first) and the one taken."""
    taken = step.result[len(step.symbols)] if len(step.result) > len(step.symbols) else None
    tried = []
    for cand in step.candidates:
        piece = cand[0] if isinstance(cand, tuple) else cand
        if piece == taken:
            tried.append(
                f'<span class="bpe-candidate bpe-chosen" style="{_CHOSEN_STYLE};padding:0 0.2em">'
                f"{token_html(piece, convention=conv)} in the vocabulary</span>"
            )
        else:
            tried.append(
                f'<span class="bpe-candidate bpe-rejected" style="color:#555">'
                f"{token_html(piece, convention=conv)} not in it</span>"
            )
    if taken is None:
        action = "no piece fits: the whole word becomes the unknown token"
    else:
        action = f"take {token_html(taken, convention=conv)}"
    return " ".join(tried), action


def walkthrough_html(walkthrough, *, trace=None, upto: int | None = None, size: float = 1.0) -> str:
    """The encoder's iterations on one word: the symbols, the learned pairs present with their
    ranks, the lowest-rank pair merged, the result; then the final segmentation.

    ``upto`` shows only the first ``upto`` iterations (the explorer's iteration slider).
    ``trace`` (optional) adds ids to the hover titles and dims the convention's markers.

    Example::

        >>> from bpe_viz import train_bpe
        >>> from bpe_viz import encode_word
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> out = walkthrough_html(encode_word("lowest", trace), trace=trace)
        >>> out.count('<li class="bpe-iteration"'), "rank 1" in out
        (5, True)
    """
    size = _check_size(size)
    conv = _convention_of(trace)
    steps = list(walkthrough.steps)
    n = len(steps)
    if upto is None:
        upto = n
    if isinstance(upto, bool) or not isinstance(upto, int) or upto < 0:
        raise ValueError(f"upto must be an int >= 0, got {upto!r}")
    upto = min(upto, n)
    greedy = walkthrough.longest_match
    k = walkthrough.num_merges
    head = (
        f'<div class="bpe-walk-title" style="font-weight:700">Encoding &ldquo;{short_label(walkthrough.word)}&rdquo; '
        f"with the first {k:,} merge{'s' if k != 1 else ''}</div>"
    )
    rule = getattr(walkthrough, "rule", None) or (
        "greedy longest match: the longest vocabulary piece at the start of what is left"
        if greedy else
        "each iteration merges the learned pair with the lowest rank (learned first), everywhere in the word"
    )
    parts = [head, f'<div style="color:#555;font-size:0.85em">{rule}</div>']
    initial = tuple(getattr(walkthrough, "initial", steps[0].symbols if steps else walkthrough.final))
    parts.append(
        '<div class="bpe-walk-start" style="margin:0.3em 0">start: '
        + f'{_word_html(initial, trace, conv)}</div>'
    )
    items = []
    for i, s in enumerate(steps[:upto], 1):
        if s.pair is None:
            cands, action = _piece_candidates_html(s, conv)
            label = "tried, longest first"
        else:
            cands = " ".join(_pair_candidate_html(c, conv, s.pair) for c in s.candidates[:_MAX_CANDIDATES])
            if len(s.candidates) > _MAX_CANDIDATES:
                cands += _more_html(len(s.candidates) - _MAX_CANDIDATES, "more")
            a, b = s.pair
            action = (f"merge ({token_html(a, convention=conv)}, {token_html(b, convention=conv)}) "
                      f'<span class="bpe-rank">rank {_e(s.rank)}</span>')
            label = "pieces neighbours make" if getattr(walkthrough, "rule", None) else "learned pairs present"
        result = _word_html(s.result, trace, conv)
        items.append(
            f'<li class="bpe-iteration" style="margin:0.25em 0"><div>{label}: {cands or "(none)"}</div>'
            f"<div>{action} &rarr; {result}</div></li>"
        )
    if items:
        parts.append(f'<ol class="bpe-iterations" style="margin:0.2em 0;padding-left:1.6em">{"".join(items)}</ol>')
    if upto >= n:
        end = "no learned pair left" if not greedy else "done"
        if n == 0 and len(initial) <= 1:
            end = "a single symbol: nothing to merge"
        elif n == 0:
            end = "no learned pair applies"
        parts.append(
            f'<div class="bpe-walk-final" style="margin-top:0.3em"><span style="font-weight:700">{end}:</span> '
            + f'{_word_html(walkthrough.final, trace, conv)}</div>'
        )
        if trace is not None:
            from .trees import walkthrough_trees_html  # subtle: here, as trees.py imports this module

            parts.append(walkthrough_trees_html(walkthrough, trace))
    else:
        parts.append(
            f'<div class="bpe-walk-more" style="color:#555;margin-top:0.3em">iteration {upto} of {n} '
            "&mdash; move the slider to continue</div>"
        )
    return _box("".join(parts), "bpe-walkthrough", size)


# -- messages -----------------------------------------------------------------------------------


def error_html(message, *, title: str = "This needs a fix", size: float = 1.0) -> str:
    """A readable error box (for a learner, not a traceback). ``message`` may be an exception.

    Example::

        >>> out = error_html(ValueError("num_merges must be >= 0, got -3"))
        >>> out.startswith('<div class="bpe-error"'), "got -3" in out
        (True, True)
    """
    size = _check_size(size)
    if isinstance(message, BaseException):
        message = str(message) or type(message).__name__
    inner = (
        f'<div class="bpe-error-title" style="font-weight:700">{_e(title)}</div>'
        f'<div class="bpe-error-message" style="white-space:pre-wrap">{_e(message)}</div>'
    )
    return _box(
        inner, "bpe-error", size,
        f"border:2px solid {_UNK_COLOR};border-left-width:0.5em;background:#FFF5F5;color:#000;"
        "padding:0.4em 0.7em;margin:0.3em 0;border-radius:0.3em",
    )


def message_html(message: str, *, size: float = 1.0) -> str:
    """A neutral one-line note (a header, "training…"), escaped like everything else.

    Example::

        >>> message_html("Step 2 of 10 <b>").endswith("Step 2 of 10 &lt;b&gt;</div>")
        True
    """
    size = _check_size(size)
    return _box(f"{_e(message)}", "bpe-message", size, "color:#333;padding:0.3em 0")


def _keep_quotes_whole(escaped: str) -> str:
    """Escaped text with every quoted part ("</w>", "sennrich2016") kept on one line: a browser
    may break a line after the "/" inside "</w>"."""
    return re.sub(r"&quot;.*?&quot;", lambda m: f'<span style="white-space:nowrap">{m.group(0)}</span>', escaped)


def stop_note(trace, asked: int | None = None) -> str:
    """Why training stopped before the merges asked for, as a sentence; ``""`` when it did not
    stop early (``asked``: the merges asked for, when known).

    Example::

        >>> from bpe_viz import train_bpe
        >>> stop_note(train_bpe("low low lower", 100), asked=100)
        'Training stopped after 3 of the 100 merges asked for: no pair occurs at least min_frequency times (min_frequency 2).'
        >>> stop_note(train_bpe("low low lower", 2), asked=2)
        ''
    """
    if trace.stop_reason in ("num_merges", "running"):
        return ""
    n = len(trace.merges)
    if asked is not None and asked > n:
        done = f"{n:,} of the {asked:,} merges asked for"
    else:
        done = f"{n:,} merge{'s' if n != 1 else ''}"
    because = trace.stopped_because
    if trace.stop_reason == "min_frequency":
        because += f" (min_frequency {trace.convention.min_frequency})"
    return f"Training stopped after {done}: {because}."


def step_header_html(trace, step: int, *, asked: int | None = None, size: float = 1.0,
                     compact: bool = False) -> str:
    """The stepper's header: "Step k of N", the conventions, and why training stopped when it
    stopped before the ``asked`` merges (on every step: it explains why N is small).
    ``compact``: the conventions in a smaller font (a projector, where the header would take
    three lines).

    Example::

        >>> from bpe_viz import train_bpe
        >>> out = step_header_html(train_bpe("low low lower", 100), 2, asked=100)
        >>> "Step 2 of 3" in out, "stopped after 3 of the 100" in out, "white-space:nowrap" in out
        (True, True, True)
    """
    size = _check_size(size)
    last = len(trace) - 1
    small = ' style="font-size:0.6em"' if compact else ""
    inner = (f'<span class="bpe-step" style="font-weight:700">Step {step} of {last}</span> &mdash; '
             f'<span class="bpe-convention"{small}>{_keep_quotes_whole(_e(trace.convention.describe()))}</span>')
    note = stop_note(trace, asked)
    if note:
        inner += f'<div class="bpe-stop" style="font-weight:600">{_e(note)}</div>'
    return _box(inner, "bpe-message bpe-header", size, "color:#333;padding:0.3em 0")


# -- a step on a slide: standalone pages ------------------------------------------------------

_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def image_html(png: bytes, *, alt: str, scale: float = 1.0, cls: str = "bpe-chart") -> str:
    """A PNG inline, as an ``<img>`` with a ``data:`` URI (no file beside it, nothing fetched).

    ``scale`` sets the shown size from the PNG's own pixels (0.5: a chart drawn at twice the
    resolution, sharp on a projector or a high-density screen); never wider than the page.

    Example::

        >>> from matplotlib.figure import Figure
        >>> from bpe_viz.view.charts import figure_png
        >>> fig = Figure(figsize=(2, 1)); _ = fig.add_subplot().plot([1, 2])
        >>> out = image_html(figure_png(fig, dpi=100), alt="a line", scale=0.5)
        >>> out.startswith('<img class="bpe-chart" alt="a line" width="100" height="50"'), "data:image/png;base64," in out
        (True, True)
    """
    import base64

    if not isinstance(png, (bytes, bytearray)) or not bytes(png[:8]) == _PNG_MAGIC:
        raise ValueError(f"png must be the bytes of a PNG image, got {type(png).__name__} {bytes(png[:8])!r}"
                         if isinstance(png, (bytes, bytearray)) else
                         f"png must be the bytes of a PNG image, got {type(png).__name__}")
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale <= 4:
        raise ValueError(f"scale must be a number between 0 and 4 (1.0: the PNG's own pixels), got {scale!r}")
    width = int.from_bytes(png[16:20], "big")  # the IHDR chunk: width, then height
    height = int.from_bytes(png[20:24], "big")
    data = base64.b64encode(bytes(png)).decode("ascii")
    return (f'<img class="{_e(cls)}" alt="{_e(alt)}" width="{round(width * scale)}" '
            f'height="{round(height * scale)}" style="max-width:100%;height:auto;display:block" '
            f'src="data:image/png;base64,{data}">')


def page_html(body: str, *, title: str, note: str = "") -> str:
    """A whole HTML document around a view (``body``: HTML made by this module): UTF-8, a
    title, a white page, a small ``note`` at the bottom. Inline styles only, no script, nothing
    fetched: it opens offline, from a USB stick, and prints like the widget looks.

    Example::

        >>> page = page_html(message_html("Step 5 of 10"), title="Step <5>")
        >>> page.startswith("<!DOCTYPE html>"), "<title>Step &lt;5&gt;</title>" in page, "<script" in page
        (True, True, False)
    """
    if not isinstance(body, str):
        raise TypeError(f"body must be an HTML string, got {type(body).__name__}")
    foot = (f'<footer class="bpe-note" style="margin-top:1.5em;color:#555;font-size:12px;'
            f'font-family:system-ui,sans-serif">{_e(note)}</footer>') if note else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(title)}</title>\n</head>\n"
        '<body style="margin:1.2em 1.5em;background:#FFF;color:#000">\n'
        f"{body}\n{foot}\n</body>\n</html>\n"
    )


_ALGORITHM_NAMES = {"bpe": "BPE", "wordpiece": "WordPiece", "unigram": "Unigram"}


def trace_html(trace, *, size: float = 1.0) -> str:
    """A training run in a sentence: what a notebook (and a Voilà app, which hides the code)
    shows for a trace instead of ``<Trace bpe: 3 merges on 1 distinct words; ...>``.

    Example::

        >>> from bpe_viz import train_bpe
        >>> out = trace_html(train_bpe("aaabdaaabac", 10, preset="hf-course"))
        >>> import re; re.sub("<[^>]+>", "", out).split(". ")[0]
        'A BPE training run: 3 merges on 1 distinct word'
    """
    size = _check_size(size)
    n, w = len(trace.merges), len(trace.words)
    algo = _ALGORITHM_NAMES.get(trace.convention.algorithm, trace.convention.algorithm)
    because = trace.stopped_because
    if trace.stop_reason == "min_frequency":
        because += f" (min_frequency {trace.convention.min_frequency})"
    inner = (
        f'A {_e(algo)} training run: <span style="font-weight:700">{n:,} merge{"s" if n != 1 else ""}</span> '
        f'on {w:,} distinct word{"s" if w != 1 else ""}. It stopped because {_e(because)}.'
        f'<div class="bpe-convention" style="color:#555;font-size:0.85em">'
        f"{_keep_quotes_whole(_e(trace.convention.describe()))}</div>"
    )
    return _box(inner, "bpe-trace", size, "padding:0.3em 0")
