"""Text in and out of the explorers, read with care: a number a learner typed (merges, a
vocabulary size), a file a learner uploaded, the view's HTML read back as plain text, and a
saved page written as UTF-8 without ever leaving a file half written.

No widget here (the boxes and buttons are in :mod:`.controls`): plain functions that turn what
was given into a value or a ``ValueError`` whose message the explorer shows in its error box.
"""

from __future__ import annotations

import contextlib
import html
import os
import re
import secrets
import stat
import sys
from pathlib import Path

__all__ = ["MAX_MERGES", "MAX_UPLOAD_BYTES", "check_count", "check_merges", "check_whole", "parse_count",
           "parse_merges", "decode_upload", "plain_text", "utf8_bytes", "replace_file", "from_the_page"]

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


def check_whole(name: str, n) -> int:
    """``n`` if it is a whole number (an ``int``, not a ``bool``), else a TypeError naming the
    argument: for what a program passes (what a learner types goes through :func:`parse_count`).

    Example::

        >>> check_whole("num_merges", 10)
        10
        >>> check_whole("num_merges", "10")
        Traceback (most recent call last):
        ...
        TypeError: num_merges must be a whole number like 10, got str '10'
    """
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{name} must be a whole number like 10, got {type(n).__name__} {n!r:.60}")
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


def utf8_bytes(text: str, what: str = "The page") -> bytes:
    """``text`` as UTF-8, or a ValueError that names the character UTF-8 cannot write (a lone
    surrogate, half of a UTF-16 pair: it comes with text pasted from a broken source).

    Example::

        >>> utf8_bytes("low")
        b'low'
        >>> utf8_bytes("a\\ud800b")
        Traceback (most recent call last):
        ...
        ValueError: The page cannot be written as UTF-8: its text has a lone surrogate, U+D800 at character 2 (half of a UTF-16 pair, not a character). Remove it from the text and save again.
    """
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"{what} cannot be written as UTF-8: its text has a lone surrogate, U+{ord(text[exc.start]):04X} at "
            f"character {exc.start + 1:,} (half of a UTF-16 pair, not a character). Remove it from the text "
            "and save again."
        ) from None


def replace_file(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` so that no failure leaves it half written: a temporary file in
    the same folder, renamed over it (``os.replace``, atomic); on any error the temporary file is
    removed and what was at ``path`` stays as it was. A file replaced keeps its permissions.

    A symbolic link is followed: its target is replaced and the link stays a link (the caller
    named that path; the explorers' Save button writes no file at all). Returns ``path``.

    Example::

        >>> import tempfile, pathlib
        >>> page = pathlib.Path(tempfile.mkdtemp()) / "step.html"
        >>> replace_file(page, b"<p>low</p>").read_bytes()
        b'<p>low</p>'
    """
    path = Path(path)
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None  # a new file: the usual permissions (0o666 less the umask)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(tmp, flags, 0o666)
            break
        except FileExistsError:  # (twelve random hex digits: never twice, but never mind)
            continue
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def from_the_page() -> bool:
    """Whether the kernel is handling a message from the page now (a control moved there) rather
    than running a cell: IPython's kernel knows the message it handles. ``False`` outside a
    kernel (a script, a test)."""
    ipython = sys.modules.get("IPython")  # (not imported: no kernel, then)
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    kernel = getattr(shell, "kernel", None)
    try:
        parent = kernel.get_parent() if kernel is not None else None
    except Exception:  # another kernel, another API: train at once
        return False
    return isinstance(parent, dict) and parent.get("header", {}).get("msg_type") == "comm_msg"
