"""Lesson 01 in the JupyterLite site (``make lite``), in Debian's Chromium, offline: every request
that does not go to 127.0.0.1 is aborted (and no host name but 127.0.0.1 resolves), so the Pyodide
kernel, the wheels and the lesson must all come from the site.

The site is built by ``tools/build_lite.py --if-changed`` into ``_site/`` (a build from the same
inputs, e.g. by ``make lite`` earlier, is reused), served by ``http.server`` in a thread. The test
clears the stored outputs, runs the whole lesson (Run All), then moves the ``MergeExplorer``'s
slider, answers a ``Predict`` and the quiz by keyboard, checking each against the engine. The
timings (build, kernel ready, first output, whole lesson, one slider step) are printed and
written to test-artifacts/browser/lite-timings.json.

How it differs from test_lab.py: no Jupyter server at all (the kernel runs in the page), and the
lesson's stored outputs are cleared in the page rather than in a repo copy.
"""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import browser_support as bs
import pytest

from bpe_viz import corpora, next_merge_question, quiz_questions, train_bpe

ROOT = bs.ROOT
SITE = ROOT / "_site"
LESSON = "01_from_compression_to_subwords.ipynb"
KERNEL_IDLE = "Python (Pyodide) | Idle"
#: cells of lesson 01 that need pandas or matplotlib (from the Pyodide CDN): none
NEEDS_INTERNET: frozenset[int] = frozenset()


def _lite_skip_reason() -> str | None:
    if shutil.which("npm") is None and not (ROOT / "lite" / "node_modules" / "pyodide").exists():
        return "no `npm`: the JupyterLite build installs Pyodide with npm ci (apt-get install -y npm; .ci/run installs it)"
    return None


pytestmark = pytest.mark.skipif(_lite_skip_reason() is not None, reason=_lite_skip_reason() or "")


@pytest.fixture(scope="module")
def timings():
    times: dict[str, float] = {}
    yield times
    bs.ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (bs.ARTIFACTS / "lite-timings.json").write_text(json.dumps(times, indent=1) + "\n")
    print("\nJupyterLite timings (s): " + ", ".join(f"{k} {v:.1f}" for k, v in times.items()))


@pytest.fixture(scope="module")
def site(timings) -> Path:
    t0 = time.monotonic()
    subprocess.run([sys.executable, str(ROOT / "tools" / "build_lite.py"), "--if-changed", "--out", str(SITE)],
                   cwd=ROOT, check=True, timeout=900)
    timings["build (0 when reused)"] = time.monotonic() - t0
    return SITE


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def base(site):
    """The site on http://127.0.0.1:<free port>, served from a thread."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def offline_browser(browser):
    """Chromium with no name resolution but 127.0.0.1's (the pages' routes below abort the rest,
    and say which): a second browser of the session's Playwright (one sync Playwright per process:
    starting another inside the session's raises)."""
    args = [*bs.CHROMIUM_ARGS, "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
    b = browser.browser_type.launch(executable_path=shutil.which("chromium"), args=args)
    try:
        yield b
    finally:
        b.close()


def _idle(page, timeout_ms: float):
    page.wait_for_function(
        "(idle) => [...document.querySelectorAll('.jp-StatusBar-TextItem')].some(e => e.textContent.trim() === idle)",
        arg=KERNEL_IDLE, timeout=timeout_ms, polling=250)


_FIRST_OUTPUT_JS = "() => document.querySelector('.jp-NotebookPanel .jp-CodeCell .jp-OutputArea-output') !== null"
_NO_OUTPUT_JS = "() => document.querySelector('.jp-NotebookPanel .jp-CodeCell .jp-OutputArea-output') === null"


@pytest.fixture(scope="module")
def lesson(base, offline_browser, timings):
    """Lesson 01 opened in the site with its outputs cleared, then run whole (Run All); yields
    (page, notebook panel, blocked non-local URLs)."""
    pages = bs.Pages(offline_browser, "lite")
    page = pages.new(height=1000)
    blocked: list[str] = []

    def route(r):
        if r.request.url.startswith(base + "/") or r.request.url.startswith("data:"):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    page.context.route("**/*", route)
    t0 = time.monotonic()
    try:
        page.goto(f"{base}/lab/index.html?path={LESSON}", wait_until="commit", timeout=60_000)
        panel = page.locator(".jp-NotebookPanel:visible").first
        panel.wait_for(state="visible", timeout=120_000)
        _idle(page, 300_000)
        timings["kernel ready"] = time.monotonic() - t0
        bs.menu(page, "Edit", "Clear Outputs of All Cells")
        # the proofs' sources are hidden (collapsed): shown again, every cell's prompt can be read
        bs.menu(page, "View", "Expand All Code")
        page.wait_for_function(_NO_OUTPUT_JS, timeout=10_000)
        t_run = time.monotonic()
        bs.run_all(page)
        page.wait_for_function(_FIRST_OUTPUT_JS, timeout=120_000, polling=100)
        timings["first output (after Run All)"] = time.monotonic() - t_run
        bs.wait_run_done(panel, timeout=300_000)
        timings["whole lesson (Run All)"] = time.monotonic() - t_run
        bs.wait_widgets_loaded(panel)
        yield page, panel, blocked
    finally:
        pages.close(failed=False)


def _output(panel, first_line: str):
    return bs.cell_outputs(panel, {"cell": first_line})["cell"]


def test_lesson_runs_offline(lesson):
    """Every code cell ran (but the ones that need pandas/matplotlib: none in lesson 01), with no
    error output, no traceback and every widget displayed; nothing was asked of the internet."""
    _page, panel, blocked = lesson
    assert bs.unrun_code_cells(panel) == [], "cells never run (a cell before them failed?)"
    problems = bs.cell_problems(panel, skip=set(NEEDS_INTERNET))
    assert problems == [], "\n\n".join(problems)
    assert blocked == [], f"the site asked for non-local URLs: {blocked[:10]}"


def test_slider_moves_the_step(lesson, timings):
    """The MergeExplorer (opened at step 2): ArrowRight on the slider shows merge 3, as the engine
    says; End shows the last merge."""
    from playwright.sync_api import expect

    page, panel, _blocked = lesson
    out = _output(panel, 'explorer = MergeExplorer("sennrich2016", num_merges=10)')
    trace = train_bpe(corpora.load("sennrich2016"), num_merges=10)
    slider = bs.control(out, "slider", "step")
    assert bs.slider_value(slider) == 2
    slider.locator(".noUi-handle").focus()
    t0 = time.monotonic()
    page.keyboard.press("ArrowRight")
    m = trace[3].merge
    expect(out.locator(".bpe-merge").first).to_contain_text(f"merge 3: ({m.pair[0]}, {m.pair[1]}) → {m.token}")
    timings["one slider step"] = time.monotonic() - t0
    assert bs.slider_value(slider) == 3
    page.keyboard.press("End")
    last = trace[len(trace) - 1].merge
    expect(out.locator(".bpe-merge").first).to_contain_text(f"merge {len(trace) - 1}: ({last.pair[0]}, {last.pair[1]})")


def test_predict_answered(lesson):
    """The first Predict (merge 2 of "aaabdaaabac", a tie): clicking the engine's answer says
    Right, with the engine's reason."""
    from playwright.sync_api import expect

    _page, panel, _blocked = lesson
    out = _output(panel, 'gage = train_bpe("aaabdaaabac", num_merges=10, end_of_word=None)')
    q = next_merge_question(train_bpe("aaabdaaabac", num_merges=10, end_of_word=None), 2)
    number = q.choices.index(q.answer) + 1
    out.get_by_role("button", name=f"{number}: {q.answer}", exact=True).click(timeout=10_000)
    # the click goes to the Pyodide kernel in the page's worker, busy on a loaded machine
    expect(out.first).to_contain_text("Right!", timeout=60_000)
    expect(out.first).to_contain_text(q.reason)


def test_quiz_by_keyboard(lesson):
    """The lesson's quiz, all ten questions answered with number keys and Enter: 10 of 10."""
    page, panel, _blocked = lesson
    out = _output(panel, "quiz = QuizExplorer(trace, n=10, seed=0)")
    trace = train_bpe(corpora.load("sennrich2016"), num_merges=10, preset="sennrich2016")
    bs.answer_quiz_by_keys(page, out, quiz_questions(trace, n=10, seed=0))
