"""What every trainer does before and around its loop: check the arguments, resolve the
convention (defaults, then a preset, then what you passed), prepare the corpus, and hand out a
:class:`Training` you can iterate merge by merge.

How it differs from the model modules: nothing here chooses a merge. :mod:`~bpe_viz.engine.bpe.model`
and :mod:`~bpe_viz.engine.wordpiece.model` call these helpers and run their own loop.

Example::

    >>> conv = resolve_convention("subword-nmt", {"subword-nmt": dict(attach_end_of_word=True)}, {})
    >>> conv.attach_end_of_word, conv.preset
    (True, 'subword-nmt')
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..text.alphabet import bytes_to_symbols, surrogate_error
from ..text.corpus import NORMALIZATIONS, SymbolCorpus, WordCounts, word_counts
from ..text.markers import BeginOfWord, marker_from
from .model import initial_symbols
from ..text.pretokenize import check_special_tokens, get_pre_tokenizer
from .ranking import get_tie_rule
from .trace import Convention, Merge, Trace
from .vocab import ID_LAYOUTS

__all__ = ["UNSET", "Training", "check_num_merges", "check_vocab_size", "merges_for", "resolve_convention", "prepare", "split_at_marker"]


class _Unset:
    def __repr__(self):
        return "<default>"


#: "not passed": an explicit argument wins over a preset, a preset over the defaults
UNSET = _Unset()

_BASE_DEFAULTS = dict(
    end_of_word="</w>",
    attach_end_of_word=False,
    tie_break="first",
    min_frequency=2,
    byte_level=False,
    normalization=None,
    pre_tokenizer=None,
    prefix=None,
    special_tokens=(),
    initial_alphabet=None,
    id_layout=None,
    begin_of_word=None,
    character_coverage=1.0,
    max_piece_length=None,
)


def check_num_merges(num_merges) -> int:
    if isinstance(num_merges, bool) or not isinstance(num_merges, int):
        raise TypeError(f"num_merges must be an int, got {type(num_merges).__name__} {num_merges!r}")
    if num_merges < 0:
        raise ValueError(f"num_merges must be >= 0, got {num_merges}")
    return num_merges


def resolve_convention(preset, presets: dict, defaults: dict, algorithm: str = "bpe", **given) -> Convention:
    """Combine defaults, a preset (a key of ``presets``) and explicit arguments into a
    :class:`Convention`, checking each value."""
    values = dict(_BASE_DEFAULTS)
    values.update(defaults)
    if preset is not None:
        if not isinstance(preset, str) or preset not in presets:
            raise ValueError(f"preset must be one of {sorted(presets)} or None, got {preset!r}")
        values.update(presets[preset])
    values.update({k: v for k, v in given.items() if v is not UNSET})
    pretok = get_pre_tokenizer(values["pre_tokenizer"])
    explicit = {k for k, v in given.items() if v is not UNSET} | set(presets.get(preset, {}))
    if (pretok.keeps_whitespace or values["begin_of_word"] is not None) and "end_of_word" not in explicit:
        # a piece that keeps its spaces (" the") says where words are: no end-of-word marker
        values["end_of_word"] = None
    marker_from(values["end_of_word"], values["attach_end_of_word"], values["prefix"], values["begin_of_word"])  # checks them
    cov = values["character_coverage"]
    if isinstance(cov, bool) or not isinstance(cov, (int, float)):
        raise TypeError(f"character_coverage must be a number in (0, 1], got {type(cov).__name__} {cov!r}")
    if not 0 < cov <= 1:
        raise ValueError(f"character_coverage must be in (0, 1] (the share of characters kept; 1.0 keeps all), got {cov!r}")
    values["character_coverage"] = float(cov)
    mpl = values["max_piece_length"]
    if mpl is not None and (isinstance(mpl, bool) or not isinstance(mpl, int)):
        raise TypeError(f"max_piece_length must be an int or None, got {type(mpl).__name__} {mpl!r}")
    if mpl is not None and mpl < 1:
        raise ValueError(f"max_piece_length must be >= 1 (characters), got {mpl}")
    get_tie_rule(values["tie_break"])
    mf = values["min_frequency"]
    if isinstance(mf, bool) or not isinstance(mf, int):
        raise TypeError(f"min_frequency must be an int, got {type(mf).__name__} {mf!r}")
    if mf < 1:
        raise ValueError(f"min_frequency must be >= 1, got {mf}")
    if not isinstance(values["byte_level"], bool):
        raise TypeError(f"byte_level must be True or False, got {values['byte_level']!r}")
    if values["normalization"] not in NORMALIZATIONS:
        raise ValueError(
            f"normalization must be one of None, 'NFC', 'NFD', 'NFKC', 'NFKD', got {values['normalization']!r}"
        )
    values["pre_tokenizer"] = pretok
    values["special_tokens"] = check_special_tokens(values["special_tokens"])
    alphabet = values["initial_alphabet"]
    if alphabet not in (None, "bytes"):
        raise ValueError(f"initial_alphabet must be None (the symbols seen) or 'bytes' (all 256), got {alphabet!r}")
    if alphabet == "bytes" and not values["byte_level"]:
        raise ValueError("initial_alphabet='bytes' needs byte_level=True (the symbols must be bytes)")
    layout = values["id_layout"]
    if layout is None:
        layout = "specials-first" if alphabet == "bytes" else "unk-first"
    if layout not in ID_LAYOUTS:
        raise ValueError(f"id_layout must be one of {list(ID_LAYOUTS)}, got {layout!r}")
    values["id_layout"] = layout
    algorithm = values.pop("algorithm", algorithm)  # a preset may name its model
    return Convention(preset=preset, algorithm=algorithm, **values)


def check_vocab_size(vocab_size, num_merges) -> int | None:
    """``vocab_size`` checked; passing it together with ``num_merges`` is an error."""
    if vocab_size is None or vocab_size is UNSET:
        return None
    if num_merges is not UNSET:
        raise ValueError(
            f"pass num_merges or vocab_size, not both (got num_merges={num_merges!r}, vocab_size={vocab_size!r})")
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int, got {type(vocab_size).__name__} {vocab_size!r}")
    return vocab_size


def merges_for(trace: Trace, vocab_size: int) -> int:
    """How many merges make a vocabulary of ``vocab_size`` ids (specials + alphabet + merges)."""
    fixed = trace.vocab_size  # before any merge: the unknown token, alphabet, completions, specials
    if vocab_size < fixed:
        raise ValueError(
            f"vocab_size must be at least {fixed} (the ids this corpus and convention start with: "
            f"alphabet and special tokens), got {vocab_size}")
    return vocab_size - fixed


def prepare(corpus, convention: Convention):
    """(words, counts, initial symbols, internal marker spelling) for a corpus."""
    if isinstance(corpus, SymbolCorpus):
        return list(corpus.words), list(corpus.counts), [tuple(s) for s in corpus.symbols], corpus.end_of_word
    wc = word_counts(corpus, normalization=convention.normalization, pre_tokenizer=convention.pre_tokenizer,
                     special_tokens=convention.special_tokens)
    if not isinstance(corpus, str) and isinstance(convention.marker, BeginOfWord):
        wc = split_at_marker(wc, convention.marker.text)
    try:
        views = [bytes_to_symbols(w) for w in wc.words] if convention.byte_level else list(wc.words)
    except UnicodeEncodeError:  # only a lone surrogate has no UTF-8 bytes: say where it is
        if isinstance(corpus, str):
            raise surrogate_error(corpus, "corpus") from None
        bad = next(w for w in wc.words if any("\ud800" <= c <= "\udfff" for c in w))
        raise surrogate_error(corpus, "corpus", word=bad) from None
    marker = convention.marker.spelling_for(views)
    initial = [initial_symbols(w, convention, marker) for w in wc.words]
    return list(wc.words), list(wc.counts), initial, marker


def split_at_marker(wc: WordCounts, mark: str) -> WordCounts:
    """Words of a list or mapping cut where they hold the begin-of-word marker, as the same words
    typed as text are: SentencePiece reads a typed ``▁`` as a space, so ``"a▁b"`` is the words
    ``a`` and ``b`` and ``"▁a"`` is the marker alone (the empty word) and ``a``. Kept whole, the
    typed ``▁`` would be a second symbol that looks like the marker (two ids spelled ``▁``).

    Example::

        >>> split_at_marker(WordCounts(("a▁b", "b"), (2, 1)), "▁")
        WordCounts(words=('a', 'b'), counts=(2, 3))
    """
    if not any(mark in w for w in wc.words):
        return wc
    counts: dict = {}
    for w, c in wc.items():
        for part in w.split(mark):
            counts[part] = counts.get(part, 0) + c
    return WordCounts(tuple(counts), tuple(counts.values()))


class Training:
    """A training run you can follow: iterate it to get each :class:`Merge` as it is made;
    ``.trace`` is the (growing, then final) :class:`Trace`.

    Example::

        >>> from bpe_viz import iter_bpe
        >>> run = iter_bpe("low low lower", num_merges=2)
        >>> [m.token for m in run]
        ['lo', 'low']
        >>> len(run.trace)
        3
    """

    def __init__(self, trace: Trace, steps: Iterator[Merge], total: int):
        self.trace = trace
        self._steps = steps
        self.total = total  # the merge budget (an upper bound on the number of merges)

    def __iter__(self):
        return self._steps

    def run(self, callback: Callable[[Merge], object] | None = None) -> Trace:
        """Train to the end, calling ``callback(merge)`` after every merge; the trace."""
        if callback is not None and not callable(callback):
            raise TypeError(f"callback must be a function (merge) -> anything, or None; got "
                            f"{type(callback).__name__} {callback!r:.60}")
        for m in self._steps:
            if callback is not None:
                callback(m)
        return self.trace
