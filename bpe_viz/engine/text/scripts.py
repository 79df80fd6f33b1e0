"""SentencePiece's character rules, shared by its two trainers (BPE and Unigram).

Which characters SentencePiece keeps (``required_characters``: the most frequent ones covering
``character_coverage`` of the text), which strings may be pieces (``valid_piece``: one Unicode
script, ``▁`` only in front, at most 16 characters) and the 32-bit float arithmetic its C++
stores scores in (``f32``). :mod:`~bpe_viz.engine.bpe.sentencepiece` (BPE) and
:mod:`~bpe_viz.engine.unigram` both read them here; neither family imports the other.

Example::

    >>> script_of("a"), script_of("1"), script_of("カ")
    ('LATIN', 'COMMON', 'HAN')
    >>> f32(0.1)
    0.10000000149011612
"""

from __future__ import annotations

from array import array
from functools import lru_cache

from .regex_compat import HAVE_REGEX, regex, table_script

__all__ = ["script_of", "valid_piece", "required_characters", "f32", "f32_all", "NOT_CHARACTERS", "ANY_SCRIPT",
           "MARK"]

#: ▁ (U+2581): SentencePiece's "a space was here"
MARK = "\u2581"


def _script_pattern():
    import regex._regex_core as core  # the Unicode script names the regex module knows

    names: dict[int, str] = {}
    for name, value in core.PROPERTIES["SCRIPT"][1].items():
        if value and name.isidentifier():
            names.setdefault(value, name)  # the first name of each script is its long name
    return regex.compile("|".join(f"(?P<{n}>\\p{{Script={n}}})" for n in names.values()))


#: sentencepiece 0.2.3 neither counts nor keeps these: they stay unknown (found by comparison)
NOT_CHARACTERS = frozenset("\x00\x1f")

#: the script of a piece's start, before its first character: any script may follow
ANY_SCRIPT = None

_SCRIPTS = None
_HAN_LIKE = {"HIRAGANA", "KATAKANA"}
_F = array("f", [0.0])


def f32(x: float) -> float:
    """``x`` rounded to a 32-bit float (SentencePiece stores scores as ``float``)."""
    _F[0] = x
    return _F[0]


def f32_all(values) -> list:
    """Each value rounded to a 32-bit float."""
    return array("f", values).tolist()


@lru_cache(maxsize=65536)
def script_of(ch: str) -> str:
    """The Unicode script of one character (``"LATIN"``, ``"COMMON"``, ``"HAN"``, ...), as
    SentencePiece groups them: Hiragana, Katakana and the long vowel mark ``ー`` count as Han.
    (Without the ``regex`` package, from the table :mod:`.script_data` generated from it.)"""
    global _SCRIPTS
    if ch == "\u30fc":
        return "HAN"
    if not HAVE_REGEX:
        name = table_script(ch)
        return "HAN" if name in _HAN_LIKE else name
    if _SCRIPTS is None:
        _SCRIPTS = _script_pattern()
    m = _SCRIPTS.match(ch)
    name = m.lastgroup if m else "UNKNOWN"
    return "HAN" if name in _HAN_LIKE else name


def valid_piece(piece: str, max_length: int | None = 16, marker: str = "\u2581") -> bool:
    """Whether SentencePiece may make ``piece``: ``marker`` only at its start, one script (a
    combining mark takes the script before it), at most ``max_length`` characters.

    Example::

        >>> valid_piece("▁the"), valid_piece("the▁"), valid_piece("e."), valid_piece("..")
        (True, False, False, True)
    """
    if max_length is not None and len(piece) > max_length:
        return False
    prev = ANY_SCRIPT
    for i, ch in enumerate(piece):
        if ch == marker:
            if i:
                return False
            continue
        if ch in NOT_CHARACTERS or ch == "\u2585":
            return False
        s = script_of(ch)
        if s == "INHERITED":
            s = prev
        if prev is not ANY_SCRIPT and s is not ANY_SCRIPT and s != prev:
            return False
        prev = s
    return True


def required_characters(counts: dict, coverage: float, show=str) -> list:
    """The alphabet SentencePiece keeps: characters by count (then code point), taken while the
    share covered so far is below ``coverage`` (in 32-bit floats, as the C++ compares them).

    Example::

        >>> required_characters({"a": 5, "b": 3, "c": 1, "d": 1}, 0.9)
        ['a', 'b', 'c']
    """
    total = sum(counts.values())
    target = f32(coverage)
    out, acc = [], 0
    for ch, n in sorted(counts.items(), key=lambda t: (-t[1], show(t[0]))):
        if total and f32(acc / total) >= target:
            break
        acc += n
        out.append(ch)
    return out
