"""Property tests: the engine against the literal reference (tests/reference.py), and snapshot
invariants, on random small corpora under every convention."""

from __future__ import annotations

import unicodedata
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bpe_viz import best_pair, iter_bpe, train_bpe
from bpe_viz.engine.text.alphabet import BYTE_SYMBOLS, bytes_to_symbols

from reference import reference_bpe

# letters that collide with the markers' text, regex metacharacters, a backslash, a precomposed
# and a combining accent, a Hangul syllable (3 UTF-8 bytes) and an emoji (4 bytes, astral)
ALPHABET = ["a", "b", "_", "<", "/", "w", ">", "\\", "é", "\u0301", "한", "🙂"]

# (end_of_word, attach_end_of_word)
CONVENTIONS = [(None, False), ("</w>", False), ("</w>", True), ("_", False), ("_", True)]

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def cases(draw, conventions=CONVENTIONS, tie_breaks=("first", "lexicographic"), letters=ALPHABET):
    """(corpus, num_merges, keyword arguments) for train_bpe and reference_bpe alike."""
    # a small per-example alphabet makes repeated pairs (and so ties) common
    alphabet = draw(st.lists(st.sampled_from(letters), min_size=1, max_size=4, unique=True))
    word = st.text(alphabet=st.sampled_from(alphabet), min_size=1, max_size=7)
    counts = draw(st.dictionaries(word, st.integers(1, 5), min_size=1, max_size=6))
    form = draw(st.sampled_from(["mapping", "list", "text"]))
    if form == "mapping":
        corpus = counts
    else:
        words = [w for w, c in counts.items() for _ in range(c)]
        # shuffle while keeping each word's first appearance order meaningful
        words = draw(st.permutations(words))
        corpus = words if form == "list" else " ".join(words)
    eow, attach = draw(st.sampled_from(conventions))
    kw = dict(
        end_of_word=eow,
        attach_end_of_word=attach,
        tie_break=draw(st.sampled_from(tie_breaks)),
        min_frequency=draw(st.integers(1, 3)),
        byte_level=draw(st.booleans()),
    )
    num_merges = draw(st.integers(0, 40))
    return corpus, num_merges, kw


def _word_view(word: str, kw) -> str:
    """The word as training spells it: characters or byte symbols, then the marker text."""
    base = bytes_to_symbols(word) if kw["byte_level"] else word
    return base + (kw["end_of_word"] or "")


def _recount(segmentation: dict, word_counts: dict) -> dict:
    """Pair counts of a public segmentation, counted from scratch in first-met order."""
    table: dict = {}
    for w, syms in segmentation.items():
        for p in zip(syms, syms[1:]):
            table[p] = table.get(p, 0) + word_counts[w]
    return table


# -- the engine against the reference ----------------------------------------------------


@SETTINGS
@given(cases())
def test_engine_matches_reference(case):
    """Merges (pair, count), every snapshot's segmentation and pair table, and the stop reason
    equal those of the literal reference trainer.

    Pair tables are in public spelling, so two different internal pairs spelled alike (a word
    holding the marker text) add up, in the engine as in the reference. One documented
    exception: after a lexicographic tie between two pairs of the same public spelling
    (undefined by the rule) only the merges up to that tie are compared."""
    corpus, num_merges, kw = case
    trace = train_bpe(corpus, num_merges, **kw)
    ref = reference_bpe(corpus, num_merges, **kw)
    merges = [(m.pair, m.count) for m in trace.merges]
    if ref.ambiguous_at is None:
        assert merges == ref.merges
        assert trace.stop_reason == ref.stop_reason
        assert len(trace) == len(ref.segmentations)
        steps = len(trace)
    else:
        n = ref.ambiguous_at
        assert merges[:n] == ref.merges[:n]
        steps = n  # snapshots 0 .. n-1 are unaffected by the ambiguous pick
    assert [trace[k].segmentation for k in range(steps)] == ref.segmentations[:steps]
    assert [trace[k].pair_counts for k in range(steps)] == ref.pair_tables[:steps]


@SETTINGS
@given(cases(conventions=[(None, False), ("</w>", False), ("</w>", True)]))
def test_engine_matches_reference_without_marker_collisions(case):
    """As above, restricted to corpora where no word contains the marker text, so the public
    spelling is unambiguous and everything must match exactly, including every pair table and
    the tied pairs of every merge (ordered as the tie rule ranks them)."""
    corpus, num_merges, kw = case
    ref = reference_bpe(corpus, num_merges, **kw)
    assume(not ref.marker_in_text)
    trace = train_bpe(corpus, num_merges, **kw)
    assert [(m.pair, m.count) for m in trace.merges] == ref.merges
    assert trace.stop_reason == ref.stop_reason
    assert [s.segmentation for s in trace] == ref.segmentations
    assert [s.pair_counts for s in trace] == ref.pair_tables
    for m in trace.merges:
        before = ref.pair_tables[m.step - 1]
        tied = [p for p, c in before.items() if c == m.count and p != m.pair]  # first-met order
        if kw["tie_break"] == "lexicographic":
            tied.sort(reverse=True)
        assert list(m.tied) == tied, f"merge {m.step}"


@SETTINGS
@given(cases(tie_breaks=("lexicographic",), letters=["\U0010ffff", "\U0010fffe", "\x00", "a", "\uffff", "_"]))
def test_lexicographic_extreme_code_points(case):
    """The lexicographic rule compares code points, so a symbol sorts after its own prefixes,
    also with U+10FFFF, U+FFFF and NUL in the text (the engine's heap keys must not collide)."""
    corpus, num_merges, kw = case
    trace = train_bpe(corpus, num_merges, **kw)
    ref = reference_bpe(corpus, num_merges, **kw)
    n = ref.ambiguous_at if ref.ambiguous_at is not None else len(ref.merges)
    assert [(m.pair, m.count) for m in trace.merges][:n] == ref.merges[:n]
    if ref.ambiguous_at is None:
        assert len(trace.merges) == len(ref.merges)
        assert trace.stop_reason == ref.stop_reason


# -- snapshot invariants ------------------------------------------------------------------


@SETTINGS
@given(cases(), st.data())
def test_segmentation_joins_back_to_word(case, data):
    """Each word's symbols, joined, spell the word (or its byte symbols) plus the marker text,
    at every step; the words and counts are the corpus's, in order of first appearance."""
    corpus, num_merges, kw = case
    trace = train_bpe(corpus, num_merges, **kw)
    k = data.draw(st.integers(0, len(trace) - 1), label="step")
    for step in (0, k, len(trace) - 1):
        snap = trace[step]
        assert snap.step == step
        assert {w: "".join(s) for w, s in snap.segmentation.items()} == {
            w: _word_view(w, kw) for w in snap.segmentation
        }
        assert all(len(s) >= 1 and all(s) for s in snap.segmentation.values())
        expected = Counter(corpus.split()) if isinstance(corpus, str) else Counter(corpus) if isinstance(corpus, list) else corpus
        assert snap.word_counts == dict(expected)
        assert list(snap.word_counts) == list(dict.fromkeys(corpus.split() if isinstance(corpus, str) else corpus))
    if kw["byte_level"]:
        allowed = set(BYTE_SYMBOLS) | {kw["end_of_word"]} if kw["end_of_word"] else set(BYTE_SYMBOLS)
        for syms in trace[0].segmentation.values():
            for s in syms:
                if kw["attach_end_of_word"] and kw["end_of_word"] and s.endswith(kw["end_of_word"]) and len(s) > len(kw["end_of_word"]):
                    s = s[: -len(kw["end_of_word"])]
                assert s in allowed


@SETTINGS
@given(cases(), st.data())
def test_pair_counts_equal_recount(case, data):
    """A snapshot's pair table is a recount of that snapshot's segmentation (every adjacent
    pair, weighted by the word's count). This includes words that contain the marker text."""
    corpus, num_merges, kw = case
    trace = train_bpe(corpus, num_merges, **kw)
    k = data.draw(st.integers(0, len(trace) - 1), label="step")
    for step in {0, k, len(trace) - 1}:
        snap = trace[step]
        assert snap.pair_counts == _recount(snap.segmentation, snap.word_counts), f"step {step}"


@SETTINGS
@given(cases(), st.data())
def test_ranked_pairs_cover_every_occurrence(case, data):
    """The counts in a snapshot's ranked pair list, and in its pair table, add up to the number
    of adjacent symbol pairs in the corpus (sum over words of count * (symbols - 1))."""
    corpus, num_merges, kw = case
    trace = train_bpe(corpus, num_merges, **kw)
    snap = trace[data.draw(st.integers(0, len(trace) - 1), label="step")]
    total = sum(snap.word_counts[w] * (len(s) - 1) for w, s in snap.segmentation.items())
    assert sum(c for _, c in snap.ranked_pairs) == total
    assert sum(snap.pair_counts.values()) == total


@SETTINGS
@given(cases())
def test_vocab_grows_by_one_per_merge(case):
    """The vocabulary is the initial symbols plus one token per merge, in merge order; ids are
    stable and cover the vocabulary."""
    corpus, num_merges, kw = case
    trace = train_bpe(corpus, num_merges, **kw)
    base = [e.token for e in trace[0].vocab]
    assert all(e.made_at == 0 for e in trace[0].vocab)
    for k, snap in enumerate(trace):
        tokens = [e.token for e in snap.vocab]
        assert len(tokens) == len(base) + k
        assert tokens == base + [m.token for m in trace.merges[:k]]
        assert [e.made_at for e in snap.vocab] == [0] * len(base) + list(range(1, k + 1))
        # each entry's count is its token's occurrences in this step's segmentation, recounted
        occurs = Counter()
        for w, syms in snap.segmentation.items():
            for s in syms:
                occurs[s] += snap.word_counts[w]
        if len(set(tokens)) == len(tokens):  # (a literal "_" and the marker "_" share a spelling)
            assert [e.count for e in snap.vocab] == [occurs[t] for t in tokens]
            assert all(type(e.count) is int for e in snap.vocab)
    for m in trace.merges:
        assert m.token == m.pair[0] + m.pair[1]
        assert m.score is None
    assert [m.step for m in trace.merges] == list(range(1, len(trace.merges) + 1))
    ids = trace.id_to_token
    assert len(ids) == trace.vocab_size
    assert ids[0] == trace.unk_token
    assert trace.vocab_size >= 1 + len(trace.base_symbols) + len(trace.merges)


@SETTINGS
@given(cases())
def test_token_to_id_finds_every_token(case):
    """Every token of the vocabulary (initial symbols and merged tokens, public spelling) has an
    id, and id_to_token maps that id back to the same spelling; ids of merged tokens are
    unique unless two merges made the same string."""
    corpus, num_merges, kw = case
    trace = train_bpe(corpus, num_merges, **kw)
    ids = trace.id_to_token
    for e in trace[-1].vocab:
        i = trace.token_to_id(e.token)
        assert i is not None, e.token
        assert ids[i] == e.token
    assert trace.token_to_id("\x00 not a token") is None


@SETTINGS
@given(cases())
def test_token_counts_are_occurrences(case):
    """Each token's count at a step is how often it occurs in that step's segmentation
    (weighted); merged-away tokens have count 0 and occurs False. Tokens spelled alike (a
    literal "_" and the marker "_") add up, as in the shown segmentation."""
    corpus, num_merges, kw = case
    trace = train_bpe(corpus, num_merges, **kw)
    for snap in (trace[0], trace[len(trace) // 2], trace[-1]):
        occ: Counter = Counter()
        for w, syms in snap.segmentation.items():
            for s in syms:
                occ[s] += snap.word_counts[w]
        assert {t: c for t, c in snap.token_counts.items() if c} == dict(occ)
        assert all(e.occurs == (e.count > 0) for e in snap.vocab)


@SETTINGS
@given(cases())
def test_ranked_pairs_and_best_pair(case):
    """ranked_pairs[0] is the next merge's pair (with its count) whenever there is a next
    merge; counts never increase down the list; best_pair() on a snapshot's table picks the
    next merge (lexicographic rule: on pair_counts; first rule: on a fresh recount in
    first-met order); the last snapshot agrees with the stop reason."""
    corpus, num_merges, kw = case
    trace = train_bpe(corpus, num_merges, **kw)
    ref = reference_bpe(corpus, num_merges, **kw)
    for k in range(len(trace)):
        snap = trace[k]
        ranked = snap.ranked_pairs
        counts = [c for _, c in ranked]
        assert counts == sorted(counts, reverse=True)
        if not ref.collisions[k] and (ref.ambiguous_at is None or k < ref.ambiguous_at):
            assert dict(ranked) == snap.pair_counts
            assert len(ranked) == len(snap.pair_counts)
        nxt = snap.next_merge
        if nxt is None:
            continue
        assert nxt is trace.merges[k]
        assert ranked[0] == (nxt.pair, nxt.count)
        if ref.collisions[k]:
            continue
        if kw["tie_break"] == "lexicographic":
            assert best_pair(snap.pair_counts, "lexicographic")[0] == nxt.pair
        else:
            assert best_pair(_recount(snap.segmentation, snap.word_counts), "first")[0] == nxt.pair
    last = trace[-1]
    if trace.stop_reason == "num_merges":
        assert len(trace.merges) == num_merges
    elif trace.stop_reason == "no_pairs":
        assert last.ranked_pairs == [] and last.pair_counts == {}
        assert all(len(s) == 1 for s in last.segmentation.values())
    else:
        assert trace.stop_reason == "min_frequency"
        assert 0 < last.ranked_pairs[0][1] < kw["min_frequency"]
    assert all(m.count >= kw["min_frequency"] for m in trace.merges)


@SETTINGS
@given(cases())
def test_iter_bpe_and_callback(case):
    """iter_bpe yields the same merges as train_bpe, one per step; train_bpe's callback is
    called once per merge, in order, with the merges it records."""
    corpus, num_merges, kw = case
    seen = []
    trace = train_bpe(corpus, num_merges, callback=seen.append, **kw)
    assert seen == trace.merges
    assert [m.step for m in seen] == list(range(1, len(trace.merges) + 1))
    run = iter_bpe(corpus, num_merges, **kw)
    assert run.trace.stop_reason == "running"
    got = []
    for m in run:
        got.append(m)
        assert len(run.trace) == m.step + 1  # the trace grows as we go
    assert got == trace.merges
    assert run.trace.stop_reason == trace.stop_reason
    assert [s.segmentation for s in run.trace] == [s.segmentation for s in trace]


@SETTINGS
@given(cases())
def test_trace_sequence_protocol(case):
    """A trace is a sequence of len(merges) + 1 snapshots; negative indexes count from the end;
    slicing and iteration give the same snapshots; out-of-range steps raise IndexError."""
    corpus, num_merges, kw = case
    trace = train_bpe(corpus, num_merges, **kw)
    n = len(trace)
    assert n == len(trace.merges) + 1
    assert [s.step for s in trace] == list(range(n))
    assert [trace[-i].step for i in range(1, n + 1)] == list(range(n - 1, -1, -1))
    assert [s.step for s in trace[1:]] == list(range(1, n))
    assert trace[-1].segmentation == trace[n - 1].segmentation
    for bad in (n, -n - 1):
        with pytest.raises(IndexError):
            trace[bad]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["한", "글", "e\u0301", "é", "a", "\u1100\u1161"]), min_size=1, max_size=4).map("".join),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from(["NFC", "NFD"]),
)
def test_normalization_equals_normalizing_first(words, form):
    """normalization="NFC"/"NFD" trains exactly as on text normalized beforehand
    (unicodedata.normalize), and the reference agrees."""
    text = " ".join(words)
    a = train_bpe(text, 20, normalization=form, min_frequency=1)
    norm = unicodedata.normalize(form, text)
    b = train_bpe(norm, 20, min_frequency=1)
    assert [(m.pair, m.count) for m in a.merges] == [(m.pair, m.count) for m in b.merges]
    assert a[-1].segmentation == b[-1].segmentation
    assert [(m.pair, m.count) for m in a.merges] == reference_bpe(norm, 20, min_frequency=1).merges


def test_frames_mirror_snapshot():
    """The pandas views show exactly the snapshot's data (Sennrich et al. 2016 toy dictionary)."""
    trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 4)
    snap = trace[4]
    wf = snap.words_frame()
    assert list(wf["word"]) == list(snap.segmentation)
    assert list(wf["count"]) == [5, 2, 6, 3]
    assert list(wf["segmentation"]) == [" ".join(s) for s in snap.segmentation.values()]
    assert list(wf["symbols"]) == [len(s) for s in snap.segmentation.values()]
    pf = snap.pairs_frame()
    assert list(zip(pf["left"], pf["right"], pf["count"])) == [(a, b, c) for (a, b), c in snap.ranked_pairs]
    vf = snap.vocab_frame()
    assert list(vf["token"]) == [e.token for e in snap.vocab]
    assert list(vf["count"]) == [e.count for e in snap.vocab]
    assert [trace.id_to_token[i] for i in vf["id"]] == list(vf["token"])


def test_symbol_dict_conventions_match_plain_corpus():
    """from_symbol_dict reads the marker convention off the keys: own symbol, glued to the last
    character, or none; each trains exactly like the plain word counts with that convention."""
    from bpe_viz import from_symbol_dict

    words = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    forms = [
        (lambda w: " ".join(w) + " </w>", dict(end_of_word="</w>", attach_end_of_word=False)),
        (lambda w: " ".join(w) + "</w>", dict(end_of_word="</w>", attach_end_of_word=True)),
        (lambda w: " ".join(w), dict(end_of_word=None)),
    ]
    for spell, kw in forms:
        sc = from_symbol_dict({spell(w): c for w, c in words.items()})
        a = train_bpe(sc, 12, min_frequency=1)
        b = train_bpe(words, 12, min_frequency=1, **kw)
        assert [(m.pair, m.count) for m in a.merges] == [(m.pair, m.count) for m in b.merges], kw
        assert [s.segmentation for s in a] == [s.segmentation for s in b]
        assert a.convention.end_of_word == kw["end_of_word"]
        assert a.convention.attach_end_of_word == kw.get("attach_end_of_word", False)


def test_iter_bpe_stopped_early_keeps_partial_trace():
    """Taking only some merges from iter_bpe leaves a valid trace of those merges, still
    'running'; nothing is computed before the first merge is asked for."""
    run = iter_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
    assert len(run.trace) == 1 and run.trace.stop_reason == "running"
    it = iter(run)
    first = next(it)
    second = next(it)
    assert (first.pair, second.pair) == (("e", "s"), ("es", "t"))
    assert len(run.trace) == 3
    assert run.trace.stop_reason == "running"
    assert run.trace[2].segmentation["widest"] == ("w", "i", "d", "est", "</w>")
    assert run.total == 10
    rest = list(it)
    assert len(rest) == 8 and run.trace.stop_reason == "num_merges"


@SETTINGS
@given(cases(), st.data())
def test_top_pairs_is_a_prefix_of_ranked_pairs(case, data):
    """top_pairs(n) ranks only the candidates it needs, but must equal ranked_pairs[:n]; and a
    merge's .tied equals the pairs ranked right after it that share its count."""
    corpus, num_merges, kw = case
    trace = train_bpe(corpus, num_merges, **kw)
    k = data.draw(st.integers(0, len(trace) - 1))
    n = data.draw(st.integers(0, 12))
    fresh = train_bpe(corpus, num_merges, **kw)  # no cached ranked_pairs on this one
    assert fresh[k].top_pairs(n) == trace[k].ranked_pairs[:n]
    if k:
        m = trace.merges[k - 1]
        expected = tuple(p for p, c in trace[k - 1].ranked_pairs if c == m.count and p != m.pair)
        assert fresh.merges[k - 1].tied == expected


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(st.text(alphabet="abcde", min_size=1, max_size=6), st.integers(1, 6), min_size=1, max_size=8),
    st.sampled_from(["first", "lexicographic"]),
    st.data(),
)
def test_wordpiece_top_pairs_and_ties(counts, tie_break, data):
    """WordPiece: top_pairs(n) equals ranked_pairs[:n] (exact Fraction scores, float only to
    shortlist), ranked_pairs[0] is the next merge with its score, and .tied holds exactly the
    other pairs with the same best score."""
    from bpe_viz import train_wordpiece

    trace = train_wordpiece(counts, 12, tie_break=tie_break)
    fresh = train_wordpiece(counts, 12, tie_break=tie_break)
    k = data.draw(st.integers(0, len(trace) - 1))
    n = data.draw(st.integers(0, 10))
    assert fresh[k].top_pairs(n) == trace[k].ranked_pairs[:n]
    snap = trace[k]
    if snap.next_merge is not None:
        m = snap.next_merge
        scores = snap.scores()
        assert snap.ranked_pairs[0][0] == m.pair
        assert scores[m.pair] == m.score == max(scores.values())
        assert set(fresh.merges[k].tied) == {p for p, s in scores.items() if s == m.score} - {m.pair}
