"""Interop: subword-nmt codes files (write_codes / read_codes / replay_codes), replay_bpe, and
Hugging Face ``tokenizers`` models built by to_hf_tokenizer (and actually run).

subword-nmt (Sennrich et al.) writes one "left right" line per merge after a "#version: 0.2"
line (marker glued to the last character) or "#version: 0.1" ("</w>" a symbol of its own).
Hugging Face ``tokenizers``' BPE model has ``end_of_word_suffix`` (a glued marker) but no
end-of-word symbol of its own.

Only the public top-level API is used (``from bpe_viz import ...``).
"""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_viz import (
    encode,
    read_codes,
    replay_bpe,
    replay_codes,
    to_hf_tokenizer,
    train_bpe,
    train_wordpiece,
    write_codes,
)

from helpers import EXTERNAL, SENNRICH, hypothesis_settings

SETTINGS = hypothesis_settings(60)

SLP3_CORPUS = (
    "low low low low low lowest lowest newer newer newer newer newer newer "
    "wider wider wider new new"
)
DOCS_MERGES = 300  # a few hundred merges keep the Hugging Face comparison fast


@pytest.fixture(scope="module")
def docs_trace(docs_text):
    """Python's documentation topics, subword-nmt's convention, 300 merges."""
    return train_bpe(docs_text, DOCS_MERGES, preset="subword-nmt")


def assert_same_history(replayed, trace):
    """Every step: same merge, segmentation, pair table and vocabulary."""
    assert len(replayed) == len(trace)
    assert [(m.pair, m.token, m.count) for m in replayed.merges] == [(m.pair, m.token, m.count) for m in trace.merges]
    for k in range(len(trace)):
        assert replayed[k].segmentation == trace[k].segmentation, k
        assert replayed[k].pair_counts == trace[k].pair_counts, k
        assert [(e.token, e.made_at, e.count) for e in replayed[k].vocab] == [
            (e.token, e.made_at, e.count) for e in trace[k].vocab], k


# -- codes files -----------------------------------------------------------------------------


def test_write_codes_sennrich_and_subword_nmt_versions(tmp_path):
    """subword-nmt learn_bpe: "#version: 0.2" with the marker glued to the last character (its
    convention since 0.2), "#version: 0.1" when "</w>" is a symbol of its own (the 2016 paper).
    The paper's toy dictionary, 10 merges: e s, es t, est </w>, l o, lo w, ... (Sennrich et al.
    2016, Algorithm 1; tests/test_bpe_golden.py)."""
    paper = train_bpe(SENNRICH, 10, preset="sennrich2016")
    path = tmp_path / "paper.codes"
    write_codes(paper, path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[:5] == ["#version: 0.1", "e s", "es t", "est </w>", "l o"]
    assert len(lines) == 11
    glued = train_bpe(SENNRICH, 10, preset="subword-nmt")
    f = io.StringIO()
    write_codes(glued, f)
    assert f.getvalue().splitlines()[:4] == ["#version: 0.2", "s t</w>", "e st</w>", "l o"]
    assert f.getvalue().endswith("\n")


@pytest.mark.parametrize("preset", ["sennrich2016", "subword-nmt"])
def test_codes_round_trip(tmp_path, docs_text, preset):
    """write_codes then read_codes gives the merge pairs back, through a file in tmp_path, a
    StringIO and the codes text itself; num_merges writes a prefix."""
    trace = train_bpe(docs_text[:20000], 150, preset=preset)
    pairs = [m.pair for m in trace.merges]
    assert len(pairs) == 150
    path = tmp_path / f"{preset}.codes"
    write_codes(trace, path)
    assert read_codes(path) == pairs
    assert read_codes(str(path)) == pairs
    with path.open(encoding="utf-8") as fh:
        assert read_codes(fh) == pairs
    buf = io.StringIO()
    write_codes(trace, buf)
    assert buf.getvalue() == path.read_text(encoding="utf-8")
    assert read_codes(io.StringIO(buf.getvalue())) == pairs
    assert read_codes(buf.getvalue()) == pairs  # codes text starting with "#version:"
    buf = io.StringIO()
    write_codes(trace, buf, num_merges=7)
    assert read_codes(io.StringIO(buf.getvalue())) == pairs[:7]
    # CRLF line ends and a trailing blank line are tolerated
    assert read_codes(io.StringIO(path.read_text(encoding="utf-8").replace("\n", "\r\n") + "\r\n")) == pairs


@pytest.mark.parametrize("preset", ["sennrich2016", "subword-nmt"])
def test_replay_codes_reproduces_the_trace(tmp_path, preset):
    """replay_codes reads the version line (0.1: own symbol, 0.2: glued) and replays the codes
    over the corpus: the SLP3 corpus (Jurafsky & Martin, SLP3 §2.5.2) gives the trace back, step
    by step."""
    trace = train_bpe(SLP3_CORPUS, 8, preset=preset)
    path = tmp_path / "slp3.codes"
    write_codes(trace, path)
    replayed = replay_codes(SLP3_CORPUS, path)
    assert replayed.convention.attach_end_of_word is (preset == "subword-nmt")
    assert_same_history(replayed, trace)


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: train_bpe(SLP3_CORPUS, 3, preset="slp3"), id="marker-_"),
        pytest.param(lambda: train_bpe(SLP3_CORPUS, 3, end_of_word=None), id="no-marker"),
        pytest.param(lambda: train_bpe(SLP3_CORPUS, 3, byte_level=True), id="byte-level"),
        pytest.param(lambda: train_wordpiece(SLP3_CORPUS, 3), id="wordpiece"),
        pytest.param(lambda: train_bpe(["a b", "a b"], 3, min_frequency=1), id="space-in-merge"),
    ],
)
def test_write_codes_refuses_what_a_codes_file_cannot_hold(make):
    """A codes file knows only "</w>" on characters, and splits lines on one space."""
    with pytest.raises(ValueError, match="trace"):
        write_codes(make(), io.StringIO())


def test_codes_bad_input(tmp_path):
    """Errors name the argument (STYLE.md, principle 7); a malformed codes line names its line."""
    trace = train_bpe(SENNRICH, 3)
    with pytest.raises(TypeError, match="trace"):
        write_codes("not a trace", io.StringIO())
    with pytest.raises(TypeError, match="file"):
        write_codes(trace, 42)
    with pytest.raises(TypeError, match="file"):
        read_codes(42)
    with pytest.raises(ValueError, match="file: line 3"):
        read_codes("#version: 0.2\nl o\nl o w\n")
    with pytest.raises(FileNotFoundError):
        read_codes(tmp_path / "missing.codes")


def test_subword_nmt_reference_codes_replayed(tmp_path):
    """subword-nmt's own test data (rsennrich/subword-nmt subword_nmt/tests/data, copied to the
    shared fixtures): bpe.ref is learn_bpe(corpus.en, 1000) and corpus.bpe.ref.en is apply_bpe's
    output with it. Replaying bpe.ref over corpus.en's words gives apply_bpe's segmentation of
    every line ("@@ " between pieces), and train_bpe with the "subword-nmt" preset learns the
    same 1000 codes."""
    codes_path = EXTERNAL / "subword-nmt" / "bpe.ref"
    ref_path = EXTERNAL / "subword-nmt" / "corpus.bpe.ref.en"
    corpus_path = EXTERNAL / "cs336" / "corpus.en"
    for p in (codes_path, ref_path, corpus_path):
        if not p.is_file():
            pytest.skip(f"shared fixture not found: {p} (the ../shared checkout is absent)")
    lines = corpus_path.read_text(encoding="utf-8").split("\n")
    expected = ref_path.read_text(encoding="utf-8").split("\n")
    assert len(lines) == len(expected)
    codes = read_codes(codes_path)
    assert len(codes) == 1000
    words = [w for line in lines for w in line.split(" ") if w]  # apply_bpe splits on " " only
    replayed = replay_codes(words, codes_path)
    assert replayed.convention.attach_end_of_word is True
    seg = replayed[-1].segmentation

    def at_at(pieces):
        last = pieces[-1][: -len("</w>")]
        return [p + "@@" for p in pieces[:-1]] + ([last] if last else [])

    ours = [" ".join(t for w in line.split(" ") if w for t in at_at(seg[w])) for line in lines]
    mismatches = [(i, o, e) for i, (o, e) in enumerate(zip(ours, expected)) if o != e.strip(" ")]
    assert mismatches == [], f"{len(mismatches)} lines differ, e.g. {mismatches[:3]}"
    assert [m.pair for m in train_bpe("\n".join(lines), 1000, preset="subword-nmt").merges] == codes


# -- replay_bpe ------------------------------------------------------------------------------

# no marker look-alikes: a public pair spelled with "_" or "</w>" would be ambiguous when the
# corpus contains the marker text (replay reads every "_" as the marker)
PLAIN = ["a", "b", "c", "ab", "\\", "é", "한", "🙂"]
REPLAY_CONVENTIONS = {
    "sennrich2016": dict(preset="sennrich2016"),
    "subword-nmt": dict(preset="subword-nmt"),
    "slp3": dict(preset="slp3"),
    "hf-course": dict(preset="hf-course"),
    "byte-level": dict(byte_level=True),
}


@SETTINGS
@given(
    st.sampled_from(sorted(REPLAY_CONVENTIONS)),
    st.dictionaries(
        st.lists(st.sampled_from(PLAIN), min_size=1, max_size=5).map("".join), st.integers(1, 5), min_size=1, max_size=6
    ),
    st.sampled_from(["first", "lexicographic"]),
    st.integers(0, 30),
)
def test_replay_own_merges_reproduces_every_step(name, counts, tie_break, num_merges):
    """replay_bpe(corpus, [its merges]) with the trace's convention reproduces the trace: the
    same counts, segmentation, pair table and vocabulary at every step."""
    kw = REPLAY_CONVENTIONS[name]
    trace = train_bpe(counts, num_merges, tie_break=tie_break, min_frequency=1, **kw)
    replay_kw = {k: v for k, v in kw.items() if k != "tie_break"}
    replayed = replay_bpe(counts, [m.pair for m in trace.merges], **replay_kw)
    assert replayed.stop_reason == "num_merges"
    assert_same_history(replayed, trace)


def test_replay_own_merges_on_docs(docs_text, docs_trace):
    """Python's docs, 300 subword-nmt merges: replaying them reproduces every merge's count and
    merged occurrences, and the segmentation and pair table (checked every 20 steps: rebuilding
    8,831 words per step is what costs; the property test above checks every step)."""
    replayed = replay_bpe(docs_text, [m.pair for m in docs_trace.merges], preset="subword-nmt")
    assert [(m.pair, m.count) for m in replayed.merges] == [(m.pair, m.count) for m in docs_trace.merges]
    assert replayed.merged_occurrences == docs_trace.merged_occurrences
    for k in [*range(0, len(docs_trace), 20), len(docs_trace) - 1]:
        assert replayed[k].segmentation == docs_trace[k].segmentation, k
        assert replayed[k].pair_counts == docs_trace[k].pair_counts, k
    assert replayed[-1].vocab == docs_trace[-1].vocab


def test_replay_merge_that_never_occurs():
    """bpe_viz.replay_bpe docstring: "A merge whose pair does not occur is still recorded
    (count 0), so step numbers match the list": replay_bpe({"low": 5, "lower": 2},
    [("l", "o"), ("x", "y")]) -> [("lo", 7), ("xy", 0)]. Every snapshot must be readable, and the
    never-occurring merge changes nothing. (Known bug, being fixed: reading trace[2] raised
    KeyError('x'), because "x" and "y" have no token-count slot.)"""
    trace = replay_bpe({"low": 5, "lower": 2}, [("l", "o"), ("x", "y")])
    assert [(m.token, m.count) for m in trace.merges] == [("lo", 7), ("xy", 0)]
    assert len(trace) == 3
    for k in range(3):
        snap = trace[k]
        assert snap.segmentation and snap.pair_counts and snap.vocab
    assert trace[1].segmentation == {"low": ("lo", "w", "</w>"), "lower": ("lo", "w", "e", "r", "</w>")}
    assert trace[2].segmentation == trace[1].segmentation
    assert trace[2].pair_counts == trace[1].pair_counts
    assert [e.token for e in trace[2].vocab][-2:] == ["lo", "xy"]
    assert trace[2].vocab[-1].count == 0 and trace[2].vocab[-1].made_at == 2


def test_replay_foreign_codes_equals_apply_bpe(docs_trace, tmp_path):
    """Codes learned elsewhere (train_bpe on Python's docs, "subword-nmt", 300 merges, written as a
    codes file) replayed over the SLP3 sentence (Jurafsky & Martin, SLP3 §2.5.2): most codes never
    occur in it, yet every step's segmentation, pair table and vocabulary must be readable, and
    after k merges each word's segmentation is what apply_bpe gives with the first k codes
    (bpe_viz.encode with num_merges=k). Replaying merges in order equals apply_bpe's
    lowest-rank-first loop because a pair containing the token made by merge k can only have a
    rank > k."""
    path = tmp_path / "docs.codes"
    write_codes(docs_trace, path)
    codes = read_codes(path)
    assert len(codes) == DOCS_MERGES
    for replayed in (replay_bpe(SLP3_CORPUS, codes, preset="subword-nmt"), replay_codes(SLP3_CORPUS, path)):
        assert len(replayed) == DOCS_MERGES + 1
        assert list(replayed[0].segmentation) == ["low", "lowest", "newer", "wider", "new"]
        for k in range(len(replayed)):
            snap = replayed[k]
            seg, pairs, vocab = snap.segmentation, snap.pair_counts, snap.vocab
            assert len(vocab) == len(replayed[0].vocab) + k
            expected = {w: tuple(encode(w, docs_trace, num_merges=k).pieces) for w in seg}
            assert seg == expected, k
            recount: dict = {}
            for w, syms in seg.items():
                for p in zip(syms, syms[1:]):
                    recount[p] = recount.get(p, 0) + snap.word_counts[w]
            assert pairs == recount, k
        # a code that never occurs in the sentence changes nothing
        unused = next(k for k, m in enumerate(replayed.merges, 1) if m.count == 0)
        assert replayed[unused].segmentation == replayed[unused - 1].segmentation


# -- Hugging Face tokenizers -----------------------------------------------------------------


def hf_and_ours(hf, trace, text, num_merges=None):
    theirs = hf.encode(text)
    ours = encode(text, trace, num_merges=num_merges)
    return theirs, ours


@pytest.mark.parametrize(
    "kw",
    [
        pytest.param(dict(preset="subword-nmt"), id="subword-nmt"),
        # regression: end_of_word_suffix=None used to be passed on, which tokenizers rejects
        pytest.param(dict(end_of_word=None), id="no-marker"),
    ],
)
def test_hf_tokenizer_encodes_like_bpe_viz(docs_text, kw):
    """to_hf_tokenizer docstring: ids are the trace's ids, and encodings equal bpe_viz.encode's
    where the conventions agree (marker glued to the last character, or no marker). Run on
    Python's documentation (300 merges), on unseen words and with a smaller merge budget."""
    trace = train_bpe(docs_text, DOCS_MERGES, **kw)
    hf = to_hf_tokenizer(trace)
    theirs, ours = hf_and_ours(hf, trace, docs_text)
    assert len(ours.tokens) > 100_000
    assert theirs.tokens == ours.tokens
    assert theirs.ids == ours.ids
    assert theirs.offsets == ours.offsets
    unseen = "zebra🙂 ÆØÅ lambda: __init__ x"
    theirs, ours = hf_and_ours(hf, trace, unseen)
    assert (theirs.tokens, theirs.ids) == (ours.tokens, ours.ids)
    assert trace.unk_token in ours.tokens
    small = to_hf_tokenizer(trace, 50)
    theirs, ours = hf_and_ours(small, trace, docs_text[:20000], num_merges=50)
    assert (theirs.tokens, theirs.ids) == (ours.tokens, ours.ids)
    assert hf.token_to_id(trace.unk_token) == 0
    for i, tok in enumerate(trace.id_to_token[:50]):
        assert hf.id_to_token(i) == tok


@pytest.mark.parametrize(
    "make, match",
    [
        pytest.param(lambda: train_bpe(SLP3_CORPUS, 3, preset="sennrich2016"), "end-of-word symbol", id="own-symbol"),
        pytest.param(lambda: train_bpe(SLP3_CORPUS, 3, preset="slp3"), "end-of-word symbol", id="slp3"),
        pytest.param(lambda: train_bpe(SLP3_CORPUS, 3, preset="subword-nmt", byte_level=True), "byte-level", id="byte-level"),
        pytest.param(lambda: train_wordpiece(SLP3_CORPUS, 3), "only BPE", id="wordpiece"),
        pytest.param(
            lambda: train_bpe("a_b a_b", 3, end_of_word="_", attach_end_of_word=True, min_frequency=1),
            "marker text",
            id="marker-in-text",
        ),
    ],
)
def test_hf_tokenizer_refuses_what_it_cannot_represent(make, match):
    """to_hf_tokenizer refuses, with a ValueError saying why, traces Hugging Face's BPE model
    would encode differently: an end-of-word symbol of its own, byte-level symbols, WordPiece,
    a corpus containing the marker text."""
    with pytest.raises(ValueError, match=match) as info:
        to_hf_tokenizer(make())
    assert str(info.value).startswith("trace:")


def test_hf_tokenizer_bad_arguments():
    """Errors name the argument: a non-trace, a merge budget outside 0..len(trace.merges)."""
    trace = train_bpe(SLP3_CORPUS, 3, preset="subword-nmt")
    with pytest.raises(TypeError, match="trace"):
        to_hf_tokenizer("not a trace")
    with pytest.raises(ValueError, match="num_merges"):
        to_hf_tokenizer(trace, 4)
    with pytest.raises(ValueError, match="num_merges"):
        to_hf_tokenizer(trace, -1)
