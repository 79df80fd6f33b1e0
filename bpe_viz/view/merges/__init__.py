"""The views of the merge families (BPE, WordPiece, SentencePiece-BPE): a trace, a step and its
merge as HTML, the step's tables, segmentations, the encoder's walkthrough, merge trees and the
quiz; charts in matplotlib and as inline SVG.

:mod:`.steps` (the merge, a snapshot, the header, a run in a sentence), :mod:`.tables` (words,
pairs, vocabulary), :mod:`.segments` (chips of a text, of some words), :mod:`.walkthrough` (the
encoder on one word), :mod:`.trees` (how a token was built), :mod:`.quiz` (questions and
answers), :mod:`.chart_data` (what the charts show), :mod:`.charts` (matplotlib) and
:mod:`.svg` (the same charts as SVG). Everything is built from :mod:`bpe_viz.view.kit`.
"""

from .chart_data import bpe_wordpiece_picks, compression_curve, merge_sequences, pair_label, pair_notes
from .charts import (bar_notes, pair_labels, plot_bpe_vs_wordpiece, plot_compression, plot_merge_counts,
                     plot_merge_sequences, plot_pair_counts)
from .quiz import answer_html, pair_chips, question_html, summary_html
from .segments import segmentation_html, segments_html
from .steps import merge_html, snapshot_html, step_header_html, stop_note, tied_pairs, trace_html
from .svg import bpe_vs_wordpiece_svg, compression_svg, merge_counts_svg, merge_sequences_svg, pair_counts_svg
from .tables import pairs_table_html, vocab_table_html, words_table_html
from .trees import MAX_BOXES, merge_tree_html, merge_trees_html, no_tree_html, walkthrough_trees_html
from .walkthrough import walkthrough_html

__all__ = [
    "snapshot_html", "trace_html", "step_header_html", "stop_note", "merge_html", "tied_pairs",
    "words_table_html", "pairs_table_html", "vocab_table_html", "segments_html", "segmentation_html",
    "walkthrough_html", "merge_tree_html", "merge_trees_html", "walkthrough_trees_html", "no_tree_html", "MAX_BOXES",
    "question_html", "answer_html", "summary_html", "pair_chips",
    "pair_label", "pair_notes", "compression_curve", "bpe_wordpiece_picks", "merge_sequences",
    "pair_labels", "bar_notes", "plot_pair_counts", "plot_merge_counts", "plot_compression", "plot_bpe_vs_wordpiece",
    "plot_merge_sequences",
    "pair_counts_svg", "merge_counts_svg", "compression_svg", "bpe_vs_wordpiece_svg", "merge_sequences_svg",
]
