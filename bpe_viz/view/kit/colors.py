"""The colors of every view: the token palette (a token's chip keeps its color everywhere) and
the chart colors (Okabe–Ito), each paired elsewhere with a second cue (a border, a hatch, a
marker shape or a text label), so that color is never the only one.

The sibling modules of the kit use these; nothing here makes HTML or draws.

Example::

    >>> token_color("est") == token_color("est"), VERMILLION
    (True, '#D55E00')
"""

from __future__ import annotations

import hashlib

__all__ = ["PALETTE", "token_color", "UNK_COLOR", "VERMILLION", "ORANGE", "BLUE", "SKY", "GREY", "DIFF_BG"]

#: Paul Tol's "light" qualitative scheme (https://personal.sron.nl/~pault/#sec:qualitative),
#: without its pale grey. Why this palette and not "a hash -> any hue":
#: it was designed for *labelled regions with black text on them* (our token chips), every color
#: keeps black text readable (contrast well above WCAG AA), and it stays distinguishable under
#: the common color-vision deficiencies. A free hue would give more colors, but neighbouring
#: hues look the same to many students and on a washed-out projector. With 8 colors two
#: different tokens can share one; that is fine because every token has a border too (and a
#: hover title), so color is a help for following a token across steps, never the only cue.
PALETTE: tuple[str, ...] = (
    "#77AADD",  # light blue
    "#99DDFF",  # light cyan
    "#44BB99",  # mint
    "#BBCC33",  # pear
    "#AAAA00",  # olive
    "#EEDD88",  # light yellow
    "#EE8866",  # orange
    "#FFAABB",  # pink
)

#: the red of an unknown character's chip and of an error box
UNK_COLOR = "#C00000"


def token_color(token: str) -> str:
    """The background color of a token: a stable hash of its text picks a :data:`PALETTE` entry.

    The same token gets the same color at every step, in every table and in every session
    (``hashlib.blake2b`` is stable; Python's ``hash()`` is salted per process and would not be).

    Example::

        >>> token_color("est") == token_color("est")
        True
        >>> token_color("est") in PALETTE
        True
    """
    if not isinstance(token, str):
        raise TypeError(f"token must be a str, got {type(token).__name__} {token!r}")
    # subtle: not crc32. CRC is linear, so its low bits put whole families of one-letter tokens
    # on the same color (u, g, p and b all collide); a real hash mixes every bit.
    digest = hashlib.blake2b(token.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return PALETTE[int.from_bytes(digest, "big") % len(PALETTE)]


# Okabe & Ito (2008), "Color Universal Design": distinguishable with every common color-vision
# deficiency. Each use in a chart is paired with a second cue (hatch, marker shape, text).
VERMILLION = "#D55E00"  # the next merge / BPE's pick
ORANGE = "#E69F00"  # tied pairs (with hatching)
BLUE = "#0072B2"  # WordPiece's pick / main curve
SKY = "#56B4E9"
GREY = "#9A9A9A"  # everything else
DIFF_BG = "#FBE3C8"  # rows where the two merge sequences differ (with a "≠" mark)
