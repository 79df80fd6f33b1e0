"""subword-nmt codes files: write a trace's merges, read them back, replay them over a corpus.

* :func:`write_codes` / :func:`read_codes`: the merges as a subword-nmt codes file
  (``#version: 0.2`` when the marker is glued to the last character, ``#version: 0.1`` when
  ``</w>`` is a symbol of its own), one ``left right`` line per merge.
* :func:`replay_codes`: a codes file learned elsewhere, replayed over a corpus with
  :func:`bpe_viz.engine.bpe.model.replay_bpe`, so it can be stepped through like a training run.
* :func:`to_apply_bpe`: an :class:`~bpe_viz.engine.encoding.Encoding` written the way
  ``subword-nmt apply-bpe`` writes its output (``lo@@ west``), to compare line for line.

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

import io
import os

from ..engine.bpe.model import BPE, replay_bpe
from ..engine.merges.trace import Trace
from ..engine.merges.training import check_num_merges

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

    ``file``: a path or a text file object.
    """
    if not isinstance(trace, Trace):
        raise TypeError(f"trace must be a Trace, got {type(trace).__name__}")
    version = _codes_version(trace)
    merges = trace.merges if num_merges is None else trace.merges[: check_num_merges(num_merges)]
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
    text = _codes_text(file)
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
        pairs.append((parts[0], parts[1]))
    return pairs


def replay_codes(corpus, file, **convention) -> Trace:
    """Replay a subword-nmt codes file over a corpus (its version line sets the marker style).

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
    return replay_bpe(corpus, read_codes(io.StringIO(text)), **convention)


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
