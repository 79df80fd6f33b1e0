"""Pre-tokenizers: cut text into the pieces ("words") that BPE never merges across.

Every tokenizer first splits its text; merges then happen inside a piece, never across two.
Sources differ in how: the 2016 paper and subword-nmt split at whitespace and drop it; GPT-2
keeps the space in front of a word (``" the"``). A pre-tokenizer here is an object with

* ``split(text)`` -> the pieces with their ``(start, end)`` character spans in ``text``,
* ``words(text)`` -> the pieces only (the fast path training uses),
* ``join(pieces)`` -> text again: the inverse that ``decode`` uses,
* ``describe()`` -> one line in words.

:func:`get_pre_tokenizer` turns what a learner passes (a name from :data:`PRE_TOKENIZERS`, a
regular expression, a callable) into one. A new pre-tokenizer is a new class here, and an entry
in :data:`PRE_TOKENIZERS`; nothing else changes.

Example::

    >>> ws = get_pre_tokenizer("whitespace")
    >>> ws.split("low  lower")
    [('low', (0, 3)), ('lower', (5, 10))]
    >>> ws.join(["low", "lower"])
    'low lower'
    >>> get_pre_tokenizer(r"\\w+|[^\\w\\s]+").words("Hi, there!")
    ['Hi', ',', 'there', '!']
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from itertools import accumulate, chain, compress, repeat
from operator import itemgetter

from .fast_split import FastSplitter
from .regex_compat import regex

__all__ = ["PreTokenizer", "Whitespace", "AsciiSpace", "SentencePieceSpace", "Pattern", "Custom", "PRE_TOKENIZERS", "get_pre_tokenizer",
           "GPT2_PATTERN", "GPT4_PATTERN", "CL100K_PATTERN", "O200K_PATTERN", "NAMED_PATTERNS", "split_specials", "check_special_tokens"]

#: GPT-2's split pattern (Radford et al. 2019, ``encoder.py``; as CS336's handout writes it).
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
#: GPT-4's (cl100k_base) split pattern, as tiktoken and minbpe's ``regex.py`` write it.
GPT4_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
                r"""|\s*[\r\n]|\s+(?!\S)|\s+""")
#: cl100k_base's split pattern as tiktoken 0.14 writes it (``tiktoken_ext/openai_public.py``). It
#: differs from :data:`GPT4_PATTERN` (minbpe's, an older tiktoken's) at whitespace that ends the
#: text after a newline: ``"a\n "`` is ``['a', '\n ']`` here, ``['a', '\n', ' ']`` there.
CL100K_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
                  r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
#: o200k_base's (GPT-4o) split pattern, as tiktoken writes it: case-aware letter runs that keep
#: a contraction, digits in groups of three, ``/`` kept after punctuation.
O200K_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])


#: the pattern names a :class:`Pattern` describes by name rather than by its regular expression
NAMED_PATTERNS = ("gpt2", "gpt4", "cl100k", "o200k")
#: the same matches found faster with ``re`` (:mod:`~bpe_viz.engine.text.fast_split`), by pattern
_FAST = {p: FastSplitter(p) for p in (GPT2_PATTERN, GPT4_PATTERN, CL100K_PATTERN, O200K_PATTERN)}


class PreTokenizer:
    """The interface (see the module docstring). Subclasses set ``name``."""

    name = "?"
    #: whether the pieces of a text may contain whitespace (the text of a piece is kept whole)
    keeps_whitespace = False
    #: whether ``join`` is plain concatenation, so token texts alone give the text back
    concatenates = False

    def split(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        raise NotImplementedError

    def words(self, text: str) -> list[str]:
        return [piece for piece, _ in self.split(text)]

    def training_words(self, text: str) -> list[str]:
        """The words training counts (the same as :meth:`words` unless the source skips some
        of its training text, as SentencePiece skips over-long lines)."""
        return self.words(text)

    def join(self, pieces: list[str]) -> str:
        raise NotImplementedError

    def describe(self) -> str:
        return self.name

    def __repr__(self):
        return f"<pre-tokenizer {self.describe()}>"


class Whitespace(PreTokenizer):
    """Split at runs of whitespace and drop it (``str.split()``); decode joins with one space.

    The 2016 paper, SLP3 and subword-nmt's learn_bpe work this way.
    """

    name = "whitespace"
    _WORD = re.compile(r"\S+")  # the same characters str.split() splits at (str.isspace)

    def split(self, text):
        return [(m.group(), m.span()) for m in self._WORD.finditer(text)]

    def words(self, text):
        return text.split()

    def join(self, pieces):
        return " ".join(pieces)

    def describe(self):
        return "split at whitespace"

    def __eq__(self, other):
        return type(other) is Whitespace

    def __hash__(self):
        return hash(Whitespace)


class AsciiSpace(PreTokenizer):
    """subword-nmt's rule: each line is stripped of ``\\r``, ``\\n`` and spaces at its ends, then
    split at the ASCII space only, so a tab or a no-break space (U+00A0) stays inside a word
    (subword-nmt's ``test_utf8_whitespace``). Decode joins with one space.

    Example::

        >>> AsciiSpace().words("a\\u00a0b c\\td\\n e")
        ['a\\xa0b', 'c\\td', 'e']
    """

    name = "subword-nmt"

    def split(self, text):
        out, start = [], 0
        for line in text.split("\n"):
            pos = start
            for w in line.split(" "):
                body = w.strip("\r\n ")
                if body:
                    lead = len(w) - len(w.lstrip("\r\n "))
                    out.append((body, (pos + lead, pos + lead + len(body))))
                pos += len(w) + 1
            start += len(line) + 1
        return out

    def words(self, text):
        return [w for line in text.split("\n") for w in line.strip("\r\n ").split(" ") if w]

    def join(self, pieces):
        return " ".join(pieces)

    def describe(self):
        return "split at the ASCII space (subword-nmt)"

    def __eq__(self, other):
        return type(other) is AsciiSpace

    def __hash__(self):
        return hash(AsciiSpace)


class SentencePieceSpace(AsciiSpace):
    """SentencePiece's cut with ``normalization_rule_name="identity"``: each line is a sentence;
    runs of ASCII spaces fold into one and the ends are stripped (``remove_extra_whitespaces``);
    each word is what lies between spaces (tabs and U+00A0 stay inside; the ``▁`` in front of
    each word is the marker's, :class:`~bpe_viz.engine.text.markers.BeginOfWord`).

    A ``▁`` typed in the text is what SentencePiece makes of a space, so it starts a word too:
    ``"▁a▁a ▁a"`` is the words ``"" a a "" a`` (SentencePiece's ``▁ ▁a ▁a ▁ ▁a``: an empty word
    is a ``▁`` alone); typed ones at the end of a line go with the trailing spaces.

    Training skips what SentencePiece's trainer skips: a line longer than 4,192 bytes, a line
    holding its reserved ``▅`` (U+2585), and it reads ``<unk>``, ``<s>`` and ``</s>`` in the
    text as spaces. Encoding keeps every line.

    Example::

        >>> SentencePieceSpace().words("  Hello   world\\n a\\u00a0b ")
        ['Hello', 'world', 'a\xa0b']
        >>> SentencePieceSpace().words("▁a▁a ▁a▁")
        ['', 'a', 'a', '', 'a']
    """

    name = "sentencepiece"
    MAX_LINE_BYTES = 4192  # max_sentence_length's default
    MARK = "\u2581"

    def split(self, text):
        lines, spans = self.split_lines(text)
        return list(zip(chain.from_iterable(lines), spans))

    def split_lines(self, text, prefix=""):
        """:meth:`split` grouped by line: (each line's words, ``prefix`` in front of each; every
        word's span, the lines one after another).

        Example::

            >>> SentencePieceSpace().split_lines(" a  bc\\n\\nd", "▁")
            ([['▁a', '▁bc'], [], ['▁d']], [(1, 2), (4, 6), (8, 9)])
        """
        lines, spans, start = [], [], 0
        add = spans.append
        for line in text.split("\n"):
            if self.MARK in line:
                cut = _marked_words(line, self.MARK)
                words = [prefix + line[a:b] for a, b in cut]
                spans.extend((start + a, start + b) for a, b in cut)
            else:
                words, pos = [], start
                for w in line.split(" "):
                    if w:
                        words.append(prefix + w)
                        add((pos, pos + len(w)))
                    pos += len(w) + 1
            lines.append(words)
            start += len(line) + 1
        return lines, spans

    def split_flat(self, text, prefix=""):
        """:meth:`split_lines` flat and compact: (every word, ``prefix`` in front; each word's
        start in ``text``, a list of ints; each line's end, the number of words up to it).

        Example::

            >>> SentencePieceSpace().split_flat(" a  bc\\n\\nd", "▁")
            (['▁a', '▁bc', '▁d'], [1, 4, 8], [2, 2, 3])
        """
        if self.MARK in text:
            lines, spans = self.split_lines(text, prefix)
            return (list(chain.from_iterable(lines)), list(map(itemgetter(0), spans)),
                    list(accumulate(map(len, lines))))
        # subtle: "\n" and " " are both one character, so a part's start is the sum of the
        # lengths before it, plus one per separator; a line's end counts the words starting before
        parts = text.replace("\n", " ").split(" ")
        starts = list(compress(accumulate(map((1).__add__, map(len, parts)), initial=0), parts))
        line_ends = accumulate(map((1).__add__, map(len, text.split("\n"))))
        ends = list(map(bisect_left, repeat(starts), line_ends))
        words = filter(None, parts)
        return list(map(prefix.__add__, words) if prefix else words), starts, ends

    def flat_words(self, text):
        """:meth:`split_lines`' words, one list, with no prefix and a ``"\\n"`` after each line but
        the last (no word holds one): the cheapest split to encode from.

        Example::

            >>> SentencePieceSpace().flat_words(" a  bc\\n\\nd")
            ['a', 'bc', '\\n', '\\n', 'd']
        """
        if self.MARK in text:
            out = []
            for words in self.split_lines(text)[0]:
                out += words
                out.append("\n")
            out.pop()
            return out
        return list(filter(None, text.replace("\n", " \n ").split(" ")))

    def words(self, text):
        if self.MARK in text:
            return [w for w, _ in self.split(text)]
        return [w for line in text.split("\n") for w in line.split(" ") if w]

    def training_words(self, text):
        out = []
        for line in text.split("\n"):
            if "\u2585" in line or len(line.encode("utf-8", "surrogatepass")) > self.MAX_LINE_BYTES:
                continue
            if "<" in line:
                line = line.replace("<unk>", " ").replace("<s>", " ").replace("</s>", " ")
            if self.MARK in line:
                out.extend(line[a:b] for a, b in _marked_words(line, self.MARK))
            else:
                out.extend(w for w in line.split(" ") if w)
        return out

    def join(self, pieces):
        # subtle: SentencePiece's decoder drops every marker in front of the first word
        i = 0
        while i < len(pieces) - 1 and not pieces[i]:
            i += 1
        return " ".join(pieces[i:])

    def describe(self):
        return "each line a sentence, split at the ASCII space (SentencePiece)"

    def __eq__(self, other):
        return type(other) is SentencePieceSpace

    def __hash__(self):
        return hash(SentencePieceSpace)


def _marked_words(line: str, mark: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each word of one line that holds a typed ``mark``, as
    SentencePiece's normalizer and ``SplitIntoWords`` cut it: leading spaces dropped, a run of
    spaces one boundary, each ``mark`` a boundary of its own, empty words at the end dropped.
    Example: ``"a ▁  b"`` -> ``a`` ``""`` ``""`` ``b`` (SentencePiece: ``▁a ▁ ▁ ▁b``)."""
    n = len(line)
    i = len(line) - len(line.lstrip(" "))
    out, start = [], i
    while i < n:
        c = line[i]
        if c == " " or c == mark:
            out.append((start, i))
            i += 1
            while c == " " and i < n and line[i] == " ":
                i += 1
            start = i
        else:
            i += 1
    out.append((start, n))
    while out and out[-1][0] == out[-1][1]:
        out.pop()
    return out


class Pattern(PreTokenizer):
    """Pieces are the matches of a regular expression (``re.finditer``), in order.

    Text between matches is dropped. ``join`` puts ``sep`` between pieces: ``""`` (the default)
    gives the text back exactly when the matches cover it (a pattern that keeps whitespace,
    as GPT-2's does), ``" "`` suits a pattern that drops the spaces between words. Patterns
    are compiled with the ``regex`` package, so ``\\p{L}`` and possessive quantifiers work.
    """

    name = "pattern"
    keeps_whitespace = True

    def __init__(self, pattern: str, sep: str = "", name: str | None = None):
        if not isinstance(pattern, str):
            raise TypeError(f"pre_tokenizer: a pattern must be a str, got {type(pattern).__name__}")
        try:
            self.regex = regex.compile(pattern)
        except regex.error as exc:
            raise ValueError(f"pre_tokenizer: {pattern!r} is not a valid regular expression ({exc})") from None
        self.pattern = pattern
        self.sep = sep
        self.concatenates = sep == ""
        if name is not None:
            self.name = name

    def split(self, text):
        fast = _FAST.get(self.pattern)
        if fast is not None:
            return fast.split(text)
        return [(m.group(), m.span()) for m in self.regex.finditer(text) if m.end() > m.start()]

    def words(self, text):
        fast = _FAST.get(self.pattern)
        if fast is not None:
            return fast.words(text)
        if self.regex.groups:  # findall would return the groups, not the matches
            return super().words(text)
        return [w for w in self.regex.findall(text) if w]

    def join(self, pieces):
        return self.sep.join(pieces)

    def describe(self):
        return f"the {self.name.upper()} pattern" if self.name in NAMED_PATTERNS else f"pattern {self.pattern!r}"

    def __eq__(self, other):
        return type(other) is Pattern and (other.pattern, other.sep) == (self.pattern, self.sep)

    def __hash__(self):
        return hash((Pattern, self.pattern, self.sep))


class Custom(PreTokenizer):
    """A function ``text -> list of pieces``; each piece must occur in the text, in order (its
    span is found by searching from the end of the previous one). Decode joins with ``sep``."""

    name = "custom"
    keeps_whitespace = True

    def __init__(self, fn: Callable[[str], list[str]], sep: str = ""):
        self.fn = fn
        self.sep = sep
        self.concatenates = sep == ""

    def words(self, text):
        pieces = self.fn(text)
        if isinstance(pieces, str) or not all(isinstance(p, str) for p in pieces):
            raise TypeError("pre_tokenizer: the function must return a list of str pieces")
        return [p for p in pieces if p]

    def split(self, text):
        out, pos = [], 0
        for p in self.words(text):
            start = text.find(p, pos)
            if start < 0:
                raise ValueError(f"pre_tokenizer: the piece {p!r} does not occur in the text after position {pos}")
            pos = start + len(p)
            out.append((p, (start, pos)))
        return out

    def join(self, pieces):
        return self.sep.join(pieces)

    def describe(self):
        return f"function {getattr(self.fn, '__name__', 'pre-tokenizer')}"


#: Pre-tokenizers by name.
PRE_TOKENIZERS: dict[str, PreTokenizer] = {
    "whitespace": Whitespace(),
    "subword-nmt": AsciiSpace(),
    "sentencepiece": SentencePieceSpace(),
    "gpt2": Pattern(GPT2_PATTERN, name="gpt2"),
    "gpt4": Pattern(GPT4_PATTERN, name="gpt4"),
    "cl100k": Pattern(CL100K_PATTERN, name="cl100k"),
    "o200k": Pattern(O200K_PATTERN, name="o200k"),
}


def check_special_tokens(special_tokens) -> tuple[str, ...]:
    """The special tokens as a tuple of distinct non-empty strings (a ValueError/TypeError
    naming ``special_tokens`` otherwise)."""
    if special_tokens is None:
        return ()
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens must be a list of str, got the str {special_tokens!r}: use [{special_tokens!r}]")
    out = []
    for t in special_tokens:
        if not isinstance(t, str):
            raise TypeError(f"special_tokens: every special token must be a str, got {type(t).__name__} {t!r}")
        if not t:
            raise ValueError("special_tokens: a special token must not be the empty string")
        if t not in out:
            out.append(t)
    return tuple(out)


def split_specials(text: str, specials) -> list[tuple[str, bool, int]]:
    """``text`` cut at the special tokens: ``(part, is_special, start)`` in order. Where two
    specials overlap, the longest wins (tiktoken, CS336).

    Example::

        >>> split_specials("a<|e|>b", ["<|e|>"])
        [('a', False, 0), ('<|e|>', True, 1), ('b', False, 6)]
    """
    if not specials or not text:
        return [(text, False, 0)] if text else []
    alt = "|".join(regex.escape(t) for t in sorted(specials, key=len, reverse=True))
    out, pos = [], 0
    for m in regex.finditer(alt, text):
        if m.start() > pos:
            out.append((text[pos:m.start()], False, pos))
        out.append((m.group(), True, m.start()))
        pos = m.end()
    if pos < len(text):
        out.append((text[pos:], False, pos))
    return out


def get_pre_tokenizer(spec) -> PreTokenizer:
    """A pre-tokenizer from a name (:data:`PRE_TOKENIZERS`), a regular expression string, a
    function ``text -> pieces``, or a :class:`PreTokenizer` (returned as it is).

    Example::

        >>> get_pre_tokenizer(None).name
        'whitespace'
        >>> get_pre_tokenizer(lambda t: t.split(",")).words("a,b")
        ['a', 'b']
    """
    if spec is None:
        return PRE_TOKENIZERS["whitespace"]
    if isinstance(spec, PreTokenizer):
        return spec
    if isinstance(spec, str):
        if spec in PRE_TOKENIZERS:
            return PRE_TOKENIZERS[spec]
        return Pattern(spec)
    if callable(spec):
        return Custom(spec)
    raise TypeError(
        f"pre_tokenizer must be one of {sorted(PRE_TOKENIZERS)}, a regular expression (str), a "
        f"function text -> pieces, or a PreTokenizer; got {type(spec).__name__} {spec!r}"
    )
