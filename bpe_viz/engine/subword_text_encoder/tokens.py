"""SubwordTextEncoder's tokens: text cut into word and non-word runs, underscores escaped.

Step 1 of the build (see :mod:`bpe_viz.engine.subword_text_encoder`), and what the encoder
(:mod:`.encoder`) does to new text before matching pieces: the text is cut into runs of word
characters (``\\w``: letters, digits, ``_``) and runs of everything else; a token followed by a
single space gets ``_`` appended and the space is dropped (``"low low."`` -> ``low_`` ``low``
``.``). A real underscore is escaped first as ``\\&undsc``, so ``_`` only ever means "a space
follows". Nothing here knows a vocabulary.

Example::

    >>> prepare_tokens(tokenize("low low."))
    ['low_', 'low', '.']
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["UNDERSCORE_REPLACEMENT", "is_mixed_alphanum", "reserved_regex", "tokenize", "prepare_tokens"]

#: how a real underscore is spelled inside a token (``_`` itself means "a space follows")
UNDERSCORE_REPLACEMENT = "\\&undsc"

_RUNS = re.compile(r"(\W+)")  # split into word / non-word runs, keeping both (\w includes "_")


def is_mixed_alphanum(token: str) -> bool:
    """Whether a token mixes word and non-word characters (then it is never cut in two).

    Example::

        >>> is_mixed_alphanum("<EOS>"), is_mixed_alphanum("low_"), is_mixed_alphanum("._")
        (True, False, True)
    """
    return sum(1 for s in _RUNS.split(token) if s) > 1


def reserved_regex(reserved: Iterable[str]):
    """The pattern that cuts the ``reserved`` tokens out of a text, first listed first
    (``None``: there are none)."""
    reserved = list(reserved)
    if not reserved:
        return None
    return re.compile("(%s)" % "|".join(map(re.escape, reserved)))


def tokenize(text: str, reserved_tokens=(), _regex=None) -> list[str]:
    """Cut text into reserved tokens, runs of word characters and runs of other characters.

    Nothing is dropped: ``"".join(tokenize(text)) == text`` (TFDS's ``Tokenizer`` with
    ``alphanum_only=False``). A reserved token is cut out first, and the first one listed wins
    where two start at the same place. (``_regex``: :func:`reserved_regex` of the reserved
    tokens, when the caller has it already.)

    Example::

        >>> tokenize("Hello, world!<EOS> snake_case")
        ['Hello', ', ', 'world', '!<', 'EOS', '> ', 'snake_case']
        >>> tokenize("Hello, world!<EOS> snake_case", ["<EOS>"])
        ['Hello', ', ', 'world', '!', '<EOS>', ' ', 'snake_case']
    """
    regex = _regex if _regex is not None else reserved_regex(reserved_tokens)
    if regex is None:
        parts = _RUNS.split(text)
    else:
        reserved = set(reserved_tokens)
        parts = []
        for part in regex.split(text):
            if part in reserved:
                parts.append(part)
            else:
                parts.extend(_RUNS.split(part))
    return [p for p in parts if p]


def prepare_tokens(tokens: list[str]) -> list[str]:
    """Escape underscores and fold a following single space into a ``_`` at the token's end.

    Example::

        >>> prepare_tokens(["low", " ", "snake_case", ", ", "end"])
        ['low_', 'snake\\\\&undsccase', ', ', 'end']

    (the backslash is doubled in the doctest's output.) A token spelling the escape itself,
    ``\\&undsc``, is cut in two, ``\\&`` and ``undsc``, so that it decodes back unharmed.
    """
    out = []
    skip = False
    for i, token in enumerate(tokens):
        if skip:  # the single space folded into the previous token
            skip = False
            continue
        follows = tokens[i + 1] if i + 1 < len(tokens) else None
        if token == UNDERSCORE_REPLACEMENT:
            # subtle: TFDS gives the second half the "_" of a following space but does not drop
            # that space token, so it is counted (and encoded) twice: "\&undsc x" decodes as
            # "\&undsc  x". Reproduced as is (a test against TFDS pins it).
            out.append(UNDERSCORE_REPLACEMENT[:2])
            out.append(UNDERSCORE_REPLACEMENT[2:] + ("_" if follows == " " else ""))
            continue
        token = token.replace("_", UNDERSCORE_REPLACEMENT)
        if follows == " ":
            token += "_"
            skip = True
        out.append(token)
    return out
