"""Real processes for multi-worker tests and benchmarks: a private Redis, uvicorn workers.

``PrivateRedis`` runs a ``redis-server`` of its own on a free loopback port
(never a shared one, which a test must not stop or pause), without
persistence; it can be restarted on the same port mid-test, and is killed
and reaped on exit. ``workers()`` starts uvicorn workers of the test
project, each a separate process on its own port, all pointed at one Redis
(``DJANGO_MCP_REDIS_URL``: the Redis event backend, and a Redis cache for
2025-11-25 sessions). Every wait is bounded; a process that exits or never
listens is killed, and the error shows the end of its output.

Test modules import it as ``from tests.multiworker import ...``; so does
``tests/bench/multi_worker.py``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from tests.conftest import ROOT, _free_port, _stop, _tail, _wait_until_listening, uvicorn_command

REDIS_SERVER: Final = shutil.which("redis-server")
NO_REDIS_SERVER: Final = (
    "redis-server is not installed: the multi-worker and Redis fault tests run a private one "
    "(apt-get install redis-server)"
)
#: Seconds a process may take to start answering.
READY_TIMEOUT: Final = 20.0


@functools.cache
def _debug_command() -> tuple[str, ...]:
    """Return the option allowing ``DEBUG SLEEP`` (Redis 7 refuses it by default)."""
    if REDIS_SERVER is None:
        return ()
    version = subprocess.run([REDIS_SERVER, "--version"], capture_output=True, text=True, timeout=10).stdout
    major = version.partition(" v=")[2].split(".", 1)[0]
    return ("--enable-debug-command", "yes") if major.isdigit() and int(major) >= 7 else ()


class PrivateRedis:
    """A ``redis-server`` of one test's own, on a free loopback port."""

    def __init__(self, directory: Path) -> None:
        if REDIS_SERVER is None:
            raise RuntimeError(NO_REDIS_SERVER)
        self.directory = directory
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Return the Redis URL of database 0."""
        return f"redis://127.0.0.1:{self.port}/0"

    def __enter__(self) -> PrivateRedis:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> None:
        """Start the server (again, on the same port) and wait until it answers."""
        assert REDIS_SERVER is not None
        log_path = self.directory / "redis.log"
        command = [
            REDIS_SERVER,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(self.directory),
            *_debug_command(),
        ]
        with log_path.open("ab") as log:
            self.process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
            )
        problem = _wait_until_listening(self.process, self.port, READY_TIMEOUT)
        if problem is not None:
            _stop(self.process, kill=True)
            raise RuntimeError(f"redis-server {problem}; its log ends:\n{_tail(log_path.read_text())}")

    def stop(self) -> None:
        """Kill the server (no shutdown save) and reap it."""
        if self.process is not None:
            _stop(self.process, kill=True)
            self.process = None

    def restart(self) -> None:
        """Kill the server and start a new one on the same port."""
        self.stop()
        self.start()

    def client(self) -> Any:
        """Return a redis-py client of this server (bounded timeouts)."""
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5, socket_connect_timeout=2)


@dataclasses.dataclass(frozen=True)
class Worker:
    """One uvicorn worker process of the test project."""

    url: str
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def endpoint(self) -> str:
        """Return the URL of the conformance MCP endpoint."""
        return f"{self.url}/conformance/mcp"

    def log(self) -> str:
        """Return the end of the worker's output."""
        return _tail(self.log_path.read_text(encoding="utf-8", errors="replace"))


def worker_env(redis_url: str | None, directory: Path, **extra: str) -> dict[str, str]:
    """Return the environment of a test-project process using ``redis_url``."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "testproject.settings",
        "DJANGO_MCP_DB": str(directory / "db.sqlite3"),
        "PYTHONPATH": str(ROOT),
        **extra,
    }
    if redis_url is not None:
        env["DJANGO_MCP_REDIS_URL"] = redis_url
    return env


@contextlib.contextmanager
def workers(count: int, *, redis_url: str | None, directory: Path, **env: str) -> Iterator[list[Worker]]:
    """Start ``count`` uvicorn processes on their own ports; stop and reap them on exit."""
    started: list[Worker] = []
    try:
        for index in range(count):
            port = _free_port()
            log_path = directory / f"worker-{index}.log"
            command = uvicorn_command(port)
            with log_path.open("wb") as log:
                process = subprocess.Popen(
                    command,
                    cwd=ROOT,
                    env=worker_env(redis_url, directory, **env),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            started.append(Worker(f"http://127.0.0.1:{port}", process, log_path))
        for worker in started:  # they start side by side
            port = int(worker.url.rsplit(":", 1)[1])
            problem = _wait_until_listening(worker.process, port, READY_TIMEOUT)
            if problem is not None:
                raise RuntimeError(f"uvicorn {problem}; its output ends:\n{worker.log()}")
        yield started
    finally:
        for worker in started:
            _stop(worker.process, kill=False)
