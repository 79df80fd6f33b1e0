"""A merge trace's segmentations as HTML: a text's tokens as colored chips, and how a step splits
some words (``word → chips``, one line each).

For the merge families (BPE, WordPiece, SentencePiece-BPE): each token is a chip
(:func:`~bpe_viz.view.kit.chips.token_html`) whose hover title gives its id and the merge that
made it. The tables of a step are in :mod:`.tables`, the encoder's iterations on one word in
:mod:`.walkthrough`.

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
    >>> out = segmentation_html(trace[3], ["widest"])
    >>> "est</w>" in out, "est&lt;/w&gt;" in out   # escaped, never raw HTML
    (False, True)
"""

from __future__ import annotations

from collections.abc import Sequence

from ..kit import (MAX_CHIPS, MAX_SENTENCE_TOKENS, box, check_size, convention_of, more_html, short_label,
                   token_html, token_infos, word_html, word_span)
from .tables import segmentation_of

__all__ = ["segments_html", "segmentation_html"]


def _is_encoding(obj) -> bool:
    return all(hasattr(obj, a) for a in ("pieces", "tokens", "ids", "word_ids", "unknown", "made_at"))


def segments_html(source, trace=None, *, size: float = 1.0, highlight=None) -> str:
    """Colored segments of an :class:`~bpe_viz.engine.encoding.Encoding` (``encode(text,
    trace)``, or ``encode_head(...)``: the words it left out are counted in the "… more"
    note), or of a tuple of symbols (``trace`` then adds ids to the hover titles).

    Each token is a bordered chip colored by :func:`token_color`; hovering shows the token, its
    id and the merge that made it. Markers are dimmed, unknown characters outlined in red.
    ``highlight`` thickens the border of one token (e.g. the one just made). ``size`` scales
    everything (2.0 for a projector).

    Example::

        >>> from bpe_viz import encode, train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> out = segments_html(encode("lowest", trace))
        >>> out.count('class="bpe-token'), "made by merge 5: (lo, w)" in out
        (2, True)
    """
    size = check_size(size)
    if isinstance(source, str):
        # subtle: a str is also a sequence of one-character strings; say what to do instead
        raise TypeError(
            "segments_html takes an Encoding, not text: encode the text first, "
            "segments_html(encode(text, trace)) (encode(text, trace, k) for the first k merges)"
        )
    if _is_encoding(source):
        enc = source
        trace = getattr(enc, "trace", trace)
        convention = convention_of(trace)
        info = token_infos(trace)
        words: list[tuple[list[str], list[int]]] = []  # (chips drawn, [tokens in the word])
        last = None
        drawn = 0
        for piece, tok, tid, wid, unk, made in zip(
            enc.pieces, enc.tokens, enc.ids, enc.word_ids, enc.unknown, enc.made_at
        ):
            if wid != last:
                words.append(([], [0]))
                last = wid
            chips, n = words[-1]
            n[0] += 1
            # long text: draw MAX_CHIPS per word and MAX_SENTENCE_TOKENS in all, count the rest
            if len(chips) >= MAX_CHIPS or drawn >= MAX_SENTENCE_TOKENS:
                continue
            drawn += 1
            if unk:
                title = info.title(piece, tid, None) if info else f"{piece}\nunknown character"
            else:
                title = info.title(tok, tid, made) if info else f"{tok}\nid {tid}"
            chips.append(
                token_html(piece, convention=convention, title=title, unknown=unk,
                           emphasize=highlight is not None and piece == highlight)
            )
        # the words an encode_head left out (a long text: only counted), then those not drawn
        hidden_words, hidden_tokens = getattr(enc, "more_words", 0), getattr(enc, "more_tokens", 0)
        parts = []
        for chips, (n,) in words:
            if not chips:
                hidden_words += 1
                hidden_tokens += n
                continue
            more = more_html(n - len(chips), "more") if n > len(chips) else ""
            parts.append(word_span("".join(chips) + more, n))
        if hidden_words:
            parts.append(more_html(hidden_tokens, f"more tokens in {hidden_words:,} more "
                                   f"word{'s' if hidden_words != 1 else ''}"))
        inner = "".join(parts)
        if not words:
            inner = '<span class="bpe-empty" style="color:#666">(no tokens: the text has no words)</span>'
        return box(inner, "bpe-segments", size)
    if isinstance(source, Sequence) and all(isinstance(s, str) for s in source):
        return box(word_html(source, trace, convention_of(trace), highlight), "bpe-segments", size)
    raise TypeError(
        "segments_html takes an Encoding (from encode), a tuple of symbols, or text with a trace; "
        f"got {type(source).__name__}"
    )


def segmentation_html(snapshot, words=None, *, max_words: int = 30, size: float = 1.0) -> str:
    """How a snapshot splits some words: ``word  →  colored symbols``, one line each.

    ``words``: which words (default: the corpus's first ``max_words``). A word not in the
    corpus is encoded with the snapshot's merges (``snapshot.encode``: the learned merges up to
    this step).

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
        >>> segmentation_html(trace[3], ["newest"]).count('class="bpe-token')
        4
    """
    size = check_size(size)
    trace = snapshot.trace
    if isinstance(words, str):
        words = words.split()
    elif words is not None:
        words = list(words)
    # only the words shown are spelled (a step shows a few of thousands)
    rows = len(words) if words is not None else max_words if type(max_words) is int and max_words > 0 else None
    seg = segmentation_of(snapshot, rows)
    if words is None:
        words = list(seg)[:max_words]
    highlight = snapshot.merge.token if snapshot.merge is not None else None
    convention = trace.convention
    rows = []
    for w in words:
        if w in seg:
            chips = word_html(seg[w], trace, convention, highlight)
            note = ""
        else:
            chips = segments_html(snapshot.encode(w), highlight=highlight)
            note = ' <span style="color:#666;font-size:0.85em">(not in the corpus: encoded)</span>'
        rows.append(
            f'<div class="bpe-seg-row"><span class="bpe-seg-word" style="display:inline-block;'
            f'min-width:6em;font-weight:600">{short_label(w)}</span> &rarr; '
            f'{chips}{note}</div>'
        )
    return box("".join(rows), "bpe-segmentation", size)
