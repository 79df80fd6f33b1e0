"""The sentencepiece-flavour encoder's per-word cache (``engine/unigram/sp_encoder.py``).

``sp_encode_line`` cuts a line word by word, a word's cut cached with its margin over the next
best cut, and must give exactly what one 32-bit Viterbi over the whole line gives. The reference
here is that Viterbi written out plainly (each candidate rounded to 32 bits, then compared; the
line's pieces shared out to its words, a run of unknown characters cut at each word's end): on
every line of the docs at every round of a docs trace, on hypothesis-made lines and models full of
exact and near ties, on lines long enough that the running score decides, and against
sentencepiece itself on the docs.
"""

from __future__ import annotations

import io
from array import array
from functools import lru_cache
from itertools import accumulate

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_viz import encode, train_unigram
from bpe_viz.engine.text.corpora import python_docs_text
from bpe_viz.engine.text.scripts import MARK, f32
from bpe_viz.engine.unigram import sp_encoder
from bpe_viz.engine.unigram.sp_encoder import clear_sp_encode_cache, sp_encode_line, sp_encode_word
from helpers import hypothesis_settings
from test_unigram import sp_model_as_trace

DOCS = python_docs_text()


# -- the reference: one Viterbi over the whole line ------------------------------------------------

def line_viterbi(line: str, scores: dict, maxlen: int, unk: float) -> list[str]:
    """sentencepiece's ``EncodeOptimized`` on ``line``, plainly: every candidate rounded to 32 bits
    and kept when strictly better; a run of unknown characters one piece."""
    n = len(line)
    best, back, isunk = [None] * (n + 1), [0] * (n + 1), [False] * (n + 1)
    best[0] = 0.0
    cell = array("f", [0.0])
    for s in range(n):
        single = False
        for e in range(s + 1, min(n, s + maxlen) + 1):
            sc = scores.get(line[s:e])
            if sc is None:
                continue
            single = single or e == s + 1
            cell[0] = sc + best[s]
            if best[e] is None or cell[0] > best[e]:
                best[e], back[e], isunk[e] = cell[0], s, False
        if not single:
            cell[0] = unk + best[s]
            if best[s + 1] is None or cell[0] > best[s + 1]:
                best[s + 1], back[s + 1], isunk[s + 1] = cell[0], s, True
    out, e = [], n
    while e > 0:
        s = back[e]
        if isunk[e] and out and out[-1][1]:
            out[-1] = (line[s:e] + out[-1][0], True)
        else:
            out.append((line[s:e], isunk[e]))
        e = s
    return [p for p, _ in reversed(out)]


def reference(words: list[str], scores: dict, maxlen: int, unk: float) -> list[tuple]:
    """The line's pieces shared out to its words: each piece cut at every word end inside it."""
    ends = list(accumulate(map(len, words)))
    out: list[list[str]] = [[] for _ in words]
    k, pos = 0, 0
    for piece in line_viterbi("".join(words), scores, maxlen, unk):
        while piece:
            part = piece[:ends[k] - pos]
            out[k].append(part)
            pos += len(part)
            piece = piece[len(part):]
            if pos == ends[k]:
                k += 1
    return [tuple(o) for o in out]


def unk_of(scores: dict) -> float:
    return f32(min(scores.values()) - 10.0)


def maxlen_of(scores: dict) -> int:
    return max(map(len, scores))


def docs_lines_words(trace) -> list[list[str]]:
    """Every non-empty docs line as the encoder's ``▁``-words."""
    return [e.words for e in (encode(line, trace) for line in DOCS.split("\n")) if e.words]


@lru_cache(maxsize=None)
def docs_trace(vocab_size: int):
    return train_unigram(DOCS, vocab_size=vocab_size, flavour="sentencepiece")


# -- the docs -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("vocab_size", [4000])
def test_docs_every_round_as_the_line_viterbi(vocab_size):
    """Every line of the docs, at every round, cold and warm: the cached cuts are the line's."""
    trace = docs_trace(vocab_size)
    lines = docs_lines_words(trace)
    for k in range(len(trace)):
        scores = trace[k].pieces
        maxlen, unk = maxlen_of(scores), trace.unk_score(trace[k])
        want = [reference(ws, scores, maxlen, unk) for ws in lines]
        clear_sp_encode_cache()
        for _ in range(2):  # cold, then every word from the cache
            got = [sp_encode_line(ws, scores, maxlen, unk) for ws in lines]
            bad = [(ws, g, w) for ws, g, w in zip(lines, got, want) if g != w]
            assert not bad, f"round {k}: {len(bad)} lines differ, first {bad[0]}"
        # the whole text in one call: the same words and pieces
        e = encode(DOCS, trace, k)
        assert [tuple(p) for p in e.word_pieces()] == [c for line in want for c in line]


def test_docs_cache_is_per_model_and_cleared():
    trace = docs_trace(1000)
    clear_sp_encode_cache()
    first, last = encode(DOCS, trace, 0), encode(DOCS, trace)
    models = {id(m.scores): m for m in sp_encoder._MODELS.values()}
    assert set(models) == {id(trace[0].pieces), id(trace.final.pieces)}
    assert all(len(m.words) > 1000 for m in models.values())
    assert first.pieces != last.pieces
    clear_sp_encode_cache()
    assert not sp_encoder._MODELS
    assert encode(DOCS, trace).pieces == last.pieces


# -- sentencepiece itself -----------------------------------------------------------------------------

def sp_processor(vocab_size: int):
    spm = pytest.importorskip("sentencepiece")
    m = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(DOCS.split("\n")), model_writer=m, model_type="unigram",
                                   vocab_size=vocab_size, normalization_rule_name="identity", minloglevel=3)
    return spm.SentencePieceProcessor(model_proto=m.getvalue())


def test_docs_as_sentencepiece():
    """With sentencepiece's own scores, the cached encoder cuts every docs line (the whole text
    in one call, each line a sentence) as ``sp.encode`` does: pieces and ids; with our trained
    scores, only lines where two cuts score within 1e-4 differ."""
    sp = sp_processor(4000)
    same = sp_model_as_trace(sp)
    lines = DOCS.split("\n")
    clear_sp_encode_cache()
    whole = encode(DOCS, same)
    assert whole.pieces == [p for line in sp.encode(lines, out_type=str) for p in line]
    assert whole.ids == [i for line in sp.encode(lines) for i in line]
    # our trained scores (within ~1e-5 of its): only near-ties differ, a handful of lines
    trace, score = docs_trace(4000), same.final.pieces
    ours = [encode(line, trace).pieces for line in lines]
    differ = [(a, b) for a, b in zip(ours, sp.encode(lines, out_type=str)) if a != b]
    assert len(differ) <= 3
    assert all(abs(sum(score.get(p, 0.0) for p in a) - sum(score.get(p, 0.0) for p in b)) <= 1e-4 for a, b in differ)


# -- made-up models and lines: ties, near-ties, long lines ------------------------------------------

SCORES = [-1.0, -2.0, -3.0, -1.5, -2.5, -4.0, -0.5]


@st.composite
def models(draw):
    """A piece dict over ``▁abc`` with many exact ties (scores from a few values) and near-ties
    (those values moved by a few 32-bit steps); sometimes ``▁`` or a letter is no piece
    (unknown), sometimes a piece holds an inner ``▁`` (the line is then cut at once)."""
    chars = draw(st.sets(st.sampled_from("abc▁"), min_size=1))
    subs = draw(st.lists(st.text("abc", min_size=2, max_size=4), max_size=12))
    marked = draw(st.lists(st.text("abc", min_size=1, max_size=3).map(lambda s: MARK + s), max_size=4))
    if draw(st.booleans()):
        marked += draw(st.lists(st.sampled_from(["a▁", "a▁b", "▁▁"]), max_size=1))
    scores = {}
    for p in sorted(chars | set(subs) | set(marked)):
        base = draw(st.sampled_from(SCORES))
        nudge = draw(st.sampled_from([0, 0, 0, 1, -1, 2, -3]))
        scores[p] = f32(base + nudge * 2.0 ** -20)
    return scores


@st.composite
def lines(draw):
    """A line of ``▁``-words, sometimes behind a long run of words that makes the running score
    large (up to ~10^4), where 32-bit rounding settles more near-ties."""
    words = draw(st.lists(st.text("abcd▁", max_size=8).map(lambda s: MARK + s), min_size=1, max_size=30))
    lead = draw(st.sampled_from([0, 0, 50, 2000]))
    filler = draw(st.lists(st.text("abc", min_size=1, max_size=6).map(lambda s: MARK + s), min_size=1, max_size=5))
    return [filler[i % len(filler)] for i in range(lead)] + words


@hypothesis_settings(200)
@given(models(), lines())
def test_made_up_lines_as_the_line_viterbi(scores, words):
    maxlen, unk = maxlen_of(scores), unk_of(scores)
    want = reference(words, scores, maxlen, unk)
    clear_sp_encode_cache()
    assert sp_encode_line(words, scores, maxlen, unk) == want
    assert sp_encode_line(words, scores, maxlen, unk) == want  # warm
    assert "".join(sp_encode_word("".join(words), scores, maxlen, unk)) == "".join(words)


@pytest.fixture(scope="module")
def small_trace():
    return train_unigram(DOCS[:30000], vocab_size=300, flavour="sentencepiece")


@hypothesis_settings(30)
@given(st.data())
def test_made_up_lines_at_every_round(small_trace, data):
    """Lines of docs words, made-up words and characters no round knows, at every round."""
    vocab = sorted(small_trace.word_counts)
    word = st.one_of(st.sampled_from(vocab), st.text("etaoinsr_.()é÷", min_size=1, max_size=12).map(lambda s: MARK + s))
    words = data.draw(st.lists(word, min_size=1, max_size=40))
    repeat = data.draw(st.sampled_from([1, 1, 20, 200]))
    words = words * repeat
    for k in range(len(small_trace)):
        scores = small_trace[k].pieces
        maxlen, unk = maxlen_of(scores), small_trace.unk_score(small_trace[k])
        assert sp_encode_line(words, scores, maxlen, unk) == reference(words, scores, maxlen, unk), k


def test_a_tie_and_a_long_line_fall_back_exactly(monkeypatch):
    """``▁+xx`` and ``▁+x+x`` tie exactly: never taken from the cache. ``▁h+ug`` beats ``▁h+u+g``
    by 2**-10 only: cached, but once the running score passes ~10^3 its margin no longer covers
    the rounding, and the word is cut by Viterbi from the running score. Both stay the line's cut."""
    scores = {MARK: -2.5, "h": -3.0, "u": -3.0, "g": -3.0, "hu": -6.0, "ug": f32(-6.0 + 2.0 ** -10),
              MARK + "h": -5.0, MARK + "hug": -12.0, "x": -3.0, "xx": -6.0}
    maxlen, unk = maxlen_of(scores), unk_of(scores)
    anew = []
    viterbi = sp_encoder._viterbi32
    monkeypatch.setattr(sp_encoder, "_viterbi32", lambda word, *a: anew.append(word) or viterbi(word, *a))
    clear_sp_encode_cache()
    words = [MARK + "hug", MARK + "xx"] * 3
    assert sp_encode_line(words, scores, maxlen, unk) == reference(words, scores, maxlen, unk)
    assert set(anew) == {MARK + "xx"}
    cached = sp_encoder._model(scores).words
    assert cached[MARK + "xx"][2] <= 0 < cached[MARK + "hug"][2] < 2000
    words = [MARK + "hug", MARK + "ugh", MARK + "xx", MARK + "q"] * 5000  # the running score reaches ~ -2 * 10^5
    anew.clear()
    assert sp_encode_line(words, scores, maxlen, unk) == reference(words, scores, maxlen, unk)
    assert anew.count(MARK + "hug") > 4000  # all but the first few, while the running score is small


def test_the_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(sp_encoder, "WORDS_KEPT", 50)
    monkeypatch.setattr(sp_encoder, "LONGEST_CACHED", 10)
    trace = docs_trace(1000)
    scores = trace.final.pieces
    maxlen, unk = maxlen_of(scores), trace.unk_score(trace.final)
    clear_sp_encode_cache()
    words = DOCS[:200000].split()
    line = [MARK + w for w in words]
    assert sp_encode_line(line, scores, maxlen, unk) == reference(line, scores, maxlen, unk)
    model = sp_encoder._model(scores)
    assert 0 < len(model.words) <= 50 and all(len(w) <= 10 for w in model.words)
    monkeypatch.setattr(sp_encoder, "CHARS_KEPT", 100)
    clear_sp_encode_cache()
    assert sp_encode_line(line, scores, maxlen, unk) == reference(line, scores, maxlen, unk)
    model = sp_encoder._model(scores)
    assert sum(map(len, model.words)) <= 100
    for _ in range(sp_encoder.MODELS_KEPT + 2):
        sp_encode_line(line[:5], dict(scores), maxlen, unk)
    assert len(sp_encoder._MODELS) <= sp_encoder.MODELS_KEPT
