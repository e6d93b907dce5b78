"""Fixtures shared by several test packages: a live ASGI server process.

Tests that drive the server with real clients (the official conformance
suite, the official Python and TypeScript SDK clients) need it listening on
a socket. It runs ``uvicorn testproject.asgi:application`` with one worker
on a free loopback port and an SQLite database of its own; every wait is
bounded.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NODE_DIR = ROOT / "tests" / "node"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def live_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start the demo project under uvicorn and return its base URL."""
    database = tmp_path_factory.mktemp("live") / "live.sqlite3"
    env = {**os.environ, "DJANGO_MCP_DB": str(database), "DJANGO_SETTINGS_MODULE": "testproject.settings"}
    subprocess.run(
        [sys.executable, "testproject/manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )
    port = _free_port()
    log = (tmp_path_factory.mktemp("live-log") / "uvicorn.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "testproject.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "1",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"uvicorn did not start; see {log.name}") from None
            time.sleep(0.1)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture(scope="session")
def node_bin() -> Path:
    """Return the directory holding the npm-installed Node 22 binaries."""
    bin_dir = NODE_DIR / "node_modules" / ".bin"
    if not (bin_dir / "node").exists():
        if os.environ.get("CI"):
            pytest.fail("tests/node is not installed: .ci/test must run `npm ci` there")
        pytest.skip("Node tooling not installed: run `npm ci` in tests/node (bash .ci/test does)")
    return bin_dir
