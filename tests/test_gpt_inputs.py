"""Byte-level BPE on any input: bad arguments to train_bpe, read_merges and encode are errors
that name the argument, and encode/decode round-trip any text exactly.

The round trips are property tests (Hypothesis, over whitespace runs, newlines, emoji, Korean,
combining marks and the special token's text) on both presets, "cs336" and "minbpe", trained on
gpt_reference.SMALL_CORPUS; each encoding is checked by gpt_reference.check_exact: byte tiling,
the offsets rule and GPT-2's rank-based encoder. Unlike its siblings test_gpt_training (train_bpe
against the reference trainers) and test_gpt_parity (pretrained files against tiktoken and
Hugging Face ``tokenizers``), it reads no shared fixture files, so nothing here skips.

Only the public top-level API is used (``from bpe_viz import ...``).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_viz import decode, encode, read_merges, train_bpe

from gpt_reference import EOT, GPT2_PATTERN, GPT4_PATTERN, SMALL_CORPUS, check_exact
from helpers import hypothesis_settings

SETTINGS = hypothesis_settings(80)


# -- 1. bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [
    dict(num_merges=5, pre_tokenizer="(unclosed", byte_level=True, initial_alphabet="bytes"),
    dict(vocab_size=300, preset="cs336", pre_tokenizer="[a-"),
    dict(num_merges=5, preset="minbpe", pre_tokenizer="(?P<x"),
])
def test_bad_pre_tokenizer_pattern(kwargs):
    """A pre_tokenizer string that is neither a known name nor a valid regular expression is a
    ValueError naming pre_tokenizer."""
    with pytest.raises(ValueError, match="pre_tokenizer"):
        train_bpe(SMALL_CORPUS, **kwargs)


@pytest.mark.parametrize("specials, exc", [
    ([""], ValueError),
    ([EOT, ""], ValueError),
    ([5], (TypeError, ValueError)),
    ([None], (TypeError, ValueError)),
    ([b"<|endoftext|>"], (TypeError, ValueError)),
])
def test_bad_special_tokens(specials, exc):
    """A special token that is empty or not a str is an error naming special_tokens, in
    training and in read_merges alike."""
    with pytest.raises(exc, match="special_tokens"):
        train_bpe(SMALL_CORPUS, vocab_size=300, preset="cs336", special_tokens=specials)
    with pytest.raises(exc, match="special_tokens"):
        train_bpe(SMALL_CORPUS, num_merges=5, preset="minbpe", special_tokens=specials)
    with pytest.raises(exc, match="special_tokens"):
        read_merges(["Ġ t", "h e"], special_tokens=specials)


@pytest.mark.parametrize("kwargs", [
    dict(vocab_size=100, preset="cs336"),
    dict(vocab_size=256, preset="cs336"),  # 1 special + 256 bytes do not fit
    dict(vocab_size=255, preset="minbpe"),
    dict(vocab_size=0, preset="minbpe"),
])
def test_vocab_size_below_alphabet(kwargs):
    """vocab_size below specials + 256 bytes is a ValueError naming vocab_size."""
    with pytest.raises(ValueError, match="vocab_size"):
        train_bpe(SMALL_CORPUS, **kwargs)


def test_vocab_size_equal_to_alphabet():
    """vocab_size exactly the alphabet (specials + 256) is allowed: no merges."""
    t = train_bpe(SMALL_CORPUS, vocab_size=257, preset="cs336")
    assert len(t.merges) == 0 and t.vocab_size == 257 == len(t.id_to_token)
    t = train_bpe(SMALL_CORPUS, vocab_size=256, preset="minbpe")
    assert len(t.merges) == 0 and t.vocab_size == 256
    assert decode(encode(SMALL_CORPUS, t).ids, t) == SMALL_CORPUS


@pytest.mark.parametrize("preset", ["cs336", "minbpe", None])
def test_num_merges_and_vocab_size(preset):
    """Passing both num_merges and vocab_size is an error naming both."""
    with pytest.raises((TypeError, ValueError)) as info:
        train_bpe(SMALL_CORPUS, num_merges=10, vocab_size=300, preset=preset)
    msg = str(info.value)
    assert "num_merges" in msg and "vocab_size" in msg


@pytest.mark.parametrize("lines, lineno", [
    (["#version: 0.2", "Ġ t", "h e", "Ġthe", "i n"], 4),  # one field
    (["Ġ t", "h e x"], 2),  # three fields
    (["Ġt", "h e"], 1),  # no header: the first line is line 1
])
def test_read_merges_malformed_line(lines, lineno, tmp_path):
    """read_merges: a line that is not "left right" is a ValueError giving its line number
    (1-based, counting a "#version" header), from a list of lines and from a file."""
    with pytest.raises(ValueError, match=rf"line {lineno}\b"):
        read_merges(lines)
    path = tmp_path / "merges.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"line {lineno}\b"):
        read_merges(path)


@pytest.mark.parametrize("alphabet, exc", [
    ("chars", ValueError),
    ("Bytes", ValueError),
    ("", ValueError),
    (256, (TypeError, ValueError)),
    (["a", "b"], (TypeError, ValueError)),
])
def test_bad_initial_alphabet(alphabet, exc):
    """initial_alphabet must be None or "bytes"; anything else is an error naming it."""
    with pytest.raises(exc, match="initial_alphabet"):
        train_bpe(SMALL_CORPUS, num_merges=5, pre_tokenizer="gpt2", byte_level=True, initial_alphabet=alphabet)


def test_bad_allowed_special(gpt2_small):
    """allowed_special is "all", "none" or a set of the trace's special tokens."""
    with pytest.raises((TypeError, ValueError), match="allowed_special"):
        encode("a" + EOT, gpt2_small, allowed_special="some")


# -- 2. exact round trips ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gpt2_small():
    return train_bpe(SMALL_CORPUS, vocab_size=257 + 40, preset="cs336")


@pytest.fixture(scope="module")
def small_traces(gpt2_small):
    """name -> (trace, pattern, specials): the two presets trained on SMALL_CORPUS."""
    minbpe = train_bpe(SMALL_CORPUS, num_merges=40, preset="minbpe")
    assert len(gpt2_small.merges) == 40 and len(minbpe.merges) == 40
    assert minbpe.vocab_size == 296 and gpt2_small.vocab_size == 297
    return {"cs336": (gpt2_small, GPT2_PATTERN, (EOT,)), "minbpe": (minbpe, GPT4_PATTERN, ())}


FRAGMENTS = [
    " ", "  ", "   ", "\n", "\n\n", "\t", " \n", "\r\n", "\u00a0", "\u3000", "\u200b",
    "😉", "🙃", "👋🏽", "안녕하세요", "한", "é", "e\u0301", "'s", "'LL", " the", "low", "lower",
    "123456", EOT, "<|endoftext", "|>", "<|", "café",
]
TEXTS = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(st.characters(codec="utf-8"), max_size=6)),
    max_size=14,
).map("".join)


@pytest.mark.parametrize("allowed", ["all", "none"])
@pytest.mark.parametrize("name", ["cs336", "minbpe"])
@SETTINGS
@given(text=TEXTS)
def test_exact_round_trip(small_traces, name, allowed, text):
    """For any text (whitespace runs, newlines, emoji, Korean, combining marks, the special
    token's text): decode(encode(t).ids) == t; the tokens' bytes tile t's UTF-8 bytes; offsets
    follow ``expected_offsets`` (whole characters, a split character shown by every token that
    holds part of it, otherwise tokens abut and t[s:e] concatenate to t); the tokens are those
    of GPT-2's rank-based encoder on the trace's merges (openai/gpt-2 src/encoder.py, minbpe's
    encode_ordinary), the special token split out first when allowed."""
    trace, pattern, specials = small_traces[name]
    check_exact(trace, text, pattern, specials, allowed)


@pytest.mark.parametrize("name", ["cs336", "minbpe"])
def test_exact_round_trip_examples(small_traces, name):
    """The same properties on fixed texts, including the training text itself."""
    trace, pattern, specials = small_traces[name]
    for text in [SMALL_CORPUS, "", " ", "\n\n\n", "a  \n  b\t\t", "🙃", "한국어", "x" + EOT + EOT + "y",
                 "  " + EOT + "\n", "Héllò hôw <|endoftext|><|endoftext|> are ü? 🙃<|endoftext|>"]:
        for allowed in ("all", "none"):
            check_exact(trace, text, pattern, specials, allowed)
