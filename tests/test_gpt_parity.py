"""Pretrained byte-level tokenizers loaded from other tools' files encode exactly as those tools
do: GPT-2's merges.txt (read_merges, GPT-2's layout) against CS336's ``test_tokenizer`` ids and
tiktoken built from the same ranks, read_merges with a vocab.json, and Hugging Face
``tokenizers`` models (from_hf_tokenizer) against ``Tokenizer.encode``, offsets included.

Its siblings: test_gpt_training checks that train_bpe *learns* the merges the reference trainers
learn (CS336, minbpe, tiktoken's ``_educational``); test_gpt_inputs checks bad arguments and
exact round trips on any text. GPT-2's byte table is rebuilt in gpt_reference.py, not taken
from bpe_viz.

Golden values come from the shared fixtures in ``../shared/fixtures/external`` (see SOURCES.md
there); tests that read them skip when that checkout is absent, and the tiktoken and Hugging
Face tests skip when those packages are not installed.

Pinned conventions these tests rely on:

* ``trace.id_to_token`` lists the token strings by id (GPT-2's byte spelling);
  ``trace.token_to_id(tok)``; ``trace.vocab_size == len(trace.id_to_token)``;
* ``read_merges`` with no vocab: GPT-2's layout (the bytes in ``bytes_to_unicode`` order, one id
  per merge, then the specials); with a vocab, the vocab's ids.

Only the public top-level API is used (``from bpe_viz import ...``).
"""

from __future__ import annotations

import json

import pytest

from bpe_viz import decode, encode, from_hf_tokenizer, read_merges

from gpt_reference import BYTE_TO_SYMBOL, EOT, GPT2_BYTE_ORDER, GPT2_PATTERN, gpt2_bytes
from helpers import fixture_path, read_json, read_text


# -- 1. CS336 test_tokenizer (GPT-2's merges) ---------------------------------------------------

CS336_TOKENIZER_CASES = [
    "empty",
    "single_character",
    "single_unicode_character",
    "ascii_string",
    "unicode_string",
    "unicode_string_with_special_tokens",
    "address.txt",
    "german.txt",
    "tinystories_sample.txt",
]


@pytest.fixture(scope="module")
def gpt2_trace():
    return read_merges(fixture_path("cs336", "gpt2_merges.txt"), special_tokens=[EOT])


@pytest.fixture(scope="module")
def gpt2_merge_lines():
    return read_text("cs336", "gpt2_merges.txt").splitlines()


@pytest.fixture(scope="module")
def tiktoken_gpt2(gpt2_merge_lines):
    """tiktoken's Encoding built from the same merges (notes/tokenizer-parity.md: ranks = the 256
    bytes in GPT-2's table order, then one per merge; get_encoding("gpt2") would download)."""
    tiktoken = pytest.importorskip("tiktoken")
    ranks = {bytes([b]): i for i, b in enumerate(GPT2_BYTE_ORDER)}
    for line in gpt2_merge_lines:
        a, b = line.split(" ")
        ranks[gpt2_bytes(a) + gpt2_bytes(b)] = len(ranks)
    return tiktoken.Encoding("gpt2-local", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={EOT: 50256})


def test_gpt2_layout(gpt2_trace, gpt2_merge_lines):
    """SOURCES.md: gpt2_vocab.json (not shipped) is exactly derivable from gpt2_merges.txt: the
    256 byte tokens in bytes_to_unicode order, then one id per merge (50,000), then
    <|endoftext|> = 50256."""
    trace = gpt2_trace
    assert len(gpt2_merge_lines) == 50_000
    assert trace.vocab_size == len(trace.id_to_token) == 50_257
    assert trace.id_to_token[:256] == [BYTE_TO_SYMBOL[b] for b in GPT2_BYTE_ORDER]
    assert trace.id_to_token[:3] == ["!", '"', "#"] and trace.id_to_token[255] == "Ń"
    assert trace.id_to_token[256:50_256] == ["".join(line.split(" ")) for line in gpt2_merge_lines]
    assert trace.id_to_token[256] == "Ġt" and trace.id_to_token[50_256] == EOT
    assert trace.token_to_id(EOT) == 50_256 and trace.token_to_id("Ġthe") == 262
    assert [tuple(m.pair) for m in trace.merges[:3]] == [("Ġ", "t"), ("Ġ", "a"), ("h", "e")]


def test_cs336_tokenizer_fixture_structure():
    """tokenizer-expected-ids.json: {name: {"text": str | None, "file": str | None, "ids": [...],
    "segments": [["text" | "special", str], ...]}}; a case reads cs336/<file> when text is None,
    and its segments concatenate to the text."""
    fx = read_json("cs336", "derived", "tokenizer-expected-ids.json")
    assert sorted(fx) == sorted(CS336_TOKENIZER_CASES)
    for name, case in fx.items():
        text = case["text"] if case["file"] is None else read_text("cs336", case["file"])
        assert "".join(s for _, s in case["segments"]) == text, name
        assert {kind for kind, _ in case["segments"]} <= {"text", "special"}


@pytest.mark.parametrize("name", CS336_TOKENIZER_CASES)
def test_cs336_tokenizer(gpt2_trace, name):
    """stanford-cs336/assignment1-basics tests/test_tokenizer.py (test_empty_matches_tiktoken ...
    test_tinystories_matches_tiktoken, each with its roundtrip test): the ids equal the stored
    ones (tiktoken with the same ranks, cross-checked with HF tokenizers, SOURCES.md), and
    decode gives the text back exactly; the special token is recognised by default."""
    case = read_json("cs336", "derived", "tokenizer-expected-ids.json")[name]
    text = case["text"] if case["file"] is None else read_text("cs336", case["file"])
    e = encode(text, gpt2_trace)
    assert e.ids == case["ids"]
    assert decode(e.ids, gpt2_trace) == text
    assert decode(case["ids"], gpt2_trace) == text
    n_special = sum(kind == "special" for kind, _ in case["segments"])
    assert e.tokens.count(EOT) == e.ids.count(50_256) == n_special


def test_cs336_allowed_special(gpt2_trace, tiktoken_gpt2):
    """allowed_special: "all" (the default) and {"<|endoftext|>"} give the special token's id;
    "none" and set() encode its text as plain bytes, as tiktoken's encode_ordinary does:
    "<|", "endoftext", "|>" -> < | end of text | > = [27, 91, 437, 1659, 5239, 91, 29]."""
    t = gpt2_trace
    assert encode(EOT, t).ids == [50_256]
    assert encode(EOT, t, allowed_special="all").ids == [50_256]
    assert encode(EOT, t, allowed_special={EOT}).ids == [50_256]
    plain = [27, 91, 437, 1659, 5239, 91, 29]
    assert tiktoken_gpt2.encode_ordinary(EOT) == plain
    for allowed in ("none", set()):
        e = encode(EOT, t, allowed_special=allowed)
        assert e.ids == plain and 50_256 not in e.ids
        assert decode(e.ids, t) == EOT
    text = "Héllò hôw <|endoftext|><|endoftext|> are ü? 🙃<|endoftext|>"
    e = encode(text, t, allowed_special="none")
    assert e.ids == tiktoken_gpt2.encode_ordinary(text)
    assert decode(e.ids, t) == text


def test_cs336_matches_tiktoken_on_corpus(gpt2_trace, tiktoken_gpt2):
    """Beyond the 9 stored cases: GPT-2's merges on all of corpus.en give tiktoken's ids
    (tiktoken built from the same ranks), and decode round-trips."""
    text = read_text("cs336", "corpus.en")
    e = encode(text, gpt2_trace)
    assert e.ids == tiktoken_gpt2.encode(text, allowed_special="all")
    assert decode(e.ids, gpt2_trace) == text


def test_cs336_overlapping_special_tokens():
    """CS336 tests/test_tokenizer.py ``test_overlapping_special_tokens``: with specials
    "<|endoftext|>" and "<|endoftext|><|endoftext|>", the longer one wins where they overlap.
    Ids from tiktoken with both specials (50256, 50257: after the merges, in the order given):
    [15496, 11, 703, 220, 50257, 389, 345, 30, 50256]."""
    double = EOT + EOT
    trace = read_merges(fixture_path("cs336", "gpt2_merges.txt"), special_tokens=[EOT, double])
    assert (trace.token_to_id(EOT), trace.token_to_id(double)) == (50_256, 50_257)
    text = "Hello, how <|endoftext|><|endoftext|> are you?<|endoftext|>"
    e = encode(text, trace)
    pieces = [decode([i], trace) for i in e.ids]
    assert pieces.count(EOT) == 1 and pieces.count(double) == 1
    assert e.ids == [15496, 11, 703, 220, 50_257, 389, 345, 30, 50_256]
    assert decode(e.ids, trace) == text


# -- 2. read_merges with GPT-2's vocab.json ----------------------------------------------------


def test_read_merges_with_vocab(tmp_path):
    """read_merges(lines, vocab=...): the ids are the vocab's (a dict token -> id, or a
    vocab.json path, GPT-2's pair of files); a special token listed in the vocab keeps its id.
    Hand-built: merges "Ġ t", "h e", "Ġt he" with ids in reverse order."""
    merges = ["Ġ t", "h e", "Ġt he"]
    tokens = [BYTE_TO_SYMBOL[b] for b in range(256)] + ["Ġt", "he", "Ġthe"]
    vocab = {t: len(tokens) - 1 - i for i, t in enumerate(tokens)}
    path = tmp_path / "vocab.json"
    path.write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    for v in (vocab, str(path)):
        trace = read_merges(merges, vocab=v)
        assert trace.id_to_token == sorted(vocab, key=vocab.get)
        assert trace.vocab_size == 259
        e = encode(" the cat", trace)
        assert e.tokens == ["Ġthe", "Ġ", "c", "a", "t"]
        assert e.ids == [0, vocab["Ġ"], vocab["c"], vocab["a"], vocab["t"]]
        assert decode(e.ids, trace) == " the cat"
    with_special = dict(vocab, **{EOT: 259})
    trace = read_merges(merges, vocab=with_special, special_tokens=[EOT])
    assert trace.token_to_id(EOT) == 259 and trace.vocab_size == 260
    assert encode(EOT + " the", trace).ids == [259, 0]


# -- 3. Hugging Face tokenizers ------------------------------------------------------------------


@pytest.fixture(scope="module")
def hf_case(docs_text, tmp_path_factory):
    """A byte-level BPE trained with Hugging Face ``tokenizers`` on Python's docs text:
    ByteLevel(add_prefix_space=False) pre-tokenizer, BpeTrainer(vocab_size=256 + 300 + 1,
    special <|endoftext|>, initial_alphabet=ByteLevel.alphabet()), saved as tokenizer.json."""
    pytest.importorskip("tokenizers")
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=256 + 300 + 1,
        special_tokens=[EOT],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    lines = docs_text.splitlines(keepends=True)
    tok.train_from_iterator(lines, trainer=trainer)
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    tok.save(str(path))
    model = json.loads(path.read_text(encoding="utf-8"))["model"]
    assert len(model["merges"]) == 300 and tok.get_vocab_size() == 557  # the setup itself
    sample = lines[:2000] + [
        "x<|endoftext|>y\n", EOT, "  <|endoftext|>\n\n", "héllo 🙃 wörld 안녕하세요  \t\n y", "",
    ]
    return tok, path, model, sample


@pytest.mark.parametrize("source", ["path", "str", "tokenizer"])
def test_hf_from_tokenizer(hf_case, source):
    """huggingface/tokenizers: from_hf_tokenizer on the tokenizer.json path (Path or str) or on
    the Tokenizer object gives the same vocabulary (id_to_token by id), merges, tokens and ids
    as ``tokenizer.encode`` on 2,000 lines of the docs text plus a few with the special token,
    Korean and emoji; decode gives each line back."""
    tok, path, model, sample = hf_case
    trace = from_hf_tokenizer({"path": path, "str": str(path), "tokenizer": tok}[source])
    n = tok.get_vocab_size()
    assert trace.vocab_size == len(trace.id_to_token) == n
    assert trace.id_to_token == [tok.id_to_token(i) for i in range(n)]
    hf_merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in model["merges"]]
    assert [tuple(m.pair) for m in trace.merges] == hf_merges
    bad = []
    for line, he in zip(sample, tok.encode_batch(sample)):
        e = encode(line, trace)
        if (e.tokens, e.ids) != (he.tokens, he.ids) or decode(e.ids, trace) != line:
            bad.append((line, e.tokens, he.tokens))
    assert not bad, f"{len(bad)} of {len(sample)} lines differ; first: {bad[:3]}"


def test_hf_offsets(hf_case):
    """Hugging Face's offsets for a ByteLevel BPE are character spans, and a token holding part
    of a multi-byte character spans that whole character (checked: they equal
    ``expected_offsets`` on the same lines). Ours equal theirs; and the 2,000 lines encoded as
    one text give Hugging Face's ids for that text."""
    tok, path, _, sample = hf_case
    trace = from_hf_tokenizer(path)
    bad = []
    for line, he in zip(sample, tok.encode_batch(sample)):
        e = encode(line, trace)
        if e.offsets != he.offsets:
            bad.append((line, e.offsets, he.offsets))
    assert not bad, f"{len(bad)} lines with other offsets; first: {bad[:2]}"
    block = "".join(sample[:2000])
    whole = encode(block, trace)
    assert whole.ids == tok.encode(block).ids
    assert decode(whole.ids, trace) == block
