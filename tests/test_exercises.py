"""The exercise checkers (bpe_viz.exercises): the reference answers pass; typical wrong answers
fail at the right first input, with a message that names the problem; the learner's errors are
one line; the engine's answers equal minbpe's literal loops (tests/reference.py) on generated text.
"""

from __future__ import annotations

import string
import time
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_viz import exercises as ex
from bpe_viz import exercises_inputs as inputs
from bpe_viz import exercises_solutions as sol
from gpt_reference import BYTE_TO_SYMBOL, reference_tokens
from reference import recount_bpe

CHECKERS = {
    "count_pairs": (ex.check_count_pairs, inputs.count_cases),
    "merge": (ex.check_merge, inputs.merge_cases),
    "train": (ex.check_train, lambda: inputs.train_cases(False)),
    "encode": (ex.check_encode, lambda: inputs.encode_cases(False)),
    "train_bytes": (ex.check_train_bytes, lambda: inputs.train_cases(True)),
    "encode_bytes": (ex.check_encode_bytes, lambda: inputs.encode_cases(True)),
}


@pytest.mark.parametrize("task", CHECKERS)
def test_the_reference_answer_passes(task):
    check, cases = CHECKERS[task]
    result = check(getattr(sol, task))
    assert result.passed and bool(result), result.message
    assert result.checked == len(cases()) >= 10
    assert result.message.startswith(f"✓ {task}: matches the engine on all {result.checked} inputs")
    assert str(result) == repr(result) == result.message


def test_inputs_go_from_tiny_to_realistic():
    for task, (_, cases) in CHECKERS.items():
        labels = [c.label for c in cases()]
        assert labels[0].startswith("an empty"), task
        assert any("random text" in label for label in labels), task
        assert any("documentation" in label or "paragraph" in label for label in labels[-2:]), task
    texts = [c.args[0] for c in inputs.train_cases(True)] + [c.args[0] for c in inputs.encode_cases(True)]
    assert any(not t.isascii() for t in texts) and any(len(t) >= 1000 for t in texts)


# -- typical wrong answers, built from the reference's parts ------------------------------------

def first_met(counts):
    return max(counts, key=counts.get)


def last_met(counts):
    best = None
    for pair, n in counts.items():
        if best is None or n >= counts[best]:  # ">=" keeps the last of equals
            best = pair
    return best


def sorted_first(counts):
    return max(sorted(counts), key=counts.get)


def overlapping_merge(ids, pair, new):
    """Merges at every position where the pair starts (a a a -> aa aa) and keeps the right symbol."""
    out = [new if p == pair else p[0] for p in zip(ids, ids[1:])]
    return out + list(ids[len(out):])


def replace_merge(ids, pair, new):
    """The string-replace trap: join with spaces, replace "a b", split again."""
    return " ".join(ids).replace(f"{pair[0]} {pair[1]}", new).split()


def trainer(pick=first_met, merge=sol.merge, split_words=False, min_count=1):
    def train(text, num_merges):
        seqs = [list(w) for w in text.split()] if split_words else [list(text)]
        merges = []
        for _ in range(num_merges):
            counts = Counter()
            for seq in seqs:
                counts.update(sol.count_pairs(seq))
            if not counts or counts[pick(counts)] < min_count:
                break
            best = pick(dict(counts))
            seqs = [merge(seq, best, best[0] + best[1]) for seq in seqs]
            merges.append(best)
        return merges
    return train


def byte_trainer(pick=first_met, first_id=256, units=lambda text: list(text.encode("utf-8")), split_words=False):
    def train_bytes(text, num_merges):
        seqs = [units(w) for w in text.split(" ")] if split_words else [units(text)]
        merges = {}
        for i in range(num_merges):
            counts = Counter()
            for seq in seqs:
                counts.update(sol.count_pairs(seq))
            if not counts:
                break
            best = pick(dict(counts))
            merges[best] = first_id + i
            seqs = [sol.merge(seq, best, first_id + i) for seq in seqs]
        return merges
    return train_bytes


def leftmost(symbols, learned):
    return next((p for p in zip(symbols, symbols[1:]) if p in learned), None)


def most_frequent(symbols, learned):
    counts = {p: n for p, n in sol.count_pairs(symbols).items() if p in learned}
    return max(counts, key=counts.get) if counts else None


def encoder(choose=leftmost, units=list, once=False):
    """An encoder that merges the pair ``choose`` picks (not the lowest rank)."""
    def encode(text, merges):
        learned = merges if isinstance(merges, dict) else {p: p[0] + p[1] for p in merges}
        symbols = units(text)
        while (pair := choose(symbols, learned)) is not None:
            symbols = sol.merge(symbols, pair, learned[pair])
            if once:
                break
        return symbols
    return encode


def per_position(text, merges):
    """Walks the text left to right, merging at each position any learned pair, until nothing changes."""
    symbols, changed = list(text), True
    while changed:
        out, i, changed = [], 0, False
        while i < len(symbols):
            if tuple(symbols[i:i + 2]) in merges:
                out.append(symbols[i] + symbols[i + 1])
                i, changed = i + 2, True
            else:
                out.append(symbols[i])
                i += 1
        symbols = out
    return symbols


def lowest_rank(symbols, learned):
    present = [p for p in zip(symbols, symbols[1:]) if p in learned]
    return min(present, key=list(learned).index) if present else None


def read_past_end(ids, pair, new):
    return [new] if (ids[0], ids[1]) == pair else list(ids)


WRONG = [
    # (task, wrong answer, label of the first input where it must differ, words its message must hold)
    ("count_pairs", lambda ids: {p: 1 for p in zip(ids, ids[1:])}, "a run: aaaa", "overlapping pairs count every time"),
    ("count_pairs", lambda ids: Counter(zip(ids, ids[1:])).most_common(), "an empty list", "expected a dict"),
    ("count_pairs", lambda ids: Counter(a + b for a, b in zip(ids, ids[1:])), "two symbols", "joined string"),
    ("count_pairs", lambda ids: Counter(zip(ids, ids[1:] + ids[:1])), "one symbol", "not a pair of neighbours"),
    ("merge", overlapping_merge, "one pair", "go on at i + 2"),
    ("merge", replace_merge, "a pair inside a symbol", "replacing in the joined text"),
    ("merge", lambda ids, pair, new: "".join(sol.merge(ids, pair, new)), "an empty list", "you returned a str"),
    ("merge", lambda ids, pair, new: ids.__setitem__(slice(None), sol.merge(ids, pair, new)), "an empty list",
     "you returned None"),
    ("merge", read_past_end, "an empty list", "IndexError"),
    ("train", trainer(last_met), "Gage's aaabdaaabac", "ties: before merge 2"),
    ("train", trainer(sorted_first), "Gage's aaabdaaabac", "the first one met"),
    ("train", trainer(split_words=True), "spaces count", "whole text as one sequence"),
    ("train", trainer(min_count=2), "two characters", "a pair seen once merges too"),
    ("train", trainer(merge=overlapping_merge), "a run: aaaa", "check merge()"),
    ("train", lambda text, n: {p: i for i, p in enumerate(sol.train(text, n))}, "an empty text", "you returned a dict"),
    ("train", lambda text, n: sol.train(text, n + 1), "Gage's aaabdaaabac", "num_merges is 3"),
    ("encode", encoder(leftmost), "lowest rank first", "lowest rank"),
    ("encode", encoder(most_frequent), "lowest rank first", "lowest rank"),
    ("encode", per_position, "lowest rank first", "lowest rank"),
    ("encode", encoder(lowest_rank, once=True), "Gage's aaabdaaabac", "still holds the learned pair"),
    ("encode", lambda text, merges: [ord(c) for c in text], "one character", "tokens are strings"),
    ("train_bytes", byte_trainer(first_id=255), "two characters", "new ids are 256, 257"),
    ("train_bytes", byte_trainer(first_id=257), "two characters", "new ids are 256, 257"),
    ("train_bytes", byte_trainer(units=lambda text: [ord(c) for c in text]), "non-ASCII: héé hé",
     "text.encode('utf-8')"),
    ("train_bytes", byte_trainer(sorted_first), "Gage's aaabdaaabac", "ties"),
    ("train_bytes", byte_trainer(split_words=True), "spaces count", "whole text as one sequence"),
    ("train_bytes", lambda text, n: list(sol.train_bytes(text, n).items()), "an empty text", "expected a dict"),
    ("train_bytes", lambda text, n: {(bytes(p[:1]), p[1]): i for p, i in sol.train_bytes(text, n).items()},
     "two characters", "pair of ids (ints)"),
    ("encode_bytes", encoder(lowest_rank, units=lambda text: [ord(c) for c in text]), "a byte never seen",
     "text.encode('utf-8')"),
    ("encode_bytes", encoder(leftmost, units=lambda text: list(text.encode("utf-8"))), "lowest rank first",
     "lowest rank"),
    ("encode_bytes", lambda text, merges: [i + (i > 255) for i in sol.encode_bytes(text, merges)], "Gage's aaabdaaabac",
     "259 is no id of this vocabulary"),
    ("encode_bytes", lambda text, merges: [chr(i) for i in sol.encode_bytes(text, merges)], "one character",
     "ids are ints"),
    ("encode_bytes", encoder(lowest_rank, units=lambda text: list(text.encode("utf-8")), once=True),
     "Gage's aaabdaaabac", "still holds the learned pair"),
]


@pytest.mark.parametrize("task,fn,label,words", WRONG, ids=[f"{w[0]}-{i}" for i, w in enumerate(WRONG)])
def test_a_wrong_answer_fails_at_the_right_input(task, fn, label, words):
    check, cases = CHECKERS[task]
    result = check(fn)
    labels = [c.label for c in cases()]
    assert not result.passed, f"{task}: a wrong answer passed"
    assert result.checked == labels.index(label) + 1, result.message
    assert f"input {result.checked} of {len(labels)} ({label})" in result.message
    assert words in result.message, result.message
    for line in ("input:", "hint:"):
        assert f"\n  {line}" in result.message
    assert "Traceback" not in result.message


def test_each_message_shows_the_input_yours_and_the_engine():
    result = ex.check_merge(overlapping_merge)
    assert result.message.splitlines() == [
        "✗ merge: input 3 of 23 (one pair) differs from the engine.",
        "  input:  overlapping_merge(['a', 'b'], ('a', 'b'), 'ab')",
        "  yours:  ['ab', 'b']",
        "  engine: ['ab']",
        "  hint:   after a merge at i, go on at i + 2: your list keeps a symbol the merge has used "
        "(the pair's right symbol).",
    ]


def test_a_long_input_is_shortened_around_the_first_difference():
    def drops_the_last(text, merges):
        return sol.encode(text, merges)[:-1]

    result = ex.check_encode(drops_the_last)
    lines = {line.split(":", 1)[0].strip(): line for line in result.message.splitlines()[1:]}
    assert result.checked == 2  # 'a' -> [] already
    long = ex.check_encode(lambda text, merges: sol.encode(text, merges) if len(text) < 1000 else ["x"] * 400)
    assert "1,000 characters" in long.message and "… 390 more" in long.message
    assert all(len(line) < 400 for line in long.message.splitlines())
    assert lines["yours"].endswith("[]")


@pytest.mark.parametrize("task", CHECKERS)
def test_the_learners_error_is_one_line(task):
    def broken(*args):
        return 1 / 0

    result = CHECKERS[task][0](broken)
    assert not result.passed and result.checked == 1
    assert "your function raised an error" in result.message
    assert "ZeroDivisionError: division by zero (line " in result.message and "return 1 / 0" in result.message
    assert "Traceback" not in result.message and len(result.message.splitlines()) == 4


@pytest.mark.parametrize("task", CHECKERS)
def test_not_a_function_is_a_type_error(task):
    with pytest.raises(TypeError, match=r"^fn must be your function itself.*got list"):
        CHECKERS[task][0]([1, 2])


def test_the_html_is_escaped():
    result = ex.check_merge(lambda ids, pair, new: ["<script>alert(1)</script>"])
    assert "<script>" in result.message
    page = result._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;" in page and page.startswith("<pre ")
    assert "#b3261e" in page and "#1b7a2e" in ex.check_merge(sol.merge)._repr_html_()


def test_a_function_that_changes_its_input_does_not_change_the_inputs():
    def clears(ids, pair, new):
        out = sol.merge(ids, pair, new)
        ids.clear()
        return out

    assert ex.check_merge(clears).passed
    assert ex.check_merge(sol.merge).passed
    assert inputs.merge_cases()[2].args == (["a", "b"], ("a", "b"), "ab")


def test_deterministic():
    before = [(c.args, c.expected, c.label) for c in inputs.encode_cases(True)]
    message = ex.check_train(trainer(last_met)).message
    inputs.encode_cases.cache_clear()
    inputs.engine_trace.cache_clear()
    assert [(c.args, c.expected, c.label) for c in inputs.encode_cases(True)] == before
    assert ex.check_train(trainer(last_met)).message == message


@pytest.mark.parametrize("task", CHECKERS)
def test_fast(task):
    """Under a second of CPU per check, the realistic inputs included (the engine's answers are
    cached after the first check)."""
    check = CHECKERS[task][0]
    check(getattr(sol, task))
    start = time.process_time()
    check(getattr(sol, task))
    assert time.process_time() - start < 1.0


# -- the engine's answers are minbpe's ------------------------------------------------------------

texts = st.text(alphabet=st.sampled_from("aab c\né"), max_size=40)


@settings(max_examples=60, deadline=None)
@given(texts, st.integers(0, 12))
def test_the_engine_trains_as_the_literal_recount_loop(text, n):
    """Characters: the engine's merges (WHOLE_TEXT, hf-course, min_frequency 1) are minbpe's
    BasicTokenizer.train loop's (tests/reference.py), and the reference answer's."""
    trace = inputs.engine_trace(text, n)
    assert [m.pair for m in trace.merges] == [pair for pair, _ in recount_bpe(text, n)[0]] == sol.train(text, n)


@settings(max_examples=60, deadline=None)
@given(texts, st.integers(0, 12), st.text(alphabet=st.sampled_from("abc é😉"), max_size=20))
def test_the_engine_on_bytes_is_minbpe(text, n, new_text):
    """Bytes: the same loop on GPT-2's byte symbols, ids 256 + i (minbpe's), and GPT-2's encoder
    (lowest rank first) gives the engine's tokens; the reference answers agree."""
    trace = inputs.engine_trace(text, n, byte_level=True)
    literal = [pair for pair, _ in recount_bpe([BYTE_TO_SYMBOL[b] for b in text.encode("utf-8")], n)[0]]
    assert [m.pair for m in trace.merges] == literal
    merges = inputs.byte_merges(trace)
    assert merges == sol.train_bytes(text, n)
    assert sorted(merges.values()) == list(range(256, 256 + len(merges)))
    assert trace.encode(new_text).tokens == reference_tokens(trace, new_text, inputs.WHOLE_TEXT)
    assert trace.encode(new_text).ids == sol.encode_bytes(new_text, merges)


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet=st.sampled_from(string.ascii_lowercase[:4] + " "), max_size=30), st.integers(0, 8),
       st.text(alphabet=st.sampled_from("abcdx "), max_size=20))
def test_the_engine_encodes_characters_as_the_reference(text, n, new_text):
    trace = inputs.engine_trace(text, n)
    assert trace.encode(new_text).pieces == sol.encode(new_text, [m.pair for m in trace.merges])


def test_a_stub_not_written_yet_is_told_what_to_do():
    # the notebook's exercise cells start as stubs: the checker says what to do, not "an error"
    from bpe_viz.exercises import check_merge

    def merge(ids, pair, new):
        raise NotImplementedError("write merge")

    result = check_merge(merge)
    assert not result.passed and result.checked == 1
    assert "not written yet" in result.message and "NotImplementedError: write merge" in result.message
