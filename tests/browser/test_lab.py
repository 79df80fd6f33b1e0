"""JupyterLab in Debian's Chromium: every notebook runs clean, and the explorers work the way a
student uses them (keyboard, mouse, Play, typing, dropdowns, bad input).

What the page should show is computed here from the engine (``train_bpe`` / ``encode``), never
copied from the page. The widget tests share one scratch notebook (written with nbformat into a
tmp copy of the repo), run once per module; each test drives its own explorer.
"""

from __future__ import annotations

import time

import pytest

from browser_support import SKIP_REASON

if not SKIP_REASON:  # else conftest.py marks every test here skipped, with the reason
    from playwright.sync_api import expect

import browser_support as bs  # noqa: E402
import jupyter_servers as servers  # noqa: E402
from bpe_viz import corpora, encode, train_bpe, train_wordpiece  # noqa: E402
from bpe_viz import encode_word  # noqa: E402

NOTEBOOK_FILES = bs.NOTEBOOK_FILES

SCRATCH = "scratch/widgets.ipynb"
TEXT = "low lower newest widest lowest newer wider"
CELLS = {
    "imports": "from bpe_viz.widgets import MergeExplorer, EncoderExplorer, CompareExplorer\n"
               "from bpe_viz import corpora, train_bpe",
    "merge": 'merge_ex = MergeExplorer(corpora.load("sennrich2016"), 10, preset="sennrich2016")\nmerge_ex',
    "encoder": 'enc_ex = EncoderExplorer(train_bpe(corpora.load("sennrich2016"), 10), "lowest")\nenc_ex',
    "text": f'text_ex = MergeExplorer("{TEXT}", 5)\ntext_ex',
    "preset": 'preset_ex = MergeExplorer("sennrich2016", 10)\npreset_ex',
    "compare": 'cmp_ex = CompareExplorer("hf-course", 6)\ncmp_ex',
}


# -- every notebook: Run All Cells, no error output -----------------------------------------------


@pytest.mark.skipif(not NOTEBOOK_FILES, reason="no notebooks in notebooks/ yet")
@pytest.mark.parametrize("nb_path", NOTEBOOK_FILES, ids=[bs.notebook_id(p) for p in NOTEBOOK_FILES])
def test_notebook_runs_clean(nb_path, lab, lab_app):
    """Run → Run All Cells: every code cell ran, none shows an error output or a traceback, every
    widget displayed; the kernel is shut down afterwards. Screenshot: test-artifacts/browser/."""
    rel = bs.notebook_rel(nb_path)
    copy = lab.root / rel
    assert copy.exists(), f"{rel} appeared after the session started: run the suite again"
    t0 = time.monotonic()
    ok = False
    try:
        panel = lab_app.open(rel)
        page = lab_app.page
        # the proofs' sources are hidden (collapsed): shown again, every cell's prompt can be read
        bs.menu(page, "View", "Expand All Code")
        started = time.monotonic()
        bs.run_all(page)
        bs.wait_run_done(panel, timeout=150_000)
        bs.wait_widgets_loaded(panel)
        elapsed = time.monotonic() - started
        skip = servers.tagged_cells(copy, "raises-exception")
        problems = bs.cell_problems(panel, skip=skip)
        unrun = [i for i in bs.unrun_code_cells(panel) if i not in skip]
        warnings = bs.stderr_warnings(panel)
        page.screenshot(path=str(bs.ARTIFACTS / f"lab-{nb_path.stem}.png"))
        (bs.ARTIFACTS / f"lab-{nb_path.stem}.txt").write_text(
            f"open until kernel idle: {started - t0:.1f} s\nrun all: {elapsed:.1f} s\nproblems: {problems}\n"
            f"not run: {unrun}\nstderr that is not an error: {warnings}\n")
        assert not problems, f"{rel}: cells show errors:\n" + "\n\n".join(problems)
        assert not unrun, f"{rel}: code cells not run (cell indexes {unrun})"
        ok = True
    finally:
        if not ok:
            lab_app.drop(rel)
        lab_app.close(rel)
    assert not [s for s in servers.api(lab.base, "/api/sessions") if s.get("path") == rel], "kernel still running"


# -- the widgets, as a student would use them -----------------------------------------------------


@pytest.fixture(scope="module")
def widgets_nb(lab, lab_app):
    """The scratch notebook (written with nbformat into the repo copy), opened and run once in the
    module's JupyterLab page (``lab_app``, conftest.py); yields (page, {cell name: output locator})."""
    with bs.run_scratch_notebook(lab_app, lab, SCRATCH, CELLS) as run:
        yield run.page, run.outputs


def sennrich(preset="sennrich2016", n=10):
    return train_bpe(corpora.load("sennrich2016"), n, preset=preset)


def merge_line(merge) -> str:
    """The start of what the explorer shows for a merge: "merge 2: (es, t) → est, count 9"."""
    a, b = merge.pair
    return f"merge {merge.step}: ({a}, {b}) → {merge.token}, count {merge.count:,}"


def eventually(read, expected, what: str, timeout: float = 10.0):
    """Poll ``read()`` until it equals ``expected``; assert with both on timeout."""
    deadline = time.monotonic() + timeout
    got = read()
    while got != expected and time.monotonic() < deadline:
        time.sleep(0.2)
        got = read()
    assert got == expected, f"{what}: expected {expected!r}, the page shows {got!r}"


def check_merge_step(out, trace, k: int, sentence: str | None = None):
    """The explorer in ``out`` shows step ``k`` of ``trace``: header, merge just made (and tie!),
    the sample sentence colored with the first k merges, the new token emphasized."""
    view = out.locator(".bpe-merge").first
    expect(out.locator(".bpe-message").first).to_contain_text(f"Step {k} of {len(trace) - 1}")
    if k == 0:
        expect(view).to_contain_text("step 0: no merge yet")
    else:
        m = trace[k].merge
        expect(view).to_contain_text(merge_line(m))
        if m.tied:
            expect(view.locator(".bpe-tie")).to_have_text("tie!")
        else:
            expect(view.locator(".bpe-tie")).to_have_count(0)
    assert bs.slider_value(bs.control(out, "slider", "step")) == k
    if sentence is not None:
        enc = encode(sentence, trace, num_merges=k)
        seg = out.locator(".bpe-segments")
        made = trace[k].merge.token if k else None
        # (text, unknown?, emphasized as the token just made?) of every chip, read at once
        expected = [(p, u, p == made) for p, u in zip(enc.pieces, enc.unknown)]
        eventually(lambda: bs.tokens(seg, with_new=True), expected, f"sentence at step {k}")


def sentence_of(out) -> str:
    return bs.control(out, "text", "sentence").locator("input").input_value()


def test_slider_keyboard(widgets_nb):
    """Focus the step slider's handle; ArrowRight, End, Home move it; the view follows the engine."""
    page, outs = widgets_nb
    out = outs["merge"]
    trace = sennrich()
    assert (trace[2].merge.pair, trace[2].merge.token) == (("es", "t"), "est")  # the paper's step 2
    sentence = sentence_of(out)
    assert sentence.strip()
    handle = bs.control(out, "slider", "step").locator(".noUi-handle")
    handle.focus()
    page.keyboard.press("Home")
    check_merge_step(out, trace, 0, sentence)
    page.keyboard.press("ArrowRight")
    check_merge_step(out, trace, 1, sentence)
    page.keyboard.press("ArrowRight")
    check_merge_step(out, trace, 2, sentence)
    expect(out.locator(".bpe-merge")).to_contain_text("merge 2: (es, t) → est")
    page.keyboard.press("End")
    check_merge_step(out, trace, len(trace) - 1, sentence)
    page.keyboard.press("ArrowLeft")
    check_merge_step(out, trace, len(trace) - 2, sentence)
    page.keyboard.press("Home")
    check_merge_step(out, trace, 0, sentence)


def test_slider_drag(widgets_nb):
    """Drag the handle with the mouse: to the middle, then all the way right."""
    page, outs = widgets_nb
    out = outs["merge"]
    trace = sennrich()
    last = len(trace) - 1
    slider = bs.control(out, "slider", "step")
    slider.locator(".noUi-handle").focus()
    page.keyboard.press("Home")
    check_merge_step(out, trace, 0)
    bs.drag_handle(page, slider, 0.5)
    page.wait_for_timeout(300)
    k = bs.slider_value(slider)
    assert abs(k - last / 2) <= 1, f"dragged to the middle of 0..{last}, the slider reads {k}"
    check_merge_step(out, trace, k, sentence_of(out))
    bs.drag_handle(page, slider, 1.05)
    page.wait_for_timeout(300)
    assert bs.slider_value(slider) == last
    check_merge_step(out, trace, last, sentence_of(out))


def test_play_advances(widgets_nb):
    """Press Play from step 0: the steps advance by themselves; pause, and the view matches."""
    page, outs = widgets_nb
    out = outs["merge"]
    trace = sennrich()
    slider = bs.control(out, "slider", "step")
    slider.locator(".noUi-handle").focus()
    page.keyboard.press("Home")
    check_merge_step(out, trace, 0)
    play = out.locator(".widget-play button").first
    play.click()
    deadline = time.monotonic() + 10
    while bs.slider_value(slider) < 2 and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    play.click()  # the same button pauses
    page.wait_for_timeout(1200)  # longer than the Play interval: must not move any more
    k = bs.slider_value(slider)
    assert k >= 2, f"Play did not advance the step (slider at {k} after 10 s)"
    page.wait_for_timeout(1000)
    assert bs.slider_value(slider) == k, "the explorer kept playing after pause"
    check_merge_step(out, trace, k, sentence_of(out))


def test_stepper_screenshot(widgets_nb):
    """The README's stepper.png: the MergeExplorer at step 2 of the paper's example, cropped to
    the widget, written to test-artifacts/browser/pictures/ (``make pictures`` copies it to docs/)."""
    page, outs = widgets_nb
    out = outs["merge"]
    trace = sennrich()
    handle = bs.control(out, "slider", "step").locator(".noUi-handle")
    handle.focus()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    check_merge_step(out, trace, 2, sentence_of(out))
    page.mouse.move(0, 0)  # no hover effects
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    widget = out.locator(".widget-vbox").first
    page.set_viewport_size({"width": 1366, "height": 2400})  # the whole widget on screen
    try:
        widget.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        box = widget.bounding_box()
        bs.PICTURES.mkdir(parents=True, exist_ok=True)
        m = 8  # a small white margin around the widget (not above: the code cell's border)
        page.screenshot(path=str(bs.PICTURES / "stepper.png"), animations="disabled",
                        clip={"x": box["x"] - m, "y": box["y"],
                              "width": box["width"] + 2 * m, "height": box["height"] + m})
    finally:
        page.set_viewport_size({"width": 1366, "height": 1000})
    assert (bs.PICTURES / "stepper.png").stat().st_size > 10_000


def test_charts_drawn_in_the_page(widgets_nb):
    """The charts are inline SVG drawn from the step's data (view/merges/svg.py), not PNGs: they stay
    sharp at any size and fit their output."""
    page, outs = widgets_nb
    for name in ("merge", "compare"):
        svg = outs[name].locator("svg").first
        expect(svg).to_be_visible()
        width, room = svg.evaluate("s => [s.getBoundingClientRect().width, s.closest('.jp-OutputArea-output')"
                                   ".getBoundingClientRect().width]")
        assert 100 < width <= room + 1, f"{name}: a {width} px wide chart in a {room} px wide output"


def test_encoder_typing(widgets_nb):
    """Type a word: the walkthrough and the final tokens/ids follow the engine; fewer merges too;
    a word with a space gets a readable message, not a traceback."""
    page, outs = widgets_nb
    out = outs["encoder"]
    trace = sennrich()
    n = len(trace.merges)
    box = bs.control(out, "text", "word").locator("input")
    for word in ("newer", "lowest", "widen"):
        box.click()
        box.press("Control+a")
        page.keyboard.type(word, delay=20)
        walk = encode_word(word, trace, n)
        enc = encode(word, trace, n)
        expect(out.locator(".bpe-walk-title")).to_contain_text(f"Encoding “{word}” with the first {n} merges")
        eventually(lambda: bs.token_texts(out.locator(".bpe-walk-final")), list(walk.final), f"walkthrough of {word}")
        eventually(lambda: bs.token_texts(out.locator(".bpe-segments")), list(enc.pieces), f"tokens of {word}")
        expect(out.locator(".bpe-message").last).to_contain_text(f"[{', '.join(map(str, enc.ids))}]")
        expect(out.locator(".bpe-iteration")).to_have_count(len(walk.steps))
    # fewer merges: the "use merges" slider, with the keyboard
    out_k = bs.control(out, "slider", "use merges")
    out_k.locator(".noUi-handle").focus()
    for _ in range(4):
        page.keyboard.press("ArrowLeft")
    k = n - 4
    eventually(lambda: bs.slider_value(out_k), k, "use merges")
    eventually(lambda: bs.token_texts(out.locator(".bpe-segments")), list(encode("widen", trace, k).pieces),
               f"tokens of widen with {k} merges")
    # bad input: two words
    box.click()
    box.press("Control+a")
    page.keyboard.type("two words", delay=20)
    err = out.locator(".bpe-error")
    expect(err).to_be_visible()
    expect(err).to_contain_text("one word")
    expect(err).not_to_contain_text("Traceback")
    expect(out.locator(".bpe-walkthrough")).to_be_hidden()
    box.press("Control+a")
    page.keyboard.type("lowest", delay=20)
    expect(err).to_be_hidden()
    eventually(lambda: bs.token_texts(out.locator(".bpe-segments")), list(encode("lowest", trace, k).pieces),
               "tokens after fixing the word")


def paste_into(page, textarea, text: str):
    """Replace a textarea's text as a paste would, then leave it (the widget syncs on change)."""
    textarea.click()
    textarea.press("Control+a")
    page.keyboard.press("Delete")
    if text:
        page.keyboard.insert_text(text)
    textarea.press("Tab")


def test_bad_text_shows_readable_message(widgets_nb):
    """Own text: emptied (blank paste) → a readable message in place of the view; two new words
    (every pair once) → another; real text again → the view comes back and matches the engine."""
    page, outs = widgets_nb
    out = outs["text"]
    textarea = out.locator(".widget-textarea textarea")
    expect(textarea).to_have_value(TEXT)
    trace = train_bpe(TEXT, 5)
    expect(out.locator(".bpe-merge")).to_be_visible()

    paste_into(page, textarea, "  \n   ")
    err = out.locator(".bpe-error")
    expect(err).to_be_visible()
    expect(err.locator(".bpe-error-title")).to_have_text("This needs a fix")
    expect(err.locator(".bpe-error-message")).to_contain_text("empty")
    expect(err).not_to_contain_text("Traceback")
    expect(out.locator(".bpe-merge")).to_be_hidden()

    paste_into(page, textarea, "abc xyz")  # every pair once: below min_frequency 2
    expect(err).to_be_visible()
    expect(err).to_contain_text("No merge was learned")
    expect(out.locator(".bpe-merge")).to_be_hidden()

    paste_into(page, textarea, TEXT)
    expect(err).to_be_hidden()
    # a change typed in the page retrains after a short pause (the latest settings win): wait for it
    expect(out.get_by_text("Training again with the new settings…")).to_have_count(0)
    slider = bs.control(out, "slider", "step")
    slider.locator(".noUi-handle").focus()
    page.keyboard.press("End")
    check_merge_step(out, trace, len(trace) - 1, sentence_of(out))


def test_preset_dropdown_retrains(widgets_nb):
    """Change the preset: the trace is trained again (merge list, vocabulary, header change)."""
    page, outs = widgets_nb
    out = outs["preset"]
    slider = bs.control(out, "slider", "step")
    slider.locator(".noUi-handle").focus()
    page.keyboard.press("End")
    before = sennrich("sennrich2016")
    k = len(before) - 1
    check_merge_step(out, before, k, sentence_of(out))
    rows = out.locator(".bpe-vocab-table tr.bpe-vocab-row")

    def vocab_rows():
        return [t.strip() for t in rows.locator(".bpe-token").all_inner_texts()]

    expected_before = [e.token for e in reversed(before[k].vocab)][: rows.count()]
    eventually(vocab_rows, expected_before, "vocabulary, newest first")

    for key, label_start in (("subword-nmt", "subword-nmt:"), ("slp3", "Jurafsky & Martin (SLP3)"),
                             ("sentencepiece", "SentencePiece (Llama, T5)")):
        select = bs.control(out, "dropdown", "preset").locator("select")
        label = [o for o in select.locator("option").all_inner_texts() if o.replace("\xa0", " ").startswith(label_start)]
        assert len(label) == 1, label
        select.select_option(value=label[0].replace("\xa0", " "))
        after = sennrich(key)
        expect(out.locator(".bpe-message").first).to_contain_text(f'preset "{key}"')
        k = min(k, len(after) - 1)
        assert [m.token for m in after.merges] != [m.token for m in before.merges]
        check_merge_step(out, after, bs.slider_value(slider), sentence_of(out))
        expected = [e.token for e in reversed(after[bs.slider_value(slider)].vocab)][: rows.count()]
        eventually(vocab_rows, expected, f"vocabulary after switching to {key}")
        if key == "sentencepiece":
            # the marker in front of each word is drawn, dimmed, like the other markers
            marker = out.locator(".bpe-marker", has_text="\u2581").first
            expect(marker).to_be_visible()
            assert float(marker.evaluate("e => getComputedStyle(e).opacity")) < 1
        before = after


def test_compare_explorer_follows_slider(widgets_nb):
    """BPE and WordPiece side by side: one slider, both merges as their engines say."""
    page, outs = widgets_nb
    out = outs["compare"]
    corpus = corpora.load("hf-course")
    tb = train_bpe(corpus, 6, preset="hf-course")
    tw = train_wordpiece(corpus, 6)
    slider = bs.control(out, "slider", "step")
    slider.locator(".noUi-handle").focus()
    page.keyboard.press("Home")
    for k in (1, 2, 3):
        page.keyboard.press("ArrowRight")
        eventually(lambda: bs.slider_value(slider), k, "compare slider")
        merges = out.locator(".bpe-merge")
        expect(merges).to_have_count(2)
        expect(merges.nth(0)).to_contain_text(merge_line(tb[min(k, len(tb) - 1)].merge))
        expect(merges.nth(1)).to_contain_text(merge_line(tw[min(k, len(tw) - 1)].merge))
        expect(merges.nth(1).locator(".bpe-score")).to_be_visible()
