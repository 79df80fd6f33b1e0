"""Golden tests: exact reproductions of published BPE examples.

Each test's docstring names where its expected values come from.
"""

from __future__ import annotations

import pytest

from bpe_viz import Convention, best_pair, from_symbol_dict, iter_bpe, merge_symbols, train_bpe

from reference import reference_bpe

# -- (a) Sennrich, Haddow & Birch 2016 ------------------------------------------------------

SENNRICH_WORDS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
SENNRICH_SYMBOL_DICT = {"l o w </w>": 5, "l o w e r </w>": 2, "n e w e s t </w>": 6, "w i d e s t </w>": 3}
SENNRICH_MERGES = [
    (("e", "s"), 9),
    (("es", "t"), 9),
    (("est", "</w>"), 9),
    (("l", "o"), 7),
    (("lo", "w"), 7),
    (("n", "e"), 6),
    (("ne", "w"), 6),
    (("new", "est</w>"), 6),
    (("low", "</w>"), 5),
    (("w", "i"), 3),
]
SENNRICH_FINAL_PAIRS = {
    ("low", "e"): 2,
    ("e", "r"): 2,
    ("r", "</w>"): 2,
    ("wi", "d"): 3,
    ("d", "est</w>"): 3,
}
SENNRICH_FINAL_SEGMENTATION = {
    "low": ("low</w>",),
    "lower": ("low", "e", "r", "</w>"),
    "newest": ("newest</w>",),
    "widest": ("wi", "d", "est</w>"),
}


def _merges(trace):
    return [(m.pair, m.count) for m in trace.merges]


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: train_bpe(SENNRICH_WORDS, 10), id="defaults"),
        pytest.param(lambda: train_bpe(SENNRICH_WORDS, 10, preset="sennrich2016"), id="preset"),
        pytest.param(lambda: train_bpe(from_symbol_dict(SENNRICH_SYMBOL_DICT), 10), id="symbol-dict"),
        pytest.param(
            lambda: train_bpe(
                "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3,
                10,
                end_of_word="</w>",
                attach_end_of_word=False,
                tie_break="first",
            ),
            id="raw-text",
        ),
    ],
)
def test_sennrich2016_toy_dictionary(make):
    """Sennrich, Haddow & Birch (2016), "Neural Machine Translation of Rare Words with Subword
    Units", ACL, Algorithm 1 (arXiv:1508.07909): vocab {'l o w </w>': 5, 'l o w e r </w>': 2,
    'n e w e s t </w>': 6, 'w i d e s t </w>': 3}, num_merges = 10. The merges are what the
    paper's Python prints under Python >= 3.7 (dicts keep insertion order, so max() returns the
    first pair met among equal counts); the counts and the final pair table are recounted by hand
    from the dictionary."""
    trace = make()
    assert _merges(trace) == SENNRICH_MERGES
    assert [m.token for m in trace.merges] == [a + b for (a, b), _ in SENNRICH_MERGES]
    assert [m.step for m in trace.merges] == list(range(1, 11))
    assert trace[-1].pair_counts == SENNRICH_FINAL_PAIRS
    assert trace[10].segmentation == SENNRICH_FINAL_SEGMENTATION
    assert trace.stop_reason == "num_merges"
    assert len(trace) == 11


def test_sennrich2016_intermediate_state():
    """Sennrich et al. (2016), Algorithm 1 on the toy dictionary: after 'e s' and 'es t' the
    word newest is 'n e w est </w>' (hand-derived); step 0 has every word split into characters
    plus '</w>', and the first merge tied with ('s','t') and ('t','</w>') at 9 (newest 6 +
    widest 3), met in that order in 'n e w e s t </w>'."""
    trace = train_bpe(SENNRICH_WORDS, 10)
    assert trace[0].segmentation == {
        "low": ("l", "o", "w", "</w>"),
        "lower": ("l", "o", "w", "e", "r", "</w>"),
        "newest": ("n", "e", "w", "e", "s", "t", "</w>"),
        "widest": ("w", "i", "d", "e", "s", "t", "</w>"),
    }
    assert trace[2].segmentation["newest"] == ("n", "e", "w", "est", "</w>")
    assert trace[-9].segmentation["newest"] == ("n", "e", "w", "est", "</w>")  # -9 == step 2
    assert trace.merges[0].tied == (("s", "t"), ("t", "</w>"))
    # the pairs of count 3 before merge 10 are (w,i), (i,d), (d,est</w>): the first met wins
    assert trace[9].ranked_pairs[:3] == [(("w", "i"), 3), (("i", "d"), 3), (("d", "est</w>"), 3)]
    assert trace[0].word_counts == SENNRICH_WORDS
    assert trace[0].merge is None
    assert trace[0].next_merge == trace.merges[0]
    assert trace[10].next_merge is None


def test_sennrich2016_tied_at_last_merge():
    """Sennrich et al. (2016) toy dictionary: before merge 10 the top count is 3, shared by
    ('w','i'), ('i','d') and ('d','est</w>') (all from widest x3); hand-derived."""
    trace = train_bpe(SENNRICH_WORDS, 10)
    assert trace.merges[9].tied == (("i", "d"), ("d", "est</w>"))


def test_sennrich2016_convention_and_vocab():
    """Sennrich et al. (2016), section 3.2: '</w>' is a symbol of its own; the vocabulary is the
    characters plus one new symbol per merge (hand-derived from the toy dictionary)."""
    trace = train_bpe(SENNRICH_WORDS, 10, preset="sennrich2016")
    text = trace.convention.describe()
    assert '"</w>"' in text and "own symbol" in text
    assert "first pair met" in text
    assert trace.convention.tie_break == "first"
    assert trace.convention.end_of_word == "</w>" and trace.convention.attach_end_of_word is False
    assert [e.token for e in trace[0].vocab] == ["l", "o", "w", "</w>", "e", "r", "n", "s", "t", "i", "d"]
    assert [e.token for e in trace[10].vocab][11:] == [a + b for (a, b), _ in SENNRICH_MERGES]
    assert [e.made_at for e in trace[10].vocab] == [0] * 11 + list(range(1, 11))
    # counts at step 10: low</w> x5, low x2, e x2 ...
    tc = trace[10].token_counts
    assert tc["low</w>"] == 5 and tc["low"] == 2 and tc["newest</w>"] == 6 and tc["wi"] == 3
    assert tc["es"] == 0 and tc["l"] == 0
    assert trace[10].vocab[0].occurs is False  # "l" is merged away everywhere


def test_sennrich2016_matches_reference():
    """Sennrich et al. (2016) toy dictionary: the literal reference trainer (tests/reference.py)
    reproduces the same merges, segmentations and pair tables at every step."""
    trace = train_bpe(SENNRICH_WORDS, 10)
    ref = reference_bpe(SENNRICH_WORDS, 10)
    assert ref.merges == SENNRICH_MERGES
    assert [s.segmentation for s in trace] == ref.segmentations
    assert [s.pair_counts for s in trace] == ref.pair_tables


# -- (b) subword-nmt >= 0.2 convention --------------------------------------------------------


def test_subword_nmt_convention_four_words():
    """subword-nmt 0.3.8 learn_bpe (marker glued as 'x</w>', ties: max(stats, key=lambda x:
    (stats[x], x))) on the line 'low lower newest widest' with --min-frequency 1 writes the codes
    'w e', 's t</w>', 'l o', 'we st</w>', 'we r</w>', 'w i', 'wi d', 'wid e', 'wide st</w>',
    'n e' (output of running it; tests/test_subword_nmt.py re-runs it)."""
    trace = train_bpe(
        ["low", "lower", "newest", "widest"],
        10,
        attach_end_of_word=True,
        tie_break="lexicographic",
        min_frequency=1,
    )
    assert [m.pair for m in trace.merges][:3] == [("w", "e"), ("s", "t</w>"), ("l", "o")]
    assert [m.pair for m in trace.merges] == [
        ("w", "e"), ("s", "t</w>"), ("l", "o"), ("we", "st</w>"), ("we", "r</w>"),
        ("w", "i"), ("wi", "d"), ("wid", "e"), ("wide", "st</w>"), ("n", "e"),
    ]
    assert [m.count for m in trace.merges][:3] == [2, 2, 2]
    assert trace[0].segmentation["low"] == ("l", "o", "w</w>")
    assert trace.stop_reason == "num_merges"
    text = trace.convention.describe()
    assert '"</w>"' in text and "glued" in text and "code points" in text


def test_subword_nmt_convention_runs_out_of_pairs():
    """Same four words as above (subword-nmt convention, min_frequency 1): with a budget far
    above what is possible, merging goes on until every word is one symbol (the 13 codes
    subword-nmt 0.3.8 writes for this input with -s 100 --min-frequency 1), then stops because
    nothing is left to pair."""
    trace = train_bpe(
        ["low", "lower", "newest", "widest"],
        100,
        attach_end_of_word=True,
        tie_break="lexicographic",
        min_frequency=1,
    )
    assert trace.stop_reason == "no_pairs"
    assert trace[-1].segmentation == {
        "low": ("low</w>",),
        "lower": ("lower</w>",),
        "newest": ("newest</w>",),
        "widest": ("widest</w>",),
    }
    assert trace[-1].pair_counts == {}
    assert trace[-1].ranked_pairs == []
    ref = reference_bpe(
        ["low", "lower", "newest", "widest"], 100, attach_end_of_word=True, tie_break="lexicographic", min_frequency=1
    )
    assert _merges(trace) == ref.merges
    assert len(trace.merges) == 13
    assert ref.stop_reason == "no_pairs"


def test_best_pair_tie_rules():
    """subword-nmt learn_bpe: max(stats, key=lambda x: (stats[x], x)) picks the greatest pair
    among equal counts; Sennrich et al. (2016) Algorithm 1's max(pairs, key=pairs.get) the first
    inserted. Values hand-derived."""
    table = {("e", "s"): 9, ("s", "t"): 9, ("t", "</w>"): 9, ("l", "o"): 7}
    assert best_pair(table, "first") == (("e", "s"), (("s", "t"), ("t", "</w>")))
    assert best_pair(table, "lexicographic") == (("t", "</w>"), (("s", "t"), ("e", "s")))
    # code points: "Z" (90) < "a" (97) < "é" (233)
    assert best_pair({("a", "b"): 1, ("é", "a"): 1, ("Z", "z"): 1}, "lexicographic")[0] == ("é", "a")
    # first with an explicit order
    assert best_pair(table, "first", order={("e", "s"): 2, ("s", "t"): 0, ("t", "</w>"): 1, ("l", "o"): 3})[0] == ("s", "t")
    assert best_pair({}, "first") == (None, ())
    assert best_pair({("l", "o"): 7, ("e", "s"): 9}, "first") == (("e", "s"), ())


# -- (c) Jurafsky & Martin, SLP3 -------------------------------------------------------------

SLP3_CORPUS = (
    "low low low low low lowest lowest newer newer newer newer newer newer "
    "wider wider wider new new"
)


def test_slp3_example():
    """Jurafsky & Martin, Speech and Language Processing (3rd ed. draft), section 2.5.2
    "Byte-Pair Encoding": corpus 5 low, 2 lowest, 6 newer, 3 wider, 2 new with '_' as the
    end-of-word symbol; the book lists the merges e r, er _, n e, ne w, l o, lo w, new er_,
    low _ and the final vocabulary _, d, e, i, l, n, o, r, s, t, w, er, er_, ne, new, lo, low,
    newer_, low_. Counts hand-derived (er: newer 6 + wider 3 = 9, ne: newer 6 + new 2 = 8, ...)."""
    trace = train_bpe(SLP3_CORPUS, 8, preset="slp3")
    assert _merges(trace) == [
        (("e", "r"), 9),
        (("er", "_"), 9),
        (("n", "e"), 8),
        (("ne", "w"), 8),
        (("l", "o"), 7),
        (("lo", "w"), 7),
        (("new", "er_"), 6),
        (("low", "_"), 5),
    ]
    vocab = [e.token for e in trace[-1].vocab]
    assert sorted(vocab[:11]) == sorted(["_", "d", "e", "i", "l", "n", "o", "r", "s", "t", "w"])
    assert vocab[11:] == ["er", "er_", "ne", "new", "lo", "low", "newer_", "low_"]
    assert trace[-1].segmentation == {
        "low": ("low_",),
        "lowest": ("low", "e", "s", "t", "_"),
        "newer": ("newer_",),
        "wider": ("w", "i", "d", "er_"),
        "new": ("new", "_"),
    }
    assert trace.stop_reason == "num_merges"
    assert trace.convention.end_of_word == "_"
    assert '"_"' in trace.convention.describe()


# -- Hugging Face course --------------------------------------------------------------------


def test_hf_course_example():
    """Hugging Face NLP course, chapter 6, "Byte-Pair Encoding tokenization": corpus
    ("hug", 10), ("pug", 5), ("pun", 12), ("bun", 4), ("hugs", 5), no end-of-word marker; the
    course's first merges are ("u", "g") (20 times), ("u", "n") (16), ("h", "ug") (15), giving
    the vocabulary ["b", "g", "h", "n", "p", "s", "u", "ug", "un", "hug"]."""
    trace = train_bpe({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 3, preset="hf-course")
    assert _merges(trace) == [(("u", "g"), 20), (("u", "n"), 16), (("h", "ug"), 15)]
    vocab = [e.token for e in trace[-1].vocab]
    assert sorted(vocab[:7]) == ["b", "g", "h", "n", "p", "s", "u"]
    assert vocab[7:] == ["ug", "un", "hug"]
    assert trace[-1].segmentation == {
        "hug": ("hug",),
        "pug": ("p", "ug"),
        "pun": ("p", "un"),
        "bun": ("b", "un"),
        "hugs": ("hug", "s"),
    }
    assert "no end-of-word marker" in trace.convention.describe()


# -- (d) Gage 1994 ----------------------------------------------------------------------------


def test_gage1994_compression_example():
    """Philip Gage, "A New Algorithm for Data Compression", C Users Journal, Feb 1994, as told in
    Wikipedia's "Byte pair encoding" article: in "aaabdaaabac" the pair "aa" is the most frequent
    and is replaced first ("ZabdZabac"). As symbols: ('aa','a','b','d','aa','a','b','a','c')."""
    trace = train_bpe("aaabdaaabac", 10, end_of_word=None, min_frequency=2)
    assert trace.merges[0].pair == ("a", "a")
    assert trace.merges[0].count == 4  # overlapping occurrences are counted: aa|a, a|aa twice
    assert trace[1].segmentation == {"aaabdaaabac": ("aa", "a", "b", "d", "aa", "a", "b", "a", "c")}
    assert trace[0].segmentation == {"aaabdaaabac": tuple("aaabdaaabac")}
    assert trace.stop_reason == "min_frequency"
    # every pair left occurs once, below min_frequency 2
    assert max(trace[-1].pair_counts.values()) == 1
    assert len(trace) == len(trace.merges) + 1 == 4
    assert merge_symbols(("a", "a", "a"), ("a", "a"), "aa") == ("aa", "a")


def test_stop_reasons():
    """Stop reasons (bpe_viz.engine.merges.trace.STOP_REASONS) on the published examples above: the 2016 toy
    dictionary runs out of budget, Gage's string runs out of frequent pairs, and with
    min_frequency 1 the toy dictionary runs out of pairs."""
    assert train_bpe(SENNRICH_WORDS, 10).stop_reason == "num_merges"
    assert train_bpe("aaabdaaabac", 10, end_of_word=None).stop_reason == "min_frequency"
    t = train_bpe(SENNRICH_WORDS, 1000, min_frequency=1)
    assert t.stop_reason == "no_pairs"
    assert all(len(s) == 1 for s in t[-1].segmentation.values())
    # every count is >= 2, so the default min_frequency 2 never stops it either
    assert train_bpe(SENNRICH_WORDS, 1000).stop_reason == "no_pairs"
    t = train_bpe({**SENNRICH_WORDS, "lower": 1}, 1000)  # default min_frequency 2
    assert t.stop_reason == "min_frequency"
    assert t[-1].segmentation["lower"] == ("low", "e", "r", "</w>")
    assert t.stopped_because.startswith("no pair occurs")


def test_iter_bpe_on_golden():
    """Sennrich et al. (2016) toy dictionary through iter_bpe: the same merges, one at a time."""
    run = iter_bpe(SENNRICH_WORDS, 10)
    assert [(m.pair, m.count) for m in run] == SENNRICH_MERGES
    assert run.trace.stop_reason == "num_merges"


def test_convention_describe_defaults():
    """bpe_viz.engine.merges.trace.Convention.describe docstring: the default convention in words."""
    assert Convention().describe() == (
        'BPE; end-of-word marker "</w>" as its own symbol; ties: first pair met; min_frequency 2'
    )
    d = Convention(end_of_word="</w>", attach_end_of_word=True, tie_break="lexicographic").describe()
    assert "glued to the last character" in d and "code points" in d
