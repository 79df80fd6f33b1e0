"""Hugging Face BPE ``tokenizer.json`` files read into traces that encode as ``tokenizers`` does.

:func:`from_hf_bpe` takes the parsed JSON (:func:`~bpe_viz.interop.hf.from_hf_tokenizer` reads
the file and picks the reader by ``model.type``). Two kinds of file:

* **byte-level** (GPT-2 style: a ``ByteLevel`` pre-tokenizer): a plain byte-level trace of the
  engine (:func:`~bpe_viz.interop.gpt2.read_merges`), merges, ids and added tokens kept;
* **SentencePiece style** (Llama, Mistral: ``▁`` for spaces, unknown characters as
  ``<0xE4>`` byte pieces): either a normalizer ``Sequence[Prepend("▁"), Replace(" ", "▁")]``
  with no pre-tokenizer, or a ``Metaspace`` pre-tokenizer (any ``prepend_scheme``, ``split``
  on or off), with ``byte_fallback``, ``fuse_unk``, ``unk_token`` and ``ignore_merges``. The
  result is an :class:`~bpe_viz.interop.hf_trace.HFTrace`: the merges in the file's order are its
  steps, and :class:`HFBPEModel` encodes each pre-token as ``tokenizers``' ``BPE`` model does.

Hugging Face's BPE applies merges by **rank** (the lowest first, the leftmost among equal
ranks; a merge re-listed later takes the later rank), on the ids of the two neighbours: it is
not SentencePiece's encoder, which merges by piece score
(:mod:`~bpe_viz.engine.bpe.sentencepiece`). A character that is not in the vocabulary becomes
its UTF-8 bytes (``<0xE4>`` ...) when ``byte_fallback`` is on and every byte has a piece,
otherwise the unknown token (a run of them one token with ``fuse_unk``; dropped when the
model has no ``unk_token``).

Example::

    >>> data = {"model": {"type": "BPE", "byte_fallback": True, "unk_token": "<unk>",
    ...                   "vocab": {"<unk>": 0, "<0xC3>": 1, "<0xA9>": 2, "▁": 3, "h": 4, "i": 5, "▁h": 6, "▁hi": 7},
    ...                   "merges": [["▁", "h"], ["▁h", "i"]]},
    ...         "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"}}
    >>> t = from_hf_bpe(data)
    >>> e = t.encode("hi é")
    >>> e.tokens, e.offsets
    (['▁hi', '▁', '<0xC3>', '<0xA9>'], [(0, 2), (2, 3), (3, 4), (3, 4)])
"""

from __future__ import annotations

import heapq

from ..engine.bpe.model import replay_bpe
from ..engine.merges.encoding import EncodeStep, WordWalkthrough
from ..engine.merges.vocab import check_dense_ids
from .gpt2 import read_merges
from .hf_components import get_field
from .hf_pipeline import Pipeline
from .hf_trace import adopt

__all__ = ["from_hf_bpe", "HFBPEModel", "HF_RANK_RULE"]

#: how Hugging Face's BPE encoder works, in one sentence (the walkthrough view shows it)
HF_RANK_RULE = ("each iteration merges the neighbour pair of lowest rank in the merge list (the leftmost if "
                "several), one place at a time; ranks, not piece scores")


def from_hf_bpe(data: dict, where: str = "tokenizer.json"):
    """A trace from a parsed Hugging Face BPE ``tokenizer.json``: byte-level (GPT-2 style) or
    SentencePiece style (``▁`` and byte fallback); see the module docstring."""
    model = get_field(data, "model", dict, where, "")
    if model.get("type") != "BPE":
        raise ValueError(f"{where}: only BPE models are supported here, this one is {model.get('type')!r}")
    pre = data.get("pre_tokenizer") or {}
    steps = pre.get("pretokenizers", [pre]) if isinstance(pre, dict) and pre.get("type") == "Sequence" else [pre]
    if any(isinstance(s, dict) and s.get("type") == "ByteLevel" for s in steps):
        return _byte_level(data, model, steps, where)
    return _sentencepiece_style(data, model, where)


def _byte_level(data, model, steps, where):
    if model.get("end_of_word_suffix") or model.get("continuing_subword_prefix"):
        raise ValueError(f"{where}: a BPE model with end_of_word_suffix or continuing_subword_prefix "
                         "is not byte-level; use read_codes / to_hf_tokenizer for those")
    kinds = [s.get("type") if isinstance(s, dict) else s for s in steps]
    if kinds != ["ByteLevel"]:
        raise ValueError(f"{where}: only a ByteLevel pre-tokenizer alone is supported for byte-level BPE, found "
                         f"{kinds!r:.80}")
    if steps[0].get("add_prefix_space") or not steps[0].get("use_regex", True):
        raise ValueError(f"{where}: ByteLevel with add_prefix_space=True or use_regex=False is not supported")
    vocab = check_vocab(get_field(model, "vocab", dict, where, "model"), where)
    merges = []
    for i, m in enumerate(get_field(model, "merges", list, where, "model", [])):
        if not (isinstance(m, str) or (isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) and x for x in m))):
            raise ValueError(f"{where}: model.merges[{i}] must be a pair of non-empty tokens, got {m!r:.80}")
        merges.append(m if isinstance(m, str) else " ".join(m))
    specials = []
    for i, t in enumerate(get_field(data, "added_tokens", list, where, "", [])):
        if get_field(t, "special", bool, where, f"added_tokens[{i}]", True):
            specials.append(get_field(t, "content", str, where, f"added_tokens[{i}]"))
    return read_merges(merges, vocab=vocab, special_tokens=specials)


def _sentencepiece_style(data, model, where):
    for name in ("continuing_subword_prefix", "end_of_word_suffix"):
        if get_field(model, name, str, where, "model", ""):
            raise ValueError(f"{where}: model.{name} is not supported for a BPE model without ByteLevel")
    dropout = get_field(model, "dropout", (int, float), where, "model", 0)
    if dropout:
        raise ValueError(f"{where}: model.dropout is {dropout}; BPE-dropout is random, so its encodings cannot "
                         "be reproduced: set it to null")
    pipeline = Pipeline(data, where)
    hf = HFBPEModel(model, where)
    trace = replay_bpe([], hf.merge_pairs, end_of_word=None, byte_level=False,
                       special_tokens=tuple(pipeline.added_ids), id_layout="unk-first")
    trace.explicit_vocab = {**hf.vocab, **pipeline.added_ids}
    return adopt(trace, pipeline, hf, where, hf.unk_token)


def _merge_list(model, vocab, where) -> list[tuple[str, str]]:
    pairs = []
    for i, m in enumerate(get_field(model, "merges", list, where, "model", [])):
        if isinstance(m, str):
            parts = m.split(" ")
            if len(parts) != 2:
                raise ValueError(f"{where}: model.merges[{i}] must be two tokens separated by one space, got {m!r}")
            m = parts
        if not (isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) and x for x in m)):
            raise ValueError(f"{where}: model.merges[{i}] must be a pair of non-empty tokens, got {m!r:.80}")
        for tok in (*m, m[0] + m[1]):
            if tok not in vocab:
                raise ValueError(f"{where}: model.merges[{i}] {m!r}: {tok!r} is not in model.vocab")
        pairs.append((m[0], m[1]))
    return pairs


def check_vocab(vocab, where: str) -> dict:
    """A ``model.vocab`` object checked: token (str) -> id (int >= 0)."""
    if not isinstance(vocab, dict):
        raise TypeError(f"{where}: model.vocab must be a JSON object token -> id, got {type(vocab).__name__}")
    for tok, i in vocab.items():
        if isinstance(i, bool) or not isinstance(i, int) or i < 0:
            raise TypeError(f"{where}: model.vocab[{tok!r}] must be an id (int >= 0), got {i!r:.40}")
    check_dense_ids(vocab, f"{where}: model.vocab")
    return vocab


class HFBPEModel:
    """``tokenizers``' ``BPE`` model on one pre-token (see the module docstring)."""

    kind = "BPE"

    def __init__(self, model: dict, where: str):
        self.vocab = check_vocab(get_field(model, "vocab", dict, where, "model"), where)
        self.unk_token = get_field(model, "unk_token", str, where, "model", None)
        self.fuse_unk = get_field(model, "fuse_unk", bool, where, "model", False)
        self.byte_fallback = get_field(model, "byte_fallback", bool, where, "model", False)
        self.ignore_merges = get_field(model, "ignore_merges", bool, where, "model", False)
        self.merge_pairs = _merge_list(model, self.vocab, where)
        self.by_id = {i: t for t, i in self.vocab.items()}
        self.where = where
        self._maps: dict = {}

    def describe(self) -> list[str]:
        parts = [f"Hugging Face BPE, {len(self.merge_pairs)} merges applied by rank"]
        if self.byte_fallback:
            parts.append("byte fallback (<0x..> pieces)")
        if self.ignore_merges:
            parts.append("ignore_merges (a pre-token in the vocabulary is kept whole)")
        return parts

    def merges(self, k: int) -> dict:
        """``(left id, right id) -> (rank, new id)`` for the first ``k`` merges (a pair listed
        twice keeps its later rank, as ``tokenizers``' map does)."""
        got = self._maps.get(k)
        if got is None:
            v = self.vocab
            got = {(v[a], v[b]): (r, v[a + b]) for r, (a, b) in enumerate(self.merge_pairs[:k])}
            if len(self._maps) > 4:
                self._maps.clear()
            self._maps[k] = got
        return got

    def symbols(self, word: str) -> list[list[int]]:
        """The pre-token's first symbols, ``[id, length in bytes]``, as ``merge_word`` makes them."""
        v = self.vocab
        out, unk = [], None
        for ch in word:
            tid = v.get(ch)
            n = len(ch.encode("utf-8"))
            if tid is not None:
                if unk is not None:
                    out.append(unk)
                    unk = None
                out.append([tid, n])
                continue
            if self.byte_fallback:
                ids = [v.get(f"<0x{b:02X}>") for b in ch.encode("utf-8")]
                if None not in ids:
                    # subtle: tokenizers adds these before a pending unknown token
                    out.extend([i, 1] for i in ids)
                    continue
            if self.unk_token is None:
                continue  # no unknown token: the character is dropped
            unk_id = v.get(self.unk_token)
            if unk_id is None:
                raise ValueError(f"{self.where}: model.unk_token {self.unk_token!r} is not in model.vocab")
            if unk is not None and self.fuse_unk:
                unk[1] += n
                continue
            if unk is not None:
                out.append(unk)
            unk = [unk_id, n]
        if unk is not None:
            out.append(unk)
        return out

    def merge_all(self, syms: list, merges: dict, record: list | None = None) -> list:
        """``Word::merge_all``: a heap of (rank, position); stale entries skipped."""
        n = len(syms)
        nxt = [*range(1, n), -1]
        prv = list(range(-1, n - 1))
        get = merges.get
        heap = [(m[0], i, m[1]) for i in range(n - 1) if (m := get((syms[i][0], syms[i + 1][0])))]
        heapq.heapify(heap)
        while heap:
            rank, pos, new_id = heapq.heappop(heap)
            j = nxt[pos]
            if not syms[pos][1] or j == -1:
                continue
            m = get((syms[pos][0], syms[j][0]))
            if m is None or m[1] != new_id:
                continue
            if record is not None:
                before = [s[0] for s in syms if s[1]]
                record.append((before, (syms[pos][0], syms[j][0]), rank))
            syms[pos] = [new_id, syms[pos][1] + syms[j][1]]
            syms[j][1] = 0
            nxt[pos] = nxt[j]
            if nxt[j] != -1:
                prv[nxt[j]] = pos
            if prv[pos] >= 0 and (m := get((syms[prv[pos]][0], new_id))):
                heapq.heappush(heap, (m[0], prv[pos], m[1]))
            if nxt[pos] != -1 and (m := get((new_id, syms[nxt[pos]][0]))):
                heapq.heappush(heap, (m[0], pos, m[1]))
        return [s for s in syms if s[1]]

    def tokenize(self, word: str, k: int) -> list[tuple[int, str, int, int]]:
        """``(id, piece, start, end)`` per token of one pre-token, with the first ``k`` merges;
        positions are characters of ``word`` (a byte piece covers its whole character)."""
        if self.ignore_merges and word in self.vocab:
            return [(self.vocab[word], word, 0, len(word))]
        syms = self.merge_all(self.symbols(word), self.merges(k))
        char_of = [i for i, ch in enumerate(word) for _ in range(len(ch.encode("utf-8")))]
        out, pos = [], 0
        unk = self.vocab.get(self.unk_token) if self.unk_token is not None else None
        for tid, n in syms:
            a, b = char_of[pos], char_of[pos + n - 1] + 1
            out.append((tid, word[a:b] if tid == unk else self.by_id[tid], a, b))
            pos += n
        return out

    def walkthrough(self, word: str, k: int) -> WordWalkthrough:
        """The merges made on one pre-token, with the candidates (pairs present, by rank) at each."""
        show = self.by_id.get
        merges = self.merges(k)
        if self.ignore_merges and word in self.vocab:
            return WordWalkthrough(word, (word,), (), (word,), k, rule="ignore_merges: the pre-token is in the "
                                   "vocabulary, so it is one token")
        initial = self.symbols(word)
        record: list = []
        final = self.merge_all([list(s) for s in initial], merges, record)
        steps = []
        for i, (before, pair, rank) in enumerate(record):
            after = record[i + 1][0] if i + 1 < len(record) else [s[0] for s in final]
            cands = sorted({(p, merges[p][0]) for p in zip(before, before[1:]) if p in merges}, key=lambda t: (t[1], t[0]))
            steps.append(EncodeStep(tuple(map(show, before)), tuple(((show(a), show(b)), r + 1) for (a, b), r in cands),
                                    (show(pair[0]), show(pair[1])), rank + 1, tuple(map(show, after))))
        return WordWalkthrough(word, tuple(show(s[0]) for s in initial), tuple(steps),
                               tuple(show(s[0]) for s in final), k, rule=HF_RANK_RULE)
