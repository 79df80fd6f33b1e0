"""The encoder's iterations on one word, as HTML: the symbols, the learned pairs present with
their ranks (WordPiece: the pieces tried, longest first), the pair merged, the result; then the
final segmentation and how each of its tokens was built (:mod:`.trees`).

For the merge families (BPE, WordPiece, SentencePiece-BPE), from an engine
:class:`~bpe_viz.engine.encoding.WordWalkthrough` (``encode_word(word, trace)``); the
EncoderExplorer steps through it with its iteration slider. Unigram's counterpart is the
lattice (:func:`bpe_viz.view.unigram.html.lattice_html`).

Example::

    >>> from bpe_viz import encode_word, train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
    >>> out = walkthrough_html(encode_word("lowest", trace), trace=trace, upto=2)
    >>> out.count('<li class="bpe-iteration"'), "iteration 2 of 5" in out
    (2, True)
"""

from __future__ import annotations

from ..kit import CHOSEN_STYLE, box, check_size, convention_of, esc, more_html, short_label, token_html, word_html
from .trees import walkthrough_trees_html

__all__ = ["walkthrough_html"]

_MAX_CANDIDATES = 12  # learned pairs listed per walkthrough iteration


def _pair_candidate_html(cand, conv, chosen_pair) -> str:
    """One BPE encoder candidate ((a, b), rank); the chosen one highlighted."""
    (a, b), rank = cand
    chosen = chosen_pair is not None and (a, b) == tuple(chosen_pair)
    body = (f"({token_html(a, convention=conv)}, {token_html(b, convention=conv)}) "
            f'<span class="bpe-rank">rank {esc(rank)}</span>')
    if chosen:
        return f'<span class="bpe-candidate bpe-chosen" style="{CHOSEN_STYLE};padding:0 0.2em">{body}</span>'
    return f'<span class="bpe-candidate">{body}</span>'


def _piece_candidates_html(step, conv) -> tuple[str, str]:
    """WordPiece encoder iteration: the pieces tried (longest first) and the one taken."""
    taken = step.result[len(step.symbols)] if len(step.result) > len(step.symbols) else None
    tried = []
    for cand in step.candidates:
        piece = cand[0] if isinstance(cand, tuple) else cand
        if piece == taken:
            tried.append(
                f'<span class="bpe-candidate bpe-chosen" style="{CHOSEN_STYLE};padding:0 0.2em">'
                f"{token_html(piece, convention=conv)} in the vocabulary</span>"
            )
        else:
            tried.append(
                f'<span class="bpe-candidate bpe-rejected" style="color:#555">'
                f"{token_html(piece, convention=conv)} not in it</span>"
            )
    if taken is None:
        action = "no piece fits: the whole word becomes the unknown token"
    else:
        action = f"take {token_html(taken, convention=conv)}"
    return " ".join(tried), action


def _iteration_html(s, walkthrough, trace, conv) -> str:
    """One iteration: the candidates (pairs with ranks, or pieces tried), the action, the result."""
    if s.pair is None:
        cands, action = _piece_candidates_html(s, conv)
        label = "tried, longest first"
    else:
        cands = " ".join(_pair_candidate_html(c, conv, s.pair) for c in s.candidates[:_MAX_CANDIDATES])
        if len(s.candidates) > _MAX_CANDIDATES:
            cands += more_html(len(s.candidates) - _MAX_CANDIDATES, "more")
        a, b = s.pair
        action = (f"merge ({token_html(a, convention=conv)}, {token_html(b, convention=conv)}) "
                  f'<span class="bpe-rank">rank {esc(s.rank)}</span>')
        label = "pieces neighbours make" if getattr(walkthrough, "rule", None) else "learned pairs present"
    result = word_html(s.result, trace, conv)
    return (f'<li class="bpe-iteration" style="margin:0.25em 0"><div>{label}: {cands or "(none)"}</div>'
            f"<div>{action} &rarr; {result}</div></li>")


def _final_html(walkthrough, trace, conv, initial, n: int) -> str:
    """The end of the walkthrough: why it stopped, the final tokens, how they were built."""
    end = "no learned pair left" if not walkthrough.longest_match else "done"
    if n == 0 and len(initial) <= 1:
        end = "a single symbol: nothing to merge"
    elif n == 0:
        end = "no learned pair applies"
    out = (f'<div class="bpe-walk-final" style="margin-top:0.3em"><span style="font-weight:700">{end}:</span> '
           + f'{word_html(walkthrough.final, trace, conv)}</div>')
    if trace is not None:
        out += walkthrough_trees_html(walkthrough, trace)
    return out


def walkthrough_html(walkthrough, *, trace=None, upto: int | None = None, size: float = 1.0) -> str:
    """The encoder's iterations on one word: the symbols, the learned pairs present with their
    ranks, the lowest-rank pair merged, the result; then the final segmentation.

    ``upto`` shows only the first ``upto`` iterations (the explorer's iteration slider).
    ``trace`` (optional) adds ids to the hover titles and dims the convention's markers.

    Example::

        >>> from bpe_viz import train_bpe
        >>> from bpe_viz import encode_word
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
        >>> out = walkthrough_html(encode_word("lowest", trace), trace=trace)
        >>> out.count('<li class="bpe-iteration"'), "rank 1" in out
        (5, True)
    """
    size = check_size(size)
    conv = convention_of(trace)
    steps = list(walkthrough.steps)
    n = len(steps)
    if upto is None:
        upto = n
    if isinstance(upto, bool) or not isinstance(upto, int) or upto < 0:
        raise ValueError(f"upto must be an int >= 0, got {upto!r}")
    upto = min(upto, n)
    k = walkthrough.num_merges
    head = (
        f'<div class="bpe-walk-title" style="font-weight:700">Encoding &ldquo;{short_label(walkthrough.word)}&rdquo; '
        f"with the first {k:,} merge{'s' if k != 1 else ''}</div>"
    )
    rule = getattr(walkthrough, "rule", None) or (
        "greedy longest match: the longest vocabulary piece at the start of what is left"
        if walkthrough.longest_match else
        "each iteration merges the learned pair with the lowest rank (learned first), everywhere in the word"
    )
    parts = [head, f'<div style="color:#555;font-size:0.85em">{rule}</div>']
    initial = tuple(getattr(walkthrough, "initial", steps[0].symbols if steps else walkthrough.final))
    parts.append(
        '<div class="bpe-walk-start" style="margin:0.3em 0">start: '
        + f'{word_html(initial, trace, conv)}</div>'
    )
    items = [_iteration_html(s, walkthrough, trace, conv) for s in steps[:upto]]
    if items:
        parts.append(f'<ol class="bpe-iterations" style="margin:0.2em 0;padding-left:1.6em">{"".join(items)}</ol>')
    if upto >= n:
        parts.append(_final_html(walkthrough, trace, conv, initial, n))
    else:
        parts.append(
            f'<div class="bpe-walk-more" style="color:#555;margin-top:0.3em">iteration {upto} of {n} '
            "&mdash; move the slider to continue</div>"
        )
    return box("".join(parts), "bpe-walkthrough", size)
