"""A token as the views draw it: a colored, bordered chip with its markers dimmed, a word as a
row of chips, and the labels (a word with visible whitespace, a long word cut).

The kit's chip maker, for every family: a chip's color is the token's own
(:func:`~bpe_viz.view.kit.colors.token_color`), markers (``</w>``, ``##``, ``▁``) are dimmed,
never hidden; a byte-level token shows the text its bytes spell, spaces and newlines as visible
marks (``␣``, ``↵``) instead of GPT-2's ``Ġ`` and ``Ċ``, and bytes that are half a character as
``<e3 81>``; an unknown character gets a red dashed outline and an "unk" label. Long input is
cut, never drawn whole (:data:`MAX_CHIPS`, :data:`MAX_TOKEN_CHARS`, :data:`MAX_LABEL_CHARS`).

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
    >>> out = word_html(("w", "i", "d", "est</w>"), trace, trace.convention)
    >>> out.count('class="bpe-token'), 'class="bpe-marker"' in out
    (4, True)
"""

from __future__ import annotations

import unicodedata

from ...engine.text import BYTE_SET, symbols_to_bytes
from .colors import UNK_COLOR, token_color
from .html import esc, more_html

__all__ = ["MAX_CHIPS", "MAX_SENTENCE_TOKENS", "MAX_LABEL_CHARS", "MAX_TOKEN_CHARS", "convention_of", "byte_runs",
           "word_label", "display_text", "token_html", "TokenInfo", "token_infos", "word_span", "word_html",
           "short_label", "chart_label", "invisible_runs", "visible_chars"]

# Long input is cut, never drawn whole: a pasted text without spaces is a single "word", and
# 20,000 chips of it made 11 MB of HTML per slider step and a table 178,575 px wide.
#: Chips shown for one word (a table cell, a walkthrough line); then "… N more".
MAX_CHIPS = 40
#: Tokens shown for a sentence (:func:`~bpe_viz.view.merges.segments.segments_html`); then "… N more tokens".
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


def convention_of(trace):
    """The trace's convention (its markers, byte-level or not), or ``None`` without a trace."""
    if trace is None:
        return None
    return getattr(trace, "convention", None)


def _marker_parts(token: str, convention) -> list[tuple[str, bool]]:
    """Split a token for display into (text, is_marker) runs: the convention's marker says where
    its marker is; byte-level traces also dim the symbols that stand for raw bytes.

    Example: "est</w>" -> [("est", False), ("</w>", True)]; "##ing" -> [("##", True), ("ing", False)].
    """
    if convention is None:
        return _named_invisible([(token, False)])
    runs = convention.marker.parts(token)
    if not convention.byte_level:
        return _named_invisible(runs)
    out: list[tuple[str, bool]] = []
    for text, is_marker in runs:
        out.extend([(text, True)] if is_marker else byte_runs(text))
    return _named_invisible(out)


def _named_invisible(runs: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """``runs`` with the characters that draw as nothing in its plain runs named and dimmed."""
    if all(dim or visible_chars(text) == text for text, dim in runs):
        return runs
    out: list[tuple[str, bool]] = []
    for text, dim in runs:
        for part, hidden in ([(text, True)] if dim else invisible_runs(text)):
            _add_run(out, part, hidden)
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
        _add_run(runs, shown, dim)
    return runs


def _add_run(runs: list[tuple[str, bool]], text: str, dim: bool) -> None:
    """Append ``text`` to ``runs``, joined to the last run when it is dimmed alike."""
    if runs and runs[-1][1] == dim:
        runs[-1] = (runs[-1][0] + text, dim)
    else:
        runs.append((text, dim))


def _is_mark(ch: str) -> bool:
    return unicodedata.category(ch) in ("Mn", "Me")


def invisible_runs(text: str) -> list[tuple[str, bool]]:
    """``text`` as (text, invisible) runs: a character that draws as nothing is named by its
    code point, ``<U+200D>``, in a run of its own. That is every format character (Unicode
    category Cf: ZWJ, soft hyphen, word joiner, BOM) and a combining mark (an accent, VS16) with
    no letter before it in ``text``; an accent on its letter stays as it is.

    Example::

        >>> invisible_runs("\u200d\U0001f469")
        [('<U+200D>', True), ('👩', False)]
        >>> invisible_runs("e\u0301") == [("e\u0301", False)], invisible_runs("\ufe0f")
        (True, [('<U+FE0F>', True)])
    """
    runs: list[tuple[str, bool]] = []
    based = False  # a visible character came before: a combining mark sits on it
    for ch in text:
        hidden = unicodedata.category(ch) == "Cf" or (_is_mark(ch) and not based)
        shown = f"<U+{ord(ch):04X}>" if hidden else ch
        based = not hidden
        _add_run(runs, shown, hidden)
    return runs


def visible_chars(text: str) -> str:
    """``text`` with every character that draws as nothing named (:func:`invisible_runs`).

    Example::

        >>> visible_chars("co\u00adop"), visible_chars("low")
        ('co<U+00AD>op', 'low')
    """
    if text.isprintable() and (text.isascii() or not any(_is_mark(ch) for ch in text)):
        return text
    return "".join(t for t, _ in invisible_runs(text))


def word_label(word: str) -> str:
    """A word (a pre-tokenizer's piece) with its whitespace made visible: GPT-style pieces keep
    their leading space (" the") and newlines.

    Example::

        >>> word_label(" the"), word_label("\\n\\n")
        ('␣the', '↵↵')
    """
    # (four C scans: a text without spaces is one word, maybe 1,000,000 letters long)
    for ch, shown in _VISIBLE.items():
        word = word.replace(ch, shown)
    return word


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
    f"display:inline-block;background:#FFF;color:{UNK_COLOR};border:2px dashed {UNK_COLOR};"
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
        shown = visible_chars(token)  # an unknown ZWJ is named too (<U+200D>), not a blank chip
        shown = shown if len(shown) <= MAX_TOKEN_CHARS else shown[:MAX_TOKEN_CHARS] + "…"
        return (
            f'<span class="bpe-token bpe-unk" style="{_UNK_STYLE}" title="{esc(title)}">{esc(shown)}'
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
                f"{esc(text)}</span>"
            )
        else:
            inner.append(esc(text))
    if left <= 0 and len(display_text(token, convention)) > MAX_TOKEN_CHARS:
        hidden = len(display_text(token, convention)) - MAX_TOKEN_CHARS
        inner.append(f'<span class="bpe-cut" style="color:{_MARKER_COLOR};font-size:0.8em">'
                     f"…+{hidden:,}</span>")
    cls = "bpe-token bpe-new" if emphasize else "bpe-token"
    return (
        f'<span class="{cls}" style="{_chip_style(token_color(token), emphasize=emphasize)}" '
        f'title="{esc(title)}">{"".join(inner)}</span>'
    )


class TokenInfo:
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
        if tid is None and step == 0:  # SentencePiece: a character below character_coverage
            what = "no id: too rare a character, below character_coverage"
            if self.trace.unk_id is None:
                return f"{token}\n{what}"
            return f"{token}\n{what} -> {self.trace.unk_token} (id {self.trace.unk_id})"
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


def token_infos(trace):
    """A :class:`TokenInfo` of ``trace`` (``None`` without a trace)."""
    return TokenInfo(trace) if trace is not None else None


def _symbol_chips(symbols, trace, convention, highlight=None, limit: int | None = None) -> str:
    """The chips of a word's symbols; past ``limit`` (default :data:`MAX_CHIPS`) "… N more"."""
    limit = MAX_CHIPS if limit is None else limit
    info = token_infos(trace)
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
        out.append(more_html(len(symbols) - limit, "more"))
    return "".join(out)


_WORD_STYLE = "display:inline-block;white-space:nowrap;margin:0 0.45em 0.2em 0"
# a long word's chips may wrap: kept on one line, a 40-chip word is wider than a projector
_LONG_WORD_STYLE = "display:inline;margin:0 0.45em 0.2em 0"
_NOWRAP_CHIPS = 12


def word_span(chips: str, n: int) -> str:
    """A word's ``chips`` (``n`` tokens) in a ``bpe-word`` span: kept on one line when short,
    wrapping when long."""
    style = _WORD_STYLE if n <= _NOWRAP_CHIPS else _LONG_WORD_STYLE
    return f'<span class="bpe-word" style="{style}">{chips}</span>'


def word_html(symbols, trace, convention, highlight=None) -> str:
    """One word's chips in a ``bpe-word`` span (:func:`word_span`); ``trace`` adds ids and the
    merge that made each token to the hover titles."""
    return word_span(_symbol_chips(symbols, trace, convention, highlight), len(symbols))


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
    if len(word) <= limit:
        label = visible_chars(word_label(word))
        if len(label) <= limit:
            return esc(label)
        return esc(label[:limit]) + more_html(len(label) - limit, "more letters")
    # a long word: only its first letters are shown, so only they are spelled; the label's
    # length is counted (each character is spelled from those before it: the label of a
    # prefix is a prefix of the label)
    head = visible_chars(word_label(word[:limit]))[:limit]
    return esc(head) + more_html(_label_length(word) - limit, "more letters")


def _label_length(word: str) -> int:
    """``len(visible_chars(word_label(word)))``, at C speed when nothing in it is a format
    character: then only the combining marks at its start draw as nothing (one after a letter
    sits on it)."""
    label = word_label(word)
    if not label.isprintable():  # (a format character is never printable)
        return len(visible_chars(label))
    extra = 0
    for ch in label:
        if not _is_mark(ch):
            break
        extra += len(f"<U+{ord(ch):04X}>") - 1
    return len(label) + extra


def chart_label(token: str, n: int = 16) -> str:
    """A token cut for a chart label (a long token would squeeze the bars off the chart), its
    invisible characters named (:func:`visible_chars`)."""
    token = visible_chars(token)
    return token if len(token) <= n else token[: n - 1] + "…"
