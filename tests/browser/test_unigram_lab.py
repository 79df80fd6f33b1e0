"""The UnigramExplorer in JupyterLab, in Debian's Chromium, used the way a student would: the
keyboard moves the round, a typed word shows its lattice, bad input shows a readable message.

What the page should show is computed here from the engine (``train_unigram``, ``encode_word``,
the round's ``removed``), never copied from the page. (Every notebook, 07 included, is also run
by ``test_lab.py`` and ``test_voila.py``.)
"""

from __future__ import annotations

import pytest

from browser_support import SKIP_REASON

if not SKIP_REASON:  # else conftest.py marks every test here skipped, with the reason
    from playwright.sync_api import expect

import browser_support as bs  # noqa: E402
from bpe_viz import encode_word, train_unigram  # noqa: E402
from bpe_viz.view import lattice_paths  # noqa: E402

SCRATCH = "scratch/unigram.ipynb"
TOY = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
SEEDS = ["h", "u", "g", "hu", "ug", "p", "pu", "n", "un", "b", "bu", "s", "hug", "gs", "ugs"]
CELLS = {
    "imports": "from bpe_viz.widgets import UnigramExplorer",
    "explorer": f"uni = UnigramExplorer({TOY!r}, vocab_size=12, initial_vocab={SEEDS!r}, word='pug')\nuni",
}


@pytest.fixture(scope="module")
def explorer(lab, lab_app):
    """The scratch notebook, run once; yields (page, the explorer's output area)."""
    with bs.run_scratch_notebook(lab_app, lab, SCRATCH, CELLS, shown=".bpe-removal") as run:
        yield run.page, run.outputs["explorer"]


def toy_trace():
    return train_unigram(TOY, vocab_size=12, initial_vocab=SEEDS)


def check_round(out, trace, k: int):
    """The page shows round k as the engine has it: header, removed rows, tie flags, the cut."""
    last = len(trace) - 1
    expect(out.locator(".bpe-header .bpe-step")).to_have_text(f"Round {k} of {last}")
    snap = trace[k]
    rows = out.locator(".bpe-removal-table tr.bpe-removed-row")
    expect(rows).to_have_count(len([r for r in snap.removed if r.loss is not None]))
    if k:
        removed = [r.piece for r in snap.removed]
        assert [t.strip() for t in rows.locator(".bpe-token").all_inner_texts()] == removed
        n_tied = sum(1 for r in snap.removed if r.tied) + len(snap.kept_at_cut)
        expect(out.locator(".bpe-removal-table tr.bpe-tied")).to_have_count(n_tied)
        expect(out.locator(".bpe-removal-table tr.bpe-cut-line")).to_have_count(1)
    expect(out.locator(".bpe-lattice-title")).to_contain_text(f"at round {k}:")


def test_keyboard_moves_the_round(explorer):
    page, out = explorer
    trace = toy_trace()
    handle = bs.control(out, "slider", "round").locator(".noUi-handle")
    handle.focus()
    page.keyboard.press("Home")
    check_round(out, trace, 0)
    for k in (1, 2):
        page.keyboard.press("ArrowRight")
        check_round(out, trace, k)
    page.keyboard.press("End")
    check_round(out, trace, len(trace) - 1)
    page.keyboard.press("Home")
    check_round(out, trace, 0)


def test_typed_word_shows_its_lattice(explorer):
    """unhug at round 0: the course's Viterbi example; the most probable cuts in order, the one
    Viterbi keeps highlighted; pug: the tie flagged."""
    page, out = explorer
    trace = toy_trace()
    bs.control(out, "slider", "round").locator(".noUi-handle").focus()
    page.keyboard.press("Home")
    box = bs.control(out, "text", "word").locator("input")
    for word in ("unhug", "pug"):
        box.click()
        box.press("Control+a")
        page.keyboard.type(word, delay=20)
        box.press("Enter")
        lat = lattice_paths(trace[0], word, max_paths=10)
        expect(out.locator(".bpe-lattice-title")).to_contain_text(f"“{word}” at round 0: {lat.total} ways")
        paths = out.locator("tr.bpe-lattice-path")
        expect(paths).to_have_count(len(lat.paths))
        shown = [[t.strip() for t in paths.nth(i).locator(".bpe-token").all_inner_texts()] for i in range(len(lat.paths))]
        assert shown == [list(p.pieces) for p in lat.paths]
        viterbi = out.locator("tr.bpe-viterbi .bpe-token")
        assert [t.strip() for t in viterbi.all_inner_texts()] == list(encode_word(word, trace, 0).final)
        expect(out.locator("tr.bpe-lattice-path.bpe-tied")).to_have_count(sum(p.tied for p in lat.paths))
    expect(out.locator(".bpe-lattice-final .bpe-tie")).to_have_text("tie!")  # pug: p ug or pu g


def test_bad_input_then_fixed(explorer):
    """A vocabulary size that is not a number, then one too large for SentencePiece: a readable
    message in place of the view, the round slider off; a good value brings the view back."""
    page, out = explorer
    box = bs.control(out, "text", "vocab size").locator("input")
    err = out.locator(".bpe-error").first
    slider = bs.control(out, "slider", "round")

    def type_size(value):
        box.click()
        box.press("Control+a")
        page.keyboard.type(value, delay=20)
        box.press("Enter")

    type_size("abc")
    expect(err).to_be_visible()
    expect(err).to_contain_text("whole number")
    expect(err).not_to_contain_text("Traceback")
    expect(out.locator(".bpe-removal")).to_be_hidden()
    expect(slider.locator(".noUi-target")).to_have_attribute("disabled", "true")
    type_size("12")
    expect(err).to_be_hidden()
    expect(out.locator(".bpe-header")).to_contain_text("Hugging Face course's code")

    flavour = bs.control(out, "dropdown", "flavour").locator("select")
    label = [o for o in flavour.locator("option").all_inner_texts() if o.startswith("SentencePiece")]
    flavour.select_option(label=label[0])
    expect(out.locator(".bpe-header")).to_contain_text("sentencepiece 0.2.3")
    type_size("200")
    expect(err).to_contain_text("too high for this corpus")
    type_size("12")
    expect(err).to_be_hidden()
    sp = train_unigram(TOY, vocab_size=12, flavour="sentencepiece")
    expect(out.locator(".bpe-header .bpe-step")).to_contain_text(f"of {len(sp) - 1}")
