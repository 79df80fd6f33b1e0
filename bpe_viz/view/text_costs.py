"""A matplotlib chart of :func:`~bpe_viz.engine.text_costs.text_costs`: one line per text, its
cost (tokens per word, or bytes per token) against the vocabulary size, so the training text's
curve sits next to held-out text and another domain. The other charts draw one trace's own
numbers; this one draws texts encoded with it.

Example::

    >>> from bpe_viz import train_bpe
    >>> from bpe_viz.engine.text_costs import text_costs
    >>> trace = train_bpe("low lower lowest newer newest wider widest", 8)
    >>> ax = plot_text_costs(text_costs(trace, {"seen": "lower newest", "unseen": "slower renewed"}))
    >>> ax.get_ylabel(), [line.get_label() for line in ax.get_lines()]
    ('tokens per word', ['seen', 'unseen'])
"""

from __future__ import annotations

from ..engine.text_costs import TextCost
from .kit import BLUE, GREY, ORANGE, SKY, VERMILLION, new_axes, plain_log

__all__ = ["plot_text_costs", "COST_MEASURES"]

#: what the y axis can show: attribute of TextCost -> axis label
COST_MEASURES = {"tokens_per_word": "tokens per word", "bytes_per_token": "bytes per token"}
LINE_COLORS = (BLUE, VERMILLION, ORANGE, SKY, GREY)
LINE_STYLES = ("-", "--", "-.", ":", "-")


def plot_text_costs(costs: dict, measure: str = "tokens_per_word", ax=None, mark: int | None = None):
    """Each text's ``measure`` (``"tokens_per_word"`` or ``"bytes_per_token"``) against the
    vocabulary size (the step where a state does not say its size), log x; ``mark`` draws a
    vertical line at that vocabulary size (the one you would choose)."""
    if not isinstance(costs, dict) or not costs or not all(isinstance(c, TextCost) for c in costs.values()):
        raise TypeError("costs must be the dict text_costs returns (name -> TextCost)")
    if measure not in COST_MEASURES:
        raise ValueError(f"measure must be one of {list(COST_MEASURES)}, got {measure!r}")
    if ax is None:
        ax = new_axes((6.4, 3.4))
    by_size = all(s is not None for c in costs.values() for s in c.vocab_sizes)
    for i, (name, cost) in enumerate(costs.items()):
        xs = cost.vocab_sizes if by_size else cost.steps
        ax.plot(xs, getattr(cost, measure), color=LINE_COLORS[i % len(LINE_COLORS)],
                linestyle=LINE_STYLES[i % len(LINE_STYLES)], marker="o", markersize=3, linewidth=1.8, label=name)
    if by_size:
        from matplotlib.ticker import LogLocator

        plain_log(ax, "x", "{:,.0f}")
        ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))  # 100, 200, 500, 1,000, ...
    if mark is not None:
        ax.axvline(mark, color=GREY, linewidth=1, linestyle=":")
    ax.set_xlabel("vocabulary size" if by_size else "step")
    ax.set_ylabel(COST_MEASURES[measure])
    ax.set_ylim(0, None)
    ax.legend(frameon=False, fontsize=9)
    better = "lower is cheaper" if measure == "tokens_per_word" else "higher is cheaper"
    ax.set_title(f"{COST_MEASURES[measure].capitalize()} as the vocabulary grows ({better})", fontsize=10)
    return ax
