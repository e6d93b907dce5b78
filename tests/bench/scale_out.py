"""Scale out: 3 web workers and 2 task workers per Tasks engine, one PostgreSQL database.

Run from the repository root: ``python tests/bench/scale_out.py``
(``--engines db,rq,celery --events redis,postgres --tasks 200
--latency-tasks 50 --notifications 100`` are the defaults; ``--json``
prints the figures as JSON instead of a markdown table). Needs
``redis-server``, a PostgreSQL server on 127.0.0.1:5432 that user
``postgres`` reaches without a password, and, per engine, its packages
(an engine whose packages are missing is listed as not measured): ``db``
is django-tasks-db with ``manage.py db_worker``, ``rq`` django-tasks-rq
with ``manage.py rqworker``, ``celery`` django-tasks-celery (Django 6,
Python 3.12+) with ``celery worker``. Not collected by pytest.

For each engine and event backend (``MCP_EVENT_BACKEND``: Redis, or
PostgreSQL LISTEN/NOTIFY), the script makes a PostgreSQL database of its
own (dropped afterwards), starts 3 uvicorn workers of the test project and
2 task workers sharing it, and a private ``redis-server`` (rq's queue,
Celery's broker and the Redis event backend each on a database number of
their own). Every server and worker is stopped and reaped afterwards, and
every wait is bounded. It measures:

* creation: ``--tasks`` ``tools/call`` requests of ``slow_compute``
  (0.01 s of work) declaring the tasks extension, 16 at a time, spread
  round-robin over the 3 web workers; tasks created per second (every
  answer must be a task);
* drain: from the first of those requests until ``tasks/get`` says the
  last of them completed (polled every 50 ms): tasks completed per second
  by the 2 task workers, queueing included;
* completion latency: ``--latency-tasks`` tasks one at a time, each from
  sending its ``tools/call`` until ``tasks/get`` (polled every 10 ms, on
  the next web worker) says it completed; p50 and p99;
* notification delivery: a ``subscriptions/listen`` stream is held on
  each web worker; ``--notifications`` times, a tool announcing a
  tool-list change is called on one worker (in turn), and the time from
  sending that call until the notification arrives on each of the two
  other workers' streams is recorded; p50 and p99.

Figures are wall-clock times on whatever machine runs it, client included
(one Python process driving everything): quote them with the machine's
load.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import itertools
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from tests.conftest import _stop, _tail, migrate, task_worker_command  # noqa: E402
from tests.multiworker import PrivateRedis, Worker, workers  # noqa: E402
from tests.wire import modern_headers, modern_meta, modern_request, tool_request  # noqa: E402

PG = {"host": "127.0.0.1", "port": 5432, "user": "postgres", "dbname": "postgres"}
EXTENSION = "io.modelcontextprotocol/tasks"
WEB_WORKERS = 3
TASK_WORKERS = 2
CREATE_CONCURRENCY = 16
WAIT = 60.0  # seconds: bound of every wait
#: Each engine: its ``DJANGO_MCP_TASKS`` mode and the modules it needs.
ENGINES: dict[str, tuple[str, tuple[str, ...]]] = {
    "db": ("database", ("django_tasks_db",)),
    "rq": ("rq", ("django_tasks_rq", "rq", "django_rq")),
    "celery": ("celery", ("django_tasks_celery", "celery")),
}
EVENTS = ("redis", "postgres")
TASK_META = modern_meta({"extensions": {EXTENSION: {}}})
LISTEN = modern_request(
    "subscriptions/listen", {"notifications": {"toolsListChanged": True}}, request_id="bench"
)


def missing(engine: str) -> str | None:
    """Return why ``engine`` cannot run here, or None."""
    for module in ENGINES[engine][1]:
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed"
    return None


# ------------------------------------------------------------ processes


@contextlib.contextmanager
def _database() -> Iterator[str]:
    """Create a PostgreSQL database of this run's own; drop it afterwards."""
    import psycopg

    name = f"django_mcp_scale_out_{secrets.token_hex(6)}"
    with psycopg.connect(**PG, autocommit=True, connect_timeout=3) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield name
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def _task_workers(engine: str, env: dict[str, str], directory: Path) -> Iterator[None]:
    """Run ``TASK_WORKERS`` task worker processes of ``engine``; stop and reap them."""
    processes: list[tuple[subprocess.Popen[bytes], Path]] = []
    try:
        for index in range(TASK_WORKERS):
            log_path = directory / f"{engine}-worker-{index}.log"
            with log_path.open("wb") as log:
                processes.append(
                    (
                        subprocess.Popen(
                            task_worker_command(engine, hostname=f"scale-out-{index}@%h"),
                            cwd=ROOT,
                            env=env,
                            stdin=subprocess.DEVNULL,
                            stdout=log,
                            stderr=subprocess.STDOUT,
                        ),
                        log_path,
                    )
                )
        for process, log_path in processes:
            if process.poll() is not None:
                raise RuntimeError(f"a {engine} worker exited; its log ends:\n{_tail(log_path.read_text())}")
        yield
    finally:
        for process, _log_path in processes:
            _stop(process, kill=False)


@contextlib.contextmanager
def site(engine: str, events: str, redis: PrivateRedis, directory: Path) -> Iterator[list[Worker]]:
    """Run 3 web workers and 2 ``engine`` task workers on one new database; yield the web workers."""
    base = redis.url.rsplit("/", 1)[0]
    with _database() as database:
        env = {
            "DJANGO_SETTINGS_MODULE": "testproject.settings",
            "PYTHONPATH": str(ROOT),
            "DJANGO_MCP_PG_NAME": database,
            "DJANGO_MCP_TASKS": ENGINES[engine][0],
            "DJANGO_MCP_NO_TASK_QUOTAS": "1",
            "DJANGO_MCP_RQ_URL": f"{base}/1",
            "DJANGO_MCP_CELERY_BROKER_URL": f"{base}/2",
            "DJANGO_MCP_CELERY_PREFIX": f"scale-out-{secrets.token_hex(4)}:",
        }
        if events == "redis":
            env["DJANGO_MCP_REDIS_URL"] = f"{base}/0"
        else:
            env["DJANGO_MCP_PG_EVENTS"] = "1"
        full_env = {**os.environ, **env}
        migrate(full_env)
        with (
            _task_workers(engine, full_env, directory),
            workers(WEB_WORKERS, redis_url=None, directory=directory, **env) as web,
        ):
            yield web


# ------------------------------------------------------------ requests


async def _call(client: httpx.AsyncClient, worker: Worker, body: dict[str, Any]) -> dict[str, Any]:
    response = await client.post(worker.endpoint, json=body, headers=modern_headers(body))
    reply = response.json()
    if "result" not in reply:
        raise RuntimeError(f"{body['method']} answered {reply}; the worker's log ends:\n{worker.log()}")
    return reply["result"]  # type: ignore[no-any-return]


async def create(client: httpx.AsyncClient, worker: Worker, label: str) -> str:
    """Call ``slow_compute`` as a task on ``worker``; return the task id."""
    body = tool_request("slow_compute", {"seconds": 0.01, "label": label}, meta=TASK_META)
    result = await _call(client, worker, body)
    if result.get("resultType") != "task":
        raise RuntimeError(f"slow_compute answered no task: {result}")
    return str(result["task"]["taskId"] if "task" in result else result["taskId"])


async def status(client: httpx.AsyncClient, worker: Worker, task_id: str) -> str:
    """Return the status ``tasks/get`` gives on ``worker``; a failed or cancelled task is an error."""
    body = modern_request("tasks/get", {"taskId": task_id}, meta=TASK_META)
    state = (await _call(client, worker, body))["status"]
    if state in {"failed", "cancelled"}:
        raise RuntimeError(f"task {task_id} ended {state}")
    return str(state)


def _percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": statistics.median(ordered),
        "p99": ordered[max(0, -(-len(ordered) * 99 // 100) - 1)],
        "n": len(ordered),
    }


# ------------------------------------------------------------ measures


async def creation_and_drain(client: httpx.AsyncClient, web: list[Worker], tasks: int) -> dict[str, float]:
    """Create ``tasks`` tasks over the web workers; return creation and drain rates per second."""
    turn = itertools.cycle(web)
    started = time.perf_counter()
    semaphore = asyncio.Semaphore(CREATE_CONCURRENCY)

    async def one(index: int) -> str:
        async with semaphore:
            return await create(client, next(turn), f"burst-{index}")

    ids = await asyncio.gather(*(one(index) for index in range(tasks)))
    created = time.perf_counter()
    pending = set(ids)
    deadline = time.monotonic() + WAIT * 3
    while pending:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{len(pending)} of {tasks} tasks still not completed")
        polled = sorted(pending)
        states = await asyncio.gather(*(status(client, next(turn), task_id) for task_id in polled))
        pending -= {task_id for task_id, state in zip(polled, states, strict=True) if state == "completed"}
        if pending:
            await asyncio.sleep(0.05)
    drained = time.perf_counter()
    return {
        "created_per_s": tasks / (created - started),
        "drained_per_s": tasks / (drained - started),
    }


async def completion_latency(client: httpx.AsyncClient, web: list[Worker], count: int) -> dict[str, float]:
    """Return milliseconds from ``tools/call`` to ``tasks/get`` completed, one task at a time."""
    latencies = []
    for index in range(count):
        creator, reader = web[index % len(web)], web[(index + 1) % len(web)]
        started = time.perf_counter()
        task_id = await create(client, creator, f"latency-{index}")
        deadline = time.monotonic() + WAIT
        while await status(client, reader, task_id) != "completed":
            if time.monotonic() > deadline:
                raise TimeoutError(f"task {task_id} not completed within {WAIT:g} s")
            await asyncio.sleep(0.01)
        latencies.append((time.perf_counter() - started) * 1000)
    return _percentiles(latencies)


async def _messages(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    async for line in response.aiter_lines():
        if line.startswith("data:") and line[5:].strip():
            yield json.loads(line[5:])


async def notification_delivery(
    client: httpx.AsyncClient, web: list[Worker], count: int, warmup: int = 10
) -> dict[str, float]:
    """Return milliseconds from a change announced on one worker to its arrival on the others."""
    latencies: list[float] = []
    async with contextlib.AsyncExitStack() as stack:
        streams = []
        for worker in web:
            response = await stack.enter_async_context(
                client.stream("POST", worker.endpoint, json=LISTEN, headers=modern_headers(LISTEN))
            )
            if response.status_code != 200:
                raise RuntimeError(f"listen answered {response.status_code}:\n{worker.log()}")
            messages = _messages(response)
            await asyncio.wait_for(anext(messages), WAIT)  # the acknowledgement
            streams.append(messages)
        for index in range(warmup + count):
            source = index % len(web)
            others = [stream for position, stream in enumerate(streams) if position != source]
            started = time.perf_counter()
            arrivals = [asyncio.ensure_future(_arrival(stream)) for stream in others]
            await _call(client, web[source], tool_request("test_trigger_tool_change", {}, request_id=index))
            arrived = await asyncio.wait_for(asyncio.gather(*arrivals), WAIT)
            # The announcing worker's own stream gets it too: take it off.
            await asyncio.wait_for(anext(streams[source]), WAIT)
            if index >= warmup:
                latencies.extend((moment - started) * 1000 for moment in arrived)
    return _percentiles(latencies)


async def _arrival(stream: AsyncIterator[dict[str, Any]]) -> float:
    message = await anext(stream)
    if message.get("method") != "notifications/tools/list_changed":
        raise RuntimeError(f"unexpected message on a listen stream: {message}")
    return time.perf_counter()


async def measure(web: list[Worker], arguments: argparse.Namespace) -> dict[str, Any]:
    """Warm up, then take every figure of one site."""
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=32)
    async with httpx.AsyncClient(timeout=WAIT, limits=limits) as client:
        await creation_and_drain(client, web, 2 * WEB_WORKERS)  # warm-up: every worker, every process
        figures: dict[str, Any] = await creation_and_drain(client, web, arguments.tasks)
        figures["completion_ms"] = await completion_latency(client, web, arguments.latency_tasks)
        figures["notification_ms"] = await notification_delivery(client, web, arguments.notifications)
    return figures


# ------------------------------------------------------------ report


def table(rows: list[dict[str, Any]]) -> str:
    """Return the markdown table of ``rows``."""
    lines = [
        "| engine | events | created/s | drained/s | completion p50 / p99 ms | notification p50 / p99 ms |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['engine']} | {row['events']} | not measured: {row['error']} | | | |")
            continue
        done, note = row["completion_ms"], row["notification_ms"]
        lines.append(
            f"| {row['engine']} | {row['events']} | {row['created_per_s']:.0f} | {row['drained_per_s']:.0f} "
            f"| {done['p50']:.0f} / {done['p99']:.0f} (n={done['n']}) "
            f"| {note['p50']:.1f} / {note['p99']:.1f} (n={note['n']}) |"
        )
    return "\n".join(lines)


def main(arguments: argparse.Namespace) -> int:
    """Measure every engine and event backend asked for; print the figures. Return the exit code."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch, PrivateRedis(Path(scratch)) as redis:
        for engine, events in itertools.product(arguments.engines, arguments.events):
            row: dict[str, Any] = {"engine": engine, "events": events}
            reason = missing(engine)
            if reason is None:
                directory = Path(scratch) / f"{engine}-{events}"
                directory.mkdir()
                redis.client().flushall()
                try:
                    with site(engine, events, redis, directory) as web:
                        row.update(asyncio.run(measure(web, arguments)))
                except Exception as exc:  # noqa: BLE001 - one engine failing is a row, not the end
                    reason = f"{type(exc).__name__}: {exc}"
            if reason is not None:
                row["error"] = reason
            rows.append(row)
            print(f"{engine} / {events}: done", file=sys.stderr)
    load = os.getloadavg()
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "python": sys.version.split()[0],
        "cores": os.cpu_count(),
        "load_average": [round(value, 2) for value in load],
        "tasks": arguments.tasks,
    }
    if arguments.json:
        print(json.dumps({"meta": meta, "rows": rows}, indent=2))
    else:
        print(f"{meta['date']}, Python {meta['python']}, {meta['cores']} cores, load {meta['load_average']}")
        print(table(rows))
    return 1 if any("error" in row for row in rows) else 0


def _names(choices: tuple[str, ...]) -> Any:
    def parse(text: str) -> list[str]:
        names = [name for name in text.split(",") if name]
        unknown = sorted(set(names) - set(choices))
        if unknown or not names:
            raise argparse.ArgumentTypeError(f"choose among {', '.join(choices)} (got {text!r})")
        return names

    return parse


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", type=_names(tuple(ENGINES)), default=list(ENGINES))
    parser.add_argument("--events", type=_names(EVENTS), default=list(EVENTS))
    parser.add_argument("--tasks", type=int, default=200, help="tasks created in the burst")
    parser.add_argument("--latency-tasks", type=int, default=50, help="tasks timed one at a time")
    parser.add_argument("--notifications", type=int, default=100, help="changes announced")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a markdown table")
    sys.exit(main(parser.parse_args()))
