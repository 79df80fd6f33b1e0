"""subword-nmt codes files: write a trace's merges, read them back, replay them over a corpus.

* :func:`write_codes` / :func:`read_codes`: the merges as a subword-nmt codes file
  (``#version: 0.2`` when the marker is glued to the last character, ``#version: 0.1`` when
  ``</w>`` is a symbol of its own), one ``left right`` line per merge.
* :func:`replay_codes`: a codes file learned elsewhere, replayed over a corpus with
  :func:`bpe_viz.engine.bpe.model.replay_bpe`, so it can be stepped through like a training run.
* :func:`to_apply_bpe`: an :class:`~bpe_viz.engine.encoding.Encoding` written the way
  ``subword-nmt apply-bpe`` writes its output (``lo@@ west``), to compare line for line.

A codes file spells merges as text, and subword-nmt compares symbols as strings: every ``</w>``
in a line is its marker. When a corpus word contains ``</w>`` itself, bpe-viz keeps the typed
text apart from the marker, and a line that spells ``</w>`` becomes ambiguous. Both directions
then refuse with a ValueError (never a file that replays differently): :func:`write_codes` at the
first such merge (``num_merges`` below it writes the rest), :func:`replay_codes` naming the line.
Lines without ``</w>`` mean the same symbols either way and replay exactly.

Example::

    >>> import io
    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe("low low lower newest", num_merges=2, preset="subword-nmt")
    >>> f = io.StringIO(); write_codes(trace, f); print(f.getvalue(), end="")
    #version: 0.2
    l o
    w e
    >>> read_codes(io.StringIO(f.getvalue()))
    [('l', 'o'), ('w', 'e')]
"""

from __future__ import annotations

import os

from ..engine.bpe.model import BPE, replay_bpe
from ..engine.merges.trace import Trace
from ..engine.merges.training import check_num_merges
from ..engine.text.markers import MarkerAmbiguityError, check_unambiguous_merges

__all__ = ["write_codes", "read_codes", "replay_codes", "to_apply_bpe"]


def _codes_version(trace: Trace) -> str:
    c = trace.convention
    if not isinstance(trace.model, BPE):
        raise ValueError("trace: only BPE traces can be written as subword-nmt codes")
    if c.end_of_word != "</w>" or c.byte_level:
        raise ValueError(
            'trace: subword-nmt codes files know only the "</w>" marker on characters '
            f"(this trace uses {c.describe()!r})"
        )
    return "0.2" if c.attach_end_of_word else "0.1"


def write_codes(trace: Trace, file, num_merges: int | None = None) -> None:
    """Write the first ``num_merges`` merges (all by default) as a subword-nmt codes file.

    ``file``: a path or a text file object. A ValueError if a merge spells ``</w>`` while a
    corpus word contains ``</w>`` too (the file could not say which is the marker); nothing is
    written then.

    Example::

        >>> import io
        >>> from bpe_viz import train_bpe
        >>> write_codes(train_bpe("</w></w></w>", 40), io.StringIO())
        Traceback (most recent call last):
        ...
        ValueError: trace: merge 4 ('</w>', '</w>') contains the marker text '</w>', which also occurs inside a word ... num_merges=3 writes the merges before it
    """
    if not isinstance(trace, Trace):
        raise TypeError(f"trace must be a Trace, got {type(trace).__name__}")
    version = _codes_version(trace)
    merges = trace.merges if num_merges is None else trace.merges[: check_num_merges(num_merges)]
    refuse_ambiguous_merges(trace, merges)
    lines = [f"#version: {version}"]
    for m in merges:
        a, b = m.pair
        if any(ch.isspace() for ch in a + b):
            raise ValueError(f"trace: merge {m.step} {m.pair!r} contains whitespace; a codes file cannot hold it")
        lines.append(f"{a} {b}")
    data = "\n".join(lines) + "\n"
    if isinstance(file, (str, os.PathLike)):
        with open(file, "w", encoding="utf-8") as f:
            f.write(data)
    elif hasattr(file, "write"):
        file.write(data)
    else:
        raise TypeError(f"file must be a path or a writable text file, got {type(file).__name__}")


def refuse_ambiguous_merges(trace: Trace, merges) -> None:
    """ValueError at the first of a trace's ``merges`` that spells the marker text, if a corpus
    word contains it too: a file of merges spelled as text (a codes file, a ``merges.txt``)
    could not say which is the marker (see the module docstring)."""
    if not trace.remaps_marker:
        return
    try:
        check_unambiguous_merges([m.pair for m in merges], trace.marker.text, trace.words,
                                 byte_level=trace.convention.byte_level)
    except MarkerAmbiguityError as exc:
        m = merges[exc.index]
        raise ValueError(f"trace: merge {m.step} {m.pair!r} {exc.reason}; "
                         f"num_merges={m.step - 1} writes the merges before it") from None


def _codes_text(file) -> str:
    """The text of a codes file given as a path, a text file object or the text itself."""
    if isinstance(file, str) and file.startswith("#version:"):
        return file
    if isinstance(file, (str, os.PathLike)):
        try:
            with open(file, encoding="utf-8") as f:
                return f.read()
        except UnicodeDecodeError as exc:
            raise ValueError(f"{os.fspath(file)}: not a subword-nmt codes file (not UTF-8 text: {exc})") from None
    if hasattr(file, "read"):
        text = file.read()
        if not isinstance(text, str):
            raise TypeError("file must be a path, a text file or codes text, got a binary file "
                            f"({type(file).__name__}); open it in text mode with encoding='utf-8'")
        return text
    raise TypeError(f"file must be a path, a text file or codes text, got {type(file).__name__}")


def read_codes(file) -> list[tuple[str, str]]:
    """Read a subword-nmt codes file: the merge pairs in order (the version line is skipped).

    ``file``: a path, a text file object, or the codes text itself when it starts with
    ``#version:``.
    """
    return [pair for _, pair in _numbered_codes(_codes_text(file))]


def _file_name(file) -> str:
    """What an error calls ``file``: its path, else "file" (codes text, a file object)."""
    if isinstance(file, os.PathLike) or (isinstance(file, str) and not file.startswith("#version:")):
        return os.fspath(file)
    return "file"


def _numbered_codes(text: str) -> list[tuple[int, tuple[str, str]]]:
    """(line number, pair) for every merge line of a codes text."""
    pairs = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip("\r\n ")
        if n == 1 and line.startswith("#version:"):
            continue
        if not line:
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise ValueError(f"file: line {n} must be two symbols separated by one space, got {line!r}")
        pairs.append((n, (parts[0], parts[1])))
    return pairs


def replay_codes(corpus, file, **convention) -> Trace:
    """Replay a subword-nmt codes file over a corpus (its version line sets the marker style).

    When a corpus word contains ``</w>`` itself, a line that spells ``</w>`` is a ValueError
    naming the file and the line (the marker, or the typed text? subword-nmt cannot tell them
    apart either); lines without it replay exactly.

    Example::

        >>> t = replay_codes("low lower", "#version: 0.2\\nl o\\nlo w\\n")
        >>> t[-1].segmentation
        {'low': ('lo', 'w</w>'), 'lower': ('low', 'e', 'r</w>')}
    """
    text = _codes_text(file)
    first = text.split("\n", 1)[0]
    attach = True
    if first.startswith("#version:"):
        attach = first.split()[-1].rstrip("0").rstrip(".") not in ("0.1", "0")
    else:
        attach = False
    convention.setdefault("end_of_word", "</w>")
    convention.setdefault("attach_end_of_word", attach)
    numbered = _numbered_codes(text)
    try:
        return replay_bpe(corpus, [pair for _, pair in numbered], **convention)
    except MarkerAmbiguityError as exc:
        raise ValueError(f"{_file_name(file)}: line {numbered[exc.index][0]} {exc.pair!r} {exc.reason}") from None


def to_apply_bpe(encoding, separator: str = "@@") -> str:
    """The units of an encoding as ``apply-bpe`` prints them: markers dropped, ``separator`` after
    every unit but a word's last (glossary segments included), one space between units.

    Example::

        >>> from bpe_viz import encode, train_bpe
        >>> t = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10, preset="subword-nmt")
        >>> to_apply_bpe(encode("lowest newer", t))
        'lo@@ west ne@@ w@@ e@@ r'
    """
    marker = encoding.trace.marker
    out = []
    for pieces in encoding.word_pieces():
        plain = [marker.letters(p) if p != marker.text else "" for p in pieces]
        plain = [p for p in plain if p]
        out.extend(p + separator for p in plain[:-1])
        out.extend(plain[-1:])
    return " ".join(out)
