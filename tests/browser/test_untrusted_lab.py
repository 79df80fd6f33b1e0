"""Issue 19 item 15 in Chromium: each notebook as a fresh clone or Binder shows it, opened in
JupyterLab **without running it**. It is untrusted (no signature in this server's fresh data
dir), so JupyterLab renders each explorer's stored ``text/html`` fallback through its sanitizer
(which drops ``<svg>`` and ``<style>``, keeping the texts of the dropped tags run together).

Each explorer's fallback must read as it does live: its sections on lines of their own, no
loose text spilled between them, its chips still colored (the inline styles kept), its charts
visible pictures (decoded images of a real size), and lesson 01's first explorer at step 2,
as its text says. What the page should show comes from the stored notebook and the engine.
Screenshots: test-artifacts/browser/untrusted-*.png.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from browser_support import SKIP_REASON

if not SKIP_REASON:  # else conftest.py marks every test here skipped, with the reason
    from playwright.sync_api import expect

import browser_support as bs  # noqa: E402
from bpe_viz import corpora, train_bpe  # noqa: E402

NOTEBOOK_FILES = bs.NOTEBOOK_FILES
FOLDER = "untrusted"  # where the stored notebooks are copied, outputs and all, in the repo copy


def stored_explorers(nb_path) -> list[str]:
    """The stored ``text/html`` fallback of every explorer in the notebook, in order."""
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    found = []
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            data = o.get("data", {})
            html = data.get("text/html", "")
            html = html if isinstance(html, str) else "".join(html)
            if "application/vnd.jupyter.widget-view+json" in data and 'class="bpe-static"' in html:
                found.append(html)
    return found


@pytest.fixture(scope="module")
def stored_copies(lab):
    """The notebooks as committed (stored outputs kept), copied beside the scratch repo's own."""
    folder = lab.root / FOLDER
    folder.mkdir(exist_ok=True)
    for nb in NOTEBOOK_FILES:
        shutil.copy(nb, folder / nb.name)  # (names are unique across the two folders: test_notebooks_meta.py)
    return folder


#: what one explorer's fallback looks like in the page, read in one go
_READ_JS = """
(out) => {
  const st = out.querySelector('.bpe-static');
  const box = e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom, r.width, r.height]; };
  return {
    text: st.innerText,
    loose: [...st.childNodes].filter(n => n.nodeType === 3 && n.textContent.trim()).map(n => n.textContent.trim()),
    blocks: [...st.children].map(e => [e.tagName, e.className, getComputedStyle(e).display, ...box(e)]),
    images: [...st.querySelectorAll('img.bpe-chart')].map(i => [i.alt, i.complete, i.naturalWidth, ...box(i)]),
    svgs: st.querySelectorAll('svg').length,
    colored: [...st.querySelectorAll('.bpe-token')].filter(
        t => !['rgba(0, 0, 0, 0)', 'transparent', 'rgb(255, 255, 255)'].includes(getComputedStyle(t).backgroundColor)).length,
    tokens: st.querySelectorAll('.bpe-token').length,
    titles: [...st.querySelectorAll('.bpe-table-title, .bpe-header, .bpe-merge')].map(e => e.innerText.trim()),
  };
}
"""

_IMAGES_DECODED_JS = """
(panel) => [...panel.querySelectorAll('.bpe-static img')].every(i => i.complete && i.naturalWidth > 0)
"""


def check_reads_well(view: dict, stored: str, where: str):
    """One explorer's fallback, as the page shows it, reads as the live explorer does."""
    assert view["svgs"] == 0, f"{where}: an inline <svg> was stored (the sanitizer drops it)"
    assert not view["loose"], f"{where}: text spilled outside the sections: {view['loose'][:3]}"
    # every section a block of its own, each below the one before (nothing runs into the next)
    shown = [b for b in view["blocks"] if b[6] > 0]
    assert shown, f"{where}: nothing shown"
    for tag, cls, display, *_box in shown:
        assert display not in ("inline", "contents"), f"{where}: section {tag}.{cls} is {display}"
    for a, b in zip(shown, shown[1:]):
        assert b[3] >= a[4] - 1, f"{where}: {b[0]}.{b[1]} starts beside {a[0]}.{a[1]}, not below it"
    lines = [line.strip() for line in view["text"].splitlines()]
    for title in view["titles"]:  # a header, a merge line, a table's title: whole lines
        first = title.splitlines()[0].strip()
        assert first in lines, f"{where}: {first!r} is not a line of its own in:\n{view['text'][:1500]}"
    # the charts: pictures of a real size, decoded; their titles are alt texts, not page text
    expected = len(re.findall(r'<img class="bpe-chart', stored))
    assert len(view["images"]) == expected, f"{where}: {len(view['images'])} charts shown, {expected} stored"
    for alt, complete, natural, _top, _bottom, width, height in view["images"]:
        assert complete and natural > 0, f"{where}: the chart {alt!r} was not decoded (its data: source dropped?)"
        assert width > 100 and height > 50, f"{where}: the chart {alt!r} is {width}x{height} px"
        assert alt and alt not in view["text"], f"{where}: the chart's title {alt!r} shows as text"
    # the styles: chips keep their colors
    if view["tokens"]:
        assert view["colored"] >= view["tokens"] // 2, f"{where}: chips lost their colors"


@pytest.mark.parametrize("nb_path", NOTEBOOK_FILES, ids=[bs.notebook_id(p) for p in NOTEBOOK_FILES])
def test_stored_outputs_read_well_untrusted(nb_path, stored_copies, lab_app):
    stored = stored_explorers(nb_path)
    if not stored:
        pytest.skip(f"{nb_path.name} stores no explorer")
    rel = f"{FOLDER}/{nb_path.name}"
    ok = False
    try:
        panel = lab_app.open(rel)  # no cell is run
        page = lab_app.page
        outs = panel.locator(".jp-OutputArea-output").filter(has=page.locator(".bpe-static"))
        # the fallback, not the widget: the sanitized HTML an untrusted notebook shows
        expect(outs).to_have_count(len(stored))
        expect(panel.locator(".widget-vbox")).to_have_count(0)
        page.wait_for_function(_IMAGES_DECODED_JS, arg=panel.element_handle(), timeout=15_000)
        for i, (out, html) in enumerate(zip(outs.all(), stored)):
            out.scroll_into_view_if_needed()
            out.screenshot(path=str(bs.ARTIFACTS / f"untrusted-{nb_path.stem}-{i}.png"))
            check_reads_well(out.evaluate(_READ_JS), html, f"{nb_path.name}, explorer {i + 1}")
        # lesson 01's first explorer (the predictions before it are questions)
        if bs.notebook_id(nb_path) == "01_from_compression_to_subwords":
            first = next(i for i, html in enumerate(stored) if "bpe-header" in html)
            check_notebook_01(outs.nth(first).evaluate(_READ_JS))
        ok = True
    finally:
        if not ok:
            lab_app.drop(rel)
        lab_app.close(rel)


def check_notebook_01(view: dict):
    """The first explorer stands where the text after it says it opens: step 2, the merge
    (es, t) → est with a tie; header, merge and chart apart."""
    trace = train_bpe(corpora.load("sennrich2016"), 10, preset="sennrich2016")
    m = trace[2].merge
    lines = [line.strip() for line in view["text"].splitlines() if line.strip()]
    assert lines[0].startswith("Step 2 of 10 — BPE (preset"), lines[:3]
    assert lines[1].startswith(f"merge 2: ({m.pair[0]}, {m.pair[1]}) → {m.token}, count {m.count}"), lines[:3]
    assert "tie!" in lines[1] and m.tied
    assert not any("Best pairs" in line for line in lines), "the chart's texts run into the page text"
    assert view["images"][0][0].startswith("Best pairs at step 2"), view["images"]
