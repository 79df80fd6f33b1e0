"""Unigram LM (``bpe_viz.engine.unigram``) against its two sources.

* ``flavour="hf-course"``: every number the Hugging Face course prints in chapter 6, section 7
  (the toy corpus and the four-sentence corpus), errata included; the printed values are read
  from ``../shared/fixtures/external/hf-course/ch6-unigram.json`` where it exists, and the
  pre-tokenization is checked against ``tokenizers``' own ``Metaspace``.
* ``flavour="sentencepiece"``: ``sentencepiece`` 0.2.3 trained in-process (``model_type=
  "unigram"``, identity normalization, its default 16 threads) on the bundled corpora at every
  vocabulary size it accepts and on Python's documentation text: the same piece set, scores
  within 1e-4, the same largest vocab_size, the same ids except where two pieces' scores are
  within 1e-4 (SentencePiece's own order among those moves with its thread count), and the
  same encoder.
"""

from __future__ import annotations

import io
import json
import math
import re
import statistics
import time
from functools import lru_cache

import pytest

from bpe_viz import decode, encode, encode_word, train_unigram
from bpe_viz.engine.text.corpora import EXAMPLES, python_docs_text
from bpe_viz.engine.unigram import UnigramTrace, metaspace_words

from helpers import COURSE_SENTENCES, EXTERNAL, TOY_SEEDS
from helpers import HF_COURSE as TOY

UNIGRAM_JSON = EXTERNAL / "hf-course" / "ch6-unigram.json"


@lru_cache(maxsize=None)
def course_fixture() -> dict:
    if not UNIGRAM_JSON.exists():
        pytest.skip(f"the course's printed numbers are not here ({UNIGRAM_JSON} is absent: ../shared is not checked out)")
    return json.loads(UNIGRAM_JSON.read_text(encoding="utf-8"))


def course_word_counts() -> dict:
    """The course corpus as the course pre-tokenizes it (XLNet's Metaspace), by tokenizers itself."""
    pre = pytest.importorskip("tokenizers.pre_tokenizers", reason="tokenizers is not installed (pip install bpe-viz[test])")
    counts: dict = {}
    for s in COURSE_SENTENCES:
        for w, _ in pre.Metaspace().pre_tokenize_str(s):
            counts[w] = counts.get(w, 0) + 1
    return counts


@lru_cache(maxsize=None)
def course_trace() -> UnigramTrace:
    return train_unigram(course_word_counts(), vocab_size=100)


# -- hf-course: the toy ------------------------------------------------------------------------

def toy_trace():
    return train_unigram(TOY, vocab_size=12, initial_vocab=TOY_SEEDS)


def test_toy_seed_frequencies_sum_to_210():
    t = toy_trace()
    assert list(t[0].pieces) == TOY_SEEDS
    counts = {p: round(q * 210, 9) for p, q in t[0].pieces.items()}
    assert sum(counts.values()) == pytest.approx(210)
    want = course_fixture()["toy"]["frequencies"]
    assert counts == {p: float(n) for p, n in want.items()}


def test_toy_viterbi_table_for_unhug():
    walk = encode_word("unhug", toy_trace(), 0)
    assert walk.final == ("un", "hug")
    want = course_fixture()["toy"]["viterbi_unhug_best_prefix"]
    got = [(prefix, list(cut), walk.probability(score)) for prefix, cut, score, _ in walk.prefixes]
    assert [g[:2] for g in got] == [tuple(w[:2]) for w in want]
    for (_, _, p), (_, _, q) in zip(got, want):
        assert p == pytest.approx(q, abs=1e-6)


def test_toy_words_scores_and_ties():
    """Each word's best score is the course's; where the course's prose shows another cut
    (``pu g``), the two score the same, the code keeps the first found (``p ug``) and the tie
    is flagged."""
    t = toy_trace()
    s = t[0]
    for word, (cut, prob) in course_fixture()["toy"]["word_segmentations"].items():
        ours = s.segmentation[word]
        ours_p = math.prod(s.pieces[p] for p in ours)
        assert ours_p == pytest.approx(prob, abs=1e-6), word
        if list(ours) != cut:
            assert math.prod(s.pieces[p] for p in cut) == pytest.approx(ours_p, rel=1e-12)
            assert s.segmentation.tied(word), word
    assert s.segmentation["pug"] == ("p", "ug")  # the course's code: the first cut found
    assert not s.segmentation.tied("hug")


def test_toy_loss_and_removal_of_hug():
    t = toy_trace()
    fx = course_fixture()["toy"]
    assert t[0].loss == pytest.approx(fx["loss"], abs=0.01)
    assert t[1].removal_losses["hug"] == pytest.approx(fx["without_hug"]["loss_increase"], abs=0.02)
    # without hug, hug and hugs are cut as the course says
    neg = {p: q for p, q in t[0].pieces.items() if p != "hug"}
    from bpe_viz.engine.unigram.lattice import course_cut
    for word in ("hug", "hugs"):
        cut, prob = fx["without_hug"][word]
        pieces, score, tied = course_cut(word, {p: -math.log(q) for p, q in neg.items()}, 3, 0.0)
        assert math.exp(-score) == pytest.approx(prob, abs=1e-6)
        assert list(pieces) == cut or tied  # hu g and h ug score the same: the code keeps h ug


def test_toy_erratum_pug_probabilities():
    """The course prints pug's probabilities with 5/210 for p and pu; their count is 17."""
    s = toy_trace()[0]
    fx = course_fixture()["toy"]
    assert round(s.pieces["p"] * 210) == round(s.pieces["pu"] * 210) == 17
    p_u_g = s.pieces["p"] * s.pieces["u"] * s.pieces["g"]
    pu_g = s.pieces["pu"] * s.pieces["g"]
    assert p_u_g == pytest.approx(0.0013217, abs=1e-7) and pu_g == pytest.approx(0.0077098, abs=1e-7)
    assert fx["printed_pug_values_as_printed"]["p u g"] != pytest.approx(p_u_g, rel=0.1)


# -- hf-course: the four sentences ---------------------------------------------------------------

def test_metaspace_words_match_tokenizers():
    pre = pytest.importorskip("tokenizers.pre_tokenizers", reason="tokenizers is not installed")
    for s in [*COURSE_SENTENCES, "  two  spaces ", "▁already", "tab\there", ""]:
        assert metaspace_words(s) == [w for w, _ in pre.Metaspace().pre_tokenize_str(s)], s


def test_course_seeds_and_printed_numbers():
    t = course_trace()
    fx = course_fixture()["corpus"]
    seeds = t[0].pieces
    assert len(seeds) == fx["initial_vocab_size"] == 300
    subwords = [p for p in seeds if len(p) > 1]
    assert sum(seeds.values()) == pytest.approx(1.0)
    # the ten most frequent substrings, in the course's (stable) order, with their counts
    some = seeds["▁t"] / 7
    assert [(p, round(seeds[p] / some)) for p in subwords[:10]] == [tuple(x) for x in fx["sorted_subwords_top10"]]
    for word, key in (("Hopefully", "encode_word_Hopefully"), ("This", "encode_word_This")):
        walk = encode_word(word, t, 0)
        cut, printed = fx[key]
        assert list(walk.final) == cut
        assert walk.course_score == pytest.approx(printed, rel=1e-12)
    assert t[0].course_loss == pytest.approx(fx["initial_loss"], rel=1e-12)
    # the definition: one less per running word
    assert t[0].loss == pytest.approx(fx["initial_loss"] - sum(course_word_counts().values()), rel=1e-12)
    assert t[1].removal_losses["ll"] == pytest.approx(fx["score_ll"], rel=1e-9)
    assert t[1].removal_losses["his"] == fx["score_his"] == 0.0


def test_course_training_and_final_tokenization():
    t = course_trace()
    fx = course_fixture()["corpus"]
    sizes = [len(s.pieces) for s in t]
    assert sizes == [300, 270, 243, 219, 198, 179, 162, 146, 132, 119, 108, 98]  # while len > 100: drop 10 %
    for prev, cur in zip(t, t[1:]):
        assert len(cur.removed) == int(len(prev.pieces) * 0.1)
        assert all(len(r.piece) > 1 for r in cur.removed)  # single characters are never removed
        cut = max(r.loss for r in cur.removed)
        assert all(loss >= cut for p, loss in cur.removal_losses.items() if p in cur.pieces)
    assert encode(fx["tokenize_input"], t).pieces == fx["tokenize_output"]
    assert t.stop_reason == "vocab_size reached"


def test_course_ties_at_the_cut_are_flagged():
    t = course_trace()
    for s in t[1:]:
        for r in s.removed:
            kept_equal = any(loss == r.loss for p, loss in s.removal_losses.items() if p in s.pieces)
            assert r.tied == kept_equal, (s.round, r)
        assert set(s.kept_at_cut) == {p for p, loss in s.removal_losses.items()
                                      if p in s.pieces and any(r.tied and r.loss == loss for r in s.removed)}
    # round 1 removes 30 of the many pieces no best cut uses (removal loss 0): a tie at the cut
    first = t[1]
    assert all(r.loss == 0.0 and r.tied for r in first.removed)
    assert "his" in first.kept_at_cut or "his" in {r.piece for r in first.removed}


# -- sentencepiece ---------------------------------------------------------------------------------

spm = None


def _spm():
    global spm
    if spm is None:
        spm = pytest.importorskip("sentencepiece", reason="sentencepiece is not installed (pip install bpe-viz[test])")
    return spm


def sp_train(lines, **kw):
    m = io.BytesIO()
    args = dict(model_type="unigram", normalization_rule_name="identity", minloglevel=3)
    args.update(kw)
    _spm().SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=m, **args)
    return _spm().SentencePieceProcessor(model_proto=m.getvalue())


def sp_lines(corpus) -> list[str]:
    if isinstance(corpus, dict):
        return [w for w, n in corpus.items() for _ in range(n)]
    return corpus.split("\n")


def sp_max_vocab(lines) -> int:
    with pytest.raises(RuntimeError) as high:
        sp_train(lines, vocab_size=100_000)
    m = re.search(r"Please set it to a value <= (\d+)", str(high.value))
    assert m, str(high.value)
    return int(m.group(1))


def assert_same_vocabulary(trace, sp, tol=1e-4):
    ours = trace.id_to_token
    theirs = [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
    assert set(ours) == set(theirs), (sorted(set(ours) - set(theirs))[:10], sorted(set(theirs) - set(ours))[:10])
    score = {sp.id_to_piece(i): sp.get_score(i) for i in range(sp.get_piece_size())}
    for p, s in trace.final.pieces.items():
        assert abs(s - score[p]) <= tol, (p, s, score[p])
    # ids: the same, except that pieces whose scores are within tol may trade places
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            assert abs(score[a] - score[b]) <= tol, (i, a, b, score[a], score[b])


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_examples_every_vocab_size(name):
    corpus = EXAMPLES[name]
    lines = sp_lines(corpus)
    top = sp_max_vocab(lines)
    with pytest.raises(ValueError, match=rf"vocab_size {top + 1} is too high.*at most {top}"):
        train_unigram(corpus, vocab_size=top + 1, flavour="sentencepiece")
    low = len({c for line in lines for c in line if c != " "} | {"▁"}) + 3
    with pytest.raises(ValueError, match=r"vocab_size must be at least"):
        train_unigram(corpus, vocab_size=low - 1, flavour="sentencepiece")
    for vs in range(low, top + 1):
        assert_same_vocabulary(train_unigram(corpus, vocab_size=vs, flavour="sentencepiece"), sp_train(lines, vocab_size=vs))


@lru_cache(maxsize=None)
def docs_pair(vocab_size: int):
    text = python_docs_text()
    return train_unigram(text, vocab_size=vocab_size, flavour="sentencepiece"), sp_train(text.split("\n"), vocab_size=vocab_size)


@pytest.mark.slow
@pytest.mark.parametrize("vocab_size", [1000, 4000])
def test_docs_text_same_vocabulary(vocab_size):
    trace, sp = docs_pair(vocab_size)
    assert len(trace[0].pieces) == 12853  # the seeds: 88 characters and 12,765 substrings, as its log says
    assert_same_vocabulary(trace, sp)


@pytest.mark.slow
def test_docs_text_largest_vocab_size():
    lines = python_docs_text().split("\n")
    top = sp_max_vocab(lines)
    with pytest.raises(ValueError, match=rf"at most {top}\b"):
        train_unigram(python_docs_text(), vocab_size=top + 1, flavour="sentencepiece")


def sp_model_as_trace(sp) -> UnigramTrace:
    """Our trace with SentencePiece's own pieces and scores: the encoder alone under test."""
    from bpe_viz.engine.unigram import UnigramSnapshot

    pieces = {sp.id_to_piece(i): sp.get_score(i) for i in range(3, sp.get_piece_size())}
    return UnigramTrace("sentencepiece", {}, [UnigramSnapshot(0, pieces, 0.0)], vocab_size=sp.get_piece_size(),
                        stop_reason="given", options={})


@pytest.mark.slow
def test_docs_text_encoder_exact_on_every_line():
    """With SentencePiece's scores, our Viterbi cuts every line as ``sp.encode`` does (pieces and
    ids, unknown runs as one piece); with our own scores, a line differs only where two cuts
    score within 1e-4."""
    trace, sp = docs_pair(4000)
    lines = python_docs_text().split("\n")
    same = sp_model_as_trace(sp)
    for line in lines:
        e = encode(line, same)
        assert (e.pieces, e.ids) == (sp.encode(line, out_type=str), sp.encode(line)), line
    scores = trace.final.pieces
    differ = 0
    for line in lines:
        got, want = encode(line, trace).pieces, sp.encode(line, out_type=str)
        if got != want:
            differ += 1
            gs = sum(scores.get(p, 0.0) for p in got)
            ws = sum(scores.get(p, 0.0) for p in want)
            assert abs(gs - ws) <= 1e-4, (line, got, want)
    assert differ <= len(lines) // 1000


def test_unknown_characters_and_scripts():
    """Rare characters become unknown (coverage 0.98 here); runs of them are one piece; Greek,
    Cyrillic, kana and kanji, Hangul and combining marks stay in their own pieces."""
    base = python_docs_text()[:20000].split("\n")
    extra = ["αβγ δέλτα αβγ", "привет мир привет", "ひらがな カタカナ 漢字 ひらがな", "한국어 문장 한국어",
             "cafe\u0301 cafe\u0301 naïve", "☃☃ snow ☃☃", "x ✓ y ✓ z"] * 3
    lines = base + extra
    text = "\n".join(lines)
    for kw in ({}, dict(character_coverage=0.98)):
        top = sp_max_vocab(lines) if not kw else None
        vs = 600 if top is None else min(600, top)
        trace = train_unigram(text, vocab_size=vs, flavour="sentencepiece", **kw)
        sp = sp_train(lines, vocab_size=vs, **kw)
        assert_same_vocabulary(trace, sp)
        same = sp_model_as_trace(sp)
        for line in extra + ["unseen ⊕⊗ chars", "ß∂ƒ"]:
            e = encode(line, same)
            assert (e.pieces, e.ids) == (sp.encode(line, out_type=str), sp.encode(line)), line
            assert decode(e.ids, same) == sp.decode(sp.encode(line)), line


@pytest.mark.parametrize("corpus,vocab_size", [("x" * 2000, 5), ("x" * 2000, 4), ("ab" * 1000, 6),
                                               ("abc" * 800 + "\n" + "x" * 1200, 9), ({"x" * 2000: 1}, 5)])
def test_rare_space_marker_becomes_unknown(corpus, vocab_size):
    """A ``▁`` rarer than ``character_coverage`` allows becomes ``▅`` like any rare character: the
    sentence is then one word from its start (``SplitIntoWords``), as sentencepiece trains it
    (this used to raise 'math domain error')."""
    lines = sp_lines(corpus) if isinstance(corpus, dict) else corpus.split("\n")
    sp = sp_train(lines, vocab_size=vocab_size)
    trace = train_unigram(corpus, vocab_size=vocab_size, flavour="sentencepiece")
    assert trace.id_to_token == [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
    if vocab_size == 5:  # "<unk> <s> </s> xxxxxxxxxxxxxxxx x"
        assert_same_vocabulary(trace, sp)


# -- the trace, reading a round, bad input --------------------------------------------------------

def test_rounds_record_what_decided_them():
    trace = train_unigram(python_docs_text()[:60000], vocab_size=800, flavour="sentencepiece")
    assert len(trace) >= 3
    for prev, cur in zip(trace, trace[1:-1]):
        gone = {r.piece for r in cur.removed}
        assert set(prev.pieces) - set(cur.pieces) == gone
        ranked = [r for r in cur.removed if r.loss is not None]
        if ranked:
            cut = max(r.loss for r in ranked)
            kept = [cur.removal_losses[p] for p in cur.pieces if p in cur.removal_losses]
            assert min(kept) >= cut
    assert trace[-1].note.startswith("final")
    assert all(s.loss > 0 for s in trace)


def test_a_round_is_readable_in_20_ms():
    trace = train_unigram(python_docs_text()[:80000], vocab_size=1000, flavour="sentencepiece")
    words = list(trace.word_counts)[:5]
    times = []
    for k in [*range(len(trace)), *range(len(trace))]:
        t0 = time.perf_counter()
        s = trace[k]
        len(s.pieces), len(s.removal_losses), len(s.removed), s.loss
        [s.segmentation[w] for w in words]
        times.append(time.perf_counter() - t0)
    assert statistics.median(times) < 0.020, times


def test_encode_word_selects_the_round():
    t = course_trace()
    first, last = encode_word("Hopefully", t, 0), encode_word("Hopefully", t)
    assert first.round == 0 and last.round == len(t) - 1
    with pytest.raises(ValueError, match="between 0 and"):
        encode_word("Hopefully", t, len(t))
    with pytest.raises(ValueError, match="dropout"):
        encode("x", t, dropout=0.1)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(flavour="bpe"), ValueError, "flavour must be one of"),
    (dict(vocab_size="100"), TypeError, "vocab_size must be an int"),
    (dict(vocab_size=0), ValueError, "vocab_size must be at least 1"),
    (dict(vocab_size=5), ValueError, "vocab_size must be at least the 7 characters"),
    (dict(seed_size=0), ValueError, "seed_size"),
    (dict(initial_vocab="hug"), TypeError, "initial_vocab must be a list"),
    (dict(initial_vocab=["h", "u", "g"]), ValueError, "initial_vocab must hold every character"),
    (dict(initial_vocab=["zz", *TOY_SEEDS]), ValueError, "never occurs"),
    (dict(flavour="sentencepiece", initial_vocab=["h"]), ValueError, "initial_vocab is an hf-course option"),
    (dict(flavour="sentencepiece", character_coverage=1.5), ValueError, "character_coverage"),
    (dict(flavour="sentencepiece", vocab_size=5), ValueError, r"vocab_size must be at least 11 \(the 8 characters"),
    (dict(callback=3), TypeError, "callback"),
])
def test_bad_input(kwargs, exc, match):
    kw = dict(vocab_size=12)
    kw.update(kwargs)
    with pytest.raises(exc, match=match):
        train_unigram(TOY, **kw)


def test_empty_corpus_gives_an_empty_trace():
    """hf-course: an empty trace (every word is <unk>); sentencepiece refuses a corpus with no
    sentence, and so does its flavour (tests/test_hostile_engine.py compares the two)."""
    t = train_unigram("", vocab_size=10)
    assert len(t) == 1 and t[0].pieces == {} and t.stop_reason == "no corpus"
    with pytest.raises(ValueError, match="corpus: no sentence"):
        train_unigram("", vocab_size=10, flavour="sentencepiece")
    with pytest.raises(TypeError, match="got bytes"):
        train_unigram(b"hug", vocab_size=10)


def test_callback_reports_progress():
    seen = []
    train_unigram(course_word_counts(), vocab_size=150, callback=lambda k, n: seen.append((k, n)))
    assert seen == [(1, 270), (2, 243), (3, 219), (4, 198), (5, 179), (6, 162), (7, 146)]
