"""The widgets layer: ipywidgets explorers, wiring only. Every picture and table comes from
:mod:`bpe_viz.view`, every number from :mod:`bpe_viz.engine`; dropdown choices are derived from
the engine's tables (presets, tie rules).

* :class:`MergeExplorer` (:mod:`.merge`) — step through the merges of one training run;
* :class:`EncoderExplorer` (:mod:`.encoder`) — step through the encoding of one word;
* :class:`CompareExplorer` (:mod:`.compare`) — BPE and WordPiece side by side;
* :class:`QuizExplorer` (:mod:`.quiz`) — predict the next merge, answer by click or key;
* :class:`UnigramExplorer` (:mod:`.unigram`) — step through the rounds of a Unigram run (pieces removed).

The pattern (ipywidgets' own examples): a container subclass with a ``step`` trait; ``Play`` ↔
slider by ``widgets.jslink`` (smooth in the browser), slider ↔ ``step`` by ``traitlets.link``
(so a test or a notebook cell can set ``explorer.step = 5`` and read the view). Bad input shows
a readable message in place of the view, never a traceback; nothing is printed or displayed.
"""

from .common import MAX_MERGES, PRESET_CHOICES
from .compare import CompareExplorer
from .encoder import EncoderExplorer
from .merge import MergeExplorer
from .quiz import QuizExplorer
from .unigram import UnigramExplorer

__all__ = ["MergeExplorer", "EncoderExplorer", "CompareExplorer", "QuizExplorer", "UnigramExplorer", "MAX_MERGES", "PRESET_CHOICES"]
