"""Hostile input to the engine (issue 19): every call either works or says, in a ValueError or
TypeError, which argument is wrong and what was expected.

Three kinds of checks: SentencePiece-Unigram on corpora sentencepiece 0.2.3 refuses or skips,
and word counts as weights (a count of 10**9 trains in a second, compared with sentencepiece
on the expanded text at counts it can take); counts beyond 64 bits (BPE, WordPiece, Unigram),
checked against the same corpus at small counts; small API calls with arguments of the wrong
kind or out of range.
"""

from __future__ import annotations

import io
import time
import tracemalloc
from fractions import Fraction

import pytest

import bpe_viz
from bpe_viz import decode, encode, encode_word, train_bpe, train_unigram, train_wordpiece
from bpe_viz.engine.text.pretokenize import PreTokenizer
from bpe_viz.engine.unigram import UnigramSnapshot, UnigramTrace

from helpers import HF_COURSE, SENNRICH

SLP3 = "low " * 5 + "lowest " * 2 + "newer " * 6 + "wider " * 3 + "new " * 2


def _spm():
    return pytest.importorskip("sentencepiece", reason="sentencepiece is not installed (pip install bpe-viz[test])")


def sp_train(lines, **kw):
    """sentencepiece 0.2.3's Unigram trainer on ``lines`` (identity normalization), as a processor."""
    spm = _spm()
    m = io.BytesIO()
    args = dict(model_type="unigram", normalization_rule_name="identity", minloglevel=3)
    args.update(kw)
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=m, **args)
    return spm.SentencePieceProcessor(model_proto=m.getvalue())


def expanded(counts: dict) -> list[str]:
    """A mapping word -> count as the lines it stands for: each word on a line, ``count`` times."""
    return [w for w, n in counts.items() for _ in range(n)]


# -- 4: SentencePiece-Unigram on corpora sentencepiece cannot train on ---------------------------

@pytest.mark.parametrize("corpus, why", [
    ("", "empty"),
    ("\n \n  \n", "only blank lines"),
    ("a" * 100_000, "one line over 4,192 bytes"),
    ("ab \u2585 cd\nx\u2585", "every line holds U+2585"),
    ({"a" * 5000: 3, "b" * 4200: 2}, "every word over 4,192 bytes"),
], ids=["empty", "blank-lines", "long-line", "U+2585", "long-words"])
def test_sentencepiece_unigram_refuses_a_corpus_with_no_sentence(corpus, why):
    """sentencepiece refuses such a corpus at training (no sentence is left once it skips empty,
    over-long and ``▅`` lines); so does train_unigram, with a ValueError naming ``corpus``,
    never an empty tokenizer whose encode fails with a TypeError."""
    lines = expanded(corpus) if isinstance(corpus, dict) else corpus.split("\n")
    with pytest.raises(RuntimeError, match=r"sentences_\.empty\(\)|all_chars_count\) > \(0\)"):
        sp_train(lines, vocab_size=20)
    with pytest.raises(ValueError, match=r"^corpus: .*no sentence") as err:
        train_unigram(corpus, 20, flavour="sentencepiece")
    assert "4,192 bytes" in str(err.value) and "U+2585" in str(err.value), why


def test_sentencepiece_unigram_meta_pieces_alone_are_refused():
    """A corpus of ``<unk>`` alone: sentencepiece refuses vocab_size=20 too; train_unigram says
    the corpus has no sentence (it reads ``<unk>``, ``<s>`` and ``</s>`` as spaces)."""
    with pytest.raises(RuntimeError, match="Vocabulary size too high"):
        sp_train(["<unk>"], vocab_size=20)
    with pytest.raises(ValueError, match=r"^corpus: .*<unk>"):
        train_unigram("<unk>", 20, flavour="sentencepiece")
    with pytest.raises(ValueError, match=r"^corpus: "):
        train_unigram({"<s>": 3, "</s>": 1}, 20, flavour="sentencepiece")


def test_unigram_with_no_pieces_encodes_everything_as_unknown():
    """A sentencepiece-flavour trace with no pieces (built by hand) encodes every word as one
    unknown piece, id 0, instead of failing inside Viterbi."""
    empty = UnigramTrace("sentencepiece", {}, [UnigramSnapshot(0, {}, 0.0)], vocab_size=3, stop_reason="given",
                         options={})
    e = encode("abc de", empty)
    assert e.ids == [0, 0] and e.pieces == ["▁abc", "▁de"]


# -- 5: a word count is a weight ---------------------------------------------------------------

WEIGHTED = [  # (word counts, the vocab sizes sentencepiece accepts for them)
    ({"low": 5, "lower": 2, "newest": 6, "widest": 3}, range(14, 18)),
    ({"ab": 3, " ": 2, "b a": 2, "ba": 1, "abab": 4}, range(6, 11)),  # " " is no sentence: the last line moves
    ({"  ": 1, "ab": 2, "x\u2585": 3, "ba": 2, "aab": 1, " ": 1}, range(6, 9)),
    ({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, range(11, 15)),
    # sentencepiece 0.2.3 reads <unk> in its input its own way (see the report of issue 19): here
    # the mapping is only compared with its lines
    ({"<unk>": 2, "ab <s> b": 2, "ab": 3, "</s>": 1}, None),
]


def assert_same_as_sentencepiece(trace, sp, tol=1e-4):
    """The same pieces and scores; the same ids but where two scores are within ``tol``."""
    theirs = [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
    assert sorted(trace.id_to_token) == sorted(theirs)
    score = {p: sp.get_score(i) for i, p in enumerate(theirs)}
    for p, s in trace.final.pieces.items():
        assert abs(s - score[p]) <= tol, p
    for a, b in zip(trace.id_to_token, theirs):
        assert a == b or abs(score[a] - score[b]) <= tol, (a, b)


@pytest.mark.parametrize("counts, sizes", WEIGHTED)
def test_sentencepiece_unigram_counts_equal_their_lines(counts, sizes):
    """A mapping trains exactly as its lines written out, round for round (pieces, scores,
    losses, removals), and as sentencepiece on those lines, at every vocab_size it accepts."""
    lines = expanded(counts)
    for vs in sizes or range(6, 8):
        by_count = train_unigram(counts, vs, flavour="sentencepiece")
        by_line = train_unigram("\n".join(lines), vs, flavour="sentencepiece")
        assert len(by_count) == len(by_line)
        for a, b in zip(by_count, by_line):
            assert (a.pieces, a.loss, a.removed, a.removal_losses) == (b.pieces, b.loss, b.removed, b.removal_losses)
        assert by_count.word_counts == by_line.word_counts
        if sizes is not None:
            assert_same_as_sentencepiece(by_count, sp_train(lines, vocab_size=vs))
    if sizes is None:
        return
    with pytest.raises(ValueError, match=rf"at most {sizes[-1]}\b"):
        train_unigram(counts, sizes[-1] + 1, flavour="sentencepiece")


def test_sentencepiece_unigram_moderate_counts_match_sentencepiece():
    """Counts in the tens of thousands: the same vocabulary and scores as sentencepiece trained
    on the 52,007 lines they stand for."""
    counts = {"ab": 40_000, "abc": 12_000, "b": 7}
    assert_same_as_sentencepiece(train_unigram(counts, 7, flavour="sentencepiece"),
                                 sp_train(expanded(counts), vocab_size=7))


def test_sentencepiece_unigram_huge_count_is_a_weight():
    """``{"ab": 10**9}`` would be a billion lines (about 100 GB as strings): as a weight it
    trains in well under 2 s and a few MB."""
    counts = {"ab": 10**9, "abc": 3 * 10**8, "b": 7}
    t0 = time.perf_counter()
    trace = train_unigram(counts, 8, flavour="sentencepiece")
    assert time.perf_counter() - t0 < 2.0
    assert trace.word_counts == {"▁ab": 10**9, "▁abc": 3 * 10**8, "▁b": 7}
    assert trace.id_to_token == ["<unk>", "<s>", "</s>", "▁ab", "c", "▁", "a", "b"]
    assert encode("ab abc", trace).pieces == ["▁ab", "▁ab", "c"]
    tracemalloc.start()
    try:
        train_unigram({"ab": 4_000_000}, 7, flavour="sentencepiece")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20, peak


# -- 9: counts beyond 64 bits ------------------------------------------------------------------

BIG = 2**64 + 3  # a factor no 64-bit count survives


def test_train_bpe_counts_beyond_64_bits():
    """BPE merges by count, so multiplying every count by one number changes no merge: the
    trace at 2**64 times the counts is the small one with its counts scaled, step for step."""
    t = train_bpe({"ab": 2**63}, 3)
    assert [(m.token, m.count) for m in t.merges] == [("ab", 2**63), ("ab</w>", 2**63)]
    assert t[0].pair_counts[("a", "b")] == 2**63 and t[2].token_counts["ab</w>"] == 2**63
    small = train_bpe(SENNRICH, 10)
    big = train_bpe({w: c * BIG for w, c in SENNRICH.items()}, 10)
    assert [(m.pair, m.count * BIG) for m in small.merges] == [(m.pair, m.count) for m in big.merges]
    for k in (0, 4, 10):
        assert big[k].segmentation == small[k].segmentation
        assert big[k].pair_counts == {p: c * BIG for p, c in small[k].pair_counts.items()}
        assert big[k].token_counts == {p: c * BIG for p, c in small[k].token_counts.items()}
    assert encode("lowest", big).tokens == encode("lowest", small).tokens


def test_train_wordpiece_counts_beyond_64_bits():
    """WordPiece's score count(ab) / (count(a)·count(b)) scales by 1/k when every count does:
    the same merges, scores divided by the factor."""
    t = train_wordpiece({"ab": 2**63}, 3)
    assert t.merges[0].pair == ("a", "##b") and t.merges[0].score == Fraction(1, 2**63)
    small = train_wordpiece(HF_COURSE, 8)
    big = train_wordpiece({w: c * BIG for w, c in HF_COURSE.items()}, 8)
    assert [(m.pair, m.score) for m in small.merges] == [(m.pair, m.score * BIG) for m in big.merges]
    assert big[8].segmentation == small[8].segmentation
    assert big[5].token_counts == {p: c * BIG for p, c in small[5].token_counts.items()}


@pytest.mark.parametrize("flavour", ["hf-course", "sentencepiece"])
def test_train_unigram_counts_beyond_64_bits(flavour):
    """Unigram's counts are Python ints (its probabilities floats): counts of 2**63 and more
    train, and the text comes back; hf-course's probabilities are frequencies, so scaling every
    count changes no piece."""
    words = {"ab": 2, "abc": 4, "b": 1}
    if flavour == "hf-course":
        words = {"\u2581" + w: c for w, c in words.items()}  # hf-course takes the words as Metaspace made them
    small = train_unigram(words, 7, flavour=flavour)
    big = train_unigram({w: c * 2**62 for w, c in words.items()}, 7, flavour=flavour)
    e = encode("ab abc b", big)
    assert 0 not in e.ids and decode(e.ids, big) == "ab abc b"
    if flavour == "hf-course":
        assert big.id_to_token == small.id_to_token and e.tokens == encode("ab abc b", small).tokens


# -- 11: small API calls -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def bpe14():
    t = train_bpe(SLP3, 13)
    assert len(t) == 14
    return t


@pytest.mark.parametrize("token_id, exc", [(-1, ValueError), (10**9, ValueError), ("x", TypeError),
                                          (True, TypeError), (2.0, TypeError)])
def test_made_at_of_id_checks_the_id(bpe14, token_id, exc):
    with pytest.raises(exc, match=r"^token_id must be .*got"):
        bpe14.made_at_of_id(token_id)
    assert bpe14.made_at_of_id(len(bpe14.id_to_token) - 1) == 13  # the last id: the last merge


@pytest.mark.parametrize("made_at, exc", [(-1, ValueError), (99, ValueError), ("1", TypeError)])
def test_token_to_id_checks_made_at(bpe14, made_at, exc):
    with pytest.raises(exc, match=r"^made_at must be"):
        bpe14.token_to_id("low", made_at)


def test_negative_steps_count_from_the_end_and_errors_say_the_step_given(bpe14):
    """Negative steps count from the end, as Python's sequences do; out of range, the message
    says the step the user gave, not a converted one."""
    assert bpe14[-1].step == 13 and bpe14[-14].step == 0
    with pytest.raises(IndexError, match=r"^step -15 is out of range: .*0\.\.13.*-14\.\.-1"):
        bpe14[-15]
    with pytest.raises(IndexError, match=r"^step 14 is out of range"):
        bpe14[14]


@pytest.mark.parametrize("prefix, exc", [(None, ValueError), (3, ValueError), ("", ValueError)])
def test_wordpiece_prefix_checked(prefix, exc):
    with pytest.raises(exc, match=r"^prefix must be a non-empty str"):
        train_wordpiece(SLP3, 3, prefix=prefix)


@pytest.mark.parametrize("vocabulary", [{"a": "b"}, {"low": None}, {"low": True}])
def test_vocabulary_counts_checked(vocabulary):
    t = train_bpe(SLP3, 10, preset="subword-nmt")
    with pytest.raises(TypeError, match=r"^vocabulary: the count of '\w+' must be a number"):
        encode("low", t, vocabulary=vocabulary, vocabulary_threshold=1)


@pytest.mark.parametrize("train", [train_bpe, train_wordpiece, bpe_viz.iter_bpe, bpe_viz.iter_wordpiece])
def test_callback_must_be_callable(train):
    if train in (bpe_viz.iter_bpe, bpe_viz.iter_wordpiece):
        with pytest.raises(TypeError, match=r"^callback must be a function"):
            train(SLP3, 3).run(5)
        return
    with pytest.raises(TypeError, match=r"^callback must be a function .*got int"):
        train(SLP3, 3, callback=5)


class Five(PreTokenizer):
    """A pre-tokenizer object that returns the wrong kind of thing."""

    name = "five"

    def split(self, text):
        return 5

    def words(self, text):
        return 5

    def join(self, pieces):
        return " ".join(pieces)


class NotStr(Five):
    name = "not-str"

    def split(self, text):
        return [(1, (0, 1))]

    def words(self, text):
        return ["low", 2]


@pytest.mark.parametrize("pretok", [Five(), NotStr()])
@pytest.mark.parametrize("call", ["train_bpe", "train_wordpiece", "encode", "encode_word"])
def test_pre_tokenizer_results_checked(pretok, call):
    with pytest.raises(TypeError, match=r"^pre_tokenizer: <pre-tokenizer [\w-]+>\.\w+\(text\) must return a list of"):
        if call == "train_bpe":
            train_bpe(SLP3, 3, pre_tokenizer=pretok)
        elif call == "train_wordpiece":
            train_wordpiece(SLP3, 3, pre_tokenizer=pretok)
        else:
            t = train_bpe({"low": 3, "lowest": 2}, 3, pre_tokenizer=pretok)
            (encode("low lowest", t) if call == "encode" else encode_word("low", t))


@pytest.mark.parametrize("pair, exc, match", [
    (("x", "y"), ValueError, r"^pair: 'x' is not a token at step 3"),
    (("l", "##zz"), ValueError, r"^pair: '##zz' is not a token at step 3"),
    (("low", "##e"), ValueError, r"^pair: 'low' is not a token at step 3"),  # made later
    ("lo", TypeError, r"^pair must be a tuple of two str tokens"),
    (("l", "##o", "##w"), TypeError, r"^pair must be a tuple of two str tokens"),
])
def test_rank_value_checks_the_pair(pair, exc, match):
    t = train_wordpiece(SLP3, 6)
    assert "low" in [m.token for m in t.merges[3:]]
    with pytest.raises(exc, match=match):
        t[3].rank_value(pair, 3)
    with pytest.raises(TypeError, match=r"^count must be an int"):
        t[3].rank_value(("l", "##o"), "3")
    assert t[3].rank_value(("l", "##o"), 7) == Fraction(7, 7 * 7)


@pytest.mark.parametrize("byte_level", [True, False])
def test_initial_symbols_checks_the_word(byte_level):
    t = train_bpe(SLP3, 5, byte_level=byte_level)
    with pytest.raises(TypeError, match=r"^word must be a str, got int 5"):
        t.initial_symbols(5)
    assert t.initial_symbols("low")[0] == "l"


@pytest.mark.parametrize("ids", [None, 5, 2.5, b"\x01"])
def test_unigram_decode_checks_the_ids(ids):
    for flavour in ("hf-course", "sentencepiece"):
        t = train_unigram(SLP3, 14, flavour=flavour)
        with pytest.raises(TypeError, match=r"^ids must be a list of int token ids or an encoding"):
            decode(ids, t)
