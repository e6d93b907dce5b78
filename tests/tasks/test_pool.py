"""The in-process task pool (django_mcp/tasks/pool.py) and its Tasks backend.

Jobs run in the pool's daemon threads; a test waits for them with a bound.
The database tests use real transactions: the pool's threads have
connections of their own.
"""

from __future__ import annotations

import asyncio
import collections
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import timezone

from django_mcp import conf
from django_mcp.models import McpTask
from django_mcp.protocol.tasks import EXTENSION
from django_mcp.tasks.pool import TaskPool, ThreadPoolBackend, _CallerQueues, get_pool
from django_mcp.tasks.store import holder
from tests.tasks.task_server import TaskServer
from tests.wire import call, modern_meta

#: Seconds any wait in these tests may take: only a real hang reaches it,
#: and a task's round trip through the database took over 10 s on a 2-core
#: machine at load 6.
BOUND = 30
TASKS = {"extensions": {EXTENSION: {}}}


def _wait(condition: Any) -> None:
    deadline = time.monotonic() + BOUND
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_the_pool_runs_every_job_on_at_most_its_threads() -> None:
    pool = TaskPool(2)
    seen: list[str] = []
    lock = threading.Lock()

    def job() -> None:
        with lock:
            seen.append(threading.current_thread().name)

    ids = [pool.submit(job) for _ in range(6)]

    _wait(lambda: len(seen) == 6)
    assert len(set(ids)) == 6
    assert set(seen) <= {"mcp-task-0", "mcp-task-1"}
    assert all(thread.daemon for thread in threading.enumerate() if thread.name.startswith("mcp-task-"))


def test_a_burst_of_jobs_starts_threads_up_to_the_limit_at_once() -> None:
    pool = TaskPool(4)
    warm = threading.Event()
    pool.submit(warm.set)
    assert warm.wait(BOUND)
    _wait(lambda: pool._idle == 1)  # one thread exists and waits for work
    release = threading.Event()
    running: list[int] = []
    lock = threading.Lock()

    def job(number: int) -> Any:
        def run() -> None:
            with lock:
                running.append(number)
            release.wait(BOUND)

        return run

    try:
        for number in range(3):
            pool.submit(job(number))

        # All three run together, none waits for another to end.
        _wait(lambda: len(running) == 3)
    finally:
        release.set()


def _job(name: str) -> tuple[Any, str]:
    return (lambda: None, name)  # the task id names the job


def test_callers_with_jobs_waiting_take_turns() -> None:
    queues = _CallerQueues()
    for name in ("a1", "a2", "a3", "b1", "b2", "c1"):
        queues.push(name[0], _job(name))

    order = [queues.pop()[1][1] for _ in range(6)]

    assert order == ["a1", "b1", "c1", "a2", "b2", "a3"]
    assert len(queues) == 0
    assert queues.running == {"a": 3, "b": 2, "c": 1}


def test_a_free_thread_goes_to_the_caller_holding_the_fewest() -> None:
    queues = _CallerQueues()
    for number in range(10):
        queues.push("a", _job(f"a{number}"))
    taken = [queues.pop()[0] for _ in range(4)]  # a lone caller takes every thread
    queues.push("b", _job("b0"))
    queues.push("b", _job("b1"))

    queues.done("a")
    first = queues.pop()
    queues.done("a")
    second = queues.pop()
    queues.done("a")
    third = queues.pop()

    assert taken == ["a"] * 4
    # b holds fewer threads each time, until it runs out of waiting jobs.
    assert [first[1][1], second[1][1], third[1][1]] == ["b0", "b1", "a4"]
    assert queues.running == {"a": 2, "b": 2}


def test_four_threads_split_evenly_between_two_flooding_callers() -> None:
    queues = _CallerQueues()
    for number in range(20):
        queues.push("a", _job(f"a{number}"))
        queues.push("b", _job(f"b{number}"))

    for _ in range(4):
        queues.pop()

    assert queues.running == {"a": 2, "b": 2}  # ceil(4 threads / 2 callers) each


def test_another_callers_job_takes_the_first_thread_a_flood_frees() -> None:
    pool = TaskPool(4)
    flood = 20
    gate = threading.Semaphore(0)  # each release lets one of a's jobs end
    holding: collections.Counter[str] = collections.Counter()  # threads each caller's jobs hold
    lock = threading.Lock()
    started = threading.Event()
    seen: list[tuple[dict[str, int], int]] = []

    def long_job() -> None:
        with lock:
            holding["a"] += 1
        try:
            gate.acquire(timeout=BOUND)
        finally:
            with lock:
                holding["a"] -= 1

    def short_job() -> None:
        with lock:
            seen.append((dict(holding), pool.queued))
        started.set()

    try:
        for _ in range(flood):
            pool.submit(long_job, caller="anonymous:10.0.0.1")
        _wait(lambda: holding["a"] == 4)  # a caller alone may use every thread
        pool.submit(short_job, caller="anonymous:10.0.0.2")
        assert pool.queued == flood - 4 + 1

        gate.release()  # one of a's jobs ends: its thread goes to b, not to a's backlog

        assert started.wait(BOUND), "the second caller's job never started"
        # a's other jobs still held three threads, and none of a's backlog
        # had started before b's job.
        assert seen == [({"a": 3}, flood - 4)]
    finally:
        for _ in range(flood):
            gate.release()
    _wait(lambda: pool.queued == 0 and holding["a"] == 0)


def test_a_failing_job_does_not_stop_the_pool(caplog: Any) -> None:
    pool = TaskPool(1)
    done = threading.Event()

    def broken() -> None:
        raise RuntimeError("boom")

    pool.submit(broken)
    pool.submit(done.set)

    assert done.wait(BOUND)
    assert "A job of the in-process MCP task pool failed" in caplog.text


def test_each_process_and_thread_count_gets_its_own_pool(settings: Any) -> None:
    first = get_pool()
    settings.MCP_TASK_THREADS = 7

    assert get_pool() is not first
    assert get_pool().threads == 7
    assert get_pool() is get_pool()


@pytest.mark.django_db(transaction=True)
def test_a_queued_task_is_leased_to_the_pool_until_a_thread_takes_it() -> None:
    now = timezone.now()
    McpTask.objects.create(id="waiting", server="s", tool="t", owner="o", created_at=now, updated_at=now)
    pool = TaskPool(1)
    release = threading.Event()
    pool.submit(lambda: release.wait(BOUND))  # the only thread is busy

    pool.submit(lambda: None, task_id="waiting")

    try:
        _wait(lambda: McpTask.objects.get(pk="waiting").lease_expires_at is not None)
        record = McpTask.objects.get(pk="waiting")
        assert record.lease_holder == holder()
        assert record.lease_expires_at > now
        assert pool.queued == 1
    finally:
        release.set()
    _wait(lambda: pool.queued == 0)


@pytest.fixture
def on_the_pool_backend(settings: Any) -> Iterator[None]:
    settings.TASKS = {
        "default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"},
        "pool": {"BACKEND": "django_mcp.tasks.pool.ThreadPoolBackend", "OPTIONS": {"THREADS": 2}},
    }
    settings.MCP_TASK_BACKEND = "pool"
    yield


@pytest.mark.django_db(transaction=True)
def test_the_backend_runs_tasks_in_the_background(on_the_pool_backend: None) -> None:
    from django_mcp.tasks.backend import task_backend

    reply = asyncio.run(
        call(TaskServer, "tools/call", {"name": "echo", "arguments": {"text": "hi"}}, meta=modern_meta(TASKS))
    )
    task_id = reply["result"]["taskId"]

    _wait(lambda: McpTask.objects.get(pk=task_id).status == "completed")
    record = McpTask.objects.get(pk=task_id)
    backend = task_backend()
    assert isinstance(backend, ThreadPoolBackend)
    # The task's row is finished inside the job; the job's own result is
    # marked successful once it returns, a moment later.
    _wait(lambda: backend.get_result(record.job_id).status.name != "RUNNING")
    assert backend.get_result(record.job_id).status.name == "SUCCESSFUL"
    assert record.result["content"] == [{"type": "text", "text": "hi (task)"}]


@pytest.fixture
def without_tasks_setting(monkeypatch: Any) -> Iterator[None]:
    # override_settings cannot take TASKS away (a deleted setting counts as
    # set): make the project look as if it had none.
    monkeypatch.setattr(conf, "_task_alias", lambda: None)
    conf.get_settings.cache_clear()
    yield
    conf.get_settings.cache_clear()


@pytest.mark.django_db(transaction=True)
def test_with_no_tasks_setting_tasks_run_in_the_pool_without_the_framework(
    without_tasks_setting: None, monkeypatch: Any
) -> None:
    from django.core.exceptions import ImproperlyConfigured

    import django_mcp.tasks.backend

    def missing() -> Any:
        raise ImproperlyConfigured("no framework")

    monkeypatch.setattr(django_mcp.tasks.backend, "framework", missing)
    reply = asyncio.run(
        call(TaskServer, "tools/call", {"name": "echo", "arguments": {"text": "hi"}}, meta=modern_meta(TASKS))
    )
    task_id = reply["result"]["taskId"]

    assert reply["result"]["statusMessage"] in ("queued", "running")  # a pool thread may be quicker
    _wait(lambda: McpTask.objects.get(pk=task_id).status == "completed")
    assert McpTask.objects.get(pk=task_id).started_at is not None
