"""GPT-style byte-level BPE *training*, against the trainers it reproduces: CS336's
``test_train_bpe`` (preset "cs336"), karpathy/minbpe (preset "minbpe") and tiktoken's
``_educational`` trainer; write_merges, which writes a trained trace as GPT-2's merges.txt; and
the byte alphabet training starts from (bytes_to_symbols is GPT-2's byte table).

Its siblings: test_gpt_parity loads *pretrained* byte-level tokenizers (GPT-2's merges.txt, a
vocab.json, a Hugging Face tokenizer.json) and checks that they encode as tiktoken and
``tokenizers`` do; test_gpt_inputs checks bad arguments and exact round trips on any text.
GPT-2's byte table and the reference encoder all three use are rebuilt in gpt_reference.py.

Golden values come from the shared fixtures in ``../shared/fixtures/external`` (copies of the
reference projects' test data, or outputs of the reference implementations themselves; see
SOURCES.md there). Tests that read them skip when that checkout is absent. Every expected value
is computed from the fixture files alone (GPT-2's byte table is rebuilt in gpt_reference.py, not
taken from bpe_viz), so a failure points at bpe_viz, not at a helper.

Pinned conventions these tests rely on (the contract of the byte-level API):

* tokens of a byte-level trace are spelled with GPT-2's printable byte symbols;
* ``trace.id_to_token`` lists the token strings by id; ``trace.token_to_id(tok)``;
  ``trace.vocab_size == len(trace.id_to_token)`` = specials + 256 + merges (no ``<unk>``);
* preset "cs336": GPT-2 pattern, specials first, the 256 bytes in byte order, then merges; ties
  to the greatest pair of byte strings;
* preset "minbpe": GPT-4 pattern, ids = byte values, merges from 256, specials after the merges;
  ties to the first pair met.

Only the public top-level API is used (``from bpe_viz import ...``).
"""

from __future__ import annotations

import time

import pytest
import regex

from bpe_viz import (
    bytes_to_symbols,
    decode,
    encode,
    read_merges,
    symbols_to_bytes,
    train_bpe,
    write_merges,
)

from gpt_reference import (
    BYTE_TO_SYMBOL,
    EOT,
    GPT4_PATTERN,
    SMALL_CORPUS,
    gpt2_bytes,
    reference_tokens,
    token_bytes,
)
from helpers import read_json, read_text


# -- GPT-2's byte symbols ----------------------------------------------------------------------


def test_byte_symbols_are_gpt2s():
    """openai/gpt-2 src/encoder.py ``bytes_to_unicode``: printable Latin-1 bytes stand for
    themselves, the 68 others map to chr(256 + n) in byte order (space -> "Ġ", newline -> "Ċ")."""
    for b, s in BYTE_TO_SYMBOL.items():
        assert symbols_to_bytes(s) == bytes([b])
    text = "a b\n\t한😉\x00\x7f"
    assert bytes_to_symbols(text) == "".join(BYTE_TO_SYMBOL[b] for b in text.encode("utf-8"))
    assert (bytes_to_symbols(" "), bytes_to_symbols("\n"), BYTE_TO_SYMBOL[0xAD]) == ("Ġ", "Ċ", "Ń")
    assert symbols_to_bytes(bytes_to_symbols(text)).decode("utf-8") == text


# -- 1. CS336 test_train_bpe -------------------------------------------------------------------


@pytest.fixture(scope="module")
def cs336_trained():
    text = read_text("cs336", "corpus.en")
    return train_bpe(text, vocab_size=500, preset="cs336", special_tokens=[EOT])


def test_cs336_train_bpe_merges(cs336_trained):
    """stanford-cs336/assignment1-basics tests/test_train_bpe.py ``test_train_bpe``: corpus.en,
    vocab_size 500, special token <|endoftext|>; the merges, as pairs of byte strings, equal
    train-bpe-reference-merges.txt (243 lines, GPT-2 byte spelling "Ġ t"), decoded with GPT-2's
    byte decoder exactly as the test does. 80 of the 243 are decided by the tie rule (the
    greatest pair of byte strings; SOURCES.md, notes/tokenizer-parity.md)."""
    lines = read_text("cs336", "train-bpe-reference-merges.txt").splitlines()
    reference = [tuple(gpt2_bytes(t) for t in line.rstrip().split(" ")) for line in lines]
    assert len(reference) == 243 and all(len(p) == 2 for p in reference)
    ours = [(gpt2_bytes(a), gpt2_bytes(b)) for a, b in (m.pair for m in cs336_trained.merges)]
    assert ours[:92] == reference[:92]  # spelled-symbol ties would diverge at merge 93
    assert ours == reference
    assert [gpt2_bytes(m.token) for m in cs336_trained.merges] == [a + b for a, b in reference]


def test_cs336_train_bpe_vocab(cs336_trained):
    """CS336 ``test_train_bpe``: the vocabulary id -> bytes has the same keys and the same values
    (as sets) as train-bpe-reference-vocab.json. That file maps GPT-2-spelled token -> id
    ("<|endoftext|>": 0, then the 256 bytes in GPT-2's bytes_to_unicode order: id 1 = "!",
    id 256 = "Ń" (0xAD), then the 243 merges): only sets are compared, so our byte-order ids
    1..256 (the pinned layout, checked in test_cs336_vocab_layout) pass too."""
    ref_json = read_json("cs336", "train-bpe-reference-vocab.json")
    assert len(ref_json) == 500
    reference_vocab = {i: gpt2_bytes(tok) for tok, i in ref_json.items()}
    trace = cs336_trained
    ours = dict(enumerate(token_bytes(trace, range(len(trace.id_to_token)), [EOT])))
    assert set(ours) == set(reference_vocab)
    assert set(ours.values()) == set(reference_vocab.values())


def test_cs336_vocab_layout(cs336_trained):
    """Pinned "cs336" layout (CS336 handout §2.5: special tokens, then the 256 bytes, then the
    merges): id 0 = "<|endoftext|>", id 1 + b = byte b, id 257 + i = merge i; no <unk>."""
    trace = cs336_trained
    assert trace.vocab_size == len(trace.id_to_token) == 500
    assert len(trace.merges) == 243
    assert trace.id_to_token[0] == EOT and trace.token_to_id(EOT) == 0
    assert trace.id_to_token[1:257] == [BYTE_TO_SYMBOL[b] for b in range(256)]
    assert trace.id_to_token[257:] == [m.token for m in trace.merges]
    assert all(trace.token_to_id(t) == i for i, t in enumerate(trace.id_to_token))


def test_cs336_train_bpe_speed():
    """CS336 ``test_train_bpe_speed``: training on corpus.en to vocab_size 500 must take under
    1.5 s (the handout's limit; it times the call with time.time(), we use perf_counter)."""
    text = read_text("cs336", "corpus.en")
    start = time.perf_counter()
    train_bpe(text, vocab_size=500, preset="cs336", special_tokens=[EOT])
    elapsed = time.perf_counter() - start
    assert elapsed < 1.5, f"train_bpe took {elapsed:.2f} s on corpus.en (CS336's limit: 1.5 s)"


def test_cs336_preset_implies_endoftext():
    """The contract: preset "cs336" implies special_tokens=["<|endoftext|>"]; passing it gives
    the same trace."""
    text = SMALL_CORPUS
    implied = train_bpe(text, vocab_size=280, preset="cs336")
    given_ = train_bpe(text, vocab_size=280, preset="cs336", special_tokens=[EOT])
    assert implied.id_to_token[0] == EOT
    assert implied.id_to_token == given_.id_to_token
    assert [tuple(m.pair) for m in implied.merges] == [tuple(m.pair) for m in given_.merges]
    assert implied.vocab_size == 280 and len(implied.merges) == 280 - 257


# -- 2. writing the trained merges (GPT-2's merges.txt) ----------------------------------------


def test_write_merges_gpt2_format(cs336_trained, tmp_path):
    """write_merges writes GPT-2's merges.txt format: one "left right" line per merge in GPT-2
    byte spelling (an optional "#version" first line), so the corpus.en trace writes CS336's
    train-bpe-reference-merges.txt line for line; read_merges reads it back (GPT-2's layout)
    with the same merges, tokenizing alike."""
    out = tmp_path / "merges.txt"
    write_merges(cs336_trained, out)
    lines = out.read_text(encoding="utf-8").splitlines()
    if lines and lines[0].startswith("#version"):
        lines = lines[1:]
    assert lines == read_text("cs336", "train-bpe-reference-merges.txt").splitlines()
    back = read_merges(str(out), special_tokens=[EOT])
    assert [tuple(m.pair) for m in back.merges] == [tuple(m.pair) for m in cs336_trained.merges]
    assert back.vocab_size == 500 and back.token_to_id(EOT) == 499
    sample = read_text("cs336", "corpus.en")[:5000] + EOT + " the end"
    assert encode(sample, back).tokens == encode(sample, cs336_trained).tokens


# -- 3. minbpe -----------------------------------------------------------------------------------


def test_minbpe_wikipedia_example():
    """karpathy/minbpe tests/test_tokenizer.py ``test_wikipedia_example`` (Wikipedia's BPE
    example): "aaabdaaabac", 3 merges -> aa (256), aaa (257), aaab (258); encode gives
    [258, 100, 258, 97, 99] for BasicTokenizer and RegexTokenizer alike."""
    for pre in (None, lambda t: [t]):  # RegexTokenizer (GPT-4 pattern) / BasicTokenizer (one chunk)
        kw = {} if pre is None else {"pre_tokenizer": pre}
        trace = train_bpe("aaabdaaabac", num_merges=3, preset="minbpe", **kw)
        assert [(gpt2_bytes(a), gpt2_bytes(b)) for a, b in (m.pair for m in trace.merges)] == [
            (b"a", b"a"), (b"aa", b"a"), (b"aaa", b"b")]
        assert trace.id_to_token[:256] == [BYTE_TO_SYMBOL[b] for b in range(256)]
        assert trace.id_to_token[256:] == ["aa", "aaa", "aaab"]
        assert trace.vocab_size == len(trace.id_to_token) == 259
        e = encode("aaabdaaabac", trace)
        assert e.ids == [258, 100, 258, 97, 99]
        assert decode(e.ids, trace) == "aaabdaaabac"


def test_minbpe_wikipedia_fixture():
    """minbpe-expected.json "wikipedia" (minbpe run from the snapshot, SOURCES.md): merges as
    byte lists [[[97], [97]], [[97, 97], [97]], [[97, 97, 97], [98]]] and ids."""
    fx = read_json("minbpe", "derived", "minbpe-expected.json")["wikipedia"]
    trace = train_bpe(fx["text"], num_merges=fx["num_merges"], preset="minbpe")
    assert [[list(gpt2_bytes(a)), list(gpt2_bytes(b))] for a, b in (m.pair for m in trace.merges)] == fx["merges_bytes"]
    assert encode(fx["text"], trace).ids == fx["ids"]


def _hex_pairs(trace) -> list[list[str]]:
    return [[gpt2_bytes(a).hex(), gpt2_bytes(b).hex()] for a, b in (m.pair for m in trace.merges)]


def test_minbpe_llama_gpt4_64():
    """minbpe tests/test_tokenizer.py ``test_save_load`` text (llama_text):
    RegexTokenizer().train(llama_text, 256 + 64) and encode(llama_text, "all") (926 ids, all
    < 320: no special tokens were registered, so "<|endoftext|>" is plain text, chunked "<|",
    "endoftext", "|>"). Fixture: merges as [left hex, right hex] and the ids."""
    fx = read_json("minbpe", "derived", "minbpe-expected.json")
    text, case = fx["llama_text"], fx["llama_gpt4_64"]
    assert regex.findall(GPT4_PATTERN, text) == case["chunks"]
    trace = train_bpe(text, num_merges=64, preset="minbpe")
    assert trace.vocab_size == 320
    assert _hex_pairs(trace) == case["merges_bytes_hex"]
    e = encode(text, trace, allowed_special="all")
    assert e.ids == case["ids"]
    assert decode(e.ids, trace) == text


def test_minbpe_test_strings_identity():
    """minbpe ``test_encode_decode_identity``: the test strings ("", "?", "hello world!!!?
    (안녕하세요!) lol123 😉", and taylorswift.txt) come back exactly from decode(encode(.)),
    with no merges and with the llama_text merges."""
    fx = read_json("minbpe", "derived", "minbpe-expected.json")
    texts = [read_text("minbpe", "taylorswift.txt") if s == "FILE:taylorswift.txt" else s for s in fx["test_strings"]]
    for trace in (train_bpe("hello world", num_merges=0, preset="minbpe"),
                  train_bpe(fx["llama_text"], num_merges=64, preset="minbpe")):
        for s in texts:
            assert decode(encode(s, trace).ids, trace) == s


def test_minbpe_taylorswift_regex_200():
    """minbpe RegexTokenizer().train(taylorswift.txt, 256 + 200): the 200 merges (fixture
    "taylorswift_regex_gpt4_200", as [left hex, right hex]); then encode/decode identity on the
    whole file, and ids equal to GPT-2's rank-based encoder run on those merges."""
    text = read_text("minbpe", "taylorswift.txt")
    case = read_json("minbpe", "derived", "minbpe-expected.json")["taylorswift_regex_gpt4_200"]
    trace = train_bpe(text, num_merges=case["num_merges"], preset="minbpe")
    assert _hex_pairs(trace) == case["merges_bytes_hex"]
    e = encode(text, trace)
    assert decode(e.ids, trace) == text
    assert e.tokens == reference_tokens(trace, text, GPT4_PATTERN)


def test_minbpe_taylorswift_basic_100():
    """minbpe BasicTokenizer().train(taylorswift[:20000], 256 + 100) (no regex: the whole text is
    one chunk, so merges may cross spaces, e.g. the first is "e" + " "), and its ids (11,669)
    for the same 20,000 characters. Fixture "taylorswift_basic_first20000chars_100"."""
    case = read_json("minbpe", "derived", "minbpe-expected.json")["taylorswift_basic_first20000chars_100"]
    text = read_text("minbpe", "taylorswift.txt")[: case["chars"]]
    trace = train_bpe(text, num_merges=case["num_merges"], preset="minbpe", pre_tokenizer=lambda t: [t])
    assert _hex_pairs(trace) == case["merges_bytes_hex"]
    e = encode(text, trace)
    assert e.ids == case["ids"]
    assert decode(e.ids, trace) == text


def test_minbpe_specials_after_merges():
    """Pinned "minbpe" layout: bytes 0-255, merges from 256, special tokens after the merges
    (minbpe's register_special_tokens gives them ids of the caller's choosing; here, next)."""
    trace = train_bpe("aaabdaaabac aaab", num_merges=3, preset="minbpe", special_tokens=[EOT])
    assert trace.id_to_token[:256] == [BYTE_TO_SYMBOL[b] for b in range(256)]
    assert trace.token_to_id(EOT) == 259 and trace.vocab_size == 260
    assert encode(EOT + "a", trace).ids == [259, 97]
    assert encode(EOT, trace, allowed_special="none").ids == list(EOT.encode())


# -- 4. tiktoken _educational -------------------------------------------------------------------


@pytest.mark.parametrize("how", ["preset", "explicit"])
def test_tiktoken_educational_corpus_en_600(how):
    """openai/tiktoken tiktoken/_educational.py ``bpe_train(corpus.en, 600, <GPT-2 pattern>)``
    (fixture educational-corpus.en-600.json: its pattern, the 344 merged tokens in rank order as
    hex bytes, and SimpleBytePairEncoding ids + chunks of 3 sentences).

    Which settings reproduce it: ids are byte values then merges from 256 (minbpe's layout), no
    specials, min frequency 1, and the tie rule is ``max(stats, key=lambda x: stats[x])`` over a
    Counter filled reading every pre-token in text order: the first pair met, minbpe's rule (not
    CS336's greatest byte pair). So preset "minbpe" with the fixture's pattern (tiktoken's
    spelling of GPT-2's), or the same settings spelled out. Its encoder merges the leftmost
    lowest-rank *concatenation*; on these sentences that equals rank-by-pair encoding (checked
    against _educational itself when this test was written)."""
    fx = read_json("tiktoken", "derived", "educational-corpus.en-600.json")
    text = read_text("cs336", "corpus.en")
    assert fx["vocab_size"] == 600 and len(fx["tokens_hex_in_rank_order"]) == 344
    if how == "preset":
        trace = train_bpe(text, vocab_size=fx["vocab_size"], preset="minbpe", pre_tokenizer=fx["pattern"])
    else:
        trace = train_bpe(
            text, vocab_size=fx["vocab_size"], pre_tokenizer=fx["pattern"], byte_level=True,
            initial_alphabet="bytes", tie_break="first", end_of_word=None, min_frequency=1,
        )
    assert trace.vocab_size == 600
    assert [gpt2_bytes(m.token).hex() for m in trace.merges] == fx["tokens_hex_in_rank_order"]
    if how == "preset":
        for sentence, want in fx["encodings"].items():
            assert regex.findall(fx["pattern"], sentence) == want["chunks"]
            e = encode(sentence, trace)
            assert e.ids == want["ids"], sentence
            assert decode(e.ids, trace) == sentence
