"""Text in and out of the explorers, read with care: a number a learner typed (merges, a
vocabulary size), a file a learner uploaded, and the view's HTML read back as plain text.

No widget here (the boxes and buttons are in :mod:`.controls`): plain functions that turn what
was given into a value or a ``ValueError`` whose message the explorer shows in its error box.
"""

from __future__ import annotations

import html
import re

__all__ = ["MAX_MERGES", "MAX_UPLOAD_BYTES", "check_count", "check_merges", "parse_count", "parse_merges",
           "decode_upload", "plain_text"]

#: The most merges an explorer trains (Python's documentation text: about 2 s for 20,000).
MAX_MERGES = 20_000
#: The largest upload an explorer reads.
MAX_UPLOAD_BYTES = 20_000_000


def check_count(n, what: str, unit: str, maximum: int, advice: str = "") -> int:
    """``n`` if it is a whole number from 1 to ``maximum``, else a ValueError that says so: ``what``
    names the number (``"The number of merges"``), ``unit`` counts it (``"merges"``); ``advice``
    follows the message about a number too large.

    Example::

        >>> check_count(12, "The vocabulary size", "pieces", 100)
        12
        >>> check_count(500, "The vocabulary size", "pieces", 100)
        Traceback (most recent call last):
        ...
        ValueError: 500 pieces is more than this explorer trains (at most 100).
    """
    if isinstance(n, bool) or not isinstance(n, int):
        raise ValueError(f"{what} must be a whole number, got {n!r}.")
    if n < 1:
        raise ValueError(f"{what} must be at least 1, got {n}.")
    if n > maximum:
        raise ValueError(f"{n:,} {unit} is more than this explorer trains (at most {maximum:,}).{advice}")
    return n


def check_merges(n) -> int:
    """``n`` as a number of merges an explorer trains (1 to :data:`MAX_MERGES`), or a ValueError.

    Example::

        >>> check_merges(10)
        10
        >>> check_merges(0)
        Traceback (most recent call last):
        ...
        ValueError: The number of merges must be at least 1, got 0.
    """
    return check_count(n, "The number of merges", "merges", MAX_MERGES, " Choose a smaller number.")


def parse_count(text, what: str, example: str, check) -> int:
    """What a learner typed in a number box, as a whole number passed through ``check``: ``"1,000"``
    and ``"1 000"`` read as 1000; ``"2.5"`` or ``"abc"`` is a readable ValueError (``what`` names the
    number, ``example`` is a number the message suggests), never 25 or silence.

    Example::

        >>> parse_count("1 000", "The vocabulary size", "100", int)
        1000
        >>> parse_count("", "The vocabulary size", "100", int)
        Traceback (most recent call last):
        ...
        ValueError: The vocabulary size is empty: type a whole number like 100 or 1,000.
    """
    raw = str(text).strip()
    digits = re.sub(r"(?<=\d)[,_ \u00a0\u202f](?=\d{3}\b)", "", raw)  # thousands separators only
    if not re.fullmatch(r"[+-]?\d+", digits):
        if not raw:
            raise ValueError(f"{what} is empty: type a whole number like {example} or 1,000.")
        raise ValueError(f"{what} must be a whole number like {example} or 1,000, got “{raw}”.")
    return check(int(digits))


def parse_merges(text) -> int:
    """What a learner typed in a "merges" box, as a number of merges: ``"1,000"`` and
    ``"1 000"`` read as 1000; ``"2.5"`` or ``"abc"`` is a readable ValueError, never 25 or silence.

    Example::

        >>> parse_merges(" 1,000 ")
        1000
        >>> parse_merges("2.5")
        Traceback (most recent call last):
        ...
        ValueError: The number of merges must be a whole number like 10 or 1,000, got “2.5”.
    """
    return parse_count(text, "The number of merges", "10", check_merges)


def decode_upload(value) -> tuple[str, str]:
    """(text, file name) of the first uploaded file (a ``FileUpload`` widget's value), or a
    readable ValueError.

    Example::

        >>> decode_upload([{"name": "words.txt", "content": b"low lower"}])
        ('low lower', 'words.txt')
        >>> decode_upload([{"name": "x.bin", "content": b"\\xff"}])
        Traceback (most recent call last):
        ...
        ValueError: “x.bin” is not UTF-8 text (byte 0xff at position 0 does not fit). Save it as UTF-8 (plain text) and upload it again.
    """
    if not value:
        raise ValueError("No file yet: choose a plain-text file (UTF-8) with the upload button.")
    f = value[0]
    name = f.get("name", "the file") if isinstance(f, dict) else getattr(f, "name", "the file")
    content = f.get("content") if isinstance(f, dict) else getattr(f, "content", None)
    data = bytes(content or b"")
    if len(data) > MAX_UPLOAD_BYTES:
        raise ValueError(f"“{name}” is {len(data):,} bytes; this explorer reads files up to {MAX_UPLOAD_BYTES:,} bytes.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"“{name}” is not UTF-8 text (byte 0x{data[exc.start]:02x} at position {exc.start:,} "
            "does not fit). Save it as UTF-8 (plain text) and upload it again."
        ) from None
    return text, name


def plain_text(fragment: str) -> str:
    """HTML -> the text a reader sees (tags removed, entities decoded).

    Example::

        >>> plain_text("<b>low</b> &amp; <i>lower</i>")
        'low & lower'
    """
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))
