"""The view layer: pure functions from engine objects to HTML strings (:mod:`.html`) and
matplotlib Axes (:mod:`.charts`). Nothing here trains, encodes, displays or prints; the widgets
(:mod:`bpe_viz.widgets`) put what these return on screen.
"""

from ..engine.merges.trace import set_html_renderer
from .html import snapshot_html, trace_html

set_html_renderer(snapshot_html, trace_html)

__all__ = ["snapshot_html", "trace_html"]
