"""The live-server fixture cleans up after a server that fails to start.

``start_server`` (tests/conftest.py, behind ``live_server_url``) runs a
command until it listens on a port. Here it gets small Python commands that
exit at once, never listen, or listen: each must end reaped (no process
left behind), with its port free again, and a failure must say why and show
the end of the command's output. Each test takes a few seconds at most.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

StartServer = Callable[..., AbstractContextManager[subprocess.Popen[bytes]]]

EXITS_AT_ONCE = "import sys; print('no settings module here', flush=True); sys.exit(3)"
# Binds the port (so a leak would keep it taken) but never listens on it.
NEVER_LISTENS = (
    "import socket, sys, time; sock = socket.socket(); sock.bind(('127.0.0.1', int(sys.argv[1])));"
    " print('bound, not listening', flush=True); time.sleep(60)"
)
LISTENS = (
    "import socket, sys, time; sock = socket.create_server(('127.0.0.1', int(sys.argv[1])));"
    " print('listening', flush=True); time.sleep(60)"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_is_free(port: int) -> bool:
    """Return True when nothing is bound to ``port`` (a TIME_WAIT leftover does not count)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[subprocess.Popen[bytes]]:
    """Return every process started during the test, as it is started."""
    processes: list[subprocess.Popen[bytes]] = []

    class RecordingPopen(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            processes.append(self)

    monkeypatch.setattr(subprocess, "Popen", RecordingPopen)
    return processes


@pytest.mark.timeout(5)
def test_a_server_that_exits_at_once_is_reaped_and_its_output_shown(
    start_server: StartServer, started: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    port = free_port()
    command = [sys.executable, "-c", EXITS_AT_ONCE]
    with (
        pytest.raises(RuntimeError, match=f"exited with code 3 before listening on port {port}") as raised,
        start_server(command, port=port, log_path=tmp_path / "server.log", ready_timeout=4),
    ):
        pytest.fail("a server that exited was handed to the test")
    assert str(raised.value).endswith("ends:\nno settings module here")
    [process] = started
    assert process.returncode == 3


@pytest.mark.timeout(5)
def test_a_server_that_never_listens_is_killed_and_frees_its_port(
    start_server: StartServer, started: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    port = free_port()
    command = [sys.executable, "-c", NEVER_LISTENS, str(port)]
    began = time.monotonic()
    with (
        pytest.raises(RuntimeError, match=f"did not listen on port {port} within 2 s") as raised,
        start_server(command, port=port, log_path=tmp_path / "server.log", ready_timeout=2),
    ):
        pytest.fail("a server that never listened was handed to the test")
    assert time.monotonic() - began < 4
    assert str(raised.value).endswith("ends:\nbound, not listening")
    [process] = started
    assert process.returncode not in (None, 0)
    assert port_is_free(port)


@pytest.mark.timeout(5)
def test_a_listening_server_is_handed_over_then_stopped_and_reaped(
    start_server: StartServer, started: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    port = free_port()
    command = [sys.executable, "-c", LISTENS, str(port)]
    with start_server(command, port=port, log_path=tmp_path / "server.log", ready_timeout=4) as process:
        assert process.poll() is None
        assert not port_is_free(port)
    assert started == [process]
    assert process.returncode not in (None, 0)
    assert port_is_free(port)
