"""Fixtures for the real-browser tests: Debian's Chromium (Playwright), a JupyterLab server and
Voilà servers on free ports, each with its own Jupyter dirs, always shut down (process group).

The whole suite skips with a reason when there is no ``chromium`` or no Python ``playwright``
(see ``browser_support.SKIP_REASON``), so ``make test`` works on machines without a browser.
The processes and files are ``jupyter_servers``' business, the pages ``browser_support``'s.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import browser_support as bs  # noqa: E402
import jupyter_servers as servers  # noqa: E402


def pytest_collection_modifyitems(config, items):
    if bs.SKIP_REASON is None:
        return
    here = Path(__file__).resolve().parent
    mark = pytest.mark.skip(reason=bs.SKIP_REASON)
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(mark)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    rep = yield
    setattr(item, f"rep_{rep.when}", rep)
    return rep


def _failed(request) -> bool:
    return any(getattr(getattr(request.node, f"rep_{when}", None), "failed", False)
               for when in ("setup", "call"))


def artifact_name(request) -> str:
    return re.sub(r"[^\w.-]+", "_", request.node.name).strip("_")


# -- the browser --------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=shutil.which("chromium"), args=bs.CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="session", autouse=True)
def fresh_artifacts():
    """test-artifacts/browser/ holds this run's screenshots and logs only."""
    shutil.rmtree(bs.ARTIFACTS, ignore_errors=True)
    bs.ARTIFACTS.mkdir(parents=True, exist_ok=True)


@pytest.fixture(autouse=True)
def no_js_errors(request, fresh_artifacts):
    """Fails the test on any uncaught JavaScript error (or console.error) not allow-listed in
    ``browser_support.JS_ALLOW_LIST``, from any page the test used; screenshots of the pages
    still open when the test failed."""
    yield
    if _failed(request):
        for i, js in enumerate(bs.LIVE_JS):
            if not js.closed:
                try:
                    js.page.screenshot(path=str(bs.ARTIFACTS / f"FAILED-{artifact_name(request)}-{i}.png"))
                except Exception:
                    pass
    errors = [e for js in bs.LIVE_JS for e in js.take()]
    bs.LIVE_JS[:] = [js for js in bs.LIVE_JS if not js.closed]
    if errors:
        pytest.fail("JavaScript errors in the page:\n" + "\n\n".join(errors), pytrace=False)


# -- a scratch copy of the repo, JupyterLab on it ------------------------------------------------


@pytest.fixture(scope="session")
def repo_copy(tmp_path_factory) -> Path:
    """The repo copied to a tmp dir (stored outputs cleared): notebooks run there, never in place."""
    return servers.copy_repo(bs.ROOT, tmp_path_factory.mktemp("repo") / "bpe-viz")


class Server:
    def __init__(self, base: str, root: Path, proc, log: Path):
        self.base, self.root, self.proc, self.log = base, root, proc, log


@pytest.fixture(scope="session")
def lab(repo_copy, tmp_path_factory):
    """JupyterLab on 127.0.0.1, a free port, no token, its own config/data/runtime dirs and user
    settings, serving the repo copy. Kernels and the server are shut down (process group killed)
    however the tests end."""
    home = tmp_path_factory.mktemp("jupyter-lab")
    env = servers.jupyter_env(home, repo_copy)

    def cmd(port):
        return ([servers.python(), "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
                 "--ServerApp.ip=127.0.0.1", "--ServerApp.port_retries=0", "--IdentityProvider.token=",
                 "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True",
                 f"--ServerApp.root_dir={repo_copy}", "--LabApp.news_url=None"]
                + (["--allow-root"] if os.geteuid() == 0 else []))

    log = bs.ARTIFACTS / "jupyterlab.log"
    server = servers.Listening(cmd, env=env, cwd=repo_copy, log=log, what="JupyterLab")
    try:
        server.wait(60, ready=lambda: servers.api(server.base, "/api/status") is not None)
        yield Server(server.base, repo_copy, server.proc, log)
    finally:
        servers.shutdown_kernels(server.base)
        servers.stop(server.proc)


@pytest.fixture(scope="module")
def lab_app(lab, browser, request):
    """One JupyterLab page per test module (``browser_support.LabApp``): its notebooks open in it one
    after the other. At the end of the module the page is closed and every kernel shut down."""
    ps = bs.Pages(browser, Path(request.module.__file__).stem.removeprefix("test_"))
    try:
        yield bs.LabApp(ps, lab.base)
    finally:
        ps.close(failed=False)
        servers.shutdown_kernels(lab.base)


# -- Voilà --------------------------------------------------------------------------------------


class VoilaServers:
    """One ``voila notebooks/X.ipynb --no-browser --port PORT --Voila.ip=127.0.0.1`` per notebook
    (each serves its notebook at /), started together when the first Voilà test asks. A notebook
    is named by its path under notebooks/ (``"deep-dives/01_traps_and_tie_rules.ipynb"``).

    Voilà runs the whole notebook in a new kernel for every page load, so while a test looks at
    notebook i, the page of notebook i+1 is already requested (``open`` prefetches it): its
    kernel computes while the browser renders. A test's server is stopped (SIGTERM: Voilà
    shuts its kernels down) as soon as the test is done; at the end of the session every process group
    is killed, so nothing outlives the tests."""

    def __init__(self, repo: Path, tmp_path_factory, browser):
        self.repo, self.tmp = repo, tmp_path_factory
        self.notebooks = bs.notebook_files(repo / "notebooks")  # the lessons, then the deep dives
        self.started: dict[str, servers.Listening] = {}
        self.pages = bs.Pages(browser, "voila")
        self.prefetched: dict[str, object] = {}

    def _name(self, nb: Path) -> str:
        return f"{bs.notebook_id(nb, self.repo / 'notebooks')}.ipynb"

    def _start(self, nb: Path):
        if self._name(nb) in self.started:
            return
        env = servers.jupyter_env(self.tmp.mktemp("jupyter-voila"), self.repo)

        def cmd(port):
            return [servers.python(), "-m", "voila", str(nb), "--no-browser", f"--port={port}",
                    "--Voila.ip=127.0.0.1", "--Voila.port_retries=0", "--Voila.show_tracebacks=True"]

        log = bs.ARTIFACTS / f"voila-{nb.stem}.log"
        self.started[self._name(nb)] = servers.Listening(cmd, env=env, cwd=nb.parent, log=log,
                                                         what=f"Voilà on {self._name(nb)}")

    def url(self, name: str) -> str:
        nb = self.repo / "notebooks" / name
        assert nb.exists(), f"{name} appeared after the session started: run the suite again"
        for other in self.notebooks:
            self._start(other)
        self._start(nb)
        # every GET starts a kernel and runs the notebook: probe readiness without one
        self.started[name].wait(60)
        return self.started[name].base

    def _load(self, name: str):
        page = self.pages.new(width=1280, height=900, suffix="-" + Path(name).stem, track=False)
        page.goto(self.url(name) + "/", wait_until="commit", timeout=120_000)
        return page

    def open(self, name: str):
        """A page loading the Voilà app of ``name`` (charged to the running test); the next
        notebook's page starts loading too."""
        page = self.prefetched.pop(name, None) or self._load(name)
        bs.claim(page)
        names = [self._name(n) for n in self.notebooks]
        if name in names and names.index(name) + 1 < len(names):
            following = names[names.index(name) + 1]
            if following not in self.prefetched:
                try:
                    self.prefetched[following] = self._load(following)
                except Exception:
                    pass  # its own test will say what is wrong
        return page

    def release(self, name: str, page=None, failed=False):
        if page is not None:
            if failed:
                try:
                    page.screenshot(path=str(bs.ARTIFACTS / f"FAILED-voila-{Path(name).stem}.png"))
                except Exception:
                    pass
            bs.Pages.close_page(page)
        servers.terminate(self.started[name].proc)

    def stop_all(self):
        self.pages.close(failed=False)
        servers.stop_all([server.proc for server in self.started.values()], timeout=3)


@pytest.fixture(scope="session")
def voila_servers(repo_copy, tmp_path_factory, browser):
    voila = VoilaServers(repo_copy, tmp_path_factory, browser)
    try:
        yield voila
    finally:
        voila.stop_all()


@pytest.fixture
def voila_page(voila_servers, request):
    """``voila_page(notebook file name)`` → a page loading that notebook's Voilà app; the page
    is closed and the server stopped after the test."""
    used = []

    def open_(name: str):
        page = voila_servers.open(name)
        used.append((name, page))
        return page

    try:
        yield open_
    finally:
        for name, page in used:
            voila_servers.release(name, page, failed=_failed(request))
