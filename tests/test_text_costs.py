"""text_costs: what a tokenizer costs on texts as its vocabulary grows (issue 21 item 5), checked
against encoding each text for real, on the documentation's training and held-out topics and on
standard-library source code."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from bpe_viz import (corpora, encode, text_costs, train_bpe, train_subword_text_encoder, train_unigram,
                     train_wordpiece)
from bpe_viz.engine.text_costs import cost_steps
from bpe_viz.view import compression_curve, plot_text_costs

TOY = "low lower lowest newer newest wider widest " * 3


@pytest.fixture(scope="module")
def docs_parts():
    train, held = corpora.python_docs_parts()
    return train, held, corpora.python_source_text()


@pytest.fixture(scope="module")
def docs_trace(docs_parts):
    return train_bpe(docs_parts[0], 2000)


@pytest.mark.parametrize("make", [
    lambda: train_bpe(TOY, 12), lambda: train_bpe(TOY, 12, preset="cs336"), lambda: train_wordpiece(TOY, 10),
    lambda: train_unigram(TOY, 20), lambda: train_subword_text_encoder(TOY, 300)],
    ids=["bpe", "byte-level", "wordpiece", "unigram", "subword-text-encoder"])
def test_each_count_is_a_real_encoding(make):
    tok = make()
    texts = {"seen": "lower newest", "unseen": "slower renewed ünïcode"}
    costs = text_costs(tok, texts)
    for name, cost in costs.items():
        assert cost.tokens == tuple(len(encode(texts[name], tok, s)) for s in cost.steps)
        assert cost.words == len(texts[name].split()) and cost.n_bytes == len(texts[name].encode())
        assert cost.steps[0] == 0 and cost.steps[-1] == tok.last_step
        assert all(size is not None for size in cost.vocab_sizes)


def test_the_training_text_ends_where_its_compression_curve_ends(docs_parts, docs_trace):
    train = docs_parts[0]
    cost = text_costs(docs_trace, {"train": train}, steps=[0, 500, 2000])["train"]
    _sizes, tpw = compression_curve(docs_trace)
    assert cost.tokens_per_word == pytest.approx([tpw[0], tpw[500], tpw[2000]], abs=1e-9)
    assert cost.vocab_sizes == (_sizes[0], _sizes[500], _sizes[2000])


def test_unseen_text_costs_more_and_code_most(docs_parts, docs_trace):
    train, held, code = docs_parts
    costs = text_costs(docs_trace, {"train": train[:60_000], "held-out": held, "code": code[:60_000]})
    last = {name: c.tokens_per_word[-1] for name, c in costs.items()}
    assert last["train"] < last["held-out"] < last["code"], last
    # every merge shortens (or keeps) any text: bytes per token never fall as merges grow
    for c in costs.values():
        assert all(a <= b for a, b in zip(c.bytes_per_token, c.bytes_per_token[1:])), c
    # the late merges buy the training text more than text it never saw
    gain = {name: c.tokens_per_word[-4] / c.tokens_per_word[-1] for name, c in costs.items()}
    assert gain["train"] > gain["held-out"] > 1 and gain["train"] > gain["code"]


def test_docs_parts_split_the_topics():
    import pydoc_data.topics

    train, held = corpora.python_docs_parts(8)
    topics = pydoc_data.topics.topics
    names = sorted(topics)
    assert held == "\n".join(topics[n] for n in names[7::8])
    assert len(train) + len(held) + 1 == len(corpora.python_docs_text())
    with pytest.raises(ValueError, match="every"):
        corpora.python_docs_parts(1)


def test_source_text_is_code():
    code = corpora.python_source_text(["textwrap", "json.decoder"])
    assert "def dedent" in code and "class JSONDecoder" in code
    with pytest.raises(ValueError, match="'sys'"):
        corpora.python_source_text(["sys"])  # built in: no source file
    with pytest.raises(TypeError, match="modules"):
        corpora.python_source_text("textwrap")


@given(st.integers(0, 100_000), st.integers(2, 30))
@settings(max_examples=200, deadline=None)
def test_cost_steps(last, points):
    steps = cost_steps(last, points)
    assert steps[0] == 0 and steps[-1] == last and steps == sorted(set(steps))
    assert len(steps) <= points


def test_bad_arguments_name_themselves():
    tok = train_bpe(TOY, 5)
    with pytest.raises(TypeError, match="tokenizer"):
        text_costs("not a tokenizer", "text")
    with pytest.raises(TypeError, match="texts"):
        text_costs(tok, ["a list"])
    with pytest.raises(TypeError, match="'x'"):
        text_costs(tok, {"x": b"bytes"})
    with pytest.raises(ValueError, match="'x' is empty"):
        text_costs(tok, {"x": "  "})
    with pytest.raises(ValueError, match="steps"):
        text_costs(tok, "low", steps=[0, 99])
    with pytest.raises(TypeError, match="steps"):
        text_costs(tok, "low", steps=5)


def test_the_chart_draws_one_line_a_text():
    tok = train_bpe(TOY, 12)
    costs = text_costs(tok, {"seen": "lower newest", "unseen": "slower renewed"})
    ax = plot_text_costs(costs, "bytes_per_token", mark=30)
    assert [line.get_label() for line in ax.get_lines()[:2]] == ["seen", "unseen"]
    assert list(ax.get_lines()[0].get_ydata()) == list(costs["seen"].bytes_per_token)
    assert ax.get_xlabel() == "vocabulary size" and ax.get_ylabel() == "bytes per token"
    with pytest.raises(ValueError, match="measure"):
        plot_text_costs(costs, "tokens")
    with pytest.raises(TypeError, match="costs"):
        plot_text_costs({"a": 1})
    import matplotlib.pyplot as plt

    plt.close("all")
