"""Chart labels in Korean and emoji: drawn with fallback fonts, and a glyph no font has is said
out loud (matplotlib's "Glyph ... missing" warning is no longer silenced).

The fonts come from Debian (binder/apt.txt; .ci/run installs them): Noto Sans CJK for Hangul,
kana and Han, Symbola for emoji (matplotlib cannot draw Noto Color Emoji's bitmaps). Without
them the tests that need them skip, saying which font is missing.
"""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import pytest
from matplotlib.figure import Figure

from bpe_viz import corpora, train_bpe
from bpe_viz.view import figure_png, font_families, pair_labels, plot_pair_counts


def installed(family: str) -> bool:
    from matplotlib import font_manager

    return any(f.name == family for f in font_manager.fontManager.ttflist)


def needs(family: str):
    return pytest.mark.skipif(
        not installed(family),
        reason=f"the font {family!r} is not installed (apt-get install -y fonts-noto-cjk fonts-symbola, as "
               "binder/apt.txt lists; if it is, delete matplotlib's font cache: ~/.cache/matplotlib/fontlist-*.json)")


def glyph_warnings(fig) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure_png(fig, dpi=72)
    return [str(w.message) for w in caught if "missing from font" in str(w.message)]


@needs("Noto Sans CJK JP")
def test_korean_pair_labels_draw_without_missing_glyphs():
    trace = train_bpe(corpora.load("korean"), 5, preset="hf-course")
    fig = Figure(figsize=(6.4, 3.4))
    ax = plot_pair_counts(trace[1], top=6, ax=fig.add_subplot())
    labels = pair_labels(ax)
    assert any("\uac00" <= ch <= "\ud7a3" for label in labels for ch in label), labels  # Hangul syllables
    assert glyph_warnings(fig) == []
    assert "Noto Sans CJK JP" in font_families("sans-serif")
    assert font_families("monospace")[1] == "Noto Sans Mono CJK JP"


@needs("Symbola")
def test_emoji_labels_draw_without_missing_glyphs():
    trace = train_bpe("🐍🎉 party 🐍🎉 party 🦀 crab 🦀", 3, preset="hf-course")
    fig = Figure(figsize=(6.4, 3.4))
    ax = plot_pair_counts(trace[0], top=6, ax=fig.add_subplot())
    ax.set_title("emoji: 🐍🎉🦀")
    assert any("🐍" in label or "🦀" in label for label in pair_labels(ax))
    assert glyph_warnings(fig) == []


def test_a_glyph_no_font_has_is_reported_not_hidden():
    """U+10FFFD is a private-use code point: no font draws it. The chart still renders (a box)
    and the warning reaches the learner."""
    fig = Figure(figsize=(3, 1))
    ax = fig.add_subplot()
    ax.set_title("\U0010fffd")
    missing = glyph_warnings(fig)
    assert missing and "1114109" in missing[0]


def test_fallback_fonts_are_only_installed_ones():
    from matplotlib import font_manager

    names = {f.name for f in font_manager.fontManager.ttflist}
    for generic in ("sans-serif", "monospace"):
        fams = font_families(generic)
        assert fams and set(fams) <= names
    with pytest.raises(ValueError, match="generic must be one of"):
        font_families("serif")
