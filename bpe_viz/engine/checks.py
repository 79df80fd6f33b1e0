"""Argument checks every layer shares, so a wrong argument reads the same everywhere.

Each returns the value it checked (so ``n = check_int("num_merges", n)``) or raises a
``TypeError`` (wrong kind) or ``ValueError`` (wrong value) that names the argument and says what
was expected: errors speak to a learner who pasted something odd.

Example::

    >>> check_int("num_merges", 3)
    3
    >>> check_int("num_merges", -1)
    Traceback (most recent call last):
    ...
    ValueError: num_merges must be >= 0, got -1
    >>> check_int("max_rows", None, allow_none=True) is None
    True
    >>> check_int("token_id", 30, maximum=24)
    Traceback (most recent call last):
    ...
    ValueError: token_id must be between 0 and 24, got 30
"""

from __future__ import annotations

__all__ = ["check_int"]


def check_int(name: str, value, minimum: int = 0, *, maximum: int | None = None, allow_none: bool = False,
              what: str = "") -> int | None:
    """``value`` if it is an int ``>= minimum`` (and ``<= maximum`` when given; or ``None`` when
    ``allow_none``); ``what`` is added to the message after the bound (``" (the smallest
    vocabulary)"``)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r:.60}")
    if maximum is not None and not minimum <= value <= maximum:
        raise ValueError(f"{name} must be between {minimum} and {maximum}{what}, got {value}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}{what}, got {value}")
    return value
