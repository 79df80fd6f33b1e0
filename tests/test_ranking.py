"""bpe_viz.engine.merges.ranking: the tie rules, each against the tool it comes from.

"first" and "lexicographic" are checked against the literal reference trainer in
test_bpe_properties; "bytes" against CS336's reference merges in test_gpt_training. Here: "hf", Hugging
Face tokenizers' BpeTrainer (``impl Ord for Merge`` in ``src/models/bpe/trainer.rs``: on equal
counts the pair of the smaller token ids, ids numbering the alphabet sorted by character, then
new tokens in the order they were made), against its own unit test, a stored run on CS336's
corpus.en, and a live run of the pinned ``tokenizers`` on Python's documentation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bpe_viz import best_pair, train_bpe
from bpe_viz.engine.merges.ranking import TIE_RULES

EXTERNAL = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "external"


def fixture(*parts):
    path = EXTERNAL.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared fixture not found: {path} (the ../shared checkout is absent)")
    return path


def test_every_rule_has_a_name_and_says_what_it_takes():
    assert set(TIE_RULES) == {"first", "lexicographic", "bytes", "hf", "shorter"}
    for name, rule in TIE_RULES.items():
        assert rule.name == name and rule.describe().startswith("ties: ")


def test_bytes_rule_orders_a_space_below_letters_where_code_points_do_not():
    """CS336's rule compares bytes (a space is 0x20); GPT-2's stand-in for it, "Ġ", is U+0120."""
    counts = {("Ġ", "c"): 5, ("t", "h"): 5}
    assert best_pair(counts, "bytes", to_bytes=lambda s: b" " if s == "Ġ" else s.encode())[0] == ("t", "h")
    assert best_pair(counts, "lexicographic")[0] == ("Ġ", "c")


def test_hf_rule_reproduces_tokenizers_unit_test():
    """trainer.rs ``fn test_train``: word counts with min_frequency 2 -> merges re, are, is and
    the vocabulary ids (alphabet sorted, then the merged tokens)."""
    tt = json.loads(fixture("hf-tokenizers", "test_train.json").read_text(encoding="utf-8"))
    trace = train_bpe(dict(tt["word_counts_unordered"]), 100, preset="hf-tokenizers",
                      min_frequency=tt["min_frequency"])
    assert [list(m.pair) for m in trace.merges] == [list(p) for p in tt["expected_merges_in_rank_order"]]
    assert {tok: trace.hf_id(tok) for tok in tt["expected_vocab"]} == tt["expected_vocab"]


def test_hf_rule_reproduces_bpetrainer_on_corpus_en():
    """A stored BpeTrainer run (WhitespaceSplit, min_frequency 2, 500 merges) on corpus.en."""
    fx = json.loads(fixture("hf-tokenizers", "derived", "bpetrainer-corpus.en-500.json").read_text(encoding="utf-8"))
    text = fixture("cs336", "corpus.en").read_text(encoding="utf-8")
    trace = train_bpe(text, len(fx["merges"]), preset="hf-tokenizers", min_frequency=2)
    assert [list(m.pair) for m in trace.merges] == fx["merges"]


@pytest.mark.parametrize("num_merges", [400, 1000, 2000])
def test_hf_rule_equals_live_bpetrainer_on_the_docs(docs_text, num_merges):
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, trainers

    lines = docs_text.splitlines()
    alphabet = len(set(docs_text) - set(" \n\t\r\x0b\x0c"))
    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=alphabet + num_merges, min_frequency=2,
                                                       show_progress=False))
    theirs = [list(m) if not isinstance(m, str) else m.split(" ")
              for m in json.loads(tok.to_str())["model"]["merges"]]
    trace = train_bpe(docs_text, len(theirs), preset="hf-tokenizers", min_frequency=2)
    assert len(theirs) == num_merges
    assert [list(m.pair) for m in trace.merges] == theirs
    # the snapshot's ranked table uses the same rule: its first pair is the next merge
    assert trace[123].ranked_pairs[0][0] == trace.merges[123].pair
