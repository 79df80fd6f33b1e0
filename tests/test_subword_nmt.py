"""Differential tests against subword-nmt itself (learn_bpe and apply_bpe, run in-process).

subword-nmt (Sennrich et al.) is the reference implementation of the 2016 paper; since 0.2 it
glues "</w>" to the last character and breaks ties with max(stats, key=lambda x: (stats[x], x)).
Our preset "subword-nmt" claims to reproduce it merge for merge.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from subword_nmt.apply_bpe import BPE
from subword_nmt.learn_bpe import learn_bpe

from bpe_viz import train_bpe

_VERBOSE = re.compile(r"pair (\d+): (\S+) (\S+) -> \S+ \(frequency (\d+)\)$")


def run_learn_bpe(lines: list[str], num_symbols: int, min_frequency: int = 2, is_dict: bool = False):
    """Run subword-nmt's learn_bpe on ``lines``; return (codes text, [(pair, count), ...]).

    The counts come from its --verbose log ("pair i: a b -> ab (frequency n)")."""
    out = io.StringIO()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        learn_bpe(io.StringIO("\n".join(lines) + "\n"), out, num_symbols, min_frequency=min_frequency,
                  verbose=True, is_dict=is_dict)
    merges = []
    for line in err.getvalue().replace("\r", "\n").splitlines():
        m = _VERBOSE.search(line)  # tqdm may write its bar on the same line
        if m:
            merges.append(((m.group(2), m.group(3)), int(m.group(4))))
    codes = out.getvalue()
    assert codes.startswith("#version: 0.2\n")
    pairs = [tuple(line.split(" ")) for line in codes.splitlines()[1:]]
    assert pairs == [p for p, _ in merges]  # the log and the codes file agree
    return codes, merges


def normalized_lines(text: str) -> list[str]:
    """The text's lines as subword-nmt reads them: words split by single spaces, no empties."""
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return [line for line in lines if line]


@pytest.fixture(scope="module")
def docs_codes(docs_text):
    """subword-nmt's codes and merges on Python's documentation topics (2000 symbols)."""
    return run_learn_bpe(normalized_lines(docs_text), 2000, min_frequency=2)


@pytest.fixture(scope="module")
def docs_trace(docs_text):
    return train_bpe(docs_text, 2000, preset="subword-nmt")


def test_docs_merges_equal_subword_nmt(docs_codes, docs_trace):
    """subword-nmt 0.3.8 learn_bpe on pydoc_data.topics (Python's own docs), -s 2000
    --min-frequency 2: our preset "subword-nmt" makes the same 2000 merges in the same order,
    with the same frequencies (subword-nmt's --verbose log)."""
    _, merges = docs_codes
    assert len(merges) == 2000
    ours = [(m.pair, m.count) for m in docs_trace.merges]
    assert len(ours) == len(merges)
    assert ours == merges
    assert docs_trace.stop_reason == "num_merges"


def test_write_codes_equals_subword_nmt_file(docs_codes, docs_trace, tmp_path):
    """The codes file we write for the docs trace is byte for byte subword-nmt's."""
    from bpe_viz import read_codes, write_codes

    codes, merges = docs_codes
    path = tmp_path / "ours.codes"
    write_codes(docs_trace, path)
    assert path.read_text(encoding="utf-8") == codes
    assert read_codes(path) == [p for p, _ in merges]


TIE_CASES = [
    # (text, what subword-nmt's rule picks first, what "first pair met" picks first)
    ("ab ab cd cd", ("c", "d</w>"), ("a", "b</w>")),
    ("za za éa éa", ("é", "a</w>"), ("z", "a</w>")),  # code points: é (U+00E9) > z
    ("xy xy Xy Xy", ("x", "y</w>"), ("x", "y</w>")),  # X < x, and x is met first anyway
    ("Xy Xy xy xy", ("x", "y</w>"), ("X", "y</w>")),
]


@pytest.mark.parametrize("text, lexicographic, first", TIE_CASES)
def test_tie_rule_matches_subword_nmt(text, lexicographic, first):
    """subword-nmt 0.3.8 learn_bpe (max(stats, key=lambda x: (stats[x], x))) on small inputs where
    two pairs tie: its whole merge list equals our preset's; the "first" rule picks differently
    where the greatest pair is not the first met (hand-derived expectations above)."""
    _, merges = run_learn_bpe([text], 50, min_frequency=1)
    assert merges[0][0] == lexicographic
    trace = train_bpe(text, 50, preset="subword-nmt", min_frequency=1)
    assert [(m.pair, m.count) for m in trace.merges] == merges
    other = train_bpe(text, 50, preset="subword-nmt", min_frequency=1, tie_break="first")
    assert other.merges[0].pair == first


def test_dict_input_matches_mapping_corpus():
    """subword-nmt learn_bpe --dict-input ("word count" lines) equals our mapping corpus
    (Sennrich et al. 2016 toy dictionary, counts low 5, lower 2, newest 6, widest 3)."""
    words = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    _, merges = run_learn_bpe([f"{w} {c}" for w, c in words.items()], 10, min_frequency=2, is_dict=True)
    trace = train_bpe(words, 10, preset="subword-nmt")
    assert [(m.pair, m.count) for m in trace.merges] == merges
    assert [p for p, _ in merges][:3] == [("s", "t</w>"), ("e", "st</w>"), ("l", "o")]


# words without whitespace; no "/" so the literal text "</w>" cannot occur (subword-nmt would
# confuse it with its marker)
_WORD = st.text(alphabet=st.sampled_from(["a", "b", "c", "\\", "é", "한", "🙂", "<", ">", "("]), min_size=1, max_size=6)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.lists(_WORD, min_size=1, max_size=8), min_size=1, max_size=6),
    st.integers(1, 40),
    st.integers(1, 3),
)
def test_random_corpora_match_subword_nmt(lines, num_symbols, min_frequency):
    """subword-nmt learn_bpe on random small texts: the same merges and frequencies."""
    # subword-nmt itself crashes (max() of an empty table) when no word has two characters
    assume(any(len(w) > 1 for words in lines for w in words))
    text_lines = [" ".join(words) for words in lines]
    _, merges = run_learn_bpe(text_lines, num_symbols, min_frequency=min_frequency)
    trace = train_bpe("\n".join(text_lines), num_symbols, preset="subword-nmt", min_frequency=min_frequency)
    assert [(m.pair, m.count) for m in trace.merges] == merges


# -- encoding against apply_bpe ---------------------------------------------------------------


def to_subword_nmt(pieces: list[str]) -> list[str]:
    """Our pieces of one word (marker glued to the last piece) in apply_bpe's "@@" format."""
    assert pieces[-1].endswith("</w>")
    last = pieces[-1][: -len("</w>")]
    return [p + "@@" for p in pieces[:-1]] + ([last] if last else [])


UNSEEN = ["zebra🙂", "ÆØÅ", "x", "qqqq", "lambda:", "__init__", "a\\b", "déjà-vu", "한국어"]


def test_encode_equals_apply_bpe(docs_text, docs_codes, docs_trace, tmp_path):
    """subword-nmt 0.3.8 apply_bpe (BPE(codes).segment_tokens) with the codes subword-nmt learned
    on the docs: our encode() gives the same segmentation for every distinct word of the docs and
    for some unseen words (with merge budgets 2000, 500 and 0)."""
    codes, _ = docs_codes
    path: Path = tmp_path / "docs.codes"
    path.write_text(codes, encoding="utf-8")
    from bpe_viz import encode

    words = list(dict.fromkeys(docs_text.split())) + UNSEEN
    for k in (2000, 500, 0):
        with path.open(encoding="utf-8") as f:
            bpe = BPE(f, merges=k)
        enc = encode(" ".join(words), docs_trace, num_merges=k)
        ours = [to_subword_nmt(p) for p in enc.word_pieces()]
        theirs = [bpe.segment_tokens([w]) for w in words]
        assert len(ours) == len(theirs) == len(words)
        mismatches = [(w, o, t) for w, o, t in zip(words, ours, theirs) if o != t]
        assert mismatches == [], f"{len(mismatches)} words differ at {k} merges, e.g. {mismatches[:5]}"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.lists(_WORD, min_size=1, max_size=8), min_size=1, max_size=6),
    st.lists(_WORD, min_size=1, max_size=8),
    st.integers(1, 40),
    st.data(),
)
def test_random_encodings_match_apply_bpe(lines, new_words, num_symbols, data):
    """subword-nmt apply_bpe with codes subword-nmt learned on a random small text: our encode()
    with the same number of merges segments the training words and new words the same way."""
    assume(any(len(w) > 1 for words in lines for w in words))
    from bpe_viz import encode

    text_lines = [" ".join(words) for words in lines]
    codes, merges = run_learn_bpe(text_lines, num_symbols, min_frequency=1)
    trace = train_bpe("\n".join(text_lines), num_symbols, preset="subword-nmt", min_frequency=1)
    assert len(trace.merges) == len(merges)
    k = data.draw(st.integers(0, len(merges)), label="merges used")
    bpe = BPE(io.StringIO(codes), merges=k)  # the first k codes (-1 would mean all)
    words = [w for ws in lines for w in ws] + new_words
    theirs = [bpe.segment_tokens([w]) for w in words]
    ours = [to_subword_nmt(p) for p in encode(" ".join(words), trace, num_merges=k).word_pieces()]
    assert ours == theirs


def test_encode_small_example_apply_bpe(tmp_path):
    """subword-nmt apply_bpe on the 2016 toy dictionary's codes (learned by subword-nmt itself:
    s t</w>, e st</w>, l o, w est</w>, ...): "lowest" -> lo@@ west (hand-checked: l o w e s t</w>
    -> l o w e st</w> -> l o w est</w> -> lo w est</w> -> lo west</w>)."""
    codes, _ = run_learn_bpe(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3, 10)
    path = tmp_path / "toy.codes"
    path.write_text(codes, encoding="utf-8")
    from bpe_viz import encode

    trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10, preset="subword-nmt")
    words = ["lowest", "newer", "wider", "low", "l", "newest"]
    with path.open(encoding="utf-8") as f:
        bpe = BPE(f)
    theirs = bpe.segment_tokens(words)
    ours = [t for p in encode(" ".join(words), trace).word_pieces() for t in to_subword_nmt(p)]
    assert ours == theirs
    assert theirs[:2] == ["lo@@", "west"]


# -- BPE-dropout (Provilkov et al. 2020), as subword-nmt's apply_bpe --dropout -------------------


def _words_of_apply_bpe(out_lines):
    """apply_bpe's output ("lo@@ w") as per-word lists of pieces, markers dropped."""
    words, cur = [], []
    for line in out_lines:
        for t in line.split():
            if t.endswith("@@"):
                cur.append(t[:-2])
            else:
                cur.append(t)
                words.append(cur)
                cur = []
    return words


@pytest.mark.parametrize("p,seed", [(0.1, 7), (0.5, 3)])
def test_dropout_is_apply_bpe_draw_for_draw(docs_text, p, seed):
    """``apply_bpe --dropout p`` after ``random.seed(seed)`` on every line of the docs text: the
    same segmentation of every word (one random stream across the lines, a draw for every
    adjacent pair on every pass, none for one-character words)."""
    import io
    import random

    from subword_nmt.apply_bpe import BPE

    from bpe_viz import encode, write_codes

    trace = train_bpe(docs_text, 1000, preset="subword-nmt")
    codes = io.StringIO()
    write_codes(trace, codes)
    codes.seek(0)
    bpe = BPE(codes, separator="@@")
    random.seed(seed)
    theirs = _words_of_apply_bpe(bpe.process_line(line + "\n", dropout=p) for line in docs_text.splitlines())
    state = random.getstate()
    enc = encode(docs_text, trace, dropout=p, seed=seed)
    assert random.getstate() == state  # our own Random(seed), never the global stream
    ours = [[x[:-4] if x.endswith("</w>") else x for x in ps] for ps in enc.word_pieces()]
    assert len(ours) == len(theirs) == 65_501
    assert ours == theirs
    assert ours != [[x[:-4] if x.endswith("</w>") else x for x in ps]
                    for ps in encode(docs_text, trace).word_pieces()]  # dropout did change something


def test_dropout_edges_and_bad_input():
    from bpe_viz import decode, encode, train_wordpiece

    trace = train_bpe("low lower newest widest " * 3, 20, preset="subword-nmt", min_frequency=1)
    text = "lowest newer widest"
    assert encode(text, trace, dropout=0.0).tokens == encode(text, trace).tokens
    full = encode(text, trace, dropout=1.0)
    assert all(len(p.replace("</w>", "")) == 1 for p in full.pieces)  # every merge dropped
    assert encode(text, trace, dropout=0.3, seed=1).tokens == encode(text, trace, dropout=0.3, seed=1).tokens
    assert decode(encode(text, trace, dropout=0.3, seed=1).ids, trace) == text
    for bad in (-0.1, 1.5, "x", True):
        with pytest.raises(ValueError, match="dropout"):
            encode(text, trace, dropout=bad)
    with pytest.raises(TypeError, match="seed"):
        encode(text, trace, dropout=0.1, seed="a")
    with pytest.raises(ValueError, match="dropout"):
        encode("hug", train_wordpiece({"hug": 3, "pug": 2}, 2), dropout=0.1)


# -- apply-bpe's glossaries and vocabulary filter (subword-nmt 0.3.8, run in-process) -------------


@pytest.fixture(scope="module")
def codes_1000(docs_text):
    """1,000 subword-nmt merges of the docs text, and the same merges as a codes file."""
    from bpe_viz import write_codes

    trace = train_bpe(docs_text, 1000, preset="subword-nmt")
    codes = io.StringIO()
    write_codes(trace, codes)
    return trace, codes.getvalue()


def _apply_bpe_lines(codes: str, lines, **options) -> list[str]:
    bpe = BPE(io.StringIO(codes), separator="@@", **options)
    # apply_bpe keeps a line's leading and trailing whitespace; our units are the words only
    return [" ".join(bpe.process_line(line + "\n").split(" ")).strip() for line in lines]


def _ours_lines(text: str, trace, **options) -> list[str]:
    from bpe_viz import encode, to_apply_bpe

    return [to_apply_bpe(encode(line, trace, **options)) for line in text.split("\n")]


@pytest.mark.parametrize("word,glossary", [
    ("", "like"), ("word", "like"), ("like", "like"), ("likeword", "like"), ("wordlikeword", "like"),
    ("likelike", "like"), ("wordlikewordlike", "like"),
])
def test_isolate_glossary_cases_of_subword_nmt(word, glossary):
    """subword-nmt's own test_glossaries.py cases, against its isolate_glossary."""
    from subword_nmt.apply_bpe import isolate_glossary

    from bpe_viz.engine.merges.applyopts import isolate_glossaries

    assert [s for s, _ in isolate_glossaries(word, [glossary])] == isolate_glossary(word, glossary)


def test_glossary_regex_and_several_glossaries_as_subword_nmt(codes_1000):
    """test_glossaries.py's multi-glossary and regex cases, end to end through apply_bpe: each
    glossary match whole, the parts around it encoded as words of their own."""
    trace, codes = codes_1000
    cases = [
        (["like", "Manuel", "USA"], ["wordlikeUSAwordManuelManuelwordUSA", "wordlikeword likeManuelword"]),
        ([r"<country>\w*</country>", r"<name>\w*</name>", r"\d+"],
         ["wordlike<country>USA</country>word10001word<name>Manuel</name>word<country>USA</country>"]),
    ]
    for glossaries, lines in cases:
        theirs = _apply_bpe_lines(codes, lines, glossaries=glossaries)
        assert _ours_lines("\n".join(lines), trace, glossaries=glossaries) == theirs
    # the example, on a trace that cuts "word" as "wo rd"
    from bpe_viz import encode, replay_bpe, to_apply_bpe

    toy = replay_bpe({"word": 1}, [("w", "o"), ("r", "d</w>")], preset="subword-nmt")

    out = to_apply_bpe(encode("wordlikeword", toy, glossaries=["like"]))
    bpe = BPE(io.StringIO("#version: 0.2\n" + "\n".join(" ".join(m.pair) for m in toy.merges) + "\n"),
              separator="@@", glossaries=["like"])
    assert out == bpe.process_line("wordlikeword") == "wo@@ rd@@ like@@ wo@@ rd"


def test_glossaries_on_every_line_of_the_docs(docs_text, codes_1000):
    trace, codes = codes_1000
    glossaries = ["like", "return", r"\d+", "(?:self|cls)"]
    lines = docs_text.split("\n")
    theirs = _apply_bpe_lines(codes, lines, glossaries=glossaries)
    ours = _ours_lines(docs_text, trace, glossaries=glossaries)
    assert ours == theirs
    assert ours != _ours_lines(docs_text, trace)  # the glossaries did change something


@pytest.mark.parametrize("threshold", [None, 50, 500])
def test_vocabulary_filter_on_every_line_of_the_docs(docs_text, codes_1000, threshold):
    """get-vocab over apply-bpe's own output, then apply-bpe --vocabulary --vocabulary-threshold:
    the same units on every line."""
    from subword_nmt.apply_bpe import read_vocabulary
    from subword_nmt.get_vocab import get_vocab

    trace, codes = codes_1000
    lines = docs_text.split("\n")
    vout = io.StringIO()
    get_vocab(io.StringIO("\n".join(_apply_bpe_lines(codes, lines))), vout)
    counts = {w: int(c) for w, c in (line.split(" ") for line in vout.getvalue().splitlines())}
    vocab = read_vocabulary(io.StringIO(vout.getvalue()), threshold)
    theirs = _apply_bpe_lines(codes, lines, vocab=vocab)
    ours = _ours_lines(docs_text, trace, vocabulary=counts, vocabulary_threshold=threshold)
    assert ours == theirs
    if threshold == 500:
        assert ours != _ours_lines(docs_text, trace)  # rare units were split back


def test_glossaries_with_dropout_draw_for_draw(docs_text, codes_1000):
    """No draws for a glossary match: the random stream stays aligned with apply_bpe's."""
    import random

    trace, codes = codes_1000
    glossaries = ["like", r"\d+"]
    bpe = BPE(io.StringIO(codes), separator="@@", glossaries=glossaries)
    lines = docs_text.split("\n")[:3000]
    random.seed(11)
    theirs = [bpe.process_line(line + "\n", dropout=0.2).rstrip("\n") for line in lines]
    from bpe_viz import encode, to_apply_bpe

    enc = encode("\n".join(lines), trace, glossaries=glossaries, dropout=0.2, seed=11)
    ours = [to_apply_bpe(encode(line, trace)) for line in lines]  # shape only
    assert len(ours) == len(theirs)
    assert to_apply_bpe(enc) == " ".join(t for t in " ".join(theirs).split())


def test_glossary_and_vocabulary_bad_input(codes_1000):
    from bpe_viz import encode

    trace, _ = codes_1000
    with pytest.raises(TypeError, match="glossaries"):
        encode("a b", trace, glossaries="like")
    with pytest.raises(TypeError, match="glossaries"):
        encode("a b", trace, glossaries=[3])
    with pytest.raises(ValueError, match="glossaries.*regular expression"):
        encode("a b", trace, glossaries=["(unclosed"])
    with pytest.raises(ValueError, match="glossaries"):
        encode("a b", trace, glossaries=[""])
    with pytest.raises(ValueError, match="vocabulary_threshold"):
        encode("a b", trace, vocabulary_threshold=5)
    with pytest.raises(TypeError, match="vocabulary"):
        encode("a b", trace, vocabulary="on ir@@")
    with pytest.raises(TypeError, match="vocabulary_threshold"):
        encode("a b", trace, vocabulary={"a": 1}, vocabulary_threshold="5")
    sp = train_bpe("low lower newest", vocab_size=15, preset="sentencepiece")
    with pytest.raises(ValueError, match="vocabulary.*subword-nmt"):
        encode("low", sp, vocabulary={"low": 3})
    # a glossary works on any trace: the match is one piece, the parts around it words of their own
    (pieces,) = encode("lowXlow", sp, glossaries=["X"]).word_pieces()
    assert pieces[pieces.index("X") + 1] == "▁lo" and pieces[0] == "▁lo"
