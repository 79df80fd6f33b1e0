"""GPT-2 / Hugging Face merge files: read a real tokenizer's merges into a trace, write them back.

A ``merges.txt`` lists one merge a line, the two tokens spelled with GPT-2's printable byte
symbols (``Ġ t``: a space byte and ``t``), optionally after a ``#version`` line. Read with
:func:`read_merges`, it becomes a byte-level trace that encodes and decodes like the real
tokenizer (the GPT-2 pattern, all 256 bytes, the merges by rank) and shows its merges and
vocabulary; its snapshots are empty until a corpus is replayed over the merges
(:func:`bpe_viz.replay_bpe`).

Ids: from ``vocab`` (a ``vocab.json`` path or a ``{token: id}`` mapping) when given, else GPT-2's
layout: the 256 bytes in GPT-2's table order, then one id per merge, then the special tokens.

Example::

    >>> trace = read_merges(["#version: 0.2", "Ġ t", "h e", "Ġt he"], special_tokens=["<|endoftext|>"])
    >>> from bpe_viz import encode, decode
    >>> e = encode("the the<|endoftext|>", trace)
    >>> e.tokens
    ['t', 'he', 'Ġthe', '<|endoftext|>']
    >>> e.ids, decode(e.ids, trace)
    ([83, 257, 258, 259], 'the the<|endoftext|>')
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..engine.bpe.model import BPE, replay_bpe
from ..engine.merges.trace import Trace
from ..engine.merges.vocab import check_dense_ids
from .subword_nmt import refuse_ambiguous_merges

__all__ = ["read_merges", "write_merges"]


def _lines(source, argname: str) -> list[str]:
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise FileNotFoundError(f"{argname}: no such file {str(path)!r}")
        return path.read_text(encoding="utf-8").splitlines()
    if isinstance(source, bytes) or not hasattr(source, "__iter__"):
        raise TypeError(f"{argname} must be a path or an iterable of lines, got {type(source).__name__}")
    return [line.rstrip("\r\n") if isinstance(line, str) else line for line in source]  # parse_merges names a non-str


def parse_merges(source, argname: str = "path_or_lines") -> list[tuple[str, str]]:
    """The merge pairs of a merges file, in order (a ``#version`` line and blank lines skipped).

    Example::

        >>> parse_merges(["#version: 0.2", "Ġ t", "", "h e"])
        [('Ġ', 't'), ('h', 'e')]
    """
    pairs = []
    for n, line in enumerate(_lines(source, argname), 1):
        if not isinstance(line, str):
            raise TypeError(f"{argname}: line {n} must be a str, got {type(line).__name__}")
        if (n == 1 and line.startswith("#version")) or not line.strip():
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            raise ValueError(f"{argname}: line {n} must be two tokens separated by one space, got {line!r}")
        pairs.append((parts[0], parts[1]))
    return pairs


def read_merges(path_or_lines, vocab=None, special_tokens=None) -> Trace:
    """A byte-level trace from a GPT-2 / Hugging Face ``merges.txt`` (and ``vocab.json``).

    ``path_or_lines``: a path, or the file's lines. ``vocab``: ``None`` (GPT-2's id layout), a
    path to a ``vocab.json`` or a ``{token: id}`` mapping. ``special_tokens``: texts that are
    their own token (``["<|endoftext|>"]`` for GPT-2); with a ``vocab`` their ids come from it.

    The trace has no marker (byte-level, ``end_of_word=None``), so a line is always literal
    text (``</w> </w>`` merges those characters): read and written back, it means the same.
    """
    merges = parse_merges(path_or_lines)
    where = "vocab"
    if vocab is not None and not isinstance(vocab, dict):
        if isinstance(vocab, (str, os.PathLike)):
            where = os.fspath(vocab)
            vocab = _read_vocab_json(where)
        else:
            raise TypeError(f"vocab must be None, a path to a vocab.json or a dict token -> id, got {type(vocab).__name__}")
    if vocab is not None:
        bad = [(t, i) for t, i in vocab.items() if not isinstance(t, str) or isinstance(i, bool) or not isinstance(i, int) or i < 0]
        if bad:
            raise ValueError(f"{where}: every entry must be token (str) -> id (int >= 0), got {bad[0]!r}")
        check_dense_ids(vocab, where)
    trace = replay_bpe([], merges, end_of_word=None, byte_level=True, initial_alphabet="bytes",
                       pre_tokenizer="gpt2", special_tokens=special_tokens or (), id_layout="gpt2")
    if vocab is not None:
        trace.explicit_vocab = dict(vocab)
        trace.id_table  # build now, so a vocabulary that misses a token fails here, not at encode time
    return trace


def _read_vocab_json(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            vocab = json.load(f)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a vocab.json ({exc})") from None
    except RecursionError:
        raise ValueError(f"{path}: not a vocab.json (nested too deeply)") from None
    if not isinstance(vocab, dict):
        raise ValueError(f"{path}: must be a JSON object token -> id, got {type(vocab).__name__}")
    return vocab


def write_merges(trace: Trace, path, num_merges: int | None = None) -> None:
    """Write a trace's merges as a GPT-2 / Hugging Face ``merges.txt`` (``#version: 0.2``).

    A ValueError, and nothing written, if a merge spells the marker text while a corpus word
    contains that text too: the file could not say which is the marker."""
    if not isinstance(trace, Trace):
        raise TypeError(f"trace must be a Trace, got {type(trace).__name__}")
    if not isinstance(trace.model, BPE):
        raise ValueError("trace: only BPE traces have merges to write")
    merges = trace.merges if num_merges is None else trace.merges[:num_merges]
    refuse_ambiguous_merges(trace, merges)
    lines = ["#version: 0.2"]
    for m in merges:
        a, b = m.pair
        if " " in a or " " in b or "\n" in a + b:
            raise ValueError(f"trace: merge {m.step} {m.pair!r} contains a space; a merges file cannot hold it "
                             "(byte-level traces spell a space as 'Ġ')")
        lines.append(f"{a} {b}")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
