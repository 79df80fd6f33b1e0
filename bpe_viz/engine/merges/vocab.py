"""Token ids: which id each token of a trace gets, by the layout its source uses.

Sources number their vocabularies differently, and an engineer comparing ids must get exactly
theirs. A layout is a name on the convention (``id_layout``):

* ``"unk-first"`` (the classic explainer): 0 is ``<unk>``, then the initial symbols in order of
  first appearance, then the marker's completions (``x</w>`` when only ``x`` was seen), then the
  merged tokens, then any special tokens;
* ``"specials-first"`` (Stanford CS336, Hugging Face's BpeTrainer): the special tokens, then the
  alphabet, then the merged tokens;
* ``"specials-last"`` (minbpe): the alphabet (for bytes: id = byte value), the merged tokens,
  then the special tokens;
* ``"gpt2"`` (a GPT-2 ``merges.txt`` read without its ``vocab.json``): the 256 bytes in GPT-2's
  table order, the merged tokens, then the special tokens;
* ``"sentencepiece"``: ``<unk> <s> </s>``, the merged pieces, then the alphabet by frequency
  (the characters SentencePiece keeps; rarer ones have no id);
* an explicit ``{token: id}`` mapping (a ``vocab.json`` or a ``tokenizer.json``).

There is an unknown token only when the alphabet is the characters seen in training
(``initial_alphabet=None``); with ``initial_alphabet="bytes"`` every text has an id.

Example::

    >>> from bpe_viz import train_bpe
    >>> t = train_bpe("aaabdaaabac", num_merges=3, preset="minbpe")
    >>> t.token_to_id("a"), t.token_to_id("aa"), t.id_to_token[258]
    (97, 256, 'aaab')
"""

from __future__ import annotations

from itertools import compress

from ..text.alphabet import BYTE_SYMBOLS

__all__ = ["IdTable", "ID_LAYOUTS", "GPT2_BYTE_ORDER", "check_dense_ids"]

ID_LAYOUTS = ("unk-first", "specials-first", "specials-last", "gpt2", "sentencepiece")

#: SentencePiece's control pieces after ``<unk>`` (``bos_id`` 1, ``eos_id`` 2)
SENTENCEPIECE_CONTROLS = ("<s>", "</s>")

# GPT-2's bytes_to_unicode lists the printable bytes first, then the others: its vocab.json
# gives the 256 byte tokens ids in that order.
_PRINTABLE = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
GPT2_BYTE_ORDER: tuple[int, ...] = (*_PRINTABLE, *(b for b in range(256) if b not in _PRINTABLE))

#: ids may leave gaps, but none may reach ``ID_SLACK_FACTOR * entries + ID_SLACK``: the id table
#: has one slot per id, and real files number their tokens densely
ID_SLACK_FACTOR, ID_SLACK = 2, 1024


def check_dense_ids(vocab: dict, where: str) -> None:
    """Refuse a ``{token: id}`` mapping with an id far past its length (at or above
    ``2 * len(vocab) + 1024``), which would allocate one slot per id; ``where`` names the file or
    argument in the ``ValueError``.

    Example::

        >>> check_dense_ids({"a": 0, "b": 7}, "vocab")
        >>> check_dense_ids({"a": 0, "b": 50_000_000}, "vocab")
        Traceback (most recent call last):
        ...
        ValueError: vocab: token 'b' has id 50000000, far past the 2 entries (ids must be below 2 * 2 + 1024 = 1028; real vocabularies number their tokens densely)
    """
    limit = ID_SLACK_FACTOR * len(vocab) + ID_SLACK
    if not vocab or max(vocab.values()) < limit:
        return
    for tok, i in vocab.items():
        if i >= limit:
            raise ValueError(f"{where}: token {tok!r} has id {i}, far past the {len(vocab)} entries (ids must be below "
                             f"{ID_SLACK_FACTOR} * {len(vocab)} + {ID_SLACK} = {limit}; real vocabularies number "
                             "their tokens densely)")


def first_ids(keys: list, kinds: list, wanted) -> dict:
    """``{key: position}`` of the ``keys`` whose kind passes ``wanted`` (a predicate), the first
    position winning a repeated key, in order of first appearance; in bulk when no key repeats,
    as in a real vocabulary."""
    mask = list(map(wanted, kinds))
    d = dict(zip(compress(keys, mask), compress(range(len(keys)), mask)))
    if len(d) == sum(mask):
        return d
    d = {}
    for k, i in zip(compress(keys, mask), compress(range(len(keys)), mask)):
        d.setdefault(k, i)
    return d


IN_VOCAB = frozenset(("base", "merge"))  # kinds whose tokens the merges can make
OUTSIDE = frozenset(("special", "unk"))  # kinds with a public spelling but no internal one


def public_ids(tokens: list, kinds: list, ids: dict, remapped: bool) -> dict:
    """``{public token: id}`` of every used id (the first id winning): a copy of the internal
    ``ids`` plus the specials and the unknown token when the spellings agree and no special
    repeats a token, as in a real vocabulary (one pass fewer over 200,000 tokens)."""
    if not remapped:
        extra = [(tokens[i], i) for i in compress(range(len(kinds)), map(OUTSIDE.__contains__, kinds))]
        texts = {t for t, _ in extra}
        if len(texts) == len(extra) and ids.keys().isdisjoint(texts):
            public = dict(ids)
            public.update(extra)
            return public
    return first_ids(tokens, kinds, "unused".__ne__)


SPECIAL = object()  # what decode sees for a special token's id (its text comes from the table)


class IdTable:
    """The ids of one trace at its full length (``encode`` with fewer merges uses the same ids).

    * ``tokens``: public token strings by id; ``internal``: the internal spelling by id
      (``None`` for the unknown token, the text for a special token);
    * ``ids``: internal token -> id for the alphabet and merged tokens (first id wins);
    * ``public``: public token -> id for every token, specials included (first id wins);
    * ``unk_id`` (or ``None``), ``specials`` (text -> id), ``merge_ids`` (merge step -> id).
    """

    def __init__(self, trace, layout):
        h = trace.history
        base = list(trace.base_symbols)
        completions = list(trace.completion_symbols)
        merged = list(h.merged_tokens)
        specials = list(trace.convention.special_tokens)
        has_unk = trace.convention.initial_alphabet is None
        self.unk_id = None
        if isinstance(layout, dict):
            self._explicit(trace, layout, base, merged, specials)
            return
        if layout == "gpt2":
            order = {BYTE_SYMBOLS[b]: i for i, b in enumerate(GPT2_BYTE_ORDER)}
            base.sort(key=lambda s: order.get(s, 256))
        blocks: list[tuple[str, list]] = []
        if layout == "sentencepiece":
            alphabet = trace.alphabet if trace.alphabet is not None else base
            blocks = [("unk", [trace.unk_token]), ("special", [*SENTENCEPIECE_CONTROLS, *specials]),
                      ("merge", merged), ("base", list(alphabet))]
        elif has_unk:
            blocks.append(("unk", [trace.unk_token]))
        if layout == "specials-first":
            blocks.append(("special", specials))
        if layout != "sentencepiece":
            blocks += [("base", base + completions), ("merge", merged)]
        if layout not in ("specials-first", "sentencepiece"):
            blocks.append(("special", specials))
        internal: list = []
        kinds: list = []
        for kind, toks in blocks:
            if kind == "unk":
                self.unk_id = len(internal)
            if kind == "merge":
                self.merge_ids = list(range(len(internal), len(internal) + len(toks)))
            internal.extend(toks)
            kinds.extend([kind] * len(toks))
        self._finish(trace, internal, kinds)

    def _explicit(self, trace, vocab: dict, base, merged, specials):
        check_dense_ids(vocab, "vocab")
        n = max(vocab.values()) + 1 if vocab else 0
        internal: list = [None] * n
        kinds: list = ["unused"] * n
        # internal and public spellings agree unless the marker is remapped: no per-token calls then
        show = trace.show if trace.remaps_marker else None
        if show is None and list(vocab.values()) == list(range(n)):  # ids 0..n-1 in order: in bulk
            internal = list(vocab)
            kinds = ["base"] * n
        else:
            for tok, i in vocab.items():
                internal[i] = tok if show is None else trace.internal(tok)
                kinds[i] = "base"
        public = merged if show is None else list(map(show, merged))
        if not (all(map(vocab.__contains__, base if show is None else map(show, base)))
                and all(map(vocab.__contains__, public))):
            missing = [t for t in (*base, *merged) if (t if show is None else show(t)) not in vocab]
            raise ValueError(f"vocab: {len(missing)} tokens of the merges have no id, e.g. {missing[0]!r}")
        self.merge_ids = list(map(vocab.__getitem__, public))
        for i in self.merge_ids:
            kinds[i] = "merge"
        for s in specials:
            if s in vocab:
                kinds[vocab[s]] = "special"
            else:
                internal.append(s)
                kinds.append("special")
        if trace.convention.initial_alphabet is None and trace.unk_token not in vocab:
            self.unk_id = len(internal)
            internal.append(trace.unk_token)
            kinds.append("unk")
        elif trace.unk_token in vocab:
            self.unk_id = vocab[trace.unk_token]
            kinds[self.unk_id] = "unk"
        self._finish(trace, internal, kinds)

    def _finish(self, trace, internal, kinds):
        # written in bulk, no per-token Python calls: a 200,000-token vocabulary notices
        self.kinds = kinds
        self.merge_step = dict(zip(self.merge_ids, range(1, len(self.merge_ids) + 1)))
        n = len(internal)
        self.internal = list(internal)
        tokens = list(internal) if not trace.remaps_marker else [
            t if t is None or k == "special" else trace.show(t) for t, k in zip(internal, kinds)]
        for i in compress(range(n), map("unk".__eq__, kinds)):
            self.internal[i] = None
            tokens[i] = trace.unk_token
        if None in tokens:  # ids an explicit vocabulary leaves unused
            tokens = ["" if t is None else t for t in tokens]
        self.tokens = tokens
        ids = first_ids(internal, kinds, IN_VOCAB.__contains__)
        ids.pop(None, None)
        self.ids: dict[str, int] = ids
        self.specials: dict[str, int] = first_ids(internal, kinds, "special".__eq__)
        self.public: dict[str, int] = public_ids(tokens, kinds, ids, trace.remaps_marker)
        # merged tokens follow the alphabet in every layout but an explicit vocabulary; then a
        # token id is valid with k merges iff it is below the id of merge k + 1
        m = self.merge_ids
        first = m[0] if m else n
        self.ordered = m == list(range(first, first + len(m))) and (
            max(compress(range(n), map("base".__eq__, kinds)), default=-1) < first
            or all(i < first for t, i in ids.items() if kinds[i] == "base"))

    def limit(self, k: int) -> int | None:
        """Token ids below this are valid with the first ``k`` merges (``None``: check each)."""
        if not self.merge_ids:
            return len(self.internal)
        if self.ordered:
            return self.merge_ids[0] + k
        return len(self.internal) if k == len(self.merge_ids) else None

    def __len__(self) -> int:
        return len(self.tokens)
