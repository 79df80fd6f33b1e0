"""The view layer: pure functions from engine objects to HTML strings, inline SVG strings and
matplotlib Axes. Nothing here trains, encodes, displays or prints; the widgets
(:mod:`bpe_viz.widgets`) put what these return on screen, and import every name from here.

Cut by family, like the engine: :mod:`.kit` (the building blocks every family shares: escaping,
the one size rule, boxes, tables, chips and colors, SVG and matplotlib parts, pages),
:mod:`.merges` (BPE, WordPiece and SentencePiece-BPE: steps, tables, segmentations, the encoder's
walkthrough, merge trees, the quiz, charts) and :mod:`.unigram` (rounds, the Δloss table, the
lattice, charts); beside them :mod:`.compare_tokenizers` (finished tokenizers of any family side by
side on one text, token counts across languages: the one view that encodes, since a comparison
is its encodings). Importing this package registers the HTML a Snapshot and a Trace show in a
notebook.
"""

from ..engine.merges.trace import set_html_renderer
from .compare_tokenizers import (MAX_COMPARE_CHARS, Comparison, TokenizerRow, compare_tokenizers, comparison_html,
                                 language_table, language_table_html, named_tokenizers, token_label, tokenizers_html)
from .kit import (BLUE, MAX_CHIPS, MAX_LABEL_CHARS, MAX_SENTENCE_TOKENS, ORANGE, PALETTE, VERMILLION, display_text,
                  error_html, figure_png, font_families, image_html, message_html, page_html, short_label,
                  svg_charts_as_images, svg_texts, token_color, token_html, word_label)
from .merges import (MAX_BOXES, answer_html, bar_notes, bpe_vs_wordpiece_svg, bpe_wordpiece_picks, compression_curve,
                     compression_svg, merge_counts_svg, merge_html, merge_sequences, merge_sequences_svg,
                     merge_tree_html, merge_trees_html, no_tree_html, pair_chips, pair_counts_svg, pair_labels,
                     pairs_table_html, plot_bpe_vs_wordpiece, plot_compression, plot_merge_counts,
                     plot_merge_sequences, plot_pair_counts, question_html, segmentation_html, segments_html,
                     snapshot_html, step_header_html, stop_note, summary_html, tied_pairs, trace_html,
                     vocab_table_html, walkthrough_html, walkthrough_trees_html, words_table_html)
from .unigram import (MAX_LATTICE_CHARS, Lattice, LatticePath, RankedPiece, RemovalRanking, cuts_table_html,
                      lattice_html, lattice_paths, loss_curve, loss_svg, mark_round, piece_labels,
                      piece_probabilities, piece_probabilities_svg, plot_loss, plot_piece_probabilities,
                      removal_ranking, removal_table_html, round_header_html)
from .predictions import prediction_answer_html, prediction_html
from .text_costs import COST_MEASURES, plot_text_costs
from .why import MAX_STEPS, why_html

set_html_renderer(snapshot_html, trace_html)

__all__ = [
    # colors, chips and labels
    "PALETTE", "BLUE", "ORANGE", "VERMILLION", "token_color", "token_html", "display_text", "short_label",
    "word_label", "pair_chips", "MAX_CHIPS", "MAX_LABEL_CHARS", "MAX_SENTENCE_TOKENS",
    # pages, messages and images
    "page_html", "error_html", "message_html", "image_html", "svg_charts_as_images", "figure_png", "font_families",
    # merge families (BPE, WordPiece, SentencePiece-BPE): HTML
    "snapshot_html", "trace_html", "step_header_html", "stop_note", "merge_html", "tied_pairs", "pairs_table_html",
    "vocab_table_html", "words_table_html", "segments_html", "segmentation_html", "walkthrough_html",
    "merge_tree_html", "merge_trees_html", "walkthrough_trees_html", "no_tree_html", "MAX_BOXES",
    "question_html", "answer_html", "summary_html",
    # merge families: charts (matplotlib) and their SVG twins
    "pair_labels", "bar_notes", "plot_pair_counts", "plot_merge_counts", "plot_compression", "compression_curve",
    "plot_bpe_vs_wordpiece", "bpe_wordpiece_picks", "plot_merge_sequences", "merge_sequences",
    "pair_counts_svg", "merge_counts_svg", "compression_svg", "bpe_vs_wordpiece_svg", "merge_sequences_svg",
    "svg_texts",
    # Unigram
    "MAX_LATTICE_CHARS", "RankedPiece", "RemovalRanking", "removal_ranking", "LatticePath", "Lattice",
    "lattice_paths", "round_header_html", "removal_table_html", "lattice_html", "cuts_table_html",
    "piece_probabilities", "plot_piece_probabilities", "piece_labels", "loss_curve", "plot_loss", "mark_round",
    "piece_probabilities_svg", "loss_svg",
    # any tokenizer: why one token
    "why_html", "MAX_STEPS",
    # several tokenizers side by side (any family)
    "MAX_COMPARE_CHARS", "Comparison", "TokenizerRow", "compare_tokenizers", "comparison_html", "tokenizers_html",
    "token_label", "named_tokenizers", "language_table", "language_table_html",
    # any tokenizer: what texts cost as the vocabulary grows
    "plot_text_costs", "COST_MEASURES",
    # a "predict before you see" question of any kind
    "prediction_html", "prediction_answer_html",
]
