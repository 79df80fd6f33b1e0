"""Interop with real tools: subword-nmt codes files and Hugging Face ``tokenizers`` models.

* :func:`write_codes` / :func:`read_codes`: the merges as a subword-nmt codes file
  (``#version: 0.2`` when the marker is glued to the last character, ``#version: 0.1`` when
  ``</w>`` is a symbol of its own), one ``left right`` line per merge.
* :func:`replay_bpe`: apply a given merge list to a corpus, in order, and get a full
  :class:`~bpe_viz.trace.Trace` (so a codes file learned elsewhere can be stepped through).
* :func:`to_hf_tokenizer`: a ``tokenizers.Tokenizer`` with a BPE model built from a trace; its
  encodings equal :func:`bpe_viz.encode`'s where conventions agree (marker glued to the last
  character, or no marker).

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
from collections.abc import Iterable
from dataclasses import replace

from .bpe import _PairIndex, _prepare, _UNSET, check_num_merges, resolve_convention
from .trace import Merge, Trace

__all__ = ["write_codes", "read_codes", "replay_bpe", "replay_codes", "to_hf_tokenizer"]


def _codes_version(trace: Trace) -> str:
    c = trace.convention
    if c.algorithm != "bpe":
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


def read_codes(file) -> list[tuple[str, str]]:
    """Read a subword-nmt codes file: the merge pairs in order (the version line is skipped).

    ``file``: a path, a text file object, or the codes text itself when it starts with
    ``#version:``.
    """
    if isinstance(file, str) and file.startswith("#version:"):
        text = file
    elif isinstance(file, (str, os.PathLike)):
        with open(file, encoding="utf-8") as f:
            text = f.read()
    elif hasattr(file, "read"):
        text = file.read()
    else:
        raise TypeError(f"file must be a path, a text file or codes text, got {type(file).__name__}")
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


def replay_bpe(
    corpus,
    merges: Iterable[tuple[str, str]],
    *,
    end_of_word=_UNSET,
    attach_end_of_word=_UNSET,
    preset: str | None = None,
    byte_level=_UNSET,
    normalization=_UNSET,
) -> Trace:
    """Apply ``merges`` to ``corpus`` in the given order and return the full trace.

    A merge whose pair does not occur is still recorded (count 0), so step numbers match the
    list. Conventions as in :func:`bpe_viz.train_bpe`.

    Example::

        >>> t = replay_bpe({"low": 5, "lower": 2}, [("l", "o"), ("x", "y")])
        >>> [(m.token, m.count) for m in t.merges]
        [('lo', 7), ('xy', 0)]
    """
    merges = list(merges)
    for i, p in enumerate(merges):
        if not (isinstance(p, tuple) and len(p) == 2 and all(isinstance(s, str) and s for s in p)):
            raise TypeError(f"merges: item {i} must be a pair of non-empty str, got {p!r}")
    conv = resolve_convention(
        preset, end_of_word=end_of_word, attach_end_of_word=attach_end_of_word,
        byte_level=byte_level, normalization=normalization, min_frequency=1,
    )
    words, counts, initial, marker = _prepare(corpus, conv)
    trace = Trace(words, counts, initial, conv, internal_marker=marker)
    state = _PairIndex(initial, counts, False)
    for p in state.counts:
        trace._pid(p)
    tcounts = list(trace._base_counts)
    trace._checkpoint(state.seg, state.counts, tcounts)
    tindex = trace._token_index
    for step, (a, b) in enumerate(merges, 1):
        pair = (trace._internal(a), trace._internal(b))
        tok = pair[0] + pair[1]
        count = state.counts.get(pair, 0)
        if count:
            ws, new_syms, dd, _, occ, work = state.apply(pair, tok)
        else:
            ws, new_syms, dd, occ, work = [], [], {}, 0, 0
        merge = Merge(step, (a, b), a + b, count, None, trace, pair, tok)
        tcounts.append(0)
        trace._record(merge, ws, new_syms, [(p, d) for p, d in dd.items() if d], occ, work)
        if occ:
            tcounts[tindex(pair[0])] -= occ
            tcounts[tindex(pair[1])] -= occ
            tcounts[tindex(tok)] += occ
        if trace._work >= trace._next_ckpt:
            trace._checkpoint(state.seg, state.counts, tcounts)
    trace._finish("num_merges")
    return trace


def replay_codes(corpus, file, **convention) -> Trace:
    """Replay a subword-nmt codes file over a corpus (its version line sets the marker style).

    Example::

        >>> t = replay_codes("low lower", "#version: 0.2\\nl o\\nlo w\\n")
        >>> t[-1].segmentation
        {'low': ('lo', 'w</w>'), 'lower': ('low', 'e', 'r</w>')}
    """
    if isinstance(file, str) and file.startswith("#version:"):
        text = file
    elif hasattr(file, "read"):
        text = file.read()
    else:
        with open(file, encoding="utf-8") as f:
            text = f.read()
    first = text.split("\n", 1)[0]
    attach = True
    if first.startswith("#version:"):
        attach = first.split()[-1].rstrip("0").rstrip(".") not in ("0.1", "0")
    else:
        attach = False
    convention.setdefault("end_of_word", "</w>")
    convention.setdefault("attach_end_of_word", attach)
    return replay_bpe(corpus, read_codes(io.StringIO(text)), **convention)


def to_hf_tokenizer(trace: Trace, num_merges: int | None = None):
    """A Hugging Face ``tokenizers.Tokenizer`` (BPE model, whitespace split) from a trace.

    Ids are the trace's ids. Works where the conventions agree: the marker glued to the last
    character (``end_of_word_suffix``) or no marker. Hugging Face's BPE has no separate
    end-of-word *symbol*, so a trace with ``attach_end_of_word=False`` is refused.
    """
    try:
        from tokenizers import Tokenizer, models, normalizers, pre_tokenizers
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("to_hf_tokenizer needs the 'tokenizers' package: pip install tokenizers") from exc
    if not isinstance(trace, Trace):
        raise TypeError(f"trace must be a Trace, got {type(trace).__name__}")
    c = trace.convention
    if c.algorithm != "bpe":
        raise ValueError("trace: only BPE traces can become a Hugging Face BPE model")
    if c.byte_level:
        raise ValueError("trace: byte-level traces are not supported here (use the tokenizers ByteLevel pre-tokenizer directly)")
    if c.end_of_word is not None and not c.attach_end_of_word:
        raise ValueError(
            "trace: Hugging Face BPE has no separate end-of-word symbol; train with "
            "attach_end_of_word=True (end_of_word_suffix) or end_of_word=None"
        )
    if trace._remap:
        raise ValueError("trace: a corpus word contains the marker text; Hugging Face BPE would confuse the two")
    k = len(trace.merges) if num_merges is None else check_num_merges(num_merges)
    if k > len(trace.merges):
        raise ValueError(f"num_merges must be between 0 and {len(trace.merges)}, got {k}")
    table = trace.id_to_token
    n_fixed = 1 + len(trace.base_symbols) + len(trace._completion_symbols)
    vocab: dict[str, int] = {}
    for i, tok in enumerate(table[: n_fixed + k]):
        vocab.setdefault(tok, i)
    merges = [m.pair for m in trace.merges[:k]]
    model = models.BPE(
        vocab=vocab,
        merges=merges,
        unk_token=trace.unk_token,
        end_of_word_suffix=c.end_of_word if c.end_of_word is not None else None,
        fuse_unk=False,
    )
    tok = Tokenizer(model)
    if c.normalization:
        tok.normalizer = getattr(normalizers, c.normalization)()
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return tok
