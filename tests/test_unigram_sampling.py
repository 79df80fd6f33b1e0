"""Unigram subword regularization (bpe_viz.engine.unigram.sampling) against sentencepiece's own
sampler (``enable_sampling=True, nbest_size=-1``), Viterbi, and itself.

The exact distribution (``cut_distribution``) is checked three ways: it sums to 1, its best cut
is ``encode_word``'s, and sentencepiece's sampler, run 20,000 times on a model trained on the docs
text, draws each cut as often as it says (total variation < 0.03). Our sampler (``sample_cuts``)
is checked against the same distribution.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

import pytest

from bpe_viz import train_unigram
from bpe_viz.engine.text.corpora import load, python_docs_text
from bpe_viz.engine.unigram import cut_distribution, sample_cuts
from helpers import HF_COURSE, TOY_SEEDS
from test_unigram import sp_model_as_trace, sp_train

DRAWS = 20_000
# (word, alpha): words whose cuts spread (iterator: 24 cuts, the best under half the mass)
SP_CASES = [("iterator", 0.1), ("iterator", 0.5), ("encoding", 0.2), ("returns", 1.0), ("tokenizer", 0.2)]


def total_variation(dist: dict, counts: Counter, n: int) -> float:
    return 0.5 * sum(abs(dist.get(k, 0.0) - counts[k] / n) for k in set(dist) | set(counts))


@lru_cache(maxsize=None)
def docs_sp():
    """sentencepiece's Unigram model on the docs text, and our trace with its pieces and scores."""
    sp = sp_train(python_docs_text().split("\n"), vocab_size=1000)
    return sp, sp_model_as_trace(sp)


@lru_cache(maxsize=None)
def course():
    return train_unigram(load("hf-course"), vocab_size=12)


@lru_cache(maxsize=None)
def toy():
    return train_unigram(HF_COURSE, vocab_size=12, initial_vocab=TOY_SEEDS)


def test_distribution_sums_to_one_and_starts_with_viterbi():
    _, docs = docs_sp()
    cases = [(toy(), w, r) for w in ("hugs", "unhug", "bun", "pun") for r in (0, None)]
    cases += [(course(), w, r) for w in ("hugs", "pug", "unhug") for r in (0, 3, None)]
    cases += [(docs, w, None) for w in ("iterator", "encoding", "tokenizer", "naïve€")]
    for trace, word, r in cases:
        for alpha in (0.1, 0.5, 1.0, 3.0):
            dist = cut_distribution(word, trace, alpha=alpha, round=r)
            walk = trace.encode_word(word, r)
            assert math.isclose(sum(p for _, p in dist), 1.0, abs_tol=1e-9), (word, r, alpha)
            assert [p for _, p in dist] == sorted((p for _, p in dist), reverse=True)
            assert len({c for c, _ in dist}) == len(dist)
            assert all("".join(c) == walk.word for c, _ in dist)
            if not walk.tied:
                assert dist[0][0] == walk.final, (word, r, alpha, dist[:2], walk.final)


def test_alpha_one_is_the_model_and_alpha_sharpens():
    """With alpha = 1 a cut's probability is P(cut) / P(word); a larger alpha moves mass to Viterbi."""
    trace = toy()
    snap = trace[0]
    dist = cut_distribution("hugs", trace, round=0)
    total = sum(math.exp(sum(snap.scores[p] for p in c)) for c, _ in dist)
    for c, p in dist:
        assert math.isclose(p, math.exp(sum(snap.scores[x] for x in c)) / total, rel_tol=1e-9)
    tops = [cut_distribution("unhug", trace, alpha=a, round=0)[0][1] for a in (0.1, 0.5, 1.0, 2.0, 8.0)]
    assert tops == sorted(tops) and tops[-1] > 0.999 and tops[0] < 0.5
    # hugs has three best cuts, tied at round 0: a large alpha shares the mass between them
    tied = cut_distribution("hugs", trace, alpha=8.0, round=0)[:3]
    assert sorted(c for c, _ in tied) == [("h", "ugs"), ("hu", "gs"), ("hug", "s")]
    assert all(math.isclose(p, 1 / 3, rel_tol=1e-3) for _, p in tied)


def test_sampler_matches_the_exact_distribution():
    _, docs = docs_sp()
    for trace, word, alpha, r in [(toy(), "unhug", 0.3, 0), (course(), "hugs", 0.1, 0), (docs, "iterator", 0.1, None),
                                  (docs, "encoding", 0.5, None)]:
        dist = dict(cut_distribution(word, trace, alpha=alpha, round=r))
        draws = Counter(sample_cuts(word, trace, DRAWS, alpha=alpha, round=r, seed=7))
        assert total_variation(dist, draws, DRAWS) < 0.03, (word, alpha)
        assert set(draws) <= set(dist)


@pytest.mark.parametrize("word,alpha", SP_CASES)
def test_sentencepiece_sampler_matches_the_exact_distribution(word, alpha):
    """sentencepiece's ``Lattice::Sample`` over 20,000 calls draws each cut as often as
    cut_distribution says (with the model's own pieces and scores), and so does ours."""
    spm = pytest.importorskip("sentencepiece", reason="sentencepiece is not installed (pip install bpe-viz[test])")
    sp, trace = docs_sp()
    spm.set_random_generator_seed(12345)
    theirs = Counter(tuple(sp.encode(word, out_type=str, enable_sampling=True, alpha=alpha, nbest_size=-1))
                     for _ in range(DRAWS))
    dist = dict(cut_distribution(word, trace, alpha=alpha))
    assert len(dist) > 1
    assert total_variation(dist, theirs, DRAWS) < 0.03, (word, alpha, theirs.most_common(3))
    ours = Counter(sample_cuts(word, trace, DRAWS, alpha=alpha, seed=1))
    assert total_variation(dist, ours, DRAWS) < 0.03


def test_a_model_read_from_a_file_gives_the_same_distribution():
    """``from_sentencepiece`` (a PieceUnigram) cuts with the file's scores: the same distribution."""
    from bpe_viz import from_sentencepiece

    sp, trace = docs_sp()
    model = from_sentencepiece(sp.serialized_model_proto())
    for word in ("iterator", "encoding"):
        ours = cut_distribution(word, trace, alpha=0.3)
        read = cut_distribution("▁" + word, model, alpha=0.3)
        assert [c for c, _ in ours] == [c for c, _ in read]
        assert all(math.isclose(p, q, rel_tol=1e-6) for (_, p), (_, q) in zip(ours, read))


def test_deterministic_with_a_seed():
    trace = course()
    a = sample_cuts("hugs", trace, 200, alpha=0.1, round=0, seed=5)
    assert a == sample_cuts("hugs", trace, 200, alpha=0.1, round=0, seed=5)
    assert a != sample_cuts("hugs", trace, 200, alpha=0.1, round=0, seed=6)
    assert sample_cuts("hugs", trace, 0) == []
    assert len(set(a)) > 2


def test_long_word_sampling_stays_linear_and_limit_refuses_enumeration():
    _, docs = docs_sp()
    word = "abstractmethod" * 6
    with pytest.raises(ValueError, match=r"word: 'abstractmethod.*cuts, more than limit=1,000"):
        cut_distribution(word, docs, limit=1000)
    draws = sample_cuts(word, docs, 50, alpha=0.2)
    assert all("".join(c) == "▁" + word for c in draws) and len(set(draws)) > 1


@pytest.mark.parametrize("call,exc,match", [
    (lambda t: cut_distribution(3, t), TypeError, r"word must be a str, got int"),
    (lambda t: cut_distribution("", t), ValueError, r"word must be a non-empty str"),
    (lambda t: cut_distribution("hug", {"h": -1.0}), TypeError, r"unigram_trace must be a Unigram trace"),
    (lambda t: cut_distribution("hug", t, alpha=0), ValueError, r"alpha must be a finite float > 0, got 0"),
    (lambda t: cut_distribution("hug", t, alpha=-1.5), ValueError, r"alpha must be a finite float > 0"),
    (lambda t: cut_distribution("hug", t, alpha=math.nan), ValueError, r"alpha must be a finite float > 0"),
    (lambda t: cut_distribution("hug", t, alpha="1"), TypeError, r"alpha must be a float > 0, got str"),
    (lambda t: cut_distribution("hug", t, alpha=True), TypeError, r"alpha must be a float > 0, got bool"),
    (lambda t: cut_distribution("hug", t, round=99), ValueError, r"round must be between 0 and"),
    (lambda t: cut_distribution("hug", t, round="1"), TypeError, r"round must be an int"),
    (lambda t: cut_distribution("hug", t, limit=0), ValueError, r"limit must be >= 1"),
    (lambda t: cut_distribution("hugz", t), ValueError, r"word: no piece covers every character of 'hugz'"),
    (lambda t: sample_cuts("hug", t, -1), ValueError, r"n must be >= 0"),
    (lambda t: sample_cuts("hug", t, 2.0), TypeError, r"n must be an int, got float"),
    (lambda t: sample_cuts("hug", t, 2, seed=None), TypeError, r"seed must be an int"),
    (lambda t: sample_cuts(None, t, 2), TypeError, r"word must be a str"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call(toy())
