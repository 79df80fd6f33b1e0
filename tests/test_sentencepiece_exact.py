"""SentencePiece BPE exact on odd texts, at every vocabulary size (issue 19, items 1 and 2).

``tests/test_sentencepiece.py`` checks the bundled corpora and Python's documentation; this
module throws short odd texts at both trainers — punctuation runs, repeated lines, mixed
scripts, tabs, combining marks, a typed ``▁`` — and compares, at **every** ``vocab_size`` from the
smallest sentencepiece 0.2.3 accepts to the largest:

* ``id_to_token`` id for id;
* the pieces and ids of every line of the text;
* the errors one below the smallest and one above the largest size, ours naming the same
  maximum sentencepiece names.

Near the largest size SentencePiece adds pieces whose count fell to 0, among them pairs that
only existed for a moment while a merge was applied left to right (``.. . .`` while ``. .``
becomes ``..`` in ``....``); a typed ``▁`` is a space marker, so it starts a word.
"""

from __future__ import annotations

import re
import time

import pytest

spm = pytest.importorskip("sentencepiece", reason="sentencepiece is not installed (pip install bpe-viz[test])")
from hypothesis import assume, given, strategies as st  # noqa: E402

from bpe_viz import decode, encode, train_bpe  # noqa: E402

from helpers import hypothesis_settings  # noqa: E402
from test_sentencepiece import assert_limits, first_diff, sp_pieces, sp_train  # noqa: E402

MARK = "\u2581"


def sp_range(lines) -> tuple[int, int] | None:
    """(smallest, largest) vocab_size sentencepiece accepts for ``lines``, read from its own
    error messages; ``None`` when it trains on nothing (no character at all)."""
    found = []
    for size, pattern in ((3, r"smaller than required_chars\. \d+ vs (\d+)"),
                          (1_000_000, r"Please set it to a value <= (\d+)")):
        try:
            sp_train(lines, vocab_size=size, num_threads=1)
        except RuntimeError as exc:
            m = re.search(pattern, str(exc))
            if m is None:
                return None  # e.g. "(all_chars_count) > (0)": only spaces and ▁
            found.append(int(m.group(1)))
        else:  # pragma: no cover - 3 ids can never hold <unk> <s> </s> and a character
            raise AssertionError(f"sentencepiece accepted vocab_size={size} for {lines!r}")
    return found[0], found[1]


def mismatches(text: str, lo: int, hi: int) -> list[str]:
    """Every difference between ``train_bpe(text, preset="sentencepiece")`` and sentencepiece at
    each size ``lo..hi``: the piece list, then each line's pieces and ids."""
    lines = text.split("\n")
    bad = []
    for v in range(lo, hi + 1):
        sp = sp_train(lines, vocab_size=v, num_threads=1)
        want = sp_pieces(sp)
        trace = train_bpe(text, vocab_size=v, preset="sentencepiece")
        if trace.id_to_token != want:
            bad.append(f"vocab_size={v}: {first_diff(trace.id_to_token, want)}")
            continue
        for line in lines:
            e = encode(line, trace)
            if (e.pieces, e.ids) != (sp.encode(line, out_type=str), sp.encode(line)):
                bad.append(f"vocab_size={v}: {line!r} encodes as {e.pieces} {e.ids}, sentencepiece "
                           f"{sp.encode(line, out_type=str)} {sp.encode(line)}")
    return bad


# -- the cases the issue names ------------------------------------------------------------------

@pytest.mark.parametrize("text, largest", [
    ("....", 11),  # "..." at id 7 and "...." at 8: both count 0 by then
    ("</>abab ....", 25),  # "..." (count 0) at id 14, before "</>" and "aba"
    ("....\n....\n..", None),
    ("aaaa bbbbbb", None),  # runs of one character: "aa" then "aa a" for a moment
    ("abab abababab", None),  # "ab a" for a moment, twice over
])
def test_named_cases(text, largest):
    lo, hi = sp_range(text.split("\n"))
    assert largest is None or hi == largest
    bad = mismatches(text, lo, hi)
    assert not bad, f"{len(bad)} differences; first: {bad[:3]}"
    assert_limits(text, lo, hi)


def test_tags_and_dots_at_22():
    pieces = train_bpe("</>abab ....", vocab_size=22, preset="sentencepiece").id_to_token
    assert pieces[11:15] == ["</", "ba", MARK + ".", "..."]
    assert pieces == sp_pieces(sp_train(["</>abab ...."], vocab_size=22, num_threads=1))


def test_four_dots():
    """sentencepiece keeps "..." although no word holds it once "...." is one piece: while it
    merged ". ." left to right, ".. . ." showed the pair ".. ." for a moment."""
    want = ["<unk>", "<s>", "</s>", "..", MARK + "..", MARK + "....", MARK + ".", "...", "....", ".", MARK]
    assert train_bpe("....", vocab_size=11, preset="sentencepiece").id_to_token == want
    assert train_bpe("....", vocab_size=10, preset="sentencepiece").id_to_token == want[:8] + want[9:]
    with pytest.raises(ValueError, match=r"vocab_size.*<= 11\b"):
        train_bpe("....", vocab_size=12, preset="sentencepiece")


def test_typed_marker_is_a_space_marker():
    """A ▁ typed in the text starts a word, as SentencePiece's normalizer makes every space a ▁."""
    text = "\n".join(["▁a▁a ▁a"] * 3)
    trace = train_bpe(text, vocab_size=6, preset="sentencepiece")
    assert trace.id_to_token == ["<unk>", "<s>", "</s>", MARK + "a", MARK, "a"]
    sp = sp_train(text.split("\n"), vocab_size=6, num_threads=1)
    assert trace.id_to_token == sp_pieces(sp)
    probes = ["▁a▁a ▁a", "▁▁a", "a▁", "▁", "x▁a", " ▁ a", "a ▁  b", "▁  a", "a▁ ▁", "  ▁a ", "aa▁▁a"]
    for line in probes:
        e = encode(line, trace)
        assert (e.pieces, e.ids) == (sp.encode(line, out_type=str), sp.encode(line)), line
    assert decode(encode("▁a▁a ▁a", trace).ids, trace) == sp.decode(sp.encode("▁a▁a ▁a")) == "a a  a"
    assert len(set(trace.id_to_token)) == len(trace.id_to_token)  # one id per spelling
    lo, hi = sp_range(text.split("\n"))
    assert not mismatches(text, lo, hi)


# -- generated odd texts ------------------------------------------------------------------------

#: pieces of odd text: punctuation runs, letters that repeat, digits, several scripts (kana and
#: the long vowel mark count as Han), a combining mark, an emoji, a tab and a typed ▁
ATOMS = [".", "..", "...", "!", "?", ",", "-", "/", "<", ">", "</>", "a", "b", "ab", "ba", "aa", "x",
         "1", "22", "α", "я", "日", "カ", "ー", "é", "e\u0301", "\U0001f600", "\t", MARK]
LINE = st.lists(st.sampled_from(ATOMS + [" ", " "]), min_size=1, max_size=8).map("".join)
TEXT = st.lists(st.tuples(LINE, st.integers(1, 3)), min_size=1, max_size=3).map(
    lambda lines: "\n".join(line for line, n in lines for _ in range(n)))

COMPARED = {"texts": 0, "sizes": 0, "seconds": 0.0}


@hypothesis_settings(max_examples=150)
@given(TEXT)
def test_every_size_on_odd_texts(text):
    lines = text.split("\n")
    limits = sp_range(lines)
    assume(limits is not None)
    lo, hi = limits
    start = time.perf_counter()
    bad = mismatches(text, lo, hi)
    assert not bad, f"{text!r}: {len(bad)} of {hi - lo + 1} sizes differ; first: {bad[:3]}"
    assert_limits(text, lo, hi)
    COMPARED["texts"] += 1
    COMPARED["sizes"] += hi - lo + 1
    COMPARED["seconds"] += time.perf_counter() - start


def test_property_test_compared_enough():
    """The property test above did compare: many texts, several sizes each (run after it)."""
    if not COMPARED["texts"]:
        pytest.skip("run together with test_every_size_on_odd_texts")
    print(f"\ncompared {COMPARED['sizes']} (text, vocab_size) cases over {COMPARED['texts']} texts "
          f"in {COMPARED['seconds']:.1f} s")
    assert COMPARED["texts"] >= 30 and COMPARED["sizes"] >= 5 * COMPARED["texts"], COMPARED
