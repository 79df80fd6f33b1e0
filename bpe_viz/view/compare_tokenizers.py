"""One text through several tokenizers, side by side: a row of chips per tokenizer, the places
where they cut differently marked, and a table of token counts across languages.

Unlike the family views (:mod:`.merges`, :mod:`.unigram`), which show one tokenizer's inner
workings step by step, this view puts finished tokenizers of any family next to each other
(real vocabularies from :func:`bpe_viz.load_tokenizer`, trained ones, readers' ones) and asks
each only the public questions: ``encode(text)`` (``ids``, ``tokens``, ``offsets``),
``describe()`` and ``unk_token``. It is the one view that encodes (a comparison *is* the
encodings); :func:`compare_tokenizers` does that part and :func:`comparison_html` only draws,
so an explorer can encode once and draw many times.

What a row shows: each token as a chip (:func:`~bpe_viz.view.kit.chips.token_html`: its color
from the token, markers dimmed, GPT-2's byte symbols shown as the text they spell); whitespace
and invisible characters made visible (``␣`` space, ``↵`` newline, ``⇥`` tab, ``<c2 a0>`` for a
no-break space, ``<e6 97>`` for the bytes of a character split between tokens); its token count
and characters per token. A character offset where some rows cut and others do not (see
:func:`boundaries`) gets a red bar in the rows that cut there, and a red tick in the text above.

Example::

    >>> from bpe_viz import train_bpe, train_wordpiece
    >>> corpus = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    >>> cmp = compare_tokenizers("lowest newer", {"bpe": train_bpe(corpus, 10),
    ...                                           "wordpiece": train_wordpiece(corpus, 10)})
    >>> [(r.name, r.count) for r in cmp.rows], cmp.disagreements
    ([('bpe', 6), ('wordpiece', 5)], (4, 10))
    >>> [r.encoding.tokens for r in cmp.rows]   # low|est vs low|e|st, new|e|r vs newe|r
    [['low', 'est</w>', 'new', 'e', 'r', '</w>'], ['low', '##e', '##st', 'newe', '##r']]
    >>> out = comparison_html(cmp)
    >>> out.count('class="bpe-differs"'), out.count('class="bpe-tick"')
    (2, 2)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from ..engine.protocol import Tokenizer, check_tokenizer
from ..engine.text import LANGUAGES
from ..engine.why import fallback_byte
from .kit import (VERMILLION, box, check_size, convention_of, display_text, esc, more_html, table_html, token_html,
                  word_label)

__all__ = ["MAX_COMPARE_CHARS", "TokenizerRow", "Comparison", "named_tokenizers", "check_text", "visible",
           "boundaries", "compare_tokenizers", "token_label", "comparison_html", "tokenizers_html",
           "language_table", "language_table_html"]

#: Characters of the text drawn as chips; tokens starting later are counted, not drawn.
MAX_COMPARE_CHARS = 5_000
_MAX_NAME = 40
_BAR = (f"display:inline-block;width:0.22em;height:1.5em;margin:0.12em 0.08em;vertical-align:middle;"
        f"background:{VERMILLION};border-radius:0.1em")
_TICK = f"display:inline-block;width:0;height:1.45em;vertical-align:-0.4em;border-left:0.2em solid {VERMILLION}"
_HEAD = "font-weight:600;margin:0.5em 0 0.1em 0"
_NOTE = "color:#444;font-weight:400;font-size:0.9em"


@dataclass(frozen=True)
class TokenizerRow:
    """One tokenizer's encoding of the text, and the character offsets where it cuts."""

    name: str
    tokenizer: Tokenizer
    encoding: object  # what tokenizer.encode(text) returned
    boundaries: frozenset

    @property
    def count(self) -> int:
        """Tokens (ids) in the encoding."""
        return len(self.encoding.ids)


@dataclass(frozen=True)
class Comparison:
    """The text, one :class:`TokenizerRow` per tokenizer, and ``disagreements``: the character
    offsets that are a boundary of some rows but not of all (sorted)."""

    text: str
    rows: tuple
    disagreements: tuple

    def row(self, name: str) -> TokenizerRow:
        """The row of the tokenizer called ``name``."""
        for r in self.rows:
            if r.name == name:
                return r
        raise ValueError(f"name must be one of {[r.name for r in self.rows]}, got {name!r}")


def _short_name(tokenizer) -> str:
    """A name from ``describe()``: its first clause, cut ("BPE (tiktoken)")."""
    first = tokenizer.describe().split("\n", 1)[0].split(";", 1)[0].strip() or type(tokenizer).__name__
    return first if len(first) <= _MAX_NAME else first[: _MAX_NAME - 1] + "…"


def named_tokenizers(tokenizers) -> dict:
    """``tokenizers`` as a dict name -> tokenizer, checked: a dict is kept (names must be
    non-empty str), a list or tuple (or one tokenizer) is named by each one's ``describe()``
    (its first clause, numbered when two agree).

    Example::

        >>> from bpe_viz import train_bpe
        >>> t = train_bpe("low lower", 2)
        >>> list(named_tokenizers([t, t]))
        ['BPE', 'BPE (2)']
        >>> named_tokenizers({"mine": "gpt2"})
        Traceback (most recent call last):
        ...
        TypeError: tokenizers['mine'] must be a trained tokenizer (from train_bpe, ...), got str
    """
    if isinstance(tokenizers, Tokenizer):
        tokenizers = [tokenizers]
    if isinstance(tokenizers, Mapping):
        out = {}
        for name, tok in tokenizers.items():
            if not isinstance(name, str) or not name.strip():
                raise TypeError(f"tokenizers: every name must be a non-empty str, got {name!r}")
            out[name] = check_tokenizer(tok, f"tokenizers[{name!r}]")
    elif isinstance(tokenizers, (list, tuple)):
        out = {}
        for i, tok in enumerate(tokenizers):
            name = _short_name(check_tokenizer(tok, f"tokenizers[{i}]"))
            k, unique = 1, name
            while unique in out:
                k += 1
                unique = f"{name} ({k})"
            out[unique] = tok
    else:
        raise TypeError("tokenizers must be a dict name -> tokenizer (or a list of tokenizers), "
                        f"got {type(tokenizers).__name__}")
    if not out:
        raise ValueError("tokenizers must hold at least one tokenizer, got none")
    return out


def check_text(text, argname: str = "text") -> str:
    """``text`` if it is a str every tokenizer can encode (a lone surrogate, half of a UTF-16
    pair, has no UTF-8 bytes), or a ``TypeError``/``ValueError`` naming ``argname``.

    Example::

        >>> check_text("a\\ud800b")
        Traceback (most recent call last):
        ...
        ValueError: text: character 2 is U+D800, a lone surrogate (half of a UTF-16 pair), which has no UTF-8 bytes; remove it
    """
    if not isinstance(text, str):
        raise TypeError(f"{argname} must be a str, got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{argname}: character {exc.start + 1:,} is U+{ord(text[exc.start]):04X}, a lone surrogate "
                         "(half of a UTF-16 pair), which has no UTF-8 bytes; remove it") from None
    return text


def visible(text: str) -> str:
    """``text`` with whitespace and invisible characters made visible: ``␣ ↵ ⇥ ␍``, and any
    other character that prints as nothing (a no-break space, a control character, a zero-width
    joiner) as its UTF-8 bytes in hex.

    Example::

        >>> visible("a b\\tc\\u00a0d\\x00")
        'a␣b⇥c<c2 a0>d<00>'
    """
    shown = word_label(text)
    if shown.isprintable():
        return shown
    return "".join(ch if ch.isprintable() else "<" + " ".join(f"{b:02x}" for b in ch.encode("utf-8")) + ">"
                   for ch in shown)


def boundaries(offsets, length: int) -> frozenset:
    """The character offsets where an encoding cuts the text: every start and end of a token,
    except the ends of the text (0 and ``length``) and offsets strictly inside a token (a
    character split into bytes between tokens is one unit here).

    Example::

        >>> sorted(boundaries([(0, 3), (4, 7)], 7))   # "the cat" without the space
        [3, 4]
        >>> sorted(boundaries([(0, 1), (0, 1), (1, 3), (2, 3)], 3))  # bytes of one character
        [1]
    """
    cuts = set()
    for s, e in offsets:
        cuts.add(s)
        cuts.add(e)
    inside = set()
    for s, e in offsets:
        if e - s > 1:
            inside.update(range(s + 1, e))
    cuts -= inside
    cuts.discard(0)
    cuts.discard(length)
    return frozenset(cuts)


def compare_tokenizers(text, tokenizers) -> Comparison:
    """Encode ``text`` with every tokenizer (``tokenizers``: see :func:`named_tokenizers`) and
    find where they disagree: offsets in some rows' :func:`boundaries` but not in all.

    Example::

        >>> from bpe_viz import train_bpe
        >>> cmp = compare_tokenizers("low lowest", [train_bpe("low low lowest", 3)])
        >>> cmp.rows[0].count, cmp.disagreements   # one tokenizer never disagrees with itself
        (6, ())
    """
    text = check_text(text)
    named = named_tokenizers(tokenizers)
    rows = []
    for name, tok in named.items():
        enc = tok.encode(text)
        if not hasattr(enc, "offsets"):
            raise TypeError(f"tokenizers[{name!r}]: its encoding ({type(enc).__name__}) has no character offsets, "
                            "so its cuts cannot be placed in the text")
        rows.append(TokenizerRow(name, tok, enc, boundaries(enc.offsets, len(text))))
    union = frozenset().union(*(r.boundaries for r in rows))
    common = frozenset.intersection(*(r.boundaries for r in rows))
    return Comparison(text, tuple(rows), tuple(sorted(union - common)))


def _byte_level(tokenizer) -> bool:
    conv = convention_of(tokenizer)
    return conv is not None and conv.byte_level


def token_label(tokenizer, token: str) -> str:
    """A token as a row draws it, in plain text: byte-level tokens as the text their bytes spell
    (``Ġthe`` -> ``␣the``), others with whitespace made visible (:func:`visible`).

    Example::

        >>> from bpe_viz import train_bpe
        >>> token_label(train_bpe("the cat", 2, preset="cs336"), "Ġthe")
        '␣the'
    """
    if _byte_level(tokenizer):
        return display_text(token, convention_of(tokenizer))
    return visible(token)


def _token_bytes(token: str, covers: str, byte_level: bool) -> str:
    if byte_level:
        return ""  # token_html adds them (and GPT-2's spelling) itself
    b = fallback_byte(token)
    raw = bytes([b]) if b is not None else covers.encode("utf-8")
    return "\nbytes: " + (" ".join(f"{x:02x}" for x in raw) if raw else "none")


class _Chips:
    """One row's chips, each id's drawn once (a text repeats its tokens: spaces, bytes, words)."""

    def __init__(self, row: TokenizerRow):
        tok = row.tokenizer
        self.name, self.conv, self.byte_level, self.unk = row.name, convention_of(tok), _byte_level(tok), tok.unk_token
        self.made: dict = {}

    def chip(self, tid: int, token: str, covers: str, selected: bool = False) -> str:
        # (not byte-level: the bytes shown are the text's, and a normalizer may map "The" and "the" to one id)
        key = tid if self.byte_level and token != self.unk else (tid, covers)
        html = None if selected else self.made.get(key)
        if html is None:
            title = f"{self.name}\nid {tid}\ntoken: {token}" + _token_bytes(token, covers, self.byte_level)
            if self.unk is not None and token == self.unk:
                html = token_html(visible(covers) or token, title=title + f"\nunknown: {covers}", unknown=True)
            else:
                html = token_html(token if self.byte_level else visible(token), convention=self.conv, title=title,
                                  emphasize=selected)
            if not selected:
                self.made[key] = html
        return html


def _bar(offset: int) -> str:
    return f'<span class="bpe-differs" data-offset="{offset}" style="{_BAR}"></span>'


def _row_chips(row: TokenizerRow, text: str, marks: frozenset, limit: int, selected) -> tuple[str, int]:
    """The chips of one row (tokens that start before ``limit``), a red bar at each offset of
    ``marks`` this row cuts at, a line break where the text has one; and how many tokens were
    left out."""
    chips, enc = _Chips(row), row.encoding
    offsets, ids, tokens = enc.offsets, enc.ids, enc.tokens
    n = len(ids)
    out, done, seen, reach = [], set(), 0, 0
    drawn = 0
    for i in range(n):
        s, e = offsets[i]
        if s >= limit:
            break
        drawn += 1
        if s > seen and "\n" in text[seen:s]:
            out.append("<br>")
        if s in marks and s not in done and reach <= s:  # the cut before this token
            out.append(_bar(s))
            done.add(s)
        covers = text[s:e]
        out.append(chips.chip(ids[i], tokens[i], covers, selected == i))
        reach = max(reach, e)
        if e in marks and e not in done and (offsets[i + 1][0] if i + 1 < n else len(text)) >= e:
            out.append(_bar(e))  # the cut after it (none while the next token shares its character)
            done.add(e)
        if "\n" in covers:
            out.append("<br>")
        seen = max(seen, e)
    return "".join(out), n - drawn


def _text_line(text: str, marks, limit: int) -> str:
    """The text itself, whitespace visible, with a red tick at each offset of ``marks``."""
    parts, at = [], 0
    for c in [m for m in marks if m < limit] + [min(len(text), limit)]:
        chunk = text[at:c]
        parts.append(esc(visible(chunk)).replace("↵", "↵<br>"))
        if c < min(len(text), limit):
            parts.append(f'<span class="bpe-tick" data-offset="{c}" style="{_TICK}" '
                         f'title="character {c:,}: only some tokenizers cut here"></span>')
        at = c
    cut = more_html(len(text) - limit, "more characters, counted but not drawn") if len(text) > limit else ""
    return (f'<div class="bpe-compare-text"><div style="{_HEAD}">text <span style="{_NOTE}">{len(text):,} '
            f'characters</span></div><div style="font-family:monospace,monospace;line-height:1.6;'
            f'overflow-wrap:anywhere">{"".join(parts)}{cut}</div></div>')


def _legend(n_marks: int) -> str:
    return (f'<div class="bpe-compare-legend" style="{_NOTE};margin:0.3em 0">'
            f'<span style="{_BAR}"></span> a cut only some of the tokenizers make ({n_marks:,} in this text; '
            'red ticks in the text above). A chip is a token: hover for its id, token and bytes. '
            '␣ space, ↵ newline, ⇥ tab; &lt;e6 97&gt;: bytes of a character split between tokens '
            '(or a character that prints as nothing); dimmed: markers (▁, ##, &lt;/w&gt;).</div>')


def _check_selected(selected, comparison: Comparison):
    if selected is None:
        return None, None
    if not isinstance(selected, tuple) or len(selected) != 2:
        raise TypeError(f"selected must be (tokenizer name, token index) or None, got {selected!r}")
    name, index = selected
    rows = {r.name: r for r in comparison.rows}
    if name not in rows:
        raise ValueError(f"selected: the tokenizer name must be one of {list(rows)}, got {name!r}")
    row = rows[name]
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < row.count:
        raise ValueError(f"selected: the token index must be an int from 0 to {row.count - 1}, got {index!r}")
    return name, index


def comparison_html(comparison: Comparison, *, size: float = 1.0, selected=None) -> str:
    """A :class:`Comparison` drawn: the text with a red tick where the rows disagree, then one
    row per tokenizer (name, token count, characters per token, chips). ``selected``:
    ``(name, index)`` of a token to draw with a thick border.

    Example::

        >>> from bpe_viz import train_bpe
        >>> cmp = compare_tokenizers("a <b> & c", {"<x>": train_bpe("a b c", 1)})
        >>> out = comparison_html(cmp, selected=("<x>", 0))
        >>> "&lt;x&gt;" in out and "<x>" not in out and "&lt;b&gt;" in out, out.count("bpe-new")
        (True, 1)
    """
    size = check_size(size)
    if not isinstance(comparison, Comparison):
        raise TypeError(f"comparison must be what compare_tokenizers returned, got {type(comparison).__name__}")
    sel_name, sel_index = _check_selected(selected, comparison)
    text, marks = comparison.text, frozenset(comparison.disagreements)
    parts = [_text_line(text, comparison.disagreements, MAX_COMPARE_CHARS)]
    for row in comparison.rows:
        chips, hidden = _row_chips(row, text, marks, MAX_COMPARE_CHARS, sel_index if row.name == sel_name else None)
        if hidden:
            chips += more_html(hidden, "more tokens (counted, not drawn)")
        per = f"{len(text) / row.count:.2f} characters per token" if row.count else "no tokens"
        desc = row.tokenizer.describe()
        parts.append(
            f'<div class="bpe-compare-row" data-tokenizer="{esc(row.name)}" data-tokens="{row.count}">'
            f'<div style="{_HEAD}" title="{esc(desc if len(desc) <= 400 else desc[:399] + "…")}">{esc(row.name)} '
            f'<span style="{_NOTE}">{row.count:,} tokens · {per}</span></div>'
            f'<div class="bpe-compare-chips">{chips or "<span style=color:#666>(no tokens)</span>"}</div></div>')
    parts.append(_legend(len(comparison.disagreements)))
    return box("".join(parts), "bpe-compare", size)


def tokenizers_html(text, tokenizers, *, size: float = 1.0, selected=None) -> str:
    """``text`` through every tokenizer, side by side (:func:`compare_tokenizers`, then
    :func:`comparison_html`). ``tokenizers``: a dict name -> tokenizer, or a list.

    Example::

        >>> from bpe_viz import train_bpe, train_unigram
        >>> out = tokenizers_html("low lower", {"bpe": train_bpe("low lower", 3),
        ...                                     "unigram": train_unigram("low lower", 8)})
        >>> out.count('class="bpe-compare-row"')
        2
        >>> tokenizers_html(b"low", {})
        Traceback (most recent call last):
        ...
        TypeError: text must be a str, got bytes
    """
    return comparison_html(compare_tokenizers(text, tokenizers), size=size, selected=selected)


# -- the same paragraph in many languages ------------------------------------------------------

def _language_texts(languages) -> dict:
    if languages is None:
        return dict(LANGUAGES)
    if isinstance(languages, Mapping):
        for name, text in languages.items():
            if not isinstance(name, str):
                raise TypeError(f"languages: every name must be a str, got {name!r}")
            check_text(text, f"languages[{name!r}]")
        return dict(languages)
    if isinstance(languages, str) or not isinstance(languages, (list, tuple)):
        raise TypeError(f"languages must be a list of names from LANGUAGES, a dict name -> text or None, "
                        f"got {type(languages).__name__}")
    unknown = [n for n in languages if n not in LANGUAGES]
    if unknown:
        raise ValueError(f"languages: {unknown} not among the bundled languages ({', '.join(LANGUAGES)})")
    return {n: LANGUAGES[n] for n in languages}


def language_table(tokenizers, languages=None):
    """A pandas DataFrame: one row per language (the same paragraph in each, :data:`LANGUAGES`
    by default; a list of their names, or a dict name -> text of your own), and per tokenizer
    its token count and that count divided by English's (by the same tokenizer).

    Example::

        >>> from bpe_viz import train_bpe
        >>> df = language_table({"bpe": train_bpe("Maria walks her dog", 20)}, ["English", "German"])
        >>> list(df.columns)
        [('text', 'characters'), ('bpe', 'tokens'), ('bpe', 'vs English')]
        >>> float(df.loc["English", ("bpe", "vs English")])
        1.0
    """
    import pandas as pd

    named = named_tokenizers(tokenizers)
    texts = _language_texts(languages)
    columns = [("text", "characters")] + [(name, what) for name in named for what in ("tokens", "vs English")]
    english = {name: len(tok.encode(texts.get("English", LANGUAGES["English"])).ids) for name, tok in named.items()}
    data = []
    for text in texts.values():
        row = [len(text)]
        for name, tok in named.items():
            count = len(tok.encode(text).ids)
            row += [count, count / english[name] if english[name] else float("nan")]
        data.append(row)
    frame = pd.DataFrame(data, index=pd.Index(list(texts), name="language"),
                         columns=pd.MultiIndex.from_tuples(columns))
    return frame


def language_table_html(tokenizers, languages=None, *, size: float = 1.0) -> str:
    """:func:`language_table` as an HTML table (counts, and ``× English`` ratios to 2 places).

    Example::

        >>> from bpe_viz import train_bpe
        >>> out = language_table_html({"a&b": train_bpe("Maria walks her dog", 20)}, ["English"])
        >>> "a&amp;b: tokens" in out, "1.00×" in out
        (True, True)
    """
    size = check_size(size)
    frame = language_table(tokenizers, languages)
    names = list(dict.fromkeys(name for name, _ in frame.columns[1:]))
    headers = ["language", "characters"] + [h for name in names for h in (f"{name}: tokens", f"{name}: × English")]
    rows = []
    for lang, values in zip(frame.index, frame.itertuples(index=False)):
        cells = [esc(lang), f"{values[0]:,}"]
        for k in range(len(names)):
            count, ratio = values[1 + 2 * k], values[2 + 2 * k]
            cells += [f"{count:,}", "—" if math.isnan(ratio) else f"{ratio:.2f}×"]
        rows.append(cells)
    caption = esc("The same paragraph in each language; × English: its token count divided by English's, "
                  "by the same tokenizer (more tokens for the same content: more cost, less context).")
    return box(table_html("Tokens per language", headers, rows, cls="bpe-language-table", caption=caption,
                          numeric=range(1, len(headers))), "bpe-language", size)

