"""Readers given hostile or wrong-shaped input: a clear ``ValueError``/``TypeError`` naming the
file (or argument) and the field, never an AttributeError, KeyError, RecursionError or a
gigabyte allocated for one absurd id; lone surrogates named by position, not a raw
``UnicodeEncodeError``."""

from __future__ import annotations

import io
import json

import pytest

from bpe_viz import from_hf_tokenizer, train_bpe
from bpe_viz.interop.gpt2 import read_merges

BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True}
MERGES = ["Ġ t", "h e", "Ġt he"]


def _byte_vocab() -> dict:
    from bpe_viz.engine.text.alphabet import BYTE_SYMBOLS

    vocab = {s: i for i, s in enumerate(BYTE_SYMBOLS)}
    for tok in ("Ġt", "he", "Ġthe"):
        vocab[tok] = len(vocab)
    return vocab


def _write(tmp_path, name, obj, raw=False):
    path = tmp_path / name
    path.write_text(obj if raw else json.dumps(obj), encoding="utf-8")
    return path


def _gpt2_json(**model):
    return {"model": {"type": "BPE", "vocab": _byte_vocab(), "merges": MERGES, **model},
            "pre_tokenizer": BYTE_LEVEL, "added_tokens": []}


# -- item 6: an id far past the vocabulary's length ---------------------------------------------


def test_read_merges_rejects_far_id():
    vocab = _byte_vocab()
    vocab["Ġthe"] = 5_000_000  # would allocate one slot per id up to here
    with pytest.raises(ValueError, match=r"vocab: token 'Ġthe' has id 5000000"):
        read_merges(MERGES, vocab=vocab)


def test_read_merges_far_id_names_the_file(tmp_path):
    vocab = _byte_vocab()
    vocab["Ġthe"] = 5_000_000
    path = _write(tmp_path, "vocab.json", vocab)
    with pytest.raises(ValueError, match=r"vocab\.json: token 'Ġthe' has id 5000000"):
        read_merges(MERGES, vocab=path)


def test_dense_ids_still_read():
    vocab = _byte_vocab()
    vocab["<|endoftext|>"] = len(vocab) + 10  # a gap, as real files sometimes have, is fine
    trace = read_merges(MERGES, vocab=vocab, special_tokens=["<|endoftext|>"])
    assert trace.encode("the<|endoftext|>").ids == [vocab["t"], vocab["he"], vocab["<|endoftext|>"]]


def test_tokenizer_json_far_id_byte_level(tmp_path):
    data = _gpt2_json()
    data["model"]["vocab"]["Ġthe"] = 5_000_000
    path = _write(tmp_path, "tokenizer.json", data)
    with pytest.raises(ValueError, match=r"tokenizer\.json: model\.vocab: token 'Ġthe' has id 5000000"):
        from_hf_tokenizer(path)


def test_tokenizer_json_far_id_sentencepiece_style(tmp_path):
    data = {"model": {"type": "BPE", "vocab": {"<unk>": 0, "a": 1, "b": 2, "ab": 5_000_000},
                      "merges": [["a", "b"]], "unk_token": "<unk>"}}
    path = _write(tmp_path, "tokenizer.json", data)
    with pytest.raises(ValueError, match=r"tokenizer\.json: model\.vocab: token 'ab' has id 5000000"):
        from_hf_tokenizer(path)


def test_tokenizer_json_far_added_token_id(tmp_path):
    data = {"model": {"type": "BPE", "vocab": {"<unk>": 0, "a": 1, "b": 2, "ab": 3},
                      "merges": [["a", "b"]], "unk_token": "<unk>"},
            "added_tokens": [{"id": 5_000_000, "content": "<x>", "special": True}]}
    path = _write(tmp_path, "tokenizer.json", data)
    with pytest.raises(ValueError, match=r"token '<x>' has id 5000000"):
        from_hf_tokenizer(path)


# -- item 10: files of the wrong shape ----------------------------------------------------------


def test_merges_line_not_a_string():
    with pytest.raises(TypeError, match="path_or_lines: line 2 must be a str, got NoneType"):
        read_merges(["Ġ t", None])


def test_vocab_file_not_an_object(tmp_path):
    path = _write(tmp_path, "vocab.json", [1, 2])
    with pytest.raises(ValueError, match=r"vocab\.json: must be a JSON object token -> id, got list"):
        read_merges(MERGES, vocab=path)


def test_vocab_file_deeply_nested(tmp_path):
    path = _write(tmp_path, "vocab.json", "[" * 50_000 + "]" * 50_000, raw=True)
    with pytest.raises(ValueError, match=r"vocab\.json: not a vocab\.json"):
        read_merges(MERGES, vocab=path)


def test_vocab_file_not_text(tmp_path):
    path = tmp_path / "vocab.json"
    path.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ValueError, match=r"vocab\.json: not a vocab\.json"):
        read_merges(MERGES, vocab=path)


@pytest.mark.parametrize("change, field", [
    (lambda d: d["model"].pop("vocab"), "model.vocab is missing"),
    (lambda d: d.update(added_tokens=[{"id": 5, "special": True}]), r"added_tokens\[0\]\.content is missing"),
    (lambda d: d.update(added_tokens=["<s>"]), r"added_tokens\[0\] must be a JSON object"),
    (lambda d: d.update(added_tokens="<s>"), "added_tokens must be list"),
    (lambda d: d["model"].update(merges=[1, 2]), r"model\.merges\[0\] must be a pair of non-empty tokens"),
    (lambda d: d["model"].update(merges="Ġ t"), "model.merges must be list"),
    (lambda d: d["model"].update(vocab=[1, 2]), "model.vocab must be"),
    (lambda d: d.update(pre_tokenizer={"type": "Sequence", "pretokenizers": [BYTE_LEVEL, 3]}),
     r"only a ByteLevel pre-tokenizer alone .* found \['ByteLevel', 3\]"),
])
def test_byte_level_tokenizer_json_wrong_shape(tmp_path, change, field):
    data = _gpt2_json()
    change(data)
    path = _write(tmp_path, "tokenizer.json", data)
    with pytest.raises((ValueError, TypeError), match=r"tokenizer\.json: " + field):
        from_hf_tokenizer(path)


@pytest.mark.parametrize("content", [[1], "model", {"model": "BPE"}, {"model": {"type": ["BPE"]}}])
def test_tokenizer_json_top_level_wrong_shape(tmp_path, content):
    path = _write(tmp_path, "tokenizer.json", content)
    with pytest.raises(ValueError, match=r"tokenizer\.json: (not a tokenizer\.json|model\.type)"):
        from_hf_tokenizer(path)


def test_tokenizer_json_deeply_nested(tmp_path):
    path = _write(tmp_path, "tokenizer.json", "[" * 50_000 + "]" * 50_000, raw=True)
    with pytest.raises(ValueError, match=r"tokenizer\.json: not a tokenizer\.json \(nested too deeply\)"):
        from_hf_tokenizer(path)


# -- item 8: lone surrogates ---------------------------------------------------------------------


def test_train_lone_surrogate():
    with pytest.raises(ValueError, match=r"corpus: .*position 1.*U\+D800.*encode\(\"utf-8\", \"replace\"\)"):
        train_bpe("a\ud800b", 5, preset="cs336")


def test_train_lone_surrogate_in_word_dict():
    with pytest.raises(ValueError, match=r"corpus: .*U\+DC80"):
        train_bpe({"xy\udc80": 3}, 5, preset="cs336")


def test_encode_lone_surrogate_byte_level():
    trace = read_merges(MERGES)
    with pytest.raises(ValueError, match=r"text: .*position 4.*U\+DFFF"):
        trace.encode("the \udfff")
    assert trace.encode("the tea").tokens == ["t", "he", "Ġt", "e", "a"]  # valid text unchanged


def test_encode_lone_surrogate_gpt2():
    from bpe_viz import load_tokenizer

    tok = load_tokenizer("gpt2")
    with pytest.raises(ValueError, match=r"text: .*position 1.*U\+D800"):
        tok.encode("a\ud800b")


# -- item 10: subword-nmt codes files ------------------------------------------------------------


@pytest.mark.parametrize("reader", ["read_codes", "replay_codes"])
def test_codes_file_not_text(tmp_path, reader):
    import bpe_viz

    path = tmp_path / "bin.codes"
    path.write_bytes(b"\xff\xfe\x00bad")
    run = bpe_viz.read_codes if reader == "read_codes" else (lambda f: bpe_viz.replay_codes("ab ab", f))
    with pytest.raises(ValueError, match=r"bin\.codes: not a subword-nmt codes file \(not UTF-8 text"):
        run(path)
    with pytest.raises(TypeError, match=r"file must be a path, a text file or codes text.*got a binary file"):
        run(io.BytesIO(b"a b\n"))
    with pytest.raises(TypeError, match=r"file must be a path, a text file or codes text, got list"):
        run(["a b"])


def test_encode_lone_surrogate_hf_sentencepiece_style():
    from bpe_viz.interop.hf_bpe import from_hf_bpe

    data = {"model": {"type": "BPE", "byte_fallback": True, "unk_token": "<unk>",
                      "vocab": {"<unk>": 0, "▁": 1, "h": 2, "i": 3, "▁h": 4, "▁hi": 5},
                      "merges": [["▁", "h"], ["▁h", "i"]]},
            "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"}}
    t = from_hf_bpe(data)
    with pytest.raises(ValueError, match=r"text: .*position 3.*U\+D83D"):
        t.encode("hi \ud83d")
    assert t.encode("hi").tokens == ["▁hi"]
