"""Issue 20, target 4: a slider step on long text.

Equality first: the fast paths (a long word's label spelled from its first letters,
``encode_head`` encoding only the words a sentence shows, a long word's step rebuilt from its
slots at the nearest checkpoint) give exactly what the slow ones give, on random texts and steps. Then time: a long sample sentence makes a step no slower than
its first 2,000 characters would. The 1,000,000-character step (trains for half a minute) is
opt-in: ``BPE_VIZ_LONG_STEPS=1``.
"""

from __future__ import annotations

import os
import random
import statistics
import time

import pytest

from bpe_viz import MergeExplorer, train_bpe, train_wordpiece
from bpe_viz.engine.merges.encoder import encode_head, encode_text
from bpe_viz.engine.merges.pairs import MergeAt, PairIndex
from bpe_viz.engine.merges.recorder import History, LongCheckpoint
from bpe_viz.engine.text.languages import LANGUAGES
from bpe_viz.view import MAX_CHIPS, MAX_SENTENCE_TOKENS, segments_html
from bpe_viz.view.kit import esc, invisible_runs, more_html, short_label
from test_pairs import patched

PRESETS = ["sennrich2016", "subword-nmt", "hf-course", "hf-tokenizers", "slp3", "cs336", "minbpe", "sentencepiece"]

# text with what makes encoders differ: words, punctuation, digits, newlines, accents, CJK, a special token
_PIECES = ["low", "lower", "newest", "widest", "the", "café", "naïve", "x_y", "  ", "\n", "27", "!", ",", "中文",
           "한국어", "e\u0301", "<|endoftext|>", "ducks", "pond", "Maria", "tea"]


def _random_text(rng, n_words):
    return " ".join(rng.choice(_PIECES) for _ in range(n_words))


def _slow_label(word, limit=40):
    """short_label as it was: the whole word spelled, then cut (the literal reference)."""
    visible = {" ": "\u2423", "\n": "\u21b5", "\t": "\u21e5", "\r": "\u240d"}
    label = "".join(t for t, _ in invisible_runs("".join(visible.get(ch, ch) for ch in word)))
    if len(label) <= limit:
        return esc(label)
    return esc(label[:limit]) + more_html(len(label) - limit, "more letters")


def test_short_label_of_a_long_word_is_the_whole_words_label_cut():
    rng = random.Random(0)
    alphabet = ["a", "é", "\u0301", "\u0489", "\u200d", "\u00ad", " ", "\n", "\t", "\r", "\x0c", "\u3000", "中",
                "<", "&", "👩", "\ufe0f", "\U000e0001"]
    for _ in range(3000):
        word = "".join(rng.choices(alphabet, k=rng.randrange(0, 120)))
        for limit in (1, 3, 40):
            assert short_label(word, limit) == _slow_label(word, limit), (word, limit)


def test_short_label_of_a_million_letters_is_fast():
    word = "中" * 1_000_000
    t0 = time.perf_counter()
    out = short_label(word)
    assert time.perf_counter() - t0 < 0.1  # (it spelled all 1,000,000 letters in Python: 5 s)
    assert out == _slow_label(word)


@pytest.fixture(scope="module")
def traces():
    rng = random.Random(1)
    corpus = _random_text(rng, 3000) + "\n" + "\n".join(LANGUAGES.values())
    return {p: train_bpe(corpus, 120, preset=p) for p in PRESETS}


@pytest.mark.parametrize("preset", PRESETS)
def test_encode_head_draws_what_the_whole_encoding_draws(traces, preset):
    trace = traces[preset]
    rng = random.Random(preset)
    for n_words in (0, 5, 150, 199, 200, 201, 600, 2500):
        text = _random_text(rng, n_words)
        for k in {0, 1, len(trace) - 1, rng.randrange(len(trace)), rng.randrange(len(trace))}:
            hl = trace[k].merge.token if k else None
            whole = encode_text(trace, text, k)
            head = encode_head(trace, text, k, max_tokens=MAX_SENTENCE_TOKENS, per_word=MAX_CHIPS)
            assert segments_html(head, highlight=hl, size=1.5) == segments_html(whole, highlight=hl, size=1.5)
            assert len(head) + head.more_tokens == len(whole)
            assert head.pieces == whole.pieces[:len(head)]
            assert head.offsets == whole.offsets[:len(head)]


def test_encode_head_counts_with_a_merge_list_out_of_order():
    # (a, b) ranked after (ab, c): "abc" becomes one token only once both merges are in
    from bpe_viz import replay_bpe

    trace = replay_bpe({"abc": 3, "ab": 1}, [("a", "b"), ("ab", "c")], preset="hf-course")
    text = " ".join(["abc", "ab", "c", "abcabc"] * 100)
    for k in range(len(trace)):
        whole = encode_text(trace, text, k)
        head = encode_head(trace, text, k, max_tokens=20, per_word=3)
        assert len(head) + head.more_tokens == len(whole)


def test_the_explorer_shows_the_long_sentence_as_before(traces):
    trace = traces["subword-nmt"]
    sentence = _random_text(random.Random(2), 3000)
    ex = MergeExplorer.from_trace(trace, sentence=sentence)
    for k in (0, 7, len(trace) - 1):
        ex.step = k
        hl = trace[k].merge.token if k else None
        assert ex._sentence_view.value == segments_html(encode_text(trace, sentence, k), size=ex.size, highlight=hl)


def _long_text(rng):
    """Text where long words (over PairIndex.LONG symbols) are the rule: runs without spaces of
    a few letters, Zipf-like, sometimes with short words between them."""
    letters = rng.choice(["ab", "abc", "abcde", "中文字", "aab\u0301"])
    weights = [1 / (i + 1) for i in range(len(letters))]
    sizes = [rng.choice([70, 300, 1500])] + [rng.choice([3, 70, 300]) for _ in range(rng.randrange(0, 4))]
    return " ".join("".join(rng.choices(letters, weights, k=k)) for k in sizes)


def _steps_of(trace):
    return [(s.segmentation, s.pair_counts, s.token_counts, s.vocab) for s in reversed(list(trace))]


@pytest.mark.parametrize("seed", range(12))
def test_long_words_rebuild_every_step_as_short_words_do(seed):
    """A long word kept as slots at dense checkpoints, replayed to each step, against the same
    training with every word a plain tuple (no long words, no long checkpoints)."""
    rng = random.Random(seed)
    text = _long_text(rng)
    preset = rng.choice(PRESETS)
    n = rng.choice([5, 40, 150])
    with patched(PairIndex, LONG=10**9):
        plain = train_bpe(text, n, preset=preset)
    with patched(History, LONG_CHECKPOINT_WORK=rng.choice([1, 9, 60]), LONG_SHARE=10**9):
        linked = train_bpe(text, n, preset=preset)
    assert [(m.pair, m.count) for m in linked.merges] == [(m.pair, m.count) for m in plain.merges]
    if any(len(w) > PairIndex.LONG for w in linked.words) and len(linked) > 3:
        assert len(linked.history._ckpt_steps) > 1  # the long word's own checkpoints were made
    # each step rebuilt from its nearest checkpoint (snapshots are read last first)
    assert _steps_of(linked) == _steps_of(plain)
    k = rng.randrange(len(linked))  # and a step read again after its neighbours
    assert linked[k].segmentation == plain[k].segmentation


def test_wordpiece_long_words_with_dense_checkpoints():
    text = _long_text(random.Random(99)) + " " + "abcab" * 200
    with patched(PairIndex, LONG=10**9):
        plain = train_wordpiece(text, 60)
    with patched(History, LONG_CHECKPOINT_WORK=5, LONG_SHARE=10**9):
        linked = train_wordpiece(text, 60)
    assert len(linked.history._ckpt_steps) > 5
    assert [s.segmentation for s in reversed(list(linked))] == [s.segmentation for s in reversed(list(plain))]


def test_a_long_word_keeps_one_str_per_symbol():
    text = "".join(random.Random(5).choices("中文字", k=5000))
    trace = train_bpe(text, 20, preset="hf-course", min_frequency=1)
    initial = trace.history.initial[0]
    assert len({id(s) for s in initial}) == 3
    assert len({id(s) for s in trace[20].segmentation[text]}) == len(set(trace[20].segmentation[text]))


def test_a_long_checkpoint_with_an_empty_symbol():
    # an empty str is falsy, as the None of a merged-away slot is: it must stay
    ck = LongCheckpoint(["", None, "a", "b", None])
    assert ck.symbols == ("", "a", "b")
    assert ck.replay([MergeAt("ab", [2], [3])]) == ("", "ab")
    assert LongCheckpoint(["x", None, "y"]).replay(None) == ("x", "y")


def _median_ms(ex, ks):
    out = []
    for k in ks:
        t0 = time.perf_counter()
        ex.step = k
        out.append((time.perf_counter() - t0) * 1000)
    return out


def test_a_long_sentence_steps_as_fast_as_its_first_2000_characters():
    from bpe_viz.engine.text.corpora import python_docs_text

    text = python_docs_text()
    # one trace each (the same merges): a step's snapshot, cached on its trace, is paid by both
    trace, twin = (train_bpe(text[:150_000], 2000, preset="subword-nmt") for _ in range(2))
    sentence = text[200_000:270_000]
    long_ex = MergeExplorer.from_trace(trace, sentence=sentence)
    head_ex = MergeExplorer.from_trace(twin, sentence=sentence[:2000])
    for ex in (long_ex, head_ex):
        ex.step = 1000  # untimed: the sentence is cut once
    rng = random.Random(3)
    ks = [rng.randrange(1, len(trace)) for _ in range(15)]
    longs, heads = [], []
    for k in ks:  # alternating: a busy machine slows both alike
        longs += _median_ms(long_ex, [k])
        heads += _median_ms(head_ex, [k])
    ratio = statistics.median(longs) / statistics.median(heads)
    # 1.0 is the target; a shared 2-core machine moves two ~40 ms medians by up to ~30%
    assert ratio <= 1.3, (statistics.median(longs), statistics.median(heads))


@pytest.mark.skipif(os.environ.get("BPE_VIZ_LONG_STEPS") != "1",
                    reason="trains on 1,000,000 characters (about 30 s): set BPE_VIZ_LONG_STEPS=1")
def test_a_step_on_a_million_characters_without_spaces():
    rng = random.Random(20)
    chars = [chr(0x4E00 + i) for i in range(3000)]
    text = "".join(rng.choices(chars, [1 / (i + 1) for i in range(3000)], k=1_000_000))
    ex = MergeExplorer(text, 200)
    ex.step = 100
    ks = random.Random(1).sample(range(1, len(ex.trace)), 10)
    random_ms = statistics.median(_median_ms(ex, ks))
    consecutive_ms = statistics.median(_median_ms(ex, range(50, 60)))
    assert random_ms <= 150 * 1.3 and consecutive_ms <= 150 * 1.3, (random_ms, consecutive_ms)
