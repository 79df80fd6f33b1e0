"""Plumbing for the browser tests: processes, ports, JupyterLab / Voilà pages, widget handles.

Everything here follows ../shared/notes/jupyter-testing.md (what is known to work on these
machines): Debian's Chromium driven by Playwright (never ``playwright install``), JupyterLab with
its own config/data/runtime dirs and user settings, Voilà probed with a TCP connect.

Nothing in this module imports Playwright at import time, so that the test modules can decide
to skip (``SKIP_REASON``) on a machine without a browser.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
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


# -- processes and ports ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _die_with_parent():
    """In the child, before exec: get SIGTERM when the test process dies, even if it is killed
    without running its finalizers (a CI timeout); the server then shuts its kernels down."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def start(cmd: list[str], *, env: dict, cwd: Path, log: Path) -> subprocess.Popen:
    """Start a server in its own process group (so it and its kernels can be killed together)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    out = open(log, "wb")
    try:
        return subprocess.Popen(cmd, env=env, cwd=str(cwd), stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
    finally:
        out.close()  # the child has its own copy


def stop(proc: subprocess.Popen, timeout: float = 10.0):
    """Stop a server: SIGTERM (it shuts its kernels down), then SIGKILL its whole process group."""
    stop_all([proc], timeout)


def terminate(proc: subprocess.Popen):
    """Ask a server to stop (SIGTERM to the server: it shuts its kernels down and reaps them);
    :func:`stop_all` makes sure later."""
    try:
        proc.terminate()
    except ProcessLookupError:
        pass


def stop_all(procs: list, timeout: float = 5.0):
    """Stop servers together: SIGTERM each server (a Jupyter server or Voilà then shuts its
    kernels down), wait up to ``timeout``, then SIGKILL every process group (kernels included)
    so that nothing outlives the tests, whatever happened."""
    groups = []
    for proc in procs:
        if proc is None:
            continue
        try:
            groups.append((proc, os.getpgid(proc.pid)))
        except ProcessLookupError:
            groups.append((proc, None))
        terminate(proc)
    deadline = time.monotonic() + timeout
    for proc, _pgid in groups:
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for proc, pgid in groups:
        if pgid is not None:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


def wait_until(check, timeout: float, what: str, proc: subprocess.Popen | None = None, log: Path | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:] if log and log.exists() else ""
            raise RuntimeError(f"{what}: the process exited with {proc.returncode}\n{tail}")
        try:
            if check():
                return
        except Exception:
            pass
        time.sleep(0.2)
    tail = log.read_text(errors="replace")[-3000:] if log and log.exists() else ""
    raise TimeoutError(f"{what}: not ready after {timeout:.0f} s\n{tail}")


def jupyter_env(home: Path, repo: Path) -> dict:
    """An environment with its own Jupyter dirs and user settings; the repo copy importable."""
    env = dict(os.environ)
    dirs = {
        "JUPYTER_CONFIG_DIR": home / "config",
        "JUPYTER_DATA_DIR": home / "data",
        "JUPYTER_RUNTIME_DIR": home / "runtime",
        "JUPYTERLAB_SETTINGS_DIR": home / "config" / "lab" / "user-settings",
        "JUPYTERLAB_WORKSPACES_DIR": home / "config" / "lab" / "workspaces",
        "IPYTHONDIR": home / "ipython",
    }
    for k, v in dirs.items():
        v.mkdir(parents=True, exist_ok=True)
        env[k] = str(v)
    env.pop("JUPYTER_PATH", None)
    env["PYTHONPATH"] = os.pathsep.join([str(repo)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # quiets a debugpy warning printed by ipykernel
    settings = dirs["JUPYTERLAB_SETTINGS_DIR"] / "@jupyterlab"
    user_settings = {
        # else a "news / updates?" toast covers the page
        "apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
        # else cells scrolled out of view are not rendered and read as empty
        "notebook-extension/tracker": {"windowingMode": "none"},
        # the tests run notebooks in a copy; never write them back behind anyone's back
        "docmanager-extension/plugin": {"autosave": False},
    }
    for name, value in user_settings.items():
        f = settings / f"{name}.jupyterlab-settings"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(value))
    return env


def api(base: str, path: str, method: str = "GET"):
    req = urllib.request.Request(base.rstrip("/") + path, method=method)
    with urllib.request.urlopen(req, timeout=10) as r:
        body = r.read()
    return json.loads(body) if body else None


def shutdown_kernels(base: str, path: str | None = None):
    """Shut sessions and their kernels down through the REST API: the one of the notebook at
    ``path`` (relative to the server's root), or all of them (and any kernel left without one)."""
    try:
        for s in api(base, "/api/sessions") or []:
            if path is not None and s.get("path") != path:
                continue
            try:
                api(base, f"/api/sessions/{s['id']}", "DELETE")
            except Exception:
                pass
            kid = (s.get("kernel") or {}).get("id")
            if kid:
                try:
                    api(base, f"/api/kernels/{kid}", "DELETE")
                except Exception:
                    pass  # already gone with its session
        if path is None:
            for k in api(base, "/api/kernels") or []:
                try:
                    api(base, f"/api/kernels/{k['id']}", "DELETE")
                except Exception:
                    pass
    except Exception:
        pass


def start_session(base: str, path: str, kernel: str = "python3"):
    """Start the notebook's kernel through the REST API (JupyterLab then joins this session
    instead of starting one after the page has loaded: the two overlap)."""
    body = json.dumps({"path": path, "name": path.split("/")[-1], "type": "notebook",
                       "kernel": {"name": kernel}}).encode()
    req = urllib.request.Request(base.rstrip("/") + "/api/sessions", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def unique(prefix: str) -> str:
    """A fresh JupyterLab workspace name."""
    import uuid

    return prefix + uuid.uuid4().hex[:10]


def kernels(base: str) -> list:
    return api(base, "/api/kernels") or []


# -- copies of the repo and notebooks -----------------------------------------------------------

_COPY_IGNORE = shutil.ignore_patterns(".git", ".venv", "test-artifacts", "__pycache__", ".pytest_cache",
                                      ".hypothesis", ".benchmarks", "*.egg-info", ".ipynb_checkpoints",
                                      "build", "dist")


def copy_repo(dest: Path) -> Path:
    """A scratch copy of the repo: notebooks run there, so nothing is ever saved over the real ones.
    Stored outputs and execution counts are cleared so that "done" is unambiguous."""
    shutil.copytree(ROOT, dest, ignore=_COPY_IGNORE, symlinks=True)
    import nbformat

    for nb_path in (dest / "notebooks").glob("*.ipynb"):
        try:
            nb = nbformat.read(nb_path, as_version=4)
        except Exception:
            continue  # the test for that notebook reports it
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs = []
                cell.execution_count = None
        nbformat.write(nb, nb_path)
    return dest


def write_notebook(path: Path, sources: list[str]):
    """A notebook of code cells (a line starting with '#md ' makes a markdown cell)."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for src in sources:
        if src.startswith("#md "):
            nb.cells.append(nbformat.v4.new_markdown_cell(src[4:]))
        else:
            nb.cells.append(nbformat.v4.new_code_cell(src))
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def tagged_cells(nb_path: Path, tag: str) -> set[int]:
    """Indexes (over all cells) of the cells carrying ``tag``."""
    import nbformat

    nb = nbformat.read(nb_path, as_version=4)
    return {i for i, c in enumerate(nb.cells) if tag in c.get("metadata", {}).get("tags", [])}


def python() -> str:
    return sys.executable


# -- JupyterLab pages ---------------------------------------------------------------------------


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


def open_notebook(page, base: str, rel_path: str, workspace: str, timeout: float = 90_000):
    goto_notebook(page, base, rel_path, workspace)
    return wait_notebook_ready(page, rel_path, timeout)


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
  const prompts = [...panel.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].map(p => p.textContent.trim());
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
  prompt: (cell.querySelector('.jp-InputPrompt') || {}).textContent || '',
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
