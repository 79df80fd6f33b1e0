"""A merge trace read from a Hugging Face ``tokenizer.json`` that encodes as ``tokenizers`` does.

:class:`HFTrace` is a :class:`~bpe_viz.engine.merges.trace.Trace` (so the merge views, the
vocabulary tables and the step slider work on it) whose ``encode``, ``encode_word`` and
``decode`` run the file's own pipeline (:class:`~.hf_pipeline.Pipeline`: added tokens,
normalizer, pre-tokenizer, decoder) and model (:mod:`.hf_bpe`'s BPE with byte fallback,
:mod:`.hf_wordpiece`'s greedy longest match), so ids, tokens and offsets are those of
``Tokenizer.encode(text, add_special_tokens=False)``; ``add_special_tokens=True`` adds what the
post-processor's single-sequence template adds. Ids are the file's.

How it differs from its siblings: :mod:`.hf_bpe`'s byte-level reader gives a plain trace (the
GPT-2 conventions are the engine's own); a Unigram file becomes a Unigram tokenizer
(:mod:`.hf_unigram`).
"""

from __future__ import annotations

from ..engine.merges.encoding import Encoding
from ..engine.merges.trace import Trace
from ..engine.protocol import check_step, reject_options
from ..engine.text.alphabet import surrogate_error

__all__ = ["HFTrace", "adopt"]


class HFTrace(Trace):
    """A trace whose encoder is a ``tokenizer.json``'s (see the module docstring). ``model``
    answers ``tokenize(piece, k)`` (``(id, piece text, start, end)`` per token, positions in the
    piece's characters), ``walkthrough(piece, k)`` and ``describe()``."""

    pipeline = None
    hf_model = None
    source = "tokenizer.json"

    @property
    def id_table(self):
        table = Trace.id_table.fget(self)
        if (table.unk_id is not None and self.unk_token not in self.explicit_vocab
                and not getattr(table, "hf_trimmed", False)):
            # subtle: a model whose unknown token has no id would get one extra id at the end; drop it
            for seq in (table.tokens, table.internal, table.kinds):
                seq.pop()
            table.public.pop(None, None)
            table.unk_id = None
            table.hf_trimmed = True
        return table

    def encode(self, text: str, step: int | None = None, *, add_special_tokens: bool = False,
               allowed_special="all", **options) -> Encoding:
        """``text`` as ``Tokenizer.encode(text, add_special_tokens=False)`` encodes it (with the
        first ``step`` merges or vocabulary steps); ``add_special_tokens=True`` adds the
        post-processor's tokens ([CLS] ... [SEP]) with empty offsets."""
        reject_options(self, options)
        if allowed_special != "all":
            raise ValueError("allowed_special: a tokenizer.json's added tokens are always recognized "
                             "(as tokenizers does); only 'all' is supported")
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        if not isinstance(add_special_tokens, bool):
            raise TypeError(f"add_special_tokens must be True or False, got {add_special_tokens!r}")
        k = check_step(self, step)
        try:
            return self._encode(text, k, add_special_tokens)
        except UnicodeEncodeError:  # only a lone surrogate has no UTF-8 bytes: say where it is
            raise surrogate_error(text, "text") from None

    def _encode(self, text: str, k: int, add_special_tokens: bool) -> Encoding:
        before, after = self.pipeline.post_tokens(add_special_tokens)
        words, spans, entries = [], [], []

        def add_specials(pairs, at):
            for tid, tok in pairs:
                words.append(tok)
                spans.append((at, at))
                entries.append(((tok,), (tid,), ((0, 0),), (None,)))

        add_specials(before, 0)
        for piece, added in self.pipeline.split(text):
            start = piece.orig[0]
            words.append(piece.text)
            spans.append(piece.orig)
            if added is not None:
                entries.append(((piece.text,), (added,), ((0, piece.orig[1] - start),), (None,)))
                continue
            toks = self.hf_model.tokenize(piece.text, k)
            offs = [piece.span(a, b) for _, _, a, b in toks]
            entries.append((tuple(p for _, p, _, _ in toks), tuple(t for t, _, _, _ in toks),
                            tuple((a - start, b - start) for a, b in offs),
                            tuple(map(self.made_at_of_id, (t for t, _, _, _ in toks)))))
        add_specials(after, 0)  # tokenizers gives every added special token the offsets (0, 0)
        return Encoding(text, self, k, words, entries, spans)

    def encode_word(self, word: str, step: int | None = None):
        """How the model cuts one pre-token (as the pipeline gives it: normalized, ``▁`` in
        place of spaces), every step recorded."""
        if not isinstance(word, str) or not word:
            raise ValueError(f"word must be a non-empty str (one pre-token), got {word!r}")
        return self.hf_model.walkthrough(word, check_step(self, step))

    def decode(self, ids) -> str:
        """``Tokenizer.decode(ids)``: special tokens skipped, then the file's decoder."""
        if isinstance(ids, Encoding):
            if ids.trace is not self:
                raise ValueError("ids: this Encoding was made with another tokenizer")
            ids = ids.ids
        if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
            raise TypeError(f"ids must be a list of int token ids or an Encoding, got {type(ids).__name__}")
        table = self.id_table
        cached = self.__dict__.get("_hf_decode_tokens")
        if cached is None or cached[0] is not table:
            cached = self.__dict__["_hf_decode_tokens"] = (
                table, [None if k == "unused" else t for t, k in zip(table.tokens, table.kinds)])
        return self.pipeline.decode(cached[1], list(ids))

    def describe(self) -> str:
        return "; ".join([f"read from {self.source}", *self.hf_model.describe(), *self.pipeline.describe()])

    def __repr__(self):
        return f"<HFTrace {self.hf_model.kind}: {len(self.merges)} steps, {self.vocab_size} ids, from {self.source}>"


def adopt(trace: Trace, pipeline, model, source: str, unk_token) -> HFTrace:
    """``trace`` (made by ``replay_bpe`` from the file's merges) as an :class:`HFTrace` that
    encodes with ``pipeline`` and ``model``."""
    # subtle: replay_bpe builds a plain Trace; the class is switched, not copied, so every Merge
    # still points at this very object
    trace.__class__ = HFTrace
    trace.pipeline, trace.hf_model, trace.source, trace.unk_token = pipeline, model, source, unk_token
    trace.id_table  # build now: a vocabulary problem shows here, not at the first encode
    return trace
