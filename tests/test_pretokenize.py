"""bpe_viz.engine.text.pretokenize: how text is cut into words, and back. Whitespace is the classic
presets' rule (the 2016 paper, SLP3, subword-nmt); a pattern or a function lets a teacher try
their own, and training, encoding and decoding all follow the trace's pre-tokenizer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_viz import decode, encode, encode_word, train_bpe, train_wordpiece
from bpe_viz.engine.text.pretokenize import Pattern, Whitespace, get_pre_tokenizer

KEEP_SPACES = r" ?\w+| ?[^\w\s]+|\s+"  # a GPT-2-like pattern with the re module: pieces keep their space


def test_whitespace_is_str_split_with_spans():
    text = " low\tlower\n\nnewest\u00a0widest "
    ws = get_pre_tokenizer("whitespace")
    assert ws.words(text) == text.split()
    assert [text[a:b] for _, (a, b) in ws.split(text)] == text.split()
    assert ws.join(["a", "b"]) == "a b"


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab \t\n.,é🙂")), max_size=40))
def test_a_pattern_that_covers_the_text_round_trips_exactly(text):
    pt = Pattern(KEEP_SPACES)
    pieces = pt.words(text)
    assert "".join(pieces) == text  # the pattern matches every character
    assert pt.join(pieces) == text
    assert [text[a:b] for _, (a, b) in pt.split(text)] == pieces


def test_training_encoding_and_decoding_follow_the_pre_tokenizer():
    text = "the cat, the hat. the cat sat!\n  the end"
    trace = train_bpe(text, 12, pre_tokenizer=KEEP_SPACES, end_of_word=None, min_frequency=2)
    assert " the" in trace[-1].segmentation  # words keep their leading space
    assert trace.convention.pre_tokenizer == Pattern(KEEP_SPACES)
    assert "pre-tokenizer: pattern" in trace.convention.describe()
    enc = encode(text, trace)
    assert decode(enc, trace) == text  # exact: spaces, newline and punctuation included
    # offsets tile the text
    assert "".join(text[a:b] for a, b in enc.offsets) == text
    assert encode_word(" the", trace).final[-1].endswith("the")
    with pytest.raises(ValueError, match="pre-tokenizer"):
        encode_word("the cat", trace)


def test_a_function_as_pre_tokenizer():
    def commas(text):
        return text.split(",")

    trace = train_bpe("ab c,ab c,ab d", 2, pre_tokenizer=commas, end_of_word=None, min_frequency=1)
    assert list(trace[0].segmentation) == ["ab c", "ab d"]
    assert decode(encode("ab c,ab d", trace), trace) == "ab cab d"  # Custom joins with "" by default


def test_wordpiece_takes_a_pre_tokenizer_too():
    trace = train_wordpiece("hug,pug;hugs", 2, pre_tokenizer=r"[a-z]+")
    assert list(trace[0].segmentation) == ["hug", "pug", "hugs"]


def test_default_is_whitespace_and_equal_conventions_compare_equal():
    assert train_bpe("a b", 0).convention.pre_tokenizer == Whitespace()
    assert get_pre_tokenizer(None) is get_pre_tokenizer("whitespace")


@pytest.mark.parametrize("bad,err,match", [
    (42, TypeError, "pre_tokenizer must be one of"),
    ("(unclosed", ValueError, "not a valid regular expression"),
])
def test_bad_pre_tokenizers_say_what_is_expected(bad, err, match):
    with pytest.raises(err, match=match):
        train_bpe("a b", 1, pre_tokenizer=bad)


def test_subword_nmt_splits_at_the_ascii_space_only():
    """subword-nmt's learn_bpe and apply_bpe split each line at " " only
    (``line.strip('\\r\\n ').split(' ')``): a tab or a no-break space stays inside a word, as its
    test_utf8_whitespace expects. The preset does the same, and learns the same merges."""
    import io
    from contextlib import redirect_stderr

    from subword_nmt.learn_bpe import learn_bpe

    text = "low\u00a0lower low\tlow  newest\nwidest\u00a0widest low\r\nlower\u00a0low new\n"
    trace = train_bpe(text, 12, preset="subword-nmt", min_frequency=1)
    assert "low\u00a0lower" in trace[0].segmentation and "low\tlow" in trace[0].segmentation
    out = io.StringIO()
    with redirect_stderr(io.StringIO()):
        learn_bpe(io.StringIO(text), out, 12, min_frequency=1)
    theirs = [tuple(line.split(" ")) for line in out.getvalue().splitlines()[1:]]
    assert [m.pair for m in trace.merges] == theirs
    assert encode("low\u00a0lower x", trace).word_ids[-1] == 1  # two words, not three


def test_a_pre_tokenizer_that_keeps_spaces_means_no_marker_by_default():
    """Pinned (issue 8): under a regex pre-tokenizer there is no end-of-word marker unless asked."""
    t = train_bpe("the cat sat", 3, pre_tokenizer="gpt2", byte_level=True, initial_alphabet="bytes")
    assert t.convention.end_of_word is None
    assert train_bpe("the cat sat", 3, pre_tokenizer="gpt2", end_of_word="</w>").convention.end_of_word == "</w>"
    assert train_bpe("the cat sat", 3).convention.end_of_word == "</w>"  # the classic default stays
