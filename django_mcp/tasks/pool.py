"""Run MCP tasks in threads of the server process: the default with no ``TASKS``.

A project that configures no Tasks backend (``TASKS`` unset and
``MCP_TASK_BACKEND`` None) still gets tasks that run in the background:
``framework.enqueue`` hands each run to this process's ``TaskPool``,
``MCP_TASK_THREADS`` daemon threads that take runs in turn and answer
nothing to anyone (the task's row carries the outcome). It needs no worker
process, no broker and not even the Tasks framework, which suits the demo,
development and small single-process deployments. ``ThreadPoolBackend`` is
the same pool as a Tasks framework backend, for a ``TASKS`` entry of its own
(``{"BACKEND": "django_mcp.tasks.pool.ThreadPoolBackend"}``); it runs any
Task, sync or async, in this process.

What it cannot do, by construction: a job lives in the memory of the
process that queued it. While a task waits in the queue, the pool holds a
lease on it (``store.hold``, renewed every third of
``MCP_TASK_LEASE_TIMEOUT``), so a task whose process died before starting it
fails like one whose worker died while running it; a restart never runs
them again (``Tool.task_retries`` retries only where a reader re-enqueues
them, in a process that is alive). Threads are daemons: stopping the server
does not wait for a running tool. For work that must outlive a process, use
a backend with workers (django-tasks-db and ``manage.py db_worker``).

Fairness: jobs wait in one queue per caller (a task's ``owner``,
``user:<pk>`` or ``anonymous:<address>``; jobs of no task share the queue
``""``), each in the order it was submitted. A thread that frees up takes
the next job of the caller, among those with jobs waiting, whose jobs hold
the fewest threads; callers holding as many take turns (round-robin: a
caller just served goes to the back of the line, a new one joins it there).
A caller alone may use every thread; once others have jobs waiting, each
thread that frees up goes to whoever holds least, so while callers keep jobs
waiting the threads end up split evenly, none holding more than
``ceil(threads / callers)``. A running job is never interrupted: one
caller's hundred long tasks delay another caller's task until the first of
them ends, not until the whole backlog has run.
"""

from __future__ import annotations

import collections
import functools
import logging
import os
import secrets
import threading
import traceback
from collections.abc import Callable
from typing import Any, Final

from django.db import connections
from django.utils import timezone
from django.utils.crypto import get_random_string

from django_mcp.conf import get_settings
from django_mcp.models import McpTask
from django_mcp.tasks import store
from django_mcp.tasks.backend import JOB_PATH, framework_module

__all__ = ["MAX_RESULTS", "TaskPool", "ThreadPoolBackend", "get_pool"]

logger = logging.getLogger(__name__)

MAX_RESULTS: Final = 1000
"""How many finished jobs ``ThreadPoolBackend.get_result`` remembers."""

#: Failed lease renewals in a row tried again before each is logged (a lock passes quickly).
_RENEW_QUIET_FAILURES: Final = 2

#: The backend class, built by ``__getattr__`` on first use.
ThreadPoolBackend: Any

#: A queued job and the MCP task it runs (None: not a task's run).
_Job = tuple[Callable[[], None], str | None]


class _CallerQueues:
    """Waiting jobs by caller, handed out fairly (see the module docstring).

    Not thread-safe: the pool calls it under its lock.
    """

    def __init__(self) -> None:
        # Dict order is the turn order: a served caller goes to the end.
        self._waiting: dict[str, collections.deque[_Job]] = {}
        #: Jobs of each caller running now (threads it holds).
        self.running: collections.Counter[str] = collections.Counter()
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def push(self, caller: str, job: _Job) -> None:
        """Queue ``job`` behind ``caller``'s other waiting jobs."""
        self._waiting.setdefault(caller, collections.deque()).append(job)
        self._count += 1

    def pop(self) -> tuple[str, _Job]:
        """Take the next job (there must be one) and count it as running."""
        # min() keeps the first of equals: among callers holding as few
        # threads, the one whose turn came longest ago.
        caller = min(self._waiting, key=lambda name: self.running[name])
        jobs = self._waiting.pop(caller)
        job = jobs.popleft()
        if jobs:
            self._waiting[caller] = jobs  # back in line, behind the others
        self._count -= 1
        self.running[caller] += 1
        return caller, job

    def done(self, caller: str) -> None:
        """Count one of ``caller``'s running jobs as ended."""
        self.running[caller] -= 1
        if not self.running[caller]:
            del self.running[caller]


class TaskPool:
    """Up to ``threads`` daemon threads running jobs, shared fairly between callers."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._jobs = _CallerQueues()
        self._workers: list[threading.Thread] = []
        self._idle = 0
        #: Task ids queued and not yet started: their leases are this pool's.
        self._queued: set[str] = set()
        self._wake = threading.Event()
        self._heartbeat: threading.Thread | None = None

    def __repr__(self) -> str:
        return f"TaskPool(threads={self.threads}, queued={len(self._jobs)})"

    def submit(self, job: Callable[[], None], *, task_id: str | None = None, caller: str = "") -> str:
        """Queue ``job`` in ``caller``'s turn; return its id.

        ``task_id`` names the MCP task it runs, leased while queued.
        """
        with self._lock:
            self._jobs.push(caller, (job, task_id))
            if task_id is not None:
                self._queued.add(task_id)
                self._start_heartbeat()
            if self._idle:
                self._ready.notify()
            # A woken worker counts as idle until it runs: more jobs than
            # idle workers need new ones (up to the cap), also in a burst.
            if len(self._jobs) > self._idle and len(self._workers) < self.threads:
                worker = threading.Thread(
                    target=self._work, name=f"mcp-task-{len(self._workers)}", daemon=True
                )
                self._workers.append(worker)
                worker.start()
        if task_id is not None:
            self._wake.set()  # lease it now, not a third of the timeout later
        return secrets.token_hex(16)

    @property
    def queued(self) -> int:
        """Return how many jobs wait for a thread."""
        with self._lock:
            return len(self._jobs)

    def _work(self) -> None:
        while True:
            with self._lock:
                while not self._jobs:
                    self._idle += 1
                    self._ready.wait()
                    self._idle -= 1
                caller, (job, task_id) = self._jobs.pop()
                if task_id is not None:
                    self._queued.discard(task_id)
            try:
                job()
            except BaseException:  # noqa: BLE001 - a job's failure must not end the thread
                logger.exception("A job of the in-process MCP task pool failed")
            finally:
                with self._lock:
                    self._jobs.done(caller)
                # Each thread has its own connections: give them back between jobs.
                connections.close_all()

    def _start_heartbeat(self) -> None:
        if self._heartbeat is None:
            self._heartbeat = threading.Thread(target=self._renew, name="mcp-task-leases", daemon=True)
            self._heartbeat.start()

    def _renew(self) -> None:
        """Keep the leases of queued tasks while they wait (a thread of its own)."""
        failures = 0
        while True:
            lease = get_settings().task_lease_timeout
            # After a failed write, try again soon (sooner than the lease
            # could lapse), backing off while the failures go on.
            self._wake.wait(timeout=lease / 3 if not failures else min(lease / 6, 0.05 * 2**failures))
            self._wake.clear()
            with self._lock:
                waiting = list(self._queued)
            if not waiting:
                failures = 0
                continue
            try:
                store.hold(waiting, lease)
                failures = 0
            except Exception:  # the database may be away (or locked) for a moment
                failures += 1
                if failures > _RENEW_QUIET_FAILURES:
                    logger.exception("Could not renew the leases of queued MCP tasks")
            finally:
                connections.close_all()


_pools: dict[tuple[int, int], TaskPool] = {}
_backend_pools: dict[tuple[int, int, str], TaskPool] = {}
_backend_results: dict[str, tuple[collections.OrderedDict[str, Any], threading.Lock]] = {}
_pools_lock = threading.Lock()


def get_pool() -> TaskPool:
    """Return this process's pool, with ``MCP_TASK_THREADS`` threads.

    A forked child gets a pool of its own: threads do not survive a fork.
    """
    key = (os.getpid(), get_settings().task_threads)
    with _pools_lock:
        pool = _pools.get(key)
        if pool is None:
            pool = _pools[key] = TaskPool(key[1])
        return pool


def _owner(task_id: str | None) -> str:
    """Return whose turn MCP task ``task_id``'s run waits for: its owner ("" for other jobs)."""
    if task_id is None:
        return ""
    owner: str | None = McpTask.objects.filter(pk=task_id).values_list("owner", flat=True).first()
    return owner or ""


@functools.cache
def _backend_class() -> type[Any]:
    tasks = framework_module("base")
    base = framework_module("backends.base").BaseTaskBackend
    exceptions = framework_module("exceptions")

    class ThreadPoolBackend(base):  # type: ignore[misc, valid-type]
        """Run Tasks in threads of this process (``django_mcp.tasks.pool``).

        ``OPTIONS`` may hold ``THREADS`` (default ``MCP_TASK_THREADS``).
        Results are kept in this process only, the last ``MAX_RESULTS``.
        The framework makes a backend object per thread: the pool and the
        results belong to the alias, shared by all of them.
        """

        supports_async_task = True
        supports_priority = True

        def __init__(self, alias: str, params: dict[str, Any]) -> None:
            super().__init__(alias, params)
            threads = self.options.get("THREADS")
            self.threads = int(threads) if threads is not None else None
            self.worker_id = get_random_string(32)
            with _pools_lock:
                shared = _backend_results.setdefault(alias, (collections.OrderedDict(), threading.Lock()))
            self._results, self._results_lock = shared

        @property
        def pool(self) -> TaskPool:
            """Return the pool running this alias's jobs in this process."""
            if self.threads is None:
                return get_pool()
            key = (os.getpid(), self.threads, self.alias)
            with _pools_lock:
                pool = _backend_pools.get(key)
                if pool is None:
                    pool = _backend_pools[key] = TaskPool(self.threads)
                return pool

        def enqueue(self, task: Any, args: Any, kwargs: Any) -> Any:
            self.validate_task(task)
            result = tasks.TaskResult(
                task=task,
                id=get_random_string(32),
                status=tasks.TaskResultStatus.READY,
                enqueued_at=timezone.now(),
                started_at=None,
                last_attempted_at=None,
                finished_at=None,
                args=args,
                kwargs=kwargs,
                backend=self.alias,
                errors=[],
                worker_ids=[],
            )
            with self._results_lock:
                self._results[result.id] = result
                while len(self._results) > MAX_RESULTS:
                    self._results.popitem(last=False)
            task_id = args[0] if task.module_path == JOB_PATH and args else None
            self.pool.submit(
                functools.partial(self._execute, result), task_id=task_id, caller=_owner(task_id)
            )
            return result

        def _execute(self, result: Any) -> None:
            now = timezone.now()
            # TaskResult is frozen; the framework's own backends update it so too.
            object.__setattr__(result, "status", tasks.TaskResultStatus.RUNNING)
            object.__setattr__(result, "started_at", now)
            object.__setattr__(result, "last_attempted_at", now)
            result.worker_ids.append(self.worker_id)
            try:
                result.task.call(*result.args, **result.kwargs)
            except BaseException as exc:
                object.__setattr__(result, "status", tasks.TaskResultStatus.FAILED)
                result.errors.append(
                    tasks.TaskError(
                        exception_class_path=f"{type(exc).__module__}.{type(exc).__qualname__}",
                        traceback="".join(traceback.format_exception(exc)),
                    )
                )
                raise
            else:
                object.__setattr__(result, "status", tasks.TaskResultStatus.SUCCESSFUL)
            finally:
                object.__setattr__(result, "finished_at", timezone.now())

        def get_result(self, result_id: str) -> Any:
            with self._results_lock:
                found = self._results.get(result_id)
            if found is None:
                raise exceptions.TaskResultDoesNotExist(result_id)
            return found

        async def aget_result(self, result_id: str) -> Any:
            return self.get_result(result_id)

    ThreadPoolBackend.__module__ = __name__
    return ThreadPoolBackend


def __getattr__(name: str) -> Any:
    if name == "ThreadPoolBackend":
        return _backend_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
