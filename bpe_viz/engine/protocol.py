"""The questions every trained tokenizer answers, whatever its family.

A trained tokenizer (a BPE or WordPiece :class:`~bpe_viz.engine.merges.trace.Trace`, a
:class:`~bpe_viz.engine.unigram.UnigramTrace`, a
:class:`~bpe_viz.engine.subword_text_encoder.SubwordTextEncoderTrace`, or one read from a real
tool's file) is a sequence of training steps that subclasses :class:`Tokenizer` and answers:

* ``encode(text, step)``: the text cut into tokens with ids and offsets, as of ``step``;
* ``encode_word(word, step)``: one word, with the encoder's walkthrough (what it tried, why);
* ``decode(ids)``: ids (or an encoding of its own) back to text;
* ``id_to_token`` / ``token_to_id(token)``: the vocabulary;
* ``describe()``: its conventions in one sentence;
* ``len(tokenizer)`` steps, ``tokenizer[k]`` the state after step ``k`` (0: before training).

:func:`bpe_viz.encode`, :func:`~bpe_viz.decode` and :func:`~bpe_viz.encode_word` check the
arguments every family shares and ask the tokenizer; nothing branches on the family. Options
only some families have (BPE-dropout, subword-nmt's glossaries) reach ``encode`` as keywords; a
family that has no such option names it in a ``ValueError`` (:func:`reject_options`).

Example::

    >>> from bpe_viz import train_bpe, train_unigram
    >>> corpus = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    >>> [isinstance(t, Tokenizer) for t in (train_bpe(corpus, 3), train_unigram(corpus, 12))]
    [True, True]
    >>> train_bpe(corpus, 3).encode("lowest", 2).pieces
    ['l', 'o', 'w', 'est', '</w>']
"""

from __future__ import annotations

from abc import ABC, abstractmethod

__all__ = ["Tokenizer", "check_tokenizer", "check_step", "reject_options", "check_plain_encode"]


class Tokenizer(ABC):
    """A trained tokenizer: the public questions the encoder, the views and the widgets ask."""

    #: what the unknown token is called (``None``: every text has ids, e.g. a byte alphabet)
    unk_token: str | None = "<unk>"

    @abstractmethod
    def __len__(self) -> int:
        """The number of steps, the state before training included (``len(merges) + 1``)."""

    @abstractmethod
    def __getitem__(self, step):
        """The state after ``step`` training steps (merges, rounds or build iterations)."""

    @property
    def last_step(self) -> int:
        """The last step (``len(self) - 1``): what ``step=None`` means."""
        return len(self) - 1

    @abstractmethod
    def encode(self, text: str, step: int | None = None, **options):
        """``text`` as tokens, with the state after ``step`` (the last by default)."""

    @abstractmethod
    def encode_word(self, word: str, step: int | None = None):
        """One word, with every choice the encoder made on it (for the explainer)."""

    @abstractmethod
    def decode(self, ids) -> str:
        """Token ids (or an encoding this tokenizer made) back to text."""

    @property
    @abstractmethod
    def id_to_token(self) -> list[str]:
        """Token strings by id (the final vocabulary)."""

    @abstractmethod
    def token_to_id(self, token: str) -> int | None:
        """A token's id, or ``None`` when it is not in the vocabulary."""

    @abstractmethod
    def describe(self) -> str:
        """The tokenizer's conventions in one sentence."""


def check_tokenizer(tokenizer, argname: str = "trace") -> Tokenizer:
    """``tokenizer`` itself, or a ``TypeError`` that says what was expected."""
    if not isinstance(tokenizer, Tokenizer):
        raise TypeError(f"{argname} must be a trained tokenizer (from train_bpe, train_wordpiece, train_unigram, "
                        f"train_subword_text_encoder or a reader in bpe_viz.interop), got {type(tokenizer).__name__}")
    return tokenizer


def check_step(tokenizer: Tokenizer, step, argname: str = "num_merges", what: str = "merges") -> int:
    """``step`` as an int in ``0..tokenizer.last_step`` (``None``: the last), or a clear error.

    Example::

        >>> from bpe_viz import train_bpe
        >>> t = train_bpe("low lower", 2)
        >>> check_step(t, None), check_step(t, 1)
        (2, 1)
        >>> check_step(t, 5)
        Traceback (most recent call last):
        ...
        ValueError: num_merges must be between 0 and 2 (the merges this trace learned), got 5
    """
    last = tokenizer.last_step
    if step is None:
        return last
    if isinstance(step, bool) or not isinstance(step, int):
        raise TypeError(f"{argname} must be an int or None, got {type(step).__name__} {step!r}")
    if not 0 <= step <= last:
        raise ValueError(f"{argname} must be between 0 and {last} (the {what} this trace learned), got {step}")
    return step


def reject_options(tokenizer: Tokenizer, options: dict) -> None:
    """A ``ValueError`` naming the options a family does not have (``options`` not empty)."""
    if options:
        names = ", ".join(sorted(options))
        raise ValueError(f"{names}: options of the merge-based encoders (BPE); a {type(tokenizer).__name__} "
                         f"has no merges to apply them to")


def check_plain_encode(tokenizer: Tokenizer, text, options: dict) -> None:
    """The arguments of ``encode`` on a family with no merges and no special tokens of its own
    (Unigram, SubwordTextEncoder): ``allowed_special`` changes nothing, the merge options are
    refused (:func:`reject_options`), and ``text`` must be a str."""
    reject_options(tokenizer, {k: v for k, v in options.items() if k != "allowed_special"})
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
