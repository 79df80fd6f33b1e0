"""The views of the Unigram family: a training run's rounds as HTML (the header, the Δloss table
with its cut, the lattice of one word, several tokenizers' cuts side by side), and charts (the
pieces' probabilities, the loss by round) in matplotlib and as inline SVG.

:mod:`.rounds` (what a round shows, as data), :mod:`.html`, :mod:`.charts` (matplotlib) and
:mod:`.svg` (the same charts as SVG). Built from :mod:`bpe_viz.view.kit`, like the merge
families' views (:mod:`bpe_viz.view.merges`).
"""

from .charts import mark_round, piece_labels, plot_loss, plot_piece_probabilities
from .html import cuts_table_html, lattice_html, removal_table_html, round_header_html
from .rounds import (MAX_LATTICE_CHARS, Lattice, LatticePath, RankedPiece, RemovalRanking, check_round, lattice_paths,
                     loss_curve, piece_probabilities, removal_ranking, removed_next, same_score)
from .svg import loss_svg, piece_probabilities_svg

__all__ = [
    "MAX_LATTICE_CHARS", "check_round", "same_score", "RankedPiece", "RemovalRanking", "removal_ranking",
    "LatticePath", "Lattice", "lattice_paths", "piece_probabilities", "removed_next", "loss_curve",
    "round_header_html", "removal_table_html", "lattice_html", "cuts_table_html",
    "plot_piece_probabilities", "piece_labels", "plot_loss", "mark_round",
    "piece_probabilities_svg", "loss_svg",
]
