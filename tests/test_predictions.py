"""Predict before you see: bpe_viz.engine.predictions (four kinds of question), the ``steps``
keyword of quiz_questions / QuizExplorer, bpe_viz.view.predictions and the Predict widget.

Every answer is checked against what the engine then does (``encode_word``'s first step,
``train_wordpiece``'s first merge, ``encode``'s pieces) and against a literal recount from the
state the learner sees (ranks from the merge list, WordPiece scores from the word counts,
log-probabilities added up from the round's pieces), on the bundled corpora and the docs text.

Golden values: Sennrich, Haddow & Birch (2016), Algorithm 1's dictionary, merge 1 is a
three-way tie at count 9 ((e, s), (s, t), (t, </w>)), as notebook 01 says; SLP3 §2.5: BPE
merges (e, r) first, WordPiece (##s, ##t) with score 2 / (2 · 2) = 1/2 (notebook 03).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from html import escape

import pytest

from bpe_viz import (Prediction, corpora, encode, encode_word, first_merge_question, next_merge_question,
                     quiz_questions, train_bpe, train_unigram, train_wordpiece, unigram_cut_question,
                     wordpiece_vs_bpe_question)
from bpe_viz.engine.predictions import best_cuts
from bpe_viz.view import prediction_answer_html, prediction_html
from bpe_viz.widgets import Predict, QuizExplorer

SENNRICH = corpora.load("sennrich2016")
BUNDLED = ["sennrich2016", "slp3", "hf-course", "korean", "compression1994"]


@pytest.fixture(scope="module")
def toy():
    return train_bpe(SENNRICH, num_merges=10)  # notebook 01's toy_trace


@pytest.fixture(scope="module")
def docs_bpe():
    return train_bpe(corpora.python_docs_text(), 500)


@pytest.fixture(scope="module")
def docs_text():
    return corpora.python_docs_text()[:40_000]


def check_shape(q: Prediction):
    """What every question promises: distinct choices, the answer among them, one option and
    one measure per choice."""
    assert isinstance(q, Prediction)
    assert len(q.choices) == len(set(q.choices)) >= 2
    assert q.answer in q.choices and q.choices[q.answer_number - 1] == q.answer
    assert len(q.options) == len(q.choices) == len(q.measures) and len(set(q.options)) == len(q.options)
    assert q.prompt and q.reason and q.is_right(q.answer) and q.is_right(q.answer_number)


# -- quiz_questions(steps=...) ------------------------------------------------------------------------


def test_the_three_way_tie_of_notebook_01_is_asked_where_it_happens(toy):
    q = quiz_questions(toy, steps=[1])[0]
    assert q.step == 1 and q.answer == ("e", "s")
    assert q.tied == (("e", "s"), ("s", "t"), ("t", "</w>")) and q.is_tie
    # a literal recount of the words the learner sees
    counts = Counter()
    for word, n in SENNRICH.items():
        syms = [*word, "</w>"]
        for pair in zip(syms, syms[1:]):
            counts[pair] += n
    assert [counts[p] for p in q.tied] == [9, 9, 9] and max(counts.values()) == 9
    assert {p: c for p, c in zip(q.choices, q.counts)} == {p: counts[p] for p in q.choices}
    # the same tie with the notebook's explorer (preset sennrich2016)
    quiz = QuizExplorer("sennrich2016", steps=[1])
    assert quiz.questions[0].tied == q.tied and quiz.error is None


def test_steps_are_asked_in_the_order_given(toy):
    qs = quiz_questions(toy, steps=[3, 1, 8], seed=4)
    assert [q.step for q in qs] == [3, 1, 8]
    assert [q.answer for q in qs] == [toy.merges[k - 1].pair for k in (3, 1, 8)]
    assert qs == quiz_questions(toy, steps=[3, 1, 8], seed=4)  # deterministic
    assert {q.step for q in quiz_questions(toy, n=10)} <= set(range(1, 11))  # the old way still works


@pytest.mark.parametrize("steps,error,match", [
    ([11], ValueError, r"steps\[0\] must be between 1 and 10"),
    ([2, 0], ValueError, r"steps\[1\] must be between 1 and 10"),
    ([], ValueError, "steps must name at least one merge"),
    (3, TypeError, "steps must be a list"),
    (["1"], TypeError, r"steps\[0\] must be an int"),
    ([2, 2], ValueError, "merge 2 is listed twice"),
])
def test_steps_that_cannot_be_asked_are_named(toy, steps, error, match):
    with pytest.raises(error, match=match):
        quiz_questions(toy, steps=steps)


def test_a_tie_too_big_for_the_buttons_is_named():
    trace = train_bpe({"ab": 1, "cd": 1, "ef": 1, "gh": 1}, 1, end_of_word=None, min_frequency=1)
    assert len(trace.merges[0].tied) == 3
    with pytest.raises(ValueError, match="merge 1 makes no question: 4 pairs tie for it, more than 3"):
        quiz_questions(trace, steps=[1], max_choices=4)
    assert quiz_questions(trace, steps=[1], max_choices=5)[0].is_tie


def test_the_quiz_explorer_passes_steps_through(toy):
    quiz = QuizExplorer(toy, steps=[2, 1])
    assert [q.step for q in quiz.questions] == [2, 1]
    bad = QuizExplorer(toy, steps=[99])
    assert bad.questions == [] and "steps[0] must be between 1 and 10" in bad.error


# -- which merge does the encoder apply first? ----------------------------------------------------------


def literal_first_merge(trace, word, step=None):
    """The learned pair of the word's initial symbols that was learned first (its rank)."""
    k = len(trace.merges) if step is None else step
    rank = {}
    for m in trace.merges[:k]:
        rank.setdefault(m.pair, m.step)
    syms = encode_word(word, trace, k).initial
    present = [rank[p] for p in zip(syms, syms[1:]) if p in rank]
    return trace.merges[min(present) - 1].pair if present else None


@pytest.mark.parametrize("corpus,preset,merges,words", [
    ("sennrich2016", "sennrich2016", 10, ["lowest", "newer", "wider", "slow"]),
    ("slp3", "slp3", 8, ["lowers", "renew", "newest"]),
    ("korean", None, 6, ["한국어로", "문장들"]),
])
def test_first_merge_is_the_encoders_first_step(corpus, preset, merges, words):
    trace = train_bpe(corpora.load(corpus), merges, preset=preset)
    for word in words:
        q = first_merge_question(trace, word)
        check_shape(q)
        walk = encode_word(word, trace)
        assert q.answer_option == walk.steps[0].pair == literal_first_merge(trace, word)
        assert q.kind == "first_merge" and f'"{word}"' in q.prompt
        assert f"merge {walk.steps[0].rank}" in q.reason
        learned = {m.pair: m.step for m in trace.merges}
        for option, measure in zip(q.options, q.measures):
            assert measure == learned.get(option)  # the rank, or None for the near miss
        ranked = [m for m in q.measures if m is not None]
        assert min(ranked) == q.measures[q.answer_number - 1]


def test_first_merge_on_the_docs_text_and_at_an_earlier_step(docs_bpe):
    for word in ["tokenization", "reassignments", "unpickling"]:
        for step in (None, 50):
            q = first_merge_question(docs_bpe, word, step)
            check_shape(q)
            assert q.answer_option == encode_word(word, docs_bpe, step).steps[0].pair
            assert q.answer_option == literal_first_merge(docs_bpe, word, step)
            assert len(q.choices) <= 4
    a, b = (first_merge_question(docs_bpe, "tokenization", seed=s) for s in (0, 0))
    assert a == b
    c = first_merge_question(docs_bpe, "tokenization", seed=3)
    assert set(c.choices) == set(a.choices) and c.answer == a.answer


def test_first_merge_bad_input(toy):
    with pytest.raises(TypeError, match="trace must be a BPE trace"):
        first_merge_question("low", "lowest")
    with pytest.raises(ValueError, match="word must be one word"):
        first_merge_question(toy, "low est")
    with pytest.raises(TypeError, match="word must be a str"):
        first_merge_question(toy, 3)
    with pytest.raises(ValueError, match="word: no learned pair occurs in 'xyz'"):
        first_merge_question(toy, "xyz")
    with pytest.raises(ValueError, match="step must be between 0 and 10"):
        first_merge_question(toy, "lowest", 11)
    with pytest.raises(ValueError, match="trace: WordPiece encodes by longest match"):
        first_merge_question(train_wordpiece(SENNRICH, 5), "lowest")
    with pytest.raises(TypeError, match="seed must be an int"):
        first_merge_question(toy, "lowest", seed="a")


# -- BPE's pick against WordPiece's ---------------------------------------------------------------


def literal_score(snap, pair):
    """count(ab) / (count(a) · count(b)), recounted from the words and their counts."""
    pairs, tokens = Counter(), Counter()
    for word, syms in snap.segmentation.items():
        n = snap.word_counts[word]
        for s in syms:
            tokens[s] += n
        for p in zip(syms, syms[1:]):
            pairs[p] += n
    return Fraction(pairs[pair], tokens[pair[0]] * tokens[pair[1]])


@pytest.mark.parametrize("name", BUNDLED)
def test_wordpiece_pick_is_the_trainers_first_merge(name):
    corpus = corpora.load(name)
    q = wordpiece_vs_bpe_question(corpus)
    check_shape(q)
    wp = train_wordpiece(corpus, 1)
    bpe = train_bpe(corpus, 1, preset="hf-course")
    assert q.answer_option == wp.merges[0].pair
    a, b = bpe.merges[0].pair
    assert q.prompt == f"BPE merges ({a}, {b}) first. Which pair does WordPiece merge first?"
    for option, measure in zip(q.options, q.measures):
        assert measure == literal_score(wp[0], option)
    assert max(q.measures) == q.measures[q.answer_number - 1]
    assert q == wordpiece_vs_bpe_question(corpus)  # deterministic


def test_wordpiece_pick_golden_slp3_and_docs():
    q = wordpiece_vs_bpe_question(corpora.load("slp3"))
    assert q.answer == "(##s, ##t)" and "(##e, ##r)" in q.choices  # BPE's pair, as WordPiece writes it
    assert "(##s, ##t) scores 2 / (2 · 2) = 1/2" in q.reason and "9 / (19 · 9) = 1/19" in q.reason
    docs = corpora.python_docs_text()
    q = wordpiece_vs_bpe_question(docs)
    check_shape(q)
    assert q.answer_option == train_wordpiece(docs, 1).merges[0].pair


def test_wordpiece_pick_bad_input():
    with pytest.raises(ValueError, match="corpus: no pair of symbols to merge"):
        wordpiece_vs_bpe_question("a b c")
    with pytest.raises(ValueError, match="max_choices must be between 2 and 8"):
        wordpiece_vs_bpe_question(corpora.load("slp3"), max_choices=1)
    with pytest.raises(ValueError, match="preset"):
        wordpiece_vs_bpe_question(corpora.load("slp3"), bpe_preset="nope")


# -- how does Unigram cut a word? ---------------------------------------------------------------------


def check_cuts(q, trace, k):
    """Each choice is a cut of the word (the same letters) whose measure is the sum of its
    pieces' log-probabilities; the answer's is the highest."""
    scores = trace[k].scores
    unk = trace.unk_score(trace[k])
    form = "".join(q.answer_option)
    for cut, measure in zip(q.options, q.measures):
        assert "".join(cut) == form
        assert measure == pytest.approx(sum(scores.get(p, unk) for p in cut))
    assert max(q.measures) == pytest.approx(q.measures[q.answer_number - 1])


def test_unigram_cut_is_what_encode_does_hf_course():
    uni = train_unigram(corpora.load("slp3"), vocab_size=20)
    for word in ["lowest", "newest", "widest", "lower"]:
        q = unigram_cut_question(uni, word)
        check_shape(q)
        assert q.answer_option == tuple(encode(word, uni).pieces)
        check_cuts(q, uni, len(uni) - 1)
    q = unigram_cut_question(uni, "lowest", 0)
    assert q.answer_option == tuple(encode("lowest", uni, 0).pieces) and '"lowest"' in q.prompt


def test_unigram_cut_on_the_course_dictionary():
    # the course's dict has no "▁": the word is cut as given (encode_word), as the course does
    toy = corpora.load("hf-course")
    seeds = ["h", "u", "g", "hu", "ug", "p", "pu", "n", "un", "b", "bu", "s", "hug", "gs", "ugs"]
    uni = train_unigram(toy, 12, initial_vocab=seeds)
    for word in ["hugs", "pugs", "unhug", "bugs"]:
        q = unigram_cut_question(uni, word)
        check_shape(q)
        assert q.answer_option == encode_word(word, uni).final
        check_cuts(q, uni, len(uni) - 1)
    assert "the first one found is kept" in unigram_cut_question(uni, "hugs").reason  # h ugs = hug s


def test_unigram_cut_sentencepiece_on_the_docs(docs_text):
    uni = train_unigram(docs_text, 300, flavour="sentencepiece")
    for word in ["tokenization", "statements", "Python", "assert"]:
        q = unigram_cut_question(uni, word, seed=2)
        check_shape(q)
        assert q.answer_option == tuple(encode(word, uni).pieces)
        check_cuts(q, uni, len(uni) - 1)


def test_best_cuts_enumerates_the_lattice_best_first():
    scores = {"h": -3.0, "u": -3.0, "g": -3.0, "hu": -2.5, "ug": -2.5, "hug": -6.0}
    every = best_cuts("hug", scores, 10)
    assert every == [(("h", "ug"), -5.5), (("hu", "g"), -5.5), (("hug",), -6.0), (("h", "u", "g"), -9.0)]
    assert best_cuts("hug", scores, 2) == every[:2]
    assert best_cuts("hux", scores, 3) == [] and best_cuts("hux", scores, 3, unk=-13.0)[0] == (("hu", "x"), -15.5)


def test_unigram_cut_bad_input():
    uni = train_unigram(corpora.load("hf-course"), vocab_size=12)
    with pytest.raises(TypeError, match="unigram_trace must be a Unigram trace"):
        unigram_cut_question(train_bpe(SENNRICH, 3), "low")
    with pytest.raises(ValueError, match="round must be between 0 and"):
        unigram_cut_question(uni, "hugs", 99)
    with pytest.raises(ValueError, match="word: no piece of round .* covers every character of 'hugz'"):
        unigram_cut_question(uni, "hugz")
    with pytest.raises(ValueError, match="word: 'h' has a single cut"):
        unigram_cut_question(uni, "h")
    with pytest.raises(ValueError, match="word must be one word"):
        unigram_cut_question(uni, "")


# -- which pair does merge k take, as a Prediction ---------------------------------------------------


def test_next_merge_question_is_the_quiz_question(toy):
    q = next_merge_question(toy, 1)
    check_shape(q)
    quiz = quiz_questions(toy, steps=[1])[0]
    assert q.options == quiz.choices and q.answer_option == toy.merges[0].pair and q.reason == quiz.reason
    assert q.measures == quiz.counts and q.context[0] == "low ×5: l o w </w>"
    with pytest.raises(ValueError, match="steps"):
        next_merge_question(toy, 11)


# -- the views and the widget ------------------------------------------------------------------------


def questions(toy):
    uni = train_unigram(corpora.load("slp3"), vocab_size=20)
    return [next_merge_question(toy, 1), first_merge_question(toy, "lowest"),
            wordpiece_vs_bpe_question(corpora.load("slp3")), unigram_cut_question(uni, "newest")]


def test_the_widget_answers_right_and_wrong_for_every_kind(toy):
    for q in questions(toy):
        right = Predict(q)
        assert right.error is None and right.picked is None and "Right!" not in right.text
        buttons = [b for b in right.controls["choices"] if b.layout.display != "none"]
        assert [b.description for b in buttons] == [f"{i + 1}: {c}" for i, c in enumerate(q.choices)]
        assert right.answer(q.answer_number) is True and right.right is True
        assert "Right!" in right.text and buttons[q.answer_number - 1].button_style == "success"
        assert all(b.disabled for b in buttons)
        wrong = Predict(q)
        miss = next(i for i, c in enumerate(q.choices, 1) if c != q.answer)
        assert wrong.answer(miss) is False and wrong.picked == q.choices[miss - 1]
        assert "Not this one." in wrong.text and "your answer" in wrong.text
        styles = [b.button_style for b in wrong.controls["choices"][: len(q.choices)]]
        assert styles[miss - 1] == "danger" and styles[q.answer_number - 1] == "success"
        assert wrong.answer(q.answer_number) is False  # the first answer stays
        wrong.reset()
        assert wrong.picked is None and "Not this one." not in wrong.text


def test_show_me_reveals_the_answer_without_answering(toy):
    p = Predict(first_merge_question(toy, "lowest"))
    p.teacher = True
    assert "The answer:" in p.text and p.picked is None
    assert p.controls["choices"][p.question.answer_number - 1].button_style == "success"
    p.controls["teacher"].value = False
    assert "The answer:" not in p.text


def test_a_script_word_is_escaped_everywhere():
    trace = train_bpe({"<script>": 5, "<scripts>": 3, "<s>": 6, "script": 2}, 6)
    q = first_merge_question(trace, "<script>")
    p = Predict(q)
    p.answer(1)
    stored = p._repr_mimebundle_()["text/html"]
    for html in (p.view_html, stored, prediction_html(q)):
        assert "<script" not in html and "&lt;script&gt;" in html  # the prompt, escaped
    assert any("<" in c for c in q.choices)  # a pair with "<" in it: escaped in the answer's table
    answer = prediction_answer_html(q, 1)
    assert "(&lt;, s)" in answer and "(<" not in answer and "<script" not in answer


def test_stored_output_shows_the_question_and_its_choices(toy):
    for q in questions(toy):
        data = Predict(q)._repr_mimebundle_()
        html = data["text/html"]
        assert html.startswith('<div class="bpe-static">') and "<script" not in html
        assert data["text/plain"] == f"Predict: {q.prompt} (run the notebook to use the controls)"
        if q.kind != "next_merge":
            assert prediction_html(q) in html
            assert all(escape(c) in html for c in q.choices) and "Right!" not in html


def test_bad_input_shows_an_error_in_place_of_the_view(toy):
    p = Predict(42)
    assert p.error.startswith("question must be a Prediction") and p._view.layout.display == "none"
    assert "bpe-error" in p._repr_mimebundle_()["text/html"]
    with pytest.raises(ValueError, match="there is no question to answer"):
        p.answer(1)
    quiz_q = quiz_questions(toy, steps=[1])[0]
    assert "give its trace too" in Predict(quiz_q).error
    ok = Predict(quiz_q, trace=toy)
    assert ok.error is None and ok.question.options == quiz_q.choices
    with pytest.raises(ValueError, match="number must be a choice from 1 to 4"):
        ok.answer(5)
    assert "question is about merge 1 of another trace" in Predict(quiz_q, trace=train_bpe("a b a b", 1)).error


def test_predict_is_importable_from_the_package():
    import bpe_viz

    assert bpe_viz.Predict is Predict and "Predict" in bpe_viz.__all__


def test_the_widget_runs_one_thread_at_a_time():
    # the Explorer base's lock covers a subclass's own methods and properties
    assert Predict.answer.__serialized__ and Predict.reset.__serialized__ and Predict.picked.fget.__serialized__


def test_a_click_answers(toy):
    p = Predict(first_merge_question(toy, "lowest"))
    miss = next(i for i, c in enumerate(p.question.choices) if c != p.question.answer)
    p.controls["choices"][miss].click()
    assert p.right is False and "Not this one." in p.text
    p.controls["choices"][p.question.answer_number - 1].click()  # disabled in the page; from code, the first stays
    assert p.right is False
