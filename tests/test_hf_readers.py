"""from_hf_tokenizer on SentencePiece-style BPE, WordPiece and Unigram ``tokenizer.json`` files,
checked against the ``tokenizers`` package itself (tokenizers 0.23.3).

Every file is trained here with ``tokenizers``' own trainers on Python's documentation text
(BpeTrainer with byte fallback, SentencePieceBPETokenizer, BertWordPieceTokenizer,
SentencePieceUnigramTokenizer, UnigramTrainer), or is one of those with one option changed in its
JSON (``prepend_scheme``, ``split``, ``ignore_merges``, ``fuse_unk``, no unknown token, a
``Precompiled`` normalizer from sentencepiece's own ``nmt_nfkc`` table, ``max_input_chars_per_word``,
a ``TemplateProcessing`` post-processor ...). Ours must give ``Tokenizer.encode(line,
add_special_tokens=False)``'s ids, tokens and offsets and ``Tokenizer.decode``'s text on every line
of the docs and on hard strings. A Llama-style file is built from Mistral 7B's SentencePiece
vocabulary when ``mistral-common`` is installed. The byte-level reader's tests are in
``test_gpt_parity.py``.
"""

from __future__ import annotations

import base64
import copy
import importlib.util
import json
from pathlib import Path

import pytest

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers  # noqa: E402
from tokenizers.implementations import (BertWordPieceTokenizer, SentencePieceBPETokenizer,  # noqa: E402
                                        SentencePieceUnigramTokenizer)

from bpe_viz import decode, encode, from_hf_tokenizer  # noqa: E402
from bpe_viz.engine.protocol import Tokenizer as Protocol  # noqa: E402
from bpe_viz.engine.text.corpora import python_docs_text  # noqa: E402
from bpe_viz.interop.hf_components import Normalized, build_normalizer  # noqa: E402

#: strings that break naive readers: accents (composed and not), CJK, emoji with ZWJ, runs of
#: spaces, tabs, newlines, control and format characters, compatibility forms, the added tokens
HARD = ["héllo wörld", "naïve café e\u0301 o\u0308", "中文字符 and 日本語 한국어", "emoji 👩\u200d👩\u200d👧 zwj 🫠 🙃",
        "  runs   of    spaces  ", "\ttab\tand\nnewline\n", "", " ", "   ", "x" * 300, "supercalifragilistic " * 3,
        "ǅ İ ß ﬁ Ｔｅｘｔ ① ㋿", "<s>hello</s> <unk> [CLS] x [SEP]", "a<s>b</s>", "\u200b\u200d\ufeff\u00a0\u3000x",
        "\x00\x01 a\x7f\x85b", "▁▁x ▁ ▁y", "Ünïcödé ÀÉÎÕÜ", "ǈ ǋ Σ ς σ", "٣٤ ١٢٣", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "a\u0301\u0301b", "ꭩ 𐞁 ﷺ"]


@pytest.fixture(scope="module")
def lines():
    return python_docs_text().splitlines()


def _save(tok, tmp, name) -> Path:
    path = tmp / name
    tok.save(str(path))
    return path


def _variant(path: Path, edit, name: str) -> Path:
    """A copy of a tokenizer.json with ``edit(data)`` applied."""
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    out = path.with_name(name)
    out.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def files(lines, tmp_path_factory):
    """The tokenizer.json files, trained here on the docs text, by name."""
    tmp = tmp_path_factory.mktemp("hf_readers")
    out = {}
    # (a) Llama style: Prepend + Replace normalizer, no pre-tokenizer, byte fallback
    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                     decoders.Strip(" ", 1, 0)])
    specials = ["<unk>", "<s>", "</s>", *(f"<0x{b:02X}>" for b in range(256))]
    tok.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=1500, special_tokens=specials, show_progress=False))
    out["llama"] = _save(tok, tmp, "llama.json")
    # (b) Metaspace pre-tokenizer, byte fallback
    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Metaspace()])
    tok.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=1200, special_tokens=specials, show_progress=False))
    out["metaspace_bpe"] = _save(tok, tmp, "metaspace_bpe.json")
    sp_bpe = SentencePieceBPETokenizer()
    sp_bpe.train_from_iterator(lines, vocab_size=2000, show_progress=False)
    out["sp_bpe"] = _save(sp_bpe, tmp, "sp_bpe.json")
    bert = BertWordPieceTokenizer()
    bert.train_from_iterator(lines, vocab_size=2000, show_progress=False)
    out["bert"] = _save(bert, tmp, "bert.json")
    uni = SentencePieceUnigramTokenizer()
    uni.train_from_iterator(lines, vocab_size=2000, show_progress=False, unk_token="<unk>",
                            special_tokens=["<unk>", "<s>", "</s>"])
    out["sp_unigram"] = _save(uni, tmp, "sp_unigram.json")
    uni = SentencePieceUnigramTokenizer()
    uni.train_from_iterator(lines, vocab_size=1000, show_progress=False)
    out["unigram_no_unk"] = _save(uni, tmp, "unigram_no_unk.json")
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator(lines, trainers.UnigramTrainer(vocab_size=1500, unk_token="<unk>",
                                                           special_tokens=["<unk>", "<pad>"], show_progress=False))
    out["unigram_nfkc"] = _save(tok, tmp, "unigram_nfkc.json")
    return out


def _variants(files):
    """Files with one option changed in the JSON, by name."""
    meta = files["metaspace_bpe"]

    def pre(**kw):
        return lambda d: d["pre_tokenizer"].update(kw)

    def model(**kw):
        return lambda d: d["model"].update(kw)

    def drop_bytes(d):  # a few byte pieces missing: those characters fall back to <unk>
        for b in (0xE4, 0xB8, 0x9F):
            del d["model"]["vocab"][f"<0x{b:02X}>"]
        d["added_tokens"] = [t for t in d["added_tokens"] if t["content"] not in ("<0xE4>", "<0xB8>", "<0x9F>")]

    def precompiled(d):
        import sentencepiece

        blob = (Path(sentencepiece.__file__).parent / "package_data" / "nmt_nfkc.bin").read_bytes()
        d["normalizer"] = {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(blob).decode()}

    def byte_pieces(d):
        d["model"]["vocab"] += [[f"<0x{b:02X}>", -20.0] for b in range(256)]
        d["model"]["byte_fallback"] = True

    def lowercase_seq(d):
        d["normalizer"] = {"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "Lowercase"},
                                                              {"type": "StripAccents"}]}

    def template(d):
        cls_, sep = d["model"]["vocab"]["[CLS]"], d["model"]["vocab"]["[SEP]"]
        d["post_processor"] = {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [cls_], "tokens": ["[CLS]"]},
                               "[SEP]": {"id": "[SEP]", "ids": [sep], "tokens": ["[SEP]"]}}}

    def added(d):  # a non-special added token, and one matched after normalization
        n = len(d["model"]["vocab"])
        d["added_tokens"] += [
            {"id": n, "content": "tokenizer", "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": True, "special": False},
            {"id": n + 1, "content": "<|x|>", "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": False}]

    return {
        "prepend_first": (meta, pre(prepend_scheme="first")),
        "prepend_never": (meta, pre(prepend_scheme="never")),
        "no_split": (meta, pre(split=False)),
        "ignore_merges": (meta, model(ignore_merges=True)),
        "no_fuse": (files["llama"], lambda d: (drop_bytes(d), d["model"].update(fuse_unk=False))),
        "fuse_missing_bytes": (files["llama"], drop_bytes),
        "no_unk_token": (files["sp_bpe"], model(unk_token=None)),
        "sp_bpe_added": (files["sp_bpe"], added),
        "bert_lowercase_seq": (files["bert"], lowercase_seq),
        "bert_whitespace": (files["bert"], lambda d: d.update(pre_tokenizer={"type": "Whitespace"})),
        "bert_whitespace_split": (files["bert"], lambda d: d.update(pre_tokenizer={"type": "WhitespaceSplit"})),
        "bert_max_chars": (files["bert"], model(max_input_chars_per_word=8)),
        "bert_cased": (files["bert"], lambda d: d["normalizer"].update(lowercase=False, strip_accents=None)),
        "bert_template": (files["bert"], template),
        "unigram_precompiled": (files["sp_unigram"], precompiled),
        "unigram_byte_fallback": (files["unigram_nfkc"], byte_pieces),
    }


def mismatches(tok, ours, texts, offsets=True) -> list:
    """The texts whose ids, tokens, offsets or decoded text differ (and both raising agrees)."""
    bad = []
    for text in texts:
        try:
            theirs = tok.encode(text, add_special_tokens=False)
        except Exception as exc:  # noqa: BLE001 - tokenizers raises a plain Exception
            theirs = exc
        try:
            mine = ours.encode(text)
        except ValueError as exc:
            mine = exc
        if isinstance(theirs, Exception) or isinstance(mine, Exception):
            if isinstance(theirs, Exception) != isinstance(mine, Exception):
                bad.append((text, "raises", mine, theirs))
            continue
        got = (mine.ids, mine.tokens, mine.offsets if offsets else None)
        want = (theirs.ids, theirs.tokens, theirs.offsets if offsets else None)
        if got != want:
            bad.append((text, got, want))
        elif ours.decode(mine.ids) != tok.decode(theirs.ids):
            bad.append((text, "decode", ours.decode(mine.ids), tok.decode(theirs.ids)))
    return bad


@pytest.mark.parametrize("name", ["llama", "metaspace_bpe", "sp_bpe", "bert", "sp_unigram", "unigram_no_unk",
                                  "unigram_nfkc"])
def test_trained_files_encode_like_tokenizers(files, lines, name):
    """Each trained file, read from its path: the same vocabulary, and the same ids, tokens,
    offsets and decoded text as tokenizers on every line of the docs and on the hard strings."""
    path = files[name]
    tok = Tokenizer.from_file(str(path))
    ours = from_hf_tokenizer(path)
    assert isinstance(ours, Protocol)
    n = tok.get_vocab_size()
    assert ours.id_to_token == [tok.id_to_token(i) for i in range(n)]
    bad = mismatches(tok, ours, lines + HARD)
    assert not bad, f"{len(bad)} of {len(lines) + len(HARD)} texts differ; first: {bad[:3]}"


@pytest.mark.parametrize("name", sorted(_variants({k: Path(k) for k in ("metaspace_bpe", "llama", "sp_bpe", "bert",
                                                                        "sp_unigram", "unigram_nfkc")})))
def test_variants_encode_like_tokenizers(files, lines, name):
    """The files with one option changed in the JSON: 2,000 docs lines and the hard strings."""
    base, edit = _variants(files)[name]
    path = _variant(base, edit, f"{name}.json")
    tok = Tokenizer.from_file(str(path))
    ours = from_hf_tokenizer(path)
    texts = lines[:2000] + HARD + ["the tokenizer Tokenizer <|x|>tokenizers", "über alles 中 文\u4e00"]
    bad = mismatches(tok, ours, texts)
    assert not bad, f"{len(bad)} of {len(texts)} texts differ; first: {bad[:3]}"


def test_tokenizer_object_and_add_special_tokens(files, lines):
    """from_hf_tokenizer on the Tokenizer object itself gives the same encodings (Unigram scores
    included: the object's JSON holds them exactly); add_special_tokens=True adds what the
    TemplateProcessing post-processor adds, with (0, 0) offsets."""
    tok = Tokenizer.from_file(str(files["unigram_nfkc"]))
    assert not mismatches(tok, from_hf_tokenizer(tok), lines[:1500] + HARD)
    path = _variant(files["bert"], _variants(files)["bert_template"][1], "template.json")
    tok = Tokenizer.from_file(str(path))
    ours = from_hf_tokenizer(path)
    for text in ["Hello, world!", "", "naïve 中文"]:
        e, h = ours.encode(text, add_special_tokens=True), tok.encode(text)
        assert (e.ids, e.tokens, e.offsets) == (h.ids, h.tokens, h.offsets)
        assert ours.decode(e.ids) == tok.decode(h.ids)
    with pytest.raises(ValueError, match="post_processor.type 'RobertaProcessing'"):
        bad = _variant(files["bert"], lambda d: d.update(post_processor={"type": "RobertaProcessing", "sep": ["</s>", 2],
                                                                         "cls": ["<s>", 0]}), "roberta.json")
        from_hf_tokenizer(bad).encode("x", add_special_tokens=True)


def test_merge_steps_and_views(files):
    """A read BPE file is a trace whose steps are the file's merges in order (encode with fewer
    steps uses fewer merges, as tokenizers with a shortened merge list does); a WordPiece file's
    steps are the entries that split into two earlier ones; the existing views draw them."""
    from bpe_viz.view.merges.segments import segments_html

    path = files["sp_bpe"]
    data = json.loads(path.read_text(encoding="utf-8"))
    trace = from_hf_tokenizer(path)
    assert [list(m.pair) for m in trace.merges] == data["model"]["merges"]
    short = copy.deepcopy(data)
    short["model"]["merges"] = short["model"]["merges"][:100]
    ref = Tokenizer.from_str(json.dumps(short))
    text = "The tokenizer splits unfamiliar words into subword units."
    assert encode(text, trace, 100).tokens == ref.encode(text).tokens
    assert "bpe-token" in segments_html(encode(text, trace))
    walk = trace.encode_word("▁tokenizer")
    assert walk.final == tuple(trace.encode("tokenizer").tokens)
    assert [s.rank for s in walk.steps] == sorted(s.rank for s in walk.steps)  # lowest rank first
    bert = from_hf_tokenizer(files["bert"])
    vocab = json.loads(files["bert"].read_text(encoding="utf-8"))["model"]["vocab"]
    for m in bert.merges:
        assert vocab[m.pair[0]] < vocab[m.token] and vocab[m.pair[1]] < vocab[m.token]
    assert bert.merges and len(bert.merges) < len(vocab)
    assert "bpe-token" in segments_html(encode("Tokenizers split words.", bert))
    assert decode(encode("Tokenizers split words.", bert).ids, bert) == "tokenizers split words."


def test_normalizers_match_on_every_code_point():
    """Every code point (in runs, so composition across neighbours is checked too) through each
    normalizer: the same text as tokenizers' (its Unicode tables differ from Python's; the
    differences are in hf_components)."""
    specs = [{"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None,
              "lowercase": True},
             {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": False,
              "lowercase": False},
             {"type": "NFKC"}, {"type": "NFD"}, {"type": "NFC"}, {"type": "NFKD"}, {"type": "Lowercase"},
             {"type": "StripAccents"}, {"type": "Nmt"}]
    code_points = [chr(c) for c in range(1, 0x32000) if not 0xD800 <= c < 0xE000] + \
                  [chr(c) for c in range(0xE0000, 0xE0200)]
    for spec in specs:
        theirs = Tokenizer(models.WordLevel({"a": 0}, unk_token="a"))
        theirs.normalizer = normalizers.Sequence([getattr(normalizers, spec["type"])(
            **{k: v for k, v in spec.items() if k != "type"})])
        ours = build_normalizer(spec, "test")
        bad = []
        for i in range(0, len(code_points), 4000):
            chunk = "x".join(code_points[i:i + 4000])
            n = Normalized.of(chunk)
            ours(n)
            if n.text != theirs.normalizer.normalize_str(chunk):
                bad.append(i)
        assert not bad, f"{spec['type']}: chunks starting at {bad[:5]} differ"


def _llama_from_sentencepiece(model_file: str) -> str:
    """A Llama-style tokenizer.json from a SentencePiece BPE model, built as transformers'
    LlamaConverter does (merges: every split of a piece into two pieces, by the piece's score)."""
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=model_file)
    vocab = {sp.id_to_piece(i): i for i in range(sp.get_piece_size())}
    merges = []
    for piece, i in vocab.items():
        local = [(piece[:k], piece[k:], sp.get_score(i)) for k in range(1, len(piece))
                 if piece[:k] in vocab and piece[k:] in vocab]
        merges.extend(sorted(local, key=lambda t: (vocab[t[0]], vocab[t[1]])))
    merges.sort(key=lambda t: t[2], reverse=True)
    specials = [{"id": i, "content": sp.id_to_piece(i), "single_word": False, "lstrip": False, "rstrip": False,
                 "normalized": False, "special": True} for i in range(3)]
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": specials,
        "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                                                          {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
        "pre_tokenizer": None, "post_processor": None,
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "▁"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": [[a, b] for a, b, _ in merges]}}, ensure_ascii=False)


def test_mistral_vocabulary_as_llama_style_file(lines, tmp_path):
    """Mistral 7B's SentencePiece vocabulary (32,000 pieces, byte fallback) as a Llama-style
    tokenizer.json: ours and tokenizers agree on 3,000 docs lines and the hard strings."""
    spec = importlib.util.find_spec("mistral_common")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("mistral-common is not installed (pip install --no-deps mistral-common==1.13.1): no Mistral vocabulary")
    model_file = Path(list(spec.submodule_search_locations)[0]) / "data" / "tokenizer.model.v1"
    if not model_file.is_file():
        pytest.skip(f"{model_file} is missing from the installed mistral-common")
    pytest.importorskip("sentencepiece")
    path = tmp_path / "mistral.json"
    path.write_text(_llama_from_sentencepiece(str(model_file)), encoding="utf-8")
    tok = Tokenizer.from_file(str(path))
    ours = from_hf_tokenizer(path)
    assert ours.id_to_token == [tok.id_to_token(i) for i in range(tok.get_vocab_size())]
    texts = lines[:3000] + HARD
    bad = mismatches(tok, ours, texts)
    assert not bad, f"{len(bad)} of {len(texts)} texts differ; first: {bad[:3]}"


# -- what is refused, and bad files --------------------------------------------------------------

def _write(tmp_path, data, name="t.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("edit, error, match", [
    (lambda d: d.update(normalizer={"type": "ByteLevel"}), ValueError, r"normalizer.type 'ByteLevel' is not supported"),
    (lambda d: d["normalizer"]["normalizers"].append({"type": "Replace", "pattern": {"Regex": "("}, "content": ""}),
     ValueError, r"normalizer.normalizers\[2\].pattern.Regex '\(' is not a regular expression"),
    (lambda d: d.update(pre_tokenizer={"type": "Digits", "individual_digits": True}), ValueError,
     r"pre_tokenizer.type 'Digits' is not supported"),
    (lambda d: d.update(decoder={"type": "CTC"}), ValueError, r"decoder.type 'CTC' is not supported"),
    (lambda d: d["model"].update(dropout=0.1), ValueError, r"model.dropout is 0.1"),
    (lambda d: d["model"].update(continuing_subword_prefix="##"), ValueError, r"model.continuing_subword_prefix"),
    (lambda d: d["added_tokens"][0].update(lstrip=True), ValueError, r"added_tokens\[0\].lstrip is true"),
    (lambda d: d["model"]["merges"].append(["▁", "zzz"]), ValueError, r"'zzz' is not in model.vocab"),
    (lambda d: d["model"].update(vocab=[1, 2]), TypeError, r"model.vocab must be dict"),
    (lambda d: d["model"]["vocab"].update({"x": -1}), TypeError, r"model.vocab\['x'\] must be an id"),
    (lambda d: d["model"].update(fuse_unk="yes"), TypeError, r"model.fuse_unk must be bool"),
    (lambda d: d["model"].update(type="WordLevel"), ValueError, r"model.type 'WordLevel' is not supported"),
    (lambda d: d.update(truncation={"max_length": 8, "strategy": "LongestFirst", "stride": 0, "direction": "Right"}),
     ValueError, r"truncation is set"),
    (lambda d: d["normalizer"]["normalizers"][0].pop("prepend"), ValueError,
     r"normalizer.normalizers\[0\].prepend is missing"),
])
def test_bad_or_unsupported_bpe_files_are_refused(files, tmp_path, edit, error, match):
    """A component the reader cannot reproduce, or a wrong field, is an error naming the file and
    the field; nothing loads half."""
    data = json.loads(files["llama"].read_text(encoding="utf-8"))
    edit(data)
    path = _write(tmp_path, data)
    with pytest.raises(error, match=match) as info:
        from_hf_tokenizer(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("name, edit, error, match", [
    ("bert", lambda d: d["model"].pop("unk_token"), ValueError, r"model.unk_token is missing"),
    ("bert", lambda d: d["model"].update(unk_token="[NOPE]"), ValueError, r"'\[NOPE\]' is not in model.vocab"),
    ("bert", lambda d: d["model"].update(max_input_chars_per_word="100"), TypeError,
     r"model.max_input_chars_per_word must be int"),
    ("sp_unigram", lambda d: d["model"]["vocab"].append(["x", "low"]), TypeError, r"model.vocab\[2000\] must be"),
    ("sp_unigram", lambda d: d["model"].update(unk_id=5000), ValueError, r"model.unk_id must be the id of a piece"),
    ("sp_unigram", lambda d: d["model"].update(vocab=[]), ValueError, r"model.vocab is empty"),
    ("sp_unigram", lambda d: d.update(normalizer={"type": "Precompiled", "precompiled_charsmap": "!!"}), ValueError,
     r"precompiled_charsmap is not a base64"),
])
def test_bad_wordpiece_and_unigram_files_are_refused(files, tmp_path, name, edit, error, match):
    data = json.loads(files[name].read_text(encoding="utf-8"))
    edit(data)
    path = _write(tmp_path, data)
    with pytest.raises(error, match=match) as info:
        from_hf_tokenizer(path)
    assert str(path) in str(info.value)


def test_corrupt_and_truncated_files(files, tmp_path):
    """A truncated or non-JSON file, or JSON that is not a tokenizer, is a ValueError naming it."""
    text = files["bert"].read_text(encoding="utf-8")
    for content in (text[: len(text) // 2], "not json", "[1, 2]", "{}", "{\"model\": 3}"):
        path = _write(tmp_path, content, "bad.json")
        with pytest.raises(ValueError, match="bad.json"):
            from_hf_tokenizer(path)
    with pytest.raises(TypeError, match="tokenizer_or_path must be"):
        from_hf_tokenizer(42)
