"""Our own calls, the ones every section times: through ``bpe_viz``'s public top-level API only.

The sections and the before/after worker (``baseline_worker.py``) time these same functions, so
that a checkout from before issue 17's restructure, whose inner module paths differ, runs them
unchanged: ``train_bpe``, ``train_unigram``, ``train_subword_text_encoder``, ``encode``,
``trace[k]`` and ``MergeExplorer``. The only private touches are the caches a cold measurement
empties (``_encode_cache``, ``_cache`` and a round's ``_``-keys), which both trees share.
"""

from __future__ import annotations

import gc
import time

import bpe_viz


def train_subword_nmt(text: str, n: int, tie_break: str | None = None):
    """``train_bpe(text, N, preset="subword-nmt")`` (optionally with a ``tie_break``)."""
    kw = {} if tie_break is None else {"tie_break": tie_break}
    return bpe_viz.train_bpe(text, n, preset="subword-nmt", **kw)


def train_long(seq: str, n: int):
    """Ours on one word: no end-of-word marker, ties to the first pair met, every pair counts."""
    return bpe_viz.train_bpe([seq], n, preset="hf-course", min_frequency=1)


def train_gpt(text: str, vocab_size: int):
    """Ours as CS336 trains: the GPT-2 pattern, <|endoftext|>, 256 bytes, byte-order ties."""
    return bpe_viz.train_bpe(text, vocab_size=vocab_size, preset="cs336")


def train_cs336(path, vocab_size: int):
    """CS336's ``test_train_bpe_speed`` call: read corpus.en, train to ``vocab_size``."""
    return bpe_viz.train_bpe(path.read_text(encoding="utf-8"), vocab_size=vocab_size, preset="cs336")


def train_spm(text: str, vocab_size: int):
    """SentencePiece's BPE: ``train_bpe(text, vocab_size=V, preset="sentencepiece")``."""
    return bpe_viz.train_bpe(text, vocab_size=vocab_size, preset="sentencepiece")


def train_unigram_spm(text: str, vocab_size: int):
    """The Unigram LM, sentencepiece flavour, every round kept."""
    return bpe_viz.train_unigram(text, vocab_size=vocab_size, flavour="sentencepiece")


def train_course(sentences, vocab_size: int):
    """The Unigram LM, hf-course flavour, on the course's sentences."""
    return bpe_viz.train_unigram(list(sentences), vocab_size, flavour="hf-course")


def train_ste(text: str, target: int):
    """SubwordTextEncoder's binary search, every try kept."""
    return bpe_viz.train_subword_text_encoder(text, target)


def encode(text: str, trace, **options):
    """``bpe_viz.encode(text, trace, **options)``."""
    return bpe_viz.encode(text, trace, **options)


def forget_encodings(trace) -> None:
    """Empty a BPE trace's word cache (untimed), so the next ``encode`` segments every word anew;
    the rank and id tables it built on first use stay."""
    trace.__dict__.pop("_encode_cache", None)


def forget_snapshots(trace) -> None:
    """Empty a BPE trace's snapshot cache, so the next ``trace[k]`` is rebuilt from the nearest
    checkpoint."""
    trace._cache.clear()


def read_snapshot_ms(trace, k: int) -> float:
    """Milliseconds for ``s = trace[k]`` with its segmentation, pair counts and vocabulary, the
    trace's snapshot cache emptied before (so the step is rebuilt from the nearest checkpoint)."""
    forget_snapshots(trace)
    gc.collect()
    t0 = time.perf_counter()
    s = trace[k]
    s.segmentation  # noqa: B018  (read, as a view does)
    s.pair_counts  # noqa: B018
    s.vocab  # noqa: B018
    return (time.perf_counter() - t0) * 1000


def clear_round_caches(trace) -> None:
    """Forget what every round worked out lazily (segmentations, score tables), so the next read
    of a round is cold: a round stores its data as fields; whatever it adds later starts with _."""
    for snap in trace:
        for key in [k for k in snap.__dict__ if k.startswith("_")]:
            del snap.__dict__[key]


def read_round(trace, k: int, words: list[str]) -> tuple[float, float]:
    """(seconds to get ``trace[k]`` and read its pieces, losses and removals, seconds to cut
    ``words`` at that round), caches cleared before."""
    clear_round_caches(trace)
    gc.collect()
    t0 = time.perf_counter()
    s = trace[k]
    len(s.pieces), len(s.removal_losses), len(s.removed), s.loss  # noqa: B018  (read, as a view does)
    t1 = time.perf_counter()
    for w in words:
        s.segmentation[w]  # noqa: B018
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1


def slider_explorer(trace, sentence: str):
    """(a ``MergeExplorer`` showing ``trace``, seconds it took to build), matplotlib's Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    gc.collect()
    t0 = time.perf_counter()
    ex = bpe_viz.MergeExplorer.from_trace(trace, sentence=sentence)
    secs = time.perf_counter() - t0
    assert ex.error is None, ex.error
    return ex, secs


def step_ms(ex, k: int) -> tuple[float, float]:
    """(wall ms, CPU ms) of one slider move ``ex.step = k``, the explorer's own code path."""
    w0, c0 = time.perf_counter(), time.process_time()
    ex.step = k
    wall, cpu = (time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000
    assert ex.error is None, f"step {k}, chart {ex.chart}: {ex.error}"
    return wall, cpu
