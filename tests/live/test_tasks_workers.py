"""Tasks across processes: two web workers, one Tasks worker, one PostgreSQL.

A task is created through one uvicorn process, run by a separate
django-tasks-db ``manage.py db_worker`` process and read with ``tasks/get``
through another uvicorn process: they share nothing but the database (a
database of the test's own on the local PostgreSQL server, a copy of one
migrated once per run, dropped afterwards). The raw 2026-07-28 wire is used,
headers included. Skipped with the reason where PostgreSQL, psycopg or
django-tasks-db is missing. Every wait is bounded.

The worker-fault tests get a web process and a ``db_worker`` of their own,
with a short task lease (``LEASE`` seconds), and ``kill -9`` that worker in
the middle of a task: the task must end within the lease plus one poll.
"""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import signal
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

EXTENSION = "io.modelcontextprotocol/tasks"
PG = {"host": "127.0.0.1", "port": 5432, "user": "postgres", "dbname": "postgres"}
#: Seconds any wait of these tests may take.
BOUND = 30.0
#: Seconds a task's lease lasts in the worker-fault tests.
LEASE = 5


def _admin_connection() -> Any:
    psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (the test extra)")
    try:
        return psycopg.connect(**PG, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL is not reachable at {PG['host']}:{PG['port']} as {PG['user']}: {exc}")


@contextlib.contextmanager
def _private_database(template: str) -> Iterator[str]:
    """Create a PostgreSQL database of the caller's own, a copy of ``template``; drop it afterwards.

    ``template`` is a database ``migrated_template`` migrated
    (``tests/live/conftest.py``): the copy needs no ``migrate`` of its own.
    """
    pytest.importorskip("django_tasks_db", reason="django-tasks-db is not installed (the tasks extra)")
    admin = _admin_connection()
    name = f"django_mcp_tasks_{secrets.token_hex(6)}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        try:
            yield name
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def database(migrated_template: Callable[[str], str]) -> Iterator[str]:
    """Create a migrated PostgreSQL database of this module's own; drop it afterwards."""
    pytest.importorskip("django_tasks_db", reason="django-tasks-db is not installed (the tasks extra)")
    with _private_database(migrated_template("database")) as name:
        yield name


@pytest.fixture(scope="module")
def cluster(
    database: str,
    start_server: Callable[..., contextlib.AbstractContextManager[Any]],
    start_tasks_worker: Callable[..., contextlib.AbstractContextManager[Any]],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, str]]:
    """Run two uvicorn processes and one Tasks worker on ``database``; return both URLs."""
    from tests.conftest import _free_port, uvicorn_command

    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "testproject.settings",
        "DJANGO_MCP_PG_NAME": database,
        "DJANGO_MCP_TASKS": "database",
    }
    logs = tmp_path_factory.mktemp("tasks-cluster")
    ports = [_free_port(), _free_port()]
    with contextlib.ExitStack() as stack:
        for index, port in enumerate(ports):
            log_path = logs / f"web{index}.log"
            stack.enter_context(start_server(uvicorn_command(port), port=port, log_path=log_path, env=env))
        stack.enter_context(start_tasks_worker(env, logs / "db_worker.log"))
        yield f"http://127.0.0.1:{ports[0]}", f"http://127.0.0.1:{ports[1]}"


@pytest.fixture
def faulty(
    start_server: Callable[..., contextlib.AbstractContextManager[Any]],
    start_tasks_worker: Callable[..., contextlib.AbstractContextManager[Any]],
    migrated_template: Callable[[str], str],
    tmp_path: Any,
) -> Iterator[tuple[str, str, Any]]:
    """Run one uvicorn process and one ``db_worker`` with ``LEASE``-second task leases.

    They have a database of their own (no other worker takes their tasks).
    Yield the web URL, the database and the worker process, which the test
    may kill.
    """
    from tests.conftest import _free_port, uvicorn_command

    pytest.importorskip("django_tasks_db", reason="django-tasks-db is not installed (the tasks extra)")
    with _private_database(migrated_template("database")) as database:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "testproject.settings",
            "DJANGO_MCP_PG_NAME": database,
            "DJANGO_MCP_TASKS": "database",
            "DJANGO_MCP_TASK_LEASE_TIMEOUT": str(LEASE),
        }
        port = _free_port()
        with (
            start_server(uvicorn_command(port), port=port, log_path=tmp_path / "web.log", env=env),
            start_tasks_worker(env, tmp_path / "db_worker.log") as worker,
        ):
            yield f"http://127.0.0.1:{port}", database, worker


def post(base: str, method: str, params: dict[str, Any], *, name: str | None = None) -> dict[str, Any]:
    """POST one 2026-07-28 request declaring the tasks extension; return its result."""
    import httpx

    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION: {}}, "elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "tasks-workers-test", "version": "1"},
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
    }
    if name is not None:
        headers["Mcp-Name"] = name
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    response = httpx.post(f"{base}/conformance/mcp", json=body, headers=headers, timeout=BOUND)
    reply = response.json()
    assert "result" in reply, reply
    return reply["result"]  # type: ignore[no-any-return]


def get(base: str, task_id: str) -> dict[str, Any]:
    return post(base, "tasks/get", {"taskId": task_id}, name=task_id)


def wait_for(condition: Callable[[], Any]) -> Any:
    deadline = time.monotonic() + BOUND
    while not (value := condition()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)
    return value


def job_of(database: str, task_id: str) -> dict[str, Any]:
    """Return the django-tasks-db job that ran task ``task_id``."""
    psycopg = pytest.importorskip("psycopg")
    with psycopg.connect(**{**PG, "dbname": database}) as connection:
        row = connection.execute(
            "SELECT j.status, j.worker_ids, j.started_at, j.finished_at FROM django_mcp_mcptask t "
            "JOIN django_tasks_database_dbtaskresult j ON j.id::text = t.job_id WHERE t.id = %s",
            (task_id,),
        ).fetchone()
    assert row is not None
    status, workers, started, finished = row
    return {"status": status, "workers": workers, "started": started, "finished": finished}


def test_a_task_created_through_one_web_worker_is_run_by_the_tasks_worker_and_read_through_another(
    cluster: tuple[str, str], database: str
) -> None:
    first, second = cluster

    created = post(
        first,
        "tools/call",
        {"name": "slow_compute", "arguments": {"seconds": 1, "label": "x"}},
        name="slow_compute",
    )
    right_away = get(second, created["taskId"])
    done = wait_for(lambda: (state := get(second, created["taskId"]))["status"] == "completed" and state)

    assert created["resultType"] == "task"
    assert right_away["taskId"] == created["taskId"]  # durable before the answer, on any worker
    assert done["result"]["content"] == [{"type": "text", "text": "Computed x in 1 s"}]
    job = wait_for(lambda: (found := job_of(database, created["taskId"]))["status"] == "SUCCESSFUL" and found)
    assert len(job["workers"]) == 1  # run once, by the db_worker process


def test_input_asked_by_a_task_is_answered_through_the_other_web_worker(cluster: tuple[str, str]) -> None:
    first, second = cluster
    created = post(
        first,
        "tools/call",
        {"name": "confirm_delete", "arguments": {"filename": "a.txt"}},
        name="confirm_delete",
    )
    waiting = wait_for(
        lambda: (state := get(first, created["taskId"]))["status"] == "input_required" and state
    )

    [key] = waiting["inputRequests"]
    post(
        second,
        "tasks/update",
        {
            "taskId": created["taskId"],
            "inputResponses": {key: {"action": "accept", "content": {"confirm": True}}},
        },
        name=created["taskId"],
    )
    done = wait_for(lambda: (state := get(first, created["taskId"]))["status"] == "completed" and state)

    assert done["result"]["content"] == [{"type": "text", "text": "Deleted a.txt"}]


def test_cancelling_through_one_web_worker_stops_the_work_in_the_tasks_worker(
    cluster: tuple[str, str], database: str
) -> None:
    first, second = cluster
    created = post(
        first,
        "tools/call",
        {"name": "slow_compute", "arguments": {"seconds": 60, "label": "long"}},
        name="slow_compute",
    )
    # The handler is running: it has published its own status message.
    wait_for(lambda: get(second, created["taskId"]).get("statusMessage", "").endswith("s left"))

    ack = post(second, "tasks/cancel", {"taskId": created["taskId"]}, name=created["taskId"])
    cancelled = wait_for(lambda: (state := get(first, created["taskId"]))["status"] != "working" and state)

    assert set(ack) == {"resultType", "_meta"}
    assert cancelled["status"] == "cancelled"
    assert "result" not in cancelled
    job = wait_for(lambda: (found := job_of(database, created["taskId"]))["finished"] and found)
    assert (job["finished"] - job["started"]).total_seconds() < 10  # the 60 s of work stopped


def _start_long_task(base: str) -> dict[str, Any]:
    created = post(
        base,
        "tools/call",
        {"name": "slow_compute", "arguments": {"seconds": 120, "label": "doomed"}},
        name="slow_compute",
    )
    # Its handler runs in the worker: it has published its own status message.
    wait_for(lambda: get(base, created["taskId"]).get("statusMessage", "").endswith("s left"))
    return created


def _polls_until_ended(base: str, task_id: str, interval: float) -> tuple[dict[str, Any], int]:
    """Poll every ``interval`` seconds (the task's pollIntervalMs) until the task ends."""
    polls = 0
    deadline = time.monotonic() + BOUND
    while True:
        polls += 1
        state = get(base, task_id)
        if state["status"] != "working":
            return state, polls
        assert time.monotonic() < deadline, "timed out"
        time.sleep(interval)


def test_a_task_whose_worker_is_killed_fails_within_the_lease_and_one_poll(
    faulty: tuple[str, str, Any],
) -> None:
    base, database, worker = faulty
    created = _start_long_task(base)
    interval = created["pollIntervalMs"] / 1000

    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=BOUND)
    ended, polls = _polls_until_ended(base, created["taskId"], interval)

    assert ended["status"] == "failed"
    assert ended["error"] == {"code": -32603, "message": "The worker running this task stopped"}
    assert ended["statusMessage"] == "The worker running this task stopped"
    # The lease lasts LEASE seconds from its last renewal, made at most
    # LEASE / 3 before the kill: the polls at pollIntervalMs see its end
    # within the lease plus one poll.
    assert polls <= math.ceil(LEASE / interval) + 1
    assert job_of(database, created["taskId"])["status"] == "RUNNING"  # the job row never learnt


def test_a_cancel_of_a_task_whose_worker_is_killed_ends_it_cancelled(
    faulty: tuple[str, str, Any],
) -> None:
    base, _database, worker = faulty
    created = _start_long_task(base)
    interval = created["pollIntervalMs"] / 1000

    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=BOUND)
    ack = post(base, "tasks/cancel", {"taskId": created["taskId"]}, name=created["taskId"])
    ended, polls = _polls_until_ended(base, created["taskId"], interval)

    assert set(ack) == {"resultType", "_meta"}
    assert ended["status"] == "cancelled"
    assert polls <= math.ceil(LEASE / interval) + 1
