"""Real processes for multi-worker tests and benchmarks: a private Redis or PostgreSQL, uvicorn workers.

``PrivatePostgres`` likewise runs a PostgreSQL server of its own (``initdb``
in a temporary folder, as the ``postgres`` user when the tests run as root,
which PostgreSQL refuses to run as), fsync off, restartable on its port.
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
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from tests.conftest import ROOT, _free_port, _stop, _tail, _wait_until_listening, uvicorn_command
from tests.databases import database_env

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


def _postgres_bin() -> Path | None:
    """Return the folder of the newest installed PostgreSQL server's programs."""
    found = shutil.which("initdb")
    if found is not None:
        return Path(found).resolve().parent  # past a link in /usr/local/bin
    folders = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name or 0))
    return folders[-1] if folders else None


POSTGRES_BIN: Final = _postgres_bin()
NO_POSTGRES_SERVER: Final = (
    "the PostgreSQL server programs (initdb, postgres) are not installed: the PostgreSQL "
    "fault tests run a private server (apt-get install postgresql)"
)


class PrivatePostgres:
    """A PostgreSQL server of one test's own, on a free loopback port, user ``postgres``."""

    def __init__(self) -> None:
        if POSTGRES_BIN is None:
            raise RuntimeError(NO_POSTGRES_SERVER)
        self.directory = Path(tempfile.mkdtemp(prefix="django_mcp_pg_"))
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None
        # PostgreSQL refuses to run as root: run it as its own user then.
        self._user: dict[str, Any] = {"user": "postgres"} if os.geteuid() == 0 else {}
        if self._user:
            shutil.chown(self.directory, "postgres")

    @property
    def settings(self) -> dict[str, Any]:
        """Return a ``DATABASES`` entry for its ``postgres`` database."""
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": "postgres",
            "USER": "postgres",
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
        }

    def __enter__(self) -> PrivatePostgres:
        assert POSTGRES_BIN is not None
        initdb = [str(POSTGRES_BIN / "initdb"), "-D", str(self.directory / "data"), "-U", "postgres"]
        done = subprocess.run(
            [*initdb, "-A", "trust", "--no-sync", "-E", "UTF8"],
            capture_output=True,
            timeout=60,
            check=False,
            **self._user,
        )
        if done.returncode != 0:
            shutil.rmtree(self.directory, ignore_errors=True)
            raise RuntimeError(f"initdb failed: {_tail(done.stderr.decode(errors='replace'))}")
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    def start(self) -> None:
        """Start the server (again, on the same port) and wait until it answers."""
        assert POSTGRES_BIN is not None
        log_path = self.directory / "postgres.log"
        command = [
            str(POSTGRES_BIN / "postgres"),
            "-D",
            str(self.directory / "data"),
            "-p",
            str(self.port),
            "-k",
            str(self.directory),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "fsync=off",
        ]
        with log_path.open("ab") as log:
            self.process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, **self._user
            )
        try:
            problem = (
                _wait_until_listening(self.process, self.port, READY_TIMEOUT) or self._wait_until_ready()
            )
        except BaseException:
            self.stop()
            raise
        if problem is not None:
            self.stop()
            raise RuntimeError(f"postgres {problem}; its log ends:\n{_tail(log_path.read_text())}")

    def _wait_until_ready(self) -> str | None:
        """Return None once the server takes connections (it listens before it has recovered)."""
        assert POSTGRES_BIN is not None
        deadline = time.monotonic() + READY_TIMEOUT
        ready = [str(POSTGRES_BIN / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)]
        while subprocess.run(ready, check=False, timeout=READY_TIMEOUT).returncode != 0:
            if time.monotonic() >= deadline:
                return f"did not take connections within {READY_TIMEOUT:g} s"
            time.sleep(0.05)
        return None

    def stop(self) -> None:
        """Shut the server down at once (SIGINT: clients are disconnected) and reap it."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=READY_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGQUIT)  # immediate shutdown: it ends its children
                process.wait(timeout=READY_TIMEOUT)

    def restart(self) -> None:
        """Stop the server and start it again on the same port."""
        self.stop()
        self.start()


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
        **database_env(directory / "db.sqlite3"),
        "PYTHONPATH": str(ROOT),
        **extra,
    }
    if redis_url is not None:
        env["DJANGO_MCP_REDIS_URL"] = redis_url
    return env


@contextlib.contextmanager
def workers(
    count: int, *, redis_url: str | None, directory: Path, ready_timeout: float = READY_TIMEOUT, **env: str
) -> Iterator[list[Worker]]:
    """Start ``count`` uvicorn processes on their own ports; stop and reap them on exit.

    Each must listen within ``ready_timeout`` seconds of the previous one.
    """
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
            problem = _wait_until_listening(worker.process, port, ready_timeout)
            if problem is not None:
                raise RuntimeError(f"uvicorn {problem}; its output ends:\n{worker.log()}")
        yield started
    finally:
        for worker in started:
            _stop(worker.process, kill=False)
