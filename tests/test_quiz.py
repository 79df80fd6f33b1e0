"""The quiz and merge trees: bpe_viz.engine.merges.quiz, bpe_viz.view.merges.quiz / trees, QuizExplorer.

Golden values come from published examples:

* Sennrich, Haddow & Birch (2016), Algorithm 1's dictionary (low×5, lower×2, newest×6,
  widest×3): before merge 1, (e, s), (s, t) and (t, </w>) all occur 9 times; the paper's
  ``max()`` over a freshly counted dict takes the first met, (e, s). Merges 1–3 build est</w>,
  6–8 build newest</w> = new + est</w>.
* Jurafsky & Martin, SLP3 §2.5.2: merges er, er_, ne, new, lo, low, newer_, low_; before the
  first, (e, r) and (r, _) both occur 9 times.
* The Hugging Face NLP course, chapter 6 (WordPiece on hug×10, pug×5, pun×12, bun×4, hugs×5):
  the first merge is (##g, ##s) with score 5 / (20 · 5) = 1/20.

Every question is also checked against a literal recount of the state the learner sees (the
words and their counts): the counts shown, the pairs tied for the top, and the tie rule's pick.
"""

from __future__ import annotations

import html
from collections import Counter
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")

import pytest

from bpe_viz import (PRESETS, Question, corpora, encode_word, merge_tree, quiz_questions, symbols_to_bytes, train_bpe,
                     train_wordpiece)
from bpe_viz.engine.merges import MAX_CHOICES
from bpe_viz.view import (MAX_BOXES, answer_html, merge_tree_html, merge_trees_html, question_html, summary_html,
                          walkthrough_html)

SENNRICH = corpora.load("sennrich2016")
HF_COURSE = corpora.load("hf-course")


@pytest.fixture(scope="module")
def toy():
    return train_bpe(SENNRICH, 10, preset="sennrich2016")


@pytest.fixture(scope="module")
def docs():
    return train_bpe(corpora.python_docs_text(), 1000)


# -- a literal recount of what the learner sees ---------------------------------------------------


def recount(snap):
    """pair -> count, in the order a fresh scan meets them (words in corpus order, left to right)."""
    counts: dict = {}
    for word, syms in snap.segmentation.items():
        n = snap.word_counts[word]
        for p in zip(syms, syms[1:]):
            counts[p] = counts.get(p, 0) + n
    return counts


def token_recount(snap) -> Counter:
    tc: Counter = Counter()
    for word, syms in snap.segmentation.items():
        for s in syms:
            tc[s] += snap.word_counts[word]
    return tc


def values_by_recount(trace, snap):
    counts = recount(snap)
    if trace.model.scored:
        tc = token_recount(snap)
        return counts, {p: Fraction(c, tc[p[0]] * tc[p[1]]) for p, c in counts.items()}
    return counts, dict(counts)


def rule_pick(trace, top: list):
    """The pair the trace's tie rule takes among ``top`` (in first-met order), by its definition."""
    rule = trace.tie_rule.name
    if rule == "first":
        return top[0]
    if rule == "lexicographic":
        return max(top)
    if rule == "shorter":
        return min(top, key=lambda p: (len(p[0] + p[1]), p[0] + p[1]))
    if rule == "bytes":  # the bytes a symbol stands for (GPT-2's "Ġ" is the space, 0x20)
        raw = symbols_to_bytes if trace.convention.byte_level else str.encode
        return max(top, key=lambda p: (raw(p[0]), raw(p[1])))
    return None  # "hf": token ids; checked against the trace's own merges only


def check_question(trace, q: Question):
    """What every question must satisfy, checked against a recount of trace[q.step - 1]."""
    merge = trace.merges[q.step - 1]
    assert q.answer == merge.pair, "the answer is what the trace merged"
    assert q.tied[0] == q.answer and set(q.tied) == {merge.pair, *merge.tied}
    assert set(q.tied) <= set(q.choices) and len(set(q.choices)) == len(q.choices)
    assert 2 <= len(q.choices) <= MAX_CHOICES
    assert len(q.choices) <= max(4, len(q.tied) + 1), "up to 4 buttons unless a tie needs more"
    snap = trace[q.step - 1]
    counts, values = values_by_recount(trace, snap)
    assert q.counts == tuple(counts[p] for p in q.choices)
    # pairs the model may merge (SentencePiece refuses some: across scripts, too long, made already)
    allowed = {p for p, _ in snap.ranked_pairs}
    if trace.convention.preset != "sentencepiece":
        assert allowed == set(counts)
    elif allowed != set(counts) and max(counts.values()) > max(q.counts):
        assert "rules do not let" in q.reason
    counts = {p: c for p, c in counts.items() if p in allowed}
    values = {p: v for p, v in values.items() if p in allowed}
    if q.scores is not None:
        assert q.scores == tuple(values[p] for p in q.choices)
    top_value = values[q.answer]
    top = [p for p in counts if values[p] == top_value]
    assert set(top) == set(q.tied), "every pair tied for the top is listed, and only those"
    assert max(values.values()) == top_value
    near = [p for p in q.choices if p not in q.tied]
    assert all(values[p] < top_value for p in near)
    if len(counts) > len(top):
        assert near, "a near miss is offered whenever there is one"
        best_below = max(v for v in values.values() if v < top_value)
        assert max(values[p] for p in near) == best_below, "the near misses are the runners-up"
    pick = rule_pick(trace, top)
    if pick is not None:
        assert pick == q.answer
    if q.is_tie:
        assert trace.tie_rule.takes in q.reason and "tie" in q.reason
        assert all(f"({a}, {b})" in q.reason for a, b in q.tied)
    elif q.scores is None:
        assert f"occurs {q.counts[q.choices.index(q.answer)]:,} times" in q.reason
    else:
        assert f"= {q.value(q.answer)}" in q.reason


# -- quiz_questions ---------------------------------------------------------------------------------


def test_the_papers_example_every_merge_is_a_question(toy):
    qs = quiz_questions(toy, n=10)
    assert [q.step for q in qs] == list(range(1, 11))
    for q in qs:
        check_question(toy, q)
    first = qs[0]
    assert first.tied == (("e", "s"), ("s", "t"), ("t", "</w>"))
    assert first.counts[first.choices.index(("e", "s"))] == 9
    assert first.reason == ('3 pairs occur 9 times: (e, s), (s, t) and (t, </w>). A tie: the tie rule takes '
                            'the first pair met, (e, s), in "newest".')
    assert [q.step for q in qs if q.is_tie] == [1, 2, 4, 6, 7, 10]
    assert qs[2].reason.startswith("(est, </w>) occurs 9 times, more than any other pair")


def test_ties_come_first_when_choosing_steps(toy, docs):
    qs = quiz_questions(toy, n=4, seed=5)
    assert len(qs) == 4 and all(q.is_tie for q in qs)
    assert [q.step for q in qs] == sorted({q.step for q in qs})
    qs = quiz_questions(docs, n=10, seed=0)
    assert len(qs) == 10 and all(q.is_tie for q in qs)
    for q in qs:
        check_question(docs, q)


def test_slp3_with_both_tie_rules():
    first = train_bpe(corpora.load("slp3"), 8, preset="slp3")
    assert [m.token for m in first.merges] == ["er", "er_", "ne", "new", "lo", "low", "newer_", "low_"]
    greatest = train_bpe(corpora.load("slp3"), 8, preset="slp3", tie_break="lexicographic")
    q1, q2 = quiz_questions(first, n=8)[0], quiz_questions(greatest, n=8)[0]
    assert q1.step == q2.step == 1
    assert set(q1.tied) == set(q2.tied) == {("e", "r"), ("r", "_")}
    assert (q1.answer, q2.answer) == (("e", "r"), ("r", "_"))
    assert "first pair met" in q1.reason and "greatest pair by code points" in q2.reason
    for trace in (first, greatest):
        for q in quiz_questions(trace, n=8):
            check_question(trace, q)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset(preset):
    trace = train_bpe(SENNRICH, 10, preset=preset)
    qs = quiz_questions(trace, n=10)
    assert qs and all(q.step <= len(trace.merges) for q in qs)
    for q in qs:
        check_question(trace, q)


def test_byte_level_and_sentencepiece_on_real_text():
    text = corpora.python_docs_text()[:60_000]
    for preset in ("minbpe", "cs336", "sentencepiece", "hf-tokenizers"):
        trace = train_bpe(text, 300, preset=preset)
        qs = quiz_questions(trace, n=6, seed=2)
        assert len(qs) == 6
        for q in qs:
            check_question(trace, q)


def test_wordpiece_by_score():
    trace = train_wordpiece(HF_COURSE, 9)
    qs = quiz_questions(trace, n=9)
    # every step with a choice to make (before merge 9 only (pu, ##n) is left)
    assert [k for k in range(1, 10) if len(trace[k - 1].pair_counts) > 1] == list(range(1, 9))
    assert [q.step for q in qs] == list(range(1, 9))
    for q in qs:
        check_question(trace, q)
    first = qs[0]
    assert first.answer == ("##g", "##s") and not first.is_tie
    assert first.value(first.answer) == Fraction(1, 20)
    assert "5 / (20 · 5) = 1/20" in first.reason
    # merge 2: six pairs share the best score 1/36 although their counts differ (15, 17, 16 ...)
    second = qs[1]
    assert second.is_tie and len(second.tied) == 6 and second.value(second.answer) == Fraction(1, 36)
    assert len({second.counts[second.choices.index(p)] for p in second.tied}) > 1
    assert "first pair met" in second.reason


def test_same_seed_same_quiz_other_seed_other_quiz(docs):
    a = quiz_questions(docs, n=10, seed=7)
    assert a == quiz_questions(docs, n=10, seed=7)
    assert a != quiz_questions(docs, n=10, seed=8)
    toy = train_bpe(SENNRICH, 10)
    orders = {tuple(q.choices for q in quiz_questions(toy, seed=s)) for s in range(5)}
    assert len(orders) > 1, "the seed shuffles the choices"
    # the shuffle is not a hidden give-away: the answer is not always the same button
    numbers = {q.answer_number for s in range(5) for q in quiz_questions(toy, seed=s)}
    assert len(numbers) >= 3


def test_fewer_steps_than_asked_and_no_merges():
    trace = train_bpe(SENNRICH, 3)
    assert [q.step for q in quiz_questions(trace, n=10)] == [1, 2, 3]
    empty = train_bpe({"a": 1, "b": 1}, 5)
    with pytest.raises(ValueError, match="trace has no merges"):
        quiz_questions(empty)


@pytest.mark.parametrize("kwargs,exc,words", [
    (dict(trace="low lower"), TypeError, "trace must be a Trace"),
    (dict(n=0), ValueError, "n must be >= 1, got 0"),
    (dict(n="3"), TypeError, "n must be an int"),
    (dict(seed="class"), TypeError, "seed must be an int"),
    (dict(seed=1.5), TypeError, "seed must be an int"),
    (dict(max_choices=1), ValueError, "max_choices must be >= 2"),
])
def test_quiz_bad_input(toy, kwargs, exc, words):
    args = {"trace": toy, **kwargs}
    with pytest.raises(exc, match=words):
        quiz_questions(args.pop("trace"), **args)


def test_a_tie_too_big_for_the_buttons_is_not_asked(toy):
    qs = quiz_questions(toy, n=10, max_choices=3)
    assert 1 not in [q.step for q in qs]  # 3 pairs tie at merge 1: no room for a near miss
    assert all(len(q.choices) <= 3 for q in qs)


# -- merge_tree -------------------------------------------------------------------------------------


def test_merge_tree_of_newest(toy):
    leaf = lambda s: (s, 0, None, None)  # noqa: E731
    est = ("est", 2, ("es", 1, leaf("e"), leaf("s")), leaf("t"))
    assert merge_tree(toy, "newest</w>") == (
        "newest</w>", 8,
        ("new", 7, ("ne", 6, leaf("n"), leaf("e")), leaf("w")),
        ("est</w>", 3, est, leaf("</w>")),
    )
    assert merge_tree(toy, "e") == leaf("e")
    assert merge_tree(toy, "est", upto=2) == est


def _leaves(tree):
    if tree[1] == 0:
        return [tree[0]]
    return _leaves(tree[2]) + _leaves(tree[3])


def _check_tree(trace, tree):
    token, step, left, right = tree
    if step == 0:
        return
    m = trace.merges[step - 1]
    assert m.token == token and m.pair == (left[0], right[0])
    for child in (left, right):
        assert child[1] < step
        _check_tree(trace, child)


def test_merge_trees_rebuild_every_token_of_real_text(docs):
    for m in docs.merges:
        tree = merge_tree(docs, m.token)
        assert tree[1] == min(x.step for x in docs.merges if x.token == m.token)
        assert "".join(_leaves(tree)) == m.token
        _check_tree(docs, tree)


def test_merge_tree_wordpiece_and_sentencepiece():
    wp = train_wordpiece(HF_COURSE, 9)
    tree = merge_tree(wp, "hugs")
    _check_tree(wp, tree)
    assert [t for t in _leaves(tree)] == ["h", "##u", "##g", "##s"]
    sp = train_bpe(SENNRICH, 10, preset="sentencepiece")
    tree = merge_tree(sp, "▁newest")
    _check_tree(sp, tree)
    assert "".join(_leaves(tree)) == "▁newest"


def test_merge_tree_bad_input(toy):
    with pytest.raises(ValueError, match="token 'xyz' is not in this trace's vocabulary"):
        merge_tree(toy, "xyz")
    with pytest.raises(TypeError, match="token must be a str"):
        merge_tree(toy, 3)
    with pytest.raises(TypeError, match="trace must be a Trace"):
        merge_tree({"low": 5}, "low")
    with pytest.raises(ValueError, match="made by merge 8, after the first 5 merges"):
        merge_tree(toy, "newest</w>", upto=5)
    with pytest.raises(ValueError, match="upto must be at most 10"):
        merge_tree(toy, "low", upto=11)
    cs = train_bpe("low lower <|endoftext|> newest", 3, preset="cs336")
    with pytest.raises(ValueError, match="special token"):
        merge_tree(cs, "<|endoftext|>")


# -- the views --------------------------------------------------------------------------------------


def test_merge_tree_html_boxes_and_merge_numbers(toy):
    out = merge_tree_html(toy, "newest</w>")
    assert out.count('class="bpe-tree-node"') == 6  # merges 1, 2, 3, 6, 7, 8
    for k in (1, 2, 3, 6, 7, 8):
        assert f">merge {k}</span>" in out
    assert "newest&lt;/w&gt; = new + est&lt;/w&gt; (merge 8)" in out
    assert 'class="bpe-marker"' in out  # </w> dimmed, not hidden
    assert "6 merges from 7 initial symbols" in out
    assert merge_trees_html(toy, ["low", "est</w>", "low"]).count('class="bpe-tree"') == 2
    with pytest.raises(TypeError, match="tokens must be a list"):
        merge_trees_html(toy, "low")


def test_merge_tree_html_escapes_and_stays_small():
    trace = train_bpe("<b>x</b> " * 4, 12, min_frequency=1)
    token = max((m.token for m in trace.merges), key=len)
    assert "<b>" in token
    out = merge_tree_html(trace, token)
    assert "<b>" not in out and "&lt;b&gt;" in out
    # a pasted 20,000-letter word: a token thousands of letters long, drawn with a few boxes only
    long = train_bpe("a" * 20_000, 20, min_frequency=1)
    tree = merge_tree(long, long.merges[-1].token)
    assert "".join(_leaves(tree)) == long.merges[-1].token
    out = merge_tree_html(long, long.merges[-1].token)
    assert out.count('class="bpe-tree-node"') == MAX_BOXES and "shown open" in out
    assert len(out) < 200_000


def test_walkthrough_shows_the_trees_of_the_final_tokens(toy):
    out = walkthrough_html(encode_word("newest", toy), trace=toy)
    trees = out.split('class="bpe-walk-trees"')[1]
    assert trees.count('class="bpe-tree"') == 1 and ">merge 8</span>" in trees
    # no trace: no trees (nothing to look them up in)
    assert "bpe-walk-trees" not in walkthrough_html(encode_word("newest", toy))


def test_question_html_hides_the_counts_and_the_answer(toy):
    q = quiz_questions(toy)[0]
    out = question_html(toy, q, number=1, of=10)
    assert "Question 1 of 10: which pair does merge 1 take?" in out
    assert "Words at step 0" in out and "Pairs at step" not in out
    assert "bpe-chosen" not in out and ">tie<" not in out and "tie!" not in out
    assert out.count('class="bpe-quiz-choice"') == len(q.choices)
    assert "first pair met" in out  # the rule is told: it decides the answer
    assert 'class="bpe-quiz-choice"' not in question_html(toy, q, show_choices=False)


def test_answer_html_reveals_counts_winner_ties_and_pick(toy):
    q = quiz_questions(toy)[0]
    wrong = next(p for p in q.choices if p not in q.tied)
    out = answer_html(toy, q, picked=wrong)
    assert "Not this one." in out and "your answer" in out and "tie!" in out
    assert out.count(">tie<") == 3 and out.count("bpe-chosen") == 1
    assert "the first pair met" in out
    assert "Right!" in answer_html(toy, q, picked=q.answer)
    assert "The answer:" in answer_html(toy, q)
    with pytest.raises(ValueError, match="picked must be one of"):
        answer_html(toy, q, picked=("x", "y"))
    other = train_bpe({"aa": 5, "ab": 4}, 2)
    with pytest.raises(ValueError, match="another trace"):
        answer_html(other, quiz_questions(toy, n=10)[5])


def test_wordpiece_answer_shows_scores():
    trace = train_wordpiece(HF_COURSE, 9)
    q = quiz_questions(trace, n=9)[1]
    out = answer_html(trace, q)
    assert "score" in out and "1/36" in out and out.count(">tie<") == 6
    assert "WordPiece merges the pair with the best score" in question_html(trace, q)


def test_summary_html(toy):
    qs = quiz_questions(toy, n=3)
    out = summary_html(toy, qs, [qs[0].answer, qs[1].choices[0] if qs[1].choices[0] != qs[1].answer
                                 else qs[1].choices[1], None])
    assert "1 of 3 right" in out and "not answered" in out and "not this one" in out
    with pytest.raises(ValueError, match="one entry per question"):
        summary_html(toy, qs, [None])


def test_views_escape_the_corpus():
    evil = '<script>alert(1)</script> <b>x</b> "q" <script>alert(1)</script> <b>x</b>'
    trace = train_bpe(evil, 12, min_frequency=1)
    outs = []
    for q in quiz_questions(trace, n=5):
        outs += [question_html(trace, q), answer_html(trace, q, picked=q.choices[0])]
    outs.append(merge_tree_html(trace, trace.merges[-1].token))
    for out in outs:
        assert "<script" not in out and "<b>" not in out
        assert "&lt;" in out


# -- the widgets ------------------------------------------------------------------------------------


def test_quiz_explorer_by_keys_and_clicks(toy):
    from bpe_viz import QuizExplorer

    quiz = QuizExplorer(toy, n=10)
    assert quiz.error is None and len(quiz.questions) == 10
    q = quiz.question
    assert "Question 1 of 10" in quiz.text and "Pairs at step" not in quiz.view_html
    buttons = quiz.controls["choices"]
    shown = [b for b in buttons if b.layout.display != "none"]
    assert [b.description for b in shown] == [f"{i + 1}: ({a}, {b})" for i, (a, b) in enumerate(q.choices)]
    # a key: "2" in the keys box answers choice 2 and empties the box
    quiz.controls["keys"].value = "2"
    assert quiz.controls["keys"].value == ""
    assert quiz.picks[0] == q.choices[1]
    assert "The choices at step 0" in quiz.text and q.reason in quiz.text
    right = quiz.picks[0] == q.answer
    assert quiz.score == int(right)
    # Enter in the keys box (the front end's "submit" message) goes on
    quiz.controls["keys"]._handle_custom_msg({"event": "submit"}, [])
    assert quiz.index == 1 and "Question 2 of 10" in quiz.text
    # Enter before answering: a hint, no skip
    quiz.controls["keys"]._handle_custom_msg({"event": "submit"}, [])
    assert quiz.index == 1 and "Answer first" in quiz.text
    # a click on the right button
    q2 = quiz.question
    buttons[q2.answer_number - 1].click()
    assert quiz.picks[1] == q2.answer and "Right!" in quiz.text
    assert buttons[q2.answer_number - 1].button_style == "success"
    assert quiz.score == int(right) + 1
    # a key out of range: a hint, the question stays answered as it was
    quiz.controls["keys"].value = "9"
    assert "Press a number from 1 to" in quiz.text


def test_quiz_explorer_to_the_end_and_again(toy):
    from bpe_viz import QuizExplorer

    quiz = QuizExplorer(toy, n=10, seed=3)
    for q in quiz.questions:
        assert quiz.answer(q.answer_number) is True
        quiz.next()
    assert quiz.question is None and "The end: 10 of 10 right" in quiz.text
    quiz.next()
    assert quiz.index == 0 and quiz.answered == 0 and "Question 1 of 10" in quiz.text


def test_quiz_explorer_teacher_shows_the_answer(toy):
    from bpe_viz import QuizExplorer

    quiz = QuizExplorer(toy, n=10, teacher=True)
    q = quiz.question
    assert "The answer:" in quiz.text and q.reason in quiz.text
    assert quiz.controls["choices"][q.answer_number - 1].button_style == "success"
    quiz.controls["teacher"].value = False
    assert "The answer:" not in quiz.text
    assert all(b.button_style == "" for b in quiz.controls["choices"])


def test_quiz_explorer_trains_on_a_corpus_and_shows_errors():
    from bpe_viz import QuizExplorer

    quiz = QuizExplorer("slp3", n=3, tie_break="lexicographic")
    assert quiz.error is None and quiz.trace.convention.end_of_word == "_"
    assert quiz.trace.tie_rule.name == "lexicographic"
    assert "greatest pair by code points" in quiz.text
    bad = QuizExplorer("", n=3)
    assert "empty" in bad.error.lower() or "no merges" in bad.error
    assert "bpe-error" in bad.view_html
    assert "n must be >= 1" in QuizExplorer("sennrich2016", n=0).error
    assert "preset must be one of" in QuizExplorer("sennrich2016", preset="nope").error
    with pytest.raises(ValueError, match="number must be a choice from 1 to"):
        QuizExplorer("sennrich2016").answer(9)


def test_merge_explorer_tree_of_a_token(toy):
    from bpe_viz import MergeExplorer

    ex = MergeExplorer.from_trace(toy)
    assert ex.tree_html == ""
    ex.step = 10
    ex.show_tree("newest</w>")
    assert ">merge 8</span>" in ex.tree_html and "bpe-error" not in ex.tree_html
    ex.step = 5  # newest</w> is made by merge 8: not yet
    assert "made by merge 8, after the first 5 merges" in ex.tree_html
    ex.step = 9
    assert ">merge 8</span>" in ex.tree_html
    ex.show_tree("zzz")
    assert "not in this trace's vocabulary" in html.unescape(ex.tree_html)
    ex.show_tree("")
    assert ex.tree_html == ""


def test_quiz_question_saved_for_a_slide(toy, tmp_path):
    """The explorers' save(): the question shown (and the answer, once given) as an offline page."""
    from bpe_viz import QuizExplorer

    quiz = QuizExplorer(toy, n=10)
    quiz.answer(quiz.question.answer_number)
    page = quiz.save(tmp_path / "q1.html").read_text(encoding="utf-8")
    assert "which pair does merge 1 take?" in page and "Right!" in page and "<script" not in page
    assert "Quiz: 10 questions" in quiz._repr_mimebundle_()["text/plain"]
