"""The ``unigram_scaling`` section (issue 20, target 1): how the Unigram LM's time grows when its
input doubles, and ``encode_word``'s memory.

Four ladders, each size twice the one before, CPU time of this process (``time.process_time``:
on a shared machine another process's work does not count) median of the section's repeats:

* ``encode_word`` then ``encode`` of ``"x" * n`` up to 16,000 characters, with an hf-course and a
  sentencepiece-flavour trace whose pieces include runs of ``x`` (every position of the word
  starts many pieces); and ``encode_word``'s tracemalloc peak;
* hf-course training on ``"x" * n`` (one word; ``vocab_size`` 20, the default 300 seeds: runs
  of ``x`` up to 299 long);
* hf-course and sentencepiece-flavour training on ``n`` distinct random words, one per line.

Its siblings: ``unigram`` (the sentencepiece flavour against sentencepiece itself), ``long`` (BPE
on one long word, the same doubling rows).
"""

from __future__ import annotations

import gc
import itertools
import random
import statistics
import time
import tracemalloc

from competitors import run_spm
from report import check, fmt_s, md_table
from timing import load1

import bpe_viz

DOUBLING = 2.2  # at most, per doubling of the input
MEMORY_DOUBLING = 2.5
FULL = {"encode": (2000, 4000, 8000, 16000), "word": (2000, 4000, 8000), "words": (2000, 4000, 8000, 16000)}
TINY = {"encode": (500, 1000), "word": (200, 400), "words": (200, 400)}
WORDS_SEED = 2018
X_RUN = 300  # the training text's run of x: pieces up to this long


def random_words(n: int, seed: int = WORDS_SEED) -> str:
    """``n`` distinct random lowercase words of 3 to 10 letters, one per line."""
    rng = random.Random(seed)
    out: set = set()
    while len(out) < n:
        out.add("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 10))))
    return "\n".join(sorted(out))


def cpu(repeat: int, fn, *args) -> list[float]:
    """CPU seconds of ``repeat`` calls ``fn(*args)``, each after a garbage collection."""
    out = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.process_time()
        fn(*args)
        out.append(time.process_time() - t0)
    return out


def ladder(repeat: int, fn, sizes, *args) -> list[list[float]]:
    """For each n of ``sizes``, CPU seconds of ``repeat`` calls ``fn(n, *args)``, the sizes taken in
    turns (up the ladder, then down, ...) so that a slow stretch of the machine lands on every size,
    not on the repeats of one: the ratio of two sizes' medians then measures the code, not when
    each size ran (sizes run one after the other read ×1.8 and ×2.4 for the same code on two
    consecutive runs)."""
    times = {n: [] for n in sizes}
    for r in range(repeat):
        for n in (sizes if r % 2 == 0 else sizes[::-1]):
            times[n] += cpu(1, fn, n, *args)
    return [times[n] for n in sizes]


def peak(fn, *args) -> int:
    """The tracemalloc peak of one call ``fn(*args)``, in bytes."""
    gc.collect()
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def encode_both(n: int, trace) -> None:
    """``encode_word`` then ``encode`` of ``"x" * n``."""
    bpe_viz.encode_word("x" * n, trace)
    bpe_viz.encode("x" * n, trace)


def train(text: str, vocab_size: int, flavour: str):
    return bpe_viz.train_unigram(text, vocab_size, flavour=flavour)


def em_rounds(trace) -> int:
    """How many EM-and-prune rounds a training ran: its recorded rounds but the seeds and
    sentencepiece's final layout (both cost one pass, not a round)."""
    return sum(1 for r in trace.rounds[1:] if not r.note.startswith("final"))


def ladders(ctx) -> list[dict]:
    """Every ladder: ``{"what", "sizes", "unit", "times", "peaks"}`` (peaks only for encode_word)."""
    sizes = TINY if ctx.args.tiny else FULL
    repeat = ctx.repeat("unigram_scaling")
    sample = ctx.text[:20_000] + "\n" + "x" * X_RUN
    traces = {"hf-course": bpe_viz.train_unigram(sample, 100),
              "sentencepiece": bpe_viz.train_unigram(sample, 300, flavour="sentencepiece")}
    out = []
    for flavour, trace in traces.items():
        bpe_viz.encode_word("x" * 100, trace)  # the round's cached scores, once
        ctx.log(f"unigram_scaling: encode_word + encode, {flavour}")
        out.append({"what": f"encode_word + encode, {flavour}", "flavour": flavour, "sizes": sizes["encode"],
                    "unit": "characters", "times": ladder(repeat, encode_both, sizes["encode"], trace),
                    "peaks": [peak(bpe_viz.encode_word, "x" * n, trace) for n in sizes["encode"]]})
    ctx.log("unigram_scaling: hf-course training on one word")
    out.append({"what": "train_unigram('x' * n, 20), hf-course", "sizes": sizes["word"], "unit": "characters",
                "times": ladder(repeat, lambda n: bpe_viz.train_unigram("x" * n, 20), sizes["word"])})
    for flavour, vocab in (("hf-course", 100), ("sentencepiece", 100)):
        ctx.log(f"unigram_scaling: {flavour} training on distinct words")
        texts = {n: random_words(n) for n in sizes["words"]}
        out.append({"what": f"train_unigram(n words, {vocab}), {flavour}", "sizes": sizes["words"], "unit": "words",
                    "times": ladder(repeat, lambda n: train(texts[n], vocab, flavour), sizes["words"]),
                    # (the algorithm's, not the timing's: one more training per size, untimed)
                    "rounds": [em_rounds(train(texts[n], vocab, flavour)) for n in sizes["words"]]})
    # the reference on the same input, in the same run: how much of the growth is the algorithm's
    ctx.log("unigram_scaling: sentencepiece itself (num_threads=1) on distinct words")
    out.append({"what": "sentencepiece itself, unigram, n words, vocab_size 100, num_threads=1 (the reference: "
                        "not judged)", "sizes": sizes["words"], "unit": "words", "reference": True,
                "times": ladder(repeat, lambda n: run_spm(texts[n].split("\n"), 100, "unigram", 1), sizes["words"])})
    return out


def run(ctx) -> tuple[list, list, str]:
    """(Targets rows, console tables, Markdown section) of the Unigram scaling benchmark."""
    load = load1()
    checks, rows = [], []
    for lad in ladders(ctx):
        meds = [statistics.median(ts) for ts in lad["times"]]
        for i, (n, m) in enumerate(zip(lad["sizes"], meds)):
            r = m / meds[i - 1] if i else None
            mem = lad.get("peaks")
            mr = mem[i] / mem[i - 1] if mem and i else None
            rounds = lad.get("rounds")
            # time per EM round (the rounds are the algorithm's: more distinct words, more seeds, more rounds)
            per = None if not rounds or r is None else r * rounds[i - 1] / rounds[i]
            rows.append([lad["what"], f"{n:,} {lad['unit']}", fmt_s(m), "" if r is None else f"×{r:.2f}",
                         "" if not rounds else str(rounds[i]), "" if per is None else f"×{per:.2f}",
                         "" if not mem else f"{mem[i] / 2 ** 20:.1f}", "" if mr is None else f"×{mr:.2f}"])
            if r is not None and not lad.get("reference"):
                checks.append(check(f"Unigram {lad['what']}: CPU time, {lad['sizes'][i - 1]:,} → {n:,} {lad['unit']}",
                                    f"≤ ×{DOUBLING}", f"×{r:.2f}", r <= DOUBLING))
        if lad.get("peaks"):
            mem = lad["peaks"]
            worst = max(b / a for a, b in itertools.pairwise(mem))
            checks.append(check(f"Unigram encode_word, {lad['flavour']}: tracemalloc peak, the largest per doubling "
                                f"from {lad['sizes'][0]:,} to {lad['sizes'][-1]:,} characters",
                                f"≤ ×{MEMORY_DOUBLING}", f"×{worst:.2f}", worst <= MEMORY_DOUBLING))
    table = md_table(["what", "n", "CPU s (median)", "n ×2: time", "EM rounds", "n ×2: time per round",
                      "encode_word peak MiB", "n ×2: peak"], rows)
    md = ("### Scaling\n\n"
          "Issue 20, target 1: the Unigram LM linear in the word's length and in the number of distinct words. "
          "Each ladder doubles its input; the time is this process's CPU time (`time.process_time`, so another "
          f"process on the machine does not count), the median of {ctx.repeat('unigram_scaling')} run(s), a "
          "ladder's sizes run in turns (up, then down), so that a slow stretch of the machine lands on all of them; "
          "\"n ×2\" is the median over the one at half the size (linear: ×2). `encode_word` and `encode` cut "
          f"`\"x\" * n` with traces trained on the documentation's first 20,000 characters plus a run of {X_RUN} "
          "x (hf-course: vocab_size 100; sentencepiece flavour: 300), so pieces of many lengths start at every "
          "position; the peak is `encode_word`'s alone (tracemalloc). hf-course on `\"x\" * n`: the default 300 "
          "seeds are runs of x up to 299 long, so a cut costs about 300 steps per character; from 2,000 characters on "
          "(below that the positions near the end, where fewer runs fit, weigh enough that 1,000 → 2,000 costs "
          "×2.8). Distinct "
          "words: random lowercase words of 3 to 10 letters, one per line, each once (the sentencepiece flavour "
          "finds more seeds in more words, so it runs more rounds: its ratio is not only its inner speed; "
          "\"EM rounds\" counts them, the seeds and sentencepiece's final layout aside, and \"time per round\" "
          "divides them out: the growth of one round's work). "
          f"Load average {load:.2f} → {load1():.2f}.\n\n" + table + "\n")
    return checks, [("Unigram scaling", table)], md
