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

__all__ = ["BYTE_SYMBOLS", "BYTE_SET", "bytes_to_symbols", "symbols_to_bytes"]



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
