"""bpe_viz.engine.merges.pairs and .recorder: the training state and the history, checked where they
are subtle — long words kept as linked lists, and steps rebuilt across many checkpoints.

Every word is made "long" (``PairIndex.LONG = 0``) and checkpoints are made after almost every
merge (``History.CHECKPOINT_WORK = 1``), then the engine must still equal the literal reference
trainer (:mod:`tests/reference.py`) merge for merge and snapshot for snapshot. A single
long sequence must give minbpe's merges (Karpathy's ``BasicTokenizer``: recount every pair each
step, take the most frequent, the first met among equals) and keep only what each merge changed.
"""

from __future__ import annotations

import contextlib

from hypothesis import HealthCheck, given, settings

from bpe_viz import train_bpe, train_wordpiece
from bpe_viz.engine.merges.pairs import MergeAt, PairIndex
from bpe_viz.engine.merges.recorder import History
from reference import recount_bpe, reference_bpe

from test_bpe_properties import cases


@contextlib.contextmanager
def patched(cls, **values):
    old = {k: getattr(cls, k) for k in values}
    try:
        for k, v in values.items():
            setattr(cls, k, v)
        yield
    finally:
        for k, v in old.items():
            setattr(cls, k, v)


SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(cases())
def test_long_words_and_dense_checkpoints_match_the_reference(case):
    corpus, num_merges, kw = case
    ref = reference_bpe(corpus, num_merges, **kw)
    with patched(PairIndex, LONG=0), patched(History, CHECKPOINT_WORK=1):
        trace = train_bpe(corpus, num_merges, **kw)
        merges = [(m.pair, m.count) for m in trace.merges]
        steps = len(trace) if ref.ambiguous_at is None else ref.ambiguous_at
        if ref.ambiguous_at is None:
            assert merges == ref.merges
            assert trace.stop_reason == ref.stop_reason
        else:
            assert merges[:steps] == ref.merges[:steps]
        # backwards, so every step is rebuilt from a checkpoint, not from a cached neighbour
        for k in reversed(range(steps)):
            snap = trace[k]
            assert snap.segmentation == ref.segmentations[k], k
            assert snap.pair_counts == ref.pair_tables[k], k
            assert sum(e.count * len(e.token) for e in snap.vocab) >= 0  # token counts rebuild


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(conventions=[(None, False)]))
def test_wordpiece_with_long_words_is_unchanged(case):
    corpus, num_merges, kw = case
    plain = train_wordpiece(corpus, num_merges, tie_break=kw["tie_break"])
    with patched(PairIndex, LONG=0), patched(History, CHECKPOINT_WORK=1):
        linked = train_wordpiece(corpus, num_merges, tie_break=kw["tie_break"])
        assert [(m.pair, m.score) for m in linked.merges] == [(m.pair, m.score) for m in plain.merges]
        assert [s.segmentation for s in linked] == [s.segmentation for s in plain]


def test_one_long_sequence_equals_minbpes_recount_loop(docs_text):
    seq = "_".join(docs_text[:12_000].split())
    trace = train_bpe([seq], 60, preset="hf-course", min_frequency=1)
    merges, _ = recount_bpe(seq, 60)
    assert [(m.pair, m.count) for m in trace.merges] == merges
    # every step rebuilt from the history equals the recount loop's state after that many merges
    for k in (60, 37, 25, 1, 0):
        assert trace[k].segmentation[seq] == tuple(recount_bpe(seq, k)[1]), k
    # the history keeps the positions each merge changed, not a copy of the sequence per merge
    entries = trace.history._chg_syms
    assert entries and all(isinstance(s, MergeAt) for s in entries)
    assert sum(len(s.left) for s in entries) == sum(trace.merged_occurrences)


def test_the_classic_compression_example():
    """Gage (1994), as minbpe's tests use it: "aaabdaaabac" -> aa, aaa, aaab (minbpe's
    BasicTokenizer gives these merges; see shared/fixtures/external/minbpe)."""
    with patched(PairIndex, LONG=0):
        trace = train_bpe(["aaabdaaabac"], 3, preset="hf-course", min_frequency=1)
    assert [(m.pair, m.count) for m in trace.merges] == recount_bpe("aaabdaaabac", 3)[0]
    assert [m.token for m in trace.merges] == ["aa", "aaa", "aaab"]
    assert trace[-1].segmentation["aaabdaaabac"] == ("aaab", "d", "aaab", "a", "c")
