"""train_unigram: the entry point, its argument checks, and the choice of flavour.

The arguments are checked here, with messages that name them; the corpus is read into words
(hf-course: :func:`~.words.metaspace_words`) or sentences (sentencepiece:
:func:`~.sentencepiece.sp_normalized`); the rounds come from :mod:`.course` or
:mod:`.sentencepiece` and are kept in a :class:`~.trace.UnigramTrace`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..text.pretokenize import SentencePieceSpace
from .course import course_rounds
from .sentencepiece import sp_lines, sp_normalized, sp_rounds
from .trace import UnigramTrace
from .words import metaspace_words, sentences, word_count_items

__all__ = ["FLAVOURS", "train_unigram"]

#: the flavours :func:`train_unigram` knows
FLAVOURS = ("hf-course", "sentencepiece")


def train_unigram(corpus, vocab_size: int = 100, *, flavour: str = "hf-course", seed_size: int = 300,
                  initial_vocab=None, character_coverage: float = 0.9995, max_piece_length: int = 16,
                  num_sub_iterations: int = 2, callback=None) -> UnigramTrace:
    """Train a Unigram LM vocabulary and keep every round (see :mod:`bpe_viz.engine.unigram`).

    ``corpus``: text (each line a sentence), a list of sentences, or a mapping word -> count
    (hf-course: the words as the course's pre-tokenizer made them, ``▁`` included; sentencepiece:
    each word is a line of its own, ``count`` times, the count a weight: no line is written
    out). A sentencepiece corpus with no sentence it trains on (empty, or every line skipped)
    is a ValueError, as sentencepiece refuses it. ``flavour``: ``"hf-course"`` or
    ``"sentencepiece"``. hf-course options: ``seed_size`` (300), ``initial_vocab`` (a list of
    pieces instead of the seeds found). sentencepiece options: ``character_coverage``,
    ``max_piece_length``, ``num_sub_iterations``. ``callback(round, size)`` is called after each
    round (for a progress bar).

    Example::

        >>> t = train_unigram("low low low lower lowest newest newest widest", vocab_size=17, flavour="sentencepiece")
        >>> t.id_to_token[:6]
        ['<unk>', '<s>', '</s>', '▁low', 'est', '▁']
    """
    if not isinstance(flavour, str) or flavour not in FLAVOURS:
        raise ValueError(f"flavour must be one of {', '.join(map(repr, FLAVOURS))}, got {flavour!r}")
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int, got {type(vocab_size).__name__} {vocab_size!r}")
    if vocab_size < 1:
        raise ValueError(f"vocab_size must be at least 1, got {vocab_size}")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be a function (round, size) or None, got {type(callback).__name__}")
    if flavour == "hf-course":
        return _train_course(corpus, vocab_size, seed_size, initial_vocab, callback)
    if initial_vocab is not None:
        raise ValueError("initial_vocab is an hf-course option; sentencepiece finds its own seeds")
    return _train_sentencepiece(corpus, vocab_size, character_coverage, max_piece_length, num_sub_iterations,
                                callback)


def _train_course(corpus, vocab_size, seed_size, initial_vocab, callback) -> UnigramTrace:
    if isinstance(seed_size, bool) or not isinstance(seed_size, int) or seed_size < 1:
        raise ValueError(f"seed_size must be a positive int, got {seed_size!r}")
    if initial_vocab is not None:
        if isinstance(initial_vocab, str) or not isinstance(initial_vocab, Iterable):
            raise TypeError(f"initial_vocab must be a list of pieces, got {type(initial_vocab).__name__}")
        initial_vocab = list(initial_vocab)
        bad = [p for p in initial_vocab if not isinstance(p, str) or not p]
        if bad:
            raise ValueError(f"initial_vocab: every piece must be a non-empty str, got {bad[0]!r}")
    if isinstance(corpus, Mapping):
        wc = dict(word_count_items(corpus))
    else:
        wc = {}
        for s in sentences(corpus):
            for w in metaspace_words(s):
                wc[w] = wc.get(w, 0) + 1
    rounds, stop = course_rounds(wc, vocab_size, seed_size, initial_vocab, callback)
    options = dict(seed_size=seed_size, initial_vocab=initial_vocab)
    return UnigramTrace("hf-course", wc, rounds, vocab_size=vocab_size, stop_reason=stop, options=options)


def _train_sentencepiece(corpus, vocab_size, character_coverage, max_piece_length, num_sub_iterations,
                         callback) -> UnigramTrace:
    if isinstance(character_coverage, bool) or not isinstance(character_coverage, (int, float)) \
            or not 0 < character_coverage <= 1:
        raise ValueError(f"character_coverage must be a number in (0, 1], got {character_coverage!r}")
    if isinstance(max_piece_length, bool) or not isinstance(max_piece_length, int) or max_piece_length < 1:
        raise ValueError(f"max_piece_length must be a positive int, got {max_piece_length!r}")
    if isinstance(num_sub_iterations, bool) or not isinstance(num_sub_iterations, int) or num_sub_iterations < 1:
        raise ValueError(f"num_sub_iterations must be a positive int, got {num_sub_iterations!r}")
    lines = sp_normalized(sp_lines(corpus))
    options = dict(character_coverage=float(character_coverage), max_piece_length=max_piece_length,
                   num_sub_iterations=num_sub_iterations)
    if not lines:  # sentencepiece 0.2.3 refuses such a corpus as well (trainer_interface.cc)
        raise ValueError("corpus: no sentence is left to train on: sentencepiece skips empty lines, lines over "
                         f"{SentencePieceSpace.MAX_LINE_BYTES:,} bytes and lines holding U+2585 (\u2585), and reads "
                         "<unk>, <s> and </s> as spaces")
    rounds, corpus_words, _ = sp_rounds(lines, vocab_size, float(character_coverage), max_piece_length,
                                        num_sub_iterations, callback)
    return UnigramTrace("sentencepiece", dict(corpus_words), rounds, vocab_size=vocab_size,
                        stop_reason="vocab_size reached", options=options)
