"""bpe_viz.engine.wordpiece.score_arrays: a state's pairs, counts and WordPiece scores as numpy
arrays say exactly what the snapshot's dicts say, and the BPE-vs-WordPiece chart drawn from them
is byte for byte the chart drawn from the dicts.

Real input: the first 60,000 characters of Python's documentation text
(``corpora.load("python-docs")``), trained with every BPE preset the explorers offer and with
WordPiece; the arrays are checked against ``Snapshot.pair_counts`` and ``Snapshot.token_counts``
(the score as the chart computes it: ``count / (count(a) * count(b))``).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_viz import corpora, train_bpe, train_wordpiece
from bpe_viz.engine.wordpiece import score_arrays
from bpe_viz.view import bpe_vs_wordpiece_svg
from bpe_viz.view.kit import Scale
from bpe_viz.view.merges import svg as svg_module
from bpe_viz.widgets.controls import PRESET_CHOICES

TEXT = corpora.load("python-docs")[:60000]
STEPS = (0, 1, 7, 60, 250, 399)


def _traces():
    out = [("wordpiece", lambda: train_wordpiece(TEXT, 400))]
    out += [(name, lambda kw=kw: train_bpe(TEXT, 400, **kw)) for name, (_, kw) in PRESET_CHOICES.items()]
    return out


TRACES = _traces()


@pytest.fixture(scope="module")
def trained():
    return {name: make() for name, make in TRACES}


@pytest.mark.parametrize("name", [n for n, _ in TRACES])
def test_arrays_say_what_the_dicts_say(trained, name):
    trace = trained[name]
    fast_seen = 0
    for k in STEPS:
        snap = trace[min(k, len(trace) - 1)]
        got = score_arrays(snap)
        if got is None:  # a trace that spells two symbols alike: the dicts are read instead
            assert trace.remaps_marker or set(trace.history.merged_tokens) & set(trace.history.base_symbols)
            continue
        fast_seen += 1
        ids, counts, scores = got
        table, tc = snap.pair_counts, snap.token_counts
        pairs = [trace.history.pairs[i] for i in ids.tolist()]
        assert pairs == list(table)
        assert counts.tolist() == list(table.values())
        assert scores.tolist() == [c / (tc[a] * tc[b]) for (a, b), c in table.items()]  # the same floats
    assert fast_seen or trace.remaps_marker


def test_a_remapped_marker_reads_the_dicts():
    """SLP3's BPE writes its end marker as "_" inside something else: the arrays decline."""
    trace = train_bpe(TEXT[:5000], 30, preset="slp3")
    assert trace.remaps_marker
    assert score_arrays(trace[3]) is None


@pytest.mark.parametrize("name", ["hf-course", "cs336", "wordpiece", "sentencepiece"])
def test_the_chart_from_arrays_is_the_chart_from_dicts(trained, name, monkeypatch):
    trace = trained[name]
    snaps = [trace[min(k, len(trace) - 1)] for k in STEPS]
    fast = [bpe_vs_wordpiece_svg(s, size=1.75) for s in snaps]
    monkeypatch.setattr(svg_module, "score_arrays", lambda snap: None)
    slow = [bpe_vs_wordpiece_svg(trace[min(k, len(trace) - 1)], size=1.75) for k in STEPS]
    assert fast == slow


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=st.dictionaries(st.text(alphabet="abc_", min_size=1, max_size=6), st.integers(1, 9),
                              min_size=1, max_size=8),
       preset=st.sampled_from(["hf-course", "sennrich2016", "slp3", "minbpe"]), wordpiece=st.booleans())
def test_random_corpora_arrays_equal_a_recount(counts, preset, wordpiece):
    """Differential: on random corpora (a literal "_" too, which SLP3 uses as its marker), every
    step's arrays equal the dicts, or decline."""
    trace = train_wordpiece(counts, 8) if wordpiece else train_bpe(counts, 8, preset=preset)
    for snap in trace:
        got = score_arrays(snap)
        if got is None:
            continue
        ids, cs, scores = got
        table, tc = snap.pair_counts, snap.token_counts
        assert [trace.history.pairs[i] for i in ids.tolist()] == list(table)
        assert cs.tolist() == list(table.values())
        assert scores.tolist() == [c / (tc[a] * tc[b]) for (a, b), c in table.items()]


def _reference_dots(snap, xs, ys) -> str:
    """The scatter's path as the chart drew it before numpy (a literal loop) on the chart's own
    scales: every pair's pixel by Python's ``round``, one dot per pixel, first met first."""
    table, tc = snap.pair_counts, snap.token_counts
    scores = [c / (tc[a] * tc[b]) for (a, b), c in table.items()]
    dots = dict.fromkeys((round(xs(x)), round(ys(y))) for x, y in zip(table.values(), scores))
    return "".join(f"M{px} {py}h0" for px, py in dots)


@pytest.mark.parametrize("name", ["hf-course", "wordpiece", "cs336"])
def test_the_dots_are_where_pythons_round_puts_them(trained, name, monkeypatch):
    made = []

    class Recorded(Scale):  # the chart's scales, kept to draw the reference with
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(svg_module, "Scale", Recorded)
    trace = trained[name]
    logs = set()
    for k in STEPS:
        snap = trace[min(k, len(trace) - 1)]
        chart = bpe_vs_wordpiece_svg(snap)
        xs, ys = made[-2:]
        logs.update((xs.log, ys.log))
        drawn = re.search(r'<path d="([^"]*)" stroke="[^"]*" stroke-opacity="0.6" stroke-width="3.6"', chart)
        assert drawn.group(1) == _reference_dots(snap, xs, ys)
    assert True in logs  # a logarithmic axis drawn (numpy's log10 against math's)
