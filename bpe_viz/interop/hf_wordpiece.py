"""Hugging Face WordPiece ``tokenizer.json`` files (BERT) read into traces that encode as
``tokenizers`` does.

:func:`from_hf_wordpiece` takes the parsed JSON (:func:`~bpe_viz.interop.hf.from_hf_tokenizer`
reads the file). The pipeline around the model (``BertNormalizer`` or ``Lowercase`` / ``NFD`` /
``StripAccents`` ..., ``BertPreTokenizer`` / ``Whitespace`` / ``WhitespaceSplit``, the
``WordPiece`` decoder) is :mod:`.hf_pipeline`'s; :class:`HFWordPieceModel` is ``tokenizers``'
``WordPiece`` model: greedy longest match first, continuation pieces spelled with the
``continuing_subword_prefix`` (``##``), a word with a piece missing from the vocabulary, or
longer than ``max_input_chars_per_word`` characters, one ``unk_token``.

**A vocabulary has no training history**, so the trace's steps are made up honestly from it: the
vocabulary is read in id order, and an entry of two characters or more (``##`` aside) is a
"merge" when it splits into two entries with smaller ids (the longest left part that does is
taken; ``the`` = ``th`` + ``##e``); every other entry (special tokens, single characters,
entries with no such split) is in the vocabulary from step 0. The merge a WordPiece trainer
really made is not in the file (Hugging Face's ``WordPieceTrainer`` trains BPE underneath; the
pair it merged can differ from the split shown). ``encode(text, k)`` uses the step-0 entries and
the first ``k`` merged ones; ``encode(text)`` is the whole vocabulary, as ``tokenizers``.

How it differs from :mod:`bpe_viz.engine.wordpiece`: that trains WordPiece by score; this reads a
finished vocabulary and encodes as ``tokenizers`` (its ``max_input_chars_per_word``, its unknown
token, its pipeline).

Example::

    >>> data = {"model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
    ...                   "max_input_chars_per_word": 100,
    ...                   "vocab": {"[UNK]": 0, "h": 1, "u": 2, "##u": 3, "##g": 4, "##s": 5, "hu": 6, "hug": 7}},
    ...         "normalizer": {"type": "BertNormalizer", "lowercase": True},
    ...         "pre_tokenizer": {"type": "BertPreTokenizer"}, "decoder": {"type": "WordPiece", "prefix": "##"}}
    >>> t = from_hf_wordpiece(data)
    >>> [m.pair for m in t.merges]
    [('h', '##u'), ('hu', '##g')]
    >>> e = t.encode("Hugs, hux!")
    >>> e.tokens, e.offsets
    (['hug', '##s', '[UNK]', '[UNK]', '[UNK]'], [(0, 3), (3, 4), (4, 5), (6, 9), (9, 10)])
    >>> t.encode("hugs", 1).tokens, t.decode(t.encode("HUGS").ids)
    (['hu', '##g', '##s'], 'hugs')
"""

from __future__ import annotations

from ..engine.bpe.model import replay_bpe
from ..engine.merges.encoding import EncodeStep, WordWalkthrough
from ..engine.wordpiece import longest_match
from .hf_bpe import check_vocab
from .hf_components import get_field
from .hf_pipeline import Pipeline
from .hf_trace import adopt

__all__ = ["from_hf_wordpiece", "HFWordPieceModel", "recover_splits"]


def recover_splits(vocab: dict, prefix: str) -> tuple[list[tuple[str, str]], set]:
    """The "merges" of a WordPiece vocabulary, in id order: each entry that splits into two
    entries with smaller ids (longest left part first), and the set of the other entries.

    Example::

        >>> merges, initial = recover_splits({"a": 0, "##b": 1, "ab": 2, "##ab": 3, "abab": 4}, "##")
        >>> merges, sorted(initial)  # no "##a", so "##ab" has no split
        ([('a', '##b'), ('ab', '##ab')], ['##ab', '##b', 'a'])
    """
    merges, initial = [], set()
    for tok, i in sorted(vocab.items(), key=lambda t: (t[1], t[0])):
        cont = bool(prefix) and tok.startswith(prefix) and len(tok) > len(prefix)
        head, body = (prefix, tok[len(prefix):]) if cont else ("", tok)
        for cut in range(len(body) - 1, 0, -1):
            left, right = head + body[:cut], prefix + body[cut:]
            a, b = vocab.get(left), vocab.get(right)
            if a is not None and b is not None and a < i and b < i:
                merges.append((left, right))
                break
        else:
            initial.add(tok)
    return merges, initial


class HFWordPieceModel:
    """``tokenizers``' ``WordPiece`` model on one pre-token (see the module docstring)."""

    kind = "WordPiece"

    def __init__(self, model: dict, where: str):
        self.vocab = check_vocab(get_field(model, "vocab", dict, where, "model"), where)
        self.unk_token = get_field(model, "unk_token", str, where, "model")
        self.prefix = get_field(model, "continuing_subword_prefix", str, where, "model", "##")
        self.max_chars = get_field(model, "max_input_chars_per_word", int, where, "model", 100)
        if self.unk_token not in self.vocab:
            raise ValueError(f"{where}: model.unk_token {self.unk_token!r} is not in model.vocab")
        self.merge_pairs, self.initial = recover_splits(self.vocab, self.prefix)
        self.made = [a + b[len(self.prefix):] for a, b in self.merge_pairs]
        self._sets: dict = {}

    def describe(self) -> list[str]:
        return [f"Hugging Face WordPiece: greedy longest match, continuation prefix {self.prefix!r}, "
                f"unknown token {self.unk_token!r}, at most {self.max_chars} characters a word",
                f"steps: the {len(self.merge_pairs)} entries that split into two earlier ones, in id order"]

    def known(self, k: int) -> set | dict:
        """The entries usable after ``k`` steps (all of them at the last step)."""
        if k >= len(self.made):
            return self.vocab
        got = self._sets.get(k)
        if got is None:
            if len(self._sets) > 4:
                self._sets.clear()
            got = self._sets[k] = self.initial | set(self.made[:k])
        return got

    def greedy(self, word: str, k: int, record: list | None = None):
        """The longest-match pieces ``(piece, start, end)`` of ``word``, or ``None`` when it is unknown."""
        pieces = longest_match(word, self.known(k), self.prefix, record, self.max_chars)
        if pieces is None:
            return None
        out, start = [], 0
        for i, piece in enumerate(pieces):
            end = start + len(piece) - (len(self.prefix) if i else 0)
            out.append((piece, start, end))
            start = end
        return out

    def tokenize(self, word: str, k: int) -> list[tuple[int, str, int, int]]:
        """``(id, piece, start, end)`` per token of one pre-token (positions in characters)."""
        pieces = self.greedy(word, k)
        if pieces is None:
            return [(self.vocab[self.unk_token], word, 0, len(word))]
        return [(self.vocab[p], p, a, b) for p, a, b in pieces]

    def walkthrough(self, word: str, k: int) -> WordWalkthrough:
        """The greedy choices on one pre-token: at each position, the pieces tried, longest first."""
        record: list = []
        pieces = self.greedy(word, k, record)
        steps = tuple(EncodeStep(before, tuple((t, i + 1) for i, t in enumerate(tried)), None, None,
                                 before + ((found,) if found is not None else ()))
                      for before, tried, found in record)
        final = (self.unk_token,) if pieces is None else tuple(p for p, _, _ in pieces)
        rule = None if len(word) <= self.max_chars else f"longer than {self.max_chars} characters: one unknown token"
        return WordWalkthrough(word, tuple(word), steps, final, k, algorithm="wordpiece", longest_match=True, rule=rule)


def from_hf_wordpiece(data: dict, where: str = "tokenizer.json"):
    """A trace from a parsed Hugging Face WordPiece ``tokenizer.json`` (see the module docstring)."""
    model = get_field(data, "model", dict, where, "")
    if model.get("type") != "WordPiece":
        raise ValueError(f"{where}: only WordPiece models are supported here, this one is {model.get('type')!r}")
    pipeline = Pipeline(data, where)
    wp = HFWordPieceModel(model, where)
    trace = replay_bpe([], wp.merge_pairs, end_of_word=None, algorithm="wordpiece", prefix=wp.prefix,
                       special_tokens=tuple(pipeline.added_ids))
    trace.explicit_vocab = {**wp.vocab, **pipeline.added_ids}
    return adopt(trace, pipeline, wp, where, wp.unk_token)
