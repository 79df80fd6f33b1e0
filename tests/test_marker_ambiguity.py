"""Marker text inside words (issue 19, item 3): a merge list spelled as text must replay exactly
or be refused, never replay silently differently.

Training keeps a literal ``</w>`` typed inside a word apart from the end-of-word marker ``</w>``
(the trace spells the marker internally with a private character: the module docstring of
bpe_viz/engine/merges/trace.py). A merge list of public strings cannot: in
``('</w>', '</w>')`` each ``</w>`` may be the marker or the four characters. subword-nmt itself
compares symbols as strings, so it reads every ``</w>`` as its marker (its apply_bpe strips a
trailing ``</w>`` from a word's last piece whatever made it).

What is checked here, on corpora whose words contain the marker text (``</w>``, SLP3's ``_``,
SentencePiece's ``▁``): replay_bpe of a trained trace's pairs, and write_codes -> replay_codes,
either give the trained trace back step for step or raise a ValueError naming the argument or
file, the merge and the marker; the merges before the first one that spells the marker text
always replay exactly; a corpus without the marker text inside words is never refused; and the
codes file that write_codes does write gives subword-nmt's apply_bpe the segmentations our
encoder gives.
"""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from bpe_viz import encode, read_merges, replay_bpe, replay_codes, train_bpe, write_codes, write_merges
from subword_nmt.apply_bpe import BPE as ApplyBPE

from helpers import hypothesis_settings
from test_subword_nmt import run_learn_bpe, to_subword_nmt

SETTINGS = hypothesis_settings(80)

#: preset -> its marker text
MARKER = {"sennrich2016": "</w>", "subword-nmt": "</w>", "slp3": "_", "sentencepiece": "\u2581"}


def first_spelling(pairs, marker: str) -> int:
    """The index of the first pair that spells the marker text (len(pairs) if none does)."""
    return next((i for i, (a, b) in enumerate(pairs) if marker in a or marker in b), len(pairs))


def assert_same_steps(replayed, trace, k: int) -> None:
    """The first ``k`` merges and steps 0..k: same pairs, tokens, counts, segmentation, pair table."""
    assert len(replayed) == k + 1
    assert [(m.pair, m.token, m.count) for m in replayed.merges] == [
        (m.pair, m.token, m.count) for m in trace.merges[:k]]
    for step in range(k + 1):
        assert replayed[step].segmentation == trace[step].segmentation, step
        assert replayed[step].pair_counts == trace[step].pair_counts, step


def words_with(marker: str):
    """Short words built from the marker, its characters and two letters."""
    parts = sorted({marker, *marker, "</w>", "a", "b"})
    return st.lists(st.sampled_from(parts), min_size=1, max_size=4).map("".join)


# -- the issue's examples ------------------------------------------------------------------------


def test_issue_example_replay_bpe_is_refused():
    """train_bpe("</w></w></w>", 40): merge 4 joins two literal "</w>"; replayed from public
    pairs it became the marker pair (count 0, another segmentation). Now a ValueError naming the
    item, the token and why."""
    t = train_bpe("</w></w></w>", 40)
    pairs = [m.pair for m in t.merges]
    assert pairs[3] == ("</w>", "</w>") and t.merges[3].count == 2
    with pytest.raises(ValueError, match=r"merges: item 3 \('</w>', '</w>'\) .*marker text '</w>'.*"
                                         r"inside a word .*'</w></w></w>'.*ambiguous"):
        replay_bpe("</w></w></w>", pairs)
    # the three merges before it spell no marker: they replay exactly
    assert_same_steps(replay_bpe("</w></w></w>", pairs[:3]), t, 3)


def test_issue_example_write_codes_is_refused():
    """write_codes would write "</w> </w>", which replay_codes (and subword-nmt) reads as
    marker + marker. Refused, naming the merge and the num_merges that writes what is safe."""
    t = train_bpe("</w></w></w>", 40)
    with pytest.raises(ValueError, match=r"trace: merge 4 \('</w>', '</w>'\) .*inside a word.*num_merges=3"):
        write_codes(t, io.StringIO())
    buf = io.StringIO()
    write_codes(t, buf, num_merges=3)
    assert_same_steps(replay_codes("</w></w></w>", buf.getvalue()), t, 3)


def test_issue_example_sentencepiece():
    """The sentencepiece preset on "▁</w>": a typed "▁" inside the word. Replaying the trace's
    own pairs gives it back exactly or is refused, never a different run."""
    t = train_bpe("\u2581</w>", 40, preset="sentencepiece")
    pairs = [m.pair for m in t.merges]
    try:
        replayed = replay_bpe("\u2581</w>", pairs, preset="sentencepiece")
    except ValueError as exc:
        assert re.search(r"merges: item \d+ .*marker text '\u2581'.*ambiguous", str(exc)), exc
    else:
        assert_same_steps(replayed, t, len(pairs))


def test_replay_codes_names_the_file_and_line(tmp_path):
    """Codes subword-nmt learned on a text with "</w>" inside words: line 5 "x</w ></w>" may
    end in the marker or in the letters. replay_codes names the file and the line."""
    codes, _ = run_learn_bpe(["x</w> x</w> x x"], 10, min_frequency=1)
    assert codes.splitlines()[4] == "x</w ></w>"
    path = tmp_path / "odd.codes"
    path.write_text(codes, encoding="utf-8")
    with pytest.raises(ValueError, match=r"odd\.codes: line 5 \('x</w', '></w>'\) .*marker text '</w>'.*ambiguous"):
        replay_codes("x</w> x</w> x x", path)
    with pytest.raises(ValueError, match=r"^file: line 5 "):
        replay_codes("x</w> x</w> x x", codes)
    # the same codes over words without "</w>" inside them: nothing is ambiguous
    assert [m.count for m in replay_codes("x x y", path).merges] == [0, 0, 0, 0]
    # and codes that spell no marker, over a corpus with "</w>" inside words: exact
    replayed = replay_codes("x</w> x</w> x x", "#version: 0.2\nx <\nx< /\n")
    assert [(m.token, m.count) for m in replayed.merges] == [("x<", 2), ("x</", 2)]
    assert replayed[-1].segmentation["x</w>"] == ("x</", "w", "></w>")


def test_write_merges_refused_read_merges_literal(tmp_path):
    """A merges.txt is a public list too: write_merges refuses the same trace. read_merges has no
    marker (byte-level, end_of_word=None), so "</w>" in its lines is always text: it round-trips."""
    with pytest.raises(ValueError, match=r"trace: merge 4 \('</w>', '</w>'\) .*inside a word"):
        write_merges(train_bpe("</w></w></w>", 40), tmp_path / "merges.txt")
    t = read_merges(["#version: 0.2", "< /", "</ w", "</w >", "</w> </w>"])
    assert [m.token for m in t.merges] == ["</", "</w", "</w>", "</w></w>"]
    write_merges(t, tmp_path / "merges.txt")
    again = read_merges(tmp_path / "merges.txt")
    assert [m.pair for m in again.merges] == [m.pair for m in t.merges]
    assert encode("x</w></w> </w>", again).ids == encode("x</w></w> </w>", t).ids


# -- properties ------------------------------------------------------------------------------------


@SETTINGS
@given(st.sampled_from(sorted(MARKER)), st.data(), st.integers(0, 30))
def test_replay_is_exact_or_refused(preset, data, num_merges):
    """Corpora with (and without) the marker text inside words, every preset with a marker:
    replay_bpe of the trace's own pairs is the trace step for step, or a ValueError that names
    the first pair spelling the marker text, raised only when a word contains that text too;
    the merges before that pair always replay exactly."""
    marker = MARKER[preset]
    lines = data.draw(st.lists(st.lists(words_with(marker), min_size=1, max_size=6), min_size=1, max_size=4))
    text = "\n".join(" ".join(ws) for ws in lines)
    trace = train_bpe(text, num_merges, preset=preset, min_frequency=1)
    pairs = [m.pair for m in trace.merges]
    i = first_spelling(pairs, marker)
    try:
        replayed = replay_bpe(text, pairs, preset=preset)
    except ValueError as exc:
        event("refused")
        assert i < len(pairs), exc
        assert any(marker in w for w in trace.words), exc
        assert str(exc).startswith(f"merges: item {i} {pairs[i]!r} contains the marker text {marker!r}"), exc
        assert_same_steps(replay_bpe(text, pairs[:i], preset=preset), trace, i)
    else:
        event("replayed, marker text in a word" if any(marker in w for w in trace.words) else "replayed, plain")
        assert_same_steps(replayed, trace, len(pairs))


@SETTINGS
@given(st.sampled_from(["sennrich2016", "subword-nmt"]),
       st.lists(st.lists(words_with("</w>"), min_size=1, max_size=6), min_size=1, max_size=4),
       st.integers(0, 30))
def test_codes_round_trip_is_exact_or_refused(preset, lines, num_merges):
    """write_codes -> replay_codes on corpora with "</w>" inside words: the trace back step for
    step, or write_codes refuses at the first merge spelling "</w>" (and writes the merges before
    it, which replay exactly)."""
    text = "\n".join(" ".join(ws) for ws in lines)
    trace = train_bpe(text, num_merges, preset=preset, min_frequency=1)
    i = first_spelling([m.pair for m in trace.merges], "</w>")
    buf = io.StringIO()
    try:
        write_codes(trace, buf)
    except ValueError as exc:
        assert i < len(trace.merges) and any("</w>" in w for w in trace.words), exc
        assert f"merge {i + 1} " in str(exc) and f"num_merges={i}" in str(exc), exc
        buf = io.StringIO()
        write_codes(trace, buf, num_merges=i)
        assert_same_steps(replay_codes(text, buf.getvalue()), trace, i)
    else:
        assert_same_steps(replay_codes(text, buf.getvalue()), trace, len(trace.merges))


@SETTINGS
@given(st.lists(st.lists(words_with("</w>"), min_size=1, max_size=6), min_size=1, max_size=4),
       st.lists(words_with("</w>"), min_size=1, max_size=6), st.integers(1, 30))
def test_written_codes_give_apply_bpe_our_segmentation(lines, new_words, num_merges):
    """What write_codes does write for a trace trained with "</w>" inside words, subword-nmt's
    apply_bpe (which reads every "</w>" as its marker) segments like our encoder: training words
    and new words."""
    text = "\n".join(" ".join(ws) for ws in lines)
    trace = train_bpe(text, num_merges, preset="subword-nmt", min_frequency=1)
    k = first_spelling([m.pair for m in trace.merges], "</w>")
    buf = io.StringIO()
    write_codes(trace, buf, num_merges=k)
    bpe = ApplyBPE(io.StringIO(buf.getvalue()), merges=k)
    words = [w for ws in lines for w in ws] + new_words
    theirs = [list(bpe.segment_tokens([w])) for w in words]
    ours = [to_subword_nmt(p) for p in encode(" ".join(words), trace, num_merges=k).word_pieces()]
    assert ours == theirs


@SETTINGS
@given(st.sampled_from(sorted(MARKER)),
       st.lists(st.lists(st.sampled_from(["a", "b", "c", "ab", "é"]), min_size=1, max_size=4).map("".join),
                min_size=1, max_size=8),
       st.integers(0, 30))
def test_corpora_without_marker_text_are_never_refused(preset, words, num_merges):
    """No word contains the marker text: every merge list replays, as before, exactly."""
    text = " ".join(words)
    trace = train_bpe(text, num_merges, preset=preset, min_frequency=1)
    assert_same_steps(replay_bpe(text, [m.pair for m in trace.merges], preset=preset), trace, len(trace.merges))
    if preset in ("sennrich2016", "subword-nmt"):
        buf = io.StringIO()
        write_codes(trace, buf)
        assert_same_steps(replay_codes(text, buf.getvalue()), trace, len(trace.merges))
