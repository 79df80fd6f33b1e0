"""Hugging Face ``tokenizers``' pipeline around the model: added tokens, pre-tokenizers, the
post-processor and decoders, read from a ``tokenizer.json``.

:class:`Pipeline` cuts a text as ``Tokenizer.encode`` does before the model runs: the added
(special) tokens are found first (those marked ``normalized`` after normalizing), every other
piece is normalized (:mod:`.hf_components`) and pre-tokenized, and empty pieces are dropped.
Each piece keeps where it came from, so the model's tokens get Hugging Face's offsets.
:meth:`Pipeline.decode` is ``Tokenizer.decode(ids)`` (special tokens skipped, then the decoder
chain). Whatever a component would do that this file cannot reproduce exactly is refused with a
``ValueError`` naming the file and the component.

How it differs from its siblings: :mod:`.hf_components` changes the text (normalizers); the
model readers (:mod:`.hf_bpe`, :mod:`.hf_wordpiece`, :mod:`.hf_unigram`) cut each piece.

Example::

    >>> p = Pipeline({"model": {}, "pre_tokenizer": {"type": "BertPreTokenizer"},
    ...               "added_tokens": [{"id": 0, "content": "[SEP]", "special": True}]}, "t.json")
    >>> [(n.text, n.orig, tid) for n, tid in p.split("Hi, you[SEP]")]
    [('Hi', (0, 2), None), (',', (2, 3), None), ('you', (4, 7), None), ('[SEP]', (7, 12), 0)]
"""

from __future__ import annotations

import re
import unicodedata

from .hf_components import Normalized, build_normalizer, compile_pattern, get_field, is_rust_whitespace

__all__ = ["Pipeline", "split_pieces", "build_pre_tokenizer", "build_decoder", "is_bert_punctuation"]


# -- splitting a piece (NormalizedString::split) -------------------------------------------------

def _char_matches(text: str, pred) -> list[tuple[int, int, bool]]:
    """Each character for which ``pred`` holds is a match of its own; the runs between are not."""
    out, last = [], 0
    for i, c in enumerate(text):
        if pred(c):
            if last < i:
                out.append((last, i, False))
            out.append((i, i + 1, True))
            last = i + 1
    if last < len(text):
        out.append((last, len(text), False))
    return out


def _regex_matches(text: str, pattern) -> list[tuple[int, int, bool]]:
    out, prev = [], 0
    for m in pattern.finditer(text):
        a, b = m.span()
        if a == b:
            continue
        if prev != a:
            out.append((prev, a, False))
        out.append((a, b, True))
        prev = b
    if prev != len(text):
        out.append((prev, len(text), False))
    return out


def split_pieces(n: Normalized, matches, behavior: str) -> list[Normalized]:
    """``n`` cut at ``matches`` (``(start, end, is_match)`` covering it) with one of
    ``tokenizers``' ``SplitDelimiterBehavior`` s; empty pieces are dropped.

    Example::

        >>> [p.text for p in split_pieces(Normalized.of("a-b--c"), _char_matches("a-b--c", "-".__eq__), "merged_with_next")]
        ['a', '-b', '-', '-c']
    """
    spans: list[list] = []
    if behavior == "removed":
        spans = [[a, b] for a, b, m in matches if not m]
    elif behavior == "isolated":
        spans = [[a, b] for a, b, _ in matches]
    elif behavior in ("contiguous", "merged_with_previous"):
        prev = False
        for a, b, m in matches:
            if spans and ((m == prev) if behavior == "contiguous" else (m and not prev)):
                spans[-1][1] = b
            else:
                spans.append([a, b])
            prev = m
    elif behavior == "merged_with_next":
        prev = False
        for a, b, m in reversed(matches):
            if spans and m and not prev:
                spans[-1][0] = a
            else:
                spans.append([a, b])
            prev = m
        spans.reverse()
    return [n.slice(a, b) for a, b in spans if b > a]


BEHAVIORS = {"Removed": "removed", "Isolated": "isolated", "Contiguous": "contiguous",
             "MergedWithPrevious": "merged_with_previous", "MergedWithNext": "merged_with_next"}

_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def is_bert_punctuation(c: str) -> bool:
    """BERT's punctuation: ASCII punctuation or a Unicode punctuation category (P*)."""
    return c in _ASCII_PUNCT or unicodedata.category(c)[0] == "P"


# -- pre-tokenizers ------------------------------------------------------------------------------

def _prepend_scheme(spec, where, path) -> str:
    scheme = get_field(spec, "prepend_scheme", str, where, path, None)
    if scheme is None:  # files from before tokenizers 0.15 say add_prefix_space
        scheme = "always" if get_field(spec, "add_prefix_space", bool, where, path, True) else "never"
    if scheme not in ("always", "first", "never"):
        raise ValueError(f"{where}: {path}.prepend_scheme must be 'always', 'first' or 'never', got {scheme!r}")
    return scheme


def _replacement(spec, where, path) -> str:
    rep = get_field(spec, "replacement", str, where, path)
    if len(rep) != 1:
        raise ValueError(f"{where}: {path}.replacement must be one character, got {rep!r}")
    return rep


def _metaspace(spec, where, path):
    rep = _replacement(spec, where, path)
    scheme = _prepend_scheme(spec, where, path)
    split = get_field(spec, "split", bool, where, path, True)
    space = re.compile(" ")

    def run(n: Normalized) -> list[Normalized]:
        n.replace(space, rep)
        if not n.text.startswith(rep) and (scheme == "always" or (scheme == "first" and n.orig[0] == 0)):
            n.prepend(rep)
        if not split:
            return [n] if n.text else []
        return split_pieces(n, _char_matches(n.text, rep.__eq__), "merged_with_next")

    return run


_WORDS = None


def _whitespace(n: Normalized) -> list[Normalized]:
    global _WORDS
    if _WORDS is None:
        from ..engine.text.regex_compat import regex

        _WORDS = regex.compile(r"\w+|[^\w\s]+")
    # Invert: the pattern's matches are kept, what lies between them is removed
    return split_pieces(n, [(a, b, not m) for a, b, m in _regex_matches(n.text, _WORDS)], "removed")


def _on_whitespace(n: Normalized) -> list[Normalized]:
    return split_pieces(n, _char_matches(n.text, is_rust_whitespace), "removed")


def _on_punctuation(n: Normalized) -> list[Normalized]:
    return split_pieces(n, _char_matches(n.text, is_bert_punctuation), "isolated")


def build_pre_tokenizer(spec, where: str, path: str = "pre_tokenizer"):
    """A list of steps, each ``Normalized -> [Normalized]``, as ``spec`` (the JSON object) says."""
    if spec is None:
        return []
    kind = get_field(spec, "type", str, where, path)
    if kind == "Sequence":
        return [step for i, s in enumerate(get_field(spec, "pretokenizers", list, where, path))
                for step in build_pre_tokenizer(s, where, f"{path}.pretokenizers[{i}]")]
    if kind == "Metaspace":
        return [_metaspace(spec, where, path)]
    if kind == "BertPreTokenizer":
        return [_on_whitespace, _on_punctuation]
    if kind == "WhitespaceSplit":
        return [_on_whitespace]
    if kind == "Whitespace":
        return [_whitespace]
    if kind == "Punctuation":
        behavior = get_field(spec, "behavior", str, where, path, "Isolated")
        if behavior not in BEHAVIORS:
            raise ValueError(f"{where}: {path}.behavior must be one of {sorted(BEHAVIORS)}, got {behavior!r}")
        return [lambda n: split_pieces(n, _char_matches(n.text, is_bert_punctuation), BEHAVIORS[behavior])]
    if kind == "Split":
        pattern = compile_pattern(get_field(spec, "pattern", dict, where, path), where, f"{path}.pattern")
        behavior = get_field(spec, "behavior", str, where, path)
        if behavior not in BEHAVIORS:
            raise ValueError(f"{where}: {path}.behavior must be one of {sorted(BEHAVIORS)}, got {behavior!r}")
        invert = get_field(spec, "invert", bool, where, path, False)
        return [lambda n: split_pieces(n, [(a, b, m != invert) for a, b, m in _regex_matches(n.text, pattern)],
                                       BEHAVIORS[behavior])]
    raise ValueError(f"{where}: {path}.type {kind!r} is not supported (supported: Sequence, Metaspace, "
                     "BertPreTokenizer, Whitespace, WhitespaceSplit, Punctuation, Split)")


# -- decoders ------------------------------------------------------------------------------------

def _byte_of(token: str):
    if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
        h = token[3:5]
        if all(c in "0123456789abcdefABCDEF" for c in h.lstrip("+")) and not h.startswith("++"):
            return int(h, 16)
    return None


def _byte_fallback(tokens: list[str]) -> list[str]:
    out, pending = [], []

    def flush():
        try:
            out.append(bytes(pending).decode("utf-8"))
        except UnicodeDecodeError:
            out.extend("\ufffd" * len(pending))
        pending.clear()

    for t in tokens:
        b = _byte_of(t)
        if b is not None:
            pending.append(b)
            continue
        if pending:
            flush()
        out.append(t)
    if pending:
        flush()
    return out


def _strip(content: str, start: int, stop: int):
    def run(tokens):
        out = []
        for t in tokens:
            a = 0
            while a < min(start, len(t)) and t[a] == content:
                a += 1
            b = len(t)
            while len(t) - b < stop and b > a and t[b - 1] == content:
                b -= 1
            out.append(t[a:b])
        return out

    return run


_CLEANUPS = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"),
             (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


def _cleanup(text: str) -> str:
    for a, b in _CLEANUPS:
        text = text.replace(a, b)
    return text


def _wordpiece_decoder(prefix: str, cleanup: bool):
    def run(tokens):
        out = []
        for i, t in enumerate(tokens):
            if i:
                t = t.replace(prefix, "", 1) if t.startswith(prefix) else " " + t
            out.append(_cleanup(t) if cleanup else t)
        return out

    return run


def _metaspace_decoder(rep: str, scheme: str):
    def run(tokens):
        return ["".join("" if c == rep and i == 0 and scheme != "never" else " " if c == rep else c for c in t)
                for i, t in enumerate(tokens)]

    return run


def build_decoder(spec, where: str, path: str = "decoder"):
    """A list of steps, each ``[token] -> [str]`` (``decode_chain``); ``None`` when the file has
    no decoder (the tokens are then joined with spaces)."""
    if spec is None:
        return None
    kind = get_field(spec, "type", str, where, path)
    if kind == "Sequence":
        return [step for i, s in enumerate(get_field(spec, "decoders", list, where, path))
                for step in build_decoder(s, where, f"{path}.decoders[{i}]")]
    if kind == "ByteFallback":
        return [_byte_fallback]
    if kind == "Fuse":
        return [lambda tokens: ["".join(tokens)]]
    if kind == "Strip":
        content = get_field(spec, "content", str, where, path)
        if len(content) != 1:
            raise ValueError(f"{where}: {path}.content must be one character, got {content!r}")
        return [_strip(content, get_field(spec, "start", int, where, path), get_field(spec, "stop", int, where, path))]
    if kind == "Replace":
        pattern = compile_pattern(get_field(spec, "pattern", dict, where, path), where, f"{path}.pattern")
        content = get_field(spec, "content", str, where, path)
        return [lambda tokens: [pattern.sub(lambda m: content, t) for t in tokens]]
    if kind == "Metaspace":
        return [_metaspace_decoder(_replacement(spec, where, path), _prepend_scheme(spec, where, path))]
    if kind == "WordPiece":
        return [_wordpiece_decoder(get_field(spec, "prefix", str, where, path, "##"),
                                   get_field(spec, "cleanup", bool, where, path, True))]
    raise ValueError(f"{where}: {path}.type {kind!r} is not supported (supported: Sequence, ByteFallback, Fuse, "
                     "Strip, Replace, Metaspace, WordPiece)")


# -- added tokens and the post-processor --------------------------------------------------------

def _added_tokens(items, where: str) -> list[dict]:
    if not isinstance(items, list):
        raise TypeError(f"{where}: added_tokens must be a list, got {type(items).__name__}")
    out = []
    for i, t in enumerate(items):
        path = f"added_tokens[{i}]"
        tid = get_field(t, "id", int, where, path)
        content = get_field(t, "content", str, where, path)
        for flag in ("single_word", "lstrip", "rstrip"):
            if get_field(t, flag, bool, where, path, False):
                raise ValueError(f"{where}: {path}.{flag} is true for {content!r}; added tokens with "
                                 "single_word, lstrip or rstrip are not supported")
        if tid < 0 or not content:
            raise ValueError(f"{where}: {path} must have an id >= 0 and non-empty content, got {tid!r}, {content!r}")
        out.append(dict(id=tid, content=content, special=get_field(t, "special", bool, where, path, False),
                        normalized=get_field(t, "normalized", bool, where, path, False)))
    return out


def _template(spec, where: str, path: str):
    """``(before, after)``: the ``(id, token)`` pairs a single-sequence template puts around
    the text, or a string saying why it cannot."""
    if spec is None:
        return (), ()
    kind = get_field(spec, "type", str, where, path)
    if kind == "BertProcessing":
        cls_, sep = get_field(spec, "cls", list, where, path), get_field(spec, "sep", list, where, path)
        return ((cls_[1], cls_[0]),), ((sep[1], sep[0]),)
    if kind != "TemplateProcessing":
        return f"{path}.type {kind!r} is not supported"
    specials = get_field(spec, "special_tokens", dict, where, path)
    before, after, seen = [], [], False
    for i, item in enumerate(get_field(spec, "single", list, where, path)):
        if isinstance(item, dict) and "Sequence" in item:
            seen = True
            continue
        sid = get_field(get_field(item, "SpecialToken", dict, where, f"{path}.single[{i}]"), "id", str, where,
                        f"{path}.single[{i}].SpecialToken")
        entry = get_field(specials, sid, dict, where, f"{path}.special_tokens")
        pairs = list(zip(get_field(entry, "ids", list, where, f"{path}.special_tokens.{sid}"),
                         get_field(entry, "tokens", list, where, f"{path}.special_tokens.{sid}")))
        (after if seen else before).extend(pairs)
    return tuple(before), tuple(after)


class Pipeline:
    """The parts of a ``tokenizer.json`` around its model, read and checked (see the module)."""

    def __init__(self, data: dict, where: str):
        self.where = where
        for key, verb in (("truncation", "truncate"), ("padding", "pad")):
            if data.get(key) is not None:
                raise ValueError(f"{where}: {key} is set; tokenizers would {verb} every encoding and bpe-viz does not: "
                                 f"call tokenizer.no_{key}() and pass the tokenizer (or save it again)")
        self.spec = {k: data.get(k) for k in ("normalizer", "pre_tokenizer", "decoder")}
        self.normalize = build_normalizer(data.get("normalizer"), where)
        self.pre_tokenize = build_pre_tokenizer(data.get("pre_tokenizer"), where)
        self.decoder = build_decoder(data.get("decoder"), where)
        self.added = _added_tokens(data.get("added_tokens") or [], where)
        self.template = _template(data.get("post_processor"), where, "post_processor")
        #: added token text -> id, and the texts of the special ones
        self.added_ids = {t["content"]: t["id"] for t in reversed(self.added)}
        self.added_by_id = {t["id"]: t["content"] for t in reversed(self.added)}
        self.special = frozenset(t["content"] for t in self.added if t["special"])
        self._raw = _matcher([t["content"] for t in self.added if not t["normalized"]])
        normalized = []
        for t in self.added:
            if t["normalized"]:
                n = Normalized.of(t["content"])
                if self.normalize:
                    self.normalize(n)
                normalized.append((n.text, t["id"]))
        self._norm = _matcher([c for c, _ in normalized if c])
        self._norm_ids = {c: i for c, i in reversed(normalized)}

    def describe(self) -> list[str]:
        """What the pipeline does, in words (for ``describe()``)."""
        parts = [f"{what} {_names(self.spec.get(key), inner)}" for what, key, inner in
                 (("normalizer", "normalizer", "normalizers"), ("pre-tokenizer", "pre_tokenizer", "pretokenizers"),
                  ("decoder", "decoder", "decoders")) if self.spec.get(key)]
        if self.added:
            parts.append(f"{len(self.added)} added tokens")
        return parts

    def split(self, text: str) -> list[tuple[Normalized, int | None]]:
        """``text`` as ``tokenizers`` cuts it before the model: ``(piece, None)`` for each
        pre-token, ``(piece, id)`` for each added token, in order, empty pieces left out."""
        out: list = []
        for a, b, hit in _find(self._raw, text):
            piece = Normalized.of(text[a:b], a)
            if hit:
                out.append((piece, self.added_ids[text[a:b]]))
                continue
            if self.normalize:
                self.normalize(piece)
            for c, d, nhit in _find(self._norm, piece.text):
                sub = piece.slice(c, d)
                if not sub.text:
                    continue
                if nhit:
                    out.append((sub, self._norm_ids[sub.text]))
                    continue
                pieces = [sub]
                for step in self.pre_tokenize:
                    pieces = [q for p in pieces for q in step(p) if q.text]
                out.extend((p, None) for p in pieces)
        return out

    def post_tokens(self, add_special_tokens: bool):
        """The ``(id, token)`` pairs the post-processor puts before and after the text."""
        if not add_special_tokens:
            return (), ()
        if isinstance(self.template, str):
            raise ValueError(f"add_special_tokens: {self.where}: {self.template}")
        return self.template

    def decode(self, tokens_by_id, ids) -> str:
        """``Tokenizer.decode(ids)``: special tokens skipped, then the decoder chain (or the tokens
        joined with spaces). ``tokens_by_id``: id -> token text."""
        tokens = []
        n = len(tokens_by_id)
        for i in ids:
            if isinstance(i, bool) or not isinstance(i, int):
                raise TypeError(f"ids must contain ints, got {type(i).__name__} {i!r}")
            tok = self.added_by_id.get(i)
            if tok is None:
                if not 0 <= i < n or tokens_by_id[i] is None:
                    raise ValueError(f"ids: {i} is not a token id of this tokenizer (ids run from 0 to {n - 1})")
                tok = tokens_by_id[i]
            if tok not in self.special:
                tokens.append(tok)
        if self.decoder is None:
            return " ".join(tokens)
        for step in self.decoder:
            tokens = step(tokens)
        return "".join(tokens)


def _names(spec, inner: str) -> str:
    """A component's type, a Sequence's as ``A+B``."""
    if spec.get("type") == "Sequence":
        return "+".join(_names(s, inner) for s in spec.get(inner, []))
    return str(spec.get("type"))


def _matcher(contents: list[str]):
    """A regular expression finding the leftmost-longest of ``contents`` (Aho-Corasick's
    LeftmostLongest), or ``None``."""
    contents = sorted(set(c for c in contents if c), key=lambda c: (-len(c), c))
    return re.compile("|".join(map(re.escape, contents))) if contents else None


def _find(matcher, text: str):
    """``(start, end, is_added_token)`` covering ``text`` (nothing for an empty text)."""
    if matcher is None:
        return [(0, len(text), False)] if text else []
    out, prev = [], 0
    for m in matcher.finditer(text):
        a, b = m.span()
        if a > prev:
            out.append((prev, a, False))
        out.append((a, b, True))
        prev = b
    if prev < len(text):
        out.append((prev, len(text), False))
    return out
