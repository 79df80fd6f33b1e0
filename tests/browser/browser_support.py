"""What the browser tests do in Chromium: pages and their JavaScript errors, JupyterLab's notebook
panel (open, Run All, read the outputs; :func:`run_scratch_notebook` runs a notebook written for
a test and hands back its outputs), ipywidgets controls, the quiz.

Everything here follows ../shared/notes/jupyter-testing.md (what is known to work on these
machines): Debian's Chromium driven by Playwright (never ``playwright install``), JupyterLab with
its own config/data/runtime dirs and user settings, Voilà probed with a TCP connect. The servers
themselves, their REST API and the files they serve are in the sibling ``jupyter_servers.py``.

Nothing in this module imports Playwright at import time, so that the test modules can decide
to skip (``SKIP_REASON``) on a machine without a browser.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from helpers import notebook_files, notebook_id
from jupyter_servers import shutdown_kernels, start_session, write_notebook

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
#: every notebook of the course: the core lessons, then notebooks/deep-dives/ (tests/helpers.py)
NOTEBOOK_FILES = notebook_files(NOTEBOOKS)


def notebook_rel(nb_path: Path) -> str:
    """The notebook's path under the served repo copy: ``notebooks/deep-dives/01_x.ipynb``."""
    return f"notebooks/{notebook_id(nb_path, NOTEBOOKS)}.ipynb"
ARTIFACTS = ROOT / "test-artifacts" / "browser"
#: Where the picture tests put the README's pictures; ``make pictures`` copies them into docs/
#: (a test never writes into the source tree).
PICTURES = ARTIFACTS / "pictures"

KERNEL_IDLE = "Python 3 (ipykernel) | Idle"


def _skip_reason() -> str | None:
    if shutil.which("chromium") is None:
        return ("no `chromium` on PATH: the browser tests need Debian's Chromium "
                "(apt-get install -y chromium; .ci/run installs it). Never `playwright install`.")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Python `playwright` is not installed (pip install -r requirements.txt)"
    return None


#: Why the whole browser suite is skipped on this machine, or None when it can run.
SKIP_REASON = _skip_reason()

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# -- JavaScript errors --------------------------------------------------------------------------

#: Known, harmless browser noise: (regex on the message and its URL, why it is harmless).
#: Anything else that reaches ``pageerror`` (an uncaught exception or unhandled rejection in the
#: page) or ``console.error`` fails the test. Keep this list short and explain every entry.
JS_ALLOW_LIST: list[tuple[str, str]] = [
    (r"Failed to load resource: net::ERR_\w+ \(https://cdn\.jsdelivr\.net/npm/"
     r"(@fortawesome/fontawesome-free|font-awesome)@",
     "Voilà's page templates link Font Awesome from a CDN, unreachable offline (and on this "
     "machine). Nothing is missing: the widgets' icons (Play, Stop, Train...) come from the Font "
     "Awesome that JupyterLab's widget bundle ships, and they show in the screenshots."),
    (r"Failed to load resource: the server responded with a status of 40[34] .*/favicon\.ico\)",
     "Voilà's classic page template asks for a favicon its server does not serve."),
]


def allowed(message: str) -> bool:
    return any(re.search(rx, message, re.I) for rx, _why in JS_ALLOW_LIST)


class JSErrors:
    """Collects uncaught page errors and console errors of one page."""

    def __init__(self, page, name: str):
        self.name = name
        self.page = page
        self.closed = False
        self.errors: list[str] = []   # not allow-listed: these fail the test
        self.noise: list[str] = []    # allow-listed, kept for the artifact log
        page.on("pageerror", lambda exc: self._add(f"pageerror: {exc.message}", exc.stack or ""))
        page.on("console", self._console)

    def _console(self, msg):
        if msg.type == "error":
            where = (msg.location or {}).get("url", "")
            self._add(f"console.error: {msg.text} ({where})")

    def _add(self, line: str, detail: str = ""):
        """``line`` is what the allow-list is matched against; ``detail`` (a stack) is kept."""
        full = f"{line}\n{detail}".strip()
        (self.noise if allowed(line) else self.errors).append(full)

    def take(self) -> list[str]:
        """The errors seen since the last call (and forget them)."""
        out, self.errors = self.errors, []
        return out

    def write_log(self):
        if self.errors or self.noise:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            with open(ARTIFACTS / f"{self.name}.console.txt", "a", encoding="utf-8") as f:
                for line in self.errors:
                    f.write("ERROR " + line + "\n")
                for line in self.noise:
                    f.write("allowed " + line + "\n")


LIVE_JS: list[JSErrors] = []  # the JS error collectors charged to the running test


def claim(page):
    """Charge a page's JavaScript errors (past and future) to the running test."""
    if page.js_errors not in LIVE_JS:
        LIVE_JS.append(page.js_errors)


class Pages:
    """Opens pages (each in its own context) and closes them; remembers their JS errors."""

    def __init__(self, browser, name: str):
        self.browser, self.name = browser, name
        self.opened: list = []

    def new(self, *, width=1366, height=900, suffix="", track=True):
        """A page in a fresh context. ``track=False``: its JS errors are kept but charged to no
        test until one claims the page with :func:`claim` (pages opened ahead by a fixture)."""
        ctx = self.browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1,
                                       reduced_motion="reduce")
        ctx.set_default_timeout(30_000)
        page = ctx.new_page()
        js = JSErrors(page, self.name + suffix)
        page.js_errors = js
        if track:
            LIVE_JS.append(js)
        self.opened.append((ctx, page, js))
        return page

    def close(self, failed: bool):
        for ctx, page, js in self.opened:
            if js.closed:
                continue
            if failed:
                try:
                    ARTIFACTS.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(ARTIFACTS / f"FAILED-{js.name}.png"))
                except Exception:
                    pass
            try:
                ctx.close()
            except Exception:
                pass
            js.write_log()
            js.closed = True
        self.opened.clear()

    @staticmethod
    def close_page(page):
        """Close one page (its context) now; its JS errors stay with its collector."""
        js = page.js_errors
        if not js.closed:
            try:
                page.context.close()
            except Exception:
                pass
            js.write_log()
            js.closed = True


# -- JupyterLab pages ---------------------------------------------------------------------------


def unique(prefix: str) -> str:
    """A fresh JupyterLab workspace name."""
    import uuid

    return prefix + uuid.uuid4().hex[:10]


def goto_notebook(page, base: str, rel_path: str, workspace: str):
    """Start loading a notebook in a fresh workspace (returns as soon as the server answers)."""
    page.goto(f"{base}/lab/workspaces/{workspace}/tree/{rel_path}?reset", wait_until="commit", timeout=60_000)


_READY_JS = """
(idle) => {
  const dialog = document.querySelector('.jp-Dialog');
  if (dialog) return 'dialog';
  const status = [...document.querySelectorAll('.jp-StatusBar-Widget, .jp-StatusBar-TextItem')]
      .some(e => e.textContent.trim() === idle);
  return status ? 'idle' : false;
}
"""


def wait_notebook_ready(page, rel_path: str, timeout: float = 90_000):
    """The visible notebook panel, once the kernel is really idle (the status bar text, not the
    toolbar's flickering data-status). A "select kernel" dialog gets the default kernel."""
    panel = page.locator(".jp-NotebookPanel:visible")
    panel.first.wait_for(state="visible", timeout=timeout)
    deadline = time.monotonic() + timeout / 1000
    while True:
        left = max(1000, (deadline - time.monotonic()) * 1000)
        try:
            what = page.wait_for_function(_READY_JS, arg=KERNEL_IDLE, timeout=left, polling=200).json_value()
        except Exception as exc:
            raise TimeoutError(f"{rel_path}: the kernel never became idle") from exc
        if what == "idle":
            break
        page.locator(".jp-Dialog button.jp-mod-accept").first.click()
        page.locator(".jp-Dialog").first.wait_for(state="detached")
    expect_idle = page.get_by_text(KERNEL_IDLE)
    expect_idle.first.wait_for(state="visible", timeout=10_000)
    return panel.first


def menu(page, top: str, item: str):
    """Click a menu bar entry, then one of its items (labels matched from their start)."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(rf"^{re.escape(top)}$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(rf"^{re.escape(item)}")).click()


class LabApp:
    """One JupyterLab page for many notebooks: the first one is opened by URL in a fresh
    workspace (``/lab/workspaces/<unique>/tree/<path>?reset``), the next ones in the same page
    with File → Open from Path…, after the previous tab was closed; loading JupyterLab once
    instead of once per notebook keeps the suite within its time budget. Each notebook's kernel
    is started through the REST API as it opens and shut down when it closes. After a failure
    the page is dropped (screenshot first) and the next notebook starts from a fresh page."""

    def __init__(self, pages: "Pages", base: str):
        self.pages, self.base = pages, base
        self.page = None
        self.current: str | None = None

    def open(self, rel: str, kernel: str = "python3"):
        """Open ``rel`` (relative to the server root); the notebook panel once its kernel is idle."""
        start_session(self.base, rel, kernel)  # the kernel boots while the page loads
        if self.page is None:
            self.page = self.pages.new(height=1000, track=False)
            goto_notebook(self.page, self.base, rel, unique("ws"))
        else:
            menu(self.page, "File", "Open from Path")
            self.page.locator(".jp-Dialog input").fill(rel)
            self.page.keyboard.press("Enter")
        claim(self.page)
        self.current = rel
        name = rel.split("/")[-1]
        tab = self.page.locator(".jp-mod-current .lm-TabBar-tabLabel, .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel")
        panel = wait_notebook_ready(self.page, rel)
        # the file browser comes back when the last tab closes: hide it (wider screenshots)
        left = self.page.locator("#jp-left-stack")
        if left.is_visible():
            self.page.keyboard.press("Control+b")
            try:
                left.wait_for(state="hidden", timeout=3_000)
            except Exception:
                pass  # only cosmetic
        tab.filter(has_text=name).first.wait_for(timeout=30_000)
        assert self.page.locator(".jp-NotebookPanel:visible").count() == 1
        return panel

    def close(self, rel: str):
        """Close the notebook's tab (discarding its outputs) and shut its kernel down."""
        try:
            if self.page is not None and self.current == rel:
                menu(self.page, "File", "Close Tab")
                dialog = self.page.locator(".jp-Dialog")
                try:
                    dialog.locator("button", has_text="Discard").click(timeout=3_000)
                except Exception:
                    pass  # nothing to discard
                self.page.locator(".jp-NotebookPanel:visible").first.wait_for(state="detached", timeout=10_000)
        except Exception:
            self.drop(rel)
        finally:
            self.current = None
            shutdown_kernels(self.base, rel)

    def drop(self, rel: str):
        """Throw the page away (after a failure), keeping a screenshot of it."""
        if self.page is None:
            return
        try:
            stem = rel.split("/")[-1].removesuffix(".ipynb")
            self.page.screenshot(path=str(ARTIFACTS / f"FAILED-lab-{stem}.png"))
        except Exception:
            pass
        Pages.close_page(self.page)
        self.page = None


def run_all(page):
    """Menu Run → Run All Cells (no default shortcut in JupyterLab 4.6)."""
    menu(page, "Run", "Run All Cells")


_DONE_JS = """
(panel) => {
  // (a cell whose source is hidden keeps its real prompt in the hidden input area; the collapsed
  // placeholder shown instead has an empty prompt of its own: not a cell)
  const prompts = [...panel.querySelectorAll('.jp-CodeCell .jp-InputPrompt:not(.jp-Placeholder-prompt)')]
      .map(p => p.textContent.trim());
  if (prompts.length === 0) return true;
  if (prompts.some(p => p.includes('*'))) return false;
  if (/^\\[\\d+\\]:$/.test(prompts[prompts.length - 1])) return true;
  // a cell failed: the cells after it were never run
  return panel.querySelector('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]') !== null
      && prompts.some(p => /^\\[\\d+\\]:$/.test(p));
}
"""


def wait_run_done(panel, timeout: float = 120_000):
    panel.page.wait_for_function(_DONE_JS, arg=panel.element_handle(), timeout=timeout, polling=250)


_OUTPUT_REPORT_JS = """
(panel) => [...panel.querySelectorAll('.jp-Notebook .jp-Cell')].map((cell, i) => ({
  index: i,
  code: cell.classList.contains('jp-CodeCell'),
  prompt: (cell.querySelector('.jp-InputPrompt:not(.jp-Placeholder-prompt)') || {}).textContent || '',
  stderr: [...cell.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')].map(e => e.innerText),
  texts: [...cell.querySelectorAll('.jp-OutputArea-output .jp-RenderedText')].map(e => e.innerText),
  widgetErrors: [...cell.querySelectorAll('.jp-OutputArea-output')].map(e => e.innerText)
      .filter(t => /Error displaying widget|Failed to load model class|Loading widget\\.\\.\\./.test(t)),
}))
"""

_ERROR_RX = re.compile(r"Traceback \(most recent call last\)|\b[A-Z]\w*(Error|Exception)\b")


_LOADING_JS = """
(root) => ![...root.querySelectorAll('.jp-OutputArea-output')].some(e => e.textContent.includes('Loading widget...'))
"""


def wait_widgets_loaded(root, timeout: float = 30_000):
    """Wait until no output reads "Loading widget..." (a widget that never loads is reported
    by ``cell_problems``, so a timeout here is not an error by itself)."""
    try:
        root.page.wait_for_function(_LOADING_JS, arg=root.element_handle(), timeout=timeout, polling=200)
    except Exception:
        pass


def cell_problems(panel, skip: set[int] = frozenset()) -> list[str]:
    """Error outputs, tracebacks and broken widget views, per cell (cells in ``skip`` ignored)."""
    report = panel.evaluate(_OUTPUT_REPORT_JS)
    problems = []
    for c in report:
        if c["index"] in skip:
            continue
        for t in c["stderr"]:
            if _ERROR_RX.search(t):
                problems.append(f"cell {c['index']} {c['prompt'].strip()} error output:\n{t[:1500]}")
        for t in c["texts"]:
            if "Traceback" in t and t not in c["stderr"]:
                problems.append(f"cell {c['index']} {c['prompt'].strip()} shows a traceback:\n{t[:1500]}")
        for t in c["widgetErrors"]:
            problems.append(f"cell {c['index']} {c['prompt'].strip()} widget not displayed:\n{t[:500]}")
    return problems


def stderr_warnings(panel) -> list[str]:
    """stderr outputs that are not errors (warnings): reported, not failed."""
    report = panel.evaluate(_OUTPUT_REPORT_JS)
    return [f"cell {c['index']}: {t[:300]}" for c in report for t in c["stderr"] if not _ERROR_RX.search(t)]


def unrun_code_cells(panel) -> list[int]:
    report = panel.evaluate(_OUTPUT_REPORT_JS)
    return [c["index"] for c in report if c["code"] and not re.match(r"^\[\d+\]:$", c["prompt"].strip())]


# -- a notebook written for a test ---------------------------------------------------------------


@dataclass
class ScratchRun:
    """A scratch notebook that :func:`run_scratch_notebook` ran: its JupyterLab page, its notebook
    panel and, by cell name, the output area of each cell (Playwright locators)."""

    page: object
    panel: object
    outputs: dict


def cell_outputs(panel, cells: dict[str, str]) -> dict:
    """The output area of each named cell, the cell found by the first line of its source (which
    no other cell may show)."""
    from playwright.sync_api import expect

    outputs = {}
    for name, src in cells.items():
        first_line = src.splitlines()[0]
        cell = panel.locator(".jp-CodeCell").filter(has=panel.page.locator(".jp-InputArea", has_text=first_line))
        expect(cell).to_have_count(1)
        outputs[name] = cell.locator(".jp-OutputArea-output")
    return outputs


def wait_shown(out, selector: str, what: str, timeout: float = 30_000):
    """Wait until ``selector`` is visible in the output area ``out``; else fail with what the output
    shows instead."""
    try:
        out.locator(selector).first.wait_for(state="visible", timeout=timeout)
    except Exception:
        shows = "\n".join(out.all_inner_texts())[:2000]
        raise AssertionError(f"{what}: no {selector} shown after {timeout / 1000:.0f} s; the output shows:\n"
                             f"{shows}") from None


@contextlib.contextmanager
def run_scratch_notebook(app: LabApp, server, rel: str, cells: dict[str, str], *, shown: str = ".widget-vbox",
                         no_widget: tuple[str, ...] = ("imports",), viewport: dict | None = None,
                         timeout: float = 120_000, shown_timeout: float = 30_000):
    """Write ``cells`` (cell name → source, in order) as the notebook ``rel`` under the server's root
    (``server.root``), open it in ``app``'s page, Run All Cells, check that no cell shows an error,
    and wait until the output of every cell not named in ``no_widget`` shows ``shown`` (a CSS
    selector); yields a :class:`ScratchRun` (``outputs``: see :func:`cell_outputs`).

    ``viewport``: the page's size ({"width": ..., "height": ...}) from before the run on;
    ``timeout``: ms for Run All; ``shown_timeout``: ms for each output. On a failure the page is
    dropped (with a screenshot); in the end the tab is closed and the notebook's kernel shut down.

    In a module-scoped fixture::

        with bs.run_scratch_notebook(lab_app, lab, "scratch/x.ipynb", CELLS) as run:
            yield run.page, run.outputs
    """
    write_notebook(server.root / rel, list(cells.values()))
    try:
        panel = app.open(rel)
        if viewport:
            app.page.set_viewport_size(viewport)
        run_all(app.page)
        wait_run_done(panel, timeout=timeout)
        wait_widgets_loaded(panel)
        problems = cell_problems(panel)
        assert not problems, f"{rel}: cells show errors:\n" + "\n\n".join(problems)
        outputs = cell_outputs(panel, cells)
        for name, out in outputs.items():
            if name not in no_widget:
                wait_shown(out, shown, f"{rel}, cell {name!r}", shown_timeout)
        yield ScratchRun(app.page, panel, outputs)
    except BaseException:
        app.drop(rel)  # with a screenshot
        raise
    finally:
        app.close(rel)


# -- widgets (ipywidgets 8 DOM) -----------------------------------------------------------------


def control(scope, kind: str, description: str):
    """The ipywidgets control of class ``widget-<kind>`` whose label reads ``description``."""
    page = scope if hasattr(scope, "goto") else scope.page
    return scope.locator(f".widget-{kind}").filter(
        has=page.locator(".widget-label", has_text=re.compile(rf"^{re.escape(description)}$")))


def slider_value(slider) -> int:
    return int(slider.locator(".widget-readout").inner_text().strip().replace(",", ""))


_TOKENS_JS = """
(els) => els.map(el => {
  const c = el.cloneNode(true);
  c.querySelectorAll('.bpe-unk-label').forEach(s => s.remove());
  return [c.textContent.trim(), el.classList.contains('bpe-unk'), el.classList.contains('bpe-new')];
})
"""


def tokens(scope, with_new: bool = False) -> list[tuple]:
    """(text, unknown?) of the token chips inside ``scope``, read in one go: markers included
    ('est</w>'), the "unk" label of an unknown character left out. ``with_new``: a third item,
    is the chip emphasized as the token just made (``.bpe-new``)?"""
    rows = scope.locator(".bpe-token").evaluate_all(_TOKENS_JS)
    return [tuple(r) if with_new else tuple(r[:2]) for r in rows]


def token_texts(scope) -> list[str]:
    return [t for t, _unk in tokens(scope)]


def drag_handle(page, slider, fraction: float):
    """Drag the slider's handle with the mouse to ``fraction`` of the track."""
    handle = slider.locator(".noUi-handle")
    handle.scroll_into_view_if_needed()
    h = handle.bounding_box()
    track = slider.locator(".noUi-target").bounding_box()
    page.mouse.move(h["x"] + h["width"] / 2, h["y"] + h["height"] / 2)
    page.mouse.down()
    y = h["y"] + h["height"] / 2
    for i in range(1, 11):
        page.mouse.move(h["x"] + h["width"] / 2 + (track["x"] + track["width"] * fraction - h["x"] - h["width"] / 2) * i / 10, y)
    page.mouse.up()


def type_into(page, box, text: str, delay: float = 10):
    """Replace the text of an input or a textarea by typing ``text``, key by key (``delay`` ms
    apart), as a learner would: click, select all, Delete, type."""
    box.scroll_into_view_if_needed()
    box.click()
    box.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.type(text, delay=delay)


def compare_rows(scope) -> list[tuple[str, int, int]]:
    """(tokenizer name, token count, chips drawn) of every row of the comparisons in ``scope``
    (``comparison_html``'s ``.bpe-compare-row``), read in one go."""
    js = ("rows => rows.map(r => [r.dataset.tokenizer, Number(r.dataset.tokens), "
          "r.querySelectorAll('.bpe-token').length])")
    return [tuple(r) for r in scope.locator(".bpe-compare-row").evaluate_all(js)]


# -- the quiz (QuizExplorer) ----------------------------------------------------------------------


def quiz_title(out):
    return out.locator(".bpe-quiz-title")


def answer_quiz_by_keys(page, out, questions):
    """Keyboard only, as a learner without a mouse: focus the "keys" box (as Tab would), then for
    each question the number of its answer and Enter. Checks each question (merge number, the
    engine's choices on the buttons), the verdict and the engine's reason, then the final score."""
    from playwright.sync_api import expect

    n = len(questions)
    control(out, "text", "keys").locator("input").focus()
    for i, q in enumerate(questions):
        expect(quiz_title(out)).to_have_text(f"Question {i + 1} of {n}: which pair does merge {q.step} take?")
        labels = [f"{j + 1}: ({a}, {b})" for j, (a, b) in enumerate(q.choices)]
        expect(out.locator(".widget-button:visible", has_text=re.compile(r"^\d: \("))).to_have_text(labels)
        page.keyboard.press(str(q.answer_number))
        expect(out.locator(".bpe-quiz-verdict")).to_have_text("Right!")
        expect(out.locator(".bpe-quiz-reason")).to_have_text(q.reason)
        page.keyboard.press("Enter")
    expect(out.locator(".bpe-quiz-score")).to_have_text(f"{n} of {n} right")
    page.keyboard.press("Enter")  # start again
    expect(quiz_title(out)).to_have_text(f"Question 1 of {n}: which pair does merge {questions[0].step} take?")


def answer_quiz_by_mouse(page, out, questions):
    """The mouse: click a wrong pair (the quiz says so, marks it and shows the engine's reason),
    click Next, click the right pair of the next question; the score follows."""
    from playwright.sync_api import expect

    n = len(questions)
    q = questions[0]
    expect(quiz_title(out)).to_contain_text(f"Question 1 of {n}")
    wrong = next(j for j in range(1, len(q.choices) + 1) if j != q.answer_number)
    a, b = q.choices[wrong - 1]
    out.get_by_role("button", name=f"{wrong}: ({a}, {b})", exact=True).click()
    expect(out.locator(".bpe-quiz-verdict")).to_have_text("Not this one.")
    expect(out.locator(".bpe-quiz-reason")).to_have_text(q.reason)
    expect(out.locator("tr.bpe-quiz-picked")).to_have_count(1)
    expect(out.locator("tr.bpe-chosen td").first).to_have_text(str(q.answer_number))
    right = out.locator(".widget-button", has_text=re.compile(rf"^{q.answer_number}: \("))
    expect(right).to_have_class(re.compile(r"mod-success"))
    expect(out.locator(".widget-button", has_text=re.compile(rf"^{wrong}: \("))).to_have_class(re.compile(r"mod-danger"))
    out.get_by_role("button", name="Next").click()
    q2 = questions[1]
    expect(quiz_title(out)).to_have_text(f"Question 2 of {n}: which pair does merge {q2.step} take?")
    expect(out.locator(".bpe-quiz-verdict")).to_have_count(0)
    a, b = q2.answer
    out.get_by_role("button", name=f"{q2.answer_number}: ({a}, {b})", exact=True).click()
    expect(out.locator(".bpe-quiz-verdict")).to_have_text("Right!")
    expect(out.locator(".bpe-message").first).to_contain_text("score 1 of 2")
