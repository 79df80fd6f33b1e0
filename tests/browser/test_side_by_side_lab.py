"""The SideBySideExplorer in JupyterLab, in Debian's Chromium, on three real tokenizers (GPT-2,
GPT-4o and Mistral 7B), used the way a learner would: the rows count the tokens, typing replaces
them a moment after the last key, the two dropdowns pick the token whose "why" shows, bad text gets
a readable message in place of the view, and markup typed as text stays text.

What the page should show is computed here from the same tokenizers (``load_tokenizer``,
``explain_token``, ``check_typed_text``), never copied from the page. The kernel loads each
tokenizer once (one scratch notebook for the module, every test drives its explorer and types its
own text first). Notebook 09, which shows this explorer, is run whole by test_lab.py and
test_voila.py.
"""

from __future__ import annotations

import json
import re

import pytest

from browser_support import SKIP_REASON

if not SKIP_REASON:  # else conftest.py marks every test here skipped, with the reason
    from playwright.sync_api import expect

import browser_support as bs  # noqa: E402
from bpe_viz import explain_token  # noqa: E402
from bpe_viz.view import token_label  # noqa: E402
from bpe_viz.widgets.side_by_side import check_typed_text  # noqa: E402
from helpers import real_tokenizer, skip_unless_installed  # noqa: E402

NAMES = ("gpt2", "o200k_base", "mistral-7b")
#: GPT-2 merges "ization"; Mistral spells the llama in four byte-fallback tokens <0xF0> ... <0x99>
TEXT = "Tokenization in 2024 costs 12,345 tokens 🦙."
SCRATCH = "scratch/side_by_side.ipynb"
CELLS = {
    "imports": "from bpe_viz import load_tokenizer\nfrom bpe_viz.widgets import SideBySideExplorer",
    "explorer": f"sbs = SideBySideExplorer({{name: load_tokenizer(name) for name in {list(NAMES)!r}}}, text={TEXT!r})\n"
                "sbs",
}


@pytest.fixture(scope="module")
def explorer(lab, lab_app):
    """The scratch notebook, run once (skipped, naming the package, when a tokenizer's package is
    not installed); yields (page, the explorer's output area)."""
    for name in NAMES:
        skip_unless_installed(name)
    with bs.run_scratch_notebook(lab_app, lab, SCRATCH, CELLS, shown=".bpe-compare", shown_timeout=90_000) as run:
        yield run.page, run.outputs["explorer"]


def expected_rows(text: str) -> list[tuple[str, int, int]]:
    """What compare_rows should read for ``text``: each tokenizer's own count, one chip a token."""
    counts = [len(real_tokenizer(name).encode(text).ids) for name in NAMES]
    return [(name, n, n) for name, n in zip(NAMES, counts)]


_ROWS_ARE_JS = """
([out, expected]) => JSON.stringify([...out.querySelectorAll('.bpe-compare-row')].map(r =>
    [r.dataset.tokenizer, Number(r.dataset.tokens), r.querySelectorAll('.bpe-token').length])) === expected
"""


def wait_rows(out, text: str, timeout: float = 15_000):
    """Wait until the rows are the tokenizers' rows of ``text`` (count and chips); the row headers
    say the same counts."""
    expected = expected_rows(text)
    try:
        out.page.wait_for_function(_ROWS_ARE_JS, arg=[out.element_handle(), _json(expected)], timeout=timeout,
                                   polling=100)
    except Exception:
        raise AssertionError(f"rows for {text!r}: expected (name, tokens, chips) {expected}, the page shows "
                             f"{bs.compare_rows(out)}") from None
    for i, (_name, n, _chips) in enumerate(expected):
        expect(out.locator(".bpe-compare-row").nth(i)).to_contain_text(f"{n:,} tokens")


def _json(rows) -> str:
    return json.dumps([list(r) for r in rows], separators=(",", ":"))


def show_text(page, out, text: str):
    """Type ``text`` into the explorer's box and wait for its rows."""
    bs.type_into(page, out.locator(".widget-textarea textarea"), text, delay=2)
    wait_rows(out, text)


def choose(out, tokenizer: str, index: int):
    """The "why:" dropdown on ``tokenizer``, the "token" dropdown on token ``index`` of its row;
    the token dropdown reads as the row draws the token."""
    bs.control(out, "dropdown", "why:").locator("select").select_option(label=tokenizer)
    tok = real_tokenizer(tokenizer)
    select = bs.control(out, "dropdown", "token").locator("select")
    enc = tok.encode(out.locator(".widget-textarea textarea").input_value())
    expect(select.locator("option")).to_have_count(len(enc.ids))
    select.select_option(index=index)
    label = select.evaluate("s => s.selectedOptions[0].textContent").replace("\xa0", " ")
    assert label == f"{index + 1}: {token_label(tok, enc.tokens[index])} (id {enc.ids[index]})"
    # the chosen chip is drawn emphasized, in its row, and no other
    row = out.locator(f'.bpe-compare-row[data-tokenizer="{tokenizer}"]')
    expect(row.locator(".bpe-token").nth(index)).to_have_class(re.compile(r"\bbpe-new\b"))
    expect(out.locator(".bpe-compare .bpe-new")).to_have_count(1)
    return enc


def test_rows_match_the_tokenizers(explorer):
    """Three rows, in order, each with its tokenizer's count (data, header, one chip a token) and
    the chips reading as the tokens; the text line shows the text."""
    page, out = explorer
    show_text(page, out, TEXT)
    for name, row in zip(NAMES, out.locator(".bpe-compare-row").all()):
        tok = real_tokenizer(name)
        assert bs.token_texts(row) == [token_label(tok, t) for t in tok.encode(TEXT).tokens], name
    expect(out.locator(".bpe-compare-text")).to_contain_text("Tokenization␣in␣2024")


_COUNT_RENDERS_JS = """
(el) => { el._renders = 0; new MutationObserver(() => { el._renders += 1; }).observe(el, {childList: true}); }
"""


def test_typing_updates_rows_after_debounce(explorer):
    """Type a sentence key by key (30 ms apart): the rows follow once typing pauses, drawn once or
    twice, not once per key; the token dropdown follows the new row."""
    page, out = explorer
    show_text(page, out, TEXT)
    view = out.locator(".widget-html-content").filter(has=page.locator(".bpe-compare"))
    view.evaluate(_COUNT_RENDERS_JS)
    typed = "Hello wörld, 1234567 ünïcödé!"
    bs.type_into(page, out.locator(".widget-textarea textarea"), typed, delay=30)
    wait_rows(out, typed)
    page.wait_for_timeout(600)  # longer than the debounce: nothing more may come
    renders = view.evaluate("el => el._renders")
    assert 1 <= renders <= 3, f"{len(typed)} keys drew the comparison {renders} times (the debounce should draw it once)"
    n = len(real_tokenizer(NAMES[0]).encode(typed).ids)
    expect(bs.control(out, "dropdown", "token").locator("option")).to_have_count(n)


def test_why_of_a_chosen_token(explorer):
    """GPT-2's "ization" (token 2): its header, the merges the encoder applied with the ones that
    built it in bold, and its merge tree. Mistral's first byte-fallback token: the byte note."""
    page, out = explorer
    show_text(page, out, TEXT)
    why_box = out.locator(".bpe-why")

    enc = choose(out, "gpt2", 1)
    why = explain_token(real_tokenizer("gpt2"), enc, 1)
    assert why.token == "ization" and why.tree[1] > 0  # a merged token
    expect(why_box.locator(".bpe-why-head")).to_contain_text("Token 2")
    expect(why_box.locator(".bpe-why-head")).to_contain_text(f"id {enc.ids[1]:,}")
    expect(why_box.locator("li.bpe-why-mine")).to_have_count(len(why.steps))
    expect(why_box.locator("li.bpe-why-step")).to_have_count(len(why.walkthrough.steps))
    expect(why_box).to_contain_text("How the token was built")

    mistral = real_tokenizer("mistral-7b")
    j = next(i for i, t in enumerate(mistral.encode(TEXT).tokens) if t.startswith("<0x"))
    enc = choose(out, "mistral-7b", j)
    why = explain_token(mistral, enc, j)
    assert why.kind == "byte"
    spelled = " ".join(f"{b:02X}" for b in why.covers.encode("utf-8"))
    expect(why_box.locator(".bpe-why-head")).to_contain_text(f"Token {j + 1}")
    expect(why_box).to_contain_text(f"“{why.covers}” is not in the vocabulary, so the encoder spells it in its "
                                    f"UTF-8 bytes ({spelled}); this token is the byte {why.raw[0]:02X}.")
    expect(why_box).not_to_contain_text("How the token was built")


def test_bad_text_then_fixed(explorer):
    """A control character (typed as a paste would put it), then an empty box: a readable message
    in place of the view (rows and dropdowns); the text fixed, the view comes back, right."""
    page, out = explorer
    show_text(page, out, TEXT)
    box = out.locator(".widget-textarea textarea")
    err = out.locator(".bpe-error")
    bad = "Tokens \x07 bell"
    with pytest.raises(ValueError) as message:
        check_typed_text(bad)
    bs.type_into(page, box, "Tokens ")
    page.keyboard.insert_text("\x07")
    page.keyboard.type(" bell", delay=10)
    assert box.input_value() == bad
    expect(err).to_be_visible()
    expect(err.locator(".bpe-error-title")).to_have_text("This text can't be compared")
    expect(err.locator(".bpe-error-message")).to_have_text(str(message.value))
    expect(err).not_to_contain_text("Traceback")
    expect(out.locator(".bpe-compare")).to_be_hidden()
    expect(bs.control(out, "dropdown", "token")).to_be_hidden()

    bs.type_into(page, box, "")
    expect(err.locator(".bpe-error-message")).to_contain_text("Type or paste a text to compare")

    show_text(page, out, TEXT)
    expect(err).to_be_hidden()
    expect(out.locator(".bpe-compare")).to_be_visible()
    choose(out, "o200k_base", 1)
    expect(out.locator(".bpe-why-head")).to_contain_text("Token 2")


def test_markup_typed_stays_text(explorer):
    """Markup typed into the box is drawn as text in the text line, the chips and the why: no
    element made from it, no script run (no dialog), and the counts still the tokenizers'."""
    page, out = explorer
    dialogs = []

    def on_dialog(dialog):
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    try:
        markup = '<img src=x onerror=alert(1)> <script>alert(2)</script> <b id="bold">b</b>'
        show_text(page, out, markup)
        line = out.locator(".bpe-compare-text")
        for part in ("<img␣src=x␣onerror=alert(1)>", "<script>alert(2)</script>", '<b␣id="bold">b</b>'):
            expect(line).to_contain_text(part)
        choose(out, "gpt2", 0)
        expect(out.locator(".bpe-why-head")).to_contain_text("Token 1")
        page.wait_for_timeout(500)  # an injected <img> would have failed to load and fired by now
        assert page.locator("img[src='x'], #bold").count() == 0, "an element was made from the typed text"
        assert out.locator("script, img").count() == 0, "a script or an image in the explorer's output"
        assert not dialogs, f"the typed text ran a script: dialogs {dialogs}"
    finally:
        page.remove_listener("dialog", on_dialog)
