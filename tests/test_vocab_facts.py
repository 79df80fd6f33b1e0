"""Vocabulary facts (engine/vocab_facts.py) against tiktoken on the real vocabularies.

tiktoken is built from the same installed rank files (no download) and asked the same questions
token by token: does the token's own text encode back to it, do its bytes decode.
"""

from __future__ import annotations

import gzip

import pytest

from bpe_viz import not_from_own_text, partial_character_tokens, train_bpe, train_unigram
from bpe_viz.engine.text import PRE_TOKENIZERS
from bpe_viz.interop.installed import INSTALLED, installed_path
from bpe_viz.interop.tiktoken_ranks import read_ranks
from helpers import real_tokenizer

tiktoken = pytest.importorskip("tiktoken")


def reference(name: str):
    trace = real_tokenizer(name)
    path, info = installed_path(name)
    data = path.read_bytes()
    ranks = read_ranks(gzip.decompress(data) if path.suffix == ".gz" else data)
    enc = tiktoken.Encoding(name, pat_str=PRE_TOKENIZERS[info["pattern"]].pattern, mergeable_ranks=ranks,
                            special_tokens=info["special_tokens"])
    return trace, enc, ranks


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_facts_agree_with_tiktoken_token_by_token(name):
    trace, enc, ranks = reference(name)
    partial, lonely = [], []
    for raw, i in ranks.items():
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            partial.append(i)
            continue
        if enc.encode_ordinary(text) != [i]:
            lonely.append(i)
    assert partial_character_tokens(trace) == sorted(partial)
    assert not_from_own_text(trace) == sorted(lonely)
    assert INSTALLED[name]["format"] == "tiktoken"


def test_what_the_notebook_says_of_o200k():
    trace = real_tokenizer("o200k_base")
    lonely = [trace.id_to_token[i] for i in not_from_own_text(trace)]
    assert "ĠI'" in lonely and trace.encode(" I'").tokens == ["ĠI", "'"]
    assert trace.encode(" I'm").tokens == ["ĠI'm"]  # the text " I'" only ever comes inside a longer piece


def test_trained_tokenizers():
    bpe = train_bpe("low lower lowest", 4, preset="minbpe")
    assert partial_character_tokens(bpe) == [] or all(i < 256 for i in partial_character_tokens(bpe))
    assert not_from_own_text(bpe) == []
    uni = train_unigram("low low low lower newest newest widest", 14)
    pieces = uni.id_to_token
    # a piece without the word-start mark only ever comes from inside a word
    assert [pieces[i] for i in not_from_own_text(uni)] == [p for p in pieces[1:] if not p.startswith("▁")]


def test_bad_argument():
    with pytest.raises(TypeError, match="tokenizer must be"):
        not_from_own_text("o200k_base")


def test_every_token_bytes_is_token_bytes_of_each_id():
    """The fast path (a byte-level trace's tokens translated at C speed) gives what
    token_bytes gives for each id, special tokens and non-byte-level tokenizers included."""
    from bpe_viz.engine.vocab_facts import _every_token_bytes, token_bytes

    for t in (real_tokenizer("gpt2"), train_bpe("héllo wörld 世界 <|endoftext|>", 10, preset="cs336"),
              train_bpe("low lower lowest", 5, preset="hf-course")):
        table = t.id_to_token
        assert _every_token_bytes(t, table) == [token_bytes(t, i, table) for i in range(len(table))]


def test_facts_are_kept_with_the_tokenizer_and_handed_out_as_copies():
    """A lesson asks GPT-4o's 200,000 tokens the same question twice: the second answer is kept,
    and a learner changing a list they were given does not change the next answer."""
    trace = real_tokenizer("gpt2")
    first = partial_character_tokens(trace)
    first.append(-1)
    assert partial_character_tokens(trace) == first[:-1]
    assert not_from_own_text(trace) == not_from_own_text(trace) == []
    assert set(trace.__dict__["_vocab_facts"]) == {"partial", "not_from_own_text"}
