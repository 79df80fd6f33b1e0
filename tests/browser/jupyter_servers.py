"""The processes the browser tests start and the files they serve: JupyterLab and Voilà servers
(each in its own process group, on a free port, with its own Jupyter dirs and user settings), their
REST API (sessions and kernels), the scratch copy of the repo they serve, and notebooks written
for a test.

Its sibling ``browser_support.py`` holds what happens in Chromium (pages, JavaScript errors,
JupyterLab's notebook panel, ipywidgets controls); this module knows nothing of the browser and
imports only the standard library (and nbformat, when a notebook is read or written).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def python() -> str:
    """The Python that runs the tests (its venv has JupyterLab and Voilà)."""
    return sys.executable


# -- processes and ports ------------------------------------------------------------------------


_handed_out: set[int] = set()


def free_port() -> int:
    """A port free now and never handed out before by this process. (Binding port 0 and closing
    the socket can give the same port twice in a row; a dozen Voilà servers started together then
    fight for one port.)"""
    for _ in range(100):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in _handed_out:
            _handed_out.add(port)
            return port
    raise RuntimeError("no free port found that was not handed out before")


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


# what Jupyter Server and Voilà print when the port they were told to use is taken (with
# ``port_retries=0`` they then exit)
_PORT_TAKEN = ("is already in use", "no available port could be found")


class Listening:
    """A server told to listen on 127.0.0.1 at a free port, started at once (``start``), waited for
    later (``wait``). Between the pick of the port and the server's bind, another process (a
    kernel starting elsewhere) can take it; the server then exits saying so, and ``wait`` starts
    it again on a new port, up to ``tries`` times. It is ready when the port accepts a connection
    *and* its log says it runs at that port, so a port taken by someone else never reads as ready.

    ``make_cmd(port)`` gives the command line for a port."""

    def __init__(self, make_cmd, *, env: dict, cwd: Path, log: Path, what: str, tries: int = 3):
        self.make_cmd, self.env, self.cwd, self.log, self.what = make_cmd, env, cwd, log, what
        self.tries, self.started = tries, 0
        self.port, self.proc = 0, None
        self._start()

    def _start(self):
        self.port = free_port()
        self.proc = start(self.make_cmd(self.port), env=self.env, cwd=self.cwd, log=self.log)
        self.started += 1

    def _says_running(self) -> bool:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return f"127.0.0.1:{self.port}/" in text

    def _port_taken(self) -> bool:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return any(m in text for m in _PORT_TAKEN)

    def wait(self, timeout: float = 60, ready=None) -> int:
        """Wait until the server listens (and ``ready()``, if given, is true); return its port."""
        while True:
            try:
                wait_until(lambda: port_open(self.port) and self._says_running() and (ready is None or ready()),
                           timeout, self.what, self.proc, self.log)
                return self.port
            except RuntimeError:
                if self.started >= self.tries or not self._port_taken():
                    raise
                self._start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


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


# -- the files they serve: a copy of the repo, notebooks ----------------------------------------

_COPY_IGNORE = shutil.ignore_patterns(".git", ".venv", "test-artifacts", "__pycache__", ".pytest_cache",
                                      ".hypothesis", ".benchmarks", "*.egg-info", ".ipynb_checkpoints",
                                      "build", "dist")


def copy_repo(src: Path, dest: Path) -> Path:
    """A scratch copy of the repo ``src``: notebooks run there, so nothing is ever saved over the
    real ones. Stored outputs and execution counts are cleared so that "done" is unambiguous
    (in notebooks/ and its subfolders: the deep dives)."""
    shutil.copytree(src, dest, ignore=_COPY_IGNORE, symlinks=True)
    import nbformat

    for nb_path in (dest / "notebooks").rglob("*.ipynb"):  # (checkpoints were not copied)
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
