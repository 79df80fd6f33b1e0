"""The CSS of the explorers' own controls: ipywidgets draws its dropdowns, sliders and buttons
from CSS variables, which :func:`controls_css` sets for one explorer at its size option.

The views' HTML is not styled here: every view function takes its own ``size`` argument
(:mod:`bpe_viz.view`). :class:`~bpe_viz.widgets.explorer.Explorer` puts this ``<style>`` in a
hidden HTML widget of its own.
"""

from __future__ import annotations

__all__ = ["controls_css"]


def controls_css(cls: str, size: float) -> str:
    """A ``<style>`` that scales the ipywidgets controls inside ``.bpe-explorer.<cls>`` by
    ``size``: ipywidgets sizes them from CSS variables, which cascade. (The views' own HTML is
    scaled by its ``size`` argument; this is for the dropdowns, sliders and buttons.)

    Example::

        >>> "--jp-widgets-font-size:26px" in controls_css("bpe-size-200", 2.0)
        True
    """
    px = {  # ipywidgets 8's defaults at size 1
        "font-size": 13, "inline-height": 28, "inline-label-width": 80, "inline-width": 300,
        "inline-width-short": 148, "inline-width-tiny": 76, "slider-handle-size": 16,
        "slider-track-thickness": 4, "inline-margin": 4,
    }
    rules = ";".join(f"--jp-widgets-{k}:{round(v * size)}px" for k, v in px.items())
    sel = f".bpe-explorer.{cls}"
    # the widgets' own font size too: their widths are in em (Layout(width="14em"))
    return (f"<style>{sel}{{{rules}}}"
            f"{sel} .widget-inline-hbox,{sel} .widget-inline-vbox{{font-size:var(--jp-widgets-font-size)}}"
            f"{sel} .widget-button,{sel} .widget-toggle-button,{sel} .widget-upload{{font-size:{round(13 * size)}px}}"
            f"{sel} .widget-readout{{min-width:{round(2.4 * size, 1)}em}}</style>")
