"""SubwordTextEncoder against TFDS's own module: the same search, vocabulary, ids and text.

``train_subword_text_encoder`` claims to be ``tfds.deprecated.text.SubwordTextEncoder`` of
tensorflow-datasets 4.9.10 (``build_from_corpus``, ``encode``, ``decode``). The reference is
TFDS's own source, ``tensorflow_datasets/core/deprecated/text/subword_text_encoder.py`` and
``text_encoder.py``, run in-process without TensorFlow (see ``tests/tfds_reference.py``); make
installs the pinned wheel without its dependencies from ``requirements-nodeps.txt``. Compared:
the ``min_token_count`` of every try of the search (TFDS logs them), the token counts, the
subwords of every iteration of a try, the final subword list in order, the ids of encodings
(with the final vocabulary and an earlier try's) and decoded text, on every bundled corpus and
on Python's documentation text.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_viz.engine import corpora
from bpe_viz.engine.text.corpus import word_counts
from bpe_viz.engine.subword_text_encoder import (NUM_BYTES, UNDERSCORE_REPLACEMENT, SubwordEncoder,
                                                 SubwordTextEncoderTrace, train_subword_text_encoder)
from tfds_reference import corpus_generator, load_tfds_subword_text_encoder, tfds_version

ROOT = Path(__file__).resolve().parent.parent
PINNED = next(line.split("==")[1].strip() for line in (ROOT / "requirements-nodeps.txt").read_text().splitlines()
              if line.startswith("tensorflow-datasets=="))

DOCS = corpora.python_docs_text()
DOCS_SLICE = DOCS[:40_000]  # training slice: TFDS takes about 1 s per search on it
HELD_OUT = DOCS[40_000:43_000]  # text the vocabulary never saw
# odd text that comes back from TFDS's decode unharmed (see the traps below for what does not)
ODD = [
    "🙂 emoji 👩‍💻 and flags 🇫🇷",
    "a_b snake_case _leading trailing_ _ __",
    "back\\slash \\\\ \\n \\& \\&und",
    "unknown: 你好 한국어 ℵ ∑ \u00a0nbsp\u200bzwsp",
    "  two  spaces, tab\there, new\nline, trailing space ",
    "<EOS> ._ ,_ (x)._ end.",
    "",
]


@pytest.fixture(scope="module")
def docs_trace() -> SubwordTextEncoderTrace:
    return train_subword_text_encoder(DOCS_SLICE, 1000)


@pytest.fixture(scope="module")
def tfds():
    try:
        module, log = load_tfds_subword_text_encoder()
    except ImportError as exc:
        pytest.skip(
            f"TFDS's SubwordTextEncoder is the reference: needs tensorflow-datasets=={PINNED} "
            f"(make installs it: pip install --no-deps -r requirements-nodeps.txt): {exc}"
        )
    return module, log


def tfds_build(tfds, corpus, target, **kw):
    """TFDS's encoder for ``corpus`` and the min_token_count of each try, in order."""
    module, log = tfds
    log.clear()
    encoder = module.SubwordTextEncoder.build_from_corpus(corpus_generator(corpus), target, **kw)
    tried = [int(line.rsplit(" ", 1)[1]) for line in log if "trying min_token_count" in line]
    return encoder, tried


def assert_same_as_tfds(tfds, corpus, target, texts, **kw):
    """Our search, token counts, vocabulary, encodings and decodings equal TFDS's."""
    module, _ = tfds
    ref, tried = tfds_build(tfds, corpus, target, **kw)
    ours = train_subword_text_encoder(corpus, target, **kw)
    assert [s.min_count for s in ours] == tried
    ref_counts = module._token_counts_from_generator(
        corpus_generator(corpus), kw.get("max_corpus_chars"), kw.get("reserved_tokens") or [])
    assert ours.token_counts == dict(ref_counts)
    assert ours.subwords == ref.subwords
    assert ours.vocab_size == ref.vocab_size == len(ours.id_to_token)
    for text in texts:
        enc = ours.encode(text)
        assert enc.ids == ref.encode(text), text
        assert ours.decode(enc.ids) == ref.decode(enc.ids), text
    return ours, ref


# -- the same as TFDS -----------------------------------------------------------------------------

@pytest.mark.parametrize("target", [258, 261, 265, 280, 400])
@pytest.mark.parametrize("name", list(corpora.EXAMPLES))
def test_same_as_tfds_on_bundled_corpora(tfds, name, target):
    corpus = corpora.load(name)
    ours, _ = assert_same_as_tfds(tfds, corpus, target, [corpora.SAMPLES[name], *ODD])
    assert ours.vocab_size >= NUM_BYTES + 1


DOCS_CASES = {
    "text-500": (DOCS_SLICE, 500, {}),
    "text-1000": (DOCS_SLICE, 1000, {}),
    "lines-max_corpus_chars": (DOCS_SLICE.splitlines(keepends=True), 800, {"max_corpus_chars": 45_000}),
    "lines-reserved": ([line + "<EOS>" for line in DOCS_SLICE.splitlines()] + ["<EOD>"], 600,
                       {"reserved_tokens": ["<EOS>", "<EOD>"]}),
    "max_subword_length-6": (DOCS_SLICE, 700, {"max_subword_length": 6}),
}


@pytest.mark.parametrize("case", list(DOCS_CASES))
def test_same_as_tfds_on_python_docs(tfds, case):
    corpus, target, kw = DOCS_CASES[case]
    texts = [HELD_OUT, *ODD, "hello<EOS> world<EOD>x<EOS> "]
    ours, ref = assert_same_as_tfds(tfds, corpus, target, texts, **kw)
    assert len(ours) >= 3 and abs(ours.vocab_size - target) * 100 < target * 10
    # an earlier try is a whole vocabulary too: encode with it as TFDS would
    first = tfds[0].SubwordTextEncoder(vocab_list=ours[0].subwords)
    assert ours.encode(HELD_OUT, step=0).ids == first.encode(HELD_OUT)
    assert ours.decode(first.encode(HELD_OUT), step=0) == first.decode(first.encode(HELD_OUT))


def test_two_tries_equally_close_the_later_wins_as_tfds(tfds):
    """On the first 5,000 characters with target 356, min_count 9 gives 352 and 8 gives 360:
    both 4 away. TFDS's recursion keeps the deeper one (a shallower try replaces it only when
    strictly closer)."""
    ours, _ = assert_same_as_tfds(tfds, DOCS[:5000], 356, [HELD_OUT])
    assert [(s.min_count, s.vocab_size) for s in ours][-2:] == [(9, 352), (8, 360)]
    assert ours.chosen == len(ours) - 1 and ours.vocab_size == 360


def test_every_iteration_of_a_try_is_tfds(tfds, docs_trace):
    """Each try keeps its four count-and-keep iterations: TFDS's ``_build_from_token_counts``
    stopped after 1, 2, 3 and 4 iterations gives the same lists."""
    module, _ = tfds
    trace = docs_trace
    for step in (trace[trace.chosen],):
        assert len(step.iterations) == 4
        for i, it in enumerate(step.iterations, 1):
            ref = module.SubwordTextEncoder._build_from_token_counts(
                token_counts=trace.token_counts, min_token_count=step.min_count, reserved_tokens=[],
                num_iterations=i, max_subword_length=20)
            assert list(it.subwords) == ref.subwords
            assert it.vocab_size == ref.vocab_size


def test_mapping_and_max_corpus_chars_as_tfds(tfds):
    """A mapping word -> count is each word followed by a space, ``count`` times; with
    ``max_corpus_chars`` TFDS reads that sequence's first characters."""
    words = corpora.load("hf-course")
    assert_same_as_tfds(tfds, words, 260, ["hugs pug"], max_corpus_chars=50)
    ours = train_subword_text_encoder(word_counts(DOCS[:15_000]), 400)  # WordCounts too
    ref, _ = tfds_build(tfds, dict(word_counts(DOCS[:15_000]).items()), 400)
    assert ours.subwords == ref.subwords


def test_a_reserved_token_found_again_is_listed_twice_as_tfds(tfds):
    """subtle: a reserved token frequent in the corpus is also a counted candidate, so TFDS
    lists it twice (ids 1 and a later one) and encodes it with the later id."""
    corpus, target, kw = [line + "<EOS>" for line in DOCS[:15_000].splitlines()], 400, {"reserved_tokens": ["<EOS>"]}
    trace = train_subword_text_encoder(corpus, target, **kw)
    ref, _ = tfds_build(tfds, corpus, target, **kw)
    assert trace.subwords.count("<EOS>") == ref.subwords.count("<EOS>") == 2
    later = trace.subwords.index("<EOS>", 1) + 1
    assert trace.token_to_id("<EOS>") == later
    assert trace.encode("x<EOS>").ids[-1] == later == ref.encode("x<EOS>")[-1]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_random_text_encodes_as_tfds_and_comes_back(tfds, text):
    """Any text (no lone surrogates: TensorFlow's as_bytes rejects them), with a vocabulary
    that learned no escaped underscore: TFDS's ids, and decode gives the text back."""
    trace, ref = _no_underscore_trace(tfds)
    ids = trace.encode(text).ids
    assert ids == ref.encode(text)
    assert 0 not in ids
    assert trace.decode(ids) == ref.decode(ids) == text


_CACHE: dict = {}


def _no_underscore_trace(tfds):
    if "no_" not in _CACHE:
        text = DOCS[:20_000].replace("_", " ")  # so no learned subword holds the escape
        trace = train_subword_text_encoder(text, 600)
        ref, _ = tfds_build(tfds, text, 600)
        assert trace.subwords == ref.subwords
        _CACHE["no_"] = (trace, ref)
    return _CACHE["no_"]


# -- TFDS's traps, reproduced and named ------------------------------------------------------------

def test_odd_text_round_trip_when_no_subword_holds_the_escape(tfds):
    trace, _ = _no_underscore_trace(tfds)
    assert not any(UNDERSCORE_REPLACEMENT in s for s in trace.subwords)
    for text in ODD:
        enc = trace.encode(text)
        assert trace.decode(enc.ids) == text
    enc = trace.encode("a_b 🙂")
    assert enc.pieces[1:2] == [UNDERSCORE_REPLACEMENT]  # the escape, spelled as the byte "_"
    assert enc.tokens[1] == "<0x5F>" and enc.byte_fallback[1]
    assert enc.tokens[-4:] == ["<0xF0>", "<0x9F>", "<0x99>", "<0x82>"] and enc.pieces[-4:] == ["🙂"] * 4


def test_tfds_traps_do_not_round_trip(tfds, docs_trace):
    """On the docs text TFDS learns ``\\&undsc\\&undsc`` (from ``__init__``) and never unescapes
    it; and ``\\&undsc`` followed by a space gets its space twice. Ours does the same."""
    module, _ = tfds
    trace = docs_trace
    ref = module.SubwordTextEncoder(vocab_list=trace.subwords)
    assert UNDERSCORE_REPLACEMENT * 2 in trace.subwords
    for text, back in [("__init__", "\\&undsc\\&undscinit\\&undsc\\&undsc"), ("\\&undsc x", "\\&undsc  x")]:
        ids = trace.encode(text).ids
        assert ids == ref.encode(text)
        assert trace.decode(ids) == ref.decode(ids) == back != text


def test_reserved_tokens_at_the_same_place_tfds_depends_on_hashing(tfds):
    """TFDS keeps an encoder's mixed subwords in a set: for ``<a`` and ``<ab`` on the text
    ``<ab`` its answer changes with PYTHONHASHSEED. Ours always takes the longest."""
    vocab, text = ["<a", "<ab"], "<ab"
    assert SubwordEncoder(vocab).encode(text) == [2]
    answers = set()
    env = dict(os.environ)
    for seed in range(12):
        env["PYTHONHASHSEED"] = str(seed)
        out = subprocess.run([sys.executable, str(ROOT / "tests" / "tfds_reference.py"), json.dumps([vocab, text])],
                             env=env, capture_output=True, text=True, check=True).stdout
        answers.add(tuple(json.loads(out)))
        if len(answers) == 2:
            break
    assert answers == {(2,), (1, 2 + 1 + ord("b"))}


# -- golden: TFDS's own unit test -----------------------------------------------------------------

# tensorflow_datasets/core/deprecated/text/subword_text_encoder_test.py (4.9.10),
# SubwordTextEncoderTest: vocabulary ['foo_', 'bar_', 'foo', 'bar', '<EOS>'], ids 1..5
TFDS_UNIT_CASES = [
    ("foo bar", [1, 4]),
    ("foobar foo bar<EOS>bar", [3, 2, 1, 4, 5, 4]),
    ("bar <EOS>bar", [2, 5, 4]),
    ("bar <EOS> bar", [2, 5, 38, 4]),
    ("bar<EOS> bar", [4, 5, 38, 4]),
    ("a_b!", [103, 101, 104, 39]),
    ("foo \\bar_!", [3, 38, 98, 4, 101, 39]),
    ("foo \\\\bar_!", [3, 38, 98, 98, 4, 101, 39]),
    ("你", [234, 195, 166]),
    *((t, None) for t in ["hello world!", "foo_ bar", "foo _ bar", "foo _bar", "hello_world", "hello_ world",
                          "hello _ world", "hello _world", "_", "\\&undsc"]),
]


@pytest.mark.parametrize("text,ids", TFDS_UNIT_CASES)
def test_tfds_unit_test_vocabulary(text, ids):
    enc = SubwordEncoder(["foo_", "bar_", "foo", "bar", "<EOS>"])
    assert enc.vocab_size == 256 + 1 + 5
    if ids is not None:
        assert enc.encode(text) == ids
    assert enc.decode(enc.encode(text)) == text


def test_tfds_unit_test_bad_bytes():
    """TFDS test_bad_bytes: an invalid byte decodes as U+FFFD, the valid character stays."""
    enc = SubwordEncoder(["foo_", "bar_", "foo", "bar", "<EOS>"])
    assert enc.decode(enc.encode("你") + [220 + 5 + 1]) == "你\ufffd"


def test_tfds_unit_test_max_subword_length_1_learns_nothing_from_ascii():
    """TFDS test_max_subword_length: single bytes are never kept, so ASCII text with
    ``max_subword_length=1`` learns no subword; a non-ASCII character (several bytes) is kept."""
    assert train_subword_text_encoder(DOCS[:5000].encode("ascii", "ignore").decode(), 300,
                                      max_subword_length=1).subwords == []
    assert train_subword_text_encoder("한 한 한", 300, max_subword_length=1).subwords == ["한"]


# -- the search, step by step (ours only) ---------------------------------------------------------

def test_the_search_moves_toward_the_target(docs_trace):
    trace = docs_trace
    assert isinstance(trace, SubwordTextEncoderTrace) and len(trace) >= 5
    for prev, step in zip(trace, trace[1:]):
        # too big -> a higher threshold next, too small -> a lower one, inside the halved interval
        if prev.direction == "up":
            assert prev.vocab_size > 1000 and step.low == prev.min_count + 1 and step.high == prev.high
            assert step.min_count > prev.min_count
        else:
            assert prev.direction == "down" and prev.vocab_size <= 1000
            assert step.high == prev.min_count - 1 and step.low == prev.low and step.min_count < prev.min_count
        assert step.min_count == (step.low + step.high) // 2
    last = trace[-1]
    assert last.direction is None and last.stop and all(s.direction for s in trace[:-1])
    # on this text a higher min_count always means a smaller vocabulary
    by_count = sorted(trace, key=lambda s: s.min_count)
    assert all(a.vocab_size > b.vocab_size for a, b in zip(by_count, by_count[1:]))
    # the search returns the try closest to the target (the last one of equals)
    best = min(s.distance for s in trace)
    assert trace[trace.chosen].distance == best
    assert trace.chosen == max(s.index for s in trace if s.distance == best)
    assert [s.chosen for s in trace].count(True) == 1
    assert trace.subwords == trace[trace.chosen].subwords
    assert trace.vocab_size == 1 + len(trace.subwords) + 256


def test_iterations_settle_and_describe(docs_trace):
    trace = docs_trace
    for step in trace:
        its = step.iterations
        assert len(its) == 4 and step.subwords == list(its[-1].subwords)
        # the first iteration counts every substring; later ones only from piece boundaries
        assert its[0].counted > its[1].counted
        assert its[0].above_threshold >= len(its[0].subwords)
    text = trace.describe()
    assert text.count("\n") == len(trace) + 1 and "<- chosen" in text
    assert f"min_count {trace[0].min_count}" in text
    assert repr(trace) == (f"<SubwordTextEncoderTrace: {len(trace)} search steps, chosen step {trace.chosen} "
                           f"(min_count {trace[trace.chosen].min_count}): {len(trace.subwords)} subwords, "
                           f"vocab_size {trace.vocab_size} (target 1000)>")
    assert not hasattr(trace, "_repr_html_")  # HTML is the view layer's


def test_ids_and_tokens():
    trace = train_subword_text_encoder(DOCS_SLICE, 500)
    table = trace.id_to_token
    assert table[0] == "<pad>" and table[1:len(trace.subwords) + 1] == trace.subwords
    assert table[-256:] == [f"<0x{b:02X}>" for b in range(256)]
    assert all(trace.token_to_id(t) == i for i, t in enumerate(table))  # no subword listed twice here
    assert trace.token_to_id("no such piece") is None
    enc = trace.encode(HELD_OUT)
    assert enc.tokens == [table[i] for i in enc.ids]
    assert len(enc.pieces) == len(enc.ids) == len(enc.word_ids) == len(enc.byte_fallback) == len(enc)
    assert [p for p, _ in enc.segments] == [p for w in enc.words for p in trace._encoder().segment(w)]
    assert trace.decode(enc) == trace.decode(enc.ids)


def test_encode_word_walkthrough(docs_trace):
    trace = docs_trace
    vocab = set(trace.subwords)
    w = trace.encode_word("tokenizer ")
    assert w.token == "tokenizer_"
    assert "".join(w.pieces) == w.token
    assert w.ids == trace.encode("tokenizer ").ids
    for s in w.steps:
        # longest candidate first, one character shorter each time, until one is a subword
        assert [len(t) for t in s.tried] == list(range(len(s.tried[0]), len(s.tried[0]) - len(s.tried), -1))
        assert all(t not in vocab for t in s.tried[:-1])
        assert (s.match is None) == (s.tried[-1] not in vocab)
    assert w.describe().startswith("'tokenizer ': token 'tokenizer_'")
    with pytest.raises(ValueError, match="one token"):
        trace.encode_word("don't")
    # each try has its own vocabulary: the first (highest min_count) knows fewer subwords
    assert len(trace.encode_word("tokenizer", step=0).steps) >= len(trace.encode_word("tokenizer").steps)


def test_generic_encode_and_decode_use_the_trace():
    from bpe_viz import decode, encode, encode_word

    trace = train_subword_text_encoder(corpora.load("slp3"), 265)
    enc = encode("lowest newer", trace)
    assert enc.ids == trace.encode("lowest newer").ids
    assert decode(enc.ids, trace) == "lowest newer"
    assert encode_word("lowest ", trace).pieces == ["lowest_"]


def test_exported():
    import bpe_viz
    import bpe_viz.engine

    for mod in (bpe_viz, bpe_viz.engine):
        assert mod.train_subword_text_encoder is train_subword_text_encoder
        assert mod.SubwordTextEncoderTrace is SubwordTextEncoderTrace
        assert "train_subword_text_encoder" in mod.__all__


# -- bad input ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs,error,match", [
    ({"target_vocab_size": 257}, ValueError, "target_vocab_size must be >= 258"),
    ({"target_vocab_size": 300.0}, TypeError, "target_vocab_size must be an int"),
    ({"target_vocab_size": True}, TypeError, "target_vocab_size must be an int"),
    ({"target_vocab_size": "300"}, TypeError, "target_vocab_size must be an int"),
    ({"max_subword_length": 0}, ValueError, "max_subword_length must be >= 1"),
    ({"max_corpus_chars": 0}, ValueError, "max_corpus_chars must be >= 1"),
    ({"max_corpus_chars": 1.5}, TypeError, "max_corpus_chars must be an int"),
    ({"reserved_tokens": "<EOS>"}, TypeError, "reserved_tokens must be a list"),
    ({"reserved_tokens": ["EOS"]}, ValueError, "mix word and non-word"),
    ({"reserved_tokens": ["<EOS>_"]}, ValueError, "not end with _"),
    ({"reserved_tokens": ["<EOS>", "<EOS>"]}, ValueError, "listed twice"),
    ({"reserved_tokens": [UNDERSCORE_REPLACEMENT]}, ValueError, "escape"),
    ({"reserved_tokens": [3]}, TypeError, "every token must be a str"),
    ({"corpus": b"low low"}, TypeError, "got bytes: decode it first"),
    ({"corpus": 42}, TypeError, "corpus must be text"),
    ({"corpus": ["low", 3]}, TypeError, "item 1 must be a str"),
    ({"corpus": {"low": 0}}, ValueError, "count of 'low' must be >= 1"),
    ({"corpus": {"low": "5"}}, TypeError, "count of 'low' must be an int"),
    ({"corpus": ""}, ValueError, "corpus: no text"),
    ({"corpus": []}, ValueError, "corpus: no text"),
    ({"corpus": {}}, ValueError, "corpus: no text"),
])
def test_bad_arguments(kwargs, error, match):
    args = {"corpus": "low low lower", "target_vocab_size": 300, **kwargs}
    with pytest.raises(error, match=match):
        train_subword_text_encoder(args.pop("corpus"), args.pop("target_vocab_size"), **args)


def test_valid_edges():
    """A max_subword_length longer than any token changes nothing (and allocates nothing per
    length); a corpus of one repeated token still makes a vocabulary; whitespace is text."""
    text = DOCS[:3000]
    assert (train_subword_text_encoder(text, 300, max_subword_length=10**9).subwords
            == train_subword_text_encoder(text, 300, max_subword_length=200).subwords)
    assert train_subword_text_encoder({"hello": 3}, 300).subwords == ["hello_"]
    assert train_subword_text_encoder(["  \n", "  \n"], 300).subwords == ["  \n"]


def test_bad_encode_and_decode_arguments():
    trace = train_subword_text_encoder(corpora.load("slp3"), 265)
    with pytest.raises(TypeError, match="text must be a str"):
        trace.encode(b"low")
    with pytest.raises(ValueError, match=r"step must be between 0 and 1"):
        trace.encode("low", step=5)
    with pytest.raises(TypeError, match="step must be an int"):
        trace.encode("low", step="1")
    with pytest.raises(IndexError, match="step must be between"):
        trace[2]
    assert trace[-1] is trace[1]
    with pytest.raises(ValueError, match=f"not an id of this vocabulary \\(0..{trace.vocab_size - 1}\\)"):
        trace.decode([1, trace.vocab_size])
    with pytest.raises(ValueError, match="padding \\(0\\) at position 0"):
        trace.decode([0, 1])
    assert trace.decode([1, 0, 0]) == trace.decode([1])  # trailing padding is dropped
    with pytest.raises(TypeError, match="ids must be a list of int"):
        trace.decode("1 2")
    with pytest.raises(TypeError, match="ids must be a list of int"):
        trace.decode([1.0])
    with pytest.raises(ValueError, match="is 0 tokens"):
        trace.encode_word("")


def test_tfds_version_pinned():
    """The wheel in use is the one requirements-nodeps.txt pins (the docstrings cite it)."""
    version = tfds_version()
    if version is None:
        pytest.skip(f"tensorflow-datasets=={PINNED} is not installed (pip install --no-deps -r requirements-nodeps.txt)")
    assert version == PINNED == "4.9.10"
