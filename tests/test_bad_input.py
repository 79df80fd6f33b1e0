"""Bad input gets a clear error naming the argument; odd but valid input trains cleanly."""

from __future__ import annotations

from collections import Counter

import pytest

from bpe_viz import best_pair, from_symbol_dict, iter_bpe, train_bpe

from reference import reference_bpe

WORDS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


# -- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, exc",
    [
        (-1, ValueError),
        (-100, ValueError),
        (True, TypeError),
        (False, TypeError),
        (3.0, TypeError),
        (2.5, TypeError),
        ("3", TypeError),
        (None, TypeError),
    ],
)
def test_num_merges_checked(value, exc):
    with pytest.raises(exc, match="num_merges"):
        train_bpe(WORDS, value)
    with pytest.raises(exc, match="num_merges"):
        iter_bpe(WORDS, value)  # checked when called, not when first iterated


@pytest.mark.parametrize(
    "value, exc",
    [(0, ValueError), (-1, ValueError), (1.5, TypeError), ("2", TypeError), (True, TypeError), (None, TypeError)],
)
def test_min_frequency_checked(value, exc):
    with pytest.raises(exc, match="min_frequency"):
        train_bpe(WORDS, 3, min_frequency=value)


@pytest.mark.parametrize("preset", ["sennrich", "SLP3", "", 1, "subword_nmt"])
def test_unknown_preset(preset):
    with pytest.raises(ValueError, match="preset"):
        train_bpe(WORDS, 3, preset=preset)


@pytest.mark.parametrize("rule", ["last", "First", None, "", 0])
def test_unknown_tie_break(rule):
    with pytest.raises(ValueError, match="tie_break"):
        train_bpe(WORDS, 3, tie_break=rule)
    with pytest.raises(ValueError, match="tie_break"):
        best_pair({("a", "b"): 1}, rule)


@pytest.mark.parametrize(
    "corpus, exc",
    [
        ({"low": 0}, ValueError),
        ({"low": -2}, ValueError),
        ({"low": 2.0}, TypeError),
        ({"low": "5"}, TypeError),
        ({"low": True}, TypeError),
        ({"low": None}, TypeError),
    ],
)
def test_bad_counts(corpus, exc):
    with pytest.raises(exc, match="corpus") as info:
        train_bpe(corpus, 3)
    assert "low" in str(info.value)  # names the offending word


@pytest.mark.parametrize(
    "corpus",
    [["low", 3, "lower"], ["low", None], ["low", b"lower"], {"low": 1, 5: 2}, {("l", "o"): 1}],
    ids=["list-int", "list-none", "list-bytes", "mapping-int-key", "mapping-tuple-key"],
)
def test_words_must_be_strings(corpus):
    with pytest.raises(TypeError, match="corpus"):
        train_bpe(corpus, 3)


@pytest.mark.parametrize("corpus", [b"low lower", bytearray(b"low"), 42, 3.5, None])
def test_corpus_of_wrong_type(corpus):
    with pytest.raises(TypeError, match="corpus"):
        train_bpe(corpus, 3)


def test_bytes_corpus_suggests_decoding():
    with pytest.raises(TypeError, match="decode"):
        train_bpe(b"low lower", 3)


@pytest.mark.parametrize(
    "kwargs, exc, name",
    [
        (dict(end_of_word=""), ValueError, "end_of_word"),
        (dict(end_of_word="a b"), ValueError, "end_of_word"),
        (dict(end_of_word=5), ValueError, "end_of_word"),
        (dict(attach_end_of_word="yes"), TypeError, "attach_end_of_word"),
        (dict(byte_level=1), TypeError, "byte_level"),
        (dict(normalization="nfc"), ValueError, "normalization"),
    ],
)
def test_other_arguments_checked(kwargs, exc, name):
    with pytest.raises(exc, match=name):
        train_bpe(WORDS, 3, **kwargs)


def test_empty_word_in_list_rejected():
    with pytest.raises(ValueError, match="corpus"):
        train_bpe(["low", ""], 3)


def test_symbol_dict_errors():
    with pytest.raises(TypeError, match="vocab"):
        from_symbol_dict(["l o w </w>"])
    with pytest.raises(ValueError, match="vocab"):
        from_symbol_dict({"l o w </w>": 0})
    with pytest.raises(ValueError, match="disagree"):
        from_symbol_dict({"l o w </w>": 1, "l o w e r": 1})
    with pytest.raises(ValueError, match="twice"):
        from_symbol_dict({"l o w </w>": 1, "lo w </w>": 1})


def test_trace_index_errors():
    trace = train_bpe(WORDS, 2)
    with pytest.raises(IndexError, match="step"):
        trace[3]
    with pytest.raises(IndexError, match="step"):
        trace[-4]
    with pytest.raises(TypeError, match="step"):
        trace["1"]


# -- valid, empty-ish input ------------------------------------------------------------------


@pytest.mark.parametrize("corpus", ["", "   \n\t", [], {}])
def test_empty_corpus_is_a_zero_merge_trace(corpus):
    trace = train_bpe(corpus, 10)
    assert len(trace) == 1
    assert trace.merges == []
    assert trace.stop_reason == "no_pairs"
    assert trace[0].segmentation == {}
    assert trace[0].pair_counts == {}
    assert trace[0].ranked_pairs == []
    assert trace[0].vocab == ()


def test_nothing_to_pair():
    trace = train_bpe(["a", "b"], 10, end_of_word=None)
    assert trace.stop_reason == "no_pairs"
    assert len(trace) == 1
    assert trace[0].segmentation == {"a": ("a",), "b": ("b",)}
    # with a marker of its own there is a pair in each word
    trace = train_bpe(["a", "b", "a"], 10, min_frequency=1)
    assert [(m.pair, m.count) for m in trace.merges] == [(("a", "</w>"), 2), (("b", "</w>"), 1)]
    assert trace.stop_reason == "no_pairs"


def test_zero_merges_budget():
    trace = train_bpe(WORDS, 0)
    assert len(trace) == 1 and trace.merges == []
    assert trace.stop_reason == "num_merges"
    assert trace[0].ranked_pairs[0] == (("e", "s"), 9)  # what the first merge would take


@pytest.mark.parametrize("min_frequency, reason", [(1, "no_pairs"), (2, "min_frequency")])
def test_huge_budget_stops_cleanly(min_frequency, reason):
    text = "the quick brown fox jumps over the lazy dog the end"
    trace = train_bpe(text, 10**9, min_frequency=min_frequency)
    assert trace.stop_reason == reason
    ref = reference_bpe(text, 10**9, min_frequency=min_frequency)
    assert [(m.pair, m.count) for m in trace.merges] == ref.merges
    assert ref.stop_reason == reason


# -- words that look like markers, regexes, or are not ASCII ----------------------------------

TRICKY = [
    # (corpus, keyword arguments)
    (["a</w>b", "a</w>b", "ab", "b</w>"], dict()),
    (["a</w>b", "b</w>", "</w>", "ab"], dict(attach_end_of_word=True, tie_break="lexicographic")),
    (["snake_case", "snake_case", "case", "snake"], dict(preset="slp3")),
    (["x_", "x_", "x", "__"], dict(preset="slp3")),
    (["x_", "x_", "x", "__"], dict(end_of_word="_", attach_end_of_word=True)),
    (["a\\nb", "a\\nb", "\\n", "(a+)*", "(a+)*", "[x]", "[x]", "$^", "$^", ".*?", "\\1"], dict()),
    (["a\\nb", "(a+)*", "[x]", "$^", "a\\nb", "(a+)*"], dict(preset="subword-nmt")),
    (["e\u0301te\u0301", "e\u0301te\u0301", "été", "e\u0301"], dict()),
    (["🙂🙂", "🙂a🙂", "🙂🙂", "a🙂"], dict()),
    (["한국어", "한국", "한국어", "국어"], dict()),
    (["한국어", "한국", "한국어", "국어"], dict(byte_level=True)),
    (["🙂🙂", "🙂a🙂", "é</w>"], dict(byte_level=True, attach_end_of_word=True)),
    (["snake_case", "x_y_", "__"], dict(preset="slp3", byte_level=True)),
]


def _expected_join(word, trace):
    from bpe_viz.engine.text.alphabet import bytes_to_symbols

    c = trace.convention
    return (bytes_to_symbols(word) if c.byte_level else word) + (c.end_of_word or "")


@pytest.mark.parametrize("corpus, kwargs", TRICKY, ids=[repr(c[0]) + str(sorted(k.items())) for c, k in TRICKY])
def test_tricky_words_train_and_join_back(corpus, kwargs):
    trace = train_bpe(corpus, 50, min_frequency=1, **kwargs)
    assert trace.stop_reason == "no_pairs"  # min_frequency 1: merges until every word is one symbol
    for snap in trace:
        assert {w: "".join(s) for w, s in snap.segmentation.items()} == {
            w: _expected_join(w, trace) for w in dict.fromkeys(corpus)
        }
    # the marker never leaks out in its internal spelling
    for snap in (trace[0], trace[-1]):
        for syms in snap.segmentation.values():
            assert all(not any(0xE000 <= ord(ch) <= 0xF8FF for ch in s) for s in syms)
    for m in trace.merges:
        assert not any(0xE000 <= ord(ch) <= 0xF8FF for ch in m.token)
    conv = trace.convention
    ref = reference_bpe(
        corpus,
        50,
        end_of_word=conv.end_of_word,
        attach_end_of_word=conv.attach_end_of_word,
        tie_break=conv.tie_break,
        min_frequency=1,
        byte_level=conv.byte_level,
    )
    assert ref.ambiguous_at is None  # these cases are chosen to be well defined
    assert [(m.pair, m.count) for m in trace.merges] == ref.merges
    assert [s.segmentation for s in trace] == ref.segmentations


def test_literal_marker_text_is_not_the_marker():
    """With the marker "_" a literal underscore inside a word is a different symbol: "x_" is
    x, _, (marker), and merging the marker pair of "x" does not touch "x_"."""
    trace = train_bpe(["x", "x", "x_"], 1, preset="slp3", min_frequency=1)
    assert trace[0].segmentation == {"x": ("x", "_"), "x_": ("x", "_", "_")}
    assert trace.merges[0].count == 2  # (x, marker) occurs in "x" twice, not in "x_"
    assert trace[1].segmentation == {"x": ("x_",), "x_": ("x", "_", "_")}


def test_marker_text_pair_counts():
    """Regression (found by this suite, fixed in 19d2c80): in "snake_case" with the SLP3 marker
    "_" the pair ("e", "_") occurs twice (literal "e_" and "e" + marker). pair_counts is keyed by
    public spelling, so the two must add up (as a recount of the shown segmentation): the table
    sums to 10 for a word of 11 symbols, like ranked_pairs (which keeps the two apart)."""
    trace = train_bpe(["snake_case"], 3, preset="slp3", min_frequency=1)
    snap = trace[0]
    assert snap.segmentation["snake_case"] == ("s", "n", "a", "k", "e", "_", "c", "a", "s", "e", "_")
    assert sum(c for _, c in snap.ranked_pairs) == 10
    assert snap.pair_counts[("e", "_")] == 2
    assert sum(snap.pair_counts.values()) == 10


def test_marker_text_token_counts():
    """Regression (fixed in 19d2c80): the vocabulary of "snake_case" with the marker "_" lists
    "_" twice (literal and marker); token_counts, keyed by public spelling, adds them up to 2,
    as the segmentation shows "_" twice (it used to keep one count, 1)."""
    trace = train_bpe(["snake_case"], 3, preset="slp3", min_frequency=1)
    snap = trace[0]
    shown = Counter(snap.segmentation["snake_case"])
    assert shown["_"] == 2
    assert snap.token_counts["_"] == 2


def test_marker_text_token_to_id():
    """Regression (fixed in 19d2c80): token_to_id() used to map every "_" of a public token to
    the marker, so merged tokens holding a literal "_" before the end ("snake_", "snake_c", ...)
    got no id although id_to_token lists them."""
    trace = train_bpe(["snake_case"], 20, preset="slp3", min_frequency=1)
    tokens = [m.token for m in trace.merges]
    assert "snake_c" in tokens and "snake_c" in trace.id_to_token
    assert [trace.token_to_id(t) for t in tokens] == [trace.id_to_token.index(t) for t in tokens]


def test_regex_metacharacters_exact_merges():
    """Sennrich et al. (2016) Algorithm 1 builds a regex from the pair; a backslash or "(" in a
    word must not matter here. Hand-derived: in "a\\nb" x2 every pair has count 2 and the first
    met wins, so a+\\, then a\\+n, then a\\n+b; "(a+)*" occurs once and is left alone."""
    trace = train_bpe(["a\\nb", "a\\nb", "(a+)*"], 3, min_frequency=2)
    assert [(m.pair, m.count) for m in trace.merges] == [(("a", "\\"), 2), (("a\\", "n"), 2), (("a\\n", "b"), 2)]
    assert trace[3].segmentation == {"a\\nb": ("a\\nb", "</w>"), "(a+)*": ("(", "a", "+", ")", "*", "</w>")}


def test_marker_text_decode_round_trip():
    """Regression (fixed in 19d2c80): bpe_viz.engine.encoding.decode's docstring promises
    decode(encode(t, trace).ids, trace) == " ".join(t.split()) when every character was seen in
    training; with the marker "_" and the word "snake_case", decoding the ids used to spell the
    literal underscore of the merged token "snake_c" with the internal private-use character."""
    from bpe_viz import decode, encode

    trace = train_bpe(["snake_case", "x"], 6, preset="slp3", min_frequency=1)
    enc = encode("snake_case  x", trace)
    assert decode(enc, trace) == "snake_case x"
    assert decode(enc.ids, trace) == "snake_case x"
