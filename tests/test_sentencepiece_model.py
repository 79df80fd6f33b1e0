"""from_sentencepiece / load_tokenizer("mistral-7b") against sentencepiece itself.

Every model here is either Mistral 7B's (from the pinned ``mistral-common`` package; skipped,
saying what to install, when it is absent) or trained in the test with
``sentencepiece.SentencePieceTrainer`` on the bundled docs corpus, in several settings (BPE and
Unigram; byte fallback on and off; ``nmt_nfkc``, ``nmt_nfkc_cf`` and ``identity``; user-defined
symbols; split digits; no dummy prefix; extra whitespace kept; whitespace as suffix). Each one is
compared with ``sentencepiece.SentencePieceProcessor`` built from the same bytes on every line of
the docs corpus and on hard strings: pieces, ids, offsets and decoding.
"""

from __future__ import annotations

import io
import random

import pytest

spm = pytest.importorskip("sentencepiece")
pytest.importorskip("google.protobuf")
pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")

from helpers import real_tokenizer  # noqa: E402

from bpe_viz import decode, encode, encode_word, from_sentencepiece, load_tokenizer  # noqa: E402
from bpe_viz.engine.bpe.scored_pieces import scored_piece_bpe  # noqa: E402
from bpe_viz.engine.text.corpora import python_docs_text  # noqa: E402
from bpe_viz.engine.text.languages import LANGUAGES  # noqa: E402
from bpe_viz.engine.text.precompiled import PrecompiledCharsmap, SentencePieceNormalizer  # noqa: E402
from bpe_viz.engine.unigram import unigram_from_pieces  # noqa: E402
from bpe_viz.interop import installed as installed_module  # noqa: E402
from bpe_viz.interop.installed import INSTALLED, installed_path  # noqa: E402

LINES = python_docs_text().split("\n")
HARD = [
    "", " ", "   ", "  hello  world  ", "trailing ", " leading", "a  b   c    d",
    "\tTabs\tand\t\ttabs\t", "line1\nline2\n\n", "\r\nwindows\r\n", "12345678901234567890 3.14159 1,000,000",
    "a\u00a0b\u3000c\u2009d", "ﬁne ﬂ ﬃ Ｔｅｘｔ ①② ㍿ ½", "e\u0301 o\u0308 n\u0303 Å", "ctrl\x01\x02\x7f\x1b\x00end",
    "\u200b\u200d\ufeffzero width", "\u2028\u2029\x85\x0b\x0c", "ß ẞ İ ı ǅ", "𝐀𝐁𝐂 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "<s> </s> <unk> <pad> <0x41>", "[SEP]<sep>foo<sep> def(x)", "▁x ▁▁ y▁", "Hello 世界 مرحبا Привет नमस्ते 안녕하세요",
    "👨‍👩‍👧‍👦 family 🏳️‍🌈 flag 👍🏽 🦙", "def f(x):\n    return x  # comment\n\n\tpass", "x" * 60 + " " + "ab" * 40,
]
USER_SYMBOLS = ["<sep>", "[SEP]", "def"]

#: the trained models: name -> SentencePieceTrainer options
SETTINGS = {
    "bpe": dict(model_type="bpe", vocab_size=1000),
    "bpe-bytes-nfkc": dict(model_type="bpe", vocab_size=1000, byte_fallback=True, normalization_rule_name="nmt_nfkc"),
    "bpe-user-digits-identity": dict(model_type="bpe", vocab_size=800, normalization_rule_name="identity",
                                     user_defined_symbols=USER_SYMBOLS, split_digits=True),
    "bpe-no-dummy-keep-spaces": dict(model_type="bpe", vocab_size=800, add_dummy_prefix=False,
                                     remove_extra_whitespaces=False, byte_fallback=True),
    "bpe-suffix": dict(model_type="bpe", vocab_size=800, treat_whitespace_as_suffix=True),
    "unigram": dict(model_type="unigram", vocab_size=1000),
    "unigram-bytes-identity": dict(model_type="unigram", vocab_size=1000, byte_fallback=True,
                                   normalization_rule_name="identity"),
    "unigram-user-digits-nfkc-cf": dict(model_type="unigram", vocab_size=800, user_defined_symbols=USER_SYMBOLS,
                                        split_digits=True, normalization_rule_name="nmt_nfkc_cf"),
    "unigram-no-dummy-keep-spaces": dict(model_type="unigram", vocab_size=800, add_dummy_prefix=False,
                                         remove_extra_whitespaces=False),
    "unigram-suffix-bytes": dict(model_type="unigram", vocab_size=800, treat_whitespace_as_suffix=True,
                                 byte_fallback=True),
}


def train(**options) -> bytes:
    """A model trained on the docs corpus, as bytes (nothing written to disk)."""
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(LINES), model_writer=buf, minloglevel=2, **options)
    return buf.getvalue()


@pytest.fixture(scope="module")
def models():
    """name -> the trained model's bytes (each trained once, when first asked for)."""
    cache: dict[str, bytes] = {}

    def get(name):
        if name not in cache:
            cache[name] = train(**SETTINGS[name])
        return cache[name]

    return get


def char_span(text: str, begin: int, end: int) -> tuple[int, int]:
    """sentencepiece's byte offsets as character offsets."""
    raw = text.encode("utf-8")
    return len(raw[:begin].decode("utf-8", "ignore")), len(raw[:end].decode("utf-8", "ignore"))


def first_difference(ours, ref, texts, offsets: bool = True):
    """None when ``ours`` encodes and decodes every text as ``ref`` does, else what differs."""
    for text in texts:
        e = ours.encode(text)
        got = ref.encode(text, return_type="proto").pieces
        ids, pieces = [p.id for p in got], [p.piece for p in got]
        if e.pieces != pieces or e.ids != ids:
            return text, "encode", e.pieces, pieces
        if ours.decode(e.ids) != ref.decode(ids):
            return text, "decode", ours.decode(e.ids), ref.decode(ids)
        if offsets and e.offsets != [char_span(text, p.begin, p.end) for p in got]:
            return text, "offsets", e.offsets, [char_span(text, p.begin, p.end) for p in got]
    return None


# -- trained models, every setting ------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_trained_model_encodes_and_decodes_as_sentencepiece(models, name):
    blob = models(name)
    ours, ref = from_sentencepiece(blob, name=name), spm.SentencePieceProcessor(model_proto=blob)
    assert ours.name == name and len(ours.id_to_token) == ref.get_piece_size()
    assert ours.id_to_token == [ref.id_to_piece(i) for i in range(ref.get_piece_size())]
    assert first_difference(ours, ref, HARD + LINES) is None
    # many lines as one text, one sentence to sentencepiece (Unigram: see the note in from_pieces)
    for start in range(0, 100_000, 20_000):
        whole = python_docs_text()[start:start + 20_000]
        assert encode(whole, ours).ids == ref.encode(whole), start


@pytest.mark.parametrize("name", ["bpe", "bpe-no-dummy-keep-spaces", "unigram", "unigram-user-digits-nfkc-cf"])
def test_unused_pieces_are_never_output(models, name):
    """UNUSED pieces (as ``SetVocabulary`` marks them): BPE makes one and splits it back into its
    parts, Unigram never takes one."""
    proto = pb.ModelProto()
    proto.ParseFromString(models(name))
    k = 0
    for sp in proto.pieces:
        if sp.type == 1 and len(sp.piece) > 1:
            k += 1
            sp.type = 5 if k % 4 == 0 else 1
    blob = proto.SerializeToString()
    ours, ref = from_sentencepiece(blob), spm.SentencePieceProcessor(model_proto=blob)
    assert first_difference(ours, ref, HARD + LINES[:4000], offsets=False) is None


def test_denormalizer_is_applied_when_decoding(tmp_path):
    rules = tmp_path / "denormalize.tsv"
    rules.write_text("61\t41\n62 63\t58 59\n", encoding="utf-8")  # a -> A, bc -> XY
    blob = train(model_type="unigram", vocab_size=600, denormalization_rule_tsv=str(rules))
    ours, ref = from_sentencepiece(blob), spm.SentencePieceProcessor(model_proto=blob)
    assert ours.decode(ours.encode("abc banana").ids) == ref.decode(ref.encode("abc banana")) == "AXY bAnAnA"
    assert first_difference(ours, ref, HARD + LINES[:2000], offsets=False) is None


@pytest.mark.parametrize("name", ["bpe-bytes-nfkc", "unigram", "unigram-no-dummy-keep-spaces"])
def test_any_ids_decode_as_sentencepiece(models, name):
    """Random id sequences, control, unknown and byte pieces among them (invalid UTF-8 too)."""
    blob = models(name)
    ours, ref = from_sentencepiece(blob), spm.SentencePieceProcessor(model_proto=blob)
    rng, n = random.Random(18), ref.get_piece_size()
    special = [i for i in range(n) if ref.is_control(i) or ref.is_unknown(i) or ref.is_byte(i)]
    for _ in range(2000):
        ids = [rng.choice(special) if rng.random() < 0.4 else rng.randrange(n) for _ in range(rng.randrange(10))]
        assert ours.decode(ids) == ref.decode(ids), ids


def test_bpe_walkthroughs_end_where_encode_does(models):
    ours = from_sentencepiece(models("bpe-user-digits-identity"))
    e = encode("The tokenizer <sep> splits def words 12345.", ours)
    for i, word in enumerate(e.words):
        assert encode_word(word, ours).final == tuple(e.word_pieces()[i])
    assert encode_word("<sep>", ours).steps == ()
    assert e.made_at[e.pieces.index("<sep>")] is None


def test_unigram_walkthrough_ends_where_encode_does(models):
    ours = from_sentencepiece(models("unigram"))
    e = encode("The tokenizer splits words.", ours)
    for i, word in enumerate(e.words):
        walk = encode_word(word, ours)
        assert walk.final == tuple(e.word_pieces()[i])
        assert len(walk.prefixes) == len(word)


# -- the normalizer on its own ---------------------------------------------------------------------

@pytest.mark.parametrize("rule", ["nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf"])
def test_precompiled_charsmap_normalizes_as_sentencepiece(rule):
    """The charsmaps sentencepiece ships (package_data/<rule>.bin), text and offsets."""
    from pathlib import Path

    blob = (Path(spm.__file__).parent / "package_data" / f"{rule}.bin").read_bytes()
    charsmap = PrecompiledCharsmap(blob, rule)
    for dummy, extra, escape in [(False, False, False), (True, True, True), (True, False, True), (False, True, False)]:
        ref = spm.SentencePieceNormalizer(rule_name=rule, add_dummy_prefix=dummy, remove_extra_whitespaces=extra,
                                          escape_whitespaces=escape)
        ours = SentencePieceNormalizer(charsmap, add_dummy_prefix=dummy, remove_extra_whitespaces=extra,
                                       escape_whitespaces=escape)
        for text in HARD + LINES[:1500]:
            got, want = ours.normalize_with_offsets(text), ref.normalize(text, with_offsets=True)
            assert (got[0], got[1]) == (want[0], list(want[1])), (rule, dummy, extra, escape, text)


# -- Mistral 7B ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mistral():
    """(our tokenizer, sentencepiece's processor) for Mistral 7B's model."""
    ours = real_tokenizer("mistral-7b")  # skipped, naming the package, when it is not installed
    path, _ = installed_path("mistral-7b")
    return ours, spm.SentencePieceProcessor(model_file=str(path))


def test_mistral_encodes_the_docs_as_sentencepiece(mistral):
    ours, ref = mistral
    assert first_difference(ours, ref, LINES) is None
    text = python_docs_text()
    ids = encode(text, ours).ids
    assert ids == ref.encode(text)
    assert decode(ids, ours) == ref.decode(ids) == text


def test_mistral_multilingual_and_hard_strings(mistral):
    """Byte fallback (CJK, Korean, Arabic, Hindi, emoji with ZWJ), spaces, tabs, digits, <s> as text."""
    ours, ref = mistral
    texts = HARD + list(LANGUAGES.values()) + [line for p in LANGUAGES.values() for line in p.split("\n")]
    assert first_difference(ours, ref, texts) is None
    e = encode("한국어 🦙 <s>", ours)
    assert "<0xF0>" in e.pieces and "<s>" not in e.pieces and 1 not in e.ids


def test_mistral_decodes_any_ids_as_sentencepiece(mistral):
    ours, ref = mistral
    rng = random.Random(7)
    for _ in range(3000):
        ids = [rng.randrange(32000) if rng.random() < 0.5 else rng.choice([0, 1, 2, rng.randrange(3, 259), 259, 28705])
               for _ in range(rng.randrange(12))]
        assert ours.decode(ids) == ref.decode(ids), ids


def test_mistral_merges_are_what_sentencepiece_makes_of_each_piece(mistral):
    """Every recovered merge: sentencepiece (the same model without its dummy prefix) encodes the
    piece's own text as that one piece, and our encoder's last merge on it is the pair."""
    ours, _ = mistral
    path, _ = installed_path("mistral-7b")
    proto = pb.ModelProto()
    proto.ParseFromString(path.read_bytes())
    proto.normalizer_spec.add_dummy_prefix = False
    plain = spm.SentencePieceProcessor(model_proto=proto.SerializeToString())
    assert len(ours.merges) == 28446  # every NORMAL piece of two characters or more
    segment = ours.model.segmenter(ours, ours.last_step)
    for m in ours.merges:
        piece = m.token
        assert plain.encode(piece.replace("\u2581", " ")) == [ours.token_to_id(piece)], piece
        assert segment(piece) == (piece,)
        left, right = (ours.made_at_of_id(ours.token_to_id(part)) for part in m.pair)
        assert left < m.step and right < m.step, m
    walk = encode_word("\u2581tokenizers", ours)
    assert walk.final == ("\u2581token", "izers") and walk.steps[-1].pair == ("iz", "ers")


def test_mistral_fewer_merges_and_dropout(mistral):
    ours, ref = mistral
    assert encode("low 🦙", ours, 0).pieces == ["\u2581", "l", "o", "w", "\u2581",
                                               "<0xF0>", "<0x9F>", "<0xA6>", "<0x99>"]
    early = encode("the lowest", ours, 100)
    assert all(ours.made_at_of_id(i) <= 100 for i in early.ids)
    text = "Hello world, tokenizers!"
    assert encode(text, ours, dropout=1.0).pieces == ref.encode(text, out_type=str, enable_sampling=True, alpha=1.0,
                                                                 nbest_size=-1)
    assert encode(text, ours, dropout=0.0).ids == ref.encode(text)


def test_mistral_names_views_and_explanations(mistral):
    from bpe_viz.view.merges.trees import merge_tree_html
    from bpe_viz.view.merges.walkthrough import walkthrough_html

    ours, _ = mistral
    assert load_tokenizer("mistral").id_to_token == ours.id_to_token
    assert ours.name == "mistral-7b"
    assert "SentencePiece BPE" in ours.describe() and "byte fallback on" in ours.describe()
    assert "merge" in merge_tree_html(ours, "\u2581token")
    assert "izers" in walkthrough_html(encode_word("\u2581tokenizers", ours), trace=ours)


# -- bad input --------------------------------------------------------------------------------------

def test_bad_model_bytes_and_files(tmp_path, models):
    blob = models("bpe")
    for cut in (5, len(blob) // 3, len(blob) - 3):
        with pytest.raises(ValueError, match="SentencePiece model bytes"):
            from_sentencepiece(blob[:cut])
    with pytest.raises(ValueError, match="not a SentencePiece model"):
        from_sentencepiece(b"\xff\xff\xff" + blob[3:])
    with pytest.raises(ValueError, match="has no pieces"):
        from_sentencepiece(b"")
    text_file = tmp_path / "notes.model"
    text_file.write_text("this is not a model\n" * 20, encoding="utf-8")
    with pytest.raises(ValueError, match="notes.model: not a SentencePiece model"):
        from_sentencepiece(text_file)
    with pytest.raises(FileNotFoundError, match="no such file"):
        from_sentencepiece(tmp_path / "missing.model")
    with pytest.raises(TypeError, match="path_or_bytes must be"):
        from_sentencepiece(123)
    with pytest.raises(TypeError, match="name must be"):
        from_sentencepiece(blob, name=5)


def edited(blob: bytes, edit) -> bytes:
    proto = pb.ModelProto()
    proto.ParseFromString(blob)
    edit(proto)
    return proto.SerializeToString()


@pytest.mark.parametrize("edit, message", [
    (lambda p: setattr(p.trainer_spec, "model_type", 3), r"trainer_spec.model_type is WORD"),
    (lambda p: setattr(p.pieces[11], "piece", p.pieces[10].piece), r"pieces\[11\].piece .* is already pieces\[10\]"),
    (lambda p: setattr(p.pieces[5], "piece", ""), r"pieces\[5\].piece is empty"),
    (lambda p: setattr(p.pieces[5], "type", 2), r"exactly one piece of type UNKNOWN; this one has 2"),
    (lambda p: setattr(p.pieces[7], "type", 6),
     r"pieces\[7\] is the byte piece .*, but trainer_spec.byte_fallback is false"),
    (lambda p: setattr(p.normalizer_spec, "precompiled_charsmap", b"\x08\x00\x00\x00ab"),
     r"normalizer_spec.precompiled_charsmap: the trie size"),
])
def test_bad_model_fields_are_named(models, edit, message):
    with pytest.raises(ValueError, match=message):
        from_sentencepiece(edited(models("unigram"), edit))


def test_missing_byte_pieces_are_named(models):
    blob = edited(models("bpe-bytes-nfkc"), lambda p: setattr(p.pieces[100], "type", 1))  # <0x61> made NORMAL
    with pytest.raises(ValueError, match="byte_fallback is true but 1 of the 256 byte pieces are missing"):
        from_sentencepiece(blob)


def test_wrong_hash_is_refused(monkeypatch, mistral):
    monkeypatch.setitem(INSTALLED, "mistral-7b", {**INSTALLED["mistral-7b"], "sha256": "0" * 64})
    with pytest.raises(ValueError, match=r"tokenizer.model.v1 has SHA-256 dadfd56d.*not the published 0000"):
        installed_module.load_tokenizer("mistral")


@pytest.mark.parametrize("name", ["bpe", "unigram"])
def test_bad_ids_are_named(models, name):
    ours = from_sentencepiece(models(name))
    n = len(ours.id_to_token)
    message = rf"ids: -?\d+ is not a piece id of this model \(ids run from 0 to {n - 1}\)"
    for bad in ([n], [-1], [0, n + 5]):
        with pytest.raises(ValueError, match=message):
            ours.decode(bad)
    with pytest.raises(TypeError, match="ids must contain ints"):
        ours.decode(["a"])
    with pytest.raises(TypeError, match="ids must be a list"):
        ours.decode("abc")
    with pytest.raises(TypeError, match="text must be a str"):
        ours.encode(b"bytes")


def test_piece_lists_are_checked():
    with pytest.raises(ValueError, match="the kind must be one of"):
        scored_piece_bpe([("<unk>", 0.0, "unknown"), ("a", 0.0, "weird")])
    with pytest.raises(ValueError, match="exactly one piece must be of kind 'unknown'"):
        scored_piece_bpe([("a", 0.0, "normal")])
    with pytest.raises(ValueError, match="'a' is given twice"):
        scored_piece_bpe([("<unk>", 0.0, "unknown"), ("a", 0.0, "normal"), ("a", -1.0, "normal")])
    with pytest.raises(ValueError, match="byte_fallback needs the 256 byte pieces"):
        unigram_from_pieces([("<unk>", 0.0), ("a", -1.0)], unk_id=0, byte_fallback=True)
    with pytest.raises(TypeError, match="the score must be a number"):
        unigram_from_pieces([("<unk>", 0.0), ("a", "x")], unk_id=0)
    with pytest.raises(ValueError, match="unk_id must be the id of a piece"):
        unigram_from_pieces([("a", 0.0)], unk_id=3)
