"""SentencePiece's normalizer: the precompiled charsmap, and the whitespace rules around it.

A SentencePiece model (and a Hugging Face ``Precompiled`` normalizer) carries its Unicode
normalization (``nmt_nfkc``: NFKC, plus a few rules for whitespace and control characters) as
one binary blob, ``precompiled_charsmap``::

    <trie size: 4 bytes, little-endian> <double-array trie: 4-byte units> <replacement strings>

The trie (darts-clone's ``DoubleArray``, as sentencepiece's ``normalizer.cc`` and Hugging Face's
``spm_precompiled`` crate read it) maps UTF-8 byte sequences to an offset into the replacement
strings, each ended by a NUL byte. :class:`PrecompiledCharsmap` reads the blob and applies it:
at each position the **longest** rule that matches wins; where none matches, one character is
copied. It keeps, for every character it writes, the original character it came from, so tokens
can point back into the text (offsets).

:class:`SentencePieceNormalizer` is sentencepiece's ``Normalizer::Normalize`` on top: user-defined
pieces are protected from the charsmap, leading, trailing and repeated spaces are removed
(``remove_extra_whitespaces``), a space is put in front (``add_dummy_prefix``) and every space
becomes ``▁`` (``escape_whitespaces``). Neither class knows about protobuf: they take the blob
and the flags. :func:`decode_pieces` is the way back (sentencepiece's ``Decode``);
:func:`check_pieces` and :func:`id_items` check a model's piece list and ids for the readers
that build on them (:mod:`~bpe_viz.engine.bpe.scored_pieces`,
:mod:`~bpe_viz.engine.unigram.from_pieces`). How it differs from
:func:`~bpe_viz.engine.text.corpus.normalize`: that applies a Python ``unicodedata`` form to a
word; this is the model's own table, applied as the model does.

Example::

    >>> identity = SentencePieceNormalizer(None, add_dummy_prefix=True, remove_extra_whitespaces=True)
    >>> identity.normalize("  Hello   world ")
    '▁Hello▁world'
    >>> identity.normalize_with_offsets("a  b")
    ('▁a▁b', [0, 0, 1, 3, 4])
"""

from __future__ import annotations

import sys
from array import array

__all__ = ["PrecompiledCharsmap", "SentencePieceNormalizer", "SPACE", "BYTE_PIECES", "KINDS", "byte_value",
           "decode_pieces", "check_pieces", "id_items"]

#: the character SentencePiece writes for a space (U+2581, LOWER ONE EIGHTH BLOCK)
SPACE = "\u2581"
#: the byte pieces of a byte-fallback vocabulary, by byte value (``<0x41>`` is ``A``)
BYTE_PIECES: tuple[str, ...] = tuple(f"<0x{b:02X}>" for b in range(256))
_BYTE_OF = {p: b for b, p in enumerate(BYTE_PIECES)}
#: the kinds of piece a model has (``ModelProto.SentencePiece.Type``, lower case)
KINDS = ("normal", "unknown", "control", "user_defined", "byte", "unused")


class PrecompiledCharsmap:
    """A ``precompiled_charsmap`` blob, read: ``normalize`` and ``normalize_with_offsets`` apply
    it as sentencepiece does (longest rule first, other characters copied); ``prefix_rules``
    lists every rule matching at a position, for normalizers that choose differently (Hugging
    Face's ``Precompiled`` takes the first). ``where`` names the blob in error messages.

    Example::

        >>> import sentencepiece, pathlib
        >>> blob = (pathlib.Path(sentencepiece.__file__).parent / "package_data" / "nmt_nfkc.bin").read_bytes()
        >>> nfkc = PrecompiledCharsmap(blob)
        >>> nfkc.normalize("ﬁne Ｔｅｘｔ ①")
        'fine Text 1'
        >>> nfkc.normalize_with_offsets("ﬁx")
        ('fix', [0, 0, 1, 2])
    """

    def __init__(self, blob, where: str = "precompiled_charsmap"):
        if isinstance(blob, (bytearray, memoryview)):
            blob = bytes(blob)
        if not isinstance(blob, bytes):
            raise TypeError(f"{where}: a precompiled charsmap must be bytes, got {type(blob).__name__}")
        self.where = where
        if len(blob) <= 4:
            raise ValueError(f"{where}: a precompiled charsmap is a 4-byte trie size, the trie and the replacement "
                             f"strings; got only {len(blob)} bytes")
        size = int.from_bytes(blob[:4], "little")
        if size == 0 or size % 4 or size > len(blob) - 4:
            raise ValueError(f"{where}: the trie size in its first 4 bytes ({size}) must be a positive multiple of 4 "
                             f"and at most the {len(blob) - 4} bytes that follow")
        units = array("I")
        units.frombytes(blob[4:4 + size])
        if sys.byteorder == "big":  # pragma: no cover - the blob is little-endian
            units.byteswap()
        self._units = units.tolist()
        self._strings = blob[4 + size:]
        try:
            self._strings.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{where}: the replacement strings after the trie are not UTF-8 ({exc})") from None
        self._replacements: dict[int, str] = {}
        self._first: dict[str, tuple] = {}  # character -> (rule value or -1, trie node after it or -1)

    def __repr__(self):
        return f"<PrecompiledCharsmap {self.where}: {len(self._units)} trie units>"

    # -- the double-array trie -------------------------------------------------------------
    def _walk(self, node: int, data: bytes, start: int, stop: int):
        """Walk ``data[start:stop]`` from ``node``: (the values of the leaves met, each with the
        byte position after it; the node reached, or -1 when a byte has no edge)."""
        units = self._units
        n = len(units)
        leaves = []
        for i in range(start, stop):
            c = data[i]
            node ^= c
            if node >= n:
                return leaves, -1
            unit = units[node]
            if unit & 0x800000FF != c:  # the unit's label
                return leaves, -1
            node ^= (unit >> 10) << ((unit & 0x200) >> 6)  # its offset
            if unit & 0x100:  # has a leaf: the value is in the unit there
                if node >= n:
                    return leaves, -1
                leaves.append((units[node] & 0x7FFFFFFF, i + 1))
        return leaves, node

    def _root(self) -> int:
        unit = self._units[0]
        return (unit >> 10) << ((unit & 0x200) >> 6)

    def replacement(self, value: int) -> str:
        """The replacement string a rule's value points to (up to the next NUL byte)."""
        got = self._replacements.get(value)
        if got is None:
            if not 0 <= value < len(self._strings):
                raise ValueError(f"{self.where}: a rule points at byte {value} of the replacement strings, which "
                                 f"have {len(self._strings)} bytes")
            end = self._strings.find(b"\0", value)
            raw = self._strings[value:] if end < 0 else self._strings[value:end]
            try:
                got = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError(f"{self.where}: the replacement at byte {value} is not UTF-8") from None
            self._replacements[value] = got
        return got

    def prefix_rules(self, data: bytes, start: int = 0) -> list[tuple[int, str]]:
        """Every rule whose key starts ``data`` (UTF-8 bytes) at ``start``, shortest first: (key
        length in bytes, replacement).

        Example::

            >>> import sentencepiece, pathlib
            >>> blob = (pathlib.Path(sentencepiece.__file__).parent / "package_data" / "nmt_nfkc.bin").read_bytes()
            >>> PrecompiledCharsmap(blob).prefix_rules("①x".encode())
            [(3, '1')]
        """
        leaves, _ = self._walk(self._root(), data, start, len(data))
        return [(end - start, self.replacement(value)) for value, end in leaves]

    def rule_at(self, text: str, i: int) -> tuple[str | None, int]:
        """The longest rule at character ``i`` of ``text``: (replacement, characters it covers),
        or (None, 1) when none matches."""
        ch = text[i]
        first = self._first.get(ch)
        if first is None:
            data = ch.encode("utf-8", "surrogatepass")
            leaves, node = self._walk(self._root(), data, 0, len(data))
            # subtle: a rule ending inside a character would consume half of it; real tables have none
            value = leaves[-1][0] if leaves and leaves[-1][1] == len(data) else -1
            first = self._first[ch] = (value, node)
        value, node = first
        best, covered, j = value, 1, i + 1
        while node >= 0 and j < len(text):  # a longer rule may go on into the next characters
            data = text[j].encode("utf-8", "surrogatepass")
            leaves, node = self._walk(node, data, 0, len(data))
            j += 1
            if leaves and leaves[-1][1] == len(data):
                best, covered = leaves[-1][0], j - i
        return (None, 1) if best < 0 else (self.replacement(best), covered)

    # -- applying it -----------------------------------------------------------------------
    def normalize(self, text: str) -> str:
        """``text`` with every rule applied (longest match first, left to right)."""
        return self.normalize_with_offsets(text)[0]

    def normalize_with_offsets(self, text: str) -> tuple[str, list[int]]:
        """``(normalized, origin)``: ``origin[i]`` is the index in ``text`` of the character
        that the ``i``-th normalized character came from; one more entry, ``len(text)``, ends it."""
        out: list[str] = []
        origin: list[int] = []
        for sp, start, _ in self.segments(text):
            out.append(sp)
            origin.extend([start] * len(sp))
        origin.append(len(text))
        return "".join(out), origin

    def segments(self, text: str):
        """``(replacement, start, end)`` for each stretch of ``text`` the charsmap rewrites or
        copies, in order (a copied character is its own replacement)."""
        i, n = 0, len(text)
        rule_at = self.rule_at
        while i < n:
            sp, covered = rule_at(text, i)
            if sp is None:
                yield text[i], i, i + 1
            else:
                yield sp, i, i + covered
            i += covered


class SentencePieceNormalizer:
    """sentencepiece's ``Normalizer::Normalize``: the charsmap (``None``: the ``identity`` rule)
    with the whitespace rules of a model's ``normalizer_spec`` and ``trainer_spec``.

    ``protected``: user-defined pieces, matched before the charsmap (longest first) and kept as
    they are. ``normalize_with_offsets`` gives, for each character of the result, the index of
    the original character it came from (a ``▁`` added in front points at the first one kept),
    and one more entry: where the kept text ends.
    """

    def __init__(self, charsmap: PrecompiledCharsmap | None = None, *, add_dummy_prefix: bool = True,
                 remove_extra_whitespaces: bool = True, escape_whitespaces: bool = True,
                 treat_whitespace_as_suffix: bool = False, protected=()):
        if charsmap is not None and not isinstance(charsmap, PrecompiledCharsmap):
            raise TypeError(f"charsmap must be a PrecompiledCharsmap or None, got {type(charsmap).__name__}")
        self.charsmap = charsmap
        self.add_dummy_prefix = bool(add_dummy_prefix)
        self.remove_extra_whitespaces = bool(remove_extra_whitespaces)
        self.escape_whitespaces = bool(escape_whitespaces)
        self.treat_whitespace_as_suffix = bool(treat_whitespace_as_suffix)
        self.protected = tuple(sorted({p for p in protected if p}, key=len, reverse=True))
        self._by_first: dict[str, list[str]] = {}  # first character -> protected pieces, longest first
        for p in self.protected:
            self._by_first.setdefault(p[0], []).append(p)
        self._space = SPACE if self.escape_whitespaces else " "

    def __repr__(self):
        flags = [name for name in ("add_dummy_prefix", "remove_extra_whitespaces", "escape_whitespaces",
                                   "treat_whitespace_as_suffix") if getattr(self, name)]
        return f"<SentencePieceNormalizer {'charsmap' if self.charsmap else 'identity'}; {', '.join(flags)}>"

    def _pieces(self, text: str):
        """``NormalizePrefix`` over the text: (replacement, start, end) per step: a protected
        piece, else the charsmap's longest rule, else one character as it is."""
        by_first = self._by_first
        rule_at = self.charsmap.rule_at if self.charsmap is not None else None
        i, n = 0, len(text)
        while i < n:
            cands = by_first.get(text[i]) if by_first else None
            hit = next((p for p in cands if text.startswith(p, i)), None) if cands else None
            if hit is not None:
                yield hit, i, i + len(hit)
                i += len(hit)
                continue
            sp, covered = rule_at(text, i) if rule_at is not None else (None, 1)
            yield (text[i] if sp is None else sp), i, i + covered
            i += covered

    def _identity(self, text: str) -> tuple[str, list[int]]:
        """The ``identity`` rule keeping every space (Llama's, Mistral's): the same result as the
        general loop, at string speed."""
        if not text:
            return "", [0]
        n, space = len(text), self._space
        body = text.replace(" ", space) if space != " " else text
        if not self.add_dummy_prefix:
            return body, [*range(n), n]
        if self.treat_whitespace_as_suffix:
            return body + space, [*range(n), n, n]
        return space + body, [0, *range(n), n]

    def normalize(self, text: str) -> str:
        """``text`` as the model sees it."""
        return self.normalize_with_offsets(text)[0]

    def normalize_with_offsets(self, text: str) -> tuple[str, list[int]]:
        """``(normalized, origin)`` (see the class docstring)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        if self.charsmap is None and not self.protected and not self.remove_extra_whitespaces:
            return self._identity(text)
        out: list[str] = []
        origin: list[int] = []
        steps = list(self._pieces(text))
        k, consumed = 0, 0
        if self.remove_extra_whitespaces:  # heading spaces
            while k < len(steps) and steps[k][0] == " ":
                consumed = steps[k][2]
                k += 1
        if k == len(steps):  # nothing, or nothing but spaces (sentencepiece's offsets say [0])
            return "", [0]
        space = self._space
        dummy = self.add_dummy_prefix
        if dummy and not self.treat_whitespace_as_suffix:
            out.append(space)
            origin.append(consumed)
        prev_space = self.remove_extra_whitespaces
        for sp, start, end in steps[k:]:
            if prev_space:
                sp = sp.lstrip(" ")
            if sp:
                out.append(sp.replace(" ", space) if space != " " else sp)
                origin.extend([start] * len(sp))
                prev_space = sp.endswith(" ")
            consumed = end
            if not self.remove_extra_whitespaces:
                prev_space = False
        normalized = "".join(out)
        if self.remove_extra_whitespaces:  # trailing spaces
            kept = len(normalized.rstrip(space))
            if kept < len(normalized):
                consumed = origin[kept]
                normalized, origin = normalized[:kept], origin[:kept]
        if dummy and self.treat_whitespace_as_suffix:
            normalized += space
            origin.append(consumed)
        origin.append(consumed)
        return normalized, origin


# -- decoding -----------------------------------------------------------------------------------

def byte_value(piece: str) -> int | None:
    """The byte a byte piece stands for (``"<0x41>"`` -> 65), or ``None`` for any other piece."""
    return _BYTE_OF.get(piece)


def _utf8_char(data: bytes, i: int) -> int:
    """The length of the valid UTF-8 character at ``data[i]``, or 0 (sentencepiece's
    ``DecodeUTF8``: no overlong forms, no surrogates, nothing above U+10FFFF)."""
    b0, n = data[i], len(data) - i
    if b0 < 0x80:
        return 1
    if b0 & 0xE0 == 0xC0:
        size, low = 2, 0x80
    elif b0 & 0xF0 == 0xE0:
        size, low = 3, 0x800
    elif b0 & 0xF8 == 0xF0:
        size, low = 4, 0x10000
    else:
        return 0
    if n < size or any(data[j] & 0xC0 != 0x80 for j in range(i + 1, i + size)):
        return 0
    cp = b0 & (0x7F >> size)
    for j in range(i + 1, i + size):
        cp = (cp << 6) | (data[j] & 0x3F)
    return size if cp >= low and (cp < 0xD800 or 0xE000 <= cp <= 0x10FFFF) else 0


def _decode_bytes(data: bytes) -> str:
    """Bytes as text, each byte of an invalid sequence one U+FFFD (as sentencepiece decodes
    byte pieces; Python's ``errors="replace"`` would write one per invalid stretch)."""
    out, i = [], 0
    while i < len(data):
        size = _utf8_char(data, i)
        if size:
            out.append(data[i:i + size].decode("utf-8"))
            i += size
        else:
            out.append("\ufffd")
            i += 1
    return "".join(out)


def decode_pieces(items, *, strip_dummy_space: bool = True, remove_extra_whitespaces: bool = False,
                  unk_surface: str = " \u2047 ", space: str = SPACE) -> str:
    """sentencepiece's ``Decode``: ``items`` are ``(piece, kind)`` pairs (kinds as in a model:
    ``"normal"``, ``"unknown"``, ``"control"``, ``"user_defined"``, ``"byte"``, ``"unused"``).

    Control pieces vanish, the unknown piece is ``unk_surface``, runs of byte pieces are decoded
    as UTF-8 (each byte of an invalid sequence becomes U+FFFD), ``▁`` becomes a space, and the
    space the normalizer put in front is taken off the first piece (``strip_dummy_space``: the
    model's ``add_dummy_prefix`` or ``remove_extra_whitespaces``; with the latter, every piece
    before the first visible text loses its leading ``▁``).

    Example::

        >>> decode_pieces([("<s>", "control"), ("▁Hello", "normal"), ("<0xE4>", "byte"), ("<0xB8>", "byte"),
        ...                ("<0x96>", "byte"), ("▁x", "normal"), ("<0xFF>", "byte")])
        'Hello世 x\ufffd'
    """
    out: list[str] = []
    pending = bytearray()
    first, bos_seen = True, False
    for piece, kind in items:
        if kind == "byte":
            pending.append(_BYTE_OF[piece])
            continue
        if pending:
            out.append(_decode_bytes(bytes(pending)))
            pending.clear()
        if first and (bos_seen or any(out)):
            first = False
        bos_seen = False
        if kind == "control":
            continue
        if kind == "unknown":
            out.append(unk_surface)
            continue
        if first and strip_dummy_space and piece.startswith(space):
            piece = piece[len(space):]
            bos_seen = not remove_extra_whitespaces
        out.append(piece.replace(space, " "))
    if pending:
        out.append(_decode_bytes(bytes(pending)))
    return "".join(out)


# -- a model's pieces -----------------------------------------------------------------------------

def check_pieces(pieces, default_kind: str | None = None) -> tuple[list[str], list[float], list[str]]:
    """``pieces`` (``(piece, score, kind)``, or ``(piece, score)`` when ``default_kind`` is given)
    as three lists, checked: distinct non-empty strings, number scores, kinds from :data:`KINDS`;
    all at once when they are right, item by item (naming the first wrong one) when not.

    Example::

        >>> check_pieces([("<unk>", 0.0, "unknown"), ("a", -1, "normal")])
        (['<unk>', 'a'], [0.0, -1.0], ['unknown', 'normal'])
    """
    if isinstance(pieces, (str, bytes)) or not hasattr(pieces, "__iter__"):
        raise TypeError(f"pieces must be a list of (piece, score, kind), got {type(pieces).__name__}")
    items = [(*it, default_kind) if default_kind is not None and type(it) in (tuple, list) and len(it) == 2 else it
             for it in pieces]
    if all(type(it) in (tuple, list) and len(it) == 3 for it in items):
        texts, scores, kinds = map(list, zip(*items)) if items else ([], [], [])
        if (all(type(t) is str and t for t in texts) and all(type(s) in (float, int) for s in scores)
                and set(kinds) <= set(KINDS) and len(set(texts)) == len(texts)):
            return texts, [float(s) for s in scores], kinds
    shape = "(piece, score, kind)" + (" or (piece, score)" if default_kind is not None else "")
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        if not (type(item) in (tuple, list) and len(item) == 3):
            raise TypeError(f"pieces: item {i} must be {shape}, got {item!r:.80}")
        text, score, kind = item
        if not isinstance(text, str) or not text:
            raise TypeError(f"pieces: item {i}: the piece must be a non-empty str, got {text!r:.60}")
        if isinstance(score, bool) or not isinstance(score, (int, float)):
            raise TypeError(f"pieces: item {i} ({text!r}): the score must be a number, got {score!r:.60}")
        if kind not in KINDS:
            raise ValueError(f"pieces: item {i} ({text!r}): the kind must be one of {list(KINDS)}, got {kind!r}")
        if text in seen:
            raise ValueError(f"pieces: {text!r} is given twice (ids {seen[text]} and {i})")
        seen[text] = i
    raise AssertionError("unreachable: a wrong item was named above")  # pragma: no cover


def id_items(ids, pieces, kinds) -> list[tuple[str, str]]:
    """``(piece, kind)`` for each id, what :func:`decode_pieces` takes; a TypeError or ValueError
    naming ``ids`` for anything but a list of ids in range.

    Example::

        >>> id_items([1, 0], ["<unk>", "▁a"], ["unknown", "normal"])
        [('▁a', 'normal'), ('<unk>', 'unknown')]
    """
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
        raise TypeError(f"ids must be a list of int token ids or an encoding, got {type(ids).__name__}")
    n = len(kinds)
    items = []
    for i in ids:
        if isinstance(i, bool) or not isinstance(i, int):
            raise TypeError(f"ids must contain ints, got {type(i).__name__} {i!r}")
        if not 0 <= i < n:
            raise ValueError(f"ids: {i} is not a piece id of this model (ids run from 0 to {n - 1})")
        items.append((pieces[i], kinds[i]))
    return items
