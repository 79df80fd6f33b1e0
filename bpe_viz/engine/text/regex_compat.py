"""The regular-expression engine bpe-viz runs: the ``regex`` package where it is installed, else
the standard ``re`` with the pattern rewritten so it matches what ``regex`` would.

``regex`` is the reference (the GPT patterns are written for it) but it is compiled code, with
no wheel for Pyodide, so in a JupyterLite kernel bpe-viz falls back to :class:`ReFallback`:
``re`` (possessive quantifiers and atomic groups since Python 3.11) running the pattern after
:func:`translate` replaced what ``re`` lacks or reads differently by explicit classes of code
points, built once from :mod:`unicodedata` and cached:

* ``\\p{L}``, ``\\p{Lu}``, ``\\p{N}``, ``\\p{M}``, ... (any general category, one or two
  letters, ``\\p{L&}``), ``\\p{Script=Latin}`` (from :mod:`.script_data`, generated from
  ``regex``), their negations ``\\P{..}``, inside a class too (``[^\\s\\p{L}\\p{N}]``);
* ``\\s`` (``re``'s also matches ``\\x1c``-``\\x1f``; ``regex``'s is Unicode White_Space only),
  ``\\w`` (``regex``'s also matches marks, ``_``-like connectors, ZWJ/ZWNJ and circled letters;
  ``re``'s matches other numbers), ``\\d`` and their negations; ``\\b`` and ``\\B`` are rewritten
  on ``regex``'s ``\\w``.

What it cannot do (an ``re.error`` saying so, like any invalid pattern): ``\\X`` (grapheme
clusters need Unicode break data), other properties (``\\p{Alphabetic}``, ``\\p{Han}`` without
``Script=``), and ``regex``-only syntax (``(?V1)``, fuzzy matching, recursion, ``\\G``, ``\\K``).
A character whose category changed between Python's Unicode version and ``regex``'s is
classed by Python's. How it differs from :mod:`.fast_split`: that module makes an installed
``regex`` faster by asking it for the classes; this one replaces a missing ``regex``.

Set the environment variable ``BPE_VIZ_NO_REGEX=1`` before ``import bpe_viz`` to use the
fallback with ``regex`` installed; :func:`fallback` gives it in any process.

Example::

    >>> fb = fallback()
    >>> fb.findall(r" ?\\p{L}+| ?\\p{N}+", "Grüße 42 ℕ")
    ['Grüße', ' 42', ' ℕ']
    >>> bool(fb.match(r"\\s", "\\x1c")), bool(fb.match(r"\\w", "e\\u0301"[1]))
    (False, True)
"""

from __future__ import annotations

import os
import re
import sys
import unicodedata
from bisect import bisect_right
from functools import cache, lru_cache
from itertools import groupby

__all__ = ["regex", "HAVE_REGEX", "FALLBACK_ENV", "ReFallback", "FallbackPattern", "fallback", "translate", "property_runs",
           "table_script"]

#: set (to anything but "" or "0") to run the fallback although ``regex`` is installed
FALLBACK_ENV = "BPE_VIZ_NO_REGEX"

_TOP = sys.maxunicode
#: Unicode White_Space, what ``regex``'s ``\s`` matches (``re``'s adds U+001C-U+001F)
_WHITE = ((0x9, 0xD), (0x20, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
          (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000))
#: what ``regex``'s ``\w`` adds to letters, marks, Nd, Nl and Pc: ZWNJ, ZWJ and the circled /
#: squared letters (So with Other_Alphabetic), found by comparison with regex 2026.11.15
_WORD_EXTRA = ((0x200C, 0x200D), (0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189))
_GROUPS = {"L": "Lu Ll Lt Lm Lo", "L&": "Lu Ll Lt", "LC": "Lu Ll Lt", "M": "Mn Mc Me", "N": "Nd Nl No",
           "P": "Pc Pd Ps Pe Pi Pf Po", "S": "Sm Sc Sk So", "Z": "Zs Zl Zp", "C": "Cc Cf Cs Co Cn"}

# one token of a pattern, outside a class and inside one
_OUTSIDE = re.compile(r"(?P<prop>\\[pP](?:\{[^}]*\}|[A-Za-z]))|(?P<cls>\\[sSwWdDbB])|(?P<bad>\\[XGK])"
                      r"|(?P<esc>\\N\{[^}]*\}|\\.)|(?P<set>\[\^?\]?)|(?P<other>[^\\\[]+)", re.DOTALL)
_INSIDE = re.compile(r"(?P<posix>\[:[^\]]*:\])|(?P<prop>\\[pP](?:\{[^}]*\}|[A-Za-z]))|(?P<cls>\\[sSwWdD])"
                     r"|(?P<esc>\\N\{[^}]*\}|\\.)|(?P<open>\[)|(?P<end>\])|(?P<char>.)", re.DOTALL)


@cache
def _categories() -> dict[str, tuple[tuple[int, int], ...]]:
    """Every general category's runs of code points, from :mod:`unicodedata` (about 0.4 s once).

    subtle: planes 4-13 (U+40000-U+DFFFF) hold no character in any Unicode version so far and
    planes 15-16 are private use (but for their last two code points), so only planes 0-3 and 14
    are asked (a quarter of the code points; tests/test_regex_fallback.py checks all of them)."""
    out: dict[str, list] = {"Cn": [(0x40000, 0xDFFFF)], "Co": []}
    for first, last in ((0, 0x3FFFF), (0xE0000, 0xEFFFF)):
        pos = first
        for cat, run in groupby(map(unicodedata.category, map(chr, range(first, last + 1)))):
            n = len(list(run))
            out.setdefault(cat, []).append((pos, pos + n - 1))
            pos += n
    for plane in (0xF0000, 0x100000):
        out["Co"].append((plane, plane + 0xFFFD))
        out["Cn"].append((plane + 0xFFFE, plane + 0xFFFF))
    return {k: _merge(v) for k, v in out.items()}


def _merge(runs) -> tuple[tuple[int, int], ...]:
    """Runs sorted and joined where they touch or overlap."""
    out: list[list[int]] = []
    for a, b in sorted(runs):
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return tuple((a, b) for a, b in out)


def _complement(runs) -> tuple[tuple[int, int], ...]:
    starts = [0, *(b + 1 for _, b in runs)]
    ends = [*(a - 1 for a, _ in runs), _TOP]
    return tuple((a, b) for a, b in zip(starts, ends) if a <= b)


@cache
def _scripts() -> tuple[list[int], list[str]]:
    from .script_data import NAMES, TABLE

    starts, names = [], []
    for entry in TABLE.split(","):
        cp, i = entry.split(":")
        starts.append(int(cp, 16))
        names.append(NAMES[int(i)])
    return starts, names


def table_script(ch: str) -> str:
    """The Unicode script of one character from the generated table (``regex``'s long name:
    ``"LATIN"``, ``"COMMON"``, ``"UNKNOWN"`` for unassigned code points, ...).

    Example::

        >>> table_script("a"), table_script("\\u0301"), table_script("한")
        ('LATIN', 'INHERITED', 'HANGUL')
    """
    starts, names = _scripts()
    return names[bisect_right(starts, ord(ch)) - 1]


def _property(name: str) -> tuple[str, tuple[str, ...]]:
    """What ``\\p{name}`` asks for, without building any table: ``("s" | "d" | "w", ())``,
    ``("script", (NAME,))`` or ``("gc", categories)``; an ``re.error`` if the fallback lacks it."""
    key = name.replace(" ", "").replace("_", "").replace("-", "")
    if key in ("s", "d", "w"):
        return key, ()
    for prefix in ("script=", "sc=", "script:", "sc:"):
        if key.lower().startswith(prefix):
            from .script_data import NAMES

            wanted = key[len(prefix):].upper()
            if wanted not in NAMES:
                raise re.error(f"\\p{{{name}}}: no such script in bpe-viz's script table")
            return "script", (wanted,)
    if key in _GROUPS:
        return "gc", tuple(_GROUPS[key].split())
    if key in _GROUPS.get(key[:1], "").split():
        return "gc", (key,)
    raise re.error(f"\\p{{{name}}}: without the regex package, bpe-viz knows general categories "
                   f"(\\p{{L}}, \\p{{Lu}}, ...) and \\p{{Script=...}} only; install regex for this pattern")


@lru_cache(maxsize=128)
def property_runs(name: str) -> tuple[tuple[int, int], ...]:
    """The ``(first, last)`` code point runs of ``\\p{name}``: a general category (``"L"``,
    ``"Lu"``, ``"N"``, ...), ``"Script=Latin"``, or ``"s"``, ``"w"``, ``"d"`` for ``regex``'s
    ``\\s``, ``\\w``, ``\\d``. An ``re.error`` for anything else.

    Example::

        >>> property_runs("s")[:2], property_runs("Nd")[0]
        (((9, 13), (32, 32)), (48, 57))
    """
    kind, values = _property(name)
    if kind == "s":
        return _WHITE
    if kind == "script":
        starts, names = _scripts()
        ends = [*(s - 1 for s in starts[1:]), _TOP]
        return _merge((a, b) for a, b, n in zip(starts, ends, names) if n == values[0])
    cats = _categories()
    if kind == "d":
        return cats["Nd"]
    if kind == "w":
        values = ("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "Pc")
        return _merge([r for c in values for r in cats.get(c, ())] + list(_WORD_EXTRA))
    return _merge(r for c in values for r in cats.get(c, ()))


def _escape(cp: int) -> str:
    return f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"


#: what a class holds in each mode of :func:`translate`
_MODES = ("full", "bmp", "check")


def _body(runs, mode: str) -> str:
    """The inside of a class for ``runs`` (those below U+10000 only in ``"bmp"`` mode)."""
    if mode == "bmp":
        runs = [(a, min(b, 0xFFFF)) for a, b in runs if a <= 0xFFFF]
    return "".join(_escape(a) if a == b else f"{_escape(a)}-{_escape(b)}" for a, b in runs)


def _token_runs(tok: str, mode: str) -> tuple[tuple[int, int], ...]:
    """The runs of ``\\p{..}``, ``\\P{..}``, ``\\pL``, ``\\s``, ``\\W``, ... (one token); in
    ``"check"`` mode only the name is checked and the runs are a stand-in (no table is built)."""
    if tok[1] in "pP":
        name = tok[3:-1] if tok[2] == "{" else tok[2]
        negated = tok[1] == "P"
        if name.startswith("^"):
            name, negated = name[1:], not negated
    else:
        name, negated = tok[1].lower(), tok[1].isupper()
    if mode == "check":
        _property(name)
        return ((0, 0),)
    runs = property_runs(name)
    return _complement(runs) if negated else runs


def _set(body: str, neg: str = "") -> str:
    """``[body]`` (``[^body]`` if ``neg``); an empty body (re rejects ``[]``) as a class
    matching nothing, or everything."""
    if not body:
        body, neg = "\\x00-" + _escape(_TOP), "^" if not neg else ""
    return f"[{neg}{body}]"


def _scan(scanner: re.Pattern, pattern: str, pos: int, trouble: str) -> tuple[str, str, int]:
    """The next token of ``pattern`` at ``pos``: ``(kind, text, end)``; ``re.error(trouble)`` if none."""
    m = scanner.match(pattern, pos)
    if m is None:
        raise re.error(trouble, pattern, pos)
    return m.lastgroup, m.group(), m.end()


def _class(pattern: str, pos: int, opening: str, mode: str) -> tuple[str, int]:
    """The class starting at ``pos`` (just after ``opening``, the ``[``, ``[^``, ``[]`` or ``[^]``
    read) in ``re`` syntax, and where it ends."""
    literal, runs = [], []
    if opening.endswith("]"):
        literal.append("\\]")  # a ] first in a class is itself
    while True:
        kind, tok, end = _scan(_INSIDE, pattern, pos, "unterminated character set")
        if kind == "posix":
            raise re.error(f"{tok} (a POSIX class) needs the regex package", pattern, pos)
        pos = end
        if kind == "end":
            break
        if kind in ("prop", "cls"):
            runs.extend(_token_runs(tok, mode))
        else:
            literal.append("\\[" if kind == "open" else tok)  # regex's V0 reads [ in a class as itself
    body = "".join(literal) + _body(_merge(runs), mode)
    return _set(body, "^" if opening.startswith("[^") else ""), pos


@lru_cache(maxsize=256)
def translate(pattern: str, mode: str = "full") -> str:
    """``pattern`` (``regex`` syntax) rewritten for ``re`` (see the module docstring); an
    ``re.error`` for what it cannot rewrite. ``mode="bmp"``: the classes hold only code points
    below U+10000: right for a text without characters beyond them, and much faster there (``re``
    stores such a class as a table, a class reaching beyond U+FFFF as a list it scans).
    ``mode="check"``: every class a stand-in, quick to compile (to check the pattern's syntax).

    Example::

        >>> print(translate(r"\\s+|[^\\x1c\\p{Zl}]"))
        [\\u0009-\\u000d\\u0020\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028-\\u2029\\u202f\\u205f\\u3000]+|[^\\x1c\\u2028]
    """
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {_MODES}, got {mode!r}")
    out, pos = [], 0
    while pos < len(pattern):
        kind, tok, end = _scan(_OUTSIDE, pattern, pos, "bad escape (end of pattern)")
        if kind == "bad":
            raise re.error(f"{tok} needs the regex package (bpe-viz's re fallback cannot run it)", pattern, pos)
        pos = end
        if kind == "set":
            text, pos = _class(pattern, pos, tok, mode)
            out.append(text)
        elif kind == "prop" or (kind == "cls" and tok[1] not in "bB"):
            out.append(_set(_body(_token_runs(tok, mode), mode)))
        elif kind == "cls":  # \b, \B on regex's \w
            w = _set(_body(_token_runs("\\w", mode), mode))
            out.append(f"(?:(?<={w})(?!{w})|(?<!{w})(?={w}))" if tok == "\\b" else f"(?:(?<={w})(?={w})|(?<!{w})(?!{w}))")
        else:
            out.append(tok)
    return "".join(out)


def _within_plane(text: str) -> bool:
    return not text or text.isascii() or max(text) <= "\uffff"


class FallbackPattern:
    """A pattern compiled by :class:`ReFallback`: two ``re`` patterns, one for texts below
    U+10000 (the common case, fast) and one for any text, each compiled when first needed; the
    methods of ``re.Pattern`` that take a text pick between them. The syntax is checked at once."""

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern = pattern
        self.flags = flags
        checked = re.compile(translate(pattern, "check"), flags)  # the syntax, at once (cheap)
        self.groups, self.groupindex = checked.groups, checked.groupindex
        self._compiled: dict[str, re.Pattern] = {}

    def _for(self, text: str) -> re.Pattern:
        """The ``re`` pattern for ``text``, compiled on first use (large classes take ``re`` up
        to half a second)."""
        mode = "bmp" if _within_plane(text) else "full"
        if mode not in self._compiled:
            self._compiled[mode] = re.compile(translate(self.pattern, mode), self.flags)
        return self._compiled[mode]

    def finditer(self, string, *span):
        return self._for(string).finditer(string, *span)

    def findall(self, string, *span):
        return self._for(string).findall(string, *span)

    def match(self, string, *span):
        return self._for(string).match(string, *span)

    def fullmatch(self, string, *span):
        return self._for(string).fullmatch(string, *span)

    def search(self, string, *span):
        return self._for(string).search(string, *span)

    def sub(self, repl, string, count=0):
        return self._for(string).sub(repl, string, count)

    def subn(self, repl, string, count=0):
        return self._for(string).subn(repl, string, count)

    def split(self, string, maxsplit=0):
        return self._for(string).split(string, maxsplit)

    def __repr__(self):
        return f"<FallbackPattern {self.pattern!r}>"


class ReFallback:
    """The part of the ``regex`` module's API bpe-viz uses, run by ``re`` on :func:`translate`'s
    rewrite: ``compile``, ``finditer``, ``findall``, ``match``, ``fullmatch``, ``search``,
    ``sub``, ``split``, ``escape`` and ``error`` (``re.error``)."""

    error = re.error
    escape = staticmethod(re.escape)
    __version__ = "re fallback"

    @staticmethod
    @lru_cache(maxsize=512)
    def compile(pattern: str, flags: int = 0) -> FallbackPattern:
        if isinstance(pattern, FallbackPattern):
            return pattern
        if not isinstance(pattern, str):
            raise TypeError(f"pattern must be a str, got {type(pattern).__name__}")
        return FallbackPattern(pattern, flags)

    def finditer(self, pattern, string, flags=0):
        return self.compile(pattern, flags).finditer(string)

    def findall(self, pattern, string, flags=0):
        return self.compile(pattern, flags).findall(string)

    def match(self, pattern, string, flags=0):
        return self.compile(pattern, flags).match(string)

    def fullmatch(self, pattern, string, flags=0):
        return self.compile(pattern, flags).fullmatch(string)

    def search(self, pattern, string, flags=0):
        return self.compile(pattern, flags).search(string)

    def sub(self, pattern, repl, string, count=0, flags=0):
        return self.compile(pattern, flags).sub(repl, string, count)

    def split(self, pattern, string, maxsplit=0, flags=0):
        return self.compile(pattern, flags).split(string, maxsplit)

    def __repr__(self):
        return "<regex fallback on re>"


@cache
def fallback() -> ReFallback:
    """The ``re`` fallback, whether or not ``regex`` is installed (what tests compare)."""
    return ReFallback()


def _engine():
    if os.environ.get(FALLBACK_ENV, "") not in ("", "0"):
        return fallback(), False
    try:
        import regex as module
    except ImportError:
        return fallback(), False
    return module, True


#: the engine: the ``regex`` module, or :func:`fallback` without it (or with ``BPE_VIZ_NO_REGEX``)
regex, HAVE_REGEX = _engine()
