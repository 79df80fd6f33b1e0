"""The browser tests' server starter (tests/browser/jupyter_servers.py) on a tiny stand-in server.

A clean-clone CI run once failed because a Voilà server's port, picked free, was taken before
Voilà bound it ("The port ... is already in use"; with ``port_retries=0`` Voilà exits). These
tests need no browser and no Jupyter: the stand-in binds its port or exits saying what Voilà says.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "browser"))
import jupyter_servers as servers  # noqa: E402

# Binds 127.0.0.1:PORT and says so as Voilà does, or prints Voilà's two lines and exits 1.
STAND_IN = r"""
import socket, sys, time
port = int(sys.argv[1])
s = socket.socket()
try:
    s.bind(("127.0.0.1", port))
except OSError:
    print(f"The port {port} is already in use, trying another port.")
    print("ERROR: the Voilà server could not be started because no available port could be found.")
    sys.exit(1)
s.listen()
print(f"running at:\nhttp://127.0.0.1:{port}/", flush=True)
time.sleep(60)
"""


def stand_in(port: int) -> list[str]:
    return [sys.executable, "-c", STAND_IN, str(port)]


def test_free_port_never_hands_out_a_port_twice():
    ports = [servers.free_port() for _ in range(50)]
    assert len(set(ports)) == len(ports)


def test_a_server_whose_port_was_taken_starts_again_on_another(tmp_path, monkeypatch):
    thief = socket.socket()
    thief.bind(("127.0.0.1", 0))
    thief.listen()  # the taken port accepts connections: it must not read as our server being ready
    taken = thief.getsockname()[1]
    picks = iter([taken])
    real = servers.free_port
    monkeypatch.setattr(servers, "free_port", lambda: next(picks, None) or real())
    server = servers.Listening(stand_in, env={}, cwd=tmp_path, log=tmp_path / "s.log", what="stand-in")
    try:
        assert server.port == taken
        port = server.wait(30)
        assert port != taken and server.started == 2
        assert servers.port_open(port) and f"127.0.0.1:{port}/" in (tmp_path / "s.log").read_text()
    finally:
        servers.stop(server.proc)
        thief.close()


def test_a_server_that_fails_for_another_reason_is_not_restarted(tmp_path):
    server = servers.Listening(lambda port: [sys.executable, "-c", "import sys; print('boom'); sys.exit(3)"],
                               env={}, cwd=tmp_path, log=tmp_path / "s.log", what="broken")
    with pytest.raises(RuntimeError, match="broken: the process exited with 3"):
        server.wait(30)
    assert server.started == 1


def test_a_server_whose_port_is_always_taken_gives_up_after_its_tries(tmp_path, monkeypatch):
    thieves = []
    for _ in range(3):
        t = socket.socket()
        t.bind(("127.0.0.1", 0))
        thieves.append(t)
    picks = iter(t.getsockname()[1] for t in thieves)
    monkeypatch.setattr(servers, "free_port", lambda: next(picks))
    server = servers.Listening(stand_in, env={}, cwd=tmp_path, log=tmp_path / "s.log", what="stand-in")
    try:
        with pytest.raises(RuntimeError, match="already in use"):
            server.wait(30)
        assert server.started == 3
    finally:
        for t in thieves:
            t.close()
