"""MCP tasks run by rq: a uvicorn server, an rq worker, Redis and PostgreSQL.

The server (``DJANGO_MCP_TASKS=rq``) enqueues each run of a task on
django-tasks-rq's backend; a separate ``manage.py rqworker`` process (rq's
forking worker: each job runs in a work horse, a child of the worker) runs
it. They share the task rows through a PostgreSQL database of the test's own
(dropped afterwards) and the jobs through the local Redis under an rq key
prefix of their own (``RQ_KEY_PREFIX``: no other server's worker takes their
jobs, and only their keys are deleted afterwards), so runs of this module
side by side on one machine never meet. Skipped with the reason where
django-tasks-rq, Redis, PostgreSQL or psycopg is missing. Every wait is
bounded.

The official conformance suite's ``tasks-*`` scenarios run against that
server, as ``test_conformance.py`` runs them against the django-tasks-db
one. The worker-fault tests get a server and worker of their own with a
short task lease, and ``kill -9`` the work horse (with its worker, or alone)
in the middle of a task: the task must end within the lease plus one poll.
"""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.live.test_conformance import TASKS_SCENARIOS, _passes_tasks_scenario
from tests.live.test_tasks_workers import (
    BOUND,
    LEASE,
    PG,
    _polls_until_ended,
    _private_database,
    _start_long_task,
    get,
    post,
    wait_for,
)

#: The local Redis database these tests use; each site keeps its keys under
#: an rq key prefix of its own within it.
REDIS_URL = "redis://127.0.0.1:6379/10"


@contextlib.contextmanager
def _private_prefix() -> Iterator[str]:
    """Yield an rq key prefix of the caller's own; delete its keys afterwards."""
    pytest.importorskip("django_tasks_rq", reason="django-tasks-rq is not installed (the rq extra)")
    import redis

    prefix = f"django-mcp-test-{secrets.token_hex(6)}"
    connection = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3)
    try:
        connection.ping()
    except redis.exceptions.ConnectionError as exc:
        pytest.skip(f"Redis is not reachable at {REDIS_URL}: {exc}")
    try:
        yield prefix
    finally:
        for key in connection.scan_iter(f"{prefix}*"):
            connection.delete(key)
        connection.close()


@contextlib.contextmanager
def _rq_worker(env: dict[str, str], log_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``manage.py rqworker`` until the block ends; stop and reap it."""
    from tests.conftest import ROOT, _stop, task_worker_command

    command = task_worker_command("rq")
    with log_path.open("wb") as log:  # the child writes through its own copy
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        yield process
    finally:
        _stop(process, kill=False)


class RqSite(NamedTuple):
    """A running uvicorn server and rq worker, and what they keep their state in."""

    url: str
    #: The PostgreSQL database of the task rows.
    database: str
    worker: subprocess.Popen[bytes]
    #: The rq key prefix of their jobs and queues in Redis.
    prefix: str


@contextlib.contextmanager
def _rq_site(
    start_server: Callable[..., contextlib.AbstractContextManager[Any]],
    template: Callable[[str], str],
    logs: Path,
    **extra_env: str,
) -> Iterator[RqSite]:
    """Run one uvicorn process and one rq worker on a private database and rq key prefix.

    The database is a copy of ``template("rq")`` (the ``migrated_template`` fixture).
    """
    from tests.conftest import _free_port, uvicorn_command

    with _private_prefix() as prefix, _private_database(template("rq")) as database:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "testproject.settings",
            "DJANGO_MCP_PG_NAME": database,
            "DJANGO_MCP_TASKS": "rq",
            "DJANGO_MCP_RQ_URL": REDIS_URL,
            # rq reads it when imported: every key the server and worker use.
            "RQ_KEY_PREFIX": prefix,
            **extra_env,
        }
        port = _free_port()
        with (
            start_server(uvicorn_command(port), port=port, log_path=logs / "web.log", env=env),
            _rq_worker(env, logs / "rqworker.log") as worker,
        ):
            yield RqSite(f"http://127.0.0.1:{port}", database, worker, prefix)


@pytest.fixture(scope="module")
def rq_site(
    start_server: Callable[..., contextlib.AbstractContextManager[Any]],
    migrated_template: Callable[[str], str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[RqSite]:
    """The server and rq worker this module's tests share."""
    with _rq_site(start_server, migrated_template, tmp_path_factory.mktemp("tasks-rq")) as site:
        yield site


def _children(pid: int) -> list[int]:
    """Return the ids of process ``pid``'s children (Linux's /proc)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if not children.exists():
        pytest.skip("no /proc/<pid>/task/<pid>/children here: the work horse cannot be found")
    return [int(child) for child in children.read_text().split()]


def _job_id(database: str, task_id: str) -> str:
    psycopg = pytest.importorskip("psycopg")
    with psycopg.connect(**{**PG, "dbname": database}) as connection:
        row = connection.execute("SELECT job_id FROM django_mcp_mcptask WHERE id = %s", (task_id,)).fetchone()
    assert row is not None
    return str(row[0])


def _job(site: RqSite, job_id: str, connection: Any) -> Any:
    """Return rq job ``job_id`` of ``site``, read under the site's key prefix.

    rq takes its prefix from ``RQ_KEY_PREFIX`` once, when imported: this
    process reads the site's keys through a ``Job`` class naming them.
    """
    from rq.job import Job

    job_class = type("SiteJob", (Job,), {"redis_job_namespace_prefix": f"{site.prefix}:job:"})
    return job_class.fetch(job_id, connection=connection)


def _rq_job_status(site: RqSite, job_id: str, awaited: str) -> str:
    """Return the status of rq job ``job_id`` once it is ``awaited`` (bounded: else the last one)."""
    import redis

    with redis.Redis.from_url(REDIS_URL) as connection:
        job = _job(site, job_id, connection)
        deadline = time.monotonic() + BOUND
        while (status := job.get_status(refresh=True)) != awaited and time.monotonic() < deadline:
            time.sleep(0.1)
    return str(getattr(status, "value", status))  # a JobStatus, a str enum


def test_a_task_is_run_by_the_rq_worker(rq_site: RqSite) -> None:
    import redis

    base, database = rq_site.url, rq_site.database
    created = post(
        base,
        "tools/call",
        {"name": "slow_compute", "arguments": {"seconds": 1, "label": "x"}},
        name="slow_compute",
    )
    done = wait_for(lambda: (state := get(base, created["taskId"]))["status"] == "completed" and state)

    job_id = _job_id(database, created["taskId"])

    assert done["result"]["content"] == [{"type": "text", "text": "Computed x in 1 s"}]
    assert _rq_job_status(rq_site, job_id, "finished") == "finished"
    with redis.Redis.from_url(REDIS_URL) as connection:
        job = _job(rq_site, job_id, connection)
    assert job.func_name == "django_mcp.tasks.framework.run_tool_task"
    assert job.worker_name  # an rq worker took it


@pytest.mark.parametrize("scenario", TASKS_SCENARIOS)
def test_official_tasks_extension_scenario_passes_on_rq(
    scenario: str, rq_site: RqSite, node_bin: Path, tmp_path: Path
) -> None:
    _passes_tasks_scenario(scenario, rq_site.url, node_bin, tmp_path)


def test_a_task_whose_rq_worker_is_killed_fails_within_the_lease_and_one_poll(
    start_server: Callable[..., contextlib.AbstractContextManager[Any]],
    migrated_template: Callable[[str], str],
    tmp_path: Path,
) -> None:
    lease = {"DJANGO_MCP_TASK_LEASE_TIMEOUT": str(LEASE)}
    with _rq_site(start_server, migrated_template, tmp_path, **lease) as site:
        base, worker = site.url, site.worker
        created = _start_long_task(base)
        interval = created["pollIntervalMs"] / 1000

        # The worker and its work horse, which runs the job (rq starts it in
        # a session of its own: it would outlive its worker, finish the task).
        horses = _children(worker.pid)
        assert horses, "the worker runs no work horse"
        for pid in [worker.pid, *horses]:
            os.kill(pid, signal.SIGKILL)
        worker.wait(timeout=BOUND)
        ended, polls = _polls_until_ended(base, created["taskId"], interval)

    assert ended["status"] == "failed"
    assert ended["error"] == {"code": -32603, "message": "The worker running this task stopped"}
    # The lease lasts LEASE seconds from its last renewal, made at most
    # LEASE / 3 before the kill: the polls at pollIntervalMs see its end
    # within the lease plus one poll.
    assert polls <= math.ceil(LEASE / interval) + 1


def test_a_task_whose_work_horse_alone_is_killed_fails_within_the_lease_and_one_poll(
    start_server: Callable[..., contextlib.AbstractContextManager[Any]],
    migrated_template: Callable[[str], str],
    tmp_path: Path,
) -> None:
    lease = {"DJANGO_MCP_TASK_LEASE_TIMEOUT": str(LEASE)}
    with _rq_site(start_server, migrated_template, tmp_path, **lease) as site:
        base, database, worker = site.url, site.database, site.worker
        created = _start_long_task(base)
        interval = created["pollIntervalMs"] / 1000

        # Only the horse, as the kernel's out-of-memory killer may: its
        # worker lives on and marks the job failed; the task learns it from
        # the lease its horse no longer renews.
        horses = _children(worker.pid)
        assert horses, "the worker runs no work horse"
        for pid in horses:
            os.kill(pid, signal.SIGKILL)
        ended, polls = _polls_until_ended(base, created["taskId"], interval)
        job_status = _rq_job_status(site, _job_id(database, created["taskId"]), "failed")
        worker_alive = worker.poll() is None

    assert ended["status"] == "failed"
    assert ended["error"] == {"code": -32603, "message": "The worker running this task stopped"}
    assert polls <= math.ceil(LEASE / interval) + 1
    assert job_status == "failed"
    assert worker_alive
