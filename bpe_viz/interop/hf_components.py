"""Hugging Face ``tokenizers``' text, as it travels before the model: normalized text that
remembers where each character came from, and the normalizers of a ``tokenizer.json``.

:class:`Normalized` is ``tokenizers``' ``NormalizedString`` in Python: the normalized text and,
for each of its characters, the span of the original text it stands for (``alignments``), kept
exactly as the Rust code keeps them (``transform_range``: a replaced character keeps the span of
the one it replaces, an inserted one takes the span of the character before it), so the offsets
of a token are Hugging Face's, quirks included. :func:`build_normalizer` reads a ``normalizer``
object of a ``tokenizer.json`` into a function that changes a :class:`Normalized` in place, or
raises a ``ValueError`` naming what it cannot do exactly. The JSON field checks every reader
shares are :func:`get_field` and :func:`where_of`.

How it differs from its siblings: :mod:`.hf_pipeline` cuts the normalized text (added tokens,
pre-tokenizers) and decodes; the model readers (:mod:`.hf_bpe`, :mod:`.hf_wordpiece`,
:mod:`.hf_unigram`) cut each piece into tokens. :func:`bpe_viz.engine.text.corpus.normalize`
applies a Unicode form to a word and keeps no offsets.

Example::

    >>> n = Normalized.of("Hé llo")
    >>> build_normalizer({"type": "Sequence", "normalizers": [
    ...     {"type": "NFD"}, {"type": "StripAccents"}, {"type": "Lowercase"},
    ...     {"type": "Prepend", "prepend": "▁"},
    ...     {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}, "t.json")(n)
    >>> n.text, n.span(0, 3), n.span(3, 7)
    ('▁he▁llo', (0, 2), (2, 6))
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["Normalized", "build_normalizer", "get_field", "where_of", "RUST_WHITESPACE", "is_rust_whitespace",
           "REQUIRED", "serde_float"]

#: Rust's ``char::is_whitespace`` (the Unicode White_Space property): not Python's ``str.isspace``,
#: which also counts U+001C..U+001F
RUST_WHITESPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
                            "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")

REQUIRED = object()  # get_field: the field must be there


def is_rust_whitespace(c: str) -> bool:
    """Whether ``c`` is whitespace as Rust (and so ``tokenizers``) sees it."""
    return c in RUST_WHITESPACE


def where_of(where: str, path: str) -> str:
    """``"file: path"`` for error messages."""
    return f"{where}: {path}" if path else where


def get_field(obj, name: str, kinds, where: str, path: str, default=REQUIRED):
    """``obj[name]`` checked against ``kinds`` (a type or tuple of types); a missing field, or a
    JSON ``null``, is ``default`` (a ``ValueError`` naming the file and field when required).

    Example::

        >>> get_field({"prepend": 3}, "prepend", str, "t.json", "normalizer")
        Traceback (most recent call last):
        ...
        TypeError: t.json: normalizer.prepend must be str, got int 3
    """
    if not isinstance(obj, dict):
        raise TypeError(f"{where_of(where, path)} must be a JSON object, got {type(obj).__name__}")
    value = obj.get(name)
    if value is None:
        if default is REQUIRED:
            raise ValueError(f"{where}: {path + '.' if path else ''}{name} is missing")
        return default
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in _tuple(kinds))
    if not ok:
        names = " or ".join(k.__name__ for k in _tuple(kinds))
        raise TypeError(f"{where}: {path + '.' if path else ''}{name} must be {names}, got "
                        f"{type(value).__name__} {value!r:.60}")
    return value


def _tuple(kinds) -> tuple:
    return kinds if isinstance(kinds, tuple) else (kinds,)


_U64_MAX = 2 ** 64 - 1
_POW10 = [float(f"1e{i}") for i in range(309)]
_NUMBER = re.compile(r"(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?")


def serde_float(literal: str) -> float:
    """A JSON number as ``serde_json`` (what ``Tokenizer.from_file`` parses with) reads it: the
    digits gathered into a 64-bit integer, then one multiplication or division by a power of
    ten. Not always the nearest double: about one Unigram score in a hundred comes out one unit
    in the last place away from what Python's ``json`` reads, and that decides some ties.

    Example::

        >>> serde_float("-3.5684026855259354"), float("-3.5684026855259354")
        (-3.568402685525935, -3.5684026855259354)
    """
    m = _NUMBER.fullmatch(literal)
    if m is None:
        return float(literal)
    sign, whole, frac, exp = m.groups()
    sig = 0
    for c in whole:
        sig = sig * 10 + ord(c) - 48
        if sig > _U64_MAX:
            return float(literal)  # serde_json's long-integer path: not met in tokenizer files
    e = 0
    for c in frac or "":
        if sig * 10 + ord(c) - 48 > _U64_MAX:
            break  # serde_json ignores the digits that would overflow
        sig = sig * 10 + ord(c) - 48
        e -= 1
    e += int(exp or 0)
    f = float(sig)
    while True:
        if abs(e) < len(_POW10):
            f = f * _POW10[e] if e >= 0 else f / _POW10[-e]
            break
        if f == 0.0 or e >= 0:
            return float(literal)
        f /= 1e308
        e += 308
    return -f if sign else f


class Normalized:
    """A piece of the input as ``tokenizers``' ``NormalizedString`` keeps it: ``text``, the
    normalized characters; ``align``, for each of them the ``(start, end)`` span of the original
    text (character positions); ``orig``, the span of the original text the piece covers."""

    __slots__ = ("text", "align", "orig")

    def __init__(self, text: str, align: list, orig: tuple[int, int]):
        self.text = text
        self.align = align
        self.orig = orig

    @classmethod
    def of(cls, text: str, start: int = 0) -> Normalized:
        """``text`` (found at ``start`` in the original), not normalized yet."""
        return cls(text, [(i, i + 1) for i in range(start, start + len(text))], (start, start + len(text)))

    def __repr__(self):
        return f"Normalized({self.text!r}, orig={self.orig})"

    def span(self, a: int, b: int) -> tuple[int, int]:
        """The original span of the normalized characters ``a..b`` (``convert_offsets``)."""
        if a >= b:
            return (self.align[a][0],) * 2 if a < len(self.align) else (self.orig[1], self.orig[1])
        return self.align[a][0], self.align[b - 1][1]

    def slice(self, a: int, b: int) -> Normalized:
        """The normalized characters ``a..b`` as a piece of their own."""
        return Normalized(self.text[a:b], self.align[a:b], self.span(a, b))

    def transform_range(self, a: int, b: int, dest, initial_offset: int = 0) -> None:
        """Replace characters ``a..b`` by ``dest``, pairs ``(char, change)``: ``0`` replaces the
        next old character, ``1`` is inserted, ``-n`` replaces one and removes ``n`` after it;
        ``initial_offset`` old characters are removed first."""
        old = self.align
        pos = a + initial_offset
        chars, align = [], []
        for c, change in dest:
            if change > 0:
                # an inserted character shares the alignment of the one before it
                align.append(old[pos - 1] if pos >= 1 else (self.orig[0], self.orig[0]))
            else:
                align.append(old[pos])
                pos += 1 - change
            chars.append(c)
        self.text = self.text[:a] + "".join(chars) + self.text[b:]
        self.align = old[:a] + align + old[b:]

    def transform(self, dest, initial_offset: int = 0) -> None:
        self.transform_range(0, len(self.text), dest, initial_offset)

    # -- the NormalizedString operations the normalizers use ------------------------------------
    def filter(self, keep) -> None:
        """Keep the characters for which ``keep(c)`` is true."""
        out, removed = [], 0
        for c in reversed(self.text):
            if keep(c):
                out.append((c, -removed))
                removed = 0
            else:
                removed += 1
        out.reverse()
        self.transform(out, removed)

    def map(self, f) -> None:
        self.transform([(f(c), 0) for c in self.text])

    def lowercase(self) -> None:
        # Rust's char::to_lowercase, one character at a time (no final-sigma context)
        self.transform([(x, 1 if i else 0) for c in self.text for i, x in enumerate(hf_lower(c))])

    def prepend(self, s: str) -> None:
        if self.text and s:
            self.transform_range(0, 1, [(s[0], 0), *((c, 1) for c in s[1:]), (self.text[0], 1)])

    def replace(self, pattern: re.Pattern, content: str) -> None:
        # right to left: an edit never moves the matches before it
        for m in reversed([m for m in pattern.finditer(self.text) if m.end() > m.start()]):
            a, b = m.span()
            self.transform_range(a, b, [(c, 1) for c in content], b - a)

    def strip(self, left: bool, right: bool) -> None:
        t = self.text
        lead = len(t) - len(t.lstrip("".join(RUST_WHITESPACE))) if left else 0
        trail = len(t) - len(t.rstrip("".join(RUST_WHITESPACE))) if right else 0
        if lead == len(t):
            trail = 0
        if lead or trail:
            n = len(t)
            dest = [(c, -trail if i == n - trail - 1 else 0) for i, c in enumerate(t) if lead <= i < n - trail]
            self.transform(dest, lead)

    def unicode_form(self, form: str) -> None:
        """NFD, NFKD, NFC or NFKC, with the alignments of ``unicode-normalization-alignments``."""
        items = _decompose(self.text, "NFKD" if form in ("NFKD", "NFKC") else "NFD")
        if form in ("NFC", "NFKC"):
            items = _recompose(items)
        self.transform(items)


# -- Unicode forms with alignments ---------------------------------------------------------------

def _decompose(text: str, form: str) -> list[tuple[str, int]]:
    """Each character's decomposition (its first character replaces it, the others are inserted),
    non-starters put in canonical order."""
    out: list = []
    run: list = []  # pending non-starters: (ccc, index, item)
    for ch in text:
        if ch.isascii() or ch in HF_NO_CANONICAL or (form == "NFKD" and ch in HF_NO_COMPAT):
            d = ch
        else:
            d = unicodedata.normalize(form, ch)
        for i, x in enumerate(d):
            item = (x, 1 if i else 0)
            ccc = unicodedata.combining(x)
            if ccc:
                run.append((ccc, len(run), item))
                continue
            if run:
                out.extend(it for _, _, it in sorted(run))
                run = []
            out.append(item)
    out.extend(it for _, _, it in sorted(run))
    return out


@lru_cache(maxsize=4096)
def _compose(a: str, b: str) -> str | None:
    c = unicodedata.normalize("NFC", a + b)
    return c if len(c) == 1 and c != a and c not in HF_NO_CANONICAL else None


def _recompose(items: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Canonical composition of a decomposed stream (the ``Recompositions`` iterator): a
    character composed into the starter before it takes its change away with it."""
    out: list = []
    composee = None
    last_ccc = None
    buffer: list = []
    for ch, change in items:
        ccc = unicodedata.combining(ch)
        if composee is None:
            if ccc:
                out.append((ch, change))
            else:
                composee = (ch, change)
            continue
        if last_ccc is not None and last_ccc >= ccc:  # blocked from the starter
            if ccc == 0:
                out.append(composee)
                out.extend(buffer)
                buffer, composee, last_ccc = [], (ch, change), None
                continue
            buffer.append((ch, change))
            last_ccc = ccc
            continue
        r = _compose(composee[0], ch)
        if r is not None:
            composee = (r, composee[1] + change - 1)
            continue
        if last_ccc is None and ccc == 0:
            out.append(composee)
            composee = (ch, change)
            continue
        buffer.append((ch, change))
        last_ccc = ccc
    if composee is not None:
        out.append(composee)
    out.extend(buffer)
    return out


# -- the normalizers -----------------------------------------------------------------------------

CHINESE_RANGES = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
                  (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))

#: what the Nmt normalizer removes, and what it turns into a space
NMT_REMOVED = frozenset([*map(chr, range(0x01, 0x09)), "\x0b", *map(chr, range(0x0E, 0x20)), "\x7f", "\x8f", "\x9f"])
NMT_SPACES = frozenset(["\t", "\n", "\x0c", "\r", "\u1680", *map(chr, range(0x200B, 0x2010)), "\u2028", "\u2029",
                        "\u2581", "\ufeff", "\ufffd"])


# -- where tokenizers' Unicode tables differ from Python's --------------------------------------
# tokenizers 0.23.3 takes its Unicode data from Rust crates of different ages: the normalization
# forms, marks and categories are older than Python 3.11's Unicode 14, lowercasing is newer.
# Found by comparing every code point (tests/test_hf_readers.py does it again).

def _ranges(*pairs) -> frozenset:
    return frozenset(chr(c) for a, b in pairs for c in range(a, b + 1))


#: compatibility decompositions tokenizers does not know (NFKC / NFKD leave these unchanged)
HF_NO_COMPAT = _ranges((0x32FF, 0x32FF), (0xA7F2, 0xA7F4), (0xAB69, 0xAB69), (0x10781, 0x10785),
                       (0x10787, 0x107B0), (0x107B2, 0x107BA), (0x1F16C, 0x1F16C), (0x1FBF0, 0x1FBF9))
#: canonical decompositions tokenizers does not know (NFD / NFKD leave these unchanged)
HF_NO_CANONICAL = frozenset("\U00011938")
#: marks (Unicode category M) that tokenizers' StripAccents keeps, and two it removes that are not
HF_NOT_MARKS = _ranges(
    (0x7FD, 0x7FD), (0x898, 0x89F), (0x8CA, 0x8D3), (0x9FE, 0x9FE), (0xAFA, 0xAFF), (0xB55, 0xB55), (0xC04, 0xC04),
    (0xC3C, 0xC3C), (0xD00, 0xD00), (0xD3B, 0xD3C), (0xD81, 0xD81), (0xEBA, 0xEBA), (0x1715, 0x1715),
    (0x180F, 0x180F), (0x1ABF, 0x1ACE), (0x1CF7, 0x1CF7), (0x1DF6, 0x1DFA), (0xA82C, 0xA82C), (0xA8FF, 0xA8FF),
    (0x10D24, 0x10D27), (0x10EAB, 0x10EAC), (0x10F46, 0x10F50), (0x10F82, 0x10F85), (0x11070, 0x11070),
    (0x11073, 0x11074), (0x110C2, 0x110C2), (0x11145, 0x11146), (0x111C9, 0x111C9), (0x111CE, 0x111CF),
    (0x1133B, 0x1133B), (0x1145E, 0x1145E), (0x1182C, 0x1183A), (0x11930, 0x11935), (0x11937, 0x11938),
    (0x1193B, 0x1193E), (0x11940, 0x11940), (0x11942, 0x11943), (0x119D1, 0x119D7), (0x119DA, 0x119E0),
    (0x119E4, 0x119E4), (0x11A01, 0x11A0A), (0x11A33, 0x11A39), (0x11A3B, 0x11A3E), (0x11A47, 0x11A47),
    (0x11A51, 0x11A5B), (0x11A8A, 0x11A99), (0x11D31, 0x11D36), (0x11D3A, 0x11D3A), (0x11D3C, 0x11D3D),
    (0x11D3F, 0x11D45), (0x11D47, 0x11D47), (0x11D8A, 0x11D8E), (0x11D90, 0x11D91), (0x11D93, 0x11D97),
    (0x11EF3, 0x11EF6), (0x16F4F, 0x16F4F), (0x16F7F, 0x16F87), (0x16FE4, 0x16FE4), (0x16FF0, 0x16FF1),
    (0x1CF00, 0x1CF2D), (0x1CF30, 0x1CF46), (0x1E130, 0x1E136), (0x1E2AE, 0x1E2AE), (0x1E2EC, 0x1E2EF))
HF_EXTRA_MARKS = frozenset("\u1cf2\u1cf3")
#: nonspacing marks (Mn) BertNormalizer's strip_accents keeps (its table is older still), and one it removes
HF_BERT_NOT_NONSPACING = _ranges(
    (0x7FD, 0x7FD), (0x898, 0x89F), (0x8CA, 0x8E1), (0x9FE, 0x9FE), (0xAFA, 0xAFF), (0xB55, 0xB55), (0xC04, 0xC04),
    (0xC3C, 0xC3C), (0xD00, 0xD00), (0xD3B, 0xD3C), (0xD81, 0xD81), (0xEBA, 0xEBA), (0x180F, 0x180F),
    (0x1885, 0x1886), (0x1ABF, 0x1ACE), (0x1DF6, 0x1DFB), (0xA82C, 0xA82C), (0xA8C5, 0xA8C5), (0xA8FF, 0xA8FF),
    (0xA9BD, 0xA9BD), (0x10D24, 0x10D27), (0x10EAB, 0x10EAC), (0x10F46, 0x10F50), (0x10F82, 0x10F85),
    (0x11070, 0x11070), (0x11073, 0x11074), (0x110C2, 0x110C2), (0x111C9, 0x111C9), (0x111CF, 0x111CF),
    (0x1123E, 0x1123E), (0x1133B, 0x1133B), (0x11438, 0x1143F), (0x11442, 0x11444), (0x11446, 0x11446),
    (0x1145E, 0x1145E), (0x1182F, 0x11837), (0x11839, 0x1183A), (0x1193B, 0x1193C), (0x1193E, 0x1193E),
    (0x11943, 0x11943), (0x119D4, 0x119D7), (0x119DA, 0x119DB), (0x119E0, 0x119E0), (0x11A01, 0x11A0A),
    (0x11A33, 0x11A38), (0x11A3B, 0x11A3E), (0x11A47, 0x11A47), (0x11A51, 0x11A56), (0x11A59, 0x11A5B),
    (0x11A8A, 0x11A96), (0x11A98, 0x11A99), (0x11C30, 0x11C36), (0x11C38, 0x11C3D), (0x11C3F, 0x11C3F),
    (0x11C92, 0x11CA7), (0x11CAA, 0x11CB0), (0x11CB2, 0x11CB3), (0x11CB5, 0x11CB6), (0x11D31, 0x11D36),
    (0x11D3A, 0x11D3A), (0x11D3C, 0x11D3D), (0x11D3F, 0x11D45), (0x11D47, 0x11D47), (0x11D90, 0x11D91),
    (0x11D95, 0x11D95), (0x11D97, 0x11D97), (0x11EF3, 0x11EF4), (0x16F4F, 0x16F4F), (0x16FE4, 0x16FE4),
    (0x1CF00, 0x1CF2D), (0x1CF30, 0x1CF46), (0x1E000, 0x1E006), (0x1E008, 0x1E018), (0x1E01B, 0x1E021),
    (0x1E023, 0x1E024), (0x1E026, 0x1E02A), (0x1E130, 0x1E136), (0x1E2AE, 0x1E2AE), (0x1E2EC, 0x1E2EF),
    (0x1E944, 0x1E94A))
HF_BERT_EXTRA_NONSPACING = frozenset("\u1734")
#: format characters (Cf) tokenizers' BertNormalizer does not count as control characters
HF_NOT_CONTROL = frozenset("\u0890\u0891\u08e2\U000110cd") | _ranges((0x13430, 0x13438))
#: lowercase mappings tokenizers (Rust's newer tables) has and Python 3.11 has not
HF_LOWER = {"\u1c89": "\u1c8a", "\ua7cb": "\u0264", "\ua7cc": "\ua7cd", "\ua7ce": "\ua7cf", "\ua7d2": "\ua7d3",
            "\ua7d4": "\ua7d5", "\ua7da": "\ua7db", "\ua7dc": "\u019b",
            **{chr(c): chr(c + 0x20) for c in range(0x10D50, 0x10D66)},
            **{chr(c): chr(c + 0x1B) for c in range(0x16EA0, 0x16EB9)}}


def hf_lower(c: str) -> str:
    """One character lowercased as Rust's ``char::to_lowercase`` does."""
    return HF_LOWER.get(c) or c.lower()


def is_mark(c: str) -> bool:
    """A combining mark as tokenizers' StripAccents sees it."""
    return (unicodedata.category(c)[0] == "M" and c not in HF_NOT_MARKS) or c in HF_EXTRA_MARKS


def is_bert_nonspacing(c: str) -> bool:
    """A nonspacing mark as BertNormalizer's ``strip_accents`` sees it."""
    return (unicodedata.category(c) == "Mn" and c not in HF_BERT_NOT_NONSPACING) or c in HF_BERT_EXTRA_NONSPACING


def is_bert_control(c: str) -> bool:
    """A character BertNormalizer's ``clean_text`` removes."""
    if c in "\x00\ufffd":
        return True
    return c not in "\t\n\r" and unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs") and c not in HF_NOT_CONTROL


def is_chinese_char(c: str) -> bool:
    """BERT's CJK ideograph ranges (each gets spaces around it)."""
    o = ord(c)
    return any(lo <= o <= hi for lo, hi in CHINESE_RANGES)


def _bert(n: Normalized, clean_text: bool, chinese: bool, strip_accents: bool, lowercase: bool) -> None:
    if clean_text:
        n.filter(lambda c: not is_bert_control(c))
        n.map(lambda c: " " if c in RUST_WHITESPACE else c)
    if chinese and any(map(is_chinese_char, n.text)):
        n.transform([x for c in n.text for x in (((" ", 0), (c, 1), (" ", 1)) if is_chinese_char(c) else ((c, 0),))])
    if strip_accents:
        n.unicode_form("NFD")
        n.filter(lambda c: not is_bert_nonspacing(c))
    if lowercase:
        n.lowercase()


def compile_pattern(pattern, where: str, path: str) -> re.Pattern:
    """A ``{"String": s}`` or ``{"Regex": r}`` pattern of a ``tokenizer.json`` as a compiled
    regular expression (the ``regex`` module, close to Oniguruma's syntax)."""
    if not isinstance(pattern, dict) or len(pattern) != 1 or not set(pattern) <= {"String", "Regex"}:
        raise ValueError(f"{where}: {path} must be {{\"String\": ...}} or {{\"Regex\": ...}}, got {pattern!r:.80}")
    (kind, value), = pattern.items()
    if not isinstance(value, str):
        raise TypeError(f"{where}: {path}.{kind} must be str, got {type(value).__name__}")
    if kind == "String":
        return re.compile(re.escape(value))
    from ..engine.text.regex_compat import regex

    try:
        return regex.compile(value)
    except regex.error as exc:
        raise ValueError(f"{where}: {path}.Regex {value!r} is not a regular expression bpe-viz can run ({exc})") from None


def build_normalizer(spec, where: str, path: str = "normalizer"):
    """A function that normalizes a :class:`Normalized` in place as ``spec`` (the JSON object)
    says, or ``None`` for no normalizer. A type it cannot reproduce is a ``ValueError``."""
    if spec is None:
        return None
    kind = get_field(spec, "type", str, where, path)
    if kind == "Sequence":
        steps = [build_normalizer(s, where, f"{path}.normalizers[{i}]")
                 for i, s in enumerate(get_field(spec, "normalizers", list, where, path))]
        steps = [s for s in steps if s is not None]
        return lambda n: [s(n) for s in steps] and None
    if kind in ("NFC", "NFD", "NFKC", "NFKD"):
        return lambda n: n.unicode_form(kind)
    if kind == "Lowercase":
        return Normalized.lowercase
    if kind == "StripAccents":
        return lambda n: n.filter(lambda c: not is_mark(c))
    if kind == "Prepend":
        s = get_field(spec, "prepend", str, where, path)
        return lambda n: n.prepend(s)
    if kind == "Replace":
        pattern = compile_pattern(get_field(spec, "pattern", dict, where, path), where, f"{path}.pattern")
        content = get_field(spec, "content", str, where, path)
        return lambda n: n.replace(pattern, content)
    if kind == "Strip":
        left = get_field(spec, "strip_left", bool, where, path, False)
        right = get_field(spec, "strip_right", bool, where, path, False)
        return lambda n: n.strip(left, right)
    if kind == "BertNormalizer":
        flags = [get_field(spec, k, bool, where, path, d) for k, d in
                 (("clean_text", True), ("handle_chinese_chars", True), ("strip_accents", None), ("lowercase", True))]
        if flags[2] is None:
            flags[2] = flags[3]  # strip_accents follows lowercase unless given
        return lambda n: _bert(n, *flags)
    if kind == "Nmt":
        return _nmt
    if kind == "Precompiled":
        return _precompiled(spec, where, path)
    raise ValueError(f"{where}: {path}.type {kind!r} is not supported (supported: Sequence, NFC, NFD, NFKC, NFKD, "
                     "Lowercase, StripAccents, Prepend, Replace, Strip, BertNormalizer, Nmt, Precompiled)")


def _nmt(n: Normalized) -> None:
    n.filter(lambda c: c not in NMT_REMOVED)
    n.map(lambda c: " " if c in NMT_SPACES else c)


def _precompiled(spec, where, path):
    """The ``Precompiled`` normalizer: SentencePiece's charsmap
    (:class:`~bpe_viz.engine.text.precompiled.PrecompiledCharsmap`) applied as ``tokenizers``
    applies it: grapheme by grapheme, a grapheme shorter than 6 bytes replaced whole by the
    *shortest* rule that starts it, else character by character."""
    import base64
    import binascii

    from ..engine.text.precompiled import PrecompiledCharsmap
    from ..engine.text.regex_compat import regex

    blob = get_field(spec, "precompiled_charsmap", str, where, path, "")
    if not blob:
        return None  # an empty charsmap changes nothing
    try:
        charsmap = PrecompiledCharsmap(base64.b64decode(blob, validate=True), f"{where}: {path}.precompiled_charsmap")
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"{where}: {path}.precompiled_charsmap is not a base64 SentencePiece charsmap ({exc})") from None
    try:
        graphemes = regex.compile(r"\X")
    except regex.error as exc:  # the re fallback (no regex package) has no grapheme clusters
        raise ValueError(f"{where}: {path} (Precompiled) cannot run without the regex package ({exc})") from None
    cache: dict = {}

    def rule(part: str):
        got = cache.get(part, False)
        if got is False:
            rules = charsmap.prefix_rules(part.encode("utf-8", "surrogatepass"))
            got = cache[part] = rules[0][1] if rules else None
        return got

    def replace(dest: list, old: str, new: str) -> None:
        dest.extend((c, 0) for c in new)
        diff = len(new) - len(old)
        if diff > 0:
            for i in range(len(dest) - diff, len(dest)):
                dest[i] = (dest[i][0], 1)
        elif diff < 0 and dest:
            dest[-1] = (dest[-1][0], dest[-1][1] + diff)

    def run(n: Normalized) -> None:
        dest: list = []
        modified = False
        for g in graphemes.findall(n.text):
            if len(g.encode("utf-8", "surrogatepass")) < 6:
                new = rule(g)
                if new is not None:
                    modified = True
                    replace(dest, g, new)
                    continue
            for c in g:
                new = rule(c)
                if new is None:
                    dest.append((c, 0))
                else:
                    modified = True
                    replace(dest, c, new)
        if modified:
            n.transform(dest)

    return run
