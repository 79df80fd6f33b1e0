"""The texts the benchmark trains on, and the forms each competitor reads them in.

The documentation text (``load_text``), its normalized lines (``snmt_lines``), the same text as
one long word (``one_word``), the bigger generated corpus (``make_big_corpus``) and the GPT-2
pre-tokens and pieces tokenizers is fed (``gpt2_pretokens``, ``gpt2_chunks``). Pure Python, no
``bpe_viz`` import at module level: the before/after worker imports this file before it knows
which checkout's ``bpe_viz`` it is to load.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import random
import sys

from settings import (
    BIG_LINE_WORDS,
    BIG_MAX_LEN,
    BIG_ORDER,
    BIG_SEED,
    BIG_ZIPF,
    GPT_HF_CHUNK,
)


def load_text(chars: int | None = None) -> str:
    """Python's documentation topics joined by newlines (its first ``chars`` characters)."""
    import pydoc_data.topics

    text = "\n".join(pydoc_data.topics.topics.values())
    return text if chars is None else text[:chars]


def snmt_lines(text: str) -> list[str]:
    """The lines as subword-nmt and tokenizers get them: whitespace runs made one space, empty
    lines dropped (the same words, in the same order, as ``train_bpe`` splits the text into)."""
    out = []
    for line in text.splitlines():
        words = line.split()
        if words:
            out.append(" ".join(words))
    return out


def hf_initial_alphabet(lines: list[str]) -> int:
    """Size of the vocabulary tokenizers' BpeTrainer starts from with end_of_word_suffix:
    every character, plus every word-final character with the suffix."""
    chars, finals = set(), set()
    for line in lines:
        for w in line.split():
            chars.update(w)
            finals.add(w[-1])
    return len(chars) + len(finals)


def one_word(text: str) -> str:
    """The text as a single word: every whitespace character (what ``str.split`` splits on)
    made ``_``."""
    return "".join("_" if c.isspace() else c for c in text)


def gpt2_pattern() -> str:
    """GPT-2's pre-tokenizer pattern, from the public ``bpe_viz.PRE_TOKENIZERS``."""
    from bpe_viz import PRE_TOKENIZERS

    return PRE_TOKENIZERS["gpt2"].pattern


def gpt2_pretokens(text: str) -> list[str]:
    """The GPT-2 pattern's pieces of ``text`` (``regex.findall``, no special token split out)."""
    import regex

    return regex.findall(gpt2_pattern(), text)


def gpt2_chunks(text: str, size: int = GPT_HF_CHUNK) -> list[str]:
    """``text`` cut into pieces of about ``size`` characters, each cut where a GPT-2 pre-token
    starts (the caller checks that the pieces' pre-tokens, one piece at a time, are the whole
    text's)."""
    import regex

    starts = [m.start() for m in regex.finditer(gpt2_pattern(), text)]
    cuts, pos = [], size
    while True:
        i = bisect.bisect_left(starts, pos)
        if i >= len(starts):
            break
        cuts.append(starts[i])
        pos = starts[i] + size
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def make_big_corpus(source: str, n_types: int, target_bytes: int, seed: int = BIG_SEED) -> str:
    """A reproducible corpus of about ``target_bytes`` (UTF-8) with exactly ``n_types`` distinct
    words, made from ``source`` (the documentation text) in a couple of seconds, nothing downloaded.

    1. An order-BIG_ORDER character model of the source's running words (whitespace-split), each
       padded with start / end marks; counts kept in dicts, whose order is insertion order (never
       a str hash: the result does not depend on PYTHONHASHSEED).
    2. Words drawn from it, seeded, until ``n_types`` distinct ones (at most BIG_MAX_LEN
       characters); their rank is the order in which they were first drawn (short, likely words
       come first, as in real text).
    3. Zipf frequencies: the word of rank r occurs max(1, round(c / r ** BIG_ZIPF)) times, c
       chosen so the text is about ``target_bytes``; every word occurs at least once.
    4. The running words shuffled (seeded) and cut into lines of BIG_LINE_WORDS words, joined by
       single spaces (so the text is already in subword-nmt's normalized form)."""
    rng = random.Random(seed)
    end = "\x00"  # start padding and end-of-word mark: not in the source
    counts: dict[str, dict[str, int]] = {}
    for w in source.split():
        padded = end * BIG_ORDER + w + end
        for i in range(BIG_ORDER, len(padded)):
            nxt = counts.setdefault(padded[i - BIG_ORDER:i], {})
            nxt[padded[i]] = nxt.get(padded[i], 0) + 1
    # context -> (next characters, cumulative counts) for bisect on a uniform draw
    model = {ctx: (list(nxt), list(itertools.accumulate(nxt.values()))) for ctx, nxt in counts.items()}
    types: dict[str, None] = {}  # an ordered set
    while len(types) < n_types:
        ctx, word = end * BIG_ORDER, []
        while True:
            chars, cum = model[ctx]
            c = chars[bisect.bisect(cum, rng.random() * cum[-1])]
            if c == end:
                break
            word.append(c)
            ctx = ctx[1:] + c
        if len(word) <= BIG_MAX_LEN:  # never empty: no source word is
            types.setdefault("".join(word), None)
    words = list(types)
    weights = [1 / r ** BIG_ZIPF for r in range(1, n_types + 1)]
    scale = target_bytes / sum(wt * (len(w.encode()) + 1) for wt, w in zip(weights, words))
    running = [w for w, wt in zip(words, weights) for _ in range(max(1, round(wt * scale)))]
    rng.shuffle(running)
    lines, i = [], 0
    while i < len(running):
        k = rng.randint(*BIG_LINE_WORDS)
        lines.append(" ".join(running[i:i + k]))
        i += k
    return "\n".join(lines) + "\n"


def corpus_stats(text: str) -> dict:
    """Size, words, lines and a short sha256 of a corpus (the report quotes them)."""
    words = text.split()
    return {"bytes": len(text.encode()), "chars": len(text), "str_mib": sys.getsizeof(text) / 2**20,
            "running": len(words), "distinct": len(set(words)), "lines": len(snmt_lines(text)),
            "sha256": hashlib.sha256(text.encode()).hexdigest()[:16]}
