"""The parts every matplotlib chart is made of: fonts for any script, a new Axes when none is
given, plain log scales, the "nothing to draw" Axes, and :func:`figure_png`.

The kit's matplotlib half (:mod:`.svg` is its SVG half): the families' charts
(:mod:`bpe_viz.view.merges.charts`, :mod:`bpe_viz.view.unigram.charts`) draw with the
object-oriented API on the ``ax`` they are given (or on :func:`new_axes`) and never call
``plt.show()``. Token text is drawn with :data:`PLAIN_TEXT` (``parse_math=False``) so a ``$`` in a
corpus is shown as it is, and with a list of fonts (:func:`font_families`): DejaVu for Latin,
Greek and Cyrillic, then Noto Sans CJK for Korean, Japanese and Chinese, then Symbola for emoji,
where installed (``binder/apt.txt``, ``.ci/run``); a glyph no font has draws as a box *and*
matplotlib's "Glyph ... missing" warning says so. Fonts installed after matplotlib listed the
system's fonts in its cache are found anyway (:func:`register_fonts`). Output is deterministic
(no randomness, no timestamps in the PNG), so notebooks with stored outputs compare equal.
matplotlib is imported only when a function here runs.

Example::

    >>> from matplotlib.figure import Figure
    >>> ax = empty_axes(Figure().add_subplot(), "no merges yet")
    >>> [t.get_text() for t in ax.texts]
    ['no merges yet']
"""

from __future__ import annotations

import io
import logging
import os

__all__ = ["PLAIN_TEXT", "register_fonts", "font_families", "use_fallback_fonts", "new_axes", "plain_log",
           "empty_axes", "figure_png"]

PLAIN_TEXT = dict(parse_math=False)  # a "$" in a token is a dollar sign, not mathtext

# Fonts tried after matplotlib's own (DejaVu), glyph by glyph (matplotlib >= 3.6 falls back
# through a family list). Noto Color Emoji is not among them: its glyphs are color bitmaps,
# which matplotlib does not load (the browser draws them in the HTML views); Symbola has
# outline emoji matplotlib can draw.
_FALLBACKS = {
    "sans-serif": ("Noto Sans CJK JP", "Symbola"),
    "monospace": ("Noto Sans Mono CJK JP", "Noto Sans CJK JP", "Symbola"),
}
_INSTALLED: dict = {}
#: the files the fallbacks come from, by the start of their names: Noto Sans CJK (Debian's
#: fonts-noto-cjk: NotoSansCJK-Regular.ttc holds Noto Sans CJK JP and Noto Sans Mono CJK JP;
#: other systems: NotoSansCJKjp-Regular.otf, NotoSansMonoCJKjp-Regular.otf) and Symbola (fonts-symbola)
_FALLBACK_FILES = ("NotoSansCJK", "NotoSansMonoCJK", "Symbola")
_REGISTERED: dict = {}


def _regular_face_is_fine(record) -> bool:
    """A logging filter: a bold label falling back to Symbola (which has no bold face) uses its
    regular face, as it should; matplotlib would print a warning under the chart for it."""
    args = record.args if isinstance(record.args, tuple) else ()
    return not (str(record.msg).startswith("findfont: Failed to find font weight")
                and len(args) > 1 and any(args[1] in names for names in _FALLBACKS.values()))


logging.getLogger("matplotlib.font_manager").addFilter(_regular_face_is_fine)


def register_fonts() -> tuple[str, ...]:
    """Make the installed fallback fonts known to matplotlib; returns the files it registered.

    subtle: matplotlib lists the system's fonts once, in a cache (``fontlist-*.json`` in its
    cache folder, ``~/.cache/matplotlib``). Fonts installed after that (``apt-get install
    fonts-noto-cjk`` after a first chart, or in a Docker layer built after matplotlib's) are not
    in it, and Korean or emoji labels draw as boxes. So when a fallback is missing from the list,
    its files are looked for among the system's fonts (matplotlib's own search of the usual font
    folders; nothing is downloaded) and added (``fontManager.addfont``), once per process; the
    cache file is left as it is.

    Example::

        >>> all(os.path.basename(f).startswith(("NotoSansCJK", "NotoSansMonoCJK", "Symbola"))
        ...     for f in register_fonts())
        True
    """
    from matplotlib import font_manager

    fm = font_manager.fontManager
    added = _REGISTERED.get(id(fm))
    if added is not None:
        return added
    listed = {f.name for f in fm.ttflist}
    missing = {name for names in _FALLBACKS.values() for name in names} - listed
    found = []
    if missing:
        known = {f.fname for f in fm.ttflist}
        for path in sorted(font_manager.findSystemFonts(fontext="ttf")):  # (.ttf, .otf and .ttc)
            if path not in known and os.path.basename(path).startswith(_FALLBACK_FILES):
                try:
                    fm.addfont(path)
                except Exception:  # a file FreeType cannot read: matplotlib skips it too
                    continue
                found.append(path)
    added = _REGISTERED[id(fm)] = tuple(found)
    _INSTALLED.pop(id(fm), None)  # (font_families lists the names again)
    return added


def font_families(generic: str = "sans-serif") -> list[str]:
    """The fonts a chart's text uses, in order: matplotlib's first installed font for
    ``generic`` ("sans-serif" or "monospace"), then the installed fallbacks for the scripts it
    lacks (Hangul, kana, Han; emoji).

    Example::

        >>> font_families("sans-serif")[0], font_families("monospace")[0]
        ('DejaVu Sans', 'DejaVu Sans Mono')
    """
    if generic not in _FALLBACKS:
        raise ValueError(f"generic must be one of {sorted(_FALLBACKS)}, got {generic!r}")
    from matplotlib import font_manager, rcParams

    register_fonts()
    fm = font_manager.fontManager
    names = _INSTALLED.get(id(fm))
    if names is None:
        names = _INSTALLED[id(fm)] = frozenset(f.name for f in fm.ttflist)
    first = next((f for f in rcParams[f"font.{generic}"] if f in names), None)
    out = [first] if first else []
    return out + [f for f in _FALLBACKS[generic] if f in names and f not in out]


def use_fallback_fonts(fig):
    """Give every text of ``fig`` still on a generic family ("sans-serif", "monospace") its
    list of fonts (:func:`font_families`), so that Korean, Chinese and emoji labels draw."""
    from matplotlib.text import Text

    lists = {}
    for text in fig.findobj(Text):
        family = text.get_fontfamily()
        if len(family) == 1 and family[0] in _FALLBACKS:
            fams = lists.get(family[0])
            if fams is None:
                fams = lists[family[0]] = font_families(family[0])
            if len(fams) > 1:
                text.set_fontfamily(fams)
    return fig


def new_axes(figsize):
    """The Axes of a new pyplot figure of ``figsize`` inches (constrained layout)."""
    # pyplot only when the caller gave no Axes: then the figure shows in a notebook like any
    # other matplotlib call. The explorers pass Axes of their own Figure (no pyplot state).
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def plain_log(ax, which: str, fmt: str):
    """A log scale with plain labels ("1,000", "1e-05") and no minor ticks: easier to read, and
    much faster to draw than mathtext 10³ labels (the explorers redraw a chart per slider step)."""
    from matplotlib.ticker import FuncFormatter, NullLocator

    if which == "x":
        ax.set_xscale("log")
        axis = ax.xaxis
    else:
        ax.set_yscale("log")
        axis = ax.yaxis
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt.format(v)))
    axis.set_minor_locator(NullLocator())


def empty_axes(ax, message: str):
    """``ax`` with ``message`` in its middle and no ticks: a chart with nothing to draw."""
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, wrap=True, **PLAIN_TEXT)
    ax.set_xticks([])
    ax.set_yticks([])
    return ax


def figure_png(fig, dpi: float | None = None) -> bytes:
    """PNG bytes of a Figure (or of an Axes' figure), for ``widgets.Image(value=...)``.

    Deterministic: the PNG carries no software version or date. Texts get the fallback fonts
    (:func:`font_families`); a character no installed font has still draws as a box, and
    matplotlib's "Glyph ... missing from font(s)" warning is let through, to say so.

    Example::

        >>> from matplotlib.figure import Figure
        >>> fig = Figure(figsize=(2, 1)); _ = fig.add_subplot().plot([1, 2])
        >>> figure_png(fig)[:8] == b"\\x89PNG\\r\\n\\x1a\\n", figure_png(fig) == figure_png(fig)
        (True, True)
    """
    fig = getattr(fig, "figure", fig) if not hasattr(fig, "savefig") else fig
    if not hasattr(fig, "savefig"):
        raise TypeError(f"fig must be a matplotlib Figure or Axes, got {type(fig).__name__}")
    import matplotlib

    buf = io.BytesIO()
    # no font hinting: a third faster to draw (text dominates these small charts, and an explorer
    # redraws one per slider step), and at these sizes it looks as crisp
    use_fallback_fonts(fig)
    with matplotlib.rc_context({"text.hinting": "no_hinting"}):
        fig.savefig(buf, format="png", dpi=dpi if dpi is not None else "figure", metadata={"Software": None})
    return buf.getvalue()
