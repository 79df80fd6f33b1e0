"""bpe_viz.engine.text.fast_split: the GPT split patterns run by ``re`` over explicit classes
must cut every text exactly as the ``regex`` module cuts it (the pieces and their spans), and
the real vocabularies must then give tiktoken's ids.

The strings mix what the patterns tell apart: ASCII, letters of many scripts (title-case and
modifier letters among them), combining marks, digits and other numbers of many scripts
(``Ⅻ``, ``½``), every kind of whitespace and its look-alikes, apostrophes and contractions in
every case (``’`` is not an apostrophe; ``ſ`` folds to ``s``), newlines, slashes, emoji and
other characters beyond U+FFFF, lone surrogates and unassigned code points.
"""

from __future__ import annotations

import random

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from bpe_viz import corpora
from bpe_viz.engine.text.fast_split import FastSplitter
from bpe_viz.engine.text.pretokenize import (CL100K_PATTERN, GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN,
                                             PRE_TOKENIZERS, Pattern)

from helpers import hypothesis_settings, real_tokenizer, tiktoken_reference

PATTERNS = {"gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN, "cl100k": CL100K_PATTERN, "o200k": O200K_PATTERN}
FAST = {name: FastSplitter(p) for name, p in PATTERNS.items()}
SLOW = {name: regex.compile(p) for name, p in PATTERNS.items()}

ASCII = "".join(map(chr, range(128)))
CONTRACTION = "sStTmMdDlLvVeErR'’ſKßﬆİı"
LETTERS = ("éÉçñøÆœĳαβΓΔάΐжЖёЁաԱאבمرحباनमस्तेภาษาไทย中文字ひらがなカタカナー한국어ქართሰላምᎠꭰ"
           "ǅǈǋǲᾈᾟῼʰʲˀˆˇˠˤⁱⁿᵃꜗ々ゝªºƻǀ")
MARKS = "\u0300\u0301\u0308\u0327\u20dd\u20e3\u0903\u093f\u0e31\u302a\u3099\ufe0f\ufe0e\u1ab0"
NUMBERS = "0123456789٠١٢٣۴५๓໒០᠐①②⑳⅓½¼¾²³¹ⅠⅫⅻↀ〇〡〥"
SPACES = " \t\n\r\x0b\x0c\x85\xa0\u1680\u2000\u2003\u2007\u200a\u2028\u2029\u202f\u205f\u3000"
NOT_SPACES = "\u200b\u180e\ufeff\u2060\x1c\x1d\x1e\x1f\u200d"  # Python's str.isspace says yes to \x1c-\x1f
PUNCT = "/\\.,;:!?-_()[]{}<>@#$%^&*+=|~`\"«»¿¡—–…·•†‡§¶©®™°€£¥₹"
BEYOND = ("😀👍🏽👨\u200d👩🏳🌈🇫🇷✨🤖"  # emoji (with a skin tone, a joiner, flags)
          "𝐀𝐚𐐀𐐨𠀀𝔸𞤀𞤢𝒜\U00016f93"  # letters beyond U+FFFF (Lu, Ll, Lo, Lm)
          "𝟙𐄇𐅀𑁦\U0001d165\U0001e000\U000e0100\U000e0041")  # numbers, marks, a tag character
ODD = "\ud800\udbff\udc00\udfff\u0378\u0530\ufffe\uffff\ue000\U000f0000\U0010ffff\U000e0080"
CHARS = ASCII + CONTRACTION + LETTERS + MARKS + NUMBERS + SPACES + NOT_SPACES + PUNCT + BEYOND + ODD
CHUNKS = ["'s", "'S", "'t", "'T", "'re", "'RE", "'rE", "'Ve", "'m", "'M", "'ll", "'LL", "'lL", "'d", "'D",
          "’s", "'ſ", "'x", "Hello", "HTTPServer", "iPhone", "ǅungla", " the", "\r\n", "  ", "\n\n", " /",
          "//", "123456", "½½", "e\u0301", "\u0301\u0301", " \n ", "\t\n", "don't", "DON'T", "x'S'"]

texts = st.lists(st.one_of(st.sampled_from(CHARS), st.sampled_from(CHUNKS),
                           st.characters(exclude_categories=())), max_size=40).map("".join)


def assert_same(name: str, text: str):
    """The fast splitter, and the pre-tokenizer that uses it, cut ``text`` as ``regex`` does."""
    want = [(m.group(), m.span()) for m in SLOW[name].finditer(text)]
    words = [w for w, _ in want]
    assert FAST[name].split(text) == want
    assert FAST[name].words(text) == words == SLOW[name].findall(text)
    assert PRE_TOKENIZERS[name].words(text) == words
    assert PRE_TOKENIZERS[name].split(text) == want


@hypothesis_settings(600)
@given(st.lists(texts, min_size=1, max_size=8))
def test_random_strings_are_cut_as_the_regex_module_cuts_them(batch):
    for text in batch:  # several strings per example: thousands in all, at less cost each
        for name in PATTERNS:
            assert_same(name, text)


@pytest.mark.parametrize("name", PATTERNS)
def test_twenty_thousand_seeded_strings(name):
    rng = random.Random(name)
    pool = list(CHARS) + CHUNKS
    for _ in range(20_000):
        assert_same(name, "".join(rng.choices(pool, k=rng.randint(0, 24))))


@hypothesis_settings(150)
@given(st.lists(texts, min_size=5, max_size=30).map("".join))
def test_long_random_strings_too(text):
    for name in PATTERNS:
        assert_same(name, text)


@pytest.mark.parametrize("name", PATTERNS)
def test_every_character_below_u10000(name):
    plane = "".join(map(chr, range(0x10000)))
    assert_same(name, plane)
    rng = random.Random(18)
    chars = list(plane)
    rng.shuffle(chars)
    # each character once, between pieces of context that every class reacts to
    mixed = "".join(c + rng.choice(CHUNKS + list(SPACES) + ["", "", ""]) for c in chars)
    assert_same(name, mixed)


@pytest.mark.parametrize("name", PATTERNS)
def test_characters_beyond_u10000(name):
    rng = random.Random(1800)
    sample = [chr(rng.randrange(0x10000, 0x110000)) for _ in range(3_000)] + list(BEYOND)
    assert all(FAST[name].stand_in(c) is not None for c in sample)  # none sends the text to regex
    assert_same(name, "".join(sample))
    assert_same(name, "".join(c + rng.choice(CHUNKS + ["", " ", "a", "A", "1"]) for c in sample))


@pytest.mark.parametrize("name", PATTERNS)
def test_the_docs_text_and_every_bundled_corpus(name, docs_text):
    assert_same(name, docs_text)
    for corpus in corpora.CORPUS_NAMES:
        data = corpora.load(corpus)
        assert_same(name, " ".join(data) if isinstance(data, dict) else data)
    for language in corpora.LANGUAGES:
        assert_same(name, "\n".join(corpora.language_lines(language)))


def test_a_stand_in_is_matched_in_place_of_a_character_beyond_the_plane():
    fast = FastSplitter(O200K_PATTERN)
    assert fast.stand_in("😀") is not None and ord(fast.stand_in("😀")) < 0x10000
    # the stand-in is no letter, number, space, newline or slash: " 😀😀/" is one piece
    assert fast.split("a 😀😀/\nb") == [("a", (0, 1)), (" 😀😀/\n", (1, 6)), ("b", (6, 7))]


def test_patterns_outside_the_syntax_are_refused_and_keep_the_regex_path():
    for bad in (r"\bab", r"(a)|b", r"a.", r"(?i)ab", r"^a", r"[[:alpha:]]", r"(?:a", "a)"):
        with pytest.raises(ValueError, match="pattern"):
            FastSplitter(bad)
    with pytest.raises(TypeError, match="pattern must be a str"):
        FastSplitter(None)
    assert Pattern(r"\w+").words("héllo wörld") == ["héllo", "wörld"]  # still regex's \w


def test_a_pattern_whose_matches_leave_gaps_or_are_empty_still_agrees():
    # the fast path cuts tiling matches; these go to the regex module for the spans
    for pattern, text in ((r"\p{L}+", "ab 12 cd"), (r"\p{N}*", "a12b"), (r"(?i:s)+|\s$", "Sſs x S\n"),
                          (r"\w+", "héllo, wörld_2")):
        fast, slow = FastSplitter(pattern), regex.compile(pattern)
        want = [(m.group(), m.span()) for m in slow.finditer(text) if m.end() > m.start()]
        assert fast.split(text) == want
        assert fast.words(text) == [w for w, _ in want]


# ids: the real vocabularies, with the fast split wired in, against tiktoken on the same ranks
STABLE = ASCII + CONTRACTION + LETTERS + MARKS + NUMBERS + SPACES + PUNCT + "😀👍🏽👨\u200d👩🇫🇷✨𝐀𐐀𠀀𝟙"
stable_texts = st.lists(st.one_of(st.sampled_from(STABLE), st.sampled_from(CHUNKS)), max_size=40).map("".join)


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base", "gpt2"])
def test_the_real_vocabularies_give_tiktokens_ids(name, docs_text):
    trace, enc = real_tokenizer(name), tiktoken_reference(name)
    texts_ = [docs_text, *("\n".join(corpora.language_lines(lang)) for lang in corpora.LANGUAGES)]
    for text in texts_:
        assert trace.encode(text, allowed_special="none").ids == enc.encode_ordinary(text)

    @hypothesis_settings(200)
    @given(stable_texts)
    def random_strings(text):
        assert trace.encode(text, allowed_special="none").ids == enc.encode_ordinary(text)

    random_strings()


def test_letters_newer_than_pythons_unicode_data_follow_the_regex_module():
    # the regex module knows newer Unicode than Python 3.11's unicodedata (14.0): U+A7CB (Latin
    # capital ram's horn) and U+1E5D0 (Ol Onal, beyond U+FFFF) are letters to regex, unassigned to
    # unicodedata; the fast splitter asks regex, so they stay inside their word
    import unicodedata

    for ch in ("\ua7cb", "\U0001e5d0"):
        if unicodedata.category(ch) != "Cn" or not regex.fullmatch(r"\p{L}", ch):
            pytest.skip("needs a regex module with newer Unicode data than unicodedata")
        text = f"{ch}b {ch}c"
        assert FAST["o200k"].words(text) == SLOW["o200k"].findall(text) == [f"{ch}b", f" {ch}c"]
        for name in PATTERNS:
            assert_same(name, text)
