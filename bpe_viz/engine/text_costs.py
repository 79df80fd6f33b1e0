"""What a tokenizer costs on texts, step by step: tokens per word and bytes per token as the
vocabulary grows (or shrinks), on the training text and on texts it never saw.

The training text's own curve (:func:`~bpe_viz.view.merges.compression_curve`) only ever
improves: every merge was chosen because it shortens that text. Choosing a vocabulary size
honestly asks the same question of held-out text of the same kind and of another domain, where
late merges, made for rare pairs of the training text, buy almost nothing. Here each text is
encoded for real at each chosen step (``tokenizer.encode(text, step)``), so it holds for every
family (BPE, WordPiece, Unigram rounds, SubwordTextEncoder) and every encoder's rules.

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe("low lower lowest newer newest wider widest", 8)
    >>> costs = text_costs(trace, {"seen": "lower newest", "unseen": "slower renewed"}, steps=[0, 8])
    >>> costs["seen"].tokens, costs["unseen"].tokens
    ((13, 4), (15, 8))
    >>> costs["seen"].tokens_per_word
    (6.5, 2.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from .protocol import check_step, check_tokenizer

__all__ = ["TextCost", "text_costs", "cost_steps"]


@dataclass(frozen=True)
class TextCost:
    """One text's cost at each of ``steps``: ``tokens[i]`` tokens after ``steps[i]`` training
    steps, when the vocabulary had ``vocab_sizes[i]`` entries (``None`` if the state does not
    say); ``words`` (whitespace-separated) and ``n_bytes`` (UTF-8) of the text."""

    name: str
    steps: tuple[int, ...]
    vocab_sizes: tuple[int | None, ...]
    tokens: tuple[int, ...]
    words: int
    n_bytes: int

    @property
    def tokens_per_word(self) -> tuple[float, ...]:
        return tuple(t / self.words if self.words else 0.0 for t in self.tokens)

    @property
    def bytes_per_token(self) -> tuple[float, ...]:
        """UTF-8 bytes per token: how much text one token carries (higher is cheaper), comparable
        across languages and tokenizers where "a word" is not (Chinese has no spaces)."""
        return tuple(self.n_bytes / t if t else 0.0 for t in self.tokens)


def cost_steps(last: int, points: int = 12) -> list[int]:
    """About ``points`` steps from 0 to ``last``, spaced evenly on a log scale (the curve
    changes fastest early), always with 0 and ``last``.

    Example::

        >>> cost_steps(1000, 5)
        [0, 5, 31, 177, 1000]
    """
    if last <= 0:
        return [0]
    out = {0, last}
    for i in range(1, points - 1):
        out.add(round((last + 1) ** (i / (points - 1))) - 1)
    return sorted(s for s in out if 0 <= s <= last)


def vocab_size_at(state) -> int | None:
    """The vocabulary size of one state of a tokenizer, whatever its family calls it."""
    for name in ("vocab", "pieces", "subwords"):
        value = getattr(state, name, None)
        if value is not None:
            return len(value)
    return None


def text_costs(tokenizer, texts, steps=None) -> dict[str, TextCost]:
    """``{name: TextCost}``: each text of ``texts`` (a ``{name: text}`` dict, or one str, named
    ``"text"``) encoded with ``tokenizer`` at each of ``steps`` (default: :func:`cost_steps` of
    its last step). Bad arguments raise a TypeError/ValueError naming them."""
    check_tokenizer(tokenizer, "tokenizer")
    if isinstance(texts, str):
        texts = {"text": texts}
    if not isinstance(texts, dict) or not texts:
        raise TypeError(f"texts must be a str or a non-empty dict name -> text, got {type(texts).__name__}")
    for name, text in texts.items():
        if not isinstance(text, str):
            raise TypeError(f"texts: {name!r} must be a str, got {type(text).__name__}")
        if not text.strip():
            raise ValueError(f"texts: {name!r} is empty; give it some text to encode")
    if steps is None:
        steps = cost_steps(tokenizer.last_step)
    elif isinstance(steps, (str, bytes)) or not hasattr(steps, "__iter__"):
        raise TypeError(f"steps must be a list of ints, got {type(steps).__name__}")
    steps = [check_step(tokenizer, s, "steps", "steps") for s in steps]
    if not steps:
        raise ValueError("steps must hold at least one step")
    sizes = tuple(vocab_size_at(tokenizer[s]) for s in steps)
    return {name: TextCost(name, tuple(steps), sizes, tuple(len(tokenizer.encode(text, s)) for s in steps),
                           len(text.split()), len(text.encode("utf-8")))
            for name, text in texts.items()}
