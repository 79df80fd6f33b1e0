"""The README's commands work as a new user runs them, root included (containers, CI).

``make lab`` used to stop at once as root ("Running as root is not recommended. Use
--allow-root to bypass."). Here it must start JupyterLab and print its URL; ``make present``
must start Voilà the same way.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VENV_READY = (ROOT / ".venv" / ".installed").exists()
needs_make = pytest.mark.skipif(
    shutil.which("make") is None or not VENV_READY,
    reason="needs make and the repository's .venv (made by `make test` / `make check`)",
)


# a server told to use a port that is taken exits instead of moving to the next one (the test
# waits for the URL of the port it chose): start_and_wait then starts it on another
ONE_PORT = "--ServerApp.port_retries=0"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dry_run(target: str) -> str:
    return subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True, check=True).stdout


@needs_make
def test_lab_and_present_allow_root_only_for_root():
    lab, present = dry_run("lab"), dry_run("present")
    if os.geteuid() == 0:
        assert "--allow-root" in lab and "allow_root=True" in present
    else:
        assert "--allow-root" not in lab and "allow_root" not in present


def start_and_wait(cmd, tmp_path: Path, ready, timeout: float = 90.0, *, settle: float = 0.0,
                   env_drop=(), tries: int = 3) -> str:
    """Run ``cmd(port)`` (a make target serving on a free port, told not to try another) until
    its output contains ``ready(port)``; return that output, read ``settle`` seconds later (what
    the server prints just after its URL). ``env_drop``: variables taken out of its environment.
    If another process took the port before the server bound it (it then exits saying "is
    already in use"), it runs again on a new port, up to ``tries`` times."""
    for attempt in range(tries):
        port = free_port()
        out = _run_until(cmd(port), tmp_path, ready(port), timeout, settle, env_drop)
        if out is not None:
            return out
    pytest.fail(f"{' '.join(cmd(port))}: its port was taken {tries} times")


def _run_until(cmd: list[str], tmp_path: Path, ready: str, timeout: float, settle: float, env_drop) -> str | None:
    """:func:`start_and_wait`'s one run; ``None`` when the server's port was taken."""
    env = {k: v for k, v in os.environ.items() if k not in env_drop}
    for var in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR"):
        env[var] = str(tmp_path / var.lower())
    log = tmp_path / "out.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                text = log.read_text(errors="replace")
                if ready in text:
                    time.sleep(settle)
                    return log.read_text(errors="replace")
                if proc.poll() is not None:
                    if "is already in use" in text:
                        return None
                    pytest.fail(f"{' '.join(cmd)} stopped (exit {proc.returncode}):\n{text[-2000:]}")
                time.sleep(0.3)
            pytest.fail(f"{' '.join(cmd)} printed no {ready!r} in {timeout:.0f} s:\n{log.read_text()[-2000:]}")
        finally:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=15)
            except ProcessLookupError:
                pass  # (it exited, its group with it)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


@needs_make
def test_make_lab_starts_and_prints_its_url(tmp_path):
    out = start_and_wait(
        lambda port: ["make", "lab", f"LAB_ARGS=--no-browser --ServerApp.ip=127.0.0.1 --port={port} {ONE_PORT}"],
        tmp_path, lambda port: f"http://127.0.0.1:{port}/lab",
    )
    assert "Running as root is not recommended" not in out


@needs_make
def test_make_lab_prints_no_warning(tmp_path):
    """``make lab`` used to print, before its URL, "traitlets.py:1904: DeprecationWarning:
    ServerApp.token config is deprecated in jupyter-server 2.0" with a source line, which reads
    like an error (notebook_shim reads every server setting; Voilà makes the warning show); on a
    machine with no browser (a container, CI), also "[W ...] No web browser found". Run as a
    learner runs it (no --no-browser of our own; no display, as in a container)."""
    out = start_and_wait(lambda port: ["make", "lab", f"LAB_ARGS=--ServerApp.ip=127.0.0.1 --port={port} {ONE_PORT}"],
                         tmp_path, lambda port: f"http://127.0.0.1:{port}/lab?token=", settle=3.0,
                         env_drop=("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"))
    server = out[out.index("jupyter lab"):]
    assert "Warning" not in server and "deprecated" not in server, server[:3000]
    assert not [line for line in server.splitlines() if line.startswith(("[W ", "[E "))], server[:3000]
    assert "voila.server_extension | extension was successfully loaded" in server  # (Voilà still served)


@needs_make
def test_make_present_starts_voila(tmp_path):
    start_and_wait(lambda port: ["make", "present", f"PRESENT_ARGS=--no-browser --port={port} --Voila.port_retries=0"],
                   tmp_path, lambda port: f"localhost:{port}")


@needs_make
def test_pictures_come_from_their_own_target_and_tests_never_write_into_docs():
    """``make test`` used to rewrite the tracked docs/stepper.png; now the browser tests take the
    README's pictures into test-artifacts/ and only ``make pictures`` copies them into docs/."""
    pictures = dry_run("pictures")
    assert "test_stepper_screenshot" in pictures and "test_voila_app[01_" in pictures
    copy = [line for line in pictures.splitlines() if line.startswith("cp ")]
    assert copy and copy[0].endswith(" docs/") and "stepper.png" in copy[0] and "voila.png" in copy[0]
    for target in ("test", "check"):
        assert "docs/" not in dry_run(target), f"make {target} must not write into docs/"
    header = (ROOT / "Makefile").read_text(encoding="utf-8").split("\n\n", 1)[0]
    assert "make pictures" in header, "document the target in the Makefile's header"
    assert "make pictures" in (ROOT / "README.md").read_text(encoding="utf-8")
    # no test names docs/ as a place to write (a picture, a report)
    import re

    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path == Path(__file__).resolve():
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"""(ROOT|DOCS)\s*/\s*["']docs""", text) and "bs.DOCS" not in text, (
            f"{path.relative_to(ROOT)} writes into docs/: write into test-artifacts/ instead")
