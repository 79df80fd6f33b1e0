"""The byte alphabet: every UTF-8 byte as one printable symbol (GPT-2's table).

Byte-level BPE starts from bytes instead of characters, so ``"한"`` is three symbols and no text
is ever outside the alphabet. GPT-2 shows each byte as a visible character: printable Latin-1
bytes stand for themselves, the 68 others (space, control bytes, ...) are moved to code points
256 and up, which is why a space shows as ``Ġ``.

How it differs from :mod:`bpe_viz.engine.text.corpus`: that module turns text into words; this one
turns a word into the symbols training starts from, when ``byte_level=True``.

Example::

    >>> bytes_to_symbols("a b")
    'aĠb'
    >>> symbols_to_bytes(bytes_to_symbols("한")).decode("utf-8")
    '한'
"""

from __future__ import annotations

__all__ = ["BYTE_SYMBOLS", "BYTE_SET", "SYMBOL_BYTES", "bytes_to_symbols", "symbols_to_bytes", "surrogate_error"]


def _byte_table() -> list[str]:
    # GPT-2's table: printable Latin-1 bytes stand for themselves, the other 68 bytes are moved
    # to code points 256 and up, so every byte has one visible, non-whitespace symbol.
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    table = {}
    extra = 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return [table[b] for b in range(256)]


BYTE_SYMBOLS: tuple[str, ...] = tuple(_byte_table())
BYTE_SET = frozenset(BYTE_SYMBOLS)
_FROM_SYMBOLS = str.maketrans({s: chr(b) for b, s in enumerate(BYTE_SYMBOLS)})
#: ``str.translate`` table: byte symbols to the characters U+0000-U+00FF (then ``.encode("latin-1")``)
SYMBOL_BYTES = _FROM_SYMBOLS
_TO_SYMBOLS = str.maketrans({chr(b): s for b, s in enumerate(BYTE_SYMBOLS)})


def bytes_to_symbols(text: str) -> str:
    """The UTF-8 bytes of ``text``, each shown as one printable symbol (GPT-2's table).

    Example::

        >>> bytes_to_symbols("a b")
        'aĠb'
        >>> len(bytes_to_symbols("한"))
        3
    """
    return text.encode("utf-8").decode("latin-1").translate(_TO_SYMBOLS)  # one C pass, not one per byte


def symbols_to_bytes(symbols: str) -> bytes:
    """Inverse of :func:`bytes_to_symbols` (before UTF-8 decoding).

    Example::

        >>> symbols_to_bytes(bytes_to_symbols("한")).decode("utf-8")
        '한'
    """
    if not BYTE_SET.issuperset(symbols):
        bad = next(s for s in symbols if s not in BYTE_SET)
        raise ValueError(f"symbols: {bad!r} is not a byte symbol")
    return symbols.translate(_FROM_SYMBOLS).encode("latin-1")  # one C pass, not one per symbol


def surrogate_error(text: str, argname: str, word: str | None = None) -> ValueError:
    """The ``ValueError`` for a ``text`` whose UTF-8 encoding failed: it names ``argname``, the
    position and the lone surrogate, and how to repair the text. Callers keep their fast path and
    build this only when ``str.encode`` has raised. ``word``: the word holding it, when
    ``text`` is not a string (a word list or dict).

    Example::

        >>> print(surrogate_error("a" + chr(0xD800) + "b", "text"))  # doctest: +ELLIPSIS
        text: position 1 is a lone surrogate U+D800 ...
    """
    where = text if word is None else word
    pos = next((i for i, c in enumerate(where) if "\ud800" <= c <= "\udfff"), None)
    if pos is None:
        return ValueError(f"{argname}: cannot be encoded as UTF-8")
    at = f"position {pos}" if word is None else f"word {word!r:.60} position {pos}"
    return ValueError(
        f"{argname}: {at} is a lone surrogate U+{ord(where[pos]):04X} (half of a UTF-16 pair), which has "
        "no UTF-8 bytes; the text probably came from a broken decode (errors=\"surrogateescape\", a split "
        "emoji): repair it with text.encode(\"utf-8\", \"replace\").decode(\"utf-8\") or decode the "
        "source bytes properly")
