"""The view kit: the building blocks of every family's views, with no family in them.

:mod:`.html` (escaping, the one size rule, the scaled box, tables, badges), :mod:`.colors`
(the token palette, the chart colors), :mod:`.chips` (a token as a chip, a word as chips,
labels), :mod:`.pages` (error and message boxes, images, SVG charts as images, standalone pages), :mod:`.svg` (the
parts of an SVG chart) and :mod:`.mpl` (the parts of a matplotlib chart). The families
(:mod:`bpe_viz.view.merges`, :mod:`bpe_viz.view.unigram`) import from here, never from each
other.
"""

from .chips import (MAX_CHIPS, MAX_LABEL_CHARS, MAX_SENTENCE_TOKENS, MAX_TOKEN_CHARS, TokenInfo, byte_runs,
                    chart_label, convention_of, display_text, invisible_runs, short_label, token_html, token_infos,
                    visible_chars, word_html, word_label, word_span)
from .colors import BLUE, DIFF_BG, GREY, ORANGE, PALETTE, SKY, UNK_COLOR, VERMILLION, token_color
from .html import (BASE_PX, CHOSEN_STYLE, TIE_BADGE_STYLE, box, check_rows, check_size, esc, fraction_text,
                   keep_quotes_whole, more_html, table_html, tie_badge, tie_flag)
from .mpl import PLAIN_TEXT, empty_axes, figure_png, font_families, new_axes, plain_log, use_fallback_fonts
from .pages import error_html, image_html, message_html, page_html, svg_charts_as_images
from .svg import EDGE, FONT, FS, INK, MONO, Scale, coord, hatch, svg_axes, svg_chart, svg_text, svg_texts, width_em

__all__ = [
    # html
    "BASE_PX", "esc", "check_size", "check_rows", "box", "more_html", "CHOSEN_STYLE", "TIE_BADGE_STYLE", "tie_badge",
    "tie_flag", "table_html", "fraction_text", "keep_quotes_whole",
    # colors
    "PALETTE", "token_color", "UNK_COLOR", "VERMILLION", "ORANGE", "BLUE", "SKY", "GREY", "DIFF_BG",
    # chips
    "MAX_CHIPS", "MAX_SENTENCE_TOKENS", "MAX_LABEL_CHARS", "MAX_TOKEN_CHARS", "convention_of", "byte_runs",
    "word_label", "display_text", "token_html", "TokenInfo", "token_infos", "word_span", "word_html", "short_label",
    "chart_label", "invisible_runs", "visible_chars",
    # pages
    "error_html", "message_html", "image_html", "svg_charts_as_images", "page_html",
    # svg
    "FONT", "MONO", "FS", "INK", "EDGE", "coord", "svg_text", "width_em", "svg_chart", "hatch", "Scale", "svg_axes",
    "svg_texts",
    # matplotlib
    "PLAIN_TEXT", "font_families", "use_fallback_fonts", "new_axes", "plain_log", "empty_axes", "figure_png",
]
