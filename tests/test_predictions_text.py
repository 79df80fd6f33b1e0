"""The questions about real text (:func:`pretokenize_question`, :func:`token_count_question`,
:func:`fewest_tokens_question`): each answer is what the real tool does, checked against
``regex`` with the patterns tiktoken publishes and against tiktoken's own encoders."""

from __future__ import annotations

import pytest
import regex

from bpe_viz import corpora, load_tokenizer, train_bpe
from bpe_viz.engine.predictions import (PATTERN_NAMES, fewest_tokens_question, pretokenize_question,
                                        token_count_question)
from bpe_viz.engine.text.pretokenize import CL100K_PATTERN, GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN
from bpe_viz.view import prediction_html
from bpe_viz.widgets import Predict

from helpers import tiktoken_reference

TEXTS = ["She's got 12345 apples!  Ok", "def f(x):\n    return x * 2", "I'M HAPPY, you're not?",
         "Привет, как дела? 2024", "naïve café — 東京 🙂"]
PATTERNS = {"gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN, "cl100k": CL100K_PATTERN, "o200k": O200K_PATTERN}


def check_shape(q):
    assert len(set(q.choices)) == len(q.choices) >= 2 and q.answer in q.choices
    assert len(q.options) == len(q.choices)


@pytest.mark.parametrize("pattern", sorted(PATTERN_NAMES))
@pytest.mark.parametrize("text", TEXTS)
def test_pre_tokens_are_what_the_published_pattern_finds(pattern, text):
    q = pretokenize_question(text, pattern)
    check_shape(q)
    assert q.answer_option == tuple(regex.findall(PATTERNS[pattern], text))
    assert "".join(q.answer_option) == text
    assert PATTERN_NAMES[pattern] in q.prompt and q.is_right(q.answer_number)


def test_pre_tokens_offer_the_cuts_learners_expect():
    q = pretokenize_question("She's got 12345", "gpt4")
    options = set(q.options)
    assert ("She's", "got", "12345") in options  # at the spaces
    assert q.answer_option == ("She", "'s", " got", " ", "123", "45")
    assert "She | 's | ␣got | ␣ | 123 | 45" == q.answer
    assert pretokenize_question("She's got 12345", "gpt4", seed=1).choices != q.choices or len(q.choices) < 3


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
@pytest.mark.parametrize("text", TEXTS)
def test_token_counts_are_tiktokens(name, text):
    q = token_count_question(load_tokenizer(name), text, name=name)
    check_shape(q)
    assert q.answer_option == len(tiktoken_reference(name).encode(text, allowed_special="all"))
    assert q.answer == str(q.answer_option) and len(q.choices) >= 3


def test_fewest_tokens_is_tiktokens_smallest_count():
    names = ["gpt2", "cl100k_base", "o200k_base"]
    text = "Привет, как дела? Сегодня хорошая погода."
    q = fewest_tokens_question({n: load_tokenizer(n) for n in names}, text)
    counts = {n: len(tiktoken_reference(n).encode(text)) for n in names}
    check_shape(q)
    assert q.answer == min(counts, key=counts.get) and q.detail == counts
    assert sorted(q.choices) == sorted(names)


def test_a_trained_bpe_is_asked_the_same_way():
    toy = corpora.load("sennrich2016")
    few, many = train_bpe(toy, 2), train_bpe(toy, 10)
    q = token_count_question(many, "newest lowest", name="BPE")
    assert q.answer_option == len(many.encode("newest lowest").ids) == 3
    assert fewest_tokens_question({"2 merges": few, "10 merges": many}, "newest").answer == "10 merges"


@pytest.mark.parametrize("call, error, match", [
    (lambda: pretokenize_question(3), TypeError, "text must be a str"),
    (lambda: pretokenize_question(""), ValueError, "text must not be empty"),
    (lambda: pretokenize_question("abc", "gpt5"), ValueError, "pattern must be one of"),
    (lambda: pretokenize_question("abc"), ValueError, "no choice to make"),
    (lambda: token_count_question("gpt2", "abc"), TypeError, "tokenizer must be a tokenizer with an encode"),
    (lambda: token_count_question(train_bpe(corpora.load("sennrich2016"), 2), "ab", name=3), TypeError, "name"),
    (lambda: fewest_tokens_question([], "abc"), TypeError, "tokenizers must be a dict"),
    (lambda: fewest_tokens_question({"a": train_bpe(corpora.load("sennrich2016"), 2),
                                     "b": train_bpe(corpora.load("sennrich2016"), 2)}, "low"),
     ValueError, "no single answer"),
])
def test_bad_input_is_named(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_the_widget_asks_and_escapes():
    q = pretokenize_question("<script>alert(1)</script> x", "gpt2")
    html = prediction_html(q)
    assert "<script>" not in html and "&lt;script&gt;" in html
    widget = Predict(q)
    assert widget.answer(q.answer_number) and widget.right
