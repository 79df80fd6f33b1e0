"""Voilà in Debian's Chromium: each notebook renders as an app (no code, no error output) and its
explorers respond to the keyboard and the mouse. docs/voila.png comes from the first notebook.
"""

from __future__ import annotations

import re
import time

import pytest

from browser_support import SKIP_REASON

if not SKIP_REASON:  # else conftest.py marks every test here skipped, with the reason
    from playwright.sync_api import expect

import browser_support as bs  # noqa: E402

NOTEBOOK_FILES = sorted(bs.NOTEBOOKS.glob("[0-9]*.ipynb")) or sorted(bs.NOTEBOOKS.glob("*.ipynb"))

#: Voilà renders every output as this script first, then the page's JavaScript replaces it.
UNRENDERED = 'script[type="application/vnd.voila.cell-output+json"]'


def code_lines(nb_path) -> list[str]:
    """Distinctive source lines of the notebook's code cells (none may show in the app)."""
    import nbformat

    nb = nbformat.read(nb_path, as_version=4)
    lines = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            for line in cell.source.splitlines():
                line = line.strip()
                if len(line) >= 25 and not line.startswith("#"):
                    lines.append(line)
    return lines


def wait_app(page):
    """Wait until Voilà has sent every cell and the page has rendered every output and widget."""
    page.wait_for_load_state("load", timeout=150_000)  # Voilà streams cells as they run
    page.wait_for_function(f"() => document.querySelectorAll('{UNRENDERED}').length === 0", timeout=30_000)
    expect(page.locator("#rendered_cells")).to_be_visible()
    bs.wait_widgets_loaded(page.locator("#rendered_cells"))


def step_explorers(page):
    """Output areas holding a MergeExplorer: one .bpe-merge and a "step" slider."""
    outs = page.locator(".jp-OutputArea-output").filter(has=page.locator(".bpe-merge")).filter(
        has=bs.control(page, "slider", "step"))
    return [o for o in outs.all() if o.locator(".bpe-merge").count() == 1]


@pytest.mark.skipif(not NOTEBOOK_FILES, reason="no notebooks in notebooks/ yet")
@pytest.mark.parametrize("nb_path", NOTEBOOK_FILES, ids=[p.stem for p in NOTEBOOK_FILES])
def test_voila_app(nb_path, voila_page):
    """The notebook as a Voilà app: no code, no error output, widgets displayed; its first
    MergeExplorer follows the keyboard and the mouse. Screenshot: test-artifacts/browser/."""
    t0 = time.monotonic()
    page = voila_page(nb_path.name)
    wait_app(page)
    timing = {"page until every output and widget rendered": time.monotonic() - t0}

    # an app: no code cells, no prompts, no source text
    expect(page.locator(".jp-CodeCell .jp-InputArea")).to_have_count(0)
    expect(page.locator(".jp-InputPrompt, .jp-InputArea-editor, .cm-editor")).to_have_count(0)
    text = page.locator("#rendered_cells").inner_text()
    shown = [line for line in code_lines(nb_path) if line in text]
    assert not shown, f"source code visible in the Voilà app: {shown[:3]}"

    # every cell ran clean and every widget rendered
    assert "There was an error when executing cell" not in text
    problems = bs.cell_problems(page.locator("#rendered_cells"))
    assert not problems, "\n\n".join(problems)

    page.screenshot(path=str(bs.ARTIFACTS / f"voila-{nb_path.stem}.png"))
    timing["checks"] = time.monotonic() - t0 - sum(timing.values())
    (bs.ARTIFACTS / f"voila-{nb_path.stem}.txt").write_text("".join(f"{k}: {s:.1f} s\n" for k, s in timing.items()))

    # a stepper responds: keyboard, then the mouse
    explorers = step_explorers(page)
    if not explorers:
        return
    out = explorers[0]
    slider = bs.control(out, "slider", "step")
    handle = slider.locator(".noUi-handle")
    handle.scroll_into_view_if_needed()
    last = int(float(handle.get_attribute("aria-valuemax")))
    assert last >= 2
    merge = out.locator(".bpe-merge")
    handle.focus()
    page.keyboard.press("Home")
    expect(merge).to_contain_text("step 0: no merge yet")
    seen = {merge.inner_text()}
    for k in (1, 2):
        page.keyboard.press("ArrowRight")
        expect(merge).to_contain_text(re.compile(rf"^merge {k}:"))
        expect(out.locator(".bpe-message").first).to_contain_text(f"Step {k} of {last}")
        seen.add(merge.inner_text())
    page.keyboard.press("End")
    expect(merge).to_contain_text(re.compile(rf"^merge {last}:"))
    seen.add(merge.inner_text())
    assert len(seen) == 4, "the merge just made did not change from step to step"
    bs.drag_handle(page, slider, 0.0)
    expect(merge).to_contain_text("step 0: no merge yet")
    assert bs.slider_value(slider) == 0

    if nb_path == NOTEBOOK_FILES[0]:
        # docs/voila.png: the app around its first stepper, at step 2
        handle.focus()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        expect(merge).to_contain_text(re.compile(r"^merge 2:"))
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        page.mouse.move(0, 0)
        cell = page.locator(".jp-Cell").filter(has=out)
        cell.evaluate("""(cell) => {
            let prev = cell.closest('[cell-index]')?.previousElementSibling;
            (prev || cell).scrollIntoView({block: 'start'});
        }""")
        page.wait_for_timeout(300)
        bs.DOCS.mkdir(exist_ok=True)
        page.screenshot(path=str(bs.DOCS / "voila.png"), animations="disabled")
