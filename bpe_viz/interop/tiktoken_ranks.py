"""tiktoken rank files: GPT-2's, GPT-4's and GPT-4o's vocabularies as byte-level traces.

A tiktoken file (``.tiktoken``, or gzipped) holds ``base64(token bytes) rank`` per line and no
merge list. :func:`from_tiktoken` recovers each token's merge the standard way (BPE on the
token's bytes with the ranks below its own; the two parts left are its pair) and returns a trace
whose merges, trees and walkthroughs work like a trained one's, whose ids are the ranks (special
tokens after) and which encodes like ``tiktoken.Encoding`` built from the same ranks
(:mod:`~bpe_viz.engine.bpe.tiktoken_bpe`). The real files (GPT-2's, GPT-4's, GPT-4o's) are read
by :func:`bpe_viz.interop.installed.load_tokenizer`.

How it differs from :mod:`~bpe_viz.interop.gpt2`: a ``merges.txt`` lists the pairs and the trace
encodes by pair rank, as apply-bpe; here only tokens and ranks are given.

Example::

    >>> ranks = {bytes([b]): b for b in range(256)}
    >>> ranks.update({b"lo": 256, b"low": 257, b" low": 258})
    >>> t = from_tiktoken(ranks, pattern="gpt2")
    >>> [m.pair for m in t.merges]
    [('l', 'o'), ('lo', 'w'), ('Ġ', 'low')]
    >>> t.encode("low lower").ids, t.decode([257, 258, 101, 114])
    ([257, 258, 101, 114], 'low lower')
"""

from __future__ import annotations

import base64
import binascii
import codecs
import gc
import gzip
import os
from contextlib import contextmanager
from itertools import accumulate
from pathlib import Path

from ..engine.bpe import replay_bpe
from ..engine.merges.trace import Trace
from ..engine.text import BYTE_SYMBOLS

__all__ = ["from_tiktoken", "read_ranks", "recover_merges"]

SINGLE_BYTES = [bytes([b]) for b in range(256)]
BASE64_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
BYTE_CHARMAP = "".join(BYTE_SYMBOLS)  # byte b decodes to GPT-2's symbol for b: a codec's table


def read_ranks(source, where: str | None = None) -> dict[bytes, int]:
    """``{token bytes: rank}`` from a tiktoken file (a path; ``.gz`` is decompressed) or its
    bytes, every line checked: ``base64 rank``, no token or rank twice, ranks ``0..n-1``.

    Example::

        >>> data = b"".join(base64.b64encode(bytes([b])) + b" %d\\n" % b for b in range(256))
        >>> ranks = read_ranks(data + b"aGk= 256\\n")
        >>> ranks[b"hi"], len(ranks)
        (256, 257)
    """
    if isinstance(source, (str, os.PathLike)):
        where = str(source)
        path = Path(source)
        if not path.is_file():
            raise FileNotFoundError(f"tiktoken file: no such file {where!r}")
        data = path.read_bytes()
        if where.endswith(".gz"):
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError) as exc:
                raise ValueError(f"{where}: not a readable gzip file ({exc})") from None
    elif isinstance(source, bytes):
        where, data = where or "tiktoken data", source
    else:
        raise TypeError(f"path_or_ranks must be a path, the file's bytes or a dict bytes -> rank, got {type(source).__name__}")
    ranks = read_fast(data)
    if ranks is not None:
        try:
            check_ranks(ranks, where)
            return ranks
        except (TypeError, ValueError):
            pass  # the careful loop below names the line
    ranks = {}
    for n, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            raise ValueError(f"{where}: line {n} must be 'base64-token rank', got {line[:80].decode('latin-1')!r}")
        try:
            token = base64.b64decode(parts[0], validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"{where}: line {n}: {parts[0][:60].decode('latin-1')!r} is not base64") from None
        if token in ranks:
            raise ValueError(f"{where}: line {n}: the token {token!r} appears twice (ranks {ranks[token]} and {int(parts[1])})")
        ranks[token] = int(parts[1])
    check_ranks(ranks, where)
    return ranks


def read_fast(data: bytes) -> dict[bytes, int] | None:
    """The ranks of a well-formed file in bulk (every line ``base64 rank``, no blank line, no
    token twice), or None at any doubt: then the careful loop of :func:`read_ranks` reads it."""
    fields = data.split()
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    if not fields or len(fields) != 2 * lines or not all(map(bytes.isdigit, fields[1::2])):
        return None
    encoded = fields[0::2]
    if b"".join(encoded).translate(None, BASE64_ALPHABET):
        return None  # a character outside base64's alphabet
    try:
        tokens = list(map(binascii.a2b_base64, encoded))
    except binascii.Error:
        return None
    values = list(map(int, fields[1::2]))
    ranks = dict(zip(tokens, values))
    return ranks if len(ranks) == len(tokens) else None


def check_ranks(ranks, where: str) -> None:
    """A ValueError/TypeError naming ``where`` unless ``ranks`` maps distinct non-empty bytes to
    the ranks ``0..n-1``, every single byte among them."""
    if not isinstance(ranks, dict):
        raise TypeError(f"{where}: ranks must be a dict bytes -> rank, got {type(ranks).__name__}")
    n = len(ranks)
    if (n >= 256 and set(map(type, ranks)) == {bytes} and b"" not in ranks and set(map(type, ranks.values())) == {int}
            and min(ranks.values()) == 0 and max(ranks.values()) == n - 1 and len(set(ranks.values())) == n
            and all(map(ranks.__contains__, SINGLE_BYTES))):
        return  # the usual case, in bulk; otherwise the loop below names the first problem
    seen: dict[int, bytes] = {}
    for token, rank in ranks.items():
        if not isinstance(token, bytes) or not token:
            raise TypeError(f"{where}: every token must be non-empty bytes, got {token!r}")
        if isinstance(rank, bool) or not isinstance(rank, int) or rank < 0:
            raise TypeError(f"{where}: the rank of {token!r} must be an int >= 0, got {rank!r}")
        if rank in seen:
            raise ValueError(f"{where}: rank {rank} is given twice ({seen[rank]!r} and {token!r})")
        seen[rank] = token
    if seen and max(seen) != len(seen) - 1:
        gap = next(r for r in range(len(seen)) if r not in seen)
        raise ValueError(f"{where}: the ranks must run 0..{len(seen) - 1} without gaps; rank {gap} is missing")
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise ValueError(f"{where}: every single byte must be a token; {len(missing)} are not, e.g. {bytes([missing[0]])!r}")


def recover_merges(ranks: dict[bytes, int], where: str = "ranks") -> list[tuple[bytes, bytes]]:
    """The merge pair of every token of two bytes or more, in rank order (``ranks`` as
    :func:`check_ranks` accepts them): the two parts that BPE
    on the token's bytes, with the ranks below its own, ends with (a ValueError naming the token
    when it ends with more).

    The pair is found without running BPE: of the splits whose two parts are tokens of lower
    rank, it is the one no crossing merge would undo (the check of Van Antwerpen's ``bpe`` crate,
    by concatenation ranks as tiktoken merges): walk the boundary back down both merge trees,
    and at each state ask whether the two tokens meeting there form a token of lower rank than
    the next merge at the boundary.

    Example::

        >>> ranks = {bytes([b]): b for b in range(256)}
        >>> ranks.update({b"ab": 256, b"bc": 257, b"abc": 258})
        >>> recover_merges(ranks)
        [(b'a', b'b'), (b'b', b'c'), (b'ab', b'c')]
    """
    by_rank, lefts, rights = merge_part_ranks(ranks, where)
    return list(zip(map(by_rank.__getitem__, lefts), map(by_rank.__getitem__, rights)))


def merge_part_ranks(ranks: dict[bytes, int], where: str) -> tuple[list[bytes], list[int], list[int]]:
    """The tokens in rank order, and the ranks of the two parts of each merge (as
    :func:`recover_merges` finds them), in two lists: the parts are tokens already read, so
    nothing new is made for them."""
    by_rank = [b""] * len(ranks)
    for t, r in ranks.items():
        by_rank[r] = t  # the ranks run 0..n-1 (check_ranks)
    # token -> its node (rank, left node, right node, token), for the tokens of lower rank than
    # the one at hand only: so "is a token of lower rank" is one lookup, and walking down a
    # merge tree follows references instead of looking each part up again
    nodes: dict[bytes, tuple] = {}
    get = nodes.get
    lefts: list[int] = []
    rights: list[int] = []
    left, right = lefts.append, rights.append
    for rank, token in enumerate(by_rank):
        if len(token) == 1:
            nodes[token] = (rank, None, None, token)
            continue
        for i in range(len(token) - 1, 0, -1):
            a = get(token[:i])
            if a is None:
                continue
            b = get(token[i:])
            if b is not None and survives(a, b, rank, get):
                nodes[token] = (rank, a, b, token)
                left(a[0])
                right(b[0])
                break
        else:
            raise ValueError(f"{where}: the token {token!r} (rank {rank}) cannot be made from tokens of lower rank: "
                             "BPE on its bytes with the ranks below its own does not end in two parts")
    return by_rank, lefts, rights


def survives(x: tuple, y: tuple, limit: int, get) -> bool:
    """Whether BPE on the bytes of the tokens of nodes ``x`` and ``y`` laid end to end, with
    the ranks below ``limit``, ends with ``[x, y]`` (nodes as in :func:`recover_merges`; ``get``
    finds the node of a token of lower rank)."""
    while True:  # x + y itself has rank limit: start by undoing the last merge at the boundary
        if x[1] is None:
            if y[1] is None:
                return True
            limit, y = y[0] + 1, y[1]
        elif y[1] is None or x[0] > y[0]:  # x was made last: before it, its right part met y (ties go to x)
            limit, x = x[0], x[2]
        else:  # y was made last (a tie is the same token twice: the left one was made first)
            limit, y = y[0] + 1, y[1]
        c = get(x[3] + y[3])
        if c is not None and c[0] < limit:
            return False  # the tokens meeting at the boundary merge before the next merge there


def check_specials(special_tokens, ranks, where: str) -> dict[str, int]:
    """``{text: id}`` special tokens, checked: distinct ids that are not ranks."""
    if special_tokens is None:
        return {}
    if not isinstance(special_tokens, dict):
        raise TypeError(f"special_tokens must be a dict text -> id, got {type(special_tokens).__name__}")
    n = len(ranks)
    seen: dict[int, str] = {}
    for text, i in special_tokens.items():
        if not isinstance(text, str) or not text:
            raise TypeError(f"special_tokens: every special token must be a non-empty str, got {text!r}")
        if isinstance(i, bool) or not isinstance(i, int) or i < n:
            raise ValueError(f"special_tokens: the id of {text!r} must be an int >= {n} (after the {where} ranks), got {i!r}")
        if i in seen:
            raise ValueError(f"special_tokens: id {i} is given twice ({seen[i]!r} and {text!r})")
        seen[i] = text
    return dict(special_tokens)


def from_tiktoken(path_or_ranks, *, pattern, special_tokens=None, name=None) -> Trace:
    """A byte-level trace from a tiktoken rank file (a path, ``.gz`` too) or a ``{bytes: rank}``
    dict, that encodes like ``tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks,
    special_tokens=special_tokens)``.

    ``pattern``: the split pattern, a name from :data:`~bpe_viz.engine.text.pretokenize.PRE_TOKENIZERS`
    (``"gpt2"`` for r50k_base, ``"cl100k"``, ``"o200k"``) or a regular expression.
    ``special_tokens``: ``{text: id}``, ids after the ranks. Ids are the ranks. ``name`` is kept
    as ``trace.name``. Bad input is a ValueError/TypeError naming the file and line or field.
    """
    if isinstance(path_or_ranks, dict):
        where = "ranks"
        ranks = path_or_ranks
        check_ranks(ranks, where)
    else:
        where = str(path_or_ranks) if isinstance(path_or_ranks, (str, os.PathLike)) else "tiktoken data"
        ranks = read_ranks(path_or_ranks)
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a pre-tokenizer name or a regular expression (str), got {type(pattern).__name__}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a str or None, got {type(name).__name__}")
    specials = check_specials(special_tokens, ranks, where)
    with gc_paused():  # hundreds of thousands of new objects, none of them garbage
        return trace_from_ranks(ranks, specials, pattern, name, where)


@contextmanager
def gc_paused():
    """The cyclic garbage collector off inside the block (as it was after): building a
    200,000-merge trace makes objects, never cycles to collect, and each collection walks them all."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def trace_from_ranks(ranks: dict[bytes, int], specials: dict[str, int], pattern: str, name, where: str) -> Trace:
    """The trace of checked ranks (see :func:`from_tiktoken`)."""
    by_rank, lefts, rights = merge_part_ranks(ranks, where)
    symbols = byte_symbols(by_rank)
    # each merge in byte symbols: its parts' own strings, the same objects as the vocabulary's keys
    merges = list(zip(map(symbols.__getitem__, lefts), map(symbols.__getitem__, rights)))
    trace = replay_bpe([], merges, end_of_word=None, byte_level=True, initial_alphabet="bytes",
                       pre_tokenizer=pattern, special_tokens=tuple(specials), algorithm="tiktoken-bpe")
    vocab = dict(zip(symbols, range(len(symbols))))
    vocab.update(specials)
    trace.explicit_vocab = vocab
    trace.id_table  # build now: a problem shows here, not at the first encode
    trace.name = name
    return trace


def byte_symbols(tokens: list[bytes]) -> list[str]:
    """Each token in GPT-2's printable byte symbols (``b" the"`` -> ``"Ġthe"``), all in one
    translation of the tokens laid end to end."""
    text = codecs.charmap_decode(b"".join(tokens), "strict", BYTE_CHARMAP)[0]
    ends = list(accumulate(map(len, tokens)))
    return list(map(text.__getitem__, map(slice, [0, *ends[:-1]], ends)))
