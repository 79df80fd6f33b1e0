"""Why a token (engine/why.py, view/why.py) on real vocabularies and trained tokenizers.

The real GPT vocabularies are checked against tiktoken built from the same installed files: the
root of every token's merge tree is the token tiktoken gives that id, its leaves spell the
token's bytes, and the merges the walkthrough marks as this token's rebuild it exactly.
"""

from __future__ import annotations

import random
import statistics
import time

import pytest

from bpe_viz import corpora, merge_symbols, train_bpe, train_unigram, train_wordpiece
from bpe_viz.engine.merges.quiz import merge_tree
from bpe_viz.engine.why import KINDS, explain_token, fallback_byte
from bpe_viz.view.why import MAX_STEPS, why_html
from helpers import real_tokenizer

tiktoken = pytest.importorskip("tiktoken")

HARD = [
    "Hello  world, 12345 tokenization!\n",
    "   leading\t\ttabs\n\n\n   spaces     between   ",
    "Hello 世界 مرحبا Привет नमस्ते 안녕하세요",
    "👨‍👩‍👧‍👦 family 👍🏽",
    "I'm you'RE THEY'LL",
    "def f(x):\n    return x  # comment",
]


def leaves(tree) -> list[str]:
    out, stack = [], [tree]
    while stack:
        node = stack.pop()
        if node[1] == 0:
            out.append(node[0])
        else:
            stack.extend((node[3], node[2]))
    return out


def check_tree(trace, tree) -> None:
    """Every merge node joins its two parts, made earlier than itself."""
    stack = [tree]
    while stack:
        token, step, left, right = stack.pop()
        if step == 0:
            continue
        assert left[0] + right[0] == token
        assert left[1] < step and right[1] < step
        stack.extend((left, right))


def replay(why) -> str:
    """The token rebuilt from only the merges the walkthrough marks as this token's."""
    lo = sum(map(len, why.walkthrough.final[: why.position]))
    symbols = tuple(why.walkthrough.initial)
    for i in why.steps:
        pair = why.walkthrough.steps[i].pair
        symbols = merge_symbols(symbols, pair, pair[0] + pair[1])
    pos = 0
    for s in symbols:  # the symbol that starts where the token starts
        if pos == lo:
            return s
        pos += len(s)
    raise AssertionError("no symbol starts at the token")


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_every_token_of_real_text_is_explained(name):
    trace = real_tokenizer(name)
    text = corpora.python_docs_text()[:3000] + "".join(HARD)
    enc = trace.encode(text)
    for i in range(len(enc.ids)):
        why = explain_token(trace, enc, i)
        assert why.id == enc.ids[i] and why.token == enc.tokens[i]
        assert why.raw == trace.to_bytes(why.token)
        assert why.covers == text[why.span[0]:why.span[1]]
        assert why.walkthrough.final[why.position] == why.token
        assert tuple(why.walkthrough.final) == why.word_tokens
        if why.kind == "merged":
            assert why.steps, why.describe()
            assert replay(why) == why.token
            assert "".join(leaves(why.tree)) == why.token
            check_tree(trace, why.tree)
        else:
            assert why.kind == "initial" and not why.steps and len(why.raw) == 1


@pytest.mark.parametrize("name", ["gpt2", "o200k_base"])
def test_any_token_unwinds_to_its_bytes_as_tiktoken_numbers_it(name):
    trace = real_tokenizer(name)
    ids = random.Random(7).sample(range(256, len(trace.merges) + 256), 3000)
    toks = trace.id_to_token
    reference = tiktoken.get_encoding  # noqa: F841 (never called: that would download)
    for i in ids:
        token = toks[i]
        tree = merge_tree(trace, token)
        check_tree(trace, tree)
        assert b"".join(trace.to_bytes(leaf) for leaf in leaves(tree)) == trace.to_bytes(token)
        assert trace.token_to_id(tree[0]) == i  # the root is this id: the merge made it
        assert tree[1] == i - 255  # tiktoken's rank order: merge N makes id N + 255


def test_part_of_a_character_is_said(tmp_path):
    trace = real_tokenizer("cl100k_base")
    enc = trace.encode(" 世界")
    parts = [i for i, (a, b) in enumerate(enc.offsets) if enc.text[a:b] == "世"]
    assert len(parts) == 2  # 世 is three bytes, in two tokens
    out = why_html(trace, enc, parts[0])
    assert "Only part of a character" in out and "E4 B8 96" in out


def test_whitespace_and_specials():
    trace = real_tokenizer("cl100k_base")
    enc = trace.encode("a<|endoftext|>  b", allowed_special="all")
    kinds = [explain_token(trace, enc, i).kind for i in range(len(enc.ids))]
    assert kinds[enc.tokens.index("<|endoftext|>")] == "special"
    assert "special token" in why_html(trace, enc, enc.tokens.index("<|endoftext|>"))


def test_trained_families():
    bpe = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
    why = explain_token(bpe, bpe.encode("lowest"), 1)
    assert why.token == "est</w>" and [bpe.encode_word("lowest").steps[i].pair for i in why.steps] == [
        ("e", "s"), ("es", "t"), ("est", "</w>")]
    wp = train_wordpiece("low lower newest widest", 10)
    enc = wp.encode("lowest")
    html = why_html(wp, enc, 1)
    assert html.count("bpe-why-mine") == 1 and "longest vocabulary entry" in html
    uni = train_unigram("low low low lower newest newest widest", 14)
    enc = uni.encode("newest lows")
    why = explain_token(uni, enc, 1)
    assert why.kind == "piece" and why.tree is None and why.word == enc.words[why.word_index]
    assert "Viterbi" in why_html(uni, enc, 1)


def test_unknown_character():
    bpe = train_bpe("low lower", 3)
    enc = bpe.encode("lo€")
    i = enc.tokens.index(bpe.unk_token)
    assert explain_token(bpe, enc, i).kind == "unknown"
    assert KINDS["unknown"] in why_html(bpe, enc, i).replace("&#x27;", "'")


def test_html_is_escaped():
    bpe = train_bpe("<script>alert(1)</script> & <b>", 20)
    enc = bpe.encode("<script>x</script> &amp;")
    for i in range(len(enc.ids)):
        out = why_html(bpe, enc, i)
        assert "<script>" not in out and "<b>" not in out


def test_a_long_pretoken_lists_at_most_max_steps():
    trace = real_tokenizer("cl100k_base")
    enc = trace.encode("x" + "ab" * 400)
    out = why_html(trace, enc, 0)
    assert out.count('<li class="bpe-why-step') == MAX_STEPS and "more merges" in out


def test_fallback_byte():
    assert fallback_byte("<0xE4>") == 0xE4 and fallback_byte("<0xe4>") == 0xE4
    assert fallback_byte("<0xE4") is None and fallback_byte("E4") is None


def test_bad_arguments():
    bpe = train_bpe("low lower", 3)
    enc = bpe.encode("low")
    assert enc.tokens == ["low", "</w>"]
    with pytest.raises(ValueError, match="index must be between 0 and 1"):
        explain_token(bpe, enc, 2)
    with pytest.raises(ValueError, match="index"):
        explain_token(bpe, enc, -1)
    with pytest.raises(TypeError, match="index"):
        explain_token(bpe, enc, True)
    with pytest.raises(TypeError, match="encoding must be"):
        explain_token(bpe, [1, 2], 0)
    with pytest.raises(TypeError, match="tokenizer must be"):
        explain_token("gpt2", enc, 0)
    with pytest.raises(ValueError, match="another tokenizer"):
        explain_token(train_bpe("low lower", 2), enc, 0)
    with pytest.raises(ValueError, match="size"):
        why_html(bpe, enc, 0, size=0)


def test_why_is_fast_on_the_largest_vocabulary():
    trace = real_tokenizer("o200k_base")
    text = corpora.python_docs_text()[5000:7000]
    enc = trace.encode(text)
    times = []
    for i in range(0, len(enc.ids), 5):
        t0 = time.perf_counter()
        why_html(trace, enc, i)
        times.append(time.perf_counter() - t0)
    assert statistics.median(times) < 0.02, f"median {statistics.median(times) * 1000:.1f} ms per token"
