"""The widgets layer: ipywidgets explorers, wiring only. Every picture and table comes from
:mod:`bpe_viz.view`, every number from :mod:`bpe_viz.engine`; dropdown choices are derived from
the engine's tables (presets, tie rules).

* :class:`MergeExplorer` (:mod:`.merge`) — step through the merges of one training run;
* :class:`EncoderExplorer` (:mod:`.encoder`) — step through the encoding of one word;
* :class:`CompareExplorer` (:mod:`.compare`) — BPE and WordPiece side by side;
* :class:`QuizExplorer` (:mod:`.quiz`) — predict the next merge, answer by click or key;
* :class:`Predict` (:mod:`.predict`) — one "predict before you see" question of any kind, in a lesson's cell;
* :class:`UnigramExplorer` (:mod:`.unigram`) — step through the rounds of a Unigram run (pieces removed);
* :class:`SideBySideExplorer` (:mod:`.side_by_side`) — one text through several finished tokenizers, and
  why any token is what it is.

What they share: :mod:`.explorer` (the :class:`~.explorer.Explorer` base: size, step controls,
errors, the view as HTML, Save), :mod:`.training` (the explorers that train: corpus picker,
Train, progress), :mod:`.controls` (the dropdowns' choices, the corpus picker, the number
boxes), :mod:`.inputs` (a typed number, an uploaded file, the view read back as text),
:mod:`.css` (the controls at the explorer's size), :mod:`.step_pane` (the steps kept in the
page) and :mod:`.warm` (the next steps prepared while the kernel is idle).

The pattern (ipywidgets' own examples): a container subclass with a ``step`` trait; ``Play`` ↔
slider by ``widgets.jslink`` (smooth in the browser), slider ↔ ``step`` by ``traitlets.link``
(so a test or a notebook cell can set ``explorer.step = 5`` and read the view). Bad input shows
a readable message in place of the view, never a traceback; nothing is printed or displayed.
"""

from .compare import CompareExplorer
from .controls import PRESET_CHOICES
from .encoder import EncoderExplorer
from .inputs import MAX_MERGES
from .merge import MergeExplorer
from .predict import Predict
from .quiz import QuizExplorer
from .side_by_side import SideBySideExplorer
from .unigram import UnigramExplorer

__all__ = ["MergeExplorer", "EncoderExplorer", "CompareExplorer", "QuizExplorer", "UnigramExplorer",
           "SideBySideExplorer", "Predict", "MAX_MERGES", "PRESET_CHOICES"]
