"""MCP tasks on Celery: django-tasks-celery, a Redis or RabbitMQ broker, a real worker.

The web process (uvicorn) and a ``celery worker`` process (solo pool) share
a PostgreSQL database of the test's own (the ``McpTask`` rows; a copy of
one migrated once per run, dropped afterwards) and a broker: Redis under a
key prefix of their own, or RabbitMQ on a virtual host of their own (made
with ``rabbitmqctl``, deleted afterwards); every test runs on each
(``DJANGO_MCP_TASKS=celery`` in testproject/settings.py). The worker is
started before any task exists: it knows the job only because Django's
``AppConfig.ready()`` built it, and django-tasks-celery registered it then.
The official ``tasks-*`` conformance scenarios run against that server,
then a worker is killed with ``kill -9`` in the middle of a task, with a
short lease. Skipped with the reason where django-tasks-celery (Django 6),
Celery, the broker (Redis; RabbitMQ and its ``rabbitmqctl``), PostgreSQL or
psycopg is missing. Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.live.test_conformance import TASKS_SCENARIOS, _passes_tasks_scenario
from tests.live.test_tasks_workers import (
    BOUND,
    LEASE,
    _admin_connection,
    _polls_until_ended,
    _start_long_task,
    get,
    post,
    wait_for,
)

REDIS_URL = "redis://127.0.0.1:6379/12"
RABBITMQ = ("127.0.0.1", 5672)
JOB = "django_mcp.tasks.framework.run_tool_task"


def _require_celery() -> None:
    for module, package in [("django_tasks_celery", "django-tasks-celery"), ("celery", "celery")]:
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{package} is not installed (the celery extra, Python 3.12+ with Django 6)")


@contextlib.contextmanager
def _redis_broker() -> Iterator[dict[str, str]]:
    """Yield the broker settings of a run on Redis: a key prefix of its own, its keys deleted afterwards."""
    redis = pytest.importorskip("redis", reason="redis-py is not installed (the test extra)")
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis is not reachable at {REDIS_URL}: {exc}")
    prefix = f"django-mcp-test-{secrets.token_hex(6)}:"
    try:
        yield {"DJANGO_MCP_CELERY_BROKER_URL": REDIS_URL, "DJANGO_MCP_CELERY_PREFIX": prefix}
    finally:
        client = redis.Redis.from_url(REDIS_URL)
        for key in client.scan_iter(f"{prefix}*"):
            client.delete(key)


def _rabbitmqctl(*arguments: str) -> None:
    """Run ``rabbitmqctl`` with ``arguments``; raise with its output if it fails."""
    subprocess.run(
        ["rabbitmqctl", "--quiet", *arguments], check=True, capture_output=True, timeout=BOUND, text=True
    )


@contextlib.contextmanager
def _rabbitmq_broker() -> Iterator[dict[str, str]]:
    """Yield the broker settings of a run on RabbitMQ: a virtual host of its own, deleted afterwards.

    Deleting the virtual host deletes its queues, exchanges and messages.
    """
    try:
        socket.create_connection(RABBITMQ, timeout=3).close()
    except OSError as exc:
        pytest.skip(f"RabbitMQ is not reachable at {RABBITMQ[0]}:{RABBITMQ[1]}: {exc}")
    if shutil.which("rabbitmqctl") is None:
        pytest.skip("rabbitmqctl is not on PATH: the RabbitMQ runs need it for a virtual host of their own")
    vhost = f"django-mcp-test-{secrets.token_hex(6)}"
    try:
        _rabbitmqctl("add_vhost", vhost)
    except (OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", None) or exc
        pytest.skip(f"rabbitmqctl could not add a virtual host (run as the broker's admin): {detail}")
    try:
        _rabbitmqctl("set_permissions", "-p", vhost, "guest", ".*", ".*", ".*")
        yield {"DJANGO_MCP_CELERY_BROKER_URL": f"amqp://guest:guest@{RABBITMQ[0]}:{RABBITMQ[1]}/{vhost}"}
    finally:
        _rabbitmqctl("delete_vhost", vhost)


BROKERS = {"redis": _redis_broker, "rabbitmq": _rabbitmq_broker}


@pytest.fixture(scope="module", params=sorted(BROKERS))
def broker(request: pytest.FixtureRequest) -> str:
    """Name the broker of this run (every test here runs on each)."""
    return str(request.param)


@contextlib.contextmanager
def _celery_environment(
    template: Callable[[str], str], broker: str, **extra: str
) -> Iterator[dict[str, str]]:
    """Yield the environment of a web process and its worker: a database and a broker space of their own.

    The database is a copy of ``template("celery")`` (the ``migrated_template``
    fixture); it is dropped, and the broker's space (``BROKERS``) emptied, afterwards.
    """
    _require_celery()
    with BROKERS[broker]() as broker_env:
        migrated = template("celery")
        admin = _admin_connection()
        name = f"django_mcp_celery_{secrets.token_hex(6)}"
        with admin:
            admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{migrated}"')
            try:
                yield {
                    **os.environ,
                    "DJANGO_SETTINGS_MODULE": "testproject.settings",
                    "DJANGO_MCP_PG_NAME": name,
                    "DJANGO_MCP_TASKS": "celery",
                    **broker_env,
                    **extra,
                }
            finally:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def _celery_worker(env: dict[str, str], log_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``celery worker`` (one process, solo pool) until it is ready and the block ends."""
    from tests.conftest import ROOT, _stop, task_worker_command

    command = task_worker_command("celery", hostname=f"mcp-{secrets.token_hex(4)}@%h")
    with log_path.open("wb") as log:  # the child writes through its own copy
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + BOUND
        while " ready." not in log_path.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                output = log_path.read_text(errors="replace")[-3000:]
                raise RuntimeError(f"the Celery worker did not start; its log ends:\n{output}")
            time.sleep(0.1)
        yield process
    finally:
        _stop(process, kill=False)


@contextlib.contextmanager
def _served(
    env: dict[str, str],
    logs: Path,
    start_server: Callable[..., contextlib.AbstractContextManager[Any]],
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Start the worker (no task exists yet), then uvicorn; yield its URL and the worker."""
    from tests.conftest import _free_port, uvicorn_command

    port = _free_port()
    with (
        _celery_worker(env, logs / "celery.log") as worker,
        start_server(uvicorn_command(port), port=port, log_path=logs / "web.log", env=env),
    ):
        yield f"http://127.0.0.1:{port}", worker


@pytest.fixture(scope="module")
def celery_server(
    broker: str,
    start_server: Callable[..., contextlib.AbstractContextManager[Any]],
    migrated_template: Callable[[str], str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, Path]]:
    """Serve the test project with its tasks on a Celery worker; yield the URL and the worker's log."""
    logs = tmp_path_factory.mktemp(f"tasks-celery-{broker}")
    with (
        _celery_environment(migrated_template, broker) as env,
        _served(env, logs, start_server) as (url, _worker),
    ):
        yield url, logs / "celery.log"


def test_a_worker_started_before_any_task_runs_the_first_one(celery_server: tuple[str, Path]) -> None:
    base, log_path = celery_server
    startup = log_path.read_text()

    created = post(
        base,
        "tools/call",
        {"name": "slow_compute", "arguments": {"seconds": 1, "label": "celery"}},
        name="slow_compute",
    )
    done = wait_for(lambda: (state := get(base, created["taskId"]))["status"] == "completed" and state)

    assert f". {JOB}" in startup  # registered when the worker set Django up, before any task
    assert done["result"]["content"] == [{"type": "text", "text": "Computed celery in 1 s"}]
    # The Celery worker ran it: its log says so, under the job id the task row holds.
    succeeded = wait_for(
        lambda: re.findall(rf"Task {re.escape(JOB)}\[([0-9a-f-]+)\] succeeded", log_path.read_text())
    )
    assert len(succeeded) >= 1


@pytest.mark.parametrize("scenario", TASKS_SCENARIOS)
def test_official_tasks_extension_scenario_passes_on_celery(
    scenario: str, celery_server: tuple[str, Path], node_bin: Path, tmp_path: Path
) -> None:
    base, log_path = celery_server
    _passes_tasks_scenario(scenario, base, node_bin, tmp_path)
    assert "Received unregistered task" not in log_path.read_text()


@pytest.fixture
def faulty(
    broker: str,
    start_server: Callable[..., contextlib.AbstractContextManager[Any]],
    migrated_template: Callable[[str], str],
    tmp_path: Path,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Serve the test project with ``LEASE``-second task leases and a worker the test may kill."""
    with (
        _celery_environment(migrated_template, broker, DJANGO_MCP_TASK_LEASE_TIMEOUT=str(LEASE)) as env,
        _served(env, tmp_path, start_server) as served,
    ):
        yield served


def test_a_task_whose_celery_worker_is_killed_fails_within_the_lease_and_one_poll(
    faulty: tuple[str, subprocess.Popen[bytes]],
) -> None:
    base, worker = faulty
    created = _start_long_task(base)
    interval = created["pollIntervalMs"] / 1000

    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=BOUND)
    ended, polls = _polls_until_ended(base, created["taskId"], interval)

    assert ended["status"] == "failed"
    assert ended["error"] == {"code": -32603, "message": "The worker running this task stopped"}
    assert polls <= math.ceil(LEASE / interval) + 1


@pytest.fixture
def late(
    broker: str,
    start_server: Callable[..., contextlib.AbstractContextManager[Any]],
    migrated_template: Callable[[str], str],
    tmp_path: Path,
) -> Iterator[tuple[str, subprocess.Popen[bytes], dict[str, str], Path]]:
    """Like ``faulty``, with jobs acknowledged when they end; also yield the environment and logs folder."""
    _require_celery()
    if broker == "redis":
        pytest.skip("Redis hands an unacknowledged job on only after its visibility timeout (an hour)")
    with (
        _celery_environment(
            migrated_template,
            broker,
            DJANGO_MCP_TASK_LEASE_TIMEOUT=str(LEASE),
            DJANGO_MCP_CELERY_ACKS_LATE="1",
        ) as env,
        _served(env, tmp_path, start_server) as (url, worker),
    ):
        yield url, worker, env, tmp_path


def test_a_killed_workers_job_handed_to_the_next_worker_does_not_run_the_task_again(
    late: tuple[str, subprocess.Popen[bytes], dict[str, str], Path],
) -> None:
    base, worker, env, logs = late
    created = _start_long_task(base)
    interval = created["pollIntervalMs"] / 1000
    received = rf"Task {re.escape(JOB)}\[([0-9a-f-]+)\] received"
    job = wait_for(lambda: re.findall(received, (logs / "celery.log").read_text()))

    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=BOUND)
    # The broker hands the unacknowledged job to the next worker.
    with _celery_worker(env, logs / "next.log"):
        ended, polls = _polls_until_ended(base, created["taskId"], interval)
        handed = wait_for(lambda: re.findall(received, (logs / "next.log").read_text()))
        next_log = wait_for(lambda: "succeeded" in (text := (logs / "next.log").read_text()) and text)

    assert handed == job
    # The killed run still holds the task, so the job ends without running it
    # (no second slow_compute), and the task fails as on any lost worker.
    assert ended["status"] == "failed"
    assert ended["error"] == {"code": -32603, "message": "The worker running this task stopped"}
    assert polls <= math.ceil(LEASE / interval) + 1
    assert get(base, created["taskId"])["status"] == "failed"
    assert "Traceback" not in next_log
