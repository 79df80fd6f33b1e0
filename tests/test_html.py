"""bpe_viz.view (the kit and the merge views): HTML strings that are safe, deterministic and say what the engine says.

Golden values come from Sennrich, Haddow & Birch (2016), Algorithm 1's toy dictionary
(low×5, lower×2, newest×6, widest×3): merges (e, s) 9, (es, t) 9, (est, </w>) 9, (l, o) 7 ...,
with (e, s), (s, t) and (t, </w>) all tied at 9 before the first merge.
"""

from __future__ import annotations

import html
import re

import pytest

from bpe_viz import encode, encode_word, train_bpe, train_wordpiece
from bpe_viz.view import (
    PALETTE,
    error_html,
    merge_html,
    pairs_table_html,
    segmentation_html,
    segments_html,
    snapshot_html,
    tied_pairs,
    token_color,
    token_html,
    vocab_table_html,
    walkthrough_html,
    words_table_html,
)

SENNRICH = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


@pytest.fixture(scope="module")
def toy():
    return train_bpe(SENNRICH, 10)


def text_of(fragment: str) -> str:
    """What a reader sees: tags removed, entities decoded, spaces collapsed."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", fragment))).strip()


def chips(fragment: str) -> list[tuple[str, str, str]]:
    """(class, style, visible text) of every token chip."""
    out = []
    for m in re.finditer(r'<span class="(bpe-token[^"]*)" style="([^"]*)" title="[^"]*">(.*?)</span>(?=<|$)', fragment, re.S):
        out.append((m.group(1), m.group(2), m.group(3)))
    return out


def rows_of(fragment: str, cls: str) -> list[tuple[str, list[str]]]:
    """(row class, cell HTML list) of the body rows whose class starts with ``cls``."""
    out = []
    for m in re.finditer(r'<tr class="(' + cls + r'[^"]*)"[^>]*>(.*?)</tr>', fragment, re.S):
        out.append((m.group(1), re.findall(r"<td[^>]*>(.*?)</td>", m.group(2), re.S)))
    return out


def chip_texts(fragment: str) -> list[str]:
    return [text_of(t) for _, _, t in chips(fragment)]


# -- escaping ---------------------------------------------------------------------------------


def test_script_typed_as_corpus_text_renders_as_text():
    evil = '<script>alert(1)</script> <b>bold</b> "quoted" <script>alert(1)</script> it\'s'
    trace = train_bpe(evil, 20, min_frequency=1)
    outputs = [
        snapshot_html(trace[k]) for k in (0, 3, len(trace) - 1)
    ] + [
        segments_html(encode(evil, trace)),
        segmentation_html(trace[5]),
        words_table_html(trace[5]),
        pairs_table_html(trace[5]),
        vocab_table_html(trace[5], max_rows=None),
        walkthrough_html(encode_word("<script>alert(1)</script>", trace), trace=trace),
        error_html(evil),
        merge_html(trace.merges[0]),
    ]
    for out in outputs:
        assert "<script" not in out.lower()
        assert "<b>" not in out
        # every attribute value is quoted and contains no raw quote or angle bracket
        for value in re.findall(r'="([^"]*)"', out):
            assert "<" not in value and ">" not in value
    assert "&lt;script&gt;" in snapshot_html(trace[0])
    assert "<script>alert(1)</script>" in text_of(words_table_html(trace[0], max_rows=None))


def test_quotes_in_tokens_cannot_break_out_of_attributes():
    out = token_html('" onmouseover="alert(1)')
    assert 'onmouseover="alert' not in out
    assert "&quot; onmouseover=&quot;alert(1)" in out


def test_error_html_is_readable_and_escaped():
    out = error_html(ValueError("num_merges must be >= 0, got -3 <oops>"))
    assert out.startswith('<div class="bpe-error"')
    assert "num_merges must be &gt;= 0, got -3 &lt;oops&gt;" in out
    assert "Traceback" not in out


# -- colors, boundaries, markers --------------------------------------------------------------


def test_token_color_is_stable_and_from_the_palette():
    assert token_color("est</w>") == token_color("est</w>")
    assert all(token_color(t) in PALETTE for t in ["a", "b", "es", "est</w>", "##ing", "한", "Ġ"])
    # not one color for everything: a handful of letters use most of the palette
    assert len({token_color(c) for c in "abcdefghijklmnopqrstuvwxyz"}) >= 6
    with pytest.raises(TypeError):
        token_color(3)


def test_a_token_keeps_its_color_across_steps(toy):
    # "est</w>" is made at step 3 and never merged again in "widest"; "low" from step 5 on
    seen: dict[str, set] = {}
    for k in range(len(toy)):
        for cls, style, text in chips(segmentation_html(toy[k])):
            token = text_of(text)
            bg = re.search(r"background:(#[0-9A-Fa-f]{6})", style).group(1)
            seen.setdefault(token, set()).add(bg)
    assert seen["est</w>"] == {token_color("est</w>")}
    assert seen["low"] == {token_color("low")}
    assert all(len(colors) == 1 for colors in seen.values())


def test_every_token_has_a_visible_border(toy):
    out = segments_html(encode("lowest newer loki", toy))
    styles = [style for _, style, _ in chips(out)]
    assert styles
    assert all(re.search(r"border:\d+px (solid|dashed) #", s) for s in styles)


def test_end_of_word_marker_is_dimmed_not_hidden(toy):
    out = segmentation_html(toy[0], ["low"])
    assert chip_texts(out) == ["l", "o", "w", "</w>"]
    assert re.search(r'<span class="bpe-marker" style="[^"]*opacity:0\.\d+[^"]*">&lt;/w&gt;</span>', out)
    glued = segmentation_html(toy[3], ["widest"])
    assert "est</w>" in chip_texts(glued)
    assert '">est<span class="bpe-marker"' in glued


@pytest.mark.parametrize(
    "trace_factory, word, marker",
    [
        (lambda: train_bpe("low low lower", 2, preset="slp3"), "low", "_"),
        (lambda: train_wordpiece({"hug": 10, "pug": 5, "hugs": 5}, 2), "hugs", "##"),
    ],
)
def test_other_markers_are_dimmed(trace_factory, word, marker):
    trace = trace_factory()
    out = segmentation_html(trace[0], [word])
    assert f'<span class="bpe-marker"' in out
    assert f">{html.escape(marker)}</span>" in out


def test_byte_tokens_show_what_their_bytes_spell():
    trace = train_bpe("café café naïve", 3, byte_level=True, end_of_word=None)
    out = segmentation_html(trace[0], ["café"])
    # "é" is two UTF-8 bytes, GPT-2 symbols "Ã" and "©": each alone is half a character, so
    # each is drawn as its byte value (dimmed), with the GPT-2 spelling and bytes on hover
    assert chip_texts(out)[-2:] == ["<c3>", "<a9>"]
    assert out.count('class="bpe-marker"') == 2
    assert "bytes: c3 (GPT-2 spells them Ã)" in html.unescape(out)
    # a token whose bytes are whole characters shows them; a space is a visible mark
    gpt = train_bpe("the cat the hat the end", 3, preset="cs336")
    enc = encode("the é\n", gpt)
    assert enc.tokens == ["the", "Ġ", "Ã", "©", "Ċ"]
    out = segments_html(enc)
    assert chip_texts(out) == ["the", "\u2423", "<c3>", "<a9>", "\u21b5"]
    assert "Ġ" not in re.sub(r'title="[^"]*"', "", out)  # GPT-2's spelling only on hover


def test_unknown_characters_stand_out(toy):
    enc = encode("loki", toy)
    assert enc.unknown == [False, True, False, False]
    out = segments_html(enc)
    unk = [c for c in chips(out) if "bpe-unk" in c[0]]
    assert len(unk) == 1
    cls, style, text = unk[0]
    assert "dashed" in style
    assert text_of(text) == "kunk"  # the character itself, plus an "unk" label
    assert 'class="bpe-unk-label"' in out
    assert "unknown character" in out


def test_hover_title_has_token_id_and_merge(toy):
    out = segments_html(encode("lowest", toy))
    titles = [html.unescape(t) for t in re.findall(r'title="([^"]*)"', out)]
    low_id = toy.token_to_id("low")
    assert f"low\nid {low_id}\nmade by merge 5: (lo, w)" in titles
    assert any(t.startswith("est</w>\nid ") and "made by merge 3: (est, </w>)" in t for t in titles)


def test_segments_html_takes_symbols_and_encodings(toy):
    assert chip_texts(segments_html(("lo", "w", "</w>"), toy)) == ["lo", "w", "</w>"]
    assert chip_texts(segments_html(encode("lowest", toy))) == ["low", "est</w>"]
    assert chip_texts(segments_html(encode("lowest", toy, 3))) == ["l", "o", "w", "est</w>"]
    # the view never encodes: text gets a TypeError that says how to encode it first
    with pytest.raises(TypeError, match=r"segments_html\(encode\(text, trace\)\)"):
        segments_html("lowest", toy)
    with pytest.raises(TypeError):
        segments_html(42)


def test_segmentation_html_follows_the_engine(toy):
    for k in (0, 3, 7, 10):
        snap = toy[k]
        out = segmentation_html(snap, ["newest", "widest"])
        assert chip_texts(out) == [*snap.segmentation["newest"], *snap.segmentation["widest"]]
    # a word outside the corpus is encoded with the merges so far
    assert "not in the corpus" in segmentation_html(toy[10], ["lowest"])
    assert chip_texts(segmentation_html(toy[10], ["lowest"])) == ["low", "est</w>"]


def test_size_scales_everything(toy):
    assert "font-size:14px" in words_table_html(toy[2])
    assert "font-size:28px" in words_table_html(toy[2], size=2)
    assert "font-size:21px" in segments_html(encode("lowest", toy), size=1.5)
    with pytest.raises(ValueError):
        pairs_table_html(toy[2], size=0)
    with pytest.raises(TypeError):
        pairs_table_html(toy[2], size="big")


# -- tables -----------------------------------------------------------------------------------


def test_words_table_shows_counts_and_segmentation(toy):
    out = words_table_html(toy[3])
    rows = rows_of(out, "bpe-word-row")
    assert len(rows) == 4
    assert [text_of(cells[0]) for _, cells in rows] == ["low", "lower", "newest", "widest"]
    newest = rows[2][1]
    assert text_of(newest[1]) == "6"
    assert chip_texts(newest[2]) == ["n", "e", "w", "est</w>"]
    assert text_of(newest[3]) == "4"
    # words containing the token just made are flagged
    assert out.count("bpe-changed") == 2


def test_large_tables_say_how_many_more(toy):
    words = words_table_html(toy[3], max_rows=2)
    assert "… and 2 more" in text_of(words)
    assert 'class="bpe-more"' in words
    # truncated: most frequent first (newest 6, low 5)
    assert [text_of(cells[0]) for _, cells in rows_of(words, "bpe-word-row")] == ["newest", "low"]
    pairs = pairs_table_html(toy[0], max_rows=3)
    assert f"… and {len(toy[0].ranked_pairs) - 3} more" in text_of(pairs)
    vocab = vocab_table_html(toy[3], max_rows=5)
    assert f"… and {len(toy[3].vocab) - 5} more" in text_of(vocab)
    assert "more" not in text_of(words_table_html(toy[3], max_rows=None)).split("segmentation")[-1]
    with pytest.raises(ValueError):
        words_table_html(toy[3], max_rows=0)


def test_pairs_table_marks_next_merge_and_ties(toy):
    out = pairs_table_html(toy[0], max_rows=6)
    rows = rows_of(out, "bpe-pair-row")
    assert [text_of(cells[1]) for _, cells in rows[:3]] == ["(e, s)", "(s, t)", "(t, </w>)"]
    assert "bpe-chosen" in rows[0][0] and "next merge" in text_of(rows[0][1][-1])
    assert all("bpe-tied" in cls and text_of(cells[-1]).endswith("tie") for cls, cells in rows[:3])
    assert not any("bpe-tied" in cls or "tie" in text_of(cells[-1]) for cls, cells in rows[3:])
    assert sum("bpe-chosen" in cls for cls, _ in rows) == 1
    # counts in ranked order, as the engine ranks them
    counts = [int(text_of(cells[2])) for _, cells in rows]
    assert counts == [c for _, c in toy[0].ranked_pairs[:6]]


def test_pairs_table_without_a_tie(toy):
    out = pairs_table_html(toy[2], max_rows=4)  # (est, </w>) 9 alone at the top
    assert "bpe-tied" not in out
    assert "bpe-chosen" in out


def test_pairs_table_at_the_last_step_says_why_training_stopped(toy):
    out = pairs_table_html(toy[len(toy) - 1])
    assert "bpe-chosen" not in out
    assert "the merge budget (num_merges) was reached" in text_of(out)


def test_wordpiece_pairs_table_shows_scores():
    trace = train_wordpiece({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 3)
    out = pairs_table_html(trace[0], max_rows=3)
    assert "score" in out
    first = trace[0].ranked_pairs[0][0]
    s = trace[0].scores()[first]
    assert f'title="{s.numerator}/{s.denominator}"' in out
    assert "bpe-chosen" in out


def test_vocab_table_ids_steps_and_merged_away(toy):
    snap = toy[3]
    out = vocab_table_html(snap, max_rows=None)
    rows = rows_of(out, "bpe-vocab-row")
    assert len(rows) == len(snap.vocab)
    for (cls, row), entry in zip(rows, snap.vocab):
        cells = [text_of(c) for c in row]
        assert cells[0] == str(toy.token_to_id(entry.token, made_at=entry.made_at))
        assert cells[1] == entry.token
        assert cells[2] == ("initial" if entry.made_at == 0 else f"merge {entry.made_at}")
        assert cells[3] == str(entry.count)
        assert ("merged away" in cells[4]) == (not entry.occurs)
        assert ("bpe-merged-away" in cls) == (not entry.occurs)
    # "s" and "t" only occur inside "est</w>" now; "es" and "est" are gone too
    gone = {e.token for e in snap.vocab if not e.occurs}
    assert {"s", "t", "es", "est"} <= gone
    newest = vocab_table_html(snap, max_rows=1, order="newest")
    assert "est&lt;/w&gt;" in newest and "just made" in newest


# -- the merge, snapshot, walkthrough ---------------------------------------------------------


def test_merge_html_says_the_merge_and_the_tie(toy):
    out = merge_html(toy.merges[1])
    assert text_of(out).startswith("merge 2: (es, t) → est, count 9")
    assert 'class="bpe-tie"' in out and "tie!" in text_of(out)
    assert "(t, </w>)" in text_of(out)  # the pair it tied with
    no_tie = merge_html(toy.merges[2])
    assert text_of(no_tie) == "merge 3: (est, </w>) → est</w>, count 9"
    assert "step 0" in text_of(merge_html(None))


def test_tied_pairs_agree_with_the_engine():
    text = " ".join(["low lower newest widest snake_case a_b lowest newer"] * 3) + " x_y x_y"
    for preset in ("sennrich2016", "subword-nmt", "slp3", "hf-course"):
        mine = train_bpe(text, 25, preset=preset, min_frequency=1)
        engine = train_bpe(text, 25, preset=preset, min_frequency=1)
        assert [tied_pairs(m) for m in mine.merges] == [m.tied for m in engine.merges], preset


def test_wordpiece_merge_shows_the_score():
    trace = train_wordpiece({"hug": 10, "pug": 5, "hugs": 5}, 1)
    assert "score 1/20" in text_of(merge_html(trace.merges[0]))


def test_snapshot_repr_html_uses_render(toy):
    out = toy[2]._repr_html_()
    assert out == snapshot_html(toy[2])
    assert "Step 2 of 10" in text_of(out)
    assert "merge 2: (es, t) → est" in text_of(out)
    for title in ("Words at step 2", "Pairs at step 2", "Vocabulary at step 2"):
        assert title in out
    assert "training stopped here" in snapshot_html(toy[10])


def test_walkthrough_html_lists_candidates_and_ranks(toy):
    w = encode_word("lowest", toy)
    out = walkthrough_html(w, trace=toy)
    items = re.findall(r'<li class="bpe-iteration".*?</li>', out, re.S)
    assert len(items) == len(w.steps) == 5
    first = text_of(items[0])
    assert "(e, s) rank 1" in first and "(l, o) rank 4" in first
    assert "merge (e, s) rank 1" in first
    assert 'class="bpe-candidate bpe-chosen"' in items[0]
    final = out.split('class="bpe-walk-final"')[1].split('class="bpe-walk-trees"')[0]
    assert chip_texts(final) == ["low", "est</w>"]
    # then how each final token was built, from the trace's merges (merge 9 made low, 3 est</w>)
    trees = out.split('class="bpe-walk-trees"')[1]
    assert "merge 5" in trees and "merge 3" in trees and "merge 9" not in text_of(trees)
    partial = walkthrough_html(w, trace=toy, upto=2)
    assert len(re.findall(r'<li class="bpe-iteration"', partial)) == 2
    assert "iteration 2 of 5" in text_of(partial)


def test_walkthrough_html_wordpiece():
    trace = train_wordpiece({"hug": 10, "pug": 5, "hugs": 5}, 4)
    out = walkthrough_html(encode_word("hugs", trace), trace=trace)
    assert "tried, longest first" in out
    assert "bpe-chosen" in out


# -- determinism ------------------------------------------------------------------------------


def test_output_is_deterministic_and_has_no_ids(toy):
    a = snapshot_html(toy[4]) + segments_html(encode("lowest loki", toy))
    b = snapshot_html(train_bpe(SENNRICH, 10)[4]) + segments_html(encode("lowest loki", toy))
    assert a == b
    assert not re.search(r"\bid=", a)
    assert "0x" not in a
    assert "<style" not in a and "<script" not in a and "http" not in a


@pytest.mark.parametrize("preset,words", [("sentencepiece", "shorter piece"), ("hf-tokenizers", "smallest pair of token ids"),
                                          ("subword-nmt", "greatest pair by code points")])
def test_tie_captions_name_the_rule_of_the_trace(preset, words):
    """The tie badge and the pair table say the rule the trace was trained with."""
    from bpe_viz.view import merge_html, pairs_table_html

    t = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10, preset=preset)
    tied = next(m for m in t.merges if m.tied)
    assert words in merge_html(tied, trace=t)
    assert words in pairs_table_html(t[tied.step - 1])
