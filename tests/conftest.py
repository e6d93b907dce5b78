"""Fixtures shared by several test packages: a live ASGI server process.

Tests that drive the server with real clients (the official conformance
suite, the official Python and TypeScript SDK clients) need it listening on
a socket. It runs ``uvicorn testproject.asgi:application`` with one worker
on a free loopback port and a database of its own (``tests/databases.py``:
an SQLite file, or a PostgreSQL database on that line); every wait is
bounded. A server that exits or never listens is killed and reaped, and the
error shows the tail of its output (``start_server``). Tests of several
workers and of Redis faults get a ``redis-server`` of their own
(``private_redis``, from ``tests/multiworker.py``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.databases import database_env, drop_databases

ROOT = Path(__file__).resolve().parent.parent
NODE_DIR = ROOT / "tests" / "node"
#: Seconds a server may take to listen, and then to exit once asked to.
READY_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Drop the PostgreSQL databases the session's processes had (``tests/databases.py``)."""
    drop_databases()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _tail(text: str, *, lines: int = 40) -> str:
    return "\n".join(text.splitlines()[-lines:]) or "(no output)"


def _stop(process: subprocess.Popen[bytes], *, kill: bool) -> None:
    """End ``process`` if it still runs, reap it and close its pipes."""
    if process.poll() is None:
        if kill:
            process.kill()
        else:
            process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def _wait_until_listening(process: subprocess.Popen[bytes], port: int, timeout: float) -> str | None:
    """Return None once ``port`` accepts connections, else why it never will."""
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            return f"exited with code {process.returncode} before listening on port {port}"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return None
        except OSError:
            pass
        if time.monotonic() >= deadline:
            return f"did not listen on port {port} within {timeout:g} s"
        time.sleep(0.05)


@contextlib.contextmanager
def _serve(
    command: Sequence[str],
    *,
    port: int,
    log_path: Path,
    env: dict[str, str] | None = None,
    ready_timeout: float = READY_TIMEOUT,
) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``command`` until it listens on ``port``; stop and reap it on exit.

    Raises:
        RuntimeError: the process exited or did not listen in time; it has
            been killed and reaped, and the message ends with its output.
    """
    with log_path.open("wb") as log:  # the child writes through its own copy
        process = subprocess.Popen(
            list(command), cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        problem = _wait_until_listening(process, port, ready_timeout)
        if problem is not None:
            _stop(process, kill=True)
            output = _tail(log_path.read_text(encoding="utf-8", errors="replace"))
            raise RuntimeError(f"{shlex.join(command)} {problem}; its output ({log_path}) ends:\n{output}")
        yield process
    finally:
        _stop(process, kill=False)


def migrate(env: dict[str, str]) -> None:
    """Run ``manage.py migrate`` for the test project with ``env`` (its database settings).

    Raises:
        RuntimeError: migrate failed; the message ends with its output.
    """
    done = subprocess.run(
        [sys.executable, "testproject/manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"migrate exited with code {done.returncode}; its output ends:\n"
            + _tail(done.stdout + done.stderr)
        )


def uvicorn_command(port: int) -> list[str]:
    """Return the command serving the test project with one uvicorn process on ``port``."""
    return [
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
    ]


#: The fixtures of a live server served each way: McpASGIApp and the plain
#: view under uvicorn, McpWSGIApp and the plain view under threaded gunicorn.
LIVE_SERVERS = ["live_server_url", "plain_view_server_url", "wsgi_server_url", "plain_wsgi_server_url"]


def gunicorn_command(port: int) -> list[str]:
    """Return the command serving the test project under WSGI: one threaded gunicorn worker on ``port``."""
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "testproject.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        "1",
        "--threads",
        "8",
        "--graceful-timeout",
        "2",
        "--log-level",
        "warning",
        # gunicorn 27 opens a control socket at one path per user: tests
        # start several gunicorns side by side, which would take it from
        # each other.
        "--no-control-socket",
    ]


def task_worker_command(engine: str, *, hostname: str = "") -> list[str]:
    """Return the command running one Tasks worker of the test project for ``engine``.

    ``"db"``: django-tasks-db's ``db_worker``, polling every 0.1 s; ``"rq"``:
    ``rqworker`` with django-tasks-rq's job class; ``"celery"``: one Celery
    worker, solo pool, named ``hostname``.
    """
    if engine == "db":
        return [
            sys.executable,
            "testproject/manage.py",
            "db_worker",
            "--interval",
            "0.1",
            "--no-startup-delay",
            "--no-reload",
        ]
    if engine == "rq":
        # django-tasks-rq's job class runs the Task object rq finds by dotted path.
        return [
            sys.executable,
            "testproject/manage.py",
            "rqworker",
            "default",
            "--job-class",
            "django_tasks_rq.Job",
        ]
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "testproject.celery_app",
        "worker",
        "--pool=solo",
        "--concurrency=1",
        "--loglevel=info",
        # One worker per broker prefix or virtual host: nothing to meet or watch.
        "--without-mingle",
        "--without-gossip",
        "--without-heartbeat",
        "--hostname",
        hostname,
    ]


@pytest.fixture(scope="session", autouse=True)
def fast_password_hashing() -> Iterator[None]:
    """Hash test users' passwords with a fast hasher (Django's advice for test suites).

    The default PBKDF2 costs about half a second a password on this
    machine, paid by every test that creates a user with one. Nothing here
    tests a hasher's strength; live servers keep the project's own hashers.
    """
    from django.test.utils import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(scope="session")
def start_server() -> Callable[..., contextlib.AbstractContextManager[subprocess.Popen[bytes]]]:
    """Return ``_serve``, which runs a server command until it listens and cleans up after it."""
    return _serve


#: django-tasks-db is installed (the tasks extra): the live server stores MCP
#: tasks in its database and a ``manage.py db_worker`` process runs them.
TASKS_DB = importlib.util.find_spec("django_tasks_db") is not None


@contextlib.contextmanager
def _tasks_worker(env: dict[str, str], log_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run a django-tasks-db ``manage.py db_worker`` until the block ends; stop and reap it."""
    command = task_worker_command("db")
    with log_path.open("wb") as log:  # the child writes through its own copy
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        yield process
    finally:
        _stop(process, kill=False)


@pytest.fixture(scope="session")
def start_tasks_worker() -> Callable[..., contextlib.AbstractContextManager[subprocess.Popen[bytes]]]:
    """Return ``_tasks_worker``, which runs a Tasks worker process and cleans up after it."""
    return _tasks_worker


@contextlib.contextmanager
def _live_server(
    tmp_path_factory: pytest.TempPathFactory,
    server: Callable[[int], list[str]] = uvicorn_command,
    *,
    workers: bool = True,
    **extra_env: str,
) -> Iterator[str]:
    database = tmp_path_factory.mktemp("live") / "live.sqlite3"
    env = {
        **os.environ,
        **database_env(database),
        "DJANGO_SETTINGS_MODULE": "testproject.settings",
        **extra_env,
    }
    env.pop("DJANGO_MCP_TASKS", None)
    workers = workers and TASKS_DB
    if workers:
        env["DJANGO_MCP_TASKS"] = "database"
    migrate(env)
    port = _free_port()
    command = server(port)
    log_path = tmp_path_factory.mktemp("live-log") / "server.log"
    worker = _tasks_worker(env, log_path.with_name("db_worker.log")) if workers else contextlib.nullcontext()
    with _serve(command, port=port, log_path=log_path, env=env), worker:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="session")
def live_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start the demo project under uvicorn (and a Tasks worker) and return its base URL.

    MCP requests take ``McpASGIApp``'s fast path (``testproject/asgi.py``).
    """
    with _live_server(tmp_path_factory) as url:
        yield url


@pytest.fixture(scope="session")
def demo_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start the demo project as ``.ci/demo`` does: one uvicorn process, SQLite, no Tasks worker.

    No ``TASKS`` setting: MCP tasks run in the server process's thread pool.
    """
    with _live_server(tmp_path_factory, workers=False) as url:
        yield url


@pytest.fixture(scope="session")
def plain_view_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Like ``live_server_url``, with MCP requests served by the plain view under Django's handler."""
    with _live_server(tmp_path_factory, DJANGO_MCP_PLAIN_VIEW="1") as url:
        yield url


@pytest.fixture(scope="session")
def wsgi_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Like ``live_server_url`` under gunicorn (threads): MCP requests take ``McpWSGIApp``'s fast path."""
    with _live_server(tmp_path_factory, gunicorn_command) as url:
        yield url


@pytest.fixture(scope="session")
def plain_wsgi_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Like ``wsgi_server_url``, with MCP requests served by the plain view under Django's WSGI handler."""
    with _live_server(tmp_path_factory, gunicorn_command, DJANGO_MCP_PLAIN_VIEW="1") as url:
        yield url


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[Any]:
    """Run a ``redis-server`` of the test's own on a free port (``tests/multiworker.py``).

    Skipped where ``redis-server`` or the ``redis`` package is missing. The
    shared Redis other tests use is never stopped or paused: fault tests
    restart and pause this one.
    """
    from tests.multiworker import NO_REDIS_SERVER, REDIS_SERVER, PrivateRedis

    if REDIS_SERVER is None:
        pytest.skip(NO_REDIS_SERVER)
    pytest.importorskip("redis", reason="the redis extra is not installed")
    with PrivateRedis(tmp_path) as server:
        yield server


@pytest.fixture
def private_postgres() -> Iterator[Any]:
    """Run a PostgreSQL server of the test's own on a free port (``tests/multiworker.py``).

    Skipped where the server programs or psycopg are missing. The shared
    PostgreSQL other tests use is never stopped: fault tests restart this one.
    """
    from tests.multiworker import NO_POSTGRES_SERVER, POSTGRES_BIN, PrivatePostgres

    if POSTGRES_BIN is None:
        pytest.skip(NO_POSTGRES_SERVER)
    pytest.importorskip("psycopg", reason="psycopg is not installed (the test extra)")
    with PrivatePostgres() as server:
        yield server


@pytest.fixture(scope="session")
def node_bin() -> Path:
    """Return the directory holding the npm-installed Node 22 binaries."""
    bin_dir = NODE_DIR / "node_modules" / ".bin"
    if not (bin_dir / "node").exists():
        if os.environ.get("CI"):
            pytest.fail("tests/node is not installed: .ci/test must run `npm ci` there")
        pytest.skip("Node tooling not installed: run `npm ci` in tests/node (bash .ci/test does)")
    return bin_dir


@pytest.fixture(autouse=True)
def _fresh_sync_threads() -> Iterator[None]:
    """Let McpASGIApp's idle sync threads go after each test, and close asgiref's thread's connections.

    A thread kept for a later request keeps its database connection, and
    the test database (in-memory SQLite ignores close()) must not reach a
    test without database access. An async test's ORM calls run in
    asgiref's one thread-sensitive thread (no request context lends
    another), whose connection would otherwise stay open to the end: on
    PostgreSQL pytest-django then cannot drop the test database.
    """
    yield
    from asgiref.sync import SyncToAsync
    from django.db import connections

    from django_mcp.transports._threads import REQUEST_THREADS

    REQUEST_THREADS.clear()
    SyncToAsync.single_thread_executor.submit(connections.close_all).result()


@pytest.fixture
def patient_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Waits for a session's lock as long as a loaded machine needs.

    These tests check that concurrent changes are serialized, not how long a
    waiter gives up after: 31 contenders polling the same lock on a busy
    2-core machine outlasted the 6 s wait once.
    """
    monkeypatch.setattr("django_mcp.dispatcher.sessions._LOCK_WAIT", 120.0)


# Validate every server message of every test against the MCP schema of its era.
from tests.wire_schema import wire_schema  # noqa: E402, F401
