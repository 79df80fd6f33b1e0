"""A merge trace, a step of it, and the merge a step made, as HTML: the merge (with its ties),
a whole snapshot (the merge and the three tables), the stepper's header, why training stopped,
and a training run in a sentence.

For the merge families (BPE, WordPiece, SentencePiece-BPE). :func:`snapshot_html` and
:func:`trace_html` are what a :class:`~bpe_viz.engine.merges.trace.Snapshot` and a
:class:`~bpe_viz.engine.merges.trace.Trace` show in a notebook (:mod:`bpe_viz.view` registers
them). The tables themselves are in :mod:`.tables`.

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
    >>> "Step 2 of 3" in snapshot_html(trace[2]), "3 merges" in trace_html(trace)
    (True, True)
"""

from __future__ import annotations

from ..kit import box, check_size, convention_of, esc, fraction_text, keep_quotes_whole, tie_flag, token_html
from .tables import pairs_table_html, vocab_table_html, words_table_html

__all__ = ["tied_pairs", "merge_html", "snapshot_html", "stop_note", "step_header_html", "trace_html"]


def _merge_trace(merge, trace):
    if trace is not None:
        return trace
    return merge.trace


def tied_pairs(merge, trace=None) -> tuple:
    """The pairs that had the same top count (or score) as ``merge`` just before it, in
    tie-rule order: ``merge.tied`` (the engine orders only those pairs, so this is cheap).

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
        >>> tied_pairs(trace.merges[0])
        (('s', 't'), ('t', '</w>'))
    """
    return tuple(merge.tied)


def merge_html(merge, *, trace=None, max_tied: int = 6, size: float = 1.0) -> str:
    """The merge just made: "merge 3: (es, t) → est, count 9", with "tie!" and the tied pairs.

    ``merge`` may be ``None`` (step 0: no merge yet). WordPiece merges also show their score.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
        >>> out = merge_html(trace.merges[1])
        >>> "tie!" in out, "merge 2:" in out
        (True, True)
    """
    size = check_size(size)
    if merge is None:
        inner = (
            '<span class="bpe-merge-title" style="font-weight:700">step 0:</span> no merge yet '
            "&mdash; every word is split into its initial symbols"
        )
        return box(inner, "bpe-merge bpe-merge-none", size, "padding:0.3em 0")
    trace = _merge_trace(merge, trace)
    conv = convention_of(trace)
    a, b = merge.pair
    parts = [
        f'<span class="bpe-merge-title" style="font-weight:700">merge {merge.step}:</span> (',
        token_html(a, convention=conv), ", ", token_html(b, convention=conv),
        ") &rarr; ", token_html(merge.token, convention=conv, emphasize=True),
        f', count <span class="bpe-count">{merge.count:,}</span>',
    ]
    if merge.score is not None:
        s = merge.score
        parts.append(
            f', score <span class="bpe-score" title="{esc(f"{s.numerator}/{s.denominator}")}">'
            f"{esc(f'{s.numerator}/{s.denominator}')} &asymp; {fraction_text(s)}</span>"
        )
    # only the tied pairs shown are ranked (thousands may tie late in a run on a real text)
    tied, n_tied = merge.trace.tied_head(merge.step, max_tied) if merge.trace is not None else ((), 0)
    if n_tied:
        what = "score" if merge.score is not None else f"count {merge.count:,}"
        shown = ", ".join(
            "(" + token_html(p[0], convention=conv) + ", " + token_html(p[1], convention=conv) + ")"
            for p in tied[:max_tied]
        )
        more = f" and {n_tied - max_tied:,} more" if n_tied > max_tied else ""
        rule = ""
        if conv is not None:
            rule = f" &mdash; the tie rule took the {esc(conv.tie_rule.takes)}"
        parts.append(
            tie_flag() + f'<div class="bpe-tied" style="font-size:0.9em;margin-top:0.2em">same top {what}: '
            f"{shown}{more}{rule}</div>"
        )
    return box("".join(parts), "bpe-merge", size, "padding:0.3em 0")


def snapshot_html(snapshot, *, max_rows: int = 10, size: float = 1.0) -> str:
    """Everything about one step: the merge just made, then the words, pairs and vocabulary
    tables side by side (each cut to ``max_rows``). ``Snapshot._repr_html_`` uses this.

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
        >>> out = snapshot_html(trace[2])
        >>> "merge 2:" in out and "Pairs at step 2" in out
        True
    """
    size = check_size(size)
    trace = snapshot.trace
    last = len(trace) - 1
    head = (
        f'<div class="bpe-step" style="font-weight:700;font-size:1.1em">Step {snapshot.step} of {last}</div>'
        f'<div class="bpe-convention" style="color:#555;font-size:0.85em">{esc(trace.convention.describe())}</div>'
    )
    stop = ""
    if snapshot.step == last and trace.stop_reason != "running":
        stop = (f'<div class="bpe-stop" style="color:#555">training stopped here: '
                f"{esc(trace.stopped_because)}</div>")
    tables = (
        '<div class="bpe-tables" style="display:flex;flex-wrap:wrap;align-items:flex-start">'
        + words_table_html(snapshot, max_rows)
        + pairs_table_html(snapshot, max_rows)
        + vocab_table_html(snapshot, max_rows, order="newest")
        + "</div>"
    )
    return box(head + merge_html(snapshot.merge, trace=trace) + stop + tables, "bpe-snapshot", size)


def stop_note(trace, asked: int | None = None) -> str:
    """Why training stopped before the merges asked for, as a sentence; ``""`` when it did not
    stop early (``asked``: the merges asked for, when known).

    Example::

        >>> from bpe_viz import train_bpe
        >>> stop_note(train_bpe("low low lower", 100), asked=100)
        'Training stopped after 3 of the 100 merges asked for: no pair occurs at least min_frequency times (min_frequency 2).'
        >>> stop_note(train_bpe("low low lower", 2), asked=2)
        ''
    """
    if trace.stop_reason in ("num_merges", "running"):
        return ""
    n = len(trace.merges)
    if asked is not None and asked > n:
        done = f"{n:,} of the {asked:,} merges asked for"
    else:
        done = f"{n:,} merge{'s' if n != 1 else ''}"
    because = trace.stopped_because
    if trace.stop_reason == "min_frequency":
        because += f" (min_frequency {trace.convention.min_frequency})"
    return f"Training stopped after {done}: {because}."


def step_header_html(trace, step: int, *, asked: int | None = None, size: float = 1.0,
                     compact: bool = False) -> str:
    """The stepper's header: "Step k of N", the conventions, and why training stopped when it
    stopped before the ``asked`` merges (on every step: it explains why N is small).
    ``compact``: the conventions in a smaller font (a projector, where the header would take
    three lines).

    Example::

        >>> from bpe_viz import train_bpe
        >>> out = step_header_html(train_bpe("low low lower", 100), 2, asked=100)
        >>> "Step 2 of 3" in out, "stopped after 3 of the 100" in out, "white-space:nowrap" in out
        (True, True, True)
    """
    size = check_size(size)
    last = len(trace) - 1
    small = ' style="font-size:0.6em"' if compact else ""
    inner = (f'<span class="bpe-step" style="font-weight:700">Step {step} of {last}</span> &mdash; '
             f'<span class="bpe-convention"{small}>{keep_quotes_whole(esc(trace.convention.describe()))}</span>')
    note = stop_note(trace, asked)
    if note:
        inner += f'<div class="bpe-stop" style="font-weight:600">{esc(note)}</div>'
    return box(inner, "bpe-message bpe-header", size, "color:#333;padding:0.3em 0")


_ALGORITHM_NAMES = {"bpe": "BPE", "wordpiece": "WordPiece", "unigram": "Unigram"}


def trace_html(trace, *, size: float = 1.0) -> str:
    """A training run in a sentence: what a notebook (and a Voilà app, which hides the code)
    shows for a trace instead of ``<Trace bpe: 3 merges on 1 distinct words; ...>``.

    Example::

        >>> from bpe_viz import train_bpe
        >>> out = trace_html(train_bpe("aaabdaaabac", 10, preset="hf-course"))
        >>> import re; re.sub("<[^>]+>", "", out).split(". ")[0]
        'A BPE training run: 3 merges on 1 distinct word'
    """
    size = check_size(size)
    n, w = len(trace.merges), len(trace.words)
    algo = _ALGORITHM_NAMES.get(trace.convention.algorithm, trace.convention.algorithm)
    because = trace.stopped_because
    if trace.stop_reason == "min_frequency":
        because += f" (min_frequency {trace.convention.min_frequency})"
    inner = (
        f'A {esc(algo)} training run: <span style="font-weight:700">{n:,} merge{"s" if n != 1 else ""}</span> '
        f'on {w:,} distinct word{"s" if w != 1 else ""}. It stopped because {esc(because)}.'
        f'<div class="bpe-convention" style="color:#555;font-size:0.85em">'
        f"{keep_quotes_whole(esc(trace.convention.describe()))}</div>"
    )
    return box(inner, "bpe-trace", size, "padding:0.3em 0")
