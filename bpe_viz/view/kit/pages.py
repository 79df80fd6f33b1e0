"""Boxes and pages every view and explorer shows: an error box, a one-line message, a PNG
inline, the SVG charts of a view as images (what an untrusted notebook can show), a whole
standalone HTML page around a view.

The kit's outermost pieces: they take text (or PNG bytes, or a view's HTML) rather than engine
objects, so every family's explorer uses the same ones. Same rules as the rest of the kit:
inline styles only, everything escaped, no script, nothing fetched.

Example::

    >>> out = message_html("Step 2 of 10 <b>")
    >>> out.startswith('<div class="bpe-message"'), "&lt;b&gt;" in out
    (True, True)
"""

from __future__ import annotations

import base64
import re

from .colors import UNK_COLOR
from .html import box, check_size, esc

__all__ = ["error_html", "message_html", "image_html", "svg_charts_as_images", "page_html"]


def error_html(message, *, title: str = "This needs a fix", size: float = 1.0) -> str:
    """A readable error box (for a learner, not a traceback). ``message`` may be an exception.

    Example::

        >>> out = error_html(ValueError("num_merges must be >= 0, got -3"))
        >>> out.startswith('<div class="bpe-error"'), "got -3" in out
        (True, True)
    """
    size = check_size(size)
    if isinstance(message, BaseException):
        message = str(message) or type(message).__name__
    inner = (
        f'<div class="bpe-error-title" style="font-weight:700">{esc(title)}</div>'
        f'<div class="bpe-error-message" style="white-space:pre-wrap">{esc(message)}</div>'
    )
    return box(
        inner, "bpe-error", size,
        f"border:2px solid {UNK_COLOR};border-left-width:0.5em;background:#FFF5F5;color:#000;"
        "padding:0.4em 0.7em;margin:0.3em 0;border-radius:0.3em",
    )


def message_html(message: str, *, size: float = 1.0) -> str:
    """A neutral one-line note (a header, "training…"), escaped like everything else.

    Example::

        >>> message_html("Step 2 of 10 <b>").endswith("Step 2 of 10 &lt;b&gt;</div>")
        True
    """
    size = check_size(size)
    return box(f"{esc(message)}", "bpe-message", size, "color:#333;padding:0.3em 0")


# -- a step on a slide: standalone pages ------------------------------------------------------

_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def image_html(png: bytes, *, alt: str, scale: float = 1.0, cls: str = "bpe-chart") -> str:
    """A PNG inline, as an ``<img>`` with a ``data:`` URI (no file beside it, nothing fetched).

    ``scale`` sets the shown size from the PNG's own pixels (0.5: a chart drawn at twice the
    resolution, sharp on a projector or a high-density screen); never wider than the page.

    Example::

        >>> from matplotlib.figure import Figure
        >>> from bpe_viz.view import figure_png
        >>> fig = Figure(figsize=(2, 1)); _ = fig.add_subplot().plot([1, 2])
        >>> out = image_html(figure_png(fig, dpi=100), alt="a line", scale=0.5)
        >>> out.startswith('<img class="bpe-chart" alt="a line" width="100" height="50"'), "data:image/png;base64," in out
        (True, True)
    """
    if not isinstance(png, (bytes, bytearray)) or not bytes(png[:8]) == _PNG_MAGIC:
        raise ValueError(f"png must be the bytes of a PNG image, got {type(png).__name__} {bytes(png[:8])!r}"
                         if isinstance(png, (bytes, bytearray)) else
                         f"png must be the bytes of a PNG image, got {type(png).__name__}")
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale <= 4:
        raise ValueError(f"scale must be a number between 0 and 4 (1.0: the PNG's own pixels), got {scale!r}")
    width = int.from_bytes(png[16:20], "big")  # the IHDR chunk: width, then height
    height = int.from_bytes(png[20:24], "big")
    data = base64.b64encode(bytes(png)).decode("ascii")
    return (f'<img class="{esc(cls)}" alt="{esc(alt)}" width="{round(width * scale)}" '
            f'height="{round(height * scale)}" style="max-width:100%;height:auto;display:block" '
            f'src="data:image/png;base64,{data}">')


_SVG_CHART = re.compile(r"<svg\b([^>]*)>.*?</svg>", re.S)
_ATTR = re.compile(r'([\w:-]+)="([^"]*)"')


def svg_charts_as_images(fragment: str) -> str:
    """``fragment`` (HTML made by a view) with each inline ``<svg>`` chart turned into an
    ``<img>`` of the same picture: the SVG in a ``data:`` URI, its label as the ``alt`` text,
    its size and style kept. Everything else is left as it is.

    Why: a notebook opened from a fresh clone or on Binder is untrusted, and JupyterLab then
    sanitizes the HTML of its stored outputs. The sanitizer drops ``<svg>`` but keeps the texts
    inside it, which run together ("Best pairs at step 0: 3 pairs tieBest pairs…(e, s)9"); it
    keeps an ``<img>`` with a ``data:`` source and the ``style=`` attributes the views use.

    Example::

        >>> out = svg_charts_as_images('<p>a</p><svg class="bpe-chart" xmlns="http://www.w3.org/2000/svg" '
        ...                              'width="20" height="10" aria-label="x &amp; y"><text>x</text></svg>')
        >>> out.startswith('<p>a</p><img class="bpe-chart" alt="x &amp; y" width="20" height="10"')
        True
        >>> "data:image/svg+xml;base64," in out, "<svg" in out, "<text" in out
        (True, False, False)
    """
    if not isinstance(fragment, str):
        raise TypeError(f"fragment must be an HTML string, got {type(fragment).__name__}")

    def as_image(m):
        attrs = dict(_ATTR.findall(m.group(1)))
        data = base64.b64encode(m.group(0).encode("utf-8")).decode("ascii")
        # (attribute values were escaped when the SVG was made: copied as they are)
        kept = "".join(f' {name}="{attrs[name]}"' for name in ("width", "height", "style") if name in attrs)
        return (f'<img class="{attrs.get("class", "bpe-chart")}" alt="{attrs.get("aria-label", "a chart")}"'
                f'{kept} src="data:image/svg+xml;base64,{data}">')

    return _SVG_CHART.sub(as_image, fragment)


def page_html(body: str, *, title: str, note: str = "") -> str:
    """A whole HTML document around a view (``body``: HTML made by a view): UTF-8, a
    title, a white page, a small ``note`` at the bottom. Inline styles only, no script, nothing
    fetched: it opens offline, from a USB stick, and prints like the widget looks.

    Example::

        >>> page = page_html(message_html("Step 5 of 10"), title="Step <5>")
        >>> page.startswith("<!DOCTYPE html>"), "<title>Step &lt;5&gt;</title>" in page, "<script" in page
        (True, True, False)
    """
    if not isinstance(body, str):
        raise TypeError(f"body must be an HTML string, got {type(body).__name__}")
    foot = (f'<footer class="bpe-note" style="margin-top:1.5em;color:#555;font-size:12px;'
            f'font-family:system-ui,sans-serif">{esc(note)}</footer>') if note else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n</head>\n"
        '<body style="margin:1.2em 1.5em;background:#FFF;color:#000">\n'
        f"{body}\n{foot}\n</body>\n</html>\n"
    )
