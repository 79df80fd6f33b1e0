"""Markers: how a word's symbols say where the word ends or continues.

Sources disagree on this more than on anything else, and every layer needs to know it: training
(the symbols a word starts from, the token a merge makes), encoding (which characters of the
word a token covers), decoding (where one word stops and the next begins) and the views (the
marker is drawn dimmed). Each convention is one class here:

* :class:`NoMarker` — ``l o w`` (the Hugging Face course's BPE);
* :class:`EndOfWord` — ``l o w </w>`` (Sennrich et al. 2016; SLP3 writes ``_``) or, glued to the
  last character, ``l o w</w>`` (subword-nmt >= 0.2, Hugging Face ``end_of_word_suffix``);
* :class:`ContinuingPrefix` — ``w ##i ##d`` (WordPiece, Hugging Face
  ``continuing_subword_prefix``);
* :class:`BeginOfWord` — ``▁ l o w`` (SentencePiece, Hugging Face ``Metaspace``): the marker
  stands for the space in front of the word and is a symbol of its own, so ``▁l`` can be merged.

*Internal spelling.* When a word of the corpus contains the marker text itself (``snake_case``
with the marker ``_``), a trace spells the marker internally with a private-use character, so a
literal ``_`` and the marker never count as one symbol. :meth:`Marker.spelling_for` chooses that
spelling; every method taking ``m`` takes the spelling in use. Public views show the marker text.
A merge list spelled in public text cannot make that distinction (is ``</w>`` in
``('</w>', '</w>')`` the marker or four characters?): :func:`check_unambiguous_merges` refuses
such a list where it would otherwise replay silently differently.

Example::

    >>> EndOfWord("</w>", glued=True).initial(list("low"), "</w>")
    ('l', 'o', 'w</w>')
    >>> ContinuingPrefix("##").initial(list("wid"), "##")
    ('w', '##i', '##d')
    >>> ContinuingPrefix("##").join("w", "##i", "##")
    'wi'
"""

from __future__ import annotations

from functools import lru_cache

from .alphabet import bytes_to_symbols

__all__ = ["Marker", "NoMarker", "EndOfWord", "ContinuingPrefix", "BeginOfWord", "marker_from",
           "MarkerAmbiguityError", "check_unambiguous_merges"]


class Marker:
    """The interface; the base class is also "no marker at all"."""

    #: the public spelling (``None``: no marker)
    text: str | None = None

    # -- training ---------------------------------------------------------------------------
    def spelling_for(self, views) -> str | None:
        """The internal spelling of the marker for words spelled ``views``."""
        return self.text

    def initial(self, units, m) -> tuple[str, ...]:
        """A word's symbols before any merge: its units (characters or byte symbols) + marker."""
        return tuple(units)

    def join(self, a: str, b: str, m) -> str:
        """The token that merging ``(a, b)`` makes."""
        return a + b

    # -- encoding and decoding ------------------------------------------------------------
    def body(self, symbol: str, m, first: bool) -> str:
        """The part of a symbol that stands for characters of the word (marker removed)."""
        return symbol

    def completions(self, base_symbols, m) -> tuple[str, ...]:
        """Spellings a vocabulary needs besides the ones seen (e.g. ``x</w>`` when only ``x``
        was seen), so that every seen character can be encoded and decoded in any position."""
        return ()

    def group(self, symbols: list, m) -> list[list]:
        """Token ids alone, as internal symbols (``None`` for unknown), grouped into words of
        marker-free texts. Raises ValueError where the marker does not say where words end."""
        if not symbols:
            return []
        raise ValueError(
            "ids: this trace has no end-of-word marker, so token ids alone do not say where one word "
            "ends and the next begins; decode the Encoding itself instead: decode(encoding, trace)"
        )

    def strip(self, pieces: list[str]) -> list[str]:
        """One word's public pieces without their markers."""
        return list(pieces)

    # -- views ------------------------------------------------------------------------------
    def parts(self, token: str) -> list[tuple[str, bool]]:
        """A token as (text, is_marker) runs, for drawing the marker dimmed.

        Example: ``EndOfWord("</w>").parts("est</w>") == [("est", False), ("</w>", True)]``.
        """
        return [(token, False)] if token else []

    def letters(self, token: str) -> str:
        """The token without any marker (to compare tokens across conventions)."""
        return token

    def describe(self) -> str:
        return "no end-of-word marker"

    def __eq__(self, other):
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self):
        return hash((type(self).__name__, tuple(sorted(vars(self).items()))))

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"


NoMarker = Marker


class EndOfWord(Marker):
    """An end-of-word marker: its own symbol (``glued=False``) or glued to the last character."""

    def __init__(self, text: str = "</w>", glued: bool = False):
        if not isinstance(text, str) or text == "" or any(ch.isspace() for ch in text):
            raise ValueError(f"end_of_word must be a non-empty str without whitespace, or None; got {text!r}")
        if not isinstance(glued, bool):
            raise TypeError(f"attach_end_of_word must be True or False, got {glued!r}")
        self.text = text
        self.glued = glued

    def spelling_for(self, views):
        return _free_spelling(self.text, views)

    def initial(self, units, m):
        if not units:
            return ()
        if self.glued:
            return (*units[:-1], _glue(units[-1], m))
        return (*units, m)

    def body(self, symbol, m, first):
        return symbol[: -len(m)] if symbol.endswith(m) else symbol

    def completions(self, base_symbols, m):
        if not self.glued:
            return ()
        # "x</w>" can be missing from the training text although "x" is there (or the reverse)
        base = set(base_symbols)
        chars = dict.fromkeys(s[: -len(m)] if s.endswith(m) and len(s) > len(m) else s for s in base_symbols)
        return tuple(f for ch in chars for f in (ch, ch + m) if f not in base)

    def group(self, symbols, m):
        words, cur = [], []
        for t in symbols:
            if t is not None and t.endswith(m):
                cur.append(t[: -len(m)])
                words.append(cur)
                cur = []
            else:
                cur.append(t)
        if cur:
            words.append(cur)
        return words

    def strip(self, pieces):
        out = list(pieces)
        if out and out[-1].endswith(self.text):
            out[-1] = out[-1][: -len(self.text)]
        return out

    def parts(self, token):
        if token.endswith(self.text):
            body = token[: -len(self.text)]
            return ([(body, False)] if body else []) + [(self.text, True)]
        return super().parts(token)

    def letters(self, token):
        return token[: -len(self.text)] if token.endswith(self.text) and len(token) > len(self.text) else token

    def describe(self):
        where = "glued to the last character" if self.glued else "as its own symbol"
        return f'end-of-word marker "{self.text}" {where}'


class ContinuingPrefix(Marker):
    """WordPiece's continuation prefix: every symbol but a word's first starts with ``##``."""

    def __init__(self, text: str = "##"):
        if not isinstance(text, str) or not text or any(c.isspace() for c in text):
            raise ValueError(f"prefix must be a non-empty str without whitespace, got {text!r}")
        self.text = text

    def initial(self, units, m):
        return (units[0], *(m + u for u in units[1:])) if units else ()

    def join(self, a, b, m):
        return a + (b[len(m):] if b.startswith(m) else b)

    def body(self, symbol, m, first):
        return symbol[len(m):] if not first and symbol.startswith(m) else symbol

    def completions(self, base_symbols, m):
        base = set(base_symbols)
        chars = dict.fromkeys(s[len(m):] if s.startswith(m) and len(s) > len(m) else s for s in base_symbols)
        return tuple(f for ch in chars for f in (ch, m + ch) if f not in base)

    def group(self, symbols, m):
        words: list[list] = []
        for t in symbols:
            if t is not None and t.startswith(m) and words:
                words[-1].append(t[len(m):])
            else:
                words.append([t])
        return words

    def strip(self, pieces):
        m = self.text
        return [p[len(m):] if i and p.startswith(m) else p for i, p in enumerate(pieces)]

    def parts(self, token):
        if token.startswith(self.text) and len(token) > len(self.text):
            return [(self.text, True), (token[len(self.text):], False)]
        return super().parts(token)

    def letters(self, token):
        return token[len(self.text):] if token.startswith(self.text) else token

    def describe(self):
        return f'continuation prefix "{self.text}"'


class BeginOfWord(Marker):
    """SentencePiece's ``▁`` (U+2581): the space before a word, a symbol of its own at the
    front (``▁ l o w``). A merge may take it (``▁l``, ``▁low``), so a token that begins a word is
    spelled apart from the same letters inside one (``▁low`` and ``low``).

    Example::

        >>> BeginOfWord().initial(list("low"), "▁")
        ('▁', 'l', 'o', 'w')
        >>> BeginOfWord().group(["▁lo", "w", "▁", "x"], "▁")
        [['lo', 'w'], ['', 'x']]
    """

    def __init__(self, text: str = "\u2581"):
        if not isinstance(text, str) or len(text) != 1 or text.isspace():
            raise ValueError(f"begin_of_word must be one non-space character (SentencePiece: '\u2581'), got {text!r}")
        self.text = text

    def spelling_for(self, views):
        return _free_spelling(self.text, views)

    def initial(self, units, m):
        return (m, *units)  # an empty word is the marker alone (SentencePiece: a typed "▁")

    def body(self, symbol, m, first):
        return symbol[len(m):] if symbol.startswith(m) else symbol

    def group(self, symbols, m):
        words: list[list] = []
        for t in symbols:
            if t is not None and t.startswith(m):
                words.append([t[len(m):]])
            elif words:
                words[-1].append(t)
            else:
                words.append([t])
        return words

    def strip(self, pieces):
        out = list(pieces)
        if out and out[0].startswith(self.text):
            out[0] = out[0][len(self.text):]
        return [p for p in out if p]

    def parts(self, token):
        if token.startswith(self.text):
            rest = token[len(self.text):]
            return [(self.text, True)] + ([(rest, False)] if rest else [])
        return super().parts(token)

    def letters(self, token):
        return token[len(self.text):] if token.startswith(self.text) and len(token) > len(self.text) else token

    def describe(self):
        return f'begin-of-word marker "{self.text}" as its own symbol'


def _free_spelling(marker: str, views) -> str:
    # subtle: "snake_case" with the marker "_" would make the literal "_" and the marker one
    # symbol; then spell the marker with a private-use character no word contains
    if not any(marker in v for v in views):
        return marker
    used = set().union(*map(set, views))
    for cp in range(0xE000, 0xF900):
        if chr(cp) not in used:
            return chr(cp)
    raise ValueError("corpus: no free private-use character to stand for the word marker")


class MarkerAmbiguityError(ValueError):
    """A merge spells the marker text while a word of the corpus contains that text too.

    ``index`` and ``pair``: the first such merge of the list; ``reason``: the message without
    the argument name, for a caller that names a file and line instead."""

    def __init__(self, argname: str, index: int, pair, marker: str, word: str | None):
        self.index, self.pair, self.marker, self.word = index, pair, marker, word
        example = f" ({word!r})" if word is not None else ""
        self.reason = (
            f"contains the marker text {marker!r}, which also occurs inside a word of the corpus{example}, "
            f"so the list is ambiguous: spelled as text, a merge cannot say whether {marker!r} in it is the "
            f"marker or those characters, and replaying it could silently differ from the run it came from. "
            f"Use a corpus without {marker!r} inside words, or a marker that no word contains"
        )
        super().__init__(f"{argname}: item {index} {pair!r} {self.reason}")


def check_unambiguous_merges(pairs, marker: str | None, words, argname: str = "merges", byte_level: bool = False) -> None:
    """Raise :class:`MarkerAmbiguityError` at the first pair that contains the ``marker`` text,
    if a word of ``words`` contains it too (the trace spells its marker privately then).
    ``byte_level``: the pairs are spelled in GPT-2's byte symbols, so the words are looked at so.

    A pair without the marker text means the same symbols in both spellings, so a list of
    those replays exactly; a corpus without the marker text inside words is never refused.

    Example::

        >>> check_unambiguous_merges([("l", "o"), ("lo", "w</w>")], "</w>", ["low"])  # no word has it
        >>> check_unambiguous_merges([("<", "/"), ("e", "</w>")], "</w>", ["see</w>"])
        Traceback (most recent call last):
        ...
        bpe_viz.engine.text.markers.MarkerAmbiguityError: merges: item 1 ('e', '</w>') contains the marker text '</w>', which also occurs inside a word of the corpus ('see</w>'), so the list is ambiguous: ...
    """
    if not marker:
        return
    views = map(bytes_to_symbols, words) if byte_level else words
    word = next((w for w in views if marker in w), None)
    if word is None:
        return
    for i, (a, b) in enumerate(pairs):
        if marker in a or marker in b:
            raise MarkerAmbiguityError(argname, i, (a, b), marker, word)


@lru_cache(maxsize=8192)
def _glue(unit: str, m: str) -> str:
    # one string object per glued symbol ("w</w>"), not one per word: less memory, and the
    # trainer's comparisons of equal symbols stop at the identity check
    return unit + m


def marker_from(end_of_word: str | None = None, attach_end_of_word: bool = False, prefix: str | None = None,
                begin_of_word: str | None = None) -> Marker:
    """The marker object for the keyword arguments ``train_bpe`` and ``train_wordpiece`` take.

    Example::

        >>> marker_from("</w>", True)
        EndOfWord(text='</w>', glued=True)
        >>> marker_from(prefix="##")
        ContinuingPrefix(text='##')
    """
    if prefix is not None:
        return ContinuingPrefix(prefix)
    if begin_of_word is not None:
        if end_of_word is not None:
            raise ValueError(f"pass begin_of_word or end_of_word, not both (got {begin_of_word!r} and {end_of_word!r})")
        return BeginOfWord(begin_of_word)
    if end_of_word is None:
        return Marker()
    return EndOfWord(end_of_word, attach_end_of_word)
