"""Tokenizers side by side (view/compare_tokenizers.py, widgets/side_by_side.py) and the bundled
language samples (engine/text/languages.py), on real vocabularies and trained ones.

The real GPT vocabularies are checked against tiktoken built from the same installed files on
every line of every language sample; the view's counts and its marks where the tokenizers
disagree are checked against the encodings, recomputed here from the offsets independently.
"""

from __future__ import annotations

import asyncio
import re
import threading
from types import SimpleNamespace

import pytest

from bpe_viz import (SideBySideExplorer, corpora, train_bpe, train_subword_text_encoder, train_unigram,
                     train_wordpiece)
from bpe_viz.engine.text import LANGUAGES, language_lines
from bpe_viz.view import (MAX_COMPARE_CHARS, compare_tokenizers, comparison_html, language_table,
                          language_table_html, tokenizers_html)
from bpe_viz.widgets.side_by_side import MAX_TEXT_CHARS, Debouncer
from helpers import real_tokenizer, tiktoken_reference

REAL = ("gpt2", "cl100k_base", "o200k_base")
MIXED = ("Maria's  dog ran 1234567 metres\tacross 東京 and Zürich.\n\n"
         "def f(x):\n    return x  # café 👍🏽 안녕하세요 مرحبا\n")


@pytest.fixture(scope="module")
def trained():
    """One trained tokenizer of each family, on the docs text (and the language samples, so that
    their scripts have pieces), small enough to train in a few seconds."""
    docs = corpora.python_docs_text()[:60_000] + "\n" + "\n".join(LANGUAGES.values())
    return {
        "bpe cs336": train_bpe(docs, 400, preset="cs336"),
        "bpe classic": train_bpe(docs, 300),
        "bpe sentencepiece": train_bpe(docs, vocab_size=1200, preset="sentencepiece"),
        "wordpiece": train_wordpiece(docs, 300),
        "unigram sp": train_unigram(docs, vocab_size=600, flavour="sentencepiece"),
        "unigram course": train_unigram(corpora.python_docs_text()[:20_000], vocab_size=200),
        "subword text encoder": train_subword_text_encoder(docs, 600),
    }


@pytest.fixture(scope="module")
def real():
    return {name: real_tokenizer(name) for name in REAL}


@pytest.fixture(scope="module")
def everyone(real, trained):
    """The real vocabularies, Mistral 7B's SentencePiece model when its reader and package are
    there (byte fallback: bytes with empty spans), and the trained ones."""
    from bpe_viz.interop.installed import INSTALLED

    extra = {}
    if "mistral-7b" in INSTALLED:
        try:
            extra["mistral-7b"] = real_tokenizer("mistral-7b")
        except pytest.skip.Exception:
            pass
    return {**real, **extra, **trained}


# -- the bundled samples -------------------------------------------------------------------------

def test_every_language_says_the_same_in_four_lines():
    assert len(LANGUAGES) >= 10 and list(LANGUAGES)[0] == "English"
    for name in ("English", "German", "French", "Spanish", "Russian", "Chinese", "Japanese", "Korean", "Hindi",
                 "Arabic"):
        lines = language_lines(name)
        assert len(lines) == 4 and all(line.strip() == line and line for line in lines), name
        assert "27" in LANGUAGES[name], name  # the number, in every translation
    assert corpora.LANGUAGES is LANGUAGES and corpora.language_lines("Greek")[1].startswith("Σήμερα")
    with pytest.raises(ValueError, match="name must be one of the bundled languages"):
        language_lines("english")


@pytest.mark.parametrize("name", REAL)
def test_tiktoken_parity_on_every_line_of_every_language(name):
    ours, theirs = real_tokenizer(name), tiktoken_reference(name)
    lines = [line for lang in LANGUAGES for line in language_lines(lang)]
    assert len(lines) == 4 * len(LANGUAGES)
    for line in lines:
        assert ours.encode(line).ids == theirs.encode(line), (name, line)
    # and the whole paragraphs, newlines included
    for text in LANGUAGES.values():
        assert ours.encode(text).ids == theirs.encode(text), (name, text[:30])


# -- offsets of every family (what the boundaries are made of) ------------------------------------

def test_offsets_lie_in_the_text_in_order(everyone):
    for name, tok in everyone.items():
        for text in (MIXED, *LANGUAGES.values()):
            enc = tok.encode(text)
            assert len(enc.offsets) == len(enc.ids), name
            prev = 0
            for (s, e), token in zip(enc.offsets, enc.tokens):
                assert 0 <= s <= e <= len(text), (name, token)
                assert s >= prev or s == e or e <= prev, (name, token)  # in order (bytes of one character share it)
                prev = max(prev, s)


def test_unigram_and_subword_offsets_match_their_pieces(trained):
    text = "Hello  world, snake_case x.\n\tΩ日本 end  Maria"
    for name in ("unigram sp", "unigram course"):
        enc = trained[name].encode(text)
        for (s, e), piece, unk in zip(enc.offsets, enc.pieces, enc.unknown):
            if not unk:
                assert text[s:e] == piece.lstrip("▁"), (name, piece)
    enc = trained["subword text encoder"].encode(text)
    for (s, e), piece in zip(enc.offsets, enc.pieces):
        raw = piece.replace("\\&undsc", "_")
        assert text[s:e] in (raw, raw[:-1] + " "), piece


# -- the view ------------------------------------------------------------------------------------

def independent_boundaries(offsets, n) -> set:
    """Where an encoding cuts: a start or end of a token, not inside any token, not 0 or n."""
    out = set()
    for c in range(1, n):
        touches = any(s == c or e == c for s, e in offsets)
        inside = any(s < c < e for s, e in offsets)
        if touches and not inside:
            out.add(c)
    return out


def rows_of(html: str) -> dict:
    parts = html.split('<div class="bpe-compare-row" data-tokenizer="')[1:]
    return {p.split('"', 1)[0]: p for p in parts}


@pytest.mark.parametrize("text", [MIXED, LANGUAGES["Japanese"] + "\n" + LANGUAGES["German"], LANGUAGES["Hindi"]],
                         ids=["mixed", "japanese-german", "hindi"])
def test_counts_and_disagreement_marks_are_exact(everyone, text):
    html = tokenizers_html(text, everyone)
    bounds = {name: independent_boundaries(tok.encode(text).offsets, len(text)) for name, tok in everyone.items()}
    differ = set.union(*bounds.values()) - set.intersection(*bounds.values())
    assert differ, "these tokenizers should disagree somewhere"
    ticks = {int(x) for x in re.findall(r'class="bpe-tick" data-offset="(\d+)"', html)}
    assert ticks == differ
    rows = rows_of(html)
    assert list(rows) == list(everyone)
    for name, tok in everyone.items():
        count = len(tok.encode(text).ids)
        row = rows[name]
        assert row.startswith(f'{name}" data-tokens="{count}"')
        assert f"{count:,} tokens · {len(text) / count:.2f} characters per token" in row
        bars = [int(x) for x in re.findall(r'class="bpe-differs" data-offset="(\d+)"', row)]
        assert len(bars) == len(set(bars)) and set(bars) == differ & bounds[name], name
        assert row.count('class="bpe-token') == count


def test_one_tokenizer_never_disagrees(real):
    out = tokenizers_html(MIXED, {"gpt2": real["gpt2"]})
    assert "bpe-differs" not in out and "bpe-tick" not in out


def test_whitespace_and_bytes_are_visible(real, trained):
    out = tokenizers_html("a  b\tc\n\u00a0日", {"gpt2": real["gpt2"], "wp": trained["wordpiece"]})
    chips = rows_of(out)
    assert "␣" in chips["gpt2"] and "⇥" in chips["gpt2"] and "↵" in chips["gpt2"]
    assert "&lt;e6 97&gt;" in chips["gpt2"] or "&lt;e6&gt;" in chips["gpt2"]  # 日 is three bytes, split
    assert "&lt;c2 a0&gt;" in out  # the no-break space, in the text line at least
    assert re.search(r'title="gpt2\nid \d+\ntoken: Ġ[^"]*bytes: 20', chips["gpt2"])


def test_everything_is_escaped(real):
    nasty = "<script>alert(1)</script> & <b>bold</b> &amp;"
    corpus = (nasty + " ") * 30
    tok = train_bpe(corpus, 40, pre_tokenizer="whitespace")
    assert any("<script>" in t for t in tok.id_to_token)  # a token string with markup in it
    out = tokenizers_html(nasty, {"<i>mine</i> & co": tok, "gpt2": real["gpt2"]}, selected=("gpt2", 0))
    assert "<script" not in out.lower() and "<b>" not in out and "<i>" not in out
    assert "&lt;script&gt;" in out and "&amp;amp;" in out and "&lt;i&gt;mine&lt;/i&gt; &amp; co" in out
    table = language_table_html({"<i>x</i>": tok}, {"<b>": "a & b"})
    assert "<i>" not in table and "<b>" not in table and "&lt;b&gt;" in table


def test_selected_token_is_emphasized(real):
    cmp = compare_tokenizers("Hello world", real)
    out = comparison_html(cmp, selected=("cl100k_base", 1))
    assert out.count("bpe-new") == 1
    row = rows_of(out)["cl100k_base"]
    assert "bpe-new" in row


@pytest.mark.parametrize("args, kwargs, exc, message", [
    ((b"text", {}), {}, TypeError, "text must be a str, got bytes"),
    (("text", {}), {}, ValueError, "tokenizers must hold at least one tokenizer"),
    (("text", []), {}, ValueError, "tokenizers must hold at least one tokenizer"),
    (("text", {"x": "gpt2"}), {}, TypeError, r"tokenizers\['x'\] must be a trained tokenizer"),
    (("text", [None]), {}, TypeError, r"tokenizers\[0\] must be a trained tokenizer"),
    (("text", {1: None}), {}, TypeError, "tokenizers: every name must be a non-empty str"),
    (("text", "gpt2"), {}, TypeError, "tokenizers must be a dict name -> tokenizer"),
    (("a\ud800b", None), {}, ValueError, "text: character 2 is U\\+D800, a lone surrogate"),
    (("text", None), {"size": 0}, ValueError, "size must be between"),
    (("text", None), {"selected": ("nope", 0)}, ValueError, "selected: the tokenizer name must be one of"),
    (("text", None), {"selected": ("bpe", 99)}, ValueError, "selected: the token index must be an int from 0"),
    (("text", None), {"selected": "bpe"}, TypeError, "selected must be"),
])
def test_bad_arguments_name_themselves(args, kwargs, exc, message):
    text, toks = args
    if toks is None:
        toks = {"bpe": train_bpe("low lower text", 3)}
    with pytest.raises(exc, match=message):
        tokenizers_html(text, toks, **kwargs)


def test_an_encoding_without_offsets_is_named(trained):
    class NoOffsets(type(trained["wordpiece"])):
        def encode(self, text, step=None, **options):
            return SimpleNamespace(ids=[], tokens=[])

    tok = trained["wordpiece"]
    odd = NoOffsets.__new__(NoOffsets)
    odd.__dict__.update(tok.__dict__)
    with pytest.raises(TypeError, match=r"tokenizers\['odd'\]: its encoding \(SimpleNamespace\) has no character offsets"):
        tokenizers_html("text", {"wp": tok, "odd": odd})


def test_a_list_is_named_by_describe(real, trained):
    cmp = compare_tokenizers("hi", [real["gpt2"], real["cl100k_base"], trained["wordpiece"]])
    assert [r.name for r in cmp.rows] == ["BPE (tiktoken)", "BPE (tiktoken) (2)", "WordPiece (score = count(ab) / (count(a…"]


def test_a_long_text_is_counted_whole_and_drawn_in_part(real):
    text = corpora.python_docs_text()[: MAX_COMPARE_CHARS * 2]
    out = tokenizers_html(text, {"gpt2": real["gpt2"]})
    count = len(real["gpt2"].encode(text).ids)
    drawn = out.count('class="bpe-token')
    assert f'data-tokens="{count}"' in out and drawn < count
    assert f"… {count - drawn:,} more tokens (counted, not drawn)" in out
    assert f"… {len(text) - MAX_COMPARE_CHARS:,} more characters" in out


def test_language_table_numbers(real, trained):
    toks = {"gpt2": real["gpt2"], "o200k_base": real["o200k_base"], "unigram": trained["unigram sp"]}
    df = language_table(toks)
    assert list(df.index) == list(LANGUAGES)
    for lang, text in LANGUAGES.items():
        assert df.loc[lang, ("text", "characters")] == len(text)
        for name, tok in toks.items():
            count = len(tok.encode(text).ids)
            english = len(tok.encode(LANGUAGES["English"]).ids)
            assert df.loc[lang, (name, "tokens")] == count
            assert df.loc[lang, (name, "vs English")] == pytest.approx(count / english)
    # GPT-4o's vocabulary spends far fewer tokens on Hindi than GPT-2's (the point of the table)
    assert df.loc["Hindi", ("o200k_base", "vs English")] < df.loc["Hindi", ("gpt2", "vs English")] / 2
    html = language_table_html(toks, ["English", "Hindi"])
    hindi = len(real["gpt2"].encode(LANGUAGES["Hindi"]).ids)
    assert f"{hindi:,}" in html and "1.00×" in html and html.count("<tr>") == 3
    only = language_table(toks, ["German"])  # English is the yardstick even when not listed
    assert only.loc["German", ("gpt2", "vs English")] == pytest.approx(df.loc["German", ("gpt2", "vs English")])
    with pytest.raises(ValueError, match=r"languages: \['Klingon'\] not among"):
        language_table(toks, ["Klingon"])
    with pytest.raises(TypeError, match="languages must be a list"):
        language_table(toks, "German")


# -- the explorer --------------------------------------------------------------------------------

@pytest.fixture()
def explorer(real, trained):
    return SideBySideExplorer({"gpt2": real["gpt2"], "o200k_base": real["o200k_base"],
                               "unigram": trained["unigram sp"]})


def test_explorer_starts_with_the_english_sample(explorer, real):
    assert explorer.text == LANGUAGES["English"] and explorer.controls["sample"].value == "English"
    row = explorer.comparison.row("gpt2")
    assert row.count == len(real["gpt2"].encode(LANGUAGES["English"]).ids)
    assert explorer.comparison_view == comparison_html(explorer.comparison, selected=("gpt2", 0))
    assert "Token 1" in explorer.why_view
    static = explorer._repr_mimebundle_()["text/html"]
    assert "bpe-compare-row" in static and "bpe-why" in static


def test_typing_updates_the_view(explorer, real):
    box = explorer.controls["text"]
    box.value = "Tokenizers cut 東京 differently."  # no event loop in a test: at once
    assert explorer.text == box.value and explorer.controls["sample"].value == ""
    assert explorer.comparison.row("o200k_base").encoding.ids == real["o200k_base"].encode(box.value).ids
    assert "東京" in explorer.comparison_view
    explorer.controls["sample"].value = "Korean"
    assert explorer.text == LANGUAGES["Korean"] == explorer.controls["text"].value


def test_choosing_a_token_explains_it(explorer):
    explorer.text = "Hello world"
    explorer.tokenizer = "o200k_base"
    explorer.token = 1
    assert explorer.controls["token"].index == 1
    assert explorer.controls["token"].options[1] == "2: ␣world (id 2375)"
    assert "Token 2" in explorer.why_view
    assert rows_of(explorer.comparison_view)["o200k_base"].count("bpe-new") == 1
    explorer.tokenizer = "unigram"  # a new row starts at its first token
    assert explorer.token == 0 and "Token 1" in explorer.why_view
    with pytest.raises(Exception, match="token must be between"):
        explorer.token = 999


@pytest.mark.parametrize("bad, message", [
    ("bell\x07", "control character, U+0007 at character 5"),
    ("half \ud83d pair", "lone surrogate"),
    ("x" * (MAX_TEXT_CHARS + 1), f"up to {MAX_TEXT_CHARS:,}"),
    ("   \n", "Type or paste a text"),
])
def test_bad_text_shows_a_message_then_recovers(explorer, bad, message):
    explorer.controls["text"].value = bad
    assert explorer.error is not None and message in explorer.error
    assert "bpe-error" in explorer.view_html and "Traceback" not in explorer.view_html
    assert explorer.comparison is None and explorer.comparison_view == ""
    explorer.controls["text"].value = "fine again"
    assert explorer.error is None and explorer.comparison.text == "fine again"


def run_in_own_loop(coroutine_function):
    """``asyncio.run`` in a thread of its own: in a whole test run, Playwright's browser tests
    leave an event loop marked running in the main thread, where ``asyncio.run`` refuses."""
    out = []
    worker = threading.Thread(target=lambda: out.append(asyncio.run(coroutine_function())))
    worker.start()
    worker.join()
    return out[0]


def test_typing_is_debounced(monkeypatch):
    from bpe_viz.widgets import side_by_side

    monkeypatch.setattr(side_by_side, "from_the_page", lambda: True)  # keys typed in the page

    async def typing():
        got = []
        d = Debouncer(got.append)
        d.DELAY = 0.05
        for partial in ("l", "lo", "low"):
            d.push(partial)
            await asyncio.sleep(0.01)
        assert got == []
        await asyncio.sleep(0.1)
        return got

    assert run_in_own_loop(typing) == ["low"]


def test_code_in_a_cell_is_not_debounced_even_with_a_loop_running():
    async def from_code():
        got = []
        Debouncer(got.append).push("low")
        return got

    assert run_in_own_loop(from_code) == ["low"]


def test_explorer_is_exported_lazily():
    import bpe_viz
    from bpe_viz import widgets

    assert bpe_viz.SideBySideExplorer is widgets.SideBySideExplorer is SideBySideExplorer
    assert "SideBySideExplorer" in bpe_viz.__all__ and "SideBySideExplorer" in widgets.__all__
