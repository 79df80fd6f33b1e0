"""``sp_encode_lines`` (``engine/unigram/sp_encoder.py``): many lines at once, each distinct word
cut once, a line whose margins hold for any running score it can reach taken from the cuts
whole, the others word by word. It must give, line for line, what one 32-bit Viterbi over each
whole line gives (``reference`` of ``test_unigram_encode_cache``): on the docs at a few rounds, on
hypothesis-made batches of lines full of ties and near-ties, with a tiny ``LINE_WORDS`` and
``LONGEST_CACHED`` (so the unbounded and the uncached paths run), ``sp_encode_words`` (flat words
and line ends) against the lines, ``sp_encode_text`` (a whole text, what ``encode`` calls) on
made-up texts against the line Viterbi of each of their lines, ``sp_encode_word`` on a whole line
against it, and ``SentencePieceSpace``'s ``split_lines`` against its ``split``, its
``split_flat`` and ``flat_words`` against ``split_lines``.
"""

from __future__ import annotations

from itertools import accumulate

from hypothesis import given
from hypothesis import strategies as st

from bpe_viz.engine.text.pretokenize import SentencePieceSpace
from bpe_viz.engine.text.scripts import MARK
from bpe_viz.engine.unigram import sp_encoder
from bpe_viz.engine.unigram.sp_encoder import (clear_sp_encode_cache, sp_encode_lines, sp_encode_text, sp_encode_word,
                                               sp_encode_words)
from helpers import hypothesis_settings
from test_unigram_encode_cache import (DOCS, docs_lines_words, docs_trace, line_viterbi, lines, maxlen_of, models,
                                       reference, unk_of)


def test_docs_lines_at_once_as_the_line_viterbi():
    """Every docs line in one call at a few rounds (ties and near-ties included), cold and warm."""
    trace = docs_trace(4000)
    words = docs_lines_words(trace)
    for k in sorted({0, len(trace) // 2, len(trace) - 1}):
        scores = trace[k].pieces
        maxlen, unk = maxlen_of(scores), trace.unk_score(trace[k])
        want = [c for ws in words for c in reference(ws, scores, maxlen, unk)]
        clear_sp_encode_cache()
        for _ in range(2):
            got = sp_encode_lines(words, scores, maxlen, unk)
            bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
            assert len(got) == len(want) and not bad, f"round {k}: {len(bad)} words differ"


@hypothesis_settings(150)
@given(models(), st.lists(lines(), min_size=1, max_size=4), st.sampled_from([(8192, 128), (3, 128), (8192, 3)]))
def test_made_up_batches_as_the_line_viterbi(scores, batch, limits):
    """Lines of ties, near-ties and long runs in one call, with every path forced in turn."""
    maxlen, unk = maxlen_of(scores), unk_of(scores)
    batch = [*batch, [], batch[0]]  # an empty line, a line met again
    want = [c for ws in batch for c in reference(ws, scores, maxlen, unk)]
    old = sp_encoder.LINE_WORDS, sp_encoder.LONGEST_CACHED
    sp_encoder.LINE_WORDS, sp_encoder.LONGEST_CACHED = limits
    try:
        clear_sp_encode_cache()
        assert sp_encode_lines(batch, scores, maxlen, unk) == want
        assert sp_encode_lines(batch, scores, maxlen, unk) == want  # warm
    finally:
        sp_encoder.LINE_WORDS, sp_encoder.LONGEST_CACHED = old


def test_a_line_not_of_marked_words_is_cut_whole():
    """A first word without ``▁`` (or a piece holding an inner one) sends the line to one Viterbi."""
    scores = {MARK: -2.0, "a": -3.0, "b": -3.0, "▁ab": -4.0, "b▁a": -1.0}
    maxlen, unk = maxlen_of(scores), unk_of(scores)
    batch = [["ab", "▁ab"], ["▁b", "▁a"]]
    assert sp_encode_lines(batch, scores, maxlen, unk) == [c for ws in batch for c in reference(ws, scores, maxlen, unk)]
    del scores["b▁a"]
    assert sp_encode_lines(batch, dict(scores), maxlen, unk) == [("a", "b"), ("▁ab",), ("▁", "b"), ("▁", "a")]


@hypothesis_settings(200)
@given(st.text(" \n▁ab\u00a0\t", max_size=40))
def test_split_lines_is_split_by_line(text):
    sps = SentencePieceSpace()
    got, spans = sps.split_lines(text, MARK)
    assert len(got) == text.count("\n") + 1
    assert [text[a:b] for a, b in spans] == [w[1:] for ws in got for w in ws]
    for line, ws in zip(text.split("\n"), got):
        if MARK not in line:
            assert [w[1:] for w in ws] == [x for x in line.split(" ") if x]
    assert [[w for w, _ in sps.split(line)] for line in text.split("\n")] == [[w[1:] for w in ws] for ws in got]


def test_docs_split_lines():
    lines_, spans = SentencePieceSpace().split_lines(DOCS)
    assert [(w, s) for w, s in zip((w for ws in lines_ for w in ws), spans)] == SentencePieceSpace().split(DOCS)
    assert [DOCS[a:b] for a, b in spans] == [w for ws in lines_ for w in ws]


@hypothesis_settings(200)
@given(st.text(" \n▁ab\u00a0\t", max_size=40), st.sampled_from([MARK, ""]))
def test_split_flat_is_split_lines_flat(text, prefix):
    """Words, starts and line ends as ``split_lines`` gives them, marked text or not."""
    lines_, spans = SentencePieceSpace().split_lines(text, prefix)
    ends = list(accumulate(map(len, lines_)))
    assert SentencePieceSpace().split_flat(text, prefix) == ([w for ws in lines_ for w in ws], [a for a, _ in spans], ends)


def test_docs_split_flat_and_encoding_spans():
    """The docs split flat as by line; an encoding's spans, made when read, are the split's."""
    sps = SentencePieceSpace()
    lines_, spans = sps.split_lines(DOCS, MARK)
    words, starts, ends = sps.split_flat(DOCS, MARK)
    assert words == [w for ws in lines_ for w in ws] and starts == [a for a, _ in spans]
    assert ends == list(accumulate(map(len, lines_)))
    trace = docs_trace(4000)
    e = trace.encode(DOCS)
    assert e.words == words and e.word_spans == spans
    assert [DOCS[a:b] for a, b in e.offsets] == [p.lstrip(MARK) if i == 0 or e.word_ids[i - 1] != e.word_ids[i] else p
                                                 for i, p in enumerate(e.pieces)]


def test_words_and_line_ends_as_lines():
    """``sp_encode_words`` over flat words and line ends is ``sp_encode_lines`` over the lines."""
    trace = docs_trace(4000)
    scores = trace.final.pieces
    maxlen, unk = maxlen_of(scores), trace.unk_score(trace.final)
    batch = docs_lines_words(trace)[:400]
    flat, ends = [w for ws in batch for w in ws], list(accumulate(map(len, batch)))
    clear_sp_encode_cache()
    assert sp_encode_words(flat, ends, scores, maxlen, unk) == [c for ws in batch for c in reference(ws, scores, maxlen, unk)]


def text_reference(text, scores, maxlen, unk) -> list[tuple]:
    """Each word's pieces, the lines one after another, by the line Viterbi of each line."""
    return [c for ws in SentencePieceSpace().split_lines(text, MARK)[0] for c in reference(ws, scores, maxlen, unk)]


@hypothesis_settings(150)
@given(models(), st.lists(lines(), min_size=1, max_size=4), st.sampled_from([" ", "  ", " \u00a0", "▁", " ▁"]),
       st.sampled_from([(8192, 128), (3, 128), (8192, 3)]))
def test_made_up_texts_as_the_line_viterbi(scores, batch, space, limits):
    """A whole text in one call (lines of ties, near-ties, typed ``▁`` and long runs, a blank line,
    a line met again), with every path forced in turn: each line as its own Viterbi cuts it."""
    maxlen, unk = maxlen_of(scores), unk_of(scores)
    text = "\n".join([space.join(w[1:] for w in ws) for ws in batch] + ["  ", " " + " ".join(w[1:] for w in batch[0])])
    want = text_reference(text, scores, maxlen, unk)
    old = sp_encoder.LINE_WORDS, sp_encoder.LONGEST_CACHED
    sp_encoder.LINE_WORDS, sp_encoder.LONGEST_CACHED = limits
    try:
        clear_sp_encode_cache()
        for _ in range(2):  # cold, warm
            tokens, cuts = sp_encode_text(text, scores, maxlen, unk)
            assert tokens == SentencePieceSpace().flat_words(text)
            assert [c for t, c in zip(tokens, cuts) if t == "\n"] == [()] * text.count("\n")
            assert [c for t, c in zip(tokens, cuts) if t != "\n"] == want
    finally:
        sp_encoder.LINE_WORDS, sp_encoder.LONGEST_CACHED = old


@hypothesis_settings(150)
@given(models(), lines())
def test_a_whole_line_as_the_line_viterbi(scores, words):
    """``sp_encode_word`` on a whole line (its Viterbi reads the pieces backwards): the reference's
    pieces exactly."""
    maxlen, unk = maxlen_of(scores), unk_of(scores)
    line = "".join(words)
    assert list(sp_encode_word(line, scores, maxlen, unk)) == line_viterbi(line, scores, maxlen, unk)


def test_docs_text_at_once_as_the_line_viterbi():
    """The docs in one ``sp_encode_text`` call at the last round: each line as its Viterbi cuts it."""
    trace = docs_trace(4000)
    scores = trace.final.pieces
    maxlen, unk = maxlen_of(scores), trace.unk_score(trace.final)
    want = [c for ws in docs_lines_words(trace) for c in reference(ws, scores, maxlen, unk)]
    clear_sp_encode_cache()
    tokens, cuts = sp_encode_text(DOCS, scores, maxlen, unk)
    assert [c for t, c in zip(tokens, cuts) if t != "\n"] == want


@hypothesis_settings(200)
@given(st.text(" \n▁ab\u00a0\t", max_size=40))
def test_flat_words_are_split_lines_flat(text):
    """Each line's words without prefix, a ``"\\n"`` between lines, marked text or not."""
    lines_ = SentencePieceSpace().split_lines(text)[0]
    want = [w for ws in lines_ for w in [*ws, "\n"]][:-1]
    assert SentencePieceSpace().flat_words(text) == want
