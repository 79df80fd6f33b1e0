"""A cold slider step (a jump: nothing of the step computed yet) shows exactly what the slow way
shows: every tied pair ranked, every pair of the step ranked, every word segmented, the state
before the merge rebuilt from a checkpoint (issue 20, target 3).

The fast way ranks only the rows shown and the first tied pairs (:meth:`rank_head`,
:meth:`tied_head`), reads first-met positions only as far as needed, undoes the merge instead
of rebuilding the state before it (:meth:`state_before`) and spells only the words shown. Each
test renders random steps both ways, on Python's documentation and on tie-heavy toy corpora,
under every tie rule, and compares the HTML.
"""

from __future__ import annotations

import random

import pytest

from bpe_viz import corpora, train_bpe, train_wordpiece
from bpe_viz.engine.bpe.model import per_k
from bpe_viz.widgets import CompareExplorer, MergeExplorer
from bpe_viz.widgets.step_pane import StepCache


def _cold(traces):
    """Forget what the traces computed for any step (as after a jump to a step never seen)."""
    for tr in traces:
        tr._cache.clear()
        for name in ("_first_met_orders", "_rank_cache", "_piece_rank_cache"):
            tr.__dict__.pop(name, None)
        for m in tr.merges:
            m.__dict__.pop("tied", None)
            m.__dict__.pop("_tied_head", None)


def _slow_way(ex, traces, k):
    """Step ``k``'s parts with everything computed in full first: the views then read the full
    rankings (``merge.tied``, ``ranked_pairs``, ``segmentation``) and the rebuilt state."""
    _cold(traces)
    ex._steps = StepCache()
    held = []  # (the snapshots stay alive while the step renders)
    for tr in traces:
        kk = min(k, len(tr) - 1)
        if kk:
            held.append(tr[kk - 1])
            held[-1].state  # rebuilt from a checkpoint, not undone
        snap = tr[kk]
        held.append(snap)
        snap.ranked_pairs, snap.segmentation
        for m in (snap.merge, snap.next_merge):
            if m is not None:
                m.tied
    return ex._step_parts(k)


def _fast_way(ex, traces, k):
    _cold(traces)
    ex._steps = StepCache()
    return ex._step_parts(k)


def _compare_steps(ex, traces, steps):
    for k in steps:
        fast = _fast_way(ex, traces, k)
        slow = _slow_way(ex, traces, k)
        assert fast == slow, f"step {k}"
        # and a step after it (warm: the state of k is at hand)
        k2 = min(k + 1, ex._last_step())
        _cold(traces)
        assert ex._step_parts(k2) == _slow_way(ex, traces, k2), f"step {k2} after {k}"


def _tie_heavy(seed: int, n: int = 300) -> dict:
    """Many short rare words over a small alphabet: most pairs tie at low counts."""
    rng = random.Random(seed)
    return {"".join(rng.choice("abcde_") for _ in range(rng.randint(2, 9))): rng.choice((1, 1, 2, 3))
            for _ in range(n)}


TOY_PRESETS = ["sennrich2016", "subword-nmt", "hf-course", "hf-tokenizers", "cs336", "sentencepiece", "slp3"]


@pytest.mark.parametrize("preset", TOY_PRESETS)
@pytest.mark.parametrize("size", [1.0, 1.75])
def test_merge_explorer_cold_steps_match_the_slow_way_on_ties(preset, size):
    corpus = _tie_heavy(len(preset))
    trace = train_bpe(corpus, 150, preset=preset)
    ex = MergeExplorer.from_trace(trace, sentence="abc dea_ bad cab", size=size)
    rng = random.Random(3)
    _compare_steps(ex, [trace], [1, 2, len(trace) - 1] + [rng.randrange(1, len(trace)) for _ in range(8)])


@pytest.mark.parametrize("size", [1.0, 1.75])
def test_compare_explorer_cold_steps_match_the_slow_way_on_ties(size):
    corpus = _tie_heavy(11)
    tb, tw = train_bpe(corpus, 120, preset="hf-course"), train_wordpiece(corpus, 120)
    ex = CompareExplorer.from_traces(tb, tw, size=size)
    rng = random.Random(4)
    _compare_steps(ex, [tb, tw], [1, ex._last_step()] + [rng.randrange(1, ex._last_step()) for _ in range(8)])


@pytest.fixture(scope="module")
def docs_traces(docs_text):
    return (train_bpe(docs_text, 1500, preset="subword-nmt"), train_bpe(docs_text, 1500, preset="hf-course"),
            train_wordpiece(docs_text, 1500))


@pytest.mark.parametrize("size", [1.0, 1.75])
def test_cold_steps_match_the_slow_way_on_python_docs(docs_traces, size):
    sub, hf, wp = docs_traces
    rng = random.Random(5)
    ex = MergeExplorer.from_trace(sub, sentence=corpora.SAMPLES["python-docs"], size=size)
    _compare_steps(ex, [sub], [rng.randrange(1, len(sub)) for _ in range(6)])
    ex = CompareExplorer.from_traces(hf, wp, size=size)
    _compare_steps(ex, [hf, wp], [rng.randrange(1, ex._last_step()) for _ in range(6)])


def test_state_before_is_the_rebuilt_state(docs_traces):
    rng = random.Random(6)
    for tr in docs_traces:
        for k in [1, len(tr) - 1] + [rng.randrange(1, len(tr)) for _ in range(15)]:
            _cold([tr])
            after = tr[k]
            after.state
            undone = tr.state_before(k)
            rebuilt = tr.history.rebuild(k - 1)
            assert undone is not None, k
            assert undone[0] == rebuilt[0] and list(undone[1]) == list(rebuilt[1]), k
            assert list(undone[2]) == list(rebuilt[2]), k


def test_per_k_is_the_first_k_merges_table(docs_traces):
    tr = docs_traces[0]
    for k in (0, 1, 7, 700, len(tr.merges), len(tr.merges) + 5):
        slow: dict = {}
        for m in tr.merges[:k]:
            slow.setdefault(m.pair_internal, m.step)
        fast = per_k(tr, "_test_rank_cache", k, lambda m: m.pair_internal)
        assert fast == slow and list(fast) == list(slow), k


def test_tied_head_is_the_head_of_tied(docs_traces):
    for tr in docs_traces:
        for step in (1, 2, 50, 700, len(tr.merges)):
            _cold([tr])
            for n in (0, 1, 6):
                head, total = tr.tied_head(step, n)
                full = tr.merges[step - 1].tied
                assert (head, total) == (full[:n], len(full)), (step, n)
                tr.merges[step - 1].__dict__.pop("tied")


def _without_arrays(trace, monkeypatch):
    """The trace's model valuing pairs one by one (as with no ``approx_arrays``)."""
    monkeypatch.setattr(type(trace.model), "approx_arrays", lambda self, snap: None)


@pytest.mark.parametrize("which", ["docs", "ties"])
def test_wordpiece_shortlist_from_score_arrays_is_the_one_from_items(docs_traces, which, monkeypatch):
    """A WordPiece step's top pairs, the ties of its merge and its number of pairs, shortlisted
    from numpy score arrays (a cold compare step), are those of the (pair, count) items."""
    tw = docs_traces[2] if which == "docs" else train_wordpiece(_tie_heavy(12), 150)
    rng = random.Random(7)
    steps = [1, len(tw) - 1] + [rng.randrange(1, len(tw)) for _ in range(12)] if which == "docs" else \
        list(range(1, len(tw)))  # (ties at the best score are rare: every step of the toy)

    def read():
        _cold([tw])
        out = []
        for k in steps:
            snap = tw[k]
            assert ("_approx_arrays" in snap.__dict__) is False
            out.append((k, snap.num_pairs, tw.top_items(snap, 6), tw.tied_head(k, 5), tw.tied_pairs(k)))
            served.append(snap.__dict__.get("_approx_arrays") is not None and "_items" not in snap.__dict__)
        return out

    served: list = []
    fast = read()
    assert all(served)  # (the arrays served, no list of every pair was made)
    served.clear()
    assert which == "docs" or any(ties for *_, ties in fast)  # (ties shortlisted, not only unique bests)
    _without_arrays(tw, monkeypatch)
    assert read() == fast


def test_token_lookup_reads_as_token_counts(docs_traces):
    """The few-token lookup of a cold chart step (``Snapshot.pick("score", among)``) says what
    ``token_counts`` says, and knows no token made after its step."""
    from bpe_viz.engine.merges.snapshot import _TokenLookup

    for tr in docs_traces:
        for k in (0, 1, 333, len(tr) - 1):
            snap = tr[k]
            look = _TokenLookup(snap)
            full = snap.token_counts
            assert all(look[t] == c for t, c in full.items()), k
            later = [m.token for m in tr.merges[k:k + 20] if m.token not in full]
            for t in later:
                with pytest.raises(KeyError):
                    look[t]


def test_ties_at_the_best_count_are_read_from_where_the_next_merge_is(docs_text):
    """Issue 20: late in a run most pairs tie at count 2, and a positional rule has merged the
    tied pairs met early already, so a first-met scan from the first word read most of the
    corpus (twice a cold step: its top pairs and its merge's ties). It now starts at the word
    where the next merge first occurs (no pair of the best count is met before it). The rows
    are those of the full ranking, and the scan did start there."""
    tr = train_bpe(docs_text[:60_000], 100_000, preset="hf-course")  # until its pairs run out
    late = [k for k in range(1, len(tr.merges)) if tr.merges[k].count == 2]  # state k's best count is 2
    assert len(late) > 500
    rng = random.Random(7)
    started = 0
    for k in rng.sample(late, 12):
        _cold([tr])
        snap = tr[k]
        head = snap.top_pairs(8)
        tied_head = tr.tied_head(k + 1, 6)  # (merge k + 1's ties: in state k too)
        scans = tr.__dict__.get("_first_met_orders", {})
        started += any(start > 0 for _, start in scans)
        assert head == snap.ranked_pairs[:8], k
        full = tr.merges[k].tied
        assert tied_head == (full[:6], len(full)), k
    assert started >= 6, started  # (the others: a few tied pairs, found by text search)


def test_a_pick_by_count_reads_from_where_the_next_merge_is(docs_text):
    """The compare chart's BPE pick from a late state (a tie at count 2) is the merge the trainer
    made from it, read by a scan that starts at that merge's word (issue 20)."""
    tr = train_bpe(docs_text[:60_000], 100_000, preset="hf-course")
    late = [k for k in range(1, len(tr.merges)) if tr.merges[k].count == 2]
    started = 0
    for k in random.Random(8).sample(late, 12):
        _cold([tr])
        assert tr[k].pick("count") == tr.merges[k].pair, k
        started += any(start > 0 for _, start in tr.__dict__.get("_first_met_orders", {}))
    assert started >= 6, started  # (the others: a few tied pairs, found by text search)
